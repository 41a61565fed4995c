/* OTLP/JSON decoder (otlp_point.h): ExportMetricsServiceRequest text ->
 * visitor calls.
 *
 * Two walks over the buffer with the same code. The first validates the whole
 * document (JSON syntax, UTF-8, the shape and types of every key it knows,
 * the bounds) and calls nothing; only if it passes does the second walk run
 * and call the visitor. Sharing the code means the second walk cannot meet an
 * error the first did not, so "no callback unless the whole input is
 * well-formed" holds without storing anything per metric.
 *
 * Key order is free, but the visitor wants a resource before its metrics, a
 * metric's name, unit and temporality before its points. The first walk
 * notes whether every such key came in time (the usual order: resource,
 * name, unit, temporality, then the data). If so the second walk streams;
 * if not, it first scans the objects where order matters (ResourceMetrics,
 * Metric, the data container) for their keys, remembering where the values
 * start, and visits them in the logical order; skipping in that walk only
 * counts brackets, since the text is known to be valid.
 *
 * Strings handed to the visitor are unescaped in place during the second
 * walk, at the moment they are read; no region is scanned again after its
 * strings were rewritten, so the shortened strings never confuse a scan.
 *
 * Decisions:
 * - A duplicate key the decoder uses (camelCase and snake_case spellings are
 *   the same key) is malformed, as is more than one member of a oneof (two
 *   data containers in a Metric, asDouble and asInt, two AnyValue kinds).
 *   Last-wins would make the result depend on which duplicate a sender meant.
 * - A known key whose value is null counts as absent (protobuf JSON mapping).
 * - Keys the decoder does not use (description, metadata, scope, schemaUrl,
 *   exemplars, quantileValues, the exponential buckets, ...) are skipped like
 *   unknown keys: only their JSON syntax is checked. min and max are checked
 *   as doubles but not delivered.
 * - aggregationTemporality must be an integer; values other than 1 and 2 are
 *   delivered as UNSPECIFIED (open enum: the ingest decides).
 * - has_sum is true when a sum key was present (also for Summary points).
 * - Nesting: an attribute's own value is level 0; each arrayValue or
 *   kvlistValue inside goes one deeper; the 17th is malformed. JSON nesting
 *   beyond 128 is malformed anywhere, unknown keys included.
 * - bucketCounts and explicitBounds: at most 512 entries each; their
 *   relation (buckets = bounds + 1) is the ingest's to judge. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sources/otlp/json_reader.h"
#include "sources/otlp/otlp_point.h"

/* clang-format off */
enum key_id {
    K_UNKNOWN, K_RESOURCE_METRICS, K_RESOURCE, K_SCOPE_METRICS, K_METRICS, K_ATTRIBUTES, K_NAME,
    K_UNIT, K_GAUGE, K_SUM, K_HISTOGRAM, K_EXP_HISTOGRAM, K_SUMMARY, K_DATA_POINTS, K_TEMPORALITY,
    K_MONOTONIC, K_KEY, K_VALUE, K_STRING_VALUE, K_BOOL_VALUE, K_INT_VALUE, K_DOUBLE_VALUE,
    K_ARRAY_VALUE, K_KVLIST_VALUE, K_BYTES_VALUE, K_VALUES, K_START_TIME, K_TIME, K_AS_DOUBLE,
    K_AS_INT, K_FLAGS, K_COUNT, K_BUCKET_COUNTS, K_EXPLICIT_BOUNDS, K_MIN, K_MAX, K_IDS
};

/* lowerCamelCase names, in enum order; the snake_case proto spelling is
 * derived (key_matches). Also the names shown in error paths. */
static const char *const key_names[K_IDS] = {
    "?", "resourceMetrics", "resource", "scopeMetrics", "metrics", "attributes", "name",
    "unit", "gauge", "sum", "histogram", "exponentialHistogram", "summary", "dataPoints",
    "aggregationTemporality", "isMonotonic", "key", "value", "stringValue", "boolValue",
    "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue", "values",
    "startTimeUnixNano", "timeUnixNano", "asDouble", "asInt", "flags", "count", "bucketCounts",
    "explicitBounds", "min", "max",
};
/* clang-format on */

#define BIT(k) (1ull << (k))
#define CONTAINERS                                                                                 \
    (BIT(K_GAUGE) | BIT(K_SUM) | BIT(K_HISTOGRAM) | BIT(K_EXP_HISTOGRAM) | BIT(K_SUMMARY))
#define ANY_VALUES                                                                                 \
    (BIT(K_STRING_VALUE) | BIT(K_BOOL_VALUE) | BIT(K_INT_VALUE) | BIT(K_DOUBLE_VALUE) |            \
     BIT(K_ARRAY_VALUE) | BIT(K_KVLIST_VALUE) | BIT(K_BYTES_VALUE))
#define NUMBER_VALUES (BIT(K_AS_DOUBLE) | BIT(K_AS_INT))

#define PATH_SEGS 96 /* deepest schema path: ~12 + 4 per nested AnyValue level */

/* One step of the path shown in error messages: a key, or an index. */
struct seg {
    const char *key; /* NULL: idx */
    size_t idx;
};

/* Decoder state for one call: the reader, the error path, the metric being
 * visited and the bounded scratch that points hand out. */
struct jdec {
    struct fsc_json_reader r;
    const struct fsc_otlp_visitor *v;
    bool visit;     /* second walk: unescape strings and call the visitor */
    bool in_order;  /* first walk found every key the visitor needs in time */
    bool lookahead; /* second walk: scan objects for their keys before visiting */
    unsigned nseg;
    struct seg path[PATH_SEGS];
    struct fsc_otlp_metric m;
    uint32_t n_attrs;
    struct fsc_otlp_attr attrs[FSC_OTLP_ATTRS_MAX];
    double bounds[FSC_OTLP_BUCKETS_MAX];
    uint64_t buckets[FSC_OTLP_BUCKETS_MAX];
};

static void push(struct jdec *d, const char *key, size_t idx)
{
    if (d->nseg < PATH_SEGS) {
        d->path[d->nseg].key = key;
        d->path[d->nseg].idx = idx;
    }
    d->nseg++;
}

static int fail(struct jdec *d, const char *msg)
{
    return fsc_json_fail(&d->r, msg);
}

static int expect(struct jdec *d, enum fsc_json_type want, const char *msg)
{
    enum fsc_json_type t = fsc_json_peek(&d->r);
    if (t == want)
        return 0;
    return fail(d, t == FSC_JSON_END ? "unexpected end of input" : msg);
}

/* raw is camel itself or its snake_case form (fooBar -> foo_bar). */
static bool key_matches(const char *raw, size_t len, const char *camel)
{
    size_t i = 0;
    while (i < len && camel[i] != '\0' && camel[i] == raw[i])
        i++;
    if (camel[i] == '\0')
        return i == len;
    i = 0; /* snake_case: each capital of camel is '_' and its lower case */
    for (const char *c = camel; *c; c++) {
        if (*c >= 'A' && *c <= 'Z') {
            if (len - i < 2 || raw[i] != '_' || raw[i + 1] != *c - 'A' + 'a')
                return false;
            i += 2;
        } else if (i >= len || raw[i++] != *c) {
            return false;
        }
    }
    return i == len;
}

/* Which of the keys in mask the raw key is (K_UNKNOWN: none). Escaped keys
 * ("n\u0061me" is "name") are decoded into a small copy first. */
static enum key_id classify(const char *raw, size_t len, bool escaped, uint64_t mask)
{
    char tmp[192];
    if (escaped) {
        if (len > sizeof(tmp))
            return K_UNKNOWN; /* decodes to more than any known key */
        len = fsc_json_unescape(raw, len, tmp);
        raw = tmp;
    }
    for (uint64_t m = mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (key_matches(raw, len, key_names[k]))
            return (enum key_id)k;
    }
    return K_UNKNOWN;
}

/* Iteration over an object's members whose key is in a mask, or over an
 * array's elements, keeping the error path: each call pops what the last one
 * pushed; an error return leaves the path where the error is. */
struct iter {
    size_t n;
    uint64_t seen; /* objects: keys met so far */
    enum key_id k; /* objects: the current member's key */
    bool open, pushed;
};

/* Next member (1, reader at its value, key in it->k) or 0 after '}'. Other
 * keys are skipped; a known key repeated is malformed; a null value is an
 * absent member. */
static int next_member(struct jdec *d, struct iter *it, uint64_t mask)
{
    struct fsc_json_tok key;
    enum fsc_json_type lit;
    int rc = 0;
    if (!it->open) {
        it->open = true;
        if ((rc = expect(d, FSC_JSON_OBJECT, "expected an object")) < 0 ||
            (rc = fsc_json_object_begin(&d->r)) < 0)
            return rc;
    }
    while (rc == 0) {
        if (it->pushed)
            d->nseg--;
        it->pushed = false;
        if ((rc = fsc_json_object_next(&d->r, &it->n, &key)) <= 0)
            return rc;
        it->k = classify(d->r.buf + key.off, key.len, key.escaped, mask);
        if (it->k == K_UNKNOWN) {
            rc = fsc_json_skip(&d->r);
            continue;
        }
        push(d, key_names[it->k], 0);
        it->pushed = true;
        if (it->seen & BIT(it->k)) {
            fail(d, "duplicate key");
            d->r.err_pos = key.off - 1;
            return -EBADMSG;
        }
        it->seen |= BIT(it->k);
        if (fsc_json_peek(&d->r) != FSC_JSON_NULL)
            return 1;
        rc = fsc_json_literal(&d->r, &lit);
    }
    return rc;
}

/* Next element (1, index it->n - 1 on the path) or 0 after ']'; more than
 * max elements is malformed (too_many says so). */
static int next_elem(struct jdec *d, struct iter *it, size_t max, const char *too_many)
{
    int rc;
    if (!it->open) {
        it->open = true;
        if ((rc = expect(d, FSC_JSON_ARRAY, "expected an array")) < 0 ||
            (rc = fsc_json_array_begin(&d->r)) < 0)
            return rc;
    }
    if (it->pushed)
        d->nseg--;
    it->pushed = false;
    if ((rc = fsc_json_array_next(&d->r, &it->n)) <= 0)
        return rc;
    if (it->n > max)
        return fail(d, too_many);
    push(d, NULL, it->n - 1);
    it->pushed = true;
    return 1;
}

/* Second walk: walks the value remembered at `at` with fn, then returns to
 * where the look-ahead scan stopped. */
static int revisit(struct jdec *d, struct fsc_json_mark at, enum key_id k, int (*fn)(struct jdec *))
{
    struct fsc_json_mark end = fsc_json_mark(&d->r);
    fsc_json_seek(&d->r, at);
    push(d, key_names[k], 0);
    int rc = fn(d);
    if (rc < 0)
        return rc;
    d->nseg--;
    fsc_json_seek(&d->r, end);
    return 0;
}

/* ---- scalars ------------------------------------------------------------------------- */

/* A string for the visitor: unescaped in place in the second walk. */
static int get_str(struct jdec *d, struct fsc_otlp_str *out)
{
    struct fsc_json_tok t;
    int rc = expect(d, FSC_JSON_STRING, "expected a string");
    if (rc == 0)
        rc = fsc_json_string(&d->r, &t);
    if (rc < 0)
        return rc;
    if (t.len > UINT32_MAX)
        return fail(d, "string longer than 4 GiB");
    if (d->visit && out) {
        char *p = d->r.buf + t.off;
        out->p = p;
        out->len = (uint32_t)(t.escaped ? fsc_json_unescape(p, t.len, p) : t.len);
    }
    return 0;
}

/* bucketCounts ('u') or explicitBounds ('d') into the scratch. */
static int get_numbers(struct jdec *d, int kind, void *out, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, FSC_OTLP_BUCKETS_MAX, "more than 512 entries")) > 0) {
        void *slot =
            kind == 'd' ? (void *)((double *)out + it.n - 1) : (void *)((uint64_t *)out + it.n - 1);
        rc = kind == 'd' ? fsc_json_read_double(&d->r, slot) : fsc_json_read_u64(&d->r, slot);
        if (rc < 0)
            return rc;
    }
    *count = (uint32_t)it.n;
    return rc;
}

/* ---- attributes ------------------------------------------------------------------------ */

static int walk_keyvalue(struct jdec *d, unsigned depth, struct fsc_otlp_attr *a);

/* arrayValue {values: [AnyValue]} or kvlistValue {values: [KeyValue]}:
 * checked to the depth bound, not delivered. */
static int walk_nested(struct jdec *d, unsigned depth, bool kvlist);

/* An AnyValue at nesting depth (0: an attribute's own value). */
static int walk_anyvalue(struct jdec *d, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    bool b = false;
    int rc;
    while ((rc = next_member(d, &it, ANY_VALUES)) > 0) {
        if (it.seen & ANY_VALUES & ~BIT(it.k))
            return fail(d, "more than one value kind in an AnyValue");
        a->type = FSC_OTLP_VAL_OTHER;
        switch (it.k) {
        case K_STRING_VALUE:
            a->type = FSC_OTLP_VAL_STRING;
            rc = get_str(d, &a->s);
            break;
        case K_BOOL_VALUE:
            a->type = FSC_OTLP_VAL_BOOL;
            rc = fsc_json_read_bool(&d->r, &b);
            a->i = b;
            break;
        case K_INT_VALUE:
            a->type = FSC_OTLP_VAL_INT;
            rc = fsc_json_read_i64(&d->r, &a->i);
            break;
        case K_DOUBLE_VALUE:
            a->type = FSC_OTLP_VAL_DOUBLE;
            rc = fsc_json_read_double(&d->r, &a->d);
            break;
        case K_BYTES_VALUE:
            rc = get_str(d, NULL);
            break;
        default:
            if (depth >= FSC_OTLP_DEPTH_MAX)
                return fail(d, "values nested deeper than 16 levels");
            rc = walk_nested(d, depth + 1, it.k == K_KVLIST_VALUE);
            break;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_nested(struct jdec *d, unsigned depth, bool kvlist)
{
    struct iter it = {0}, el;
    struct fsc_otlp_attr inner;
    int rc;
    while ((rc = next_member(d, &it, BIT(K_VALUES))) > 0) {
        memset(&el, 0, sizeof(el));
        while ((rc = next_elem(d, &el, SIZE_MAX, NULL)) > 0) {
            memset(&inner, 0, sizeof(inner));
            rc = kvlist ? walk_keyvalue(d, depth, &inner) : walk_anyvalue(d, depth, &inner);
            if (rc < 0)
                return rc;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_keyvalue(struct jdec *d, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    int rc;
    memset(a, 0, sizeof(*a));
    while ((rc = next_member(d, &it, BIT(K_KEY) | BIT(K_VALUE))) > 0) {
        rc = it.k == K_KEY ? get_str(d, &a->key) : walk_anyvalue(d, depth, a);
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* The attributes of a resource or point, kept in d->attrs (bounded). */
static int walk_attrs(struct jdec *d, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, FSC_OTLP_ATTRS_MAX, "more than 64 attributes")) > 0)
        if ((rc = walk_keyvalue(d, 0, &d->attrs[it.n - 1])) < 0)
            return rc;
    *count = (uint32_t)it.n;
    return rc;
}

/* ---- the message tree -------------------------------------------------------------------- */

/* Calls elem once per element of an array. */
static int walk_array(struct jdec *d, int (*elem)(struct jdec *))
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, SIZE_MAX, NULL)) > 0)
        if ((rc = elem(d)) < 0)
            return rc;
    return rc;
}

static int walk_point(struct jdec *d)
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
    struct fsc_otlp_point p;
    struct iter it = {0};
    double ignored;
    int rc;
    memset(&p, 0, sizeof(p));
    while ((rc = next_member(d, &it, mask)) > 0) {
        if ((BIT(it.k) & NUMBER_VALUES) && (it.seen & NUMBER_VALUES & ~BIT(it.k)))
            return fail(d, "both asDouble and asInt in a data point");
        switch (it.k) {
        case K_ATTRIBUTES:
            rc = walk_attrs(d, &p.n_attrs);
            break;
        case K_START_TIME:
            rc = fsc_json_read_u64(&d->r, &p.start_ns);
            break;
        case K_TIME:
            rc = fsc_json_read_u64(&d->r, &p.time_ns);
            break;
        case K_FLAGS:
            rc = fsc_json_read_u32(&d->r, &p.flags);
            break;
        case K_AS_DOUBLE:
            p.value_kind = FSC_OTLP_VALUE_DOUBLE;
            rc = fsc_json_read_double(&d->r, &p.as_double);
            break;
        case K_AS_INT:
            p.value_kind = FSC_OTLP_VALUE_INT;
            rc = fsc_json_read_i64(&d->r, &p.as_int);
            break;
        case K_COUNT:
            rc = fsc_json_read_u64(&d->r, &p.count);
            break;
        case K_SUM:
            p.has_sum = true;
            rc = fsc_json_read_double(&d->r, &p.sum);
            break;
        case K_BUCKET_COUNTS:
            rc = get_numbers(d, 'u', d->buckets, &p.n_buckets);
            break;
        case K_EXPLICIT_BOUNDS:
            rc = get_numbers(d, 'd', d->bounds, &p.n_bounds);
            break;
        default: /* min, max: checked, not delivered */
            rc = fsc_json_read_double(&d->r, &ignored);
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit || !d->v->point)
        return rc;
    p.attrs = p.n_attrs ? d->attrs : NULL;
    p.bounds = p.n_bounds ? d->bounds : NULL;
    p.buckets = p.n_buckets ? d->buckets : NULL;
    d->v->point(d->v->ctx, &p);
    return 0;
}

static int walk_points(struct jdec *d)
{
    return walk_array(d, walk_point);
}

/* A data container (gauge, sum, ...) of d->m: temporality and monotonicity
 * first, then (second walk) the metric callback, then the points. */
static int walk_data(struct jdec *d)
{
    struct fsc_otlp_metric *m = &d->m;
    uint64_t mask = BIT(K_DATA_POINTS);
    if (m->type == FSC_OTLP_SUM || m->type == FSC_OTLP_HISTOGRAM ||
        m->type == FSC_OTLP_EXP_HISTOGRAM)
        mask |= BIT(K_TEMPORALITY);
    if (m->type == FSC_OTLP_SUM)
        mask |= BIT(K_MONOTONIC);
    struct fsc_json_mark points = {0, 0};
    struct iter it = {0};
    bool told = false;
    int32_t temp = 0;
    int rc;
    while ((rc = next_member(d, &it, mask)) > 0) {
        if (it.k != K_DATA_POINTS && (it.seen & BIT(K_DATA_POINTS)))
            d->in_order = false;
        if (it.k == K_TEMPORALITY) {
            rc = fsc_json_read_enum(&d->r, &temp);
            m->temporality = temp == FSC_OTLP_TEMP_DELTA || temp == FSC_OTLP_TEMP_CUMULATIVE
                                 ? (uint8_t)temp
                                 : FSC_OTLP_TEMP_UNSPECIFIED;
        } else if (it.k == K_MONOTONIC) {
            rc = fsc_json_read_bool(&d->r, &m->monotonic);
        } else if (d->lookahead) {
            points = fsc_json_mark(&d->r);
            rc = fsc_json_skip(&d->r);
        } else {
            if (d->visit && d->v->metric)
                d->v->metric(d->v->ctx, m);
            told = true;
            rc = walk_points(d);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (!told && d->v->metric)
        d->v->metric(d->v->ctx, m);
    return points.pos ? revisit(d, points, K_DATA_POINTS, walk_points) : 0;
}

static int walk_metric(struct jdec *d)
{
    static const uint8_t types[K_IDS] = {
        [K_GAUGE] = FSC_OTLP_GAUGE,         [K_SUM] = FSC_OTLP_SUM,
        [K_HISTOGRAM] = FSC_OTLP_HISTOGRAM, [K_EXP_HISTOGRAM] = FSC_OTLP_EXP_HISTOGRAM,
        [K_SUMMARY] = FSC_OTLP_SUMMARY,
    };
    struct fsc_json_mark data = {0, 0};
    enum key_id data_key = K_UNKNOWN;
    struct iter it = {0};
    int rc;
    memset(&d->m, 0, sizeof(d->m));
    while ((rc = next_member(d, &it, BIT(K_NAME) | BIT(K_UNIT) | CONTAINERS)) > 0) {
        if (it.k == K_NAME || it.k == K_UNIT) {
            if (it.seen & CONTAINERS)
                d->in_order = false;
            rc = get_str(d, it.k == K_NAME ? &d->m.name : &d->m.unit);
        } else if (it.seen & CONTAINERS & ~BIT(it.k)) {
            return fail(d, "more than one of gauge, sum, histogram, exponentialHistogram and "
                           "summary");
        } else {
            data_key = it.k;
            d->m.type = types[it.k];
            if (d->lookahead) {
                data = fsc_json_mark(&d->r);
                rc = fsc_json_skip(&d->r);
            } else {
                rc = walk_data(d);
            }
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (data.pos) /* a mark at offset 0 is no mark: no value starts a document */
        return revisit(d, data, data_key, walk_data);
    if (data_key == K_UNKNOWN && d->v->metric) /* no container: a metric without points */
        d->v->metric(d->v->ctx, &d->m);
    return 0;
}

/* An object of which only key k matters: fn walks its value. */
static int walk_only(struct jdec *d, enum key_id k, int (*fn)(struct jdec *))
{
    struct iter it = {0};
    int rc;
    while ((rc = next_member(d, &it, BIT(k))) > 0)
        if ((rc = fn(d)) < 0)
            return rc;
    return rc;
}

static int walk_metrics(struct jdec *d)
{
    return walk_array(d, walk_metric);
}

static int walk_scope_metrics(struct jdec *d)
{
    return walk_only(d, K_METRICS, walk_metrics);
}

static int walk_scopes(struct jdec *d)
{
    return walk_array(d, walk_scope_metrics);
}

static int walk_resource_attrs(struct jdec *d)
{
    return walk_attrs(d, &d->n_attrs);
}

static int walk_resource(struct jdec *d)
{
    return walk_only(d, K_ATTRIBUTES, walk_resource_attrs);
}

/* ResourceMetrics: the resource callback comes first, wherever the resource
 * sits among the keys. */
static int walk_resource_metrics(struct jdec *d)
{
    struct fsc_json_mark res = {0, 0}, scopes = {0, 0};
    struct iter it = {0};
    bool told = false;
    int rc;
    d->n_attrs = 0;
    while ((rc = next_member(d, &it, BIT(K_RESOURCE) | BIT(K_SCOPE_METRICS))) > 0) {
        if (it.k == K_RESOURCE && (it.seen & BIT(K_SCOPE_METRICS)))
            d->in_order = false;
        if (d->lookahead) {
            *(it.k == K_RESOURCE ? &res : &scopes) = fsc_json_mark(&d->r);
            rc = fsc_json_skip(&d->r);
        } else if (it.k == K_RESOURCE) {
            rc = walk_resource(d);
        } else {
            if (d->visit && d->v->resource)
                d->v->resource(d->v->ctx, d->n_attrs ? d->attrs : NULL, d->n_attrs);
            told = true;
            rc = walk_scopes(d);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (res.pos && (rc = revisit(d, res, K_RESOURCE, walk_resource)) < 0)
        return rc;
    if (!told && d->v->resource)
        d->v->resource(d->v->ctx, d->n_attrs ? d->attrs : NULL, d->n_attrs);
    return scopes.pos ? revisit(d, scopes, K_SCOPE_METRICS, walk_scopes) : 0;
}

static int walk_resource_metrics_array(struct jdec *d)
{
    return walk_array(d, walk_resource_metrics);
}

static int walk_request(struct jdec *d)
{
    enum fsc_json_type t = fsc_json_peek(&d->r);
    if (t != FSC_JSON_OBJECT)
        return fail(d, t == FSC_JSON_END ? "empty document"
                                         : "expected an object (ExportMetricsServiceRequest)");
    int rc = walk_only(d, K_RESOURCE_METRICS, walk_resource_metrics_array);
    return rc < 0 ? rc : fsc_json_finish(&d->r);
}

/* "<path>: <what> (line L, column C)"; the path is where the walk stood. A
 * deep path keeps its first and last steps, so the sentence stays short. */
static void format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen)
{
    enum { HEAD = 12, TAIL = 8 };
    char path[512];
    size_t o = 0;
    path[0] = '\0';
    for (unsigned i = 0; i < d->nseg && i < PATH_SEGS && o < sizeof(path); i++) {
        if (d->nseg > HEAD + TAIL && i >= HEAD && i < d->nseg - TAIL) {
            if (i == HEAD)
                o += (size_t)snprintf(path + o, sizeof(path) - o, "...");
            continue;
        }
        const struct seg *s = &d->path[i];
        int w = s->key ? snprintf(path + o, sizeof(path) - o, "%s%s", i ? "." : "", s->key)
                       : snprintf(path + o, sizeof(path) - o, "[%zu]", s->idx);
        o += w > 0 ? (size_t)w : 0;
    }
    unsigned line, col;
    fsc_json_position(d->r.buf, d->r.len, d->r.err_pos, &line, &col);
    snprintf(err, errlen, "%s%s%s%s (line %u, column %u)", prefix, path, path[0] ? ": " : "",
             d->r.err_msg ? d->r.err_msg : "malformed", line, col);
}

int fsc_otlp_decode_json(char *buf, size_t len, const struct fsc_otlp_visitor *v, char *err,
                         size_t errlen)
{
    static const struct fsc_otlp_visitor none = {NULL, NULL, NULL, NULL};
    struct jdec d; /* ~13 KiB of bounded scratch; no heap */
    if (err && errlen)
        err[0] = '\0';
    if (buf == NULL)
        len = 0;
    d.v = v ? v : &none;
    for (int pass = 0; pass < 2; pass++) {
        fsc_json_init(&d.r, buf, len, pass == 0);
        d.visit = pass == 1;
        d.lookahead = d.visit && !d.in_order;
        d.in_order = true; /* until the first walk finds otherwise */
        d.nseg = 0;
        if (walk_request(&d) < 0) {
            /* a second-walk error would be a decoder bug: callbacks were made */
            if (err && errlen)
                format_error(&d, pass ? "internal error after callbacks: " : "", err, errlen);
            return -EBADMSG;
        }
    }
    return 0;
}
