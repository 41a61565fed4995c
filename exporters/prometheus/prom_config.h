/* exporters.prometheus: the settings of the Prometheus exporter (its key
 * table is prom_keys.c; docs/CONFIG.md, "prometheus"). */
#ifndef FSC_PROM_CONFIG_H
#define FSC_PROM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

struct fsc_prometheus_config {
    bool present;                      /* always true: the exporter defaults to on */
    bool enabled;                      /* default true */
    const char *listen;                /* default "0.0.0.0:9464" */
    bool listen_from_cli;              /* `run --listen` set listen (kept across reloads) */
    int64_t stale_after_ns;            /* series not updated this long are dropped; default 5 m */
    uint32_t max_series;               /* default 2000000 */
    struct fsc_tls_config tls;         /* server side; absent = plain HTTP */
    struct fsc_listener_auth auth;     /* absent = no authentication */
    struct fsc_listener_limits limits; /* connection admission; absent = defaults */
};

/* The kind of exporters.prometheus (prom_keys.c). */
extern const struct fsc_config_kind fsc_prometheus_kind;

/* cfg's exporters.prometheus; NULL when cfg's schema has none. */
const struct fsc_prometheus_config *fsc_prometheus_config_of(const struct fsc_config *cfg);

#endif
