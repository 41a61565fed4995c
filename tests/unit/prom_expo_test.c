/* What the exposition does with a series' name and labels on the way out
 * (docs/METRICS.md): topology labels taken off into the info families, a
 * re-cabled port's older series not shown twice, a family renamed to a base
 * unit with its value scaled, and the trailing maxima of a queue peak. The
 * expected text is written from the rules and the family table's HELP; the
 * maxima from the definition (the highest sample of the 5 s slots that
 * cover the window), computed here by brute force. */
#include "prom_fixture.h"

#include "model/metric_families.h"

/* The HELP line of a listed family, as the table has it. */
static void help_line(char *out, size_t cap, const char *name)
{
    const struct fsc_metric_family *f = fsc_metric_family_named(name);
    CHECK(f != NULL);
    snprintf(out, cap, "# HELP %s %s", name, f ? f->help : "");
}

/* The part of an exposition between `from` (a line start) and the next
 * "# HELP" after it, or NULL. Owned by the caller. */
static char *family_text(const char *text, const char *from)
{
    const char *s = strstr(text, from);
    if (!s)
        return NULL;
    const char *e = strstr(s + 1, "\n# HELP ");
    size_t n = e ? (size_t)(e + 1 - s) : strlen(s);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

static void check_family(const char *text, const char *name, const char *lines)
{
    char head[1024], want[4096];
    help_line(head, sizeof(head), name);
    snprintf(want, sizeof(want), "%s\n# TYPE %s gauge\n%s", head, name, lines);
    char *got = family_text(text, head);
    CHECK(got != NULL);
    if (got)
        CHECK_STR(got, want);
    free(got);
}

/* A leaf port with topology labels, a B300 interface from the cable plan
 * (card, link, node, peer, peer_node), its PCIe series (pci) and the node's
 * RDMA efficiency (node only): the series keep device, port and their own
 * labels; the topology is one line per port and per node. */
static void info_families_exact(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits c =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const struct fsc_traits g =
        pfx_traits(FSC_KIND_GAUGE, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const char *leaf[] = {"device", "leaf1", "port", "et-0/0/0",    "role", "uplink",
                          "rail",   "2",     "peer", "spine1:swp1", NULL};
    const char *nic[] = {"card",      "0",    "device", "b300-01",   "link",
                         "3",         "node", "1",      "peer",      "b300-03:ens1f0np0",
                         "peer_node", "3",    "port",   "ens1f0np0", NULL};
    const char *pcie[] = {"card",         "0",    "device",    "b300-01", "node", "1", "pci",
                          "0000:03:00.0", "port", "ens1f0np0", NULL};
    const char *node[] = {"device", "b300-01", "direction", "rx", "node", "1", NULL};
    fsc_series_id a = pfx_series(&p, 0, "fabric_port_rx_errors_total", &c, leaf);
    fsc_series_id b = pfx_series(&p, 1, "fabric_nic_cnp_ignored_total", &c, nic);
    fsc_series_id d = pfx_series(&p, 1, "fabric_pcie_link_degraded", &g, pcie);
    fsc_series_id e = pfx_series(&p, 1, "fabric_node_rdma_efficiency_ratio", &g, node);
    pfx_feed_u(&p, a, T0, 7);
    pfx_feed_u(&p, b, T0, 8);
    pfx_feed_u(&p, d, T0, 1);
    pfx_feed_d(&p, e, T0, 0.5);
    pfx_render(&p, FSC_PROM_TEXT, T0);
    const char *o = p.out.data;

    CHECK(pfx_line_at(o, "fabric_port_rx_errors_total{device=\"leaf1\",port=\"et-0/0/0\"} 7") >= 0);
    CHECK(pfx_line_at(o, "fabric_nic_cnp_ignored_total{device=\"b300-01\",port=\"ens1f0np0\"} 8") >=
          0);
    CHECK(pfx_line_at(o, "fabric_pcie_link_degraded{device=\"b300-01\",port=\"ens1f0np0\"} 1") >=
          0);
    CHECK(pfx_line_at(o, "fabric_node_rdma_efficiency_ratio{device=\"b300-01\",direction=\"rx\"} "
                         "0.5") >= 0);
    check_family(o, "fabric_port_info",
                 "fabric_port_info{device=\"leaf1\",peer=\"spine1\",peer_port=\"swp1\","
                 "port=\"et-0/0/0\",rail=\"2\",role=\"uplink\"} 1\n"
                 "fabric_port_info{device=\"b300-01\",link=\"3\",peer=\"b300-03\",peer_node=\"3\","
                 "peer_port=\"ens1f0np0\",port=\"ens1f0np0\"} 1\n");
    check_family(o, "fabric_nic_info",
                 "fabric_nic_info{card=\"0\",device=\"b300-01\",pci=\"0000:03:00.0\","
                 "port=\"ens1f0np0\"} 1\n");
    check_family(o, "fabric_node_info", "fabric_node_info{device=\"b300-01\",node=\"1\"} 1\n");
    /* No series line carries a topology label. */
    CHECK(strstr(o, "_total{card=") == NULL && strstr(o, ",peer=\"b300-03:") == NULL);

    /* Once the series are stale (stale_after 30 s) their topology goes too. */
    pfx_render(&p, FSC_PROM_TEXT, T0 + 31 * NS);
    CHECK_INT(pfx_count(p.out.data, "fabric_port_info{"), 0);
    CHECK_INT(pfx_count(p.out.data, "fabric_node_info{"), 0);
    pfx_close(&p);
}

/* A port re-cabled: its source interns its series again with the new peer.
 * The family shows the newest series once, the info line the new peer. */
static void recabled_port_superseded(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits c =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const char *before[] = {"device", "h1", "port", "p1", "peer", "h2:p4", NULL};
    const char *after[] = {"device", "h1", "port", "p1", "peer", "h3:p2", NULL};
    const char *other[] = {"device", "h1", "port", "p2", "peer", "h2:p5", NULL};
    fsc_series_id old = pfx_series(&p, 0, "fabric_port_rx_errors_total", &c, before);
    fsc_series_id o2 = pfx_series(&p, 0, "fabric_port_rx_errors_total", &c, other);
    pfx_feed_u(&p, old, T0, 5);
    pfx_feed_u(&p, o2, T0, 6);
    pfx_render(&p, FSC_PROM_TEXT, T0);
    fsc_series_id now = pfx_series(&p, 0, "fabric_port_rx_errors_total", &c, after);
    CHECK(now != old);
    pfx_feed_u(&p, now, T0 + NS, 9);
    pfx_feed_u(&p, old, T0 + NS, 5); /* not yet stale: still moving */
    pfx_render(&p, FSC_PROM_TEXT, T0 + NS);
    const char *o = p.out.data;
    CHECK_INT(pfx_count(o, "fabric_port_rx_errors_total{device=\"h1\",port=\"p1\"}"), 1);
    CHECK(pfx_line_at(o, "fabric_port_rx_errors_total{device=\"h1\",port=\"p1\"} 9") >= 0);
    CHECK(pfx_line_at(o, "fabric_port_rx_errors_total{device=\"h1\",port=\"p2\"} 6") >= 0);
    check_family(o, "fabric_port_info",
                 "fabric_port_info{device=\"h1\",peer=\"h3\",peer_port=\"p2\",port=\"p1\"} 1\n"
                 "fabric_port_info{device=\"h1\",peer=\"h2\",peer_port=\"p5\",port=\"p2\"} 1\n");
    pfx_close(&p);
}

/* Families the table renames to a base unit: the value scaled (bits / 8),
 * the HELP the table's; a passthrough whose name took a base unit
 * (traits.unit milliseconds) shown in seconds. */
static void renamed_family_scaled(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits g =
        pfx_traits(FSC_KIND_GAUGE, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const struct fsc_traits c =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    struct fsc_traits ms = g;
    ms.unit = FSC_UNIT_MILLISECONDS;
    const char *port[] = {"device", "h1", "port", "p1", NULL};
    fsc_series_id s = pfx_series(&p, 1, "fabric_port_link_speed_bits_per_second", &g, port);
    fsc_series_id b = pfx_series(&p, 1, "fabric_port_rx_phy_bits_total", &c, port);
    fsc_series_id t = pfx_series(&p, 1, "fabric_cumulus_last_change_time_seconds", &ms, port);
    pfx_feed_u(&p, s, T0, 400000000000ULL); /* 400G */
    pfx_feed_u(&p, b, T0, 8000000001ULL);
    pfx_feed_u(&p, t, T0, 1500);
    pfx_render(&p, FSC_PROM_TEXT, T0);
    const char *o = p.out.data;
    char head[1024];
    help_line(head, sizeof(head), "fabric_port_link_speed_bytes_per_second");
    CHECK(pfx_line_at(o, head) >= 0);
    CHECK(pfx_line_at(o, "fabric_port_link_speed_bytes_per_second{device=\"h1\",port=\"p1\"} "
                         "50000000000") >= 0);
    CHECK(pfx_line_at(o, "fabric_port_rx_phy_bytes_total{device=\"h1\",port=\"p1\"} "
                         "1000000000.125") >= 0);
    CHECK(pfx_line_at(o, "fabric_cumulus_last_change_time_seconds{device=\"h1\",port=\"p1\"} "
                         "1.5") >= 0);
    CHECK(strstr(o, "_bits") == NULL);
    pfx_close(&p);
}

/* ---- trailing maxima ------------------------------------------------------- */

#define SLOT (5 * NS)

/* The highest v[i] of the samples t[i] whose 5 s slot is one of those
 * covering `window` before the newest sample's slot (engine.h). */
static double brute_max(const int64_t *t, const double *v, size_t n, int64_t window)
{
    int64_t last = t[n - 1] / SLOT, back = window / SLOT;
    double best = -1;
    for (size_t i = 0; i < n; i++)
        if (t[i] / SLOT >= last - back && v[i] > best)
            best = v[i];
    return best;
}

/* A Junos-like max-queue-len every 2 s, 100 B but one burst of 5000 B at
 * +6 s: the burst stays in the 15s window until the newest report's slot is
 * 4 slots past its own (+25 s), in the 60s window past +60 s. */
static void peak_max_exact(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits q =
        pfx_traits(FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, FSC_SIG_QUEUE_PEAK, FSC_DIR_TX, 0);
    const char *lab[] = {"device", "leaf1", "port", "et-0/0/3", "queue", "3", NULL};
    fsc_series_id id = pfx_series(&p, 0, "fabric_port_queue_peak_bytes", &q, lab);
    int64_t t[40];
    double v[40];
    /* Renders after these many samples, and the maxima they must show. */
    static const size_t at[] = {4, 10, 13, 14, 32, 33, 34, 35, 36};
    size_t next = 0;
    char head[1024];
    help_line(head, sizeof(head), "fabric_port_queue_peak_max_bytes");
    for (size_t k = 0; k < 36; k++) {
        t[k] = T0 + (int64_t)k * 2 * NS;
        v[k] = k == 3 ? 5000 : 100;
        pfx_feed_u(&p, id, t[k], (uint64_t)v[k]);
        if (next < sizeof(at) / sizeof(at[0]) && k + 1 == at[next]) {
            next++;
            pfx_render(&p, FSC_PROM_TEXT, t[k]);
            char want[2048];
            snprintf(want, sizeof(want),
                     "%s\n# TYPE fabric_port_queue_peak_max_bytes gauge\n"
                     "fabric_port_queue_peak_max_bytes{device=\"leaf1\",port=\"et-0/0/3\","
                     "queue=\"3\",window=\"15s\"} %.0f\n"
                     "fabric_port_queue_peak_max_bytes{device=\"leaf1\",port=\"et-0/0/3\","
                     "queue=\"3\",window=\"60s\"} %.0f\n",
                     head, brute_max(t, v, k + 1, 15 * NS), brute_max(t, v, k + 1, 60 * NS));
            char *got = family_text(p.out.data, head);
            CHECK(got != NULL);
            if (got)
                CHECK_STR(got, want);
            free(got);
        }
    }
    /* The brute force's answers at the edges, by hand: after 13 samples
     * (newest +24 s, slot 4) the burst (slot 1) is still in; after 14
     * (+26 s, slot 5) it is out of 15s, in 60s; after 33 (+64 s, slot 12)
     * still in 60s; after 36 (+70 s, slot 14) out. */
    CHECK(brute_max(t, v, 13, 15 * NS) == 5000 && brute_max(t, v, 14, 15 * NS) == 100);
    CHECK(brute_max(t, v, 33, 60 * NS) == 5000 && brute_max(t, v, 36, 60 * NS) == 100);
    /* The report itself still shows only the last interval. */
    CHECK(pfx_line_at(p.out.data, "fabric_port_queue_peak_bytes{device=\"leaf1\",port=\"et-0/0/3\","
                                  "queue=\"3\"} 100") >= 0);
    pfx_close(&p);
}

TEST_MAIN(TEST(info_families_exact), TEST(recabled_port_superseded), TEST(renamed_family_scaled),
          TEST(peak_max_exact))
