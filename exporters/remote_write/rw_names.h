/* The family-table rows (model/metric_families.h) of registry metric names,
 * cached by the registry's interned name pointer: remote_write looks one up
 * per series it encodes and per raw value it reads, so it asks the table's
 * binary searches once per metric name instead.
 *
 * Internal to exporters/remote_write. Not thread-safe: the reader and the
 * encoder each own one. Bounded by the number of distinct metric names. */
#ifndef FSC_RW_NAMES_H
#define FSC_RW_NAMES_H

#include <stdint.h>

#include "model/metric_families.h"

struct fsc_rw_names {
    const char **key; /* interned metric names */
    const struct fsc_metric_family **mf;
    uint32_t mask, n;
};

/* The row of `metric` (an interned registry name), NULL for a name the
 * table does not list. When the cache cannot grow it asks the table
 * directly. */
const struct fsc_metric_family *fsc_rw_family(struct fsc_rw_names *c, const char *metric);

/* Frees the cache; it is then empty and reusable. */
void fsc_rw_names_free(struct fsc_rw_names *c);

#endif
