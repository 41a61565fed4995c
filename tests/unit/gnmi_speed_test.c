/* gNMI link-speed leaves (sources/gnmi/gnmi_speed.c): the identity and
 * value readers against the OpenConfig identity list
 * (openconfig-if-ethernet.yang 2.18.0, ETHERNET_SPEED), and the decoder
 * end to end: no series, the port's speed given to its byte counters
 * whether they came before the leaf or after, the leaves' precedence, the
 * topology's speed over the device's, ports without a speed listed.
 * Messages are built with protobuf-c (gnmi_msg_fixture.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "config_all.h"
#include "engine/engine.h"
#include "engine/link_speed.h"
#include "gnmi_msg_fixture.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/gnmi/gnmi_decode.h"
#include "sources/gnmi/gnmi_int.h"
#include "test.h"

#define T0_NS 1764460800000000000LL
#define ARR   (T0_NS + 777)

#define PORT_SPEED "/interfaces/interface/ethernet/state/port-speed"
#define NEGOTIATED "/interfaces/interface/ethernet/state/negotiated-port-speed"
#define HIGH_SPEED "/interfaces/interface/state/high-speed"

/* ---- the readers ---------------------------------------------------------------- */

struct identity_case {
    const char *text;
    int rc;
    uint64_t bps;
};

/* Every ETHERNET_SPEED identity of openconfig-if-ethernet.yang 2.18.0, with
 * its description's rate; RFC 7951's module prefix and the YANG prefix;
 * the 2015 model's spelling; SPEED_UNKNOWN; and texts that are no speed. */
static void identities_known_answers(void)
{
    static const struct identity_case cases[] = {
        {"SPEED_10MB", 1, 10000000ULL},
        {"SPEED_100MB", 1, 100000000ULL},
        {"SPEED_1GB", 1, 1000000000ULL},
        {"SPEED_2500MB", 1, 2500000000ULL},
        {"SPEED_5GB", 1, 5000000000ULL},
        {"SPEED_10GB", 1, 10000000000ULL},
        {"SPEED_25GB", 1, 25000000000ULL},
        {"SPEED_40GB", 1, 40000000000ULL},
        {"SPEED_50GB", 1, 50000000000ULL},
        {"SPEED_100GB", 1, 100000000000ULL},
        {"SPEED_200GB", 1, 200000000000ULL},
        {"SPEED_400GB", 1, 400000000000ULL},
        {"SPEED_600GB", 1, 600000000000ULL},
        {"SPEED_800GB", 1, 800000000000ULL},
        {"SPEED_1600GB", 1, 1600000000000ULL},
        {"openconfig-if-ethernet:SPEED_400GB", 1, 400000000000ULL},
        {"oc-eth:SPEED_800GB", 1, 800000000000ULL},
        {"SPEED_10Mb", 1, 10000000ULL},
        {"SPEED_1Gb", 1, 1000000000ULL},
        {"SPEED_UNKNOWN", 0, 0},
        {"openconfig-if-ethernet:SPEED_UNKNOWN", 0, 0},
        {"", -1, 0},
        {"SPEED_", -1, 0},
        {"SPEED_400", -1, 0},
        {"SPEED_400G", -1, 0},
        {"SPEED_400XB", -1, 0},
        {"SPEED_400GBX", -1, 0},
        {"SPEED_0GB", -1, 0},
        {"SPEED_-4GB", -1, 0},
        {"SPEED_ 400GB", -1, 0},
        {"SPEED_12345678GB", -1, 0},
        {"SPEED_UNKNOWNX", -1, 0},
        {"speed_400GB", -1, 0},
        {"400GB", -1, 0},
        {"openconfig-if-ethernet:", -1, 0},
        {"UP", -1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t bps = 12345;
        int rc = gnmi_speed_identity(cases[i].text, strlen(cases[i].text), &bps);
        if (rc != cases[i].rc || bps != cases[i].bps)
            fprintf(stderr, "identity \"%s\": rc %d bps %llu\n", cases[i].text, rc,
                    (unsigned long long)bps);
        CHECK_INT(rc, cases[i].rc);
        CHECK(bps == cases[i].bps);
    }
}

/* gnmi_speed_read on a TypedValue packed by protobuf-c. */
static int read_tv(const char *leaf_path, Gnmi__TypedValue *tv, uint64_t *bps)
{
    static uint8_t buf[256];
    int leaf = gnmi_speed_leaf(leaf_path);
    CHECK(leaf >= 0);
    if (leaf < 0 || gnmi__typed_value__get_packed_size(tv) > sizeof(buf))
        return -99;
    size_t n = gnmi__typed_value__pack(tv, buf);
    return gnmi_speed_read((unsigned)leaf, (struct fsc_pb_slice){buf, n}, bps);
}

static void typed_values(void)
{
    uint64_t bps;
    CHECK_INT(read_tv(PORT_SPEED, tv_string("SPEED_400GB"), &bps), 1);
    CHECK(bps == 400000000000ULL);
    CHECK_INT(read_tv(PORT_SPEED, tv_json("\"openconfig-if-ethernet:SPEED_400GB\"", 1), &bps), 1);
    CHECK(bps == 400000000000ULL);
    CHECK_INT(read_tv(NEGOTIATED, tv_json(" \"SPEED_100GB\" ", 0), &bps), 1);
    CHECK(bps == 100000000000ULL);
    CHECK_INT(read_tv(NEGOTIATED, tv_string("SPEED_UNKNOWN"), &bps), 0);
    CHECK(bps == 0);
    CHECK_INT(read_tv(PORT_SPEED, tv_uint(400), &bps), -1); /* an identity is text */
    CHECK_INT(read_tv(PORT_SPEED, tv_string("fast"), &bps), -1);
    /* high-speed: Mb/s */
    CHECK_INT(read_tv(HIGH_SPEED, tv_uint(400000), &bps), 1);
    CHECK(bps == 400000000000ULL);
    CHECK_INT(read_tv(HIGH_SPEED, tv_int(100000), &bps), 1);
    CHECK(bps == 100000000000ULL);
    CHECK_INT(read_tv(HIGH_SPEED, tv_string("200000"), &bps), 1);
    CHECK(bps == 200000000000ULL);
    CHECK_INT(read_tv(HIGH_SPEED, tv_json("\"25000\"", 1), &bps), 1);
    CHECK(bps == 25000000000ULL);
    CHECK_INT(read_tv(HIGH_SPEED, tv_uint(0), &bps), 0);
    CHECK_INT(read_tv(HIGH_SPEED, tv_int(-1), &bps), -1);
    CHECK_INT(read_tv(HIGH_SPEED, tv_uint(UINT64_MAX), &bps), -1); /* x 1e6 does not fit */
    CHECK_INT(read_tv(HIGH_SPEED, tv_string("400G"), &bps), -1);
    CHECK_INT(read_tv(HIGH_SPEED, tv_bool(1), &bps), -1);
    CHECK_INT(read_tv(HIGH_SPEED, tv_double(400000.0), &bps), -1);
    CHECK_INT(read_tv(HIGH_SPEED, tv_new(), &bps), -1); /* no value */
    /* the leaves and their ranks: negotiated < high-speed < port-speed */
    CHECK_INT(gnmi_speed_rank((unsigned)gnmi_speed_leaf(NEGOTIATED)), 0);
    CHECK_INT(gnmi_speed_rank((unsigned)gnmi_speed_leaf(HIGH_SPEED)), 1);
    CHECK_INT(gnmi_speed_rank((unsigned)gnmi_speed_leaf(PORT_SPEED)), 2);
    CHECK_INT(gnmi_speed_leaf("/interfaces/interface/state/counters/in-octets"), -1);
    CHECK_INT(gnmi_speed_leaf("/interfaces/interface/ethernet/config/port-speed"), -1);
    tb_reset();
}

/* ---- the decoder ---------------------------------------------------------------------- */

struct env {
    struct src_env se; /* with a link-speed table when asked */
    struct fsc_gnmi_decoder *dec;
};

static int env_open(struct env *e, const char *yaml, bool table)
{
    char err[256];
    memset(e, 0, sizeof(*e));
    struct src_env_opts o = {.source = "leaf1", .yaml = yaml, .speeds = table};
    if (src_env_open(&e->se, &o) != 0)
        return -1;
    struct fsc_gnmi_decode_config dcfg = {.device = "leaf1", .sample_interval_ns = 2000000000};
    e->dec = fsc_gnmi_decoder_create(&dcfg, &e->se.env, err, sizeof(err));
    if (!e->dec)
        fprintf(stderr, "%s\n", err);
    return e->dec ? 0 : -1;
}

static void env_close(struct env *e)
{
    fsc_gnmi_decoder_destroy(e->dec);
    src_env_close(&e->se);
    tb_reset();
}

/* Decodes one notification of n updates under prefix; returns its result. */
static struct fsc_gnmi_result decode(struct env *e, const char *prefix, Gnmi__Update **u, size_t n,
                                     struct fsc_sample *smp)
{
    uint8_t buf[4096];
    struct fsc_gnmi_result res;
    size_t len = pack_notif(buf, prefix, T0_NS, u, n, NULL);
    CHECK_INT(fsc_gnmi_decode(e->dec, buf, len, ARR, smp, 8, &res), 0);
    return res;
}

/* One speed leaf of a port, decoded alone. */
static struct fsc_gnmi_result speed_leaf(struct env *e, const char *port, const char *leaf,
                                         Gnmi__TypedValue *tv)
{
    char prefix[128], path[128];
    struct fsc_sample smp[8];
    /* the leaf's path below /interfaces/interface[name=..] */
    snprintf(prefix, sizeof(prefix), "/interfaces/interface[name=%s]", port);
    snprintf(path, sizeof(path), "%s", leaf + strlen("/interfaces/interface"));
    Gnmi__Update *u = mk_update(path, tv);
    return decode(e, prefix, &u, 1, smp);
}

/* The ids of a port's rx and tx byte counters, decoded now. */
static void port_counters(struct env *e, const char *port, fsc_series_id id[2])
{
    char prefix[128];
    struct fsc_sample smp[8];
    snprintf(prefix, sizeof(prefix), "/interfaces/interface[name=%s]/state/counters", port);
    Gnmi__Update *u[2] = {mk_update("/in-octets", tv_uint(1000)),
                          mk_update("/out-octets", tv_uint(2000))};
    struct fsc_gnmi_result res = decode(e, prefix, u, 2, smp);
    CHECK_INT(res.n_samples, 2);
    id[0] = res.n_samples == 2 ? smp[0].series : FSC_SERIES_NONE;
    id[1] = res.n_samples == 2 ? smp[1].series : FSC_SERIES_NONE;
}

static uint64_t speed_of(struct env *e, fsc_series_id id)
{
    struct fsc_series_view v;
    return fsc_engine_view(e->se.eng, id, &v) == 0 ? v.link_speed_bps : UINT64_MAX;
}

static void count_row(void *arg, const char *device, const char *port, uint32_t byte_series)
{
    (void)device, (void)port, (void)byte_series;
    (*(int *)arg)++;
}

/* Counters first, then the leaves: each changes the port's speed by the
 * precedence negotiated > high-speed > port-speed; unknown keeps the last
 * speed; a counter of a port whose speed is known takes it at once. No
 * leaf becomes a series. */
static void decoder_learns_port_speed(void)
{
    struct env e;
    if (env_open(&e, NULL, true) != 0) {
        env_close(&e);
        return;
    }
    fsc_series_id p1[2];
    port_counters(&e, "et-0/0/1", p1);
    CHECK(speed_of(&e, p1[0]) == 0 && speed_of(&e, p1[1]) == 0);
    int unknown = 0;
    CHECK_INT(fsc_link_speeds_each_unknown(e.se.speeds, 8, count_row, &unknown), 1);

    struct fsc_gnmi_result res = speed_leaf(&e, "et-0/0/1", PORT_SPEED, tv_string("SPEED_400GB"));
    CHECK_INT(res.speeds, 1);
    CHECK_INT(res.n_samples, 0);
    CHECK_INT(res.unknown, 0);
    CHECK_INT(fsc_registry_count(e.se.reg), 2); /* no speed series */
    CHECK(speed_of(&e, p1[0]) == 400000000000ULL && speed_of(&e, p1[1]) == 400000000000ULL);
    CHECK_INT(fsc_link_speeds_each_unknown(e.se.speeds, 8, count_row, &unknown), 0);

    speed_leaf(&e, "et-0/0/1", HIGH_SPEED, tv_uint(100000));
    CHECK(speed_of(&e, p1[0]) == 100000000000ULL);
    speed_leaf(&e, "et-0/0/1", NEGOTIATED, tv_json("\"openconfig-if-ethernet:SPEED_200GB\"", 1));
    CHECK(speed_of(&e, p1[1]) == 200000000000ULL);
    speed_leaf(&e, "et-0/0/1", NEGOTIATED, tv_string("SPEED_UNKNOWN")); /* link down */
    CHECK(speed_of(&e, p1[1]) == 100000000000ULL);
    speed_leaf(&e, "et-0/0/1", HIGH_SPEED, tv_uint(0));
    CHECK(speed_of(&e, p1[1]) == 400000000000ULL);
    speed_leaf(&e, "et-0/0/1", PORT_SPEED, tv_string("SPEED_UNKNOWN"));
    CHECK(speed_of(&e, p1[1]) == 400000000000ULL); /* the last speed known */
    speed_leaf(&e, "et-0/0/1", PORT_SPEED, tv_string("warp"));
    CHECK(speed_of(&e, p1[1]) == 400000000000ULL);

    /* the leaf first: the counters are interned with the speed */
    speed_leaf(&e, "et-0/0/2", PORT_SPEED, tv_string("oc-eth:SPEED_800GB"));
    fsc_series_id p2[2];
    port_counters(&e, "et-0/0/2", p2);
    CHECK(speed_of(&e, p2[0]) == 800000000000ULL && speed_of(&e, p2[1]) == 800000000000ULL);
    CHECK(speed_of(&e, p1[0]) == 400000000000ULL); /* another port's is its own */

    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.speeds, 8);
    CHECK_INT(st.speed_unreadable, 1);
    CHECK_INT(st.speed_changes, 6); /* 400, 100, 200, 100, 400 on et-0/0/1; 800 on et-0/0/2 */
    CHECK_INT(fsc_registry_count(e.se.reg), 4);
    env_close(&e);
}

/* The topology's speed wins over the device's; a port the topology names
 * without a speed takes the device's; without a table (tools, tests) the
 * topology's speed is applied as before and the leaves are still no
 * series. */
static void topology_speed_wins(void)
{
    static const char yaml[] = "topology:\n"
                               "  devices:\n"
                               "    - name: leaf1\n"
                               "      role: leaf\n"
                               "      ports:\n"
                               "        - {name: et-0/0/1, speed: 100G}\n"
                               "        - {name: et-0/0/2, role: uplink}\n";
    for (int table = 1; table >= 0; table--) {
        struct env e;
        if (env_open(&e, yaml, table) != 0) {
            env_close(&e);
            return;
        }
        fsc_series_id p1[2], p2[2];
        port_counters(&e, "et-0/0/1", p1);
        port_counters(&e, "et-0/0/2", p2);
        struct fsc_gnmi_result res =
            speed_leaf(&e, "et-0/0/1", PORT_SPEED, tv_string("SPEED_400GB"));
        CHECK_INT(res.speeds, 1);
        speed_leaf(&e, "et-0/0/2", HIGH_SPEED, tv_uint(400000));
        CHECK(speed_of(&e, p1[0]) == 100000000000ULL);
        CHECK(speed_of(&e, p1[1]) == 100000000000ULL);
        CHECK(speed_of(&e, p2[0]) == (table ? 400000000000ULL : 0));
        CHECK_INT(fsc_registry_count(e.se.reg), 4);
        env_close(&e);
    }
}

TEST_MAIN(TEST(identities_known_answers), TEST(typed_values), TEST(decoder_learns_port_speed),
          TEST(topology_speed_wins))
