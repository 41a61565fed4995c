/* Registry storage: the append-only arena, the series chunks and the three
 * open-addressing hash indexes. See registry_store.h for the layout and the
 * lock-free reader contract; registry.c holds the locking, the limits and
 * the validation. */
#include "model/registry_store.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_MAX_BLOCKS (1u << (32u - FSC_REGSTORE_OFF_BITS))
#define ARENA_DIR_INIT   16u

#define HTAB_INIT_SLOTS 256u
#define HTAB_MAX_SLOTS  (1u << 30)

/* ---- setup ------------------------------------------------------------------ */

static int htab_init(struct fsc_regstore *st, struct fsc_regstore_htab *t)
{
    t->slots = calloc(HTAB_INIT_SLOTS, sizeof(uint32_t));
    if (t->slots == NULL)
        return -ENOMEM;
    fsc_regstore_mem_add(st, HTAB_INIT_SLOTS * sizeof(uint32_t));
    t->mask = HTAB_INIT_SLOTS - 1;
    t->used = 0;
    return 0;
}

int fsc_regstore_init(struct fsc_regstore *st, uint32_t max_entries)
{
    memset(st, 0, sizeof(*st));
    atomic_init(&st->count, 0);
    atomic_init(&st->mem, 0);
    atomic_init(&st->dir, NULL);
    st->nchunks = (max_entries + FSC_REGSTORE_CHUNK_SIZE - 1) >> FSC_REGSTORE_CHUNK_SHIFT;
    st->chunks = calloc(st->nchunks, sizeof(*st->chunks));
    if (st->chunks == NULL)
        goto fail;
    fsc_regstore_mem_add(st, st->nchunks * sizeof(*st->chunks));
    struct fsc_regstore_dir *dir = calloc(1, sizeof(*dir) + ARENA_DIR_INIT * sizeof(char *));
    if (dir == NULL)
        goto fail;
    dir->cap = ARENA_DIR_INIT;
    atomic_store_explicit(&st->dir, dir, memory_order_relaxed);
    fsc_regstore_mem_add(st, sizeof(*dir) + ARENA_DIR_INIT * sizeof(char *));
    if (htab_init(st, &st->strings) != 0 || htab_init(st, &st->labelsets) != 0 ||
        htab_init(st, &st->series) != 0)
        goto fail;
    return 0;
fail:
    fsc_regstore_fini(st);
    memset(st, 0, sizeof(*st));
    return -ENOMEM;
}

void fsc_regstore_fini(struct fsc_regstore *st)
{
    if (st->chunks != NULL) {
        for (uint32_t k = 0; k < st->nchunks; k++)
            free(st->chunks[k]);
        free(st->chunks);
    }
    struct fsc_regstore_dir *dir = atomic_load_explicit(&st->dir, memory_order_relaxed);
    for (uint32_t b = 0; dir != NULL && b < st->nblocks; b++)
        free(dir->blocks[b]);
    while (dir != NULL) {
        struct fsc_regstore_dir *older = dir->retired;
        free(dir);
        dir = older;
    }
    free(st->strings.slots);
    free(st->labelsets.slots);
    free(st->series.slots);
}

/* ---- arena -------------------------------------------------------------------- */

void *fsc_regstore_alloc(struct fsc_regstore *st, size_t bytes, uint32_t *ref_out)
{
    uint32_t units = (uint32_t)((bytes + FSC_REGSTORE_UNIT - 1) / FSC_REGSTORE_UNIT);
    const uint32_t block_units = FSC_REGSTORE_BLOCK_BYTES / FSC_REGSTORE_UNIT;
    if (st->nblocks == 0 || st->block_used + units > block_units) {
        struct fsc_regstore_dir *dir = atomic_load_explicit(&st->dir, memory_order_relaxed);
        if (st->nblocks == ARENA_MAX_BLOCKS)
            return NULL;
        if (st->nblocks == dir->cap) {
            /* Copy into a bigger directory; the old one stays alive for
             * readers that loaded it before this store. */
            uint32_t cap = dir->cap * 2;
            struct fsc_regstore_dir *grown = malloc(sizeof(*grown) + (size_t)cap * sizeof(char *));
            if (grown == NULL)
                return NULL;
            grown->retired = dir;
            grown->cap = cap;
            memcpy(grown->blocks, dir->blocks, (size_t)dir->cap * sizeof(char *));
            memset(grown->blocks + dir->cap, 0, (size_t)(cap - dir->cap) * sizeof(char *));
            fsc_regstore_mem_add(st, sizeof(*grown) + (size_t)cap * sizeof(char *));
            atomic_store_explicit(&st->dir, grown, memory_order_release);
            dir = grown;
        }
        char *block = malloc(FSC_REGSTORE_BLOCK_BYTES);
        if (block == NULL)
            return NULL;
        fsc_regstore_mem_add(st, FSC_REGSTORE_BLOCK_BYTES);
        dir->blocks[st->nblocks++] = block;
        /* Unit 0 of block 0 is never handed out, so ref 0 can mean "empty". */
        st->block_used = st->nblocks == 1 ? 1 : 0;
    }
    uint32_t ref = (st->nblocks - 1) << FSC_REGSTORE_OFF_BITS | st->block_used;
    st->block_used += units;
    *ref_out = ref;
    return fsc_regstore_at(st, ref);
}

/* ---- hash indexes --------------------------------------------------------------- */

typedef uint32_t (*slot_hash_fn)(const struct fsc_regstore *st, uint32_t slot);

static uint32_t str_slot_hash(const struct fsc_regstore *st, uint32_t slot)
{
    return ((const struct fsc_regstore_str *)fsc_regstore_at(st, slot))->hash;
}

static uint32_t ls_slot_hash(const struct fsc_regstore *st, uint32_t slot)
{
    return ((const struct fsc_regstore_ls *)fsc_regstore_at(st, slot))->hash;
}

static uint32_t series_slot_hash(const struct fsc_regstore *st, uint32_t slot)
{
    return fsc_regstore_entry_at(st, slot - 1)->hash;
}

/* Makes room for one more slot, keeping the load at or under 3/4 so probes
 * stay short. On allocation failure the old table stays intact. Lock held. */
static int htab_reserve(struct fsc_regstore *st, struct fsc_regstore_htab *t, slot_hash_fn hash_of)
{
    uint64_t cap = (uint64_t)t->mask + 1;
    if (((uint64_t)t->used + 1) * 4 <= cap * 3)
        return 0;
    if (cap >= HTAB_MAX_SLOTS)
        return -ENOMEM;
    uint64_t ncap = cap * 2;
    uint32_t *slots = calloc((size_t)ncap, sizeof(uint32_t));
    if (slots == NULL)
        return -ENOMEM;
    uint32_t nmask = (uint32_t)(ncap - 1);
    for (uint64_t i = 0; i < cap; i++) {
        uint32_t v = t->slots[i];
        if (v == 0)
            continue;
        uint32_t j = hash_of(st, v) & nmask;
        while (slots[j] != 0)
            j = (j + 1) & nmask;
        slots[j] = v;
    }
    free(t->slots);
    fsc_regstore_mem_add(st, (size_t)(ncap - cap) * sizeof(uint32_t));
    t->slots = slots;
    t->mask = nmask;
    return 0;
}

/* Inserts v (hash h) into a table that has room (htab_reserve succeeded). */
static void htab_put(struct fsc_regstore_htab *t, uint32_t h, uint32_t v)
{
    uint32_t j = h & t->mask;
    while (t->slots[j] != 0)
        j = (j + 1) & t->mask;
    t->slots[j] = v;
    t->used++;
}

/* ---- interning ------------------------------------------------------------------- */

/* Returns the ref of string s (interning it), or 0 on allocation failure.
 * Lock held. */
static uint32_t intern_str(struct fsc_regstore *st, const char *s, uint32_t len, uint32_t h)
{
    struct fsc_regstore_htab *t = &st->strings;
    /* Probing is bounded: the load factor keeps empty slots in the table. */
    for (uint32_t j = h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            break;
        const struct fsc_regstore_str *rec = fsc_regstore_at(st, v);
        if (rec->hash == h && rec->len == len && memcmp(rec->s, s, len) == 0)
            return v;
    }
    if (htab_reserve(st, t, str_slot_hash) != 0)
        return 0;
    uint32_t ref;
    struct fsc_regstore_str *rec = fsc_regstore_alloc(st, sizeof(*rec) + len + 1, &ref);
    if (rec == NULL)
        return 0;
    rec->hash = h;
    rec->len = len;
    memcpy(rec->s, s, len);
    rec->s[len] = '\0';
    htab_put(t, h, ref);
    return ref;
}

/* Returns the ref of the label set with these (already interned) string
 * refs, interning it, or 0 on allocation failure. Lock held. */
static uint32_t intern_ls(struct fsc_regstore *st, const uint32_t *refs, uint32_t n, uint32_t h)
{
    struct fsc_regstore_htab *t = &st->labelsets;
    size_t refs_bytes = (size_t)n * 2 * sizeof(uint32_t);
    for (uint32_t j = h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            break;
        const struct fsc_regstore_ls *rec = fsc_regstore_at(st, v);
        if (rec->hash == h && rec->n == n && memcmp(rec->refs, refs, refs_bytes) == 0)
            return v;
    }
    if (htab_reserve(st, t, ls_slot_hash) != 0)
        return 0;
    uint32_t ref;
    struct fsc_regstore_ls *rec = fsc_regstore_alloc(st, sizeof(*rec) + refs_bytes, &ref);
    if (rec == NULL)
        return 0;
    rec->hash = h;
    rec->n = n;
    memcpy(rec->refs, refs, refs_bytes);
    htab_put(t, h, ref);
    return ref;
}

/* ---- series ----------------------------------------------------------------------- */

static bool str_equal(const struct fsc_regstore *st, uint32_t ref, const char *s, uint32_t len)
{
    const struct fsc_regstore_str *rec = fsc_regstore_at(st, ref);
    return rec->len == len && memcmp(rec->s, s, len) == 0;
}

static bool entry_matches(const struct fsc_regstore *st, const struct fsc_regstore_entry *e,
                          uint16_t source, const struct fsc_regstore_key *key)
{
    if (e->hash != key->h || e->source != source)
        return false;
    if (!str_equal(st, e->metric, key->metric, key->metric_len))
        return false;
    const struct fsc_regstore_ls *ls = fsc_regstore_at(st, e->labels);
    if (ls->hash != key->ls_h || ls->n != key->n)
        return false;
    for (size_t i = 0; i < key->n; i++) {
        if (!str_equal(st, ls->refs[2 * i], key->l[i].name, key->l[i].name_len) ||
            !str_equal(st, ls->refs[2 * i + 1], key->l[i].value, key->l[i].value_len))
            return false;
    }
    return true;
}

fsc_series_id fsc_regstore_series_find(const struct fsc_regstore *st, uint16_t source,
                                       const struct fsc_regstore_key *key)
{
    const struct fsc_regstore_htab *t = &st->series;
    for (uint32_t j = key->h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            return FSC_SERIES_NONE;
        if (entry_matches(st, fsc_regstore_entry_at(st, v - 1), source, key))
            return v - 1;
    }
}

fsc_series_id fsc_regstore_series_add(struct fsc_regstore *st, uint16_t source,
                                      const struct fsc_regstore_key *key)
{
    uint32_t id = atomic_load_explicit(&st->count, memory_order_relaxed);
    if (htab_reserve(st, &st->series, series_slot_hash) != 0)
        return FSC_SERIES_NONE;
    uint32_t k = id >> FSC_REGSTORE_CHUNK_SHIFT;
    if (st->chunks[k] == NULL) {
        struct fsc_regstore_entry *chunk = malloc(FSC_REGSTORE_CHUNK_SIZE * sizeof(*chunk));
        if (chunk == NULL)
            return FSC_SERIES_NONE;
        fsc_regstore_mem_add(st, FSC_REGSTORE_CHUNK_SIZE * sizeof(*chunk));
        st->chunks[k] = chunk;
    }
    uint32_t metric = intern_str(st, key->metric, key->metric_len, key->metric_h);
    if (metric == 0)
        return FSC_SERIES_NONE;
    uint32_t refs[2 * FSC_REGSTORE_MAX_LABELS];
    for (size_t i = 0; i < key->n; i++) {
        const struct fsc_regstore_label *l = &key->l[i];
        refs[2 * i] = intern_str(st, l->name, l->name_len, l->name_h);
        refs[2 * i + 1] = intern_str(st, l->value, l->value_len, l->value_h);
        if (refs[2 * i] == 0 || refs[2 * i + 1] == 0)
            return FSC_SERIES_NONE;
    }
    uint32_t labels = intern_ls(st, refs, (uint32_t)key->n, key->ls_h);
    if (labels == 0)
        return FSC_SERIES_NONE;
    struct fsc_regstore_entry *e = fsc_regstore_entry_at(st, id);
    e->hash = key->h;
    e->metric = metric;
    e->labels = labels;
    e->source = source;
    e->unused_ = 0;
    htab_put(&st->series, key->h, id + 1);
    atomic_store_explicit(&st->count, id + 1, memory_order_release);
    return id;
}
