/* The time guard (collector/model/time_guard.h): bounds exactly at
 * and past their edges, either side off, int64 extremes without overflow,
 * the per-device offsets and the bound of the device table. */
#include <stdint.h>
#include <stdio.h>

#include "model/time_guard.h"
#include "test.h"

#define NS  1000000000LL
#define NOW (1764633600LL * NS) /* 2025-12-02T00:00:00Z */

static void bounds_and_edges(void)
{
    struct fsc_time_guard g;
    fsc_time_guard_init(&g, 300 * NS, 86400 * NS);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, NOW, NOW), FSC_TIME_OK);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, NOW + 300 * NS, NOW), FSC_TIME_OK);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, NOW + 300 * NS + 1, NOW),
              FSC_TIME_FUTURE);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, NOW - 86400 * NS, NOW), FSC_TIME_OK);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, NOW - 86400 * NS - 1, NOW),
              FSC_TIME_PAST);
    /* 2200 and 1 ns after the epoch; INT64_MAX / MIN saturate, never wrap */
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, 7258118400LL * NS, NOW),
              FSC_TIME_FUTURE);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, 1, NOW), FSC_TIME_PAST);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, INT64_MAX, -NOW), FSC_TIME_FUTURE);
    CHECK_INT(fsc_time_guard_check(&g, FSC_TIME_GUARD_NONE, INT64_MIN, NOW), FSC_TIME_PAST);
    CHECK_INT((long long)g.rejected_future, 3);
    CHECK_INT((long long)g.rejected_past, 3);
    CHECK_INT((long long)g.untracked, 9);
    fsc_time_guard_fini(&g);

    /* 0 turns a side off; negative bounds count as 0 */
    fsc_time_guard_init(&g, 0, -5);
    CHECK_INT(fsc_time_guard_judge(&g, INT64_MAX, NOW), FSC_TIME_OK);
    CHECK_INT(fsc_time_guard_judge(&g, 1, NOW), FSC_TIME_OK);
    fsc_time_guard_init(&g, 0, 10 * NS);
    CHECK_INT(fsc_time_guard_judge(&g, INT64_MAX, NOW), FSC_TIME_OK);
    CHECK_INT(fsc_time_guard_judge(&g, NOW - 11 * NS, NOW), FSC_TIME_PAST);
    fsc_time_guard_fini(&g);
}

struct rows {
    int n_src, n_dev;
    double future, past, off_b;
};

static void row(void *arg, const struct fsc_stat_table *t, const char *const *keys, const double *v,
                const struct fsc_stat_hist *h)
{
    struct rows *r = arg;
    (void)h;
    if (t == &fsc_time_guard_source_table) {
        r->n_src++;
        r->future = v[0];
        r->past = v[1];
    } else if (t == &fsc_time_guard_device_table) {
        r->n_dev++;
        if (keys[1][0] == 'b')
            r->off_b = v[0];
    }
}

static void devices_and_rows(void)
{
    struct fsc_time_guard g;
    fsc_time_guard_init(&g, 300 * NS, 86400 * NS);
    uint32_t a = fsc_time_guard_device(&g, "a"), b = fsc_time_guard_device(&g, "b");
    CHECK(a != b);
    CHECK_INT(fsc_time_guard_device(&g, "a"), a);
    fsc_time_guard_check(&g, a, NOW - 2 * NS, NOW);
    fsc_time_guard_check(&g, b, NOW + 3600 * NS, NOW);
    struct rows r = {0};
    struct fsc_stats_out out = {row, &r};
    fsc_time_guard_stats(&g, "src", &out);
    CHECK_INT(r.n_src, 1);
    CHECK_INT(r.n_dev, 2);
    CHECK_NEAR(r.future, 1, 0);
    CHECK_NEAR(r.past, 0, 0);
    CHECK_NEAR(r.off_b, 3600, 1e-9);
    /* the table holds FSC_TIME_GUARD_DEVICES; past it, checks still judge */
    char name[32];
    uint32_t last = 0;
    for (unsigned i = 0; i < FSC_TIME_GUARD_DEVICES + 10; i++) {
        snprintf(name, sizeof(name), "dev%u", i);
        last = fsc_time_guard_device(&g, name);
    }
    CHECK_INT(last, FSC_TIME_GUARD_NONE);
    CHECK_INT(g.n_dev, FSC_TIME_GUARD_DEVICES);
    CHECK_INT(fsc_time_guard_device(&g, "dev7"), 9); /* a, b, then dev0.. */
    CHECK_INT(fsc_time_guard_check(&g, last, NOW + 301 * NS, NOW), FSC_TIME_FUTURE);
    fsc_time_guard_fini(&g);
}

TEST_MAIN(TEST(bounds_and_edges), TEST(devices_and_rows))
