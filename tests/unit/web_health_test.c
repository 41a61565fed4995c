/* The health list's conditions (exporters/web/web_conditions.h): known
 * facts in, exact sentences out. The plan is examples/b300/cables.txt's
 * 4-node mesh with the default layout (docs/CABLING.md), so physical port
 * 4 is card 5 (ens6f0np0, ens6f1np1) and port 5 card 0 (ens1f0np0,
 * ens1f1np1); node 4's port 4 is planned to node 3's port 4 and its port
 * 5 to node 2's port 5. The swapped pair is the demo's (docs/DEMO.md,
 * "Fault schedule"). Thresholds are the engine's defaults
 * (engine/engine.h): spikes 5 x the baseline and at least 5000/s for CNP
 * and ECN, microbursts from 70 %. */
#include <string.h>

#include "test.h"
#include "model/operstate.h"
#include "web/web_format.h"
#include "web/web_conditions.h"
#include "web/web_model.h"

#define NS 1000000000LL
#define MS 1000000LL
#define T0 (1700000000LL * NS) /* 2023-11-14T22:13:20Z */

/* examples/b300/cables.txt, comments left out. */
static const char cables[] = "1-1 > 2-1\n3-1 > 4-1\n1-2 > 3-2\n2-2 > 4-2\n1-3 > 4-3\n2-3 > 3-3\n"
                             "1-4 > 2-4\n3-4 > 4-4\n1-5 > 3-5\n2-5 > 4-5\n1-6 > 4-6\n2-6 > 3-6\n"
                             "1-7 > 2-7\n3-7 > 4-7\n1-8 > 3-8\n2-8 > 4-8\n";

static const char *const dev[5] = {NULL, "b300-01", "b300-02", "b300-03", "b300-04"};

static struct fsc_cabling *plan(void)
{
    char err[256] = "";
    struct fsc_cabling *cab =
        fsc_cabling_parse(cables, sizeof(cables) - 1, "cables", NULL, err, sizeof(err));
    if (!cab)
        fprintf(stderr, "plan: %s\n", err);
    return cab;
}

static struct fsc_web_hnames names(void)
{
    struct fsc_web_hnames n;
    memset(&n, 0, sizeof(n));
    for (int i = 1; i <= 4; i++)
        n.node[i] = dev[i];
    return n;
}

/* A peer fact as the NIC source's gauge and START give it. */
static struct fsc_web_hfact peer_fact(uint32_t node, const char *port, double neighbour)
{
    struct fsc_web_hfact f;
    memset(&f, 0, sizeof(f));
    f.kind = FSC_WEB_HK_CABLE_PEER;
    f.device = dev[node];
    f.port = port;
    f.node = node;
    f.since_ns = T0;
    f.has_ev = 1;
    f.ev = (struct fsc_event){.kind = FSC_EV_CABLE_MISMATCH, .t_start_ns = T0};
    fsc_event_add(&f.ev, FSC_EF_PEER_ADDRESS, 0x0A7C0302); /* 10.124.3.2 */
    fsc_event_add(&f.ev, FSC_EF_NEIGHBOUR, neighbour);
    return f;
}

/* The demo's eight: node 4's ports 4 and 5 and their planned far ends. */
static size_t swap_facts(struct fsc_web_hfact *f, double neighbour)
{
    static const struct {
        uint32_t node;
        const char *port;
    } ifs[8] = {{4, "ens6f0np0"}, {4, "ens6f1np1"}, {4, "ens1f0np0"}, {4, "ens1f1np1"},
                {3, "ens6f0np0"}, {3, "ens6f1np1"}, {2, "ens1f0np0"}, {2, "ens1f1np1"}};
    for (size_t i = 0; i < 8; i++)
        f[i] = peer_fact(ifs[i].node, ifs[i].port, i == 0 ? neighbour : FSC_PEER_INCOMPLETE);
    return 8;
}

static struct fsc_engine_config ecfg(void)
{
    struct fsc_engine_config c;
    fsc_engine_config_defaults(&c);
    return c;
}

static const char *sentence(const struct fsc_web_hcond *c, int64_t now, struct fsc_web_htext *t)
{
    struct fsc_web_hnames n = names();
    struct fsc_engine_config e = ecfg();
    return fsc_web_condition_text(c, &n, &e, now, t)->sentence;
}

static void swap_sentence_exact(void)
{
    struct fsc_cabling *cab = plan();
    struct fsc_web_hfact f[8];
    struct fsc_web_hcond c[8];
    struct fsc_web_htext t;
    CHECK(cab != NULL);
    size_t n = swap_facts(f, FSC_PEER_INCOMPLETE);
    CHECK_INT(fsc_web_conditions_derive(f, n, cab, c, 8), 1);
    CHECK_INT(c[0].f.kind, FSC_WEB_HK_CABLES_SWAPPED);
    CHECK_STR(c[0].f.device, "b300-04");
    CHECK(c[0].f.port == NULL);
    CHECK_INT(c[0].swap_port[0], 4);
    CHECK_INT(c[0].swap_port[1], 5);
    CHECK_INT(c[0].folded, 8);
    CHECK(!c[0].either_end);
    CHECK_STR(sentence(&c[0], T0 + 200 * NS, &t),
              "b300-04 port 4 (ens6f0np0, ens6f1np1) and port 5 (ens1f0np0, ens1f1np1) look "
              "swapped: each reaches the other's planned peer, since 2023-11-14 22:13:20 UTC (for "
              "3 m 20 s): planned: port 4 to b300-03 port 4, port 5 to b300-02 port 5; 8 "
              "interfaces at both ends get no answer from their planned peer. Check ports 4 and 5 "
              "of b300-04 against the cable plan (fabricscope plan), and swap the two cables.");
    CHECK_STR(t.title, "Cables swapped");
    CHECK_STR(t.when, "2023-11-14 22:13:20 UTC");
    CHECK_STR(t.age, "3 m 20 s");
    fsc_cabling_destroy(cab);
}

/* Without evidence no swap is claimed: an entry that does not exist (an
 * idle link), a far end with another fault, no plan. Each interface then
 * reads on its own. */
static void no_swap_without_evidence(void)
{
    struct fsc_cabling *cab = plan();
    struct fsc_web_hfact f[10];
    struct fsc_web_hcond c[10];
    struct fsc_web_htext t;

    size_t n = swap_facts(f, FSC_PEER_NONE);
    CHECK_INT(fsc_web_conditions_derive(f, n, cab, c, 10), 8);
    for (size_t i = 0; i < 8; i++)
        CHECK_INT(c[i].f.kind, FSC_WEB_HK_CABLE_PEER);
    /* Sorted by device, then port. */
    CHECK_STR(c[0].f.device, "b300-02");
    CHECK_STR(c[0].f.port, "ens1f0np0");
    CHECK_STR(sentence(&c[0], T0 + 5 * NS, &t),
              "b300-02 ens1f0np0: does not reach its planned peer, since 2023-11-14 22:13:20 UTC "
              "(for 5 s): no answer from the planned peer at 10.124.3.2 (neighbour entry "
              "incomplete). Check the cable against the cable plan (fabricscope plan); hosts need "
              "arp_ignore=1.");
    CHECK_STR(c[6].f.port, "ens6f0np0");
    c[6].f.peer = "b300-03:ens6f0np0";
    sentence(&c[6], T0 + 5 * NS, &t);
    CHECK_STR(t.measure, "no answer from the planned peer b300-03:ens6f0np0 at 10.124.3.2 "
                         "(neighbour entry none: an idle link's entry ages out)");

    n = swap_facts(f, FSC_PEER_INCOMPLETE);
    f[n] = peer_fact(3, "ens6f0np0", FSC_PEER_INCOMPLETE);
    f[4].kind = FSC_WEB_HK_LINK_DOWN; /* b300-03 ens6f0np0 down instead */
    f[n].kind = FSC_WEB_HK_CABLE_SPEED;
    f[n].port = "ens6f1np1"; /* and its np1 at a wrong speed as well */
    CHECK_INT(fsc_web_conditions_derive(f, n + 1, cab, c, 10), 9);
    CHECK_INT(c[0].f.kind, FSC_WEB_HK_LINK_DOWN);

    n = swap_facts(f, FSC_PEER_INCOMPLETE);
    CHECK_INT(fsc_web_conditions_derive(f, n, NULL, c, 10), 8);
    CHECK_INT(c[0].f.kind, FSC_WEB_HK_CABLE_PEER);
    fsc_cabling_destroy(cab);
}

static struct fsc_web_hfact event_fact(enum fsc_web_hk kind, const char *device, const char *port,
                                       uint8_t dir, int64_t since)
{
    struct fsc_web_hfact f;
    memset(&f, 0, sizeof(f));
    f.kind = (uint8_t)kind;
    f.device = device;
    f.port = port;
    f.direction = dir;
    f.since_ns = since;
    f.has_ev = 1;
    f.ev.t_start_ns = since;
    return f;
}

/* One sentence per kind, each with its measure against its threshold. */
static void sentences_by_kind(void)
{
    struct fsc_web_hfact f[1];
    struct fsc_web_hcond c[1];
    struct fsc_web_htext t;
    int64_t now = T0 + 3720 * NS; /* 1 h 2 m later */
    static const struct {
        enum fsc_web_hk kind;
        const char *device, *port, *queue, *peer;
        uint8_t dir;
        struct {
            enum fsc_event_field_id id;
            double v;
        } fld[4];
        const char *want;
    } cases[] = {
        {FSC_WEB_HK_PCIE,
         "b300-01",
         "ens7f0np0",
         NULL,
         NULL,
         0,
         {{FSC_EF_SPEED_GTS, 32},
          {FSC_EF_MAX_SPEED_GTS, 64},
          {FSC_EF_WIDTH, 8},
          {FSC_EF_MAX_WIDTH, 16}},
         "b300-01 ens7f0np0: NIC's PCIe link degraded, since 2023-11-14 22:13:20 UTC (for 1 h 2 "
         "m): trained at 32 GT/s x8 against its maximum 64 GT/s x16. Check the NIC's seating, "
         "slot and riser, and the BIOS PCIe settings."},
        {FSC_WEB_HK_CNP_SPIKE,
         "b300-02",
         "ens3f0np0",
         NULL,
         NULL,
         FSC_DIR_TX,
         {{FSC_EF_PEAK_RATE, 100000}, {FSC_EF_BASELINE_RATE, 20}, {FSC_EF_COUNT, 200000}},
         "b300-02 ens3f0np0 (tx): CNP storm, since 2023-11-14 22:13:20 UTC (for 1 h 2 m): peak "
         "100.0 k CNPs/s against a threshold of 5.0 k/s (5 x the baseline 20/s, at least 5.0 "
         "k/s); 200.0 k CNPs so far. Check the congestion these flows meet: ECN marks and pause "
         "frames along their path."},
        {FSC_WEB_HK_ECN_SPIKE,
         "spine1",
         "swp3",
         "3",
         "leaf2:et-0/0/6",
         FSC_DIR_TX,
         {{FSC_EF_PEAK_RATE, 250020.4}, {FSC_EF_BASELINE_RATE, 2000}},
         "spine1 swp3 (tx, queue 3, peer leaf2:et-0/0/6): ECN-mark storm, since 2023-11-14 "
         "22:13:20 UTC (for 1 h 2 m): peak 250.0 k ECN marks/s against a threshold of 10.0 k/s "
         "(5 x the baseline 2.0 k/s, at least 5.0 k/s). Check the traffic converging on this "
         "queue, uplink balance and the ECN thresholds."},
        {FSC_WEB_HK_LINK_DOWN,
         "b300-01",
         "ens1f0np0",
         NULL,
         "b300-02:ens1f0np0",
         0,
         {{FSC_EF_OPERSTATE, FSC_OPER_LOWERLAYERDOWN}},
         "b300-01 ens1f0np0: link down, since 2023-11-14 22:13:20 UTC (for 1 h 2 m): operstate "
         "lowerlayerdown; planned peer b300-02:ens1f0np0. Check the cable, its transceivers and "
         "the port at the other end."},
        {FSC_WEB_HK_CABLE_SPEED,
         "b300-01",
         "ens1f0np0",
         NULL,
         NULL,
         0,
         {{FSC_EF_PLANNED_SPEED, 400e9}, {FSC_EF_SPEED, 200e9}},
         "b300-01 ens1f0np0: link speed differs from the cable plan, since 2023-11-14 22:13:20 "
         "UTC (for 1 h 2 m): runs at 200G, planned 400G. Check the cable type and the speed set "
         "on both ends."},
        {FSC_WEB_HK_CABLE_MISSING,
         "b300-01",
         "ens1f1np1",
         NULL,
         "b300-02:ens1f1np1",
         0,
         {{0, 0}},
         "b300-01 ens1f1np1: interface missing, since 2023-11-14 22:13:20 UTC (for 1 h 2 m): the "
         "interface is not on the host (planned to reach b300-02:ens1f1np1). Check the NIC and "
         "its interface names against the plan's layout (ip -br link)."},
        {FSC_WEB_HK_REORDER_SPIKE,
         "b300-03",
         "ens5f1np1",
         NULL,
         NULL,
         FSC_DIR_RX,
         {{FSC_EF_PEAK_RATE, 20000}, {FSC_EF_BASELINE_RATE, 2}},
         "b300-03 ens5f1np1 (rx): packet reordering burst, since 2023-11-14 22:13:20 UTC (for 1 "
         "h 2 m): peak 20.0 k out-of-sequence packets/s against a threshold of 100/s (5 x the "
         "baseline 2/s, at least 100/s). Check multipath or adaptive routing changes and link "
         "flaps on the path."},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        f[0] = event_fact(cases[i].kind, cases[i].device, cases[i].port, cases[i].dir, T0);
        f[0].queue = cases[i].queue;
        f[0].peer = cases[i].peer;
        for (int k = 0; k < 4 && cases[i].fld[k].id; k++)
            fsc_event_add(&f[0].ev, cases[i].fld[k].id, cases[i].fld[k].v);
        CHECK_INT(fsc_web_conditions_derive(f, 1, NULL, c, 1), 1);
        CHECK_STR(sentence(&c[0], now, &t), cases[i].want);
    }
    /* A storm whose series went silent: still listed, and says so. */
    f[0] = event_fact(FSC_WEB_HK_CNP_SPIKE, "b300-02", "ens3f0np0", FSC_DIR_TX, T0);
    fsc_event_add(&f[0].ev, FSC_EF_PEAK_RATE, 100000);
    fsc_event_add(&f[0].ev, FSC_EF_BASELINE_RATE, 20);
    f[0].quiet_ns = T0 + 60 * NS;
    fsc_web_conditions_derive(f, 1, NULL, c, 1);
    sentence(&c[0], now, &t);
    CHECK_STR(t.measure, "peak 100.0 k CNPs/s against a threshold of 5.0 k/s (5 x the baseline "
                         "20/s, at least 5.0 k/s); no data since 2023-11-14 22:14:20 UTC, so its "
                         "end cannot be seen");
    /* A PCIe fact without its figures still says what it is. */
    f[0] = event_fact(FSC_WEB_HK_PCIE, "b300-01", "ens7f0np0", 0, 0);
    f[0].has_ev = 0;
    fsc_web_conditions_derive(f, 1, NULL, c, 1);
    CHECK_STR(sentence(&c[0], now, &t),
              "b300-01 ens7f0np0: NIC's PCIe link degraded, since a time not known: the link runs "
              "below its maximum speed or width. Check the NIC's seating, slot and riser, and the "
              "BIOS PCIe settings.");
}

/* A source down takes its streams in; the list's order is by kind. */
static void order_and_folding(void)
{
    struct fsc_cabling *cab = plan();
    struct fsc_web_hfact f[16];
    struct fsc_web_hcond c[16];
    struct fsc_web_htext t;
    size_t n = 0;

    f[n++] = event_fact(FSC_WEB_HK_CNP_SPIKE, "b300-02", "ens3f0np0", FSC_DIR_TX, T0);
    f[n++] = event_fact(FSC_WEB_HK_PCIE, "b300-01", "ens7f0np0", 0, T0);
    f[n++] = event_fact(FSC_WEB_HK_ECN_SPIKE, "spine1", "swp3", FSC_DIR_TX, T0);
    struct fsc_web_hfact src = {.kind = FSC_WEB_HK_SOURCE_DOWN,
                                .name = "leaf1",
                                .detail = "gnmi",
                                .state = "running",
                                .since_ns = T0 + 10 * NS};
    f[n++] = src;
    for (int s = 0; s < 2; s++) {
        struct fsc_web_hfact st = {.kind = FSC_WEB_HK_STREAM_DOWN,
                                   .name = s ? "leaf1/queues" : "leaf1/interfaces",
                                   .since_ns = T0 + (5 - s) * NS,
                                   .has_ev = 1};
        fsc_event_add(&st.ev, FSC_EF_REASON, FSC_STREAM_DOWN_STALLED);
        f[n++] = st;
    }
    struct fsc_web_hfact other = {.kind = FSC_WEB_HK_STREAM_DOWN, .name = "leaf10/interfaces"};
    f[n++] = other; /* another source's: not folded into leaf1 */
    n += swap_facts(f + n, FSC_PEER_INCOMPLETE);
    CHECK_INT(n, 15);

    CHECK_INT(fsc_web_conditions_derive(f, n, cab, c, 3), 6); /* all counted, 3 written */
    n = 0;
    f[n++] = event_fact(FSC_WEB_HK_CNP_SPIKE, "b300-02", "ens3f0np0", FSC_DIR_TX, T0);
    f[n++] = event_fact(FSC_WEB_HK_PCIE, "b300-01", "ens7f0np0", 0, T0);
    f[n++] = event_fact(FSC_WEB_HK_ECN_SPIKE, "spine1", "swp3", FSC_DIR_TX, T0);
    f[n++] = src;
    for (int s = 0; s < 2; s++) {
        struct fsc_web_hfact st = {.kind = FSC_WEB_HK_STREAM_DOWN,
                                   .name = s ? "leaf1/queues" : "leaf1/interfaces",
                                   .since_ns = T0 + (5 - s) * NS,
                                   .has_ev = 1};
        fsc_event_add(&st.ev, FSC_EF_REASON, FSC_STREAM_DOWN_STALLED);
        f[n++] = st;
    }
    f[n++] = other;
    n += swap_facts(f + n, FSC_PEER_INCOMPLETE);
    CHECK_INT(fsc_web_conditions_derive(f, n, cab, c, 16), 6);
    static const enum fsc_web_hk order[6] = {FSC_WEB_HK_SOURCE_DOWN,    FSC_WEB_HK_STREAM_DOWN,
                                             FSC_WEB_HK_CABLES_SWAPPED, FSC_WEB_HK_PCIE,
                                             FSC_WEB_HK_ECN_SPIKE,      FSC_WEB_HK_CNP_SPIKE};
    for (int i = 0; i < 6; i++)
        CHECK_INT(c[i].f.kind, order[i]);
    CHECK_STR(c[1].f.name, "leaf10/interfaces");
    CHECK_INT(c[0].f.streams_down, 2);
    CHECK_STR(sentence(&c[0], T0 + 50 * NS, &t),
              "source leaf1 (gnmi) is down, since 2023-11-14 22:13:24 UTC (for 46 s): running, "
              "not healthy; 2 streams down: no update for stall_intervals sample intervals. Check "
              "the device's address, credentials and TLS in the config; the collector log's lines "
              "for this source say why.");
    fsc_cabling_destroy(cab);
}

/* Recent ones: ended or instant, newest first, with when and how long ago. */
static void recent_sentences(void)
{
    struct fsc_web_hfact f[3];
    struct fsc_web_hcond c[3];
    struct fsc_web_htext t;

    f[0] = event_fact(FSC_WEB_HK_MICROBURST, "leaf1", "et-0/0/1", FSC_DIR_TX, T0 + 100 * MS);
    f[0].ended = true;
    f[0].end_ns = T0 + 200 * MS;
    fsc_event_add(&f[0].ev, FSC_EF_PEAK_UTILIZATION, 0.98);
    fsc_event_add(&f[0].ev, FSC_EF_BYTES, 5e9);
    f[1] = event_fact(FSC_WEB_HK_ECN_SPIKE, "spine1", "swp3", FSC_DIR_TX, T0 - 10 * NS);
    f[1].ended = true;
    f[1].end_ns = T0 + 2 * NS;
    fsc_event_add(&f[1].ev, FSC_EF_PEAK_RATE, 250020.4);
    fsc_event_add(&f[1].ev, FSC_EF_COUNT, 502594);
    f[2] = event_fact(FSC_WEB_HK_QUEUE_PEAK, "leaf2", "et-0/0/3", FSC_DIR_TX, T0 - 30 * NS);
    f[2].queue = "3";
    f[2].ended = true;
    f[2].end_ns = T0 - 30 * NS;
    fsc_event_add(&f[2].ev, FSC_EF_QUEUE_PEAK_BYTES, 108134400);
    fsc_event_add(&f[2].ev, FSC_EF_BUFFER_SHARE, 0.625);
    CHECK_INT(fsc_web_conditions_derive(f, 3, NULL, c, 3), 3);
    CHECK_INT(c[0].f.kind, FSC_WEB_HK_ECN_SPIKE);
    CHECK_INT(c[1].f.kind, FSC_WEB_HK_MICROBURST);
    CHECK_INT(c[2].f.kind, FSC_WEB_HK_QUEUE_PEAK);
    int64_t now = T0 + 42 * NS;
    CHECK_STR(sentence(&c[0], now, &t),
              "spine1 swp3 (tx): ECN-mark storm, ended 2023-11-14 22:13:22 UTC (40 s ago): peak "
              "250.0 k ECN marks/s; 502.6 k ECN marks. Check the traffic converging on this "
              "queue, uplink balance and the ECN thresholds.");
    CHECK_STR(sentence(&c[1], now, &t),
              "leaf1 et-0/0/1 (tx): microburst at 2023-11-14 22:13:20 UTC (41 s ago): peak 98.0 % "
              "of the link against 70.0 % for 100 ms, 5.0 GB. Check incast toward this port: many "
              "senders at once (collectives).");
    CHECK_STR(sentence(&c[2], now, &t),
              "leaf2 et-0/0/3 (tx, queue 3): queue peak at 2023-11-14 22:12:50 UTC (1 m 12 s "
              "ago): 108.1 MB, 62.5 % of the buffer against 50.0 %. Check incast toward this "
              "port; the peer's counters say which side bursts.");
}

/* The kinds of events, and the formats of times and counts. */
static void kinds_and_formats(void)
{
    char b[64];
    CHECK_INT(fsc_web_hk_of_event(FSC_EV_CABLE_MISMATCH, FSC_WEB_MM_PEER), FSC_WEB_HK_CABLE_PEER);
    CHECK_INT(fsc_web_hk_of_event(FSC_EV_CABLE_MISMATCH, FSC_WEB_MM_DOWN), FSC_WEB_HK_LINK_DOWN);
    CHECK_INT(fsc_web_hk_of_event(FSC_EV_CABLE_MISMATCH, -1), -1);
    CHECK_INT(fsc_web_hk_of_event(FSC_EV_COUNTER_RESET, -1), -1);
    CHECK_INT(fsc_web_hk_of_event(FSC_EV_STREAM_DOWN, -1), FSC_WEB_HK_STREAM_DOWN);
    CHECK_STR(fsc_web_hk_name(FSC_WEB_HK_CABLES_SWAPPED), "cables_swapped");
    CHECK_STR(fsc_web_hk_severity(FSC_WEB_HK_PCIE), "error");
    CHECK_STR(fsc_web_hk_severity(FSC_WEB_HK_CNP_SPIKE), "warning");
    CHECK_STR(fsc_web_fmt_when(T0 + 100 * MS, 3, b, sizeof(b)), "2023-11-14 22:13:20.100 UTC");
    CHECK_STR(fsc_web_fmt_when(T0, 0, b, sizeof(b)), "2023-11-14 22:13:20 UTC");
    CHECK_STR(fsc_web_fmt_span(0.25, b, sizeof(b)), "250 ms");
    CHECK_STR(fsc_web_fmt_span(-3, b, sizeof(b)), "0 ms");
    CHECK_STR(fsc_web_fmt_span(59.9, b, sizeof(b)), "59 s");
    CHECK_STR(fsc_web_fmt_span(200, b, sizeof(b)), "3 m 20 s");
    CHECK_STR(fsc_web_fmt_span(7500, b, sizeof(b)), "2 h 5 m");
    CHECK_STR(fsc_web_fmt_span(273600, b, sizeof(b)), "3 d 4 h");
    CHECK_STR(fsc_web_fmt_count(20, b, sizeof(b)), "20");
    CHECK_STR(fsc_web_fmt_count(250020.4, b, sizeof(b)), "250.0 k");
    CHECK_STR(fsc_web_fmt_count(1.5e6, b, sizeof(b)), "1.5 M");
}

TEST_MAIN(TEST(swap_sentence_exact), TEST(no_swap_without_evidence), TEST(sentences_by_kind),
          TEST(order_and_folding), TEST(recent_sentences), TEST(kinds_and_formats))
