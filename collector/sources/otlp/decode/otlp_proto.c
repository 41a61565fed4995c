/* OTLP ExportMetricsServiceRequest decoder for application/x-protobuf and
 * gRPC bodies (otlp_point.h): a hand-written walk over the wire bytes.
 *
 * Why not protobuf-c unpack: it allocates a tree of every message, string and
 * repeated field per request (thousands of mallocs for one Cumulus export),
 * and its failure modes are an allocator's. Here strings point into the
 * request, attributes and histogram arrays go to bounded scratch in one stack
 * frame, and nothing is allocated.
 *
 * Two passes over the same bytes with the same code: the first (visit =
 * false) checks everything (structure, lengths, wire types of known fields,
 * the ATTRS/BUCKETS/DEPTH bounds, the contents of fields we do not use such
 * as exemplars and metadata) and calls nothing; the second (visit = true)
 * calls the visitor and skips what the first already proved well-formed.
 * Sharing the code means the second pass cannot meet an error the first did
 * not, which is what makes "no callback unless the whole request is
 * well-formed" hold without a second copy of the rules.
 *
 * Field order is free in protobuf: a Metric is read twice (name, unit and its
 * data containers first, then the points), a data container twice in the
 * visiting pass (temporality / is_monotonic first, then the points), a
 * ResourceMetrics twice (resource attributes first, then its scopes).
 * Repeated occurrences follow protobuf merge rules: a later scalar wins,
 * repeated fields and embedded messages of the same field concatenate, and
 * within a oneof the last member on the wire wins (for Metric.data: points
 * of the last run of the same container field). */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "sources/otlp/decode/otlp_point.h"
#include "sources/otlp/decode/otlp_proto_wire.h"

enum point_kind { PK_NUMBER, PK_HIST, PK_EXPHIST, PK_SUMMARY };

/* ---- data points --------------------------------------------------------------- */

/* What a data point field means: one table per point kind, indexed by field
 * number, so one loop reads all four kinds. */
enum role {
    R_UNKNOWN = 0,
    R_ATTR,
    R_START,
    R_TIME,
    R_COUNT,
    R_SUM,
    R_AS_DOUBLE,
    R_AS_INT,
    R_FLAGS,
    R_BUCKETS,  /* repeated fixed64, packed or not */
    R_BOUNDS,   /* repeated double, packed or not */
    R_EXEMPLAR, /* validated only */
    R_FIXED,    /* min, max, zero_threshold, zero_count: checked, unused */
    R_VARINT,   /* ExponentialHistogram scale: checked, unused */
    R_EXP_BUCKETS,
    R_QUANTILE,
    R_COUNT_
};

#define ROLE_FIELDS 15 /* highest point field number + 1 */

static const uint8_t roles[4][ROLE_FIELDS] = {
    [PK_NUMBER] = {[2] = R_START,
                   [3] = R_TIME,
                   [4] = R_AS_DOUBLE,
                   [5] = R_EXEMPLAR,
                   [6] = R_AS_INT,
                   [7] = R_ATTR,
                   [8] = R_FLAGS},
    [PK_HIST] = {[2] = R_START,
                 [3] = R_TIME,
                 [4] = R_COUNT,
                 [5] = R_SUM,
                 [6] = R_BUCKETS,
                 [7] = R_BOUNDS,
                 [8] = R_EXEMPLAR,
                 [9] = R_ATTR,
                 [10] = R_FLAGS,
                 [11] = R_FIXED,
                 [12] = R_FIXED},
    [PK_EXPHIST] = {[1] = R_ATTR,
                    [2] = R_START,
                    [3] = R_TIME,
                    [4] = R_COUNT,
                    [5] = R_SUM,
                    [6] = R_VARINT,
                    [7] = R_FIXED,
                    [8] = R_EXP_BUCKETS,
                    [9] = R_EXP_BUCKETS,
                    [10] = R_FLAGS,
                    [11] = R_EXEMPLAR,
                    [12] = R_FIXED,
                    [13] = R_FIXED,
                    [14] = R_FIXED},
    [PK_SUMMARY] = {[2] = R_START,
                    [3] = R_TIME,
                    [4] = R_COUNT,
                    [5] = R_SUM,
                    [6] = R_QUANTILE,
                    [7] = R_ATTR,
                    [8] = R_FLAGS},
};

static const struct {
    const char *name;
    uint8_t wt;
} role_info[R_COUNT_] = {
    [R_START] = {"start_time_unix_nano", FSC_PB_I64},
    [R_TIME] = {"time_unix_nano", FSC_PB_I64},
    [R_COUNT] = {"count", FSC_PB_I64},
    [R_SUM] = {"sum", FSC_PB_I64},
    [R_AS_DOUBLE] = {"as_double", FSC_PB_I64},
    [R_AS_INT] = {"as_int", FSC_PB_I64},
    [R_FLAGS] = {"flags", FSC_PB_VARINT},
    [R_EXEMPLAR] = {"exemplars", FSC_PB_LEN},
    [R_FIXED] = {"fixed64/double", FSC_PB_I64},
    [R_VARINT] = {"scale", FSC_PB_VARINT},
    [R_EXP_BUCKETS] = {"positive/negative", FSC_PB_LEN},
    [R_QUANTILE] = {"quantile_values", FSC_PB_LEN},
};

static const char *const point_names[4] = {"NumberDataPoint", "HistogramDataPoint",
                                           "ExponentialHistogramDataPoint", "SummaryDataPoint"};

/* Appends a repeated fixed64/double field (one unpacked element, or a packed
 * run) to out, which holds *n of at most FSC_OTLP_BUCKETS_MAX 8-byte values.
 * Copied by bit pattern into the aligned scratch (doubles included), and only
 * in the visiting pass: the first pass needs the count alone. */
static int add_fixed64s(struct pw_dec *d, const struct pw_where *w, const struct fsc_pb_field *f,
                        const char *name, void *out, uint32_t *n)
{
    uint8_t *o = out;
    size_t k;
    if (f->wt == FSC_PB_I64) {
        k = 1;
    } else if (f->wt == FSC_PB_LEN) {
        if (f->n % 8 != 0)
            return PW_FAIL(d, w, f->p, "packed %s length %zu is not a multiple of 8", name, f->n);
        k = f->n / 8;
    } else {
        return PW_FAIL(d, w, f->at, "field %u (%s) has wire type %u, expected 1 or 2", f->num, name,
                       f->wt);
    }
    if (k > FSC_OTLP_BUCKETS_MAX - *n)
        return PW_FAIL(d, w, f->at, "more than %d %s", FSC_OTLP_BUCKETS_MAX, name);
    if (d->visit) {
        if (f->wt == FSC_PB_I64) {
            memcpy(o + 8 * (size_t)*n, &f->u, 8);
        } else {
            for (size_t i = 0; i < k; i++) {
                uint64_t u = fsc_pb_le64(f->p + 8 * i);
                memcpy(o + 8 * ((size_t)*n + i), &u, 8);
            }
        }
    }
    *n += (uint32_t)k;
    return 0;
}

/* Exemplar: filtered_attributes 7, time 2, as_double 3, as_int 6, span_id 4,
 * trace_id 5. Validated, never handed over. */
static int check_exemplar(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                          const uint8_t *end)
{
    struct fsc_pb_field f;
    uint32_t na = 0;
    int rc;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        if (f.num == 7) {
            if ((rc = otlp_pw_check_kv(d, w, "filtered_attributes", na++, &f)) != 0)
                return rc;
        } else if (f.num == 2 || f.num == 3 || f.num == 6) {
            PW_WANT(d, w, &f, "time/value", FSC_PB_I64);
        } else if (f.num == 4 || f.num == 5) {
            PW_WANT(d, w, &f, "span_id/trace_id", FSC_PB_LEN);
        }
    }
    return rc;
}

/* ExponentialHistogramDataPoint.Buckets {sint32 offset = 1; repeated uint64
 * bucket_counts = 2} and SummaryDataPoint.ValueAtQuantile {double quantile =
 * 1; double value = 2}: validated, never handed over. */
static int check_point_part(struct pw_dec *d, const struct pw_where *w, int role, const uint8_t *p,
                            const uint8_t *end)
{
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        if (role == R_QUANTILE) {
            if (f.num == 1 || f.num == 2)
                PW_WANT(d, w, &f, "quantile/value", FSC_PB_I64);
        } else if (f.num == 1) {
            PW_WANT(d, w, &f, "offset", FSC_PB_VARINT);
        } else if (f.num == 2 && f.wt == FSC_PB_LEN) { /* packed varints */
            const uint8_t *q = f.p, *qend = f.p + f.n;
            uint64_t u;
            while (q < qend)
                if ((rc = fsc_pb_varint(&q, qend, &u)) != 0)
                    return PW_FAIL(d, w, q, "bucket_counts: %s", otlp_pw_strerror(rc));
        } else if (f.num == 2) {
            PW_WANT(d, w, &f, "bucket_counts", FSC_PB_VARINT);
        }
    }
    return rc;
}

/* One data point of `kind`; in the visiting pass it goes to point(). */
static int parse_point(struct pw_dec *d, const struct pw_where *up, uint32_t idx, int kind,
                       const uint8_t *p, const uint8_t *end)
{
    struct pw_where w = {up, point_names[kind], idx, true, {NULL, 0}};
    struct fsc_otlp_point pt;
    struct fsc_pb_field f;
    uint32_t n_exemplars = 0;
    int rc;
    memset(&pt, 0, sizeof(pt));
    d->n_attrs = d->n_bounds = d->n_buckets = 0;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        int role = f.num < ROLE_FIELDS ? roles[kind][f.num] : R_UNKNOWN;
        if (role == R_UNKNOWN)
            continue;
        if (role == R_ATTR) {
            if ((rc = otlp_pw_add_attr(d, &w, &f)) != 0)
                return rc;
            continue;
        }
        if (role == R_BUCKETS || role == R_BOUNDS) {
            rc = role == R_BUCKETS
                     ? add_fixed64s(d, &w, &f, "bucket_counts", d->buckets, &d->n_buckets)
                     : add_fixed64s(d, &w, &f, "explicit_bounds", d->bounds, &d->n_bounds);
            if (rc != 0)
                return rc;
            continue;
        }
        PW_WANT(d, &w, &f, role_info[role].name, role_info[role].wt);
        switch (role) {
        case R_START:
            pt.start_ns = f.u;
            break;
        case R_TIME:
            pt.time_ns = f.u;
            break;
        case R_COUNT:
            pt.count = f.u;
            break;
        case R_SUM:
            pt.has_sum = true; /* presence on the wire (proto3 `optional`) */
            pt.sum = fsc_pb_double(f.u);
            break;
        case R_AS_DOUBLE:
            pt.value_kind = FSC_OTLP_VALUE_DOUBLE;
            pt.as_double = fsc_pb_double(f.u);
            pt.as_int = 0;
            break;
        case R_AS_INT:
            pt.value_kind = FSC_OTLP_VALUE_INT;
            pt.as_int = (int64_t)f.u;
            pt.as_double = 0;
            break;
        case R_FLAGS:
            pt.flags = (uint32_t)f.u; /* uint32 on the wire: protobuf truncates too */
            break;
        case R_EXEMPLAR:
            if (!d->visit) {
                struct pw_where we = {&w, "exemplars", n_exemplars++, true, {NULL, 0}};
                if ((rc = check_exemplar(d, &we, f.p, f.p + f.n)) != 0)
                    return rc;
            }
            break;
        case R_EXP_BUCKETS:
        case R_QUANTILE:
            if (!d->visit && (rc = check_point_part(d, &w, role, f.p, f.p + f.n)) != 0)
                return rc;
            break;
        default: /* R_FIXED, R_VARINT: wire type checked, value unused */
            break;
        }
    }
    if (rc < 0)
        return rc;
    /* SummaryDataPoint.sum has no presence in proto3: absent means 0. */
    if (kind == PK_SUMMARY)
        pt.has_sum = true;
    if (d->visit && d->v->point) {
        pt.attrs = d->attrs;
        pt.n_attrs = d->n_attrs;
        pt.bounds = d->bounds;
        pt.n_bounds = d->n_bounds;
        pt.buckets = d->buckets;
        pt.n_buckets = d->n_buckets;
        d->v->point(d->v->ctx, &pt);
    }
    return 0;
}

/* ---- Metric ------------------------------------------------------------------------ */

static uint8_t container_type(uint32_t field)
{
    switch (field) {
    case 5:
        return FSC_OTLP_GAUGE;
    case 7:
        return FSC_OTLP_SUM;
    case 9:
        return FSC_OTLP_HISTOGRAM;
    case 10:
        return FSC_OTLP_EXP_HISTOGRAM;
    case 11:
        return FSC_OTLP_SUMMARY;
    default:
        return FSC_OTLP_NONE;
    }
}

static const char *const container_names[] = {
    [FSC_OTLP_GAUGE] = "gauge",         [FSC_OTLP_SUM] = "sum",
    [FSC_OTLP_HISTOGRAM] = "histogram", [FSC_OTLP_EXP_HISTOGRAM] = "exponential_histogram",
    [FSC_OTLP_SUMMARY] = "summary",
};

/* One data container (Gauge, Sum, ...): aggregation_temporality (2) and
 * is_monotonic (3) into m where the type has them, and, when points is not
 * NULL, each data point (1) numbered from *points on. */
static int parse_container(struct pw_dec *d, const struct pw_where *up, uint8_t type,
                           const uint8_t *p, const uint8_t *end, struct fsc_otlp_metric *m,
                           uint32_t *points)
{
    struct pw_where w = {up, container_names[type], 0, false, {NULL, 0}};
    int kind = type == FSC_OTLP_HISTOGRAM       ? PK_HIST
               : type == FSC_OTLP_EXP_HISTOGRAM ? PK_EXPHIST
               : type == FSC_OTLP_SUMMARY       ? PK_SUMMARY
                                                : PK_NUMBER;
    bool has_temp =
        type == FSC_OTLP_SUM || type == FSC_OTLP_HISTOGRAM || type == FSC_OTLP_EXP_HISTOGRAM;
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        if (f.num == 1) {
            PW_WANT(d, &w, &f, "data_points", FSC_PB_LEN);
            if (points && (rc = parse_point(d, &w, (*points)++, kind, f.p, f.p + f.n)) != 0)
                return rc;
        } else if (f.num == 2 && has_temp) {
            PW_WANT(d, &w, &f, "aggregation_temporality", FSC_PB_VARINT);
            /* An open enum: a value we do not know is passed on as
             * UNSPECIFIED (never truncated into a known one), which the
             * ingest refuses like an explicit UNSPECIFIED. */
            m->temporality =
                f.u <= FSC_OTLP_TEMP_CUMULATIVE ? (uint8_t)f.u : FSC_OTLP_TEMP_UNSPECIFIED;
        } else if (f.num == 3 && type == FSC_OTLP_SUM) {
            PW_WANT(d, &w, &f, "is_monotonic", FSC_PB_VARINT);
            m->monotonic = f.u != 0;
        }
    }
    return rc;
}

/* Metric: name and unit wherever they sit, then metric() and the points of
 * its data container. The oneof `data` keeps the last member on the wire;
 * repeats of that same member just before it merge (protobuf semantics), so
 * the points are those of the last run of one container field, starting at
 * `run`. The validating pass walks every container and the metadata. */
static int parse_metric(struct pw_dec *d, const struct pw_where *up, uint32_t idx,
                        const uint8_t *p0, const uint8_t *end)
{
    struct pw_where w = {up, "Metric", idx, true, {NULL, 0}};
    struct fsc_otlp_metric m;
    const uint8_t *p = p0, *run = NULL;
    struct fsc_pb_field f;
    int rc;
    memset(&m, 0, sizeof(m));
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        uint8_t type = container_type(f.num);
        if (type != FSC_OTLP_NONE) {
            PW_WANT(d, &w, &f, container_names[type], FSC_PB_LEN);
            if (type != m.type) {
                m.type = type;
                run = f.at;
            }
        } else if (f.num == 1) {
            PW_WANT(d, &w, &f, "name", FSC_PB_LEN);
            m.name = pw_str(&f);
        } else if (f.num == 2) {
            PW_WANT(d, &w, &f, "description", FSC_PB_LEN);
        } else if (f.num == 3) {
            PW_WANT(d, &w, &f, "unit", FSC_PB_LEN);
            m.unit = pw_str(&f);
        } else if (f.num == 12) {
            PW_WANT(d, &w, &f, "metadata", FSC_PB_LEN);
        }
    }
    if (rc < 0)
        return rc;
    w.name = m.name;

    if (!d->visit) {
        uint32_t n_meta = 0, points = 0;
        for (p = p0; (rc = pw_get(d, &w, &p, end, &f)) > 0;) {
            uint8_t type = container_type(f.num);
            struct fsc_otlp_metric scratch = m;
            rc = 0;
            if (type != FSC_OTLP_NONE)
                rc = parse_container(d, &w, type, f.p, f.p + f.n, &scratch, &points);
            else if (f.num == 12)
                rc = otlp_pw_check_kv(d, &w, "metadata", n_meta++, &f);
            if (rc != 0)
                return rc;
        }
        return rc;
    }

    /* Scalars of the winning run first (Gauge and Summary have none). */
    if (m.type == FSC_OTLP_SUM || m.type == FSC_OTLP_HISTOGRAM || m.type == FSC_OTLP_EXP_HISTOGRAM)
        for (p = run; pw_get(d, &w, &p, end, &f) > 0;)
            if (container_type(f.num) == m.type)
                parse_container(d, &w, m.type, f.p, f.p + f.n, &m, NULL);
    if (d->v->metric)
        d->v->metric(d->v->ctx, &m);
    if (m.type == FSC_OTLP_NONE)
        return 0;
    uint32_t points = 0;
    for (p = run; pw_get(d, &w, &p, end, &f) > 0;) {
        if (container_type(f.num) != m.type)
            continue;
        struct fsc_otlp_metric scratch = m;
        if ((rc = parse_container(d, &w, m.type, f.p, f.p + f.n, &scratch, &points)) != 0)
            return rc;
    }
    return 0;
}

/* ---- ResourceMetrics / ScopeMetrics / request -------------------------------------- */

/* InstrumentationScope {name 1; version 2; attributes 3; dropped 4}:
 * validated, never handed over. */
static int check_scope(struct pw_dec *d, const struct pw_where *up, const uint8_t *p,
                       const uint8_t *end)
{
    struct pw_where w = {up, "scope", 0, false, {NULL, 0}};
    struct fsc_pb_field f;
    uint32_t na = 0;
    int rc;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        if (f.num == 1 || f.num == 2) {
            PW_WANT(d, &w, &f, f.num == 1 ? "name" : "version", FSC_PB_LEN);
        } else if (f.num == 3) {
            if ((rc = otlp_pw_check_kv(d, &w, "attributes", na++, &f)) != 0)
                return rc;
        } else if (f.num == 4) {
            PW_WANT(d, &w, &f, "dropped_attributes_count", FSC_PB_VARINT);
        }
    }
    return rc;
}

static int parse_scope_metrics(struct pw_dec *d, const struct pw_where *up, uint32_t idx,
                               const uint8_t *p, const uint8_t *end)
{
    struct pw_where w = {up, "ScopeMetrics", idx, true, {NULL, 0}};
    struct fsc_pb_field f;
    uint32_t n_metrics = 0;
    int rc;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        if (f.num == 1) {
            PW_WANT(d, &w, &f, "scope", FSC_PB_LEN);
            if (!d->visit && (rc = check_scope(d, &w, f.p, f.p + f.n)) != 0)
                return rc;
        } else if (f.num == 2) {
            PW_WANT(d, &w, &f, "metrics", FSC_PB_LEN);
            if ((rc = parse_metric(d, &w, n_metrics++, f.p, f.p + f.n)) != 0)
                return rc;
        } else if (f.num == 3) {
            PW_WANT(d, &w, &f, "schema_url", FSC_PB_LEN);
        }
    }
    return rc;
}

/* Resource {repeated KeyValue attributes = 1; uint32 dropped = 2}: attributes
 * appended to the scratch (a repeated Resource field merges). */
static int parse_resource(struct pw_dec *d, const struct pw_where *up, const uint8_t *p,
                          const uint8_t *end)
{
    struct pw_where w = {up, "resource", 0, false, {NULL, 0}};
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        if (f.num == 1) {
            if ((rc = otlp_pw_add_attr(d, &w, &f)) != 0)
                return rc;
        } else if (f.num == 2) {
            PW_WANT(d, &w, &f, "dropped_attributes_count", FSC_PB_VARINT);
        }
    }
    return rc;
}

/* ResourceMetrics: resource() with its attributes, wherever the resource
 * field sits, then its scopes in order. */
static int parse_resource_metrics(struct pw_dec *d, uint32_t idx, const uint8_t *p0,
                                  const uint8_t *end)
{
    struct pw_where w = {NULL, "ResourceMetrics", idx, true, {NULL, 0}};
    const uint8_t *p = p0;
    struct fsc_pb_field f;
    uint32_t n_scopes = 0;
    int rc;
    d->n_attrs = 0;
    while ((rc = pw_get(d, &w, &p, end, &f)) > 0) {
        if (f.num == 1) {
            PW_WANT(d, &w, &f, "resource", FSC_PB_LEN);
            if ((rc = parse_resource(d, &w, f.p, f.p + f.n)) != 0)
                return rc;
        } else if (f.num == 2) {
            PW_WANT(d, &w, &f, "scope_metrics", FSC_PB_LEN);
        } else if (f.num == 3) {
            PW_WANT(d, &w, &f, "schema_url", FSC_PB_LEN);
        }
    }
    if (rc < 0)
        return rc;
    if (d->visit && d->v->resource)
        d->v->resource(d->v->ctx, d->attrs, d->n_attrs);
    for (p = p0; (rc = pw_get(d, &w, &p, end, &f)) > 0;)
        if (f.num == 2 && (rc = parse_scope_metrics(d, &w, n_scopes++, f.p, f.p + f.n)) != 0)
            return rc;
    return rc;
}

static int parse_request(struct pw_dec *d, const uint8_t *p, const uint8_t *end)
{
    struct fsc_pb_field f;
    uint32_t n_rm = 0;
    int rc;
    while ((rc = pw_get(d, NULL, &p, end, &f)) > 0) {
        if (f.num != 1)
            continue;
        PW_WANT(d, NULL, &f, "resource_metrics", FSC_PB_LEN);
        if ((rc = parse_resource_metrics(d, n_rm++, f.p, f.p + f.n)) != 0)
            return rc;
    }
    return rc;
}

int fsc_otlp_decode_proto(const uint8_t *buf, size_t len, const struct fsc_otlp_visitor *v,
                          char *err, size_t errlen)
{
    /* The scratch arrays are not cleared: every entry handed over was written
     * for the point or resource at hand. */
    struct pw_dec d;
    d.base = buf;
    d.v = v;
    d.visit = false;
    d.err = err;
    d.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    if (len == 0)
        return 0;
    if (!buf)
        return otlp_pw_fail(err, errlen, NULL, 0, "no buffer for %zu bytes", len);
    if ((uint64_t)len > UINT32_MAX) /* so every string length fits struct fsc_otlp_str */
        return otlp_pw_fail(err, errlen, NULL, 0, "request of %zu bytes is above 4 GiB", len);
    int rc = parse_request(&d, buf, buf + len);
    if (rc != 0 || !v)
        return rc;
    d.visit = true;
    rc = parse_request(&d, buf, buf + len);
    /* The same walk over the same bytes as the pass that found no error. */
    assert(rc == 0);
    return rc;
}
