/* The remote_write exporter's threads and counters (contract in
 * remote_write.h). Locks: `mu` guards the queue, the in-flight count and
 * the stop state, `smu` the statistics; neither is held across a request,
 * a reading of the engine or a log line. */
#include "remote_write/remote_write.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "remote_write/rw_int.h"
#include "remote_write/rw_retry.h"

const double fsc_rw_duration_le[FSC_RW_DURATION_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                            0.5,   1,    2.5,   5,    10};

/* One log line per distinct refusal status at most this often: a receiver
 * that refuses every batch must not fill the log. */
#define LOG_EVERY_NS (60 * 1000000000LL)
#define MAX_LOGGED   16

struct fsc_remote_write {
    struct fsc_remote_write_config cfg; /* copied scalars; strings borrowed */
    struct fsc_rw_reader rd;            /* the reader thread's */
    struct fsc_rw_encoder enc;          /* the sender thread's */
    struct fsc_rw_http *http;           /* the sender thread's */
    struct fsc_rw_sample *batch;        /* max_samples_per_send */
    uint64_t rnd;                       /* xorshift state for jitter */

    pthread_mutex_t mu;
    pthread_cond_t wake_sender; /* samples queued, or stop */
    pthread_cond_t wake_reader; /* stop */
    struct fsc_rw_queue q;
    size_t inflight;
    int stopping;
    int reader_done;
    int64_t deadline; /* mono ns by which the sender gives up at stop */
    pthread_t reader, sender;
    int reader_started, sender_started;

    pthread_mutex_t smu;
    struct fsc_remote_write_stats st;

    struct {
        long status;
        int64_t at;
        uint64_t suppressed;
    } logged[MAX_LOGGED];
};

static uint64_t next_rnd(struct fsc_remote_write *rw)
{
    uint64_t x = rw->rnd;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rw->rnd = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void abs_time(int64_t mono_ns, struct timespec *ts)
{
    /* The conds use CLOCK_MONOTONIC (set at init). */
    ts->tv_sec = (time_t)(mono_ns / 1000000000LL);
    ts->tv_nsec = (long)(mono_ns % 1000000000LL);
}

/* ---- statistics ---------------------------------------------------------- */

static void count_request(struct fsc_remote_write *rw, long status, double secs)
{
    char code[8];
    if (status == 0)
        snprintf(code, sizeof(code), "error");
    else
        snprintf(code, sizeof(code), "%ld", status % 1000);
    pthread_mutex_lock(&rw->smu);
    struct fsc_remote_write_stats *st = &rw->st;
    size_t i = 0;
    while (i < st->n_codes && strcmp(st->codes[i].code, code) != 0)
        i++;
    if (i == st->n_codes) {
        if (st->n_codes == FSC_RW_MAX_CODES + 1) { /* full: the last entry is "other" */
            i = st->n_codes - 1;
        } else {
            if (st->n_codes == FSC_RW_MAX_CODES)
                snprintf(code, sizeof(code), "other");
            memcpy(st->codes[i].code, code, sizeof(code));
            st->n_codes++;
        }
    }
    st->codes[i].requests++;
    size_t b = 0;
    while (b < FSC_RW_DURATION_BUCKETS && secs > fsc_rw_duration_le[b])
        b++;
    st->duration_bucket[b]++;
    st->duration_sum += secs;
    pthread_mutex_unlock(&rw->smu);
}

static void count(struct fsc_remote_write *rw, uint64_t *field, uint64_t n)
{
    pthread_mutex_lock(&rw->smu);
    *field += n;
    pthread_mutex_unlock(&rw->smu);
}

void fsc_remote_write_stats(struct fsc_remote_write *rw, struct fsc_remote_write_stats *out)
{
    pthread_mutex_lock(&rw->mu);
    uint64_t depth = rw->q.len + rw->inflight, qdropped = rw->q.dropped;
    pthread_mutex_unlock(&rw->mu);
    pthread_mutex_lock(&rw->smu);
    *out = rw->st;
    pthread_mutex_unlock(&rw->smu);
    out->dropped += qdropped + fsc_rw_reader_dropped(&rw->rd);
    out->queue_samples = depth;
    out->queue_capacity = rw->cfg.queue_max;
}

/* 1 when a line about `status` may be logged now (the first time, then once
 * per LOG_EVERY_NS); *suppressed gets the lines held back since. */
static int may_log(struct fsc_remote_write *rw, long status, uint64_t *suppressed)
{
    int64_t now = fsc_mono_ns();
    size_t i = 0;
    while (i < MAX_LOGGED && rw->logged[i].at != 0 && rw->logged[i].status != status)
        i++;
    if (i == MAX_LOGGED)
        i = MAX_LOGGED - 1; /* more distinct statuses than slots: share the last */
    if (rw->logged[i].at != 0 && rw->logged[i].status == status &&
        now - rw->logged[i].at < LOG_EVERY_NS) {
        rw->logged[i].suppressed++;
        return 0;
    }
    *suppressed = rw->logged[i].status == status ? rw->logged[i].suppressed : 0;
    rw->logged[i].status = status;
    rw->logged[i].at = now;
    rw->logged[i].suppressed = 0;
    return 1;
}

/* ---- reader thread ------------------------------------------------------- */

static void emit_cb(void *arg, const struct fsc_rw_sample *s, size_t n)
{
    struct fsc_remote_write *rw = arg;
    pthread_mutex_lock(&rw->mu);
    (void)fsc_rw_queue_push(&rw->q, s, n); /* a failed growth drops, counted */
    if (rw->q.len >= rw->cfg.max_samples_per_send)
        pthread_cond_signal(&rw->wake_sender);
    pthread_mutex_unlock(&rw->mu);
}

static void *reader_main(void *arg)
{
    struct fsc_remote_write *rw = arg;
    int64_t next = fsc_mono_ns() + rw->cfg.resolution_ns;
    int warned = 0;
    pthread_mutex_lock(&rw->mu);
    for (;;) {
        int stop = rw->stopping;
        pthread_mutex_unlock(&rw->mu);
        /* A last reading at stop, so what arrived since the previous one is
         * sent with the flush. */
        long n = fsc_rw_read(&rw->rd, emit_cb, rw);
        if (n == -ENOMEM && !warned) {
            fsc_log(FSC_LOG_WARN, "remote_write_read_failed", "reason=\"out of memory\"");
            warned = 1;
        }
        pthread_mutex_lock(&rw->mu);
        if (stop)
            break;
        int64_t now = fsc_mono_ns();
        next = next > now ? next : now; /* a slow reading skips, not bunches */
        struct timespec ts;
        abs_time(next, &ts);
        while (!rw->stopping && fsc_mono_ns() < next)
            pthread_cond_timedwait(&rw->wake_reader, &rw->mu, &ts);
        next += rw->cfg.resolution_ns;
    }
    rw->reader_done = 1;
    pthread_cond_signal(&rw->wake_sender);
    pthread_mutex_unlock(&rw->mu);
    return NULL;
}

/* ---- sender thread ------------------------------------------------------- */

/* Waits until mono time `until`, or the stop deadline. Returns 0 when the
 * wait ran its course, -1 when the deadline of a stop came first. */
static int wait_until(struct fsc_remote_write *rw, int64_t until)
{
    pthread_mutex_lock(&rw->mu);
    int rc = 0;
    for (;;) {
        int64_t end = rw->stopping && rw->deadline < until ? rw->deadline : until;
        if (fsc_mono_ns() >= end) {
            rc = end < until ? -1 : 0;
            break;
        }
        struct timespec ts;
        abs_time(end, &ts);
        pthread_cond_timedwait(&rw->wake_sender, &rw->mu, &ts);
    }
    pthread_mutex_unlock(&rw->mu);
    return rc;
}

static void log_refused(struct fsc_remote_write *rw, const struct fsc_rw_reply *rep, size_t n)
{
    uint64_t supp = 0;
    if (!may_log(rw, rep->status, &supp))
        return;
    char q[160];
    fsc_log(FSC_LOG_ERROR, "remote_write_rejected",
            "status=%ld samples=%zu suppressed=%" PRIu64 " body=%s", rep->status, n, supp,
            fsc_log_quote(rep->body, q, sizeof(q)));
}

static void log_retry(struct fsc_remote_write *rw, const struct fsc_rw_reply *rep, size_t n,
                      unsigned attempt, int64_t wait_ns)
{
    uint64_t supp = 0;
    if (!may_log(rw, rep->status, &supp))
        return;
    char q[160];
    fsc_log(FSC_LOG_WARN, "remote_write_retry",
            "status=%ld error=%s samples=%zu attempt=%u wait_ms=%" PRId64
            " retry_after=%s suppressed=%" PRIu64,
            rep->status, fsc_log_quote(rep->status ? "" : rep->error, q, sizeof(q)), n, attempt + 1,
            wait_ns / 1000000, rep->retry_after_s >= 0 ? "yes" : "no", supp);
}

/* Sends one batch until it is accepted, refused for good, or the stop
 * deadline passes. */
static void deliver(struct fsc_remote_write *rw, size_t n)
{
    int rc = fsc_rw_encode_batch(&rw->enc, rw->batch, n);
    if (rc != 0) {
        count(rw, &rw->st.failed, n);
        fsc_log(FSC_LOG_ERROR, "remote_write_encode_failed", "samples=%zu errno=%d", n, -rc);
        return;
    }
    for (unsigned attempt = 0;; attempt++) {
        int64_t t0 = fsc_mono_ns(), timeout_ms = rw->cfg.timeout_ns / 1000000;
        pthread_mutex_lock(&rw->mu);
        if (rw->stopping && (rw->deadline - t0) / 1000000 < timeout_ms)
            timeout_ms = (rw->deadline - t0) / 1000000;
        pthread_mutex_unlock(&rw->mu);
        struct fsc_rw_reply rep;
        if (timeout_ms <= 0) {
            count(rw, &rw->st.dropped, n);
            return;
        }
        fsc_rw_http_post(rw->http, rw->enc.z.data, rw->enc.z.len, timeout_ms, &rep);
        count_request(rw, rep.status, (double)(fsc_mono_ns() - t0) / 1e9);
        if (rep.status >= 200 && rep.status <= 299) {
            pthread_mutex_lock(&rw->smu);
            rw->st.sent += n;
            rw->st.last_success_s = (double)fsc_now_ns() / 1e9;
            pthread_mutex_unlock(&rw->smu);
            if (attempt > 0)
                fsc_log(FSC_LOG_INFO, "remote_write_recovered", "status=%ld attempts=%u",
                        rep.status, attempt + 1);
            return;
        }
        if (!fsc_rw_status_retryable(rep.status)) {
            count(rw, &rw->st.failed, n);
            log_refused(rw, &rep, n);
            return;
        }
        int64_t wait_ns = fsc_rw_retry_wait_ns(rep.retry_after_s, rw->cfg.backoff.initial_ns,
                                               rw->cfg.backoff.max_ns, attempt, next_rnd(rw));
        log_retry(rw, &rep, n, attempt, wait_ns);
        if (wait_until(rw, fsc_mono_ns() + wait_ns) != 0) {
            count(rw, &rw->st.dropped, n); /* stop deadline: given up */
            return;
        }
        count(rw, &rw->st.retried, n);
    }
}

static void *sender_main(void *arg)
{
    struct fsc_remote_write *rw = arg;
    const size_t per_send = rw->cfg.max_samples_per_send;
    int64_t next_send = fsc_mono_ns() + rw->cfg.interval_ns;
    pthread_mutex_lock(&rw->mu);
    for (;;) {
        int64_t now = fsc_mono_ns();
        if (rw->stopping && rw->reader_done && (rw->q.len == 0 || now >= rw->deadline))
            break;
        int due = rw->q.len >= per_send || (rw->q.len > 0 && (rw->reader_done || now >= next_send));
        if (!due) {
            if (rw->q.len == 0 && now >= next_send)
                next_send = now + rw->cfg.interval_ns;
            int64_t until = rw->stopping ? rw->deadline : next_send;
            struct timespec ts;
            abs_time(until, &ts);
            pthread_cond_timedwait(&rw->wake_sender, &rw->mu, &ts);
            continue;
        }
        size_t n = fsc_rw_queue_pop(&rw->q, rw->batch, per_send);
        rw->inflight = n;
        pthread_mutex_unlock(&rw->mu);
        deliver(rw, n);
        pthread_mutex_lock(&rw->mu);
        rw->inflight = 0;
        if (rw->q.len == 0)
            next_send = fsc_mono_ns() + rw->cfg.interval_ns;
    }
    /* What the flush could not send. */
    uint64_t left = rw->q.len;
    rw->q.len = 0;
    pthread_mutex_unlock(&rw->mu);
    count(rw, &rw->st.dropped, left);
    return NULL;
}

/* ---- start / stop -------------------------------------------------------- */

static int cond_init_mono(pthread_cond_t *c)
{
    pthread_condattr_t a;
    if (pthread_condattr_init(&a) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return rc == 0 ? 0 : -1;
}

static void destroy(struct fsc_remote_write *rw)
{
    fsc_rw_http_destroy(rw->http);
    fsc_rw_reader_free(&rw->rd);
    fsc_rw_encoder_free(&rw->enc);
    fsc_rw_queue_free(&rw->q);
    free(rw->batch);
    pthread_cond_destroy(&rw->wake_sender);
    pthread_cond_destroy(&rw->wake_reader);
    pthread_mutex_destroy(&rw->mu);
    pthread_mutex_destroy(&rw->smu);
    free(rw);
}

struct fsc_remote_write *fsc_remote_write_start(const struct fsc_remote_write_options *opt,
                                                char *err, size_t errlen)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "libcurl could not be initialised");
        return NULL;
    }
    struct fsc_remote_write *rw = calloc(1, sizeof(*rw));
    if (!rw) {
        snprintf(err, errlen, "out of memory starting the remote_write exporter");
        return NULL;
    }
    rw->cfg = *opt->cfg;
    rw->rnd = (uint64_t)fsc_now_ns() ^ (uint64_t)(uintptr_t)rw ^ 0x9E3779B97F4A7C15ULL;
    if (rw->rnd == 0)
        rw->rnd = 1;
    pthread_mutex_init(&rw->mu, NULL);
    pthread_mutex_init(&rw->smu, NULL);
    if (cond_init_mono(&rw->wake_sender) != 0 || cond_init_mono(&rw->wake_reader) != 0) {
        snprintf(err, errlen, "cannot create the remote_write exporter's condition variables");
        free(rw); /* nothing else exists yet */
        return NULL;
    }
    fsc_rw_queue_init(&rw->q, rw->cfg.queue_max);
    fsc_rw_encoder_init(&rw->enc, opt->reg);
    rw->batch = malloc(rw->cfg.max_samples_per_send * sizeof(*rw->batch));
    if (!rw->batch ||
        fsc_rw_reader_init(&rw->rd, opt->reg, opt->eng, rw->cfg.series, opt->window_ns, opt->rate,
                           rw->cfg.resolution_ns, rw->cfg.queue_max) != 0) {
        snprintf(err, errlen, "out of memory starting the remote_write exporter");
        destroy(rw);
        return NULL;
    }
    rw->http = fsc_rw_http_create(&rw->cfg, err, errlen);
    if (!rw->http) {
        destroy(rw);
        return NULL;
    }
    if (pthread_create(&rw->sender, NULL, sender_main, rw) != 0) {
        snprintf(err, errlen, "cannot start the remote_write sender thread");
        destroy(rw);
        return NULL;
    }
    rw->sender_started = 1;
    if (pthread_create(&rw->reader, NULL, reader_main, rw) != 0) {
        snprintf(err, errlen, "cannot start the remote_write reader thread");
        pthread_mutex_lock(&rw->mu);
        rw->stopping = 1;
        rw->reader_done = 1;
        rw->deadline = fsc_mono_ns();
        pthread_cond_signal(&rw->wake_sender);
        pthread_mutex_unlock(&rw->mu);
        pthread_join(rw->sender, NULL);
        destroy(rw);
        return NULL;
    }
    rw->reader_started = 1;
    return rw;
}

void fsc_remote_write_stop(struct fsc_remote_write *rw, int64_t flush_ns)
{
    if (!rw)
        return;
    pthread_mutex_lock(&rw->mu);
    rw->stopping = 1;
    rw->deadline = fsc_mono_ns() + (flush_ns > 0 ? flush_ns : 0);
    /* A POST already in flight is cut at the deadline too. */
    fsc_rw_http_abort_at(rw->http, rw->deadline);
    pthread_cond_broadcast(&rw->wake_reader);
    pthread_cond_broadcast(&rw->wake_sender);
    pthread_mutex_unlock(&rw->mu);
    pthread_join(rw->reader, NULL);
    pthread_join(rw->sender, NULL);
    struct fsc_remote_write_stats st;
    fsc_remote_write_stats(rw, &st);
    fsc_log(FSC_LOG_INFO, "remote_write_stopped",
            "sent=%" PRIu64 " failed=%" PRIu64 " dropped=%" PRIu64 " retried=%" PRIu64, st.sent,
            st.failed, st.dropped, st.retried);
    destroy(rw);
}
