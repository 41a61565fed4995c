/* Per-series traits, interned so that identical traits (every 400G tx-bytes
 * series of a profile) are stored once and a series refers to them by a
 * 16-bit index, with the histogram edges the hot path compares against
 * (struct fsc_traits_cut). Thread: ingest, engine lock held (contract in
 * engine_int.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "engine/engine_int.h"

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
    t.expo = tr->expo;
    t.refresh = tr->refresh;
    t.scale = tr->scale;
    t.link_speed_bps = tr->link_speed_bps;
    t.buffer_bytes = tr->buffer_bytes;
    t.nominal_interval_ns = tr->nominal_interval_ns;
    t.refresh_ns = tr->refresh_ns;
    return t;
}

static uint32_t traits_hash(const struct fsc_traits *t)
{
    return fsc_hash_fold32(fsc_hash_bytes(t, sizeof(*t), 0));
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

/* Steps an edge search may take from its estimate. The estimate is within a
 * few ulps (or units) of the edge; the bound only guards the loop. */
#define CUT_STEPS 64

/* The largest rate whose utilization, computed as fsc_det_util() computes
 * it, is <= le. Utilization is monotone in the rate (a product and a
 * quotient, each correctly rounded), so the edge is unique. */
static double util_edge(const struct fsc_traits *tr, double le)
{
    double r = le * (double)tr->link_speed_bps / 8.0;
    for (int i = 0; i < CUT_STEPS && fsc_det_util(tr, r) > le; i++)
        r = nextafter(r, -INFINITY);
    for (int i = 0; i < CUT_STEPS; i++) {
        double up = nextafter(r, INFINITY);
        if (fsc_det_util(tr, up) > le)
            break;
        r = up;
    }
    return r;
}

static bool ratio_le(int64_t dt, int64_t nominal, double le)
{
    return (double)dt / (double)nominal <= le;
}

/* The largest interval dt (ns) with dt / nominal <= le, in doubles as the
 * definition says. */
static int64_t ratio_edge(int64_t nominal, double le)
{
    double est = le * (double)nominal;
    if (!(est < 9.0e18))
        return INT64_MAX; /* beyond any real interval: everything is <= le */
    int64_t dt = (int64_t)est;
    for (int i = 0; i < CUT_STEPS && dt > 0 && !ratio_le(dt, nominal, le); i++)
        dt--;
    for (int i = 0; i < CUT_STEPS && dt < INT64_MAX && ratio_le(dt + 1, nominal, le); i++)
        dt++;
    return dt;
}

static void traits_cut(const struct fsc_traits *tr, struct fsc_traits_cut *cut)
{
    for (unsigned k = 0; k < FSC_CUT_N; k++) {
        cut->util_rate[k] = INFINITY;
        cut->ratio_dt[k] = INT64_MAX;
    }
    for (unsigned k = 0; tr->link_speed_bps > 0 && k < FSC_UTIL_BUCKETS; k++)
        cut->util_rate[k] = util_edge(tr, fsc_util_bucket_le[k]);
    for (unsigned k = 0; tr->nominal_interval_ns > 0 && k < FSC_INTERVAL_RATIO_BUCKETS; k++)
        cut->ratio_dt[k] = ratio_edge(tr->nominal_interval_ns, fsc_interval_ratio_bucket_le[k]);
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
        tt->traits = traits; /* larger than needed until cap moves: still valid */
        struct fsc_traits_cut *cuts = realloc(tt->cuts, (size_t)cap * sizeof(*cuts));
        if (!cuts)
            return -ENOMEM;
        tt->cuts = cuts;
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
    traits_cut(&t, &tt->cuts[idx]);
    traits_index_put(tt->index, tt->index_cap, tt->traits, idx);
    return (int)idx;
}

/* Frees the table's arrays (the table itself is the caller's). */
void fsc_traits_table_free(struct fsc_traits_table *tt)
{
    free(tt->traits);
    free(tt->cuts);
    free(tt->index);
}

/* Bytes held by the table's arrays. */
size_t fsc_traits_table_memory(const struct fsc_traits_table *tt)
{
    return (size_t)tt->cap * (sizeof(*tt->traits) + sizeof(*tt->cuts)) +
           (size_t)tt->index_cap * sizeof(*tt->index);
}
