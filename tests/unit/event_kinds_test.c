/* The event kinds counter_reset (the rate engine's reset
 * verdict, rate-limited per series; collector/engine/reset_event.c) and
 * their log lines (collector/model/event_text.c, with stream_down's). */
#include <stdio.h>
#include <string.h>

#include "model/event_text.h"
#include "engine/engine_int.h"
#include "engine/engine.h"
#include "engine_fixture.h"
#include "event_fixture.h"
#include "test.h"

static void feed_flags(struct harness *h, fsc_series_id id, int64_t t, union fsc_value v,
                       uint32_t flags)
{
    struct fsc_sample smp = {.series = id, .flags = flags, .t_dev_ns = t, .t_arr_ns = t, .v = v};
    CHECK_INT(fsc_engine_ingest(h->eng, &smp, 1), 0);
    harness_poll(h, t);
}

static void check_reset(const struct fsc_event *ev, fsc_series_id id, int64_t t, double before,
                        double after, double held, double evidence)
{
    CHECK_INT(ev->kind, FSC_EV_COUNTER_RESET);
    CHECK_INT(ev->phase, FSC_EV_INSTANT);
    CHECK_INT(ev->series, id);
    CHECK_INT(ev->t_start_ns, t);
    CHECK_INT(ev->t_end_ns, t);
    CHECK_NEAR(EVF(ev, FSC_EF_VALUE_BEFORE), before, 0);
    CHECK_NEAR(EVF(ev, FSC_EF_VALUE_AFTER), after, 0);
    CHECK_NEAR(EVF(ev, FSC_EF_HELD_BACK_RESETS), held, 0);
    CHECK_NEAR(EVF(ev, FSC_EF_CAUSE), evidence, 0);
}

/* Series 0 resets at 2, 20, 40, 61.9 and 62 s (arrival = device time):
 * published at 2 s, the next three held back (within 60 s of it), published
 * again at 62 s (exactly 60 s later) saying it stands for 3 held back. Series
 * 1's reset at 20 s is its own. */
static void reset_rate_limited(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    CHECK_INT(cfg.reset_event_every_ns, 60 * NS);
    if (harness_open(&h, &cfg) != 0)
        return;
    const struct fsc_traits tr = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &tr), 0);
    static const struct {
        fsc_series_id id;
        int64_t t_ms;
        uint64_t v;
    } in[] = {{0, 0, 1000},    {1, 0, 500},   {0, 1000, 2000}, {0, 2000, 10}, {0, 3000, 20},
              {1, 20000, 100}, {0, 20000, 5}, {0, 21000, 6},   {0, 40000, 1}, {0, 41000, 2},
              {0, 61900, 0},   {0, 61950, 5}, {0, 62000, 1}};
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        feed_u(&h, in[i].id, T0 + in[i].t_ms * MS, in[i].v);
    CHECK_INT(h.n_ev, 3);
    if (h.n_ev == 3) {
        check_reset(&h.ev[0], 0, T0 + 2 * NS, 2000, 10, 0, 0);
        check_reset(&h.ev[1], 1, T0 + 20 * NS, 500, 100, 0, 0);
        check_reset(&h.ev[2], 0, T0 + 62 * NS, 5, 1, 3, 0);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 6);
    CHECK_INT(st.events[FSC_EV_COUNTER_RESET], 3);
    CHECK_INT(st.reset_events_suppressed, 3);
    harness_close(&h);
}

/* Reset evidence from the source (FSC_SMP_RESET) on a value that went up,
 * and a counter carried as a double that went down; a type switch from
 * integer to double is a reset too. With reset_event_every 0 every reset is
 * published. */
static void evidence_doubles_every_reset(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.reset_event_every_ns = 0;
    if (harness_open(&h, &cfg) != 0)
        return;
    const struct fsc_traits tr = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_NONE);
    const struct fsc_traits dbl = event_counter(FSC_SIG_NONE, 53, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &dbl), 0);
    feed_flags(&h, 0, T0, (union fsc_value){.u = 100}, 0);
    feed_flags(&h, 0, T0 + 100 * MS, (union fsc_value){.u = 150}, FSC_SMP_RESET);
    feed_flags(&h, 0, T0 + 200 * MS, (union fsc_value){.u = 7}, 0);
    feed_flags(&h, 0, T0 + 300 * MS, (union fsc_value){.u = 8}, 0);
    feed_flags(&h, 0, T0 + 400 * MS, (union fsc_value){.u = 1}, 0);
    feed_flags(&h, 1, T0, (union fsc_value){.d = 1.5e6}, FSC_SMP_F64);
    feed_flags(&h, 1, T0 + 100 * MS, (union fsc_value){.d = 0.5}, FSC_SMP_F64);
    feed_flags(&h, 1, T0 + 200 * MS, (union fsc_value){.u = 3}, 0); /* now an integer */
    CHECK_INT(h.n_ev, 5);
    if (h.n_ev == 5) {
        check_reset(&h.ev[0], 0, T0 + 100 * MS, 100, 150, 0, 1);
        check_reset(&h.ev[1], 0, T0 + 200 * MS, 150, 7, 0, 0);
        check_reset(&h.ev[2], 0, T0 + 400 * MS, 8, 1, 0, 0);
        check_reset(&h.ev[3], 1, T0 + 100 * MS, 1.5e6, 0.5, 0, 0);
        check_reset(&h.ev[4], 1, T0 + 200 * MS, 0.5, 3, 0, 0);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_COUNTER_RESET], 5);
    CHECK_INT(st.reset_events_suppressed, 0);
    harness_close(&h);
}

/* A device reload: 5000 series reset in the same instant. The limiter holds
 * FSC_RESET_SLOTS (1024) series; with dense ids the hash gives ids 0..1023
 * a slot each (an odd multiplier is a bijection modulo 1024), and every
 * later id finds its 16-slot window busy: exactly ids 0..1023 publish, 3976
 * are counted. 62 s later the same storm publishes the same 1024 again (an
 * independent Python model of the limiter gives 1024 both times). */
static void storm_bounded(void)
{
    enum { N = 5000 };
    struct fsc_engine_config cfg;
    char err[256];
    fsc_engine_config_defaults(&cfg);
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct fsc_event_sub *sub = bus ? fsc_event_subscribe(bus) : NULL;
    struct fsc_engine *eng = sub ? fsc_engine_create(&cfg, bus, err, sizeof(err)) : NULL;
    CHECK(eng != NULL);
    if (!eng)
        goto out;
    static struct fsc_sample smp[N];
    static struct fsc_event evs[4096];
    static unsigned char seen[N];
    for (int round = 0; round < 3; round++) {
        /* round 0: baselines at 1000; 1: all reset at +1 s; 2: at +62 s after an increase */
        int64_t t = T0 + (round == 0 ? 0 : round == 1 ? NS : 62 * NS);
        for (uint32_t i = 0; i < N; i++) {
            if (round == 2) {
                struct fsc_sample up = {
                    .series = i, .t_dev_ns = t - NS, .t_arr_ns = t - NS, .v.u = 100};
                CHECK_INT(fsc_engine_ingest(eng, &up, 1), 0);
            }
            smp[i] = (struct fsc_sample){
                .series = i, .t_dev_ns = t, .t_arr_ns = t, .v.u = round == 0 ? 1000 : 1};
        }
        CHECK_INT(fsc_engine_ingest(eng, smp, N), 0);
        memset(seen, 0, sizeof(seen));
        uint64_t lost = 0;
        size_t n = fsc_event_poll(sub, evs, 4096, &lost);
        CHECK_INT(lost, 0);
        size_t low = 0;
        for (size_t k = 0; k < n; k++) {
            CHECK_INT(evs[k].kind, FSC_EV_COUNTER_RESET);
            if (evs[k].series < N && !seen[evs[k].series]++)
                low += evs[k].series < FSC_RESET_SLOTS;
        }
        CHECK_INT(n, round == 0 ? 0 : FSC_RESET_SLOTS);
        CHECK_INT(low, round == 0 ? 0 : FSC_RESET_SLOTS);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 2 * N);
    CHECK_INT(st.events[FSC_EV_COUNTER_RESET], 2 * FSC_RESET_SLOTS);
    CHECK_INT(st.reset_events_suppressed, 2 * (N - FSC_RESET_SLOTS));
out:
    fsc_engine_destroy(eng);
    fsc_event_unsubscribe(sub);
    fsc_event_bus_destroy(bus);
}

/* The log lines of the new kinds (no registry: the series by number). */
static void log_lines(void)
{
    char line[512];
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_COUNTER_RESET;
    ev.phase = FSC_EV_INSTANT;
    ev.series = 7;
    ev.direction = FSC_DIR_RX;
    ev.t_start_ns = ev.t_end_ns = T0;
    fsc_event_add(&ev, FSC_EF_VALUE_BEFORE, 9007199254740992.0);
    fsc_event_add(&ev, FSC_EF_VALUE_AFTER, 10);
    fsc_event_add(&ev, FSC_EF_HELD_BACK_RESETS, 2);
    fsc_event_add(&ev, FSC_EF_CAUSE, 1);
    fsc_event_format(&ev, NULL, line, sizeof(line));
    CHECK_STR(line, "kind=counter_reset phase=instant series=7 direction=rx "
                    "start=2023-11-14T22:13:20.000000000Z end=2023-11-14T22:13:20.000000000Z "
                    "duration_ms=0.000 value_before=9007199254740992 value_after=10 "
                    "held_back_resets=2 cause=reset_evidence");

    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_STREAM_DOWN;
    ev.phase = FSC_EV_START;
    ev.series = FSC_SERIES_NONE;
    ev.t_start_ns = T0;
    fsc_event_add(&ev, FSC_EF_REASON, FSC_STREAM_DOWN_CALL_ENDED);
    fsc_event_add(&ev, FSC_EF_GRPC_STATUS, 14);
    snprintf(ev.subject, sizeof(ev.subject), "leaf1-gnmi/interfaces");
    fsc_event_format(&ev, NULL, line, sizeof(line));
    CHECK_STR(line, "kind=stream_down phase=start source=leaf1-gnmi stream=interfaces "
                    "start=2023-11-14T22:13:20.000000000Z reason=call_ended grpc_status=14");
    ev.phase = FSC_EV_END;
    ev.t_end_ns = T0 + 2500 * MS;
    ev.n_fields = 0;
    fsc_event_add(&ev, FSC_EF_REASON, FSC_STREAM_DOWN_STALLED);
    fsc_event_add(&ev, FSC_EF_FAILED_CALLS, 3);
    snprintf(ev.subject, sizeof(ev.subject), "a b/\"x\"");
    fsc_event_format(&ev, NULL, line, sizeof(line));
    CHECK_STR(line, "kind=stream_down phase=end source=\"a b\" stream=\"\\\"x\\\"\" "
                    "start=2023-11-14T22:13:20.000000000Z end=2023-11-14T22:13:22.500000000Z "
                    "duration_ms=2500.000 reason=stalled failed_calls=3");
    CHECK_STR(fsc_event_kind_name(FSC_EV_COUNTER_RESET), "counter_reset");
    CHECK_STR(fsc_event_kind_name(FSC_EV_STREAM_DOWN), "stream_down");
    CHECK_STR(fsc_stream_down_reason_name(FSC_STREAM_DOWN_START_FAILED), "start_failed");
    CHECK_STR(fsc_stream_down_reason_name(FSC_STREAM_DOWN__COUNT), "unknown");
}

TEST_MAIN(TEST(reset_rate_limited), TEST(evidence_doubles_every_reset), TEST(storm_bounded),
          TEST(log_lines))
