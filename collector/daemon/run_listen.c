/* `run --listen` (run_listen.h). The value is checked as the loader checks
 * exporters.prometheus.listen (syntax, and no clash with another listener),
 * since it replaces that key after the load's own checks ran. */
#include "daemon/run_listen.h"

#include <stdio.h>
#include <string.h>

#include "prometheus/prom_config.h"

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
    struct fsc_prometheus_config *p = fsc_config_section_mut(cfg, &fsc_prometheus_kind);
    if (!p) {
        snprintf(err, errlen, "--listen: this build has no Prometheus exporter");
        return -1;
    }
    if (!p->enabled) {
        snprintf(err, errlen,
                 "--listen: exporters.prometheus is disabled in %s (enabled: false); nothing "
                 "would listen there",
                 cfg->file);
        return -1;
    }
    const char *key = NULL;
    const struct fsc_source_config *src = source_clash(cfg, addr, &key);
    if (src) {
        snprintf(err, errlen, "--listen '%s' is already used by source %s (%s)", addr, src->name,
                 key);
        return -1;
    }
    p->listen = addr;
    p->listen_from_cli = true;
    return 0;
}

void fsc_run_listen_carry(const struct fsc_config *first, struct fsc_config *next)
{
    const struct fsc_prometheus_config *f = fsc_prometheus_config_of(first);
    if (!f || !f->listen_from_cli)
        return;
    struct fsc_prometheus_config *n = fsc_config_section_mut(next, &fsc_prometheus_kind);
    if (!n)
        return;
    n->listen = f->listen;
    n->listen_from_cli = true;
}
