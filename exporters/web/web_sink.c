/* The status page's face (plugin/sink.h): started before the sources, so
 * its event list misses nothing, and served through its routes on the
 * listener of a sink that serves routes (the Prometheus exporter); the
 * daemon starts it only when one runs. */
#include <stdio.h>

#include "web/web.h"
#include "web/web_config.h"
#include "web/web_sink.h"

static bool web_enabled(const void *settings)
{
    return ((const struct fsc_web_config *)settings)->enabled;
}

static void *web_start(const void *settings, const struct fsc_sink_env *env, char *err,
                       size_t errlen)
{
    (void)settings;
    const struct fsc_web_env wenv = {
        .reg = env->reg, .eng = env->eng, .bus = env->bus, .cfg = env->cfg, .view = env->view};
    char werr[512];
    struct fsc_web *web = fsc_web_create(&wenv, werr, sizeof(werr));
    if (!web)
        snprintf(err, errlen, "status page: %s", werr);
    return web;
}

static void web_stop(void *ctx)
{
    fsc_web_destroy(ctx);
}

static size_t web_routes(void *ctx, struct fsc_http_route *out, size_t cap)
{
    size_t n = fsc_web_routes(ctx, out, cap);
    return n < cap ? n : cap;
}

const struct fsc_sink_ops fsc_web_sink_ops = {
    .config = &fsc_web_kind,
    .phase = FSC_SINK_EARLY,
    .required = true,
    .enabled = web_enabled,
    .start = web_start,
    .stop = web_stop,
    .routes = web_routes,
};
