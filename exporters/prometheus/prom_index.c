/* The renderer's family and label index (see prom_index.h). */
#include "prometheus/prom_index.h"

#include "base/hash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_text.h"

#define FAM_SLOTS_MIN   64u
#define BLOCK_SLOTS_MIN 1024u

/* Grows *p (an array of elem-sized items with *cap slots) to hold at least
 * need items, by half each time: the arrays live as long as the series, so
 * their slack (up to half of a doubled array) is memory per series. Returns
 * 0 or -ENOMEM (*p untouched). */
static int grow(void **p, size_t *cap, size_t need, size_t elem, size_t min)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : min;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            return -ENOMEM;
        c += c / 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* grow() for uint32_t capacities. */
static int grow32(void **p, uint32_t *cap, size_t need, size_t elem, size_t min)
{
    if (need > UINT32_MAX)
        return -ENOMEM;
    size_t c = *cap;
    int rc = grow(p, &c, need, elem, min);
    if (rc == 0)
        *cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    return rc;
}

/* Hash of a label set by its interned pointers; hash_keys() computes the
 * same over a block's stored key (name, value, name, value, ...). */
static uint64_t hash_ptrs(const struct fsc_label *lab, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i++) {
        h = fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)lab[i].name);
        h = fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)lab[i].value);
    }
    return h;
}

static uint64_t hash_keys(const char *const *k, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < 2 * n; i++)
        h = fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)k[i]);
    return h;
}

static void family_free(struct fsc_prom_family *f)
{
    if (!f)
        return;
    free(f->om_name);
    free(f->sample_name);
    free(f->ids);
    free(f->hist);
    free(f);
}

void fsc_prom_index_free(struct fsc_prom_index *ix)
{
    for (uint32_t i = 0; i < ix->n_fams; i++)
        family_free(ix->fams[i]);
    free(ix->fams);
    free(ix->fam_slots);
    free(ix->order);
    free(ix->ser);
    free(ix->blocks);
    free(ix->block_slots);
    free(ix->text);
    free(ix->keys);
    fsc_topo_infos_free(&ix->infos);
    memset(ix, 0, sizeof(*ix));
}

/* ---- families --------------------------------------------------------- */

static uint32_t fam_hash(const char *metric)
{
    return (uint32_t)fsc_hash_mix64((uint64_t)(uintptr_t)metric);
}

/* Rebuilds the family table with room for twice the families. */
static int fam_rehash(struct fsc_prom_index *ix)
{
    uint32_t size = ix->fam_mask ? (ix->fam_mask + 1) * 2 : FAM_SLOTS_MIN;
    uint32_t *slots = calloc(size, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < ix->n_fams; i++) {
        uint32_t s = fam_hash(ix->fams[i]->metric) & (size - 1);
        while (slots[s])
            s = (s + 1) & (size - 1);
        slots[s] = i + 1;
    }
    free(ix->fam_slots);
    ix->fam_slots = slots;
    ix->fam_mask = size - 1;
    return 0;
}

static struct fsc_prom_family *fam_find(const struct fsc_prom_index *ix, const char *metric)
{
    if (!ix->fam_slots)
        return NULL;
    for (uint32_t s = fam_hash(metric) & ix->fam_mask;; s = (s + 1) & ix->fam_mask) {
        uint32_t v = ix->fam_slots[s];
        if (v == 0)
            return NULL;
        if (ix->fams[v - 1]->metric == metric)
            return ix->fams[v - 1];
    }
}

static char *dup_n(const char *s, size_t n, const char *suffix)
{
    size_t ls = strlen(suffix);
    char *d = malloc(n + ls + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    memcpy(d + n, suffix, ls + 1);
    return d;
}

static int ends_with_total(const char *s, size_t n)
{
    return n > 6 && memcmp(s + n - 6, "_total", 6) == 0;
}

/* The name suffix of each histogram part (enum fsc_expo). */
static const char *const hist_suffix[] = {
    [FSC_EXPO_HIST_BUCKET] = "_bucket",
    [FSC_EXPO_HIST_COUNT] = "_count",
    [FSC_EXPO_HIST_SUM] = "_sum",
};

/* Resolves f as a histogram part when its metric ends in the part's suffix:
 * the family is named after the base, its samples keep the metric's name.
 * Returns 1 when done, 0 when f is no histogram part, -ENOMEM. */
static int resolve_hist(struct fsc_prom_index *ix, struct fsc_prom_family *f, uint8_t expo)
{
    if (expo < FSC_EXPO_HIST_BUCKET || expo > FSC_EXPO_HIST_SUM)
        return 0;
    size_t sl = strlen(hist_suffix[expo]);
    if (f->metric_len <= sl || memcmp(f->metric + f->metric_len - sl, hist_suffix[expo], sl) != 0)
        return 0;
    char *base = dup_n(f->metric, f->metric_len - sl, "");
    char *name = dup_n(f->metric, f->metric_len, "");
    if (!base || !name) {
        free(base);
        free(name);
        return -ENOMEM;
    }
    free(f->om_name);
    f->om_name = base;
    f->om_len = f->metric_len - sl;
    free(f->sample_name);
    f->sample_name = name;
    f->sample_len = f->metric_len;
    f->type = FSC_PROM_HISTOGRAM;
    f->part = expo;
    ix->order_dirty = 1;
    return 1;
}

int fsc_prom_family_resolve(struct fsc_prom_index *ix, struct fsc_prom_family *f, uint8_t kind,
                            uint8_t expo)
{
    int rc = resolve_hist(ix, f, expo);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    uint8_t type = kind == 1 /* FSC_KIND_GAUGE */ ? FSC_PROM_GAUGE : FSC_PROM_COUNTER;
    char *name = dup_n(f->om_name, f->om_len, type == FSC_PROM_COUNTER ? "_total" : "");
    if (!name)
        return -ENOMEM;
    free(f->sample_name);
    f->sample_name = name;
    f->sample_len = strlen(name);
    f->type = type;
    ix->order_dirty = 1;
    return 0;
}

static struct fsc_prom_family *fam_add(struct fsc_prom_index *ix, const char *metric)
{
    if ((ix->n_fams + 1) * 2 > ix->fam_mask + 1 && fam_rehash(ix) != 0)
        return NULL;
    if (grow32((void **)&ix->fams, &ix->cap_fams, (size_t)ix->n_fams + 1, sizeof(*ix->fams), 16))
        return NULL;
    uint32_t cap_order = ix->cap_fams;
    void *order = realloc(ix->order, (size_t)cap_order * sizeof(*ix->order));
    if (!order)
        return NULL;
    ix->order = order;

    struct fsc_prom_family *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->metric = metric;
    f->metric_len = strlen(metric);
    /* The exposed name: the table's, which for a few families is not the
     * registry's (a base-unit name, no type word). */
    f->mf = fsc_metric_family_of(metric);
    const char *expo = f->mf ? f->mf->name : metric;
    size_t len = strlen(expo);
    /* A name ending in _total is a counter by convention (the profiles
     * enforce it); other names wait for their first series' kind. */
    int total = ends_with_total(expo, len);
    f->om_len = total ? len - 6 : len;
    f->om_name = dup_n(expo, f->om_len, "");
    if (!f->om_name || (total && fsc_prom_family_resolve(ix, f, 0, FSC_EXPO_DEFAULT) != 0)) {
        family_free(f);
        return NULL;
    }
    ix->fams[ix->n_fams] = f;
    ix->order[ix->n_fams] = f;
    ix->n_fams++;
    uint32_t s = fam_hash(metric) & ix->fam_mask;
    while (ix->fam_slots[s])
        s = (s + 1) & ix->fam_mask;
    ix->fam_slots[s] = ix->n_fams;
    ix->order_dirty = 1;
    return f;
}

static int cmp_family(const void *a, const void *b)
{
    const struct fsc_prom_family *fa = *(const struct fsc_prom_family *const *)a;
    const struct fsc_prom_family *fb = *(const struct fsc_prom_family *const *)b;
    int c = strcmp(fa->om_name, fb->om_name);
    if (c != 0)
        return c;
    if (fa->type != fb->type)
        return fa->type < fb->type ? -1 : 1;
    /* Same name and type: two registry names that expose alike (a
     * passthrough "x" counter beside "x_total"). Keep them adjacent, in a
     * stable order, so they share one header. */
    return strcmp(fa->metric, fb->metric);
}

int fsc_prom_index_sort(struct fsc_prom_index *ix)
{
    if (!ix->order_dirty)
        return 0;
    if (ix->n_fams > 1)
        qsort(ix->order, ix->n_fams, sizeof(*ix->order), cmp_family);
    ix->order_dirty = 0;
    return 0;
}

/* ---- label blocks ----------------------------------------------------- */

static int block_rehash(struct fsc_prom_index *ix)
{
    uint32_t size = ix->block_mask ? (ix->block_mask + 1) * 2 : BLOCK_SLOTS_MIN;
    if (size == 0)
        return -ENOMEM;
    uint32_t *slots = calloc(size, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < ix->n_blocks; i++) {
        const struct fsc_prom_block *b = &ix->blocks[i];
        uint64_t h = hash_keys(ix->keys + b->key, b->n);
        uint32_t s = (uint32_t)h & (size - 1);
        while (slots[s])
            s = (s + 1) & (size - 1);
        slots[s] = i + 1;
    }
    free(ix->block_slots);
    ix->block_slots = slots;
    ix->block_mask = size - 1;
    return 0;
}

static int block_equal(const struct fsc_prom_index *ix, const struct fsc_prom_block *b,
                       const struct fsc_label *lab, size_t n)
{
    if (b->n != n)
        return 0;
    const char *const *k = ix->keys + b->key;
    for (size_t i = 0; i < n; i++)
        if (k[2 * i] != lab[i].name || k[2 * i + 1] != lab[i].value)
            return 0;
    return 1;
}

static uint8_t reserved_bit(const char *name)
{
    if (strcmp(name, "direction") == 0)
        return FSC_PROM_RES_DIRECTION;
    if (strcmp(name, "window") == 0)
        return FSC_PROM_RES_WINDOW;
    if (strcmp(name, "signal") == 0)
        return FSC_PROM_RES_SIGNAL;
    if (strcmp(name, "le") == 0)
        return FSC_PROM_RES_LE;
    return 0;
}

/* Finds or creates the block of a label set; *out gets its index. */
static int block_get(struct fsc_prom_index *ix, const struct fsc_label *lab, size_t n,
                     uint32_t *out)
{
    /* The key arena keeps the interned pointers so a block can be compared
     * and rehashed without asking the registry again. */
    uint64_t h = hash_ptrs(lab, n);
    if (ix->block_slots) {
        for (uint32_t s = (uint32_t)h & ix->block_mask;; s = (s + 1) & ix->block_mask) {
            uint32_t v = ix->block_slots[s];
            if (v == 0)
                break;
            if (block_equal(ix, &ix->blocks[v - 1], lab, n)) {
                *out = v - 1;
                return 0;
            }
        }
    }

    /* New label set: format its text once. */
    size_t bound = 0;
    for (size_t i = 0; i < n; i++)
        bound += strlen(lab[i].name) + 2 * strlen(lab[i].value) + 4;
    if (ix->text_len + bound > UINT32_MAX || ix->keys_len + 2 * n > UINT32_MAX ||
        ix->n_blocks == UINT32_MAX - 1)
        return -ENOMEM;
    if ((ix->n_blocks + 1) * 2 > ix->block_mask + 1 && block_rehash(ix) != 0)
        return -ENOMEM;
    if (grow((void **)&ix->text, &ix->text_cap, ix->text_len + bound, 1, 4096) ||
        grow((void **)&ix->keys, &ix->keys_cap, ix->keys_len + 2 * n, sizeof(*ix->keys), 1024) ||
        grow32((void **)&ix->blocks, &ix->cap_blocks, (size_t)ix->n_blocks + 1, sizeof(*ix->blocks),
               256))
        return -ENOMEM;

    struct fsc_prom_block *b = &ix->blocks[ix->n_blocks];
    memset(b, 0, sizeof(*b));
    b->off = (uint32_t)ix->text_len;
    b->key = (uint32_t)ix->keys_len;
    b->n = (uint8_t)n;
    char *p = ix->text + ix->text_len;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(lab[i].name);
        if (i > 0)
            *p++ = ',';
        memcpy(p, lab[i].name, nl);
        p += nl;
        *p++ = '=';
        *p++ = '"';
        p = fsc_prom_escape_label(p, lab[i].value, strlen(lab[i].value));
        *p++ = '"';
        b->reserved |= reserved_bit(lab[i].name);
        ix->keys[ix->keys_len++] = lab[i].name;
        ix->keys[ix->keys_len++] = lab[i].value;
    }
    b->len = (uint32_t)(p - (ix->text + ix->text_len));
    ix->text_len += b->len;

    uint32_t s = (uint32_t)h & ix->block_mask;
    while (ix->block_slots[s])
        s = (s + 1) & ix->block_mask;
    ix->block_slots[s] = ++ix->n_blocks;
    *out = ix->n_blocks - 1;
    return 0;
}

/* ---- update ----------------------------------------------------------- */

/* Series `id` of family f has block b, shared with series of other
 * topology (a re-cabled port): the older series of f with that block are
 * no longer shown, so the family never has one label set twice. Linear in
 * the family, and only for such blocks. */
static void supersede(struct fsc_prom_index *ix, const struct fsc_prom_family *f, uint32_t b,
                      fsc_series_id id)
{
    for (uint32_t i = 0; i < f->n_ids; i++)
        if (f->ids[i] != id && ix->ser[f->ids[i]].block == b)
            ix->ser[f->ids[i]].superseded = 1;
}

int fsc_prom_index_update(struct fsc_prom_index *ix, const struct fsc_registry *reg, uint32_t limit)
{
    uint32_t count = fsc_registry_count(reg);
    if (count > limit)
        count = limit;
    if (count <= ix->indexed)
        return 0;
    if (grow32((void **)&ix->ser, &ix->cap_ser, count, sizeof(*ix->ser), 1024))
        return -ENOMEM;

    struct fsc_prom_family *last = NULL;
    struct fsc_topo_split sp;
    for (fsc_series_id id = ix->indexed; id < count; id++) {
        const char *metric = fsc_registry_metric(reg, id);
        struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
        size_t n = fsc_registry_labels(reg, id, lab, FSC_REGISTRY_MAX_LABELS);
        if (!metric || n > FSC_REGISTRY_MAX_LABELS)
            return -ENOMEM; /* cannot happen below the published count */

        struct fsc_prom_family *f = last && last->metric == metric ? last : fam_find(ix, metric);
        if (!f && !(f = fam_add(ix, metric)))
            return -ENOMEM;
        last = f;
        fsc_topo_split(lab, n, &sp);
        uint32_t block, info;
        if (block_get(ix, sp.id, sp.n_id, &block) != 0 ||
            fsc_topo_info_note(&ix->infos, &sp, &info) != 0)
            return -ENOMEM;
        if (grow32((void **)&f->ids, &f->cap_ids, (size_t)f->n_ids + 1, sizeof(*f->ids), 16))
            return -ENOMEM;
        f->ids[f->n_ids++] = id;
        ix->ser[id] = (struct fsc_prom_series){
            .block = block, .source = fsc_registry_source_of(reg, id), .info = info};
        struct fsc_prom_block *b = &ix->blocks[block];
        if (!b->has_sig) {
            b->has_sig = 1;
            b->sig = sp.sig;
        } else if (b->sig != sp.sig) {
            b->multi = 1;
        }
        if (b->multi)
            supersede(ix, f, block, id);
        ix->indexed = id + 1;
    }
    return 0;
}

/* ---- histogram order ---------------------------------------------------- */

struct hist_key {
    double le; /* numeric bound; 0 for _count / _sum */
    const char *le_s;
    uint32_t base;
    fsc_series_id id;
};

static int cmp_hist_key(const void *a, const void *b)
{
    const struct hist_key *ka = a, *kb = b;
    if (ka->base != kb->base)
        return ka->base < kb->base ? -1 : 1;
    if (ka->le != kb->le)
        return ka->le < kb->le ? -1 : 1;
    return ka->id < kb->id ? -1 : ka->id > kb->id;
}

/* A bound's value for ordering. "+Inf", and text that is not a number
 * (which no source writes), sort last; never NaN, so the order is total. */
static double le_value(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || isnan(v))
        return INFINITY;
    return v;
}

int fsc_prom_family_hist_order(struct fsc_prom_index *ix, struct fsc_prom_family *f)
{
    if (f->n_hist == f->n_ids)
        return 0;
    uint32_t n = f->n_ids;
    struct fsc_prom_hpos *hist = realloc(f->hist, (size_t)n * sizeof(*hist));
    if (!hist)
        return -ENOMEM;
    f->hist = hist; /* still valid for the first n_hist ids if we fail below */
    struct hist_key *key = malloc((size_t)n * sizeof(*key));
    if (!key)
        return -ENOMEM;

    for (uint32_t i = 0; i < n; i++) {
        fsc_series_id id = f->ids[i];
        uint32_t block = ix->ser[id].block;
        key[i] = (struct hist_key){.le = 0, .le_s = NULL, .base = block, .id = id};
        const struct fsc_prom_block *b = &ix->blocks[block];
        if (f->part != FSC_EXPO_HIST_BUCKET || !(b->reserved & FSC_PROM_RES_LE))
            continue;
        /* A bucket's label set without `le` is the block its _count and _sum
         * series have (the registry interns both alike). Copy the labels out
         * first: block_get() may move the blocks and keys. */
        struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
        size_t nl = 0;
        const char *const *k = ix->keys + b->key;
        for (size_t j = 0; j < b->n; j++) {
            if (!key[i].le_s && strcmp(k[2 * j], "le") == 0)
                key[i].le_s = k[2 * j + 1];
            else if (nl < FSC_REGISTRY_MAX_LABELS)
                lab[nl++] = (struct fsc_label){k[2 * j], k[2 * j + 1]};
        }
        if (block_get(ix, lab, nl, &key[i].base) != 0) {
            free(key);
            return -ENOMEM;
        }
        key[i].le = le_value(key[i].le_s);
    }
    qsort(key, n, sizeof(*key), cmp_hist_key);
    for (uint32_t i = 0; i < n; i++) {
        f->ids[i] = key[i].id;
        f->hist[i] = (struct fsc_prom_hpos){.le = key[i].le_s, .base = key[i].base};
    }
    f->n_hist = n;
    free(key);
    return 0;
}
