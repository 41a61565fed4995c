#include "app/daemon.h"

#include "base/clock.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/daemon_int.h"
#include "app/daemon_state.h"
#include "model/event_text.h"
#include "base/log.h"
#include "model/registry.h"
#include "plugin/source.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "sources/gnmi/gnmi_source.h"
#include "kafka/kafka_event_json.h"
#include "kafka/kafka_exporter.h"
#include "sources/otlp/otlp_source.h"
#include "prometheus/prom_http.h"
#include "prometheus/prom_render.h"
#include "remote_write/remote_write.h"
#include "rollup/rollup.h"
#include "web/web.h"

#define EVENT_RING    65536
#define STATS_EVERY_S 60

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

/* Per-minute rollups under state_dir (collector/rollup). Not fatal: a
 * collector that cannot write its state directory still collects. */
static void start_rollup(struct daemon *d)
{
    if (!d->cfg->rollup.enabled)
        return;
    struct fsc_rollup_env renv = {
        .reg = d->reg, .eng = d->eng, .engine_cfg = &d->cfg->engine, .topo = &d->cfg->topology};
    char rerr[512], q[600];
    d->rollup = fsc_rollup_start(d->cfg, &renv, rerr, sizeof(rerr));
    if (!d->rollup)
        fsc_log(FSC_LOG_WARN, "rollup_unavailable", "reason=%s", fsc_log_quote(rerr, q, sizeof(q)));
}

/* ---- Kafka exporter (exporters/kafka) -----------------------------------------
 * Started before the sources, so its bus subscription sees every event, and
 * stopped after them with a flush of up to KAFKA_FLUSH_NS; what is left stays
 * in the spool for the next start. Brokers that cannot be reached are no
 * start-up error: the exporter keeps retrying (log kafka_brokers_down,
 * fabricscope_kafka_broker_up 0) while events wait in its queue or spool. */
#define KAFKA_FLUSH_NS (10 * 1000000000LL)

static int start_kafka(struct daemon *d, char *err, size_t errlen)
{
    const struct fsc_kafka_config *kc = &d->cfg->exporters.kafka;
    if (!kc->present || !kc->enabled)
        return 0;
    d->kafka_json.reg = d->reg;
    d->kafka_json.cfg = d->cfg;
    fsc_kafka_run_id_new(d->kafka_json.run_id);
    const struct fsc_kafka_exporter_options opt = {.cfg = kc,
                                                   .config_file = d->cfg->file,
                                                   .bus = d->bus,
                                                   .encode = fsc_kafka_event_encode,
                                                   .encode_arg = &d->kafka_json};
    /* Its sentence starts with "file:line:col:" for a refused property. */
    d->kafka = fsc_kafka_exporter_start(&opt, err, errlen);
    if (!d->kafka)
        return -1;
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=kafka topic=%s run_id=%s", kc->events_topic,
            d->kafka_json.run_id);
    return 0;
}

static void stop_kafka(struct daemon *d)
{
    fsc_kafka_exporter_stop(d->kafka, KAFKA_FLUSH_NS); /* logs kafka_stopped */
    d->kafka = NULL;
}

/* ---- remote_write exporter (exporters/remote_write) ----------------------------
 * Started after the sources (it reads the engine, not the bus) and before
 * the Prometheus listener (whose scrapes read its stats); stopped after the
 * sources, so its last reading has everything, and before the engine goes,
 * with a flush of up to RW_FLUSH_NS. A receiver that cannot be reached is no
 * start-up error: the exporter retries while samples wait in its queue. */
#define RW_FLUSH_NS (10 * 1000000000LL)

static int start_remote_write(struct daemon *d, char *err, size_t errlen)
{
    const struct fsc_remote_write_config *rc = &d->cfg->exporters.remote_write;
    if (!rc->present || !rc->enabled)
        return 0;
    const struct fsc_rate_params *rp = &d->cfg->engine.rate;
    const struct fsc_remote_write_options opt = {
        .cfg = rc,
        .reg = d->reg,
        .eng = d->eng,
        .window_ns = rp->n_windows > 0 ? rp->window_ns[0] : 0,
    };
    char rerr[512];
    d->rw = fsc_remote_write_start(&opt, rerr, sizeof(rerr));
    if (!d->rw) {
        snprintf(err, errlen, "remote_write exporter: %s", rerr);
        return -1;
    }
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=remote_write url=%s", rc->url);
    return 0;
}

static void stop_remote_write(struct daemon *d)
{
    fsc_remote_write_stop(d->rw, RW_FLUSH_NS); /* logs remote_write_stopped */
    d->rw = NULL;
}

/* Waits for a stop signal, logging stats every STATS_EVERY_S and reloading
 * the config from path on SIGHUP. */
static int wait_for_signal(struct daemon *d, const sigset_t *set, const char *path)
{
    time_t last_stats = time(NULL);
    for (;;) {
        struct timespec tick = {1, 0};
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM)
            return sig;
        if (sig == SIGHUP)
            fsc_dsources_reload(&d->src, path);
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
    /* Before the sources, so the page's event list misses nothing. */
    if (fsc_daemon_start_web(&d, err, errlen) != 0)
        goto out;
    if (start_kafka(&d, err, errlen) != 0)
        goto out;
    if (fsc_dsources_start(&d.src, cfg, d.reg, d.eng, err, errlen) != 0)
        goto out;
    start_rollup(&d);
    if (start_remote_write(&d, err, errlen) != 0)
        goto out;
    if (fsc_daemon_start_prometheus(&d, err, errlen) != 0)
        goto out;
    atomic_store(&d.ready, 1);

    fsc_log(FSC_LOG_INFO, "started", "config=%s sources=%zu running=%zu windows=%u", path,
            cfg->n_sources, d.src.n_run, cfg->engine.rate.n_windows);
    int sig = wait_for_signal(&d, &set, path);
    fsc_log(FSC_LOG_INFO, "stopping", "signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = 0;
out:
    fsc_prom_http_stop(d.prom_http);
    fsc_web_destroy(d.web); /* after the server that serves its routes */
    fsc_prom_renderer_destroy(d.prom);
    fsc_dsources_stop(&d.src);
    fsc_rollup_stop(d.rollup); /* after the sources, before the engine goes */
    stop_kafka(&d);            /* after the sources: takes what they published */
    stop_remote_write(&d);     /* after the sources and scrapes, before the engine */
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
