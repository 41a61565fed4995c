/* The events topic's JSON documents (exporters/kafka/kafka_event_json.c):
 * the exact document and key of one event of every kind, escaping, bounds
 * (-E2BIG at every too-small size) and the writer's number and UTF-8 rules.
 *
 * `kafka_event_json_test dump FILE` (not a ctest case) writes the documents
 * of every_kind_exact as JSON lines for the schema check
 * (tests/integration/kafka_schema_test.sh). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/events.h"
#include "kafka/kafka_event_json.h"
#include "base/json_write.h"
#include "base/numfmt.h"
#include "test.h"
#include "config_all.h"

#define NS 1000000000LL
#define MS 1000000LL
#define T0 (1700000000LL * NS) /* 2023-11-14T22:13:20Z */

static const char yaml[] = "sources:\n"
                           "  - name: leaf1-gnmi\n"
                           "    type: gnmi\n"
                           "    address: \"127.0.0.1:50051\"\n"
                           "    device: leaf1\n"
                           "    streams:\n"
                           "      - name: interfaces\n"
                           "        paths: [/interfaces/interface/state/counters]\n"
                           "engine:\n"
                           "  windows: [1s, 10s, 1m]\n"
                           "topology:\n"
                           "  devices:\n"
                           "    - name: leaf1\n"
                           "      role: leaf\n"
                           "      ports:\n"
                           "        - {name: et-0/0/32, speed: 400G, role: uplink}\n"
                           "        - {name: et-0/0/33, speed: 400G, role: uplink}\n"
                           "    - name: spine1\n"
                           "      role: spine\n"
                           "      ports:\n"
                           "        - {name: swp1, speed: 400G}\n"
                           "  port_groups:\n"
                           "    - name: leaf1-uplinks\n"
                           "      members: [\"leaf1:et-0/0/32\", \"leaf1:et-0/0/33\"]\n"
                           "    - name: mixed\n"
                           "      members: [\"leaf1:et-0/0/32\", \"spine1:swp1\"]\n";

struct fx {
    struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_kafka_event_json cx;
    fsc_series_id id[16];
};

enum {
    S_TX,     /* leaf1 et-0/0/1 tx bytes, topology labels */
    S_QUEUE,  /* leaf1 queue peak gauge */
    S_BUF,    /* b300-01 rx_buffer_passed_thres_phy */
    S_CNP,    /* b300-01 np_cnp_sent */
    S_ECN,    /* leaf1 queue ECN marks */
    S_OOS,    /* b300-01 out_of_sequence */
    S_PAUSE,  /* b300-01 pause seconds, priority 3 */
    S_FRAMES, /* leaf1 pause frames, priority 3 */
    S_CABLE,  /* b300-01 cable mismatch, kind=address */
    S_CABLE2, /* kind=peer */
    S_PCIE,   /* b300-01 PCIe */
    S_RX,     /* leaf1 et-0/0/0 rx bytes: counter reset */
    S_ODD,    /* a label value that needs escaping */
    S__N
};

static fsc_series_id intern(struct fx *f, const char *metric, const char *const *kv)
{
    struct fsc_label l[FSC_REGISTRY_MAX_LABELS];
    size_t n = 0;
    while (kv[2 * n] != NULL) {
        l[n].name = kv[2 * n];
        l[n].value = kv[2 * n + 1];
        n++;
    }
    fsc_series_id id = fsc_registry_intern(f->reg, 0, metric, l, n);
    CHECK(id != FSC_SERIES_NONE);
    return id;
}

static int fx_open(struct fx *f)
{
    char err[512];
    uint16_t src;
    memset(f, 0, sizeof(*f));
    f->cfg = fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
    if (!f->cfg)
        fprintf(stderr, "config: %s\n", err);
    f->reg = fsc_registry_create(1000);
    CHECK(f->cfg != NULL && f->reg != NULL);
    if (!f->cfg || !f->reg)
        return -1;
    CHECK_INT(fsc_registry_source_add(f->reg, "t", 0, &src), 0);
    f->id[S_TX] =
        intern(f, "fabric_port_tx_bytes_total",
               (const char *const[]){"device", "leaf1", "port", "et-0/0/1", "role", "downlink",
                                     "rail", "0", "peer", "gpu-01:ens1f0np0", NULL});
    f->id[S_QUEUE] =
        intern(f, "fabric_port_queue_peak_bytes",
               (const char *const[]){"device", "leaf1", "port", "et-0/0/1", "queue", "3", NULL});
    f->id[S_BUF] = intern(f, "fabric_nic_rx_buffer_over_threshold_total",
                          (const char *const[]){"device", "b300-01", "port", "ens1f0np0", "node",
                                                "1", "card", "0", NULL});
    f->id[S_CNP] = intern(f, "fabric_nic_cnp_sent_total",
                          (const char *const[]){"device", "b300-01", "port", "ens1f0np0", NULL});
    f->id[S_ECN] =
        intern(f, "fabric_port_ecn_marked_packets_total",
               (const char *const[]){"device", "leaf1", "port", "et-0/0/1", "queue", "3", NULL});
    f->id[S_OOS] = intern(f, "fabric_nic_out_of_sequence_total",
                          (const char *const[]){"device", "b300-01", "port", "ens1f0np0", NULL});
    f->id[S_PAUSE] = intern(
        f, "fabric_port_pfc_rx_pause_seconds_total",
        (const char *const[]){"device", "b300-01", "port", "ens1f0np0", "priority", "3", NULL});
    f->id[S_FRAMES] =
        intern(f, "fabric_port_pfc_rx_pause_frames_total",
               (const char *const[]){"device", "leaf1", "port", "et-0/0/1", "priority", "3", NULL});
    f->id[S_CABLE] =
        intern(f, "fabric_cable_mismatch",
               (const char *const[]){"device", "b300-01", "port", "ens1f0np0", "kind", "address",
                                     "node", "1", "card", "0", "link", "1", "peer",
                                     "b300-02:ens1f0np0", "peer_node", "2", NULL});
    f->id[S_CABLE2] = intern(f, "fabric_cable_mismatch",
                             (const char *const[]){"device", "b300-01", "port", "ens1f0np0", "kind",
                                                   "peer", "node", "1", NULL});
    f->id[S_PCIE] = intern(f, "fabric_pcie_link_degraded",
                           (const char *const[]){"device", "b300-01", "port", "ens1f0np0", "pci",
                                                 "0000:03:00.0", NULL});
    f->id[S_RX] = intern(f, "fabric_port_rx_bytes_total",
                         (const char *const[]){"device", "leaf1", "port", "et-0/0/0", NULL});
    f->id[S_ODD] =
        intern(f, "fabric_port_rx_bytes_total",
               (const char *const[]){"device", "leaf\"1", "port", "et-0/0/0", "descr",
                                     "say \"hi\" \\ C:\\path\nline2\t\x01\xe2\x80\xa8", NULL});
    f->cx.reg = f->reg;
    f->cx.cfg = f->cfg;
    snprintf(f->cx.run_id, sizeof(f->cx.run_id), "3f9c0a17d2e45b61");
    return 0;
}

static void fx_close(struct fx *f)
{
    fsc_registry_destroy(f->reg);
    fsc_config_destroy(f->cfg);
}

static struct fsc_event ev_of(uint8_t kind, uint8_t phase, fsc_series_id series, uint8_t dir,
                              uint64_t seq)
{
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.seq = seq;
    ev.kind = kind;
    ev.phase = phase;
    ev.series = series;
    ev.direction = dir;
    return ev;
}

/* One event of every kind (and the phases that change the document), with
 * its exact document and key. */
struct known {
    struct fsc_event ev;
    const char *key;
    const char *json;
};

#define HEAD(seq, type, phase)                                                                     \
    "{\"schema\":\"fabricscope.event/1\",\"id\":\"3f9c0a17d2e45b61-" #seq "\",\"type\":\"" type    \
    "\",\"phase\":\"" phase "\","
#define T_START                                                                                    \
    "\"time_ns\":\"1700000000000000000\",\"time\":\"2023-11-14T22:13:20.000000000Z\",\"start_"     \
    "ns\":\"1700000000000000000\",\"start\":\"2023-11-14T22:13:20.000000000Z\""

static size_t known_events(struct fx *f, struct known *k)
{
    size_t n = 0;
    struct fsc_event ev;

    /* microburst END: 100 ms at line rate, with both context windows */
    ev = ev_of(FSC_EV_MICROBURST, FSC_EV_END, f->id[S_TX], FSC_DIR_TX, 1);
    ev.t_start_ns = T0 + 300 * MS;
    ev.t_end_ns = T0 + 400 * MS;
    fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, 0.998);
    fsc_event_add(&ev, FSC_EF_BYTES, 4.99e9);
    fsc_event_add_aux(&ev, FSC_EF_WINDOW_UTILIZATION, 0, 0.1);
    fsc_event_add_aux(&ev, FSC_EF_WINDOW_UTILIZATION, 1, 0.01);
    k[n++] = (struct known){
        ev, "leaf1/et-0/0/1",
        HEAD(1, "microburst",
             "end") "\"device\":\"leaf1\",\"port\":\"et-0/0/1\",\"direction\":\"tx\","
                    "\"metric\":\"fabric_port_tx_bytes_total\",\"labels\":{\"peer\":\"gpu-01:"
                    "ens1f0np0\","
                    "\"rail\":\"0\",\"role\":\"downlink\"},"
                    "\"time_ns\":\"1700000000400000000\",\"time\":\"2023-11-14T22:13:20."
                    "400000000Z\","
                    "\"start_ns\":\"1700000000300000000\",\"start\":\"2023-11-14T22:13:20."
                    "300000000Z\","
                    "\"end_ns\":\"1700000000400000000\",\"end\":\"2023-11-14T22:13:20.400000000Z\","
                    "\"duration_seconds\":0.1,\"peak_utilization\":0.998,\"bytes\":4990000000,"
                    "\"window_utilization\":{\"1s\":0.1,\"10s\":0.01}}"};

    /* burst START: no end, no windows yet */
    ev = ev_of(FSC_EV_BURST, FSC_EV_START, f->id[S_TX], FSC_DIR_TX, 2);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, 0.93);
    fsc_event_add(&ev, FSC_EF_BYTES, 5e10);
    k[n++] = (struct known){
        ev, "leaf1/et-0/0/1",
        HEAD(2, "burst", "start") "\"device\":\"leaf1\",\"port\":\"et-0/0/1\",\"direction\":\"tx\","
                                  "\"metric\":\"fabric_port_tx_bytes_total\",\"labels\":{\"peer\":"
                                  "\"gpu-01:ens1f0np0\","
                                  "\"rail\":\"0\",\"role\":\"downlink\"}," T_START
                                  ",\"peak_utilization\":0.93,\"bytes\":50000000000}"};

    ev = ev_of(FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT, f->id[S_QUEUE], FSC_DIR_NONE, 3);
    ev.t_start_ns = ev.t_end_ns = T0;
    fsc_event_add(&ev, FSC_EF_QUEUE_PEAK_BYTES, 108134400);
    fsc_event_add(&ev, FSC_EF_BUFFER_SHARE, 0.625);
    k[n++] = (struct known){
        ev, "leaf1/et-0/0/1",
        HEAD(3, "queue_peak", "instant") "\"device\":\"leaf1\",\"port\":\"et-0/0/1\","
                                         "\"metric\":\"fabric_port_queue_peak_bytes\",\"labels\":{"
                                         "\"queue\":\"3\"}," T_START
                                         ",\"end_ns\":\"1700000000000000000\",\"end\":\"2023-11-"
                                         "14T22:13:20.000000000Z\","
                                         "\"duration_seconds\":0,\"queue_peak_bytes\":108134400,"
                                         "\"buffer_share\":0.625}"};

    ev = ev_of(FSC_EV_BUFFER_THRESHOLD, FSC_EV_INSTANT, f->id[S_BUF], FSC_DIR_RX, 4);
    ev.t_start_ns = T0;
    ev.t_end_ns = T0 + 250 * MS;
    fsc_event_add(&ev, FSC_EF_CROSSINGS, 120);
    fsc_event_add(&ev, FSC_EF_CROSSINGS_PER_SECOND, 480);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(
            4, "buffer_threshold",
            "instant") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                       "\"direction\":\"rx\",\"metric\":\"fabric_nic_rx_buffer_over_threshold_"
                       "total\","
                       "\"labels\":{\"card\":\"0\",\"node\":\"1\"},"
                       "\"time_ns\":\"1700000000250000000\",\"time\":\"2023-11-14T22:13:20."
                       "250000000Z\","
                       "\"start_ns\":\"1700000000000000000\",\"start\":\"2023-11-14T22:13:20."
                       "000000000Z\","
                       "\"end_ns\":\"1700000000250000000\",\"end\":\"2023-11-14T22:13:20."
                       "250000000Z\","
                       "\"duration_seconds\":0.25,\"crossings\":120,\"crossings_per_second\":480}"};

    ev = ev_of(FSC_EV_CNP_SPIKE, FSC_EV_START, f->id[S_CNP], FSC_DIR_NONE, 5);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_RATE, 250000);
    fsc_event_add(&ev, FSC_EF_BASELINE_RATE, 1200.5);
    fsc_event_add(&ev, FSC_EF_COUNT, 75000);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(5, "cnp_spike",
             "start") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                      "\"metric\":\"fabric_nic_cnp_sent_total\",\"labels\":{}," T_START
                      ",\"peak_rate_per_second\":250000,\"baseline_rate_per_second\":1200.5,"
                      "\"count\":75000}"};

    ev = ev_of(FSC_EV_ECN_SPIKE, FSC_EV_UPDATE, f->id[S_ECN], FSC_DIR_TX, 6);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_RATE, 9000);
    fsc_event_add(&ev, FSC_EF_BASELINE_RATE, 10);
    fsc_event_add(&ev, FSC_EF_COUNT, 90000);
    k[n++] = (struct known){
        ev, "leaf1/et-0/0/1",
        HEAD(6, "ecn_spike",
             "update") "\"device\":\"leaf1\",\"port\":\"et-0/0/1\","
                       "\"direction\":\"tx\",\"metric\":\"fabric_port_ecn_marked_packets_total\","
                       "\"labels\":{\"queue\":\"3\"}," T_START
                       ",\"peak_rate_per_second\":9000,\"baseline_rate_per_second\":10,\"count\":"
                       "90000}"};

    ev = ev_of(FSC_EV_REORDER_SPIKE, FSC_EV_END, f->id[S_OOS], FSC_DIR_NONE, 7);
    ev.t_start_ns = T0 + 10 * NS;
    ev.t_end_ns = T0 + 13 * NS;
    fsc_event_add(&ev, FSC_EF_PEAK_RATE, 10000);
    fsc_event_add(&ev, FSC_EF_BASELINE_RATE, 20);
    fsc_event_add(&ev, FSC_EF_COUNT, 30000);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(7, "reorder_spike",
             "end") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                    "\"metric\":\"fabric_nic_out_of_sequence_total\",\"labels\":{},"
                    "\"time_ns\":\"1700000013000000000\",\"time\":\"2023-11-14T22:13:33."
                    "000000000Z\","
                    "\"start_ns\":\"1700000010000000000\",\"start\":\"2023-11-14T22:13:30."
                    "000000000Z\","
                    "\"end_ns\":\"1700000013000000000\",\"end\":\"2023-11-14T22:13:33.000000000Z\","
                    "\"duration_seconds\":3,\"peak_rate_per_second\":10000,\"baseline_rate_per_"
                    "second\":20,"
                    "\"count\":30000}"};

    /* PFC on paused time, then on pause frames */
    ev = ev_of(FSC_EV_PFC_STORM, FSC_EV_START, f->id[S_PAUSE], FSC_DIR_RX, 8);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_PAUSED_FRACTION, 0.45);
    fsc_event_add(&ev, FSC_EF_PAUSED_SECONDS, 0.135);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(8, "pfc_storm",
             "start") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                      "\"direction\":\"rx\",\"metric\":\"fabric_port_pfc_rx_pause_seconds_total\","
                      "\"labels\":{\"priority\":\"3\"}," T_START
                      ",\"peak_paused_fraction\":0.45,\"paused_seconds\":0.135}"};
    ev = ev_of(FSC_EV_PFC_STORM, FSC_EV_START, f->id[S_FRAMES], FSC_DIR_RX, 9);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_PAUSE_FRAMES_RATE, 25000);
    fsc_event_add(&ev, FSC_EF_PAUSE_FRAMES, 7500);
    k[n++] = (struct known){
        ev, "leaf1/et-0/0/1",
        HEAD(9, "pfc_storm",
             "start") "\"device\":\"leaf1\",\"port\":\"et-0/0/1\","
                      "\"direction\":\"rx\",\"metric\":\"fabric_port_pfc_rx_pause_frames_total\","
                      "\"labels\":{\"priority\":\"3\"}," T_START
                      ",\"peak_pause_frames_per_second\":25000,\"pause_frames\":7500}"};

    /* imbalance: a group of one device, then one across devices */
    ev = ev_of(FSC_EV_UPLINK_IMBALANCE, FSC_EV_START, FSC_SERIES_NONE, FSC_DIR_TX, 10);
    ev.group = 0;
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_PEAK_IMBALANCE, 2);
    fsc_event_add(&ev, FSC_EF_WINDOWS_ABOVE, 3);
    fsc_event_add(&ev, FSC_EF_MEAN_UTILIZATION_AT_START, 0.3);
    k[n++] = (struct known){
        ev, "leaf1/leaf1-uplinks",
        HEAD(10, "uplink_imbalance",
             "start") "\"device\":\"leaf1\",\"port\":\"leaf1-uplinks\","
                      "\"direction\":\"tx\",\"group\":\"leaf1-uplinks\",\"labels\":{}," T_START
                      ",\"peak_imbalance_ratio\":2,\"windows_above\":3,\"mean_utilization_at_"
                      "start\":0.3}"};
    ev.seq = 11;
    ev.group = 1;
    k[n++] = (struct known){
        ev, "/mixed",
        HEAD(11, "uplink_imbalance",
             "start") "\"device\":\"\",\"port\":\"mixed\","
                      "\"direction\":\"tx\",\"group\":\"mixed\",\"labels\":{}," T_START
                      ",\"peak_imbalance_ratio\":2,\"windows_above\":3,\"mean_utilization_at_"
                      "start\":0.3}"};

    /* cable mismatch: address (host has 10.112.1.5/24, plan 10.112.1.1/30), peer */
    ev = ev_of(FSC_EV_CABLE_MISMATCH, FSC_EV_START, f->id[S_CABLE], FSC_DIR_NONE, 12);
    ev.t_start_ns = T0;
    fsc_event_add_aux(&ev, FSC_EF_PLANNED_ADDRESS, 30, (10u << 24) | (112u << 16) | (1u << 8) | 1u);
    fsc_event_add_aux(&ev, FSC_EF_ADDRESS, 24, (10u << 24) | (112u << 16) | (1u << 8) | 5u);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(12, "cable_mismatch",
             "start") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                      "\"metric\":\"fabric_cable_mismatch\",\"labels\":{\"card\":\"0\",\"link\":"
                      "\"1\","
                      "\"node\":\"1\",\"peer\":\"b300-02:ens1f0np0\",\"peer_node\":\"2\"}," T_START
                      ",\"mismatch\":\"address\",\"planned_address\":\"10.112.1.1/30\","
                      "\"address\":\"10.112.1.5/24\"}"};
    ev = ev_of(FSC_EV_CABLE_MISMATCH, FSC_EV_END, f->id[S_CABLE2], FSC_DIR_NONE, 13);
    ev.t_start_ns = T0;
    ev.t_end_ns = T0 + 20 * NS;
    fsc_event_add(&ev, FSC_EF_PEER_ADDRESS, (10u << 24) | (112u << 16) | (1u << 8) | 2u);
    fsc_event_add(&ev, FSC_EF_NEIGHBOUR, 2); /* elsewhere */
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(13, "cable_mismatch",
             "end") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                    "\"metric\":\"fabric_cable_mismatch\",\"labels\":{\"node\":\"1\"},"
                    "\"time_ns\":\"1700000020000000000\",\"time\":\"2023-11-14T22:13:40."
                    "000000000Z\","
                    "\"start_ns\":\"1700000000000000000\",\"start\":\"2023-11-14T22:13:20."
                    "000000000Z\","
                    "\"end_ns\":\"1700000020000000000\",\"end\":\"2023-11-14T22:13:40.000000000Z\","
                    "\"duration_seconds\":20,\"mismatch\":\"peer\",\"peer_address\":\"10.112.1.2\","
                    "\"neighbour\":\"elsewhere\"}"};

    ev = ev_of(FSC_EV_PCIE_DEGRADED, FSC_EV_START, f->id[S_PCIE], FSC_DIR_NONE, 14);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_SPEED_GTS, 32);
    fsc_event_add(&ev, FSC_EF_MAX_SPEED_GTS, 64);
    fsc_event_add(&ev, FSC_EF_WIDTH, 8);
    fsc_event_add(&ev, FSC_EF_MAX_WIDTH, 16);
    k[n++] = (struct known){
        ev, "b300-01/ens1f0np0",
        HEAD(14, "pcie_degraded",
             "start") "\"device\":\"b300-01\",\"port\":\"ens1f0np0\","
                      "\"metric\":\"fabric_pcie_link_degraded\",\"labels\":{\"pci\":\"0000:03:00."
                      "0\"}," T_START
                      ",\"speed_gts\":32,\"max_speed_gts\":64,\"width\":8,\"max_width\":16}"};

    ev = ev_of(FSC_EV_COUNTER_RESET, FSC_EV_INSTANT, f->id[S_RX], FSC_DIR_RX, 15);
    ev.t_start_ns = ev.t_end_ns = T0;
    fsc_event_add(&ev, FSC_EF_VALUE_BEFORE, 9007199254740993.0); /* 2^53 + 1 rounds to 2^53 */
    fsc_event_add(&ev, FSC_EF_VALUE_AFTER, 37);
    fsc_event_add(&ev, FSC_EF_HELD_BACK_RESETS, 4);
    fsc_event_add(&ev, FSC_EF_CAUSE, 1);
    k[n++] = (struct known){ev, "leaf1/et-0/0/0",
                            HEAD(15, "counter_reset",
                                 "instant") "\"device\":\"leaf1\",\"port\":\"et-0/0/0\","
                                            "\"direction\":\"rx\",\"metric\":\"fabric_port_rx_"
                                            "bytes_total\",\"labels\":{}," T_START
                                            ",\"end_ns\":\"1700000000000000000\",\"end\":\"2023-11-"
                                            "14T22:13:20.000000000Z\","
                                            "\"duration_seconds\":0,\"value_before\":"
                                            "9007199254740992,\"value_after\":37,"
                                            "\"held_back_resets\":4,\"cause\":\"reset_evidence\"}"};

    /* stream down: START (call ended with UNAVAILABLE), END after 2.5 s */
    ev = ev_of(FSC_EV_STREAM_DOWN, FSC_EV_START, FSC_SERIES_NONE, FSC_DIR_NONE, 16);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_REASON, FSC_STREAM_DOWN_CALL_ENDED);
    fsc_event_add(&ev, FSC_EF_GRPC_STATUS, 14);
    snprintf(ev.subject, sizeof(ev.subject), "leaf1-gnmi/interfaces");
    k[n++] = (struct known){
        ev, "leaf1/leaf1-gnmi/interfaces",
        HEAD(16, "stream_down",
             "start") "\"device\":\"leaf1\",\"port\":\"leaf1-gnmi/interfaces\","
                      "\"source\":\"leaf1-gnmi\",\"stream\":\"interfaces\",\"labels\":{}," T_START
                      ",\"reason\":\"call_ended\",\"grpc_status\":14}"};
    ev.seq = 17;
    ev.phase = FSC_EV_END;
    ev.t_end_ns = T0 + 2500 * MS;
    ev.n_fields = 0;
    fsc_event_add(&ev, FSC_EF_REASON, FSC_STREAM_DOWN_STALLED); /* no gRPC status */
    fsc_event_add(&ev, FSC_EF_FAILED_CALLS, 3);
    k[n++] = (struct known){
        ev, "leaf1/leaf1-gnmi/interfaces",
        HEAD(17, "stream_down",
             "end") "\"device\":\"leaf1\",\"port\":\"leaf1-gnmi/interfaces\","
                    "\"source\":\"leaf1-gnmi\",\"stream\":\"interfaces\",\"labels\":{},"
                    "\"time_ns\":\"1700000002500000000\",\"time\":\"2023-11-14T22:13:22."
                    "500000000Z\","
                    "\"start_ns\":\"1700000000000000000\",\"start\":\"2023-11-14T22:13:20."
                    "000000000Z\","
                    "\"end_ns\":\"1700000002500000000\",\"end\":\"2023-11-14T22:13:22.500000000Z\","
                    "\"duration_seconds\":2.5,\"reason\":\"stalled\",\"failed_calls\":3}"};
    return n;
}

#define N_KNOWN 17

static void every_kind_exact(void)
{
    struct fx f;
    struct known k[N_KNOWN + 1];
    char out[4096], key[256];
    unsigned seen = 0;

    if (fx_open(&f) != 0) {
        fx_close(&f);
        return;
    }
    size_t n = known_events(&f, k);
    CHECK_INT(n, N_KNOWN);
    for (size_t i = 0; i < n; i++) {
        int len = fsc_kafka_event_encode(&f.cx, &k[i].ev, out, sizeof(out), key, sizeof(key));
        CHECK_INT(len, (long long)strlen(k[i].json));
        CHECK_STR(out, k[i].json);
        CHECK_STR(key, k[i].key);
        seen |= 1u << k[i].ev.kind;
    }
    CHECK_INT(seen, (1u << FSC_EV__COUNT) - 1); /* every kind has a case */
    fx_close(&f);
}

/* Label values with quotes, backslashes, control characters and U+2028 are
 * escaped; so is a device name in the key's document (the key itself is raw
 * bytes: Kafka keys are not JSON). */
static void escaping(void)
{
    struct fx f;
    char out[2048], key[256];
    if (fx_open(&f) != 0) {
        fx_close(&f);
        return;
    }
    struct fsc_event ev = ev_of(FSC_EV_COUNTER_RESET, FSC_EV_INSTANT, f.id[S_ODD], FSC_DIR_RX, 9);
    ev.t_start_ns = ev.t_end_ns = T0;
    fsc_event_add(&ev, FSC_EF_VALUE_BEFORE, 100);
    fsc_event_add(&ev, FSC_EF_VALUE_AFTER, 0);
    int len = fsc_kafka_event_encode(&f.cx, &ev, out, sizeof(out), key, sizeof(key));
    CHECK(len > 0);
    CHECK_STR(key, "leaf\"1/et-0/0/0");
    CHECK(strstr(out, "\"device\":\"leaf\\\"1\",") != NULL);
    CHECK(strstr(out, "\"labels\":{\"descr\":\"say \\\"hi\\\" \\\\ C:\\\\path\\nline2\\t\\u0001"
                      "\\u2028\"}") != NULL);

    /* The writer on its own: every escape, invalid UTF-8, valid multibyte
     * (DEL is escaped since the writers became one: base/json_write.h). */
    struct fsc_buf b;
    struct fsc_json w;
    fsc_buf_fixed(&b, out, sizeof(out));
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    static const char raw[] = "a\"b\\c\b\f\n\r\t\x1f\x7f"
                              "\xc3\xa9"         /* é */
                              "\xf0\x9f\x98\x80" /* U+1F600 */
                              "\xe2\x80\xa9"     /* U+2029 */
                              "\xc0\xaf"         /* overlong '/' */
                              "\xed\xa0\x80"     /* a surrogate */
                              "\xf4\x90\x80\x80" /* above U+10FFFF */
                              "\xe2\x82";        /* cut short: 11 bad bytes in all */
    fsc_json_strn(&w, "k\n", raw, sizeof(raw) - 1);
    fsc_json_object(&w, "o");
    fsc_json_end(&w);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    len = (int)b.len;
    const char *want =
        "{\"k\\n\":\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u001f\\u007f\xc3\xa9\xf0\x9f\x98\x80"
        "\\u2029\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
        "\",\"o\":{}}";
    CHECK_STR(out, want);
    CHECK_INT(len, (long long)strlen(want));
    fx_close(&f);
}

/* Every size below the document's length + 1 answers -E2BIG and leaves a
 * NUL-terminated prefix; the exact size works. A key that does not fit is
 * -E2BIG too. Unknown kinds and phases are refused. */
static void bounds(void)
{
    struct fx f;
    struct known k[N_KNOWN + 1];
    char out[4096], key[256], small[4096];
    if (fx_open(&f) != 0) {
        fx_close(&f);
        return;
    }
    known_events(&f, k);
    for (size_t i = 0; i < N_KNOWN; i += 4) {
        size_t want = strlen(k[i].json);
        for (size_t cap = 0; cap <= want; cap++) {
            memset(small, 'x', sizeof(small));
            int rc = fsc_kafka_event_encode(&f.cx, &k[i].ev, small, cap, key, sizeof(key));
            CHECK_INT(rc, -E2BIG);
            if (cap > 0)
                CHECK(memchr(small, '\0', cap) != NULL);
            CHECK(small[cap] == 'x'); /* nothing written past cap */
        }
        CHECK_INT(fsc_kafka_event_encode(&f.cx, &k[i].ev, small, want + 1, key, sizeof(key)),
                  (long long)want);
        CHECK_STR(small, k[i].json);
        size_t klen = strlen(k[i].key);
        CHECK_INT(fsc_kafka_event_encode(&f.cx, &k[i].ev, out, sizeof(out), key, klen), -E2BIG);
        CHECK_INT(fsc_kafka_event_encode(&f.cx, &k[i].ev, out, sizeof(out), key, klen + 1),
                  (long long)want);
    }
    struct fsc_event bad = k[0].ev;
    bad.kind = FSC_EV__COUNT;
    CHECK_INT(fsc_kafka_event_encode(&f.cx, &bad, out, sizeof(out), key, sizeof(key)), -EINVAL);
    bad = k[0].ev;
    bad.phase = 4;
    CHECK_INT(fsc_kafka_event_encode(&f.cx, &bad, out, sizeof(out), key, sizeof(key)), -EINVAL);

    /* Writer misuse: unbalanced, a second top-level value, too deep. */
    struct fsc_buf b;
    struct fsc_json w;
    fsc_buf_fixed(&b, out, sizeof(out));
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_buf_fixed(&b, out, sizeof(out));
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_end(&w);
    fsc_json_object(&w, NULL);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_buf_fixed(&b, out, sizeof(out));
    fsc_json_start(&w, &b);
    for (int d = 0; d <= FSC_JSON_DEPTH; d++)
        fsc_json_object(&w, d ? "a" : NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fx_close(&f);
}

/* Without a registry or a config: the series by number, groups by number,
 * windows by level, a stream's device is its source. */
static void without_registry_or_config(void)
{
    struct fsc_kafka_event_json cx = {.reg = NULL, .cfg = NULL};
    char out[2048], key[256];
    snprintf(cx.run_id, sizeof(cx.run_id), "0000000000000001");

    struct fsc_event ev =
        ev_of(FSC_EV_MICROBURST, FSC_EV_END, 42, FSC_DIR_RX, 18446744073709551615ull);
    ev.t_start_ns = T0;
    ev.t_end_ns = T0 + 1 * MS;
    fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, 1);
    fsc_event_add(&ev, FSC_EF_BYTES, 50000000);
    fsc_event_add_aux(&ev, FSC_EF_WINDOW_UTILIZATION, 0, 0.05);
    CHECK(fsc_kafka_event_encode(&cx, &ev, out, sizeof(out), key, sizeof(key)) > 0);
    CHECK_STR(key, "/");
    CHECK(strstr(out, "\"id\":\"0000000000000001-18446744073709551615\"") != NULL);
    CHECK(strstr(out, "\"device\":\"\",\"port\":\"\",\"direction\":\"rx\",\"series\":42,"
                      "\"labels\":{},") != NULL);
    CHECK(strstr(out, "\"duration_seconds\":0.001,") != NULL);
    CHECK(strstr(out, "\"window_utilization\":{\"level0\":0.05}}") != NULL);

    ev = ev_of(FSC_EV_UPLINK_IMBALANCE, FSC_EV_END, FSC_SERIES_NONE, FSC_DIR_NONE, 2);
    ev.group = 7;
    ev.t_start_ns = T0;
    ev.t_end_ns = T0 + 30 * NS;
    CHECK(fsc_kafka_event_encode(&cx, &ev, out, sizeof(out), key, sizeof(key)) > 0);
    CHECK_STR(key, "/7");
    CHECK(strstr(out, "\"device\":\"\",\"port\":\"7\",\"group\":\"7\",\"labels\":{}") != NULL);

    ev = ev_of(FSC_EV_STREAM_DOWN, FSC_EV_START, FSC_SERIES_NONE, FSC_DIR_NONE, 3);
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_REASON, FSC_STREAM_DOWN_CONNECT_TIMEOUT);
    snprintf(ev.subject, sizeof(ev.subject), "spine9/oper");
    CHECK(fsc_kafka_event_encode(&cx, &ev, out, sizeof(out), key, sizeof(key)) > 0);
    CHECK_STR(key, "spine9/spine9/oper");
    CHECK(strstr(out, "\"reason\":\"connect_timeout\"}") != NULL);
    CHECK(strstr(out, "grpc_status") == NULL);
}

/* Shortest round-trip numbers (base/numfmt.h: the subnormal 5e-324 is
 * "5e-324", the shortest text that reads back, not %.15g's
 * "4.94065645841247e-324"); non-finite numbers are null. */
static void numbers(void)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0.1, "0.1"},
        {1.0 / 3.0, "0.3333333333333333"},
        {100000000.0 / 1e9, "0.1"},
        {9007199254740992.0, "9007199254740992"},
        {1e21, "1e+21"},
        {-2.5e-7, "-2.5e-07"},
        {5e-324, "5e-324"},
        {0.0, "0"},
    };
    char buf[FSC_NUM_MAX + 1];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = fsc_fmt_double(buf, cases[i].v);
        buf[n] = '\0';
        CHECK_STR(buf, cases[i].want);
        CHECK_INT(n, (long long)strlen(cases[i].want));
    }
    char out[128];
    struct fsc_buf b;
    struct fsc_json w;
    fsc_buf_fixed(&b, out, sizeof(out));
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_num(&w, "nan", NAN);
    fsc_json_num(&w, "inf", -INFINITY);
    fsc_json_int(&w, "min", INT64_MIN);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    CHECK_STR(out, "{\"nan\":null,\"inf\":null,\"min\":-9223372036854775808}");
}

/* Writes the documents of every_kind_exact, one per line, to argv[2]. */
static int dump(const char *path)
{
    struct fx f;
    struct known k[N_KNOWN + 1];
    char out[4096], key[256];
    FILE *fp = fopen(path, "w");
    if (!fp || fx_open(&f) != 0) {
        perror(path);
        return 1;
    }
    size_t n = known_events(&f, k);
    for (size_t i = 0; i < n; i++)
        if (fsc_kafka_event_encode(&f.cx, &k[i].ev, out, sizeof(out), key, sizeof(key)) > 0)
            fprintf(fp, "%s\n", out);
    fx_close(&f);
    return fclose(fp) == 0 && test_failures == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {TEST(every_kind_exact), TEST(escaping), TEST(bounds),
                                             TEST(without_registry_or_config), TEST(numbers)};
    if (argc == 3 && strcmp(argv[1], "dump") == 0)
        return dump(argv[2]);
    return test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
