/* The reader's and the encoder's cache of family-table rows (rw_names.h). */
#include "remote_write/rw_names.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define SLOTS_MIN 256u

static uint32_t slot_of(const char *metric, uint32_t mask)
{
    return (uint32_t)fsc_hash_mix64((uint64_t)(uintptr_t)metric) & mask;
}

/* Doubles the table (or makes the first). Returns 0 or -1. */
static int grow(struct fsc_rw_names *c)
{
    uint32_t size = c->mask ? (c->mask + 1) * 2 : SLOTS_MIN;
    const char **key = calloc(size, sizeof(*key));
    const struct fsc_metric_family **mf = calloc(size, sizeof(*mf));
    if (!key || !mf) {
        free(key);
        free(mf);
        return -1;
    }
    for (uint32_t i = 0; c->key && i <= c->mask; i++) {
        if (!c->key[i])
            continue;
        uint32_t s = slot_of(c->key[i], size - 1);
        while (key[s])
            s = (s + 1) & (size - 1);
        key[s] = c->key[i];
        mf[s] = c->mf[i];
    }
    free(c->key);
    free(c->mf);
    c->key = key;
    c->mf = mf;
    c->mask = size - 1;
    return 0;
}

const struct fsc_metric_family *fsc_rw_family(struct fsc_rw_names *c, const char *metric)
{
    if (c->key) {
        for (uint32_t s = slot_of(metric, c->mask); c->key[s]; s = (s + 1) & c->mask)
            if (c->key[s] == metric)
                return c->mf[s];
    }
    const struct fsc_metric_family *f = fsc_metric_family_of(metric);
    if ((c->n + 1) * 2 > c->mask + 1 && grow(c) != 0)
        return f; /* uncached: correct, only slower */
    uint32_t s = slot_of(metric, c->mask);
    while (c->key[s])
        s = (s + 1) & c->mask;
    c->key[s] = metric;
    c->mf[s] = f;
    c->n++;
    return f;
}

void fsc_rw_names_free(struct fsc_rw_names *c)
{
    free(c->key);
    free(c->mf);
    memset(c, 0, sizeof(*c));
}
