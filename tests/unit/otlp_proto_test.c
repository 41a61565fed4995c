/* OTLP protobuf decoder (otlp_proto.c). Two independent encoders feed it:
 * the protobuf-c generated code (well-formed requests, exact values) and a
 * tiny hand encoder below (field order, packed/unpacked, unknown fields and
 * every kind of malformation). A recording visitor turns the callbacks into a
 * transcript that is compared with literal expected text. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sources/otlp/decode/otlp_point.h"
#include "otlp_metrics_service.pb-c.h"
#include "test.h"

/* ---- recording visitor ------------------------------------------------------ */

struct rec {
    char text[32768];
    size_t len;
    int resources, metrics, points;
    const uint8_t *lo, *hi; /* when set: every string must point into [lo, hi) */
    int outside;            /* strings that did not */
    int misaligned;         /* bounds / buckets not 8-byte aligned */
};

static void rec_put(struct rec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rec_put(struct rec *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->text + r->len, sizeof(r->text) - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len += (size_t)n < sizeof(r->text) - r->len ? (size_t)n : sizeof(r->text) - r->len - 1;
}

static void rec_str(struct rec *r, struct fsc_otlp_str s)
{
    if (r->lo && s.len && ((const uint8_t *)s.p < r->lo || (const uint8_t *)s.p + s.len > r->hi))
        r->outside++;
    rec_put(r, "%.*s", (int)s.len, s.p);
}

static void rec_attrs(struct rec *r, const struct fsc_otlp_attr *a, uint32_t n)
{
    rec_put(r, "[");
    for (uint32_t i = 0; i < n; i++) {
        rec_put(r, "%s", i ? " " : "");
        rec_str(r, a[i].key);
        switch (a[i].type) {
        case FSC_OTLP_VAL_STRING:
            rec_put(r, "=s:");
            rec_str(r, a[i].s);
            break;
        case FSC_OTLP_VAL_BOOL:
            rec_put(r, "=b:%lld", (long long)a[i].i);
            break;
        case FSC_OTLP_VAL_INT:
            rec_put(r, "=i:%lld", (long long)a[i].i);
            break;
        case FSC_OTLP_VAL_DOUBLE:
            rec_put(r, "=d:%.17g", a[i].d);
            break;
        case FSC_OTLP_VAL_OTHER:
            rec_put(r, "=other");
            break;
        default:
            rec_put(r, "=empty");
            break;
        }
    }
    rec_put(r, "]");
}

static void on_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n)
{
    struct rec *r = ctx;
    r->resources++;
    rec_put(r, "R ");
    rec_attrs(r, attrs, n);
    rec_put(r, "\n");
}

static void on_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct rec *r = ctx;
    r->metrics++;
    rec_put(r, "M ");
    rec_str(r, m->name);
    rec_put(r, " unit=");
    rec_str(r, m->unit);
    rec_put(r, " type=%u temp=%u mono=%d\n", m->type, m->temporality, m->monotonic);
}

static void on_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct rec *r = ctx;
    r->points++;
    rec_put(r, "P ");
    rec_attrs(r, p->attrs, p->n_attrs);
    rec_put(r, " start=%llu time=%llu flags=%u", (unsigned long long)p->start_ns,
            (unsigned long long)p->time_ns, p->flags);
    if (p->value_kind == FSC_OTLP_VALUE_INT)
        rec_put(r, " i:%lld", (long long)p->as_int);
    else if (p->value_kind == FSC_OTLP_VALUE_DOUBLE)
        rec_put(r, " d:%.17g", p->as_double);
    else if (p->value_kind != FSC_OTLP_VALUE_NONE)
        rec_put(r, " kind=%u", p->value_kind);
    if (p->count || p->has_sum || p->n_bounds || p->n_buckets) {
        rec_put(r, " count=%llu", (unsigned long long)p->count);
        if (p->has_sum)
            rec_put(r, " sum=%.17g", p->sum);
        rec_put(r, " bounds=");
        for (uint32_t i = 0; i < p->n_bounds; i++)
            rec_put(r, "%s%.17g", i ? "," : "", p->bounds[i]);
        rec_put(r, " buckets=");
        for (uint32_t i = 0; i < p->n_buckets; i++)
            rec_put(r, "%s%llu", i ? "," : "", (unsigned long long)p->buckets[i]);
        if (((uintptr_t)p->bounds | (uintptr_t)p->buckets) % 8 != 0)
            r->misaligned++;
    }
    rec_put(r, "\n");
}

/* Decodes buf into a fresh transcript; returns the decoder's result. */
static int decode(struct rec *r, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    const uint8_t *lo = r->lo, *hi = r->hi;
    memset(r, 0, sizeof(*r));
    r->lo = lo;
    r->hi = hi;
    struct fsc_otlp_visitor v = {r, on_resource, on_metric, on_point};
    return fsc_otlp_decode_proto(buf, len, &v, err, errlen);
}

/* Decoding must fail with -EBADMSG, a sentence, and no callback at all. */
#define CHECK_BAD(buf, len)                                                                        \
    do {                                                                                           \
        struct rec *r_ = calloc(1, sizeof(*r_));                                                   \
        char e_[256] = "";                                                                         \
        CHECK_INT(decode(r_, (buf), (len), e_, sizeof(e_)), -EBADMSG);                             \
        CHECK_INT(r_->resources + r_->metrics + r_->points, 0);                                    \
        CHECK(e_[0] != '\0');                                                                      \
        free(r_);                                                                                  \
    } while (0)

/* ---- pool for test-built messages (freed by pool_reset) ---------------------- */

#define POOL_MAX 8192
static void *pool[POOL_MAX];
static size_t pool_n;

static void *palloc(size_t n)
{
    if (pool_n == POOL_MAX) {
        fprintf(stderr, "test pool exhausted\n");
        abort();
    }
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort();
    return pool[pool_n++] = p;
}

static void pool_reset(void)
{
    for (size_t i = 0; i < pool_n; i++)
        free(pool[i]);
    pool_n = 0;
}

/* ---- hand encoder ------------------------------------------------------------ */

struct wb {
    uint8_t b[16384];
    size_t n;
};

static struct wb *wb_new(void)
{
    return palloc(sizeof(struct wb));
}

static void wb_raw(struct wb *w, const void *p, size_t n)
{
    if (w->n + n > sizeof(w->b))
        abort();
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void wb_varint(struct wb *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    wb_raw(w, b, n);
}

static void wb_tag(struct wb *w, uint32_t field, uint32_t wt)
{
    wb_varint(w, (uint64_t)field << 3 | wt);
}

static void wb_vf(struct wb *w, uint32_t field, uint64_t v) /* varint field */
{
    wb_tag(w, field, 0);
    wb_varint(w, v);
}

static void wb_fx(struct wb *w, uint32_t field, uint64_t v) /* fixed64 field */
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    wb_tag(w, field, 1);
    wb_raw(w, b, 8);
}

static void wb_dbl(struct wb *w, uint32_t field, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    wb_fx(w, field, u);
}

static void wb_len(struct wb *w, uint32_t field, const void *p, size_t n)
{
    wb_tag(w, field, 2);
    wb_varint(w, n);
    wb_raw(w, p, n);
}

static void wb_str(struct wb *w, uint32_t field, const char *s)
{
    wb_len(w, field, s, strlen(s));
}

static void wb_msg(struct wb *w, uint32_t field, const struct wb *sub)
{
    wb_len(w, field, sub->b, sub->n);
}

/* Field chunks of one message, emitted in order or reversed, with or without
 * unknown fields of every wire type around them. */
struct shape {
    bool reversed;
    bool unknowns;
};

static void wb_unknowns(struct wb *w)
{
    static const uint8_t junk[] = {0x1b, 0x1c, 0xff, 0x0b}; /* group tags: never parsed */
    wb_vf(w, 100, 300);
    wb_fx(w, 101, 0x0123456789abcdefULL);
    wb_len(w, 102, junk, sizeof(junk));
    wb_tag(w, 103, 5);
    wb_raw(w, "\x01\x02\x03\x04", 4);
    wb_vf(w, 0x1fffffff, 1); /* highest field number: a 5-byte tag */
}

static struct wb *msg(const struct shape *sh, int n, ...)
{
    struct wb *chunks[16], *out = wb_new();
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < 16; i++)
        chunks[i] = va_arg(ap, struct wb *);
    va_end(ap);
    if (sh->unknowns)
        wb_unknowns(out);
    for (int i = 0; i < n; i++) {
        const struct wb *c = chunks[sh->reversed ? n - 1 - i : i];
        wb_raw(out, c->b, c->n);
        if (sh->unknowns && i == n / 2)
            wb_unknowns(out);
    }
    if (sh->unknowns)
        wb_unknowns(out);
    return out;
}

/* One-field chunks. */
static struct wb *c_str(uint32_t f, const char *s)
{
    struct wb *w = wb_new();
    wb_str(w, f, s);
    return w;
}
static struct wb *c_vf(uint32_t f, uint64_t v)
{
    struct wb *w = wb_new();
    wb_vf(w, f, v);
    return w;
}
static struct wb *c_fx(uint32_t f, uint64_t v)
{
    struct wb *w = wb_new();
    wb_fx(w, f, v);
    return w;
}
static struct wb *c_dbl(uint32_t f, double d)
{
    struct wb *w = wb_new();
    wb_dbl(w, f, d);
    return w;
}
static struct wb *c_msg(uint32_t f, const struct wb *sub)
{
    struct wb *w = wb_new();
    wb_msg(w, f, sub);
    return w;
}

/* KeyValue with a string value. */
static struct wb *h_kv_str(const struct shape *sh, uint32_t f, const char *k, const char *v)
{
    return c_msg(f, msg(sh, 2, c_str(1, k), c_msg(2, msg(sh, 1, c_str(1, v)))));
}

/* The reference request of the field-order and unknown-field cases: one
 * resource, one scope, a Sum with two points, written in the given shape. */
static struct wb *h_request(const struct shape *sh)
{
    struct wb *p1 = msg(sh, 4, h_kv_str(sh, 7, "interface", "swp1"), c_fx(2, 1000), c_fx(3, 2000),
                        c_dbl(4, 1.5));
    struct wb *p2 = msg(sh, 5, h_kv_str(sh, 7, "interface", "swp2"), c_fx(2, 1000), c_fx(3, 2001),
                        c_fx(6, (uint64_t)-7), c_vf(8, 1));
    /* Both points in one chunk: reversing a repeated field would reorder them. */
    struct wb *pts = c_msg(1, p1);
    wb_msg(pts, 1, p2);
    struct wb *sum = msg(sh, 3, pts, c_vf(2, 2), c_vf(3, 1));
    struct wb *metric =
        msg(sh, 4, c_str(1, "ctl_pkts"), c_str(2, "description"), c_str(3, "1"), c_msg(7, sum));
    struct wb *scope = msg(sh, 2, c_str(1, "nvue"), c_str(2, "5.11"));
    struct wb *sm = msg(sh, 3, c_msg(1, scope), c_msg(2, metric), c_str(3, "url"));
    struct wb *res = msg(sh, 2, h_kv_str(sh, 1, "host.name", "leaf01"), c_vf(2, 0));
    struct wb *rm = msg(sh, 3, c_msg(1, res), c_msg(2, sm), c_str(3, "url"));
    return msg(sh, 1, c_msg(1, rm));
}

static const char h_request_want[] = "R [host.name=s:leaf01]\n"
                                     "M ctl_pkts unit=1 type=2 temp=2 mono=1\n"
                                     "P [interface=s:swp1] start=1000 time=2000 flags=0 d:1.5\n"
                                     "P [interface=s:swp2] start=1000 time=2001 flags=1 i:-7\n";

/* ---- protobuf-c builders ----------------------------------------------------- */

typedef Opentelemetry__Proto__Common__V1__KeyValue KV;
typedef Opentelemetry__Proto__Common__V1__AnyValue AV;
typedef Opentelemetry__Proto__Metrics__V1__NumberDataPoint NDP;
typedef Opentelemetry__Proto__Metrics__V1__HistogramDataPoint HDP;
typedef Opentelemetry__Proto__Metrics__V1__Metric MET;
typedef Opentelemetry__Proto__Metrics__V1__ScopeMetrics SM;
typedef Opentelemetry__Proto__Metrics__V1__ResourceMetrics RM;

/* Copies a compound-literal pointer list into the pool. */
#define LIST(T, ...)                                                                               \
    (sizeof((T *[]){__VA_ARGS__}) / sizeof(T *)),                                                  \
        (T **)pdup((T *[]){__VA_ARGS__}, sizeof((T *[]){__VA_ARGS__}))
#define NONE(T) 0, (T **)NULL

static void *pdup(const void *p, size_t n)
{
    void *d = palloc(n);
    memcpy(d, p, n);
    return d;
}

static KV *kv(const char *key, AV *val)
{
    KV *k = palloc(sizeof(*k));
    opentelemetry__proto__common__v1__key_value__init(k);
    k->key = (char *)key;
    k->value = val;
    return k;
}

static AV *av_new(int vcase)
{
    AV *a = palloc(sizeof(*a));
    opentelemetry__proto__common__v1__any_value__init(a);
    a->value_case = vcase;
    return a;
}

static KV *kv_s(const char *key, const char *s)
{
    AV *a = av_new(OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE);
    a->string_value = (char *)s;
    return kv(key, a);
}

static KV *kv_i(const char *key, int64_t i)
{
    AV *a = av_new(OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE);
    a->int_value = i;
    return kv(key, a);
}

static KV *kv_b(const char *key, bool b)
{
    AV *a = av_new(OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE);
    a->bool_value = b;
    return kv(key, a);
}

static KV *kv_d(const char *key, double d)
{
    AV *a = av_new(OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_DOUBLE_VALUE);
    a->double_value = d;
    return kv(key, a);
}

/* value_case 0: no value; 4: as_double; 6: as_int. */
static NDP *ndp(size_t na, KV **attrs, uint64_t start, uint64_t t, int vcase, double d, int64_t i,
                uint32_t flags)
{
    NDP *p = palloc(sizeof(*p));
    opentelemetry__proto__metrics__v1__number_data_point__init(p);
    p->n_attributes = na;
    p->attributes = attrs;
    p->start_time_unix_nano = start;
    p->time_unix_nano = t;
    p->value_case = vcase;
    if (vcase == 4)
        p->as_double = d;
    else if (vcase == 6)
        p->as_int = i;
    p->flags = flags;
    return p;
}

static MET *metric(const char *name, const char *unit)
{
    MET *m = palloc(sizeof(*m));
    opentelemetry__proto__metrics__v1__metric__init(m);
    m->name = (char *)name;
    m->unit = (char *)unit;
    return m;
}

static MET *gauge(const char *name, const char *unit, size_t n, NDP **pts)
{
    MET *m = metric(name, unit);
    Opentelemetry__Proto__Metrics__V1__Gauge *g = palloc(sizeof(*g));
    opentelemetry__proto__metrics__v1__gauge__init(g);
    g->n_data_points = n;
    g->data_points = pts;
    m->data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
    m->gauge = g;
    return m;
}

static MET *sum(const char *name, const char *unit, int temp, bool mono, size_t n, NDP **pts)
{
    MET *m = metric(name, unit);
    Opentelemetry__Proto__Metrics__V1__Sum *s = palloc(sizeof(*s));
    opentelemetry__proto__metrics__v1__sum__init(s);
    s->n_data_points = n;
    s->data_points = pts;
    s->aggregation_temporality = temp;
    s->is_monotonic = mono;
    m->data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM;
    m->sum = s;
    return m;
}

static SM *scope(const char *name, size_t n, MET **mets)
{
    SM *sm = palloc(sizeof(*sm));
    opentelemetry__proto__metrics__v1__scope_metrics__init(sm);
    Opentelemetry__Proto__Common__V1__InstrumentationScope *is = palloc(sizeof(*is));
    opentelemetry__proto__common__v1__instrumentation_scope__init(is);
    is->name = (char *)name;
    sm->scope = is;
    sm->n_metrics = n;
    sm->metrics = mets;
    return sm;
}

static RM *resource(size_t na, KV **attrs, size_t n, SM **sms)
{
    RM *rm = palloc(sizeof(*rm));
    opentelemetry__proto__metrics__v1__resource_metrics__init(rm);
    Opentelemetry__Proto__Resource__V1__Resource *res = palloc(sizeof(*res));
    opentelemetry__proto__resource__v1__resource__init(res);
    res->n_attributes = na;
    res->attributes = attrs;
    rm->resource = res;
    rm->n_scope_metrics = n;
    rm->scope_metrics = sms;
    return rm;
}

static uint8_t *pack(size_t n, RM **rms, size_t *len)
{
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest req;
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__init(&req);
    req.n_resource_metrics = n;
    req.resource_metrics = rms;
    *len =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__get_packed_size(
            &req);
    uint8_t *buf = palloc(*len);
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__pack(&req, buf);
    return buf;
}

/* ---- requests built with protobuf-c ------------------------------------------- */

/* Two resources x two scopes of Gauge and Sum metrics. */
static RM *number_rm0(void)
{
    NDP *g1 = ndp(LIST(KV, kv_s("interface", "swp1")), 0, 1700000000000000001ULL, 4, 1234.5, 0, 0);
    NDP *g2 = ndp(LIST(KV, kv_s("interface", "swp2"), kv_b("up", true), kv_d("weight", 0.25),
                       kv_i("lane", -3)),
                  0, 1700000000000000002ULL, 4, 0.0, 0, 0);
    NDP *s1 = ndp(NONE(KV), 1000, 2000, 6, 0, -42, 0);
    NDP *s2 = ndp(LIST(KV, kv_s("trap", "bgp")), 1000, 3000, 6, 0, INT64_MAX, 1);
    NDP *d1 = ndp(NONE(KV), 5, 6, 4, -0.5, 0, 0);
    SM *a =
        scope("nvue", LIST(MET, gauge("nvswitch_interface_if_in_octets", "By", LIST(NDP, g1, g2))));
    SM *b = scope("other", LIST(MET, sum("ctl_pkts", "1", 2, true, LIST(NDP, s1, s2)),
                                sum("x_delta", "", 1, false, LIST(NDP, d1))));
    return resource(LIST(KV, kv_s("host.name", "leaf01"), kv_i("rack", 7)), LIST(SM, a, b));
}

static RM *number_rm1(void)
{
    NDP *st = ndp(LIST(KV, kv_s("interface", "swp9")), 0, 77, 0, 0, 0, 1);
    SM *a = scope("a", LIST(MET, gauge("g_empty", "", NONE(NDP)), metric("no_data", "")));
    SM *b = scope("b", LIST(MET, gauge("stale", "", LIST(NDP, st))));
    return resource(LIST(KV, kv_s("host.name", "leaf02")), LIST(SM, a, b));
}

static const char number_want0[] =
    "R [host.name=s:leaf01 rack=i:7]\n"
    "M nvswitch_interface_if_in_octets unit=By type=1 temp=0 mono=0\n"
    "P [interface=s:swp1] start=0 time=1700000000000000001 flags=0 d:1234.5\n"
    "P [interface=s:swp2 up=b:1 weight=d:0.25 lane=i:-3] start=0 time=1700000000000000002 "
    "flags=0 d:0\n"
    "M ctl_pkts unit=1 type=2 temp=2 mono=1\n"
    "P [] start=1000 time=2000 flags=0 i:-42\n"
    "P [trap=s:bgp] start=1000 time=3000 flags=1 i:9223372036854775807\n"
    "M x_delta unit= type=2 temp=1 mono=0\n"
    "P [] start=5 time=6 flags=0 d:-0.5\n";

static const char number_want1[] = "R [host.name=s:leaf02]\n"
                                   "M g_empty unit= type=1 temp=0 mono=0\n"
                                   "M no_data unit= type=0 temp=0 mono=0\n"
                                   "M stale unit= type=1 temp=0 mono=0\n"
                                   "P [interface=s:swp9] start=0 time=77 flags=1\n";

/* Histogram, ExponentialHistogram (with an exemplar) and Summary. */
static RM *hist_rm(void)
{
    static double bounds[9] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    static uint64_t counts[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static uint64_t pos_counts[2] = {1, 2};
    static uint8_t span[8] = {1, 2, 3, 4, 5, 6, 7, 8};

    HDP *h1 = palloc(sizeof(*h1)), *h2 = palloc(sizeof(*h2));
    opentelemetry__proto__metrics__v1__histogram_data_point__init(h1);
    opentelemetry__proto__metrics__v1__histogram_data_point__init(h2);
    h1->n_attributes = 2;
    h1->attributes = pdup((KV *[]){kv_s("interface", "swp3"), kv_i("pg", 0)}, 2 * sizeof(KV *));
    h1->start_time_unix_nano = 10;
    h1->time_unix_nano = 20;
    h1->count = 55;
    h1->sum = 4096.5;
    h1->n_explicit_bounds = 9;
    h1->explicit_bounds = bounds;
    h1->n_bucket_counts = 10;
    h1->bucket_counts = counts;
    h1->min = 0.5; /* checked for wire type, not handed over */
    h1->max = 300;
    h2->n_attributes = 1;
    h2->attributes = pdup((KV *[]){kv_s("pg", "0")}, sizeof(KV *));
    h2->start_time_unix_nano = 10;
    h2->time_unix_nano = 30;
    h2->count = 3; /* sum 0: protobuf-c leaves it off the wire */
    MET *hm = metric("nvswitch_buffer_hist", "bytes");
    Opentelemetry__Proto__Metrics__V1__Histogram *h = palloc(sizeof(*h));
    opentelemetry__proto__metrics__v1__histogram__init(h);
    h->n_data_points = 2;
    h->data_points = pdup((HDP *[]){h1, h2}, 2 * sizeof(HDP *));
    h->aggregation_temporality = 1;
    hm->data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_HISTOGRAM;
    hm->histogram = h;

    Opentelemetry__Proto__Metrics__V1__Exemplar *ex = palloc(sizeof(*ex));
    opentelemetry__proto__metrics__v1__exemplar__init(ex);
    ex->n_filtered_attributes = 1;
    ex->filtered_attributes = pdup((KV *[]){kv_i("x", 1)}, sizeof(KV *));
    ex->time_unix_nano = 5;
    ex->value_case = OPENTELEMETRY__PROTO__METRICS__V1__EXEMPLAR__VALUE_AS_DOUBLE;
    ex->as_double = 2.5;
    ex->span_id = (ProtobufCBinaryData){sizeof(span), span};
    Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint__Buckets *pos =
        palloc(sizeof(*pos));
    opentelemetry__proto__metrics__v1__exponential_histogram_data_point__buckets__init(pos);
    pos->offset = -1;
    pos->n_bucket_counts = 2;
    pos->bucket_counts = pos_counts;
    Opentelemetry__Proto__Metrics__V1__ExponentialHistogramDataPoint *e = palloc(sizeof(*e));
    opentelemetry__proto__metrics__v1__exponential_histogram_data_point__init(e);
    e->n_attributes = 1;
    e->attributes = pdup((KV *[]){kv_s("k", "v")}, sizeof(KV *));
    e->start_time_unix_nano = 1;
    e->time_unix_nano = 2;
    e->count = 7;
    e->sum = 3.5;
    e->scale = -2;
    e->zero_count = 1;
    e->positive = pos;
    e->n_exemplars = 1;
    e->exemplars = pdup(&ex, sizeof(ex));
    e->zero_threshold = 1e-9;
    MET *em = metric("eh", "");
    Opentelemetry__Proto__Metrics__V1__ExponentialHistogram *eh = palloc(sizeof(*eh));
    opentelemetry__proto__metrics__v1__exponential_histogram__init(eh);
    eh->n_data_points = 1;
    eh->data_points = pdup(&e, sizeof(e));
    eh->aggregation_temporality = 2;
    em->data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_EXPONENTIAL_HISTOGRAM;
    em->exponential_histogram = eh;

    Opentelemetry__Proto__Metrics__V1__SummaryDataPoint__ValueAtQuantile *q[2];
    for (int i = 0; i < 2; i++) {
        q[i] = palloc(sizeof(*q[i]));
        opentelemetry__proto__metrics__v1__summary_data_point__value_at_quantile__init(q[i]);
        q[i]->quantile = i ? 0.99 : 0.5;
        q[i]->value = i ? 2 : 1.25;
    }
    Opentelemetry__Proto__Metrics__V1__SummaryDataPoint *sp = palloc(sizeof(*sp));
    opentelemetry__proto__metrics__v1__summary_data_point__init(sp);
    sp->time_unix_nano = 9;
    sp->count = 3; /* sum 0: off the wire, and still has_sum (no presence in proto3) */
    sp->n_quantile_values = 2;
    sp->quantile_values = pdup(q, sizeof(q));
    MET *sm = metric("sm", "s");
    Opentelemetry__Proto__Metrics__V1__Summary *s = palloc(sizeof(*s));
    opentelemetry__proto__metrics__v1__summary__init(s);
    s->n_data_points = 1;
    s->data_points = pdup(&sp, sizeof(sp));
    sm->data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUMMARY;
    sm->summary = s;

    return resource(NONE(KV), LIST(SM, scope("hist", LIST(MET, hm, em, sm))));
}

static const char hist_want[] =
    "R []\n"
    "M nvswitch_buffer_hist unit=bytes type=3 temp=1 mono=0\n"
    "P [interface=s:swp3 pg=i:0] start=10 time=20 flags=0 count=55 sum=4096.5 "
    "bounds=1,2,4,8,16,32,64,128,256 buckets=1,2,3,4,5,6,7,8,9,10\n"
    "P [pg=s:0] start=10 time=30 flags=0 count=3 bounds= buckets=\n"
    "M eh unit= type=4 temp=2 mono=0\n"
    "P [k=s:v] start=1 time=2 flags=0 count=7 sum=3.5 bounds= buckets=\n"
    "M sm unit=s type=5 temp=0 mono=0\n"
    "P [] start=0 time=9 flags=0 count=3 sum=0 bounds= buckets=\n";

/* ---- hand-built request pieces --------------------------------------------- */

static const struct shape plain = {false, false};

/* Wraps Metric bodies into request -> ResourceMetrics -> ScopeMetrics. */
static struct wb *h_wrap(const struct wb *metric_body)
{
    struct wb *sm = wb_new(), *rm = wb_new(), *req = wb_new();
    wb_msg(sm, 2, metric_body);
    wb_msg(rm, 2, sm);
    wb_msg(req, 1, rm);
    return req;
}

/* Metric "h", Histogram (DELTA) holding one point body. */
static struct wb *h_hist(const struct wb *point)
{
    struct wb *h = wb_new(), *m = wb_new();
    wb_msg(h, 1, point);
    wb_vf(h, 2, 1);
    wb_str(m, 1, "h");
    wb_msg(m, 9, h);
    return h_wrap(m);
}

/* Metric "x", Gauge holding one point body. */
static struct wb *h_gauge(const struct wb *point)
{
    struct wb *g = wb_new(), *m = wb_new();
    wb_msg(g, 1, point);
    wb_str(m, 1, "x");
    wb_msg(m, 5, g);
    return h_wrap(m);
}

static void wb_packed(struct wb *w, uint32_t field, const uint64_t *v, size_t n)
{
    uint8_t b[8 * 16];
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            b[8 * i + (size_t)k] = (uint8_t)(v[i] >> (8 * k));
    wb_len(w, field, b, 8 * n);
}

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* AnyValue nested in `levels` arrays (kvlists on odd levels when mixed),
 * innermost a string, or a group wire type when `poison`. */
static struct wb *h_nested(int levels, bool mixed, bool poison)
{
    struct wb *v = wb_new();
    if (poison)
        wb_tag(v, 100, 3);
    else
        wb_str(v, 1, "deep");
    for (int i = 0; i < levels; i++) {
        struct wb *c = wb_new(), *outer = wb_new();
        if (mixed && i % 2) {
            struct wb *kvb = wb_new();
            wb_str(kvb, 1, "k");
            wb_msg(kvb, 2, v);
            wb_msg(c, 1, kvb);
            wb_msg(outer, 6, c);
        } else {
            wb_msg(c, 1, v);
            wb_msg(outer, 5, c);
        }
        v = outer;
    }
    return v;
}

/* A gauge point with attribute "a" = value body. */
static struct wb *h_attr_point(const struct wb *value)
{
    struct wb *kvb = wb_new(), *p = wb_new();
    wb_str(kvb, 1, "a");
    wb_msg(kvb, 2, value);
    wb_msg(p, 7, kvb);
    wb_fx(p, 3, 5);
    return h_gauge(p);
}

/* ---- cases ------------------------------------------------------------------ */

static void number_points_exact(void)
{
    size_t len;
    uint8_t *buf = pack(LIST(RM, number_rm0(), number_rm1()), &len);
    struct rec *r = calloc(1, sizeof(*r));
    char err[256] = "x";
    r->lo = buf;
    r->hi = buf + len;
    CHECK_INT(decode(r, buf, len, err, sizeof(err)), 0);
    CHECK_STR(err, "");
    char want[2048];
    snprintf(want, sizeof(want), "%s%s", number_want0, number_want1);
    CHECK_STR(r->text, want);
    CHECK_INT(r->resources, 2);
    CHECK_INT(r->metrics, 6);
    CHECK_INT(r->points, 6);
    CHECK_INT(r->outside, 0); /* names, keys, values point into the request */
    free(r);
    pool_reset();
}

static void histogram_points_exact(void)
{
    size_t len;
    uint8_t *buf = pack(LIST(RM, hist_rm()), &len);
    struct rec *r = calloc(1, sizeof(*r));
    r->lo = buf;
    r->hi = buf + len;
    CHECK_INT(decode(r, buf, len, NULL, 0), 0);
    CHECK_STR(r->text, hist_want);
    CHECK_INT(r->outside, 0);
    CHECK_INT(r->misaligned, 0);
    /* The same bytes at an odd address: values are copied, so still aligned. */
    uint8_t *odd = palloc(len + 1);
    memcpy(odd + 1, buf, len);
    r->lo = odd + 1;
    r->hi = odd + 1 + len;
    CHECK_INT(decode(r, odd + 1, len, NULL, 0), 0);
    CHECK_STR(r->text, hist_want);
    CHECK_INT(r->misaligned, 0);
    free(r);
    pool_reset();
}

static void field_order_reversed(void)
{
    struct rec *r = calloc(1, sizeof(*r));
    struct shape rev = {true, false};
    struct wb *w = h_request(&plain);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK_STR(r->text, h_request_want);
    /* Every message reversed: data container before name, points before
     * temporality, value before key, scopes before resource. */
    w = h_request(&rev);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK_STR(r->text, h_request_want);
    free(r);
    pool_reset();
}

static void unknown_fields_skipped(void)
{
    struct rec *r = calloc(1, sizeof(*r));
    struct shape unk = {false, true}, both = {true, true};
    struct wb *w = h_request(&unk);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK_STR(r->text, h_request_want);
    w = h_request(&both);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK_STR(r->text, h_request_want);
    /* The group tags inside the unknown LEN field would be fatal if parsed. */
    CHECK(w->n > h_request(&plain)->n + 200);
    free(r);
    pool_reset();
}

static void packed_and_unpacked_buckets(void)
{
    static const char want[] = "R []\n"
                               "M h unit= type=3 temp=1 mono=0\n"
                               "P [] start=0 time=50 flags=0 count=6 sum=0 bounds=0.5,1.5 "
                               "buckets=1,2,3\n";
    const uint64_t b123[3] = {1, 2, 3}, bnd[2] = {bits(0.5), bits(1.5)};
    struct rec *r = calloc(1, sizeof(*r));
    for (int variant = 0; variant < 3; variant++) {
        struct wb *p = wb_new();
        wb_fx(p, 3, 50);
        wb_fx(p, 4, 6);
        wb_dbl(p, 5, 0.0);  /* on the wire: has_sum although 0 */
        if (variant == 0) { /* packed */
            wb_packed(p, 6, b123, 3);
            wb_packed(p, 7, bnd, 2);
        } else if (variant == 1) { /* unpacked */
            for (int i = 0; i < 3; i++)
                wb_fx(p, 6, b123[i]);
            wb_fx(p, 7, bnd[0]);
            wb_fx(p, 7, bnd[1]);
        } else { /* mixed, concatenated in wire order */
            wb_packed(p, 6, b123, 2);
            wb_fx(p, 7, bnd[0]);
            wb_fx(p, 6, 3);
            wb_packed(p, 7, bnd + 1, 1);
        }
        struct wb *w = h_hist(p);
        CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
        CHECK_STR(r->text, want);
    }
    /* A packed run that is not whole fixed64s. */
    struct wb *p = wb_new();
    wb_fx(p, 3, 50);
    wb_len(p, 6, "123456789012", 12);
    struct wb *w = h_hist(p);
    CHECK_BAD(w->b, w->n);
    /* FSC_OTLP_BUCKETS_MAX counts pass, one more is refused (packed + unpacked). */
    uint64_t *many = calloc(FSC_OTLP_BUCKETS_MAX, sizeof(*many));
    for (int extra = 0; extra < 2; extra++) {
        p = wb_new();
        wb_fx(p, 3, 50);
        for (int i = 0; i < FSC_OTLP_BUCKETS_MAX / 16; i++)
            wb_packed(p, 6, many, 16);
        if (extra)
            wb_fx(p, 6, 1);
        w = h_hist(p);
        if (extra) {
            CHECK_BAD(w->b, w->n);
        } else {
            CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
            CHECK_INT(r->points, 1);
        }
    }
    free(many);
    free(r);
    pool_reset();
}

static void truncated_every_prefix(void)
{
    /* With one ResourceMetrics, every proper non-empty prefix cuts a
     * length-delimited field short. */
    for (int which = 0; which < 2; which++) {
        size_t len;
        uint8_t *buf = which ? pack(LIST(RM, hist_rm()), &len) : pack(LIST(RM, number_rm0()), &len);
        struct rec *r = calloc(1, sizeof(*r));
        char err[256];
        int bad = 0, noisy = 0, silent = 0;
        for (size_t n = 1; n < len; n++) {
            uint8_t *cut = malloc(n); /* exact size: ASan sees any overread */
            memcpy(cut, buf, n);
            bad += decode(r, cut, n, err, sizeof(err)) == -EBADMSG;
            noisy += r->resources + r->metrics + r->points != 0;
            silent += err[0] == '\0';
            free(cut);
        }
        CHECK_INT(bad, (long long)len - 1);
        CHECK_INT(noisy, 0);
        CHECK_INT(silent, 0);
        CHECK_INT(decode(r, buf, 0, err, sizeof(err)), 0);
        CHECK_INT(r->resources, 0);
        CHECK_INT(decode(r, buf, len, err, sizeof(err)), 0);
        CHECK_STR(r->text, which ? hist_want : number_want0);
        free(r);
        pool_reset();
    }
    /* Two resources: the cut right after the first is a valid request. */
    size_t len0, len;
    pack(LIST(RM, number_rm0()), &len0);
    uint8_t *buf = pack(LIST(RM, number_rm0(), number_rm1()), &len);
    struct rec *r = calloc(1, sizeof(*r));
    int ok = 0;
    for (size_t n = 1; n < len; n++) {
        int rc = decode(r, buf, n, NULL, 0);
        ok += rc == 0;
        if (rc == 0) {
            CHECK_INT(n, len0);
            CHECK_STR(r->text, number_want0);
        } else {
            CHECK_INT(r->resources, 0);
        }
    }
    CHECK_INT(ok, 1);
    free(r);
    pool_reset();
}

static void length_overflow(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    /* Top level: 5 bytes declared, 3 present. */
    static const uint8_t top[] = {0x0a, 0x05, 0x12, 0x00, 0x1a};
    CHECK_INT(decode(r, top, sizeof(top), err, sizeof(err)), -EBADMSG);
    CHECK_STR(err, "ExportMetricsServiceRequest: field 1: length runs past the end of the "
                   "enclosing message at byte 1");
    /* A ScopeMetrics longer than its ResourceMetrics, with bytes after it in
     * the buffer: bounded by the parent, not by the buffer. */
    struct wb *rm = wb_new(), *req = wb_new();
    wb_tag(rm, 2, 2);
    wb_varint(rm, 40);
    wb_raw(rm, "\x0a\x00", 2);
    wb_msg(req, 1, rm);
    uint8_t pad[60] = {0};
    wb_len(req, 100, pad, sizeof(pad));
    CHECK_INT(decode(r, req->b, req->n, err, sizeof(err)), -EBADMSG);
    CHECK_STR(err, "ResourceMetrics[0]: field 2: length runs past the end of the enclosing "
                   "message at byte 3");
    CHECK_INT(r->resources, 0);
    /* Lengths of 2^64 - 1 and 2^32 + 1, and an 11-byte varint. */
    static const uint8_t huge[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
    CHECK_BAD(huge, sizeof(huge));
    static const uint8_t four_g[] = {0x0a, 0x81, 0x80, 0x80, 0x80, 0x10, 0x00};
    CHECK_BAD(four_g, sizeof(four_g));
    static const uint8_t long_varint[] = {0x08, 0x80, 0x80, 0x80, 0x80, 0x80,
                                          0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    CHECK_INT(decode(r, long_varint, sizeof(long_varint), err, sizeof(err)), -EBADMSG);
    CHECK_STR(err, "ExportMetricsServiceRequest: field 1: varint longer than 10 bytes at byte 1");
    /* A deep one: an attribute value string overrunning its KeyValue. */
    struct wb *kvb = wb_new(), *p = wb_new();
    wb_str(kvb, 1, "k");
    wb_tag(kvb, 2, 2);
    wb_varint(kvb, 9);
    wb_raw(kvb, "\x0a\x07swp", 5);
    wb_msg(p, 7, kvb);
    struct wb *w = h_gauge(p);
    CHECK_BAD(w->b, w->n);
    free(r);
    pool_reset();
}

static void wrong_wire_type(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    /* time_unix_nano as a varint. */
    struct wb *p = wb_new();
    wb_vf(p, 3, 5);
    struct wb *w = h_gauge(p);
    CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), -EBADMSG);
    CHECK_STR(err, "ResourceMetrics[0].ScopeMetrics[0].Metric[0] (name \"x\").gauge."
                   "NumberDataPoint[0]: field 3 (time_unix_nano) has wire type 0, expected 1 "
                   "at byte 13");
    CHECK_INT(r->resources + r->metrics + r->points, 0);

    /* Each of these is one known field with the wrong wire type. */
    for (int k = 0; k < 9; k++) {
        struct wb *m = wb_new(), *c = wb_new();
        p = wb_new();
        wb_fx(p, 3, 5);
        switch (k) {
        case 0: /* Metric.name as varint */
            wb_vf(m, 1, 1);
            break;
        case 1: /* attributes as fixed64 */
            wb_fx(p, 7, 1);
            break;
        case 2: /* as_double as varint */
            wb_vf(p, 4, 1);
            break;
        case 3: /* flags as fixed32 */
            wb_tag(p, 8, 5);
            wb_raw(p, "\0\0\0\0", 4);
            break;
        case 4: { /* AnyValue double_value as varint */
            struct wb *kvb = wb_new(), *av = wb_new();
            wb_vf(av, 4, 1);
            wb_str(kvb, 1, "k");
            wb_msg(kvb, 2, av);
            wb_msg(p, 7, kvb);
            break;
        }
        case 5: { /* Exemplar time as LEN: validated although never handed over */
            struct wb *ex = wb_new();
            wb_str(ex, 2, "x");
            wb_msg(p, 5, ex);
            break;
        }
        case 6: /* Sum aggregation_temporality as LEN */
            wb_str(c, 2, "x");
            break;
        case 7: /* data_points as varint */
            wb_vf(c, 1, 1);
            break;
        case 8: /* the container as varint */
            wb_vf(m, 7, 1);
            break;
        }
        wb_msg(c, 1, p);
        wb_str(m, 1, "x");
        wb_msg(m, 7, c);
        w = h_wrap(m);
        CHECK_BAD(w->b, w->n);
    }
    /* bucket_counts as a varint; resource_metrics as fixed32. */
    p = wb_new();
    wb_vf(p, 6, 1);
    w = h_hist(p);
    CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), -EBADMSG);
    CHECK(strstr(err, "field 6 (bucket_counts) has wire type 0, expected 1 or 2") != NULL);
    static const uint8_t top[] = {0x0d, 1, 2, 3, 4};
    CHECK_BAD(top, sizeof(top));
    free(r);
    pool_reset();
}

static void group_wire_type(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    static const uint8_t top[] = {0x0a, 0x00, 0xa3, 0x06}; /* field 100, start group */
    CHECK_INT(decode(r, top, sizeof(top), err, sizeof(err)), -EBADMSG);
    CHECK_STR(err,
              "ExportMetricsServiceRequest: group wire type (3/4), not valid in proto3 at byte 2");
    /* Wire types 3, 4, 6, 7 in a point, a KeyValue and an AnyValue. */
    for (uint32_t wt = 3; wt <= 7; wt++) {
        if (wt == 5)
            continue;
        for (int where = 0; where < 3; where++) {
            struct wb *p = wb_new(), *kvb = wb_new(), *av = wb_new();
            wb_str(av, 1, "v");
            wb_str(kvb, 1, "k");
            if (where == 2)
                wb_tag(av, 100, wt);
            wb_msg(kvb, 2, av);
            if (where == 1)
                wb_tag(kvb, 100, wt);
            wb_msg(p, 7, kvb);
            wb_fx(p, 3, 1);
            if (where == 0)
                wb_tag(p, 100, wt);
            struct wb *w = h_gauge(p);
            CHECK_BAD(w->b, w->n);
        }
    }
    /* Field number 0. */
    static const uint8_t zero[] = {0x02, 0x00};
    CHECK_BAD(zero, sizeof(zero));
    free(r);
    pool_reset();
}

static void too_many_attributes(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    /* A point with 64 attributes passes, with 65 it is refused. */
    for (int n = FSC_OTLP_ATTRS_MAX; n <= FSC_OTLP_ATTRS_MAX + 1; n++) {
        struct wb *p = wb_new();
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof(key), "k%d", i);
            wb_msg(p, 7, msg(&plain, 2, c_str(1, key), c_msg(2, msg(&plain, 1, c_vf(3, 63)))));
        }
        wb_fx(p, 3, 1);
        struct wb *w = h_gauge(p);
        if (n == FSC_OTLP_ATTRS_MAX) {
            CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
            CHECK_INT(r->points, 1);
            CHECK(strstr(r->text, " k63=i:63] start=0 time=1") != NULL);
        } else {
            CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), -EBADMSG);
            CHECK(strstr(err, "NumberDataPoint[0]: more than 64 attributes at byte ") != NULL);
            CHECK_INT(r->resources, 0);
        }
    }
    /* Resource attributes, also when split over two Resource fields (merged). */
    for (int split = 0; split < 2; split++) {
        for (int n = FSC_OTLP_ATTRS_MAX; n <= FSC_OTLP_ATTRS_MAX + 1; n++) {
            struct wb *res[2] = {wb_new(), wb_new()}, *rm = wb_new(), *req = wb_new();
            for (int i = 0; i < n; i++) {
                struct wb *kvc = h_kv_str(&plain, 1, "k", "v");
                wb_raw(res[split && i >= 40], kvc->b, kvc->n);
            }
            for (int i = 0; i <= split; i++)
                wb_msg(rm, 1, res[i]);
            wb_msg(req, 1, rm);
            int rc = decode(r, req->b, req->n, err, sizeof(err));
            if (n == FSC_OTLP_ATTRS_MAX) {
                CHECK_INT(rc, 0);
                CHECK_INT(r->resources, 1);
            } else {
                CHECK_INT(rc, -EBADMSG);
                CHECK(strstr(err, "ResourceMetrics[0].resource: more than 64 attributes") != NULL);
            }
        }
    }
    free(r);
    pool_reset();
}

static void anyvalue_depth(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    for (int mixed = 0; mixed < 2; mixed++) {
        struct wb *w = h_attr_point(h_nested(FSC_OTLP_DEPTH_MAX, mixed, false));
        CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
        CHECK_STR(r->text, "R []\nM x unit= type=1 temp=0 mono=0\n"
                           "P [a=other] start=0 time=5 flags=0\n");
        w = h_attr_point(h_nested(FSC_OTLP_DEPTH_MAX + 1, mixed, false));
        CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), -EBADMSG);
        CHECK(strstr(err, "NumberDataPoint[0].attributes[0]: AnyValue arrays/kvlists nested "
                          "deeper than 16 at byte ") != NULL);
        CHECK_INT(r->resources, 0);
        /* Malformed content deep inside a value kept only as "other". */
        w = h_attr_point(h_nested(3, mixed, true));
        CHECK_BAD(w->b, w->n);
    }
    /* bytes_value is "other" too; an AnyValue with no member is "empty". */
    struct wb *av = wb_new();
    wb_len(av, 7, "\x00\x01", 2);
    struct wb *w = h_attr_point(av);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK(strstr(r->text, "P [a=other]") != NULL);
    w = h_attr_point(wb_new());
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK(strstr(r->text, "P [a=empty]") != NULL);
    free(r);
    pool_reset();
}

static void empty_request(void)
{
    struct rec *r = calloc(1, sizeof(*r));
    char err[64] = "stale";
    static const uint8_t one[1] = {0};
    CHECK_INT(decode(r, one, 0, err, sizeof(err)), 0);
    CHECK_STR(err, "");
    CHECK_INT(decode(r, NULL, 0, err, sizeof(err)), 0);
    CHECK_INT(r->resources + r->metrics + r->points, 0);
    /* Only unknown fields: also nothing to visit. */
    struct wb *w = wb_new();
    wb_unknowns(w);
    CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), 0);
    CHECK_INT(r->resources + r->metrics + r->points, 0);
    /* A NULL visitor validates only. */
    size_t len;
    uint8_t *buf = pack(LIST(RM, number_rm0()), &len);
    CHECK_INT(fsc_otlp_decode_proto(buf, len, NULL, err, sizeof(err)), 0);
    CHECK_INT(fsc_otlp_decode_proto(buf, len - 1, NULL, err, sizeof(err)), -EBADMSG);
    free(r);
    pool_reset();
}

static void oneof_and_merge(void)
{
    struct rec *r = calloc(1, sizeof(*r));
    struct wb *p1 = wb_new(), *p2 = wb_new();
    wb_fx(p1, 3, 1);
    wb_dbl(p1, 4, 1.0);
    wb_fx(p2, 3, 2);
    wb_dbl(p2, 4, 2.0);
    wb_fx(p2, 6, 5); /* as_int after as_double: the oneof keeps as_int */
    struct wb *g1 = wb_new(), *g2 = wb_new(), *s1 = wb_new(), *s2 = wb_new();
    wb_msg(g1, 1, p1);
    wb_msg(g2, 1, p2);
    wb_msg(s1, 1, p1);
    wb_vf(s1, 2, 1);
    wb_vf(s1, 3, 1);
    wb_msg(s2, 1, p2);
    wb_vf(s2, 2, 2);
    static const struct {
        int a, b; /* container fields, in wire order (0: none) */
        const char *want;
    } cases[] = {
        {5, 7, "M m unit= type=2 temp=2 mono=0\nP [] start=0 time=2 flags=0 i:5\n"},
        {7, 5, "M m unit= type=1 temp=0 mono=0\nP [] start=0 time=2 flags=0 i:5\n"},
        {5, 5,
         "M m unit= type=1 temp=0 mono=0\nP [] start=0 time=1 flags=0 d:1\n"
         "P [] start=0 time=2 flags=0 i:5\n"},
        {7, 7,
         "M m unit= type=2 temp=2 mono=1\nP [] start=0 time=1 flags=0 d:1\n"
         "P [] start=0 time=2 flags=0 i:5\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct wb *m = wb_new();
        wb_str(m, 1, "first");
        wb_msg(m, (uint32_t)cases[i].a, cases[i].a == 5 ? g1 : s1);
        wb_msg(m, (uint32_t)cases[i].b, cases[i].b == 5 ? g2 : s2);
        wb_str(m, 1, "m"); /* a repeated scalar: the last wins */
        struct wb *w = h_wrap(m);
        CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
        char want[256];
        snprintf(want, sizeof(want), "R []\n%s", cases[i].want);
        CHECK_STR(r->text, want);
    }
    /* A losing container must still be well-formed. */
    struct wb *bad = wb_new(), *m = wb_new();
    wb_tag(bad, 1, 3);
    wb_msg(m, 5, bad);
    wb_msg(m, 7, s2);
    struct wb *w = h_wrap(m);
    CHECK_BAD(w->b, w->n);
    /* A repeated AnyValue merges: the later member wins; unknown enum values
     * of temporality become UNSPECIFIED; bool varints other than 1 are true. */
    struct wb *av1 = wb_new(), *av2 = wb_new(), *kvb = wb_new(), *p = wb_new(), *s = wb_new();
    wb_str(av1, 1, "str");
    wb_vf(av2, 2, 2);
    wb_msg(kvb, 2, av1);
    wb_str(kvb, 1, "k");
    wb_msg(kvb, 2, av2);
    wb_msg(p, 7, kvb);
    wb_fx(p, 3, 1);
    wb_vf(p, 8, 0x100000003ULL); /* flags is uint32: truncated like protobuf does */
    wb_msg(s, 1, p);
    wb_vf(s, 2, 7);
    m = wb_new();
    wb_str(m, 1, "e");
    wb_msg(m, 7, s);
    w = h_wrap(m);
    CHECK_INT(decode(r, w->b, w->n, NULL, 0), 0);
    CHECK_STR(r->text, "R []\nM e unit= type=2 temp=0 mono=0\nP [k=b:1] start=0 time=1 flags=3\n");
    free(r);
    pool_reset();
}

static void error_messages(void)
{
    char err[256];
    struct rec *r = calloc(1, sizeof(*r));
    struct wb *p = wb_new();
    wb_tag(p, 3, 1);
    wb_raw(p, "abc", 3);
    struct wb *w = h_gauge(p);
    CHECK_INT(decode(r, w->b, w->n, err, sizeof(err)), -EBADMSG);
    CHECK_STR(err, "ResourceMetrics[0].ScopeMetrics[0].Metric[0] (name \"x\").gauge."
                   "NumberDataPoint[0]: field 3: truncated fixed64 at byte 14");
    /* Second resource, second scope, fourth metric, with a hostile name. */
    struct wb *m = wb_new(), *sm0 = wb_new(), *sm1 = wb_new(), *rm = wb_new(), *req = wb_new();
    struct wb *g = wb_new();
    wb_msg(g, 1, p);
    wb_str(m, 1, "a\"b\n");
    wb_msg(m, 5, g);
    for (int i = 0; i < 3; i++)
        wb_msg(sm1, 2, wb_new());
    wb_msg(sm1, 2, m);
    wb_msg(rm, 2, sm0);
    wb_msg(rm, 2, sm1);
    wb_msg(req, 1, wb_new());
    wb_msg(req, 1, rm);
    CHECK_INT(decode(r, req->b, req->n, err, sizeof(err)), -EBADMSG);
    char want[256];
    snprintf(want, sizeof(want),
             "ResourceMetrics[1].ScopeMetrics[1].Metric[3] (name \"a?b?\").gauge."
             "NumberDataPoint[0]: field 3: truncated fixed64 at byte %zu",
             req->n - 3);
    CHECK_STR(err, want);
    /* A short buffer gets a truncated, terminated sentence. */
    char small[12];
    memset(small, 'z', sizeof(small));
    CHECK_INT(fsc_otlp_decode_proto(w->b, w->n, NULL, small, 10), -EBADMSG);
    CHECK_STR(small, "ResourceM");
    CHECK(small[10] == 'z');
    free(r);
    pool_reset();
}

/* Random damage to valid requests: never a crash or an overread (ASan), and
 * a refusal is always silent (no callback) and explained. */
static void mutations_no_partial_visits(void)
{
    size_t len[2];
    uint8_t *req[2] = {pack(LIST(RM, number_rm0(), number_rm1()), &len[0]),
                       pack(LIST(RM, hist_rm()), &len[1])};
    struct rec *r = calloc(1, sizeof(*r));
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    int refused = 0, accepted = 0, noisy = 0, silent = 0;
    for (int it = 0; it < 20000; it++) {
        int k = it & 1;
        uint8_t *buf = malloc(len[k]);
        memcpy(buf, req[k], len[k]);
        for (int m = 0; m < 1 + it % 3; m++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(seed >> 33) % len[k];
            buf[at] = (seed >> 20) & 1 ? (uint8_t)(seed >> 24)
                                       : buf[at] ^ (uint8_t)(1u << (seed >> 29 & 7));
        }
        char err[256];
        r->lo = buf;
        r->hi = buf + len[k];
        int rc = decode(r, buf, len[k], err, sizeof(err));
        if (rc == 0) {
            accepted++;
        } else {
            refused += rc == -EBADMSG;
            noisy += r->resources + r->metrics + r->points != 0;
            silent += err[0] == '\0';
        }
        CHECK_INT(r->outside, 0);
        CHECK_INT(r->misaligned, 0);
        free(buf);
    }
    CHECK_INT(refused + accepted, 20000);
    CHECK(refused > 1000); /* the damage is real */
    CHECK(accepted > 100); /* and some of it lands in values only */
    CHECK_INT(noisy, 0);
    CHECK_INT(silent, 0);
    r->lo = r->hi = NULL;
    free(r);
    pool_reset();
}

TEST_MAIN(TEST(number_points_exact), TEST(histogram_points_exact), TEST(field_order_reversed),
          TEST(unknown_fields_skipped), TEST(packed_and_unpacked_buckets),
          TEST(truncated_every_prefix), TEST(length_overflow), TEST(wrong_wire_type),
          TEST(group_wire_type), TEST(too_many_attributes), TEST(anyvalue_depth),
          TEST(empty_request), TEST(oneof_and_merge), TEST(error_messages),
          TEST(mutations_no_partial_visits))
