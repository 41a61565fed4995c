/* exporters.prometheus: key table, defaults, listen address for the
 * cross-section check. */
#include <stddef.h>

#include "config/config_decode.h"
#include "prometheus/prom_config.h"

#define SEC 1000000000ll

/* ---- prometheus --------------------------------------------------------------- */

#define PROM(field) offsetof(struct fsc_prometheus_config, field)

static void prometheus_defaults(void *obj)
{
    struct fsc_prometheus_config *p = obj;
    p->present = true;
    p->enabled = true;
    p->listen = "0.0.0.0:9464";
    p->stale_after_ns = 300 * SEC;
    p->max_series = 2000000;
}

static const struct fsc_ckey prometheus_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = PROM(enabled)},
    {.key = "listen", .kind = FSC_CK_STR, .off = PROM(listen), .check = fsc_cfg_check_listen},
    {.key = "stale_after",
     .kind = FSC_CK_DUR,
     .off = PROM(stale_after_ns),
     .min = 10 * SEC,
     .max = 86400 * SEC},
    {.key = "max_series", .kind = FSC_CK_U32, .off = PROM(max_series), .min = 1, .max = 100000000},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = PROM(tls),
     .spec = &fsc_cspec_tls_server},
    {.key = "auth",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = PROM(auth),
     .spec = &fsc_cspec_listener_auth},
    {.key = "limits", .kind = FSC_CK_MAP, .off = PROM(limits), .spec = &fsc_cspec_listener_limits},
};

static const struct fsc_cspec prometheus_spec = {
    .what = "the prometheus exporter",
    .keys = prometheus_keys,
    .n_keys = FSC_NELEM(prometheus_keys),
    .defaults = prometheus_defaults,
};

static size_t prometheus_listeners(const void *obj, struct fsc_config_listen *out, size_t cap)
{
    const struct fsc_prometheus_config *p = obj;
    if (!p->enabled || cap == 0)
        return 0;
    out[0] = (struct fsc_config_listen){.addr = p->listen, .key = "listen"};
    return 1;
}

const struct fsc_config_kind fsc_prometheus_kind = {
    .name = "prometheus",
    .spec = &prometheus_spec,
    .size = sizeof(struct fsc_prometheus_config),
    .listeners = prometheus_listeners,
};

const struct fsc_prometheus_config *fsc_prometheus_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_prometheus_kind);
}
