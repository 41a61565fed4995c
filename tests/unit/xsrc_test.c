/* Cross-source evidence (engine/xsrc.h), known answers: a ConnectX-8 port
 * polled every 10 ms (rx bytes) cabled to a QFX5240 leaf port whose egress
 * queue peak arrives as a 2 s copy. A 200 ms line-rate burst at 1.0-1.2 s
 * goes through the leaf; the leaf's copy at 2 s carries its queue peak. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/json_write.h"
#include "engine_fixture.h"
#include "model/event_text.h"

#define NIC       10u /* series ids */
#define LEAF_Q    11u
#define OTHER     12u /* a port with no peer */
#define OTHER_Q   13u
#define NIC_NAME  "b300-1:ens1f0np0"
#define LEAF_NAME "leaf1:et-0/0/3"

#define LINE_BPS   400000000000ull
#define LINE_BYTES (LINE_BPS / 8) /* bytes/s */
#define BUFFER     (165ull << 20)

static struct fsc_traits nic_rx(void)
{
    struct fsc_traits tr = port_bytes(LINE_BPS, FSC_DIR_RX);
    tr.nominal_interval_ns = 10 * MS;
    return tr;
}

static struct fsc_traits leaf_queue_peak(void)
{
    return (struct fsc_traits){.kind = FSC_KIND_GAUGE,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .signal = FSC_SIG_QUEUE_PEAK,
                               .direction = FSC_DIR_TX,
                               .buffer_bytes = BUFFER,
                               .nominal_interval_ns = 2 * NS};
}

/* 12 s of the two ports, in device-time order (each 10 ms the NIC, each 2 s
 * the leaf after it): the NIC at 4 % with `burst` adding line rate over
 * [1.0, 1.2) s; the leaf's queue peak at 5 % of its buffer, 80 % in the copy
 * at peak_s seconds (2: the one that covers the burst; 0: none). */
static void run(struct harness *h, fsc_series_id nic, fsc_series_id leaf, bool burst, int peak_s)
{
    uint64_t bytes = 0;
    for (int k = 0; k <= 1200; k++) {
        int64_t t = T0 + (int64_t)k * 10 * MS;
        if (k > 0) {
            bool high = burst && k > 100 && k <= 120; /* the interval (t - 10 ms, t] */
            bytes += high ? LINE_BYTES / 100 : LINE_BYTES / 100 / 25;
        }
        feed_u(h, nic, t, bytes);
        if (k % 200 == 0) {
            bool peak = peak_s > 0 && k == peak_s * 100;
            feed_u(h, leaf, t, peak ? BUFFER * 8 / 10 : BUFFER / 20);
        }
    }
}

static const struct fsc_event *find_on(const struct harness *h, fsc_series_id id,
                                       enum fsc_event_kind kind, enum fsc_event_phase phase)
{
    for (size_t i = 0; i < h->n_ev; i++)
        if (h->ev[i].series == id && h->ev[i].kind == kind && h->ev[i].phase == phase)
            return &h->ev[i];
    return NULL;
}

static void open_linked(struct harness *h, struct fsc_engine_config *cfg)
{
    fsc_engine_config_defaults(cfg);
    if (harness_open(h, cfg) != 0)
        return;
    struct fsc_traits n = nic_rx(), q = leaf_queue_peak();
    CHECK_INT(fsc_engine_set_traits(h->eng, NIC, &n), 0);
    CHECK_INT(fsc_engine_set_traits(h->eng, LEAF_Q, &q), 0);
    /* Each end names the other, as the topology does once loaded. */
    CHECK_INT(fsc_engine_peer_add(h->eng, NIC, NIC_NAME, LEAF_NAME), 0);
    CHECK_INT(fsc_engine_peer_add(h->eng, LEAF_Q, LEAF_NAME, NIC_NAME), 0);
}

static void check_line(const struct fsc_event *ev, const char *want)
{
    char line[512];
    fsc_event_format(ev, NULL, line, sizeof(line));
    if (!strstr(line, want))
        fprintf(stderr, "line: %s\nwant: %s\n", line, want);
    CHECK(strstr(line, want) != NULL);
}

/* The burst on both sides: the NIC's END names the leaf port and says its
 * queue peaked; the leaf's evidence names the NIC port and says it burst. */
static void burst_seen_both_sides(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    open_linked(&h, &cfg);
    if (!h.eng)
        return;
    run(&h, NIC, LEAF_Q, true, 2);

    const struct fsc_event *start = find_on(&h, NIC, FSC_EV_MICROBURST, FSC_EV_START);
    const struct fsc_event *end = find_on(&h, NIC, FSC_EV_MICROBURST, FSC_EV_END);
    const struct fsc_event *qp = find_on(&h, LEAF_Q, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT);
    CHECK(start && end && qp);
    if (!start || !end || !qp)
        goto out;
    CHECK_INT(end->t_start_ns, T0 + 1000 * MS);
    CHECK_INT(end->t_end_ns, T0 + 1200 * MS);
    /* START goes out at 1.21 s, when the leaf had reported only its copy at
     * 0 s: linked, not known yet. */
    CHECK_INT(start->peer_saw, FSC_PEER_LINKED);
    CHECK_STR(start->subject, LEAF_NAME);
    check_line(start, " peer=" LEAF_NAME " peer_saw=unknown");
    /* END waits for the 10 s window; the copy at 2 s said 80 %. */
    CHECK_INT(end->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED | FSC_PEER_QUEUE_PEAK);
    CHECK_STR(end->subject, LEAF_NAME);
    check_line(end, " peer=" LEAF_NAME " peer_saw=queue_peak");
    /* The leaf's evidence at 2 s: the NIC (reported up to 2 s) burst. */
    CHECK_INT(qp->t_start_ns, T0 + 2 * NS);
    CHECK_INT(qp->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED | FSC_PEER_BURST);
    CHECK_STR(qp->subject, NIC_NAME);
    check_line(qp, " peer=" NIC_NAME " peer_saw=burst");
    CHECK_INT(count_events(&h, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT), 1);

    /* The web API and Kafka decode fields with one function: same words. */
    char doc[512];
    struct fsc_buf b;
    struct fsc_json w;
    fsc_buf_fixed(&b, doc, sizeof(doc));
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_event_fields_json(&w, end, NULL, 0);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    doc[b.len < sizeof(doc) ? b.len : sizeof(doc) - 1] = '\0';
    CHECK(strstr(doc, "\"peer\":\"" LEAF_NAME "\",\"peer_saw\":\"queue_peak\"}") != NULL);
out:
    harness_close(&h);
}

/* The same burst with a quiet leaf: the leaf reported past it and showed
 * nothing, so "none"; and the leaf raises no evidence at all. */
static void burst_leaf_quiet(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    open_linked(&h, &cfg);
    if (!h.eng)
        return;
    run(&h, NIC, LEAF_Q, true, 0);
    const struct fsc_event *end = find_on(&h, NIC, FSC_EV_MICROBURST, FSC_EV_END);
    CHECK(end != NULL);
    if (end) {
        CHECK_INT(end->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED);
        CHECK_STR(end->subject, LEAF_NAME);
        check_line(end, " peer=" LEAF_NAME " peer_saw=none");
    }
    CHECK_INT(count_events(&h, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT), 0);
    harness_close(&h);
}

/* A queue peak in the leaf's copy at 6 s is more than one leaf period (2 s)
 * after the burst: neither side counts the other. */
static void peak_too_late_not_counted(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    open_linked(&h, &cfg);
    if (!h.eng)
        return;
    run(&h, NIC, LEAF_Q, true, 6);
    const struct fsc_event *end = find_on(&h, NIC, FSC_EV_MICROBURST, FSC_EV_END);
    const struct fsc_event *qp = find_on(&h, LEAF_Q, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT);
    CHECK(end && qp);
    if (end && qp) {
        CHECK_INT(end->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED);
        CHECK_INT(qp->t_start_ns, T0 + 6 * NS);
        CHECK_INT(qp->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED);
    }
    harness_close(&h);
}

/* The leaf's queue peaked but the NIC behind it was quiet: the evidence
 * names the NIC port and says it saw no burst. */
static void leaf_peak_nic_quiet(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    open_linked(&h, &cfg);
    if (!h.eng)
        return;
    run(&h, NIC, LEAF_Q, false, 2);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_START), 0);
    const struct fsc_event *qp = find_on(&h, LEAF_Q, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT);
    CHECK(qp != NULL);
    if (qp) {
        CHECK_INT(qp->peer_saw, FSC_PEER_LINKED | FSC_PEER_REPORTED);
        check_line(qp, " peer=" NIC_NAME " peer_saw=none");
    }
    harness_close(&h);
}

/* A port without a peer keeps its events as they were, even when other
 * ports of the engine are linked. */
static void no_peer_no_fields(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    open_linked(&h, &cfg);
    if (!h.eng)
        return;
    struct fsc_traits n = nic_rx(), q = leaf_queue_peak();
    CHECK_INT(fsc_engine_set_traits(h.eng, OTHER, &n), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, OTHER_Q, &q), 0);
    run(&h, OTHER, OTHER_Q, true, 2);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_START), 1);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_END), 1);
    CHECK_INT(count_events(&h, FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT), 1);
    static const char zero[FSC_EVENT_SUBJECT_MAX];
    for (size_t i = 0; i < h.n_ev; i++) {
        CHECK_INT(h.ev[i].peer_saw, 0);
        CHECK(memcmp(h.ev[i].subject, zero, sizeof(zero)) == 0);
        char line[512];
        fsc_event_format(&h.ev[i], NULL, line, sizeof(line));
        CHECK(strstr(line, "peer") == NULL);
    }
    harness_close(&h);
}

/* What fsc_engine_peer_add() refuses, and the words of peer_saw. */
static void link_errors_and_words(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.max_series = 100;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits n = nic_rx();
    CHECK_INT(fsc_engine_peer_add(h.eng, 5, NIC_NAME, LEAF_NAME), -EINVAL); /* no traits */
    CHECK_INT(fsc_engine_set_traits(h.eng, 5, &n), 0);
    CHECK_INT(fsc_engine_peer_add(h.eng, 5, NIC_NAME, NIC_NAME), -EINVAL);
    CHECK_INT(fsc_engine_peer_add(h.eng, 5, "", LEAF_NAME), -EINVAL);
    CHECK_INT(fsc_engine_peer_add(h.eng, 100, NIC_NAME, LEAF_NAME), -ERANGE);
    CHECK_INT(fsc_engine_peer_add(h.eng, 5, NIC_NAME, LEAF_NAME), 0);
    CHECK_INT(fsc_engine_peer_add(h.eng, 5, NIC_NAME, "leaf2:et-0/0/3"), 0); /* moves */
    harness_close(&h);

    char buf[40];
    CHECK_STR(fsc_event_peer_saw_text(FSC_PEER_LINKED, buf, sizeof(buf)), "unknown");
    CHECK_STR(fsc_event_peer_saw_text(FSC_PEER_LINKED | FSC_PEER_REPORTED, buf, sizeof(buf)),
              "none");
    CHECK_STR(fsc_event_peer_saw_text(FSC_PEER_LINKED | FSC_PEER_BURST | FSC_PEER_QUEUE_PEAK, buf,
                                      sizeof(buf)),
              "burst+queue_peak");
    CHECK_STR(
        fsc_event_peer_saw_text(FSC_PEER_LINKED | FSC_PEER_BUFFER_THRESHOLD, buf, sizeof(buf)),
        "buffer_threshold");
}

TEST_MAIN(TEST(burst_seen_both_sides), TEST(burst_leaf_quiet), TEST(peak_too_late_not_counted),
          TEST(leaf_peak_nic_quiet), TEST(no_peer_no_fields), TEST(link_errors_and_words))
