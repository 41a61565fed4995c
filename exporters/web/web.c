/* The web module's lifecycle and its sampler thread (see web.h, web_int.h).
 *
 * The sampler wakes every WEB_TICK_NS on an absolute CLOCK_MONOTONIC
 * deadline (a slow tick delays the next, it never piles ticks up) and:
 * 1. drains the bus subscription into the event ring (the bus keeps 64 Ki
 *    events, so 50 ms of backlog never overflows it in practice; what does
 *    is counted as lost);
 * 2. indexes the series the registry gained;
 * 3. appends the newest fine interval of each tracked port to its rings;
 * 4. every WEB_TOP_EVERY_NS, ranks the ports and keeps the top
 *    WEB_TRACK_TOP tracked, so the page's default chart has history;
 * 5. every WEB_DOWN_EVERY_NS, notes which sources are down (the health
 *    list's "since"). Step 1 also keeps the active set (web_health.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "model/cable_plan.h"
#include "web/web_int.h"

#define WEB_EVENT_BATCH 64
#define WEB_EVENT_POLLS 64 /* batches per tick at most: 4096 events */

static void events_push(struct fsc_web *web, const struct fsc_event *ev, size_t n)
{
    fsc_web_active_note(web, ev, n);
    for (size_t i = 0; i < n; i++) {
        web->events[web->ev_head] = ev[i];
        web->ev_head = (web->ev_head + 1) % WEB_EVENTS_MAX;
        if (web->ev_n < WEB_EVENTS_MAX)
            web->ev_n++;
    }
}

/* Which sources are down, so the health list can say since when. */
static void sources_note(struct fsc_web *web)
{
    size_t n;
    struct fsc_source_status *src = fsc_web_sources(web->env.view, &n);
    if (!src)
        return;
    fsc_web_down_note(web, src, n);
    free(src);
}

static void tick(struct fsc_web *web, int64_t now_mono, int64_t *next_top, int64_t *next_down)
{
    struct fsc_event batch[WEB_EVENT_BATCH];

    for (int i = 0; i < WEB_EVENT_POLLS; i++) {
        uint64_t lost = 0;
        size_t n = fsc_event_poll(web->sub, batch, WEB_EVENT_BATCH, &lost);
        pthread_mutex_lock(&web->mu);
        events_push(web, batch, n);
        web->ev_lost += lost;
        pthread_mutex_unlock(&web->mu);
        if (n < WEB_EVENT_BATCH)
            break;
    }
    pthread_mutex_lock(&web->mu);
    fsc_web_index_scan(web);
    fsc_web_track_sample(web);
    pthread_mutex_unlock(&web->mu);

    if (now_mono >= *next_top) {
        struct fsc_web_port_row rows[WEB_TRACK_TOP];
        uint32_t idx[WEB_TRACK_TOP];
        long n = fsc_web_top_ports(web, rows, idx, WEB_TRACK_TOP);
        pthread_mutex_lock(&web->mu);
        for (long i = 0; i < n; i++)
            if (!fsc_web_track_want(web, idx[i], now_mono))
                fsc_log(FSC_LOG_WARN, "web_track_failed", "reason=out_of_memory");
        pthread_mutex_unlock(&web->mu);
        *next_top = now_mono + WEB_TOP_EVERY_NS;
    }
    if (now_mono >= *next_down) {
        sources_note(web);
        *next_down = now_mono + WEB_DOWN_EVERY_NS;
    }
}

static void *web_main(void *arg)
{
    struct fsc_web *web = arg;
    int64_t next = fsc_mono_ns(), next_top = next, next_down = next;

    pthread_mutex_lock(&web->stop_mu);
    while (!web->stopping) {
        pthread_mutex_unlock(&web->stop_mu);
        int64_t now = fsc_mono_ns();
        tick(web, now, &next_top, &next_down);
        next += WEB_TICK_NS;
        now = fsc_mono_ns();
        if (next < now) /* fell behind: skip, do not catch up */
            next = now + WEB_TICK_NS;
        struct timespec ts = {(time_t)(next / 1000000000), (long)(next % 1000000000)};
        pthread_mutex_lock(&web->stop_mu);
        while (!web->stopping &&
               pthread_cond_timedwait(&web->stop_cv, &web->stop_mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&web->stop_mu);
    return NULL;
}

/* The cable plan for the mesh: topology.cable_plan, else the first nic
 * source's own cable_plan file. NULL when there is none or it does not
 * load (logged: the mesh then uses the NIC series' labels). */
static struct fsc_cabling *load_plan(const struct fsc_config *cfg)
{
    const struct fsc_cable_plan *cp = &fsc_topology_of(cfg)->cable_plan;
    const char *file = cp->present ? cp->file : NULL;
    struct fsc_cable_layout lay;
    char err[512];

    for (size_t i = 0; !file && i < cfg->n_sources; i++)
        if (cfg->sources[i].kind->cable_plan)
            file = cfg->sources[i].kind->cable_plan(&cfg->sources[i]);
    if (!file || !file[0])
        return NULL;
    if (fsc_cable_layout_from_config(&lay, cp->present ? cp : NULL, err, sizeof(err)) != 0) {
        fsc_log(FSC_LOG_WARN, "web_cable_plan_unused", "reason=\"%s\"", err);
        return NULL;
    }
    struct fsc_cabling *cab = fsc_cabling_load(file, &lay, err, sizeof(err));
    if (!cab)
        fsc_log(FSC_LOG_WARN, "web_cable_plan_unused", "reason=\"%s\"", err);
    return cab;
}

struct fsc_web *fsc_web_create(const struct fsc_web_env *env, char *err, size_t errlen)
{
    struct fsc_web *web;
    pthread_condattr_t ca;

    if (!env || !env->reg || !env->eng || !env->bus || !env->cfg) {
        snprintf(err, errlen, "web: registry, engine, event bus and config are required");
        return NULL;
    }
    web = calloc(1, sizeof(*web));
    if (!web) {
        snprintf(err, errlen, "web: out of memory");
        return NULL;
    }
    web->env = *env;
    web->rise = fsc_engine_config_of(env->cfg)->microburst.rise;
    if (pthread_mutex_init(&web->mu, NULL) != 0)
        goto fail_mu;
    if (pthread_mutex_init(&web->stop_mu, NULL) != 0)
        goto fail_stop_mu;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_cv;
    int crc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (crc == 0)
        crc = pthread_cond_init(&web->stop_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (crc != 0)
        goto fail_cv;
    web->sub = fsc_event_subscribe(env->bus);
    if (!web->sub)
        goto fail_sub;
    web->plan = load_plan(env->cfg);
    if (pthread_create(&web->thread, NULL, web_main, web) != 0) {
        snprintf(err, errlen, "web: cannot start the sampler thread");
        fsc_cabling_destroy(web->plan);
        fsc_event_unsubscribe(web->sub);
        pthread_cond_destroy(&web->stop_cv);
        pthread_mutex_destroy(&web->stop_mu);
        pthread_mutex_destroy(&web->mu);
        free(web);
        return NULL;
    }
    return web;

fail_sub:
    pthread_cond_destroy(&web->stop_cv);
fail_cv:
    pthread_mutex_destroy(&web->stop_mu);
fail_stop_mu:
    pthread_mutex_destroy(&web->mu);
fail_mu:
    free(web);
    snprintf(err, errlen, "web: out of memory or resources creating the module");
    return NULL;
}

void fsc_web_destroy(struct fsc_web *web)
{
    if (!web)
        return;
    pthread_mutex_lock(&web->stop_mu);
    web->stopping = 1;
    pthread_cond_signal(&web->stop_cv);
    pthread_mutex_unlock(&web->stop_mu);
    pthread_join(web->thread, NULL);
    fsc_event_unsubscribe(web->sub);
    fsc_cabling_destroy(web->plan);
    fsc_web_index_free(web);
    free(web->down);
    pthread_cond_destroy(&web->stop_cv);
    pthread_mutex_destroy(&web->stop_mu);
    pthread_mutex_destroy(&web->mu);
    free(web);
}

size_t fsc_web_routes(struct fsc_web *web, struct fsc_http_route *out, size_t cap)
{
    const struct fsc_http_route routes[FSC_WEB_ROUTES] = {
        {"/", fsc_web_route_page, web},
        {"/api/status", fsc_web_route_status, web},
        {"/api/ports", fsc_web_route_ports, web},
        {"/api/events", fsc_web_route_events, web},
        {"/api/port", fsc_web_route_port, web},
        {"/api/mesh", fsc_web_route_mesh, web},
        {"/api/health", fsc_web_route_health, web},
    };
    for (size_t i = 0; i < FSC_WEB_ROUTES && i < cap; i++)
        out[i] = routes[i];
    return FSC_WEB_ROUTES;
}
