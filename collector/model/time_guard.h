/* Time sanity of device times: a source checks the device time
 * of each point it receives against the collector's clock at arrival and
 * refuses points too far ahead or behind, so one device with a wrong clock
 * (a point dated 2200, or 1971) never reaches the engine and the exporters.
 * It also keeps, per device, the offset of the last point checked (device
 * time minus the collector's clock), so a device whose clock is off shows
 * in a gauge whether or not its points are refused.
 *
 * Bounds: `max_time_ahead` (default 5 m) and `max_time_behind` (default
 * 24 h), per source (docs/CONFIG.md); 0 turns that side off. The offset
 * includes the export delay (a point is stamped when collected).
 *
 * Not thread-safe: the owner serialises calls (the OTLP ingest under its
 * lock, a gNMI client under its mutex). Memory: at most
 * FSC_TIME_GUARD_DEVICES devices, allocated as they appear; later devices
 * are checked but their offset is not kept (counted in untracked). */
#ifndef FSC_TIME_GUARD_H
#define FSC_TIME_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/stats.h"

#define FSC_TIME_GUARD_DEVICES    4096u
#define FSC_TIME_GUARD_DEVICE_MAX 128u /* device name bytes kept */
#define FSC_TIME_GUARD_NONE       UINT32_MAX

/* Defaults of the two bounds (ns). */
#define FSC_TIME_AHEAD_DEFAULT_NS  (300ll * 1000000000ll)
#define FSC_TIME_BEHIND_DEFAULT_NS (86400ll * 1000000000ll)
/* Largest bound a key accepts: 100 years (ns fit in int64 up to 292). */
#define FSC_TIME_LIMIT_MAX_NS (36500ll * 86400ll * 1000000000ll)

enum fsc_time_verdict {
    FSC_TIME_OK = 0,
    FSC_TIME_FUTURE = 1, /* more than max_time_ahead ahead of the collector */
    FSC_TIME_PAST = 2,   /* more than max_time_behind behind it */
};

struct fsc_tg_device {
    char name[FSC_TIME_GUARD_DEVICE_MAX + 1];
    int64_t offset_ns; /* last point's device time minus the collector's clock */
    bool seen;         /* offset_ns is set */
};

struct fsc_time_guard {
    int64_t ahead_ns, behind_ns; /* 0: that side is not checked */
    uint64_t rejected_future, rejected_past;
    uint64_t untracked; /* checks of devices beyond FSC_TIME_GUARD_DEVICES */
    struct fsc_tg_device *dev;
    uint32_t n_dev, cap_dev;
    uint32_t *slots; /* open addressing, 2 * cap_dev: device index + 1, 0 = empty */
};

/* Sets the bounds (negative ones are taken as 0: off); allocates nothing. */
void fsc_time_guard_init(struct fsc_time_guard *g, int64_t ahead_ns, int64_t behind_ns);

/* Frees the device table; g can be initialised again. */
void fsc_time_guard_fini(struct fsc_time_guard *g);

/* The index of device `name` (its first FSC_TIME_GUARD_DEVICE_MAX bytes),
 * created when new; FSC_TIME_GUARD_NONE when the table is full or memory
 * ran out (the device's points are still checked, its offset not kept). */
uint32_t fsc_time_guard_device(struct fsc_time_guard *g, const char *name);

/* Verdict on device time t_ns seen at collector time now_ns; notes the
 * offset for device index dev (FSC_TIME_GUARD_NONE: none) and counts a
 * refusal by its reason. Overflow-safe for any int64 pair. */
enum fsc_time_verdict fsc_time_guard_check(struct fsc_time_guard *g, uint32_t dev, int64_t t_ns,
                                           int64_t now_ns);

/* Verdict only (counts and notes nothing). */
enum fsc_time_verdict fsc_time_guard_judge(const struct fsc_time_guard *g, int64_t t_ns,
                                           int64_t now_ns);

/* The two tables every guarding source lists in its stat_tables:
 * fabricscope_samples_rejected_total{source,reason} (one row per source) and
 * fabricscope_device_clock_offset_seconds{source,device}. */
extern const struct fsc_stat_table fsc_time_guard_source_table;
extern const struct fsc_stat_table fsc_time_guard_device_table;

/* Writes g's rows for source `source` into out (borrowed for the call). */
void fsc_time_guard_stats(const struct fsc_time_guard *g, const char *source,
                          const struct fsc_stats_out *out);

#endif
