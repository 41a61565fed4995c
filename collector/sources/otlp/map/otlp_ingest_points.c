/* Number and histogram points: the checks of their time, value and shape
 * (the rules are in the comment of otlp_ingest.c) and the values they give
 * their series. */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>

#include "sources/otlp/map/otlp_ingest_int.h"

/* A usable device time, else the point is rejected: present, and within
 * the time guard's bounds of the request's arrival (model/time_guard.h). */
static bool time_ok(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (p->time_ns == 0 || p->time_ns > (uint64_t)INT64_MAX) {
        otlp_ingest_reject(ing, REJ_NO_TIME, "data point without a valid time_unix_nano");
        return false;
    }
    if (!ing->tg_dev_set) {
        ing->tg_dev = fsc_time_guard_device(&ing->tg, ing->device);
        ing->tg_dev_set = true;
    }
    int64_t t = (int64_t)p->time_ns;
    enum fsc_time_verdict v = fsc_time_guard_check(&ing->tg, ing->tg_dev, t, ing->arrival_ns);
    if (v == FSC_TIME_OK)
        return true;
    char why[160];
    double off = ((double)t - (double)ing->arrival_ns) * 1e-9;
    if (v == FSC_TIME_FUTURE)
        snprintf(why, sizeof(why),
                 "time_unix_nano is %.0f s ahead of the collector's clock (max_time_ahead %.0f s)",
                 off, (double)ing->tg.ahead_ns * 1e-9);
    else
        snprintf(why, sizeof(why),
                 "time_unix_nano is %.0f s behind the collector's clock (max_time_behind %.0f s)",
                 -off, (double)ing->tg.behind_ns * 1e-9);
    otlp_ingest_reject(ing, REJ_TIME, why);
    return false;
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

/* A Gauge or Sum point (otlp_ingest_int.h). */
void otlp_ingest_number_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (!time_ok(ing, p))
        return;
    if (p->value_kind != FSC_OTLP_VALUE_INT && p->value_kind != FSC_OTLP_VALUE_DOUBLE) {
        otlp_ingest_reject(ing, REJ_NO_VALUE, "data point without a value");
        return;
    }
    uint8_t mode = OTLP_MODE_GAUGE;
    if (ing->mtype == FSC_OTLP_SUM) {
        if (ing->mtemp == FSC_OTLP_TEMP_DELTA) {
            mode = OTLP_MODE_DELTA;
        } else if (ing->mtemp == FSC_OTLP_TEMP_CUMULATIVE) {
            mode = OTLP_MODE_CUMULATIVE;
        } else {
            otlp_ingest_reject(ing, REJ_UNSUPPORTED, "sum without aggregation temporality");
            return;
        }
    }
    uint32_t n_ser;
    const uint32_t *idx = otlp_ingest_series_of(ing, p, false, number_ok, mode, &n_ser);
    if (!idx)
        return;
    uint32_t si = idx[0]; /* an index: the bytes step below may grow the state array */
    if (!number_ok(ing->ser.st[si].kind, mode, p)) {
        otlp_ingest_reject(ing, REJ_BAD_VALUE, "negative, NaN or infinite counter value");
        return;
    }
    uint32_t flags = 0;
    if (ing->miface && !otlp_ingest_bytes_direct(ing, p, &flags)) {
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
    otlp_ingest_apply(ing, st, flags, mode, p->start_ns, f64, v, (int64_t)p->time_ns, &reset);
    ing->st.resets += reset;
    ing->res.accepted++;
    if (ing->mrole && ing->mrole->kind == OTLP_BYTES_CLASS)
        otlp_ingest_bytes_class(ing, p, f64 ? v.d : (double)v.u);
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

/* A Histogram point (otlp_ingest_int.h). */
void otlp_ingest_histogram_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    if (!time_ok(ing, p))
        return;
    uint8_t mode;
    if (ing->mtemp == FSC_OTLP_TEMP_DELTA) {
        mode = OTLP_MODE_DELTA;
    } else if (ing->mtemp == FSC_OTLP_TEMP_CUMULATIVE) {
        mode = OTLP_MODE_CUMULATIVE;
    } else {
        otlp_ingest_reject(ing, REJ_UNSUPPORTED, "histogram without aggregation temporality");
        return;
    }
    const char *why = histogram_problem(p);
    if (why) {
        otlp_ingest_reject(ing, REJ_BAD_HIST, why);
        return;
    }
    if (p->has_sum && !(p->sum >= 0 && p->sum < INFINITY)) {
        otlp_ingest_reject(ing, REJ_BAD_VALUE, "histogram sum is negative, NaN or infinite");
        return;
    }
    uint32_t n_ser;
    const uint32_t *idx = otlp_ingest_series_of(ing, p, true, NULL, mode, &n_ser);
    if (!idx)
        return;
    uint32_t nb = p->n_bounds + 1;
    if (n_ser != nb + 2) { /* cannot happen: the key holds the bounds */
        otlp_ingest_reject(ing, REJ_BAD_HIST, "histogram shape does not match its series");
        return;
    }
    int64_t t = (int64_t)p->time_ns;
    bool reset = false;
    uint64_t cum = 0;
    /* Evidence (otlp_hist_evid.c): the interval's counts cumulative over
     * buckets, from a delta point as sent, from a cumulative one as the
     * difference to the bucket's last value (kept in its state's total,
     * which only DELTA uses otherwise). */
    static _Thread_local uint64_t d[FSC_OTLP_BUCKETS_MAX];
    bool evid = ing->mhev && p->n_buckets;
    for (uint32_t i = 0; i < nb; i++) {
        cum = p->n_buckets ? cum + p->buckets[i] : p->count; /* Prometheus buckets are cumulative */
        struct otlp_state *st = &ing->ser.st[idx[i]];
        if (evid && mode == OTLP_MODE_CUMULATIVE) {
            bool base = st->seen && st->mode == OTLP_MODE_CUMULATIVE && st->total.u <= cum;
            d[i] = base ? cum - st->total.u : 0;
            evid = base;
        } else if (evid) {
            d[i] = cum;
        }
        otlp_ingest_apply(ing, st, 0, mode, p->start_ns, false, (union fsc_value){.u = cum}, t,
                          &reset);
        if (mode == OTLP_MODE_CUMULATIVE)
            st->total.u = cum;
    }
    otlp_ingest_apply(ing, &ing->ser.st[idx[nb]], 0, mode, p->start_ns, false,
                      (union fsc_value){.u = p->count}, t, &reset);
    if (p->has_sum)
        otlp_ingest_apply(ing, &ing->ser.st[idx[nb + 1]], 0, mode, p->start_ns, true,
                          (union fsc_value){.d = p->sum}, t, &reset);
    if (evid && !reset) /* after the histogram's own series, as its summary */
        otlp_ingest_hist_evid(ing, p, d, nb);
    ing->st.resets += reset;
    ing->res.accepted++;
}
