/* exporters.remote_write: the settings of the remote_write exporter (its
 * key table is rw_keys.c; docs/CONFIG.md, "remote_write"). */
#ifndef FSC_RW_CONFIG_H
#define FSC_RW_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

struct fsc_basic_auth {
    bool present;
    const char *username;       /* required */
    struct fsc_secret password; /* required */
};

struct fsc_header {
    const char *name, *value;
};

/* What remote_write sends (bits of fsc_remote_write_config.series). */
enum {
    FSC_RW_SERIES_COUNTERS = 1u << 0,     /* raw values of every series */
    FSC_RW_SERIES_WINDOW_RATES = 1u << 1, /* rates of the first aligned window */
    FSC_RW_SERIES_FINE_RATES = 1u << 2,   /* rates of the last fine interval */
};

struct fsc_remote_write_config {
    bool present;
    bool enabled;                  /* default true once present */
    const char *url;               /* http:// or https://, required when enabled */
    int64_t interval_ns;           /* send period; default 10 s */
    int64_t resolution_ns;         /* engine read period; default 1 s */
    uint32_t series;               /* FSC_RW_SERIES_*; default counters | window_rates */
    int64_t timeout_ns;            /* per request; default 10 s */
    uint32_t max_samples_per_send; /* default 2000 */
    uint32_t queue_max;            /* samples held while the receiver is down; default 500000 */
    struct fsc_backoff backoff;    /* retry backoff (jittered); 1 s .. 60 s */
    struct fsc_basic_auth basic_auth;
    struct fsc_secret bearer_token; /* optional; not with basic_auth */
    struct fsc_header *headers;
    size_t n_headers;
    struct fsc_tls_config tls;
};

/* The kind of exporters.remote_write (rw_keys.c). */
extern const struct fsc_config_kind fsc_remote_write_kind;

/* cfg's exporters.remote_write (present = false when absent); NULL when
 * cfg's schema has none. */
const struct fsc_remote_write_config *fsc_remote_write_config_of(const struct fsc_config *cfg);

#endif
