/* Private to collector/sources/otlp: the ingest's series cache and per-series state.
 *
 * Two levels, and why:
 * - The cache maps the bytes that identify a point's series on the wire
 *   (class, device, metric name, attributes sorted by key as text, and for
 *   histograms the bounds) to the series it feeds. A known point costs one
 *   hash over those bytes, one probe and one compare: no allocation, no
 *   profile lookup, no registry lock.
 * - The state (last start time, DELTA running total) belongs to a REGISTRY
 *   series, not to a cache key. Several keys can name one series: `pg` as
 *   int 0 and as string "0" (docs/vendors/cumulus.md), a value cut at the label bound,
 *   an empty value (dropped by the registry), attribute keys that sanitize
 *   alike, and every bucket-bounds variant of one histogram shares its
 *   `_count` / `_sum`. Keeping the state per series id means such aliases
 *   continue one running total instead of interleaving two.
 *
 * Everything is bounded: states by max_series (the per-source limit),
 * cache entries, bucket references and key bytes by multiples of it. */
#ifndef FSC_OTLP_SERIES_H
#define FSC_OTLP_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/profile.h"
#include "plugin/source.h"
#include "sources/otlp/decode/otlp_point.h"

/* Label bounds (see "Labels" in otlp_ingest.c). Longer attribute
 * values and device names keep their first bytes and end in a hash of the
 * whole value (otlp_series.h, otlp_value_fit); label names are sanitized,
 * and one longer than FSC_OTLP_LABEL_NAME_MAX - 1 bytes keeps its first 45
 * bytes and ends in "_h" + a hash of the whole key (otlp_label_name). */
#define FSC_OTLP_LABEL_VALUE_MAX 128
#define FSC_OTLP_LABEL_NAME_MAX  64

/* How a series' value arrives; a switch to or from DELTA restarts it. */
enum { OTLP_MODE_GAUGE = 0, OTLP_MODE_CUMULATIVE = 1, OTLP_MODE_DELTA = 2 };

struct otlp_state {
    fsc_series_id id;
    uint8_t kind;      /* enum fsc_kind */
    uint8_t mode;      /* OTLP_MODE_* of the last point */
    uint8_t seen;      /* a point was applied */
    uint8_t total_f64; /* DELTA total is a double (a double delta was seen) */
    uint64_t last_start;
    union fsc_value total; /* DELTA running total */
};

/* Open addressing, load <= 1/2; in the header so the hot probe inlines. */
struct otlp_slot {
    uint64_t hash;
    const uint8_t *key; /* NULL = empty */
    uint32_t n;
    uint32_t ref;   /* n_ser == 1: state index; else offset into refs[] */
    uint32_t n_ser; /* series fed by a point of this key */
};

#define OTLP_KEY_BLOCK 65536u

struct otlp_key_block {
    struct otlp_key_block *next;
    size_t used;
    uint8_t data[OTLP_KEY_BLOCK];
};

struct otlp_series {
    struct fsc_source_env env;
    const struct fsc_profile *profile;
    int64_t interval_ns;
    uint32_t max_series;

    struct otlp_slot *slots;
    uint32_t mask, count, max_entries;
    struct otlp_key_block *blocks; /* head = the block being filled */
    size_t key_bytes, max_key_bytes;
    uint32_t *refs; /* state indexes of histogram entries */
    uint32_t n_refs, cap_refs, max_refs;

    struct otlp_state *st;
    uint32_t n_st, cap_st;
    uint32_t *idmap; /* state index + 1 by hash of series id; 0 = empty */
    uint32_t idmask;

    uint32_t allocs; /* heap allocations after create */
    size_t memory;

    /* Scratch of the miss path: the state index and registry id of each
     * series of the point being resolved. */
    uint32_t tmp[FSC_OTLP_BUCKETS_MAX + 2];
    fsc_series_id tmp_id[FSC_OTLP_BUCKETS_MAX + 2];
};

/* The state indexes of (key, h), or NULL when absent; *n_ser gets their
 * count. */
static inline const uint32_t *otlp_cache_find(const struct otlp_series *s, const uint8_t *key,
                                              uint32_t n, uint64_t h, uint32_t *n_ser)
{
    for (uint32_t i = (uint32_t)h & s->mask, step = 0; step <= s->mask;
         i = (i + 1) & s->mask, step++) {
        const struct otlp_slot *e = &s->slots[i];
        if (!e->key)
            return NULL;
        if (e->hash == h && e->n == n && memcmp(e->key, key, n) == 0) {
            *n_ser = e->n_ser;
            return e->n_ser == 1 ? &e->ref : &s->refs[e->ref];
        }
    }
    return NULL;
}

/* One label-worthy attribute as text (value cut at FSC_OTLP_LABEL_VALUE_MAX). */
struct otlp_kv {
    const char *key;
    uint32_t klen;
    const char *val;
    uint32_t vlen;
};

/* What the miss path knows about a metric: computed once per metric. */
struct otlp_plan {
    struct fsc_profile_match m;
    const char *native; /* the metric name mapped (borrowed: valid for the request);
                         * NULL for a series the receiver derives */
    uint8_t kind;       /* number points: the series' kind (histograms: counters) */
};

/* A point's series identity, as the miss path needs it. */
struct otlp_ident {
    const char *device; /* NUL-terminated, at most FSC_OTLP_LABEL_VALUE_MAX bytes */
    bool histogram;
    const struct otlp_kv *kv; /* sorted by key */
    size_t n_kv;
    const double *bounds; /* histograms: validated, ascending, finite */
    uint32_t n_bounds;
};

/* Sets up an empty cache (s zeroed by the caller) for at most max_series
 * series; env is copied, its pointers borrowed. Returns 0 or -ENOMEM. */
int otlp_series_init(struct otlp_series *s, const struct fsc_source_env *env,
                     const struct fsc_profile *profile, int64_t interval_ns, uint32_t max_series);
/* Frees what init and use allocated. */
void otlp_series_fini(struct otlp_series *s);

/* Maps the metric through the profile and decides the kind of its number
 * series: a Gauge whose profile entry is a counter is a counter (Cumulus
 * interface counters), other Gauges are gauges; monotonic Sums are counters,
 * other Sums gauges. Returns 0 or -EINVAL (name unusable). */
int otlp_series_plan(const struct otlp_series *s, const char *metric, uint8_t type, bool monotonic,
                     struct otlp_plan *plan);

/* Slow path of a miss: builds the labels, checks the limits, interns the
 * series (1, or buckets + 2 for a histogram), creates their states, sets
 * their traits and caches (key, h). Returns the state indexes (valid until
 * the next create), or NULL with *why set: "limit" reasons (series limit,
 * registry refusal, memory) or "labels" (too many attributes) in *rej_labels. */
const uint32_t *otlp_series_create(struct otlp_series *s, const struct otlp_ident *id,
                                   const struct otlp_plan *plan, const uint8_t *key, uint32_t n,
                                   uint64_t h, uint32_t *n_ser, const char **why, bool *rej_labels);

/* The label name of attribute key k[0..klen) in out (NUL-terminated),
 * Prometheus' [a-zA-Z_][a-zA-Z0-9_]*: other bytes become '_', a leading
 * digit gets a '_' in front, a run of leading '_' becomes one (names
 * starting with "__" are Prometheus' own). A name longer than
 * FSC_LABEL_NAME_BOUND (63) bytes is its first 45 bytes + "_h" + 16 hex
 * digits of the FNV-1a hash of the whole key as sent (base/name_hash.h:
 * cut at 63 bytes, two keys that differ after that would become one label,
 * their series one series); *hashed says so. Returns
 * the length (0: an empty key, no label). */
size_t otlp_label_name(const char *k, size_t klen, char out[FSC_OTLP_LABEL_NAME_MAX], bool *hashed);

/* Length of s[0..n) cut to at most FSC_OTLP_LABEL_VALUE_MAX bytes without
 * splitting a UTF-8 character. */
size_t otlp_utf8_cut(const char *s, size_t n);

/* A label value that fits (cut at the bound, two interfaces differing after
 * byte 128 would become one series). When n <=
 * FSC_OTLP_LABEL_VALUE_MAX, returns s itself and *len = n. Else writes
 * into out the value's first bytes (cut on a character boundary) followed
 * by OTLP_HASH_SUFFIX_LEN bytes "~h" + 16 hex digits of the FNV-1a 64-bit
 * hash of all n bytes (stable across runs and versions: it is part of the
 * series' identity), NUL-terminated, at most FSC_OTLP_LABEL_VALUE_MAX
 * bytes, and returns out. Distinct long values stay distinct series. */
#define OTLP_HASH_SUFFIX_LEN 18
const char *otlp_value_fit(const char *s, size_t n, char out[FSC_OTLP_LABEL_VALUE_MAX + 1],
                           size_t *len);

/* Copies v[0..n) (already cut) as a NUL-terminated label value: bytes that
 * are not valid UTF-8 (and NUL) become '?', so a sender's bad byte costs a
 * character, not the point (the registry refuses invalid UTF-8). Returns out. */
const char *otlp_label_value(const char *v, size_t n, char out[FSC_OTLP_LABEL_VALUE_MAX + 1]);

/* Writes a bucket bound as Prometheus' client libraries write `le`: the
 * shortest text that reads back equal, in Go's %g style ("0.005", "1",
 * "1e+06"), "+Inf" / "-Inf". Returns the length. */
size_t otlp_le_format(double v, char *out, size_t cap);

#endif
