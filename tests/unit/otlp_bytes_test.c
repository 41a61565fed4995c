/* Cumulus port bytes by release: the ingest driven with each release's name
 * set, as NVIDIA documents it (CumulusNetworks/docs,
 * content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md),
 * against a real registry and engine; exact series, values and flags seen
 * through the sample tap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/otlp/map/otlp_bytes.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "test.h"

#define NS    1000000000LL
#define T0    1764460800000000000LL
#define SRC   "otlp-cumulus"
#define TAP_N 4096
#define NV    "nvswitch_interface_"

struct fx {
    struct src_env se;
    struct fsc_otlp_ingest *ing;
    struct fsc_sample smp[TAP_N];
    size_t n_smp;
    struct fsc_otlp_visitor v;
    struct fsc_otlp_ingest_result res;
};

static void tap(void *arg, const struct fsc_sample *smp, size_t n)
{
    struct fx *f = arg;
    for (size_t i = 0; i < n && f->n_smp < TAP_N; i++)
        f->smp[f->n_smp++] = smp[i];
}

static int fx_open(struct fx *f, const char *device_attribute)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    struct src_env_opts o = {.source = SRC, .max_series = 100000};
    if (src_env_open(&f->se, &o) != 0)
        return -1;
    struct fsc_otlp_ingest_config icfg = {.source_name = SRC,
                                          .device_attribute = device_attribute,
                                          .sample_tap = tap,
                                          .sample_tap_arg = f};
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

/* One point of a Cumulus interface gauge: metric name (without the
 * nvswitch_interface_ prefix), port, optional class attribute and value. */
struct pt {
    const char *name;
    const char *port;
    const char *ckey; /* class attribute key or NULL */
    int64_t cls;
    double v;
};

/* One request of device host (resource attribute attr_key, default
 * host.name), every point at device time t. */
static void send_as(struct fx *f, const char *attr_key, const char *host, int64_t t,
                    const struct pt *p, size_t n)
{
    char name[256];
    fsc_otlp_ingest_begin(f->ing, t + 1000, &f->v);
    struct fsc_otlp_attr r = {.key = {attr_key, (uint32_t)strlen(attr_key)},
                              .type = FSC_OTLP_VAL_STRING,
                              .s = {host, (uint32_t)strlen(host)}};
    f->v.resource(f->v.ctx, &r, 1);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), NV "%s", p[i].name);
        struct fsc_otlp_metric m = {.name = {name, (uint32_t)strlen(name)}, .type = FSC_OTLP_GAUGE};
        f->v.metric(f->v.ctx, &m);
        struct fsc_otlp_attr a[2] = {
            {.key = {"interface", 9},
             .type = FSC_OTLP_VAL_STRING,
             .s = {p[i].port, (uint32_t)strlen(p[i].port)}},
        };
        uint32_t na = 1;
        if (p[i].ckey) {
            /* NVIDIA's examples carry tc/pg as intValue (histograms) or as
             * stringValue "0" (buffer stats): ints here, strings below. */
            a[1] = (struct fsc_otlp_attr){.key = {p[i].ckey, (uint32_t)strlen(p[i].ckey)},
                                          .type = FSC_OTLP_VAL_INT,
                                          .i = p[i].cls};
            na = 2;
        }
        struct fsc_otlp_point pt = {.attrs = a,
                                    .n_attrs = na,
                                    .time_ns = (uint64_t)t,
                                    .value_kind = FSC_OTLP_VALUE_DOUBLE,
                                    .as_double = p[i].v};
        f->v.point(f->v.ctx, &pt);
    }
    memset(&f->res, 0, sizeof(f->res));
    CHECK_INT(fsc_otlp_ingest_end(f->ing, &f->res), 0);
    CHECK_INT(f->res.rejected, 0);
}

static void send(struct fx *f, const char *host, int64_t t, const struct pt *p, size_t n)
{
    send_as(f, "host.name", host, t, p, n);
}

/* Samples of the series named `text` since the tap was cleared. */
static size_t samples_of(struct fx *f, const char *text, const struct fsc_sample **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n_smp; i++)
        if (strcmp(series_text(f->se.reg, f->smp[i].series), text) == 0) {
            if (n < cap)
                out[n] = &f->smp[i];
            n++;
        }
    return n;
}

/* The one sample of `text`: checks there is exactly one, with value v,
 * time t and flags. */
static void one_sample(struct fx *f, const char *text, double v, int64_t t, uint32_t flags)
{
    const struct fsc_sample *s[8];
    size_t n = samples_of(f, text, s, 8);
    CHECK_INT(n, 1);
    if (n != 1) {
        fprintf(stderr, "  series %s\n", text);
        return;
    }
    CHECK(s[0]->v.d == v);
    if (s[0]->v.d != v)
        fprintf(stderr, "  %s: %.17g != %.17g\n", text, s[0]->v.d, v);
    CHECK_INT(s[0]->t_dev_ns, t);
    CHECK_INT(s[0]->flags, flags);
}

#define RXB(dev, port) "fabric_port_rx_bytes_total{device=\"" dev "\",port=\"" port "\"}"
#define TXB(dev, port) "fabric_port_tx_bytes_total{device=\"" dev "\",port=\"" port "\"}"
#define DER(dev, port, dir)                                                                        \
    "fabric_port_bytes_derived{device=\"" dev "\",direction=\"" dir "\",port=\"" port "\"}"
#define F64 FSC_SMP_F64
#define RST FSC_SMP_RESET

/* ---- cases ------------------------------------------------------------------------ */

/* 5.11 (content/cumulus-linux-511/...): no interface octets at all; tc_tx_octet
 * per traffic class, pg_rx_octet per priority group, sp_*_octets per switch
 * priority. tx bytes = sum over tc, rx = sum over pg (rank above sp: the sp
 * octets are not counted again), derived gauge 1. */
static void release_511_derived(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    for (int k = 0; k < 2; k++) {
        double b = k * 1e6;
        const struct pt r[] = {
            {"oper_state", "swp1", NULL, 0, 1},
            {"carrier_changes_total", "swp1", NULL, 0, 4},
            {"dot3_in_pause_frames", "swp1", NULL, 0, 7},
            {"performance_marked_packets", "swp1", NULL, 0, 9},
            {"tc_tx_octet", "swp1", "tc", 0, 1000 + b},
            {"tc_tx_octet", "swp1", "tc", 3, 20000 + 2 * b},
            {"tc_tx_octet", "swp1", "tc", 7, 300000 + 3 * b},
            {"tc_tx_ecn_marked_tc", "swp1", "tc", 3, 11},
            {"pg_rx_octet", "swp1", "pg", 0, 5e9 + b},
            {"pg_rx_octet", "swp1", "pg", 3, 7e9 + 4 * b},
            {"pg_tx_octets", "swp1", "pg", 0, 123},
            {"sp_rx_octets", "swp1", "sp", 3, 9e12},
            {"sp_tx_octets", "swp1", "sp", 3, 8e12},
            {"sp_rx_pause", "swp1", "sp", 3, 42},
            {"pg_rx_pause", "swp1", "pg", 3, 43},
        };
        f.n_smp = 0;
        int64_t t = T0 + k * NS;
        send(&f, "spine1", t, r, sizeof(r) / sizeof(r[0]));
        uint32_t fl = F64;
        one_sample(&f, TXB("spine1", "swp1"), 321000 + 6 * b, t, fl);
        one_sample(&f, RXB("spine1", "swp1"), 12e9 + 5 * b, t, fl);
        one_sample(&f,
                   "fabric_port_queue_tx_bytes_total{device=\"spine1\",port=\"swp1\",queue=\"3\"}",
                   20000 + 2 * b, t, fl);
        one_sample(&f,
                   "fabric_port_pg_rx_bytes_total{device=\"spine1\",port=\"swp1\",priority_group="
                   "\"3\"}",
                   7e9 + 4 * b, t, fl);
        one_sample(&f,
                   "fabric_port_rx_priority_bytes_total{device=\"spine1\",port=\"swp1\",priority="
                   "\"3\"}",
                   9e12, t, fl);
        one_sample(&f,
                   "fabric_port_ecn_marked_packets_total{device=\"spine1\",port=\"swp1\",queue="
                   "\"3\"}",
                   11, t, fl);
        one_sample(&f,
                   "fabric_port_pfc_rx_pause_frames_total{device=\"spine1\",port=\"swp1\","
                   "priority=\"3\"}",
                   42, t, fl);
        one_sample(&f,
                   "fabric_port_pg_rx_pause_frames_total{device=\"spine1\",port=\"swp1\","
                   "priority_group=\"3\"}",
                   43, t, fl);
        one_sample(&f, "fabric_port_carrier_transitions_total{device=\"spine1\",port=\"swp1\"}", 4,
                   t, fl);
        one_sample(&f, "fabric_port_marked_packets_total{device=\"spine1\",port=\"swp1\"}", 9, t,
                   fl);
        one_sample(&f,
                   "fabric_cumulus_nvswitch_interface_oper_state{device=\"spine1\",port=\"swp1\"}",
                   1, t, fl);
        one_sample(&f,
                   "fabric_cumulus_nvswitch_interface_pg_tx_octets{device=\"spine1\","
                   "port=\"swp1\",priority_group=\"0\"}",
                   123, t, fl);
        const struct fsc_sample *s[4];
        /* the derived gauge says so once, not per export */
        CHECK_INT(samples_of(&f, DER("spine1", "swp1", "tx"), s, 4), k == 0 ? 1 : 0);
        CHECK_INT(samples_of(&f, DER("spine1", "swp1", "rx"), s, 4), k == 0 ? 1 : 0);
        if (k == 0)
            one_sample(&f, DER("spine1", "swp1", "tx"), 1, t, fl);
    }
    struct fsc_series_view view;
    const struct fsc_sample *s[1];
    CHECK_INT(samples_of(&f, TXB("spine1", "swp1"), s, 1), 1);
    CHECK_INT(fsc_engine_view(f.se.eng, s[0]->series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);
    CHECK_INT(view.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(view.direction, FSC_DIR_TX);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.bytes_derived, 4);
    CHECK_INT(st.bytes_incomplete, 0);
    CHECK_INT(st.bytes_dropped, 4); /* sp_rx_octets, sp_tx_octets, twice */
    CHECK_STR(f.res.warning, "");
    fx_close(&f);
}

/* 5.12 renamed pg_rx_octet to pg_rx_octets (content/cumulus-linux-512/...):
 * the same counter, the same series, and rx bytes derived from it. */
static void release_512_pg_octets_alias(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt r[] = {
        {"pg_rx_octets", "swp2", "pg", 0, 100},
        {"pg_rx_octets", "swp2", "pg", 1, 250},
    };
    send(&f, "spine2", T0, r, 2);
    one_sample(
        &f, "fabric_port_pg_rx_bytes_total{device=\"spine2\",port=\"swp2\",priority_group=\"1\"}",
        250, T0, F64);
    one_sample(&f, RXB("spine2", "swp2"), 350, T0, F64);
    one_sample(&f, DER("spine2", "swp2", "rx"), 1, T0, F64);
    fx_close(&f);
}

/* 5.13 and 5.14 (content/cumulus-linux-514/...) export if_in_octets AND its
 * duplicate ether_stats_octets, and if_out_octets: rx counted once, from
 * ether_stats_octets (the one that survives 5.15); the per-class octets
 * still have their own series but feed no port bytes. */
static void release_514_both_counted_once(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    for (int k = 0; k < 3; k++) {
        double b = k * 1e9;
        const struct pt r[] = {
            {"if_in_octets", "swp3", NULL, 0, 5e9 + b + 17}, /* first on the wire */
            {"ether_stats_octets", "swp3", NULL, 0, 5e9 + b},
            {"if_out_octets", "swp3", NULL, 0, 6e9 + 2 * b},
            {"tc_tx_octet", "swp3", "tc", 0, 1e3 + b},
            {"pg_rx_octet", "swp3", "pg", 0, 2e3 + b},
            {"sp_rx_octets", "swp3", "sp", 0, 3e3 + b},
        };
        f.n_smp = 0;
        int64_t t = T0 + k * NS;
        send(&f, "spine3", t, r, sizeof(r) / sizeof(r[0]));
        const struct fsc_sample *s[4];
        size_t n = samples_of(&f, RXB("spine3", "swp3"), s, 4);
        if (k == 0) {
            /* if_in_octets came first, then the better counter: a new baseline */
            CHECK_INT(n, 2);
            if (n == 2) {
                CHECK(s[0]->v.d == 5e9 + 17);
                CHECK_INT(s[0]->flags, F64);
                CHECK(s[1]->v.d == 5e9);
                CHECK_INT(s[1]->flags, F64 | RST);
            }
        } else {
            one_sample(&f, RXB("spine3", "swp3"), 5e9 + b, t, F64);
        }
        one_sample(&f, TXB("spine3", "swp3"), 6e9 + 2 * b, t, F64);
        one_sample(&f,
                   "fabric_port_queue_tx_bytes_total{device=\"spine3\",port=\"swp3\",queue=\"0\"}",
                   1e3 + b, t, F64);
        CHECK_INT(samples_of(&f, DER("spine3", "swp3", "tx"), s, 4), 0);
        CHECK_INT(samples_of(&f, DER("spine3", "swp3", "rx"), s, 4), 0);
        CHECK_INT(samples_of(&f,
                             "fabric_cumulus_nvswitch_interface_ether_stats_octets{device=\""
                             "spine3\",port=\"swp3\"}",
                             s, 4),
                  0);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.bytes_derived, 0);
    CHECK_INT(st.bytes_dropped, 2 + 3 * 3); /* if_in_octets twice; tc, pg, sp each time */
    fx_close(&f);
}

/* 5.15 and later (content/cumulus-linux-515/..., 516, 517): ether_stats_octets
 * and if_out_octets only; the sp octets are gone, pg_rx_octet remains. */
static void release_515_direct(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt r[] = {
        {"ether_stats_octets", "swp4", NULL, 0, 4e12},
        {"if_out_octets", "swp4", NULL, 0, 3e12},
        {"ether_stats_pkts", "swp4", NULL, 0, 77},
        {"ether_stats_broadcast_pkts", "swp4", NULL, 0, 5},
        {"if_in_discards", "swp4", NULL, 0, 6},
        {"pg_rx_octet", "swp4", "pg", 0, 10},
    };
    send(&f, "spine4", T0, r, sizeof(r) / sizeof(r[0]));
    one_sample(&f, RXB("spine4", "swp4"), 4e12, T0, F64);
    one_sample(&f, TXB("spine4", "swp4"), 3e12, T0, F64);
    one_sample(&f, "fabric_port_rx_packets_total{device=\"spine4\",port=\"swp4\"}", 77, T0, F64);
    one_sample(&f, "fabric_port_rx_broadcast_packets_total{device=\"spine4\",port=\"swp4\"}", 5, T0,
               F64);
    one_sample(&f, "fabric_port_rx_discards_total{device=\"spine4\",port=\"swp4\"}", 6, T0, F64);
    const struct fsc_sample *s[2];
    CHECK_INT(samples_of(&f, DER("spine4", "swp4", "rx"), s, 2), 0);
    fx_close(&f);
}

/* A class missing from an export gives no sum (no dip); a new class grows
 * the set with a RESET; a class gone for 3 exports leaves the set. */
static void derived_incomplete_and_new_class(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt a[] = {{"tc_tx_octet", "swp5", "tc", 0, 100},
                           {"tc_tx_octet", "swp5", "tc", 1, 10}};
    send(&f, "leaf5", T0, a, 2);
    one_sample(&f, TXB("leaf5", "swp5"), 110, T0, F64);
    f.n_smp = 0;
    const struct pt b[] = {{"tc_tx_octet", "swp5", "tc", 0, 200}};
    send(&f, "leaf5", T0 + NS, b, 1);
    const struct fsc_sample *s[2];
    CHECK_INT(samples_of(&f, TXB("leaf5", "swp5"), s, 2), 0);
    f.n_smp = 0;
    const struct pt c[] = {{"tc_tx_octet", "swp5", "tc", 0, 300},
                           {"tc_tx_octet", "swp5", "tc", 1, 30},
                           {"tc_tx_octet", "swp5", "tc", 2, 3}};
    send(&f, "leaf5", T0 + 2 * NS, c, 3);
    one_sample(&f, TXB("leaf5", "swp5"), 333, T0 + 2 * NS, F64 | RST);
    f.n_smp = 0;
    send(&f, "leaf5", T0 + 3 * NS, c, 3);
    one_sample(&f, TXB("leaf5", "swp5"), 333, T0 + 3 * NS, F64);
    /* tc 2 unconfigured: two exports without a sum, the third one drops it */
    const struct pt d[] = {{"tc_tx_octet", "swp5", "tc", 0, 400},
                           {"tc_tx_octet", "swp5", "tc", 1, 40}};
    for (int k = 4; k < 7; k++) {
        f.n_smp = 0;
        send(&f, "leaf5", T0 + k * NS, d, 2);
        CHECK_INT(samples_of(&f, TXB("leaf5", "swp5"), s, 2), k < 6 ? 0 : 1);
    }
    one_sample(&f, TXB("leaf5", "swp5"), 440, T0 + 6 * NS, F64 | RST);
    /* two exports in one request: each its own sum */
    f.n_smp = 0;
    fsc_otlp_ingest_begin(f.ing, T0 + 8 * NS, &f.v);
    struct fsc_otlp_attr r = {
        .key = {"host.name", 9}, .type = FSC_OTLP_VAL_STRING, .s = {"leaf5", 5}};
    f.v.resource(f.v.ctx, &r, 1);
    struct fsc_otlp_metric m = {.name = {NV "tc_tx_octet", sizeof(NV "tc_tx_octet") - 1},
                                .type = FSC_OTLP_GAUGE};
    f.v.metric(f.v.ctx, &m);
    for (int k = 0; k < 2; k++)
        for (int c2 = 0; c2 < 2; c2++) {
            /* class as stringValue, as NVIDIA's buffer examples send it */
            char cls[2] = {(char)('0' + c2), 0};
            struct fsc_otlp_attr at[2] = {
                {.key = {"interface", 9}, .type = FSC_OTLP_VAL_STRING, .s = {"swp5", 4}},
                {.key = {"tc", 2}, .type = FSC_OTLP_VAL_STRING, .s = {cls, 1}}};
            struct fsc_otlp_point p = {.attrs = at,
                                       .n_attrs = 2,
                                       .time_ns = (uint64_t)(T0 + (7 + k) * NS),
                                       .value_kind = FSC_OTLP_VALUE_DOUBLE,
                                       .as_double = 1000.0 * (k + 1) + c2};
            f.v.point(f.v.ctx, &p);
        }
    CHECK_INT(fsc_otlp_ingest_end(f.ing, &f.res), 0);
    CHECK_INT(samples_of(&f, TXB("leaf5", "swp5"), s, 2), 2);
    CHECK(s[0]->v.d == 2001 && s[1]->v.d == 4001);
    CHECK_INT(s[0]->t_dev_ns, T0 + 7 * NS);
    CHECK_INT(s[1]->t_dev_ns, T0 + 8 * NS);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.bytes_incomplete, 1 + 3);
    fx_close(&f);
}

/* A port with derived bytes whose switch starts sending if_out_octets (an
 * upgrade 5.12 -> 5.13): the direct counter takes over with a RESET, the
 * derived gauge goes to 0, the class sums stop. */
static void derived_to_direct(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt a[] = {{"tc_tx_octet", "swp6", "tc", 0, 100}};
    send(&f, "leaf6", T0, a, 1);
    one_sample(&f, TXB("leaf6", "swp6"), 100, T0, F64);
    one_sample(&f, DER("leaf6", "swp6", "tx"), 1, T0, F64);
    f.n_smp = 0;
    const struct pt b[] = {{"if_out_octets", "swp6", NULL, 0, 9e9},
                           {"tc_tx_octet", "swp6", "tc", 0, 200}};
    send(&f, "leaf6", T0 + NS, b, 2);
    one_sample(&f, TXB("leaf6", "swp6"), 9e9, T0 + NS, F64 | RST);
    one_sample(&f, DER("leaf6", "swp6", "tx"), 0, T0 + NS, F64);
    f.n_smp = 0;
    send(&f, "leaf6", T0 + 2 * NS, b, 2);
    one_sample(&f, TXB("leaf6", "swp6"), 9e9, T0 + 2 * NS, F64);
    const struct fsc_sample *s[2];
    CHECK_INT(samples_of(&f, DER("leaf6", "swp6", "tx"), s, 2), 0);
    fx_close(&f);
}

static void device_cb(void *arg, const char *device, int has)
{
    char *out = arg;
    size_t n = strlen(out);
    snprintf(out + n, 256 - n, "%s=%d;", device, has);
}

/* A switch that sends interface metrics but no byte counter (per-class
 * statistics not enabled on 5.11, say): one warning on the third such
 * request, never again; the device list says 0, a device with bytes 1. */
static void no_byte_counter_warning(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt none[] = {{"oper_state", "swp1", NULL, 0, 1},
                              {"dot3_stats_fcs_errors", "swp1", NULL, 0, 0}};
    const struct pt some[] = {{"if_out_octets", "swp1", NULL, 0, 1}};
    char list[256] = "";
    for (int k = 0; k < 5; k++) {
        send(&f, "spine9", T0 + k * NS, none, 2);
        if (k == 2)
            CHECK_STR(f.res.warning,
                      "device spine9 sends interface metrics but no port byte counter (no "
                      "ether_stats_octets, if_in_octets, if_out_octets, tc_tx_octet, pg_rx_octet "
                      "or sp_*_octets): its port bytes are unknown");
        else
            CHECK_STR(f.res.warning, "");
        send(&f, "spine8", T0 + k * NS, some, 1);
        CHECK_STR(f.res.warning, "");
        if (k == 1) {
            list[0] = '\0';
            CHECK_INT(fsc_otlp_ingest_devices(f.ing, device_cb, list), 1);
            CHECK_STR(list, "spine8=1;");
        }
    }
    list[0] = '\0';
    CHECK_INT(fsc_otlp_ingest_devices(f.ing, device_cb, list), 2);
    CHECK_STR(list, "spine9=0;spine8=1;");
    fx_close(&f);
}

static void class_of_and_bounds(void)
{
    CHECK_INT(otlp_bytes_class_of("0", 1, 16), 0);
    CHECK_INT(otlp_bytes_class_of("15", 2, 16), 15);
    CHECK_INT(otlp_bytes_class_of("16", 2, 16), -1);
    CHECK_INT(otlp_bytes_class_of("8", 1, 8), -1);
    CHECK_INT(otlp_bytes_class_of("-1", 2, 16), -1);
    CHECK_INT(otlp_bytes_class_of("", 0, 16), -1);
    CHECK_INT(otlp_bytes_class_of("007", 3, 16), -1);
    CHECK(otlp_bytes_role(NV "ether_stats_octets") != NULL);
    CHECK_STR(otlp_bytes_plan_name(NV "ether_stats_octets"), NV "if_in_octets");
    CHECK_STR(otlp_bytes_plan_name(NV "pg_rx_octets"), NV "pg_rx_octet");
    CHECK_STR(otlp_bytes_plan_name(NV "tc_tx_octet"), NV "tc_tx_octet");
    CHECK(otlp_bytes_role(NV "pg_tx_octets") == NULL);
    CHECK(otlp_bytes_role("if_in_octets") == NULL);
    /* A class point without its class attribute feeds nothing (counted). */
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt a[] = {{"tc_tx_octet", "swp1", NULL, 0, 5},
                           {"tc_tx_octet", "swp1", "tc", 99, 5}};
    send(&f, "leaf1", T0, a, 2);
    const struct fsc_sample *s[2];
    CHECK_INT(samples_of(&f, TXB("leaf1", "swp1"), s, 2), 0);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.bytes_unplaced, 2);
    fx_close(&f);
}

/* Cumulus names itself with resource attribute net.host.name (5.11+,
 * "Static Label Format"): used when the default host.name is absent, not
 * when a device_attribute is configured. */
static void net_host_name_device(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    const struct pt a[] = {{"if_out_octets", "swp1", NULL, 0, 5}};
    send_as(&f, "net.host.name", "spine7", T0, a, 1);
    one_sample(&f, TXB("spine7", "swp1"), 5, T0, F64);
    fx_close(&f);
    if (fx_open(&f, "switch.id") != 0)
        return;
    send_as(&f, "net.host.name", "spine7", T0, a, 1);
    one_sample(&f, TXB(SRC, "swp1"), 5, T0, F64);
    fx_close(&f);
}

TEST_MAIN(TEST(release_511_derived), TEST(release_512_pg_octets_alias),
          TEST(release_514_both_counted_once), TEST(release_515_direct),
          TEST(derived_incomplete_and_new_class), TEST(derived_to_direct),
          TEST(no_byte_counter_warning), TEST(class_of_and_bounds), TEST(net_host_name_device))
