/* One device's calls: one Subscribe call per planned stream, health checks
 * on its worker's 100 ms tick (gnmi_pool.c runs the queue and the tick;
 * everything here runs on the client's worker thread).
 *
 * Every buffer a started batch writes into (received message, metadata
 * arrays, status) belongs to the stream and stays alive until that batch's
 * tag comes out of the queue; a call is released only when its last batch
 * has completed (`pending` reaches 0), which is why cancelling never frees
 * anything directly. */
#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

#include "base/clock.h"
#include "gnmi.pb-c.h"
#include "sources/gnmi/gnmi_client.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

static gpr_timespec deadline_in(int64_t ns)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(ns, GPR_TIMESPAN));
}

/* xorshift64*: jitter only, not security. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Full jitter in [d/2, d] around the current backoff, then doubles it up to
 * backoff.max_ns: the first retry comes within backoff.initial_ns. */
static int64_t backoff_next(struct gnmi_stream *st)
{
    const struct fsc_backoff *bo = &st->cl->gc->backoff;
    int64_t d = st->backoff_ns > 0 ? st->backoff_ns : bo->initial_ns;
    if (d <= 0)
        d = NS_PER_S;
    int64_t half = d / 2;
    int64_t delay = half + (int64_t)(rng_next(&st->cl->rng) % (uint64_t)(d - half + 1));
    st->backoff_ns = d > bo->max_ns / 2 ? bo->max_ns : d * 2;
    return delay;
}

void fsc_gnmi_cadence_restart(struct fsc_gnmi_cadence *cd)
{
    if (cd->slot)
        memset(cd->slot, 0, (size_t)(cd->mask + 1) * sizeof(*cd->slot));
    cd->used = 0;
}

void fsc_gnmi_cadence_free(struct fsc_gnmi_cadence *cd)
{
    free(cd->slot);
    cd->slot = NULL;
    cd->mask = 0;
    cd->used = 0;
}

/* Slot of `key` in a table of mask + 1 slots: the match or the first empty
 * slot (the table is at most half full, so there is one). */
static struct fsc_gnmi_cadence_slot *cadence_find(struct fsc_gnmi_cadence_slot *slot, uint32_t mask,
                                                  uint32_t key)
{
    /* Series ids are small dense integers: a multiplicative hash spreads them. */
    uint32_t i = (uint32_t)(key * 2654435761u) & mask;
    while (slot[i].key != 0 && slot[i].key != key)
        i = (i + 1) & mask;
    return &slot[i];
}

/* Doubles the table (from FSC_GNMI_CADENCE_SLOTS_MIN; the first call
 * allocates it). Returns 0, or -1 at FSC_GNMI_CADENCE_SLOTS or out of
 * memory (the table is unchanged). */
static int cadence_grow(struct fsc_gnmi_cadence *cd)
{
    uint32_t n = cd->slot ? (cd->mask + 1) * 2 : FSC_GNMI_CADENCE_SLOTS_MIN;
    if (n > FSC_GNMI_CADENCE_SLOTS)
        return -1;
    struct fsc_gnmi_cadence_slot *slot = calloc(n, sizeof(*slot));
    if (!slot)
        return -1;
    for (uint32_t i = 0; cd->slot && i <= cd->mask; i++) {
        if (cd->slot[i].key != 0)
            *cadence_find(slot, n - 1, cd->slot[i].key) = cd->slot[i];
    }
    free(cd->slot);
    cd->slot = slot;
    cd->mask = n - 1;
    return 0;
}

/* The slot of `ser`, added when new; NULL when FSC_GNMI_CADENCE_SLOTS / 2
 * series are followed already (or no memory to follow more). The table
 * grows as series come: a stream follows one series per sensor and port,
 * and hundreds of streams per collector made a table of the largest size
 * per stream (64 KiB, all of it written at every new call) a fixed cost
 * that mattered. */
static struct fsc_gnmi_cadence_slot *cadence_slot(struct fsc_gnmi_cadence *cd, fsc_series_id ser,
                                                  bool *fresh)
{
    const uint32_t key = ser + 1;
    struct fsc_gnmi_cadence_slot *sl = cd->slot ? cadence_find(cd->slot, cd->mask, key) : NULL;
    if (sl && sl->key == key) {
        *fresh = false;
        return sl;
    }
    if (cd->used >= FSC_GNMI_CADENCE_SLOTS / 2)
        return NULL;
    if (!cd->slot || 2 * (cd->used + 1) > cd->mask + 1) {
        if (cadence_grow(cd) != 0)
            return NULL;
        sl = cadence_find(cd->slot, cd->mask, key);
    }
    cd->used++;
    sl->key = key;
    sl->last_ns = 0;
    *fresh = true;
    return sl;
}

void fsc_gnmi_cadence_observe(struct fsc_gnmi_cadence *cd, fsc_series_id ser, int64_t t_dev_ns)
{
    bool fresh;
    struct fsc_gnmi_cadence_slot *sl;
    if (ser == FSC_SERIES_NONE || t_dev_ns <= 0 || !(sl = cadence_slot(cd, ser, &fresh)))
        return;
    int64_t last = sl->last_ns;
    sl->last_ns = t_dev_ns;
    if (fresh || t_dev_ns <= last)
        return; /* first message of the series, a duplicate or a step back */
    double d = (double)(t_dev_ns - last) * 1e-9;
    uint64_t n = ++cd->intervals;
    if (n == 1) {
        cd->cadence_s = d;
        cd->jitter_s = 0;
        return;
    }
    /* n-1 deviations so far, this one included: a plain mean at first. */
    double wj = n - 1 < FSC_GNMI_CADENCE_SPAN ? 1.0 / (double)(n - 1) : 1.0 / FSC_GNMI_CADENCE_SPAN;
    double w = n < FSC_GNMI_CADENCE_SPAN ? 1.0 / (double)n : 1.0 / FSC_GNMI_CADENCE_SPAN;
    double dev = d > cd->cadence_s ? d - cd->cadence_s : cd->cadence_s - d;
    cd->jitter_s += wj * (dev - cd->jitter_s);
    cd->cadence_s += w * (d - cd->cadence_s);
}

/* ---- stream down / up events (FSC_EV_STREAM_DOWN) ----
 * One START per outage: the first failure after the stream delivered data,
 * or the first failure of a stream that never did; every later failure of
 * the same outage is only counted. The first response after it publishes the
 * END. Times are the collector's wall clock (the target's is unknown while it
 * is silent). */

static void stream_event(struct gnmi_stream *st, enum fsc_event_phase phase, int64_t now_ns)
{
    struct gnmi_client *cl = st->cl;
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_STREAM_DOWN;
    ev.phase = (uint8_t)phase;
    ev.series = FSC_SERIES_NONE;
    ev.group = UINT32_MAX;
    ev.t_start_ns = st->down_since_ns;
    ev.t_end_ns = phase == FSC_EV_END ? now_ns : 0;
    fsc_event_add(&ev, FSC_EF_REASON, st->down_reason);
    if (st->down_status >= 0) /* -1: the call ended without a status */
        fsc_event_add(&ev, FSC_EF_GRPC_STATUS, st->down_status);
    if (phase == FSC_EV_END)
        fsc_event_add(&ev, FSC_EF_FAILED_CALLS, st->down_failures);
    /* "source/stream", cut to what the event holds (events.h). */
    size_t o = 0;
    for (const char *p = cl->name; *p && o + 1 < sizeof(ev.subject); p++)
        ev.subject[o++] = *p;
    if (o + 1 < sizeof(ev.subject))
        ev.subject[o++] = '/';
    for (const char *p = st->cfg->name; *p && o + 1 < sizeof(ev.subject); p++)
        ev.subject[o++] = *p;
    ev.subject[o] = '\0';
    if (cl->env.eng)
        fsc_engine_publish(cl->env.eng, &ev);
}

/* A call failed (or could not start): opens the outage if none is open. */
static void stream_down(struct gnmi_stream *st, enum fsc_stream_down_reason reason, int code)
{
    if (st->down) {
        st->down_failures++;
        return;
    }
    st->down = true;
    st->down_reason = (uint8_t)reason;
    st->down_status = code;
    st->down_failures = 1;
    st->down_since_ns = fsc_now_ns();
    stream_event(st, FSC_EV_START, 0);
}

/* The first response of a call: closes the outage, if one is open. */
static void stream_up(struct gnmi_stream *st)
{
    if (!st->down)
        return;
    st->down = false;
    stream_event(st, FSC_EV_END, fsc_now_ns());
}

/* A retry is logged when the device's failure differs from the one last
 * logged (reason or status), when its stream's outage has just opened (but
 * the device's streams failing together give one line: 1 s apart at least),
 * or FSC_GNMI_RETRY_LOG_EVERY_NS after the device's last line; the others
 * are counted and the next line says how many (suppressed=N). Every retry
 * is in fabricscope_gnmi_reconnects_total either way. */
static bool retry_log_due(struct gnmi_client *cl, const struct gnmi_stream *st, int64_t now,
                          const char *why, int code)
{
    int64_t since = now - cl->retry_logged_mono;
    if (cl->retry_logged_mono == 0 || code != cl->retry_logged_code ||
        strcmp(why, cl->retry_logged_why) != 0 || (st->down_failures <= 1 && since >= NS_PER_S) ||
        since >= FSC_GNMI_RETRY_LOG_EVERY_NS)
        return true;
    cl->retry_log_suppressed++;
    return false;
}

static void call_schedule_retry(struct gnmi_stream *st, int64_t now, const char *why, int code,
                                const char *details)
{
    struct gnmi_client *cl = st->cl;
    int64_t delay = backoff_next(st);
    st->next_try_mono = now + delay;
    pthread_mutex_lock(&cl->mu);
    st->stats.state = FSC_GNMI_STATE_BACKOFF;
    st->stats.reconnects++;
    pthread_mutex_unlock(&cl->mu);
    if (!retry_log_due(cl, st, now, why, code))
        return;
    char q[256];
    fsc_log(FSC_LOG_WARN, "gnmi_stream_retry",
            "source=%s device=%s stream=%s reason=%s grpc_status=%d details=%s retry_ms=%lld "
            "suppressed=%llu",
            cl->name, cl->gc->device, st->cfg->name, why, code,
            fsc_log_quote(details, q, sizeof(q)), (long long)(delay / NS_PER_MS),
            (unsigned long long)cl->retry_log_suppressed);
    cl->retry_logged_mono = now;
    cl->retry_logged_why = why; /* a string literal of this file */
    cl->retry_logged_code = code;
    cl->retry_log_suppressed = 0;
}

static void recv_start(struct gnmi_stream *st, bool first)
{
    grpc_op ops[2];
    size_t n = 0;
    memset(ops, 0, sizeof(ops));
    if (first) {
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n++].data.recv_initial_metadata.recv_initial_metadata = &st->md_initial;
    }
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n++].data.recv_message.recv_message = &st->recv_buf;
    st->recv_buf = NULL;
    if (grpc_call_start_batch(st->call, ops, n, &st->t_recv, NULL) == GRPC_CALL_OK)
        st->pending++;
    else
        grpc_call_cancel(st->call, NULL); /* the status batch reports the end */
}

static void call_start(struct gnmi_stream *st, int64_t now)
{
    struct gnmi_client *cl = st->cl;
    grpc_slice method = grpc_slice_from_static_string("/gnmi.gNMI/Subscribe");
    st->call = grpc_channel_create_call(cl->chan, NULL, GRPC_PROPAGATE_DEFAULTS, cl->cq, method,
                                        NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    if (!st->call) {
        stream_down(st, FSC_STREAM_DOWN_START_FAILED, -1);
        call_schedule_retry(st, now, "create_call", -1, "");
        return;
    }
    st->pending = 0;
    st->status_done = st->got_msg = st->cancelled = st->stalled = st->logged_error = false;
    st->started_mono = st->last_msg_mono = now;
    fsc_gnmi_cadence_restart(&st->cad);
    st->status = GRPC_STATUS_UNKNOWN;
    st->status_details = grpc_empty_slice();
    grpc_metadata_array_init(&st->md_initial);
    grpc_metadata_array_init(&st->md_trailing);
    pthread_mutex_lock(&cl->mu);
    st->stats.state = FSC_GNMI_STATE_CONNECTING;
    st->stats.sync_seen = false;
    pthread_mutex_unlock(&cl->mu);

    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op.data.recv_status_on_client.trailing_metadata = &st->md_trailing;
    op.data.recv_status_on_client.status = &st->status;
    op.data.recv_status_on_client.status_details = &st->status_details;
    if (grpc_call_start_batch(st->call, &op, 1, &st->t_status, NULL) != GRPC_CALL_OK) {
        /* nothing pending: release at once */
        grpc_call_unref(st->call);
        st->call = NULL;
        grpc_metadata_array_destroy(&st->md_initial);
        grpc_metadata_array_destroy(&st->md_trailing);
        stream_down(st, FSC_STREAM_DOWN_START_FAILED, -1);
        call_schedule_retry(st, now, "start_batch", -1, "");
        return;
    }
    st->pending++;

    grpc_slice sl = grpc_slice_from_copied_buffer((const char *)st->req, st->req_len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = cl->n_md;
    ops[0].data.send_initial_metadata.metadata = cl->md;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = bb;
    /* No SEND_CLOSE_FROM_CLIENT: some targets end the subscription when the
     * client half-closes. */
    if (grpc_call_start_batch(st->call, ops, 2, &st->t_send, NULL) == GRPC_CALL_OK) {
        st->send_buf = bb;
        st->pending++;
    } else {
        grpc_byte_buffer_destroy(bb);
        grpc_call_cancel(st->call, NULL);
        return;
    }
    recv_start(st, true);
}

/* Drops the samples whose device time the time guard refuses (arrival-time
 * samples always pass) and logs the first refusal, then at most one line
 * per 10 s with the count suppressed. Returns the samples kept, compacted
 * at the front of smp. Worker thread. */
static size_t time_filter(struct gnmi_client *cl, struct fsc_sample *smp, size_t n, int64_t arrival,
                          int64_t now)
{
    size_t k = 0, bad = 0;
    int64_t off = 0;
    enum fsc_time_verdict why = FSC_TIME_OK;
    pthread_mutex_lock(&cl->mu);
    for (size_t i = 0; i < n; i++) {
        enum fsc_time_verdict v = FSC_TIME_OK;
        if (!(smp[i].flags & FSC_SMP_ARRIVAL_TIME))
            v = fsc_time_guard_check(&cl->tg, cl->tg_dev, smp[i].t_dev_ns, arrival);
        if (v == FSC_TIME_OK) {
            smp[k++] = smp[i];
            continue;
        }
        bad++;
        why = v;
        off = smp[i].t_dev_ns - arrival; /* |off| > a bound, both int64 ns of real dates */
    }
    bool log = bad && (cl->time_logged_mono == 0 || now - cl->time_logged_mono >= 10 * NS_PER_S);
    uint64_t suppressed = cl->time_log_suppressed;
    if (log) {
        cl->time_logged_mono = now;
        cl->time_log_suppressed = 0;
    } else if (bad) {
        cl->time_log_suppressed += bad;
    }
    pthread_mutex_unlock(&cl->mu);
    if (log)
        fsc_log(FSC_LOG_WARN, "gnmi_time_rejected",
                "source=%s device=%s reason=%s offset_s=%.0f samples=%zu suppressed=%llu", cl->name,
                cl->gc->device, why == FSC_TIME_FUTURE ? "future" : "past", (double)off * 1e-9, bad,
                (unsigned long long)suppressed);
    return k;
}

static void on_message(struct gnmi_stream *st, int64_t now)
{
    struct gnmi_client *cl = st->cl;
    grpc_byte_buffer_reader rd;
    struct fsc_gnmi_result res;
    int rc = -EBADMSG;
    int64_t arrival = fsc_now_ns();
    if (grpc_byte_buffer_reader_init(&rd, st->recv_buf)) {
        grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
        grpc_byte_buffer_reader_destroy(&rd);
        rc = fsc_gnmi_decode(st->dec, GRPC_SLICE_START_PTR(sl), GRPC_SLICE_LENGTH(sl), arrival,
                             st->smp, FSC_GNMI_SAMPLES_CAP, &res);
        grpc_slice_unref(sl);
    }
    grpc_byte_buffer_destroy(st->recv_buf);
    st->recv_buf = NULL;
    st->last_msg_mono = now;
    if (rc == 0 && res.n_samples)
        res.n_samples = time_filter(cl, st->smp, res.n_samples, arrival, now);
    if (rc == 0 && res.n_samples && cl->env.eng) {
        int irc = fsc_engine_ingest(cl->env.eng, st->smp, res.n_samples);
        if (irc != 0)
            fsc_log(FSC_LOG_WARN, "ingest_failed", "source=%s stream=%s error=%d", cl->name,
                    st->cfg->name, irc);
    }
    if (rc == 0 && res.n_samples > 0)
        fsc_gnmi_cadence_observe(&st->cad, st->smp[0].series, res.t_dev_ns);
    bool first = !st->got_msg;
    st->got_msg = true;
    if (first) {
        st->backoff_ns = 0; /* the target answered: the next failure starts over */
        fsc_log(FSC_LOG_INFO, "gnmi_stream_up", "source=%s device=%s stream=%s", cl->name,
                cl->gc->device, st->cfg->name);
        stream_up(st);
    }
    pthread_mutex_lock(&cl->mu);
    st->stats.state = FSC_GNMI_STATE_STREAMING;
    st->stats.messages++;
    st->stats.last_update_ns = arrival;
    if (rc != 0) {
        st->stats.decode_errors++;
    } else {
        st->stats.updates += res.updates;
        st->stats.samples += res.n_samples;
        st->stats.seq_lost += res.seq_lost;
        st->stats.seq_late += res.seq_late;
        st->stats.names_hashed += res.names_hashed;
        st->stats.zero_filled += res.zero_filled;
        st->stats.over_cap += res.overflow;
        st->stats.path_dropped += res.path_dropped;
        st->stats.multi_dropped += res.multi_dropped;
        if (res.sync_response)
            st->stats.sync_seen = true;
        st->stats.cadence_intervals = st->cad.intervals;
        st->stats.cadence_s = st->cad.cadence_s;
        st->stats.jitter_s = st->cad.jitter_s;
    }
    pthread_mutex_unlock(&cl->mu);
    if (rc != 0 && !st->logged_error) {
        st->logged_error = true; /* once per call: a bad target must not flood the log */
        fsc_log(FSC_LOG_WARN, "gnmi_decode_error", "source=%s device=%s stream=%s", cl->name,
                cl->gc->device, st->cfg->name);
    }
    if (rc == 0 && res.sync_response)
        fsc_log(FSC_LOG_INFO, "gnmi_sync", "source=%s stream=%s", cl->name, st->cfg->name);
    if (rc == 0 && res.error)
        fsc_log(FSC_LOG_WARN, "gnmi_response_error", "source=%s stream=%s", cl->name,
                st->cfg->name);
    if (rc == 0 && res.overflow)
        fsc_log(FSC_LOG_WARN, "gnmi_samples_overflow", "source=%s stream=%s dropped=%u", cl->name,
                st->cfg->name, res.overflow);
}

/* The call's last batch completed: release it and decide what comes next. */
static void call_finish(struct gnmi_stream *st, int64_t now)
{
    struct gnmi_client *cl = st->cl;
    char details[256];
    size_t dn = GRPC_SLICE_LENGTH(st->status_details);
    if (dn >= sizeof(details))
        dn = sizeof(details) - 1;
    memcpy(details, GRPC_SLICE_START_PTR(st->status_details), dn);
    details[dn] = '\0';
    int code = (int)st->status;
    grpc_slice_unref(st->status_details);
    grpc_metadata_array_destroy(&st->md_initial);
    grpc_metadata_array_destroy(&st->md_trailing);
    grpc_call_unref(st->call);
    st->call = NULL;
    if (atomic_load(&cl->stop))
        return;
    stream_down(st,
                st->stalled     ? FSC_STREAM_DOWN_STALLED
                : st->cancelled ? FSC_STREAM_DOWN_CONNECT_TIMEOUT
                                : FSC_STREAM_DOWN_CALL_ENDED,
                st->stalled || st->cancelled ? -1 : code);
    if (st->stalled) {
        st->next_try_mono = now;
        pthread_mutex_lock(&cl->mu);
        st->stats.resubscribes++;
        st->stats.state = FSC_GNMI_STATE_CONNECTING;
        pthread_mutex_unlock(&cl->mu);
        fsc_log(FSC_LOG_WARN, "gnmi_stream_resubscribe", "source=%s device=%s stream=%s", cl->name,
                cl->gc->device, st->cfg->name);
        return;
    }
    call_schedule_retry(st, now, st->cancelled ? "connect_timeout" : "call_ended", code, details);
}

static void caps_finish(struct gnmi_client *cl);

void fsc_gnmi_client_event(const grpc_event *ev, int64_t now)
{
    struct gnmi_tag *tag = ev->tag;
    struct gnmi_client *cl = tag->cl;
    if (tag->kind == TAG_CAPS) {
        caps_finish(cl);
        return;
    }
    struct gnmi_stream *st = tag->st;
    st->pending--;
    switch (tag->kind) {
    case TAG_SEND:
        grpc_byte_buffer_destroy(st->send_buf);
        st->send_buf = NULL;
        break;
    case TAG_RECV:
        if (ev->success && st->recv_buf) {
            on_message(st, now);
            if (!st->cancelled && !atomic_load(&cl->stop))
                recv_start(st, false);
            /* Silence counts from when the stream can receive again: a slow
             * ingest or log write of this message is not the target's. */
            st->last_msg_mono = fsc_mono_ns();
        } else if (st->recv_buf) {
            grpc_byte_buffer_destroy(st->recv_buf);
            st->recv_buf = NULL;
        }
        break;
    case TAG_STATUS:
        st->status_done = true;
        break;
    case TAG_CAPS:
    case TAG_WAKE: /* gnmi_pool.c takes it */
        break;
    }
    if (st->pending == 0)
        call_finish(st, now);
}

static void caps_start(struct gnmi_client *cl)
{
    grpc_slice method = grpc_slice_from_static_string("/gnmi.gNMI/Capabilities");
    cl->caps_call =
        grpc_channel_create_call(cl->chan, NULL, GRPC_PROPAGATE_DEFAULTS, cl->cq, method, NULL,
                                 deadline_in(cl->gc->connect_timeout_ns), NULL);
    if (!cl->caps_call)
        return;
    grpc_metadata_array_init(&cl->caps_md_initial);
    grpc_metadata_array_init(&cl->caps_md_trailing);
    cl->caps_details = grpc_empty_slice();
    cl->caps_recv = NULL;
    grpc_slice empty = grpc_empty_slice(); /* CapabilityRequest has no fields */
    cl->caps_send = grpc_raw_byte_buffer_create(&empty, 1);
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = cl->n_md;
    ops[0].data.send_initial_metadata.metadata = cl->md;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = cl->caps_send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &cl->caps_md_initial;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &cl->caps_recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &cl->caps_md_trailing;
    ops[5].data.recv_status_on_client.status = &cl->caps_status;
    ops[5].data.recv_status_on_client.status_details = &cl->caps_details;
    if (grpc_call_start_batch(cl->caps_call, ops, 6, &cl->t_caps, NULL) != GRPC_CALL_OK) {
        cl->caps_pending = false;
        caps_finish(cl);
        return;
    }
    cl->caps_pending = true;
}

static void caps_log(struct gnmi_client *cl, const uint8_t *buf, size_t len)
{
    Gnmi__CapabilityResponse *cr = gnmi__capability_response__unpack(NULL, len, buf);
    if (!cr) {
        fsc_log(FSC_LOG_WARN, "gnmi_capabilities_malformed", "source=%s device=%s", cl->name,
                cl->gc->device);
        return;
    }
    char encs[64] = "";
    bool proto = false;
    size_t off = 0;
    for (size_t i = 0; i < cr->n_supported_encodings && off < sizeof(encs) - 12; i++) {
        off += (size_t)snprintf(encs + off, sizeof(encs) - off, "%s%d", i ? "," : "",
                                (int)cr->supported_encodings[i]);
        if (cr->supported_encodings[i] == GNMI__ENCODING__PROTO)
            proto = true;
    }
    char q[128];
    fsc_log(FSC_LOG_INFO, "gnmi_capabilities",
            "source=%s device=%s models=%zu encodings=%s version=%s", cl->name, cl->gc->device,
            cr->n_supported_models, encs[0] ? encs : "none",
            fsc_log_quote(cr->gnmi_version ? cr->gnmi_version : "", q, sizeof(q)));
    if (cl->gc->encoding == FSC_GNMI_PROTO && !proto)
        fsc_log(FSC_LOG_ERROR, "gnmi_proto_not_offered", "source=%s device=%s encodings=%s",
                cl->name, cl->gc->device, encs[0] ? encs : "none");
    gnmi__capability_response__free_unpacked(cr, NULL);
}

static void caps_finish(struct gnmi_client *cl)
{
    if (cl->caps_recv) {
        grpc_byte_buffer_reader rd;
        if (cl->caps_status == GRPC_STATUS_OK && grpc_byte_buffer_reader_init(&rd, cl->caps_recv)) {
            grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
            grpc_byte_buffer_reader_destroy(&rd);
            caps_log(cl, GRPC_SLICE_START_PTR(sl), GRPC_SLICE_LENGTH(sl));
            grpc_slice_unref(sl);
        }
        grpc_byte_buffer_destroy(cl->caps_recv);
        cl->caps_recv = NULL;
    } else if (!atomic_load(&cl->stop)) {
        fsc_log(FSC_LOG_WARN, "gnmi_capabilities_failed", "source=%s device=%s grpc_status=%d",
                cl->name, cl->gc->device, (int)cl->caps_status);
    }
    grpc_byte_buffer_destroy(cl->caps_send);
    cl->caps_send = NULL;
    grpc_slice_unref(cl->caps_details);
    grpc_metadata_array_destroy(&cl->caps_md_initial);
    grpc_metadata_array_destroy(&cl->caps_md_trailing);
    grpc_call_unref(cl->caps_call);
    cl->caps_call = NULL;
    cl->caps_pending = false;
}

void fsc_gnmi_client_begin(struct gnmi_client *cl)
{
    caps_start(cl);
}

/* Health on each tick: start idle streams whose retry time has come, cancel
 * calls that never answered within connect_timeout or fell silent for
 * stall_intervals x their sample interval (ON_CHANGE streams have no cadence
 * and are left to keepalive). Silence counts from listen_since at the
 * earliest: while the worker could not listen, a quiet stream says nothing
 * of its target. */
void fsc_gnmi_client_tick(struct gnmi_client *cl, int64_t now, int64_t listen_since)
{
    const struct fsc_gnmi_config *gc = cl->gc;
    for (size_t i = 0; i < cl->n_streams; i++) {
        struct gnmi_stream *st = &cl->streams[i];
        if (!st->call) {
            if (now >= st->next_try_mono)
                call_start(st, now);
            continue;
        }
        if (st->cancelled)
            continue;
        int64_t quiet_from = st->got_msg ? st->last_msg_mono : st->started_mono;
        if (quiet_from < listen_since)
            quiet_from = listen_since;
        if (!st->got_msg) {
            if (gc->connect_timeout_ns > 0 && now - quiet_from > gc->connect_timeout_ns) {
                st->cancelled = true;
                grpc_call_cancel(st->call, NULL);
            }
            continue;
        }
        int64_t iv = st->cfg->mode == FSC_GNMI_SAMPLE ? st->cfg->sample_interval_ns : 0;
        if (iv > 0 && gc->stall_intervals > 0 &&
            now - quiet_from > (int64_t)gc->stall_intervals * iv) {
            st->cancelled = st->stalled = true;
            grpc_call_cancel(st->call, NULL);
        }
    }
}

bool fsc_gnmi_client_pending(const struct gnmi_client *cl)
{
    if (cl->caps_pending || cl->wake_pending)
        return true;
    for (size_t i = 0; i < cl->n_streams; i++)
        if (cl->streams[i].call)
            return true;
    return false;
}

void fsc_gnmi_client_cancel(struct gnmi_client *cl)
{
    if (cl->caps_call)
        grpc_call_cancel(cl->caps_call, NULL);
    for (size_t i = 0; i < cl->n_streams; i++)
        if (cl->streams[i].call)
            grpc_call_cancel(cl->streams[i].call, NULL);
}
