/* OTLP/JSON decoder (otlp_json.c, on jansson): every callback is written
 * to a text transcript, and each case compares the whole transcript with a
 * known answer (or checks -EBADMSG, the error sentence and that no callback
 * was made). Documents are written with ' for " and converted (q()). */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sources/otlp/decode/otlp_point.h"
#include "test.h"

/* ---- transcript visitor ----------------------------------------------------------- */

static char tr[1 << 16];
static size_t trlen;
static unsigned ncalls;
static unsigned bad_ptrs; /* a string with bytes but no pointer, misaligned arrays */
static char err[512];

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tr + trlen, sizeof(tr) - trlen, fmt, ap);
    va_end(ap);
    if (n > 0)
        trlen = trlen + (size_t)n < sizeof(tr) ? trlen + (size_t)n : sizeof(tr) - 1;
}

static void put_str(struct fsc_otlp_str s)
{
    if (s.len && !s.p)
        bad_ptrs++;
    for (uint32_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c < 0x20 || c >= 0x7f || c == '\\')
            out("\\x%02x", c);
        else
            out("%c", c);
    }
}

static void put_attrs(const struct fsc_otlp_attr *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        out(" ");
        put_str(a[i].key);
        out("=");
        switch (a[i].type) {
        case FSC_OTLP_VAL_STRING:
            out("s:");
            put_str(a[i].s);
            break;
        case FSC_OTLP_VAL_BOOL:
            out("b:%lld", (long long)a[i].i);
            break;
        case FSC_OTLP_VAL_INT:
            out("i:%lld", (long long)a[i].i);
            break;
        case FSC_OTLP_VAL_DOUBLE:
            out("d:%.17g", a[i].d);
            break;
        case FSC_OTLP_VAL_OTHER:
            out("o");
            break;
        default:
            out("e");
        }
    }
}

static void on_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n)
{
    (void)ctx;
    ncalls++;
    out("R");
    put_attrs(attrs, n);
    out("\n");
}

static void on_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    static const char *types[] = {"none", "gauge", "sum", "hist", "exph", "summary"};
    (void)ctx;
    ncalls++;
    out("M ");
    put_str(m->name);
    out(" u=");
    put_str(m->unit);
    out(" %s t=%u mono=%d\n", m->type < 6 ? types[m->type] : "?", m->temporality, m->monotonic);
}

static void on_point(void *ctx, const struct fsc_otlp_point *p)
{
    (void)ctx;
    ncalls++;
    out("P");
    put_attrs(p->attrs, p->n_attrs);
    out(" |");
    if (p->start_ns)
        out(" s=%llu", (unsigned long long)p->start_ns);
    out(" t=%llu", (unsigned long long)p->time_ns);
    if (p->flags)
        out(" f=%u", p->flags);
    if (p->value_kind == FSC_OTLP_VALUE_INT)
        out(" v=i:%lld", (long long)p->as_int);
    else if (p->value_kind == FSC_OTLP_VALUE_DOUBLE)
        out(" v=d:%.17g", p->as_double);
    else
        out(" v=-");
    if (p->count || p->has_sum)
        out(" c=%llu", (unsigned long long)p->count);
    if (p->has_sum)
        out(" sum=%.17g", p->sum);
    if ((uintptr_t)p->bounds % _Alignof(double) || (uintptr_t)p->buckets % _Alignof(uint64_t))
        bad_ptrs++;
    for (uint32_t i = 0; i < p->n_bounds; i++)
        out("%s%.17g", i ? "," : " b=", p->bounds[i]);
    for (uint32_t i = 0; i < p->n_buckets; i++)
        out("%s%llu", i ? "," : " n=", (unsigned long long)p->buckets[i]);
    out("\n");
}

static const struct fsc_otlp_visitor vis = {NULL, on_resource, on_metric, on_point};

/* Decodes a copy of exactly len bytes (ASan sees any over-read). */
static int dec(const char *json, size_t len)
{
    char *buf = malloc(len ? len : 1);
    if (!buf)
        abort();
    memcpy(buf, json, len);
    trlen = 0;
    tr[0] = '\0';
    ncalls = 0;
    bad_ptrs = 0;
    int rc = fsc_otlp_decode_json(buf, len, &vis, err, sizeof(err));
    free(buf);
    return rc;
}

/* ' -> " (documents below are written with single quotes). */
static char *q(const char *s)
{
    static char bufs[4][1 << 14];
    static int next;
    char *d = bufs[next++ % 4];
    size_t i = 0;
    for (; s[i] && i < sizeof(bufs[0]) - 1; i++)
        d[i] = s[i] == '\'' ? '"' : s[i];
    d[i] = '\0';
    return d;
}

#define EXPECT_OK(doc, want)                                                                       \
    do {                                                                                           \
        const char *d_ = (doc);                                                                    \
        CHECK_INT(dec(d_, strlen(d_)), 0);                                                         \
        CHECK_STR(tr, want);                                                                       \
        CHECK_INT(bad_ptrs, 0);                                                                    \
        if (err[0])                                                                                \
            fprintf(stderr, "  doc: %s\n  err: %s\n", d_, err);                                    \
    } while (0)

/* -EBADMSG, no callback, and the sentence contains frag. */
#define EXPECT_BAD(doc, frag)                                                                      \
    do {                                                                                           \
        const char *d_ = (doc);                                                                    \
        int rc_ = dec(d_, strlen(d_));                                                             \
        CHECK_INT(rc_, -EBADMSG);                                                                  \
        CHECK_INT(ncalls, 0);                                                                      \
        CHECK(strstr(err, frag) != NULL);                                                          \
        if (rc_ != -EBADMSG || !strstr(err, frag))                                                 \
            fprintf(stderr, "  doc: %s\n  err: %s\n  want: %s\n", d_, err, frag);                  \
    } while (0)

/* One gauge point with the given members. */
#define PT_DOC(members)                                                                            \
    "{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':'m','gauge':{'dataPoints':["         \
    "{" members "}]}}]}]}]}"

static char *pt_doc(const char *members)
{
    static char d[1 << 14];
    snprintf(d, sizeof(d), "%s", q(PT_DOC("%s")));
    static char d2[1 << 14];
    /* d holds the template with a %s; fill it without a non-literal format */
    char *hole = strstr(d, "%s");
    snprintf(d2, sizeof(d2), "%.*s%s%s", (int)(hole - d), d, members, hole + 2);
    return d2;
}

static char *read_fixture(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", FSC_OTLP_FIXTURES, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return NULL;
    static char buf[1 << 16];
    *len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* ---- every field ------------------------------------------------------------------- */

static const char *all_doc =
    "{'resourceMetrics':[{'resource':{'attributes':["
    "{'key':'s','value':{'stringValue':'leaf01'}},{'key':'bt','value':{'boolValue':true}},"
    "{'key':'bf','value':{'boolValue':false}},{'key':'is','value':{'intValue':'-42'}},"
    "{'key':'in','value':{'intValue':7}},{'key':'d','value':{'doubleValue':2.5}},"
    "{'key':'dn','value':{'doubleValue':'-Infinity'}},"
    "{'key':'a','value':{'arrayValue':{'values':[{'stringValue':'x'},{'intValue':'1'}]}}},"
    "{'key':'kv','value':{'kvlistValue':{'values':[{'key':'k','value':{'boolValue':true}}]}}},"
    "{'key':'by','value':{'bytesValue':'AAEC'}},{'key':'e','value':{}},{'key':'nov'}],"
    "'droppedAttributesCount':0},"
    "'scopeMetrics':[{'scope':{'name':'sc','version':'1'},'metrics':["
    "{'name':'g','unit':'By','gauge':{'dataPoints':["
    "{'attributes':[{'key':'interface','value':{'stringValue':'swp1'}}],"
    "'timeUnixNano':'1700000000123456789','asDouble':1.25},"
    "{'startTimeUnixNano':'1','timeUnixNano':2,'asInt':'-5','flags':1}]}},"
    "{'name':'s','sum':{'aggregationTemporality':2,'isMonotonic':true,'dataPoints':["
    "{'timeUnixNano':'3','asInt':9223372036854775807}]}},"
    "{'name':'s2','sum':{'aggregationTemporality':1,'isMonotonic':false,'dataPoints':["
    "{'timeUnixNano':'4','asDouble':'Infinity'}]}},"
    "{'name':'h','unit':'ms','histogram':{'aggregationTemporality':1,'dataPoints':["
    "{'timeUnixNano':'5','count':'3','sum':4.5,'bucketCounts':['1',2],'explicitBounds':[1.5],"
    "'min':0.5,'max':3,'flags':0}]}},"
    "{'name':'eh','exponentialHistogram':{'aggregationTemporality':2,'dataPoints':["
    "{'timeUnixNano':'6','count':7,'sum':1.5,'scale':3,'zeroCount':'1',"
    "'positive':{'offset':0,'bucketCounts':['1']},'min':1,'max':2}]}},"
    "{'name':'sm','summary':{'dataPoints':[{'timeUnixNano':'7','count':'2','sum':3,"
    "'quantileValues':[{'quantile':0.5,'value':1}]}]}},"
    "{'name':'none','description':'no data'},{'name':'nopts','gauge':{}}]}]},"
    "{'scopeMetrics':[{'metrics':[{'name':'r2','gauge':{'dataPoints':["
    "{'timeUnixNano':'8','asDouble':-0.1}]}}]}]}]}";

static const char *all_want =
    "R s=s:leaf01 bt=b:1 bf=b:0 is=i:-42 in=i:7 d=d:2.5 dn=d:-inf a=o kv=o by=o e=e nov=e\n"
    "M g u=By gauge t=0 mono=0\n"
    "P interface=s:swp1 | t=1700000000123456789 v=d:1.25\n"
    "P | s=1 t=2 f=1 v=i:-5\n"
    "M s u= sum t=2 mono=1\n"
    "P | t=3 v=i:9223372036854775807\n"
    "M s2 u= sum t=1 mono=0\n"
    "P | t=4 v=d:inf\n"
    "M h u=ms hist t=1 mono=0\n"
    "P | t=5 v=- c=3 sum=4.5 b=1.5 n=1,2\n"
    "M eh u= exph t=2 mono=0\n"
    "P | t=6 v=- c=7 sum=1.5\n"
    "M sm u= summary t=0 mono=0\n"
    "P | t=7 v=- c=2 sum=3\n"
    "M none u= none t=0 mono=0\n"
    "M nopts u= gauge t=0 mono=0\n"
    "R\n"
    "M r2 u= gauge t=0 mono=0\n"
    "P | t=8 v=d:-0.10000000000000001\n";

static void all_fields(void)
{
    EXPECT_OK(q(all_doc), all_want);
    CHECK_INT(ncalls, 19);
    /* no visitor, or a visitor with no callbacks: validation only */
    char *d = q(all_doc);
    CHECK_INT(fsc_otlp_decode_json(d, strlen(d), NULL, NULL, 0), 0);
    /* null counts as absent */
    EXPECT_OK(q("{'resourceMetrics':[{'resource':null,'scopeMetrics':[{'metrics':["
                "{'name':'a','unit':null,'gauge':null},{'name':'b','sum':{'isMonotonic':null,"
                "'dataPoints':[{'asDouble':null,'timeUnixNano':null,'attributes':null}]}}]}]}]}"),
              "R\nM a u= none t=0 mono=0\nM b u= sum t=0 mono=0\nP | t=0 v=-\n");
    /* ... in a oneof too: a null member beside the one set is no second one */
    EXPECT_OK(q("{'resourceMetrics':[{'resource':{'attributes':[{'key':'k','value':{"
                "'stringValue':null,'intValue':'3'}}]},'scopeMetrics':[{'metrics':[{'name':'c',"
                "'gauge':null,'sum':{'dataPoints':[{'asDouble':null,'asInt':'4'}]}}]}]}]}"),
              "R k=i:3\nM c u= sum t=0 mono=0\nP | t=0 v=i:4\n");
    /* unknown keys anywhere, any JSON inside; keys the decoder does not use */
    EXPECT_OK(q("{'x':{'a':[1,2.5e-3,{'b':null}],'c':'\\u00e9'},'resourceMetrics':[{'schemaUrl':"
                "'u','y':[],'scopeMetrics':[{'metrics':[{'description':5,'metadata':'?',"
                "'name':'m','gauge':{'z':1,'dataPoints':[{'exemplars':[{'q':1}],'count':'x',"
                "'timeUnixNano':'9','asInt':1}]}}]}]}]}"),
              "R\nM m u= gauge t=0 mono=0\nP | t=9 v=i:1\n");
    /* unknown temporality: delivered as UNSPECIFIED */
    EXPECT_OK(q("{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':'m','sum':"
                "{'aggregationTemporality':7}}]}]}]}"),
              "R\nM m u= sum t=0 mono=0\n");
}

/* ---- 64-bit exactness, numbers ------------------------------------------------------- */

static void int64_exact(void)
{
    EXPECT_OK(pt_doc(q("'timeUnixNano':'1700000000123456789','asInt':'-9223372036854775808'")),
              "R\nM m u= gauge t=0 mono=0\nP | t=1700000000123456789 v=i:-9223372036854775808\n");
    EXPECT_OK(pt_doc(q("'timeUnixNano':1700000000123456789,'asInt':-9223372036854775808")),
              "R\nM m u= gauge t=0 mono=0\nP | t=1700000000123456789 v=i:-9223372036854775808\n");
    EXPECT_OK(pt_doc(q("'startTimeUnixNano':'18446744073709551615','timeUnixNano':"
                       "'9223372036854775808','asInt':9223372036854775807,'flags':4294967295")),
              "R\nM m u= gauge t=0 mono=0\nP | s=18446744073709551615 t=9223372036854775808 "
              "f=4294967295 v=i:9223372036854775807\n");
    /* a bare -0 is the integer 0 (jansson holds it so) */
    EXPECT_OK(pt_doc(q("'timeUnixNano':-0,'asInt':-0")),
              "R\nM m u= gauge t=0 mono=0\nP | t=0 v=i:0\n");
    /* uint64 above INT64_MAX as a bare number: jansson cannot hold it exactly,
     * refused with the field's path (a string is exact, above) */
    EXPECT_BAD(pt_doc(q("'timeUnixNano':9223372036854775808")), "timeUnixNano: bare JSON number");
    CHECK_STR(err, "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0]."
                   "timeUnixNano: bare JSON number above 9223372036854775807: send uint64 "
                   "values as strings (protobuf JSON mapping)");
    EXPECT_BAD(q("{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':'h','histogram':{"
                 "'dataPoints':[{'bucketCounts':['1',18446744073709551615]}]}}]}]}]}"),
               "histogram.dataPoints[0].bucketCounts[1]: bare JSON number above "
               "9223372036854775807");
    /* such a number in a key the decoder does not use: the text is read with
     * every integer as a double, and integer fields take bare numbers up to
     * 2^53 (exact in a double; 2.0 then equals 2), refuse 2^53 and more
     * (2^53 + 1 reads as 2^53) */
    EXPECT_OK(pt_doc(q("'exemplars':[{'asInt':18446744073709551615}],'timeUnixNano':"
                       "9007199254740991,'startTimeUnixNano':'18446744073709551615','asInt':"
                       "-9007199254740991,'flags':2.0")),
              "R\nM m u= gauge t=0 mono=0\nP | s=18446744073709551615 t=9007199254740991 f=2 "
              "v=i:-9007199254740991\n");
    EXPECT_BAD(pt_doc(q("'x':18446744073709551616,'timeUnixNano':9007199254740993")),
               "dataPoints[0].timeUnixNano: bare JSON number of 2^53 or more in a request holding "
               "one beyond int64: send 64-bit integers as strings");
    EXPECT_BAD(pt_doc(q("'x':-9223372036854775809,'asInt':-9007199254740992")),
               "dataPoints[0].asInt: bare JSON number of 2^53 or more");
    EXPECT_BAD(pt_doc(q("'x':-9223372036854775809,'asInt':1.5")), "asInt: expected an integer");
    /* doubles: numbers, numeric strings, the three special strings */
    EXPECT_OK(pt_doc(q("'asDouble':'1.5e2'")), "R\nM m u= gauge t=0 mono=0\nP | t=0 v=d:150\n");
    EXPECT_OK(pt_doc(q("'asDouble':4.9406564584124654e-324")),
              "R\nM m u= gauge t=0 mono=0\nP | t=0 v=d:4.9406564584124654e-324\n");
    EXPECT_OK(pt_doc(q("'asDouble':9007199254740993")),
              "R\nM m u= gauge t=0 mono=0\nP | t=0 v=d:9007199254740992\n");
    EXPECT_OK(pt_doc(q("'asDouble':'-Infinity'")),
              "R\nM m u= gauge t=0 mono=0\nP | t=0 v=d:-inf\n");
    CHECK_INT(dec(pt_doc(q("'asDouble':'NaN'")), strlen(pt_doc(q("'asDouble':'NaN'")))), 0);
    CHECK(strstr(tr, "v=d:nan") || strstr(tr, "v=d:-nan"));
    /* escaped digits in a numeric string are still digits */
    EXPECT_OK(pt_doc(q("'timeUnixNano':'\\u0031\\u0032'")),
              "R\nM m u= gauge t=0 mono=0\nP | t=12 v=-\n");

    static const char *bad_u64[] = {"'18446744073709551616'",
                                    "18446744073709551616",
                                    "-1",
                                    "'-1'",
                                    "1.5",
                                    "1e3",
                                    "'1e3'",
                                    "'1.0'",
                                    "1.0",
                                    "'+1'",
                                    "' 1'",
                                    "'1 '",
                                    "'01'",
                                    "''",
                                    "'0x10'",
                                    "true",
                                    "{}",
                                    "[]",
                                    "'NaN'",
                                    "'-0'"};
    char m[128];
    for (size_t i = 0; i < sizeof(bad_u64) / sizeof(bad_u64[0]); i++) {
        snprintf(m, sizeof(m), "'timeUnixNano':%s", bad_u64[i]);
        EXPECT_BAD(pt_doc(q(m)), "dataPoints[0].timeUnixNano");
    }
    EXPECT_BAD(pt_doc(q("'count':1,'asInt':'9223372036854775808'")), "number out of range");
    EXPECT_BAD(pt_doc(q("'asInt':'-9223372036854775809'")), "asInt: number out of range");
    EXPECT_BAD(pt_doc(q("'asInt':-9223372036854775809")),
               "asInt: bare JSON number of 2^53 or more");
    EXPECT_BAD(pt_doc(q("'asInt':'-'")), "asInt: expected an integer");
    EXPECT_BAD(pt_doc(q("'asInt':2.0")), "asInt: expected an integer");
    EXPECT_BAD(pt_doc(q("'flags':4294967296")), "flags: number out of range");
    EXPECT_BAD(pt_doc(q("'asDouble':'nan'")), "asDouble: expected a number");
    EXPECT_BAD(pt_doc(q("'asDouble':'inf'")), "asDouble: expected a number");
    EXPECT_BAD(pt_doc(q("'asDouble':1e999")), "invalid JSON: real number overflow near '1e999'");
    EXPECT_BAD(pt_doc(q("'asDouble':'-1e999'")), "asDouble: number out of range");
    EXPECT_BAD(pt_doc(q("'asDouble':'1.'")), "asDouble: expected a number");
    EXPECT_BAD(pt_doc(q("'asDouble':true")), "asDouble: expected a number");
}

/* ---- the fixtures ------------------------------------------------------------------------ */

static const char *fixture_want[][2] = {
    {"interface_gauge.json", "R host.name=s:leaf01 service.name=s:nvswitch-telemetry\n"
                             "M nvswitch_interface_if_in_octets u= gauge t=0 mono=0\n"
                             "P interface=s:swp1 | t=1731676800123456789 v=d:918273645120\n"
                             "P interface=s:swp2 | t=1731676800123456789 v=d:4503599627370497\n"
                             "M nvswitch_interface_if_out_octets u= gauge t=0 mono=0\n"
                             "P interface=s:swp1 | t=1731676800123456789 v=d:1500\n"
                             "M nvswitch_interface_dot3_stats_fcs_errors u= gauge t=0 mono=0\n"
                             "P interface=s:swp1 | t=1731676800123456789 v=d:0\n"},
    {"control_plane_sum.json",
     "R host.name=s:spine02\n"
     "M nvswitch_control_plane_rx_packets u=packets sum t=2 mono=1\n"
     "P | s=1731600000000000000 t=1731676801000000000 v=i:9007199254740993\n"
     "P group=s:bgp | s=1731600000000000000 t=1731676801000000000 v=i:48213\n"
     "M nvswitch_control_plane_rx_bytes u=bytes sum t=2 mono=1\n"
     "P | s=1731600000000000000 t=1731676801000000000 v=i:18446744073\n"},
    {"histogram_delta.json",
     "R host.name=s:leaf01\n"
     "M nvswitch_histogram_interface_egress_buffer u=bytes hist t=1 mono=0\n"
     "P interface=s:swp1 tc=i:3 | s=1731676800000000000 t=1731676801000000000 v=- c=1000 "
     "sum=52428800 b=960,1920,3840,7680,15360,30720,61440,122880,245760 "
     "n=600,200,100,50,25,12,8,3,1,1\n"
     "M nvswitch_histogram_interface_ingress_buffer u=bytes hist t=1 mono=0\n"
     "P interface=s:swp1 pg=s:0 | s=1731676800000000000 t=1731676801000000000 v=- c=10 "
     "b=960,1920,3840,7680,15360,30720,61440,122880,245760 n=10,0,0,0,0,0,0,0,0,0\n"},
};
#define N_FIXTURES (sizeof(fixture_want) / sizeof(fixture_want[0]))

static void fixtures(void)
{
    static const unsigned calls[N_FIXTURES] = {8, 6, 5};
    for (size_t i = 0; i < N_FIXTURES; i++) {
        size_t len = 0;
        const char *doc = read_fixture(fixture_want[i][0], &len);
        if (!doc)
            continue;
        CHECK_INT(dec(doc, len), 0);
        CHECK_STR(tr, fixture_want[i][1]);
        CHECK_INT(ncalls, calls[i]);
        CHECK_INT(bad_ptrs, 0);
    }
}

/* Every prefix shorter than the document is malformed and calls nothing; the
 * prefixes that only drop trailing whitespace decode in full. */
static void truncated_prefixes(void)
{
    for (size_t i = 0; i <= N_FIXTURES; i++) {
        size_t len = 0;
        const char *doc = i < N_FIXTURES ? read_fixture(fixture_want[i][0], &len) : q(all_doc);
        if (!doc)
            continue;
        if (i == N_FIXTURES)
            len = strlen(doc);
        size_t end = len;
        while (end > 0 && doc[end - 1] != '}')
            end--;
        unsigned bad = 0, good = 0;
        for (size_t n = 0; n <= len; n++) {
            int rc = dec(doc, n);
            if (n < end && (rc != -EBADMSG || ncalls != 0 || err[0] == '\0')) {
                fprintf(stderr, "  %zu: prefix %zu: rc %d calls %u\n", i, n, rc, ncalls);
                bad++;
            }
            if (n >= end && (rc != 0 || ncalls == 0))
                bad++;
            good += n >= end && rc == 0;
        }
        CHECK_INT(bad, 0);
        CHECK_INT(good, len - end + 1);
    }
    /* jansson's sentence, line and column (of the last character it read) */
    const char *t = "{\"resourceMetrics\":[{\"scopeMetrics\":[\n  {\"metrics\":[{\"name\":\"a";
    CHECK_INT(dec(t, strlen(t)), -EBADMSG);
    CHECK_STR(err, "invalid JSON: premature end of input near '\"a' (line 2, column 24)");
}

/* ---- key order, spelling, whitespace ---------------------------------------------------- */

static void permute(size_t n, unsigned k, size_t *idx)
{
    size_t pool[8], f = 1;
    for (size_t i = 0; i < n; i++)
        pool[i] = i;
    for (size_t i = 2; i < n; i++)
        f *= i;
    for (size_t i = 0; i < n; i++) {
        size_t j = k / f;
        k %= f;
        idx[i] = pool[j];
        memmove(pool + j, pool + j + 1, (n - j - 1) * sizeof(pool[0]));
        if (n - 1 - i > 0)
            f /= n - 1 - i;
    }
}

/* parts[] joined in the order idx, comma separated, into d. */
static void join(char *d, size_t cap, const char *const *parts, size_t n, const size_t *idx)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(d + o, cap - o, "%s%s", i ? "," : "", parts[idx[i]]);
}

static void key_order(void)
{
    const char *pt[] = {"'attributes':[{'value':{'stringValue':'swp1'},'key':'interface'}]",
                        "'timeUnixNano':'10'", "'startTimeUnixNano':'5'", "'asInt':'42'"};
    const char *want = "R host.name=s:sw\nM m u=1 sum t=2 mono=1\n"
                       "P interface=s:swp1 | s=5 t=10 v=i:42\n"
                       "M g u= gauge t=0 mono=0\nP | t=1 v=d:1\n";
    char pts[512], sum[1024], met[2048], rm[4096], doc[8192];
    size_t i_pt[4], i_sum[3], i_met[4], i_rm[2];
    unsigned bad = 0, runs = 0;
    for (unsigned a = 0; a < 24; a++) {
        for (unsigned b = 0; b < 6; b++) {
            for (unsigned c = 0; c < 2; c++) {
                permute(4, (a * 7 + b) % 24, i_pt);
                join(pts, sizeof(pts), pt, 4, i_pt);
                char dp[600];
                snprintf(dp, sizeof(dp), "'dataPoints':[{%s}]", pts);
                const char *sp[] = {dp, "'aggregationTemporality':2", "'isMonotonic':true"};
                permute(3, b, i_sum);
                join(sum, sizeof(sum), sp, 3, i_sum);
                char sv[1100];
                snprintf(sv, sizeof(sv), "'sum':{%s}", sum);
                const char *mp[] = {"'name':'m'", "'unit':'1'", "'description':'d'", sv};
                permute(4, a, i_met);
                join(met, sizeof(met), mp, 4, i_met);
                char sm[2400];
                snprintf(sm, sizeof(sm),
                         "'scopeMetrics':[{'metrics':[{%s},{'gauge':{'dataPoints':[{'asDouble':"
                         "1,'timeUnixNano':1}]},'name':'g'}]}]",
                         met);
                const char *rp[] = {
                    "'resource':{'attributes':[{'key':'host.name','value':{'stringValue':'sw'}}]}",
                    sm};
                permute(2, c, i_rm);
                join(rm, sizeof(rm), rp, 2, i_rm);
                snprintf(doc, sizeof(doc), "{'resourceMetrics':[{%s}]}", rm);
                char *d = q(doc);
                runs++;
                if (dec(d, strlen(d)) != 0 || strcmp(tr, want) != 0) {
                    if (bad++ == 0)
                        fprintf(stderr, "  doc: %s\n  got: %s  err: %s\n", d, tr, err);
                }
            }
        }
    }
    CHECK_INT(runs, 288);
    CHECK_INT(bad, 0);
    /* out of order with escapes: strings are unescaped once, after the look-ahead */
    EXPECT_OK(q("{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'sum':{'isMonotonic':true},"
                "'unit':'\\u00b5s','name':'a\\tb'},{'sum':{'dataPoints':[{'attributes':[{'key':"
                "'k\\u0031','value':{'stringValue':'v\\n'}}],'asInt':1}],"
                "'aggregationTemporality':1},'name':'c'}]}],'resource':{'attributes':[{'key':'h',"
                "'value':{'stringValue':'\\u0068'}}]}}]}"),
              "R h=s:h\nM a\\x09b u=\\xc2\\xb5s sum t=0 mono=1\nM c u= sum t=1 mono=0\n"
              "P k1=s:v\\x0a | t=0 v=i:1\n");
}

static void snake_case(void)
{
    static const char *map[][2] = {{"resourceMetrics", "resource_metrics"},
                                   {"scopeMetrics", "scope_metrics"},
                                   {"dataPoints", "data_points"},
                                   {"aggregationTemporality", "aggregation_temporality"},
                                   {"isMonotonic", "is_monotonic"},
                                   {"exponentialHistogram", "exponential_histogram"},
                                   {"stringValue", "string_value"},
                                   {"boolValue", "bool_value"},
                                   {"intValue", "int_value"},
                                   {"doubleValue", "double_value"},
                                   {"arrayValue", "array_value"},
                                   {"kvlistValue", "kvlist_value"},
                                   {"bytesValue", "bytes_value"},
                                   {"startTimeUnixNano", "start_time_unix_nano"},
                                   {"timeUnixNano", "time_unix_nano"},
                                   {"asDouble", "as_double"},
                                   {"asInt", "as_int"},
                                   {"bucketCounts", "bucket_counts"},
                                   {"explicitBounds", "explicit_bounds"}};
    static char doc[1 << 14], tmp[1 << 14];
    snprintf(doc, sizeof(doc), "%s", q(all_doc));
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        char from[64];
        snprintf(from, sizeof(from), "\"%s\"", map[i][0]);
        size_t o = 0, fl = strlen(from);
        for (const char *p = doc; *p && o < sizeof(tmp) - 64;) {
            if (strncmp(p, from, fl) == 0) {
                o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "\"%s\"", map[i][1]);
                p += fl;
            } else {
                tmp[o++] = *p++;
            }
        }
        tmp[o] = '\0';
        memcpy(doc, tmp, o + 1);
    }
    CHECK(strstr(doc, "timeUnixNano") == NULL);
    CHECK(strstr(doc, "\"time_unix_nano\"") != NULL);
    EXPECT_OK(doc, all_want);
    /* mixed spellings of one key are the same key */
    EXPECT_BAD(pt_doc(q("'timeUnixNano':1,'time_unix_nano':2")), "timeUnixNano: duplicate key");
    /* near misses are unknown keys, skipped */
    EXPECT_OK(pt_doc(q("'time_unixNano':1,'TimeUnixNano':2,'timeunixnano':3,'time__unix_nano':4")),
              "R\nM m u= gauge t=0 mono=0\nP | t=0 v=-\n");
}

/* Whitespace after every structural character, or none at all. */
static void whitespace(void)
{
    static char sp[1 << 16], mini[1 << 14];
    const char *doc = q(all_doc);
    size_t o = 0, m = 0;
    bool in_str = false;
    o += (size_t)snprintf(sp, sizeof(sp), " \r\n\t");
    for (const char *p = doc; *p; p++) {
        sp[o++] = *p;
        if (*p == '"' && (p == doc || p[-1] != '\\'))
            in_str = !in_str;
        if (!in_str && strchr("{}[],:", *p))
            o += (size_t)snprintf(sp + o, sizeof(sp) - o, "\n\t \r ");
    }
    sp[o] = '\0';
    EXPECT_OK(sp, all_want);
    in_str = false;
    for (const char *p = sp; *p; p++) {
        if (*p == '"' && p[-1] != '\\')
            in_str = !in_str;
        if (in_str || !strchr(" \t\r\n", *p))
            mini[m++] = *p;
    }
    mini[m] = '\0';
    CHECK_INT(m, strlen(doc));
    EXPECT_OK(mini, all_want);
    /* other bytes are not whitespace */
    EXPECT_BAD("{\f}", "invalid JSON: string or '}' expected near '\f' (line 1, column 2)");
    EXPECT_BAD("\xc2\xa0{}", "expected an object");
}

/* ---- strings ------------------------------------------------------------------------------ */

static void escapes_utf8(void)
{
    /* every escape; \u to 1, 2, 3 and 4 UTF-8 bytes; raw multibyte untouched */
    EXPECT_OK(pt_doc(q("'attributes':[{'key':'k','value':{'stringValue':"
                       "'a\\\"b\\\\c\\/d\\b\\f\\n\\r\\te\\u0041\\u00e9\\u20AC\\ud83d\\ude00'}},"
                       "{'key':'raw','value':{'stringValue':'\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                       "\x7f'}},{'key':'nul','value':{'stringValue':'x\\u0000y'}}]")),
              "R\nM m u= gauge t=0 mono=0\nP k=s:a\"b\\x5cc/d\\x08\\x0c\\x0a\\x0d\\x09eA\\xc3\\xa9"
              "\\xe2\\x82\\xac\\xf0\\x9f\\x98\\x80 raw=s:\\xc3\\xa9\\xe2\\x82\\xac\\xf0\\x9f\\x98"
              "\\x80\\x7f nul=s:x\\x00y | t=0 v=-\n");
    /* escaped keys are the keys they spell; escaped names are unescaped */
    EXPECT_OK(q("{'resource\\u004detrics':[{'scopeMetrics':[{'metrics':[{'n\\u0061me':"
                "'if\\u005fin','g\\u0061uge':{'dataPoints':[{'\\u0074imeUnixNano':'3'}]}}]}]}]}"),
              "R\nM if_in u= gauge t=0 mono=0\nP | t=3 v=-\n");

    /* jansson's sentences (its parser's words): a UTF-8 sequence it cannot decode is
     * named by its first byte */
    static const char *bad[][2] = {
        {"\xc0\x80", "unable to decode byte 0xc0"}, /* overlong NUL */
        {"\xc1\xbf", "unable to decode byte 0xc1"}, /* overlong */
        {"\xe0\x80\xaf", "unable to decode byte 0xe0"},
        {"\xf0\x80\x80\xaf", "unable to decode byte 0xf0"},
        {"\xed\xa0\x80", "unable to decode byte 0xed"},     /* UTF-16 surrogate D800 */
        {"\xed\xbf\xbf", "unable to decode byte 0xed"},     /* surrogate DFFF */
        {"\xf4\x90\x80\x80", "unable to decode byte 0xf4"}, /* above U+10FFFF */
        {"\xf5\x80\x80\x80", "unable to decode byte 0xf5"},
        {"\x80", "unable to decode byte 0x80"},
        {"a\xbf", "unable to decode byte 0xbf"},
        {"\xe2\x82", "unable to decode byte 0xe2"},
        {"\xf0\x9f\x98", "unable to decode byte 0xf0"},
        {"\xff", "unable to decode byte 0xff"},
        {"\xfe", "unable to decode byte 0xfe"},
        {"\xc3\x28", "unable to decode byte 0xc3"}, /* bad continuation */
        {"\\ud800", "invalid Unicode '\\uD800'"},
        {"\\udc00", "invalid Unicode '\\uDC00'"},
        {"\\ud800\\u0041", "invalid Unicode '\\uD800\\u0041'"},
        {"\\ud800x", "invalid Unicode '\\uD800'"},
        {"\\udbff\\ud800", "invalid Unicode '\\uDBFF\\uD800'"},
        {"\\x", "invalid escape"},
        {"\\u12G4", "invalid escape"},
        {"\\u12", "invalid escape"},
        {"\\U0041", "invalid escape"},
        {"\\'", "invalid escape"},
        {"\x01", "control character 0x1"},
        {"\x1f", "control character 0x1f"},
        {"\t", "control character 0x9"},
        {"\n", "unexpected newline"},
    };
    char m[128], want[64];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(want, sizeof(want), "invalid JSON: %s", bad[i][1]);
        /* as a value, as a key, and inside an unknown key's value */
        snprintf(m, sizeof(m),
                 "\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":\"%s\"}}]", bad[i][0]);
        EXPECT_BAD(pt_doc(m), want);
        snprintf(m, sizeof(m), "\"%s\":1", bad[i][0]);
        EXPECT_BAD(pt_doc(m), want);
        snprintf(m, sizeof(m), "\"x\":[\"%s\"]", bad[i][0]);
        EXPECT_BAD(pt_doc(m), want);
    }
}

/* ---- malformed structure ------------------------------------------------------------------ */

static void trailing_garbage(void)
{
    EXPECT_BAD("{} x", "invalid JSON: end of file expected near 'x' (line 1, column 4)");
    EXPECT_BAD("{}{}", "invalid JSON: end of file expected near '{'");
    EXPECT_BAD("{},", "invalid JSON: end of file expected near ','");
    EXPECT_BAD("{}}", "invalid JSON: end of file expected near '}'");
    EXPECT_BAD("{}]", "invalid JSON: end of file expected near ']'");
    CHECK_INT(dec("{}\0", 3), -EBADMSG);
    CHECK_INT(ncalls, 0);
    size_t len = 0;
    const char *doc = read_fixture(fixture_want[0][0], &len);
    if (doc) {
        static char g[1 << 16];
        snprintf(g, sizeof(g), "%s\n\n  x", doc);
        EXPECT_BAD(g, "invalid JSON: end of file expected near 'x'");
    }
    EXPECT_OK("{}\n \t\r", "");
    CHECK_INT(ncalls, 0);
}

static void depth_bomb(void)
{
    enum { N = 10000 };
    static char d[N * 2 + 64], v[N * 40 + 512];
    /* inside an unknown key, closed and unclosed; and at the top */
    size_t o = (size_t)snprintf(d, sizeof(d), "{\"x\":");
    memset(d + o, '[', N);
    memset(d + o + N, ']', N);
    snprintf(d + o + 2 * N, sizeof(d) - o - 2 * N, "}");
    EXPECT_BAD(d, "nesting deeper than 128 levels");
    d[o + N] = '\0';
    EXPECT_BAD(d, "nesting deeper than 128 levels");
    EXPECT_BAD(d + o, "expected an object");
    /* 128 levels in all is the bound: the root object + 127 arrays */
    for (int extra = 0; extra < 2; extra++) {
        size_t k = 127 + (size_t)extra;
        o = (size_t)snprintf(d, sizeof(d), "{\"x\":");
        memset(d + o, '[', k);
        memset(d + o + k, ']', k);
        snprintf(d + o + 2 * k, sizeof(d) - o - 2 * k, "}");
        if (extra)
            EXPECT_BAD(d, "nesting deeper than 128 levels");
        else
            EXPECT_OK(d, "");
    }
    /* AnyValue nesting: 16 arrays/kvlists in an attribute value pass, 17 do not,
     * 10000 do not either (and cost no stack): those meet the JSON nesting
     * bound, which the decoder checks on the whole text before parsing it */
    static const unsigned levels[] = {16, 17, 16, 17, N};
    for (size_t t = 0; t < sizeof(levels) / sizeof(levels[0]); t++) {
        bool kv = t == 2 || t == 3;
        size_t n = levels[t];
        o = 0;
        for (size_t i = 0; i < n; i++)
            o += (size_t)snprintf(v + o, sizeof(v) - o,
                                  kv ? "{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":"
                                     : "{\"arrayValue\":{\"values\":[");
        o += (size_t)snprintf(v + o, sizeof(v) - o, "{\"intValue\":\"1\"}");
        for (size_t i = 0; i < n; i++)
            o += (size_t)snprintf(v + o, sizeof(v) - o, kv ? "}]}}" : "]}}");
        static char doc[N * 40 + 1024];
        snprintf(doc, sizeof(doc),
                 "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"deep\",\"value\":"
                 "%s}]}}]}",
                 v);
        if (n == 16)
            EXPECT_OK(doc, "R deep=o\n");
        else if (n == 17)
            EXPECT_BAD(doc, "values nested deeper than 16 levels");
        else
            EXPECT_BAD(doc, "nesting deeper than 128 levels");
    }
}

static void bounds(void)
{
    static char m[16384], want[8192];
    for (int n = 64; n <= 65; n++) {
        size_t o = (size_t)snprintf(m, sizeof(m), "\"attributes\":[");
        size_t w = (size_t)snprintf(want, sizeof(want), "R\nM m u= gauge t=0 mono=0\nP");
        for (int i = 0; i < n; i++) {
            o += (size_t)snprintf(m + o, sizeof(m) - o,
                                  "%s{\"key\":\"k%d\",\"value\":{\"intValue\":%d}}", i ? "," : "",
                                  i, i);
            w += (size_t)snprintf(want + w, sizeof(want) - w, " k%d=i:%d", i, i);
        }
        snprintf(m + o, sizeof(m) - o, "]");
        snprintf(want + w, sizeof(want) - w, " | t=0 v=-\n");
        if (n == 64)
            EXPECT_OK(pt_doc(m), want);
        else
            EXPECT_BAD(pt_doc(m), "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge."
                                  "dataPoints[0].attributes: more than 64 attributes");
        /* the same list as resource attributes */
        static char r[20000];
        snprintf(r, sizeof(r), "{\"resourceMetrics\":[{\"resource\":{%s}}]}", m);
        CHECK_INT(dec(r, strlen(r)), n == 64 ? 0 : -EBADMSG);
        CHECK_INT(ncalls, n == 64 ? 1 : 0);
    }
    /* 512 buckets and bounds pass, 513 do not */
    for (int n = 512; n <= 513; n++) {
        for (int which = 0; which < 2; which++) {
            size_t o = (size_t)snprintf(m, sizeof(m),
                                        "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{"
                                        "\"histogram\":{\"dataPoints\":[{\"%s\":[",
                                        which ? "explicitBounds" : "bucketCounts");
            for (int i = 0; i < n; i++)
                o += (size_t)snprintf(m + o, sizeof(m) - o, "%s\"%d\"", i ? "," : "", i + 1);
            snprintf(m + o, sizeof(m) - o, "]}]}}]}]}]}");
            int rc = dec(m, strlen(m));
            CHECK_INT(rc, n == 512 ? 0 : -EBADMSG);
            if (n == 512)
                CHECK(strstr(tr, which ? ",511,512\n" : ",511,512\n") != NULL);
            else
                CHECK(strstr(err, which ? "explicitBounds: more than 512 entries"
                                        : "bucketCounts: more than 512 entries"));
        }
    }
    /* kvlists inside a value are not bounded by the attribute limit */
    size_t o = (size_t)snprintf(m, sizeof(m),
                                "\"attributes\":[{\"key\":\"kv\",\"value\":{"
                                "\"kvlistValue\":{\"values\":[");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(m + o, sizeof(m) - o, "%s{\"key\":\"k\"}", i ? "," : "");
    snprintf(m + o, sizeof(m) - o, "]}}}]");
    EXPECT_OK(pt_doc(m), "R\nM m u= gauge t=0 mono=0\nP kv=o | t=0 v=-\n");
    /* jansson's tree: 7.5 MB of empty objects would take ~580 MiB, refused (over 128 MiB)
     * before parsing; 0.9 MB of them (~70 MiB) pass */
    for (int big = 0; big < 2; big++) {
        size_t n = big ? 2500000 : 300000, len = 8 + 3 * n;
        char *d = malloc(len + 1);
        CHECK(d != NULL);
        if (!d)
            break;
        o = (size_t)snprintf(d, len + 1, "{\"x\":[");
        for (size_t i = 0; i < n; i++, o += 3)
            memcpy(d + o, i ? ",{}" : "{} ", 3);
        memcpy(d + o, "]}", 3);
        if (big)
            EXPECT_BAD(d, "the document would take more than 128 MiB to decode (send large batches "
                          "as protobuf) (line 1, column 1)");
        else
            EXPECT_OK(d, "");
        free(d);
    }
}

static void empty_documents(void)
{
    EXPECT_OK("{}", "");
    CHECK_INT(ncalls, 0);
    CHECK_INT(err[0], 0);
    EXPECT_OK(" { \"resourceMetrics\" : [ ] } ", "");
    EXPECT_OK("{\"resourceMetrics\":null}", "");
    EXPECT_OK("{\"resourceMetrics\":[{}]}", "R\n");
    EXPECT_OK("{\"resourceMetrics\":[{\"scopeMetrics\":[{},{\"metrics\":[]}]}]}", "R\n");
    EXPECT_BAD("", "empty document (line 1, column 1)");
    EXPECT_BAD(" \n ", "empty document (line 2, column 2)");
    CHECK_INT(fsc_otlp_decode_json(NULL, 0, &vis, err, sizeof(err)), -EBADMSG);
    EXPECT_BAD("null", "expected an object (ExportMetricsServiceRequest)");
    EXPECT_BAD("[]", "expected an object");
    EXPECT_BAD("\"{}\"", "expected an object");
}

/* Wrong types for known keys name the path; a bad point anywhere means no
 * callback at all, even for the valid metrics before it. */
static void type_errors(void)
{
    const char *doc = q("{'resourceMetrics':[{'scopeMetrics':[{'metrics':[\n"
                        "{'name':'a','gauge':{'dataPoints':[{'asDouble':1}]}},\n"
                        "{'name':'b','gauge':{'dataPoints':[]}},\n"
                        "{'name':'c','gauge':{'dataPoints': 5}}]}]}]}");
    EXPECT_BAD(doc, "x");
    CHECK_STR(err, "resourceMetrics[0].scopeMetrics[0].metrics[2].gauge.dataPoints: expected an "
                   "array");

    static const char *cases[][2] = {
        {"{'resourceMetrics':{}}", "resourceMetrics: expected an array"},
        {"{'resourceMetrics':[5]}", "resourceMetrics[0]: expected an object"},
        {"{'resourceMetrics':[{'resource':[]}]}", "resourceMetrics[0].resource: expected an "
                                                  "object"},
        {"{'resourceMetrics':[{'resource':{'attributes':{}}}]}", "resource.attributes: expected "
                                                                 "an array"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':5}]}]}]}",
         "metrics[0].name: expected a string"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'unit':true}]}]}]}",
         "metrics[0].unit: expected a string"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'sum':{'isMonotonic':'true'}}]}]}]}",
         "sum.isMonotonic: expected true or false"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'sum':{'aggregationTemporality':'2'"
         "}}]}]}]}",
         "sum.aggregationTemporality: expected an integer enum value"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'histogram':{'aggregationTemporality'"
         ":2.0}}]}]}]}",
         "histogram.aggregationTemporality: expected an integer enum value"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'histogram':{'dataPoints':[{"
         "'bucketCounts':'1'}]}}]}]}]}",
         "dataPoints[0].bucketCounts: expected an array"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'histogram':{'dataPoints':[{"
         "'explicitBounds':[1,'x']}]}}]}]}]}",
         "dataPoints[0].explicitBounds[1]: expected a number"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'gauge':{},'sum':{}}]}]}]}",
         "metrics[0].sum: more than one of gauge, sum"},
        {"{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':'a','name':'a'}]}]}]}",
         "invalid JSON: duplicate object key near '\"name\"' (line 1, column 67)"},
        {"{'resourceMetrics':[],'resource_metrics':[]}", "resourceMetrics: duplicate key"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        EXPECT_BAD(q(cases[i][0]), cases[i][1]);

    EXPECT_BAD(pt_doc(q("'asDouble':1,'asInt':1")), "asInt: both asDouble and asInt");
    EXPECT_BAD(pt_doc(q("'timeUnixNano':true")), "timeUnixNano: expected an unsigned integer");
    EXPECT_BAD(pt_doc(q("'attributes':[{'key':'k','value':'x'}]")),
               "attributes[0].value: expected an object");
    EXPECT_BAD(pt_doc(q("'attributes':[{'key':1}]")), "attributes[0].key: expected a string");
    EXPECT_BAD(pt_doc(q("'attributes':[['k']]")), "attributes[0]: expected an object");
    EXPECT_BAD(pt_doc(q("'attributes':[{'key':'k','value':{'stringValue':'x','intValue':1}}]")),
               "value.intValue: more than one value kind");
    EXPECT_BAD(pt_doc(q("'attributes':[{'value':{'boolValue':'true'}}]")),
               "value.boolValue: expected true or false");
    EXPECT_BAD(pt_doc(q("'attributes':[{'value':{'arrayValue':{'values':[{'intValue':1.5}]}}}]")),
               "value.arrayValue.values[0].intValue: expected an integer");
    /* the bad point comes last: the earlier metrics are not visited either */
    EXPECT_BAD(q("{'resourceMetrics':[{'scopeMetrics':[{'metrics':[{'name':'ok','gauge':"
                 "{'dataPoints':[{'asDouble':1}]}}]}]},{'scopeMetrics':[{'metrics':[{'gauge':"
                 "{'dataPoints':[{'asDouble':'x'}]}}]}]}]}"),
               "resourceMetrics[1].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asDouble");
}

/* JSON syntax errors, also where the decoder only skips. */
static void syntax_errors(void)
{
    /* jansson's sentences (its parser's words), the column of the last character read */
    static const char *cases[][2] = {
        {"{'x':[1,]}", "unexpected token near ']' (line 1, column 9)"},
        {"{'x':{'a' 1}}", "':' expected near '1' (line 1, column 11)"},
        {"{'x':{'a':1,}}", "string or '}' expected near '}' (line 1, column 13)"},
        {"{'x':01}", "invalid token near '0' (line 1, column 6)"},
        {"{'x':1.}", "invalid token near '1.' (line 1, column 7)"},
        {"{'x':-}", "invalid token near '-' (line 1, column 6)"},
        {"{'x':.5}", "invalid token near '.' (line 1, column 6)"},
        {"{'x':+1}", "invalid token near '+' (line 1, column 6)"},
        {"{'x':1e}", "invalid token near '1e' (line 1, column 7)"},
        {"{'x':NaN}", "invalid token near 'NaN' (line 1, column 8)"},
        {"{'x':tru}", "invalid token near 'tru' (line 1, column 8)"},
        {"{'x':nul}", "invalid token near 'nul' (line 1, column 8)"},
        {"{'x':[1 2]}", "']' expected near '2' (line 1, column 9)"},
        {"{'x':]}", "unexpected token near ']' (line 1, column 6)"},
        {"{'x':[}]}", "unexpected token near '}' (line 1, column 7)"},
        {"{'x':{]}", "string or '}' expected near ']' (line 1, column 7)"},
        {"{'x':[1}", "']' expected near '}' (line 1, column 8)"},
        {"{'x':{'a':1]}", "'}' expected near ']' (line 1, column 12)"},
        {"{x:1}", "string or '}' expected near 'x' (line 1, column 2)"},
        {"{'x' 1}", "':' expected near '1' (line 1, column 6)"},
        {"{'x':1 'y':2}", "'}' expected near '\"y\"' (line 1, column 10)"},
        {"{'x':1,,'y':2}", "string or '}' expected near ',' (line 1, column 8)"},
        {"{,}", "string or '}' expected near ',' (line 1, column 2)"},
        {"{'x':'\\u00'}", "invalid escape near '\"\\u00\"' (line 1, column 11)"},
        {"{'x':'abc}", "premature end of input near '\"abc}' (line 1, column 10)"},
        {"{'x':[[[", "']' expected near end of file (line 1, column 8)"},
    };
    char want[128];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(want, sizeof(want), "invalid JSON: %s", cases[i][1]);
        EXPECT_BAD(q(cases[i][0]), want);
        CHECK_STR(err, want);
    }
    /* lines count newlines, blank lines too; columns restart after each */
    EXPECT_BAD("{\"x\":[\n1,\n\n2 3]}", "invalid JSON: ']' expected near '3' (line 4, column 3)");
}

/* Every allocation jansson or the decoder makes fails in turn (and every
 * one after it): the decode then refuses with -ENOMEM and calls nothing, or
 * succeeds; ASan (Sanitize build) sees any leak or bad access on those paths.
 * The second document takes the path of an integer beyond int64 (in a key
 * the decoder does not use): a second parse, every integer a double. */
static long allocs_left = -1; /* -1: no limit */

static void *failing_malloc(size_t n)
{
    if (allocs_left == 0)
        return NULL;
    if (allocs_left > 0)
        allocs_left--;
    return malloc(n);
}

static void alloc_failures(void)
{
    static char docs[2][1 << 14], want[2][1 << 16];
    snprintf(docs[0], sizeof(docs[0]), "%s", q(all_doc));
    snprintf(want[0], sizeof(want[0]), "%s", all_want);
    snprintf(docs[1], sizeof(docs[1]), "%s",
             pt_doc(q("'attributes':[{'key':'k','value':{'intValue':'-9223372036854775808'}},"
                      "{'key':'small','value':{'intValue':42}},{'key':'s','value':{"
                      "'stringValue':'swp1'}}],'exemplars':[{'asInt':18446744073709551615}],"
                      "'timeUnixNano':'18446744073709551615','asInt':'9223372036854775807'")));
    snprintf(want[1], sizeof(want[1]), "%s",
             "R\nM m u= gauge t=0 mono=0\nP k=i:-9223372036854775808 small=i:42 s=s:swp1 | "
             "t=18446744073709551615 v=i:9223372036854775807\n");
    json_set_alloc_funcs(failing_malloc, free);
    for (int i = 0; i < 2; i++) {
        unsigned refused = 0, bad = 0;
        for (long n = 0;; n++) {
            allocs_left = n;
            int rc = dec(docs[i], strlen(docs[i]));
            bool ran_out = allocs_left == 0;
            allocs_left = -1;
            if (!ran_out) { /* enough: the whole answer */
                CHECK_INT(rc, 0);
                CHECK_STR(tr, want[i]);
                break;
            }
            if (rc == 0)
                continue; /* the last allocation was the last one needed */
            refused++;
            if (rc != -ENOMEM || ncalls != 0 ||
                strcmp(err, "out of memory decoding the request") != 0) {
                if (bad++ == 0)
                    fprintf(stderr, "  %d allocations: rc %d, %u calls, %s\n", (int)n, rc, ncalls,
                            err);
            }
        }
        CHECK(refused > 100);
        CHECK_INT(bad, 0);
    }
}

TEST_MAIN(TEST(all_fields), TEST(int64_exact), TEST(fixtures), TEST(truncated_prefixes),
          TEST(key_order), TEST(snake_case), TEST(whitespace), TEST(escapes_utf8),
          TEST(trailing_garbage), TEST(depth_bomb), TEST(bounds), TEST(empty_documents),
          TEST(type_errors), TEST(syntax_errors), TEST(alloc_failures))
