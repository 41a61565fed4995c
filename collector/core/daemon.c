#include "core/daemon.h"

#include "core/clock.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/event_text.h"
#include "core/log.h"
#include "core/registry.h"
#include "core/source.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "gnmi/gnmi_source.h"
#include "otlp/otlp_source.h"
#include "prometheus/prom_http.h"
#include "prometheus/prom_render.h"

#define EVENT_RING         65536
#define STATS_EVERY_S      60
#define DAEMON_STREAMS_MAX 256 /* gNMI streams shown in /metrics */

struct running_source {
    const struct fsc_source_config *cfg;
    const struct fsc_source_ops *ops;
    void *ctx;
    struct fsc_source_env env;
};

struct daemon {
    const struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_event_bus *bus;
    struct fsc_engine *eng;
    struct running_source *sources;
    size_t n_sources;
    pthread_t event_thread;
    int event_thread_started;
    atomic_int stopping;
    atomic_int ready; /* config loaded, sources and sinks started */
    struct fsc_prom_renderer *prom;
    struct fsc_prom_http *prom_http;
    char stream_names[DAEMON_STREAMS_MAX][64]; /* streams_cb's copies */
};

/* The event log: one line per detector event. Owns its subscription; runs
 * until d->stopping is set, then drains what is left. */
static void *event_log_main(void *arg)
{
    struct daemon *d = arg;
    struct fsc_event_sub *sub = fsc_event_subscribe(d->bus);
    struct fsc_event batch[64];
    char line[1024];

    if (!sub) {
        fsc_log(FSC_LOG_ERROR, "event_log_failed", "reason=out_of_memory");
        return NULL;
    }
    for (;;) {
        int stop = atomic_load(&d->stopping);
        uint64_t lost = 0;
        size_t n = fsc_event_poll(sub, batch, 64, &lost);
        if (lost)
            fsc_log(FSC_LOG_WARN, "events_lost", "count=%llu", (unsigned long long)lost);
        for (size_t i = 0; i < n; i++) {
            fsc_event_format(&batch[i], d->reg, line, sizeof(line));
            fsc_log(FSC_LOG_INFO, "detect", "%s", line);
        }
        if (n == 0) {
            if (stop)
                break;
            fsc_event_wait(sub, 200);
        }
    }
    fsc_event_unsubscribe(sub);
    return NULL;
}

static void log_stats(struct daemon *d)
{
    struct fsc_engine_stats st;
    fsc_engine_stats_get(d->eng, &st);
    fsc_log(FSC_LOG_INFO, "stats",
            "series=%u samples=%llu intervals=%llu stale_repeats=%llu duplicates=%llu "
            "out_of_order=%llu clock_steps=%llu resets=%llu wraps=%llu implausible=%llu "
            "gaps=%llu events=%llu",
            fsc_registry_count(d->reg), (unsigned long long)st.samples,
            (unsigned long long)st.verdicts[FSC_RATE_INTERVAL],
            (unsigned long long)st.verdicts[FSC_RATE_STALE_REPEAT],
            (unsigned long long)st.verdicts[FSC_RATE_DUPLICATE],
            (unsigned long long)st.verdicts[FSC_RATE_OUT_OF_ORDER],
            (unsigned long long)st.verdicts[FSC_RATE_CLOCK_STEP],
            (unsigned long long)st.verdicts[FSC_RATE_RESET], (unsigned long long)st.wraps,
            (unsigned long long)st.verdicts[FSC_RATE_IMPLAUSIBLE], (unsigned long long)st.gaps,
            (unsigned long long)fsc_event_bus_published(d->bus));
    for (uint16_t s = 0; s < fsc_registry_source_count(d->reg); s++) {
        struct fsc_registry_source_stats ss;
        if (fsc_registry_source_stats(d->reg, s, &ss) == 0 && (ss.dropped || ss.rejected))
            fsc_log(FSC_LOG_WARN, "series_limited",
                    "source=%s series=%u limit=%u dropped=%llu rejected=%llu", ss.name, ss.series,
                    ss.limit, (unsigned long long)ss.dropped, (unsigned long long)ss.rejected);
    }
}

static int start_sources(struct daemon *d, char *err, size_t errlen)
{
    const struct fsc_config *cfg = d->cfg;

    d->sources = calloc(cfg->n_sources ? cfg->n_sources : 1, sizeof(*d->sources));
    if (!d->sources) {
        snprintf(err, errlen, "out of memory starting sources");
        return -1;
    }
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *sc = &cfg->sources[i];
        struct running_source *rs = &d->sources[d->n_sources];
        const char *type = fsc_source_type_name(sc->type);

        if (!sc->enabled) {
            fsc_log(FSC_LOG_INFO, "source_disabled", "source=%s type=%s", sc->name, type);
            continue;
        }
        rs->ops = fsc_source_ops_find(sc->type);
        if (!rs->ops) {
            fsc_log(FSC_LOG_WARN, "source_unavailable",
                    "source=%s type=%s reason=\"type not built in this version\"", sc->name, type);
            continue;
        }
        rs->cfg = sc;
        rs->env.reg = d->reg;
        rs->env.eng = d->eng;
        rs->env.topo = &cfg->topology;
        int rc = fsc_registry_source_add(d->reg, sc->name, sc->max_series, &rs->env.source_id);
        if (rc != 0) {
            snprintf(err, errlen, "source %s: cannot register: %s", sc->name, strerror(-rc));
            return -1;
        }
        char serr[512];
        rs->ctx = rs->ops->start(sc, &rs->env, serr, sizeof(serr));
        if (!rs->ctx) {
            snprintf(err, errlen, "source %s (%s): %s", sc->name, type, serr);
            return -1;
        }
        fsc_log(FSC_LOG_INFO, "source_started", "source=%s type=%s", sc->name, type);
        d->n_sources++;
    }
    return 0;
}

static void stop_sources(struct daemon *d)
{
    for (size_t i = d->n_sources; i-- > 0;) {
        d->sources[i].ops->stop(d->sources[i].ctx);
        fsc_log(FSC_LOG_INFO, "source_stopped", "source=%s", d->sources[i].cfg->name);
    }
    free(d->sources);
    d->sources = NULL;
    d->n_sources = 0;
}

static int prom_render_cb(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out)
{
    struct daemon *d = arg;
    return fsc_prom_render(d->prom, fmt, fsc_now_ns(), out);
}

static int prom_ready_cb(void *arg)
{
    struct daemon *d = arg;
    return atomic_load(&d->ready);
}

/* Streams a gNMI instance may report per call; more are not shown. */
#define GNMI_STREAMS_MAX 64

/* A source is up while it runs; a gNMI source only while every one of its
 * subscription streams is streaming. */
static int source_up_cb(void *arg, size_t index)
{
    struct daemon *d = arg;
    const struct fsc_source_config *sc = &d->cfg->sources[index];
    for (size_t i = 0; i < d->n_sources; i++) {
        if (d->sources[i].cfg != sc)
            continue;
        if (sc->type != FSC_SOURCE_GNMI)
            return 1;
        struct fsc_gnmi_stream_stats st[GNMI_STREAMS_MAX];
        size_t n = fsc_gnmi_source_stats(d->sources[i].ctx, st, GNMI_STREAMS_MAX);
        for (size_t k = 0; k < n && k < GNMI_STREAMS_MAX; k++)
            if (st[k].state != FSC_GNMI_STATE_STREAMING)
                return 0;
        return n > 0;
    }
    return 0;
}

/* The renderer's view of every gNMI stream (fabricscope_gnmi_*). Stream
 * names are copied into a per-daemon table that lives until the next call:
 * renders are serialised, so one table is enough. */
static size_t streams_cb(void *arg, struct fsc_prom_stream_stat *out, size_t cap)
{
    struct daemon *d = arg;
    int64_t now_ns = fsc_now_ns();
    size_t total = 0;
    for (size_t i = 0; i < d->n_sources; i++) {
        if (d->sources[i].cfg->type != FSC_SOURCE_GNMI)
            continue;
        struct fsc_gnmi_stream_stats st[GNMI_STREAMS_MAX];
        size_t n = fsc_gnmi_source_stats(d->sources[i].ctx, st, GNMI_STREAMS_MAX);
        for (size_t k = 0; k < n && k < GNMI_STREAMS_MAX; k++, total++) {
            if (total >= cap || total >= DAEMON_STREAMS_MAX)
                continue;
            memcpy(d->stream_names[total], st[k].name, sizeof(d->stream_names[total]));
            out[total] = (struct fsc_prom_stream_stat){
                .source = d->sources[i].cfg->name,
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
    for (size_t i = 0; i < d->n_sources; i++) {
        if (d->sources[i].cfg->type != FSC_SOURCE_OTLP || !d->sources[i].ctx)
            continue;
        struct fsc_otlp_transport_stats st[2];
        size_t n = fsc_otlp_source_stats(d->sources[i].ctx, st, 2);
        for (size_t k = 0; k < n && total < cap; k++, total++)
            out[total] = (struct fsc_prom_receiver_stat){
                .source = d->sources[i].cfg->name,
                .transport = st[k].transport,
                .ok = st[k].ok,
                .partial = st[k].partial,
                .bad_request = st[k].bad_request,
                .too_large = st[k].too_large,
                .other_errors = st[k].other_errors,
                .bytes = st[k].bytes_received,
                .points = st[k].points,
                .rejected = st[k].rejected,
            };
    }
    return total;
}

static int start_prometheus(struct daemon *d, char *err, size_t errlen)
{
    const struct fsc_prometheus_config *pc = &d->cfg->exporters.prometheus;
    if (!pc->enabled)
        return 0;
    struct fsc_prom_render_env env = {
        .reg = d->reg,
        .eng = d->eng,
        .cfg = d->cfg,
        .source_up = source_up_cb,
        .source_up_arg = d,
        .streams = streams_cb,
        .streams_arg = d,
        .receivers = receivers_cb,
        .receivers_arg = d,
    };
    char perr[512];
    d->prom = fsc_prom_renderer_create(&env, perr, sizeof(perr));
    if (!d->prom) {
        snprintf(err, errlen, "prometheus exporter: %s", perr);
        return -1;
    }
    struct fsc_prom_http_config hc = {.listen = pc->listen};
    d->prom_http = fsc_prom_http_start(&hc, prom_render_cb, prom_ready_cb, d, perr, sizeof(perr));
    if (!d->prom_http) {
        snprintf(err, errlen, "prometheus exporter: %s", perr);
        return -1;
    }
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=prometheus listen=%s port=%u", pc->listen,
            (unsigned)fsc_prom_http_port(d->prom_http));
    return 0;
}

/* Exporters land with their own issues; until then say plainly that an
 * enabled one does nothing rather than let a user wait for data. */
static void warn_unbuilt_exporters(const struct fsc_config *cfg)
{
    const struct fsc_exporters_config *ex = &cfg->exporters;
    if (ex->kafka.present && ex->kafka.enabled)
        fsc_log(FSC_LOG_WARN, "exporter_unavailable",
                "exporter=kafka reason=\"not built in this version\"");
    if (ex->remote_write.present && ex->remote_write.enabled)
        fsc_log(FSC_LOG_WARN, "exporter_unavailable",
                "exporter=remote_write reason=\"not built in this version\"");
}

/* Waits for a stop signal, logging stats every STATS_EVERY_S. */
static int wait_for_signal(struct daemon *d, const sigset_t *set)
{
    time_t last_stats = time(NULL);
    for (;;) {
        struct timespec tick = {1, 0};
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM)
            return sig;
        if (sig == SIGHUP)
            fsc_log(FSC_LOG_INFO, "sighup_ignored", "reason=\"reload is not supported yet\"");
        if (time(NULL) - last_stats >= STATS_EVERY_S) {
            log_stats(d);
            last_stats = time(NULL);
        }
    }
}

int fsc_daemon_run(const struct fsc_config *cfg, const char *path, char *err, size_t errlen)
{
    struct daemon d = {.cfg = cfg};
    sigset_t set;
    int rc = -1;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    /* Block before any thread starts so only sigtimedwait below sees them. */
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
        snprintf(err, errlen, "cannot block signals");
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);

    atomic_init(&d.stopping, 0);
    atomic_init(&d.ready, 0);
    d.reg = fsc_registry_create(cfg->engine.max_series);
    d.bus = fsc_event_bus_create(EVENT_RING);
    if (!d.reg || !d.bus) {
        snprintf(err, errlen, "out of memory creating the registry and event bus");
        goto out;
    }
    d.eng = fsc_engine_create(&cfg->engine, d.bus, err, errlen);
    if (!d.eng)
        goto out;
    if (pthread_create(&d.event_thread, NULL, event_log_main, &d) != 0) {
        snprintf(err, errlen, "cannot start the event log thread");
        goto out;
    }
    d.event_thread_started = 1;
    if (start_sources(&d, err, errlen) != 0)
        goto out;
    if (start_prometheus(&d, err, errlen) != 0)
        goto out;
    atomic_store(&d.ready, 1);

    warn_unbuilt_exporters(cfg);
    fsc_log(FSC_LOG_INFO, "started", "config=%s sources=%zu running=%zu windows=%u", path,
            cfg->n_sources, d.n_sources, cfg->engine.rate.n_windows);
    int sig = wait_for_signal(&d, &set);
    fsc_log(FSC_LOG_INFO, "stopping", "signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = 0;
out:
    fsc_prom_http_stop(d.prom_http);
    fsc_prom_renderer_destroy(d.prom);
    stop_sources(&d);
    atomic_store(&d.stopping, 1);
    if (d.event_thread_started)
        pthread_join(d.event_thread, NULL);
    if (d.eng && rc == 0)
        log_stats(&d);
    fsc_engine_destroy(d.eng);
    fsc_event_bus_destroy(d.bus);
    fsc_registry_destroy(d.reg);
    if (rc == 0)
        fsc_log(FSC_LOG_INFO, "stopped", "config=%s", path);
    return rc;
}
