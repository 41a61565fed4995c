/* The Prometheus exporter's face (plugin/sink.h): the collector's HTTP
 * listener. Started after every other sink (its scrapes read their stats
 * and it serves their routes, the status page's) and stopped before them.
 * Its own row: the listener's refusals (fabricscope_listener_auth_failures
 * {listener="prometheus"}). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/admit_stats.h"
#include "net/http_sec.h"
#include "prometheus/prom_config.h"
#include "prometheus/prom_http.h"
#include "prometheus/prom_render.h"
#include "prometheus/prom_sink.h"

struct prom_sink {
    struct fsc_prom_renderer *render;
    struct fsc_prom_http *http;
    const struct fsc_daemon_view *view;
    atomic_int serving; /* http is set: its stats may be read */
};

static bool prom_enabled(const void *settings)
{
    return ((const struct fsc_prometheus_config *)settings)->enabled;
}

static int render_cb(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out,
                     const struct fsc_prom_flush *flush)
{
    struct prom_sink *ps = arg;
    return fsc_prom_render_stream(ps->render, fmt, fsc_now_ns(), out, flush);
}

static int ready_cb(void *arg)
{
    struct prom_sink *ps = arg;
    return ps->view && ps->view->ready ? ps->view->ready(ps->view->arg) : 1;
}

static void prom_stop(void *ctx)
{
    struct prom_sink *ps = ctx;
    if (!ps)
        return;
    fsc_prom_http_stop(ps->http);
    fsc_prom_renderer_destroy(ps->render);
    free(ps);
}

static void *prom_start(const void *settings, const struct fsc_sink_env *env, char *err,
                        size_t errlen)
{
    const struct fsc_prometheus_config *pc = settings;
    struct fsc_http_route routes[FSC_PROM_HTTP_ROUTES_MAX];
    size_t n_routes = 0;
    char perr[512];
    struct prom_sink *ps = calloc(1, sizeof(*ps));
    if (!ps) {
        snprintf(err, errlen, "prometheus exporter: out of memory");
        return NULL;
    }
    atomic_init(&ps->serving, 0);
    ps->view = env->view;
    const struct fsc_prom_render_env renv = {
        .reg = env->reg, .eng = env->eng, .cfg = env->cfg, .view = env->view};
    ps->render = fsc_prom_renderer_create(&renv, perr, sizeof(perr));
    if (!ps->render)
        goto fail;
    if (env->view && env->view->routes)
        n_routes = env->view->routes(env->view->arg, routes, FSC_PROM_HTTP_ROUTES_MAX);
    const struct fsc_prom_http_config hc = {
        .listen = pc->listen,
        .tls = pc->tls.present ? &pc->tls : NULL,
        .auth = pc->auth.present ? &pc->auth : NULL,
        .limits = &pc->limits,
    };
    ps->http = fsc_prom_http_start_routes(&hc, routes, n_routes, render_cb, ready_cb, ps, perr,
                                          sizeof(perr));
    if (!ps->http)
        goto fail;
    atomic_store(&ps->serving, 1);
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=prometheus listen=%s port=%u", pc->listen,
            (unsigned)fsc_prom_http_port(ps->http));
    return ps;
fail:
    snprintf(err, errlen, "prometheus exporter: %s", perr);
    prom_stop(ps);
    return NULL;
}

static const struct fsc_stat_table *const prom_tables[] = {&fsc_http_sec_stat_table,
                                                           &fsc_admit_stat_table, NULL};

static void prom_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct prom_sink *ps = ctx;
    struct fsc_http_sec_stats sec;
    fsc_prom_http_sec_stats(atomic_load(&ps->serving) ? ps->http : NULL, &sec);
    fsc_http_sec_stat_row(out, "prometheus", &sec);
    struct fsc_admit_stats adm;
    fsc_prom_http_admit_stats(atomic_load(&ps->serving) ? ps->http : NULL, &adm);
    fsc_admit_stat_row(out, "prometheus", &adm);
}

static int prom_listen_override(void *settings, const char *addr, const char *file, char *err,
                                size_t errlen)
{
    struct fsc_prometheus_config *pc = settings;
    if (!pc->enabled) {
        snprintf(err, errlen,
                 "exporters.prometheus is disabled in %s (enabled: false); nothing would listen "
                 "there",
                 file);
        return -1;
    }
    pc->listen = addr;
    pc->listen_from_cli = true;
    return 0;
}

static const char *prom_listen_overridden(const void *settings)
{
    const struct fsc_prometheus_config *pc = settings;
    return pc->listen_from_cli ? pc->listen : NULL;
}

const struct fsc_sink_ops fsc_prometheus_sink_ops = {
    .config = &fsc_prometheus_kind,
    .phase = FSC_SINK_LAST,
    .required = true,
    .enabled = prom_enabled,
    .start = prom_start,
    .stop = prom_stop,
    .stat_tables = prom_tables,
    .stats = prom_stats,
    .serves_routes = true,
    .listen_override = prom_listen_override,
    .listen_overridden = prom_listen_overridden,
};
