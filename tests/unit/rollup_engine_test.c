/* The rollup against a real engine (exporters/rollup/rollup.h): series
 * interned in a registry, samples ingested minute by minute, fsc_rollup_tick
 * driven with explicit times, and the records read back from the store with
 * known answers: a 400G port at 25 % with one 100 ms line-rate burst, a
 * second port at 12.5 % in the same port group, CNPs, PFC pause time in
 * microseconds, and a B300 node's throughput gauge. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "rollup/rollup.h"
#include "test.h"
#include "config_all.h"

#define NS 1000000000LL
#define MS 1000000LL
/* a whole minute: 2023-11-14T22:14:00Z */
#define T0S 1700000040LL
#define T0  (T0S * NS)
#define G   400000000000ull

static char dir[64];

static void rm_tmp(void)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char path[512];
    while (dp && (de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    if (dp)
        closedir(dp);
    rmdir(dir);
}

enum { TX1, RX1, TX2, CNP, PFC, IBRX, NODE, N_SER };

struct fixture {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_engine_config cfg;
    struct fsc_rollup *ru;
    fsc_series_id id[N_SER];
    double value[N_SER];
};

static fsc_series_id intern(struct fixture *f, uint16_t src, const char *metric, const char *dev,
                            const char *port, const struct fsc_traits *tr)
{
    struct fsc_label lab[3] = {{"device", dev}, {"port", port}, {"direction", "tx"}};
    /* the node gauge names a node, not a port */
    if (strcmp(metric, "fabric_node_rdma_bits_per_second") == 0)
        lab[1] = (struct fsc_label){"node", "1"};
    size_t n = strcmp(metric, "fabric_node_rdma_bits_per_second") == 0 ? 3 : 2;
    fsc_series_id id = fsc_registry_intern(f->reg, src, metric, lab, n);
    CHECK(id != FSC_SERIES_NONE);
    CHECK_INT(fsc_engine_set_traits(f->eng, id, tr), 0);
    return id;
}

static int setup(struct fixture *f)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    snprintf(dir, sizeof(dir), "/tmp/fsc_rollup_eng_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    fsc_engine_config_defaults(&f->cfg); /* windows 1 s, 10 s, 60 s */
    f->reg = fsc_registry_create(1000);
    f->eng = fsc_engine_create(&f->cfg, NULL, err, sizeof(err));
    CHECK(f->reg && f->eng);
    if (!f->reg || !f->eng)
        return -1;
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(f->reg, "test", 0, &src), 0);
    struct fsc_traits bytes = {.kind = FSC_KIND_COUNTER,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .signal = FSC_SIG_PORT_BYTES,
                               .direction = FSC_DIR_TX,
                               .link_speed_bps = G,
                               .nominal_interval_ns = 100 * MS};
    f->id[TX1] = intern(f, src, "fabric_port_tx_bytes_total", "leaf1", "et-0/0/1", &bytes);
    f->id[TX2] = intern(f, src, "fabric_port_tx_bytes_total", "leaf1", "et-0/0/2", &bytes);
    bytes.direction = FSC_DIR_RX;
    f->id[RX1] = intern(f, src, "fabric_port_rx_bytes_total", "leaf1", "et-0/0/1", &bytes);
    struct fsc_traits cnp = {.kind = FSC_KIND_COUNTER,
                             .width = 64,
                             .signal = FSC_SIG_CNP,
                             .nominal_interval_ns = 100 * MS};
    f->id[CNP] = intern(f, src, "fabric_nic_cnp_sent_total", "leaf1", "et-0/0/1", &cnp);
    struct fsc_traits pfc = {.kind = FSC_KIND_COUNTER,
                             .width = 64,
                             .unit = FSC_UNIT_MICROSECONDS,
                             .signal = FSC_SIG_PFC_PAUSE_DURATION,
                             .direction = FSC_DIR_RX,
                             .nominal_interval_ns = 100 * MS};
    f->id[PFC] =
        intern(f, src, "fabric_port_pfc_rx_pause_seconds_total", "leaf1", "et-0/0/1", &pfc);
    /* the IB PMA bytes: a plain byte counter (no utilization), CNP per TB's
     * denominator on NIC ports */
    struct fsc_traits ib = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .direction = FSC_DIR_RX,
                            .nominal_interval_ns = 100 * MS};
    f->id[IBRX] = intern(f, src, "fabric_nic_ib_port_rx_bytes_total", "leaf1", "et-0/0/1", &ib);
    struct fsc_traits gauge = {.kind = FSC_KIND_GAUGE, .width = 64};
    f->id[NODE] = intern(f, src, "fabric_node_rdma_bits_per_second", "b300-1", NULL, &gauge);
    CHECK_INT(fsc_engine_group_add(f->eng, 0, f->id[TX1]), 0);
    CHECK_INT(fsc_engine_group_add(f->eng, 0, f->id[TX2]), 0);

    struct fsc_rollup_env env = {.reg = f->reg, .eng = f->eng, .engine_cfg = &f->cfg};
    struct fsc_rollup_params p = {
        .dir = dir, .retention_ns = 30 * 86400 * NS, .max_bytes = 1ull << 30};
    f->ru = fsc_rollup_create(&p, &env, T0, err, sizeof(err));
    if (!f->ru)
        fprintf(stderr, "rollup: %s\n", err);
    CHECK(f->ru != NULL);
    return f->ru ? 0 : -1;
}

static void teardown(struct fixture *f)
{
    fsc_rollup_destroy(f->ru);
    fsc_engine_destroy(f->eng);
    fsc_registry_destroy(f->reg);
    rm_tmp();
}

/* One 100 ms step ending at t: tx1 at 25 % (100 % during [burst, burst +
 * 100 ms)), rx1 at 10 %, tx2 at 12.5 %, 100 CNPs, 20 ms of pause. */
static void step(struct fixture *f, int64_t t, int64_t burst)
{
    double line = (double)G / 8 * 0.1; /* bytes per 100 ms at line rate */
    f->value[TX1] += (t == burst + 100 * MS) ? line : 0.25 * line;
    f->value[RX1] += 0.10 * line;
    f->value[TX2] += 0.125 * line;
    f->value[CNP] += 100;
    f->value[PFC] += 20000;
    f->value[IBRX] += 0.10 * line;
    struct fsc_sample smp[N_SER];
    size_t n = 0;
    for (int k = 0; k < N_SER; k++) {
        if (k == NODE)
            continue;
        smp[n++] = (struct fsc_sample){
            .series = f->id[k], .t_dev_ns = t, .t_arr_ns = t, .v.u = (uint64_t)f->value[k]};
    }
    CHECK_INT(fsc_engine_ingest(f->eng, smp, n), 0);
}

static void node_gauge(struct fixture *f, int64_t t, double bps)
{
    struct fsc_sample s = {
        .series = f->id[NODE], .flags = FSC_SMP_F64, .t_dev_ns = t, .t_arr_ns = t, .v.d = bps};
    CHECK_INT(fsc_engine_ingest(f->eng, &s, 1), 0);
}

/* Reads the store; fills the port records of et-0/0/1 / et-0/0/2 of minute
 * T0S, the group and the node. Returns the number of data records. */
static size_t read_back(struct fsc_rr_record *p1, struct fsc_rr_record *p2,
                        struct fsc_rr_record *grp, struct fsc_rr_record *node, char *gname)
{
    char err[128];
    struct fsc_rollup_reader *rd =
        fsc_rollup_reader_open(dir, T0S, T0S + 3600, NULL, err, sizeof(err));
    CHECK(rd != NULL);
    if (!rd)
        return 0;
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    size_t n = 0;
    for (int guard = 0; guard < 1000 && fsc_rollup_reader_next(rd, &rec, &name) == 1; guard++) {
        n++;
        if (rec.minute_s != T0S)
            continue;
        if (rec.type == FSC_RR_PORT && strcmp(name->port, "et-0/0/1") == 0)
            *p1 = rec;
        else if (rec.type == FSC_RR_PORT && strcmp(name->port, "et-0/0/2") == 0)
            *p2 = rec;
        else if (rec.type == FSC_RR_GROUP) {
            *grp = rec;
            snprintf(gname, 64, "%s", name->device);
        } else if (rec.type == FSC_RR_NODE) {
            CHECK_STR(name->device, "b300-1");
            CHECK_STR(name->port, "1");
            *node = rec;
        }
    }
    fsc_rollup_reader_close(rd);
    return n;
}

static void one_minute_known_answers(void)
{
    struct fixture f;
    if (setup(&f) != 0) {
        teardown(&f);
        return;
    }
    /* the baseline at T0, then 600 steps of 100 ms; one tick per second
     * after that second's samples; the burst ends at T0 + 30.1 s */
    int64_t burst = T0 + 30 * NS;
    step(&f, T0, burst);
    node_gauge(&f, T0, 4e12);
    CHECK_INT(fsc_rollup_tick(f.ru, T0), 0);
    double node_sum = 4e12;
    for (int s = 1; s <= 60; s++) {
        for (int k = 1; k <= 10; k++)
            step(&f, T0 + (s - 1) * NS + k * 100 * MS, burst);
        double bps = s == 45 ? 6e12 : 4e12;
        node_gauge(&f, T0 + s * NS, bps);
        node_sum += s < 60 ? bps : 0;
        /* the tick at T0 + 60 s belongs to the next minute: it flushes */
        CHECK_INT(fsc_rollup_tick(f.ru, T0 + s * NS), 0);
    }
    struct fsc_rollup_stats st;
    fsc_rollup_stats(f.ru, &st);
    CHECK_INT(st.ports, 2);
    CHECK_INT(st.groups, 1);
    CHECK_INT(st.nodes, 1);
    CHECK_INT(st.minutes, 1);

    struct fsc_rr_record p1, p2, grp, node;
    char gname[64] = "";
    memset(&p1, 0, sizeof(p1));
    memset(&p2, 0, sizeof(p2));
    memset(&grp, 0, sizeof(grp));
    memset(&node, 0, sizeof(node));
    CHECK_INT(read_back(&p1, &p2, &grp, &node, gname), 4);

    const struct fsc_rr_dir *tx = &p1.port.dir[FSC_RR_TX];
    CHECK_INT(p1.flags, FSC_RR_F_TX | FSC_RR_F_RX | FSC_RR_F_CNP | FSC_RR_F_PFC | FSC_RR_F_IB_RX |
                            FSC_RR_F_COVERED);
    CHECK_NEAR(p1.port.ib_rx_bytes, 600 * 0.5e9, 0.5);
    CHECK_INT(p1.port.counters_ms, 60000);
    CHECK_INT(p2.port.counters_ms, 0); /* no counters */
    /* 600 increases of 100 ms: the whole minute, both directions */
    CHECK_INT(p1.port.dir[FSC_RR_TX].covered_ms, 60000);
    CHECK_INT(p1.port.dir[FSC_RR_RX].covered_ms, 60000);
    /* 599 fine intervals at 0.25 (bucket le 0.3) and one at 1.0 (le 1.0) */
    CHECK_INT(tx->util[2], 599);
    CHECK_INT(tx->util[FSC_UTIL_BUCKETS - 1], 1);
    uint32_t total = 0;
    for (int b = 0; b <= FSC_UTIL_BUCKETS; b++)
        total += tx->util[b];
    CHECK_INT(total, 600);
    CHECK_NEAR(tx->util_sum, 599 * 0.25 + 1.0, 1e-9);
    CHECK_NEAR(tx->bytes, 599 * 1.25e9 + 5e9, 0.5);
    CHECK_NEAR(tx->max_fine, 1.0, 1e-6);
    /* the 1 s window holding the burst: (9 x 0.25 + 1) / 10 */
    CHECK_NEAR(tx->max_1s, 0.325, 1e-6);
    CHECK_INT(tx->bursts, 1);
    CHECK_INT(tx->long_bursts, 0);
    uint32_t durs = 0;
    for (int b = 0; b <= FSC_DURATION_BUCKETS; b++)
        durs += tx->dur[b];
    CHECK_INT(durs, 1);
    CHECK_INT(tx->dur[5], 1); /* 100 ms: the le=0.1 bucket */
    CHECK_NEAR(tx->dur_sum, 0.1, 1e-6);

    const struct fsc_rr_dir *rx = &p1.port.dir[FSC_RR_RX];
    CHECK_INT(rx->util[0], 600); /* 10 %: le 0.1 */
    CHECK_NEAR(rx->bytes, 600 * 0.5e9, 0.5);
    CHECK_NEAR(rx->max_1s, 0.1, 1e-6);
    CHECK_INT(rx->bursts, 0);
    CHECK_NEAR(p1.port.cnp, 60000, 1e-9);
    CHECK_NEAR(p1.port.pfc_pause_s, 12.0, 1e-9);

    CHECK_INT(p2.flags, FSC_RR_F_TX | FSC_RR_F_COVERED);
    CHECK_INT(p2.port.dir[FSC_RR_TX].covered_ms, 60000);
    CHECK_INT(p2.port.dir[FSC_RR_TX].util[1], 600); /* 12.5 %: le 0.2 */
    CHECK_NEAR(p2.port.dir[FSC_RR_TX].bytes, 600 * 0.625e9, 0.5);

    /* the group: 1 s windows 0.25 vs 0.125 -> 4/3; the burst second
     * 0.325 vs 0.125 -> 0.325 / 0.225 */
    CHECK_STR(gname, "group0");
    CHECK_INT(grp.group.members, 2);
    CHECK_INT(grp.group.polls, 61);
    CHECK_NEAR(grp.group.ratio_max, 0.325 / 0.225, 1e-6);

    /* node gauge: 61 polls (T0 .. T0 + 60 s); the value at T0 + 60 s is
     * still 4e12 and polled before the flush */
    CHECK_INT(node.node.polls, 61);
    CHECK_NEAR(node.node.bps_mean[FSC_RR_TX], (node_sum + 4e12) / 61, 1.0);
    CHECK_NEAR(node.node.bps_max[FSC_RR_TX], 6e12, 1e-3);
    CHECK_INT(node.flags & FSC_RR_F_EFF, 0);
    teardown(&f);
}

static void flush_partial_and_restart(void)
{
    struct fixture f;
    if (setup(&f) != 0) {
        teardown(&f);
        return;
    }
    /* 20 s of data, then a stop: the partial minute is flushed */
    step(&f, T0, 0);
    CHECK_INT(fsc_rollup_tick(f.ru, T0), 0);
    for (int k = 1; k <= 200; k++)
        step(&f, T0 + k * 100 * MS, 0);
    CHECK_INT(fsc_rollup_tick(f.ru, T0 + 20 * NS), 0);
    CHECK_INT(fsc_rollup_flush(f.ru, T0 + 20 * NS), 0);
    struct fsc_rr_record p1, p2, grp, node;
    char gname[64];
    memset(&p1, 0, sizeof(p1));
    CHECK_INT(read_back(&p1, &p2, &grp, &node, gname), 3);
    CHECK_INT(p1.port.dir[FSC_RR_TX].util[2], 200);
    CHECK_NEAR(p1.port.dir[FSC_RR_TX].bytes, 200 * 1.25e9, 0.5);
    /* the partial minute says so: 200 increases of 100 ms */
    CHECK(p1.flags & FSC_RR_F_COVERED);
    CHECK_INT(p1.port.dir[FSC_RR_TX].covered_ms, 20000);
    CHECK_INT(p1.port.counters_ms, 20000);

    /* a second rollup on the same store (a restart) appends, same minute */
    char err[128];
    struct fsc_rollup_env env = {.reg = f.reg, .eng = f.eng, .engine_cfg = &f.cfg};
    struct fsc_rollup_params p = {
        .dir = dir, .retention_ns = 30 * 86400 * NS, .max_bytes = 1ull << 30};
    fsc_rollup_destroy(f.ru);
    f.ru = fsc_rollup_create(&p, &env, T0 + 21 * NS, err, sizeof(err));
    CHECK(f.ru != NULL);
    if (!f.ru) {
        teardown(&f);
        return;
    }
    CHECK_INT(fsc_rollup_tick(f.ru, T0 + 21 * NS), 0);
    for (int k = 201; k <= 300; k++)
        step(&f, T0 + k * 100 * MS, 0);
    CHECK_INT(fsc_rollup_tick(f.ru, T0 + 30 * NS), 0);
    CHECK_INT(fsc_rollup_flush(f.ru, T0 + 30 * NS), 0);
    /* the first poll of the new rollup only set its baseline: the 100
     * intervals after it are in the second record */
    size_t n = 0;
    double bytes = 0;
    struct fsc_rollup_reader *rd =
        fsc_rollup_reader_open(dir, T0S, T0S + 60, NULL, err, sizeof(err));
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    for (int guard = 0; rd && guard < 100 && fsc_rollup_reader_next(rd, &rec, &name) == 1; guard++)
        if (rec.type == FSC_RR_PORT && strcmp(name->port, "et-0/0/1") == 0) {
            n++;
            bytes += rec.port.dir[FSC_RR_TX].bytes;
        }
    fsc_rollup_reader_close(rd);
    CHECK_INT(n, 2);
    CHECK_NEAR(bytes, 300 * 1.25e9, 0.5);
    teardown(&f);
}

/* The daemon's entry points: the config's state_dir and rollup keys, the
 * thread started and stopped; the stop writes the minute in progress. */
static void start_stop_from_config(void)
{
    struct fixture f;
    if (setup(&f) != 0) {
        teardown(&f);
        return;
    }
    fsc_rollup_destroy(f.ru); /* the fixture's own: the config's takes over */
    f.ru = NULL;
    char text[256], err[512] = "";
    snprintf(text, sizeof(text), "state_dir: %s/state\nrollup: {retention: 7d, max_bytes: 1MiB}\n",
             dir);
    struct fsc_config *cfg =
        fsc_config_parse(text, strlen(text), "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        teardown(&f);
        return;
    }
    CHECK_INT(fsc_rollup_config_of(cfg)->retention_ns, 7 * 86400 * NS);
    CHECK_INT(fsc_rollup_config_of(cfg)->max_bytes, 1 << 20);
    CHECK(fsc_rollup_config_of(cfg)->enabled);
    struct fsc_rollup_env env = {.reg = f.reg, .eng = f.eng, .engine_cfg = &f.cfg};
    struct fsc_rollup *ru =
        fsc_rollup_start(fsc_rollup_config_of(cfg), cfg->state_dir, &env, err, sizeof(err));
    CHECK(ru != NULL);
    step(&f, T0, 0);
    fsc_rollup_stop(ru);
    char path[160];
    snprintf(path, sizeof(path), "%s/state/rollup", dir);
    struct fsc_rollup_reader *rd =
        fsc_rollup_reader_open(path, 0, INT64_MAX, NULL, err, sizeof(err));
    CHECK(rd != NULL);
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    int ports = 0;
    for (int guard = 0; rd && guard < 1000 && fsc_rollup_reader_next(rd, &rec, &name) == 1; guard++)
        ports += rec.type == FSC_RR_PORT;
    fsc_rollup_reader_close(rd);
    CHECK(ports >= 2);
    /* an unwritable state_dir is an error sentence, not a crash */
    struct fsc_config *bad = fsc_config_parse("state_dir: /proc/fsc-no\n", 23, "b.yaml",
                                              fsc_app_schema(), err, sizeof(err));
    CHECK(bad != NULL);
    if (bad) {
        CHECK(fsc_rollup_start(fsc_rollup_config_of(bad), bad->state_dir, &env, err, sizeof(err)) ==
              NULL);
        CHECK(strstr(err, "cannot create /proc/fsc-no/rollup") != NULL);
    }
    fsc_config_destroy(bad);
    fsc_config_destroy(cfg);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s/state", dir);
    CHECK_INT(system(cmd), 0);
    teardown(&f);
}

TEST_MAIN(TEST(one_minute_known_answers), TEST(flush_partial_and_restart),
          TEST(start_stop_from_config))
