/* Shared by the OTLP fuzz targets (and the seed tool): a visitor that
 * records every callback as canonical text, and a visitor that re-encodes
 * what it is shown as a protobuf ExportMetricsServiceRequest.
 *
 * Decode, re-encode, decode again: the two traces must be equal. For the
 * protobuf decoder that checks that what it hands over is exactly what the
 * bytes said (field order, merges, packed / unpacked, fast and slow
 * attribute paths); for the JSON decoder it checks that both decoders give
 * one request the same meaning.
 *
 * One difference between the two formats is normalised, not checked: proto3
 * SummaryDataPoint.sum has no presence (the protobuf decoder always reports
 * has_sum), the JSON decoder reports whether the key was there; the trace
 * records a summary's sum as (has_sum ? sum : 0). The ingest rejects
 * summaries either way. */
#ifndef FSC_FUZZ_OTLP_TRACE_H
#define FSC_FUZZ_OTLP_TRACE_H

#include <inttypes.h>
#include <string.h>

#include "base/buf.h"
#include "fuzz.h"
#include "sources/otlp/decode/otlp_point.h"

/* ---- trace ------------------------------------------------------------------ */

struct otlp_trace {
    struct fsc_buf text;
    uint8_t type; /* the current metric's type */
    uint64_t calls;
};

static inline void trace_bytes(struct otlp_trace *t, const char *p, uint32_t n)
{
    FUZZ_CHECK(fsc_buf_printf(&t->text, " %" PRIu32 ":", n) == 0);
    FUZZ_CHECK(n == 0 || fsc_buf_append(&t->text, p, n) == 0);
}

static inline void trace_f64(struct otlp_trace *t, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    FUZZ_CHECK(fsc_buf_printf(&t->text, " d%016" PRIx64, u) == 0);
}

static inline void trace_attrs(struct otlp_trace *t, const struct fsc_otlp_attr *a, uint32_t n)
{
    FUZZ_CHECK(n <= FSC_OTLP_ATTRS_MAX);
    FUZZ_CHECK(fsc_buf_printf(&t->text, " [%" PRIu32, n) == 0);
    for (uint32_t i = 0; i < n; i++) {
        trace_bytes(t, a[i].key.p, a[i].key.len);
        FUZZ_CHECK(fsc_buf_printf(&t->text, " t%u", a[i].type) == 0);
        switch (a[i].type) {
        case FSC_OTLP_VAL_STRING:
            trace_bytes(t, a[i].s.p, a[i].s.len);
            break;
        case FSC_OTLP_VAL_BOOL:
            FUZZ_CHECK(a[i].i == 0 || a[i].i == 1);
            /* fall through */
        case FSC_OTLP_VAL_INT:
            FUZZ_CHECK(fsc_buf_printf(&t->text, " %" PRId64, a[i].i) == 0);
            break;
        case FSC_OTLP_VAL_DOUBLE:
            trace_f64(t, a[i].d);
            break;
        default:
            FUZZ_CHECK(a[i].type == FSC_OTLP_VAL_EMPTY || a[i].type == FSC_OTLP_VAL_OTHER);
        }
        /* touch the text so ASan checks the pointer the decoder handed over */
        char tb[48];
        fsc_otlp_attr_text(&a[i], tb, sizeof tb);
    }
    FUZZ_CHECK(fsc_buf_puts(&t->text, "]") == 0);
}

static inline void trace_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n)
{
    struct otlp_trace *t = ctx;
    t->calls++;
    FUZZ_CHECK(fsc_buf_puts(&t->text, "\nR") == 0);
    trace_attrs(t, attrs, n);
}

static inline void trace_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct otlp_trace *t = ctx;
    t->calls++;
    FUZZ_CHECK(m->type <= FSC_OTLP_SUMMARY && m->temporality <= FSC_OTLP_TEMP_CUMULATIVE);
    t->type = m->type;
    FUZZ_CHECK(fsc_buf_puts(&t->text, "\nM") == 0);
    trace_bytes(t, m->name.p, m->name.len);
    trace_bytes(t, m->unit.p, m->unit.len);
    FUZZ_CHECK(
        fsc_buf_printf(&t->text, " t%u T%u m%d", m->type, m->temporality, (int)m->monotonic) == 0);
}

static inline void trace_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct otlp_trace *t = ctx;
    t->calls++;
    FUZZ_CHECK(t->type != FSC_OTLP_NONE);
    FUZZ_CHECK(fsc_buf_printf(&t->text, "\nP s%" PRIu64 " t%" PRIu64 " f%" PRIu32, p->start_ns,
                              p->time_ns, p->flags) == 0);
    trace_attrs(t, p->attrs, p->n_attrs);
    if (t->type == FSC_OTLP_GAUGE || t->type == FSC_OTLP_SUM) {
        FUZZ_CHECK(p->value_kind <= FSC_OTLP_VALUE_DOUBLE);
        FUZZ_CHECK(fsc_buf_printf(&t->text, " v%u", p->value_kind) == 0);
        if (p->value_kind == FSC_OTLP_VALUE_INT)
            FUZZ_CHECK(fsc_buf_printf(&t->text, " %" PRId64, p->as_int) == 0);
        else if (p->value_kind == FSC_OTLP_VALUE_DOUBLE)
            trace_f64(t, p->as_double);
        return;
    }
    FUZZ_CHECK(fsc_buf_printf(&t->text, " c%" PRIu64, p->count) == 0);
    if (t->type == FSC_OTLP_SUMMARY)
        trace_f64(t, p->has_sum ? p->sum : 0.0);
    else if (p->has_sum)
        trace_f64(t, p->sum);
    else
        FUZZ_CHECK(fsc_buf_puts(&t->text, " nosum") == 0);
    FUZZ_CHECK(p->n_bounds <= FSC_OTLP_BUCKETS_MAX && p->n_buckets <= FSC_OTLP_BUCKETS_MAX);
    if (t->type != FSC_OTLP_HISTOGRAM)
        FUZZ_CHECK(p->n_bounds == 0 && p->n_buckets == 0);
    FUZZ_CHECK(fsc_buf_printf(&t->text, " b%" PRIu32, p->n_bounds) == 0);
    for (uint32_t i = 0; i < p->n_bounds; i++)
        trace_f64(t, p->bounds[i]);
    FUZZ_CHECK(fsc_buf_printf(&t->text, " k%" PRIu32, p->n_buckets) == 0);
    for (uint32_t i = 0; i < p->n_buckets; i++)
        FUZZ_CHECK(fsc_buf_printf(&t->text, " %" PRIu64, p->buckets[i]) == 0);
}

static inline struct fsc_otlp_visitor otlp_trace_visitor(struct otlp_trace *t)
{
    memset(t, 0, sizeof *t);
    return (struct fsc_otlp_visitor){t, trace_resource, trace_metric, trace_point};
}

/* ---- re-encoder --------------------------------------------------------------- */

/* Protobuf of what was visited: out gets whole ResourceMetrics fields; the
 * open resource, metric and points accumulate until the next callback or
 * otlp_enc_finish(). */
struct otlp_enc {
    struct fsc_buf out;      /* ExportMetricsServiceRequest */
    struct fsc_buf resource; /* Resource of the open ResourceMetrics */
    struct fsc_buf metrics;  /* Metric fields of its (one) ScopeMetrics */
    struct fsc_buf metric;   /* name/unit of the open Metric */
    struct fsc_buf points;   /* data_points of the open Metric's container */
    struct fsc_buf tmp, tmp2;
    struct fsc_otlp_metric m;
    int open_rm, open_metric;
};

static inline void enc_varint(struct fsc_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    FUZZ_CHECK(fsc_buf_append(b, t, n) == 0);
}

static inline void enc_tag(struct fsc_buf *b, uint32_t field, uint32_t wt)
{
    enc_varint(b, (uint64_t)field << 3 | wt);
}

static inline void enc_len(struct fsc_buf *b, uint32_t field, const void *p, size_t n)
{
    enc_tag(b, field, 2);
    enc_varint(b, n);
    FUZZ_CHECK(n == 0 || fsc_buf_append(b, p, n) == 0);
}

static inline void enc_fixed(struct fsc_buf *b, uint32_t field, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    enc_tag(b, field, 1);
    FUZZ_CHECK(fsc_buf_append(b, t, 8) == 0);
}

static inline uint64_t enc_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* KeyValue{key = 1; value = 2 AnyValue} as field `field` of b. */
static inline void enc_attrs(struct otlp_enc *e, struct fsc_buf *b, uint32_t field,
                             const struct fsc_otlp_attr *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        fsc_buf_reset(&e->tmp);
        fsc_buf_reset(&e->tmp2);
        switch (a[i].type) { /* AnyValue */
        case FSC_OTLP_VAL_STRING:
            enc_len(&e->tmp2, 1, a[i].s.p, a[i].s.len);
            break;
        case FSC_OTLP_VAL_BOOL:
            enc_tag(&e->tmp2, 2, 0);
            enc_varint(&e->tmp2, (uint64_t)a[i].i);
            break;
        case FSC_OTLP_VAL_INT:
            enc_tag(&e->tmp2, 3, 0);
            enc_varint(&e->tmp2, (uint64_t)a[i].i);
            break;
        case FSC_OTLP_VAL_DOUBLE:
            enc_fixed(&e->tmp2, 4, enc_bits(a[i].d));
            break;
        case FSC_OTLP_VAL_OTHER:
            enc_len(&e->tmp2, 7, "", 0); /* bytes_value: also "other" */
            break;
        default:
            break;
        }
        enc_len(&e->tmp, 1, a[i].key.p, a[i].key.len);
        enc_len(&e->tmp, 2, e->tmp2.data, e->tmp2.len);
        enc_len(b, field, e->tmp.data, e->tmp.len);
    }
}

static inline void enc_close_metric(struct otlp_enc *e)
{
    if (!e->open_metric)
        return;
    e->open_metric = 0;
    static const uint32_t container_field[] = {0, 5, 7, 9, 10, 11};
    if (e->m.type != FSC_OTLP_NONE) {
        fsc_buf_reset(&e->tmp);
        FUZZ_CHECK(e->points.len == 0 ||
                   fsc_buf_append(&e->tmp, e->points.data, e->points.len) == 0);
        if (e->m.temporality) {
            enc_tag(&e->tmp, 2, 0);
            enc_varint(&e->tmp, e->m.temporality);
        }
        if (e->m.monotonic) {
            enc_tag(&e->tmp, 3, 0);
            enc_varint(&e->tmp, 1);
        }
        enc_len(&e->metric, container_field[e->m.type], e->tmp.data, e->tmp.len);
    }
    enc_len(&e->metrics, 2, e->metric.data, e->metric.len);
}

static inline void enc_close_rm(struct otlp_enc *e)
{
    enc_close_metric(e);
    if (!e->open_rm)
        return;
    e->open_rm = 0;
    struct fsc_buf rm = {0};
    enc_len(&rm, 1, e->resource.data, e->resource.len);
    /* e->metrics holds ScopeMetrics.metrics fields: it is the scope's body */
    enc_len(&rm, 2, e->metrics.data, e->metrics.len);
    enc_len(&e->out, 1, rm.data, rm.len);
    fsc_buf_free(&rm);
}

static inline void enc_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n)
{
    struct otlp_enc *e = ctx;
    enc_close_rm(e);
    e->open_rm = 1;
    fsc_buf_reset(&e->resource);
    fsc_buf_reset(&e->metrics);
    enc_attrs(e, &e->resource, 1, attrs, n);
}

static inline void enc_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct otlp_enc *e = ctx;
    FUZZ_CHECK(e->open_rm);
    enc_close_metric(e);
    e->open_metric = 1;
    e->m = *m;
    fsc_buf_reset(&e->metric);
    fsc_buf_reset(&e->points);
    enc_len(&e->metric, 1, m->name.p, m->name.len);
    if (m->unit.len)
        enc_len(&e->metric, 3, m->unit.p, m->unit.len);
}

static inline void enc_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct otlp_enc *e = ctx;
    struct fsc_buf pt = {0};
    FUZZ_CHECK(e->open_metric);
    /* field numbers per kind: attributes, flags */
    uint32_t f_attr = 7, f_flags = 8;
    if (e->m.type == FSC_OTLP_HISTOGRAM) {
        f_attr = 9;
        f_flags = 10;
    } else if (e->m.type == FSC_OTLP_EXP_HISTOGRAM) {
        f_attr = 1;
        f_flags = 10;
    }
    if (p->start_ns)
        enc_fixed(&pt, 2, p->start_ns);
    if (p->time_ns)
        enc_fixed(&pt, 3, p->time_ns);
    if (e->m.type == FSC_OTLP_GAUGE || e->m.type == FSC_OTLP_SUM) {
        if (p->value_kind == FSC_OTLP_VALUE_DOUBLE)
            enc_fixed(&pt, 4, enc_bits(p->as_double));
        else if (p->value_kind == FSC_OTLP_VALUE_INT)
            enc_fixed(&pt, 6, (uint64_t)p->as_int);
    } else {
        if (p->count)
            enc_fixed(&pt, 4, p->count);
        if (p->has_sum)
            enc_fixed(&pt, 5, enc_bits(p->sum));
        if (e->m.type == FSC_OTLP_HISTOGRAM) {
            struct fsc_buf packed = {0};
            for (uint32_t i = 0; i < p->n_buckets; i++) {
                uint64_t v = p->buckets[i];
                uint8_t t[8];
                for (int k = 0; k < 8; k++)
                    t[k] = (uint8_t)(v >> (8 * k));
                FUZZ_CHECK(fsc_buf_append(&packed, t, 8) == 0);
            }
            if (p->n_buckets)
                enc_len(&pt, 6, packed.data, packed.len);
            fsc_buf_reset(&packed);
            for (uint32_t i = 0; i < p->n_bounds; i++) {
                uint64_t v = enc_bits(p->bounds[i]);
                uint8_t t[8];
                for (int k = 0; k < 8; k++)
                    t[k] = (uint8_t)(v >> (8 * k));
                FUZZ_CHECK(fsc_buf_append(&packed, t, 8) == 0);
            }
            if (p->n_bounds)
                enc_len(&pt, 7, packed.data, packed.len);
            fsc_buf_free(&packed);
        }
    }
    enc_attrs(e, &pt, f_attr, p->attrs, p->n_attrs);
    if (p->flags) {
        enc_tag(&pt, f_flags, 0);
        enc_varint(&pt, p->flags);
    }
    enc_len(&e->points, 1, pt.data, pt.len);
    fsc_buf_free(&pt);
}

static inline struct fsc_otlp_visitor otlp_enc_visitor(struct otlp_enc *e)
{
    memset(e, 0, sizeof *e);
    return (struct fsc_otlp_visitor){e, enc_resource, enc_metric, enc_point};
}

/* Closes what is open; e->out then holds the request. */
static inline void otlp_enc_finish(struct otlp_enc *e)
{
    enc_close_rm(e);
}

static inline void otlp_enc_free(struct otlp_enc *e)
{
    fsc_buf_free(&e->out);
    fsc_buf_free(&e->resource);
    fsc_buf_free(&e->metrics);
    fsc_buf_free(&e->metric);
    fsc_buf_free(&e->points);
    fsc_buf_free(&e->tmp);
    fsc_buf_free(&e->tmp2);
}

/* Both traces equal, or both printed and abort. */
static inline void otlp_trace_same(const struct otlp_trace *a, const struct otlp_trace *b)
{
    if (a->text.len == b->text.len &&
        (a->text.len == 0 || memcmp(a->text.data, b->text.data, a->text.len) == 0))
        return;
    fprintf(stderr, "first decode:%.*s\n---- re-encoded decode:%.*s\n", (int)a->text.len,
            a->text.data ? a->text.data : "", (int)b->text.len, b->text.data ? b->text.data : "");
    FUZZ_CHECK(!"traces differ");
}

#endif
