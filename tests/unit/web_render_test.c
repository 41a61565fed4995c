/* The web module's renderers (exporters/web/web_model.h): known models in,
 * exact JSON documents and exact HTML rows out; every document valid JSON
 * for jansson; hostile label values escaped everywhere on the
 * page; the page references no external resource. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "daemon/plugins.h"
#include "test.h"
#include "unit/view_fixture.h"
#include "web/web_conditions.h"
#include "web/web_model.h"

#define NS 1000000000LL
#define MS 1000000LL
#define T0 (1700000000LL * NS) /* 2023-11-14T22:13:20Z */

static int json_valid(const char *text)
{
    json_error_t e;
    json_t *j =
        text ? json_loads(text, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &e)
             : NULL;
    json_decref(j);
    return j != NULL;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- the known models ---------------------------------------------------------- */

static struct fsc_source_status sources[2] = {
    {"leaf1", "gnmi", "running", 1, 12},
    {"spine<1>", "otlp", "disabled", 0, 0},
};
/* Two gNMI streams and an OTLP receiver, as those sources' real tables
 * (base/stats.h) report them. */
static const struct fsc_stat_table *tables[3];
static struct fsc_web_stat_row stat_row[3];

static void row_set(struct fsc_web_stat_row *r, const char *id, double v)
{
    for (size_t c = 0; c < r->table->n_cols; c++)
        if (strcmp(r->table->cols[c].id, id) == 0)
            r->values[c] = v;
}

static void stat_rows(void)
{
    tables[0] = vfx_table("gnmi_streams");
    tables[1] = vfx_table("otlp_receivers");
    tables[2] = NULL;
    memset(stat_row, 0, sizeof(stat_row));
    for (size_t i = 0; i < 3; i++) {
        stat_row[i].table = tables[i < 2 ? 0 : 1];
        for (size_t c = 0; c < FSC_WEB_STAT_COLS; c++)
            stat_row[i].values[c] = NAN;
    }
    strcpy(stat_row[0].keys[0], "leaf1");
    strcpy(stat_row[0].keys[1], "interfaces");
    const struct vfx_val s0[] = {{"state", 1},
                                 {"up", 1},
                                 {"sync_seen", 1},
                                 {"last_update_age_seconds", 0.25},
                                 {"cadence_seconds", 0.1},
                                 {"jitter_seconds", 0.012},
                                 {"messages", 100},
                                 {"updates", 2000},
                                 {"decode_errors", 0},
                                 {"sequence_gaps", 1},
                                 {"reconnects", 2},
                                 {"resubscribes", 3},
                                 {"label_names_hashed", 4},
                                 {"zero_filled", 5}};
    for (size_t k = 0; k < sizeof(s0) / sizeof(s0[0]); k++)
        row_set(&stat_row[0], s0[k].id, s0[k].v);
    strcpy(stat_row[1].keys[0], "leaf1");
    strcpy(stat_row[1].keys[1], "queues");
    const struct vfx_val s1[] = {{"state", 0},         {"up", 0},
                                 {"sync_seen", 0},     {"messages", 0},
                                 {"updates", 0},       {"decode_errors", 0},
                                 {"sequence_gaps", 0}, {"reconnects", 0},
                                 {"resubscribes", 0},  {"label_names_hashed", 0},
                                 {"zero_filled", 0}};
    for (size_t k = 0; k < sizeof(s1) / sizeof(s1[0]); k++)
        row_set(&stat_row[1], s1[k].id, s1[k].v);
    strcpy(stat_row[2].keys[0], "spine<1>");
    strcpy(stat_row[2].keys[1], "http");
    const struct vfx_val r0[] = {{"port", 4318},
                                 {"requests", 5},
                                 {"ok", 3},
                                 {"partial", 1},
                                 {"bad_request", 1},
                                 {"too_large", 0},
                                 {"errors", 0},
                                 {"points", 300},
                                 {"rejected_points", 7},
                                 {"received_bytes", 2048},
                                 {"skipped_other_shard", 0},
                                 {"skipped_no_recorded_value", 0}};
    for (size_t k = 0; k < sizeof(r0) / sizeof(r0[0]); k++)
        row_set(&stat_row[2], r0[k].id, r0[k].v);
}

static void status_model(struct fsc_web_status *st)
{
    memset(st, 0, sizeof(*st));
    stat_rows();
    st->now_ns = T0;
    st->sources = sources;
    st->n_sources = 2;
    st->tables = tables;
    st->rows = stat_row;
    st->n_rows = 3;
    st->series = 40;
    st->samples = 1000;
    st->events_by_kind[FSC_EV_MICROBURST] = 2;
    st->events_by_kind[FSC_EV_CNP_SPIKE] = 1;
    st->n_windows = 2;
    st->window_ns[0] = NS;
    st->window_ns[1] = 10 * NS;
}

static struct fsc_web_port_row port_rows[2] = {
    {"leaf1",
     "et-0/0/1",
     400000000000ull,
     1,
     0.987654,
     FSC_DIR_TX,
     10 * NS,
     {1, 1},
     {12500000000.0, 50000000000.0},
     {0.25, 1.0},
     3,
     1},
    {"leaf2", "p<&>", 0, 0, 0, 0, 0, {1, 0}, {1000, 0}, {-1, -1}, 0, 0},
};

static void events_model(struct fsc_web_events *evs, struct fsc_web_event_row rows[2])
{
    memset(rows, 0, 2 * sizeof(*rows));
    rows[0].ev = (struct fsc_event){.seq = 7,
                                    .kind = FSC_EV_MICROBURST,
                                    .phase = FSC_EV_END,
                                    .direction = FSC_DIR_TX,
                                    .series = 3,
                                    .t_start_ns = T0 + 100 * MS,
                                    .t_end_ns = T0 + 200 * MS,
                                    .n_fields = 2,
                                    .field_id = {FSC_EF_PEAK_UTILIZATION, FSC_EF_BYTES},
                                    .field_value = {0.98, 5e9}};
    rows[0].device = "leaf1";
    rows[0].port = "et-0/0/1";
    rows[0].labels[0] = (struct fsc_label){"device", "leaf1"};
    rows[0].labels[1] = (struct fsc_label){"port", "et-0/0/1"};
    rows[0].n_labels = 2;
    rows[1].ev = (struct fsc_event){.seq = 6,
                                    .kind = FSC_EV_CABLE_MISMATCH,
                                    .phase = FSC_EV_START,
                                    .series = 9,
                                    .t_start_ns = T0};
    rows[1].device = "b300-01";
    rows[1].port = "ens1f1np1";
    rows[1].mismatch = "missing";
    rows[1].labels[0] = (struct fsc_label){"card", "0"};
    rows[1].labels[1] = (struct fsc_label){"device", "b300-01"};
    rows[1].labels[2] = (struct fsc_label){"kind", "missing"};
    rows[1].labels[3] = (struct fsc_label){"port", "ens1f1np1"};
    rows[1].n_labels = 4;
    *evs = (struct fsc_web_events){.published = 7, .lost = 0, .kept = 2, .rows = rows, .n_rows = 2};
}

/* Health: the demo's swapped cables and degraded PCIe link shown, two
 * CNP storms more counted, one recent queue peak; text by the real
 * sentence writer (web_health_test.c checks the sentences themselves). */
static struct fsc_web_hline h_active[2], h_recent[1];

static void health_model(struct fsc_web_health *hm)
{
    struct fsc_engine_config e;
    fsc_engine_config_defaults(&e);
    struct fsc_web_hnames names = {.node = {NULL, NULL, "b300-02", "b300-03", "b300-04"}};
    memset(h_active, 0, sizeof(h_active));
    memset(h_recent, 0, sizeof(h_recent));
    struct fsc_web_hcond *c = &h_active[0].c;
    c->f = (struct fsc_web_hfact){.kind = FSC_WEB_HK_CABLES_SWAPPED,
                                  .device = "b300-04",
                                  .node = 4,
                                  .since_ns = T0 - 200 * NS};
    *c = (struct fsc_web_hcond){.f = c->f,
                                .swap_port = {4, 5},
                                .swap_if = {{"ens6f0np0", "ens6f1np1"}, {"ens1f0np0", "ens1f1np1"}},
                                .swap_peer_node = {3, 2},
                                .swap_peer_port = {4, 5},
                                .folded = 8};
    fsc_web_condition_text(c, &names, &e, T0, &h_active[0].t);
    c = &h_active[1].c;
    c->f = (struct fsc_web_hfact){.kind = FSC_WEB_HK_PCIE,
                                  .device = "b300-01",
                                  .port = "ens7f0np0",
                                  .since_ns = T0 - 200 * NS,
                                  .has_ev = 1};
    fsc_event_add(&c->f.ev, FSC_EF_SPEED_GTS, 32);
    fsc_event_add(&c->f.ev, FSC_EF_MAX_SPEED_GTS, 64);
    fsc_event_add(&c->f.ev, FSC_EF_WIDTH, 8);
    fsc_event_add(&c->f.ev, FSC_EF_MAX_WIDTH, 16);
    fsc_web_condition_text(c, &names, &e, T0, &h_active[1].t);
    c = &h_recent[0].c;
    c->f = (struct fsc_web_hfact){.kind = FSC_WEB_HK_QUEUE_PEAK,
                                  .direction = FSC_DIR_TX,
                                  .ended = true,
                                  .device = "leaf2",
                                  .port = "et-0/0/3",
                                  .queue = "3",
                                  .since_ns = T0 - 30 * NS,
                                  .end_ns = T0 - 30 * NS,
                                  .has_ev = 1};
    fsc_event_add(&c->f.ev, FSC_EF_QUEUE_PEAK_BYTES, 108134400);
    fsc_event_add(&c->f.ev, FSC_EF_BUFFER_SHARE, 0.625);
    fsc_web_condition_text(c, &names, &e, T0, &h_recent[0].t);
    memset(hm, 0, sizeof(*hm));
    hm->now_ns = T0;
    hm->n_active = 4;
    hm->n_recent = 1;
    hm->recent_ns = 600 * NS;
    hm->by_kind[FSC_WEB_HK_CABLES_SWAPPED] = 1;
    hm->by_kind[FSC_WEB_HK_PCIE] = 1;
    hm->by_kind[FSC_WEB_HK_CNP_SPIKE] = 2;
    hm->active = h_active;
    hm->n_active_shown = 2;
    hm->recent = h_recent;
    hm->n_recent_shown = 1;
}

static void health_json_exact(void)
{
    struct fsc_web_health hm;
    struct fsc_buf b = {0};
    health_model(&hm);
    CHECK_INT(fsc_web_json_health(&hm, &b), 0);
    CHECK(json_valid(b.data));
    CHECK_STR(
        b.data,
        "{\"time\":\"2023-11-14T22:13:20.000Z\",\"summary\":\"4 active: Cables swapped 1, "
        "PCIe degraded 1, CNP storm 2 \xc2\xb7 1 in the last 10 minutes\",\"active_total\":4,"
        "\"recent_total\":1,"
        "\"recent_seconds\":600,\"incomplete\":false,\"by_kind\":{\"cables_swapped\":1,"
        "\"pcie_degraded\":1,\"cnp_spike\":2},\"active\":[{\"kind\":\"cables_swapped\","
        "\"severity\":\"error\",\"title\":\"Cables swapped\",\"device\":\"b300-04\","
        "\"port\":null,\"ports\":[\"ens6f0np0\",\"ens6f1np1\",\"ens1f0np0\","
        "\"ens1f1np1\"],\"physical_ports\":[4,5],\"peer\":null,\"direction\":null,"
        "\"name\":null,\"since\":\"2023-11-14T22:10:00.000Z\",\"end\":null,"
        "\"age_seconds\":200,\"what\":\"b300-04 port 4 (ens6f0np0, ens6f1np1) and port 5 "
        "(ens1f0np0, ens1f1np1) look swapped: each reaches the other's planned peer\","
        "\"when_text\":\"2023-11-14 22:10:00 UTC\",\"age_text\":\"3 m 20 s\","
        "\"measure\":\"planned: port 4 to b300-03 port 4, port 5 to b300-02 port 5; 8 "
        "interfaces at both ends get no answer from their planned peer\",\"check\":\"ports "
        "4 and 5 of b300-04 against the cable plan (fabricscope plan), and swap the two "
        "cables\",\"sentence\":\"b300-04 port 4 (ens6f0np0, ens6f1np1) and port 5 "
        "(ens1f0np0, ens1f1np1) look swapped: each reaches the other's planned peer, since "
        "2023-11-14 22:10:00 UTC (for 3 m 20 s): planned: port 4 to b300-03 port 4, port 5 "
        "to b300-02 port 5; 8 interfaces at both ends get no answer from their planned "
        "peer. Check ports 4 and 5 of b300-04 against the cable plan (fabricscope plan), and "
        "swap the two cables.\"},{\"kind\":\"pcie_degraded\",\"severity\":\"error\","
        "\"title\":\"PCIe degraded\",\"device\":\"b300-01\",\"port\":\"ens7f0np0\","
        "\"peer\":null,\"direction\":null,\"name\":null,\"since\":"
        "\"2023-11-14T22:10:00.000Z\",\"end\":null,\"age_seconds\":200,\"what\":"
        "\"b300-01 ens7f0np0: NIC's PCIe link degraded\",\"when_text\":\"2023-11-14 "
        "22:10:00 UTC\",\"age_text\":\"3 m 20 s\",\"measure\":\"trained at 32 GT/s x8 "
        "against its maximum 64 GT/s x16\",\"check\":\"the NIC's seating, slot and riser, "
        "and the BIOS PCIe settings\",\"sentence\":\"b300-01 ens7f0np0: NIC's PCIe link "
        "degraded, since 2023-11-14 22:10:00 UTC (for 3 m 20 s): trained at 32 GT/s x8 "
        "against its maximum 64 GT/s x16. Check the NIC's seating, slot and riser, and the "
        "BIOS PCIe settings.\"}],\"recent\":[{\"kind\":\"queue_peak\",\"severity\":"
        "\"warning\",\"title\":\"Queue peak\",\"device\":\"leaf2\",\"port\":"
        "\"et-0/0/3\",\"peer\":null,\"direction\":\"tx\",\"name\":null,\"since\":"
        "\"2023-11-14T22:12:50.000Z\",\"end\":\"2023-11-14T22:12:50.000Z\","
        "\"age_seconds\":30,\"what\":\"leaf2 et-0/0/3 (tx, queue 3): queue peak\","
        "\"when_text\":\"2023-11-14 22:12:50 UTC\",\"age_text\":\"30 s\",\"measure\":"
        "\"108.1 MB, 62.5 % of the buffer against 50.0 %\",\"check\":\"incast toward this "
        "port; the peer's counters say which side bursts\",\"sentence\":\"leaf2 et-0/0/3 "
        "(tx, queue 3): queue peak at 2023-11-14 22:12:50 UTC (30 s ago): 108.1 MB, 62.5 % of "
        "the buffer against 50.0 %. Check incast toward this port; the peer's counters say "
        "which side bursts.\"}]}");
    fsc_buf_free(&b);
}

static struct fsc_web_point rx_pts[2] = {{T0 - NS, 0.25f}, {T0 - 900 * MS, 0.3f}};
static struct fsc_web_point tx_pts[1] = {{T0 - NS, 1.0f}};
static struct fsc_web_marker markers[2] = {
    {T0 - NS, T0 - 900 * MS, 0.99, FSC_EV_MICROBURST, FSC_DIR_TX},
    {T0 - 500 * MS, 0, 0.8, FSC_EV_BURST, FSC_DIR_RX},
};

static void chart_model(struct fsc_web_chart *c)
{
    memset(c, 0, sizeof(*c));
    c->device = "leaf1";
    c->port = "et-0/0/1";
    c->speed_bps = 400000000000ull;
    c->tracked = 1;
    c->tracked_since_ns = T0 - 60 * NS;
    c->t_from_ns = T0 - 10 * NS;
    c->t_to_ns = T0;
    c->rise = 0.7;
    c->points[0] = rx_pts;
    c->n_points[0] = 2;
    c->points[1] = tx_pts;
    c->n_points[1] = 1;
    c->markers = markers;
    c->n_markers = 2;
}

static void mesh_model(struct fsc_web_mesh *m)
{
    memset(m, 0, sizeof(*m));
    m->from_plan = 1;
    m->n_nodes = 2;
    m->nodes[0] = (struct fsc_web_mesh_node){1, "b300-01", 1};
    m->nodes[1] = (struct fsc_web_mesh_node){2, "node2", 0};
    m->n_links = 2;
    m->links[0] = (struct fsc_web_mesh_link){{1, "ens1f0np0", 1, 12500000000.0, 25000000000.0, 0},
                                             {2, "ens1f0np0", 0, 0, 0, 0},
                                             1,
                                             400000000000ull,
                                             0.5};
    m->links[1] = (struct fsc_web_mesh_link){{1, "ens1f1np1", 0, 0, 0, 1u << FSC_WEB_MM_MISSING},
                                             {2, "ens1f1np1", 0, 0, 0, 0},
                                             2,
                                             400000000000ull,
                                             -1};
}

/* ---- JSON ------------------------------------------------------------------------- */

static void status_json_exact(void)
{
    struct fsc_web_status st;
    struct fsc_buf b = {0};
    status_model(&st);
    CHECK_INT(fsc_web_json_status(&st, &b), 0);
    CHECK_STR(
        b.data,
        "{\"time\":\"2023-11-14T22:13:20.000Z\",\"engine\":{\"series\":40,\"samples\":1000,"
        "\"windows\":[\"1s\",\"10s\"],\"events_total\":{\"microburst\":2,\"cnp_spike\":1}},"
        "\"sources\":[{\"name\":\"leaf1\",\"type\":\"gnmi\",\"state\":\"running\",\"up\":true,"
        "\"series\":12},{\"name\":\"spine\\u003c1\\u003e\",\"type\":\"otlp\",\"state\":"
        "\"disabled\",\"up\":false,\"series\":0}],\"tables\":[{\"id\":\"gnmi_streams\","
        "\"title\":\"gNMI streams\",\"empty\":\"no gNMI streams\",\"keys\":[\"source\","
        "\"stream\"],\"columns\":[{\"id\":\"state\",\"title\":\"state\",\"unit\":\"word\"},"
        "{\"id\":\"up\",\"title\":null,\"unit\":\"count\"},{\"id\":\"sync_seen\",\"title\":"
        "\"sync\",\"unit\":\"word\"},{\"id\":\"last_update_age_seconds\",\"title\":\"last "
        "update\",\"unit\":\"seconds\"},{\"id\":\"cadence_seconds\",\"title\":\"cadence\","
        "\"unit\":\"seconds\"},{\"id\":\"jitter_seconds\",\"title\":\"jitter\",\"unit\":"
        "\"seconds\"},{\"id\":\"messages\",\"title\":null,\"unit\":\"count\"},{\"id\":"
        "\"updates\",\"title\":\"updates\",\"unit\":\"count\"},{\"id\":\"decode_errors\","
        "\"title\":\"decode errors\",\"unit\":\"count\"},{\"id\":\"sequence_gaps\",\"title\":"
        "\"seq gaps\",\"unit\":\"count\"},{\"id\":\"reconnects\",\"title\":\"reconnects\","
        "\"unit\":\"count\"},{\"id\":\"resubscribes\",\"title\":\"resubscribes\",\"unit\":"
        "\"count\"},{\"id\":\"label_names_hashed\",\"title\":null,\"unit\":\"count\"},"
        "{\"id\":\"zero_filled\",\"title\":null,\"unit\":\"count\"},"
        "{\"id\":\"updates_over_cap\",\"title\":null,\"unit\":\"count\"},"
        "{\"id\":\"updates_path_dropped\",\"title\":null,\"unit\":\"count\"},"
        "{\"id\":\"updates_multi_dropped\",\"title\":null,\"unit\":\"count\"}],"
        "\"rows\":[{\"source\":\"leaf1\",\"stream\":\"interfaces\",\"state\":"
        "\"streaming\",\"up\":1,\"sync_seen\":\"yes\",\"last_update_age_seconds\":0.25,"
        "\"cadence_seconds\":0.1,\"jitter_seconds\":0.012,\"messages\":100,\"updates\":2000,"
        "\"decode_errors\":0,\"sequence_gaps\":1,\"reconnects\":2,\"resubscribes\":3,"
        "\"label_names_hashed\":4,\"zero_filled\":5,\"updates_over_cap\":null,"
        "\"updates_path_dropped\":null,\"updates_multi_dropped\":null},{"
        "\"source\":\"leaf1\",\"stream\":\"queues\",\"state\":\"connecting\",\"up\":0,"
        "\"sync_seen\":\"no\",\"last_update_age_seconds\":null,\"cadence_seconds\":null,"
        "\"jitter_seconds\":null,\"messages\":0,\"updates\":0,\"decode_errors\":0,"
        "\"sequence_gaps\":0,\"reconnects\":0,\"resubscribes\":0,\"label_names_hashed\":0,"
        "\"zero_filled\":0,\"updates_over_cap\":null,\"updates_path_dropped\":null,"
        "\"updates_multi_dropped\":null}]},{"
        "\"id\":\"otlp_receivers\","
        "\"title\":\"OTLP receivers\",\"empty\":\"no OTLP receivers\",\"keys\":[\"source\","
        "\"transport\"],\"columns\":[{\"id\":\"port\",\"title\":\"port\",\"unit\":\"count\"},"
        "{\"id\":\"requests\",\"title\":\"requests\",\"unit\":\"count\"},{\"id\":\"ok\","
        "\"title\":\"ok\",\"unit\":\"count\"},{\"id\":\"partial\",\"title\":\"partial\","
        "\"unit\":\"count\"},{\"id\":\"bad_request\",\"title\":\"bad request\",\"unit\":"
        "\"count\"},{\"id\":\"too_large\",\"title\":\"too large\",\"unit\":\"count\"},{"
        "\"id\":\"errors\",\"title\":\"errors\",\"unit\":\"count\"},{\"id\":\"points\","
        "\"title\":\"points\",\"unit\":\"count\"},{\"id\":\"rejected_points\",\"title\":"
        "\"rejected\",\"unit\":\"count\"},{\"id\":\"received_bytes\",\"title\":\"received\","
        "\"unit\":\"bytes\"},{\"id\":\"skipped_other_shard\",\"title\":null,\"unit\":"
        "\"count\"},{\"id\":\"skipped_no_recorded_value\",\"title\":null,\"unit\":\"count\"}],"
        "\"rows\":[{\"source\":\"spine\\u003c1\\u003e\",\"transport\":\"http\",\"port\":4318,"
        "\"requests\":5,\"ok\":3,\"partial\":1,\"bad_request\":1,\"too_large\":0,\"errors\":0,"
        "\"points\":300,\"rejected_points\":7,\"received_bytes\":2048,"
        "\"skipped_other_shard\":0,\"skipped_no_recorded_value\":0}]}]}");
    CHECK(json_valid(b.data));
    fsc_buf_free(&b);
}

static void ports_json_exact(void)
{
    struct fsc_buf b = {0};
    CHECK_INT(fsc_web_json_ports(port_rows, 2, &b), 0);
    CHECK_STR(b.data,
              "{\"ports\":[{\"device\":\"leaf1\",\"port\":\"et-0/0/1\",\"speed_bps\":400000000000,"
              "\"peak_utilization\":0.987654,\"peak_direction\":\"tx\",\"peak_window\":\"10s\","
              "\"rx_bytes_per_second\":12500000000,\"tx_bytes_per_second\":50000000000,"
              "\"rx_utilization\":0.25,\"tx_utilization\":1,\"microbursts\":3,\"bursts\":1},"
              "{\"device\":\"leaf2\",\"port\":\"p\\u003c\\u0026\\u003e\",\"speed_bps\":null,"
              "\"peak_utilization\":null,\"peak_direction\":null,\"peak_window\":null,"
              "\"rx_bytes_per_second\":1000,\"tx_bytes_per_second\":null,\"rx_utilization\":null,"
              "\"tx_utilization\":null,\"microbursts\":0,\"bursts\":0}]}");
    CHECK(json_valid(b.data));
    fsc_buf_reset(&b);
    CHECK_INT(fsc_web_json_ports(NULL, 0, &b), 0);
    CHECK_STR(b.data, "{\"ports\":[]}");
    fsc_buf_free(&b);
}

static void events_json_exact(void)
{
    struct fsc_web_events evs;
    struct fsc_web_event_row rows[2];
    struct fsc_buf b = {0};
    events_model(&evs, rows);
    CHECK_INT(fsc_web_json_events(&evs, &b), 0);
    CHECK_STR(b.data,
              "{\"published\":7,\"lost\":0,\"kept\":2,\"events\":[{\"seq\":7,\"kind\":"
              "\"microburst\",\"phase\":\"end\",\"device\":\"leaf1\",\"port\":\"et-0/0/1\","
              "\"direction\":\"tx\",\"start\":\"2023-11-14T22:13:20.100Z\",\"end\":"
              "\"2023-11-14T22:13:20.200Z\",\"duration_seconds\":0.1,\"fields\":{"
              "\"peak_utilization\":0.98,\"bytes\":5000000000},\"summary\":\"peak 98.0 %, 5.0 GB\","
              "\"labels\":{"
              "\"device\":\"leaf1\",\"port\":\"et-0/0/1\"}},{\"seq\":6,\"kind\":"
              "\"cable_mismatch\",\"phase\":\"start\",\"device\":\"b300-01\",\"port\":"
              "\"ens1f1np1\",\"direction\":null,\"mismatch\":\"missing\",\"start\":"
              "\"2023-11-14T22:13:20.000Z\",\"end\":null,\"duration_seconds\":null,\"fields\":{},"
              "\"summary\":\"missing\",\"labels\":{\"card\":\"0\","
              "\"device\":\"b300-01\",\"kind\":\"missing\",\"port\":\"ens1f1np1\"}}]}");
    CHECK(json_valid(b.data));
    fsc_buf_free(&b);
}

static void chart_json_exact(void)
{
    struct fsc_web_chart c;
    struct fsc_buf b = {0};
    chart_model(&c);
    CHECK_INT(fsc_web_json_chart(&c, &b), 0);
    CHECK_STR(b.data,
              "{\"device\":\"leaf1\",\"port\":\"et-0/0/1\",\"speed_bps\":400000000000,"
              "\"tracked\":true,\"tracked_since\":\"2023-11-14T22:12:20.000Z\",\"from_ms\":"
              "1699999990000,\"to_ms\":1700000000000,\"rise\":0.7,\"rx\":[[1699999999000,0.25],"
              "[1699999999100,0.3]],\"tx\":[[1699999999000,1]],\"bursts\":[{\"kind\":"
              "\"microburst\",\"direction\":\"tx\",\"start_ms\":1699999999000,\"end_ms\":"
              "1699999999100,\"peak\":0.99},{\"kind\":\"burst\",\"direction\":\"rx\",\"start_ms\":"
              "1699999999500,\"end_ms\":null,\"peak\":0.8}]}");
    CHECK(json_valid(b.data));
    fsc_buf_free(&b);
}

static void mesh_json_exact(void)
{
    struct fsc_web_mesh *m = malloc(sizeof(*m));
    struct fsc_buf b = {0};
    CHECK(m != NULL);
    if (!m)
        return;
    mesh_model(m);
    CHECK_INT(fsc_web_json_mesh(m, &b), 0);
    CHECK_STR(b.data,
              "{\"source\":\"plan\",\"nodes\":[{\"node\":1,\"device\":\"b300-01\",\"polled\":true},"
              "{\"node\":2,\"device\":\"node2\",\"polled\":false}],\"links\":[{\"link\":1,"
              "\"speed_bps\":400000000000,\"utilization\":0.5,\"mismatch\":false,\"a\":{\"node\":1,"
              "\"port\":\"ens1f0np0\",\"rx_bytes_per_second\":12500000000,\"tx_bytes_per_second\":"
              "25000000000,\"mismatches\":[]},\"b\":{\"node\":2,\"port\":\"ens1f0np0\","
              "\"rx_bytes_per_second\":null,\"tx_bytes_per_second\":null,\"mismatches\":[]}},"
              "{\"link\":2,\"speed_bps\":400000000000,\"utilization\":null,\"mismatch\":true,"
              "\"a\":{\"node\":1,\"port\":\"ens1f1np1\",\"rx_bytes_per_second\":null,"
              "\"tx_bytes_per_second\":null,\"mismatches\":[\"missing\"]},\"b\":{\"node\":2,"
              "\"port\":\"ens1f1np1\",\"rx_bytes_per_second\":null,\"tx_bytes_per_second\":null,"
              "\"mismatches\":[]}}],\"mismatches\":[{\"node\":1,\"device\":\"b300-01\",\"port\":"
              "\"ens1f1np1\",\"link\":2,\"kind\":\"missing\"}]}");
    CHECK(json_valid(b.data));
    fsc_buf_free(&b);
    free(m);
}

static void error_json_and_limit(void)
{
    struct fsc_buf b = {0};
    CHECK_INT(fsc_web_json_error("top must be \"1..100\"", &b), 0);
    CHECK_STR(b.data, "{\"error\":\"top must be \\\"1..100\\\"\"}");
    fsc_buf_free(&b);
    /* A document over the buffer's limit fails as a whole. */
    struct fsc_web_status st;
    struct fsc_buf lim = {0};
    lim.limit = 100;
    status_model(&st);
    CHECK_INT(fsc_web_json_status(&st, &lim), -E2BIG);
    fsc_buf_free(&lim);
}

/* One summary per event kind (the page's details column). */
static void event_summaries(void)
{
    static const struct {
        struct fsc_event ev;
        const char *mismatch;
        const char *want;
    } cases[] = {
#define F2(k, a, va, b, vb) {.kind = k, .n_fields = 2, .field_id = {a, b}, .field_value = {va, vb}}
        {F2(FSC_EV_MICROBURST, FSC_EF_PEAK_UTILIZATION, 0.987, FSC_EF_BYTES, 1.25e9), NULL,
         "peak 98.7 %, 1.2 GB"},
        {F2(FSC_EV_BURST, FSC_EF_PEAK_UTILIZATION, 1.0, FSC_EF_BYTES, 512), NULL,
         "peak 100.0 %, 512 B"},
        {{.kind = FSC_EV_CNP_SPIKE,
          .n_fields = 3,
          .field_id = {FSC_EF_PEAK_RATE, FSC_EF_BASELINE_RATE, FSC_EF_COUNT},
          .field_value = {50000, 200, 250000}},
         NULL,
         "peak 50000/s, baseline 200/s, 250000 CNPs"},
        {F2(FSC_EV_PFC_STORM, FSC_EF_PEAK_PAUSED_FRACTION, 0.45, FSC_EF_PAUSED_SECONDS, 2.5), NULL,
         "peak paused 45.0 %, paused 2.5 s"},
        {{.kind = FSC_EV_UPLINK_IMBALANCE,
          .group = 3,
          .n_fields = 1,
          .field_id = {FSC_EF_PEAK_IMBALANCE},
          .field_value = {2.314}},
         NULL,
         "max/mean 2.31"},
        {{.kind = FSC_EV_QUEUE_PEAK,
          .n_fields = 1,
          .field_id = {FSC_EF_QUEUE_PEAK_BYTES},
          .field_value = {123456}},
         NULL,
         "queue peak 123.5 kB"},
        {{.kind = FSC_EV_CABLE_MISMATCH,
          .n_fields = 1,
          .field_id = {FSC_EF_OPERSTATE},
          .field_value = {2}},
         "down",
         "down: operstate down"},
        {F2(FSC_EV_CABLE_MISMATCH, FSC_EF_PLANNED_SPEED, 400e9, FSC_EF_SPEED, 200e9), "speed",
         "speed: want 400G, have 200G"},
        {{.kind = FSC_EV_CABLE_MISMATCH,
          .n_fields = 2,
          .field_id = {FSC_EF_PLANNED_ADDRESS, FSC_EF_ADDRESS},
          .field_aux = {30, 24},
          .field_value = {168886529.0, 168886533.0}},
         "address",
         "address: want 10.17.1.1/30, have 10.17.1.5/24"},
        {F2(FSC_EV_CABLE_MISMATCH, FSC_EF_PEER_ADDRESS, 168886530.0, FSC_EF_NEIGHBOUR, 0), "peer",
         "peer: address 10.17.1.2, neighbour none"},
        {{.kind = FSC_EV_PCIE_DEGRADED,
          .n_fields = 4,
          .field_id = {FSC_EF_SPEED_GTS, FSC_EF_MAX_SPEED_GTS, FSC_EF_WIDTH, FSC_EF_MAX_WIDTH},
          .field_value = {32, 64, 8, 16}},
         NULL,
         "speed 32 GT/s, max 64 GT/s, width 8, max width 16"},
#undef F2
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fsc_web_event_row row;
        char buf[256];
        memset(&row, 0, sizeof(row));
        row.ev = cases[i].ev;
        row.mismatch = cases[i].mismatch;
        CHECK_STR(fsc_web_event_summary(&row, buf, sizeof(buf)), cases[i].want);
    }
}

/* ---- HTML ----------------------------------------------------------------------------- */

static void page_rows_exact(void)
{
    struct fsc_web_status st;
    struct fsc_web_events evs;
    struct fsc_web_event_row evrows[2];
    struct fsc_web_chart c;
    struct fsc_web_mesh *m = malloc(sizeof(*m));
    struct fsc_buf b = {0};
    CHECK(m != NULL);
    if (!m)
        return;
    status_model(&st);
    events_model(&evs, evrows);
    chart_model(&c);
    mesh_model(m);
    struct fsc_web_health hm;
    health_model(&hm);
    struct fsc_web_page pg = {&st, port_rows, 2, &evs, &c, m, 5, 10, 50, &hm};
    CHECK_INT(fsc_web_html_page(&pg, &b), 0);
    const char *p = b.data ? b.data : "";

    CHECK(strncmp(p, "<!DOCTYPE html>\n", 16) == 0);
    CHECK(b.len > 8 && strcmp(p + b.len - 8, "</html>\n") == 0);
    CHECK(strstr(p, "<body data-refresh=\"5\" data-top=\"10\" data-limit=\"50\" "
                    "data-device=\"leaf1\" data-port=\"et-0/0/1\" data-rows=\"20\">") != NULL);
    CHECK(strstr(p, "<tr data-source=\"leaf1\" data-stream=\"interfaces\"><td class=\"source\">"
                    "leaf1</td><td class=\"stream\">interfaces</td><td class=\"state "
                    "w-streaming\">streaming</td><td class=\"sync_seen w-yes\">yes</td><td "
                    "class=\"num last_update_age_seconds\" data-value=\"0.25\">250 ms</td><td "
                    "class=\"num cadence_seconds\" data-value=\"0.1\">100 ms</td><td class=\"num "
                    "jitter_seconds\" data-value=\"0.012\">12 ms</td><td class=\"num updates\">"
                    "2000</td><td class=\"num decode_errors\">0</td><td class=\"num "
                    "sequence_gaps\">1</td><td class=\"num reconnects\">2</td><td class=\"num "
                    "resubscribes\">3</td></tr>") != NULL);
    CHECK(strstr(p, "<td class=\"state w-connecting\">connecting</td><td class=\"sync_seen "
                    "w-no\">no</td><td class=\"num last_update_age_seconds\" data-value=\"\">"
                    "&#8211;</td>") != NULL);
    CHECK(strstr(p, "<tr data-device=\"leaf1\" data-port=\"et-0/0/1\"><td class=\"num rank\">1"
                    "</td><td class=\"device\">leaf1</td><td class=\"port\"><a href=\"?device="
                    "leaf1&amp;port=et-0%2F0%2F1#chart\">et-0/0/1</a></td><td class=\"speed\">400G"
                    "</td><td class=\"num peak\" data-value=\"0.987654\">98.8 %</td><td "
                    "class=\"window\">10s</td><td class=\"dir\">tx</td><td class=\"num rx\" "
                    "data-value=\"12500000000\">100.00 Gb/s</td><td class=\"num tx\" "
                    "data-value=\"50000000000\">400.00 Gb/s</td><td class=\"num rxu\" "
                    "data-value=\"0.25\">25.0 %</td><td class=\"num txu\" data-value=\"1\">100.0 "
                    "%</td><td class=\"num microbursts\">3</td><td class=\"num bursts\">1</td>"
                    "</tr>") != NULL);
    CHECK(strstr(p, "<tr data-seq=\"7\" class=\"ev-microburst\"><td class=\"time\" "
                    "title=\"2023-11-14T22:13:20.100Z\">2023-11-14 22:13:20.100 UTC</td><td "
                    "class=\"kind\">"
                    "microburst</td><td class=\"phase\">end</td><td class=\"device\">leaf1</td>"
                    "<td class=\"port\">et-0/0/1</td><td class=\"dir\">tx</td><td class=\"num "
                    "duration\" data-value=\"0.1\">100 ms</td><td class=\"summary\">peak 98.0 %, "
                    "5.0 GB</td></tr>") != NULL);
    CHECK(strstr(p, "<tr data-key=\"1-2-2\" class=\"mismatch\"><td class=\"a\">1:ens1f1np1</td>"
                    "<td class=\"b\">2:ens1f1np1</td><td class=\"num link\">2</td><td class=\"num "
                    "util\" data-value=\"\">&#8211;</td><td class=\"mm\">1:ens1f1np1 missing</td>"
                    "</tr>") != NULL);
    /* Health first: the summary, each condition's parts, the rest counted. */
    const char *fh = strstr(p, "<section id=\"fabric-health\"><h2>Fabric health</h2>\n");
    CHECK(fh != NULL && fh < strstr(p, "<section id=\"traffic\">"));
    CHECK(strstr(p, "<p id=\"health-info\" class=\"info\">4 active: Cables swapped 1, PCIe "
                    "degraded 1, CNP storm 2 \xc2\xb7 1 in the last 10 minutes</p>\n<ul "
                    "id=\"conditions\" class=\"conds\" data-limit=\"20\">") != NULL);
    CHECK(strstr(p, "<li class=\"cond error\" data-kind=\"pcie_degraded\" data-state=\"active\" "
                    "data-device=\"b300-01\" data-port=\"ens7f0np0\"><span class=\"title\">PCIe "
                    "degraded</span> <span class=\"what\">b300-01 ens7f0np0: NIC&#39;s PCIe link "
                    "degraded</span> <span class=\"since\">since <time "
                    "datetime=\"2023-11-14T22:10:00.000Z\">2023-11-14 22:10:00 UTC</time> (for 3 m "
                    "20 s)</span> <span class=\"measure\">trained at 32 GT/s x8 against its "
                    "maximum 64 GT/s x16</span> <span class=\"check\">Check the NIC&#39;s seating, "
                    "slot and riser, and the BIOS PCIe settings.</span></li>") != NULL);
    CHECK(strstr(p, "<li class=\"cond error\" data-kind=\"cables_swapped\" "
                    "data-state=\"active\" data-device=\"b300-04\" data-port=\"\">") != NULL);
    CHECK(strstr(p, "<li class=\"more\">and 2 more: <a href=\"/api/health?limit=1000\">"
                    "/api/health</a> lists them</li>") != NULL);
    CHECK(strstr(p, "<li class=\"cond warning\" data-kind=\"queue_peak\" data-state=\"recent\" "
                    "data-device=\"leaf2\" data-port=\"et-0/0/3\"><span class=\"title\">Queue "
                    "peak</span> <span class=\"what\">leaf2 et-0/0/3 (tx, queue 3): queue "
                    "peak</span> <span class=\"since\">at <time datetime=\"2023-11-14T22:12:50."
                    "000Z\">2023-11-14 22:12:50 UTC</time> (30 s ago)</span>") != NULL);
    /* The collector's own tables after everything else, folded. */
    CHECK(strstr(p, "<details id=\"internals\"><summary>Collector internals: <span "
                    "id=\"i-sources\">2 sources, 1 not up</span>") != NULL);
    /* SVG: the chart's rx/tx lines (column maxima), the burst, the mesh. */
    CHECK(strstr(p, "<polyline class=\"rx\" points=\"805.5,163.0 814.5,152.8 \"/>") != NULL);
    CHECK(strstr(p, "<polyline class=\"tx\" points=\"805.5,10.0 \"/>") != NULL);
    CHECK(strstr(p, "<rect class=\"burst\" x=\"805.8\" y=\"10\" width=\"8.4\" height=\"204\">"
                    "<title>microburst tx 100 ms, peak 99.0 %</title></rect>") != NULL);
    CHECK(strstr(p, "<line class=\"link mismatch\" data-key=\"1-2-2\"") != NULL);
    CHECK(strstr(p, "<g class=\"node polled\" data-node=\"1\">") != NULL);
    CHECK(strstr(p, "<g class=\"node\" data-node=\"2\">") != NULL);
    CHECK_INT(count(p, "<line class=\"link"), 2);

    /* Hostile names are escaped everywhere they appear. */
    CHECK_INT(count(p, "spine<1>"), 0);
    CHECK_INT(count(p, "spine&lt;1&gt;"), 4); /* sources and receivers rows: attribute and text */
    CHECK_INT(count(p, "p<&>"), 0);
    CHECK(strstr(p, "data-port=\"p&lt;&amp;&gt;\"") != NULL);
    CHECK(strstr(p, "href=\"?device=leaf2&amp;port=p%3C%26%3E#chart\"") != NULL);
    /* Self-contained: the only URL is the SVG namespace; a policy forbids
     * any other source. */
    size_t urls = 0;
    for (const char *u = strstr(p, "://"); u; u = strstr(u + 1, "://")) {
        CHECK(u - p >= 4 && strncmp(u - 4, "http://www.w3.org/2000/svg", 26) == 0);
        urls++;
    }
    CHECK_INT(urls, 3); /* svg xmlns twice, the script's SVG namespace */
    CHECK(strstr(p, "default-src 'none'") != NULL);
    CHECK_INT(count(p, "<script>"), 1);
    CHECK_INT(count(p, "<style>"), 1);
    fsc_buf_free(&b);
    free(m);
}

/* A fabric of 500 devices: 500 sources (10 down), 2000 gNMI streams (3
 * down), 50 active conditions. The page shows 20 rows of each table, what
 * is down first, and counts the rest; the API keeps them all. */
static void page_caps_rows(void)
{
    enum { N_SRC = 500, N_STREAMS = 2000 };
    struct fsc_source_status *src = calloc(N_SRC, sizeof(*src));
    struct fsc_web_stat_row *rows = calloc(N_STREAMS, sizeof(*rows));
    struct fsc_web_mesh *m = calloc(1, sizeof(*m));
    struct fsc_web_status st;
    struct fsc_web_events evs = {0};
    struct fsc_web_health hm;
    struct fsc_buf b = {0};
    CHECK(src && rows && m);
    if (!src || !rows || !m)
        goto out;
    status_model(&st);
    for (size_t i = 0; i < N_SRC; i++) {
        snprintf(src[i].name, sizeof(src[i].name), "leaf%03zu", i);
        snprintf(src[i].type, sizeof(src[i].type), "gnmi");
        src[i].state = "running";
        src[i].up = i % 50 != 49; /* leaf049, leaf099, ... down */
    }
    for (size_t i = 0; i < N_STREAMS; i++) {
        rows[i].table = tables[0];
        for (size_t c = 0; c < FSC_WEB_STAT_COLS; c++)
            rows[i].values[c] = NAN;
        snprintf(rows[i].keys[0], sizeof(rows[i].keys[0]), "leaf%03zu", i / 4);
        snprintf(rows[i].keys[1], sizeof(rows[i].keys[1]), "s%zu", i % 4);
        row_set(&rows[i], "up", i == 7 || i == 1000 || i == 1999 ? 0 : 1);
    }
    st.sources = src;
    st.n_sources = N_SRC;
    st.rows = rows;
    st.n_rows = N_STREAMS;
    health_model(&hm);
    hm.n_active = 50;
    struct fsc_web_page pg = {&st, port_rows, 2, &evs, NULL, m, 5, 10, 50, &hm};
    CHECK_INT(fsc_web_html_page(&pg, &b), 0);
    const char *p = b.data ? b.data : "";
    CHECK_INT(count(p, "\"><td class=\"name\">"), 20); /* source rows */
    /* The ten down first, in config order, then the first up ones. */
    const char *d1 = strstr(p, "<tr data-source=\"leaf049\">");
    const char *d10 = strstr(p, "<tr data-source=\"leaf499\">");
    const char *u1 = strstr(p, "<tr data-source=\"leaf000\">");
    CHECK(d1 && d10 && u1 && d1 < d10 && d10 < u1);
    CHECK(strstr(p, "<tr data-source=\"leaf010\">") == NULL);
    CHECK(strstr(p, "<tr class=\"more\"><td colspan=\"5\">and 480 more: <a "
                    "href=\"/api/status\">/api/status</a> lists them</td></tr>") != NULL);
    CHECK_INT(count(p, "data-stream=\""), 20);
    const char *s7 = strstr(p, "data-source=\"leaf001\" data-stream=\"s3\">");
    const char *s1999 = strstr(p, "data-source=\"leaf499\" data-stream=\"s3\">");
    const char *s0 = strstr(p, "data-source=\"leaf000\" data-stream=\"s0\">");
    CHECK(s7 && s1999 && s0 && s7 < s1999 && s1999 < s0);
    CHECK(strstr(p, "and 1980 more: <a href=\"/api/status\">") != NULL);
    CHECK(strstr(p, "<li class=\"more\">and 48 more: <a href=\"/api/health?limit=1000\">") != NULL);
    /* The whole page stays small: its own script and style, and the rows. */
    CHECK(b.len < 96 * 1024);
out:
    fsc_buf_free(&b);
    free(m);
    free(rows);
    free(src);
}

/* A label that tries to close the script: escaped in rows and attributes. */
static void page_script_injection(void)
{
    static struct fsc_web_port_row evil = {"</script><script>alert(1)</script>",
                                           "x\" onmouseover=\"alert(2)",
                                           0,
                                           0,
                                           0,
                                           0,
                                           0,
                                           {0, 0},
                                           {0, 0},
                                           {-1, -1},
                                           0,
                                           0};
    struct fsc_web_status st;
    struct fsc_web_events evs = {0};
    struct fsc_web_mesh *m = calloc(1, sizeof(*m));
    struct fsc_buf b = {0};
    CHECK(m != NULL);
    if (!m)
        return;
    status_model(&st);
    struct fsc_web_page pg = {&st, &evil, 1, &evs, NULL, m, 5, 10, 50, NULL};
    CHECK_INT(fsc_web_html_page(&pg, &b), 0);
    CHECK_INT(count(b.data, "<script>"), 1);
    CHECK_INT(count(b.data, "</script>"), 1);
    CHECK_INT(count(b.data, "onmouseover=\""), 0);
    CHECK(strstr(b.data, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
    /* No chart: an empty SVG and a note. */
    CHECK(strstr(b.data, "No port with byte counters yet.") != NULL);
    CHECK(strstr(b.data, "no B300 cable plan and no NIC series with cable labels") != NULL);
    CHECK(strstr(b.data, "no events yet") != NULL);
    CHECK(strstr(b.data, "<p id=\"health-info\" class=\"info\">not known</p>") != NULL);
    fsc_buf_free(&b);
    free(m);
}

/* Every plugin table of the program fits the page's columns: a table with
 * more would lose its last columns from the page and /api/status. */
static void plugin_tables_fit(void)
{
    const struct fsc_stat_table *const *t = fsc_app_tables(NULL);
    size_t n = 0;
    for (; t && t[n]; n++)
        if (t[n]->n_cols > FSC_WEB_STAT_COLS)
            fprintf(stderr, "table %s has %zu columns\n", t[n]->id, t[n]->n_cols);
    CHECK(n > 5);
    for (size_t i = 0; i < n; i++)
        CHECK(t[i]->n_cols <= FSC_WEB_STAT_COLS);
}

TEST_MAIN(TEST(plugin_tables_fit), TEST(status_json_exact), TEST(ports_json_exact),
          TEST(events_json_exact), TEST(chart_json_exact), TEST(mesh_json_exact),
          TEST(health_json_exact), TEST(error_json_and_limit), TEST(event_summaries),
          TEST(page_rows_exact), TEST(page_caps_rows), TEST(page_script_injection))
