/* The Kafka exporter (docs/DESIGN.md, "Plugins"; docs/EVENTS.md): detector events from the engine's
 * event bus to the events topic, one JSON document per event keyed "device/port", with librdkafka's
 * idempotent producer (acks=all) so nothing is lost or duplicated by retries.
 *
 * One exporter thread reads the bus, encodes each event through the caller's
 * encoder and hands it on; ingest never waits for Kafka (the bus overwrites
 * what a slow reader misses, and the exporter counts it).
 *
 * With spool_dir set, the spool (kafka_spool.h) is a write-ahead log: every
 * event is appended there before librdkafka sees it, at most queue_max of
 * them are inside librdkafka at a time, the rest wait on disk in order, and a
 * record leaves the spool only when its delivery report says it is written.
 * A delivery that fails (message.timeout.ms passed during an outage, or a
 * retriable error) is re-sent from the spool in the original order. So a
 * broker outage of any length loses nothing while the spool has room; a
 * crash loses only what the fsync policy allows; after a restart the
 * undelivered records are sent first. A record that was in flight when the
 * process died may be sent twice: consumers dedupe by the event id
 * (fsc_kafka_event_id()). Details: docs/CONFIG.md, "kafka".
 *
 * Without a spool, librdkafka holds up to queue_max events with no time limit
 * and further events are dropped (counted); a crash loses what it holds. */
#ifndef FSC_KAFKA_EXPORTER_H
#define FSC_KAFKA_EXPORTER_H

#include <stddef.h>
#include <stdint.h>

#include "kafka/kafka_config.h"
#include "engine/events.h"

/* Encodes *ev as one JSON document into out[0..cap) and its message key
 * ("device/port", NUL-terminated) into key[0..keycap). Returns the document's
 * length, or a negative errno (-E2BIG: does not fit; anything else: the event
 * cannot be encoded). Either way the exporter counts and skips the event on
 * error. Called on the exporter thread only. */
typedef int (*fsc_kafka_encode_fn)(void *arg, const struct fsc_event *ev, char *out, size_t cap,
                                   char *key, size_t keycap);

/* Event ids: "<run id>-<seq>", e.g. "3f9c0a17d2e45b61-1042". The run id is 16
 * hex digits drawn at start-up, seq the event's bus sequence number, so an id
 * is unique across restarts, and a record re-sent after a crash carries the
 * id it was first encoded with (the spool stores the encoded document). The
 * JSON encoder writes it as the event's "id"; consumers dedupe on it. */
#define FSC_KAFKA_RUN_ID_LEN   16
#define FSC_KAFKA_EVENT_ID_MAX (FSC_KAFKA_RUN_ID_LEN + 1 + 20 + 1)

/* A fresh run id (FSC_KAFKA_RUN_ID_LEN lowercase hex digits + NUL) from
 * getrandom(); falls back to clock ^ pid if that fails. Thread: any. */
void fsc_kafka_run_id_new(char out[FSC_KAFKA_RUN_ID_LEN + 1]);

/* Writes "<run_id>-<seq>" into buf. Returns its length, or -E2BIG when size
 * is too small (FSC_KAFKA_EVENT_ID_MAX always suffices). Thread: any. */
int fsc_kafka_event_id(char *buf, size_t size, const char *run_id, uint64_t seq);

struct fsc_kafka_exporter_options {
    const struct fsc_kafka_config *cfg; /* borrowed; must outlive the exporter */
    const char *config_file;            /* for "file:line:col" in errors; may be NULL */
    struct fsc_event_bus *bus;          /* borrowed; subscribed at start */
    fsc_kafka_encode_fn encode;
    void *encode_arg;
    size_t max_event_bytes; /* encoder buffer; 0: 64 KiB (at most 1 MiB) */
};

/* Counters since start (monotonic) and gauges (current). */
struct fsc_kafka_stats {
    uint64_t queued;         /* events taken in: encoded and spooled / handed to librdkafka */
    uint64_t delivered;      /* delivery reports without error */
    uint64_t failed;         /* delivery reports with an error, each attempt counted
                              * (timeouts during an outage, retriable and permanent errors;
                              * not the exporter's own purges) */
    uint64_t retried;        /* records handed to librdkafka again after a failed attempt */
    uint64_t spooled;        /* events that had to wait in the spool: the in-memory queue was
                              * full or a re-send was pending, or found at start */
    uint64_t dropped;        /* events lost, sum of the dropped_* below */
    uint64_t dropped_bus;    /* overwritten on the bus before the exporter read them */
    uint64_t dropped_encode; /* the encoder refused them */
    uint64_t dropped_full;   /* spool full (or, without a spool, queue_max reached) */
    uint64_t dropped_error;  /* permanent delivery errors (message too large, ...) */
    uint64_t spool_corrupt;  /* bad records found at start (each ended its segment) */
    uint64_t spool_io_errors;
    uint64_t producer_restarts; /* producer re-created after a fatal error */
    /* gauges */
    uint64_t queue_messages; /* inside librdkafka, not yet reported */
    uint64_t queue_bytes;    /* their payload + key bytes */
    uint64_t spool_records;  /* in the spool, not yet delivered (includes queue_messages) */
    uint64_t spool_bytes;    /* their bytes on disk */
    int broker_up;           /* 1 while at least one broker connection is up */
};

struct fsc_kafka_exporter;

/* Builds the producer configuration (properties checked with
 * rd_kafka_conf_set), opens the spool (recovering what a previous run left),
 * creates the producer, subscribes to the bus and starts the exporter thread.
 * Unreachable brokers are not an error: the producer keeps retrying, logs
 * `kafka_brokers_down` and stats.broker_up stays 0. Returns the exporter, or
 * NULL with a sentence in err; a refused property reads
 * "file:line:col: exporters.kafka.properties.NAME: ...".
 * Thread: any (the daemon's main thread). */
struct fsc_kafka_exporter *fsc_kafka_exporter_start(const struct fsc_kafka_exporter_options *opt,
                                                    char *err, size_t errlen);

/* Stops taking events (those already on the bus are taken), then waits up to
 * timeout_ns for everything taken to be delivered (with a spool: only while
 * deliveries come, 1 s without one ends the wait), stops the thread, logs
 * kafka_stopped (what is left on disk, what was dropped) and frees the
 * exporter. What is left stays in the spool for the next start (without a
 * spool: is dropped); what the spool's disk refused is counted as dropped.
 * Returns 0 when everything was delivered, -ETIMEDOUT otherwise. NULL is a
 * no-op (returns 0). Thread: the one that started it. */
int fsc_kafka_exporter_stop(struct fsc_kafka_exporter *exp, int64_t timeout_ns);

/* Copies the current statistics. Thread: any (atomics; no lock). */
void fsc_kafka_exporter_stats(const struct fsc_kafka_exporter *exp, struct fsc_kafka_stats *out);

/* Checks the kafka section against librdkafka without connecting: builds
 * the producer configuration (every property name and value through
 * rd_kafka_conf_set(), the TLS / SASL mapping). Settings that only clash
 * with each other, or files that do not exist, are found by start().
 * For `check-config` and start. Returns 0, or -1 with
 * "file:line:col: exporters.kafka...: sentence" (file may be NULL) in err.
 * Thread: any. */
int fsc_kafka_config_check(const struct fsc_kafka_config *cfg, const char *file, char *err,
                           size_t errlen);

#endif
