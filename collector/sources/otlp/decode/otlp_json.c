/* OTLP/JSON decoder (otlp_point.h): ExportMetricsServiceRequest text ->
 * visitor calls, on jansson's tree alone. This file: the design, its
 * decisions, the message schema walked twice and the entry point;
 * otlp_json_read.c: the text's bounds, the parse, members, scalars and the
 * error sentence; otlp_json_int.h: what they share.
 *
 * Every step may refuse the request; a refused request got no callback.
 *  1. Before jansson, one scan of the text: the top level must be an
 *     object, its nesting at most 128 levels and the tree jansson would
 *     build at most 128 MiB (otlp_json_read.c says why and how).
 *  2. jansson parses the text (json_loadb; a key repeated in an object is
 *     refused; \u0000 allowed in strings).
 *  3. The checking walk goes through the tree, checks the shape and types
 *     of every key it knows and the bounds, and calls nothing.
 *  4. The visiting walk goes through the tree with the same code and calls
 *     the visitor in the order it wants: a resource before its metrics, a
 *     metric's name, unit and temporality before its points, wherever those
 *     keys sit. It cannot meet an error the checking walk did not. Strings
 *     handed to the visitor point into the tree, freed before returning;
 *     the text is never written.
 *
 * Decisions:
 * - 64-bit integers (protobuf's JSON mapping sends int64, uint64 and
 *   fixed64 as JSON strings and accepts numbers): a string of decimal
 *   digits is read digit by digit, exact, beyond the type's range refused.
 *   A bare JSON number is taken when jansson holds it exactly: jansson
 *   keeps integers as int64 (json_integer), so one within int64 is exact.
 *   jansson cannot hold a bare number above INT64_MAX (timestamps up to
 *   UINT64_MAX are valid uint64): such a text is parsed again with every
 *   integer as a double, so that the walk can name the field, and a uint64
 *   field holding a number above INT64_MAX is refused with its path, asking
 *   for a string. In that tree (only then) an integer field's number is
 *   taken when it is integral and below 2^53, exact in a double (text
 *   like 2.0 or 1e3 then passes as the integer it equals: the tree no
 *   longer tells them apart), and refused above. A number beyond int64 in a
 *   key the decoder does not use costs nothing more. A bare -0 is 0.
 * - A duplicate key the decoder uses (camelCase and snake_case spellings are
 *   the same key) is malformed, as is more than one member of a oneof (two
 *   data containers in a Metric, asDouble and asInt, two AnyValue kinds).
 *   Last-wins would make the result depend on which duplicate a sender
 *   meant. jansson refuses one spelling twice in any object.
 * - A known key whose value is null counts as absent (protobuf JSON
 *   mapping), for the oneofs too; an array element that is null is not.
 * - Keys the decoder does not use (description, metadata, scope, schemaUrl,
 *   exemplars, quantileValues, the exponential buckets, ...) are skipped like
 *   unknown keys: only their JSON syntax is checked (by jansson; a number
 *   beyond a double's range is refused there too). min and max are checked
 *   as doubles but not delivered.
 * - Doubles any JSON number or a string holding one, NaN or +-Infinity;
 *   enums JSON integers; bools true / false (otlp_json_read.c).
 * - aggregationTemporality must be an integer; values other than 1 and 2 are
 *   delivered as UNSPECIFIED (open enum: the ingest decides).
 * - has_sum is true when a sum key was present (also for Summary points).
 * - Nesting: an attribute's own value is level 0; each arrayValue or
 *   kvlistValue inside goes one deeper; the 17th is malformed. JSON nesting
 *   beyond 128 is malformed anywhere, unknown keys included (step 1).
 * - At most 64 attributes per resource or point; bucketCounts and
 *   explicitBounds at most 512 entries each (their relation, buckets =
 *   bounds + 1, is the ingest's to judge).
 * - Errors: a syntax error is jansson's sentence after "invalid JSON: ",
 *   with jansson's line and column (the column in characters); the bounds
 *   of step 1 give a line and column too. A schema error names the path of
 *   known keys (camelCase) and indexes that leads to it,
 *   resourceMetrics[0].scopeMetrics[1].metrics[2].gauge.dataPoints[0].asInt,
 *   and no position: the tree holds none. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sources/otlp/decode/otlp_json_int.h"

#define CONTAINERS                                                                                 \
    (BIT(K_GAUGE) | BIT(K_SUM) | BIT(K_HISTOGRAM) | BIT(K_EXP_HISTOGRAM) | BIT(K_SUMMARY))
#define ANY_VALUES                                                                                 \
    (BIT(K_STRING_VALUE) | BIT(K_BOOL_VALUE) | BIT(K_INT_VALUE) | BIT(K_DOUBLE_VALUE) |            \
     BIT(K_ARRAY_VALUE) | BIT(K_KVLIST_VALUE) | BIT(K_BYTES_VALUE))
#define NUMBER_VALUES (BIT(K_AS_DOUBLE) | BIT(K_AS_INT))

typedef int (*walk_fn)(struct jdec *d, json_t *val);

/* The value of key k, if present, with fn (an error gets k on its path). */
#define FIELD(d, m, k, fn, ...) ((m)[k] ? otlp_json_in_key(d, k, fn(d, (m)[k], __VA_ARGS__)) : 0)

/* Calls elem once per element of arr, the value of key k (absent: none). */
static int walk_array(struct jdec *d, json_t *arr, enum key_id k, walk_fn elem)
{
    int rc;
    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return otlp_json_in_key(d, k, otlp_json_fail(d, "expected an array"));
    for (size_t i = 0; i < json_array_size(arr); i++)
        if ((rc = elem(d, json_array_get(arr, i))) < 0)
            return otlp_json_in_key(d, k, otlp_json_in_index(d, i, rc));
    return 0;
}

/* ---- attributes ------------------------------------------------------------------------ */

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a);
static int walk_anyvalue(struct jdec *d, json_t *obj, unsigned depth, struct fsc_otlp_attr *a);

/* arrayValue {values: [AnyValue]} or kvlistValue {values: [KeyValue]}:
 * checked to the depth bound, not delivered. */
static int walk_nested(struct jdec *d, json_t *obj, unsigned depth, bool kvlist)
{
    json_t *m[K_IDS], *arr;
    struct fsc_otlp_attr inner;
    int rc = otlp_json_members(d, obj, BIT(K_VALUES), 0, NULL, m);
    if (rc < 0 || !(arr = m[K_VALUES]))
        return rc;
    if (!json_is_array(arr))
        return otlp_json_in_key(d, K_VALUES, otlp_json_fail(d, "expected an array"));
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *val = json_array_get(arr, i);
        memset(&inner, 0, sizeof(inner));
        rc = kvlist ? walk_keyvalue(d, val, depth, &inner) : walk_anyvalue(d, val, depth, &inner);
        if (rc < 0)
            return otlp_json_in_key(d, K_VALUES, otlp_json_in_index(d, i, rc));
    }
    return 0;
}

/* An AnyValue at nesting depth (0: an attribute's own value) into *a. */
static int walk_anyvalue(struct jdec *d, json_t *obj, unsigned depth, struct fsc_otlp_attr *a)
{
    static const uint8_t types[K_IDS] = {
        [K_STRING_VALUE] = FSC_OTLP_VAL_STRING, [K_BOOL_VALUE] = FSC_OTLP_VAL_BOOL,
        [K_INT_VALUE] = FSC_OTLP_VAL_INT,       [K_DOUBLE_VALUE] = FSC_OTLP_VAL_DOUBLE,
        [K_ARRAY_VALUE] = FSC_OTLP_VAL_OTHER,   [K_KVLIST_VALUE] = FSC_OTLP_VAL_OTHER,
        [K_BYTES_VALUE] = FSC_OTLP_VAL_OTHER,
    };
    json_t *m[K_IDS];
    struct fsc_otlp_str bytes;
    bool b = false;
    int rc = otlp_json_members(d, obj, ANY_VALUES, ANY_VALUES,
                               "more than one value kind in an AnyValue", m);
    if (rc < 0)
        return rc;
    for (uint64_t kinds = ANY_VALUES; kinds; kinds &= kinds - 1) {
        enum key_id k = (enum key_id)__builtin_ctzll(kinds);
        if (!m[k])
            continue;
        a->type = types[k]; /* the only one: a oneof */
        switch (k) {
        case K_STRING_VALUE:
            return FIELD(d, m, k, otlp_json_str, &a->s);
        case K_BOOL_VALUE:
            rc = FIELD(d, m, k, otlp_json_bool, &b);
            a->i = b;
            return rc;
        case K_INT_VALUE:
            return FIELD(d, m, k, otlp_json_i64, &a->i);
        case K_DOUBLE_VALUE:
            return FIELD(d, m, k, otlp_json_double, &a->d);
        case K_BYTES_VALUE:
            return FIELD(d, m, k, otlp_json_str, &bytes);
        default:
            if (depth >= FSC_OTLP_DEPTH_MAX)
                return otlp_json_in_key(d, k,
                                        otlp_json_fail(d, "values nested deeper than 16 levels"));
            return otlp_json_in_key(d, k, walk_nested(d, m[k], depth + 1, k == K_KVLIST_VALUE));
        }
    }
    return 0;
}

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a)
{
    json_t *m[K_IDS];
    int rc = otlp_json_members(d, kv, BIT(K_KEY) | BIT(K_VALUE), 0, NULL, m);
    if (rc == 0)
        rc = FIELD(d, m, K_KEY, otlp_json_str, &a->key);
    if (rc == 0)
        rc = FIELD(d, m, K_VALUE, walk_anyvalue, depth, a);
    return rc;
}

/* The attributes of a resource or point, kept in d->attrs. */
static int walk_attrs(struct jdec *d, json_t *arr, uint32_t *count)
{
    int rc;
    if (!json_is_array(arr))
        return otlp_json_fail(d, "expected an array");
    if (json_array_size(arr) > FSC_OTLP_ATTRS_MAX)
        return otlp_json_fail(d, "more than 64 attributes");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        memset(&d->attrs[i], 0, sizeof(d->attrs[i]));
        if ((rc = walk_keyvalue(d, json_array_get(arr, i), 0, &d->attrs[i])) < 0)
            return otlp_json_in_index(d, i, rc);
    }
    *count = (uint32_t)json_array_size(arr);
    return 0;
}

/* ---- the message tree -------------------------------------------------------------------- */

/* bucketCounts (out: uint64_t) or explicitBounds (double) into the scratch. */
static int walk_numbers(struct jdec *d, json_t *arr, bool doubles, void *out, uint32_t *count)
{
    int rc;
    if (!json_is_array(arr))
        return otlp_json_fail(d, "expected an array");
    if (json_array_size(arr) > FSC_OTLP_BUCKETS_MAX)
        return otlp_json_fail(d, "more than 512 entries");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *val = json_array_get(arr, i);
        rc = doubles ? otlp_json_double(d, val, (double *)out + i)
                     : otlp_json_u64(d, val, (uint64_t *)out + i);
        if (rc < 0)
            return otlp_json_in_index(d, i, rc);
    }
    *count = (uint32_t)json_array_size(arr);
    return 0;
}

static int walk_point(struct jdec *d, json_t *obj)
{
#define STATS (BIT(K_COUNT) | BIT(K_SUM))
    static const uint64_t extra[] = {
        [FSC_OTLP_GAUGE] = NUMBER_VALUES,
        [FSC_OTLP_SUM] = NUMBER_VALUES,
        [FSC_OTLP_HISTOGRAM] =
            STATS | BIT(K_BUCKET_COUNTS) | BIT(K_EXPLICIT_BOUNDS) | BIT(K_MIN) | BIT(K_MAX),
        [FSC_OTLP_EXP_HISTOGRAM] = STATS | BIT(K_MIN) | BIT(K_MAX),
        [FSC_OTLP_SUMMARY] = STATS,
    };
#undef STATS
    const uint64_t mask =
        BIT(K_ATTRIBUTES) | BIT(K_START_TIME) | BIT(K_TIME) | BIT(K_FLAGS) | extra[d->m.type];
    json_t *m[K_IDS];
    struct fsc_otlp_point p;
    double ignored;
    memset(&p, 0, sizeof(p));
    int rc = otlp_json_members(d, obj, mask, NUMBER_VALUES,
                               "both asDouble and asInt in a data point", m);
    if (rc < 0)
        return rc;
    if ((rc = FIELD(d, m, K_ATTRIBUTES, walk_attrs, &p.n_attrs)) < 0 ||
        (rc = FIELD(d, m, K_START_TIME, otlp_json_u64, &p.start_ns)) < 0 ||
        (rc = FIELD(d, m, K_TIME, otlp_json_u64, &p.time_ns)) < 0 ||
        (rc = FIELD(d, m, K_FLAGS, otlp_json_u32, &p.flags)) < 0 ||
        (rc = FIELD(d, m, K_AS_DOUBLE, otlp_json_double, &p.as_double)) < 0 ||
        (rc = FIELD(d, m, K_AS_INT, otlp_json_i64, &p.as_int)) < 0 ||
        (rc = FIELD(d, m, K_COUNT, otlp_json_u64, &p.count)) < 0 ||
        (rc = FIELD(d, m, K_SUM, otlp_json_double, &p.sum)) < 0 ||
        (rc = FIELD(d, m, K_BUCKET_COUNTS, walk_numbers, false, d->buckets, &p.n_buckets)) < 0 ||
        (rc = FIELD(d, m, K_EXPLICIT_BOUNDS, walk_numbers, true, d->bounds, &p.n_bounds)) < 0 ||
        (rc = FIELD(d, m, K_MIN, otlp_json_double, &ignored)) < 0 ||
        (rc = FIELD(d, m, K_MAX, otlp_json_double, &ignored)) < 0)
        return rc;
    if (!d->visit || !d->v->point)
        return 0;
    p.value_kind = m[K_AS_DOUBLE] ? FSC_OTLP_VALUE_DOUBLE
                   : m[K_AS_INT]  ? FSC_OTLP_VALUE_INT
                                  : FSC_OTLP_VALUE_NONE;
    p.has_sum = m[K_SUM] != NULL;
    p.attrs = p.n_attrs ? d->attrs : NULL;
    p.bounds = p.n_bounds ? d->bounds : NULL;
    p.buckets = p.n_buckets ? d->buckets : NULL;
    d->v->point(d->v->ctx, &p);
    return 0;
}

/* A data container (gauge, sum, ...) of d->m: temporality and monotonicity,
 * then (visiting walk) the metric callback, then the points. */
static int walk_data(struct jdec *d, json_t *obj)
{
    struct fsc_otlp_metric *m = &d->m;
    uint64_t mask = BIT(K_DATA_POINTS);
    if (m->type == FSC_OTLP_SUM || m->type == FSC_OTLP_HISTOGRAM ||
        m->type == FSC_OTLP_EXP_HISTOGRAM)
        mask |= BIT(K_TEMPORALITY);
    if (m->type == FSC_OTLP_SUM)
        mask |= BIT(K_MONOTONIC);
    json_t *vals[K_IDS];
    int32_t temp = 0;
    int rc = otlp_json_members(d, obj, mask, 0, NULL, vals);
    if (rc < 0 || (rc = FIELD(d, vals, K_TEMPORALITY, otlp_json_enum, &temp)) < 0 ||
        (rc = FIELD(d, vals, K_MONOTONIC, otlp_json_bool, &m->monotonic)) < 0)
        return rc;
    m->temporality = temp == FSC_OTLP_TEMP_DELTA || temp == FSC_OTLP_TEMP_CUMULATIVE
                         ? (uint8_t)temp
                         : FSC_OTLP_TEMP_UNSPECIFIED;
    if (d->visit && d->v->metric)
        d->v->metric(d->v->ctx, m);
    return walk_array(d, vals[K_DATA_POINTS], K_DATA_POINTS, walk_point);
}

static int walk_metric(struct jdec *d, json_t *obj)
{
    static const uint8_t types[K_IDS] = {
        [K_GAUGE] = FSC_OTLP_GAUGE,         [K_SUM] = FSC_OTLP_SUM,
        [K_HISTOGRAM] = FSC_OTLP_HISTOGRAM, [K_EXP_HISTOGRAM] = FSC_OTLP_EXP_HISTOGRAM,
        [K_SUMMARY] = FSC_OTLP_SUMMARY,
    };
    json_t *m[K_IDS];
    memset(&d->m, 0, sizeof(d->m));
    int rc = otlp_json_members(
        d, obj, BIT(K_NAME) | BIT(K_UNIT) | CONTAINERS, CONTAINERS,
        "more than one of gauge, sum, histogram, exponentialHistogram and summary", m);
    if (rc < 0 || (rc = FIELD(d, m, K_NAME, otlp_json_str, &d->m.name)) < 0 ||
        (rc = FIELD(d, m, K_UNIT, otlp_json_str, &d->m.unit)) < 0)
        return rc;
    for (uint64_t c = CONTAINERS; c; c &= c - 1) {
        enum key_id k = (enum key_id)__builtin_ctzll(c);
        if (m[k]) { /* the only one: a oneof */
            d->m.type = types[k];
            return otlp_json_in_key(d, k, walk_data(d, m[k]));
        }
    }
    if (d->visit && d->v->metric) /* no container: a metric without points */
        d->v->metric(d->v->ctx, &d->m);
    return 0;
}

static int walk_scope_metrics(struct jdec *d, json_t *obj)
{
    json_t *m[K_IDS];
    int rc = otlp_json_members(d, obj, BIT(K_METRICS), 0, NULL, m);
    return rc < 0 ? rc : walk_array(d, m[K_METRICS], K_METRICS, walk_metric);
}

/* ResourceMetrics: the resource callback comes first, wherever the resource
 * sits among the keys. */
static int walk_resource_metrics(struct jdec *d, json_t *obj)
{
    json_t *m[K_IDS], *r[K_IDS];
    d->n_attrs = 0;
    int rc = otlp_json_members(d, obj, BIT(K_RESOURCE) | BIT(K_SCOPE_METRICS), 0, NULL, m);
    if (rc < 0)
        return rc;
    if (m[K_RESOURCE]) {
        rc = otlp_json_members(d, m[K_RESOURCE], BIT(K_ATTRIBUTES), 0, NULL, r);
        if (rc == 0)
            rc = FIELD(d, r, K_ATTRIBUTES, walk_attrs, &d->n_attrs);
        if (rc < 0)
            return otlp_json_in_key(d, K_RESOURCE, rc);
    }
    if (d->visit && d->v->resource)
        d->v->resource(d->v->ctx, d->n_attrs ? d->attrs : NULL, d->n_attrs);
    return walk_array(d, m[K_SCOPE_METRICS], K_SCOPE_METRICS, walk_scope_metrics);
}

static int walk_request(struct jdec *d, json_t *root)
{
    json_t *m[K_IDS];
    int rc = otlp_json_members(d, root, BIT(K_RESOURCE_METRICS), 0, NULL, m);
    return rc < 0 ? rc
                  : walk_array(d, m[K_RESOURCE_METRICS], K_RESOURCE_METRICS, walk_resource_metrics);
}

int fsc_otlp_decode_json(const char *buf, size_t len, const struct fsc_otlp_visitor *v, char *err,
                         size_t errlen)
{
    static const struct fsc_otlp_visitor none = {NULL, NULL, NULL, NULL};
    struct jdec d; /* ~14 KiB of bounded scratch; jansson's tree on the heap */
    const char *prefix = "";
    json_t *root = NULL;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    memset(&d, 0, offsetof(struct jdec, m));
    d.v = v ? v : &none;
    if ((rc = otlp_json_load(&d, buf ? buf : "", buf ? len : 0, &root)) == 0)
        rc = walk_request(&d, root);
    if (rc == 0 && (d.v->resource || d.v->metric || d.v->point)) {
        d.visit = true;
        /* an error here would be a decoder bug: callbacks were made */
        if ((rc = walk_request(&d, root)) < 0)
            prefix = "internal error after callbacks: ";
    }
    json_decref(root);
    if (rc < 0 && err && errlen) {
        if (rc == -ENOMEM)
            snprintf(err, errlen, "out of memory decoding the request");
        else
            otlp_json_format_error(&d, prefix, err, errlen);
    }
    return rc;
}
