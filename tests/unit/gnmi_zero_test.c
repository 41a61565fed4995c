/* Zero-suppressed Junos counters read as 0 (gnmi_zero.c): a leaf shown as
 * 0 and left out of a later report reads 0 at once; a leaf other instances
 * of its container report, never sent by one instance in 3 reports, becomes
 * a 0 at each of that instance's reports until the device sends it; split
 * instances, gauges and strings are not filled; after a clear every shown
 * leaf reads 0 when left out (the first 0 is reset evidence). Messages are
 * built with the generated protobuf-c code (gnmi_decode_fixture.h). */
#include "gnmi_decode_fixture.h"
#include "sources/gnmi/gnmi_int.h"

#define IF1 "/interfaces/interface[name=et-0/0/1]/state/counters"
#define IF2 "/interfaces/interface[name=et-0/0/2]/state/counters"
#define Q1  "/qos/interfaces/interface[interface-id=et-0/0/1]/output/queues"

#define CAP 16

static int open_filling(struct env *e, bool fill)
{
    struct fsc_gnmi_decode_config dcfg = {.sample_interval_ns = 2000000000,
                                          .fill_suppressed_zeros = fill};
    return env_open_cfg(e, NULL, dcfg);
}

/* Decodes one notification under prefix at t_s seconds after T0 into smp[]
 * (CAP) and gives the samples to the engine. */
static void decode_at(struct env *e, const char *prefix, int t_s, Gnmi__Update **u, size_t n,
                      struct fsc_gnmi_result *res, struct fsc_sample *smp)
{
    uint8_t buf[4096];
    size_t len = pack_notif(buf, prefix, T0_NS + (int64_t)t_s * 1000000000LL, u, n, NULL);
    CHECK_INT(fsc_gnmi_decode(e->dec, buf, len, ARR, smp, CAP, res), 0);
    CHECK_INT(fsc_engine_ingest(e->se.eng, smp, res->n_samples), 0);
}

/* Port 1 sends both counters, port 2 only in-octets (its discards stay 0
 * and are suppressed). */
static void port1(struct env *e, int t, uint64_t octets, uint64_t discards,
                  struct fsc_gnmi_result *res, struct fsc_sample *smp)
{
    Gnmi__Update *u[2] = {mk_update("/in-octets", tv_uint(octets)),
                          mk_update("/in-discards", tv_uint(discards))};
    decode_at(e, IF1, t, u, 2, res, smp);
}

static void port2(struct env *e, int t, uint64_t octets, struct fsc_gnmi_result *res,
                  struct fsc_sample *smp)
{
    Gnmi__Update *u[1] = {mk_update("/in-octets", tv_uint(octets))};
    decode_at(e, IF2, t, u, 1, res, smp);
}

static void suppressed_counter_reads_zero(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, true), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    /* Reports 1 and 2 of port 2: not yet (a split instance would look so). */
    for (int t = 0; t <= 2; t += 2) {
        port1(&e, t, 1000u * (unsigned)(t + 1), 7, &res, smp);
        CHECK_INT(res.n_samples, 2);
        CHECK_INT(res.zero_filled, 0);
        port2(&e, t, 5000u * (unsigned)(t + 1), &res, smp);
        CHECK_INT(res.n_samples, 1);
        CHECK_INT(res.zero_filled, 0);
    }
    /* Report 3 and on: in-discards of port 2 reads 0 at the report's time. */
    for (int t = 4; t <= 8; t += 2) {
        port1(&e, t, 1000u * (unsigned)(t + 1), 7, &res, smp);
        CHECK_INT(res.zero_filled, 0); /* port 1 sends both */
        port2(&e, t, 5000u * (unsigned)(t + 1), &res, smp);
        CHECK_INT(res.n_samples, 2);
        CHECK_INT(res.zero_filled, 1);
        CHECK_STR(series_text(e.se.reg, smp[1].series),
                  "fabric_port_rx_discards_total{device=\"leaf1\",port=\"et-0/0/2\"}");
        CHECK_INT(smp[1].v.u, 0);
        CHECK_INT(smp[1].flags, 0);
        CHECK_INT(smp[1].t_dev_ns, T0_NS + (int64_t)t * 1000000000LL);
        CHECK_INT(smp[1].t_arr_ns, ARR);
    }
    /* Through the engine: a series whose value is 0 and has not moved. */
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(e.se.eng, smp[1].series, &view), 0);
    CHECK(view.present);
    CHECK(view.has_value);
    CHECK_INT(view.value.u, 0);
    CHECK_INT(view.t_last_ns, T0_NS + 8 * 1000000000LL);
    /* The device sends it once it moves: from then on it is a counter like
     * any other, never filled again. */
    Gnmi__Update *u[2] = {mk_update("/in-octets", tv_uint(60000)),
                          mk_update("/in-discards", tv_uint(3))};
    decode_at(&e, IF2, 10, u, 2, &res, smp);
    CHECK_INT(res.n_samples, 2);
    CHECK_INT(res.zero_filled, 0);
    CHECK_INT(smp[1].v.u, 3);
    port2(&e, 12, 70000, &res, smp);
    CHECK_INT(res.zero_filled, 0);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(e.dec, &st);
    CHECK_INT(st.zero_filled, 3);
    env_close(&e);
}

/* One instance split over two messages at the same time: the leaf of the
 * second message was seen, so it is never filled. */
static void split_instance_not_filled(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, true), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    port1(&e, 0, 1000, 7, &res, smp);
    port2(&e, 0, 5000, &res, smp);
    Gnmi__Update *d[1] = {mk_update("/in-discards", tv_uint(2))};
    decode_at(&e, IF2, 0, d, 1, &res, smp);
    uint32_t filled = 0;
    for (int t = 2; t <= 12; t += 2) {
        port1(&e, t, 1000u * (unsigned)(t + 1), 7, &res, smp);
        filled += res.zero_filled;
        port2(&e, t, 5000u * (unsigned)(t + 1), &res, smp);
        filled += res.zero_filled;
    }
    CHECK_INT(filled, 0);
    env_close(&e);
}

/* Per queue: queue 3 reports its drops, queue 4 (same port) does not: queue
 * 4's drops read 0 from its third report. A gauge (max-queue-len) and a
 * string that only queue 3 sends are never filled. */
static void queues_counters_only(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, true), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    for (int k = 0; k < 4; k++) {
        Gnmi__Update *u[6] = {
            mk_update("/queue[name=3]/state/transmit-pkts", tv_uint(100u + (unsigned)k)),
            mk_update("/queue[name=3]/state/dropped-pkts", tv_uint(9)),
            mk_update("/queue[name=3]/state/max-queue-len", tv_uint(4096)),
            mk_update("/queue[name=3]/state/some-state", tv_string("UP")),
            mk_update("/queue[name=4]/state/transmit-pkts", tv_uint(200u + (unsigned)k)),
        };
        decode_at(&e, Q1, 2 * k, u, 5, &res, smp);
        if (k < 2) {
            CHECK_INT(res.zero_filled, 0);
            continue;
        }
        CHECK_INT(res.zero_filled, 1);
        const struct fsc_sample *z = &smp[res.n_samples - 1];
        CHECK_STR(series_text(e.se.reg, z->series),
                  "fabric_port_queue_dropped_packets_total{device="
                  "\"leaf1\",port=\"et-0/0/1\",queue=\"4\"}");
        CHECK_INT(z->v.u, 0);
    }
    env_close(&e);
}

/* After a clear the counters are 0 again and suppressed: every leaf the
 * port has shown reads 0 when left out, and the first 0 of a series that
 * had a value is reset evidence. */
static void cleared_port_reads_zero_again(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, true), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    for (int t = 0; t <= 4; t += 2) {
        Gnmi__Update *u[3] = {mk_update("/in-octets", tv_uint(1000u * (unsigned)(t + 1))),
                              mk_update("/in-discards", tv_uint(40u + (unsigned)t)),
                              mk_update("/last-clear", tv_uint(1764400000000000000ULL))};
        decode_at(&e, IF1, t, u, 3, &res, smp);
        CHECK_INT(res.zero_filled, 0);
    }
    fsc_series_id discards = smp[1].series;
    /* Cleared at t = 6: discards are 0 and no longer sent. */
    int filled_at = -1;
    for (int t = 6; t <= 14; t += 2) {
        Gnmi__Update *u[2] = {mk_update("/in-octets", tv_uint(10u * (unsigned)t)),
                              mk_update("/last-clear", tv_uint(1764460806000000000ULL))};
        decode_at(&e, IF1, t, u, 2, &res, smp);
        if (res.zero_filled && filled_at < 0) {
            filled_at = t;
            CHECK_INT(smp[res.n_samples - 1].series, discards);
            CHECK_INT(smp[res.n_samples - 1].flags, FSC_SMP_RESET);
        } else if (res.zero_filled) {
            CHECK_INT(smp[res.n_samples - 1].flags, 0);
        }
    }
    CHECK_INT(filled_at, 6); /* the clear's own report: every counter is 0 now */
    env_close(&e);
}

/* Junos' initial sync sends zeros ("gNMI Subscription", Junos telemetry
 * guide); afterwards they are left out. A leaf shown as 0 and left out of a
 * later report of its instance reads 0 at once; one shown with a value and
 * left out does not (a split message, not a zero), and one that comes back
 * with a value is a counter again. */
static void shown_zero_then_left_out(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, true), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    /* The sync dump: everything, zeros included. */
    Gnmi__Update *sync[3] = {mk_update("/in-octets", tv_uint(1000)),
                             mk_update("/in-discards", tv_uint(0)),
                             mk_update("/in-errors", tv_uint(5))};
    decode_at(&e, IF2, 0, sync, 3, &res, smp);
    CHECK_INT(res.n_samples, 3);
    CHECK_INT(res.zero_filled, 0);
    fsc_series_id discards = smp[1].series;
    /* Then only what is not 0 (in-errors left out too: not a zero). */
    port2(&e, 2, 3000, &res, smp);
    CHECK_INT(res.n_samples, 2);
    CHECK_INT(res.zero_filled, 1);
    CHECK_INT(smp[1].series, discards);
    CHECK_INT(smp[1].v.u, 0);
    CHECK_INT(smp[1].flags, 0);
    CHECK_INT(smp[1].t_dev_ns, T0_NS + 2 * 1000000000LL);
    /* in-errors (shown as 5) is never filled, at any report. */
    for (int t = 4; t <= 8; t += 2) {
        port2(&e, t, 1000u * (unsigned)t, &res, smp);
        CHECK_INT(res.zero_filled, 1);
        CHECK_INT(smp[res.n_samples - 1].series, discards);
    }
    /* discards move: a counter again, no 0 beside it ... */
    Gnmi__Update *moved[2] = {mk_update("/in-octets", tv_uint(20000)),
                              mk_update("/in-discards", tv_uint(4))};
    decode_at(&e, IF2, 10, moved, 2, &res, smp);
    CHECK_INT(res.zero_filled, 0);
    /* ... and left out with a value: not filled. */
    port2(&e, 12, 30000, &res, smp);
    CHECK_INT(res.zero_filled, 0);
    env_close(&e);
}

/* Not asked for (another profile, tests): nothing is filled. */
static void off_unless_configured(void)
{
    struct env e;
    CHECK_INT(open_filling(&e, false), 0);
    if (!e.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    for (int t = 0; t <= 10; t += 2) {
        port1(&e, t, 1000u * (unsigned)(t + 1), 7, &res, smp);
        port2(&e, t, 5000u * (unsigned)(t + 1), &res, smp);
        CHECK_INT(res.n_samples, 1);
        CHECK_INT(res.zero_filled, 0);
    }
    env_close(&e);
}

/* Path keys are held once per process (gnmi_key_intern.c): equal bytes give
 * one pointer, each holder counts, and the last release frees. 1 000 keys
 * force table growth and long probe runs; releasing every odd one (held
 * twice) must leave every even one findable, at the pointer it had. */
static void keys_interned_once(void)
{
    enum { N = 1000 };
    static const uint8_t *p[N];
    uint8_t k[24];
    size_t base = gnmi_key_interned();
    for (int i = 0; i < N; i++) {
        int n = snprintf((char *)k, sizeof(k), "key-%d", i);
        p[i] = gnmi_key_intern(k, (size_t)n);
        CHECK(p[i] != NULL);
        CHECK(p[i] != k && memcmp(p[i], k, (size_t)n) == 0);
        CHECK(gnmi_key_intern(k, (size_t)n) == p[i]); /* held twice */
    }
    CHECK_INT(gnmi_key_interned() - base, N);
    for (int i = 1; i < N; i += 2) {
        int n = snprintf((char *)k, sizeof(k), "key-%d", i);
        gnmi_key_release(p[i], (size_t)n);
        CHECK_INT(gnmi_key_interned() - base, N - (i - 1) / 2); /* one holder left */
        gnmi_key_release(p[i], (size_t)n);
    }
    CHECK_INT(gnmi_key_interned() - base, N / 2);
    for (int i = 0; i < N; i += 2) {
        int n = snprintf((char *)k, sizeof(k), "key-%d", i);
        CHECK(gnmi_key_intern(k, (size_t)n) == p[i]); /* a third holder */
        for (int r = 0; r < 3; r++)
            gnmi_key_release(p[i], (size_t)n);
    }
    CHECK_INT(gnmi_key_interned() - base, 0);
}

/* Two decoders (two devices of one model) fed the same paths hold each key
 * once; freeing both lets every key go. */
static void devices_share_keys(void)
{
    size_t base = gnmi_key_interned();
    struct env a, b;
    CHECK_INT(open_filling(&a, true), 0);
    CHECK_INT(open_filling(&b, true), 0);
    if (!a.dec || !b.dec)
        return;
    struct fsc_gnmi_result res;
    struct fsc_sample smp[CAP];
    port1(&a, 0, 1000, 7, &res, smp);
    size_t one = gnmi_key_interned() - base;
    CHECK(one > 0);
    port1(&b, 0, 1000, 7, &res, smp);
    CHECK_INT(gnmi_key_interned() - base, one);
    env_close(&a);
    CHECK_INT(gnmi_key_interned() - base, one);
    env_close(&b);
    CHECK_INT(gnmi_key_interned() - base, 0);
}

TEST_MAIN(TEST(suppressed_counter_reads_zero), TEST(split_instance_not_filled),
          TEST(queues_counters_only), TEST(cleared_port_reads_zero_again),
          TEST(shown_zero_then_left_out), TEST(off_unless_configured), TEST(keys_interned_once),
          TEST(devices_share_keys))
