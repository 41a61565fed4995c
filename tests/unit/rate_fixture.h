/* Shared fixture of rate_test.c and rate_rules_test.c: a collector of the
 * aligned windows fsc_rate_update() emits (struct wins), feeding one sample
 * of a counter or a double, byte-counter traits, a per-level rate check and
 * a seeded PRNG.
 * Times are ns; T0 is a Unix time that is a whole multiple of 60 s, so every
 * window width used here has an edge at T0. Functions are static inline so
 * that a test file that does not call one gets no unused-function warning. */
#ifndef FSC_RATE_FIXTURE_H
#define FSC_RATE_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/rate.h"
#include "test.h"

#define MS       1000000LL
#define SEC      1000000000LL
#define T0       (1700000040LL * SEC)
#define MAX_WINS 8192

struct win {
    unsigned level;
    int64_t t_end;
    double rate, peak;
};

struct wins {
    struct win w[MAX_WINS];
    size_t n;
    size_t overflow;
};

static inline void on_win(void *arg, unsigned level, int64_t t_end, double rate, double peak)
{
    struct wins *ws = arg;
    if (ws->n == MAX_WINS) {
        ws->overflow++;
        return;
    }
    ws->w[ws->n++] = (struct win){level, t_end, rate, peak};
}

static inline struct wins *wins_new(void)
{
    struct wins *ws = calloc(1, sizeof(*ws));
    if (ws == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return ws;
}

static inline struct fsc_rate_result feed(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                          const struct fsc_rate_params *p, int64_t t, uint64_t v,
                                          uint32_t flags, struct wins *ws)
{
    struct fsc_sample smp = {.series = 1, .flags = flags, .t_dev_ns = t, .t_arr_ns = t};
    smp.v.u = v;
    struct fsc_rate_result res;
    fsc_rate_update(st, tr, p, &smp, on_win, ws, &res);
    return res;
}

static inline struct fsc_rate_result feed_d(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                            const struct fsc_rate_params *p, int64_t t, double v,
                                            struct wins *ws)
{
    struct fsc_sample smp = {.series = 1, .flags = FSC_SMP_F64, .t_dev_ns = t, .t_arr_ns = t};
    smp.v.d = v;
    struct fsc_rate_result res;
    fsc_rate_update(st, tr, p, &smp, on_win, ws, &res);
    return res;
}

static inline struct fsc_traits bytes_traits(uint64_t link_bps, int64_t nominal_ns)
{
    return (struct fsc_traits){.kind = FSC_KIND_COUNTER,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .link_speed_bps = link_bps,
                               .nominal_interval_ns = nominal_ns};
}

/* splitmix64 over *s: a fixed sequence per seed, so every run tests the
 * same samples. */
static inline uint64_t splitmix_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1) from splitmix_next. */
static inline double splitmix_sym(uint64_t *s)
{
    return (double)(splitmix_next(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Counts windows of `level` and checks each rate within rel of want. */
static inline size_t check_level_rates(const struct wins *ws, unsigned level, double want,
                                       double rel)
{
    size_t n = 0;
    for (size_t i = 0; i < ws->n; i++) {
        if (ws->w[i].level != level)
            continue;
        n++;
        CHECK_REL(ws->w[i].rate, want, rel);
        CHECK(ws->w[i].peak >= ws->w[i].rate);
    }
    return n;
}

#endif
