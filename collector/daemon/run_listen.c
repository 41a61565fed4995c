/* `run --listen` (run_listen.h). The value is checked as the loader checks
 * exporters.prometheus.listen (syntax, and no clash with another listener),
 * since it replaces that key after the load's own checks ran. */
#include "daemon/run_listen.h"

#include <stdio.h>
#include <string.h>

#include "daemon/plugins.h"

/* The sink that runs the collector's HTTP listener and takes `--listen`, or
 * NULL when this build has none. */
static const struct fsc_sink_ops *listener_sink(void)
{
    for (size_t i = 0; fsc_app_sinks[i]; i++)
        if (fsc_app_sinks[i]->serves_routes && fsc_app_sinks[i]->listen_override)
            return fsc_app_sinks[i];
    return NULL;
}

/* The enabled source whose listener clashes with addr, or NULL (*key: its key). */
static const struct fsc_source_config *source_clash(const struct fsc_config *cfg, const char *addr,
                                                    const char **key)
{
    struct fsc_config_listen got[8];
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *src = &cfg->sources[i];
        if (!src->enabled || !src->kind->listeners)
            continue;
        size_t k = src->kind->listeners(src->settings, got, sizeof(got) / sizeof(got[0]));
        for (size_t j = 0; j < k && j < sizeof(got) / sizeof(got[0]); j++) {
            if (fsc_config_listen_clash(got[j].addr, addr)) {
                *key = got[j].key;
                return src;
            }
        }
    }
    return NULL;
}

int fsc_run_listen_apply(struct fsc_config *cfg, const char *addr, char *err, size_t errlen)
{
    if (!fsc_config_listen_valid(addr)) {
        snprintf(err, errlen,
                 "--listen '%s' is not HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:0)",
                 addr);
        return -1;
    }
    const struct fsc_sink_ops *ops = listener_sink();
    void *settings = ops ? fsc_config_section_mut(cfg, ops->config) : NULL;
    if (!settings) {
        snprintf(err, errlen, "--listen: this build has no HTTP listener (Prometheus exporter)");
        return -1;
    }
    char why[256];
    if (!ops->enabled(settings)) {
        (void)ops->listen_override(settings, addr, cfg->file, why, sizeof(why));
        snprintf(err, errlen, "--listen: %s", why);
        return -1;
    }
    const char *key = NULL;
    const struct fsc_source_config *src = source_clash(cfg, addr, &key);
    if (src) {
        snprintf(err, errlen, "--listen '%s' is already used by source %s (%s)", addr, src->name,
                 key);
        return -1;
    }
    if (ops->listen_override(settings, addr, cfg->file, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--listen: %s", why);
        return -1;
    }
    return 0;
}

void fsc_run_listen_carry(const struct fsc_config *first, struct fsc_config *next)
{
    const struct fsc_sink_ops *ops = listener_sink();
    if (!ops)
        return;
    const void *f = fsc_config_section(first, ops->config);
    const char *addr = f ? ops->listen_overridden(f) : NULL;
    void *n = fsc_config_section_mut(next, ops->config);
    char why[256];
    if (addr && n)
        (void)ops->listen_override(n, addr, next->file, why, sizeof(why));
}
