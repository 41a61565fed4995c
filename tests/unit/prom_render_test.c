/* Prometheus renderer: exact exposition text in both formats for a small
 * fixture (the expected text is written by hand from Prometheus'
 * exposition_formats.md, OpenMetrics 1.0 and docs/METRICS.md), staleness, series order, the buffer
 * limit, histograms and derived families. The text primitives are in prom_text_test.c. */
#include "prom_fixture.h"

/* ---- the small fixture --------------------------------------------------- */

/* leaf1: rx bytes of two ports (no link speed: bits/s only), tx bytes of
 *        one port that never got a sample, a queue-peak gauge whose `descr`
 *        label needs every escape;
 * host1: a 32-bit reorder-style counter that wraps, a double passthrough
 *        counter named without _total.
 * Two samples each, at T0 and T0 + 1 s, so the first 1 s window completes. */
static void small_fixture(struct pfx *p)
{
    const struct fsc_traits rx =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_RX, 0);
    const struct fsc_traits tx =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_TX, 0);
    const struct fsc_traits gauge =
        pfx_traits(FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const struct fsc_traits c32 =
        pfx_traits(FSC_KIND_COUNTER, 32, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const struct fsc_traits c53 =
        pfx_traits(FSC_KIND_COUNTER, 53, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);

    const char *p0[] = {"device", "leaf1", "port", "et-0/0/0", NULL};
    const char *p1[] = {"port", "et-0/0/1", "device", "leaf1", NULL};
    const char *q3[] = {"device", "leaf1", "port",  "et-0/0/0",
                        "queue",  "3",     "descr", "say \"hi\" \\ C:\\path\nline2",
                        NULL};
    const char *nic[] = {"device", "host1", "port", "ens1f0np0", NULL};

    fsc_series_id a = pfx_series(p, 0, "fabric_port_rx_bytes_total", &rx, p0);
    fsc_series_id b = pfx_series(p, 0, "fabric_port_rx_bytes_total", &rx, p1);
    pfx_series(p, 0, "fabric_port_tx_bytes_total", &tx, p1);
    fsc_series_id g = pfx_series(p, 0, "fabric_port_queue_peak_bytes", &gauge, q3);
    fsc_series_id w = pfx_series(p, 1, "fabric_nic_out_of_sequence_total", &c32, nic);
    fsc_series_id d = pfx_series(p, 1, "fabric_mlx5_vendor_thing", &c53, nic);

    pfx_feed_u(p, a, T0, 1000);
    pfx_feed_u(p, b, T0, 5000);
    pfx_feed_u(p, g, T0, 65536);
    pfx_feed_u(p, w, T0, 4294967000u);
    pfx_feed_d(p, d, T0, 2500000000.25);
    /* +125000 B and +250000 B in the second: 1 and 2 Mbit/s. */
    pfx_feed_u(p, a, T0 + NS, 126000);
    pfx_feed_u(p, b, T0 + NS, 255000);
    pfx_feed_u(p, g, T0 + NS, 131072);
    pfx_feed_u(p, w, T0 + NS, 100); /* wrapped: +396 */
    pfx_feed_d(p, d, T0 + NS, 2500000100.75);
}

/* The self-metrics every small-fixture render ends with (first render: the
 * previous scrape's duration, lines and bytes are 0). */
#define SELF_METRICS(SAMPLES, VERDICTS, WRAPS, GAPS, ARRIVAL, UNKNOWN, INTERVAL, SERIES, DROPPED,  \
                     REJECTED, EVENTS, RESETS, WITHHELD, COPYCH, COPYRL, SCRAPE)                   \
    "# HELP fabricscope_build_info Always 1; the version and commit labels tell which "            \
    "fabricscope runs.\n"                                                                          \
    "# TYPE fabricscope_build_info gauge\n"                                                        \
    "fabricscope_build_info{commit=\"unknown\",version=\"" FSC_VERSION "\"} 1\n"                   \
    "# HELP fabricscope_up 1 while the source is running and healthy, else 0.\n"                   \
    "# TYPE fabricscope_up gauge\n"                                                                \
    "fabricscope_up{source=\"leaf1\",type=\"synthetic\"} 1\n"                                      \
    "fabricscope_up{source=\"host1\",type=\"synthetic\"} 0\n"                                      \
    "# HELP " SAMPLES " Samples the sources gave the engine (samples).\n"                          \
    "# TYPE " SAMPLES " counter\n"                                                                 \
    "fabricscope_samples_total 10\n"                                                               \
    "# HELP " VERDICTS " What the rate engine did with each sample, by verdict (samples).\n"       \
    "# TYPE " VERDICTS " counter\n"                                                                \
    "fabricscope_sample_verdicts_total{verdict=\"baseline\"} 4\n"                                  \
    "fabricscope_sample_verdicts_total{verdict=\"interval\"} 4\n"                                  \
    "fabricscope_sample_verdicts_total{verdict=\"stale_repeat\"} 0\n"                              \
    "fabricscope_sample_verdicts_total{verdict=\"duplicate\"} 0\n"                                 \
    "fabricscope_sample_verdicts_total{verdict=\"out_of_order\"} 0\n"                              \
    "fabricscope_sample_verdicts_total{verdict=\"clock_step\"} 0\n"                                \
    "fabricscope_sample_verdicts_total{verdict=\"reset\"} 0\n"                                     \
    "fabricscope_sample_verdicts_total{verdict=\"implausible\"} 0\n"                               \
    "fabricscope_sample_verdicts_total{verdict=\"gauge\"} 2\n"                                     \
    "fabricscope_sample_verdicts_total{verdict=\"deferred\"} 0\n"                                  \
    "# HELP " WRAPS " 32-bit counter wraps the rate engine unwound (wraps).\n"                     \
    "# TYPE " WRAPS " counter\n"                                                                   \
    "fabricscope_wraps_total 1\n"                                                                  \
    "# HELP " GAPS " Sample intervals longer than engine.max_gap_factor times the series' "        \
    "update period (intervals).\n"                                                                 \
    "# TYPE " GAPS " counter\n"                                                                    \
    "fabricscope_gaps_total 0\n"                                                                   \
    "# HELP " ARRIVAL " Samples without a device timestamp, placed at their arrival time "         \
    "(samples).\n"                                                                                 \
    "# TYPE " ARRIVAL " counter\n"                                                                 \
    "fabricscope_arrival_time_samples_total 0\n"                                                   \
    "# HELP " UNKNOWN " Samples the engine dropped: series id beyond engine.max_series, or no "    \
    "memory for its state (samples).\n"                                                            \
    "# TYPE " UNKNOWN " counter\n"                                                                 \
    "fabricscope_unknown_series_samples_total 0\n"                                                 \
    "# HELP " INTERVAL " Observed sample interval over the series' nominal interval, one "         \
    "observation per interval, a ratio (jitter made visible).\n"                                   \
    "# TYPE " INTERVAL " histogram\n"                                                              \
    "fabricscope_sample_interval_ratio_bucket{le=\"0.5\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"0.8\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"0.9\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"0.95\"} 0\n"                                    \
    "fabricscope_sample_interval_ratio_bucket{le=\"1.05\"} 0\n"                                    \
    "fabricscope_sample_interval_ratio_bucket{le=\"1.1\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"1.2\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"1.5\"} 0\n"                                     \
    "fabricscope_sample_interval_ratio_bucket{le=\"2\"} 0\n"                                       \
    "fabricscope_sample_interval_ratio_bucket{le=\"5\"} 0\n"                                       \
    "fabricscope_sample_interval_ratio_bucket{le=\"+Inf\"} 0\n"                                    \
    "fabricscope_sample_interval_ratio_sum 0\n"                                                    \
    "fabricscope_sample_interval_ratio_count 0\n"                                                  \
    "# HELP " SERIES " Series the registry holds for the source (series).\n"                       \
    "# TYPE " SERIES " gauge\n"                                                                    \
    "fabricscope_series{source=\"leaf1\"} 4\n"                                                     \
    "fabricscope_series{source=\"host1\"} 2\n"                                                     \
    "# HELP fabricscope_series_limit Series limit of the source (series).\n"                       \
    "# TYPE fabricscope_series_limit gauge\n"                                                      \
    "fabricscope_series_limit{source=\"leaf1\"} 100\n"                                             \
    "# HELP " DROPPED " Series refused by a series limit, counted per refused attempt (series).\n" \
    "# TYPE " DROPPED " counter\n"                                                                 \
    "fabricscope_series_dropped_total{source=\"leaf1\"} 0\n"                                       \
    "fabricscope_series_dropped_total{source=\"host1\"} 0\n"                                       \
    "# HELP " REJECTED " Series refused as invalid (series).\n"                                    \
    "# TYPE " REJECTED " counter\n"                                                                \
    "fabricscope_series_rejected_total{source=\"leaf1\"} 0\n"                                      \
    "fabricscope_series_rejected_total{source=\"host1\"} 0\n"                                      \
    "# HELP " EVENTS " Detector and source events published, START and instant phases, by kind "   \
    "(events).\n"                                                                                  \
    "# TYPE " EVENTS " counter\n"                                                                  \
    "fabricscope_events_total{kind=\"microburst\"} 0\n"                                            \
    "fabricscope_events_total{kind=\"burst\"} 0\n"                                                 \
    "fabricscope_events_total{kind=\"queue_peak\"} 0\n"                                            \
    "fabricscope_events_total{kind=\"buffer_threshold\"} 0\n"                                      \
    "fabricscope_events_total{kind=\"cnp_spike\"} 0\n"                                             \
    "fabricscope_events_total{kind=\"ecn_spike\"} 0\n"                                             \
    "fabricscope_events_total{kind=\"reorder_spike\"} 0\n"                                         \
    "fabricscope_events_total{kind=\"pfc_storm\"} 0\n"                                             \
    "fabricscope_events_total{kind=\"uplink_imbalance\"} 0\n"                                      \
    "fabricscope_events_total{kind=\"cable_mismatch\"} 0\n"                                        \
    "fabricscope_events_total{kind=\"pcie_degraded\"} 0\n"                                         \
    "fabricscope_events_total{kind=\"counter_reset\"} 0\n"                                         \
    "fabricscope_events_total{kind=\"stream_down\"} 0\n"                                           \
    "# HELP " RESETS " Counter resets that published no counter_reset event, for its once a "      \
    "minute limit (resets).\n"                                                                     \
    "# TYPE " RESETS " counter\n"                                                                  \
    "fabricscope_reset_events_suppressed_total 0\n"                                                \
    "# HELP " WITHHELD " Aligned windows completed but not emitted, shorter than their series' "   \
    "update period (windows).\n"                                                                   \
    "# TYPE " WITHHELD " counter\n"                                                                \
    "fabricscope_windows_withheld_total{window=\"1s\",reason=\"resolution\"} 0\n"                  \
    "fabricscope_windows_withheld_total{window=\"10s\",reason=\"resolution\"} 0\n"                 \
    "# HELP fabricscope_copy_groups Devices whose counters are copied on a timer, each with a "    \
    "copy grid (devices).\n"                                                                       \
    "# TYPE fabricscope_copy_groups gauge\n"                                                       \
    "fabricscope_copy_groups 0\n"                                                                  \
    "# HELP " COPYCH " Counter value changes that placed a device's copy instants (changes).\n"    \
    "# TYPE " COPYCH " counter\n"                                                                  \
    "fabricscope_copy_changes_total 0\n"                                                           \
    "# HELP " COPYRL " Times a device's copy grid started over: its copies moved (reboot, clock "  \
    "step) or its series disagree on when they were copied (relocks).\n"                           \
    "# TYPE " COPYRL " counter\n"                                                                  \
    "fabricscope_copy_relocks_total 0\n"                                                           \
    "# HELP fabricscope_scrape_duration_seconds Time the previous scrape took to render, in "      \
    "seconds.\n"                                                                                   \
    "# TYPE fabricscope_scrape_duration_seconds gauge\n"                                           \
    "fabricscope_scrape_duration_seconds 0\n"                                                      \
    "# HELP fabricscope_scrape_series Sample lines in the previous scrape (lines).\n"              \
    "# TYPE fabricscope_scrape_series gauge\n"                                                     \
    "fabricscope_scrape_series 0\n"                                                                \
    "# HELP fabricscope_scrape_bytes Bytes of the previous scrape body before compression.\n"      \
    "# TYPE fabricscope_scrape_bytes gauge\n"                                                      \
    "fabricscope_scrape_bytes 0\n"

/* The samples of the fixture: identical in both formats. */
#define S_VENDOR                                                                                   \
    "fabric_mlx5_vendor_thing_total{device=\"host1\",port=\"ens1f0np0\"} 2500000100.75\n"
#define S_OOS "fabric_nic_out_of_sequence_total{device=\"host1\",port=\"ens1f0np0\"} 100\n"
#define S_QUEUE                                                                                    \
    "fabric_port_queue_peak_bytes{descr=\"say \\\"hi\\\" \\\\ C:\\\\path\\nline2\",device="        \
    "\"leaf1\",port=\"et-0/0/0\",queue=\"3\"} 131072\n"
#define S_RX                                                                                       \
    "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/0\"} 126000\n"                      \
    "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"} 255000\n"
#define S_BITS                                                                                     \
    "# HELP fabric_port_bytes_per_second Port throughput over the last completed aligned window "  \
    "of its rate level (the first configured width; 10 s for counters copied every 2 s), in "      \
    "bytes per second.\n"                                                                          \
    "# TYPE fabric_port_bytes_per_second gauge\n"                                                  \
    "fabric_port_bytes_per_second{device=\"leaf1\",port=\"et-0/0/0\",direction=\"rx\"} 125000\n"   \
    "fabric_port_bytes_per_second{device=\"leaf1\",port=\"et-0/0/1\",direction=\"rx\"} 250000\n"

/* The HELP lines of the fixture's raw families: the family table's
 * (model/metric_families_*.c) and the mlx5 passthrough prefix's. */
#define H_VENDOR                                                                                   \
    " mlx5 counter no profile entry maps (ethtool, hw_counters or IB port counters), passed "      \
    "through under the driver's name (the driver's unit).\n"
#define H_OOS                                                                                      \
    " Packets the NIC received out of sequence (packets): reordering or loss in the fabric.\n"
#define H_QUEUE                                                                                    \
    " Highest occupancy of the egress queue in the device's last report interval, in bytes; "      \
    "held only until the next report (the _max family keeps it for a scrape).\n"
#define H_RX " Bytes received on the port, Ethernet header and FCS included.\n"

static const char want_text[] =
    "# HELP fabric_mlx5_vendor_thing_total" H_VENDOR
    "# TYPE fabric_mlx5_vendor_thing_total counter\n" S_VENDOR
    "# HELP fabric_nic_out_of_sequence_total" H_OOS
    "# TYPE fabric_nic_out_of_sequence_total counter\n" S_OOS
    "# HELP fabric_port_queue_peak_bytes" H_QUEUE
    "# TYPE fabric_port_queue_peak_bytes gauge\n" S_QUEUE "# HELP fabric_port_rx_bytes_total" H_RX
    "# TYPE fabric_port_rx_bytes_total counter\n" S_RX S_BITS SELF_METRICS(
        "fabricscope_samples_total", "fabricscope_sample_verdicts_total", "fabricscope_wraps_total",
        "fabricscope_gaps_total", "fabricscope_arrival_time_samples_total",
        "fabricscope_unknown_series_samples_total", "fabricscope_sample_interval_ratio",
        "fabricscope_series", "fabricscope_series_dropped_total",
        "fabricscope_series_rejected_total", "fabricscope_events_total",
        "fabricscope_reset_events_suppressed_total", "fabricscope_windows_withheld_total",
        "fabricscope_copy_changes_total", "fabricscope_copy_relocks_total", "");

/* OpenMetrics: counter families lose _total (their samples keep it), and
 * the exposition ends with # EOF. */
static const char want_om[] =
    "# HELP fabric_mlx5_vendor_thing" H_VENDOR "# TYPE fabric_mlx5_vendor_thing counter\n" S_VENDOR
    "# HELP fabric_nic_out_of_sequence" H_OOS "# TYPE fabric_nic_out_of_sequence counter\n" S_OOS
    "# HELP fabric_port_queue_peak_bytes" H_QUEUE
    "# TYPE fabric_port_queue_peak_bytes gauge\n" S_QUEUE "# HELP fabric_port_rx_bytes" H_RX
    "# TYPE fabric_port_rx_bytes counter\n" S_RX S_BITS SELF_METRICS(
        "fabricscope_samples", "fabricscope_sample_verdicts", "fabricscope_wraps",
        "fabricscope_gaps", "fabricscope_arrival_time_samples",
        "fabricscope_unknown_series_samples", "fabricscope_sample_interval_ratio",
        "fabricscope_series", "fabricscope_series_dropped", "fabricscope_series_rejected",
        "fabricscope_events", "fabricscope_reset_events_suppressed", "fabricscope_windows_withheld",
        "fabricscope_copy_changes", "fabricscope_copy_relocks", "") "# EOF\n";

static void text_exact(void)
{
    struct pfx p;
    if (pfx_open(&p) == 0) {
        small_fixture(&p);
        if (pfx_render(&p, FSC_PROM_TEXT, T0 + NS) == 0)
            CHECK_STR(p.out.data, want_text);
    }
    pfx_close(&p);
}

static void openmetrics_exact(void)
{
    struct pfx p;
    if (pfx_open(&p) == 0) {
        small_fixture(&p);
        if (pfx_render(&p, FSC_PROM_OPENMETRICS, T0 + NS) == 0)
            CHECK_STR(p.out.data, want_om);
        CHECK_STR(fsc_prom_content_type(FSC_PROM_OPENMETRICS),
                  "application/openmetrics-text; version=1.0.0; charset=utf-8");
        CHECK_STR(fsc_prom_content_type(FSC_PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8");
    }
    pfx_close(&p);
}

/* ---- staleness ------------------------------------------------------------ */

#define RX_A "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"a\"}"
#define RX_B "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"b\"}"
#define RX_H "fabric_port_rx_bytes_total{device=\"host1\",port=\"h\"}"

static void stale_series_disappear(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits rx =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_RX, 0);
    const char *la[] = {"device", "leaf1", "port", "a", NULL};
    const char *lb[] = {"device", "leaf1", "port", "b", NULL};
    const char *lh[] = {"device", "host1", "port", "h", NULL};
    fsc_series_id a = pfx_series(&p, 0, "fabric_port_rx_bytes_total", &rx, la);
    fsc_series_id b = pfx_series(&p, 0, "fabric_port_rx_bytes_total", &rx, lb);
    /* host1's device clock is a day behind: it is only ever compared with
     * host1's own times, so it never looks stale. */
    fsc_series_id h = pfx_series(&p, 1, "fabric_port_rx_bytes_total", &rx, lh);
    const int64_t day = 86400 * NS;
    int64_t now = T0 + 500 * MS; /* the local clock */

    pfx_feed_u(&p, a, T0, 1);
    pfx_feed_u(&p, b, T0, 1);
    pfx_feed_u(&p, h, T0 - day, 1);
    pfx_render(&p, FSC_PROM_TEXT, now);
    CHECK(pfx_line_at(p.out.data, RX_A " 1") >= 0);
    CHECK(pfx_line_at(p.out.data, RX_B " 1") >= 0);
    CHECK(pfx_line_at(p.out.data, RX_H " 1") >= 0);

    /* b and h move on for 30 s (= stale_after): a is still shown. */
    for (int k = 1; k <= 30; k++) {
        pfx_feed_u(&p, b, T0 + k * NS, 1 + (uint64_t)k);
        pfx_feed_u(&p, h, T0 - day + k * NS, 1 + (uint64_t)k);
    }
    now += 30 * NS;
    for (int i = 0; i < 2; i++) {
        pfx_render(&p, FSC_PROM_TEXT, now);
        CHECK(pfx_line_at(p.out.data, RX_A " 1") >= 0);
        CHECK(pfx_line_at(p.out.data, RX_B " 31") >= 0);
        CHECK(pfx_line_at(p.out.data, RX_H " 31") >= 0);
    }
    /* One more second: a is 31 s behind its source's newest time. The
     * renderer learns a source's newest time while it renders, so a series
     * sorted before the fresher one may show once more; by the next render
     * it is gone for good, together with its derived lines. */
    pfx_feed_u(&p, b, T0 + 31 * NS, 32);
    pfx_feed_u(&p, h, T0 - day + 31 * NS, 32);
    now += NS;
    pfx_render(&p, FSC_PROM_TEXT, now);
    pfx_render(&p, FSC_PROM_TEXT, now);
    CHECK_INT(pfx_line_at(p.out.data, RX_A " 1"), -1);
    CHECK_INT(pfx_count(p.out.data, "fabric_port_bytes_per_second{device=\"leaf1\",port=\"a\""), 0);
    CHECK(pfx_line_at(p.out.data, RX_B " 32") >= 0);
    CHECK(pfx_line_at(p.out.data, RX_H " 32") >= 0);

    /* a comes back with a fresh sample. */
    pfx_feed_u(&p, a, T0 + 31 * NS, 50);
    pfx_render(&p, FSC_PROM_TEXT, now);
    CHECK(pfx_line_at(p.out.data, RX_A " 50") >= 0);

    /* The whole of host1 goes silent: after stale_after of local time
     * without its newest device time moving, none of it is shown; leaf1,
     * still moving, is. */
    for (int k = 1; k <= 31; k++) {
        now += NS;
        pfx_feed_u(&p, a, T0 + (31 + k) * NS, 50 + (uint64_t)k);
        pfx_feed_u(&p, b, T0 + (31 + k) * NS, 32 + (uint64_t)k);
        pfx_render(&p, FSC_PROM_TEXT, now);
    }
    CHECK_INT(pfx_count(p.out.data, RX_H), 0);
    CHECK(pfx_line_at(p.out.data, RX_A " 81") >= 0);
    CHECK(pfx_line_at(p.out.data, RX_B " 63") >= 0);
    /* host1 is back as soon as it sends again. */
    pfx_feed_u(&p, h, T0 - day + 40 * NS, 40);
    pfx_render(&p, FSC_PROM_TEXT, now);
    CHECK(pfx_line_at(p.out.data, RX_H " 40") >= 0);
    pfx_close(&p);
}

/* devA now, devB dated 2200, devC now, devA again, all of one source.
 * Compared with its source's newest device time, devB's would hide devA and
 * devC; each series is judged on its own time alone: all three are shown,
 * and stay shown while they move. */
static void future_time_hides_nothing(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits rx =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_RX, 0);
    const char *la[] = {"device", "devA", "port", "p", NULL};
    const char *lb[] = {"device", "devB", "port", "p", NULL};
    const char *lc[] = {"device", "devC", "port", "p", NULL};
    fsc_series_id a = pfx_series(&p, 0, "fabric_port_rx_bytes_total", &rx, la);
    fsc_series_id b = pfx_series(&p, 0, "fabric_port_rx_bytes_total", &rx, lb);
    fsc_series_id c = pfx_series(&p, 0, "fabric_port_rx_bytes_total", &rx, lc);
    const int64_t y2200 = 7258118400LL * NS; /* 2200-01-01T00:00:00Z */
    int64_t now = T0 + 500 * MS;
    pfx_feed_u(&p, a, T0, 1);
    pfx_feed_u(&p, b, y2200, 7);
    pfx_feed_u(&p, c, T0, 3);
    pfx_feed_u(&p, a, T0 + NS, 2);
    for (int i = 0; i < 2; i++) {
        pfx_render(&p, FSC_PROM_TEXT, now);
        CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"devA\",port=\"p\"} 2") >=
              0);
        CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"devB\",port=\"p\"} 7") >=
              0);
        CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"devC\",port=\"p\"} 3") >=
              0);
        CHECK_INT(pfx_count(p.out.data, "fabric_port_rx_bytes_total{"), 3);
    }
    /* 40 s on (stale_after 30 s): A and C moved, B did not: B goes, A and C stay. */
    for (int k = 2; k <= 41; k++) {
        now += NS;
        pfx_feed_u(&p, a, T0 + k * NS, 2 + (uint64_t)k);
        pfx_feed_u(&p, c, T0 + k * NS, 3 + (uint64_t)k);
        pfx_render(&p, FSC_PROM_TEXT, now);
    }
    CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"devA\",port=\"p\"} 43") >=
          0);
    CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"devC\",port=\"p\"} 44") >=
          0);
    CHECK_INT(pfx_count(p.out.data, "device=\"devB\""), 0);
    pfx_close(&p);
}

/* ---- order ---------------------------------------------------------------- */

static void new_series_at_end_of_family(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits c =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    const char *l1[] = {"device", "leaf1", "port", "p1", NULL};
    const char *l2[] = {"device", "leaf1", "port", "p2", NULL};
    const char *l0[] = {"device", "leaf1", "port", "p0", NULL};
    fsc_series_id x1 = pfx_series(&p, 0, "fabric_x_total", &c, l1);
    fsc_series_id y1 = pfx_series(&p, 0, "fabric_y_total", &c, l1);
    fsc_series_id x2 = pfx_series(&p, 0, "fabric_x_total", &c, l2);
    pfx_feed_u(&p, x1, T0, 1);
    pfx_feed_u(&p, y1, T0, 2);
    pfx_feed_u(&p, x2, T0, 3);
    pfx_render(&p, FSC_PROM_TEXT, T0);
#define H_UNLISTED                                                                                 \
    " A series the collector's family table does not describe (docs/METRICS.md), as its source "   \
    "reports it.\n"
    const char *want_first = "# HELP fabric_x_total" H_UNLISTED "# TYPE fabric_x_total counter\n"
                             "fabric_x_total{device=\"leaf1\",port=\"p1\"} 1\n"
                             "fabric_x_total{device=\"leaf1\",port=\"p2\"} 3\n"
                             "# HELP fabric_y_total" H_UNLISTED "# TYPE fabric_y_total counter\n"
                             "fabric_y_total{device=\"leaf1\",port=\"p1\"} 2\n"
                             "# HELP fabricscope_build_info";
    CHECK(strncmp(p.out.data, want_first, strlen(want_first)) == 0);

    /* p0 sorts before p1 by name but is created last: it comes last. */
    fsc_series_id x0 = pfx_series(&p, 0, "fabric_x_total", &c, l0);
    pfx_feed_u(&p, x0, T0, 4);
    pfx_render(&p, FSC_PROM_TEXT, T0);
    const char *want_second = "# HELP fabric_x_total" H_UNLISTED "# TYPE fabric_x_total counter\n"
                              "fabric_x_total{device=\"leaf1\",port=\"p1\"} 1\n"
                              "fabric_x_total{device=\"leaf1\",port=\"p2\"} 3\n"
                              "fabric_x_total{device=\"leaf1\",port=\"p0\"} 4\n"
                              "# HELP fabric_y_total";
    CHECK(strncmp(p.out.data, want_second, strlen(want_second)) == 0);
    pfx_close(&p);
}

/* ---- streamed render -------------------------------------------------------- */

/* Collects what a streamed render flushes. */
struct collect {
    struct fsc_buf all;
    size_t flushes, smallest, segment;
};

static int collect_flush(void *arg, struct fsc_buf *out)
{
    struct collect *c = arg;
    if (out->len < c->smallest)
        c->smallest = out->len;
    c->flushes++;
    int rc = fsc_buf_append(&c->all, out->data, out->len);
    fsc_buf_reset(out);
    return rc;
}

/* The pieces of a streamed render concatenate to exactly the text of one
 * buffer, in both formats and at any segment size; each piece is at least
 * a segment long (lines are never split, so a piece ends on a line). */
static void stream_exact(void)
{
    const size_t segments[] = {1, 200, 1 << 20};
    for (size_t i = 0; i < 2 * sizeof(segments) / sizeof(segments[0]); i++) {
        int om = (int)(i % 2);
        struct pfx p;
        struct collect c = {.smallest = SIZE_MAX, .segment = segments[i / 2]};
        if (pfx_open(&p) == 0) {
            small_fixture(&p);
            const struct fsc_prom_flush fl = {collect_flush, &c, c.segment};
            CHECK_INT(fsc_prom_render_stream(p.r, om ? FSC_PROM_OPENMETRICS : FSC_PROM_TEXT,
                                             T0 + NS, &p.out, &fl),
                      0);
            CHECK_INT(fsc_buf_append(&c.all, p.out.data ? p.out.data : "", p.out.len), 0);
            CHECK_STR(c.all.data ? c.all.data : "", om ? want_om : want_text);
            if (c.segment == 1) {
                /* A flush after every write (a sample, a family's HELP and
                 * TYPE, a histogram's lines): nothing is left over. */
                CHECK(c.flushes >= 30);
                CHECK_INT(p.out.len, 0);
            } else if (c.segment == 200) {
                CHECK(c.flushes >= 10);
                CHECK(c.smallest >= 200);
            } else {
                CHECK_INT(c.flushes, 0);
            }
            CHECK(c.all.len > 0 && c.all.data[c.all.len - 1] == '\n');
        }
        fsc_buf_free(&c.all);
        pfx_close(&p);
    }
}

/* ---- buffer limit --------------------------------------------------------- */

static void buffer_limit_e2big(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    small_fixture(&p);
    pfx_render(&p, FSC_PROM_TEXT, T0 + NS);
    size_t full = p.out.len;
    CHECK(full > 2000);

    /* Limits inside the raw families, inside the derived ones and inside
     * the self-metrics: each fails with -E2BIG and never writes past it. */
    const size_t limits[] = {10, 300, 1200, full - 200};
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        p.out.limit = limits[i];
        CHECK_INT(fsc_prom_render(p.r, FSC_PROM_TEXT, T0 + NS, &p.out), -E2BIG);
        CHECK(p.out.len <= limits[i]);
    }
    /* The renderer recovers: no limit, a full exposition again. */
    p.out.limit = 0;
    CHECK_INT(fsc_prom_render(p.r, FSC_PROM_TEXT, T0 + NS, &p.out), 0);
    CHECK(p.out.len > full - 100);
    CHECK(pfx_line_at(p.out.data, "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"} "
                                  "255000") >= 0);
    pfx_close(&p);
}

/* ---- histograms and derived families -------------------------------------- */

#define P400 "{device=\"leaf1\",port=\"et-0/0/9\",direction=\"tx\""

/* Sum of the observations of a port fed by port_utilization_run(). */
static void histograms_cumulative(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const uint64_t speed = 400000000000ULL; /* 50e9 B/s */
    struct fsc_traits tx =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_BYTES, FSC_SIG_PORT_BYTES, FSC_DIR_TX, speed);
    tx.nominal_interval_ns = 100 * MS;
    const char *lp[] = {"device", "leaf1", "port", "et-0/0/9", NULL};
    fsc_series_id id = pfx_series(&p, 0, "fabric_port_tx_bytes_total", &tx, lp);
    CHECK_INT(fsc_engine_group_add(p.eng, 0, id), 0);

    /* 100 ms intervals: 10 at 25 %, 5 at 85 %, 5 at 25 %. Bytes per 100 ms at
     * utilization u: u x 5e9. */
    uint64_t v = 1000000;
    int64_t t = T0;
    pfx_feed_u(&p, id, t, v);
    for (int k = 1; k <= 20; k++) {
        double u = k > 10 && k <= 15 ? 0.85 : 0.25;
        v += (uint64_t)(u * 5e9);
        t += 100 * MS;
        pfx_feed_u(&p, id, t, v);
    }
    pfx_render(&p, FSC_PROM_TEXT, t);
    const char *o = p.out.data;

    /* Cumulative buckets: 15 at or under 0.3 (and 0.4 ... 0.8), all 20 at
     * 0.9 and above; +Inf equals _count. */
    static const struct {
        const char *le;
        int cum;
    } want[] = {{"0.1", 0},   {"0.2", 0},  {"0.3", 15}, {"0.4", 15}, {"0.5", 15},
                {"0.6", 15},  {"0.7", 15}, {"0.8", 15}, {"0.9", 20}, {"0.95", 20},
                {"0.99", 20}, {"1", 20},   {"+Inf", 20}};
    char key[256];
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        snprintf(key, sizeof(key), "fabric_port_fine_utilization_ratio_bucket" P400 ",le=\"%s\"}",
                 want[i].le);
        CHECK_INT(pfx_value(o, key), want[i].cum);
    }
    CHECK_INT(pfx_value(o, "fabric_port_fine_utilization_ratio_count" P400 "}"), 20);
    CHECK_NEAR(pfx_value(o, "fabric_port_fine_utilization_ratio_sum" P400 "}"),
               15 * 0.25 + 5 * 0.85, 1e-3);
    CHECK_INT(pfx_count(o, "fabric_port_fine_utilization_ratio_bucket"), 13);

    /* No microburst yet (the 85 % run lasted 500 ms: a microburst, ended):
     * one, in the 0.5 s bucket, so cumulative 0 below and 1 from 0.5 on. */
    CHECK_INT(pfx_value(o, "fabric_microbursts_total" P400 "}"), 1);
    CHECK_INT(pfx_value(o, "fabric_bursts_total" P400 "}"), 0);
    CHECK_INT(pfx_value(o, "fabric_microburst_duration_seconds_bucket" P400 ",le=\"0.25\"}"), 0);
    CHECK_INT(pfx_value(o, "fabric_microburst_duration_seconds_bucket" P400 ",le=\"0.5\"}"), 1);
    CHECK_INT(pfx_value(o, "fabric_microburst_duration_seconds_bucket" P400 ",le=\"+Inf\"}"), 1);
    CHECK_INT(pfx_value(o, "fabric_microburst_duration_seconds_count" P400 "}"), 1);
    CHECK_NEAR(pfx_value(o, "fabric_microburst_duration_seconds_sum" P400 "}"), 0.5, 1e-9);

    /* The 1 s windows [T0, T0+1s) at 25 % and [T0+1s, T0+2s) half at 85 %:
     * the last completed one is the second: 55 % = 27.5 GB/s (220 Gbit/s), peak 85 %. */
    CHECK_NEAR(pfx_value(o, "fabric_port_bytes_per_second" P400 "}"), 27.5e9, 0);
    CHECK_NEAR(pfx_value(o, "fabric_port_utilization_ratio" P400 "}"), 0.55, 1e-6);
    CHECK_NEAR(pfx_value(o, "fabric_port_utilization_peak_ratio" P400 ",window=\"1s\"}"), 0.85,
               1e-6);
    /* No 10 s window has completed in a 2 s run: no line, rather than a 0
     * that would read as an idle port. */
    CHECK(pfx_count(o, "fabric_port_utilization_peak_ratio" P400 ",window=\"10s\"} ") == 0);

    /* Self histogram: every interval was exactly nominal (ratio 1). */
    CHECK_INT(pfx_value(o, "fabricscope_sample_interval_ratio_bucket{le=\"0.95\"}"), 0);
    CHECK_INT(pfx_value(o, "fabricscope_sample_interval_ratio_bucket{le=\"1.05\"}"), 20);
    CHECK_INT(pfx_value(o, "fabricscope_sample_interval_ratio_bucket{le=\"+Inf\"}"), 20);
    CHECK_INT(pfx_value(o, "fabricscope_sample_interval_ratio_count"), 20);
    CHECK_NEAR(pfx_value(o, "fabricscope_sample_interval_ratio_sum"), 20, 1e-9);

    /* The group of one member, named by its number (no topology group). */
    CHECK(pfx_count(o, "fabric_uplink_imbalance_ratio{group=\"0\"} ") == 1);
    CHECK_INT(pfx_value(o, "fabric_uplink_imbalance_events_total{group=\"0\"}"), 0);
    pfx_close(&p);
}

/* Detector-fed counters: rate_per_second and the detector counters with the
 * `counter` label; a microsecond pause counter shown in seconds; a present
 * series without samples shows its detector counter at 0 and nothing else. */
static void derived_detector_families(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    const struct fsc_traits cnp =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_CNP, FSC_DIR_NONE, 0);
    const struct fsc_traits pause = pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_MICROSECONDS,
                                               FSC_SIG_PFC_PAUSE_DURATION, FSC_DIR_RX, 0);
    const char *nic[] = {"device", "host1", "port", "ens1f0np0", NULL};
    const char *nic2[] = {"device", "host1", "port", "ens1f1np1", NULL};
    const char *prio[] = {"device", "host1", "port", "ens1f0np0", "priority", "3", NULL};
    fsc_series_id c = pfx_series(&p, 1, "fabric_nic_cnp_sent_total", &cnp, nic);
    pfx_series(&p, 1, "fabric_nic_cnp_sent_total", &cnp, nic2); /* never sampled */
    fsc_series_id d = pfx_series(&p, 1, "fabric_port_pfc_rx_pause_seconds_total", &pause, prio);

    pfx_feed_u(&p, c, T0, 100);
    pfx_feed_u(&p, c, T0 + NS, 1100); /* 1000/s */
    pfx_feed_u(&p, d, T0, 2000000);
    pfx_feed_u(&p, d, T0 + NS, 2250000); /* 0.25 s paused per second */
    pfx_render(&p, FSC_PROM_OPENMETRICS, T0 + NS);
    const char *o = p.out.data;

/* One rate family per counter, in the counter's unit per second; the
 * detector families name the counter by a short signal name. */
#define NIC0 "{device=\"host1\",port=\"ens1f0np0\"}"
#define NIC1 "{device=\"host1\",port=\"ens1f1np1\"}"
#define PRIO "{device=\"host1\",port=\"ens1f0np0\",priority=\"3\"}"
#define CNP0 "{device=\"host1\",port=\"ens1f0np0\",signal=\"cnp_sent\"}"
#define CNP1 "{device=\"host1\",port=\"ens1f1np1\",signal=\"cnp_sent\"}"
#define PFC  "{device=\"host1\",port=\"ens1f0np0\",priority=\"3\",signal=\"pfc_rx_pause_seconds\"}"
    static const char want_cnp_rate[] =
        "# HELP fabric_nic_cnp_sent_per_second Congestion notification packets the NIC sent over "
        "the last completed aligned window of its rate level (the first configured width; 10 s "
        "for counters copied every 2 s), in packets per second.\n"
        "# TYPE fabric_nic_cnp_sent_per_second gauge\n"
        "fabric_nic_cnp_sent_per_second" NIC0 " 1000\n"
        "# HELP fabric_port_pfc_rx_pause_seconds_per_second Time the port was held paused by "
        "received PFC frames per priority, the paused share of time over the last completed "
        "aligned window of its rate level (the first configured width; 10 s for counters copied "
        "every 2 s), in seconds per second.\n"
        "# TYPE fabric_port_pfc_rx_pause_seconds_per_second gauge\n"
        "fabric_port_pfc_rx_pause_seconds_per_second" PRIO " 0.25\n";
    CHECK(strstr(o, want_cnp_rate) != NULL);
    CHECK(pfx_line_at(o, "fabric_cnp_spikes_total" CNP0 " 0") >= 0);
    CHECK(pfx_line_at(o, "fabric_cnp_spikes_total" CNP1 " 0") >= 0);
    CHECK(pfx_line_at(o, "fabric_pfc_storms_total" PFC " 0") >= 0);
    CHECK_INT(pfx_count(o, "fabric_nic_cnp_sent_per_second" NIC1), 0);
    CHECK_INT(pfx_count(o, "fabric_nic_cnp_sent_total" NIC1), 0);
    CHECK(pfx_line_at(o, "fabric_port_pfc_rx_pause_seconds_total" PRIO " 2.25") >= 0);
    CHECK(pfx_line_at(o, "# TYPE fabric_cnp_spikes counter") >= 0);
    /* No label value is a metric name. */
    CHECK(strstr(o, "=\"fabric_") == NULL);
    CHECK_INT(pfx_count(o, "# TYPE fabric_rate_per_second"), 0);
    /* Families not fed are left out. */
    CHECK_INT(pfx_count(o, "# TYPE fabric_ecn_spikes"), 0);
    CHECK_INT(pfx_count(o, "# TYPE fabric_uplink_imbalance_ratio"), 0);
    pfx_close(&p);
}

/* ---- a histogram kept as counters (OTLP) ---------------------------------- */

#define EB "fabric_cumulus_nvswitch_interface_egress_buffer"
#define L0 "device=\"sw1\",port=\"swp1\",queue=\"0\""
#define L3 "device=\"sw1\",port=\"swp1\",queue=\"3\""
#define L7 "device=\"sw1\",port=\"swp1\",queue=\"7\""

/* The part of an exposition before the self-metrics. */
static void check_raw_part(const char *got, const char *want)
{
    const char *self = strstr(got, "# HELP fabricscope_build_info ");
    CHECK(self != NULL);
    if (!self)
        return;
    size_t n = (size_t)(self - got);
    char *raw = malloc(n + 1);
    CHECK(raw != NULL);
    if (!raw)
        return;
    memcpy(raw, got, n);
    raw[n] = '\0';
    CHECK_STR(raw, want);
    free(raw);
}

/* A histogram fed as the OTLP ingest keeps it (bounds 5, 25, 100, counter
 * series _bucket{le} cumulative over buckets, _count and _sum, each marked
 * with its part in traits.expo) becomes one histogram family: per label set
 * its buckets in numeric le order ("100" sorts before "25" as text), +Inf
 * last, then _count and _sum, whatever the creation order of the series
 * (queue 3 is created scrambled, as another source might). A gauge whose name
 * sorts between _bucket and _count no longer splits the parts. A label set
 * without a sum (queue 7: OTLP points may omit it) keeps its _count in text
 * 0.0.4 but not in OpenMetrics, which allows _count only with _sum. The
 * engine still treats the parts as counters. */
static void otlp_histogram_family(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    struct fsc_traits tb =
        pfx_traits(FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    struct fsc_traits tc = tb, ts = tb;
    tb.expo = FSC_EXPO_HIST_BUCKET;
    tc.expo = FSC_EXPO_HIST_COUNT;
    ts.width = 53;
    ts.expo = FSC_EXPO_HIST_SUM;
    const struct fsc_traits gauge =
        pfx_traits(FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, FSC_SIG_NONE, FSC_DIR_NONE, 0);
    static const char *const le[4] = {"5", "25", "100", "+Inf"};

    /* Label set k: tc, creation order of its parts (0..3 buckets, 4 count,
     * 5 sum), cumulative buckets + count and sum at T0, then at T0 + 1 s. */
    static const struct {
        const char *tc;
        int order[6];
        uint64_t v0[5], v1[5];
        double s0, s1;
        int has_sum;
    } set[3] = {
        {"0", {0, 1, 2, 3, 4, 5}, {1, 2, 2, 3, 3}, {2, 5, 6, 10, 10}, 100, 612.5, 1},
        {"3", {5, 3, 2, 0, 1, 4}, {0, 0, 0, 0, 0}, {0, 1, 1, 1, 1}, 0, 20.25, 1},
        {"7", {0, 1, 2, 3, 4, 5}, {0, 0, 1, 1, 1}, {0, 0, 1, 2, 2}, 0, 0, 0},
    };
    fsc_series_id id[3][6];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 6; i++) {
            int part = set[k].order[i];
            const char *kv[] = {"device",  "sw1", "port", "swp1", "queue",
                                set[k].tc, NULL,  NULL,   NULL};
            if (part < 4) { /* buckets: le last here, the registry sorts labels */
                kv[6] = "le";
                kv[7] = le[part];
            }
            const char *metric = part < 4 ? EB "_bucket" : part == 4 ? EB "_count" : EB "_sum";
            const struct fsc_traits *tr = part < 4 ? &tb : part == 4 ? &tc : &ts;
            id[k][part] = pfx_series(&p, 0, metric, tr, kv);
        }
    }
    const char *kvg[] = {"device", "sw1", "port", "swp1", "queue", "0", NULL};
    fsc_series_id g = pfx_series(&p, 0, EB "_bytes", &gauge, kvg);
    for (int step = 0; step < 2; step++) {
        int64_t t = T0 + step * NS;
        for (int k = 0; k < 3; k++) {
            for (int part = 0; part < 5; part++)
                pfx_feed_u(&p, id[k][part], t, step ? set[k].v1[part] : set[k].v0[part]);
            if (set[k].has_sum)
                pfx_feed_d(&p, id[k][5], t, step ? set[k].s1 : set[k].s0);
        }
        pfx_feed_u(&p, g, t, 4096);
    }

    /* Counters for the engine: the +Inf bucket of tc=0 went 3 -> 10 in the
     * 1 s window [T0, T0 + 1 s): 7/s; the view carries the part. */
    struct fsc_series_view v;
    CHECK_INT(fsc_engine_view(p.eng, id[0][3], &v), 0);
    CHECK_INT(v.kind, FSC_KIND_COUNTER);
    CHECK_INT(v.expo, FSC_EXPO_HIST_BUCKET);
    CHECK_NEAR(v.window_rate[0], 7.0, 1e-9);
    CHECK_INT(fsc_engine_view(p.eng, id[1][5], &v), 0);
    CHECK_INT(v.expo, FSC_EXPO_HIST_SUM);

#define HIST_HEAD                                                                                  \
    "# HELP " EB " Cumulus histogram no profile entry maps, passed through under its OTLP name "   \
    "with the switch's buckets (the device's unit).\n"                                             \
    "# TYPE " EB " histogram\n" EB "_bucket{" L0 ",le=\"5\"} 2\n" EB "_bucket{" L0                 \
    ",le=\"25\"} 5\n" EB "_bucket{" L0 ",le=\"100\"} 6\n" EB "_bucket{" L0 ",le=\"+Inf\"} 10\n" EB \
    "_count{" L0 "} 10\n" EB "_sum{" L0 "} 612.5\n" EB "_bucket{" L3 ",le=\"5\"} 0\n" EB           \
    "_bucket{" L3 ",le=\"25\"} 1\n" EB "_bucket{" L3 ",le=\"100\"} 1\n" EB "_bucket{" L3           \
    ",le=\"+Inf\"} 1\n" EB "_count{" L3 "} 1\n" EB "_sum{" L3 "} 20.25\n" EB "_bucket{" L7         \
    ",le=\"5\"} 0\n" EB "_bucket{" L7 ",le=\"25\"} 0\n" EB "_bucket{" L7 ",le=\"100\"} 1\n" EB     \
    "_bucket{" L7 ",le=\"+Inf\"} 2\n"
#define GAUGE_TAIL                                                                                 \
    "# HELP " EB "_bytes Cumulus value no profile entry maps, passed through under its OTLP "      \
    "name (the device's unit).\n"                                                                  \
    "# TYPE " EB "_bytes gauge\n" EB "_bytes{" L0 "} 4096\n"
    static const char want_text_h[] = HIST_HEAD EB "_count{" L7 "} 2\n" GAUGE_TAIL;
    static const char want_om_h[] = HIST_HEAD GAUGE_TAIL;

    /* Both formats, each twice: the first render is already in order. */
    for (int i = 0; i < 4; i++) {
        int om = i % 2;
        pfx_render(&p, om ? FSC_PROM_OPENMETRICS : FSC_PROM_TEXT, T0 + NS);
        check_raw_part(p.out.data, om ? want_om_h : want_text_h);
    }
    pfx_close(&p);
}

TEST_MAIN(TEST(text_exact), TEST(openmetrics_exact), TEST(stream_exact),
          TEST(stale_series_disappear), TEST(future_time_hides_nothing),
          TEST(new_series_at_end_of_family), TEST(buffer_limit_e2big), TEST(histograms_cumulative),
          TEST(derived_detector_families), TEST(otlp_histogram_family))
