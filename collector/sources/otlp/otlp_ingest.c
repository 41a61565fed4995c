/* OTLP points -> samples: the visitor the decoders call (otlp_ingest.h has
 * the contract; otlp_series.c the cache and the slow path).
 *
 * Decisions worth knowing:
 * - Values. as_double gives an FSC_SMP_F64 sample. as_int gives a u64
 *   sample on a counter, a double on a gauge. A counter value that is
 *   negative, NaN or +Inf is rejected ("bad value"); a gauge takes any
 *   double, NaN and infinities included (Prometheus exposes them, the engine
 *   keeps a gauge's last value only). A series switching between as_int and
 *   as_double restarts its baseline in the engine (the value type changed).
 * - CUMULATIVE Sums and Histograms: a start_time_unix_nano that is non-zero
 *   and differs from the last non-zero one of the series flags the sample
 *   FSC_SMP_RESET (stats.resets counts points, not series). Gauges carry no
 *   start time that means anything, so the rule does not apply to them.
 * - DELTA: the running total per series is a u64 while every delta is an
 *   integer and becomes a double at the first double delta (one baseline
 *   restart in the engine). A non-monotonic DELTA Sum is a gauge whose value
 *   is the running (double) total; its deltas must be finite. A series that
 *   switches between DELTA and CUMULATIVE restarts (FSC_SMP_RESET).
 * - Histograms must have buckets = bounds + 1 (or neither: then the +Inf
 *   bucket alone equals count), bounds strictly ascending and below +Inf,
 *   and bucket counts adding up to count; else "bad histogram". A sum must
 *   be finite and >= 0 (it is a counter). Bounds are part of the series
 *   key: new bounds give new `le` series (shared bounds keep theirs, and
 *   _count / _sum continue).
 * - Labels (otlp_series.c): device, port (`interface`), the profile's label
 *   (`tc` -> queue, `sp` -> priority), role/rail/peer from the topology,
 *   then every other point attribute whose value is a string, int, bool or
 *   double, under its sanitized name (exported_<name> on a clash). Values
 *   are cut at FSC_OTLP_LABEL_VALUE_MAX bytes on a character boundary and
 *   invalid UTF-8 bytes become '?'; empty values are no label. More
 *   attributes than the registry's 16 labels hold: the point is rejected
 *   (dropping some would merge distinct series). */
#include "sources/otlp/otlp_ingest.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "model/shard.h"
#include "sources/otlp/otlp_bytes.h"
#include "sources/otlp/otlp_series.h"

#define DEFAULT_MAX_SERIES  100000u
#define DEFAULT_MAX_BATCH   65536u
#define MAX_BATCH           (1u << 20)
#define FIRST_BATCH         1024u
#define DEFAULT_INTERVAL_NS 1000000000LL
#define DEFAULT_DEVICE_ATTR "host.name"
/* What Cumulus itself sends (Open-Telemetry-Export.md 5.11+, "Static Label
 * Format": resource attribute net.host.name): tried when the default is absent. */
#define CUMULUS_DEVICE_ATTR "net.host.name"
#define ATTR_KEY_MAX        255u /* attribute key bytes kept in the cache key */
#define VTEXT               32   /* text of an int / bool / double attribute */
/* class + device + name + attributes + histogram bounds, all bounded above */
#define KEY_MAX                                                                                    \
    (1 + 2 + FSC_OTLP_LABEL_VALUE_MAX + 2 + FSC_PROFILE_VENDOR_MAX +                               \
     FSC_OTLP_ATTRS_MAX * (4 + ATTR_KEY_MAX + FSC_OTLP_LABEL_VALUE_MAX) + 4 +                      \
     8 * FSC_OTLP_BUCKETS_MAX)

enum rej {
    REJ_NO_TIME,
    REJ_NO_VALUE,
    REJ_UNSUPPORTED,
    REJ_BAD_HIST,
    REJ_LIMIT,
    REJ_BAD_VALUE,
    REJ_LABELS
};

struct fsc_otlp_ingest {
    pthread_mutex_t lock;
    char source_device[FSC_OTLP_LABEL_VALUE_MAX + 1];
    char *device_attr;
    size_t device_attr_len;
    uint32_t max_batch;
    void (*tap)(void *arg, const struct fsc_sample *smp, size_t n);
    void *tap_arg;
    /* Sharding (model/shard.h): points of a device another collector owns
     * are skipped (counted as skipped, not rejected: the sender may send
     * every device to every shard). */
    uint32_t shard_index, shard_count;
    bool source_foreign; /* the fallback device is another shard's */
    bool foreign;        /* the current resource's device is */
    bool attr_default;   /* device_attr is the default: net.host.name may stand in */
    struct otlp_series ser;
    /* Cumulus port bytes by release (otlp_bytes.h); on with the Cumulus profile. */
    bool bytes_on;
    struct otlp_bytes ob;
    uint32_t ob_dev; /* the current resource's device in ob, OTLP_BYTES_NONE = not looked up */
    struct fsc_otlp_ingest_stats st;
    uint32_t smp_allocs;

    /* the request in progress */
    int64_t arrival_ns;
    int rc;
    struct fsc_otlp_ingest_result res;
    struct fsc_sample *smp;
    uint32_t n_smp, cap_smp;

    /* the current resource and metric */
    char device[FSC_OTLP_LABEL_VALUE_MAX + 1];
    char mname[FSC_PROFILE_VENDOR_MAX + 1];
    uint8_t mtype, mtemp;
    bool mmono, mname_ok, plan_done;
    bool miface;                         /* a Cumulus interface metric */
    const struct otlp_bytes_role *mrole; /* its part in port bytes, or NULL */
    int plan_rc;
    struct otlp_plan plan;
    uint32_t prefix_len; /* key[0 .. prefix_len): class, device, metric name */

    /* the current point */
    struct otlp_kv kv[FSC_OTLP_ATTRS_MAX];
    size_t n_kv;
    char vtext[FSC_OTLP_ATTRS_MAX][VTEXT];
    uint32_t klen;
    uint64_t khash;
    uint8_t key[KEY_MAX];
};

/* ---- rejections and samples ---------------------------------------------------- */

static void reject(struct fsc_otlp_ingest *ing, enum rej r, const char *why)
{
    struct fsc_otlp_ingest_stats *st = &ing->st;
    uint64_t *ctr[] = {&st->rej_no_time,       &st->rej_no_value, &st->rej_unsupported_type,
                       &st->rej_bad_histogram, &st->rej_limit,    &st->rej_bad_value,
                       &st->rej_labels};
    (*ctr[r])++;
    ing->res.rejected++;
    if (!ing->res.message[0])
        snprintf(ing->res.message, sizeof(ing->res.message), "%s (metric %.160s)", why, ing->mname);
}

/* Feeds the buffered samples to the engine (and the tap). */
static void flush(struct fsc_otlp_ingest *ing)
{
    if (ing->n_smp == 0)
        return;
    if (ing->tap)
        ing->tap(ing->tap_arg, ing->smp, ing->n_smp);
    ing->st.samples += ing->n_smp;
    if (ing->ser.env.eng) {
        int rc = fsc_engine_ingest(ing->ser.env.eng, ing->smp, ing->n_smp);
        if (rc != 0) {
            ing->st.samples_lost += ing->n_smp;
            if (ing->rc == 0)
                ing->rc = rc;
        }
    }
    ing->n_smp = 0;
}

static void push(struct fsc_otlp_ingest *ing, fsc_series_id id, uint32_t flags, union fsc_value v,
                 int64_t t)
{
    if (ing->n_smp == ing->cap_smp) {
        /* Grow up to the batch bound; past it (or without memory) the
         * engine takes this chunk now and the buffer is reused. */
        uint32_t cap = ing->cap_smp * 2 < ing->max_batch ? ing->cap_smp * 2 : ing->max_batch;
        struct fsc_sample *ns =
            cap > ing->cap_smp ? realloc(ing->smp, (size_t)cap * sizeof(*ns)) : NULL;
        if (ns) {
            ing->smp = ns;
            ing->cap_smp = cap;
            ing->smp_allocs++;
        } else {
            flush(ing);
        }
    }
    ing->smp[ing->n_smp++] = (struct fsc_sample){
        .series = id, .flags = flags, .t_dev_ns = t, .t_arr_ns = ing->arrival_ns, .v = v};
}

/* Applies one value to one series and buffers its sample. v is the point's
 * value for the series (v.u when !f64); DELTA values are added to the
 * running total first. *reset is set on a cumulative start-time change. */
static void apply(struct fsc_otlp_ingest *ing, struct otlp_state *st, uint32_t flags, uint8_t mode,
                  uint64_t start, bool f64, union fsc_value v, int64_t t, bool *reset)
{
    if (st->seen && (st->mode == OTLP_MODE_DELTA) != (mode == OTLP_MODE_DELTA)) {
        flags |= FSC_SMP_RESET; /* another meaning of the value: a new baseline */
        st->total.u = 0;
        st->total_f64 = 0;
        st->last_start = 0;
    }
    st->mode = mode;
    st->seen = 1;
    if (mode == OTLP_MODE_CUMULATIVE && start != 0) {
        if (st->last_start != 0 && st->last_start != start) {
            flags |= FSC_SMP_RESET;
            *reset = true;
        }
        st->last_start = start;
    }
    if (mode == OTLP_MODE_DELTA) {
        if (!f64 && !st->total_f64) {
            st->total.u += v.u; /* wraps only after 2^64: the engine sees a reset */
        } else {
            if (!st->total_f64) {
                st->total.d = (double)st->total.u;
                st->total_f64 = 1;
            }
            st->total.d += f64 ? v.d : (double)v.u;
            f64 = true;
        }
        v = st->total;
    }
    push(ing, st->id, flags | (f64 ? FSC_SMP_F64 : 0), v, t);
}

/* ---- series key ---------------------------------------------------------------- */

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
        case FSC_OTLP_VAL_STRING:
            kv->val = a->s.p;
            kv->vlen = (uint32_t)otlp_utf8_cut(a->s.p, a->s.len);
            break;
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
        kv->klen = a->key.len < ATTR_KEY_MAX ? a->key.len : ATTR_KEY_MAX;
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
        k = put16(k, kv->klen);
        if (kv->klen)
            memcpy(k, kv->key, kv->klen);
        k += kv->klen;
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

/* The point's state indexes: a cache hit, or the slow path. For number
 * points `check` (the value against the series' kind) runs before anything
 * is interned, so a bad first value creates no series. Returns NULL when
 * the point was rejected. */
static const uint32_t *series_of(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                                 bool hist,
                                 bool (*check)(uint8_t, uint8_t, const struct fsc_otlp_point *),
                                 uint8_t mode, uint32_t *n_ser)
{
    if (!ing->mname_ok) {
        reject(ing, REJ_LABELS, "metric name empty or longer than 256 bytes");
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
        ing->plan_done = true;
    }
    if (ing->plan_rc != 0) {
        reject(ing, REJ_LABELS, "metric name does not give a valid series name");
        return NULL;
    }
    if (check && !check(ing->plan.kind, mode, p)) {
        reject(ing, REJ_BAD_VALUE, "negative, NaN or infinite counter value");
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
        reject(ing, labels ? REJ_LABELS : REJ_LIMIT, why);
    return idx;
}

/* ---- points ------------------------------------------------------------------------ */

/* A usable device time, else the point is rejected. */
static bool time_ok(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (p->time_ns == 0 || p->time_ns > (uint64_t)INT64_MAX) {
        reject(ing, REJ_NO_TIME, "data point without a valid time_unix_nano");
        return false;
    }
    return true;
}

static bool number_ok(uint8_t kind, uint8_t mode, const struct fsc_otlp_point *p)
{
    if (p->value_kind == FSC_OTLP_VALUE_INT)
        return kind == FSC_KIND_GAUGE || p->as_int >= 0;
    double d = p->as_double;
    if (kind == FSC_KIND_COUNTER)
        return d >= 0 && d < INFINITY; /* false for NaN too */
    return mode != OTLP_MODE_DELTA || isfinite(d);
}

/* ---- Cumulus port bytes (otlp_bytes.h) ---------------------------------------- */

static void bytes_apply(void *ctx, uint32_t st, double v, int64_t t, bool reset)
{
    struct fsc_otlp_ingest *ing = ctx;
    bool r = false;
    apply(ing, &ing->ser.st[st], reset ? FSC_SMP_RESET : 0, OTLP_MODE_GAUGE, 0, true,
          (union fsc_value){.d = v}, t, &r);
}

/* The current point's attribute `key` (ing->kv, built by key_build), or NULL. */
static const struct otlp_kv *kv_find(const struct fsc_otlp_ingest *ing, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < ing->n_kv; i++)
        if (ing->kv[i].klen == n && memcmp(ing->kv[i].key, key, n) == 0)
            return &ing->kv[i];
    return NULL;
}

static uint32_t bytes_device(struct fsc_otlp_ingest *ing)
{
    if (ing->ob_dev == OTLP_BYTES_NONE)
        ing->ob_dev = otlp_bytes_device(&ing->ob, ing->device);
    return ing->ob_dev;
}

/* A Cumulus interface point: notes the device; for a direct byte counter,
 * whether it feeds its port's bytes (false: a better counter does) and the
 * flags of its sample. */
static bool bytes_direct(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                         uint32_t *flags)
{
    uint32_t dev = bytes_device(ing);
    otlp_bytes_interface_seen(&ing->ob, dev);
    if (!ing->mrole || ing->mrole->kind != OTLP_BYTES_DIRECT)
        return true;
    const struct otlp_kv *port = kv_find(ing, "interface");
    if (!port)
        return true;
    bool reset = false;
    bool use = otlp_bytes_direct(&ing->ob, dev, port->val, port->vlen, ing->mrole,
                                 (int64_t)p->time_ns, &reset);
    if (reset)
        *flags |= FSC_SMP_RESET;
    return use;
}

static void bytes_class(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, double v)
{
    const struct otlp_kv *port = kv_find(ing, "interface");
    if (!port)
        return;
    const struct otlp_kv *c = kv_find(ing, ing->mrole->attr);
    int cls = c ? otlp_bytes_class_of(c->val, c->vlen, ing->mrole->n_class) : -1;
    otlp_bytes_class(&ing->ob, bytes_device(ing), port->val, port->vlen, ing->mrole, cls, v,
                     (int64_t)p->time_ns);
}

/* ---- number points ------------------------------------------------------------- */

static void number_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (!time_ok(ing, p))
        return;
    if (p->value_kind != FSC_OTLP_VALUE_INT && p->value_kind != FSC_OTLP_VALUE_DOUBLE) {
        reject(ing, REJ_NO_VALUE, "data point without a value");
        return;
    }
    uint8_t mode = OTLP_MODE_GAUGE;
    if (ing->mtype == FSC_OTLP_SUM) {
        if (ing->mtemp == FSC_OTLP_TEMP_DELTA) {
            mode = OTLP_MODE_DELTA;
        } else if (ing->mtemp == FSC_OTLP_TEMP_CUMULATIVE) {
            mode = OTLP_MODE_CUMULATIVE;
        } else {
            reject(ing, REJ_UNSUPPORTED, "sum without aggregation temporality");
            return;
        }
    }
    uint32_t n_ser;
    const uint32_t *idx = series_of(ing, p, false, number_ok, mode, &n_ser);
    if (!idx)
        return;
    uint32_t si = idx[0]; /* an index: the bytes step below may grow the state array */
    if (!number_ok(ing->ser.st[si].kind, mode, p)) {
        reject(ing, REJ_BAD_VALUE, "negative, NaN or infinite counter value");
        return;
    }
    uint32_t flags = 0;
    if (ing->miface && !bytes_direct(ing, p, &flags)) {
        ing->res.accepted++; /* valid, but a better counter of this port is counted */
        return;
    }
    struct otlp_state *st = &ing->ser.st[si];
    union fsc_value v;
    bool f64 = true;
    if (p->value_kind == FSC_OTLP_VALUE_DOUBLE) {
        v.d = p->as_double;
    } else if (st->kind == FSC_KIND_COUNTER) {
        v.u = (uint64_t)p->as_int;
        f64 = false;
    } else {
        v.d = (double)p->as_int;
    }
    bool reset = false;
    apply(ing, st, flags, mode, p->start_ns, f64, v, (int64_t)p->time_ns, &reset);
    ing->st.resets += reset;
    ing->res.accepted++;
    if (ing->mrole && ing->mrole->kind == OTLP_BYTES_CLASS)
        bytes_class(ing, p, f64 ? v.d : (double)v.u);
}

/* Shape of a histogram point; NULL when fine, else the reason. */
static const char *histogram_problem(const struct fsc_otlp_point *p)
{
    if (p->n_bounds >= FSC_OTLP_BUCKETS_MAX || (p->n_bounds && !p->bounds) ||
        (p->n_buckets && !p->buckets))
        return "histogram has too many buckets";
    if (!(p->n_buckets == p->n_bounds + 1 || (p->n_buckets == 0 && p->n_bounds == 0)))
        return "histogram bucket count is not bounds + 1";
    for (uint32_t i = 0; i < p->n_bounds; i++)
        if (!(p->bounds[i] < INFINITY) || (i > 0 && !(p->bounds[i] > p->bounds[i - 1])))
            return "histogram bounds are not ascending finite numbers";
    uint64_t sum = 0;
    for (uint32_t i = 0; i < p->n_buckets; i++) {
        if (p->buckets[i] > UINT64_MAX - sum)
            return "histogram bucket counts overflow";
        sum += p->buckets[i];
    }
    if (p->n_buckets && sum != p->count)
        return "histogram bucket counts do not add up to count";
    return NULL;
}

static void histogram_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (!time_ok(ing, p))
        return;
    uint8_t mode;
    if (ing->mtemp == FSC_OTLP_TEMP_DELTA) {
        mode = OTLP_MODE_DELTA;
    } else if (ing->mtemp == FSC_OTLP_TEMP_CUMULATIVE) {
        mode = OTLP_MODE_CUMULATIVE;
    } else {
        reject(ing, REJ_UNSUPPORTED, "histogram without aggregation temporality");
        return;
    }
    const char *why = histogram_problem(p);
    if (why) {
        reject(ing, REJ_BAD_HIST, why);
        return;
    }
    if (p->has_sum && !(p->sum >= 0 && p->sum < INFINITY)) {
        reject(ing, REJ_BAD_VALUE, "histogram sum is negative, NaN or infinite");
        return;
    }
    uint32_t n_ser;
    const uint32_t *idx = series_of(ing, p, true, NULL, mode, &n_ser);
    if (!idx)
        return;
    uint32_t nb = p->n_bounds + 1;
    if (n_ser != nb + 2) { /* cannot happen: the key holds the bounds */
        reject(ing, REJ_BAD_HIST, "histogram shape does not match its series");
        return;
    }
    int64_t t = (int64_t)p->time_ns;
    bool reset = false;
    uint64_t cum = 0;
    for (uint32_t i = 0; i < nb; i++) {
        cum = p->n_buckets ? cum + p->buckets[i] : p->count; /* Prometheus buckets are cumulative */
        apply(ing, &ing->ser.st[idx[i]], 0, mode, p->start_ns, false, (union fsc_value){.u = cum},
              t, &reset);
    }
    apply(ing, &ing->ser.st[idx[nb]], 0, mode, p->start_ns, false, (union fsc_value){.u = p->count},
          t, &reset);
    if (p->has_sum)
        apply(ing, &ing->ser.st[idx[nb + 1]], 0, mode, p->start_ns, true,
              (union fsc_value){.d = p->sum}, t, &reset);
    ing->st.resets += reset;
    ing->res.accepted++;
}

/* ---- visitor ------------------------------------------------------------------------ */

static void on_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n_attrs)
{
    struct fsc_otlp_ingest *ing = ctx;
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    ing->foreign = ing->source_foreign;
    ing->ob_dev = OTLP_BYTES_NONE;
    const char *want = ing->device_attr;
    size_t want_len = ing->device_attr_len;
    if (ing->attr_default) {
        bool found = false;
        for (uint32_t i = 0; i < n_attrs && !found; i++)
            found = attrs[i].key.len == want_len && memcmp(attrs[i].key.p, want, want_len) == 0;
        if (!found) {
            want = CUMULUS_DEVICE_ATTR;
            want_len = sizeof(CUMULUS_DEVICE_ATTR) - 1;
        }
    }
    for (uint32_t i = 0; i < n_attrs; i++) {
        const struct fsc_otlp_attr *a = &attrs[i];
        if (a->key.len != want_len || memcmp(a->key.p, want, want_len) != 0)
            continue;
        char text[FSC_OTLP_LABEL_VALUE_MAX + 1];
        size_t n;
        if (a->type == FSC_OTLP_VAL_STRING) {
            n = otlp_utf8_cut(a->s.p, a->s.len);
            memcpy(text, a->s.p, n);
        } else {
            n = fsc_otlp_attr_text(a, text, sizeof(text));
        }
        if (n > 0) {
            otlp_label_value(text, n, ing->device);
            ing->foreign = !fsc_shard_owns(ing->shard_index, ing->shard_count, ing->device);
        }
        break;
    }
}

static void on_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct fsc_otlp_ingest *ing = ctx;
    size_t n = m->name.len < FSC_PROFILE_VENDOR_MAX ? m->name.len : FSC_PROFILE_VENDOR_MAX;
    if (n)
        memcpy(ing->mname, m->name.p, n);
    ing->mname[n] = '\0';
    ing->mname_ok = m->name.len > 0 && m->name.len <= FSC_PROFILE_VENDOR_MAX &&
                    memchr(m->name.p, '\0', m->name.len) == NULL;
    ing->mtype = m->type;
    ing->mtemp = m->temporality;
    ing->mmono = m->monotonic;
    ing->plan_done = false;
    ing->miface = ing->bytes_on && ing->mname_ok && m->type != FSC_OTLP_HISTOGRAM &&
                  otlp_bytes_interface_metric(ing->mname);
    ing->mrole = ing->miface ? otlp_bytes_role(ing->mname) : NULL;

    uint8_t *k = ing->key;
    *k++ = m->type == FSC_OTLP_HISTOGRAM ? 'h' : 'n';
    size_t dl = strlen(ing->device);
    k = put16(k, (uint32_t)dl);
    memcpy(k, ing->device, dl);
    k += dl;
    k = put16(k, (uint32_t)n);
    memcpy(k, ing->mname, n);
    ing->prefix_len = (uint32_t)(k + n - ing->key);
}

static void on_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct fsc_otlp_ingest *ing = ctx;
    ing->res.points++;
    if (ing->foreign || (p->flags & FSC_OTLP_FLAG_NO_RECORDED_VALUE)) {
        ing->res.skipped++; /* another shard's device, or a staleness marker: no error */
        if (ing->foreign)
            ing->res.other_shard++;
        return;
    }
    switch (ing->mtype) {
    case FSC_OTLP_GAUGE:
    case FSC_OTLP_SUM:
        number_point(ing, p);
        break;
    case FSC_OTLP_HISTOGRAM:
        histogram_point(ing, p);
        break;
    default:
        reject(ing, REJ_UNSUPPORTED, "exponential histograms and summaries are not supported");
        break;
    }
}

/* ---- lifecycle ---------------------------------------------------------------------- */

struct fsc_otlp_ingest *fsc_otlp_ingest_create(const struct fsc_otlp_ingest_config *cfg,
                                               const struct fsc_source_env *env, char *err,
                                               size_t errlen)
{
    if (!cfg || !env || !env->reg || !cfg->source_name || !cfg->source_name[0]) {
        snprintf(err, errlen, "OTLP ingest needs a registry and a source name");
        return NULL;
    }
    if (cfg->nominal_interval_ns < 0 || cfg->max_series > FSC_REGISTRY_MAX_TOTAL ||
        cfg->max_batch > MAX_BATCH) {
        snprintf(err, errlen,
                 "OTLP ingest: negative interval, max_series above %u or max_batch above %u",
                 (unsigned)FSC_REGISTRY_MAX_TOTAL, MAX_BATCH);
        return NULL;
    }
    const char *attr = cfg->device_attribute && cfg->device_attribute[0] ? cfg->device_attribute
                                                                         : DEFAULT_DEVICE_ATTR;
    struct fsc_otlp_ingest *ing = calloc(1, sizeof(*ing));
    if (!ing)
        goto nomem;
    if (pthread_mutex_init(&ing->lock, NULL) != 0) {
        free(ing);
        goto nomem;
    }
    otlp_label_value(cfg->source_name, otlp_utf8_cut(cfg->source_name, strlen(cfg->source_name)),
                     ing->source_device);
    ing->device_attr = strdup(attr);
    ing->device_attr_len = strlen(attr);
    ing->attr_default = strcmp(attr, DEFAULT_DEVICE_ATTR) == 0;
    ing->max_batch = cfg->max_batch ? cfg->max_batch : DEFAULT_MAX_BATCH;
    ing->cap_smp = ing->max_batch < FIRST_BATCH ? ing->max_batch : FIRST_BATCH;
    ing->smp = malloc((size_t)ing->cap_smp * sizeof(*ing->smp));
    ing->tap = cfg->sample_tap;
    ing->tap_arg = cfg->sample_tap_arg;
    ing->shard_index = env->shard_index;
    ing->shard_count = env->shard_count;
    ing->source_foreign = !fsc_shard_owns(env->shard_index, env->shard_count, ing->source_device);
    int64_t interval = cfg->nominal_interval_ns ? cfg->nominal_interval_ns : DEFAULT_INTERVAL_NS;
    uint32_t max_series = cfg->max_series ? cfg->max_series : DEFAULT_MAX_SERIES;
    const struct fsc_profile *prof = cfg->profile ? cfg->profile : &fsc_profile_cumulus;
    if (otlp_series_init(&ing->ser, env, prof, interval, max_series) != 0 || !ing->device_attr ||
        !ing->smp) {
        fsc_otlp_ingest_destroy(ing);
        goto nomem;
    }
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    ing->bytes_on = prof == &fsc_profile_cumulus;
    otlp_bytes_init(&ing->ob, &ing->ser, bytes_apply, ing);
    ing->ob_dev = OTLP_BYTES_NONE;
    return ing;
nomem:
    snprintf(err, errlen, "out of memory creating the OTLP ingest");
    return NULL;
}

void fsc_otlp_ingest_destroy(struct fsc_otlp_ingest *ing)
{
    if (!ing)
        return;
    otlp_bytes_fini(&ing->ob);
    otlp_series_fini(&ing->ser);
    free(ing->smp);
    free(ing->device_attr);
    pthread_mutex_destroy(&ing->lock);
    free(ing);
}

void fsc_otlp_ingest_begin(struct fsc_otlp_ingest *ing, int64_t arrival_ns,
                           struct fsc_otlp_visitor *v)
{
    pthread_mutex_lock(&ing->lock);
    ing->arrival_ns = arrival_ns;
    ing->rc = 0;
    ing->n_smp = 0;
    memset(&ing->res, 0, sizeof(ing->res));
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    ing->foreign = ing->source_foreign;
    ing->mname[0] = '\0';
    ing->mname_ok = false;
    ing->mtype = FSC_OTLP_NONE;
    ing->miface = false;
    ing->mrole = NULL;
    ing->ob_dev = OTLP_BYTES_NONE;
    otlp_bytes_begin(&ing->ob);
    *v = (struct fsc_otlp_visitor){
        .ctx = ing, .resource = on_resource, .metric = on_metric, .point = on_point};
}

int fsc_otlp_ingest_end(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_result *res)
{
    if (ing->bytes_on) /* derived sums join this request's samples */
        otlp_bytes_end(&ing->ob, ing->res.warning, sizeof(ing->res.warning));
    flush(ing);
    struct fsc_otlp_ingest_stats *st = &ing->st;
    st->requests++;
    st->points += ing->res.points;
    st->accepted += ing->res.accepted;
    st->rejected += ing->res.rejected;
    st->skipped += ing->res.skipped;
    st->other_shard += ing->res.other_shard;
    if (res)
        *res = ing->res;
    int rc = ing->rc;
    pthread_mutex_unlock(&ing->lock);
    return rc;
}

void fsc_otlp_ingest_abort(struct fsc_otlp_ingest *ing)
{
    ing->n_smp = 0;
    ing->st.aborted++;
    pthread_mutex_unlock(&ing->lock);
}

void fsc_otlp_ingest_stats(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_stats *out)
{
    pthread_mutex_lock(&ing->lock);
    *out = ing->st;
    out->series = ing->ser.n_st;
    out->cache_entries = ing->ser.count;
    out->heap_allocs = (uint64_t)ing->ser.allocs + ing->smp_allocs + ing->ob.allocs;
    out->memory_bytes = sizeof(*ing) + ing->device_attr_len + 1 + ing->ser.memory +
                        (size_t)ing->cap_smp * sizeof(*ing->smp) + ing->ob.memory;
    out->bytes_derived = ing->ob.st.derived_samples;
    out->bytes_incomplete = ing->ob.st.incomplete;
    out->bytes_dropped = ing->ob.st.dropped;
    out->bytes_unplaced = ing->ob.st.unplaced + ing->ob.st.no_class;
    pthread_mutex_unlock(&ing->lock);
}

size_t fsc_otlp_ingest_devices(struct fsc_otlp_ingest *ing,
                               void (*cb)(void *arg, const char *device, int has), void *arg)
{
    pthread_mutex_lock(&ing->lock);
    size_t n = otlp_bytes_devices(&ing->ob, cb, arg);
    pthread_mutex_unlock(&ing->lock);
    return n;
}
