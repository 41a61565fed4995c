/* Shared fixture of engine_test.c and detect_test.c: an engine wired to an
 * event bus with one subscriber (struct harness), sample feeding, event
 * lookups, common traits, a seeded PRNG and the four-uplink imbalance run.
 * Only the public engine API is used. Functions are static inline so that a
 * test file that does not call one gets no unused-function warning; each test
 * executable is one translation unit, so rng_state is one per executable. */
#ifndef FSC_ENGINE_FIXTURE_H
#define FSC_ENGINE_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "engine/engine.h"
#include "test.h"

#define NS 1000000000LL
#define MS 1000000LL
/* 2023-11-14T22:13:20Z: a whole second, a whole 10 s. */
#define T0 (1700000000LL * NS)

#define MAX_EVENTS 64

struct harness {
    struct fsc_event_bus *bus;
    struct fsc_event_sub *sub;
    struct fsc_engine *eng;
    struct fsc_event ev[MAX_EVENTS];
    int64_t seen_at[MAX_EVENTS]; /* device time of the sample after which it was polled */
    size_t n_ev;
    uint64_t lost;
};

static inline int harness_open(struct harness *h, const struct fsc_engine_config *cfg)
{
    char err[256] = "";
    memset(h, 0, sizeof(*h));
    h->bus = fsc_event_bus_create(256);
    h->sub = h->bus ? fsc_event_subscribe(h->bus) : NULL;
    h->eng = h->sub ? fsc_engine_create(cfg, h->bus, err, sizeof(err)) : NULL;
    if (!h->eng)
        fprintf(stderr, "engine: %s\n", err);
    CHECK(h->eng != NULL);
    return h->eng ? 0 : -1;
}

static inline void harness_close(struct harness *h)
{
    fsc_engine_destroy(h->eng);
    fsc_event_unsubscribe(h->sub);
    fsc_event_bus_destroy(h->bus);
}

/* Collects what the bus has, stamping each event with `now`. */
static inline void harness_poll(struct harness *h, int64_t now)
{
    struct fsc_event buf[16];
    uint64_t lost = 0;
    size_t n;
    for (int rounds = 0; rounds < 64; rounds++) {
        n = fsc_event_poll(h->sub, buf, 16, &lost);
        h->lost += lost;
        for (size_t i = 0; i < n; i++) {
            CHECK(h->n_ev < MAX_EVENTS);
            if (h->n_ev < MAX_EVENTS) {
                h->seen_at[h->n_ev] = now;
                h->ev[h->n_ev++] = buf[i];
            }
        }
        if (n < 16)
            break;
    }
}

static inline void feed_u(struct harness *h, fsc_series_id id, int64_t t, uint64_t v)
{
    struct fsc_sample smp = {.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
    CHECK_INT(fsc_engine_ingest(h->eng, &smp, 1), 0);
    harness_poll(h, t);
}

static inline size_t count_events(const struct harness *h, enum fsc_event_kind kind,
                                  enum fsc_event_phase phase)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n_ev; i++)
        n += h->ev[i].kind == kind && h->ev[i].phase == phase;
    return n;
}

/* The first event of kind/phase, or NULL. */
static inline const struct fsc_event *find_event(const struct harness *h, enum fsc_event_kind kind,
                                                 enum fsc_event_phase phase, size_t *at)
{
    for (size_t i = 0; i < h->n_ev; i++) {
        if (h->ev[i].kind == kind && h->ev[i].phase == phase) {
            if (at)
                *at = i;
            return &h->ev[i];
        }
    }
    return NULL;
}

static inline struct fsc_traits port_bytes(uint64_t speed, uint8_t dir)
{
    return (struct fsc_traits){.kind = FSC_KIND_COUNTER,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .signal = FSC_SIG_PORT_BYTES,
                               .direction = dir,
                               .link_speed_bps = speed,
                               .nominal_interval_ns = 100 * MS};
}

static inline struct fsc_traits event_counter(uint8_t signal, uint8_t width, uint8_t unit)
{
    return (struct fsc_traits){.kind = FSC_KIND_COUNTER,
                               .width = width,
                               .unit = unit,
                               .signal = signal,
                               .nominal_interval_ns = 100 * MS};
}

/* xorshift64*: seeded, so the "noise" is the same on every run. */
static uint64_t rng_state;
static inline double rng_unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* ---- uplink imbalance run ---- */

/* Four 400G uplinks (tx) in group 0 at the given utilizations, 100 ms samples
 * at 50 ms past each 100 ms edge so no sample sits on a window edge. Member
 * `reset_member` has its counter cleared at step `reset_k`; member `silent`
 * never sends a sample (-1: none). Returns the device time of the batch after
 * which the first START was seen (0: none). */
struct group_run {
    double util[4];
    int seconds;
    int reset_member, reset_k;
    int silent;
};

static inline int64_t run_group(struct harness *h, const struct group_run *r)
{
    int64_t start_seen = 0;
    for (fsc_series_id id = 0; id < 4; id++) {
        struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_TX);
        CHECK_INT(fsc_engine_set_traits(h->eng, id, &tr), 0);
        CHECK_INT(fsc_engine_group_add(h->eng, 0, id), 0);
        CHECK_INT(fsc_engine_group_add(h->eng, 0, id), 0); /* idempotent */
    }
    uint64_t v[4] = {0, 0, 0, 0};
    for (int k = 0; k <= r->seconds * 10; k++) {
        int64_t t = T0 - 50 * MS + k * 100 * MS;
        struct fsc_sample batch[4];
        size_t n = 0;
        for (int m = 0; m < 4; m++) {
            if (k > 0)
                v[m] += (uint64_t)(r->util[m] * 50e9 * 0.1);
            if (m == r->reset_member && k == r->reset_k)
                v[m] = 0;
            if (m != r->silent)
                batch[n++] = (struct fsc_sample){
                    .series = (fsc_series_id)m, .t_dev_ns = t, .t_arr_ns = t, .v.u = v[m]};
        }
        CHECK_INT(fsc_engine_ingest(h->eng, batch, n), 0);
        size_t before = h->n_ev;
        harness_poll(h, t);
        if (!start_seen && count_events(h, FSC_EV_UPLINK_IMBALANCE, FSC_EV_START) > 0 &&
            h->n_ev > before)
            start_seen = t;
    }
    return start_seen;
}

#endif
