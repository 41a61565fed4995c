/* Replay files: the line grammar (exact fields and errors with columns) and
 * loading a file into registry + engine (file:line errors, traits from the
 * profiles, link speed from the topology fallback). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "sources/replay/replay_file.h"
#include "sources/replay/replay_source.h"
#include "test.h"
#include "config_all.h"

static int parse(const char *text, struct fsc_replay_line *ln, char *err, size_t errlen)
{
    static char line[FSC_REPLAY_LINE_MAX];
    snprintf(line, sizeof(line), "%s", text);
    return fsc_replay_parse_line(line, ln, err, errlen);
}

static void line_grammar(void)
{
    struct fsc_replay_line ln;
    char err[128];

    CHECK_INT(parse("", &ln, err, sizeof(err)), 0);
    CHECK_INT(parse("   # comment", &ln, err, sizeof(err)), 0);

    CHECK_INT(parse("100 fabric_port_tx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"} 5000\n",
                    &ln, err, sizeof(err)),
              1);
    CHECK_INT(ln.t_ms, 100);
    CHECK_STR(ln.name, "fabric_port_tx_bytes_total");
    CHECK_INT(ln.n_labels, 2);
    CHECK_STR(ln.labels[0].name, "device");
    CHECK_STR(ln.labels[0].value, "leaf1");
    CHECK_STR(ln.labels[1].value, "et-0/0/1");
    CHECK_INT(ln.flags, 0);
    CHECK(ln.v.u == 5000);

    CHECK_INT(parse("0 up 18446744073709551615", &ln, err, sizeof(err)), 1);
    CHECK(ln.v.u == UINT64_MAX);
    CHECK_INT(ln.n_labels, 0);

    CHECK_INT(parse("7 g{q=\"a \\\"b\\\" \\\\ c\\n\"} 1.5e3 reset # x", &ln, err, sizeof(err)), 1);
    CHECK_STR(ln.labels[0].value, "a \"b\" \\ c\n");
    CHECK_INT(ln.flags, FSC_SMP_F64 | FSC_SMP_RESET);
    CHECK_NEAR(ln.v.d, 1500.0, 0);

    CHECK_INT(parse("x m 1", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 1: expected the time in milliseconds");
    CHECK_INT(parse("1 m{a=b} 1", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 7: expected a double-quoted label value");
    CHECK_INT(parse("1 m{a=\"b} 1", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 12: unterminated label value");
    CHECK_INT(parse("1 m -3", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 5: value must be an unsigned integer or a finite number >= 0");
    CHECK_INT(parse("1 m 18446744073709551616", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 5: integer value does not fit 64 bits");
    CHECK_INT(parse("1 m 2 extra", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 7: unexpected text after the value");
    CHECK_INT(parse("1 m", &ln, err, sizeof(err)), -1);
    CHECK_STR(err, "column 4: expected '{' or whitespace after the metric name");
}

static const char *write_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/fsc_replay_test_%d.replay", (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static void load_resolves_series_and_traits(void)
{
    char err[256];
    struct fsc_engine_config cfg;
    fsc_engine_config_defaults(&cfg);
    struct fsc_registry *reg = fsc_registry_create(1000);
    struct fsc_engine *eng = fsc_engine_create(&cfg, NULL, err, sizeof(err));
    struct fsc_source_env env = {.reg = reg, .eng = eng, .profiles = fsc_app_profiles()};
    CHECK(reg && eng);
    if (!reg || !eng)
        return;
    CHECK_INT(fsc_registry_source_add(reg, "rp", 100, &env.source_id), 0);

    const char *path = write_file("# two series\n"
                                  "0 fabric_port_tx_bytes_total{device=\"d\",port=\"p\"} 0\n"
                                  "0 fabric_nic_out_of_sequence_total{device=\"d\",port=\"p\"} 7\n"
                                  "100 fabric_port_tx_bytes_total{port=\"p\",device=\"d\"} 10\n"
                                  "0 fabric_junos_qmon_peak_buffer_occupancy_percent 61\n"
                                  "100 fabric_junos_qmon_peak_buffer_occupancy_percent 0\n"
                                  "0 fabric_junos_qmon_tail_drop_packets 5\n");
    struct fsc_sample *smp = NULL;
    size_t n = 0;
    CHECK_INT(fsc_replay_load(path, &env, 100000000000ULL, 50000000, &smp, &n, err, sizeof(err)),
              0);
    CHECK_INT(n, 6);
    CHECK_INT(fsc_registry_count(reg), 4);
    if (n == 3) {
        CHECK_INT(smp[0].series, smp[2].series); /* label order does not matter */
        CHECK_INT(smp[2].t_dev_ns, 100000000);
        CHECK(smp[2].v.u == 10);
    }
    /* traits: port bytes got the fallback link speed; out_of_sequence is 32-bit */
    CHECK_INT(fsc_engine_ingest(eng, smp, n), 0);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(eng, smp[0].series, &view), 0);
    CHECK_INT(view.signal, FSC_SIG_PORT_BYTES);
    CHECK(view.link_speed_bps == 100000000000ULL);
    CHECK_INT(fsc_engine_view(eng, smp[1].series, &view), 0);
    CHECK_INT(view.signal, FSC_SIG_REORDER);
    /* passthrough names: a level by the Junos profile's words is a gauge */
    if (n == 6) {
        CHECK_INT(fsc_engine_view(eng, smp[3].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
        CHECK_INT(fsc_engine_view(eng, smp[5].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_COUNTER);
    }
    struct fsc_engine_stats es;
    fsc_engine_stats_get(eng, &es);
    CHECK_INT(es.verdicts[FSC_RATE_RESET], 0); /* 61 -> 0 of a gauge */
    CHECK_INT(es.verdicts[FSC_RATE_GAUGE], 2);
    free(smp);

    path = write_file("0 a_total 1\n\n5 b_total{x=1} 2\n");
    CHECK_INT(fsc_replay_load(path, &env, 0, 0, &smp, &n, err, sizeof(err)), -1);
    char want[160];
    snprintf(want, sizeof(want), "%s:3: column 13: expected a double-quoted label value", path);
    CHECK_STR(err, want);

    CHECK_INT(fsc_replay_load("/nonexistent/x.replay", &env, 0, 0, &smp, &n, err, sizeof(err)), -1);
    CHECK_STR(err, "/nonexistent/x.replay: cannot open: No such file or directory");
    unlink(path);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
}

/* A port the topology knows gets role, rail and peer labels and its link
 * speed, and its tx bytes join its port group; one it does not know keeps
 * the labels it came with. */
static void topology_labels_and_speed(void)
{
    static const char yaml[] = "topology:\n"
                               "  rails: 4\n"
                               "  devices:\n"
                               "    - name: leaf1\n"
                               "      role: leaf\n"
                               "      rail: 2\n"
                               "      ports:\n"
                               "        - {name: et-0/0/32, speed: 100G, role: uplink, peer: "
                               "\"spine1:swp3\"}\n"
                               "        - {name: et-0/0/33, speed: 100G, role: uplink}\n"
                               "    - name: spine1\n"
                               "      role: spine\n"
                               "      ports:\n"
                               "        - {name: swp3, speed: 100G, role: downlink}\n"
                               "  port_groups:\n"
                               "    - {name: leaf1-uplinks, members: [\"leaf1:et-0/0/32\", "
                               "\"leaf1:et-0/0/33\"]}\n";
    char err[256];
    struct fsc_config *cfg =
        fsc_config_parse(yaml, sizeof(yaml) - 1, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    struct fsc_registry *reg = fsc_registry_create(100);
    struct fsc_engine *eng = fsc_engine_create(fsc_engine_config_of(cfg), NULL, err, sizeof(err));
    struct fsc_source_env env = {
        .reg = reg, .eng = eng, .topo = fsc_topology_of(cfg), .profiles = fsc_app_profiles()};
    CHECK_INT(fsc_registry_source_add(reg, "rp", 100, &env.source_id), 0);
    const char *path =
        write_file("0 fabric_port_tx_bytes_total{device=\"leaf1\",port=\"et-0/0/32\"} 0\n"
                   "0 fabric_port_tx_bytes_total{device=\"leaf1\",port=\"et-0/0/99\"} 0\n"
                   "0 fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/32\"} 0\n");
    struct fsc_sample *smp = NULL;
    size_t n = 0;
    CHECK_INT(fsc_replay_load(path, &env, 400000000000ULL, 0, &smp, &n, err, sizeof(err)), 0);
    CHECK_INT(n, 3);
    /* Only the tx bytes of the member port joined the group (engine group 0). */
    struct fsc_group_view gv;
    CHECK_INT(fsc_engine_group_count(eng), 1);
    CHECK_INT(fsc_engine_group_view(eng, 0, &gv), 0);
    CHECK_INT(gv.members, 1);
    struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
    if (n == 3) {
        size_t nl = fsc_registry_labels(reg, smp[0].series, labels, FSC_REGISTRY_MAX_LABELS);
        CHECK_INT(nl, 5); /* sorted by name */
        CHECK_STR(labels[0].name, "device");
        CHECK_STR(labels[1].name, "peer");
        CHECK_STR(labels[1].value, "spine1:swp3");
        CHECK_STR(labels[2].name, "port");
        CHECK_STR(labels[3].name, "rail");
        CHECK_STR(labels[3].value, "2");
        CHECK_STR(labels[4].name, "role");
        CHECK_STR(labels[4].value, "uplink");
        CHECK_INT(fsc_registry_labels(reg, smp[1].series, labels, FSC_REGISTRY_MAX_LABELS), 2);
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(eng, smp[0].series, &view), 0);
        CHECK(view.link_speed_bps == 100000000000ULL); /* from the topology */
        CHECK_INT(fsc_engine_view(eng, smp[1].series, &view), 0);
        CHECK(view.link_speed_bps == 400000000000ULL); /* the fallback */
    }
    free(smp);
    unlink(path);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(line_grammar), TEST(load_resolves_series_and_traits),
          TEST(topology_labels_and_speed))
