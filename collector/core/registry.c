/* Series registry: interning, limits, lock-free readers. See registry.h for
 * the contract; this file explains the memory layout.
 *
 * Three stores, all append-only until destroy:
 * - the arena: 64 KiB blocks holding string records {hash, len, bytes} and
 *   label-set records {hash, n, name/value string refs}. A 32-bit ref names a
 *   record: block index in the high 19 bits, 8-byte unit in the low 13. The
 *   block directory grows by doubling; an old directory is kept (not freed)
 *   until destroy because a lock-free reader may still be looking at it.
 * - the series chunks: CHUNK_SIZE entries of 16 bytes each; the chunk
 *   directory is sized for max_series_total at create, so it never moves.
 * - three open-addressing hash indexes (strings, label sets, series) of
 *   32-bit slots, used only under the lock. Slots hold arena refs (strings,
 *   label sets) or id + 1 (series); 0 is empty (ref 0 is never handed out).
 *   Records carry their hash, so growth rehashes without touching strings.
 *
 * Publication: an entry, its chunk pointer, its records and any directory
 * they need are all written before `count` is stored with release order; a
 * reader loads `count` with acquire order first, so everything below it is
 * visible. Nothing that a published entry refers to is ever moved or freed. */
#include "core/registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_BYTES (1u << 16)
#define ARENA_UNIT        8u
#define ARENA_OFF_BITS    13u /* 64 KiB / 8-byte units */
#define ARENA_OFF_MASK    ((1u << ARENA_OFF_BITS) - 1u)
#define ARENA_MAX_BLOCKS  (1u << (32u - ARENA_OFF_BITS))
#define ARENA_DIR_INIT    16u

#define CHUNK_SHIFT 12u
#define CHUNK_SIZE  (1u << CHUNK_SHIFT)

#define HTAB_INIT_SLOTS 256u
#define HTAB_MAX_SLOTS  (1u << 30)

struct arena_dir {
    struct arena_dir *retired; /* the copy this one replaced; freed at destroy */
    uint32_t cap;
    char *blocks[];
};

struct str_rec {
    uint32_t hash;
    uint32_t len;
    char s[]; /* len bytes + NUL */
};

struct ls_rec {
    uint32_t hash;
    uint32_t n;
    uint32_t refs[]; /* name0, value0, name1, value1, ... sorted by name */
};

struct series_entry {
    uint32_t hash;
    uint32_t metric; /* str_rec ref */
    uint32_t labels; /* ls_rec ref */
    uint16_t source;
    uint16_t unused_;
};

struct htab {
    uint32_t *slots;
    uint32_t mask; /* slots - 1; slots is a power of two */
    uint32_t used;
};

struct source {
    const char *name; /* in the arena */
    uint32_t series;
    uint32_t limit;
    uint64_t dropped;
    uint64_t rejected;
    uint64_t alloc_failed;
};

struct fsc_registry {
    pthread_mutex_t lock;
    _Atomic uint32_t count;
    _Atomic size_t mem;
    uint32_t max_total;
    uint32_t nchunks;
    struct series_entry **chunks; /* nchunks pointers, sized at create */
    _Atomic(struct arena_dir *) dir;
    uint32_t nblocks;    /* blocks in use */
    uint32_t block_used; /* units used in the last block */
    struct htab strings, labelsets, series;
    struct source *sources;
    uint32_t nsources, sources_cap;
};

/* One label after validation, with the hashes computed once per call. */
struct prep_label {
    const char *name, *value;
    uint32_t name_len, value_len;
    uint32_t name_h, value_h;
};

/* The caller's input, validated, sorted and hashed (no lock needed). */
struct prepared {
    const char *metric;
    uint32_t metric_len, metric_h;
    uint32_t ls_h; /* label-set hash */
    uint32_t h;    /* series hash: source, metric, label set */
    size_t n;
    struct prep_label l[FSC_REGISTRY_MAX_LABELS];
};

/* ---- hashing --------------------------------------------------------------
 * Our own small 64-bit hash: 8 bytes per step, a strong finalizer. Quality
 * matters only for probe lengths; the values never leave the process. */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return x;
}

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)len * 0xff51afd7ed558ccdull);
    uint64_t w;
    while (len >= 8) {
        memcpy(&w, s, 8);
        w *= 0x87c37b91114253d5ull;
        h = ((h ^ w) << 27 | (h ^ w) >> 37) * 0x4cf5ad432745937full + 0x52dce729u;
        s += 8;
        len -= 8;
    }
    w = 0;
    memcpy(&w, s, len);
    h ^= w * 0x87c37b91114253d5ull;
    h = mix64(h);
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_pair(uint32_t seed, uint32_t a, uint32_t b)
{
    uint64_t h = mix64(((uint64_t)a << 32 | b) ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull) ^
                       0x2545f4914f6cdd1dull);
    return (uint32_t)(h ^ (h >> 32));
}

/* ---- validation ----------------------------------------------------------- */

static bool is_alpha_(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Prometheus metric name; *len_out gets its length. */
static bool metric_name_valid(const char *s, uint32_t *len_out)
{
    size_t len = strnlen(s, FSC_REGISTRY_NAME_MAX + 1);
    if (len == 0 || len > FSC_REGISTRY_NAME_MAX)
        return false;
    if (!is_alpha_((unsigned char)s[0]) && s[0] != ':')
        return false;
    for (size_t i = 1; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_alpha_(c) && !is_digit(c) && c != ':')
            return false;
    }
    *len_out = (uint32_t)len;
    return true;
}

static bool label_name_valid(const char *s, uint32_t *len_out)
{
    size_t len = strnlen(s, FSC_REGISTRY_NAME_MAX + 1);
    if (len == 0 || len > FSC_REGISTRY_NAME_MAX)
        return false;
    if (!is_alpha_((unsigned char)s[0]) || (s[0] == '_' && s[1] == '_'))
        return false;
    for (size_t i = 1; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_alpha_(c) && !is_digit(c))
            return false;
    }
    *len_out = (uint32_t)len;
    return true;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
 * Sinks copy values into exposition text and protobuf strings, which must be
 * UTF-8, so a bad byte is refused here rather than breaking a scrape later. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            k = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            k = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= k)
            return false;
        for (size_t j = 1; j <= k; j++) {
            unsigned b = s[i + j];
            if ((b & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (b & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += k + 1;
    }
    return true;
}

/* Validates, sorts by name, drops empty values and hashes. Returns 0 or
 * -EINVAL. Pure: touches no registry state. */
static int prepare(struct prepared *p, uint16_t source, const char *metric,
                   const struct fsc_label *labels, size_t n_labels)
{
    if (metric == NULL || !metric_name_valid(metric, &p->metric_len))
        return -EINVAL;
    if (n_labels > FSC_REGISTRY_MAX_LABELS || (n_labels > 0 && labels == NULL))
        return -EINVAL;
    p->metric = metric;
    for (size_t i = 0; i < n_labels; i++) {
        struct prep_label *l = &p->l[i];
        if (labels[i].name == NULL || labels[i].value == NULL)
            return -EINVAL;
        if (!label_name_valid(labels[i].name, &l->name_len))
            return -EINVAL;
        size_t vlen = strnlen(labels[i].value, FSC_REGISTRY_VALUE_MAX + 1);
        if (vlen > FSC_REGISTRY_VALUE_MAX ||
            !utf8_valid((const unsigned char *)labels[i].value, vlen))
            return -EINVAL;
        l->name = labels[i].name;
        l->value = labels[i].value;
        l->value_len = (uint32_t)vlen;
    }
    /* Insertion sort: at most 16 labels, usually 2-5, often already sorted. */
    for (size_t i = 1; i < n_labels; i++) {
        struct prep_label tmp = p->l[i];
        size_t j = i;
        while (j > 0 && strcmp(p->l[j - 1].name, tmp.name) > 0) {
            p->l[j] = p->l[j - 1];
            j--;
        }
        p->l[j] = tmp;
    }
    /* Duplicates are checked before empty values are dropped: {a="", a="x"}
     * is as ambiguous as {a="y", a="x"}. */
    for (size_t i = 1; i < n_labels; i++)
        if (strcmp(p->l[i - 1].name, p->l[i].name) == 0)
            return -EINVAL;
    size_t n = 0;
    for (size_t i = 0; i < n_labels; i++)
        if (p->l[i].value_len > 0)
            p->l[n++] = p->l[i];
    p->n = n;

    p->metric_h = hash_bytes(metric, p->metric_len);
    uint32_t ls_h = 0x6a09e667u;
    for (size_t i = 0; i < n; i++) {
        p->l[i].name_h = hash_bytes(p->l[i].name, p->l[i].name_len);
        p->l[i].value_h = hash_bytes(p->l[i].value, p->l[i].value_len);
        ls_h = hash_pair(ls_h, p->l[i].name_h, p->l[i].value_h);
    }
    p->ls_h = ls_h;
    p->h = hash_pair(source, p->metric_h, ls_h);
    return 0;
}

/* ---- memory accounting, arena --------------------------------------------- */

static void mem_add(struct fsc_registry *reg, size_t n)
{
    atomic_fetch_add_explicit(&reg->mem, n, memory_order_relaxed);
}

/* Resolves a ref. Readers reach it only for refs of published entries, after
 * the acquire load of count, so the directory they load holds the block. */
static void *arena_at(const struct fsc_registry *reg, uint32_t ref)
{
    struct arena_dir *dir =
        atomic_load_explicit((_Atomic(struct arena_dir *) *)&reg->dir, memory_order_acquire);
    return dir->blocks[ref >> ARENA_OFF_BITS] + (size_t)(ref & ARENA_OFF_MASK) * ARENA_UNIT;
}

/* Allocates `bytes` (<= one block) of 8-byte aligned arena space. Returns the
 * pointer and its ref, or NULL on allocation failure (nothing changed).
 * Lock held. */
static void *arena_alloc(struct fsc_registry *reg, size_t bytes, uint32_t *ref_out)
{
    uint32_t units = (uint32_t)((bytes + ARENA_UNIT - 1) / ARENA_UNIT);
    const uint32_t block_units = ARENA_BLOCK_BYTES / ARENA_UNIT;
    if (reg->nblocks == 0 || reg->block_used + units > block_units) {
        struct arena_dir *dir = atomic_load_explicit(&reg->dir, memory_order_relaxed);
        if (reg->nblocks == ARENA_MAX_BLOCKS)
            return NULL;
        if (reg->nblocks == dir->cap) {
            /* Copy into a bigger directory; the old one stays alive for
             * readers that loaded it before this store. */
            uint32_t cap = dir->cap * 2;
            struct arena_dir *grown = malloc(sizeof(*grown) + (size_t)cap * sizeof(char *));
            if (grown == NULL)
                return NULL;
            grown->retired = dir;
            grown->cap = cap;
            memcpy(grown->blocks, dir->blocks, (size_t)dir->cap * sizeof(char *));
            memset(grown->blocks + dir->cap, 0, (size_t)(cap - dir->cap) * sizeof(char *));
            mem_add(reg, sizeof(*grown) + (size_t)cap * sizeof(char *));
            atomic_store_explicit(&reg->dir, grown, memory_order_release);
            dir = grown;
        }
        char *block = malloc(ARENA_BLOCK_BYTES);
        if (block == NULL)
            return NULL;
        mem_add(reg, ARENA_BLOCK_BYTES);
        dir->blocks[reg->nblocks++] = block;
        /* Unit 0 of block 0 is never handed out, so ref 0 can mean "empty". */
        reg->block_used = reg->nblocks == 1 ? 1 : 0;
    }
    uint32_t ref = (reg->nblocks - 1) << ARENA_OFF_BITS | reg->block_used;
    reg->block_used += units;
    *ref_out = ref;
    return arena_at(reg, ref);
}

/* ---- hash indexes ----------------------------------------------------------- */

typedef uint32_t (*slot_hash_fn)(const struct fsc_registry *reg, uint32_t slot);

static uint32_t str_slot_hash(const struct fsc_registry *reg, uint32_t slot)
{
    return ((const struct str_rec *)arena_at(reg, slot))->hash;
}

static uint32_t ls_slot_hash(const struct fsc_registry *reg, uint32_t slot)
{
    return ((const struct ls_rec *)arena_at(reg, slot))->hash;
}

static struct series_entry *entry_at(const struct fsc_registry *reg, uint32_t id)
{
    return &reg->chunks[id >> CHUNK_SHIFT][id & (CHUNK_SIZE - 1)];
}

static uint32_t series_slot_hash(const struct fsc_registry *reg, uint32_t slot)
{
    return entry_at(reg, slot - 1)->hash;
}

static int htab_init(struct fsc_registry *reg, struct htab *t)
{
    t->slots = calloc(HTAB_INIT_SLOTS, sizeof(uint32_t));
    if (t->slots == NULL)
        return -ENOMEM;
    mem_add(reg, HTAB_INIT_SLOTS * sizeof(uint32_t));
    t->mask = HTAB_INIT_SLOTS - 1;
    t->used = 0;
    return 0;
}

/* Makes room for one more slot, keeping the load at or under 3/4 so probes
 * stay short. On allocation failure the old table stays intact. Lock held. */
static int htab_reserve(struct fsc_registry *reg, struct htab *t, slot_hash_fn hash_of)
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
        uint32_t j = hash_of(reg, v) & nmask;
        while (slots[j] != 0)
            j = (j + 1) & nmask;
        slots[j] = v;
    }
    free(t->slots);
    mem_add(reg, (size_t)(ncap - cap) * sizeof(uint32_t));
    t->slots = slots;
    t->mask = nmask;
    return 0;
}

/* Inserts v (hash h) into a table that has room (htab_reserve succeeded). */
static void htab_put(struct htab *t, uint32_t h, uint32_t v)
{
    uint32_t j = h & t->mask;
    while (t->slots[j] != 0)
        j = (j + 1) & t->mask;
    t->slots[j] = v;
    t->used++;
}

/* ---- interning ---------------------------------------------------------------- */

static const char *str_at(const struct fsc_registry *reg, uint32_t ref)
{
    return ((const struct str_rec *)arena_at(reg, ref))->s;
}

/* Returns the ref of string s (interning it), or 0 on allocation failure.
 * Lock held. */
static uint32_t intern_str(struct fsc_registry *reg, const char *s, uint32_t len, uint32_t h)
{
    struct htab *t = &reg->strings;
    /* Probing is bounded: the load factor keeps empty slots in the table. */
    for (uint32_t j = h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            break;
        const struct str_rec *rec = arena_at(reg, v);
        if (rec->hash == h && rec->len == len && memcmp(rec->s, s, len) == 0)
            return v;
    }
    if (htab_reserve(reg, t, str_slot_hash) != 0)
        return 0;
    uint32_t ref;
    struct str_rec *rec = arena_alloc(reg, sizeof(*rec) + len + 1, &ref);
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
static uint32_t intern_ls(struct fsc_registry *reg, const uint32_t *refs, uint32_t n, uint32_t h)
{
    struct htab *t = &reg->labelsets;
    size_t refs_bytes = (size_t)n * 2 * sizeof(uint32_t);
    for (uint32_t j = h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            break;
        const struct ls_rec *rec = arena_at(reg, v);
        if (rec->hash == h && rec->n == n && memcmp(rec->refs, refs, refs_bytes) == 0)
            return v;
    }
    if (htab_reserve(reg, t, ls_slot_hash) != 0)
        return 0;
    uint32_t ref;
    struct ls_rec *rec = arena_alloc(reg, sizeof(*rec) + refs_bytes, &ref);
    if (rec == NULL)
        return 0;
    rec->hash = h;
    rec->n = n;
    memcpy(rec->refs, refs, refs_bytes);
    htab_put(t, h, ref);
    return ref;
}

static bool str_equal(const struct fsc_registry *reg, uint32_t ref, const char *s, uint32_t len)
{
    const struct str_rec *rec = arena_at(reg, ref);
    return rec->len == len && memcmp(rec->s, s, len) == 0;
}

static bool entry_matches(const struct fsc_registry *reg, const struct series_entry *e,
                          uint16_t source, const struct prepared *p)
{
    if (e->hash != p->h || e->source != source)
        return false;
    if (!str_equal(reg, e->metric, p->metric, p->metric_len))
        return false;
    const struct ls_rec *ls = arena_at(reg, e->labels);
    if (ls->hash != p->ls_h || ls->n != p->n)
        return false;
    for (size_t i = 0; i < p->n; i++) {
        if (!str_equal(reg, ls->refs[2 * i], p->l[i].name, p->l[i].name_len) ||
            !str_equal(reg, ls->refs[2 * i + 1], p->l[i].value, p->l[i].value_len))
            return false;
    }
    return true;
}

/* Existing id of the prepared series or FSC_SERIES_NONE. Lock held. */
static fsc_series_id series_find(const struct fsc_registry *reg, uint16_t source,
                                 const struct prepared *p)
{
    const struct htab *t = &reg->series;
    for (uint32_t j = p->h & t->mask;; j = (j + 1) & t->mask) {
        uint32_t v = t->slots[j];
        if (v == 0)
            return FSC_SERIES_NONE;
        if (entry_matches(reg, entry_at(reg, v - 1), source, p))
            return v - 1;
    }
}

/* Creates the series (limits already checked). Returns its id, or
 * FSC_SERIES_NONE on allocation failure; strings interned before a failure
 * stay interned and are reused by the next attempt, so retries cannot grow
 * memory without bound. Lock held. */
static fsc_series_id series_create(struct fsc_registry *reg, uint16_t source,
                                   const struct prepared *p)
{
    uint32_t id = atomic_load_explicit(&reg->count, memory_order_relaxed);
    if (htab_reserve(reg, &reg->series, series_slot_hash) != 0)
        return FSC_SERIES_NONE;
    uint32_t k = id >> CHUNK_SHIFT;
    if (reg->chunks[k] == NULL) {
        struct series_entry *chunk = malloc(CHUNK_SIZE * sizeof(*chunk));
        if (chunk == NULL)
            return FSC_SERIES_NONE;
        mem_add(reg, CHUNK_SIZE * sizeof(*chunk));
        reg->chunks[k] = chunk;
    }
    uint32_t metric = intern_str(reg, p->metric, p->metric_len, p->metric_h);
    if (metric == 0)
        return FSC_SERIES_NONE;
    uint32_t refs[2 * FSC_REGISTRY_MAX_LABELS];
    for (size_t i = 0; i < p->n; i++) {
        refs[2 * i] = intern_str(reg, p->l[i].name, p->l[i].name_len, p->l[i].name_h);
        refs[2 * i + 1] = intern_str(reg, p->l[i].value, p->l[i].value_len, p->l[i].value_h);
        if (refs[2 * i] == 0 || refs[2 * i + 1] == 0)
            return FSC_SERIES_NONE;
    }
    uint32_t labels = intern_ls(reg, refs, (uint32_t)p->n, p->ls_h);
    if (labels == 0)
        return FSC_SERIES_NONE;
    struct series_entry *e = entry_at(reg, id);
    e->hash = p->h;
    e->metric = metric;
    e->labels = labels;
    e->source = source;
    e->unused_ = 0;
    htab_put(&reg->series, p->h, id + 1);
    atomic_store_explicit(&reg->count, id + 1, memory_order_release);
    return id;
}

/* ---- public API ----------------------------------------------------------------- */

struct fsc_registry *fsc_registry_create(uint32_t max_series_total)
{
    if (max_series_total == 0 || max_series_total > FSC_REGISTRY_MAX_TOTAL)
        return NULL;
    struct fsc_registry *reg = calloc(1, sizeof(*reg));
    if (reg == NULL)
        return NULL;
    if (pthread_mutex_init(&reg->lock, NULL) != 0) {
        free(reg);
        return NULL;
    }
    atomic_init(&reg->count, 0);
    atomic_init(&reg->mem, sizeof(*reg));
    atomic_init(&reg->dir, NULL);
    reg->max_total = max_series_total;
    reg->nchunks = (max_series_total + CHUNK_SIZE - 1) >> CHUNK_SHIFT;
    reg->chunks = calloc(reg->nchunks, sizeof(*reg->chunks));
    if (reg->chunks == NULL)
        goto fail;
    mem_add(reg, reg->nchunks * sizeof(*reg->chunks));
    struct arena_dir *dir = calloc(1, sizeof(*dir) + ARENA_DIR_INIT * sizeof(char *));
    if (dir == NULL)
        goto fail;
    dir->cap = ARENA_DIR_INIT;
    atomic_store_explicit(&reg->dir, dir, memory_order_relaxed);
    mem_add(reg, sizeof(*dir) + ARENA_DIR_INIT * sizeof(char *));
    if (htab_init(reg, &reg->strings) != 0 || htab_init(reg, &reg->labelsets) != 0 ||
        htab_init(reg, &reg->series) != 0)
        goto fail;
    return reg;
fail:
    fsc_registry_destroy(reg);
    return NULL;
}

void fsc_registry_destroy(struct fsc_registry *reg)
{
    if (reg == NULL)
        return;
    if (reg->chunks != NULL) {
        for (uint32_t k = 0; k < reg->nchunks; k++)
            free(reg->chunks[k]);
        free(reg->chunks);
    }
    struct arena_dir *dir = atomic_load_explicit(&reg->dir, memory_order_relaxed);
    for (uint32_t b = 0; dir != NULL && b < reg->nblocks; b++)
        free(dir->blocks[b]);
    while (dir != NULL) {
        struct arena_dir *older = dir->retired;
        free(dir);
        dir = older;
    }
    free(reg->strings.slots);
    free(reg->labelsets.slots);
    free(reg->series.slots);
    free(reg->sources);
    pthread_mutex_destroy(&reg->lock);
    free(reg);
}

int fsc_registry_source_add(struct fsc_registry *reg, const char *name, uint32_t max_series,
                            uint16_t *source_out)
{
    if (name == NULL)
        return -EINVAL;
    size_t len = strnlen(name, FSC_REGISTRY_NAME_MAX + 1);
    if (len == 0 || len > FSC_REGISTRY_NAME_MAX)
        return -EINVAL;
    int rc = 0;
    pthread_mutex_lock(&reg->lock);
    for (uint32_t i = 0; i < reg->nsources; i++) {
        if (strcmp(reg->sources[i].name, name) == 0) {
            rc = -EEXIST;
            goto out;
        }
    }
    if (reg->nsources >= FSC_REGISTRY_MAX_SOURCES) {
        rc = -ENOSPC;
        goto out;
    }
    if (reg->nsources == reg->sources_cap) {
        uint32_t cap = reg->sources_cap ? reg->sources_cap * 2 : 8;
        struct source *grown = realloc(reg->sources, cap * sizeof(*grown));
        if (grown == NULL) {
            rc = -ENOMEM;
            goto out;
        }
        mem_add(reg, (cap - reg->sources_cap) * sizeof(*grown));
        reg->sources = grown;
        reg->sources_cap = cap;
    }
    uint32_t ref;
    char *copy = arena_alloc(reg, len + 1, &ref);
    if (copy == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    memcpy(copy, name, len + 1);
    struct source *src = &reg->sources[reg->nsources];
    memset(src, 0, sizeof(*src));
    src->name = copy;
    src->limit = max_series;
    *source_out = (uint16_t)reg->nsources++;
out:
    pthread_mutex_unlock(&reg->lock);
    return rc;
}

fsc_series_id fsc_registry_intern(struct fsc_registry *reg, uint16_t source, const char *metric,
                                  const struct fsc_label *labels, size_t n_labels)
{
    struct prepared p;
    int prc = prepare(&p, source, metric, labels, n_labels);
    fsc_series_id id = FSC_SERIES_NONE;
    pthread_mutex_lock(&reg->lock);
    if (source >= reg->nsources)
        goto out;
    struct source *src = &reg->sources[source];
    if (prc != 0) {
        src->rejected++;
        goto out;
    }
    id = series_find(reg, source, &p);
    if (id != FSC_SERIES_NONE)
        goto out;
    if ((src->limit != 0 && src->series >= src->limit) ||
        atomic_load_explicit(&reg->count, memory_order_relaxed) >= reg->max_total) {
        src->dropped++;
        goto out;
    }
    id = series_create(reg, source, &p);
    if (id == FSC_SERIES_NONE)
        src->alloc_failed++;
    else
        src->series++;
out:
    pthread_mutex_unlock(&reg->lock);
    return id;
}

fsc_series_id fsc_registry_lookup(struct fsc_registry *reg, uint16_t source, const char *metric,
                                  const struct fsc_label *labels, size_t n_labels)
{
    struct prepared p;
    if (prepare(&p, source, metric, labels, n_labels) != 0)
        return FSC_SERIES_NONE;
    pthread_mutex_lock(&reg->lock);
    fsc_series_id id = source < reg->nsources ? series_find(reg, source, &p) : FSC_SERIES_NONE;
    pthread_mutex_unlock(&reg->lock);
    return id;
}

uint32_t fsc_registry_count(const struct fsc_registry *reg)
{
    /* The cast drops const only to satisfy atomic_load's prototype. */
    return atomic_load_explicit((_Atomic uint32_t *)&reg->count, memory_order_acquire);
}

/* Published entry of id, or NULL. The acquire load orders every read below. */
static const struct series_entry *published(const struct fsc_registry *reg, fsc_series_id id)
{
    if (id >= fsc_registry_count(reg))
        return NULL;
    return entry_at(reg, id);
}

const char *fsc_registry_metric(const struct fsc_registry *reg, fsc_series_id id)
{
    const struct series_entry *e = published(reg, id);
    return e ? str_at(reg, e->metric) : NULL;
}

size_t fsc_registry_labels(const struct fsc_registry *reg, fsc_series_id id, struct fsc_label *out,
                           size_t max)
{
    const struct series_entry *e = published(reg, id);
    if (e == NULL)
        return 0;
    const struct ls_rec *ls = arena_at(reg, e->labels);
    for (size_t i = 0; i < ls->n && i < max; i++) {
        out[i].name = str_at(reg, ls->refs[2 * i]);
        out[i].value = str_at(reg, ls->refs[2 * i + 1]);
    }
    return ls->n;
}

uint16_t fsc_registry_source_of(const struct fsc_registry *reg, fsc_series_id id)
{
    const struct series_entry *e = published(reg, id);
    return e ? e->source : UINT16_MAX;
}

int fsc_registry_source_stats(struct fsc_registry *reg, uint16_t source,
                              struct fsc_registry_source_stats *out)
{
    int rc = -ENOENT;
    pthread_mutex_lock(&reg->lock);
    if (source < reg->nsources) {
        const struct source *src = &reg->sources[source];
        out->name = src->name;
        out->series = src->series;
        out->limit = src->limit;
        out->dropped = src->dropped;
        out->rejected = src->rejected;
        out->alloc_failed = src->alloc_failed;
        rc = 0;
    }
    pthread_mutex_unlock(&reg->lock);
    return rc;
}

uint16_t fsc_registry_source_count(struct fsc_registry *reg)
{
    pthread_mutex_lock(&reg->lock);
    uint16_t n = (uint16_t)reg->nsources;
    pthread_mutex_unlock(&reg->lock);
    return n;
}

size_t fsc_registry_memory_bytes(const struct fsc_registry *reg)
{
    return atomic_load_explicit((_Atomic size_t *)&reg->mem, memory_order_relaxed);
}
