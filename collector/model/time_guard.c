/* Time sanity of device times (time_guard.h has the contract). */
#include "model/time_guard.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define FIRST_CAP 16u

void fsc_time_guard_init(struct fsc_time_guard *g, int64_t ahead_ns, int64_t behind_ns)
{
    memset(g, 0, sizeof(*g));
    g->ahead_ns = ahead_ns > 0 ? ahead_ns : 0;
    g->behind_ns = behind_ns > 0 ? behind_ns : 0;
}

void fsc_time_guard_fini(struct fsc_time_guard *g)
{
    free(g->dev);
    free(g->slots);
    g->dev = NULL;
    g->slots = NULL;
    g->n_dev = g->cap_dev = 0;
}

static uint64_t name_hash(const char *name, size_t n)
{
    return fsc_hash_bytes(name, n, 0x74696d65u);
}

/* Doubles the table (rehashing the slots). Returns false without memory. */
static bool grow(struct fsc_time_guard *g)
{
    uint32_t cap = g->cap_dev ? g->cap_dev * 2 : FIRST_CAP;
    if (cap > FSC_TIME_GUARD_DEVICES)
        return false;
    struct fsc_tg_device *d = realloc(g->dev, (size_t)cap * sizeof(*d));
    if (!d)
        return false;
    g->dev = d;
    uint32_t *s = calloc((size_t)cap * 2, sizeof(*s));
    if (!s)
        return false; /* dev grew, cap_dev did not: still consistent */
    uint32_t mask = cap * 2 - 1;
    for (uint32_t i = 0; i < g->n_dev; i++) {
        uint32_t h = (uint32_t)name_hash(d[i].name, strlen(d[i].name)) & mask;
        while (s[h])
            h = (h + 1) & mask;
        s[h] = i + 1;
    }
    free(g->slots);
    g->slots = s;
    g->cap_dev = cap;
    return true;
}

uint32_t fsc_time_guard_device(struct fsc_time_guard *g, const char *name)
{
    size_t n = strnlen(name, FSC_TIME_GUARD_DEVICE_MAX);
    uint64_t hv = name_hash(name, n);
    if (g->cap_dev) {
        uint32_t mask = g->cap_dev * 2 - 1;
        for (uint32_t h = (uint32_t)hv & mask; g->slots[h]; h = (h + 1) & mask) {
            const struct fsc_tg_device *d = &g->dev[g->slots[h] - 1];
            if (strncmp(d->name, name, n) == 0 && d->name[n] == '\0')
                return g->slots[h] - 1;
        }
    }
    if (g->n_dev == g->cap_dev && !grow(g))
        return FSC_TIME_GUARD_NONE;
    uint32_t i = g->n_dev++;
    struct fsc_tg_device *d = &g->dev[i];
    memcpy(d->name, name, n);
    d->name[n] = '\0';
    d->offset_ns = 0;
    d->seen = false;
    uint32_t mask = g->cap_dev * 2 - 1;
    uint32_t h = (uint32_t)hv & mask;
    while (g->slots[h])
        h = (h + 1) & mask;
    g->slots[h] = i + 1;
    return i;
}

/* t - now, saturated to the int64 range. */
static int64_t offset_of(int64_t t_ns, int64_t now_ns)
{
    if (now_ns < 0 && t_ns > INT64_MAX + now_ns)
        return INT64_MAX;
    if (now_ns > 0 && t_ns < INT64_MIN + now_ns)
        return INT64_MIN;
    return t_ns - now_ns;
}

enum fsc_time_verdict fsc_time_guard_judge(const struct fsc_time_guard *g, int64_t t_ns,
                                           int64_t now_ns)
{
    int64_t off = offset_of(t_ns, now_ns);
    if (g->ahead_ns && off > g->ahead_ns)
        return FSC_TIME_FUTURE;
    if (g->behind_ns && off < -g->behind_ns)
        return FSC_TIME_PAST;
    return FSC_TIME_OK;
}

enum fsc_time_verdict fsc_time_guard_check(struct fsc_time_guard *g, uint32_t dev, int64_t t_ns,
                                           int64_t now_ns)
{
    if (dev < g->n_dev) {
        g->dev[dev].offset_ns = offset_of(t_ns, now_ns);
        g->dev[dev].seen = true;
    } else {
        g->untracked++;
    }
    enum fsc_time_verdict v = fsc_time_guard_judge(g, t_ns, now_ns);
    g->rejected_future += v == FSC_TIME_FUTURE;
    g->rejected_past += v == FSC_TIME_PAST;
    return v;
}

#define REJECTED "fabricscope_samples_rejected"
static const struct fsc_stat_col source_cols[] = {
    {.id = "rejected_future",
     .family = REJECTED,
     .type = FSC_STAT_COUNTER,
     .help = "Points refused for their device time (docs/CONFIG.md "
             "max_time_ahead / max_time_behind), by reason (future: ahead of the collector's "
             "clock by more than max_time_ahead; past: behind it by more than max_time_behind).",
     .label = "reason",
     .label_value = "future",
     .title = "future"},
    {.id = "rejected_past",
     .family = REJECTED,
     .type = FSC_STAT_COUNTER,
     .label = "reason",
     .label_value = "past",
     .title = "past"},
};

const struct fsc_stat_table fsc_time_guard_source_table = {
    .id = "time_sanity",
    .title = "Points refused for their device time",
    .empty = "no source checks device times",
    .keys = {"source", NULL},
    .cols = source_cols,
    .n_cols = 2,
};

static const struct fsc_stat_col device_cols[] = {
    {.id = "clock_offset_s",
     .family = "fabricscope_device_clock_offset_seconds",
     .type = FSC_STAT_GAUGE,
     .help = "Device time of the device's last point minus the collector's clock when it "
             "arrived, seconds (includes the export delay; positive: the device is ahead).",
     .title = "clock offset (s)",
     .unit = FSC_STAT_SECONDS},
};

const struct fsc_stat_table fsc_time_guard_device_table = {
    .id = "device_clocks",
    .title = "Device clocks",
    .empty = "no device time seen yet",
    .keys = {"source", "device", NULL},
    .cols = device_cols,
    .n_cols = 1,
};

void fsc_time_guard_stats(const struct fsc_time_guard *g, const char *source,
                          const struct fsc_stats_out *out)
{
    const char *sk[] = {source, NULL};
    double v[2] = {(double)g->rejected_future, (double)g->rejected_past};
    fsc_stats_row(out, &fsc_time_guard_source_table, sk, v, NULL);
    for (uint32_t i = 0; i < g->n_dev; i++) {
        if (!g->dev[i].seen)
            continue;
        const char *dk[] = {source, g->dev[i].name, NULL};
        double off = (double)g->dev[i].offset_ns * 1e-9;
        fsc_stats_row(out, &fsc_time_guard_device_table, dk, &off, NULL);
    }
}
