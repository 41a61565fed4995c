/* Cumulus' link speed through the OTLP ingest (sources/otlp/map/otlp_speed.c):
 * nvswitch_interface_oper_aggregate_speed points (bits per second, as
 * NVIDIA's Open-Telemetry-Export.md 5.13-5.16 describe them) give their
 * port's byte counters the speed, before or after the counters appear; the
 * metric is no series; the topology's speed wins; points without a port or
 * a usable value are rejected. The visitor is driven with hand-built points
 * against a real registry, engine and link-speed table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "config_all.h"
#include "engine/engine.h"
#include "engine/link_speed.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "test.h"

#define NS  1000000000LL
#define T0  1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define SRC "spines"

struct fx {
    struct src_env se; /* with a link-speed table */
    struct fsc_otlp_ingest *ing;
};

static int fx_open(struct fx *f, const char *yaml)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    struct src_env_opts o = {.source = SRC, .yaml = yaml, .max_series = 1000, .speeds = true};
    if (src_env_open(&f->se, &o) != 0)
        return -1;
    struct fsc_otlp_ingest_config icfg = {.source_name = SRC};
    f->ing = fsc_otlp_ingest_create(&icfg, &f->se.env, err, sizeof(err));
    if (!f->ing)
        fprintf(stderr, "ingest: %s\n", err);
    return f->ing ? 0 : -1;
}

static void fx_close(struct fx *f)
{
    fsc_otlp_ingest_destroy(f->ing);
    src_env_close(&f->se);
}

static struct fsc_otlp_str str(const char *s)
{
    return (struct fsc_otlp_str){s, (uint32_t)strlen(s)};
}

/* One request from device spine1: Gauge `metric`, one point on `port`
 * (NULL: no interface attribute) with value v (as_int when as_int). */
static struct fsc_otlp_ingest_result send(struct fx *f, const char *metric, const char *port,
                                          double v, bool as_int)
{
    struct fsc_otlp_visitor vis;
    struct fsc_otlp_ingest_result res;
    struct fsc_otlp_attr host = {
        .key = str("net.host.name"), .type = FSC_OTLP_VAL_STRING, .s = str("spine1")};
    struct fsc_otlp_attr iface = {
        .key = str("interface"), .type = FSC_OTLP_VAL_STRING, .s = str(port ? port : "")};
    struct fsc_otlp_metric m = {.name = str(metric), .type = FSC_OTLP_GAUGE};
    struct fsc_otlp_point p = {.attrs = &iface,
                               .n_attrs = port ? 1 : 0,
                               .time_ns = T0,
                               .value_kind = as_int ? FSC_OTLP_VALUE_INT : FSC_OTLP_VALUE_DOUBLE,
                               .as_int = (int64_t)v,
                               .as_double = v};
    fsc_otlp_ingest_begin(f->ing, T0 + 777, &vis);
    vis.resource(vis.ctx, &host, 1);
    vis.metric(vis.ctx, &m);
    vis.point(vis.ctx, &p);
    CHECK_INT(fsc_otlp_ingest_end(f->ing, &res), 0);
    return res;
}

/* The link speed of spine1's tx byte counter of `port` (UINT64_MAX: no
 * such series). */
static uint64_t tx_speed(struct fx *f, const char *port)
{
    struct fsc_label lb[2] = {{"device", "spine1"}, {"port", port}};
    fsc_series_id id =
        fsc_registry_lookup(f->se.reg, f->se.env.source_id, "fabric_port_tx_bytes_total", lb, 2);
    struct fsc_series_view v;
    if (id == FSC_SERIES_NONE || fsc_engine_view(f->se.eng, id, &v) != 0)
        return UINT64_MAX;
    return v.link_speed_bps;
}

#define SPEED  "nvswitch_interface_oper_aggregate_speed"
#define OCTETS "nvswitch_interface_if_out_octets"

static void speed_reaches_byte_counters(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0) {
        fx_close(&f);
        return;
    }
    /* the counter first: no speed, listed */
    struct fsc_otlp_ingest_result res = send(&f, OCTETS, "swp1", 1e6, false);
    CHECK_INT(res.accepted, 1);
    CHECK(tx_speed(&f, "swp1") == 0);
    struct fsc_link_speeds_stats ls;
    fsc_link_speeds_stats(f.se.speeds, &ls);
    CHECK_INT(ls.ports_unknown, 1);
    /* then the speed: 400 Gb/s as a double */
    res = send(&f, SPEED, "swp1", 4e11, false);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(res.rejected, 0);
    CHECK(tx_speed(&f, "swp1") == 400000000000ULL);
    fsc_link_speeds_stats(f.se.speeds, &ls);
    CHECK_INT(ls.ports_unknown, 0);
    CHECK_INT(ls.ports_learned, 1);
    /* the speed first, as an int: the counter is made with it */
    send(&f, SPEED, "swp2", 2e11, true);
    send(&f, OCTETS, "swp2", 5e6, false);
    CHECK(tx_speed(&f, "swp2") == 200000000000ULL);
    /* a change re-traits; 0 (unknown) keeps the last speed */
    send(&f, SPEED, "swp1", 8e11, false);
    CHECK(tx_speed(&f, "swp1") == 800000000000ULL);
    send(&f, SPEED, "swp1", 0, false);
    CHECK(tx_speed(&f, "swp1") == 800000000000ULL);
    /* no port, negative, NaN: rejected, nothing changes */
    res = send(&f, SPEED, NULL, 4e11, false);
    CHECK_INT(res.rejected, 1);
    res = send(&f, SPEED, "swp1", -1, false);
    CHECK_INT(res.rejected, 1);
    res = send(&f, SPEED, "swp1", NAN, false);
    CHECK_INT(res.rejected, 1);
    CHECK(tx_speed(&f, "swp1") == 800000000000ULL);
    CHECK_INT(fsc_registry_count(f.se.reg), 2); /* the speed metric is no series */
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.speeds, 4);
    CHECK_INT(st.speed_unreadable, 3);
    CHECK_INT(st.speed_changes, 3); /* swp1 400, swp2 200, swp1 800 */
    fx_close(&f);
}

static void topology_speed_wins(void)
{
    static const char yaml[] = "topology:\n"
                               "  devices:\n"
                               "    - name: spine1\n"
                               "      role: spine\n"
                               "      ports: [{name: swp1, speed: 100G}, {name: swp2}]\n";
    struct fx f;
    if (fx_open(&f, yaml) != 0) {
        fx_close(&f);
        return;
    }
    send(&f, OCTETS, "swp1", 1e6, false);
    send(&f, OCTETS, "swp2", 1e6, false);
    send(&f, SPEED, "swp1", 4e11, false);
    send(&f, SPEED, "swp2", 4e11, false);
    CHECK(tx_speed(&f, "swp1") == 100000000000ULL);
    CHECK(tx_speed(&f, "swp2") == 400000000000ULL);
    fx_close(&f);
}

TEST_MAIN(TEST(speed_reaches_byte_counters), TEST(topology_speed_wins))
