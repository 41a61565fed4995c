/* OTLP points -> samples (docs/DESIGN.md, "One data model" and "The rate rules";
 * docs/vendors/cumulus.md).
 *
 * One ingest per `otlp` source instance, shared by its gRPC and HTTP
 * transports. A request is processed between fsc_otlp_ingest_begin() and
 * fsc_otlp_ingest_end(): begin takes the ingest's lock and hands out a visitor
 * for a decoder (otlp_point.h); end feeds the collected samples to the
 * engine, releases the lock and reports how many points were accepted and
 * rejected (for ExportMetricsPartialSuccess). One lock, because the per-series
 * state (delta sums, start times) must see one request at a time; Cumulus
 * sends ~70 k points/s, far below what one core decodes.
 *
 * Series. Device label = the resource attribute named by device_attribute
 * (default host.name; absent: the source's name). Port = point attribute
 * `interface`. The profile (default cumulus) maps the metric name to a
 * canonical name and traits and names one attribute as an extra label
 * (`tc` -> queue, `sp` -> priority). Other point attributes become labels
 * (sanitized names, bounded count and length); resource attributes other than
 * the device one do not (a switch sends one resource). Unknown names pass
 * through as fabric_cumulus_<sanitized name>.
 *
 * Kinds. Gauge points whose profile entry is a counter are counters (Cumulus
 * sends interface counters as gauge doubles); other gauges are gauges.
 * Monotonic Sums are counters, non-monotonic Sums gauges. CUMULATIVE: the
 * value is the counter; a changed start_time_unix_nano marks the sample
 * FSC_SMP_RESET. DELTA: the ingest keeps the running total per series and
 * feeds that (a delta point never produces a reset). Histograms (both
 * temporalities) are kept as histograms: one counter series per bucket
 * `<name>_bucket{le="<bound>"|"+Inf"}` (cumulative over buckets, as
 * Prometheus counts them) plus `<name>_count` and `<name>_sum`, each marked
 * with its part in traits.expo, so the Prometheus exporter shows them as one
 * histogram family <name> (docs/METRICS.md).
 *
 * Rejected points (counted, never fatal to the rest of the request): no
 * time, no value, NO_RECORDED_VALUE flag (a staleness marker: skipped, not
 * an error), exponential histograms and summaries (not supported), bucket
 * count != bounds + 1, series limit reached, NaN/negative counter values. */
#ifndef FSC_OTLP_INGEST_H
#define FSC_OTLP_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "sources/otlp/otlp_config.h"
#include "plugin/source.h"
#include "sources/otlp/decode/otlp_point.h"

struct fsc_otlp_ingest_config {
    const char *source_name;           /* fallback device label (copied) */
    const char *device_attribute;      /* resource attribute naming the device (copied) */
    const struct fsc_profile *profile; /* NULL = fsc_profile_cumulus */
    int64_t nominal_interval_ns;       /* traits of new series; 0 = 1 s (Cumulus default) */
    uint32_t max_series;               /* per-source bound; 0 = 100000 */
    /* Samples buffered per request before the engine is fed (a
     * bigger request feeds it in chunks of this size); 0 = 65536. */
    uint32_t max_batch;
    /* A test hook: called with every chunk of samples just before
     * fsc_engine_ingest() (also when env->eng is NULL), under the ingest
     * lock. NULL = none. */
    void (*sample_tap)(void *arg, const struct fsc_sample *smp, size_t n);
    void *sample_tap_arg;
    /* Device time bounds (model/time_guard.h): a point whose time is more than
     * max_time_ahead_ns ahead of its request's arrival time, or more than
     * max_time_behind_ns behind it, is rejected; 0 = that side unchecked
     * (the ingest's default; the source passes its keys' 5 m / 24 h). */
    int64_t max_time_ahead_ns, max_time_behind_ns;
};

/* Label bounds: FSC_OTLP_LABEL_VALUE_MAX, FSC_OTLP_LABEL_NAME_MAX (otlp_series.h). */

/* The outcome of one request. */
struct fsc_otlp_ingest_result {
    uint64_t points;      /* data points visited */
    uint64_t accepted;    /* points that produced samples */
    uint64_t rejected;    /* points refused (reasons counted in stats) */
    uint64_t skipped;     /* neither accepted nor rejected: NO_RECORDED_VALUE points and */
    uint64_t other_shard; /* (of skipped) points of a device another shard owns */
    char message[256];    /* first rejection reason of the request, "" when none */
    /* A condition of the sender worth one log line, "" when none; each
     * is returned once (today: a Cumulus device that sends no port byte
     * counter, otlp_bytes.h). The caller logs it; the ingest prints nothing. */
    char warning[256];
};

/* Totals since create (self-monitoring). */
struct fsc_otlp_ingest_stats {
    uint64_t requests, points, accepted, rejected, skipped, samples;
    uint64_t rej_no_time, rej_no_value, rej_unsupported_type, rej_bad_histogram, rej_limit,
        rej_bad_value;
    uint64_t resets; /* cumulative start-time changes seen */
    uint32_t series; /* series known to the ingest */
    size_t memory_bytes;
    uint64_t rej_labels;    /* no usable series identity: metric name empty or over
                             * FSC_PROFILE_VENDOR_MAX, more attributes than labels fit */
    uint64_t samples_lost;  /* samples the engine refused (fsc_engine_ingest error) */
    uint64_t aborted;       /* requests ended by fsc_otlp_ingest_abort() */
    uint64_t heap_allocs;   /* allocations after create; a request of known series makes none */
    uint32_t cache_entries; /* (device, name, attributes[, bounds]) keys cached */
    uint64_t other_shard;   /* of skipped: points of another shard's device */
    uint64_t rej_time;      /* of rejected: time too far ahead or behind */
    uint64_t values_hashed; /* label values over FSC_OTLP_LABEL_VALUE_MAX given a hash
                             * suffix (per point and device name seen) */
    /* Cumulus port bytes by release (otlp_bytes.h). */
    uint64_t bytes_derived;    /* derived (per-class sum) samples emitted */
    uint64_t bytes_incomplete; /* exports of a port that lacked a learned class: no sum */
    uint64_t bytes_dropped;    /* points of a lower-ranked byte counter not counted */
    uint64_t bytes_unplaced;   /* byte points past the port bound or without class */
    /* Cumulus histograms as queue-peak evidence (otlp_hist_evid.c). */
    uint64_t hist_evid_samples;  /* peak gauge samples derived from histogram points */
    uint64_t hist_evid_unplaced; /* histogram points whose peak gauge could not be made */
    /* Attribute keys whose label name is over 63 bytes,
     * named by their first 45 bytes + "_h" + 16 hex digits of a hash of the
     * whole key (otlp_label_name); per point, as values_hashed. */
    uint64_t names_hashed;
    /* Cumulus' link speed (otlp_speed.c): points read, points with
     * no usable value or port (also rejected), reports that changed their
     * port's speed. */
    uint64_t speeds, speed_unreadable, speed_changes;
};

struct fsc_otlp_ingest;

/* Creates an ingest. cfg is copied (strings too); env is copied and its
 * pointers borrowed (reg required; eng and topo may be NULL in tests).
 * Returns NULL with a sentence in err. Thread: any. */
struct fsc_otlp_ingest *fsc_otlp_ingest_create(const struct fsc_otlp_ingest_config *cfg,
                                               const struct fsc_source_env *env, char *err,
                                               size_t errlen);

/* Frees the ingest. NULL is a no-op. Series stay in the registry. */
void fsc_otlp_ingest_destroy(struct fsc_otlp_ingest *ing);

/* Starts a request received at arrival_ns: takes the lock and fills *v with
 * the visitor to pass to a decoder. Every begin must be followed by exactly
 * one end or abort on the same thread. */
void fsc_otlp_ingest_begin(struct fsc_otlp_ingest *ing, int64_t arrival_ns,
                           struct fsc_otlp_visitor *v);

/* Ends the request: feeds its samples to the engine, fills *res and releases
 * the lock. Returns 0, or the engine's negative error (samples then lost,
 * counted). */
int fsc_otlp_ingest_end(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_result *res);

/* Ends a request whose decode failed (no callback was made): releases the
 * lock. */
void fsc_otlp_ingest_abort(struct fsc_otlp_ingest *ing);

/* Calls cb(arg, device, has) for every Cumulus device judged on port bytes:
 * has 1 = sends a byte counter (direct or per class), 0 = sent interface
 * metrics in 3 requests and none (otlp_bytes.h). device is borrowed for the
 * call. Returns the count. Thread: any (takes the lock; cb must not call
 * the ingest). */
size_t fsc_otlp_ingest_devices(struct fsc_otlp_ingest *ing,
                               void (*cb)(void *arg, const char *device, int has), void *arg);

/* Writes the time guard's rows (model/time_guard.h) of source `source`
 * into out. Thread: any (takes the lock; out's callback must not call the
 * ingest). */
void fsc_otlp_ingest_time_stats(struct fsc_otlp_ingest *ing, const char *source,
                                const struct fsc_stats_out *out);

/* Copies the totals. Thread: any (takes the lock). */
void fsc_otlp_ingest_stats(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_stats *out);

#endif
