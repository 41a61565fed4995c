/* prom_fixture: prints the Prometheus exposition of a deterministic fabric.
 *
 *   prom_fixture [--openmetrics]
 *   prom_fixture --vendor-names DIR
 *
 * With --vendor-names it prints instead the exposition of one series per
 * name of the vendors' published sets (the .names files under DIR/<profile>,
 * tests/vendor/README.md) as its profile maps it, canonical or passed
 * through: what promtool must accept of every name a device can send.
 *
 * Builds a config (three sources and a disabled fourth, a topology with an
 * uplink group), a registry and an engine, feeds 30 s of 100 ms samples in
 * which every family of docs/METRICS.md gets a sample: a 100 ms microburst
 * and a 2 s burst on two leaf ports, an imbalanced uplink pair, a CNP storm,
 * a 32-bit wrap, PFC pause time in microseconds, queue-peak and buffer
 * evidence, double-valued spine counters, a passthrough counter, an OTLP
 * histogram kept as counters (_bucket{le}, _count, _sum marked in
 * traits.expo, exposed as one histogram family), and label values that need
 * every escape. Then renders once and writes the text to
 * stdout. The same input always gives the same bytes (the first render
 * reports a previous scrape of 0 s, 0 lines, 0 bytes).
 *
 * Used by tests/integration/promtool_check_test.sh. Exit 0, or 1 with a
 * message on stderr. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/profile.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "prometheus/prom_render.h"
#include "../config_all.h"

#define NS    1000000000LL
#define MS    1000000LL
#define T0    (1700000000LL * NS)
#define STEPS 300 /* 30 s of 100 ms */
#define SPEED 400000000000ULL
#define BPS   (SPEED / 8) /* bytes/s at line rate */

static const char yaml[] = "sources:\n"
                           "  - name: leaf1\n"
                           "    type: gnmi\n"
                           "    address: \"127.0.0.1:32767\"\n"
                           "  - name: spine1\n"
                           "    type: otlp\n"
                           "  - name: host1\n"
                           "    type: nic\n"
                           "  - name: demo\n"
                           "    type: synthetic\n"
                           "    enabled: false\n"
                           "exporters:\n"
                           "  prometheus:\n"
                           "    stale_after: 1m\n"
                           "engine:\n"
                           "  windows: [1s, 10s, 1m]\n"
                           "topology:\n"
                           "  devices:\n"
                           "    - name: leaf1\n"
                           "      role: leaf\n"
                           "      buffer: 64MiB\n"
                           "      ports:\n"
                           "        - {name: et-0/0/0, speed: 400G, role: downlink}\n"
                           "        - {name: et-0/0/1, speed: 400G, role: downlink}\n"
                           "        - {name: et-0/0/48, speed: 400G, role: uplink}\n"
                           "        - {name: et-0/0/49, speed: 400G, role: uplink}\n"
                           "  port_groups:\n"
                           "    - name: leaf1-uplinks\n"
                           "      members: [\"leaf1:et-0/0/48\", \"leaf1:et-0/0/49\"]\n";

enum { SRC_LEAF = 0, SRC_SPINE = 1, SRC_HOST = 2 };

/* One series and how its value moves per 100 ms step. */
struct fx_series {
    fsc_series_id id;
    int is_f64;
    uint64_t u;
    double d;
    uint64_t (*step_u)(int step, int which); /* increment for step (counters) or value (gauges) */
    int which;
    int gauge;
};

#define MAX_SERIES 64

struct fx {
    struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fx_series ser[MAX_SERIES];
    size_t n;
};

/* Leaf port bytes per 100 ms: which = port index * 2 + (tx ? 1 : 0). */
static uint64_t leaf_bytes(int step, int which)
{
    int port = which / 2, tx = which % 2;
    double u = 0.3 + 0.01 * (step % 5); /* 30..34 %, a little movement */
    if (port == 0 && tx && step == 50)
        u = 1.0; /* one 100 ms line-rate microburst */
    if (port == 1 && tx && step >= 100 && step < 120)
        u = 0.9; /* a 2 s burst */
    if (port == 2)
        u = 0.6; /* uplinks: 60 % against 10 %: imbalanced */
    if (port == 3)
        u = 0.1;
    return (uint64_t)(u * (double)BPS / 10.0);
}

static uint64_t leaf_packets(int step, int which)
{
    return leaf_bytes(step, which) / 1000;
}

static uint64_t small_const(int step, int which)
{
    (void)step;
    return (uint64_t)which;
}

/* Queue peak gauge: a third of the buffer, half-way above half of it. */
static uint64_t queue_peak(int step, int which)
{
    (void)which;
    return step == 150 ? 48ull << 20 : 20ull << 20;
}

static uint64_t nic_bytes(int step, int which)
{
    (void)which;
    return (uint64_t)((0.2 + 0.02 * (step % 3)) * (double)BPS / 10.0);
}

/* CNP/s: 100 baseline, 100000 for 2 s from 15 s. */
static uint64_t cnp(int step, int which)
{
    (void)which;
    return step >= 150 && step < 170 ? 10000 : 10;
}

static uint64_t buffer_threshold(int step, int which)
{
    (void)which;
    return step == 200 ? 1 : 0;
}

static uint64_t pause_us(int step, int which)
{
    (void)step;
    (void)which;
    return 1000; /* 1 ms per 100 ms: 1 % paused */
}

/* The spine's OTLP histogram (bounds 4096, 65536, 1048576), per label set
 * which / 8 (tc 0, tc 3) and part which % 8 (0..3 buckets, 4 _count, 5 _sum):
 * what one 100 ms step adds. Buckets are cumulative over buckets, so each
 * step adds as much to +Inf as to _count. */
static uint64_t hist_step(int step, int which)
{
    static const uint64_t add_per_step[2][6] = {{1, 3, 3, 4, 4, 9000}, {0, 1, 2, 2, 2, 70000}};
    (void)step;
    return add_per_step[which / 8][which % 8];
}

static int add(struct fx *fx, uint16_t source, const char *metric, const struct fsc_traits *tr,
               const char *const *kv, uint64_t start, uint64_t (*step_u)(int, int), int which)
{
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t n = 0;
    while (kv[2 * n] && n < FSC_REGISTRY_MAX_LABELS) {
        lab[n].name = kv[2 * n];
        lab[n].value = kv[2 * n + 1];
        n++;
    }
    if (fx->n >= MAX_SERIES)
        return -1;
    fsc_series_id id = fsc_registry_intern(fx->reg, source, metric, lab, n);
    if (id == FSC_SERIES_NONE || fsc_engine_set_traits(fx->eng, id, tr) != 0) {
        fprintf(stderr, "prom_fixture: cannot create %s\n", metric);
        return -1;
    }
    struct fx_series *s = &fx->ser[fx->n++];
    memset(s, 0, sizeof(*s));
    s->id = id;
    s->is_f64 = tr->width == 53;
    s->u = start;
    s->d = (double)start + 0.75; /* doubles keep a fraction: 330123456789.25 */
    s->step_u = step_u;
    s->which = which;
    s->gauge = tr->kind == FSC_KIND_GAUGE;
    return (int)(fx->n - 1);
}

static struct fsc_traits traits(uint8_t kind, uint8_t width, uint8_t unit, uint8_t signal,
                                uint8_t dir, uint64_t speed)
{
    return (struct fsc_traits){.kind = kind,
                               .width = width,
                               .unit = unit,
                               .signal = signal,
                               .direction = dir,
                               .scale = 1,
                               .link_speed_bps = speed,
                               .buffer_bytes = 64ull << 20,
                               .nominal_interval_ns = 100 * MS};
}

static int build(struct fx *fx)
{
    static const char *const leaf_ports[4] = {"et-0/0/0", "et-0/0/1", "et-0/0/48", "et-0/0/49"};
    static const char *const roles[4] = {"downlink", "downlink", "uplink", "uplink"};
    const struct fsc_traits rx =
        traits(0, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_RX, SPEED);
    const struct fsc_traits tx =
        traits(0, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_TX, SPEED);
    const struct fsc_traits pkts = traits(0, 64, FSC_UNIT_PACKETS, 0, FSC_DIR_NONE, 0);
    const struct fsc_traits plain = traits(0, 64, FSC_UNIT_NONE, 0, FSC_DIR_NONE, 0);
    const struct fsc_traits ecn = traits(0, 64, FSC_UNIT_PACKETS, FSC_SIG_ECN, FSC_DIR_NONE, 0);
    const struct fsc_traits peak =
        traits(FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, FSC_SIG_QUEUE_PEAK, FSC_DIR_NONE, 0);
    int rc = 0;

    for (int p = 0; p < 4; p++) {
        /* et-0/0/1 carries a description that needs every escape. */
        const char *kv[] = {"device",
                            "leaf1",
                            "port",
                            leaf_ports[p],
                            "role",
                            roles[p],
                            p == 1 ? "descr" : NULL,
                            "to \"gpu-02\" \\ slot 3\nrail 0",
                            NULL};
        const char *kvq[] = {"device", "leaf1", "port", leaf_ports[p], "queue", "3", NULL};
        rc |= add(fx, SRC_LEAF, "fabric_port_rx_bytes_total", &rx, kv, 1000, leaf_bytes, p * 2) < 0;
        rc |= add(fx, SRC_LEAF, "fabric_port_tx_bytes_total", &tx, kv, 2000, leaf_bytes,
                  p * 2 + 1) < 0;
        rc |= add(fx, SRC_LEAF, "fabric_port_rx_packets_total", &pkts, kv, 10, leaf_packets,
                  p * 2) < 0;
        rc |= add(fx, SRC_LEAF, "fabric_port_rx_discards_total", &plain, kv, 0, small_const, p) < 0;
        rc |= add(fx, SRC_LEAF, "fabric_port_ecn_marked_packets_total", &ecn, kvq, 5, small_const,
                  3) < 0;
        rc |= add(fx, SRC_LEAF, "fabric_port_queue_peak_bytes", &peak, kvq, 0, queue_peak, 0) < 0;
    }

    /* Spine: Cumulus counters arrive as doubles. */
    const struct fsc_traits drx =
        traits(0, 53, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_RX, SPEED);
    for (int p = 0; p < 2; p++) {
        const char *kv[] = {"device", "spine1", "port", p ? "swp2" : "swp1", NULL};
        rc |=
            add(fx, SRC_SPINE, "fabric_port_rx_bytes_total", &drx, kv, 123456789, nic_bytes, 0) < 0;
    }

    /* Spine: an OTLP histogram as the receiver keeps it. */
    static const char *const le[4] = {"4096", "65536", "1048576", "+Inf"};
    static const char *const eb = "fabric_cumulus_nvswitch_interface_egress_buffer";
    struct fsc_traits hb = traits(0, 64, FSC_UNIT_NONE, 0, FSC_DIR_NONE, 0);
    struct fsc_traits hc = hb, hs = traits(0, 53, FSC_UNIT_NONE, 0, FSC_DIR_NONE, 0);
    hb.expo = FSC_EXPO_HIST_BUCKET;
    hc.expo = FSC_EXPO_HIST_COUNT;
    hs.expo = FSC_EXPO_HIST_SUM;
    for (int set = 0; set < 2; set++) {
        for (int part = 0; part < 6; part++) {
            const char *kv[] = {"device",
                                "spine1",
                                "port",
                                "swp1",
                                "queue",
                                set ? "3" : "0",
                                part < 4 ? "le" : NULL,
                                part < 4 ? le[part] : NULL,
                                NULL};
            char metric[128];
            snprintf(metric, sizeof(metric), "%s%s", eb,
                     part < 4    ? "_bucket"
                     : part == 4 ? "_count"
                                 : "_sum");
            const struct fsc_traits *tr = part < 4 ? &hb : part == 4 ? &hc : &hs;
            rc |= add(fx, SRC_SPINE, metric, tr, kv, 0, hist_step, set * 8 + part) < 0;
        }
    }

    /* NIC. */
    const struct fsc_traits c_cnp = traits(0, 64, FSC_UNIT_PACKETS, FSC_SIG_CNP, FSC_DIR_NONE, 0);
    const struct fsc_traits c_roce = traits(0, 64, FSC_UNIT_PACKETS, FSC_SIG_ECN, FSC_DIR_NONE, 0);
    const struct fsc_traits c_oos =
        traits(0, 32, FSC_UNIT_PACKETS, FSC_SIG_REORDER, FSC_DIR_NONE, 0);
    const struct fsc_traits c_thr =
        traits(0, 64, FSC_UNIT_NONE, FSC_SIG_BUFFER_THRESHOLD, FSC_DIR_NONE, 0);
    const struct fsc_traits c_pf =
        traits(0, 64, FSC_UNIT_PACKETS, FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_RX, 0);
    const struct fsc_traits c_pd =
        traits(0, 64, FSC_UNIT_MICROSECONDS, FSC_SIG_PFC_PAUSE_DURATION, FSC_DIR_RX, 0);
    const struct fsc_traits ntx =
        traits(0, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_TX, SPEED);
    for (int p = 0; p < 2; p++) {
        const char *port = p ? "ens1f1np1" : "ens1f0np0";
        const char *kv[] = {"device", "host1", "port", port, NULL};
        const char *kvp[] = {"device", "host1", "port", port, "priority", "3", NULL};
        rc |= add(fx, SRC_HOST, "fabric_port_tx_bytes_total", &ntx, kv, 0, nic_bytes, 0) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_cnp_sent_total", &c_cnp, kv, 0, p ? small_const : cnp,
                  1) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_cnp_handled_total", &c_cnp, kv, 0, small_const, 2) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_ecn_marked_roce_packets_total", &c_roce, kv, 0,
                  small_const, 1) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_out_of_sequence_total", &c_oos, kv, 4294967000u,
                  small_const, 7) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_packet_seq_errors_total", &c_oos, kv, 0, small_const,
                  0) < 0;
        rc |= add(fx, SRC_HOST, "fabric_nic_rx_buffer_over_threshold_total", &c_thr, kv, 0,
                  buffer_threshold, 0) < 0;
        rc |= add(fx, SRC_HOST, "fabric_port_pfc_rx_pause_frames_total", &c_pf, kvp, 0, small_const,
                  4) < 0;
        rc |= add(fx, SRC_HOST, "fabric_port_pfc_rx_pause_seconds_total", &c_pd, kvp, 0, pause_us,
                  0) < 0;
        rc |= add(fx, SRC_HOST, "fabric_mlx5_vendor_extra", &plain, kv, 42, small_const, 1) < 0;
    }
    if (rc)
        return -1;

    /* The uplink group: the tx bytes of et-0/0/48 and et-0/0/49. */
    for (size_t i = 0; i < fx->n; i++) {
        const struct fx_series *s = &fx->ser[i];
        if (s->step_u == leaf_bytes && s->which % 2 == 1 && s->which / 2 >= 2 &&
            fsc_engine_group_add(fx->eng, 0, s->id) != 0)
            return -1;
    }
    return 0;
}

static int feed(struct fx *fx)
{
    struct fsc_sample batch[MAX_SERIES];
    for (int step = 0; step <= STEPS; step++) {
        int64_t t = T0 + step * 100 * MS;
        for (size_t i = 0; i < fx->n; i++) {
            struct fx_series *s = &fx->ser[i];
            if (step > 0 || s->gauge) {
                uint64_t inc = s->step_u(step, s->which);
                if (s->gauge) {
                    s->u = inc;
                } else {
                    s->u += inc;
                    s->d += (double)inc + 0.5;
                }
            }
            batch[i] = (struct fsc_sample){.series = s->id, .t_dev_ns = t, .t_arr_ns = t};
            if (s->is_f64) {
                batch[i].flags = FSC_SMP_F64;
                batch[i].v.d = s->d;
            } else {
                /* 32-bit counters wrap as the hardware does. */
                batch[i].v.u = s->u;
            }
        }
        for (size_t i = 0; i < fx->n; i++)
            if (fx->ser[i].step_u == small_const && fx->ser[i].which == 7)
                batch[i].v.u &= 0xffffffffu;
        if (fsc_engine_ingest(fx->eng, batch, fx->n) != 0)
            return -1;
    }
    return 0;
}

/* One series per published name of profile `name` (DIR/<name>/ .names files),
 * mapped as the profile maps it, with its own label when it has one, a
 * sample (counters two, so they have a value). Returns 0 or -1. */
static int vendor_names(struct fx *fx, const char *dir, const char *name, uint16_t src)
{
    const struct fsc_profile *prof = fsc_profile_find(fsc_app_profiles(), name);
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    DIR *d = prof ? opendir(path) : NULL;
    if (!d)
        return -1;
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 6, ".names") != 0)
            continue;
        char file[1400];
        snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
        FILE *f = fopen(file, "r");
        char line[512];
        while (f && rc == 0 && fgets(line, sizeof(line), f)) {
            size_t k = strcspn(line, " \t\r\n");
            if (line[0] == '#' || k == 0)
                continue;
            line[k] = '\0';
            struct fsc_profile_match m;
            if (fsc_profile_map(prof, line, &m) != 0) {
                rc = -1;
                break;
            }
            struct fsc_label lab[3] = {{"device", name}, {"port", "p1"}, {m.label_name, "3"}};
            fsc_series_id id =
                fsc_registry_intern(fx->reg, src, m.canonical, lab, m.label_name[0] ? 3 : 2);
            if (id == FSC_SERIES_NONE || fsc_engine_set_traits(fx->eng, id, &m.traits) != 0) {
                rc = -1;
                break;
            }
            struct fsc_sample smp[2] = {
                {.series = id, .t_dev_ns = T0, .t_arr_ns = T0, .v.u = 1},
                {.series = id, .t_dev_ns = T0 + NS, .t_arr_ns = T0 + NS, .v.u = 2}};
            for (int i = 0; i < 2; i++) {
                if (m.traits.width == 53) {
                    smp[i].flags = FSC_SMP_F64;
                    smp[i].v.d = (double)(i + 1);
                }
            }
            rc = fsc_engine_ingest(fx->eng, smp, 2) != 0 ? -1 : 0;
        }
        if (f)
            fclose(f);
        else
            rc = -1;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    enum fsc_prom_format fmt = FSC_PROM_TEXT;
    char err[512] = "";
    struct fx fx = {0};
    struct fsc_prom_renderer *r = NULL;
    struct fsc_event_bus *bus = NULL;
    struct fsc_buf out = {0};
    int status = 1;

    const char *names_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--openmetrics") == 0) {
            fmt = FSC_PROM_OPENMETRICS;
        } else if (strcmp(argv[i], "--vendor-names") == 0 && i + 1 < argc) {
            names_dir = argv[++i];
        } else {
            fprintf(stderr, "usage: prom_fixture [--openmetrics] | --vendor-names DIR\n");
            return 2;
        }
    }
    fx.cfg = fsc_config_parse(yaml, strlen(yaml), "prom_fixture.yaml", fsc_app_schema(), err,
                              sizeof(err));
    if (!fx.cfg) {
        fprintf(stderr, "prom_fixture: config: %s\n", err);
        goto out;
    }
    fx.reg = fsc_registry_create(names_dir ? 100000 : 10000);
    bus = fsc_event_bus_create(1024);
    uint16_t src;
    if (!fx.reg || !bus || fsc_registry_source_add(fx.reg, "leaf1", 1000, &src) != 0 ||
        fsc_registry_source_add(fx.reg, "spine1", 1000, &src) != 0 ||
        fsc_registry_source_add(fx.reg, "host1", 1000, &src) != 0) {
        fprintf(stderr, "prom_fixture: cannot create the registry\n");
        goto out;
    }
    fx.eng = fsc_engine_create(fsc_engine_config_of(fx.cfg), bus, err, sizeof(err));
    if (!fx.eng) {
        fprintf(stderr, "prom_fixture: engine: %s\n", err);
        goto out;
    }
    if (names_dir) {
        uint16_t s_junos, s_cumulus, s_mlx5;
        if (fsc_registry_source_add(fx.reg, "junos", 0, &s_junos) != 0 ||
            fsc_registry_source_add(fx.reg, "cumulus", 0, &s_cumulus) != 0 ||
            fsc_registry_source_add(fx.reg, "mlx5", 0, &s_mlx5) != 0 ||
            vendor_names(&fx, names_dir, "junos", s_junos) != 0 ||
            vendor_names(&fx, names_dir, "cumulus", s_cumulus) != 0 ||
            vendor_names(&fx, names_dir, "mlx5", s_mlx5) != 0) {
            fprintf(stderr, "prom_fixture: cannot read the vendor names under %s\n", names_dir);
            goto out;
        }
    } else if (build(&fx) != 0 || feed(&fx) != 0) {
        fprintf(stderr, "prom_fixture: cannot build the fixture\n");
        goto out;
    }
    struct fsc_prom_render_env env = {.reg = fx.reg, .eng = fx.eng, .cfg = fx.cfg};
    r = fsc_prom_renderer_create(&env, err, sizeof(err));
    if (!r) {
        fprintf(stderr, "prom_fixture: %s\n", err);
        goto out;
    }
    int rc = fsc_prom_render(r, fmt, names_dir ? T0 + NS : T0 + STEPS * 100 * MS, &out);
    if (rc != 0) {
        fprintf(stderr, "prom_fixture: render failed: %d\n", rc);
        goto out;
    }
    if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
        fprintf(stderr, "prom_fixture: write failed\n");
        goto out;
    }
    status = 0;
out:
    fsc_buf_free(&out);
    fsc_prom_renderer_destroy(r);
    fsc_engine_destroy(fx.eng);
    fsc_event_bus_destroy(bus);
    fsc_registry_destroy(fx.reg);
    fsc_config_destroy(fx.cfg);
    return status;
}
