/* What /metrics and the status page read of the running daemon: the
 * renderer's callbacks (sources up, gNMI streams, OTLP receivers, listener
 * auth, Kafka, remote_write, rollups) and the web module's, plus the start
 * of both servers. Every callback runs on an HTTP thread, concurrently with
 * reloads: sources are read under the sources' read lock (daemon_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "app/daemon_state.h"
#include "base/log.h"
#include "sources/gnmi/gnmi_source.h"
#include "sources/otlp/otlp_source.h"

/* The renderer's view of the rollup store (fabricscope_rollup_*). */
static int rollup_stats_cb(void *arg, struct fsc_prom_rollup_stat *out)
{
    struct daemon *d = arg;
    struct fsc_rollup_stats st;
    if (!d->rollup)
        return 0;
    fsc_rollup_stats(d->rollup, &st);
    *out = (struct fsc_prom_rollup_stat){
        .written = st.store.records,
        .dropped = st.store.dropped,
        .write_errors = st.store.write_errors,
        .torn_cut = st.store.torn_cut,
        .series_dropped = st.series_dropped,
    };
    return 1;
}

/* Renders under the sources' read lock: the renderer's view of the config
 * (d->src.view) and the callbacks below read what a reload swaps. */
static int prom_render_cb(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out)
{
    struct daemon *d = arg;
    fsc_dsources_read_lock(&d->src);
    int rc = fsc_prom_render(d->prom, fmt, fsc_now_ns(), out);
    if (rc == 0)
        rc = fsc_dsources_render(&d->src, fmt == FSC_PROM_OPENMETRICS, out);
    fsc_dsources_read_unlock(&d->src);
    return rc;
}

static int prom_ready_cb(void *arg)
{
    struct daemon *d = arg;
    return atomic_load(&d->ready);
}

/* Streams a gNMI instance may report per call; more are not shown. */
#define GNMI_STREAMS_MAX 64

/* A source is up while it runs; a gNMI source only while every one of its
 * subscription streams is streaming. index is into d->src.view.sources.
 * This and the renderer's other callbacks run inside prom_render_cb, under
 * the sources' read lock. */
static int source_up_cb(void *arg, size_t index)
{
    struct daemon *d = arg;
    if (index >= d->src.view.n_sources)
        return 0;
    const struct fsc_drun *rs = fsc_dsources_find(&d->src, d->src.view.sources[index].name);
    if (!rs)
        return 0;
    if (rs->cfg->type != FSC_SOURCE_GNMI)
        return 1;
    struct fsc_gnmi_stream_stats st[GNMI_STREAMS_MAX];
    size_t n = fsc_gnmi_source_stats(rs->ctx, st, GNMI_STREAMS_MAX);
    for (size_t k = 0; k < n && k < GNMI_STREAMS_MAX; k++)
        if (st[k].state != FSC_GNMI_STATE_STREAMING)
            return 0;
    return n > 0;
}

/* The renderer's view of every gNMI stream (fabricscope_gnmi_*). Stream
 * names are copied into a per-daemon table that lives until the next call:
 * renders are serialised, so one table is enough. */
static size_t streams_cb(void *arg, struct fsc_prom_stream_stat *out, size_t cap)
{
    struct daemon *d = arg;
    int64_t now_ns = fsc_now_ns();
    size_t total = 0;
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->cfg->type != FSC_SOURCE_GNMI)
            continue;
        struct fsc_gnmi_stream_stats st[GNMI_STREAMS_MAX];
        size_t n = fsc_gnmi_source_stats(rs->ctx, st, GNMI_STREAMS_MAX);
        for (size_t k = 0; k < n && k < GNMI_STREAMS_MAX; k++, total++) {
            if (total >= cap || total >= DAEMON_STREAMS_MAX)
                continue;
            memcpy(d->stream_names[total], st[k].name, sizeof(d->stream_names[total]));
            out[total] = (struct fsc_prom_stream_stat){
                .source = rs->cfg->name,
                .stream = d->stream_names[total],
                .up = st[k].state == FSC_GNMI_STATE_STREAMING,
                .last_update_age =
                    st[k].last_update_ns ? (double)(now_ns - st[k].last_update_ns) * 1e-9 : -1,
                .messages = st[k].messages,
                .updates = st[k].updates,
                .decode_errors = st[k].decode_errors,
                .seq_gaps = st[k].seq_gaps,
                .reconnects = st[k].reconnects,
                .resubscribes = st[k].resubscribes,
                .cadence_intervals = st[k].cadence_intervals,
                .cadence_s = st[k].cadence_s,
                .jitter_s = st[k].jitter_s,
            };
        }
    }
    return total < DAEMON_STREAMS_MAX ? total : DAEMON_STREAMS_MAX;
}

/* The renderer's view of every OTLP transport (fabricscope_otlp_*). The
 * transport names are static strings, the source names live in the config. */
static size_t receivers_cb(void *arg, struct fsc_prom_receiver_stat *out, size_t cap)
{
    struct daemon *d = arg;
    size_t total = 0;
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->cfg->type != FSC_SOURCE_OTLP || !rs->ctx)
            continue;
        struct fsc_otlp_transport_stats st[2];
        size_t n = fsc_otlp_source_stats(rs->ctx, st, 2);
        for (size_t k = 0; k < n && total < cap; k++, total++)
            out[total] = (struct fsc_prom_receiver_stat){
                .source = rs->cfg->name,
                .transport = st[k].transport,
                .ok = st[k].ok,
                .partial = st[k].partial,
                .bad_request = st[k].bad_request,
                .too_large = st[k].too_large,
                .other_errors = st[k].other_errors,
                .bytes = st[k].bytes_received,
                .points = st[k].points,
                .rejected = st[k].rejected,
                .skipped_other_shard = st[k].skipped_other_shard,
                .skipped_no_value = st[k].skipped_no_value,
            };
    }
    return total;
}

/* One listener's refusals, fsc_http_sec_stats() to the renderer's reasons
 * (the credential verdicts in the same order, then client certificates). */
_Static_assert(FSC_AUTH_VERDICTS - FSC_AUTH_MISSING == FSC_PROM_AUTH_CLIENT_CERT,
               "auth verdicts and fabricscope_listener_auth_failures_total reasons differ");
static void listener_stat(struct fsc_prom_listener_stat *out, const struct fsc_http_sec_stats *sec)
{
    for (int v = FSC_AUTH_MISSING; v < FSC_AUTH_VERDICTS; v++)
        out->failures[FSC_PROM_AUTH_MISSING + (v - FSC_AUTH_MISSING)] = sec->auth.failed_by[v];
    out->failures[FSC_PROM_AUTH_CLIENT_CERT] = sec->cert_refused;
}

/* The renderer's view of the listeners that check credentials or client
 * certificates (fabricscope_listener_auth_failures_total): Prometheus, then
 * each OTLP transport, named as in their listener_auth_failed log lines. */
static size_t listeners_cb(void *arg, struct fsc_prom_listener_stat *out, size_t cap)
{
    struct daemon *d = arg;
    size_t total = 0;
    struct fsc_http_sec_stats sec;
    /* d->prom_http is assigned after its threads start; ready (stored
     * after that) makes the read safe. A scrape before it misses one row. */
    fsc_prom_http_sec_stats(atomic_load(&d->ready) ? d->prom_http : NULL, &sec);
    if (sec.gated && total < cap) {
        memset(&out[total], 0, sizeof(out[total]));
        snprintf(out[total].listener, sizeof(out[total].listener), "prometheus");
        listener_stat(&out[total++], &sec);
    }
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->cfg->type != FSC_SOURCE_OTLP || !rs->ctx)
            continue;
        struct fsc_otlp_transport_stats st[2];
        size_t n = fsc_otlp_source_stats(rs->ctx, st, 2);
        for (size_t k = 0; k < n && total < cap; k++) {
            if (!st[k].sec.gated)
                continue;
            memset(&out[total], 0, sizeof(out[total]));
            snprintf(out[total].listener, sizeof(out[total].listener), "otlp/%s:%s",
                     st[k].transport, rs->cfg->name);
            listener_stat(&out[total++], &st[k].sec);
        }
    }
    return total;
}

/* The renderer's view of the Kafka exporter (fabricscope_kafka_*). */
static int kafka_stats_cb(void *arg, struct fsc_prom_kafka_stat *out)
{
    struct daemon *d = arg;
    struct fsc_kafka_stats st;
    if (!d->kafka)
        return 0;
    fsc_kafka_exporter_stats(d->kafka, &st);
    *out = (struct fsc_prom_kafka_stat){
        .topic = d->cfg->exporters.kafka.events_topic,
        .queued = st.queued,
        .delivered = st.delivered,
        .failed = st.failed,
        .retried = st.retried,
        .spooled = st.spooled,
        .dropped_bus = st.dropped_bus,
        .dropped_encode = st.dropped_encode,
        .dropped_full = st.dropped_full,
        .dropped_error = st.dropped_error,
        .spool_corrupt = st.spool_corrupt,
        .spool_io_errors = st.spool_io_errors,
        .producer_restarts = st.producer_restarts,
        .queue_messages = st.queue_messages,
        .queue_bytes = st.queue_bytes,
        .spool_records = st.spool_records,
        .spool_bytes = st.spool_bytes,
        .broker_up = st.broker_up,
    };
    return 1;
}

/* The renderer's view of the remote_write exporter (fabricscope_remote_write_*). */
static int rw_stats_cb(void *arg, struct fsc_prom_remote_write_stat *out)
{
    struct daemon *d = arg;
    struct fsc_remote_write_stats st;
    if (!d->rw)
        return 0;
    fsc_remote_write_stats(d->rw, &st);
    *out = (struct fsc_prom_remote_write_stat){
        .sent = st.sent,
        .failed = st.failed,
        .dropped = st.dropped,
        .retried = st.retried,
        .queue_samples = st.queue_samples,
        .queue_capacity = st.queue_capacity,
        .last_success_s = st.last_success_s,
        .n_codes = st.n_codes < FSC_PROM_RW_CODES ? st.n_codes : FSC_PROM_RW_CODES,
        .n_le = FSC_RW_DURATION_BUCKETS,
        .sum = st.duration_sum,
    };
    for (size_t i = 0; i < out->n_codes; i++) {
        memcpy(out->codes[i].code, st.codes[i].code, sizeof(out->codes[i].code));
        out->codes[i].requests = st.codes[i].requests;
    }
    for (size_t i = 0; i <= FSC_RW_DURATION_BUCKETS; i++) {
        if (i < FSC_RW_DURATION_BUCKETS)
            out->le[i] = fsc_rw_duration_le[i];
        out->bucket[i] = st.duration_bucket[i];
    }
    return 1;
}

int fsc_daemon_start_prometheus(struct daemon *d, char *err, size_t errlen)
{
    const struct fsc_prometheus_config *pc = &d->cfg->exporters.prometheus;
    if (!pc->enabled)
        return 0;
    struct fsc_prom_render_env env = {
        .reg = d->reg,
        .eng = d->eng,
        .cfg = &d->src.view, /* read under the sources' lock (prom_render_cb) */
        .source_up = source_up_cb,
        .source_up_arg = d,
        .streams = streams_cb,
        .streams_arg = d,
        .receivers = receivers_cb,
        .receivers_arg = d,
        .kafka = kafka_stats_cb,
        .kafka_arg = d,
        .remote_write = rw_stats_cb,
        .remote_write_arg = d,
        .listeners = listeners_cb,
        .listeners_arg = d,
        .rollup = rollup_stats_cb,
        .rollup_arg = d,
    };
    char perr[512];
    d->prom = fsc_prom_renderer_create(&env, perr, sizeof(perr));
    if (!d->prom) {
        snprintf(err, errlen, "prometheus exporter: %s", perr);
        return -1;
    }
    struct fsc_prom_http_config hc = {
        .listen = pc->listen,
        .tls = pc->tls.present ? &pc->tls : NULL,
        .auth = pc->auth.present ? &pc->auth : NULL,
    };
    d->prom_http = fsc_prom_http_start_routes(&hc, d->web_routes, d->n_web_routes, prom_render_cb,
                                              prom_ready_cb, d, perr, sizeof(perr));
    if (!d->prom_http) {
        snprintf(err, errlen, "prometheus exporter: %s", perr);
        return -1;
    }
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=prometheus listen=%s port=%u", pc->listen,
            (unsigned)fsc_prom_http_port(d->prom_http));
    return 0;
}

/* ---- status page (exporters/web) ------------------------------------------------
 * Served on the Prometheus listener whenever that exporter is on: the web
 * module's routes are handed to fsc_prom_http_start_routes(). Its tables
 * come from these callbacks, which run on HTTP threads concurrently with
 * each other and with scrapes, so they copy into the caller's entries and
 * share nothing (unlike streams_cb's per-daemon name table). */

/* The sources of this shard (d->src.view), under the sources' read lock. */
static size_t web_sources_cb(void *arg, struct fsc_web_source *out, size_t cap)
{
    struct daemon *d = arg;
    fsc_dsources_read_lock(&d->src);
    size_t n = d->src.view.n_sources;
    for (size_t i = 0; i < n && i < cap; i++) {
        const struct fsc_source_config *sc = &d->src.view.sources[i];
        struct fsc_web_source *ws = &out[i];
        memset(ws, 0, sizeof(*ws));
        snprintf(ws->name, sizeof(ws->name), "%s", sc->name);
        snprintf(ws->type, sizeof(ws->type), "%s", fsc_source_type_name(sc->type));
        ws->state = sc->enabled ? "unavailable" : "disabled";
        const struct fsc_drun *rs = fsc_dsources_find(&d->src, sc->name);
        if (rs) {
            struct fsc_registry_source_stats ss;
            ws->state = "running";
            if (fsc_registry_source_stats(d->reg, rs->env.source_id, &ss) == 0)
                ws->series = ss.series;
        }
        ws->up = source_up_cb(d, i);
    }
    fsc_dsources_read_unlock(&d->src);
    return n;
}

static size_t web_streams_cb(void *arg, struct fsc_web_stream *out, size_t cap)
{
    static const char *const state[] = {
        [FSC_GNMI_STATE_CONNECTING] = "connecting",
        [FSC_GNMI_STATE_STREAMING] = "streaming",
        [FSC_GNMI_STATE_BACKOFF] = "backoff",
    };
    struct daemon *d = arg;
    struct fsc_gnmi_stream_stats st[GNMI_STREAMS_MAX];
    size_t total = 0;
    fsc_dsources_read_lock(&d->src);
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->cfg->type != FSC_SOURCE_GNMI)
            continue;
        size_t n = fsc_gnmi_source_stats(rs->ctx, st, GNMI_STREAMS_MAX);
        for (size_t k = 0; k < n && k < GNMI_STREAMS_MAX; k++, total++) {
            if (total >= cap)
                continue;
            struct fsc_web_stream *ws = &out[total];
            memset(ws, 0, sizeof(*ws));
            snprintf(ws->source, sizeof(ws->source), "%s", rs->cfg->name);
            _Static_assert(sizeof(st[0].name) == sizeof(ws->stream), "stream name sizes");
            memcpy(ws->stream, st[k].name, sizeof(ws->stream));
            ws->stream[sizeof(ws->stream) - 1] = '\0';
            ws->state =
                (unsigned)st[k].state <= FSC_GNMI_STATE_BACKOFF ? state[st[k].state] : "unknown";
            ws->sync_seen = st[k].sync_seen;
            ws->last_update_ns = st[k].last_update_ns;
            ws->messages = st[k].messages;
            ws->updates = st[k].updates;
            ws->decode_errors = st[k].decode_errors;
            ws->seq_gaps = st[k].seq_gaps;
            ws->reconnects = st[k].reconnects;
            ws->resubscribes = st[k].resubscribes;
            ws->cadence_intervals = st[k].cadence_intervals;
            ws->cadence_s = st[k].cadence_s;
            ws->jitter_s = st[k].jitter_s;
        }
    }
    fsc_dsources_read_unlock(&d->src);
    return total;
}

static size_t web_receivers_cb(void *arg, struct fsc_web_receiver *out, size_t cap)
{
    struct daemon *d = arg;
    size_t total = 0;
    fsc_dsources_read_lock(&d->src);
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->cfg->type != FSC_SOURCE_OTLP || !rs->ctx)
            continue;
        struct fsc_otlp_transport_stats st[2];
        size_t n = fsc_otlp_source_stats(rs->ctx, st, 2);
        for (size_t k = 0; k < n && k < 2; k++, total++) {
            if (total >= cap)
                continue;
            struct fsc_web_receiver *wr = &out[total];
            memset(wr, 0, sizeof(*wr));
            snprintf(wr->source, sizeof(wr->source), "%s", rs->cfg->name);
            snprintf(wr->transport, sizeof(wr->transport), "%s", st[k].transport);
            wr->port = st[k].port;
            wr->requests = st[k].requests;
            wr->ok = st[k].ok;
            wr->partial = st[k].partial;
            wr->bad_request = st[k].bad_request;
            wr->too_large = st[k].too_large;
            wr->other_errors = st[k].other_errors;
            wr->bytes = st[k].bytes_received;
            wr->points = st[k].points;
            wr->rejected = st[k].rejected;
        }
    }
    fsc_dsources_read_unlock(&d->src);
    return total;
}

/* Creates the web module when the Prometheus exporter is on (before it,
 * which then serves its routes). */
int fsc_daemon_start_web(struct daemon *d, char *err, size_t errlen)
{
    if (!d->cfg->exporters.prometheus.enabled)
        return 0;
    struct fsc_web_env env = {
        .reg = d->reg,
        .eng = d->eng,
        .bus = d->bus,
        .cfg = d->cfg,
        .sources = web_sources_cb,
        .streams = web_streams_cb,
        .receivers = web_receivers_cb,
        .arg = d,
    };
    char werr[512];
    d->web = fsc_web_create(&env, werr, sizeof(werr));
    if (!d->web) {
        snprintf(err, errlen, "status page: %s", werr);
        return -1;
    }
    d->n_web_routes = fsc_web_routes(d->web, d->web_routes, FSC_WEB_ROUTES);
    return 0;
}
