/* Device copy groups and window listeners: the engine's tables for rate.h
 * rule 5 (one copy grid per device that copies its counters on a timer) and
 * for exporters that take every completed window (contracts in engine.h and
 * engine_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "engine/engine_int.h"

#define GROUP_KEY_MAX 300 /* "<period>/<device>": device names are far shorter */

static uint32_t group_slot(const struct fsc_copy_groups *cg, uint64_t hash, const char *key)
{
    uint32_t mask = cg->index_cap - 1;
    uint32_t i = (uint32_t)hash & mask;
    while (cg->index[i] != 0) {
        const struct fsc_copy_group *g = &cg->g[cg->index[i] - 1];
        if (g->hash == hash && strcmp(g->key, key) == 0)
            return i;
        i = (i + 1) & mask;
    }
    return i; /* empty: the index is kept at most half full */
}

static int index_grow(struct fsc_copy_groups *cg)
{
    uint32_t cap = cg->index_cap ? cg->index_cap * 2 : 64;
    uint32_t *index = calloc(cap, sizeof(*index));
    if (!index)
        return -ENOMEM;
    free(cg->index);
    cg->index = index;
    cg->index_cap = cap;
    for (uint32_t k = 0; k < cg->n; k++) {
        uint32_t i = group_slot(cg, cg->g[k].hash, cg->g[k].key);
        cg->index[i] = k + 1;
    }
    return 0;
}

/* Contract in engine_int.h. */
uint16_t fsc_copy_groups_get(struct fsc_copy_groups *cg, const char *key, int64_t period_ns)
{
    char full[GROUP_KEY_MAX];
    int len = snprintf(full, sizeof(full), "%" PRId64 "/%s", period_ns, key ? key : "");
    if (len < 0 || (size_t)len >= sizeof(full) || period_ns <= 0)
        return 0;
    uint64_t hash = fsc_hash_bytes(full, (size_t)len, 0);
    if (cg->index_cap == 0 && index_grow(cg) != 0)
        return 0;
    uint32_t i = group_slot(cg, hash, full);
    if (cg->index[i] != 0)
        return (uint16_t)cg->index[i];
    if (cg->n >= FSC_COPY_GROUPS_MAX)
        return 0;
    if (cg->n == cg->cap) {
        uint32_t cap = cg->cap ? cg->cap * 2 : 16;
        struct fsc_copy_group *g = realloc(cg->g, (size_t)cap * sizeof(*g));
        if (!g)
            return 0;
        cg->g = g;
        cg->cap = cap;
    }
    char *copy = strdup(full);
    if (!copy)
        return 0;
    struct fsc_copy_group *g = &cg->g[cg->n];
    memset(g, 0, sizeof(*g));
    fsc_grid_init(&g->grid, period_ns);
    g->hash = hash;
    g->key = copy;
    cg->index[i] = ++cg->n;
    if (2 * cg->n > cg->index_cap)
        (void)index_grow(cg); /* on failure the index is fuller, still correct */
    return (uint16_t)cg->n;
}

void fsc_copy_groups_free(struct fsc_copy_groups *cg)
{
    for (uint32_t k = 0; k < cg->n; k++)
        free(cg->g[k].key);
    free(cg->g);
    free(cg->index);
    memset(cg, 0, sizeof(*cg));
}

size_t fsc_copy_groups_memory(const struct fsc_copy_groups *cg)
{
    size_t bytes = (size_t)cg->cap * sizeof(*cg->g) + (size_t)cg->index_cap * sizeof(*cg->index);
    for (uint32_t k = 0; k < cg->n; k++)
        bytes += strlen(cg->g[k].key) + 1;
    return bytes;
}

/* The traits a live series of a copy group uses: its own, read as values
 * true at their samples (rate.h rule 5). */
static struct fsc_traits live_traits(const struct fsc_traits *tr)
{
    struct fsc_traits t = *tr;
    t.refresh = FSC_REFRESH_ON_READ;
    t.refresh_ns = 0;
    t.copy_group = 0;
    return t;
}

/* Contract in engine_int.h. Thread: ingest, engine lock held. */
bool fsc_series_go_live(struct fsc_engine *eng, struct fsc_eng_series *ser)
{
    struct fsc_traits t = live_traits(&eng->tt.traits[ser->traits]);
    int idx = fsc_traits_intern(&eng->tt, &t);
    if (idx < 0)
        return false;
    ser->traits = (uint16_t)idx;
    return true;
}

/* Contract in engine_int.h. */
const struct fsc_traits *fsc_cadence_traits(const struct fsc_traits *tr, enum fsc_cadence cadence,
                                            struct fsc_traits *scratch)
{
    if (tr->refresh != FSC_REFRESH_PERIODIC || tr->copy_group == 0 || cadence != FSC_CADENCE_LIVE)
        return tr;
    *scratch = live_traits(tr);
    return scratch;
}

/* Contract in engine_int.h. Thread: ingest, engine lock held. */
void fsc_cadence_moved(struct fsc_engine *eng, const struct fsc_eng_series *ser, uint16_t old_group,
                       enum fsc_cadence old_cadence)
{
    struct fsc_copy_groups *cg = &eng->groups;
    const uint16_t group = ser->rs.copy_group;
    const enum fsc_cadence cadence = fsc_rate_cadence(&ser->rs);
    if (group == old_group && cadence == old_cadence)
        return;
    if (old_group != 0 && old_group <= cg->n && old_cadence < FSC_CADENCE__COUNT &&
        cg->g[old_group - 1].series[old_cadence] > 0)
        cg->g[old_group - 1].series[old_cadence]--;
    if (group != 0 && group <= cg->n && cadence < FSC_CADENCE__COUNT)
        cg->g[group - 1].series[cadence]++;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
uint16_t fsc_engine_copy_group(struct fsc_engine *eng, const char *key, int64_t period_ns)
{
    pthread_mutex_lock(&eng->mu);
    uint16_t g = fsc_copy_groups_get(&eng->groups, key, period_ns);
    pthread_mutex_unlock(&eng->mu);
    return g;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
uint32_t fsc_engine_copy_group_count(struct fsc_engine *eng)
{
    pthread_mutex_lock(&eng->mu);
    uint32_t n = eng->groups.n;
    pthread_mutex_unlock(&eng->mu);
    return n;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
int fsc_engine_copy_group_view(struct fsc_engine *eng, uint32_t i, struct fsc_copy_group_view *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&eng->mu);
    if (i >= eng->groups.n) {
        pthread_mutex_unlock(&eng->mu);
        return -ENOENT;
    }
    const struct fsc_copy_group *g = &eng->groups.g[i];
    /* The key is "<period>/<device>" (fsc_copy_groups_get). */
    const char *slash = strchr(g->key, '/');
    snprintf(out->device, sizeof(out->device), "%s", slash ? slash + 1 : g->key);
    out->period_ns = g->grid.period_ns;
    memcpy(out->series, g->series, sizeof(out->series));
    out->changes = g->grid.changes;
    out->relocks = g->grid.relocks;
    out->locked = g->grid.locked != 0;
    pthread_mutex_unlock(&eng->mu);
    return 0;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
int fsc_engine_add_window_listener(struct fsc_engine *eng, fsc_window_listener_fn fn, void *arg)
{
    int rc = -ENOSPC;
    pthread_mutex_lock(&eng->mu);
    if (eng->n_listeners < FSC_WINDOW_LISTENERS_MAX) {
        eng->listeners[eng->n_listeners].fn = fn;
        eng->listeners[eng->n_listeners].arg = arg;
        eng->n_listeners++;
        rc = 0;
    }
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
int fsc_engine_add_fine_listener(struct fsc_engine *eng, fsc_fine_listener_fn fn, void *arg)
{
    int rc = -ENOSPC;
    pthread_mutex_lock(&eng->mu);
    if (eng->n_fine_listeners < FSC_WINDOW_LISTENERS_MAX) {
        eng->fine_listeners[eng->n_fine_listeners].fn = fn;
        eng->fine_listeners[eng->n_fine_listeners].arg = arg;
        eng->n_fine_listeners++;
        rc = 0;
    }
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* Contract in engine.h. Thread: any; takes eng->mu. */
void fsc_engine_remove_fine_listener(struct fsc_engine *eng, fsc_fine_listener_fn fn, void *arg)
{
    pthread_mutex_lock(&eng->mu);
    for (unsigned i = 0; i < eng->n_fine_listeners; i++) {
        if (eng->fine_listeners[i].fn == fn && eng->fine_listeners[i].arg == arg) {
            memmove(&eng->fine_listeners[i], &eng->fine_listeners[i + 1],
                    (eng->n_fine_listeners - i - 1) * sizeof(eng->fine_listeners[0]));
            eng->n_fine_listeners--;
            break;
        }
    }
    pthread_mutex_unlock(&eng->mu);
}

/* Contract in engine.h. Thread: any; takes eng->mu, so no call of fn is in
 * progress once it returns (listeners run under the lock). */
void fsc_engine_remove_window_listener(struct fsc_engine *eng, fsc_window_listener_fn fn, void *arg)
{
    pthread_mutex_lock(&eng->mu);
    for (unsigned i = 0; i < eng->n_listeners; i++) {
        if (eng->listeners[i].fn == fn && eng->listeners[i].arg == arg) {
            memmove(&eng->listeners[i], &eng->listeners[i + 1],
                    (eng->n_listeners - i - 1) * sizeof(eng->listeners[0]));
            eng->n_listeners--;
            break;
        }
    }
    pthread_mutex_unlock(&eng->mu);
}
