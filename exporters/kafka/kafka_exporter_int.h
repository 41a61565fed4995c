/* Internal to the Kafka exporter: its state, shared by the thread and
 * lifecycle code (kafka_exporter.c) and the delivery machinery
 * (kafka_deliver.c: the in-flight ring, delivery reports, re-sends). */
#ifndef FSC_KAFKA_EXPORTER_INT_H
#define FSC_KAFKA_EXPORTER_INT_H

#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kafka/kafka_exporter.h"
#include "kafka/kafka_spool.h"

#define KAFKA_BATCH 256 /* events taken from the bus per round */

/* One record handed to librdkafka (spool mode), in hand-over order. */
enum kent_state {
    KENT_INFLIGHT = 0, /* inside librdkafka */
    KENT_DONE = 1,     /* delivered, or dropped for a permanent error */
    KENT_FAILED = 2,   /* came back undelivered: to be re-sent */
};

struct kent {
    struct fsc_kspool_pos pos, next;
    uint32_t bytes;
    uint8_t state;
};

/* Counters the exporter thread writes and stats() reads. */
struct kafka_counters {
    _Atomic uint64_t queued, delivered, failed, retried, spooled;
    _Atomic uint64_t dropped_bus, dropped_encode, dropped_full, dropped_error;
    _Atomic uint64_t producer_restarts;
    _Atomic uint64_t queue_messages, queue_bytes;
    _Atomic uint64_t spool_records, spool_bytes, spool_corrupt, spool_io_errors;
    _Atomic int broker_up;
};

struct fsc_kafka_exporter {
    const struct fsc_kafka_config *cfg;
    fsc_kafka_encode_fn encode;
    void *encode_arg;
    struct fsc_event_sub *sub;
    struct fsc_event *evs; /* KAFKA_BATCH */
    char *ebuf;            /* encoder output */
    size_t ecap;
    char key[FSC_KSPOOL_MAX_KEY + 1];

    rd_kafka_conf_t *conf; /* template: a fresh producer after a fatal error */
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    struct fsc_kspool *sp;       /* NULL: no spool (and after the stop closed it) */
    struct fsc_kspool_left left; /* what the stop left in the spool */

    /* Spool mode: entries [base, base + count) by absolute index a, slot
     * a % cap. Entries from `redo` on that are KENT_FAILED are re-sent before
     * anything new is handed over; redo == base + count: nothing to re-send. */
    struct kent *ring;
    uint64_t cap, base, count, redo;
    struct fsc_kspool_pos cursor; /* next spool record to hand over */
    uint64_t inflight, inflight_bytes;
    bool resend_pending; /* a failure came back: stop handing over until all return */
    bool purge_wanted;   /* purge librdkafka's queue at the next chance */
    int64_t resend_at;   /* not before this (backoff) */
    bool fatal;          /* the producer raised a fatal error: re-create it */
    int64_t recreate_at; /* next attempt (one per second) */
    bool stopping;

    /* Logging rate limits. */
    int last_err;
    int64_t last_err_ns, last_fail_log_ns;

    pthread_t thread;
    atomic_bool stop;
    _Atomic int64_t deadline_ns;
    int result; /* of the thread: 0 or -ETIMEDOUT */

    struct kafka_counters c;
};

/* Delivery report callback (rd_kafka_conf_set_dr_msg_cb); runs on the
 * exporter thread inside rd_kafka_poll(). */
void fsc_kafka_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque);

/* Hands spool records to librdkafka: failed ones first (in order), then new
 * ones from the cursor, while the ring has room. */
void fsc_kafka_pump(struct fsc_kafka_exporter *x, int64_t now);

/* Pops delivered entries off the ring head and acknowledges them in the
 * spool; starts a re-send once every failed record has come back. */
void fsc_kafka_settle(struct fsc_kafka_exporter *x, int64_t now);

/* Produces one message (copy); opaque identifies it in the report.
 * Returns 0 or the librdkafka error. */
rd_kafka_resp_err_t fsc_kafka_produce(struct fsc_kafka_exporter *x, const void *key, size_t klen,
                                      const void *val, size_t vlen, void *opaque);

/* True for delivery errors that re-sending cannot fix. */
bool fsc_kafka_err_permanent(rd_kafka_resp_err_t err);

#endif
