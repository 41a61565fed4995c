/* rollup: the settings of the per-minute rollup store (its key table is
 * rollup_keys.c; docs/CONFIG.md, "state_dir and rollup"). */
#ifndef FSC_ROLLUP_CONFIG_H
#define FSC_ROLLUP_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

struct fsc_rollup_config {
    bool enabled;         /* default true */
    int64_t retention_ns; /* per-minute records older than this are deleted; default 30 d */
    uint64_t max_bytes;   /* bound of the store on disk; default 1 GiB */
};

/* The kind of the rollup: section (rollup_keys.c). */
extern const struct fsc_config_kind fsc_rollup_kind;

/* cfg's rollup: section; NULL when cfg's schema has none. */
const struct fsc_rollup_config *fsc_rollup_config_of(const struct fsc_config *cfg);

#endif
