/* The series cache key of a point and the series it feeds: the key's
 * bytes (class, device, metric name, then the attributes and histogram
 * bounds), the cache lookup, and on a miss the plan and the slow path of
 * otlp_series.c. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "base/name_hash.h"
#include "sources/otlp/map/otlp_ingest_int.h"

static uint8_t *put16(uint8_t *k, uint32_t n)
{
    k[0] = (uint8_t)n;
    k[1] = (uint8_t)(n >> 8);
    return k + 2;
}

static uint32_t i64_text(int64_t v, char out[VTEXT])
{
    char tmp[24];
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint32_t n = 0, o = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[o++] = '-';
    while (n)
        out[o++] = tmp[--n];
    out[o] = '\0';
    return o;
}

static int kv_cmp(const struct otlp_kv *a, const struct otlp_kv *b)
{
    uint32_t n = a->klen < b->klen ? a->klen : b->klen;
    int c = n ? memcmp(a->key, b->key, n) : 0;
    return c ? c : (a->klen > b->klen) - (a->klen < b->klen);
}

/* Writes the current metric's key prefix (otlp_ingest_int.h). */
void otlp_ingest_key_prefix(struct fsc_otlp_ingest *ing, bool hist, size_t name_len)
{
    uint8_t *k = ing->key;
    *k++ = hist ? 'h' : 'n';
    size_t dl = strlen(ing->device);
    k = put16(k, (uint32_t)dl);
    memcpy(k, ing->device, dl);
    k += dl;
    k = put16(k, (uint32_t)name_len);
    memcpy(k, ing->mname, name_len);
    ing->prefix_len = (uint32_t)(k + name_len - ing->key);
}

/* Writes an attribute key into the cache key: u16 length and the bytes,
 * or for a key over ATTR_KEY_MAX bytes (cut there, two keys that differ
 * after byte 255 would share one cache entry, one series)
 * u16 ATTR_KEY_HASHED | ATTR_KEY_MAX, its first ATTR_KEY_MAX - 8 bytes and
 * the FNV-1a 64 hash of all of it (8 bytes, little-endian). The flag keeps
 * a hashed key apart from any key of 255 bytes as sent. */
static uint8_t *key_attr(uint8_t *k, const char *key, uint32_t klen)
{
    if (klen <= ATTR_KEY_MAX) {
        k = put16(k, klen);
        if (klen)
            memcpy(k, key, klen);
        return k + klen;
    }
    k = put16(k, ATTR_KEY_HASHED | ATTR_KEY_MAX);
    memcpy(k, key, ATTR_KEY_MAX - 8);
    k += ATTR_KEY_MAX - 8;
    uint64_t h = fsc_fnv1a64(key, klen);
    for (int i = 0; i < 8; i++)
        *k++ = (uint8_t)(h >> (8 * i));
    return k;
}

/* Builds the cache key of point p in ing->key (after the metric's prefix):
 * label-worthy attributes as (key, text) sorted by key, so attribute order
 * does not matter and `pg` 0 and "0" are one key; for histograms the bounds'
 * bytes. Length prefixes keep the encoding injective. */
static void key_build(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, bool hist)
{
    size_t n = 0;
    uint32_t na = p->n_attrs < FSC_OTLP_ATTRS_MAX ? p->n_attrs : FSC_OTLP_ATTRS_MAX;
    for (uint32_t i = 0; i < na; i++) {
        const struct fsc_otlp_attr *a = &p->attrs[i];
        struct otlp_kv *kv = &ing->kv[n];
        switch (a->type) {
        case FSC_OTLP_VAL_STRING: {
            size_t vl;
            kv->val = otlp_value_fit(a->s.p, a->s.len, ing->ltext[n], &vl);
            kv->vlen = (uint32_t)vl;
            ing->st.values_hashed += kv->val != a->s.p;
            break;
        }
        case FSC_OTLP_VAL_INT:
            kv->vlen = i64_text(a->i, ing->vtext[n]);
            kv->val = ing->vtext[n];
            break;
        case FSC_OTLP_VAL_BOOL:
            kv->val = a->i ? "true" : "false";
            kv->vlen = a->i ? 4 : 5;
            break;
        case FSC_OTLP_VAL_DOUBLE:
            kv->vlen = (uint32_t)fsc_otlp_attr_text(a, ing->vtext[n], VTEXT);
            kv->val = ing->vtext[n];
            break;
        default:
            continue; /* arrays, kvlists, bytes, empty: never a label */
        }
        kv->key = a->key.p;
        kv->klen = a->key.len; /* whole: the label name hashes all of it */
        if (kv->klen >= FSC_LABEL_NAME_BOUND && kv->vlen) {
            /* over 62 bytes the sanitized name may be over 63 (a '_' in front) */
            char name[FSC_OTLP_LABEL_NAME_MAX];
            bool hashed;
            otlp_label_name(kv->key, kv->klen, name, &hashed);
            ing->st.names_hashed += hashed;
        }
        /* insertion sort: points carry a handful of attributes */
        size_t j = n++;
        struct otlp_kv cur = *kv;
        while (j > 0 && kv_cmp(&ing->kv[j - 1], &cur) > 0) {
            ing->kv[j] = ing->kv[j - 1];
            j--;
        }
        ing->kv[j] = cur;
    }
    ing->n_kv = n;
    uint8_t *k = ing->key + ing->prefix_len;
    for (size_t i = 0; i < n; i++) {
        const struct otlp_kv *kv = &ing->kv[i];
        k = key_attr(k, kv->key, kv->klen);
        k = put16(k, kv->vlen);
        if (kv->vlen)
            memcpy(k, kv->val, kv->vlen);
        k += kv->vlen;
    }
    if (hist) {
        k = put16(k, p->n_bounds);
        if (p->n_bounds) {
            memcpy(k, p->bounds, (size_t)p->n_bounds * sizeof(double));
            k += (size_t)p->n_bounds * sizeof(double);
        }
    }
    ing->klen = (uint32_t)(k - ing->key);
    ing->khash = fsc_hash_bytes(ing->key, ing->klen, 0);
}

/* The point's state indexes (otlp_ingest_int.h). */
const uint32_t *
otlp_ingest_series_of(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, bool hist,
                      bool (*check)(uint8_t, uint8_t, const struct fsc_otlp_point *), uint8_t mode,
                      uint32_t *n_ser)
{
    if (!ing->mname_ok) {
        otlp_ingest_reject(ing, REJ_LABELS, "metric name empty or longer than 256 bytes");
        return NULL;
    }
    key_build(ing, p, hist);
    const uint32_t *idx = otlp_cache_find(&ing->ser, ing->key, ing->klen, ing->khash, n_ser);
    if (idx)
        return idx;
    if (!ing->plan_done) {
        /* An alias (ether_stats_octets) maps as the name it stands for. */
        const char *pname = ing->bytes_on ? otlp_bytes_plan_name(ing->mname) : ing->mname;
        ing->plan_rc = otlp_series_plan(&ing->ser, pname, ing->mtype, ing->mmono, &ing->plan);
        ing->plan.native = ing->mname; /* the name as sent, alias or not */
        ing->plan_done = true;
    }
    if (ing->plan_rc != 0) {
        otlp_ingest_reject(ing, REJ_LABELS, "metric name does not give a valid series name");
        return NULL;
    }
    if (check && !check(ing->plan.kind, mode, p)) {
        otlp_ingest_reject(ing, REJ_BAD_VALUE, "negative, NaN or infinite counter value");
        return NULL;
    }
    struct otlp_ident id = {.device = ing->device,
                            .histogram = hist,
                            .kv = ing->kv,
                            .n_kv = ing->n_kv,
                            .bounds = p->bounds,
                            .n_bounds = p->n_bounds};
    const char *why = NULL;
    bool labels = false;
    idx = otlp_series_create(&ing->ser, &id, &ing->plan, ing->key, ing->klen, ing->khash, n_ser,
                             &why, &labels);
    if (!idx)
        otlp_ingest_reject(ing, labels ? REJ_LABELS : REJ_LIMIT, why);
    return idx;
}
