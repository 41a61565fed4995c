/* Delivery: the in-flight ring, delivery reports, in-order re-sends.
 *
 * With a spool, every record librdkafka holds is also an entry of the ring,
 * in hand-over order (= spool order). A delivery report marks its entry
 * done or failed; done entries leave the ring head in order and are
 * acknowledged in the spool, so the spool's ack is always "everything before
 * here is delivered".
 *
 * A failed delivery (message timeout during an outage, a retriable error)
 * must be re-sent before anything after it, or the key's order breaks. So on
 * the first failure the exporter stops handing over, purges librdkafka's
 * queue (the records behind the failed one come back at once, undelivered),
 * waits until every record in flight has come back, and then re-sends the
 * failed entries in ring order, skipping those that were delivered, before
 * it hands over new records. Only a record that was already on the wire when
 * the failure hit can be delivered out of order: Kafka's own idempotence does
 * not cover a message re-produced by the application. */
#include <errno.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/log.h"
#include "kafka/kafka_exporter_int.h"

#define RESEND_BACKOFF_NS 1000000000ll /* at most one re-send round per second */
#define LOG_EVERY_NS      10000000000ll

static inline void add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

bool fsc_kafka_err_permanent(rd_kafka_resp_err_t err)
{
    switch (err) {
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR__BAD_MSG:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
        return true;
    default:
        return false;
    }
}

static bool err_purged(rd_kafka_resp_err_t err)
{
    return err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT;
}

rd_kafka_resp_err_t fsc_kafka_produce(struct fsc_kafka_exporter *x, const void *key, size_t klen,
                                      const void *val, size_t vlen, void *opaque)
{
    if (rd_kafka_produce(x->rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, (void *)val, vlen,
                         klen ? key : NULL, klen, opaque) == 0)
        return RD_KAFKA_RESP_ERR_NO_ERROR;
    return rd_kafka_last_error();
}

/* A delivery proves a broker is up; it usually comes before the statistics
 * callback (on_stats) would notice, so the recovery is logged here too. */
static void mark_up(struct fsc_kafka_exporter *x)
{
    if (atomic_exchange(&x->c.broker_up, 1) == 0)
        fsc_log(FSC_LOG_INFO, "kafka_brokers_up", "topic=%s", x->cfg->events_topic);
}

static void log_failure(struct fsc_kafka_exporter *x, rd_kafka_resp_err_t err, bool permanent)
{
    int64_t now = fsc_mono_ns();
    if (!permanent && now - x->last_fail_log_ns < LOG_EVERY_NS)
        return;
    x->last_fail_log_ns = now;
    char q[256];
    fsc_log(permanent ? FSC_LOG_ERROR : FSC_LOG_WARN, "kafka_delivery_failed",
            "topic=%s error=%s action=%s reason=%s", x->cfg->events_topic, rd_kafka_err2name(err),
            permanent ? "dropped" : (x->sp ? "resend_from_spool" : "retry"),
            fsc_log_quote(rd_kafka_err2str(err), q, sizeof(q)));
}

/* Without a spool the report carries the only copy: a retriable failure is
 * produced again at once (librdkafka's own queue keeps the order of what it
 * still holds; this one moves to the back). */
static void no_spool_report(struct fsc_kafka_exporter *x, const rd_kafka_message_t *msg)
{
    x->inflight--;
    x->inflight_bytes -= msg->len + msg->key_len;
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        add(&x->c.delivered, 1);
        mark_up(x);
        return;
    }
    bool purged = err_purged(msg->err);
    bool permanent = fsc_kafka_err_permanent(msg->err);
    if (!purged) {
        add(&x->c.failed, 1);
        log_failure(x, msg->err, permanent);
    }
    if (permanent || x->stopping || x->fatal) {
        add(&x->c.dropped_error, 1);
        return;
    }
    if (fsc_kafka_produce(x, msg->key, msg->key_len, msg->payload, msg->len, NULL) != 0) {
        add(&x->c.dropped_error, 1);
        return;
    }
    x->inflight++;
    x->inflight_bytes += msg->len + msg->key_len;
    add(&x->c.retried, 1);
}

void fsc_kafka_on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *msg, void *opaque)
{
    struct fsc_kafka_exporter *x = opaque;
    (void)rk;
    if (x->sp == NULL) {
        no_spool_report(x, msg);
        return;
    }
    uint64_t slot = (uint64_t)(uintptr_t)msg->_private;
    if (slot == 0 || slot > x->cap)
        return;
    struct kent *e = &x->ring[slot - 1];
    if (e->state != KENT_INFLIGHT)
        return; /* a report for a producer we already gave up on */
    x->inflight--;
    x->inflight_bytes -= e->bytes;
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        e->state = KENT_DONE;
        add(&x->c.delivered, 1);
        mark_up(x);
        return;
    }
    if (fsc_kafka_err_permanent(msg->err)) {
        e->state = KENT_DONE; /* re-sending cannot help; the ack passes it */
        add(&x->c.failed, 1);
        add(&x->c.dropped_error, 1);
        log_failure(x, msg->err, true);
        return;
    }
    e->state = KENT_FAILED;
    if (!err_purged(msg->err)) {
        add(&x->c.failed, 1);
        log_failure(x, msg->err, false);
    }
    if (!x->resend_pending) {
        x->resend_pending = true;
        x->purge_wanted = true;
        x->resend_at = fsc_mono_ns() + RESEND_BACKOFF_NS;
    }
}

void fsc_kafka_settle(struct fsc_kafka_exporter *x, int64_t now)
{
    if (x->sp == NULL)
        return;
    if (x->purge_wanted) {
        x->purge_wanted = false;
        rd_kafka_purge(x->rk, RD_KAFKA_PURGE_F_QUEUE);
    }
    uint64_t n = 0;
    struct fsc_kspool_pos upto = {0, 0};
    while (x->count > 0 && x->ring[x->base % x->cap].state == KENT_DONE) {
        upto = x->ring[x->base % x->cap].next;
        x->base++;
        x->count--;
        n++;
    }
    if (x->redo < x->base)
        x->redo = x->base;
    if (n > 0 && fsc_kspool_ack(x->sp, upto, n) != 0)
        fsc_log(FSC_LOG_ERROR, "kafka_spool_ack_failed", "records=%llu", (unsigned long long)n);
    if (x->resend_pending && x->inflight == 0 && now >= x->resend_at) {
        /* Every record handed over has come back: re-send the failed ones
         * from the head, in order, before anything new. */
        x->resend_pending = false;
        x->redo = x->base;
    }
}

/* Hands over ring entry e (slot index) from its spool record. */
static rd_kafka_resp_err_t hand_over(struct fsc_kafka_exporter *x, uint64_t slot,
                                     const struct fsc_kspool_rec *rec)
{
    rd_kafka_resp_err_t err = fsc_kafka_produce(x, rec->key, rec->klen, rec->val, rec->vlen,
                                                (void *)(uintptr_t)(slot + 1));
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        struct kent *e = &x->ring[slot];
        e->state = KENT_INFLIGHT;
        e->bytes = rec->klen + rec->vlen;
        x->inflight++;
        x->inflight_bytes += e->bytes;
    } else if (err == RD_KAFKA_RESP_ERR__FATAL) {
        x->fatal = true;
    }
    return err;
}

/* A produce() error other than "no room now": permanent for this record
 * (too large for the producer), or the topic is unknown for now. */
static bool err_wait(rd_kafka_resp_err_t err)
{
    return err == RD_KAFKA_RESP_ERR__QUEUE_FULL || err == RD_KAFKA_RESP_ERR__FATAL ||
           err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC || err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION ||
           err == RD_KAFKA_RESP_ERR__STATE;
}

/* A record that cannot be read back (its flush failed: disk full, or an
 * I/O error) is retried on every pump, i.e. every few milliseconds: logged
 * at most once per LOG_EVERY_NS with the count left out (unthrottled, a full
 * disk logs ~100 lines a second, faults.disk_full). One exporter thread. */
static void log_read_failed(int rc)
{
    static int64_t last_ns;
    static uint64_t suppressed;
    int64_t now = fsc_mono_ns();
    if (last_ns != 0 && now - last_ns < LOG_EVERY_NS) {
        suppressed++;
        return;
    }
    fsc_log(FSC_LOG_ERROR, "kafka_spool_read_failed", "error=%d suppressed=%llu", rc,
            (unsigned long long)suppressed);
    last_ns = now;
    suppressed = 0;
}

void fsc_kafka_pump(struct fsc_kafka_exporter *x, int64_t now)
{
    (void)now;
    if (x->sp == NULL || x->resend_pending || x->fatal)
        return;
    struct fsc_kspool_rec rec;
    /* Re-sends first. */
    for (; x->redo < x->base + x->count; x->redo++) {
        uint64_t slot = x->redo % x->cap;
        struct kent *e = &x->ring[slot];
        if (e->state != KENT_FAILED)
            continue;
        int rc = fsc_kspool_read(x->sp, e->pos, &rec);
        if (rc != 0) {
            /* Unreadable now (I/O error): try again on the next round. */
            log_read_failed(rc);
            return;
        }
        rd_kafka_resp_err_t err = hand_over(x, slot, &rec);
        if (err_wait(err))
            return;
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            e->state = KENT_DONE;
            add(&x->c.dropped_error, 1);
            log_failure(x, err, true);
            continue;
        }
        add(&x->c.retried, 1);
    }
    /* Then new records, while the ring (= queue_max) has room. */
    while (x->count < x->cap) {
        int rc = fsc_kspool_read(x->sp, x->cursor, &rec);
        if (rc == -ENOENT)
            return;
        if (rc != 0) {
            log_read_failed(rc);
            return;
        }
        uint64_t a = x->base + x->count;
        struct kent *e = &x->ring[a % x->cap];
        e->pos = rec.pos;
        e->next = rec.next;
        rd_kafka_resp_err_t err = hand_over(x, a % x->cap, &rec);
        if (err_wait(err))
            return;
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            e->state = KENT_DONE;
            add(&x->c.dropped_error, 1);
            log_failure(x, err, true);
        }
        x->count++;
        x->redo = x->base + x->count;
        x->cursor = rec.next;
    }
}
