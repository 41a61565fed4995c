/* The link-speed table (engine/link_speed.h) on a real engine: the
 * precedence rule (topology, reports by rank, the last speed known),
 * series attached before and after a report, re-traits that keep the rate
 * state and give a port-bytes series its utilization, the listing of ports
 * without a speed, and the bounds. Expected speeds are the reports' and the
 * topology's numbers; rates and utilizations come from the fed formula. */
#include <errno.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "engine/link_speed.h"
#include "model/topology.h"
#include "test.h"

#define NS   1000000000LL
#define MS   1000000LL
#define T0   (1700000000LL * NS) /* a whole 10 s */
#define G400 400000000000ULL
#define G200 200000000000ULL
#define G100 100000000000ULL
#define G800 800000000000ULL

/* ---- a hand-built topology: leaf1 et-0/0/0 at 100G, et-0/0/1 without a speed ---- */

static void *arena[16];
static size_t n_arena;

static void *topo_alloc(void *arg, size_t size)
{
    (void)arg;
    if (n_arena == sizeof(arena) / sizeof(arena[0]))
        return NULL;
    return arena[n_arena++] = calloc(1, size);
}

static struct fsc_topo_port leaf_ports[2] = {
    {.name = "et-0/0/0", .speed_bps = G100, .rail = FSC_RAIL_NONE},
    {.name = "et-0/0/1", .rail = FSC_RAIL_NONE},
};
static struct fsc_topo_device devices[1] = {
    {.name = "leaf1",
     .role = FSC_DEVICE_LEAF,
     .rail = FSC_RAIL_NONE,
     .ports = leaf_ports,
     .n_ports = 2},
};
static struct fsc_topology topo = {.devices = devices, .n_devices = 1};

struct env {
    struct fsc_engine *eng;
    struct fsc_link_speeds *ls;
};

static int env_open(struct env *e, uint32_t max_ports, uint32_t max_series)
{
    char err[256];
    struct fsc_engine_config cfg;
    struct fsc_topo_dup dup;
    fsc_engine_config_defaults(&cfg);
    cfg.max_series = 64;
    e->eng = fsc_engine_create(&cfg, NULL, err, sizeof(err));
    if (!topo.index)
        CHECK_INT(fsc_topology_index_build(&topo, topo_alloc, NULL, &dup), 0);
    e->ls = e->eng ? fsc_link_speeds_create(e->eng, &topo, max_ports, max_series) : NULL;
    CHECK(e->ls != NULL);
    return e->ls ? 0 : -1;
}

static void env_close(struct env *e)
{
    fsc_link_speeds_destroy(e->ls);
    fsc_engine_destroy(e->eng);
}

/* A port's byte counter (utilization, microbursts), sampled every 100 ms. */
static struct fsc_traits bytes_traits(uint8_t dir)
{
    struct fsc_traits tr = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = dir,
                            .scale = 1,
                            .nominal_interval_ns = 100 * MS};
    return tr;
}

static uint64_t speed_of(struct env *e, fsc_series_id id)
{
    struct fsc_series_view v;
    if (fsc_engine_view(e->eng, id, &v) != 0)
        return UINT64_MAX;
    return v.link_speed_bps;
}

/* ---- cases ---------------------------------------------------------------- */

/* The rule of link_speed.h step by step on one port the topology names with
 * a speed, one it names without, and one it does not know. */
static void precedence_rule(void)
{
    struct env e;
    if (env_open(&e, 16, 16) != 0)
        return;
    uint32_t topo_port = fsc_link_speeds_port(e.ls, "leaf1", "et-0/0/0");
    uint32_t bare = fsc_link_speeds_port(e.ls, "leaf1", "et-0/0/1");
    uint32_t stranger = fsc_link_speeds_port(e.ls, "spine1", "swp1");
    CHECK(topo_port && bare && stranger && topo_port != bare && bare != stranger);
    CHECK_INT(fsc_link_speeds_port(e.ls, "leaf1", "et-0/0/1"), bare); /* the same handle */
    CHECK_INT(fsc_link_speeds_port(e.ls, "leaf1", ""), 0);
    CHECK_INT(fsc_link_speeds_port(NULL, "leaf1", "et-0/0/1"), 0);

    struct fsc_traits tr = bytes_traits(FSC_DIR_RX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, topo_port, 0, &tr), 0);
    CHECK(tr.link_speed_bps == G100);
    CHECK(speed_of(&e, 0) == G100);
    /* 1: the topology's speed wins over any report */
    CHECK_INT(fsc_link_speeds_learn(e.ls, topo_port, 0, G400), 0);
    CHECK(speed_of(&e, 0) == G100);

    tr = bytes_traits(FSC_DIR_RX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, bare, 1, &tr), 0);
    CHECK(speed_of(&e, 1) == 0); /* 4: nothing known yet */
    /* 2: the known report of the lowest rank */
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 2, G400), 1); /* port-speed */
    CHECK(speed_of(&e, 1) == G400);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 1, G100), 1); /* high-speed */
    CHECK(speed_of(&e, 1) == G100);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 0, G200), 1); /* negotiated */
    CHECK(speed_of(&e, 1) == G200);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 2, G800), 0); /* a worse rank: no change */
    CHECK(speed_of(&e, 1) == G200);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 0, 0), 1); /* negotiated unknown */
    CHECK(speed_of(&e, 1) == G100);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 1, 0), 1);
    CHECK(speed_of(&e, 1) == G800);
    /* 3: every report unknown keeps the last speed known */
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 2, 0), 0);
    CHECK(speed_of(&e, 1) == G800);
    CHECK(fsc_link_speeds_get(e.ls, bare) == G800);
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, 2, 0), 0); /* the same report again */
    CHECK_INT(fsc_link_speeds_learn(e.ls, bare, FSC_LINK_SPEED_RANKS, G400), -EINVAL);
    CHECK_INT(fsc_link_speeds_learn(e.ls, 99, 0, G400), -EINVAL);

    struct fsc_link_speeds_stats st;
    fsc_link_speeds_stats(e.ls, &st);
    CHECK_INT(st.ports, 3);
    CHECK_INT(st.series, 2);
    CHECK_INT(st.ports_topology, 1);
    CHECK_INT(st.ports_learned, 1);
    CHECK_INT(st.ports_unknown, 0);
    CHECK_INT(st.changes, 5);
    CHECK_INT(st.reports, 8); /* each report that differed from its rank's last */
    env_close(&e);
}

/* Series attached after a report take it at once; a series attached twice
 * is followed once; a later report re-traits every attached series; a
 * series followed (interned before) keeps its traits but the speed. */
static void attach_before_and_after_report(void)
{
    struct env e;
    if (env_open(&e, 16, 16) != 0)
        return;
    uint32_t h = fsc_link_speeds_port(e.ls, "spine1", "swp7");
    CHECK_INT(fsc_link_speeds_learn(e.ls, h, 0, G800), 1); /* no series yet */
    struct fsc_traits rx = bytes_traits(FSC_DIR_RX), tx = bytes_traits(FSC_DIR_TX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, h, 3, &rx), 0);
    CHECK_INT(fsc_link_speeds_attach(e.ls, h, 4, &tx), 0);
    CHECK(rx.link_speed_bps == G800 && tx.link_speed_bps == G800);
    rx = bytes_traits(FSC_DIR_RX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, h, 3, &rx), 0); /* again: followed once */
    struct fsc_link_speeds_stats st;
    fsc_link_speeds_stats(e.ls, &st);
    CHECK_INT(st.series, 2);
    CHECK_INT(fsc_link_speeds_learn(e.ls, h, 0, G400), 1);
    CHECK(speed_of(&e, 3) == G400);
    CHECK(speed_of(&e, 4) == G400);
    CHECK_INT(fsc_link_speeds_attach(e.ls, 0, 5, &rx), -EINVAL);
    /* follow: a series interned already keeps its traits but the speed */
    struct fsc_traits mine = bytes_traits(FSC_DIR_RX);
    CHECK_INT(fsc_engine_set_traits(e.eng, 5, &mine), 0);
    struct fsc_traits other = bytes_traits(FSC_DIR_RX);
    other.nominal_interval_ns = 2 * NS; /* another stream's interval */
    CHECK_INT(fsc_link_speeds_follow(e.ls, h, 5, &other), 0);
    CHECK(other.link_speed_bps == G400);
    struct fsc_series_view v;
    CHECK_INT(fsc_engine_view(e.eng, 5, &v), 0);
    CHECK(v.link_speed_bps == G400);
    CHECK_INT(v.update_period_ns, 100 * MS);
    CHECK_INT(fsc_link_speeds_learn(e.ls, h, 0, G800), 1); /* followed from then on */
    CHECK(speed_of(&e, 5) == G800);
    /* a series without traits gets them all */
    CHECK_INT(fsc_link_speeds_follow(e.ls, h, 6, &other), 0);
    CHECK_INT(fsc_engine_view(e.eng, 6, &v), 0);
    CHECK(v.link_speed_bps == G800);
    CHECK_INT(v.update_period_ns, 2 * NS);
    env_close(&e);
}

/* Feeds series id 5e9 B/s (5e8 bytes per 100 ms sample) from sample k0 to
 * k1 - 1. */
static void feed(struct env *e, fsc_series_id id, int k0, int k1)
{
    for (int k = k0; k < k1; k++) {
        struct fsc_sample smp = {.series = id,
                                 .t_dev_ns = T0 + (int64_t)k * 100 * MS,
                                 .t_arr_ns = T0 + (int64_t)k * 100 * MS,
                                 .v.u = (uint64_t)k * 500000000ULL};
        CHECK_INT(fsc_engine_ingest(e->eng, &smp, 1), 0);
    }
}

/* A speed learned while a port's bytes flow: the rate goes on (no new
 * baseline), the series gains its utilization (5e9 B/s x 8 / 400e9 = 0.1
 * per interval), and only the speed of its traits moved. */
static void retrait_keeps_rate_state(void)
{
    struct env e;
    if (env_open(&e, 16, 16) != 0)
        return;
    uint32_t h = fsc_link_speeds_port(e.ls, "leaf1", "et-0/0/1");
    struct fsc_traits tr = bytes_traits(FSC_DIR_TX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, h, 7, &tr), 0);
    feed(&e, 7, 0, 21); /* 0 .. 2 s */
    struct fsc_series_view v;
    CHECK_INT(fsc_engine_view(e.eng, 7, &v), 0);
    CHECK_INT(v.has_util, 0);
    CHECK_NEAR(v.fine_rate, 5e9, 1e-3);
    CHECK_NEAR(v.window_rate[0], 5e9, 1e-3); /* the 1 s window [1 s, 2 s) */
    CHECK_INT(fsc_link_speeds_learn(e.ls, h, 0, G400), 1);
    feed(&e, 7, 21, 22); /* one interval after the report */
    CHECK_INT(fsc_engine_view(e.eng, 7, &v), 0);
    CHECK(v.link_speed_bps == G400);
    CHECK_INT(v.has_util, 1);
    CHECK_NEAR(v.util.sum, 0.1, 1e-12); /* an interval, not a new baseline */
    CHECK_INT(v.unit, FSC_UNIT_BYTES);
    CHECK_INT(v.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(v.update_period_ns, 100 * MS);
    feed(&e, 7, 22, 41); /* to 4 s */
    CHECK_INT(fsc_engine_view(e.eng, 7, &v), 0);
    CHECK_NEAR(v.util.sum, 2.0, 1e-9); /* 20 intervals at 0.1 */
    CHECK_NEAR(v.window_rate[0], 5e9, 1e-3);
    /* the engine's own contract */
    CHECK_INT(fsc_engine_set_link_speed(e.eng, 9, G400), -ENOENT); /* no traits */
    CHECK_INT(fsc_engine_set_link_speed(e.eng, 64, G400), -ERANGE);
    env_close(&e);
}

struct rows {
    char text[256];
    size_t len;
};

static void row_port(void *arg, const char *device, const char *port, uint32_t byte_series)
{
    struct rows *r = arg;
    r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s:%s=%u;", device,
                               port, (unsigned)byte_series);
}

static void row_device(void *arg, const char *device, uint32_t unknown)
{
    struct rows *r = arg;
    r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s=%u;", device,
                               (unsigned)unknown);
}

/* Ports with a port-bytes series and no speed, by name and per device;
 * a queue-peak series alone does not list its port. */
static void ports_without_speed_listed(void)
{
    struct env e;
    if (env_open(&e, 16, 16) != 0)
        return;
    uint32_t a = fsc_link_speeds_port(e.ls, "spine1", "swp1");
    uint32_t b = fsc_link_speeds_port(e.ls, "spine1", "swp2");
    uint32_t c = fsc_link_speeds_port(e.ls, "spine2", "swp1");
    uint32_t q = fsc_link_speeds_port(e.ls, "spine2", "swp9");
    struct fsc_traits tr = bytes_traits(FSC_DIR_RX);
    fsc_link_speeds_attach(e.ls, a, 0, &tr);
    tr = bytes_traits(FSC_DIR_TX);
    fsc_link_speeds_attach(e.ls, a, 1, &tr);
    tr = bytes_traits(FSC_DIR_RX);
    fsc_link_speeds_attach(e.ls, b, 2, &tr);
    tr = bytes_traits(FSC_DIR_RX);
    fsc_link_speeds_attach(e.ls, c, 3, &tr);
    tr = (struct fsc_traits){.kind = FSC_KIND_GAUGE,
                             .width = 64,
                             .unit = FSC_UNIT_BYTES,
                             .signal = FSC_SIG_QUEUE_PEAK,
                             .direction = FSC_DIR_TX};
    fsc_link_speeds_attach(e.ls, q, 4, &tr);
    struct rows r = {0};
    CHECK_INT(fsc_link_speeds_each_unknown(e.ls, 2, row_port, &r), 3); /* 2 rows of 3 */
    CHECK_STR(r.text, "spine1:swp1=2;spine1:swp2=1;");
    r = (struct rows){0};
    CHECK_INT(fsc_link_speeds_each_device(e.ls, row_device, &r), 2);
    CHECK_STR(r.text, "spine1=2;spine2=1;");
    CHECK_INT(fsc_link_speeds_learn(e.ls, a, 0, G400), 1);
    r = (struct rows){0};
    CHECK_INT(fsc_link_speeds_each_unknown(e.ls, 64, row_port, &r), 2);
    CHECK_STR(r.text, "spine1:swp2=1;spine2:swp1=1;");
    r = (struct rows){0};
    fsc_link_speeds_each_device(e.ls, row_device, &r);
    CHECK_STR(r.text, "spine1=1;spine2=1;");
    CHECK_INT(fsc_link_speeds_learn(e.ls, b, 0, G400), 1);
    CHECK_INT(fsc_link_speeds_learn(e.ls, c, 0, G400), 1);
    r = (struct rows){0};
    CHECK_INT(fsc_link_speeds_each_unknown(e.ls, 64, row_port, &r), 0);
    CHECK_STR(r.text, "");
    r = (struct rows){0};
    fsc_link_speeds_each_device(e.ls, row_device, &r); /* devices stay, at 0 */
    CHECK_STR(r.text, "spine1=0;spine2=0;");
    env_close(&e);
}

/* Past max_ports a port has no handle; past max_series a series gets the
 * port's speed of the moment and is not re-traited. Both counted. */
static void bounds_counted(void)
{
    struct env e;
    if (env_open(&e, 2, 1) != 0)
        return;
    uint32_t a = fsc_link_speeds_port(e.ls, "spine1", "swp1");
    uint32_t b = fsc_link_speeds_port(e.ls, "spine1", "swp2");
    CHECK(a && b);
    CHECK_INT(fsc_link_speeds_port(e.ls, "spine1", "swp3"), 0);
    CHECK_INT(fsc_link_speeds_port(e.ls, "spine1", "swp1"), a); /* known ports still answer */
    CHECK_INT(fsc_link_speeds_learn(e.ls, a, 0, G200), 1);
    struct fsc_traits rx = bytes_traits(FSC_DIR_RX), tx = bytes_traits(FSC_DIR_TX);
    CHECK_INT(fsc_link_speeds_attach(e.ls, a, 10, &rx), 0);
    CHECK_INT(fsc_link_speeds_attach(e.ls, a, 11, &tx), 0); /* set, not followed */
    CHECK(speed_of(&e, 11) == G200);
    CHECK_INT(fsc_link_speeds_learn(e.ls, a, 0, G400), 1);
    CHECK(speed_of(&e, 10) == G400);
    CHECK(speed_of(&e, 11) == G200);
    struct fsc_link_speeds_stats st;
    fsc_link_speeds_stats(e.ls, &st);
    CHECK_INT(st.ports, 2);
    CHECK_INT(st.series, 1);
    CHECK_INT(st.untracked_ports, 1);
    CHECK_INT(st.untracked_series, 1);
    CHECK(st.memory_bytes > 0);
    env_close(&e);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        TEST(precedence_rule),          TEST(attach_before_and_after_report),
        TEST(retrait_keeps_rate_state), TEST(ports_without_speed_listed),
        TEST(bounds_counted),
    };
    int rc = test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
    for (size_t i = 0; i < n_arena; i++)
        free(arena[i]);
    return rc;
}
