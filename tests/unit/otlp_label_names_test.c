/* OTLP attribute keys too long for a label name or for the series cache key
 * (the keys' half of otlp_ingest's long_values_never_merge): the ingest
 * driven through its visitor against a real registry and engine. Known
 * answers: the expected label names are computed here from the formula
 * (first 45 bytes of the sanitized name + "_h" + 16 hex digits of the
 * FNV-1a 64 hash of the whole key as sent), with FNV-1a written out here,
 * not taken from the product. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "test.h"

#define T0    1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR   (T0 + 777)
#define SRC   "otlp-keys"
#define TAP_N 64

/* ---- fixture ------------------------------------------------------------------ */

struct fx {
    struct src_env se;
    struct fsc_otlp_ingest *ing;
    struct fsc_sample smp[TAP_N]; /* samples since the fixture opened */
    size_t n_smp;
    struct fsc_otlp_visitor v;
};

static void tap(void *arg, const struct fsc_sample *smp, size_t n)
{
    struct fx *f = arg;
    for (size_t i = 0; i < n && f->n_smp < TAP_N; i++)
        f->smp[f->n_smp++] = smp[i];
}

static int fx_open(struct fx *f)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    struct src_env_opts o = {.source = SRC};
    if (src_env_open(&f->se, &o) != 0)
        return -1;
    struct fsc_otlp_ingest_config icfg = {
        .source_name = SRC, .sample_tap = tap, .sample_tap_arg = f};
    f->ing = fsc_otlp_ingest_create(&icfg, &f->se.env, err, sizeof(err));
    if (!f->ing) {
        fprintf(stderr, "ingest: %s\n", err);
        return -1;
    }
    return 0;
}

static void fx_close(struct fx *f)
{
    fsc_otlp_ingest_destroy(f->ing);
    src_env_close(&f->se);
}

static struct fsc_otlp_attr as(const char *k, const char *v)
{
    return (struct fsc_otlp_attr){.key = {k, (uint32_t)strlen(k)},
                                  .type = FSC_OTLP_VAL_STRING,
                                  .s = {v, (uint32_t)strlen(v)}};
}

static struct fsc_otlp_point pd(const struct fsc_otlp_attr *a, uint32_t n, int64_t t, double v)
{
    return (struct fsc_otlp_point){.attrs = a,
                                   .n_attrs = n,
                                   .time_ns = (uint64_t)t,
                                   .value_kind = FSC_OTLP_VALUE_DOUBLE,
                                   .as_double = v};
}

/* One request of device leaf1: the Cumulus rx byte gauge, points p[0..n). */
static void request(struct fx *f, const struct fsc_otlp_point *p, size_t n)
{
    fsc_otlp_ingest_begin(f->ing, ARR, &f->v);
    struct fsc_otlp_attr r[] = {as("host.name", "leaf1")};
    f->v.resource(f->v.ctx, r, 1);
    const char *name = "nvswitch_interface_if_in_octets";
    struct fsc_otlp_metric m = {
        .name = {name, (uint32_t)strlen(name)}, .type = FSC_OTLP_GAUGE, .monotonic = false};
    f->v.metric(f->v.ctx, &m);
    for (size_t i = 0; i < n; i++)
        f->v.point(f->v.ctx, &p[i]);
    struct fsc_otlp_ingest_result res;
    CHECK_INT(fsc_otlp_ingest_end(f->ing, &res), 0);
    CHECK_INT(res.accepted, n);
    CHECK_INT(res.rejected, 0);
}

/* ---- the formula, independently ------------------------------------------------ */

/* FNV-1a 64 (offset basis 14695981039346656037, prime 1099511628211). */
static unsigned long long fnv1a(const char *s, size_t n)
{
    unsigned long long h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The label name of an over-long key whose sanitized name is `clean`: its
 * first 45 bytes, "_h", 16 lowercase hex digits of FNV-1a of `key`. */
static const char *hashed_name(const char *clean, const char *key, char out[64])
{
    snprintf(out, 64, "%.45s_h%016llx", clean, fnv1a(key, strlen(key)));
    return out;
}

/* The series text series_text() gives for the rx byte gauge of leaf1 with
 * port `port` and the labels names[i] = values[i] (sorted here by name, as
 * the registry keeps them). */
static const char *want_text(const char *port, const char *const *names, const char *const *values,
                             size_t n, char out[512])
{
    const char *nm[4] = {"device", "port"}, *vl[4] = {"leaf1", port};
    size_t k = 2;
    for (size_t i = 0; i < n && k < 4; i++, k++) {
        nm[k] = names[i];
        vl[k] = values[i];
    }
    for (size_t i = 1; i < k; i++) /* insertion sort by name */
        for (size_t j = i; j > 0 && strcmp(nm[j - 1], nm[j]) > 0; j--) {
            const char *t = nm[j];
            nm[j] = nm[j - 1];
            nm[j - 1] = t;
            t = vl[j];
            vl[j] = vl[j - 1];
            vl[j - 1] = t;
        }
    int off = snprintf(out, 512, "fabric_port_rx_bytes_total{");
    for (size_t i = 0; i < k && off < 512; i++)
        off += snprintf(out + off, 512 - (size_t)off, "%s%s=\"%s\"", i ? "," : "", nm[i], vl[i]);
    if (off < 511)
        snprintf(out + off, 512 - (size_t)off, "}");
    return out;
}

/* ---- cases ------------------------------------------------------------------------ */

/* Two attribute keys of 100 bytes that differ only at byte 90 (index 89):
 * cut to the same 63-byte label name, their points would feed one series
 * (and a point with both would keep one of them). Each is its own
 * label name (63 bytes, the hash of the whole key), two series, and a
 * point with both keys has both labels. */
static void long_keys_never_merge(void)
{
    struct fx f;
    if (fx_open(&f) != 0)
        return;
    char k1[101], k2[101];
    memset(k1, 'k', 100);
    k1[100] = '\0';
    memcpy(k2, k1, sizeof(k1));
    k2[89] = 'q';
    char n1[64], n2[64];
    hashed_name(k1, k1, n1);
    hashed_name(k2, k2, n2);
    CHECK_INT(strlen(n1), 63);
    CHECK(strcmp(n1, n2) != 0);

    struct fsc_otlp_attr a1[] = {as("interface", "swp1"), as(k1, "a")},
                         a2[] = {as("interface", "swp1"), as(k2, "a")},
                         a12[] = {as(k2, "b"), as("interface", "swp1"), as(k1, "b")};
    struct fsc_otlp_point p[] = {pd(a1, 2, T0, 1), pd(a2, 2, T0, 2), pd(a1, 2, T0 + 1, 3),
                                 pd(a12, 3, T0, 4)};
    request(&f, p, 4);
    CHECK_INT(f.n_smp, 4);
    if (f.n_smp == 4) {
        CHECK(f.smp[0].series != f.smp[1].series);
        CHECK(f.smp[2].series == f.smp[0].series);
        CHECK(f.smp[3].series != f.smp[0].series && f.smp[3].series != f.smp[1].series);
        CHECK(f.smp[2].v.d == 3.0 && f.smp[1].v.d == 2.0);
        char want[512];
        const char *na[] = {n1}, *nb[] = {n2}, *nab[] = {n1, n2}, *va[] = {"a"}, *vb[] = {"b", "b"};
        CHECK_STR(series_text(f.se.reg, f.smp[0].series), want_text("swp1", na, va, 1, want));
        CHECK_STR(series_text(f.se.reg, f.smp[1].series), want_text("swp1", nb, va, 1, want));
        CHECK_STR(series_text(f.se.reg, f.smp[3].series), want_text("swp1", nab, vb, 2, want));
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.series, 3);
    CHECK_INT(st.names_hashed, 5); /* per point: 1 + 1 + 1 + 2 */
    CHECK_INT(st.values_hashed, 0);
    fx_close(&f);
}

/* The bound exactly: a sanitized name of 63 bytes is kept as it is, 64 are
 * hashed; a key of 63 bytes that starts with a digit sanitizes to 64 ('_'
 * in front) and is hashed; the hash is of the key as sent (dots and all),
 * the prefix of the sanitized name; 70 leading '_' + "abc" is "_abc"
 * (the old cut-then-collapse gave "_"). */
static void name_bound_edges(void)
{
    struct fx f;
    if (fx_open(&f) != 0)
        return;
    char k63[64], k64[65], d63[64], dots[101], clean_d63[65], clean_dots[101], under[74];
    memset(k63, 'm', 63);
    k63[63] = '\0';
    memset(k64, 'n', 64);
    k64[64] = '\0';
    memset(d63, 'c', 63);
    d63[0] = '9';
    d63[63] = '\0';
    clean_d63[0] = '_';
    memcpy(clean_d63 + 1, d63, 64);
    for (int i = 0; i < 100; i++)
        dots[i] = i % 2 ? '.' : 'e';
    dots[100] = '\0';
    memcpy(clean_dots, dots, sizeof(dots));
    for (int i = 0; i < 100; i++)
        if (clean_dots[i] == '.')
            clean_dots[i] = '_';
    memset(under, '_', 70);
    memcpy(under + 70, "abc", 4);

    struct fsc_otlp_attr a[5][2];
    const char *keys[5] = {k63, k64, d63, dots, under};
    struct fsc_otlp_point p[5];
    for (int i = 0; i < 5; i++) {
        a[i][0] = as("interface", "swp2");
        a[i][1] = as(keys[i], "v");
        p[i] = pd(a[i], 2, T0, i);
    }
    request(&f, p, 5);
    char want[5][64];
    snprintf(want[0], 64, "%s", k63);
    hashed_name(k64, k64, want[1]);
    hashed_name(clean_d63, d63, want[2]);
    hashed_name(clean_dots, dots, want[3]);
    snprintf(want[4], 64, "_abc");
    CHECK_INT(strlen(want[2]), 63);
    CHECK(strncmp(want[2], "_9ccc", 5) == 0);
    CHECK_INT(f.n_smp, 5);
    for (size_t i = 0; i < f.n_smp && i < 5; i++) {
        char line[512];
        const char *nm[] = {want[i]}, *vl[] = {"v"};
        CHECK_STR(series_text(f.se.reg, f.smp[i].series), want_text("swp2", nm, vl, 1, line));
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.names_hashed, 3); /* k64, d63, dots */
    CHECK_INT(st.series, 5);
    fx_close(&f);
}

/* Two keys of 300 bytes that differ only at byte 281 (after the cache key's
 * 255 bytes of a key): cut to the same 255 bytes, the second point would hit
 * the first one's entry and feed its series. The part of the key past 247
 * bytes is a hash of the whole key: two cache entries,
 * two series, each with its own label name; a repeat hits its own entry. */
static void long_cache_keys_never_merge(void)
{
    struct fx f;
    if (fx_open(&f) != 0)
        return;
    char k1[301], k2[301];
    memset(k1, 'z', 300);
    k1[300] = '\0';
    memcpy(k2, k1, sizeof(k1));
    k2[280] = 'y';
    struct fsc_otlp_attr a1[] = {as("interface", "swp3"), as(k1, "v")},
                         a2[] = {as("interface", "swp3"), as(k2, "v")};
    struct fsc_otlp_point p[] = {pd(a1, 2, T0, 10), pd(a2, 2, T0, 20), pd(a1, 2, T0 + 1, 11),
                                 pd(a2, 2, T0 + 1, 21)};
    request(&f, p, 4);
    CHECK_INT(f.n_smp, 4);
    if (f.n_smp == 4) {
        CHECK(f.smp[0].series != f.smp[1].series);
        CHECK(f.smp[2].series == f.smp[0].series);
        CHECK(f.smp[3].series == f.smp[1].series);
        const char *keys[2] = {k1, k2};
        for (int i = 0; i < 2; i++) {
            char name[64], want[512];
            const char *nm[] = {hashed_name(keys[i], keys[i], name)}, *vl[] = {"v"};
            CHECK_STR(series_text(f.se.reg, f.smp[i].series), want_text("swp3", nm, vl, 1, want));
        }
    }
    struct fsc_series_view view;
    if (f.n_smp == 4) {
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
        CHECK(view.value.d == 11.0);
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[1].series, &view), 0);
        CHECK(view.value.d == 21.0);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.series, 2);
    CHECK_INT(st.cache_entries, 2);
    CHECK_INT(st.names_hashed, 4);
    fx_close(&f);
}

TEST_MAIN(TEST(long_keys_never_merge), TEST(name_bound_edges), TEST(long_cache_keys_never_merge))
