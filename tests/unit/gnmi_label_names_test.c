/* gNMI passthrough list keys whose names are too long for a label name
 * (the keys' half of otlp_ingest's long_values_never_merge): responses built
 * with the generated protobuf-c structs, packed and decoded against a real
 * registry and engine. Known answers: the expected label names are computed
 * here from the formula (first 45 bytes of the sanitized name + "_h" + 16
 * hex digits of the FNV-1a 64 hash of the whole name as sent), with FNV-1a
 * written out here, not taken from the product. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gnmi.pb-c.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/gnmi/gnmi_decode.h"
#include "test.h"

#define T0_NS 1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR   (T0_NS + 777)
#define BUF   4096

/* ---- message builder (test-only allocations, freed by tb_reset) ---------- */

#define TB_MAX 256
static void *tb_ptrs[TB_MAX];
static size_t tb_n;

static void *tb_alloc(size_t n)
{
    void *p = tb_n < TB_MAX ? calloc(1, n ? n : 1) : NULL;
    if (!p) {
        fprintf(stderr, "test builder: out of room\n");
        abort();
    }
    tb_ptrs[tb_n++] = p;
    return p;
}

static void tb_reset(void)
{
    for (size_t i = 0; i < tb_n; i++)
        free(tb_ptrs[i]);
    tb_n = 0;
}

/* A path of elems; elem `keyed` gets the one list key (key, value). */
static Gnmi__Path *mk_path(const char *const *elems, size_t n, size_t keyed, const char *key,
                           const char *value)
{
    Gnmi__Path *path = tb_alloc(sizeof(*path));
    gnmi__path__init(path);
    path->elem = tb_alloc(n * sizeof(*path->elem));
    for (size_t i = 0; i < n; i++) {
        Gnmi__PathElem *e = tb_alloc(sizeof(*e));
        gnmi__path_elem__init(e);
        e->name = (char *)elems[i];
        if (i == keyed) {
            Gnmi__PathElem__KeyEntry *k = tb_alloc(sizeof(*k));
            gnmi__path_elem__key_entry__init(k);
            k->key = (char *)key;
            k->value = (char *)value;
            e->key = tb_alloc(sizeof(*e->key));
            e->key[0] = k;
            e->n_key = 1;
        }
        path->elem[path->n_elem++] = e;
    }
    return path;
}

/* An update of /system/widgets/widget[key=value]/state/count (a path the
 * Junos profile does not know: a passthrough series) of value v. */
static Gnmi__Update *mk_update(const char *key, const char *value, uint64_t v)
{
    static const char *const elems[] = {"system", "widgets", "widget", "state", "count"};
    Gnmi__Update *u = tb_alloc(sizeof(*u));
    gnmi__update__init(u);
    u->path = mk_path(elems, 5, 2, key, value);
    Gnmi__TypedValue *tv = tb_alloc(sizeof(*tv));
    gnmi__typed_value__init(tv);
    tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
    tv->uint_val = v;
    u->val = tv;
    return u;
}

/* Packs SubscribeResponse{update = Notification{timestamp, update[]}}. */
static size_t pack_notif(uint8_t *buf, int64_t ts_ns, Gnmi__Update **upd, size_t n_upd)
{
    Gnmi__Notification nt;
    gnmi__notification__init(&nt);
    nt.timestamp = ts_ns;
    nt.update = upd;
    nt.n_update = n_upd;
    Gnmi__SubscribeResponse rsp;
    gnmi__subscribe_response__init(&rsp);
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    rsp.update = &nt;
    if (gnmi__subscribe_response__get_packed_size(&rsp) > BUF)
        abort();
    return gnmi__subscribe_response__pack(&rsp, buf);
}

/* ---- environment ------------------------------------------------------------ */

struct env {
    struct src_env se;
    struct fsc_gnmi_decoder *dec;
};

static int env_open(struct env *e)
{
    char err[256] = "";
    memset(e, 0, sizeof(*e));
    struct src_env_opts o = {.source = "leaf1"};
    if (src_env_open(&e->se, &o) != 0)
        return -1;
    struct fsc_gnmi_decode_config dcfg = {.device = "leaf1", .sample_interval_ns = 2000000000};
    e->dec = fsc_gnmi_decoder_create(&dcfg, &e->se.env, err, sizeof(err));
    if (!e->dec) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static void env_close(struct env *e)
{
    fsc_gnmi_decoder_destroy(e->dec);
    src_env_close(&e->se);
    tb_reset();
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

/* The series text of the widget count with list key `name` = value: name
 * sanitized ('-' -> '_'), and over 63 bytes its first 45 bytes + "_h" + 16
 * hex digits of FNV-1a of the name as sent. The key sorts after "device". */
static const char *want_text(const char *name, const char *value, char out[512])
{
    char clean[128];
    size_t n = strlen(name);
    for (size_t i = 0; i <= n && i < sizeof(clean); i++)
        clean[i] = name[i] == '-' ? '_' : name[i];
    char label[128];
    if (n > 63)
        snprintf(label, sizeof(label), "%.45s_h%016llx", clean, fnv1a(name, n));
    else
        snprintf(label, sizeof(label), "%s", clean);
    snprintf(out, 512, "fabric_junos_system_widgets_widget_state_count{device=\"leaf1\",%s=\"%s\"}",
             label, value);
    return out;
}

/* ---- cases ----------------------------------------------------------------------- */

/* Two list-key names of 100 bytes ("key-" 25 times) that differ only at
 * byte 90 (index 89), and the first with a second value: over the 63-byte
 * label bound, dropped names would make all three entries feed one series.
 * Each name is a 63-byte label of its own: three series with
 * the exact names; a 63-byte name is kept as it is; the updates of hashed
 * series are counted, also on cache hits (a second message). */
static void long_key_names_never_merge(void)
{
    struct env e;
    CHECK_INT(env_open(&e), 0);
    if (!e.dec)
        return;
    char k1[101], k2[101], k63[64];
    for (int i = 0; i < 100; i++)
        k1[i] = "key-"[i % 4];
    k1[100] = '\0';
    memcpy(k2, k1, sizeof(k1));
    k2[89] = 'x';
    memset(k63, 'k', 63);
    k63[63] = '\0';
    uint8_t buf[BUF];
    struct fsc_sample smp[8], again[8];
    struct fsc_gnmi_result res;
    Gnmi__Update *u[4] = {mk_update(k1, "fpc0", 1), mk_update(k2, "fpc0", 2),
                          mk_update(k1, "fpc1", 3), mk_update(k63, "fpc0", 4)};
    size_t n = pack_notif(buf, T0_NS, u, 4);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 8, &res), 0);
    CHECK_INT(res.n_samples, 4);
    CHECK_INT(res.unknown, 4);
    CHECK_INT(res.names_hashed, 3);
    if (res.n_samples == 4) {
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                CHECK(smp[i].series != smp[j].series);
        char want[512];
        CHECK_STR(series_text(e.se.reg, smp[0].series), want_text(k1, "fpc0", want));
        CHECK_STR(series_text(e.se.reg, smp[1].series), want_text(k2, "fpc0", want));
        CHECK_STR(series_text(e.se.reg, smp[2].series), want_text(k1, "fpc1", want));
        CHECK_STR(series_text(e.se.reg, smp[3].series), want_text(k63, "fpc0", want));
        CHECK(strstr(want_text(k1, "fpc0", want), "{device=\"leaf1\",key_key_key_") != NULL);
    }

    Gnmi__Update *v[4] = {mk_update(k1, "fpc0", 11), mk_update(k2, "fpc0", 12),
                          mk_update(k1, "fpc1", 13), mk_update(k63, "fpc0", 14)};
    n = pack_notif(buf, T0_NS + 2000000000, v, 4);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, again, 8, &res), 0);
    CHECK_INT(res.n_samples, 4);
    CHECK_INT(res.names_hashed, 3);
    for (int i = 0; i < 4 && i < (int)res.n_samples; i++) {
        CHECK_INT(again[i].series, smp[i].series);
        CHECK_INT(again[i].v.u, 11 + i);
    }
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.names_hashed, 6);
    CHECK_INT(st.cache_series, 4);
    CHECK_INT(fsc_registry_count(e.se.reg), 4);
    env_close(&e);
}

TEST_MAIN(TEST(long_key_names_never_merge))
