/* gNMI decoder: SubscribeResponses built with the generated protobuf-c structs
 * (an independent encoder), packed to bytes and decoded; exact series names,
 * labels, values, timestamps and counters. */
#include "gnmi_decode_fixture.h"

/* ---- cases ----------------------------------------------------------------------- */

/* OpenConfig interface counters under a prefix with the interface name key:
 * canonical names, device/port labels, values, Notification.timestamp. */
static void openconfig_prefix_keys(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[3] = {
        mk_update("/state/counters/in-octets", tv_uint(123456789012ULL)),
        mk_update("/state/counters/out-octets", tv_uint(42)),
        mk_update("/ethernet/state/counters/in-mac-pause-frames", tv_uint(7)),
    };
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/1]", T0_NS + 5, u, 3, NULL);
    struct fsc_sample smp[8];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 8, &res), 0);
    CHECK_INT(res.n_samples, 3);
    CHECK_INT(res.updates, 3);
    CHECK_INT(res.unknown, 0);
    CHECK_INT(res.has_header, 0);
    if (res.n_samples == 3) {
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"}");
        CHECK_STR(series_text(e.se.reg, smp[1].series),
                  "fabric_port_tx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"}");
        CHECK_STR(series_text(e.se.reg, smp[2].series),
                  "fabric_port_rx_pause_frames_total{device=\"leaf1\",port=\"et-0/0/1\"}");
        CHECK(smp[0].v.u == 123456789012ULL);
        CHECK_INT(smp[1].v.u, 42);
        CHECK_INT(smp[2].v.u, 7);
        CHECK_INT(smp[0].t_dev_ns, T0_NS + 5);
        CHECK_INT(smp[0].t_arr_ns, ARR);
        CHECK_INT(smp[0].flags, 0);
    }
    /* The same leaves with no prefix (full paths in the update) and an origin
     * on the path are the same series. */
    Gnmi__Update *w =
        mk_update("/interfaces/interface[name=et-0/0/1]/state/counters/in-octets", tv_uint(5));
    w->path->origin = "openconfig";
    n = pack_notif(buf, NULL, T0_NS + 6, &w, 1, NULL);
    struct fsc_sample s2;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, &s2, 1, &res), 0);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(s2.series, smp[0].series);
    CHECK_INT(fsc_registry_count(e.se.reg), 3);
    env_close(&e);
}

/* The header extension's payload_get_timestamp (ms) beats the
 * Notification.timestamp (ns). */
static void junos_header_timestamp(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u = mk_update("/state/counters/in-pkts", tv_uint(10));
    struct hdr_spec hs = {.component_id = 0,
                          .sub_component_id = 0,
                          .streamed_path = "/interfaces/interface/state/counters/",
                          .seq = 17,
                          .payload_ms = 1764460801234LL,
                          .creation_ms = 1764460000000LL};
    size_t n =
        pack_notif(buf, "/interfaces/interface[name=et-0/0/2]", T0_NS + 999999999, &u, 1, &hs);
    struct fsc_sample smp[2];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 2, &res), 0);
    CHECK_INT(res.has_header, 1);
    CHECK_INT(res.header_time, 1);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(smp[0].t_dev_ns, 1764460801234LL * 1000000LL);
    CHECK_INT(res.t_dev_ns, 1764460801234LL * 1000000LL);
    CHECK_INT(smp[0].flags, 0);
    /* A header without payload_get_timestamp: the notification time is used. */
    hs.payload_ms = 0;
    hs.seq = 18;
    n = pack_notif(buf, "/interfaces/interface[name=et-0/0/2]", T0_NS + 3, &u, 1, &hs);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 2, &res), 0);
    CHECK_INT(res.header_time, 0);
    CHECK_INT(smp[0].t_dev_ns, T0_NS + 3);
    env_close(&e);
}

/* `__juniper_telemetry_header__` and `__timestamp__` leaves are dropped and
 * counted; a `__` elem in the middle of a path is removed. */
static void pseudo_leaves_dropped(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__TypedValue *any = tv_new();
    Gnmi__Any a = GNMI__ANY__INIT;
    a.type_url = "type.googleapis.com/GnmiJuniperTelemetryHeader";
    any->value_case = GNMI__TYPED_VALUE__VALUE_ANY_VAL;
    any->any_val = &a;
    Gnmi__Update *u[4] = {
        mk_update("/__juniper_telemetry_header__", any),
        mk_update("/__timestamp__", tv_uint(1764460801000ULL)),
        mk_update("/state/counters/out-pkts", tv_uint(99)),
        mk_update("/__internal__/state/counters/in-pkts", tv_uint(98)),
    };
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/3]", T0_NS, u, 4, NULL);
    struct fsc_sample smp[8];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 8, &res), 0);
    CHECK_INT(res.updates, 4);
    CHECK_INT(res.pseudo, 2);
    CHECK_INT(res.unsupported, 0);
    CHECK_INT(res.n_samples, 2);
    if (res.n_samples == 2) {
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_port_tx_packets_total{device=\"leaf1\",port=\"et-0/0/3\"}");
        CHECK_INT(smp[0].v.u, 99);
        CHECK_STR(series_text(e.se.reg, smp[1].series),
                  "fabric_port_rx_packets_total{device=\"leaf1\",port=\"et-0/0/3\"}");
    }
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.pseudo, 2);
    env_close(&e);
}

/* Queue occupancy on Junos OS Evolved: the OpenConfig QoS queue
 * (queue[name]) below interface[interface-id]; max-queue-len is a gauge with
 * the queue-peak signal, avg-queue-len a gauge without one. The ECN leaves of
 * the OpenConfig model, which Juniper renders in no release, pass through. */
static void queue_occupancy_labels(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[3] = {
        mk_update("/queue[name=3]/state/max-queue-len", tv_uint(65536)),
        mk_update("/queue[name=3]/state/avg-queue-len", tv_uint(1024)),
        mk_update("/queue[name=3]/state/dropped-pkts", tv_uint(12)),
    };
    size_t n = pack_notif(buf, "/qos/interfaces/interface[interface-id=et-0/0/4]/output/queues",
                          T0_NS, u, 3, NULL);
    struct fsc_sample smp[4];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.n_samples, 3);
    CHECK_INT(res.unknown, 0);
    if (res.n_samples == 3) {
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_port_queue_peak_bytes{device=\"leaf1\",port=\"et-0/0/4\",queue=\"3\"}");
        CHECK_STR(series_text(e.se.reg, smp[1].series),
                  "fabric_port_queue_avg_bytes{device=\"leaf1\",port=\"et-0/0/4\",queue=\"3\"}");
        CHECK_STR(series_text(e.se.reg, smp[2].series),
                  "fabric_port_queue_dropped_packets_total{device=\"leaf1\",port=\"et-0/0/4\","
                  "queue=\"3\"}");
        CHECK_INT(smp[0].v.u, 65536);
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(e.se.eng, smp[0].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
        CHECK_INT(view.signal, FSC_SIG_QUEUE_PEAK);
        CHECK_INT(fsc_engine_view(e.se.eng, smp[1].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
        CHECK_INT(view.signal, FSC_SIG_NONE);
    }
    Gnmi__Update *q = mk_update("/output/queues/queue[name=UC3]/state/ecn-marked-pkts", tv_uint(5));
    n = pack_notif(buf, "/qos/interfaces/interface[interface-id=et-0/0/5]", T0_NS, &q, 1, NULL);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(res.unknown, 1);
    if (res.n_samples == 1)
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_junos_qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts{"
                  "device=\"leaf1\",port=\"et-0/0/5\",queue=\"UC3\"}");
    env_close(&e);
}

/* in-pkts = seq * 10 of et-0/0/6 (sub-component 0) or et-0/0/7 (other
 * sub-components: a second PFE reports other ports, so its records never
 * meet the first's in one series; producers_combined covers that). */
static int decode_hdr(struct env *e, const struct hdr_spec *hs, struct fsc_gnmi_result *res,
                      struct fsc_sample *smp)
{
    uint8_t buf[4096];
    Gnmi__Update *u = mk_update("/state/counters/in-pkts", tv_uint(hs->seq * 10));
    size_t n = pack_notif(buf,
                          hs->sub_component_id ? "/interfaces/interface[name=et-0/0/7]"
                                               : "/interfaces/interface[name=et-0/0/6]",
                          T0_NS, &u, 1, hs);
    return fsc_gnmi_decode(e->dec, buf, n, ARR, smp, 1, res);
}

/* Sequence numbers per (component, sub-component, path): a jump skips
 * numbers, which are lost only once they leave the 64-number reorder window
 * or their numbering ends; another PFE has its own numbering; a new
 * stream_creation_timestamp is a reset, and closes the old numbering. */
static void sequence_gaps(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[1];
    struct hdr_spec a = {
        1, 0, "/interfaces/interface/state/counters/", 100, 1764460801000LL, 1764460000000LL};
    struct hdr_spec b = a;
    b.sub_component_id = 1;
    b.seq = 5000;
    CHECK_INT(decode_hdr(&e, &a, &res, smp), 0);
    CHECK_INT(res.seq_skipped, 0);
    a.seq = 101;
    CHECK_INT(decode_hdr(&e, &a, &res, smp), 0);
    CHECK_INT(res.seq_skipped, 0);
    CHECK_INT(decode_hdr(&e, &b, &res, smp), 0); /* other PFE: first seen */
    CHECK_INT(res.seq_skipped, 0);
    a.seq = 105; /* 102, 103, 104 skipped: still inside the window */
    CHECK_INT(decode_hdr(&e, &a, &res, smp), 0);
    CHECK_INT(res.seq_skipped, 3);
    CHECK_INT(res.seq_lost, 0);
    CHECK_INT(smp[0].flags, 0);
    b.seq = 5001;
    CHECK_INT(decode_hdr(&e, &b, &res, smp), 0);
    CHECK_INT(res.seq_skipped, 0);
    a.seq = 1; /* producer re-created: reset flag; 102..104 can arrive no more */
    a.creation_ms += 60000;
    CHECK_INT(decode_hdr(&e, &a, &res, smp), 0);
    CHECK_INT(res.seq_skipped, 0);
    CHECK_INT(res.seq_lost, 3);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    a.seq = 2;
    CHECK_INT(decode_hdr(&e, &a, &res, smp), 0);
    CHECK_INT(smp[0].flags, 0);
    CHECK_INT(res.seq_lost, 0);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.seq_skipped, 3);
    CHECK_INT(st.seq_lost, 3);
    CHECK_INT(st.seq_late, 0);
    CHECK_INT(st.seq_restarts, 1);
    env_close(&e);
}

/* Decodes sequence number `seq` of producer (1, pfe); returns what it lost. */
static uint64_t seq_pfe(struct env *e, uint32_t pfe, uint64_t seq, struct fsc_gnmi_result *res)
{
    struct fsc_sample smp[1];
    struct hdr_spec a = {
        1, pfe, "/interfaces/interface/state/counters/", seq, 1764460801000LL, 1764460000000LL};
    CHECK_INT(decode_hdr(e, &a, res, smp), 0);
    tb_reset(); /* thousands of messages: free each one's builder */
    return res->seq_lost;
}

static uint64_t seq_one(struct env *e, uint64_t seq, struct fsc_gnmi_result *res)
{
    return seq_pfe(e, 0, seq, res);
}

/* One lost batch and one late batch (the field report counted 3 gaps for
 * one of each): 4 numbers never arrive, 4 arrive after their successors.
 * Known answer from the rule: number n is lost when the highest number
 * reaches n + 64, so the 4 lost ones (20..23) are counted when 84..87
 * arrive, one each, and the late ones (30..33) never. */
static void sequence_late_not_lost(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    uint64_t lost = 0, late = 0, skipped = 0;
    for (uint64_t n = 1; n <= 200; n++) {
        if (n >= 20 && n <= 23)
            continue; /* the lost batch */
        if (n >= 30 && n <= 33)
            continue; /* arrives after 37 */
        uint64_t l = seq_one(&e, n, &res);
        CHECK_INT(l, (n >= 84 && n <= 87) ? 1 : 0);
        lost += l;
        skipped += res.seq_skipped;
        CHECK_INT(res.seq_late, 0);
        if (n == 37) {
            for (uint64_t m = 30; m <= 33; m++) {
                CHECK_INT(seq_one(&e, m, &res), 0);
                CHECK_INT(res.seq_late, 1);
                CHECK_INT(res.seq_skipped, 0);
                late += res.seq_late;
            }
        }
    }
    CHECK_INT(lost, 4);
    CHECK_INT(late, 4);
    CHECK_INT(skipped, 8); /* both batches were jumped over */
    /* A repeat is no news; the numbers before the first one were never due. */
    CHECK_INT(seq_one(&e, 200, &res), 0);
    CHECK_INT(res.seq_late, 0);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.seq_lost, 4);
    CHECK_INT(st.seq_late, 4);
    CHECK_INT(st.seq_skipped, 8);
    CHECK_INT(st.seq_repeats, 1);
    CHECK_INT(st.seq_restarts, 0);
    /* A jump of 1000: the 999 numbers jumped over are skipped; all but the
     * 63 still inside the window are lost at once, those 63 once the next
     * 63 numbers arrived. */
    CHECK_INT(seq_one(&e, 1200, &res), 999 - 63);
    CHECK_INT(res.seq_skipped, 999);
    uint64_t later = 0;
    for (uint64_t n = 1201; n <= 1263; n++)
        later += seq_one(&e, n, &res);
    CHECK_INT(later, 63);
    env_close(&e);
}

/* Numberings that start over are no gaps: a restart far below the highest
 * number is confirmed by the next number (a message later than the window is
 * not a restart); one inside the window only repeats numbers; the
 * initial-sync range [2^21, 2^22 - 1] has a numbering of its own; 2^64 - 1
 * does not wrap. */
static void sequence_restarts(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_gnmi_decode_stats st;
    const uint64_t sync = 1ULL << 21;
    uint64_t lost = 0, skipped = 0;
    for (uint64_t n = sync; n < sync + 5; n++)
        lost += seq_one(&e, n, &res); /* initial sync */
    for (uint64_t n = 1; n <= 150; n++) {
        lost += seq_one(&e, n, &res);
        skipped += res.seq_skipped;
    }
    /* the call is re-established, the producer numbers from 0 again */
    lost += seq_one(&e, 0, &res);
    lost += seq_one(&e, 1, &res);
    skipped += res.seq_skipped;
    for (uint64_t n = 2; n <= 100; n++) {
        lost += seq_one(&e, n, &res);
        skipped += res.seq_skipped;
    }
    CHECK_INT(lost, 0);
    CHECK_INT(skipped, 0);
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.seq_restarts, 1);
    /* 120 never arrives in time: lost when 184 arrives; arriving after 190
     * it is far below the window, and 191 shows the numbering went on */
    for (uint64_t n = 101; n <= 190; n++)
        if (n != 120)
            CHECK_INT(seq_one(&e, n, &res), n == 184 ? 1 : 0);
    CHECK_INT(seq_one(&e, 120, &res), 0);
    CHECK_INT(seq_one(&e, 191, &res), 0);
    CHECK_INT(res.seq_skipped, 0);
    /* initial sync again, then the ordinary numbering: no jump either way */
    CHECK_INT(seq_one(&e, sync + 5, &res), 0);
    CHECK_INT(res.seq_skipped, 0);
    CHECK_INT(seq_one(&e, 192, &res), 0);
    CHECK_INT(res.seq_skipped, 0);
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.seq_lost, 1);
    CHECK_INT(st.seq_restarts, 1);
    /* A short numbering starts over inside the window: repeats, then on. */
    for (uint64_t n = 0; n < 10; n++)
        CHECK_INT(seq_pfe(&e, 1, n, &res), 0);
    for (uint64_t n = 0; n <= 20; n++) {
        CHECK_INT(seq_pfe(&e, 1, n, &res), 0);
        CHECK_INT(res.seq_skipped, 0);
    }
    /* The top of the number space. */
    CHECK_INT(seq_pfe(&e, 2, UINT64_MAX - 1, &res), 0);
    CHECK_INT(seq_pfe(&e, 2, UINT64_MAX, &res), 0);
    CHECK_INT(seq_pfe(&e, 2, UINT64_MAX, &res), 0);
    CHECK_INT(res.seq_skipped, 0);
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.seq_lost, 1);
    CHECK_INT(st.seq_skipped, 1); /* 120 */
    CHECK_INT(st.seq_repeats, 10 + 1);
    CHECK_INT(st.seq_restarts, 1);
    env_close(&e);
}

/* Junos' per-priority PFC leaves (jnx-pfc-statistics[priority]) map to the
 * canonical PFC families with a priority label, feeding the PFC detector. */
static void pfc_priority_label(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[2] = {
        mk_update("/jnx-pfc-statistics[priority=3]/in-mac-pause-frames", tv_uint(41)),
        mk_update("/jnx-pfc-statistics[priority=3]/out-mac-pause-frames", tv_uint(7)),
    };
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/2]/ethernet/state/counters",
                          T0_NS, u, 2, NULL);
    struct fsc_sample smp[2];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 2, &res), 0);
    CHECK_INT(res.n_samples, 2);
    CHECK_INT(res.unknown, 0);
    if (res.n_samples == 2) {
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_port_pfc_rx_pause_frames_total{device=\"leaf1\",port=\"et-0/0/2\","
                  "priority=\"3\"}");
        CHECK_STR(series_text(e.se.reg, smp[1].series),
                  "fabric_port_pfc_tx_pause_frames_total{device=\"leaf1\",port=\"et-0/0/2\","
                  "priority=\"3\"}");
        CHECK_INT(smp[0].v.u, 41);
        CHECK_INT(smp[1].v.u, 7);
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(e.se.eng, smp[0].series, &view), 0);
        CHECK_INT(view.signal, FSC_SIG_PFC_PAUSE_FRAMES);
    }
    env_close(&e);
}

/* One record of (component, sub-component) = (c, s) for et-0/0/8: in-pkts
 * and the queue peak (max-queue-len) of queue 0. */
static int decode_producer(struct env *e, uint32_t c, uint32_t sc, uint64_t seq, uint64_t pkts,
                           uint64_t peak, struct fsc_gnmi_result *res, struct fsc_sample *smp)
{
    uint8_t buf[4096];
    struct hdr_spec hs = {c, sc, "/interfaces/", seq, 1764460801000LL, 1764460000000LL};
    Gnmi__Update *u = mk_update("/state/counters/in-pkts", tv_uint(pkts));
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/8]", T0_NS, &u, 1, &hs);
    int rc = fsc_gnmi_decode(e->dec, buf, n, ARR, smp, 1, res);
    if (rc != 0 || res->n_samples > 1)
        return -1;
    Gnmi__Update *q = mk_update("/queue[name=0]/state/max-queue-len", tv_uint(peak));
    hs.streamed_path = "/qos/interfaces/interface/output/queues/";
    n = pack_notif(buf, "/qos/interfaces/interface[interface-id=et-0/0/8]/output/queues", T0_NS, &q,
                   1, &hs);
    struct fsc_gnmi_result r2;
    rc = fsc_gnmi_decode(e->dec, buf, n, ARR, smp + 1, 1, &r2);
    res->n_samples += r2.n_samples << 4; /* peaks counted in the high nibble */
    res->multi_wait += r2.multi_wait;
    return rc;
}

/* A port reported by two line cards (Juniper: once per line card) is one
 * series: the sum of the producers' last counters (max of the gauges),
 * held until both reported, the first sum flagged RESET (a new baseline,
 * no rate across it); never two conflicting samples. */
static void producers_combined(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[2];
    CHECK_INT(decode_producer(&e, 1, 0, 10, 100, 5000, &res, smp), 0); /* card 1 alone */
    CHECK_INT(res.n_samples, 0x11);
    CHECK_INT(smp[0].v.u, 100);
    CHECK_INT(smp[0].flags, 0);
    CHECK_INT(smp[1].v.u, 5000);
    CHECK_INT(decode_producer(&e, 2, 0, 20, 50, 9000, &res, smp), 0); /* card 2 joins */
    CHECK_INT(res.n_samples, 0);
    CHECK_INT(res.multi_wait, 2);
    CHECK_INT(decode_producer(&e, 1, 0, 11, 110, 4000, &res, smp), 0);
    CHECK_INT(res.n_samples, 0x11);
    CHECK_INT(smp[0].v.u, 160); /* 110 + 50 */
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    CHECK_INT(smp[1].v.u, 9000); /* max(4000, 9000) */
    CHECK_INT(smp[1].flags, 0);
    CHECK_INT(decode_producer(&e, 2, 0, 21, 70, 1000, &res, smp), 0);
    CHECK_INT(res.n_samples, 0x11);
    CHECK_INT(smp[0].v.u, 180); /* 110 + 70 */
    CHECK_INT(smp[0].flags, 0);
    CHECK_INT(smp[1].v.u, 4000); /* max(4000, 1000) */
    CHECK_INT(res.seq_skipped, 0);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.multi_series, 2);
    CHECK_INT(st.multi_wait, 2);
    CHECK_INT(st.multi_dropped, 0);
    env_close(&e);
}

/* One in-pkts record of et-0/0/`port` from line card `c`; the sample count
 * (0 or 1), or -1 when the decode fails. */
static int decode_port_record(struct env *e, uint32_t c, uint32_t port, uint64_t seq, uint64_t pkts,
                              struct fsc_sample *smp)
{
    uint8_t buf[4096];
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "/interfaces/interface[name=et-0/0/%u]", port);
    struct hdr_spec hs = {c, 0, "/interfaces/", seq, 1764460801000LL, 1764460000000LL};
    Gnmi__Update *u = mk_update("/state/counters/in-pkts", tv_uint(pkts));
    size_t n = pack_notif(buf, prefix, T0_NS, &u, 1, &hs);
    tb_reset(); /* the message is packed: its builder allocations can go */
    struct fsc_gnmi_result res;
    if (fsc_gnmi_decode(e->dec, buf, n, ARR, smp, 1, &res) != 0)
        return -1;
    return (int)res.n_samples;
}

/* 40 ports, each reported by two line cards: the table of combined series
 * starts small and grows (16 slots, load <= 1/2) without losing an entry;
 * every port's sum is its own. */
static void producers_many(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_sample smp[1];
    for (uint32_t k = 0; k < 40; k++) {
        CHECK_INT(decode_port_record(&e, 1, k, 10, 100 + k, smp), 1);  /* card 1 alone */
        CHECK_INT(decode_port_record(&e, 2, k, 10, 1000 * k, smp), 0); /* card 2 joins */
    }
    for (uint32_t k = 0; k < 40; k++) {
        CHECK_INT(decode_port_record(&e, 1, k, 11, 200 + k, smp), 1);
        CHECK_INT(smp[0].v.u, 200 + k + 1000 * k);
        CHECK_INT(decode_port_record(&e, 2, k, 11, 1000 * k + 7, smp), 1);
        CHECK_INT(smp[0].v.u, 200 + k + 1000 * k + 7);
    }
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.multi_series, 40);
    CHECK_INT(st.multi_dropped, 0);
    env_close(&e);
}

/* Paths past the decoder's bounds are dropped and counted as such: the
 * prefix's 3 elements joined with a path of 29 are 32 (taken), with 30 are
 * 33 (FSC_GNMI_ELEMS_MAX + 1: dropped). */
static void path_bounds(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    char deep29[29 * 3 + 1] = "", deep30[30 * 3 + 1] = "";
    for (int i = 0; i < 30; i++) {
        char el[4];
        snprintf(el, sizeof(el), "/%c%c", 'a' + i % 26, 'a' + i / 26);
        if (i < 29)
            strcat(deep29, el);
        strcat(deep30, el);
    }
    uint8_t buf[4096];
    Gnmi__Update *u[2] = {mk_update(deep29, tv_uint(7)), mk_update(deep30, tv_uint(8))};
    size_t n = pack_notif(buf, "/x/y/z", T0_NS, u, 2, NULL);
    struct fsc_sample smp[4];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.updates, 2);
    CHECK_INT(res.path_dropped, 1);
    CHECK_INT(res.unsupported, 1);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(res.n_samples == 1 ? smp[0].v.u : 0, 7);
    env_close(&e);
}

/* Every numeric value form, and the unsupported ones. */
static void value_types(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[12] = {
        mk_update("/a/uint", tv_uint(UINT64_MAX)),
        mk_update("/a/int", tv_int(1234)),
        mk_update("/a/double", tv_double(2.5)),
        mk_update("/a/float", tv_float(0.75f)),
        mk_update("/a/json", tv_json("987654321", 0)),
        mk_update("/a/json_ietf", tv_json("\"18446744073709551615\"", 1)),
        mk_update("/a/json_frac", tv_json(" 1.5e3 ", 0)),
        mk_update("/a/string", tv_string("31337")),
        /* unsupported: */
        mk_update("/a/neg", tv_int(-1)),
        mk_update("/a/bool", tv_bool(1)),
        mk_update("/a/text", tv_string("UP")),
        mk_update("/a/json_obj", tv_json("{\"x\":1}", 1)),
    };
    size_t n = pack_notif(buf, "/components/component[name=FPC0]", T0_NS, u, 12, NULL);
    struct fsc_sample smp[16];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 16, &res), 0);
    CHECK_INT(res.updates, 12);
    CHECK_INT(res.unsupported, 4);
    CHECK_INT(res.path_dropped, 0); /* values, not paths */
    CHECK_INT(res.n_samples, 8);
    if (res.n_samples == 8) {
        CHECK(smp[0].v.u == UINT64_MAX && smp[0].flags == 0);
        CHECK_INT(smp[1].v.u, 1234);
        CHECK(smp[2].flags == FSC_SMP_F64 && smp[2].v.d == 2.5);
        CHECK(smp[3].flags == FSC_SMP_F64 && smp[3].v.d == 0.75);
        CHECK(smp[4].flags == 0 && smp[4].v.u == 987654321);
        CHECK(smp[5].flags == 0 && smp[5].v.u == UINT64_MAX);
        CHECK(smp[6].flags == FSC_SMP_F64 && smp[6].v.d == 1500.0);
        CHECK(smp[7].flags == 0 && smp[7].v.u == 31337);
        /* passthrough name, the unknown list's key kept as a label */
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_junos_components_component_a_uint{device=\"leaf1\",name=\"FPC0\"}");
    }
    env_close(&e);
}

/* Bytes that are not a SubscribeResponse: an error, nothing emitted. */
static void malformed_bytes(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[2] = {mk_update("/state/counters/in-octets", tv_uint(1)),
                          mk_update("/state/counters/out-octets", tv_uint(2))};
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/7]", T0_NS, u, 2, NULL);
    struct fsc_sample smp[4];
    struct fsc_gnmi_result res;
    /* every truncation of a valid message is malformed (a length runs past
     * the end), except where it ends exactly between top-level fields */
    size_t bad = 0;
    for (size_t cut = 1; cut < n; cut++) {
        int rc = fsc_gnmi_decode(e.dec, buf, cut, ARR, smp, 4, &res);
        if (rc == -EBADMSG) {
            bad++;
            CHECK_INT(res.n_samples, 0);
        }
    }
    CHECK_INT(bad, n - 1); /* one notification field: any cut is inside it */
    static const uint8_t junk[][6] = {
        {0x0a, 0x05, 0x01, 0x02}, /* length 5, 2 bytes left */
        {0x0b, 0, 0, 0, 0, 0},    /* wire type 3 (group) */
        {0x00, 0x01},             /* field number 0 */
        {0x18, 0xff, 0xff, 0xff}, /* truncated varint */
        {0x0d, 0x01, 0x02, 0x03}, /* field 1 as fixed32: wrong wire type */
    };
    static const size_t junk_len[] = {4, 6, 2, 4, 4};
    for (size_t i = 0; i < sizeof(junk_len) / sizeof(junk_len[0]); i++) {
        CHECK_INT(fsc_gnmi_decode(e.dec, junk[i], junk_len[i], ARR, smp, 4, &res), -EBADMSG);
        CHECK_INT(res.n_samples, 0);
    }
    /* a notification whose second update's value has a bad length: the
     * first update's sample must not be emitted either */
    uint8_t corrupt[4096];
    memcpy(corrupt, buf, n);
    corrupt[n - 2] = 0x7f; /* the last uint_val tag becomes wire type 7 */
    int rc = fsc_gnmi_decode(e.dec, corrupt, n, ARR, smp, 4, &res);
    CHECK_INT(rc, -EBADMSG);
    CHECK_INT(res.n_samples, 0);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.malformed, bad + 6);
    CHECK_INT(st.samples, 0);
    /* every single-byte corruption: either decoded or refused, never more
     * samples than updates, nothing emitted on refusal (ASan build checks
     * the reads) */
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        static const uint8_t xors[] = {0x01, 0x80, 0xff, 0x7f};
        for (size_t x = 0; x < sizeof(xors); x++) {
            memcpy(corrupt, buf, n);
            corrupt[i] ^= xors[x];
            rc = fsc_gnmi_decode(e.dec, corrupt, n, ARR, smp, 4, &res);
            CHECK(rc == 0 || rc == -EBADMSG);
            CHECK(res.n_samples <= 2);
            if (rc != 0) {
                refused++;
                CHECK_INT(res.n_samples, 0);
            }
        }
    }
    CHECK(refused > 0);
    /* the intact message still decodes */
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.n_samples, 2);
    env_close(&e);
}

/* A path the profile does not know passes through under a sanitized name
 * and is counted, every time it is seen. */
static void unknown_path_passthrough(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[2] = {mk_update("/state/counters/in-sflow-pkts", tv_uint(8)),
                          mk_update("/state/counters/in-octets", tv_uint(9))};
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/8]", T0_NS, u, 2, NULL);
    struct fsc_sample smp[4];
    struct fsc_gnmi_result res;
    for (int round = 0; round < 2; round++) {
        CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
        CHECK_INT(res.unknown, 1);
        CHECK_INT(res.n_samples, 2);
    }
    CHECK_STR(series_text(e.se.reg, smp[0].series),
              "fabric_junos_interfaces_interface_state_counters_in_sflow_pkts{device=\"leaf1\","
              "port=\"et-0/0/8\"}");
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(e.se.eng, smp[0].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);
    CHECK_INT(view.signal, FSC_SIG_NONE);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.unknown, 2);
    env_close(&e);
}

/* The second message with the same paths hits the cache: same ids, no new
 * series, no heap allocation, no registry growth. Key order inside an elem
 * does not matter. */
static void cache_no_alloc(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__Update *u[3] = {
        mk_update("/state/counters/in-octets", tv_uint(1)),
        mk_update("/state/counters/out-octets", tv_uint(2)),
        mk_update("/list[a=1][b=2]/x", tv_uint(3)),
    };
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/9]", T0_NS, u, 3, NULL);
    struct fsc_sample first[4], second[4];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, first, 4, &res), 0);
    CHECK_INT(res.n_samples, 3);
    struct fsc_gnmi_decode_stats st1, st2;
    fsc_gnmi_decoder_stats(e.dec, &st1);
    CHECK_INT(st1.cache_series, 3);
    uint32_t count = fsc_registry_count(e.se.reg);
    size_t reg_mem = fsc_registry_memory_bytes(e.se.reg);

    Gnmi__Update *v[3] = {
        mk_update("/state/counters/in-octets", tv_uint(11)),
        mk_update("/state/counters/out-octets", tv_uint(12)),
        mk_update("/list[a=1][b=2]/x", tv_uint(13)),
    };
    n = pack_notif(buf, "/interfaces/interface[name=et-0/0/9]", T0_NS + 1, v, 3, NULL);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, second, 4, &res), 0);
    CHECK_INT(res.n_samples, 3);
    for (int i = 0; i < 3; i++)
        CHECK_INT(second[i].series, first[i].series);
    CHECK_INT(second[2].v.u, 13);
    fsc_gnmi_decoder_stats(e.dec, &st2);
    CHECK_INT(st2.cache_series, 3);
    CHECK_INT(st2.heap_allocs, st1.heap_allocs);
    CHECK(st2.memory_bytes == st1.memory_bytes);
    CHECK_INT(fsc_registry_count(e.se.reg), count);
    CHECK(fsc_registry_memory_bytes(e.se.reg) == reg_mem);

    /* The same path with its keys in another order is another byte string
     * (a cache entry of its own) but the same series. */
    Gnmi__Update *w = mk_update("/list[b=2][a=1]/x", tv_uint(14));
    n = pack_notif(buf, "/interfaces/interface[name=et-0/0/9]", T0_NS + 2, &w, 1, NULL);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, second, 4, &res), 0);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(second[0].series, first[2].series);
    CHECK_INT(fsc_registry_count(e.se.reg), count);

    /* Past the cache bound series still resolve (counted), ids unchanged. */
    struct env f;
    CHECK_INT(env_open(&f, NULL, 2), 0);
    n = pack_notif(buf, "/interfaces/interface[name=et-0/0/9]", T0_NS + 1, v, 3, NULL);
    if (f.dec) {
        CHECK_INT(fsc_gnmi_decode(f.dec, buf, n, ARR, first, 4, &res), 0);
        CHECK_INT(fsc_gnmi_decode(f.dec, buf, n, ARR, second, 4, &res), 0);
        CHECK_INT(res.n_samples, 3);
        CHECK_INT(second[2].series, first[2].series);
        fsc_gnmi_decoder_stats(f.dec, &st1);
        CHECK_INT(st1.cache_series, 2);
        CHECK_INT(st1.cache_full, 2);
        CHECK_INT(fsc_registry_count(f.se.reg), 3);
    }
    env_close(&f);
    env_close(&e);
}

/* sync_response and deletes are reported, not sampled; no device time at
 * all falls back to the arrival time, flagged. */
static void sync_delete_and_fallback_time(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    uint8_t buf[4096];
    Gnmi__SubscribeResponse rsp;
    gnmi__subscribe_response__init(&rsp);
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
    rsp.sync_response = 1;
    size_t n = gnmi__subscribe_response__pack(&rsp, buf);
    struct fsc_sample smp[4];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.sync_response, 1);
    CHECK_INT(res.n_samples, 0);

    Gnmi__Update *u = mk_update("/state/counters/in-octets", tv_uint(77));
    Gnmi__Notification nt;
    gnmi__notification__init(&nt);
    nt.prefix = mk_path("/interfaces/interface[name=et-0/0/10]");
    nt.update = &u;
    nt.n_update = 1;
    Gnmi__Path *del[2] = {mk_path("/subinterfaces/subinterface[index=0]"),
                          mk_path("/state/counters/in-fcs-errors")};
    nt.delete_ = del;
    nt.n_delete_ = 2;
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    rsp.update = &nt;
    n = gnmi__subscribe_response__pack(&rsp, buf);
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 4, &res), 0);
    CHECK_INT(res.sync_response, 0);
    CHECK_INT(res.deletes, 2);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(smp[0].t_dev_ns, ARR);
    CHECK_INT(smp[0].flags, FSC_SMP_ARRIVAL_TIME);
    CHECK_INT(smp[0].v.u, 77);
    /* a caller buffer too small: counted overflow */
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 0, &res), 0);
    CHECK_INT(res.overflow, 1);
    CHECK_INT(res.n_samples, 0);
    env_close(&e);
}

/* A topology port gives role/rail/peer labels and the link speed; the
 * stream's sample interval is the nominal interval. */
static void topology_labels_and_traits(void)
{
    static const char yaml[] = "topology:\n"
                               "  rails: 4\n"
                               "  devices:\n"
                               "    - name: leaf1\n"
                               "      role: leaf\n"
                               "      rail: 2\n"
                               "      ports:\n"
                               "        - {name: et-0/0/32, speed: 400G, role: uplink, peer: "
                               "\"spine1:swp3\"}\n"
                               "    - name: spine1\n"
                               "      role: spine\n"
                               "      ports:\n"
                               "        - {name: swp3, speed: 400G, role: downlink}\n";
    struct env e;
    CHECK_INT(env_open(&e, yaml, 0), 0);
    if (!e.dec) {
        env_close(&e);
        return;
    }
    uint8_t buf[4096];
    Gnmi__Update *u = mk_update("/state/counters/out-octets", tv_uint(1000));
    size_t n = pack_notif(buf, "/interfaces/interface[name=et-0/0/32]", T0_NS, &u, 1, NULL);
    struct fsc_sample smp[2];
    struct fsc_gnmi_result res;
    CHECK_INT(fsc_gnmi_decode(e.dec, buf, n, ARR, smp, 2, &res), 0);
    CHECK_INT(res.n_samples, 1);
    if (res.n_samples == 1) {
        CHECK_STR(series_text(e.se.reg, smp[0].series),
                  "fabric_port_tx_bytes_total{device=\"leaf1\",peer=\"spine1:swp3\",port=\"et-0/"
                  "0/32\",rail=\"2\",role=\"uplink\"}");
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(e.se.eng, smp[0].series, &view), 0);
        CHECK(view.link_speed_bps == 400000000000ULL);
        CHECK_INT(view.signal, FSC_SIG_PORT_BYTES);
    }
    env_close(&e);
}

/* ---- last-clear and gauges through the engine --------------------------------- */

#define IFC "/interfaces/interface[name=et-0/0/1]/state/counters"

/* Decodes one notification of up to 4 updates under `prefix` at t_s seconds
 * after T0 and gives its samples to the engine; *res and smp[] hold them. */
static void decode_ingest(struct env *e, const char *prefix, int t_s, Gnmi__Update **u, size_t n,
                          struct fsc_gnmi_result *res, struct fsc_sample *smp)
{
    uint8_t buf[4096];
    size_t len = pack_notif(buf, prefix, T0_NS + (int64_t)t_s * 1000000000LL, u, n, NULL);
    CHECK_INT(fsc_gnmi_decode(e->dec, buf, len, ARR, smp, 8, res), 0);
    CHECK_INT(fsc_engine_ingest(e->se.eng, smp, res->n_samples), 0);
}

/* The counter_reset events published so far (at most max), in order. */
static size_t reset_events(struct fsc_event_sub *sub, struct fsc_event *ev, size_t max)
{
    struct fsc_event all[64];
    size_t n = fsc_event_poll(sub, all, 64, NULL), k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].kind == FSC_EV_COUNTER_RESET && k < max)
            ev[k++] = all[i];
    return k;
}

/* OpenConfig last-clear is no series; its change is reset evidence for the
 * counters of its interface, whether it comes after them in the same
 * notification, before them, or in an earlier one; each counter's first
 * sample from then on carries FSC_SMP_RESET, once. A counter cleared that
 * grew past its old value by the next sample (1100 -> 5000) would otherwise
 * make a rate out of nothing: the engine restarts its baseline and
 * publishes counter_reset with cause reset_evidence. */
static void last_clear_reset_evidence(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_event_sub *sub = fsc_event_subscribe(e.se.bus);
    struct fsc_gnmi_result res;
    struct fsc_sample smp[8];
    /* 1: first sighting of last-clear, after the counters: no evidence */
    Gnmi__Update *m1[3] = {mk_update("/in-octets", tv_uint(1000)),
                           mk_update("/out-octets", tv_uint(2000)),
                           mk_update("/last-clear", tv_uint(1764400000000000000ULL))};
    decode_ingest(&e, IFC, 0, m1, 3, &res, smp);
    CHECK_INT(res.n_samples, 2);
    CHECK_INT(res.clears, 1);
    CHECK_INT(res.unknown, 0);
    CHECK_INT(smp[0].flags | smp[1].flags, 0);
    CHECK_INT(fsc_registry_count(e.se.reg), 2); /* no last-clear series */
    fsc_series_id rx = smp[0].series, tx = smp[1].series;
    /* 2: the same value: nothing */
    Gnmi__Update *m2[3] = {mk_update("/in-octets", tv_uint(1100)),
                           mk_update("/out-octets", tv_uint(2100)),
                           mk_update("/last-clear", tv_uint(1764400000000000000ULL))};
    decode_ingest(&e, IFC, 2, m2, 3, &res, smp);
    CHECK_INT(smp[0].flags | smp[1].flags, 0);
    /* 3: cleared; the leaf comes after the counters, which already grew past
     * their old values: both flagged when the notification ends */
    Gnmi__Update *m3[3] = {mk_update("/in-octets", tv_uint(5000)),
                           mk_update("/out-octets", tv_uint(70)),
                           mk_update("/last-clear", tv_uint(1764460803000000000ULL))};
    decode_ingest(&e, IFC, 4, m3, 3, &res, smp);
    CHECK_INT(res.n_samples, 2);
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    CHECK_INT(smp[1].flags, FSC_SMP_RESET);
    struct fsc_event ev[8];
    size_t nev = reset_events(sub, ev, 8);
    CHECK_INT(nev, 2);
    for (size_t i = 0; i < nev; i++) {
        CHECK_INT(EVF(&ev[i], FSC_EF_CAUSE), 1); /* reset_evidence */
        CHECK_INT(ev[i].series, i == 0 ? rx : tx);
    }
    if (nev == 2) {
        CHECK_INT(EVF(&ev[0], FSC_EF_VALUE_BEFORE), 1100);
        CHECK_INT(EVF(&ev[0], FSC_EF_VALUE_AFTER), 5000);
    }
    /* 4: no change: counters as usual */
    Gnmi__Update *m4[2] = {mk_update("/in-octets", tv_uint(6000)),
                           mk_update("/out-octets", tv_uint(170))};
    decode_ingest(&e, IFC, 6, m4, 2, &res, smp);
    CHECK_INT(smp[0].flags | smp[1].flags, 0);
    /* 5: cleared again, the leaf first; only in-octets is in this message */
    Gnmi__Update *m5[2] = {mk_update("/last-clear", tv_uint(1764460807000000000ULL)),
                           mk_update("/in-octets", tv_uint(9000))};
    decode_ingest(&e, IFC, 8, m5, 2, &res, smp);
    CHECK_INT(res.n_samples, 1);
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    /* 6: cleared once more, alone; 7: both counters later, flagged once */
    Gnmi__Update *m6[1] = {mk_update("/last-clear", tv_uint(1764460809000000000ULL))};
    decode_ingest(&e, IFC, 10, m6, 1, &res, smp);
    CHECK_INT(res.n_samples, 0);
    Gnmi__Update *m7[2] = {mk_update("/in-octets", tv_uint(20000)),
                           mk_update("/out-octets", tv_uint(30000))};
    decode_ingest(&e, IFC, 12, m7, 2, &res, smp);
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    CHECK_INT(smp[1].flags, FSC_SMP_RESET);
    Gnmi__Update *m8[2] = {mk_update("/in-octets", tv_uint(21000)),
                           mk_update("/out-octets", tv_uint(31000))};
    decode_ingest(&e, IFC, 14, m8, 2, &res, smp);
    CHECK_INT(smp[0].flags | smp[1].flags, 0);
    /* Another interface's counters are not its business; a queue counter
     * of the same interface (another prefix) is: its first sample after a
     * clear is flagged too (it was first seen before the clear of 6). */
    Gnmi__Update *q[1] = {
        mk_update("/output/queues/queue[name=UC3]/state/transmit-pkts", tv_uint(5))};
    Gnmi__Update *o[1] = {mk_update("/in-octets", tv_uint(1))};
    decode_ingest(&e, "/qos/interfaces/interface[interface-id=et-0/0/1]", 14, q, 1, &res, smp);
    CHECK_INT(smp[0].flags, 0); /* a new series: its first sample is a baseline anyway */
    decode_ingest(&e, "/interfaces/interface[name=et-0/0/2]/state/counters", 14, o, 1, &res, smp);
    Gnmi__Update *m9[1] = {mk_update("/last-clear", tv_uint(1764460815000000000ULL))};
    decode_ingest(&e, IFC, 16, m9, 1, &res, smp);
    q[0] = mk_update("/output/queues/queue[name=UC3]/state/transmit-pkts", tv_uint(6));
    o[0] = mk_update("/in-octets", tv_uint(2));
    decode_ingest(&e, "/qos/interfaces/interface[interface-id=et-0/0/1]", 16, q, 1, &res, smp);
    CHECK_INT(smp[0].flags, FSC_SMP_RESET);
    decode_ingest(&e, "/interfaces/interface[name=et-0/0/2]/state/counters", 16, o, 1, &res, smp);
    CHECK_INT(smp[0].flags, 0);

    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.clears, 6);
    CHECK_INT(st.clear_changes, 4);
    CHECK_INT(st.clear_resets, 2 + 1 + 2 + 1);
    CHECK_INT(st.clear_untracked, 0);
    CHECK_INT(st.unknown, 0);
    struct fsc_engine_stats es;
    fsc_engine_stats_get(e.se.eng, &es);
    CHECK_INT(es.verdicts[FSC_RATE_RESET], 6);
    fsc_event_unsubscribe(sub);
    env_close(&e);
}

/* The field report: Junos' peak_buffer_occupancy_percent (is_gauge in
 * qmon.proto) falling 61 -> 0 raised counter_reset. Unmapped, it passes
 * through as a gauge by its name: the engine keeps its last value, no reset,
 * no event; a passthrough counter falling the same way still is a reset. */
static void gauge_falls_no_reset(void)
{
    struct env e;
    CHECK_INT(env_open(&e, NULL, 0), 0);
    if (!e.dec)
        return;
    struct fsc_event_sub *sub = fsc_event_subscribe(e.se.bus);
    struct fsc_gnmi_result res;
    struct fsc_sample smp[8];
    const char *pfx = "/junos/system/linecard/qmon-sw";
    static const uint64_t pct[3] = {61, 0, 12};
    for (int k = 0; k < 3; k++) {
        Gnmi__Update *u[2] = {
            mk_update("/queue_monitor_element_info[if_name=et-0/0/4]/queue_monitor_stats_egress/"
                      "queue_monitor_stats_info[queue_number=3]/peak_buffer_occupancy_percent",
                      tv_uint(pct[k])),
            mk_update("/queue_monitor_element_info[if_name=et-0/0/4]/queue_monitor_stats_egress/"
                      "queue_monitor_stats_info[queue_number=3]/red_drop_packets_color_0",
                      tv_uint(k == 1 ? 0 : 100 * (uint64_t)(k + 1)))};
        decode_ingest(&e, pfx, 2 * k, u, 2, &res, smp);
        CHECK_INT(res.n_samples, 2);
        CHECK_INT(res.unknown, 2);
    }
    /* The passthrough name is shortened to its last words (profile_test
     * checks the tag); the labels stay, the queue key under its canonical
     * name. */
    const char *text = series_text(e.se.reg, smp[0].series);
    static const char tail[] = "_stats_egress_queue_monitor_stats_info_peak_buffer_occupancy_"
                               "percent{device=\"leaf1\",port=\"et-0/0/4\",queue=\"3\"}";
    CHECK(strncmp(text, "fabric_junos_x", 14) == 0);
    CHECK(strlen(text) > strlen(tail) && strcmp(text + strlen(text) - strlen(tail), tail) == 0);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(e.se.eng, smp[0].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_GAUGE);
    CHECK_INT(fsc_engine_view(e.se.eng, smp[1].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);
    struct fsc_event ev[8];
    size_t nev = reset_events(sub, ev, 8);
    CHECK_INT(nev, 1); /* the counter's 200 -> 0 only */
    if (nev == 1) {
        CHECK_INT(ev[0].series, smp[1].series);
        CHECK_INT(EVF(&ev[0], FSC_EF_CAUSE), 0); /* decrease */
    }
    struct fsc_engine_stats es;
    fsc_engine_stats_get(e.se.eng, &es);
    CHECK_INT(es.verdicts[FSC_RATE_GAUGE], 3);
    CHECK_INT(es.verdicts[FSC_RATE_RESET], 1);
    fsc_event_unsubscribe(sub);
    env_close(&e);
}

TEST_MAIN(TEST(openconfig_prefix_keys), TEST(junos_header_timestamp), TEST(pseudo_leaves_dropped),
          TEST(queue_occupancy_labels), TEST(sequence_gaps), TEST(value_types), TEST(path_bounds),
          TEST(malformed_bytes), TEST(unknown_path_passthrough), TEST(cache_no_alloc),
          TEST(sync_delete_and_fallback_time), TEST(topology_labels_and_traits),
          TEST(pfc_priority_label), TEST(producers_combined), TEST(producers_many),
          TEST(sequence_late_not_lost), TEST(sequence_restarts), TEST(last_clear_reset_evidence),
          TEST(gauge_falls_no_reset))
