/* gNMI SubscribeResponse -> samples (docs/DESIGN.md, "One data model").
 *
 * One decoder per Subscribe stream, used by that stream's thread only. Input
 * is the bytes of one gnmi.SubscribeResponse as gRPC delivers them; output is
 * `struct fsc_sample` values appended to a caller buffer, plus what the
 * stream's health logic needs (sync_response, deletes, lost messages, error).
 *
 * Why a hand-written wire reader instead of protobuf-c's unpack: unpack builds
 * a tree of heap objects (Update, Path, PathElem, key entries, strings,
 * TypedValue: ~10 objects per update) and walks every message twice; even on
 * a bump arena that costs several hundred ns per update, ten times the 35 ns
 * budget. The reader here walks the bytes once per level, never copies a
 * string, and keeps no pointer into the input after the call. protobuf-c and
 * the generated code (proto/) still build requests and the test messages,
 * so the wire format is checked against an independent encoder.
 *
 * Series. Two bounded hash tables: the raw bytes of Notification.prefix ->
 * a prefix id (looked up once per message), and (prefix id, raw bytes of
 * Update.path) -> series id. A target serializes a path the same way every
 * time, so a hit hashes and compares the received bytes and never parses the
 * path. A miss parses prefix + path (`__` elems removed, origin and target
 * ignored, list keys sorted by name), maps the keyless path through the
 * profile (fsc_profile_map), builds the labels (device from the config, port
 * from the interface key, the profile entry's extra label from its list key,
 * role / rail / peer from the topology, other keys for passthrough series),
 * and looks up or interns the series (setting its traits when new); two byte
 * encodings of one path therefore reach one series. Past max_series entries,
 * paths resolve through the registry on every update (slow, counted as
 * cache_full). Pseudo-leaf and unsupported-path verdicts are cached too.
 *
 * Timestamps: Junos header extension payload_get_timestamp (ms) when present
 * and non-zero, else Notification.timestamp (ns), else the arrival time
 * (flagged FSC_SMP_ARRIVAL_TIME).
 *
 * Sequence numbers: the Junos header sequence_number is followed per
 * (component_id, sub_component_id, streamed path) in a reorder window of the
 * 64 numbers up to the highest seen (gnmi_seq.c, bounded table): a number
 * still missing when 64 newer ones arrived, or when its numbering ended, is
 * a lost message, counted once; one that arrives late is not lost; a
 * producer that starts its numbering over is no gap. A change of the
 * header's stream_creation_timestamp marks that message's samples
 * FSC_SMP_RESET.
 *
 * Last-clear: the profile's reset_leaf (Junos: OpenConfig last-clear) is no
 * series. When a port's value changes (not on its first sighting), the first
 * sample of each of that port's counters from that notification on carries
 * FSC_SMP_RESET, whether the leaf came before or after them in the
 * notification or in an earlier one (gnmi_clear.c). Bounded: GNMI_PORTS_MAX
 * ports per stream, and only series in the series cache.
 *
 * Zero suppression (fill_suppressed_zeros; gnmi_zero.c): a counter leaf
 * whose last value was 0 (Junos sends zeros in the initial sync) and that a
 * later report of its container (its port, its queue) leaves out reads 0 at
 * that report; one that other instances of its container report and that
 * this one never sent in 3 reports reads 0 too. Bounded per stream.
 *
 * Link speed: port-speed, negotiated-port-speed and high-speed
 * (gnmi_speed.c) are no series either: each value is the port's report to
 * the source's link-speed table (engine/link_speed.h), which gives the
 * port's speed to every series of the port that takes one.
 *
 * Producers: a series whose records come from more than one (component_id,
 * sub_component_id) - an interface reported once per line card - is
 * combined into one sample stream (sum of the producers' last counter
 * values, max of gauges; gnmi_components.c), never two conflicting samples
 * of one series. Batches: Junos reports a subset of a sensor's records per
 * interval (eom on the last message of a batch); each record carries its own
 * payload timestamp, so a port's counters need no assembly across messages
 * before rates: eom is counted (eoms) for the stream's health, not waited
 * for. */
#ifndef FSC_GNMI_DECODE_H
#define FSC_GNMI_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/sample.h"
#include "plugin/source.h"

#define FSC_GNMI_PATH_KEY_MAX 1024 /* encoded path (names + keys) per update, bytes */
#define FSC_GNMI_ELEMS_MAX    32   /* path elems after prefix + path joining */
#define FSC_GNMI_KEYS_MAX     8    /* list keys per elem */

struct fsc_gnmi_decode_config {
    const char *device;                /* device label value (copied) */
    const struct fsc_profile *profile; /* NULL = fsc_profile_junos */
    int64_t sample_interval_ns;        /* nominal interval for new series; 0 = none */
    uint32_t max_series;               /* series cache bound; 0 = 16384 */
    uint32_t max_seq_keys;             /* sequence tracking bound; 0 = 256 */
    bool live;                         /* counter_copy: live (values true at their timestamps) */
    bool fill_suppressed_zeros;        /* the device suppresses zeros (Junos): gnmi_zero.c */
    uint8_t variant_mask;              /* the device's profile variant bits; 0 = any */
};

/* What one message produced (fully overwritten by each decode call). */
struct fsc_gnmi_result {
    uint32_t n_samples;     /* samples appended to the caller's buffer */
    uint32_t updates;       /* Update entries in the notification */
    uint32_t pseudo;        /* `__`-prefixed pseudo leaves dropped */
    uint32_t unsupported;   /* values that are not numbers, or paths too deep / empty */
    uint32_t path_dropped;  /* of those: paths past FSC_GNMI_ELEMS_MAX elems or
                             * FSC_GNMI_PATH_KEY_MAX bytes, too many keys, or empty */
    uint32_t unknown;       /* updates that went to a passthrough (profile-unknown) series */
    uint32_t no_series;     /* updates whose series the registry or engine refused */
    uint32_t overflow;      /* updates dropped because the caller's buffer was full */
    uint32_t deletes;       /* Notification.delete paths (reported, not sampled) */
    uint32_t clears;        /* last-clear leaves read (reset evidence, not sampled) */
    uint32_t speeds;        /* link-speed leaves read (the port's speed, not sampled) */
    uint32_t multi_wait;    /* updates of a multi-producer series held until all reported */
    uint32_t multi_dropped; /* updates of a multi-producer series past the bounds (dropped) */
    uint32_t names_hashed;  /* updates of a series with a list-key label name over 63 bytes,
                             * hashed to 45 bytes + "_h" + 16 hex digits */
    uint32_t zero_filled;   /* samples of value 0 added for zero-suppressed counters */
    uint64_t seq_skipped;   /* sequence numbers this message jumped over (may arrive late) */
    uint64_t seq_lost;      /* numbers this message made lost: out of the reorder window
                             * unseen, or their numbering ended; each counted once */
    int64_t t_dev_ns;       /* timestamp given to this message's samples */
    uint8_t sync_response;  /* SubscribeResponse.sync_response = true */
    uint8_t error;          /* deprecated SubscribeResponse.error present */
    uint8_t has_header;     /* a Junos telemetry header extension was decoded */
    uint8_t header_time;    /* t_dev_ns came from the header (ms) */
    uint8_t eom;            /* the header's eom: the last message of a batch */
    uint8_t seq_late;       /* this message's number had been jumped over: late, not lost */
};

/* Totals since create (self-monitoring). */
struct fsc_gnmi_decode_stats {
    uint64_t messages, malformed, updates, samples, pseudo, unsupported, unknown, no_series,
        overflow, deletes, sync_responses, errors, cache_full, multi_series, multi_wait,
        multi_dropped, eoms, names_hashed, zero_filled;
    /* Sequence numbers (gnmi_seq.c): jumped over, arrived late, lost (each
     * once), seen twice, numberings started over, producers not followed. */
    uint64_t seq_skipped, seq_late, seq_lost, seq_repeats, seq_restarts, seq_untracked;
    /* Last-clear (gnmi_clear.c): leaves read, changes seen, samples flagged
     * FSC_SMP_RESET for them, cache entries whose port was not followed. */
    uint64_t clears, clear_changes, clear_resets, clear_untracked;
    /* Link speed (gnmi_speed.c): leaves read, values that are no speed,
     * reports that changed their port's speed. */
    uint64_t speeds, speed_unreadable, speed_changes;
    uint32_t cache_series; /* entries in the series cache */
    uint32_t heap_allocs;  /* heap allocations made after create (cache growth, key blocks) */
    size_t memory_bytes;   /* bytes held by the decoder */
};

struct fsc_gnmi_decoder;

/* Creates a decoder for one stream. cfg is copied (the device string too);
 * env is copied and its pointers borrowed: reg must be set, eng and topo may
 * be NULL (no traits / no topology labels: tests and tools). Returns NULL with
 * a sentence in err on a bad argument or allocation failure. Thread: any. */
struct fsc_gnmi_decoder *fsc_gnmi_decoder_create(const struct fsc_gnmi_decode_config *cfg,
                                                 const struct fsc_source_env *env, char *err,
                                                 size_t errlen);

/* Frees the decoder. NULL is a no-op. Series stay in the registry. */
void fsc_gnmi_decoder_destroy(struct fsc_gnmi_decoder *dec);

/* Decodes one SubscribeResponse of `len` bytes. Samples are written to
 * out[0 .. res->n_samples) (out_cap at most; more are counted as overflow),
 * each stamped t_arr_ns = arrival_ns. *res is always overwritten.
 * Returns 0, or -EBADMSG for bytes that are not a valid SubscribeResponse
 * (counted as malformed; nothing is emitted, res->n_samples = 0). Series seen
 * for the first time are interned (registry lock, engine traits); a message
 * whose series are all cached allocates nothing. No pointer into buf is kept.
 * Thread: the stream's thread only (the decoder is not shared). */
int fsc_gnmi_decode(struct fsc_gnmi_decoder *dec, const uint8_t *buf, size_t len,
                    int64_t arrival_ns, struct fsc_sample *out, size_t out_cap,
                    struct fsc_gnmi_result *res);

/* Copies the totals into *out. Thread: the stream's thread (plain reads). */
void fsc_gnmi_decoder_stats(const struct fsc_gnmi_decoder *dec, struct fsc_gnmi_decode_stats *out);

#endif
