#include "daemon/daemon.h"

#include "base/clock.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_reload.h"
#include "daemon/daemon_state.h"
#include "daemon/plugins.h"
#include "engine/engine_keys.h"
#include "model/event_text.h"
#include "base/log.h"
#include "base/mem_trim.h"
#include "model/registry.h"
#include "plugin/source.h"
#include "engine/engine.h"
#include "engine/events.h"

#define EVENT_RING    65536
#define STATS_EVERY_S 60
#define TRIM_EVERY_S  30 /* the heap's free pages back to the kernel (base/mem_trim.h) */

/* The event log: one line per detector event. Owns d->event_sub, which the
 * main thread opened before any source started (a subscription opened here
 * would miss what a source publishes before this thread first runs, e.g. the
 * NIC source's first host check); runs until d->stopping is set, then drains
 * what is left. */
static void *event_log_main(void *arg)
{
    struct daemon *d = arg;
    struct fsc_event_sub *sub = d->event_sub;
    struct fsc_event batch[64];
    char line[1024];

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

/* ---- sinks (plugin/sink.h) ------------------------------------------------------ */

/* Whether a sink of this table serves routes (then the sinks with routes
 * run too). */
static bool routes_served(const struct fsc_config *cfg)
{
    for (size_t i = 0; fsc_app_sinks[i]; i++) {
        const struct fsc_sink_ops *ops = fsc_app_sinks[i];
        const void *settings = fsc_config_section(cfg, ops->config);
        if (ops->serves_routes && settings && ops->enabled(settings))
            return true;
    }
    return false;
}

/* Starts the enabled sinks of one phase, in table order. A required sink
 * that fails stops the start with its sentence; another is logged as
 * <name>_unavailable and left out. */
static int start_sinks(struct daemon *d, enum fsc_sink_phase phase, char *err, size_t errlen)
{
    const struct fsc_sink_env env = {
        .cfg = d->cfg, .reg = d->reg, .eng = d->eng, .bus = d->bus, .view = &d->view};
    bool served = routes_served(d->cfg);
    for (size_t i = 0; fsc_app_sinks[i]; i++) {
        const struct fsc_sink_ops *ops = fsc_app_sinks[i];
        const void *settings = fsc_config_section(d->cfg, ops->config);
        if (ops->phase != phase || !settings || !ops->enabled(settings))
            continue;
        if (ops->routes && !ops->serves_routes && !served)
            continue; /* nothing would serve its routes */
        size_t n = atomic_load(&d->n_sinks);
        if (n == DAEMON_SINKS_MAX) {
            snprintf(err, errlen, "more than %d sinks", DAEMON_SINKS_MAX);
            return -1;
        }
        char serr[1024], q[1100];
        void *ctx = ops->start(settings, &env, serr, sizeof(serr));
        if (!ctx && ops->required) {
            snprintf(err, errlen, "%s", serr);
            return -1;
        }
        if (!ctx) {
            char event[64];
            snprintf(event, sizeof(event), "%s_unavailable", ops->config->name);
            fsc_log(FSC_LOG_WARN, event, "reason=%s", fsc_log_quote(serr, q, sizeof(q)));
            continue;
        }
        d->sinks[n] = (struct daemon_sink){ops, ctx};
        atomic_store_explicit(&d->n_sinks, n + 1, memory_order_release);
    }
    return 0;
}

/* Stops the sinks of `last` == (phase LAST) or of every other phase, in
 * reverse start order. */
static void stop_sinks(struct daemon *d, bool last)
{
    for (size_t i = atomic_load(&d->n_sinks); i-- > 0;) {
        struct daemon_sink *s = &d->sinks[i];
        if (!s->ctx || (s->ops->phase == FSC_SINK_LAST) != last)
            continue;
        s->ops->stop(s->ctx);
        s->ctx = NULL;
    }
}

/* Once a tick: a state_dir deleted or replaced under the daemon is logged
 * and made again, with the lock (state_lock.h), so that writes never go
 * on into deleted files. */
static void watch_state_dir(struct daemon *d)
{
    char err[4400];
    int rc;
    enum fsc_state_change ch = fsc_state_lock_check(&d->lock, &rc, err, sizeof(err));
    if (ch == FSC_STATE_SAME)
        return;
    const char *what = ch == FSC_STATE_DELETED ? "deleted" : "replaced";
    if (rc == 0) {
        fsc_log(FSC_LOG_ERROR, "state_dir_lost", "dir=%s reason=%s action=recreated", d->lock.dir,
                what);
    } else {
        char q[4500];
        fsc_log(FSC_LOG_ERROR, "state_dir_lost", "dir=%s reason=%s action=none error=%s",
                d->lock.dir, what, fsc_log_quote(err, q, sizeof(q)));
    }
}

/* Trims the heap, logging (debug) what went back and what it took. */
static void trim_heap(void)
{
    int64_t t0 = fsc_mono_ns();
    int64_t released = fsc_mem_trim();
    fsc_log(FSC_LOG_DEBUG, "memory_trimmed", "released_kib=%lld ms=%.1f",
            (long long)(released / 1024), (double)(fsc_mono_ns() - t0) / 1e6);
}

/* Waits for a stop signal, logging stats every STATS_EVERY_S, trimming the
 * heap every TRIM_EVERY_S and reloading the config from path on SIGHUP. */
static int wait_for_signal(struct daemon *d, const sigset_t *set, const char *path)
{
    time_t last_stats = time(NULL), last_trim = time(NULL);
    for (;;) {
        struct timespec tick = {1, 0};
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM)
            return sig;
        watch_state_dir(d);
        if (sig == SIGHUP)
            fsc_dsources_reload(&d->src, path);
        if (time(NULL) - last_stats >= STATS_EVERY_S) {
            log_stats(d);
            last_stats = time(NULL);
        }
        if (sig == SIGHUP || time(NULL) - last_trim >= TRIM_EVERY_S) {
            trim_heap(); /* a reload frees the stopped sources' memory too */
            last_trim = time(NULL);
        }
    }
}

int fsc_daemon_run(const struct fsc_config *cfg, const char *path, char *err, size_t errlen)
{
    struct daemon d = {.cfg = cfg, .lock = {.fd = -1}};
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
    atomic_init(&d.n_sinks, 0);
    /* Before anything writes there: a second daemon on this state_dir stops
     * here. A directory that cannot be made only loses its lock (the rollup
     * logs the same and runs without it: docs/CONFIG.md). */
    int lrc = fsc_state_lock_take(&d.lock, cfg->state_dir, err, errlen);
    if (lrc == -EBUSY)
        return -1;
    if (lrc != 0) {
        char q[1200];
        fsc_log(FSC_LOG_WARN, "state_dir_unlocked", "dir=%s reason=%s", cfg->state_dir,
                fsc_log_quote(err, q, sizeof(q)));
        err[0] = '\0';
    } else {
        fsc_log(FSC_LOG_INFO, "state_dir_locked", "dir=%s lock=%s/lock pid=%ld", cfg->state_dir,
                cfg->state_dir, (long)getpid());
    }
    const struct fsc_engine_config *ec = fsc_engine_config_of(cfg);
    d.reg = fsc_registry_create(ec->max_series);
    d.bus = fsc_event_bus_create(EVENT_RING);
    if (!d.reg || !d.bus) {
        snprintf(err, errlen, "out of memory creating the registry and event bus");
        goto out;
    }
    d.eng = fsc_engine_create(ec, d.bus, err, errlen);
    if (!d.eng)
        goto out;
    d.event_sub = fsc_event_subscribe(d.bus);
    if (!d.event_sub) {
        snprintf(err, errlen, "out of memory subscribing the event log");
        goto out;
    }
    if (pthread_create(&d.event_thread, NULL, event_log_main, &d) != 0) {
        fsc_event_unsubscribe(d.event_sub);
        snprintf(err, errlen, "cannot start the event log thread");
        goto out;
    }
    d.event_thread_started = 1;
    fsc_daemon_view_init(&d);
    if (start_sinks(&d, FSC_SINK_EARLY, err, errlen) != 0 ||
        fsc_dsources_start(&d.src, cfg, d.reg, d.eng, err, errlen) != 0 ||
        start_sinks(&d, FSC_SINK_LATE, err, errlen) != 0 ||
        start_sinks(&d, FSC_SINK_LAST, err, errlen) != 0)
        goto out;
    atomic_store(&d.ready, 1);

    fsc_log(FSC_LOG_INFO, "started", "config=%s sources=%zu running=%zu windows=%u", path,
            cfg->n_sources, d.src.n_run, ec->rate.n_windows);
    int sig = wait_for_signal(&d, &set, path);
    fsc_log(FSC_LOG_INFO, "stopping", "signal=%s", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = 0;
out:
    stop_sinks(&d, true); /* the listener first: nothing reads the others after it */
    fsc_dsources_stop(&d.src);
    stop_sinks(&d, false); /* after the sources: they take what was published */
    atomic_store(&d.stopping, 1);
    if (d.event_thread_started)
        pthread_join(d.event_thread, NULL);
    if (d.eng && rc == 0)
        log_stats(&d);
    fsc_engine_destroy(d.eng);
    fsc_event_bus_destroy(d.bus);
    fsc_registry_destroy(d.reg);
    fsc_state_lock_release(&d.lock);
    if (rc == 0)
        fsc_log(FSC_LOG_INFO, "stopped", "config=%s", path);
    return rc;
}
