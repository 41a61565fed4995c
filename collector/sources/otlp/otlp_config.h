/* An otlp source's settings (`type: otlp`; key table otlp_keys.c,
 * docs/CONFIG.md "otlp"). */
#ifndef FSC_OTLP_CONFIG_H
#define FSC_OTLP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/profile.h"

struct fsc_otlp_config {
    const char *grpc_listen;           /* "host:port" or "" (off); default "0.0.0.0:4317" */
    const char *http_listen;           /* default "0.0.0.0:4318"; "" disables */
    uint64_t max_body;                 /* bytes on the wire; default 4 MiB */
    uint64_t max_decompressed;         /* bytes after gzip; default 32 MiB */
    const char *device_attribute;      /* resource attribute naming the device; "host.name" */
    struct fsc_tls_config tls;         /* server side */
    struct fsc_listener_auth auth;     /* both transports */
    struct fsc_listener_limits limits; /* connection admission, both transports */
    /* Time sanity (model/time_guard.h): points further ahead of / behind
     * the collector's clock are rejected; 0 = unchecked; 5 m / 24 h. */
    int64_t max_time_ahead_ns, max_time_behind_ns;
};

/* The Cumulus profile (profile_cumulus.c): the type's default. */
extern const struct fsc_profile fsc_profile_cumulus;

/* The kind of this source type (its key table). */
extern const struct fsc_config_kind fsc_otlp_kind;

/* The settings of a source of this type, or NULL when sc is of another. */
const struct fsc_otlp_config *fsc_otlp_config_of(const struct fsc_source_config *sc);

#endif
