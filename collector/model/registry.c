/* Series registry: the public API of registry.h (sources, interning with
 * limits and validation, lookup, lock-free readers, stats). See registry.h
 * for the contract. The storage (arena, series chunks, hash indexes) and its
 * lock-free reader contract live in registry_store.h/.c; this file owns the
 * lock, the sources and their counters, and turns the caller's input into a
 * validated, sorted, hashed key before taking the lock. */
#include "model/registry.h"

#include "base/hash.h"
#include "base/utf8.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry_store.h"

_Static_assert(FSC_REGSTORE_MAX_LABELS >= FSC_REGISTRY_MAX_LABELS,
               "a store key holds every label a series may have");

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
    uint32_t max_total;
    struct fsc_regstore store; /* written under lock; read per its contract */
    struct source *sources;
    uint32_t nsources, sources_cap;
};

/* ---- hashing (base/hash.h) ---- */

static uint32_t hash_bytes(const char *s, size_t len)
{
    return fsc_hash_fold32(fsc_hash_bytes(s, len, 0));
}

static uint32_t hash_pair(uint32_t seed, uint32_t a, uint32_t b)
{
    uint64_t h = fsc_hash_mix64(((uint64_t)a << 32 | b) ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull) ^
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

/* Validates, sorts by name, drops empty values and hashes. Returns 0 or
 * -EINVAL. Pure: touches no registry state. */
static int prepare(struct fsc_regstore_key *p, uint16_t source, const char *metric,
                   const struct fsc_label *labels, size_t n_labels)
{
    if (metric == NULL || !metric_name_valid(metric, &p->metric_len))
        return -EINVAL;
    if (n_labels > FSC_REGISTRY_MAX_LABELS || (n_labels > 0 && labels == NULL))
        return -EINVAL;
    p->metric = metric;
    for (size_t i = 0; i < n_labels; i++) {
        struct fsc_regstore_label *l = &p->l[i];
        if (labels[i].name == NULL || labels[i].value == NULL)
            return -EINVAL;
        if (!label_name_valid(labels[i].name, &l->name_len))
            return -EINVAL;
        size_t vlen = strnlen(labels[i].value, FSC_REGISTRY_VALUE_MAX + 1);
        if (vlen > FSC_REGISTRY_VALUE_MAX || !fsc_utf8_valid(labels[i].value, vlen))
            return -EINVAL;
        l->name = labels[i].name;
        l->value = labels[i].value;
        l->value_len = (uint32_t)vlen;
    }
    /* Insertion sort: at most 16 labels, usually 2-5, often already sorted. */
    for (size_t i = 1; i < n_labels; i++) {
        struct fsc_regstore_label tmp = p->l[i];
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
    reg->max_total = max_series_total;
    /* fsc_regstore_init() leaves a zeroed store on failure, which
     * fsc_registry_destroy() frees as a no-op. */
    if (fsc_regstore_init(&reg->store, max_series_total) != 0)
        goto fail;
    fsc_regstore_mem_add(&reg->store, sizeof(*reg));
    return reg;
fail:
    fsc_registry_destroy(reg);
    return NULL;
}

void fsc_registry_destroy(struct fsc_registry *reg)
{
    if (reg == NULL)
        return;
    fsc_regstore_fini(&reg->store);
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
        fsc_regstore_mem_add(&reg->store, (cap - reg->sources_cap) * sizeof(*grown));
        reg->sources = grown;
        reg->sources_cap = cap;
    }
    /* The name lives in the arena so that the pointer handed out by
     * fsc_registry_source_stats() stays valid until destroy. */
    uint32_t ref;
    char *copy = fsc_regstore_alloc(&reg->store, len + 1, &ref);
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
    struct fsc_regstore_key key;
    int prc = prepare(&key, source, metric, labels, n_labels);
    fsc_series_id id = FSC_SERIES_NONE;
    pthread_mutex_lock(&reg->lock);
    if (source >= reg->nsources)
        goto out;
    struct source *src = &reg->sources[source];
    if (prc != 0) {
        src->rejected++;
        goto out;
    }
    id = fsc_regstore_series_find(&reg->store, source, &key);
    if (id != FSC_SERIES_NONE)
        goto out;
    if ((src->limit != 0 && src->series >= src->limit) ||
        atomic_load_explicit(&reg->store.count, memory_order_relaxed) >= reg->max_total) {
        src->dropped++;
        goto out;
    }
    id = fsc_regstore_series_add(&reg->store, source, &key);
    if (id == FSC_SERIES_NONE)
        src->alloc_failed++;
    else
        src->series++;
out:
    pthread_mutex_unlock(&reg->lock);
    return id;
}

void fsc_registry_note_dropped(struct fsc_registry *reg, uint16_t source, uint64_t n)
{
    pthread_mutex_lock(&reg->lock);
    if (source < reg->nsources)
        reg->sources[source].dropped += n;
    pthread_mutex_unlock(&reg->lock);
}

fsc_series_id fsc_registry_lookup(struct fsc_registry *reg, uint16_t source, const char *metric,
                                  const struct fsc_label *labels, size_t n_labels)
{
    struct fsc_regstore_key key;
    if (prepare(&key, source, metric, labels, n_labels) != 0)
        return FSC_SERIES_NONE;
    pthread_mutex_lock(&reg->lock);
    fsc_series_id id = source < reg->nsources ? fsc_regstore_series_find(&reg->store, source, &key)
                                              : FSC_SERIES_NONE;
    pthread_mutex_unlock(&reg->lock);
    return id;
}

uint32_t fsc_registry_count(const struct fsc_registry *reg)
{
    return fsc_regstore_count(&reg->store);
}

/* Published entry of id, or NULL. The acquire load orders every read below. */
static const struct fsc_regstore_entry *published(const struct fsc_registry *reg, fsc_series_id id)
{
    if (id >= fsc_regstore_count(&reg->store))
        return NULL;
    return fsc_regstore_entry_at(&reg->store, id);
}

const char *fsc_registry_metric(const struct fsc_registry *reg, fsc_series_id id)
{
    const struct fsc_regstore_entry *e = published(reg, id);
    return e ? fsc_regstore_str_at(&reg->store, e->metric) : NULL;
}

size_t fsc_registry_labels(const struct fsc_registry *reg, fsc_series_id id, struct fsc_label *out,
                           size_t max)
{
    const struct fsc_regstore_entry *e = published(reg, id);
    if (e == NULL)
        return 0;
    const struct fsc_regstore_ls *ls = fsc_regstore_at(&reg->store, e->labels);
    for (size_t i = 0; i < ls->n && i < max; i++) {
        out[i].name = fsc_regstore_str_at(&reg->store, ls->refs[2 * i]);
        out[i].value = fsc_regstore_str_at(&reg->store, ls->refs[2 * i + 1]);
    }
    return ls->n;
}

uint16_t fsc_registry_source_of(const struct fsc_registry *reg, fsc_series_id id)
{
    const struct fsc_regstore_entry *e = published(reg, id);
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
    return fsc_regstore_mem(&reg->store);
}
