/* Per-series traits, interned so that identical traits (every 400G tx-bytes
 * series of a profile) are stored once and a series refers to them by a
 * 16-bit index. Thread: ingest, engine lock held (contract in detect.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/detect.h"

/* A copy with the padding zeroed, so identical traits compare and hash equal. */
static struct fsc_traits traits_norm(const struct fsc_traits *tr)
{
    struct fsc_traits t;
    memset(&t, 0, sizeof(t));
    t.kind = tr->kind;
    t.width = tr->width;
    t.unit = tr->unit;
    t.signal = tr->signal;
    t.direction = tr->direction;
    t.scale = tr->scale;
    t.link_speed_bps = tr->link_speed_bps;
    t.buffer_bytes = tr->buffer_bytes;
    t.nominal_interval_ns = tr->nominal_interval_ns;
    t.refresh_ns = tr->refresh_ns;
    return t;
}

static uint32_t traits_hash(const struct fsc_traits *t)
{
    const unsigned char *b = (const unsigned char *)t;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < sizeof(*t); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static void traits_index_put(uint32_t *index, uint32_t cap, const struct fsc_traits *traits,
                             uint32_t idx)
{
    uint32_t mask = cap - 1;
    uint32_t i = traits_hash(&traits[idx]) & mask;
    while (index[i] != 0)
        i = (i + 1) & mask; /* terminates: the index is kept at most half full */
    index[i] = idx + 1;
}

/* Returns the index of traits equal to *tr, adding them if new; -ENOMEM on
 * allocation failure or when FSC_FSC_TRAITS_MAX distinct traits exist. Thread:
 * the caller holds the engine lock. */
int fsc_traits_intern(struct fsc_traits_table *tt, const struct fsc_traits *tr)
{
    struct fsc_traits t = traits_norm(tr);
    if (tt->index_cap) {
        uint32_t mask = tt->index_cap - 1;
        for (uint32_t i = traits_hash(&t) & mask; tt->index[i]; i = (i + 1) & mask) {
            uint32_t idx = tt->index[i] - 1;
            if (memcmp(&tt->traits[idx], &t, sizeof(t)) == 0)
                return (int)idx;
        }
    }
    if (tt->n >= FSC_TRAITS_MAX)
        return -ENOMEM;
    if (tt->n == tt->cap) {
        uint32_t cap = tt->cap ? tt->cap * 2 : 16;
        struct fsc_traits *traits = realloc(tt->traits, (size_t)cap * sizeof(*traits));
        if (!traits)
            return -ENOMEM;
        tt->traits = traits;
        tt->cap = cap;
    }
    if ((tt->n + 1) * 2 > tt->index_cap) {
        uint32_t cap = tt->index_cap ? tt->index_cap * 2 : 64;
        uint32_t *index = calloc(cap, sizeof(*index));
        if (!index)
            return -ENOMEM;
        for (uint32_t k = 0; k < tt->n; k++)
            traits_index_put(index, cap, tt->traits, k);
        free(tt->index);
        tt->index = index;
        tt->index_cap = cap;
    }
    uint32_t idx = tt->n++;
    tt->traits[idx] = t;
    traits_index_put(tt->index, tt->index_cap, tt->traits, idx);
    return (int)idx;
}

/* Frees the table's arrays (the table itself is the caller's). */
void fsc_traits_table_free(struct fsc_traits_table *tt)
{
    free(tt->traits);
    free(tt->index);
}

/* Bytes held by the table's arrays. */
size_t fsc_traits_table_memory(const struct fsc_traits_table *tt)
{
    return (size_t)tt->cap * sizeof(*tt->traits) + (size_t)tt->index_cap * sizeof(*tt->index);
}
