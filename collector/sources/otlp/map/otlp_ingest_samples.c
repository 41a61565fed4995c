/* The ingest's samples (otlp_ingest_int.h): a rejected point counted, a
 * value applied to its series (resets, DELTA totals) and buffered, the
 * buffer fed to the engine. What every file of the ingest ends in; calls
 * none of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/map/otlp_ingest_int.h"

/* Rejects the current point (otlp_ingest_int.h). */
void otlp_ingest_reject(struct fsc_otlp_ingest *ing, enum otlp_ingest_rej r, const char *why)
{
    struct fsc_otlp_ingest_stats *st = &ing->st;
    uint64_t *ctr[] = {&st->rej_no_time,       &st->rej_no_value, &st->rej_unsupported_type,
                       &st->rej_bad_histogram, &st->rej_limit,    &st->rej_bad_value,
                       &st->rej_labels,        &st->rej_time};
    (*ctr[r])++;
    ing->res.rejected++;
    if (!ing->res.message[0])
        snprintf(ing->res.message, sizeof(ing->res.message), "%s (metric %.160s)", why, ing->mname);
}

/* Feeds the buffered samples to the engine (otlp_ingest_int.h). */
void otlp_ingest_flush(struct fsc_otlp_ingest *ing)
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
            otlp_ingest_flush(ing);
        }
    }
    ing->smp[ing->n_smp++] = (struct fsc_sample){
        .series = id, .flags = flags, .t_dev_ns = t, .t_arr_ns = ing->arrival_ns, .v = v};
}

/* Applies one value to one series and buffers its sample (otlp_ingest_int.h). */
void otlp_ingest_apply(struct fsc_otlp_ingest *ing, struct otlp_state *st, uint32_t flags,
                       uint8_t mode, uint64_t start, bool f64, union fsc_value v, int64_t t,
                       bool *reset)
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
