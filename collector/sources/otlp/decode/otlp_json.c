/* OTLP/JSON decoder (otlp_point.h): ExportMetricsServiceRequest text ->
 * visitor calls, parsed by jansson. This file: the design, the message
 * schema walked twice and the entry point; otlp_json_text.c: the text beside
 * jansson (steps 1 and 2, error positions); otlp_json_read.c: the walks'
 * steps over members and elements and the number readers; otlp_json_int.h:
 * what they share.
 *
 * Every step below may refuse the request; a refused request got no
 * callback, and its buffer is left as it came.
 *  1. Before jansson: the top level must be an object, its nesting at most
 *     128 levels and the tree jansson would build at most JSON_TREE_MAX
 *     bytes (otlp_json_text.c says why).
 *  2. jansson parses the text (json_loadb, duplicate keys refused; again
 *     with integers as doubles when one is too big for it); its errors
 *     become the decoder's sentences, with line, column and path
 *     (otlp_json_text.c).
 *  3. The checking walk goes through the tree in document order (jansson
 *     keeps an object's members in insertion order, and with duplicates
 *     refused its tree holds every member of the text) with a cursor over
 *     the text beside it. The text is known valid, so the cursor only skips
 *     whitespace, strings and brackets. It gives each error its line and
 *     column (the tree holds no positions) and each integer its digits, so
 *     64-bit fields are exact whatever jansson made of them (above
 *     INT64_MAX, "-0", 1.0 against 1); an integer the tree does not hold
 *     exactly is replaced in the tree by one holding its 64 bits (stash,
 *     otlp_json_read.c). This walk checks the shape and types of every key
 *     it knows and the bounds, and calls nothing.
 *  4. The visiting walk goes through the tree alone, with the same code,
 *     and calls the visitor in the order it wants: a resource before its
 *     metrics, a metric's name, unit and temporality before its points,
 *     wherever those keys sit. It cannot meet an error the checking walk did
 *     not. Strings handed to the visitor are copied from the tree into the
 *     request buffer, front to back: the text is no longer needed, and the
 *     strings, each copied once, are never longer than their text.
 *
 * Decisions:
 * - A duplicate key the decoder uses (camelCase and snake_case spellings are
 *   the same key) is malformed, as is more than one member of a oneof (two
 *   data containers in a Metric, asDouble and asInt, two AnyValue kinds).
 *   Last-wins would make the result depend on which duplicate a sender meant.
 *   jansson refuses a repeated spelling in any object, unknown ones included.
 * - A known key whose value is null counts as absent (protobuf JSON mapping).
 * - Keys the decoder does not use (description, metadata, scope, schemaUrl,
 *   exemplars, quantileValues, the exponential buckets, ...) are skipped like
 *   unknown keys: only their JSON syntax is checked (by jansson; a number
 *   beyond a double's range is refused there too). min and max are checked
 *   as doubles but not delivered.
 * - Integers are exact, doubles any JSON number or a string holding one,
 *   NaN or +-Infinity, enums JSON integers, bools true / false
 *   (otlp_json_read.c has the details).
 * - aggregationTemporality must be an integer; values other than 1 and 2 are
 *   delivered as UNSPECIFIED (open enum: the ingest decides).
 * - has_sum is true when a sum key was present (also for Summary points).
 * - Nesting: an attribute's own value is level 0; each arrayValue or
 *   kvlistValue inside goes one deeper; the 17th is malformed. JSON nesting
 *   beyond 128 is malformed anywhere, unknown keys included (step 1, so a
 *   document too deep for both bounds gets this one).
 * - bucketCounts and explicitBounds: at most 512 entries each; their
 *   relation (buckets = bounds + 1) is the ingest's to judge.
 * - Errors of the checking walk name the path of known keys (camelCase);
 *   syntax errors name the keys as the text spells them. */
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

/* ---- attributes ------------------------------------------------------------------------ */

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a);

/* arrayValue {values: [AnyValue]} or kvlistValue {values: [KeyValue]}:
 * checked to the depth bound, not delivered. */
static int walk_nested(struct jdec *d, json_t *obj, unsigned depth, bool kvlist);

/* An AnyValue at nesting depth (0: an attribute's own value). */
static int walk_anyvalue(struct jdec *d, json_t *obj, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    bool b = false;
    int rc;
    while ((rc = otlp_json_next_member(d, &it, obj, ANY_VALUES)) > 0) {
        if (it.seen & ANY_VALUES & ~BIT(it.k))
            return fail(d, "more than one value kind in an AnyValue");
        a->type = FSC_OTLP_VAL_OTHER;
        switch (it.k) {
        case K_STRING_VALUE:
            a->type = FSC_OTLP_VAL_STRING;
            rc = otlp_json_get_str(d, it.val, &a->s);
            break;
        case K_BOOL_VALUE:
            a->type = FSC_OTLP_VAL_BOOL;
            rc = otlp_json_read_bool(d, it.val, &b);
            a->i = b;
            break;
        case K_INT_VALUE:
            a->type = FSC_OTLP_VAL_INT;
            rc = otlp_json_read_num(d, it.val, 'i', &a->i);
            break;
        case K_DOUBLE_VALUE:
            a->type = FSC_OTLP_VAL_DOUBLE;
            rc = otlp_json_read_num(d, it.val, 'd', &a->d);
            break;
        case K_BYTES_VALUE:
            rc = otlp_json_get_str(d, it.val, NULL);
            break;
        default:
            if (depth >= FSC_OTLP_DEPTH_MAX)
                return fail(d, "values nested deeper than 16 levels");
            rc = walk_nested(d, it.val, depth + 1, it.k == K_KVLIST_VALUE);
            break;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_nested(struct jdec *d, json_t *obj, unsigned depth, bool kvlist)
{
    struct iter it = {0}, el;
    struct fsc_otlp_attr inner;
    int rc;
    while ((rc = otlp_json_next_member(d, &it, obj, BIT(K_VALUES))) > 0) {
        memset(&el, 0, sizeof(el));
        while ((rc = otlp_json_next_elem(d, &el, it.val, SIZE_MAX, NULL)) > 0) {
            memset(&inner, 0, sizeof(inner));
            rc = kvlist ? walk_keyvalue(d, el.val, depth, &inner)
                        : walk_anyvalue(d, el.val, depth, &inner);
            if (rc < 0)
                return rc;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    int rc;
    memset(a, 0, sizeof(*a));
    while ((rc = otlp_json_next_member(d, &it, kv, BIT(K_KEY) | BIT(K_VALUE))) > 0) {
        rc = it.k == K_KEY ? otlp_json_get_str(d, it.val, &a->key)
                           : walk_anyvalue(d, it.val, depth, a);
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* The attributes of a resource or point, kept in d->attrs (bounded). */
static int walk_attrs(struct jdec *d, json_t *arr, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = otlp_json_next_elem(d, &it, arr, FSC_OTLP_ATTRS_MAX, "more than 64 attributes")) >
           0)
        if ((rc = walk_keyvalue(d, it.val, 0, &d->attrs[it.n - 1])) < 0)
            return rc;
    *count = (uint32_t)it.n;
    return rc;
}

/* ---- the message tree -------------------------------------------------------------------- */

/* Calls elem once per element of an array. */
static int walk_array(struct jdec *d, json_t *arr, int (*elem)(struct jdec *, json_t *))
{
    struct iter it = {0};
    int rc;
    while ((rc = otlp_json_next_elem(d, &it, arr, SIZE_MAX, NULL)) > 0)
        if ((rc = elem(d, it.val)) < 0)
            return rc;
    return rc;
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
    struct fsc_otlp_point p;
    struct iter it = {0};
    double ignored;
    int rc;
    memset(&p, 0, sizeof(p));
    while ((rc = otlp_json_next_member(d, &it, obj, mask)) > 0) {
        if ((BIT(it.k) & NUMBER_VALUES) && (it.seen & NUMBER_VALUES & ~BIT(it.k)))
            return fail(d, "both asDouble and asInt in a data point");
        switch (it.k) {
        case K_ATTRIBUTES:
            rc = walk_attrs(d, it.val, &p.n_attrs);
            break;
        case K_START_TIME:
            rc = otlp_json_read_num(d, it.val, 'u', &p.start_ns);
            break;
        case K_TIME:
            rc = otlp_json_read_num(d, it.val, 'u', &p.time_ns);
            break;
        case K_FLAGS:
            rc = otlp_json_read_u32(d, it.val, &p.flags);
            break;
        case K_AS_DOUBLE:
            p.value_kind = FSC_OTLP_VALUE_DOUBLE;
            rc = otlp_json_read_num(d, it.val, 'd', &p.as_double);
            break;
        case K_AS_INT:
            p.value_kind = FSC_OTLP_VALUE_INT;
            rc = otlp_json_read_num(d, it.val, 'i', &p.as_int);
            break;
        case K_COUNT:
            rc = otlp_json_read_num(d, it.val, 'u', &p.count);
            break;
        case K_SUM:
            p.has_sum = true;
            rc = otlp_json_read_num(d, it.val, 'd', &p.sum);
            break;
        case K_BUCKET_COUNTS:
            rc = otlp_json_get_numbers(d, it.val, 'u', d->buckets, &p.n_buckets);
            break;
        case K_EXPLICIT_BOUNDS:
            rc = otlp_json_get_numbers(d, it.val, 'd', d->bounds, &p.n_bounds);
            break;
        default: /* min, max: checked, not delivered */
            rc = otlp_json_read_num(d, it.val, 'd', &ignored);
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

static int walk_points(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_point);
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
    json_t *points = NULL;
    struct iter it = {0};
    int32_t temp = 0;
    int rc;
    while ((rc = otlp_json_next_member(d, &it, obj, mask)) > 0) {
        if (it.k == K_TEMPORALITY) {
            rc = otlp_json_read_num(d, it.val, 'e', &temp);
            m->temporality = temp == FSC_OTLP_TEMP_DELTA || temp == FSC_OTLP_TEMP_CUMULATIVE
                                 ? (uint8_t)temp
                                 : FSC_OTLP_TEMP_UNSPECIFIED;
        } else if (it.k == K_MONOTONIC) {
            rc = otlp_json_read_bool(d, it.val, &m->monotonic);
        } else if (d->visit) {
            points = it.val;
        } else {
            rc = walk_points(d, it.val);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (d->v->metric)
        d->v->metric(d->v->ctx, m);
    return points ? otlp_json_revisit(d, K_DATA_POINTS, walk_points, points) : 0;
}

static int walk_metric(struct jdec *d, json_t *obj)
{
    static const uint8_t types[K_IDS] = {
        [K_GAUGE] = FSC_OTLP_GAUGE,         [K_SUM] = FSC_OTLP_SUM,
        [K_HISTOGRAM] = FSC_OTLP_HISTOGRAM, [K_EXP_HISTOGRAM] = FSC_OTLP_EXP_HISTOGRAM,
        [K_SUMMARY] = FSC_OTLP_SUMMARY,
    };
    json_t *data = NULL;
    enum key_id data_key = K_UNKNOWN;
    struct iter it = {0};
    int rc;
    memset(&d->m, 0, sizeof(d->m));
    while ((rc = otlp_json_next_member(d, &it, obj, BIT(K_NAME) | BIT(K_UNIT) | CONTAINERS)) > 0) {
        if (it.k == K_NAME || it.k == K_UNIT) {
            rc = otlp_json_get_str(d, it.val, it.k == K_NAME ? &d->m.name : &d->m.unit);
        } else if (it.seen & CONTAINERS & ~BIT(it.k)) {
            return fail(d, "more than one of gauge, sum, histogram, exponentialHistogram and "
                           "summary");
        } else {
            data_key = it.k;
            d->m.type = types[it.k];
            if (d->visit)
                data = it.val;
            else
                rc = walk_data(d, it.val);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (data)
        return otlp_json_revisit(d, data_key, walk_data, data);
    if (d->v->metric) /* no container: a metric without points */
        d->v->metric(d->v->ctx, &d->m);
    return 0;
}

/* An object of which only key k matters: fn walks its value. */
static int walk_only(struct jdec *d, json_t *obj, enum key_id k, int (*fn)(struct jdec *, json_t *))
{
    struct iter it = {0};
    int rc;
    while ((rc = otlp_json_next_member(d, &it, obj, BIT(k))) > 0)
        if ((rc = fn(d, it.val)) < 0)
            return rc;
    return rc;
}

static int walk_metrics(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_metric);
}

static int walk_scope_metrics(struct jdec *d, json_t *obj)
{
    return walk_only(d, obj, K_METRICS, walk_metrics);
}

static int walk_scopes(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_scope_metrics);
}

static int walk_resource_attrs(struct jdec *d, json_t *arr)
{
    return walk_attrs(d, arr, &d->n_attrs);
}

static int walk_resource(struct jdec *d, json_t *obj)
{
    return walk_only(d, obj, K_ATTRIBUTES, walk_resource_attrs);
}

/* ResourceMetrics: the resource callback comes first, wherever the resource
 * sits among the keys. */
static int walk_resource_metrics(struct jdec *d, json_t *obj)
{
    json_t *scopes = NULL;
    struct iter it = {0};
    int rc;
    d->n_attrs = 0;
    while ((rc = otlp_json_next_member(d, &it, obj, BIT(K_RESOURCE) | BIT(K_SCOPE_METRICS))) > 0) {
        if (it.k == K_RESOURCE)
            rc = walk_resource(d, it.val);
        else if (d->visit)
            scopes = it.val;
        else
            rc = walk_scopes(d, it.val);
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (d->v->resource)
        d->v->resource(d->v->ctx, d->n_attrs ? d->attrs : NULL, d->n_attrs);
    return scopes ? otlp_json_revisit(d, K_SCOPE_METRICS, walk_scopes, scopes) : 0;
}

static int walk_resource_metrics_array(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_resource_metrics);
}

int fsc_otlp_decode_json(char *buf, size_t len, const struct fsc_otlp_visitor *v, char *err,
                         size_t errlen)
{
    static const struct fsc_otlp_visitor none = {NULL, NULL, NULL, NULL};
    struct jdec d; /* ~16 KiB of bounded scratch; jansson's tree on the heap */
    const char *prefix = "";
    json_t *root = NULL;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    memset(&d, 0, offsetof(struct jdec, m));
    d.text = buf ? buf : "";
    d.len = buf ? len : 0;
    d.v = v ? v : &none;
    if ((rc = otlp_json_check_text(&d)) == 0 && (rc = otlp_json_parse(&d, &root)) == 0) {
        d.pos = d.top;
        rc = walk_only(&d, root, K_RESOURCE_METRICS, walk_resource_metrics_array);
    }
    if (rc == 0 && (d.v->resource || d.v->metric || d.v->point)) {
        d.visit = true;
        d.out = buf;
        d.nseg = 0;
        /* an error here would be a decoder bug: callbacks were made */
        if ((rc = walk_only(&d, root, K_RESOURCE_METRICS, walk_resource_metrics_array)) < 0)
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
