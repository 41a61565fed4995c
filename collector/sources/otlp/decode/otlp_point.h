/* The OTLP data model as the receiver's decoders hand it over (docs/DESIGN.md, "One data model").
 *
 * Two decoders (otlp_proto.c for application/x-protobuf and gRPC, otlp_json.c
 * for OTLP/JSON) turn one ExportMetricsServiceRequest into calls on a
 * `struct fsc_otlp_visitor`; the ingest (otlp_ingest.h) is the visitor that
 * turns points into samples. Neither side sees the other's format, so the
 * point logic (profiles, resets, delta accumulation, histograms, limits) is
 * written and tested once.
 *
 * Call order for one request, for every ResourceMetrics in input order:
 *   resource(attrs)                        once, before its metrics
 *   for every Metric of every ScopeMetrics: metric(m), then point(p) for
 *   each of its data points in input order.
 * A decoder first checks that the WHOLE input is well-formed and calls no
 * callback at all otherwise (a malformed request is refused as a whole, so a
 * retried or fixed request never double-counts a delta). Field order inside a
 * message is free in protobuf and JSON: decoders find Metric.name and the data
 * container's temporality wherever they sit before visiting points.
 *
 * Every pointer in these structs (strings, attribute arrays, bounds, bucket
 * counts) is valid only during the callback that receives it: strings point
 * into the request buffer or the decoder's scratch and are NOT
 * NUL-terminated. Copy what must outlive the call. */
#ifndef FSC_OTLP_POINT_H
#define FSC_OTLP_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSC_OTLP_ATTRS_MAX   64  /* attributes per resource or per point (more: malformed) */
#define FSC_OTLP_BUCKETS_MAX 512 /* histogram bucket counts per point (more: malformed) */
#define FSC_OTLP_DEPTH_MAX   16  /* nesting of AnyValue arrays / kvlists (more: malformed) */

/* A byte string inside the request or the decoder's scratch. */
struct fsc_otlp_str {
    const char *p;
    uint32_t len;
};

enum fsc_otlp_value_type {
    FSC_OTLP_VAL_EMPTY = 0, /* AnyValue with no value set */
    FSC_OTLP_VAL_STRING,
    FSC_OTLP_VAL_BOOL,
    FSC_OTLP_VAL_INT,
    FSC_OTLP_VAL_DOUBLE,
    FSC_OTLP_VAL_OTHER, /* array, kvlist or bytes: kept as a type only, never a label */
};

/* One KeyValue. `pg` arrives as int in histograms and as string "0" in
 * buffer stats (docs/vendors/cumulus.md, "Buffer statistics"): consumers compare by text, see
 * fsc_otlp_attr_text(). */
struct fsc_otlp_attr {
    struct fsc_otlp_str key;
    uint8_t type;          /* enum fsc_otlp_value_type */
    struct fsc_otlp_str s; /* FSC_OTLP_VAL_STRING */
    int64_t i;             /* FSC_OTLP_VAL_INT; FSC_OTLP_VAL_BOOL: 0 or 1 */
    double d;              /* FSC_OTLP_VAL_DOUBLE */
};

enum fsc_otlp_metric_type {
    FSC_OTLP_NONE = 0, /* Metric without a data container: its points are none */
    FSC_OTLP_GAUGE,
    FSC_OTLP_SUM,
    FSC_OTLP_HISTOGRAM,
    FSC_OTLP_EXP_HISTOGRAM, /* visited with count/sum only; no buckets */
    FSC_OTLP_SUMMARY,       /* visited with count/sum only */
};

enum fsc_otlp_temporality {
    FSC_OTLP_TEMP_UNSPECIFIED = 0,
    FSC_OTLP_TEMP_DELTA = 1,
    FSC_OTLP_TEMP_CUMULATIVE = 2,
};

struct fsc_otlp_metric {
    struct fsc_otlp_str name;
    struct fsc_otlp_str unit;
    uint8_t type;        /* enum fsc_otlp_metric_type */
    uint8_t temporality; /* enum fsc_otlp_temporality (Sum, Histogram, ExpHistogram) */
    bool monotonic;      /* Sum.is_monotonic */
};

#define FSC_OTLP_FLAG_NO_RECORDED_VALUE 1u /* DataPointFlags bit 0 */

struct fsc_otlp_point {
    const struct fsc_otlp_attr *attrs;
    uint32_t n_attrs;
    uint64_t start_ns; /* start_time_unix_nano; 0 = absent */
    uint64_t time_ns;  /* time_unix_nano; 0 = absent (the ingest rejects it) */
    uint32_t flags;    /* DataPointFlags */

    /* Gauge / Sum (NumberDataPoint) */
    uint8_t value_kind; /* 0 = no value, 1 = as_int, 2 = as_double */
    int64_t as_int;
    double as_double;

    /* Histogram / ExpHistogram / Summary */
    uint64_t count;
    bool has_sum;
    double sum;
    const double *bounds; /* explicit_bounds, n_bounds entries (aligned copy) */
    uint32_t n_bounds;
    const uint64_t *buckets; /* bucket_counts, n_buckets entries (aligned copy) */
    uint32_t n_buckets;
};

enum { FSC_OTLP_VALUE_NONE = 0, FSC_OTLP_VALUE_INT = 1, FSC_OTLP_VALUE_DOUBLE = 2 };

/* What a decoder calls. Callbacks return nothing: accepting or rejecting a
 * point is the visitor's business (and its count). */
struct fsc_otlp_visitor {
    void *ctx;
    void (*resource)(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n_attrs);
    void (*metric)(void *ctx, const struct fsc_otlp_metric *m);
    void (*point)(void *ctx, const struct fsc_otlp_point *p);
};

/* Decodes application/x-protobuf bytes of one ExportMetricsServiceRequest
 * (also the gRPC message) and visits it. Returns 0, or -EBADMSG with a sentence
 * in err (what is wrong and at which byte offset) when the bytes are not a
 * well-formed request or exceed a bound above; then no callback was called.
 * Unknown fields are skipped. Thread: any; no allocation, no global state. */
int fsc_otlp_decode_proto(const uint8_t *buf, size_t len, const struct fsc_otlp_visitor *v,
                          char *err, size_t errlen);

/* Decodes one OTLP/JSON ExportMetricsServiceRequest (lowerCamelCase or
 * snake_case keys; 64-bit integers as strings, or as numbers within int64;
 * enums as integers; unknown keys ignored) and visits it. Parsed with
 * jansson: allocates a tree of the text (bounded, otlp_json_read.c), freed
 * before returning; the strings handed to the visitor point into it. buf:
 * len bytes, no NUL needed, only read. Returns 0, or -EBADMSG with a
 * sentence in err (a syntax error with its line and column, a schema error
 * with the path of keys and indexes to it) when the text is not valid JSON
 * or not a valid request, or exceeds a bound above, or -ENOMEM (and a
 * sentence) when memory ran out; then no callback was called. Thread: any. */
int fsc_otlp_decode_json(const char *buf, size_t len, const struct fsc_otlp_visitor *v, char *err,
                         size_t errlen);

/* Writes the attribute's value as text into out (cap bytes, NUL-terminated):
 * strings as they are, ints in decimal, bools as true/false, doubles in the
 * shortest form that reads back equal; EMPTY and OTHER give "". Returns the
 * length written (truncated to cap - 1). Thread: any. */
size_t fsc_otlp_attr_text(const struct fsc_otlp_attr *a, char *out, size_t cap);

#endif
