/* The OTLP series cache and its slow path: building a series' labels,
 * interning it and creating its state the first time a point names it
 * (otlp_series.h says why the cache and the state are two levels). */
#include "sources/otlp/map/otlp_series.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/name_hash.h"
#include "base/utf8.h"
#include "engine/link_speed.h"
#include "engine/topo_groups.h"
#include "engine/topo_peers.h"
#include "model/topo_labels.h"

#define SLOTS_MIN      256u
#define STATES_MIN     64u
#define REFS_MIN       1024u
#define ENTRIES_FACTOR 2u /* cache keys per series allowed (aliases are rare) */
#define REFS_FACTOR    4u /* histogram references per series allowed */
#define KEY_BYTES_PER  1024u
#define EXPORTED       "exported_" /* Prometheus' prefix for a clashing label */

static void *counted_calloc(struct otlp_series *s, size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p) {
        s->allocs++;
        s->memory += n * size;
    }
    return p;
}

int otlp_series_init(struct otlp_series *s, const struct fsc_source_env *env,
                     const struct fsc_profile *profile, int64_t interval_ns, uint32_t max_series)
{
    s->env = *env;
    s->profile = profile;
    s->interval_ns = interval_ns;
    s->max_series = max_series;
    uint64_t entries = (uint64_t)max_series * ENTRIES_FACTOR;
    s->max_entries = entries > UINT32_MAX / 4 ? UINT32_MAX / 4 : (uint32_t)entries;
    uint64_t refs = (uint64_t)max_series * REFS_FACTOR + 2 * (FSC_OTLP_BUCKETS_MAX + 2);
    s->max_refs = refs > UINT32_MAX / 4 ? UINT32_MAX / 4 : (uint32_t)refs;
    s->max_key_bytes = (size_t)max_series * KEY_BYTES_PER;
    if (s->max_key_bytes < 4 * (size_t)OTLP_KEY_BLOCK)
        s->max_key_bytes = 4 * (size_t)OTLP_KEY_BLOCK;
    s->slots = calloc(SLOTS_MIN, sizeof(*s->slots));
    s->idmap = calloc(2 * STATES_MIN, sizeof(*s->idmap));
    s->st = calloc(STATES_MIN, sizeof(*s->st));
    if (!s->slots || !s->idmap || !s->st)
        return -ENOMEM;
    s->mask = SLOTS_MIN - 1;
    s->idmask = 2 * STATES_MIN - 1;
    s->cap_st = STATES_MIN;
    s->memory = SLOTS_MIN * sizeof(*s->slots) + 2 * STATES_MIN * sizeof(*s->idmap) +
                STATES_MIN * sizeof(*s->st);
    return 0;
}

void otlp_series_fini(struct otlp_series *s)
{
    struct otlp_key_block *b = s->blocks;
    while (b) {
        struct otlp_key_block *next = b->next;
        free(b);
        b = next;
    }
    free(s->slots);
    free(s->refs);
    free(s->st);
    free(s->idmap);
}

/* ---- series id -> state --------------------------------------------------- */

static uint32_t idmap_find(const struct otlp_series *s, fsc_series_id id)
{
    for (uint32_t i = (uint32_t)fsc_hash_mix64(id) & s->idmask, step = 0; step <= s->idmask;
         i = (i + 1) & s->idmask, step++) {
        uint32_t v = s->idmap[i];
        if (v == 0)
            return UINT32_MAX;
        if (s->st[v - 1].id == id)
            return v - 1;
    }
    return UINT32_MAX;
}

static void idmap_put(uint32_t *map, uint32_t mask, fsc_series_id id, uint32_t idx)
{
    uint32_t i = (uint32_t)fsc_hash_mix64(id) & mask;
    while (map[i])
        i = (i + 1) & mask;
    map[i] = idx + 1;
}

/* Makes room for `more` new states. Returns 0 or -ENOMEM (nothing changed). */
static int states_reserve(struct otlp_series *s, uint32_t more)
{
    uint32_t need = s->n_st + more;
    if (need > s->cap_st) {
        uint32_t cap = s->cap_st;
        while (cap < need)
            cap *= 2;
        struct otlp_state *ns = realloc(s->st, (size_t)cap * sizeof(*ns));
        if (!ns)
            return -ENOMEM;
        s->memory += (size_t)(cap - s->cap_st) * sizeof(*ns);
        s->st = ns;
        s->cap_st = cap;
        s->allocs++;
    }
    if ((uint64_t)need * 2 > (uint64_t)s->idmask + 1) {
        uint32_t slots = s->idmask + 1;
        while ((uint64_t)need * 2 > slots)
            slots *= 2;
        uint32_t *nm = counted_calloc(s, slots, sizeof(*nm));
        if (!nm)
            return -ENOMEM;
        for (uint32_t i = 0; i < s->n_st; i++)
            idmap_put(nm, slots - 1, s->st[i].id, i);
        s->memory -= (size_t)(s->idmask + 1) * sizeof(*nm);
        free(s->idmap);
        s->idmap = nm;
        s->idmask = slots - 1;
    }
    return 0;
}

/* Adds a state; room was reserved. */
static uint32_t state_add(struct otlp_series *s, fsc_series_id id, uint8_t kind)
{
    uint32_t idx = s->n_st++;
    s->st[idx] = (struct otlp_state){.id = id, .kind = kind};
    idmap_put(s->idmap, s->idmask, id, idx);
    return idx;
}

/* ---- cache ------------------------------------------------------------------ */

static void slot_put(struct otlp_slot *slots, uint32_t mask, const struct otlp_slot *e)
{
    uint32_t i = (uint32_t)e->hash & mask;
    while (slots[i].key)
        i = (i + 1) & mask;
    slots[i] = *e;
}

/* Makes room for one entry of n key bytes and n_ser series. Returns 0,
 * -ENOSPC (a bound) or -ENOMEM. */
static int cache_reserve(struct otlp_series *s, uint32_t n, uint32_t n_ser)
{
    if (s->count >= s->max_entries || n > OTLP_KEY_BLOCK ||
        (n_ser > 1 && s->n_refs + n_ser > s->max_refs))
        return -ENOSPC;
    if ((s->count + 1) * 2 > s->mask + 1) {
        uint32_t nslots = (s->mask + 1) * 2;
        struct otlp_slot *ns = counted_calloc(s, nslots, sizeof(*ns));
        if (!ns)
            return -ENOMEM;
        for (uint32_t i = 0; i <= s->mask; i++)
            if (s->slots[i].key)
                slot_put(ns, nslots - 1, &s->slots[i]);
        s->memory -= (size_t)(s->mask + 1) * sizeof(*ns);
        free(s->slots);
        s->slots = ns;
        s->mask = nslots - 1;
    }
    if (!s->blocks || OTLP_KEY_BLOCK - s->blocks->used < n) {
        if (s->key_bytes + OTLP_KEY_BLOCK > s->max_key_bytes)
            return -ENOSPC;
        struct otlp_key_block *b = malloc(sizeof(*b));
        if (!b)
            return -ENOMEM;
        b->next = s->blocks;
        b->used = 0;
        s->blocks = b;
        s->key_bytes += OTLP_KEY_BLOCK;
        s->memory += sizeof(*b);
        s->allocs++;
    }
    if (n_ser > 1 && s->n_refs + n_ser > s->cap_refs) {
        uint32_t cap = s->cap_refs ? s->cap_refs : REFS_MIN;
        while (cap < s->n_refs + n_ser)
            cap *= 2;
        uint32_t *nr = realloc(s->refs, (size_t)cap * sizeof(*nr));
        if (!nr)
            return -ENOMEM;
        s->memory += (size_t)(cap - s->cap_refs) * sizeof(*nr);
        s->refs = nr;
        s->cap_refs = cap;
        s->allocs++;
    }
    return 0;
}

/* Adds (key, h) -> idx[0..n_ser); room was reserved. Returns the stored
 * index list. */
static const uint32_t *cache_add(struct otlp_series *s, const uint8_t *key, uint32_t n, uint64_t h,
                                 const uint32_t *idx, uint32_t n_ser)
{
    struct otlp_key_block *b = s->blocks;
    uint8_t *k = b->data + b->used;
    memcpy(k, key, n);
    b->used += n;
    struct otlp_slot e = {.hash = h, .key = k, .n = n, .n_ser = n_ser};
    if (n_ser == 1) {
        e.ref = idx[0];
    } else {
        e.ref = s->n_refs;
        memcpy(&s->refs[s->n_refs], idx, n_ser * sizeof(*idx));
        s->n_refs += n_ser;
    }
    slot_put(s->slots, s->mask, &e);
    s->count++;
    uint32_t dummy;
    return otlp_cache_find(s, key, n, h, &dummy);
}

/* ---- plan ----------------------------------------------------------------------- */

int otlp_series_plan(const struct otlp_series *s, const char *metric, uint8_t type, bool monotonic,
                     struct otlp_plan *plan)
{
    int rc = fsc_profile_map(s->profile, metric, &plan->m);
    if (rc != 0)
        return rc;
    plan->native = metric;
    if (type == FSC_OTLP_GAUGE)
        plan->kind = plan->m.entry && plan->m.entry->kind == FSC_KIND_COUNTER ? FSC_KIND_COUNTER
                                                                              : FSC_KIND_GAUGE;
    else if (type == FSC_OTLP_SUM)
        plan->kind = monotonic ? FSC_KIND_COUNTER : FSC_KIND_GAUGE;
    else
        plan->kind = FSC_KIND_COUNTER;
    return 0;
}

/* ---- labels ------------------------------------------------------------------- */

_Static_assert(FSC_OTLP_LABEL_NAME_MAX == FSC_LABEL_NAME_BOUND + 1,
               "an OTLP label name is at most the hashed form's 63 bytes");

/* Appends c to a sanitized name of *n bytes (out holds the first 63). */
static void name_put(char *out, size_t *n, char c)
{
    if (*n == 1 && out[0] == '_' && c == '_')
        return; /* a run of leading '_' becomes one */
    if (*n < FSC_LABEL_NAME_BOUND)
        out[*n] = c;
    (*n)++;
}

/* The sanitized label name of an attribute key (otlp_series.h). */
size_t otlp_label_name(const char *k, size_t klen, char out[FSC_OTLP_LABEL_NAME_MAX], bool *hashed)
{
    size_t n = 0; /* bytes of the whole sanitized name */
    for (size_t i = 0; i < klen; i++) {
        unsigned char c = (unsigned char)k[i];
        bool digit = c >= '0' && c <= '9';
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || digit;
        if (n == 0 && digit)
            name_put(out, &n, '_'); /* a leading digit gets a '_' in front */
        name_put(out, &n, ok ? (char)c : '_');
    }
    *hashed = n > FSC_LABEL_NAME_BOUND;
    if (*hashed)
        return fsc_label_name_hash(out, k, klen);
    out[n] = '\0';
    return n;
}

size_t otlp_utf8_cut(const char *s, size_t n)
{
    if (n <= FSC_OTLP_LABEL_VALUE_MAX)
        return n;
    size_t cut = FSC_OTLP_LABEL_VALUE_MAX;
    /* back off continuation bytes so a character is not split */
    while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
        cut--;
    return cut;
}

const char *otlp_value_fit(const char *s, size_t n, char out[FSC_OTLP_LABEL_VALUE_MAX + 1],
                           size_t *len)
{
    if (n <= FSC_OTLP_LABEL_VALUE_MAX) {
        *len = n;
        return s;
    }
    size_t keep = FSC_OTLP_LABEL_VALUE_MAX - OTLP_HASH_SUFFIX_LEN;
    while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
        keep--; /* not inside a character */
    memcpy(out, s, keep);
    out[keep] = '~';
    out[keep + 1] = 'h';
    fsc_hex16(fsc_fnv1a64(s, n), out + keep + 2);
    *len = keep + OTLP_HASH_SUFFIX_LEN;
    out[*len] = '\0';
    return out;
}

const char *otlp_label_value(const char *v, size_t n, char out[FSC_OTLP_LABEL_VALUE_MAX + 1])
{
    const unsigned char *s = (const unsigned char *)v;
    size_t o = 0;
    for (size_t i = 0; i < n && o < FSC_OTLP_LABEL_VALUE_MAX;) {
        size_t k = s[i] ? fsc_utf8_seq(s + i, n - i) : 0; /* NUL too: the registry's rules */
        if (k == 0) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, s + i, k);
        o += k;
        i += k;
    }
    out[o] = '\0';
    return out;
}

static bool has_label(const struct fsc_label *lb, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(lb[i].name, name) == 0)
            return true;
    return false;
}

/* Labels the collector itself gives meaning to (docs/DESIGN.md, "One data model"): an attribute
 * never takes them over, even when the collector has no value for them. */
static bool reserved(const char *name)
{
    static const char *const names[] = {"device", "port", "role", "rail", "peer"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static bool kv_is(const struct otlp_kv *kv, const char *name)
{
    size_t n = strlen(name);
    return kv->klen == n && memcmp(kv->key, name, n) == 0;
}

/* The labels of a point's series (without `le`). */
struct label_set {
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    size_t n;
    const char *port;
    char names[FSC_REGISTRY_MAX_LABELS][FSC_OTLP_LABEL_NAME_MAX + sizeof(EXPORTED)];
    char vals[FSC_REGISTRY_MAX_LABELS][FSC_OTLP_LABEL_VALUE_MAX + 1];
    char rail[FSC_TOPO_RAIL_BUF];
};

/* Device, port (`interface`), the profile's label (`tc` -> queue), the
 * topology's labels, then every other attribute under its sanitized name
 * (`exported_<name>`, as Prometheus renames target labels, when it clashes
 * with one of those, with a reserved name, or with `le` in a histogram).
 * Returns 0, or -1 when the attributes need more labels than fit. */
static int labels_build(const struct otlp_series *s, const struct otlp_ident *id,
                        const struct otlp_plan *plan, struct label_set *ls)
{
    const struct fsc_profile_match *m = &plan->m;
    size_t max = FSC_REGISTRY_MAX_LABELS - (id->histogram ? 1 : 0); /* room for le */
    const struct otlp_kv *port = NULL, *extra = NULL;
    ls->n = 0;
    ls->port = NULL;
    ls->lb[ls->n++] = (struct fsc_label){"device", id->device};
    for (size_t i = 0; i < id->n_kv; i++) {
        if (!port && kv_is(&id->kv[i], "interface"))
            port = &id->kv[i];
        else if (!extra && m->label_attr && kv_is(&id->kv[i], m->label_attr))
            extra = &id->kv[i];
    }
    if (port && port->vlen) {
        ls->port = otlp_label_value(port->val, port->vlen, ls->vals[ls->n]);
        ls->lb[ls->n++] = (struct fsc_label){"port", ls->port};
    }
    if (m->label_name[0]) {
        const char *v = m->label_value[0] ? m->label_value : NULL;
        if (!v && extra && extra->vlen)
            v = otlp_label_value(extra->val, extra->vlen, ls->vals[ls->n]);
        if (v)
            ls->lb[ls->n++] = (struct fsc_label){m->label_name, v};
    }
    fsc_topo_labels_add(s->env.topo, id->device, ls->port, ls->lb, &ls->n, max, ls->rail);
    for (size_t i = 0; i < id->n_kv; i++) {
        const struct otlp_kv *kv = &id->kv[i];
        if (kv == port || kv == extra || kv->vlen == 0) /* empty value = no label */
            continue;
        char *name = ls->names[ls->n];
        memcpy(name, EXPORTED, sizeof(EXPORTED) - 1);
        char *bare = name + sizeof(EXPORTED) - 1;
        bool hashed;
        if (otlp_label_name(kv->key, kv->klen, bare, &hashed) == 0)
            continue;
        const char *canon = fsc_profile_key_label(s->profile, NULL, bare); /* tc -> queue */
        if (canon)
            snprintf(bare, FSC_OTLP_LABEL_NAME_MAX, "%s", canon);
        bool clash = reserved(bare) || has_label(ls->lb, ls->n, bare) ||
                     (id->histogram && strcmp(bare, "le") == 0);
        const char *use = clash ? name : bare;
        if (has_label(ls->lb, ls->n, use))
            continue; /* two keys that sanitize alike: the first wins */
        if (ls->n >= max)
            return -1;
        const char *v = otlp_label_value(kv->val, kv->vlen, ls->vals[ls->n]);
        ls->lb[ls->n++] = (struct fsc_label){use, v};
    }
    return 0;
}

/* ---- create ------------------------------------------------------------------- */

size_t otlp_le_format(double v, char *out, size_t cap)
{
    int n;
    if (isinf(v)) {
        n = snprintf(out, cap, "%s", v > 0 ? "+Inf" : "-Inf");
    } else if (isnan(v)) {
        n = snprintf(out, cap, "NaN");
    } else if (v == 0) {
        n = snprintf(out, cap, "%s", signbit(v) ? "-0" : "0");
    } else {
        /* The fewest significant digits that read back equal, then the
         * rule of Go's strconv.FormatFloat(v, 'g', -1, 64), which the
         * Prometheus clients use: exponent notation when the decimal
         * exponent is < -4 or >= 6 (1e+06, 1e-05), else plain digits. */
        char e[40];
        int p = 1;
        for (; p < 17; p++) {
            snprintf(e, sizeof(e), "%.*e", p - 1, v);
            if (strtod(e, NULL) == v)
                break;
        }
        snprintf(e, sizeof(e), "%.*e", p - 1, v);
        const char *x = strchr(e, 'e');
        int exp10 = x ? atoi(x + 1) : 0;
        if (exp10 < -4 || exp10 >= 6)
            n = snprintf(out, cap, "%s", e);
        else
            n = snprintf(out, cap, "%.*f", p - 1 - exp10 > 0 ? p - 1 - exp10 : 0, v);
    }
    if (n < 0) {
        if (cap)
            out[0] = '\0';
        return 0;
    }
    return (size_t)n < cap ? (size_t)n : (cap ? cap - 1 : 0);
}

/* Series k of a point: its name, its `le` (buckets) and its traits. The
 * parts of a histogram are counters marked with the part they are (expo),
 * so the exporter can show them as one histogram family. */
static const char *series_k(const struct otlp_series *s, const struct otlp_ident *id,
                            const struct otlp_plan *plan, uint32_t k, uint32_t nb, const char *port,
                            char name[FSC_PROFILE_NAME_MAX + 8], char le[40], struct fsc_traits *tr)
{
    const char *base = plan->m.canonical;
    memset(tr, 0, sizeof(*tr));
    tr->kind = FSC_KIND_COUNTER;
    tr->scale = 1;
    tr->refresh_ns = s->profile->refresh_ns;
    tr->nominal_interval_ns = s->interval_ns;
    le[0] = '\0';
    if (!id->histogram) {
        *tr = plan->m.traits;
        tr->kind = plan->kind;
        tr->nominal_interval_ns = s->interval_ns;
        if (port && s->env.topo &&
            (tr->signal == FSC_SIG_PORT_BYTES || tr->signal == FSC_SIG_QUEUE_PEAK ||
             tr->unit == FSC_UNIT_BYTES)) {
            const struct fsc_topo_device *td = NULL;
            const struct fsc_topo_port *tp = fsc_topology_port(s->env.topo, id->device, port, &td);
            if (tp)
                tr->link_speed_bps = tp->speed_bps;
            else /* the device's buffer holds for ports it does not list */
                td = fsc_topology_device(s->env.topo, id->device);
            if (td && tr->signal == FSC_SIG_QUEUE_PEAK)
                tr->buffer_bytes = td->buffer_bytes;
        }
        return base;
    }
    if (k < nb) {
        if (k + 1 == nb)
            snprintf(le, 40, "+Inf");
        else
            otlp_le_format(id->bounds[k], le, 40);
        tr->width = 64;
        tr->expo = FSC_EXPO_HIST_BUCKET;
        snprintf(name, FSC_PROFILE_NAME_MAX + 8, "%s_bucket", base);
    } else if (k == nb) {
        tr->width = 64;
        tr->expo = FSC_EXPO_HIST_COUNT;
        snprintf(name, FSC_PROFILE_NAME_MAX + 8, "%s_count", base);
    } else {
        tr->width = 53; /* a double counter */
        tr->expo = FSC_EXPO_HIST_SUM;
        snprintf(name, FSC_PROFILE_NAME_MAX + 8, "%s_sum", base);
    }
    return name;
}

/* Sets a new series' traits: through the source's link-speed table when it
 * takes its port's speed (engine/link_speed.h: the topology's, else the
 * device's oper_aggregate_speed, otlp_speed.c; re-traited when that
 * changes), else as series_k() made them. */
static int traits_set(const struct otlp_series *s, const char *device, const char *port,
                      fsc_series_id sid, struct fsc_traits *tr)
{
    uint32_t sp =
        port && fsc_link_speed_wanted(tr) ? fsc_link_speeds_port(s->env.speeds, device, port) : 0;
    if (sp)
        return fsc_link_speeds_attach(s->env.speeds, sp, sid, tr);
    return fsc_engine_set_traits(s->env.eng, sid, tr);
}

const uint32_t *otlp_series_create(struct otlp_series *s, const struct otlp_ident *id,
                                   const struct otlp_plan *plan, const uint8_t *key, uint32_t n,
                                   uint64_t h, uint32_t *n_ser, const char **why, bool *rej_labels)
{
    static _Thread_local struct label_set ls; /* ~4 KiB: off small stacks */
    const struct fsc_source_env *env = &s->env;
    char name[FSC_PROFILE_NAME_MAX + 8], le[40];
    struct fsc_traits tr;

    *rej_labels = false;
    if (labels_build(s, id, plan, &ls) != 0) {
        *rej_labels = true;
        *why = "more attributes than labels fit";
        return NULL;
    }
    /* Buckets: one per bucket count, or the +Inf bucket alone (= count) for
     * a histogram sent without buckets. */
    uint32_t nb = id->histogram ? id->n_bounds + 1 : 0;
    uint32_t total = id->histogram ? nb + 2 : 1;
    size_t nl = ls.n;

    /* Which series exist already (another key of the same series, or this
     * source's series from an earlier life of the cache), which are new. */
    uint32_t fresh = 0;
    for (uint32_t k = 0; k < total; k++) {
        const char *metric = series_k(s, id, plan, k, nb, ls.port, name, le, &tr);
        if (le[0])
            ls.lb[nl] = (struct fsc_label){"le", le}; /* nl < max: room was left */
        s->tmp_id[k] = fsc_registry_lookup(env->reg, env->source_id, metric, ls.lb, nl + !!le[0]);
        s->tmp[k] = s->tmp_id[k] == FSC_SERIES_NONE ? UINT32_MAX : idmap_find(s, s->tmp_id[k]);
        fresh += s->tmp[k] == UINT32_MAX;
    }
    if (s->n_st + fresh > s->max_series) {
        /* max_series refused them: fabricscope_series_dropped_total says so,
         * as it does when the registry's own limits refuse. */
        fsc_registry_note_dropped(env->reg, env->source_id, fresh);
        *why = "series limit reached";
        return NULL;
    }
    int rc = cache_reserve(s, n, total);
    if (rc == -ENOSPC) {
        *why = "series cache limit reached";
        return NULL;
    }
    if (rc != 0 || states_reserve(s, fresh) != 0) {
        *why = "out of memory for a new series";
        return NULL;
    }
    for (uint32_t k = 0; k < total; k++) {
        if (s->tmp[k] != UINT32_MAX)
            continue;
        const char *metric = series_k(s, id, plan, k, nb, ls.port, name, le, &tr);
        fsc_series_id sid = s->tmp_id[k];
        if (sid == FSC_SERIES_NONE) {
            if (le[0])
                ls.lb[nl] = (struct fsc_label){"le", le};
            sid = fsc_registry_intern(env->reg, env->source_id, metric, ls.lb, nl + !!le[0]);
        }
        if (sid == FSC_SERIES_NONE) {
            *why = "series refused by the registry (limit)";
            return NULL;
        }
        fsc_source_tap_series(env, sid, plan->native, plan->m.entry != NULL);
        if (env->eng &&
            (traits_set(s, id->device, ls.port, sid, &tr) != 0 ||
             fsc_topo_groups_join(env->topo, env->eng, id->device, ls.port, &tr, sid) < 0 ||
             fsc_topo_peer_join(env->topo, env->eng, id->device, ls.port, NULL, &tr, sid) < 0)) {
            *why = "series refused by the engine (limit)";
            return NULL;
        }
        s->tmp[k] = state_add(s, sid, (uint8_t)tr.kind);
    }
    *n_ser = total;
    return cache_add(s, key, n, h, s->tmp, total);
}
