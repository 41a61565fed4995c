/* The Kafka exporter's lifecycle and thread: take events from the bus,
 * encode, spool (or produce), serve librdkafka's callbacks; stop with a
 * flush. Delivery bookkeeping is in kafka_deliver.c. */
#define _DEFAULT_SOURCE /* getrandom() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "kafka/kafka_exporter_int.h"
#include "kafka/kafka_int.h"

#define LOG_EVERY_NS (10 * 1000000000ll)
/* With a spool, the stop waits for deliveries only while they come: giving
 * up loses nothing (what is not delivered stays on disk for the next start),
 * and a broker that is down, or a disk too full to read records back, would
 * otherwise hold the stop for its whole timeout. */
#define STOP_IDLE_NS 1000000000ll

static inline void add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static inline void put(_Atomic uint64_t *c, uint64_t v)
{
    atomic_store_explicit(c, v, memory_order_relaxed);
}

static inline uint64_t get(const _Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

void fsc_kafka_run_id_new(char out[FSC_KAFKA_RUN_ID_LEN + 1])
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        v = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
            ((uint64_t)getpid() << 40);
    }
    snprintf(out, FSC_KAFKA_RUN_ID_LEN + 1, "%016llx", (unsigned long long)v);
}

int fsc_kafka_event_id(char *buf, size_t size, const char *run_id, uint64_t seq)
{
    int n = snprintf(buf, size, "%s-%llu", run_id, (unsigned long long)seq);
    if (n < 0)
        return -EINVAL;
    return (size_t)n >= size ? -E2BIG : n;
}

/* ---- librdkafka callbacks (rd_kafka_poll() on the exporter thread, except
 * the log callback, which librdkafka's own threads call) ------------------- */

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    struct fsc_kafka_exporter *x = opaque;
    char q[512];
    (void)rk;
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        x->fatal = true; /* handled by recreate() with the fatal reason */
        return;
    }
    if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
        if (atomic_exchange(&x->c.broker_up, 0) != 0 || x->last_err != err)
            fsc_log(FSC_LOG_WARN, "kafka_brokers_down",
                    "topic=%s action=\"keep retrying; events wait in %s\" reason=%s",
                    x->cfg->events_topic, x->sp ? "the spool" : "memory",
                    fsc_log_quote(reason, q, sizeof(q)));
        x->last_err = err;
        return;
    }
    int64_t now = fsc_mono_ns();
    if (err == x->last_err && now - x->last_err_ns < LOG_EVERY_NS)
        return;
    x->last_err = err;
    x->last_err_ns = now;
    fsc_log(FSC_LOG_WARN, "kafka_error", "error=%s reason=%s",
            rd_kafka_err2name((rd_kafka_resp_err_t)err), fsc_log_quote(reason, q, sizeof(q)));
}

/* Is any real broker's connection UP in the statistics JSON? Each broker
 * object has "source" (configured / learned / internal / logical) before
 * "state"; the internal pseudo-broker is always UP and does not count. */
static bool stats_broker_up(const char *json)
{
    const char *p = json;
    while ((p = strstr(p, "\"source\":\"")) != NULL) {
        p += 10;
        bool real = strncmp(p, "internal\"", 9) != 0 && strncmp(p, "logical\"", 8) != 0;
        const char *st = strstr(p, "\"state\":\"");
        if (st == NULL)
            break;
        if (real && strncmp(st + 9, "UP\"", 3) == 0)
            return true;
        p = st + 9;
    }
    return false;
}

static int on_stats(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
    struct fsc_kafka_exporter *x = opaque;
    (void)rk;
    (void)len;
    bool up = stats_broker_up(json);
    if (atomic_exchange(&x->c.broker_up, up ? 1 : 0) == 0 && up)
        fsc_log(FSC_LOG_INFO, "kafka_brokers_up", "topic=%s", x->cfg->events_topic);
    return 0; /* librdkafka frees json */
}

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    (void)fac;
    enum fsc_log_level l = level <= 3   ? FSC_LOG_ERROR
                           : level == 4 ? FSC_LOG_WARN
                           : level <= 6 ? FSC_LOG_INFO
                                        : FSC_LOG_DEBUG;
    fsc_log_lib(l, "rdkafka", buf);
}

/* ---- producer ------------------------------------------------------------ */

static int new_producer(struct fsc_kafka_exporter *x, const char *file, char *err, size_t errlen)
{
    char why[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_dup(x->conf);
    if (conf == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    x->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, sizeof(why));
    if (x->rk == NULL) {
        rd_kafka_conf_destroy(conf); /* not consumed on failure */
        snprintf(err, errlen, "%s%sexporters.kafka: librdkafka cannot start a producer: %s",
                 file ? file : "", file ? ": " : "", why);
        return -1;
    }
    x->rkt = rd_kafka_topic_new(x->rk, x->cfg->events_topic, NULL);
    if (x->rkt == NULL) {
        snprintf(err, errlen, "exporters.kafka.events_topic: librdkafka: %s",
                 rd_kafka_err2str(rd_kafka_last_error()));
        rd_kafka_destroy(x->rk);
        x->rk = NULL;
        return -1;
    }
    return 0;
}

static void destroy_producer(struct fsc_kafka_exporter *x)
{
    if (x->rkt != NULL)
        rd_kafka_topic_destroy(x->rkt);
    if (x->rk != NULL)
        rd_kafka_destroy(x->rk);
    x->rkt = NULL;
    x->rk = NULL;
}

/* After a fatal error (the idempotent producer lost its state) librdkafka
 * refuses to produce: take every record back, start a new producer and
 * re-send from the spool. Without a spool what it held is lost. */
static void recreate(struct fsc_kafka_exporter *x, int64_t now)
{
    char why[512] = "", err[512], q[600];
    if (x->rk != NULL) {
        rd_kafka_fatal_error(x->rk, why, sizeof(why));
        fsc_log(FSC_LOG_ERROR, "kafka_producer_fatal", "action=recreate reason=%s",
                fsc_log_quote(why, q, sizeof(q)));
        rd_kafka_purge(x->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_poll(x->rk, 0);
        destroy_producer(x);
    }
    if (x->sp != NULL) {
        for (uint64_t a = x->base; a < x->base + x->count; a++) {
            if (x->ring[a % x->cap].state == KENT_INFLIGHT)
                x->ring[a % x->cap].state = KENT_FAILED;
        }
        x->resend_pending = x->count > 0;
        x->resend_at = now;
    } else {
        add(&x->c.dropped_error, x->inflight);
    }
    x->inflight = 0;
    x->inflight_bytes = 0;
    if (new_producer(x, NULL, err, sizeof(err)) != 0) {
        /* Try again on the next round; the spool keeps taking events. */
        fsc_log(FSC_LOG_ERROR, "kafka_producer_failed", "reason=%s",
                fsc_log_quote(err, q, sizeof(q)));
        return;
    }
    x->fatal = false;
    add(&x->c.producer_restarts, 1);
}

/* ---- the thread ------------------------------------------------------------ */

/* Encodes and spools (or produces) one event; returns 1 if it was taken. */
static int take_one(struct fsc_kafka_exporter *x, const struct fsc_event *ev)
{
    x->key[0] = '\0';
    int len = x->encode(x->encode_arg, ev, x->ebuf, x->ecap, x->key, sizeof(x->key));
    x->key[sizeof(x->key) - 1] = '\0';
    if (len < 0 || (size_t)len > x->ecap) {
        add(&x->c.dropped_encode, 1);
        return 0;
    }
    size_t klen = strlen(x->key);
    if (x->sp != NULL) {
        struct fsc_kspool_stats ss;
        fsc_kspool_get_stats(x->sp, &ss);
        bool waits =
            x->resend_pending || x->fatal || x->count >= x->cap || ss.pending_records > x->count;
        int rc = fsc_kspool_append(x->sp, x->key, klen, x->ebuf, (size_t)len, NULL);
        if (rc == 0) {
            if (waits)
                add(&x->c.spooled, 1);
            return 1;
        }
        add(rc == -ENOSPC ? &x->c.dropped_full : &x->c.dropped_error, 1);
        return 0;
    }
    if (x->rk == NULL || x->inflight >= x->cap) {
        add(&x->c.dropped_full, 1);
        return 0;
    }
    rd_kafka_resp_err_t err = fsc_kafka_produce(x, x->key, klen, x->ebuf, (size_t)len, NULL);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        x->inflight++;
        x->inflight_bytes += (uint64_t)len + klen;
        return 1;
    }
    if (err == RD_KAFKA_RESP_ERR__FATAL)
        x->fatal = true;
    add(err == RD_KAFKA_RESP_ERR__QUEUE_FULL ? &x->c.dropped_full : &x->c.dropped_error, 1);
    return 0;
}

/* Takes one batch from the bus; returns how many events it held. */
static size_t take(struct fsc_kafka_exporter *x)
{
    uint64_t lost = 0;
    size_t n = fsc_event_poll(x->sub, x->evs, KAFKA_BATCH, &lost);
    if (lost > 0) {
        add(&x->c.dropped_bus, lost);
        fsc_log(FSC_LOG_WARN, "kafka_events_lost", "count=%llu reason=\"event bus overrun\"",
                (unsigned long long)lost);
    }
    uint64_t full = get(&x->c.dropped_full), ioerr = get(&x->c.dropped_error);
    uint64_t taken = 0;
    for (size_t i = 0; i < n; i++)
        taken += (uint64_t)take_one(x, &x->evs[i]);
    /* write(2) before anything is produced from it, so a crash cannot lose
     * an event that Kafka might not have. A failed write stays buffered and
     * is retried by the next flush; "queued" counts it once written
     * (publish_gauges). */
    if (x->sp != NULL && n > 0 && fsc_kspool_flush(x->sp) != 0) {
        /* Once per LOG_EVERY_NS: a full disk fails every batch (faults.disk_full). */
        static int64_t last_ns;
        static uint64_t suppressed;
        int64_t t = fsc_mono_ns();
        if (last_ns == 0 || t - last_ns >= LOG_EVERY_NS) {
            fsc_log(FSC_LOG_ERROR, "kafka_spool_write_failed", "dir=%s suppressed=%llu",
                    x->cfg->spool_dir, (unsigned long long)suppressed);
            last_ns = t;
            suppressed = 0;
        } else {
            suppressed++;
        }
    }
    if (x->sp == NULL)
        add(&x->c.queued, taken);
    int64_t now = fsc_mono_ns();
    if ((get(&x->c.dropped_full) != full || get(&x->c.dropped_error) != ioerr) &&
        now - x->last_fail_log_ns >= LOG_EVERY_NS) {
        x->last_fail_log_ns = now;
        fsc_log(FSC_LOG_ERROR, "kafka_events_dropped", "full=%llu error=%llu reason=%s",
                (unsigned long long)get(&x->c.dropped_full),
                (unsigned long long)get(&x->c.dropped_error),
                x->sp ? "\"spool full or unwritable\"" : "\"queue_max reached\"");
    }
    return n;
}

static void publish_gauges(struct fsc_kafka_exporter *x)
{
    put(&x->c.queue_messages, x->inflight);
    put(&x->c.queue_bytes, x->inflight_bytes);
    if (x->sp != NULL) {
        struct fsc_kspool_stats ss;
        fsc_kspool_get_stats(x->sp, &ss);
        /* On disk only: the write buffer's records are not safe yet. Queued
         * last, so that delivered + spool_records never exceeds it. */
        put(&x->c.spool_records, ss.pending_records - ss.buffered_records);
        put(&x->c.spool_bytes, ss.pending_bytes - ss.buffered_bytes);
        put(&x->c.spool_io_errors, ss.io_errors);
        put(&x->c.queued, ss.written);
    }
}

static void serve(struct fsc_kafka_exporter *x, int64_t now)
{
    if (x->rk != NULL)
        rd_kafka_poll(x->rk, 0);
    if ((x->fatal || x->rk == NULL) && now >= x->recreate_at) {
        recreate(x, now);
        x->recreate_at = now + 1000000000ll;
    }
    if (x->rk != NULL) {
        fsc_kafka_settle(x, now);
        fsc_kafka_pump(x, now);
    }
    if (x->sp != NULL)
        fsc_kspool_tick(x->sp, now);
    publish_gauges(x);
}

static bool all_delivered(struct fsc_kafka_exporter *x)
{
    if (x->sp == NULL)
        return x->inflight == 0;
    struct fsc_kspool_stats ss;
    fsc_kspool_get_stats(x->sp, &ss);
    return ss.pending_records == 0;
}

/* Stop: deliver what was taken until the deadline (with a spool: until
 * STOP_IDLE_NS pass without a delivery); what is left stays in the spool
 * (or is dropped without one). Records the spool could not write are
 * counted as dropped here, when they are lost. */
static void finish(struct fsc_kafka_exporter *x)
{
    x->stopping = true;
    int64_t deadline = atomic_load(&x->deadline_ns);
    int64_t progress_ns = fsc_mono_ns();
    uint64_t delivered = get(&x->c.delivered);
    for (;;) {
        int64_t now = fsc_mono_ns();
        serve(x, now);
        if (get(&x->c.delivered) != delivered) {
            delivered = get(&x->c.delivered);
            progress_ns = now;
        }
        if (all_delivered(x) || now >= deadline ||
            (x->sp != NULL && now - progress_ns >= STOP_IDLE_NS))
            break;
        if (x->rk != NULL)
            rd_kafka_poll(x->rk, 10);
        else
            fsc_event_wait(x->sub, 10);
    }
    x->result = all_delivered(x) ? 0 : -ETIMEDOUT;
    if (x->rk != NULL && x->result != 0) {
        rd_kafka_purge(x->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_poll(x->rk, 0);
        fsc_kafka_settle(x, fsc_mono_ns());
    }
    publish_gauges(x);
    destroy_producer(x);
    fsc_kspool_close(x->sp, &x->left);
    x->sp = NULL;
    add(&x->c.dropped_full, x->left.dropped);
}

static void *run(void *arg)
{
    struct fsc_kafka_exporter *x = arg;
    for (;;) {
        bool stop = atomic_load(&x->stop);
        size_t got = take(x);
        serve(x, fsc_mono_ns());
        if (got == KAFKA_BATCH)
            continue; /* more may be waiting */
        if (stop)
            break; /* the bus is drained */
        fsc_event_wait(x->sub, x->inflight > 0 || x->resend_pending ? 5 : 100);
    }
    finish(x);
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------- */

static void free_exporter(struct fsc_kafka_exporter *x)
{
    destroy_producer(x);
    fsc_kspool_close(x->sp, NULL);
    fsc_event_unsubscribe(x->sub);
    if (x->conf != NULL)
        rd_kafka_conf_destroy(x->conf);
    free(x->ring);
    free(x->ebuf);
    free(x->evs);
    free(x);
}

struct fsc_kafka_exporter *fsc_kafka_exporter_start(const struct fsc_kafka_exporter_options *opt,
                                                    char *err, size_t errlen)
{
    const struct fsc_kafka_config *cfg = opt->cfg;
    if (cfg == NULL || opt->bus == NULL || opt->encode == NULL || cfg->n_brokers == 0) {
        snprintf(err, errlen, "exporters.kafka: needs a config with brokers, a bus and an encoder");
        return NULL;
    }
    struct fsc_kafka_exporter *x = calloc(1, sizeof(*x));
    if (x == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->cfg = cfg;
    x->encode = opt->encode;
    x->encode_arg = opt->encode_arg;
    x->ecap = opt->max_event_bytes ? opt->max_event_bytes : 64u << 10;
    if (x->ecap > FSC_KSPOOL_MAX_VALUE)
        x->ecap = FSC_KSPOOL_MAX_VALUE;
    x->cap = cfg->queue_max;
    x->ebuf = malloc(x->ecap);
    x->evs = malloc(KAFKA_BATCH * sizeof(*x->evs));
    bool spool = cfg->spool_dir[0] != '\0';
    if (spool)
        x->ring = calloc(x->cap, sizeof(*x->ring));
    if (x->ebuf == NULL || x->evs == NULL || (spool && x->ring == NULL)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    x->conf = fsc_kafka_conf_build(cfg, opt->config_file, spool, err, errlen);
    if (x->conf == NULL)
        goto fail;
    rd_kafka_conf_set_opaque(x->conf, x);
    rd_kafka_conf_set_dr_msg_cb(x->conf, fsc_kafka_on_delivery);
    rd_kafka_conf_set_error_cb(x->conf, on_error);
    rd_kafka_conf_set_stats_cb(x->conf, on_stats);
    rd_kafka_conf_set_log_cb(x->conf, on_log);
    if (spool) {
        struct fsc_kspool_options so = {
            .dir = cfg->spool_dir, .max_bytes = cfg->spool_max, .fsync = cfg->spool_fsync};
        char why[512];
        x->sp = fsc_kspool_open(&so, why, sizeof(why));
        if (x->sp == NULL) {
            snprintf(err, errlen, "exporters.kafka.spool_dir: %s", why);
            goto fail;
        }
        struct fsc_kspool_stats ss;
        fsc_kspool_get_stats(x->sp, &ss);
        x->cursor = fsc_kspool_head(x->sp);
        put(&x->c.spooled, ss.recovered);
        put(&x->c.spool_corrupt, ss.corrupt);
        if (ss.recovered > 0 || ss.corrupt > 0)
            fsc_log(ss.corrupt ? FSC_LOG_WARN : FSC_LOG_INFO, "kafka_spool_recovered",
                    "dir=%s records=%llu bytes=%llu corrupt=%llu truncated_bytes=%llu",
                    cfg->spool_dir, (unsigned long long)ss.recovered,
                    (unsigned long long)ss.pending_bytes, (unsigned long long)ss.corrupt,
                    (unsigned long long)ss.truncated_bytes);
    }
    if (new_producer(x, opt->config_file, err, errlen) != 0)
        goto fail;
    x->sub = fsc_event_subscribe(opt->bus);
    if (x->sub == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    publish_gauges(x);
    if (pthread_create(&x->thread, NULL, run, x) != 0) {
        snprintf(err, errlen, "cannot start the kafka exporter thread");
        goto fail;
    }
    char q[600], brokers[512] = "";
    for (size_t i = 0; i < cfg->n_brokers; i++) {
        size_t l = strlen(brokers);
        snprintf(brokers + l, sizeof(brokers) - l, "%s%s", i ? "," : "", cfg->brokers[i]);
    }
    fsc_log(FSC_LOG_INFO, "kafka_started", "brokers=%s topic=%s spool=%s queue_max=%u",
            fsc_log_quote(brokers, q, sizeof(q)), cfg->events_topic,
            spool ? cfg->spool_dir : "none", cfg->queue_max);
    return x;
fail:
    free_exporter(x);
    return NULL;
}

int fsc_kafka_exporter_stop(struct fsc_kafka_exporter *x, int64_t timeout_ns)
{
    if (x == NULL)
        return 0;
    atomic_store(&x->deadline_ns, fsc_mono_ns() + (timeout_ns > 0 ? timeout_ns : 0));
    atomic_store(&x->stop, true);
    pthread_join(x->thread, NULL);
    int rc = x->result;
    struct fsc_kafka_stats st;
    fsc_kafka_exporter_stats(x, &st);
    const struct fsc_kspool_left *l = &x->left;
    if (x->ring != NULL) {
        /* left= and left_bytes= are what the next start reads back
         * (kafka_spool_recovered); dropped= counts every lost event,
         * dropped_at_stop= those of the write buffer the disk refused. */
        fsc_log(l->dropped || l->sync_error ? FSC_LOG_ERROR
                : rc != 0 || l->resend      ? FSC_LOG_WARN
                                            : FSC_LOG_INFO,
                "kafka_stopped",
                "delivered=%llu left=%llu left_in=spool left_bytes=%llu resend=%llu dropped=%llu "
                "dropped_at_stop=%llu fsync=%s",
                (unsigned long long)st.delivered, (unsigned long long)l->records,
                (unsigned long long)l->bytes, (unsigned long long)l->resend,
                (unsigned long long)st.dropped, (unsigned long long)l->dropped,
                x->cfg->spool_fsync == FSC_SPOOL_FSYNC_NEVER ? "off"
                : l->sync_error                              ? "failed"
                                                             : "ok");
    } else {
        fsc_log(rc == 0 ? FSC_LOG_INFO : FSC_LOG_WARN, "kafka_stopped",
                "delivered=%llu left=%llu left_in=dropped dropped=%llu",
                (unsigned long long)st.delivered, (unsigned long long)st.queue_messages,
                (unsigned long long)st.dropped);
    }
    free_exporter(x);
    return rc;
}

void fsc_kafka_exporter_stats(const struct fsc_kafka_exporter *x, struct fsc_kafka_stats *out)
{
    const struct kafka_counters *c = &x->c;
    memset(out, 0, sizeof(*out));
    out->queued = get(&c->queued);
    out->delivered = get(&c->delivered);
    out->failed = get(&c->failed);
    out->retried = get(&c->retried);
    out->spooled = get(&c->spooled);
    out->dropped_bus = get(&c->dropped_bus);
    out->dropped_encode = get(&c->dropped_encode);
    out->dropped_full = get(&c->dropped_full);
    out->dropped_error = get(&c->dropped_error);
    out->dropped = out->dropped_bus + out->dropped_encode + out->dropped_full + out->dropped_error;
    out->spool_corrupt = get(&c->spool_corrupt);
    out->spool_io_errors = get(&c->spool_io_errors);
    out->producer_restarts = get(&c->producer_restarts);
    out->queue_messages = get(&c->queue_messages);
    out->queue_bytes = get(&c->queue_bytes);
    out->spool_records = get(&c->spool_records);
    out->spool_bytes = get(&c->spool_bytes);
    out->broker_up = atomic_load_explicit(&c->broker_up, memory_order_relaxed);
}
