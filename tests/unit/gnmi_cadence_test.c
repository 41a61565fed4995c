/* Observed cadence and jitter of a gNMI stream: the estimator of
 * gnmi_client.h (struct fsc_gnmi_cadence) against known answers computed
 * from its formula, and the exposition of the stream families with the
 * cadence and jitter gauges (docs/METRICS.md), exact text. The estimator fed
 * through a real Subscribe stream is in gnmi_client_test.c. */
#include <stdint.h>

#include "sources/gnmi/gnmi_client.h"
#include "unit/prom_fixture.h"
#include "unit/view_fixture.h"

#define MS_NS 1000000LL
#define T0_NS 1700000000000000000LL

/* The estimator alone (formulas in gnmi_client.h). */
static void cadence_known_answer(void)
{
    struct fsc_gnmi_cadence cd;
    memset(&cd, 0, sizeof(cd)); /* an empty estimate, no table yet */
    /* The first message of a prefix is no interval; the second sets the
     * cadence exactly, with no deviation yet. */
    fsc_gnmi_cadence_observe(&cd, 7, T0_NS);
    CHECK_INT(cd.intervals, 0);
    fsc_gnmi_cadence_observe(&cd, 7, T0_NS + 110 * MS_NS);
    CHECK_INT(cd.intervals, 1);
    CHECK_NEAR(cd.cadence_s, 0.110, 1e-12);
    CHECK_NEAR(cd.jitter_s, 0.0, 1e-12);
    /* Duplicates, steps back, out-of-table keys and times <= 0 count nothing. */
    fsc_gnmi_cadence_observe(&cd, 7, T0_NS + 110 * MS_NS);
    fsc_gnmi_cadence_observe(&cd, 7, T0_NS + 50 * MS_NS);
    fsc_gnmi_cadence_observe(&cd, FSC_SERIES_NONE, T0_NS);
    fsc_gnmi_cadence_observe(&cd, FSC_SERIES_NONE, T0_NS + 100 * MS_NS);
    fsc_gnmi_cadence_observe(&cd, 8, 0);
    CHECK_INT(cd.intervals, 1);
    /* Bounded: series past half the table are not followed. */
    for (uint32_t k = 0; k < FSC_GNMI_CADENCE_SLOTS; k++)
        fsc_gnmi_cadence_observe(&cd, 1000 + k, T0_NS);
    CHECK_INT(cd.used, FSC_GNMI_CADENCE_SLOTS / 2);
    CHECK_INT(cd.mask + 1, FSC_GNMI_CADENCE_SLOTS); /* grown from the minimum */
    fsc_gnmi_cadence_observe(&cd, 1000 + FSC_GNMI_CADENCE_SLOTS - 1, T0_NS + 100 * MS_NS);
    CHECK_INT(cd.intervals, 1);
    fsc_gnmi_cadence_observe(&cd, 7, T0_NS + 210 * MS_NS); /* still followed */
    CHECK_INT(cd.intervals, 2);
    /* The series met before the table grew kept their last times. */
    for (uint32_t k = 0; k < 100; k++)
        fsc_gnmi_cadence_observe(&cd, 1000 + k, T0_NS + 100 * MS_NS);
    CHECK_INT(cd.intervals, 102);

    /* Messages every 100 ms of device time with +-10 ms alternating jitter of
     * the interval (110, 90, 110, ...), 2000 intervals of series 3. With weight
     * w = 1/64: cadence = 0.1 +- 0.01*w/(2-w) = +-7.9e-5 s, jitter =
     * 2*0.01/(2-w) = 0.01*128/127 s (the warm-up has decayed by e^-30). */
    fsc_gnmi_cadence_free(&cd);
    memset(&cd, 0, sizeof(cd));
    int64_t t = T0_NS;
    fsc_gnmi_cadence_observe(&cd, 3, t);
    for (int i = 0; i < 2000; i++) {
        t += (i % 2 == 0 ? 110 : 90) * MS_NS;
        fsc_gnmi_cadence_observe(&cd, 3, t);
    }
    CHECK_INT(cd.intervals, 2000);
    CHECK_NEAR(cd.cadence_s, 0.1, 8e-5);
    CHECK_NEAR(cd.jitter_s, 0.01 * 128.0 / 127.0, 1e-9);
    /* A restart forgets the last times: the next message is no interval (a
     * reconnect gap does not count), the estimate stays. */
    fsc_gnmi_cadence_restart(&cd);
    fsc_gnmi_cadence_observe(&cd, 3, t + 60000 * MS_NS);
    CHECK_INT(cd.intervals, 2000);
    CHECK_NEAR(cd.jitter_s, 0.01 * 128.0 / 127.0, 1e-9);
    fsc_gnmi_cadence_free(&cd);
}

/* Two gNMI streams as the gnmi source's table reports them: one with a
 * known cadence, one that has not seen two messages of a series yet (its
 * cadence and jitter are NAN: left out). */
static const struct vfx_row two_streams[] = {
    {.table = "gnmi_streams",
     .keys = {"leaf1", "interfaces"},
     .vals = {{"state", 1},
              {"up", 1},
              {"last_update_age_seconds", 0.5},
              {"messages", 7},
              {"cadence_seconds", 0.1},
              {"jitter_seconds", 0.0125},
              {"updates", 0},
              {"decode_errors", 0},
              {"sequence_gaps", 0},
              {"reconnects", 0},
              {"resubscribes", 0},
              {"label_names_hashed", 2}}},
    {.table = "gnmi_streams",
     .keys = {"leaf1", "rest"},
     .vals = {{"state", 1},
              {"up", 1},
              {"messages", 0},
              {"updates", 0},
              {"decode_errors", 0},
              {"sequence_gaps", 0},
              {"reconnects", 0},
              {"resubscribes", 0}}},
};

/* The exposition of the stream families: exact lines of the cadence and
 * jitter gauges beside the others (docs/METRICS.md), text format. */
static void stream_families_exposition(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0) {
        pfx_close(&p);
        return;
    }
    char err[256];
    struct vfx vf = {.rows = two_streams, .n_rows = 2};
    vfx_init(&vf);
    struct fsc_prom_render_env env = {.reg = p.reg, .eng = p.eng, .cfg = p.cfg, .view = &vf.view};
    struct fsc_prom_renderer *r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    if (r && fsc_prom_render(r, FSC_PROM_TEXT, T0, &p.out) == 0) {
        const char *o = p.out.data;
        const char *want =
            "fabricscope_gnmi_last_update_age_seconds{source=\"leaf1\",stream=\"interfaces\"} "
            "0.5\n"
            "# HELP fabricscope_gnmi_stream_cadence_seconds Observed device-time interval "
            "between messages about the same series (EWMA over ~64 intervals).\n"
            "# TYPE fabricscope_gnmi_stream_cadence_seconds gauge\n"
            "fabricscope_gnmi_stream_cadence_seconds{source=\"leaf1\",stream=\"interfaces\"} "
            "0.1\n"
            "# HELP fabricscope_gnmi_stream_jitter_seconds Mean absolute deviation of those "
            "intervals from the observed cadence.\n"
            "# TYPE fabricscope_gnmi_stream_jitter_seconds gauge\n"
            "fabricscope_gnmi_stream_jitter_seconds{source=\"leaf1\",stream=\"interfaces\"} "
            "0.0125\n"
            "# HELP fabricscope_gnmi_messages_total SubscribeResponses received.\n";
        CHECK(strstr(o, want) != NULL);
        if (!strstr(o, want))
            fprintf(stderr, "--- got ---\n%s\n",
                    strstr(o, "fabricscope_gnmi_") ? strstr(o, "fabricscope_gnmi_") : o);
        CHECK_INT(pfx_count(o, "fabricscope_gnmi_stream_cadence_seconds{"), 1);
        CHECK_INT(pfx_count(o, "fabricscope_gnmi_stream_jitter_seconds{"), 1);
        CHECK(pfx_line_at(
                  o, "fabricscope_gnmi_messages_total{source=\"leaf1\",stream=\"rest\"} 0") >= 0);
        /* long list-key names hashed, a counter per stream */
        CHECK(strstr(o, "# TYPE fabricscope_gnmi_label_names_hashed_total counter\n"
                        "fabricscope_gnmi_label_names_hashed_total{source=\"leaf1\","
                        "stream=\"interfaces\"} 2\n") != NULL);
    }
    fsc_prom_renderer_destroy(r);
    pfx_close(&p);
}

TEST_MAIN(TEST(cadence_known_answer), TEST(stream_families_exposition))
