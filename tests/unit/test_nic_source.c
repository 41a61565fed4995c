/* The pure parts of the nic source (collector/sources/nic): the neighbour table
 * parse and the host-check verdicts against a B300 cable plan on synthetic
 * host views, the node aggregate's arithmetic, and the two event kinds the
 * source publishes (their text, their counting). Known answers are worked
 * out in the comments from the rules in nic_hostcheck.h, nic_aggregate.h
 * and docs/CABLING.md. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include "model/event_text.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "model/cable_plan.h"
#include "sources/nic/nic_aggregate.h"
#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_hostcheck.h"

#define IP(a, b, c, d)                                                                             \
    ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* ---- neighbour table ------------------------------------------------------------ */

static void neigh_parse_table(void)
{
    /* What /proc/net/arp prints (columns padded with spaces): a complete
     * entry, an incomplete one (flags 0x0, MAC all zero), a permanent one
     * (0x6 = COM|PERM), then junk. */
    const char *text =
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "10.112.1.2       0x1         0x2         02:fc:00:00:00:01     *        ens8f0np0\n"
        "10.112.3.2       0x1         0x0         00:00:00:00:00:00     *        ens5f0np0\n"
        "10.112.2.2\t0x1\t0x6\t02:fc:00:00:00:02\t*\tens8f1np1\n"
        "\n"
        "10.112.4.256     0x1         0x2         02:fc:00:00:00:03     *        ens5f1np1\n"
        "10.112.4.2       0x1         2           02:fc:00:00:00:03     *        ens5f1np1\n"
        "10.112.4.2       0x1         0x2         02:fc:00:00:00:03     *\n"
        "10.112.4.2       0x1         0x2         02:fc:00:00:00:03     *        "
        "a_name_far_too_long_for_linux\n"
        "10.112.4.2       0x1         0x2         02:fc:00:00:00:03     *        ens5f1np1";
    struct fsc_nic_neigh e[8];
    size_t bad = 99, dropped = 99;
    size_t n = fsc_nic_neigh_parse(text, strlen(text), e, 8, &bad, &dropped);
    CHECK_INT(n, 4);
    CHECK_INT(bad, 4); /* .256, flags without 0x, 5 fields, device too long */
    CHECK_INT(dropped, 0);
    CHECK_INT(e[0].addr, IP(10, 112, 1, 2));
    CHECK_INT(e[0].flags, FSC_NIC_ATF_COM);
    CHECK_STR(e[0].dev, "ens8f0np0");
    CHECK_INT(e[1].addr, IP(10, 112, 3, 2));
    CHECK_INT(e[1].flags, 0);
    CHECK_STR(e[1].dev, "ens5f0np0");
    CHECK_INT(e[2].flags, FSC_NIC_ATF_COM | FSC_NIC_ATF_PERM);
    CHECK_STR(e[2].dev, "ens8f1np1");
    CHECK_INT(e[3].addr, IP(10, 112, 4, 2)); /* last line without a newline */
    CHECK_STR(e[3].dev, "ens5f1np1");

    /* A full output array: the rest is counted, not written. */
    n = fsc_nic_neigh_parse(text, strlen(text), e, 2, &bad, &dropped);
    CHECK_INT(n, 2);
    CHECK_INT(dropped, 2);
    /* Header only, empty text, NULL counters. */
    const char *hdr = "IP address       HW type     Flags       HW address            Mask     "
                      "Device\n";
    CHECK_INT(fsc_nic_neigh_parse(hdr, strlen(hdr), e, 8, &bad, NULL), 0);
    CHECK_INT(bad, 0);
    CHECK_INT(fsc_nic_neigh_parse("", 0, e, 8, NULL, NULL), 0);
    /* A header is only a header on the first line. */
    const char *late = "10.1.1.1 0x1 0x2 aa:bb:cc:dd:ee:ff * eth0\nIP address HW type\n";
    CHECK_INT(fsc_nic_neigh_parse(late, strlen(late), e, 8, &bad, NULL), 1);
    CHECK_INT(bad, 1);
}

/* ---- host check ---------------------------------------------------------------------- */

/* Two cables between nodes 1 and 2 on physical ports 1 and 2, default
 * layout: port 1 is card 7 (ens8f0np0 / ens8f1np1), port 2 is card 4
 * (ens5f0np0 / ens5f1np1). Node 1's ports in order give links 1, 2 (port 1)
 * and 3, 4 (port 2): 10.112.<link>.1 here, .2 on node 2. */
static struct fsc_cabling *two_cables(void)
{
    static const char text[] = "1-1 > 2-1\n1-2 > 2-2\n";
    struct fsc_cable_layout lay;
    char err[256];
    fsc_cable_layout_default(&lay);
    struct fsc_cabling *cab =
        fsc_cabling_parse(text, strlen(text), "t.txt", &lay, err, sizeof(err));
    if (!cab)
        fprintf(stderr, "plan: %s\n", err);
    return cab;
}

/* A host interface exactly as the plan wants it. */
static struct fsc_nic_host_iface good(const struct fsc_cabling_iface *w)
{
    struct fsc_nic_host_iface h;
    memset(&h, 0, sizeof(h));
    h.present = true;
    h.oper = FSC_OPER_UP;
    h.speed_mbps = (int64_t)(w->speed_bps / 1000000u);
    h.n_addrs = 1;
    h.addr[0] = w->addr;
    h.prefix[0] = 30;
    return h;
}

static void neigh_set(struct fsc_nic_neigh *e, uint32_t addr, uint32_t flags, const char *dev)
{
    e->addr = addr;
    e->flags = flags;
    snprintf(e->dev, sizeof(e->dev), "%s", dev);
}

/* The verdict's bad[] as a string of five digits (missing down speed
 * address peer), e.g. "00010". */
static const char *bits(const struct fsc_cable_verdict *v, char out[8])
{
    for (int k = 0; k < FSC_CABLE__COUNT; k++)
        out[k] = (char)('0' + v->bad[k]);
    out[FSC_CABLE__COUNT] = '\0';
    return out;
}

static void cable_check_kinds(void)
{
    struct fsc_cabling *cab = two_cables();
    CHECK(cab != NULL);
    if (!cab)
        return;
    const struct fsc_cabling_iface *a = fsc_cabling_find(cab, 1, "ens8f0np0");
    const struct fsc_cabling_iface *b = fsc_cabling_find(cab, 1, "ens8f1np1");
    CHECK(a && b && a->cabled && b->cabled);
    if (!a || !b) {
        fsc_cabling_destroy(cab);
        return;
    }
    CHECK_INT(a->addr, IP(10, 112, 1, 1));
    CHECK_INT(a->peer_addr, IP(10, 112, 1, 2));
    CHECK_INT(b->addr, IP(10, 112, 2, 1));
    CHECK_INT(a->speed_bps, 400000000000ull);
    CHECK_STR(fsc_cable_kind_name(FSC_CABLE_PEER), "peer");
    CHECK_STR(fsc_cable_kind_name(FSC_CABLE_MISSING), "missing");

    struct fsc_nic_neigh nb[4];
    neigh_set(&nb[0], IP(10, 112, 1, 2), FSC_NIC_ATF_COM, "ens8f0np0");
    neigh_set(&nb[1], IP(10, 112, 2, 2), FSC_NIC_ATF_COM, "ens8f1np1");
    struct fsc_cable_verdict v;
    char s[8];

    struct fsc_nic_host_iface h = good(a);
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00000");
    CHECK_INT(v.peer_seen, FSC_PEER_OK);
    CHECK_INT(v.checked[FSC_CABLE_PEER], 1);

    /* missing: nothing else is judged */
    h = good(a);
    h.present = false;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "10000");
    CHECK_INT(v.checked[FSC_CABLE_DOWN] + v.checked[FSC_CABLE_ADDRESS], 0);

    /* down: speed and peer are not judged, the address still is */
    h = good(a);
    h.oper = FSC_OPER_DOWN;
    h.speed_mbps = -1;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "01000");
    CHECK_INT(v.checked[FSC_CABLE_SPEED], 0);
    CHECK_INT(v.checked[FSC_CABLE_PEER], 0);
    h.addr[0] = IP(10, 112, 1, 5);
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "01010");

    /* speed: 200G where 400G is planned; unknown while up counts too */
    h = good(a);
    h.speed_mbps = 200000;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00100");
    h.speed_mbps = -1;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00100");

    /* address: wrong host part, wrong prefix, a second address, none.
     * The peer is then not judged (the address explains it). */
    h = good(a);
    h.addr[0] = IP(10, 112, 1, 5);
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00010");
    CHECK_INT(v.checked[FSC_CABLE_PEER], 0);
    h = good(a);
    h.prefix[0] = 24;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00010");
    h = good(a);
    h.n_addrs = 2;
    h.addr[1] = IP(192, 168, 0, 1);
    h.prefix[1] = 24;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00010");
    h = good(a);
    h.n_addrs = 0;
    fsc_cable_check(a, &h, nb, 2, true, &v);
    CHECK_STR(bits(&v, s), "00010");

    /* peer: no entry, an incomplete entry here, complete only elsewhere */
    h = good(a);
    fsc_cable_check(a, &h, nb + 1, 1, true, &v);
    CHECK_STR(bits(&v, s), "00001");
    CHECK_INT(v.peer_seen, FSC_PEER_NONE);
    struct fsc_nic_neigh inc[2];
    neigh_set(&inc[0], IP(10, 112, 1, 2), 0, "ens8f0np0");
    neigh_set(&inc[1], IP(10, 112, 1, 2), FSC_NIC_ATF_COM, "ens8f1np1");
    fsc_cable_check(a, &h, inc, 1, true, &v);
    CHECK_STR(bits(&v, s), "00001");
    CHECK_INT(v.peer_seen, FSC_PEER_INCOMPLETE);
    fsc_cable_check(a, &h, inc + 1, 1, true, &v);
    CHECK_STR(bits(&v, s), "00001");
    CHECK_INT(v.peer_seen, FSC_PEER_ELSEWHERE);
    /* both: the incomplete entry on the planned interface says more */
    fsc_cable_check(a, &h, inc, 2, true, &v);
    CHECK_INT(v.peer_seen, FSC_PEER_INCOMPLETE);

    /* a fixture tree (check_addr false): address and peer read 0 */
    h = good(a);
    h.n_addrs = 0;
    fsc_cable_check(a, &h, NULL, 0, false, &v);
    CHECK_STR(bits(&v, s), "00000");
    CHECK_INT(v.checked[FSC_CABLE_ADDRESS], 0);
    fsc_cable_check(a, &h, NULL, 0, true, &v);
    CHECK_STR(bits(&v, s), "00010");
    fsc_cabling_destroy(cab);
}

/* The integration test's scene on synthetic views: node 1 of the two-cable
 * plan, one interface with a wrong address, the two links of port 2 cross-
 * connected (np0 to the peer's np1 and back). With arp_ignore=1 on the peer
 * the requests for 10.112.3.2 (out of ens5f0np0) and 10.112.4.2 (out of
 * ens5f1np1) reach the wrong interfaces and stay unanswered; the peer's
 * replies for the traffic it started itself resolved on the crossed links.
 * Expected: address on ens8f1np1, peer on both ens5 links, nothing else. */
static void cable_check_swapped_pair(void)
{
    struct fsc_cabling *cab = two_cables();
    CHECK(cab != NULL);
    if (!cab)
        return;
    const struct fsc_cabling_iface *ifs = fsc_cabling_node(cab, 1);
    CHECK(ifs != NULL);
    if (!ifs) {
        fsc_cabling_destroy(cab);
        return;
    }
    struct fsc_nic_neigh nb[6];
    neigh_set(&nb[0], IP(10, 112, 1, 2), FSC_NIC_ATF_COM, "ens8f0np0");
    neigh_set(&nb[1], IP(10, 112, 2, 2), 0, "ens8f1np1"); /* never asked: no route */
    neigh_set(&nb[2], IP(10, 112, 3, 2), 0, "ens5f0np0");
    neigh_set(&nb[3], IP(10, 112, 4, 2), 0, "ens5f1np1");
    neigh_set(&nb[4], IP(10, 112, 3, 2), FSC_NIC_ATF_COM, "ens5f1np1");
    neigh_set(&nb[5], IP(10, 112, 4, 2), FSC_NIC_ATF_COM, "ens5f0np0");
    char got[512] = "", s[8];
    size_t cabled = 0;
    for (size_t i = 0; i < FSC_CABLING_IFACES; i++) {
        const struct fsc_cabling_iface *w = &ifs[i];
        if (!w->cabled)
            continue;
        cabled++;
        struct fsc_nic_host_iface h = good(w);
        if (strcmp(w->ifname, "ens8f1np1") == 0)
            h.addr[0] = IP(10, 112, 2, 5);
        struct fsc_cable_verdict v;
        fsc_cable_check(w, &h, nb, 6, true, &v);
        size_t len = strlen(got);
        snprintf(got + len, sizeof(got) - len, "%s=%s ", w->ifname, bits(&v, s));
    }
    CHECK_INT(cabled, 4);
    /* map order: port 1 np0, np1, port 2 np0, np1 */
    CHECK_STR(got, "ens8f0np0=00000 ens8f1np1=00010 ens5f0np0=00001 ens5f1np1=00001 ");
    fsc_cabling_destroy(cab);
}

/* ---- node aggregate ------------------------------------------------------------------ */

static void aggregate_math(void)
{
    struct fsc_nic_agg agg;
    struct fsc_nic_agg_result r;
    const int64_t T0 = 1700000000000000000LL, MS = 1000000;
    CHECK_INT(fsc_nic_agg_init(&agg, 2, 0), -EINVAL);
    CHECK_INT(fsc_nic_agg_init(&agg, 2, 1000 * MS), 0);

    /* Baselines: nothing is counted before the first tick. */
    fsc_nic_agg_observe(&agg, 0, FSC_NIC_AGG_RX, 1000);
    fsc_nic_agg_observe(&agg, 0, FSC_NIC_AGG_TX, 0);
    fsc_nic_agg_observe(&agg, 1, FSC_NIC_AGG_TX, 500);
    CHECK_INT(fsc_nic_agg_tick(&agg, T0, 0, &r), 0);

    /* Ten polls 100 ms apart: port 0 rx +1250 B per poll (except poll 4,
     * whose read failed: poll 5 brings +2500), port 1 tx +2500 B per poll
     * except poll 6, where the counter resets to 100 (that delta is
     * dropped; poll 7 counts from 100). Ignored: an out-of-range port. */
    uint64_t rx0 = 1000, tx1 = 500;
    for (int k = 1; k <= 10; k++) {
        rx0 += 1250;
        if (k != 4)
            fsc_nic_agg_observe(&agg, 0, FSC_NIC_AGG_RX, rx0);
        tx1 = k == 6 ? 100 : tx1 + 2500;
        fsc_nic_agg_observe(&agg, 1, FSC_NIC_AGG_TX, tx1);
        fsc_nic_agg_observe(&agg, 7, FSC_NIC_AGG_TX, 1u << 30);
        int done = fsc_nic_agg_tick(&agg, T0 + k * 100 * MS, 400000, &r);
        CHECK_INT(done, k == 10);
    }
    /* rx: 10 x 1250 B = 12500 B in 1 s = 100000 b/s, 0.25 of 400 kb/s.
     * tx: 9 x 2500 B (one dropped) = 22500 B = 180000 b/s. */
    CHECK_INT(r.t_start_ns, T0);
    CHECK_INT(r.t_end_ns, T0 + 1000 * MS);
    CHECK_NEAR(r.bits_per_second[FSC_NIC_AGG_RX], 100000.0, 1e-6);
    CHECK_NEAR(r.bits_per_second[FSC_NIC_AGG_TX], 180000.0, 1e-6);
    CHECK_NEAR(r.efficiency[FSC_NIC_AGG_RX], 0.25, 1e-12);
    CHECK_NEAR(r.efficiency[FSC_NIC_AGG_TX], 0.45, 1e-12);
    CHECK_INT(agg.resets, 1);

    /* The next window closes on the first poll at least 1 s later, and
     * divides by the span that bounds its deltas: 1.05 s. Unknown capacity:
     * efficiency -1. */
    for (int k = 1; k <= 7; k++) {
        tx1 += 3000;
        fsc_nic_agg_observe(&agg, 1, FSC_NIC_AGG_TX, tx1);
        int done = fsc_nic_agg_tick(&agg, T0 + 1000 * MS + k * 150 * MS, 0, &r);
        CHECK_INT(done, k == 7);
    }
    CHECK_NEAR(r.bits_per_second[FSC_NIC_AGG_TX], 7 * 3000 * 8 / 1.05, 1e-6);
    CHECK_NEAR(r.bits_per_second[FSC_NIC_AGG_RX], 0, 0);
    CHECK_NEAR(r.efficiency[FSC_NIC_AGG_TX], -1, 0);
    fsc_nic_agg_fini(&agg);
    fsc_nic_agg_fini(&agg); /* twice is harmless */
}

/* ---- events ------------------------------------------------------------------------------ */

static void event_kinds_text_and_count(void)
{
    CHECK_STR(fsc_event_kind_name(FSC_EV_CABLE_MISMATCH), "cable_mismatch");
    CHECK_STR(fsc_event_kind_name(FSC_EV_PCIE_DEGRADED), "pcie_degraded");
    CHECK_STR(fsc_event_kind_name(FSC_EV_UPLINK_IMBALANCE), "uplink_imbalance");

    struct fsc_registry *reg = fsc_registry_create(1000);
    uint16_t src;
    CHECK(reg != NULL);
    if (!reg)
        return;
    CHECK_INT(fsc_registry_source_add(reg, "b300-01", 0, &src), 0);
    const struct fsc_label mis[] = {
        {"device", "b300-01"}, {"port", "ens8f1np1"}, {"node", "1"}, {"kind", "address"}};
    const struct fsc_label pci[] = {
        {"device", "b300-01"}, {"port", "ens2f0np0"}, {"pci", "0000:21:00.0"}};
    fsc_series_id a = fsc_registry_intern(reg, src, "fabric_cable_mismatch", mis, 4);
    fsc_series_id p = fsc_registry_intern(reg, src, "fabric_pcie_link_degraded", pci, 3);
    CHECK(a != FSC_SERIES_NONE && p != FSC_SERIES_NONE);

    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_CABLE_MISMATCH;
    ev.phase = FSC_EV_START;
    ev.series = a;
    ev.t_start_ns = 1700000000000000000LL;
    fsc_event_add_aux(&ev, FSC_EF_PLANNED_ADDRESS, 30, IP(10, 112, 2, 1));
    fsc_event_add_aux(&ev, FSC_EF_ADDRESS, 30, IP(10, 112, 2, 5));
    char line[512];
    fsc_event_format(&ev, reg, line, sizeof(line));
    CHECK_STR(line, "kind=cable_mismatch phase=start device=b300-01 mismatch=address node=1 "
                    "port=ens8f1np1 start=2023-11-14T22:13:20.000000000Z "
                    "planned_address=10.112.2.1/30 address=10.112.2.5/30");
    ev.n_fields = 0;
    fsc_event_add_aux(&ev, FSC_EF_PLANNED_ADDRESS, 30, IP(10, 112, 2, 1));
    fsc_event_add_aux(&ev, FSC_EF_ADDRESS, 0, 0); /* no address at all */
    ev.phase = FSC_EV_END;
    ev.t_end_ns = ev.t_start_ns + 10000000000LL;
    fsc_event_format(&ev, reg, line, sizeof(line));
    CHECK_STR(line, "kind=cable_mismatch phase=end device=b300-01 mismatch=address node=1 "
                    "port=ens8f1np1 start=2023-11-14T22:13:20.000000000Z "
                    "end=2023-11-14T22:13:30.000000000Z duration_ms=10000.000 "
                    "planned_address=10.112.2.1/30 address=none");

    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_PCIE_DEGRADED;
    ev.phase = FSC_EV_START;
    ev.series = p;
    ev.t_start_ns = 1700000000000000000LL;
    fsc_event_add(&ev, FSC_EF_SPEED_GTS, 32);
    fsc_event_add(&ev, FSC_EF_MAX_SPEED_GTS, 64);
    fsc_event_add(&ev, FSC_EF_WIDTH, 8);
    fsc_event_add(&ev, FSC_EF_MAX_WIDTH, 16);
    fsc_event_format(&ev, reg, line, sizeof(line));
    CHECK_STR(line, "kind=pcie_degraded phase=start device=b300-01 pci=0000:21:00.0 "
                    "port=ens2f0np0 start=2023-11-14T22:13:20.000000000Z speed_gts=32 "
                    "max_speed_gts=64 width=8 max_width=16");

    /* Published through the engine: on the bus, counted once per START. */
    struct fsc_event_bus *bus = fsc_event_bus_create(16);
    struct fsc_engine_config cfg;
    fsc_engine_config_defaults(&cfg);
    char err[256];
    struct fsc_engine *eng = bus ? fsc_engine_create(&cfg, bus, err, sizeof(err)) : NULL;
    struct fsc_event_sub *sub = bus ? fsc_event_subscribe(bus) : NULL;
    CHECK(eng != NULL && sub != NULL);
    if (eng && sub) {
        fsc_engine_publish(eng, &ev);
        ev.phase = FSC_EV_END;
        fsc_engine_publish(eng, &ev);
        struct fsc_event out[4];
        CHECK_INT(fsc_event_poll(sub, out, 4, NULL), 2);
        CHECK_INT(out[0].kind, FSC_EV_PCIE_DEGRADED);
        CHECK_INT(out[0].phase, FSC_EV_START);
        CHECK_INT(out[1].phase, FSC_EV_END);
        struct fsc_engine_stats st;
        fsc_engine_stats_get(eng, &st);
        CHECK_INT(st.events[FSC_EV_PCIE_DEGRADED], 1);
        CHECK_INT(st.events[FSC_EV_CABLE_MISMATCH], 0);
    }
    fsc_event_unsubscribe(sub);
    fsc_engine_destroy(eng);
    fsc_event_bus_destroy(bus);
    fsc_registry_destroy(reg);
}

TEST_MAIN(TEST(neigh_parse_table), TEST(cable_check_kinds), TEST(cable_check_swapped_pair),
          TEST(aggregate_math), TEST(event_kinds_text_and_count))
