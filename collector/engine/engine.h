/* The engine: series state, rate math and detectors behind one lock.
 *
 * Ownership and threads:
 * - Sources call fsc_engine_ingest() from their own threads; the engine lock
 *   is taken once per batch, so per-sample cost stays a few ns.
 * - All per-series state (rate state, detector state, groups) is owned by the
 *   engine and mutated only inside fsc_engine_ingest(), under the lock.
 * - Exporters read through fsc_engine_view() / fsc_engine_view_ids(), which
 *   take the same lock: what they see is consistent (never half an update).
 *   Long renders should copy what they need in chunks rather than hold the
 *   lock for the whole render.
 * - Detectors publish events to the bus (events.h), which has its own lock.
 * - Observer callbacks (tests, rollups) run on the ingest thread under the
 *   engine lock: they must be quick and must not call back into the engine. */
#ifndef FSC_ENGINE_H
#define FSC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"
#include "engine/events.h"
#include "engine/rate.h"

struct fsc_engine;

/* Microburst detector (utilization u = bytes*8/s / link speed). */
struct fsc_microburst_config {
    double rise;             /* burst starts when u >= rise; default 0.7 */
    double fall;             /* and ends when u < fall; default 0.5 */
    int64_t micro_max_ns;    /* shorter than this: a microburst; default 1 s */
    int64_t update_every_ns; /* periodic UPDATE of long bursts, spikes, PFC storms and
                              * imbalance; default 10 s */
    double queue_peak_share; /* queue peak above this share of the buffer is
                              * switch-side evidence; default 0.5 */
    int64_t latency_peak_ns; /* queueing latency above this is switch-side
                              * evidence (FSC_SIG_LATENCY_PEAK); default 10 us */
};

/* CNP / ECN / reorder spike: rate > max(floor, factor x EWMA baseline) for
 * rise_intervals fine intervals starts it; fall_intervals below ends it. */
struct fsc_spike_config {
    double floor;            /* events/s; default: cnp 5000, ecn 5000, reorder 100 */
    double factor;           /* default 5 */
    unsigned rise_intervals; /* default 3 */
    unsigned fall_intervals; /* default 5 */
    double ewma_alpha;       /* baseline smoothing per interval; default 0.05 */
};

/* PFC storm: paused fraction of time (pause duration delta / span) above
 * paused_fraction, or pause frames above frames_per_second. */
struct fsc_pfc_config {
    double paused_fraction;   /* default 0.2 */
    double frames_per_second; /* default 10000 */
    unsigned rise_intervals;  /* default 3 */
    unsigned fall_intervals;  /* default 5 */
};

/* Uplink imbalance over a port group: max/mean utilization per aligned window
 * of window level `level`; event after `windows` windows above `ratio`. */
struct fsc_imbalance_config {
    double ratio;                /* default 1.5 */
    unsigned windows;            /* default 3 */
    unsigned level;              /* default 0 (1 s) */
    double min_mean_utilization; /* below this the group is idle: no verdict; default 0.05 */
};

struct fsc_engine_config {
    struct fsc_rate_params rate;
    struct fsc_microburst_config microburst;
    struct fsc_spike_config cnp, ecn, reorder;
    struct fsc_pfc_config pfc;
    struct fsc_imbalance_config imbalance;
    uint32_t max_series; /* hard cap on engine state; default 4 M */
    uint32_t max_groups; /* default 4096 */
    /* Counter-reset events (FSC_EV_COUNTER_RESET): at most one per series
     * per this span of the collector's clock (sample arrival time); the
     * resets in between are counted, not published. 0: every reset is an
     * event. Default 60 s. */
    int64_t reset_event_every_ns;
};

/* Fills every default listed above.
 * Thread: any. Locks: none. Owns: nothing; *cfg is the caller's. */
void fsc_engine_config_defaults(struct fsc_engine_config *cfg);

/* Checks ranges and relations (fall < rise, ascending windows, ...). Returns 0
 * or -EINVAL with a sentence in err.
 * Thread: any. Locks: none. Owns: nothing. */
int fsc_engine_config_validate(const struct fsc_engine_config *cfg, char *err, size_t errlen);

/* Histogram bucket bounds (upper, inclusive, "le"), shared by the engine and
 * the exporters so the exposition and the state agree. +Inf is implied. */
#define FSC_UTIL_BUCKETS 12
extern const double fsc_util_bucket_le[FSC_UTIL_BUCKETS];
/* 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.95 0.99 1.0 */
#define FSC_DURATION_BUCKETS 9
extern const double fsc_duration_bucket_le[FSC_DURATION_BUCKETS];
/* seconds: 0.001 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 */
#define FSC_INTERVAL_RATIO_BUCKETS 10
extern const double fsc_interval_ratio_bucket_le[FSC_INTERVAL_RATIO_BUCKETS];
/* observed interval / nominal: 0.5 0.8 0.9 0.95 1.05 1.1 1.2 1.5 2 5 */

/* A histogram as the engine keeps it: per-bucket (not cumulative) counts,
 * bucket[FSC_x_BUCKETS] being the +Inf overflow; count = sum of all buckets. */
struct fsc_hist_util {
    uint64_t bucket[FSC_UTIL_BUCKETS + 1];
    double sum;
};
struct fsc_hist_duration {
    uint64_t bucket[FSC_DURATION_BUCKETS + 1];
    double sum;
};
struct fsc_hist_interval {
    uint64_t bucket[FSC_INTERVAL_RATIO_BUCKETS + 1];
    double sum;
};

/* Counters the engine keeps (fabricscope_ self-metrics). */
struct fsc_engine_stats {
    uint64_t samples;
    uint64_t verdicts[FSC_RATE__COUNT]; /* per fsc_rate_verdict */
    uint64_t wraps;
    uint64_t gaps;
    uint64_t arrival_time_samples;
    uint64_t unknown_series; /* samples for ids beyond max_series */
    uint64_t events[FSC_EV__COUNT];
    /* RESET verdicts that published no FSC_EV_COUNTER_RESET: inside their
     * series' reset_event_every_ns, or the limiter's table was full (more
     * than ~1000 series reset within that span) */
    uint64_t reset_events_suppressed;
    /* completed aligned windows per level not emitted because the level is
     * shorter than the series' update period (rate.h rule 9) */
    uint64_t windows_withheld[FSC_MAX_WINDOWS];
    /* copy grids (rate.h rule 5): groups in use, value changes offered to
     * them, and changes that contradicted a grid so that it started over */
    uint32_t copy_groups;
    /* series of those groups by learned cadence (enum fsc_cadence: learning,
     * live, copied; rate.h rule 5) */
    uint32_t cadence_series[FSC_CADENCE__COUNT];
    uint64_t copy_changes;
    uint64_t copy_relocks;
    /* observed interval between consecutive accepted counter samples divided
     * by the series' nominal interval (series with a nominal interval only):
     * jitter made visible */
    struct fsc_hist_interval interval_ratio;
};

/* Trailing maxima of a peak gauge (signal QUEUE_PEAK or LATENCY_PEAK): a
 * device reports the highest queue occupancy of its last interval and holds
 * it only until the next report (~2-4 s), so a scrape every 15 s usually
 * misses a burst. The engine keeps, per such series, the highest value of
 * each 5 s slot of its device time (FSC_PEAK_SLOTS slots) and the view
 * gives the highest of the slots covering the last 15 s and 60 s before its
 * newest sample: windows of 15 to 20 s and 60 to 65 s. */
#define FSC_PEAK_MAX_WINDOWS 2
#define FSC_PEAK_SLOT_NS     5000000000LL
#define FSC_PEAK_SLOTS       13 /* 60 s / 5 s, and the slot in progress */
/* The windows' nominal widths, ns (15 s, 60 s); label values "15s", "60s". */
extern const int64_t fsc_peak_max_window_ns[FSC_PEAK_MAX_WINDOWS];

/* What an exporter reads for one series: a consistent copy (never half an
 * update), taken under the engine lock. */
struct fsc_series_view {
    uint8_t present;   /* the engine has state for the series (traits set or sample seen) */
    uint8_t kind;      /* enum fsc_kind; FSC_KIND_COUNTER also when never seen */
    uint8_t has_value; /* a sample was accepted */
    uint8_t is_f64;
    uint8_t signal;           /* traits: enum fsc_signal */
    uint8_t direction;        /* traits: enum fsc_direction */
    uint8_t unit;             /* traits: enum fsc_unit */
    uint8_t expo;             /* traits: enum fsc_expo (exporters only) */
    uint8_t has_windows;      /* windows_done != 0: some window completed */
    uint8_t windows_done;     /* bit L: a window of level L has completed (its rate and
                               * peak are real, not a placeholder 0) */
    uint8_t rate_level;       /* the shortest level the series emits (fsc_rate_base_level): its
                               * rate is window_rate[rate_level], once that level's bit is set */
    uint64_t link_speed_bps;  /* traits; 0 = unknown */
    int64_t t_last_ns;        /* device time of the last accepted sample */
    int64_t t_value_ns;       /* device time the last value became true: t_last_ns, or for
                               * periodic copies the copy instant (rate.h rule 5); the end of
                               * the last interval, so of the fine rate */
    union fsc_value value;    /* last accepted raw value */
    double fine_rate;         /* units/s of the latest interval, -1 when it was no fine
                               * evidence (a gap, an unplaced copy): nothing to show */
    int64_t update_period_ns; /* traits: how often the value can change (rate.h rule 8:
                               * the larger of sampling interval and refresh); 0 unknown */
    double window_rate[FSC_MAX_WINDOWS]; /* last completed aligned window, units/s */
    double window_peak[FSC_MAX_WINDOWS]; /* max fine rate in that window, units/s */
    /* Detector counters since the series got its detector (0 when it has
     * none; restarted when a traits change swaps the detector): START events
     * of the series' own kind: microbursts (port bytes), spikes (CNP / ECN /
     * reorder), storms (PFC); INSTANT events for evidence (queue peak /
     * buffer threshold). Kept as uint32 per series (wraps after 4e9). */
    uint64_t events;
    uint64_t bursts; /* port bytes only: bursts lasting micro_max or longer */
    /* Port-bytes series with a link speed only (has_util): one observation
     * of utilization per fine (non-gap) interval, and the duration of each
     * microburst (FSC_EV_MICROBURST) of this series, observed when the burst
     * ends - the moment its START is counted - so microburst_duration's count
     * always equals `events` (the END event may follow later, once its
     * context windows complete). Counts are kept as uint32 per series: at
     * 10 intervals/s a util bucket wraps after 13 years. */
    uint8_t has_util;
    struct fsc_hist_util util;
    struct fsc_hist_duration microburst_duration;
    /* Peak gauges (QUEUE_PEAK, LATENCY_PEAK) with a sample: the highest raw
     * value (scale applied, as `value`) within each window of
     * fsc_peak_max_window_ns before t_last_ns (FSC_PEAK_MAX_WINDOWS). */
    uint8_t has_peak_max;
    double peak_max[FSC_PEAK_MAX_WINDOWS];
};

/* A listener of completed windows (exporters that send each window once,
 * stamped with its own end: remote_write). Called on the ingest thread under
 * the engine lock for every window the engine emits, with the series'
 * traits (borrowed for the call): it must be quick, must not block on
 * anything that waits for ingest and must not call into the engine. */
typedef void (*fsc_window_listener_fn)(void *arg, fsc_series_id id, const struct fsc_traits *tr,
                                       unsigned level, int64_t t_end_ns, double rate);
#define FSC_WINDOW_LISTENERS_MAX 4

/* Adds a listener (fn, arg). Returns 0, or -ENOSPC when
 * FSC_WINDOW_LISTENERS_MAX are installed.
 * Thread: any. Locks: the engine lock. Owns: nothing; arg stays the
 * caller's and must outlive the listener. */
int fsc_engine_add_window_listener(struct fsc_engine *eng, fsc_window_listener_fn fn, void *arg);

/* Removes the listener (fn, arg) if installed; when this returns, fn is not
 * running and will not be called again.
 * Thread: any but the listener's own (it runs under the engine lock). Locks:
 * the engine lock. Owns: nothing. */
void fsc_engine_remove_window_listener(struct fsc_engine *eng, fsc_window_listener_fn fn,
                                       void *arg);

/* A listener of fine intervals (remote_write's fine rates: each sent once
 * even when a backlog of samples is applied between two of its readings).
 * Called like a window listener, for every interval that is fine evidence
 * (not a gap, not an unplaced copy), with the device time its value became
 * true (the view's t_value_ns: for periodic copies the copy instant) and its
 * rate in the series' units per second (the view's fine_rate). */
typedef void (*fsc_fine_listener_fn)(void *arg, fsc_series_id id, const struct fsc_traits *tr,
                                     int64_t t_ns, double rate);

/* Adds / removes a fine listener, as fsc_engine_add_window_listener /
 * fsc_engine_remove_window_listener (the same limit, in a table of its own).
 * Thread, Locks, Owns: as those. */
int fsc_engine_add_fine_listener(struct fsc_engine *eng, fsc_fine_listener_fn fn, void *arg);
void fsc_engine_remove_fine_listener(struct fsc_engine *eng, fsc_fine_listener_fn fn, void *arg);

/* Observer hooks (tests, rollups, histograms). Any member may be NULL. */
struct fsc_engine_observer {
    /* Every batch as it arrives, before any sample of it is applied
     * (`fabricscope probe` counts what a source delivers): smp[0..n) is
     * borrowed for the call. */
    void (*on_samples)(void *arg, const struct fsc_sample *smp, size_t n);
    void (*on_interval)(void *arg, fsc_series_id id, const struct fsc_interval *iv);
    void (*on_window)(void *arg, fsc_series_id id, unsigned level, int64_t t_end_ns, double rate,
                      double peak);
    void *arg;
};

/* Creates an engine. Returns NULL with a sentence in err on bad config or
 * allocation failure.
 * Thread: any. Locks: none. Owns: the returned engine (fsc_engine_destroy);
 * a copy of *cfg. bus is borrowed (may be NULL: events are then only
 * counted) and must outlive the engine. */
struct fsc_engine *fsc_engine_create(const struct fsc_engine_config *cfg, struct fsc_event_bus *bus,
                                     char *err, size_t errlen);

/* Frees everything the engine owns. NULL is a no-op.
 * Thread: any, once no other thread uses the engine (sources stopped,
 * listeners removed). Locks: none. Owns: frees eng; not the bus. */
void fsc_engine_destroy(struct fsc_engine *eng);

/* Sets the traits of a series. Call it when the series is interned, before
 * its first sample; calling again (link speed learned later) is allowed.
 * Returns 0, -ENOMEM, or -ERANGE when id is beyond max_series.
 * Thread: any. Locks: the engine lock. Owns: a copy of *tr (identical traits
 * are shared). */
int fsc_engine_set_traits(struct fsc_engine *eng, fsc_series_id id, const struct fsc_traits *tr);

/* Changes only the link speed of series id (a speed the device reported,
 * engine/link_speed.h): its other traits, rate state, copy group and learned
 * cadence stay; a port-bytes series gains or loses its microburst detector
 * (zeroed) as the speed becomes known or unknown. Returns 0, -ERANGE (id
 * beyond max_series), -ENOENT (no traits set yet) or -ENOMEM (nothing
 * changed).
 * Thread: any. Locks: the engine lock. Owns: nothing. */
int fsc_engine_set_link_speed(struct fsc_engine *eng, fsc_series_id id, uint64_t bps);

/* The copy group of a device whose counters are copied every period_ns on
 * its own timer (traits.refresh FSC_REFRESH_PERIODIC): key names the device
 * (the same key for every series of it, whatever source or stream delivers
 * them). Returns the group for traits.copy_group (1 ..), the same one for the
 * same key and period, or 0 when the table is full (FSC_COPY_GROUPS_MAX) or
 * memory ran out: such series are treated as on-read copies.
 * Thread: any. Locks: the engine lock. Owns: a copy of key. */
#define FSC_COPY_GROUPS_MAX 65535u
uint16_t fsc_engine_copy_group(struct fsc_engine *eng, const char *key, int64_t period_ns);

/* One copy group as its readers see it: the device, its copy period, its
 * series by learned cadence (rate.h rule 5) and its grid's state. */
struct fsc_copy_group_view {
    char device[256]; /* the key given to fsc_engine_copy_group() */
    int64_t period_ns;
    uint32_t series[FSC_CADENCE__COUNT]; /* indexed by enum fsc_cadence */
    uint64_t changes;                    /* value changes that placed its copies */
    uint64_t relocks;
    bool locked; /* its grid has an estimate of the copy instants */
};

/* Copy groups so far (they are never removed), and group i (0 .. count-1)
 * into *out. Returns 0, or -ENOENT for i out of range.
 * Thread: any. Locks: the engine lock. Owns: nothing; *out is the caller's. */
uint32_t fsc_engine_copy_group_count(struct fsc_engine *eng);
int fsc_engine_copy_group_view(struct fsc_engine *eng, uint32_t i, struct fsc_copy_group_view *out);

/* Adds a series (a port's tx or rx bytes) to port group `group` (index chosen
 * by the caller, < max_groups) for the imbalance detector. Returns 0, -ENOMEM
 * or -ERANGE.
 * Thread: any. Locks: the engine lock. Owns: nothing. */
int fsc_engine_group_add(struct fsc_engine *eng, uint32_t group, fsc_series_id id);

/* Cross-source evidence (engine/xsrc.h; docs/DESIGN.md, "Cross-source
 * evidence"): series id is one of the series of port `self` ("device:port"),
 * whose link ends at port `peer` ("device:port"; the topology's `peer`, or
 * the B300 cable plan's). From then on the series' microburst, burst,
 * queue-peak and buffer-threshold events name the peer (struct
 * fsc_event.subject) and say what it showed around them (peer_saw). The
 * series' traits must be set first: their direction (rx or tx) says which way
 * of the link it sees. Names are copied. Linking again moves the series.
 * Returns 0, -ERANGE (id beyond max_series), -EINVAL (no direction, an empty
 * name, self == peer), -ENOSPC (FSC_XSRC_PORTS_MAX ports or
 * FSC_XSRC_SERIES_MAX series already linked, xsrc.h) or -ENOMEM.
 * Thread: any. Locks: the engine lock. Owns: copies of self and peer. */
int fsc_engine_peer_add(struct fsc_engine *eng, fsc_series_id id, const char *self,
                        const char *peer);

/* Applies n samples in order. Samples for series without traits use a plain
 * 64-bit counter with no link speed. Returns 0 or -ENOMEM (state growth
 * failed; those samples are counted as unknown_series and dropped).
 * Thread: any (each source from its own threads). Locks: the engine lock,
 * once per batch; detectors publish under it (the bus lock after it), and
 * observers and listeners run under it. Owns: nothing; smp[0..n) is
 * borrowed for the call. */
int fsc_engine_ingest(struct fsc_engine *eng, const struct fsc_sample *smp, size_t n);

/* Publishes an event that a source raised itself (the NIC source's cable
 * mismatches and PCIe degradations) exactly as the engine's detectors do:
 * counted in the engine's stats.events (START and INSTANT phases) and copied
 * to the bus the engine was created with (none: only counted). The event's
 * series names the series whose labels describe it.
 * Thread: any. Locks: the engine lock, then the bus lock. Owns: nothing;
 * *ev is copied. */
void fsc_engine_publish(struct fsc_engine *eng, const struct fsc_event *ev);

/* Installs observer hooks. NULL removes them; when this returns, the old
 * hooks are not running.
 * Thread: any but an observer's own. Locks: the engine lock. Owns: a copy of
 * *obs; obs->arg stays the caller's. */
void fsc_engine_set_observer(struct fsc_engine *eng, const struct fsc_engine_observer *obs);

/* Copies the counters.
 * Thread: any. Locks: the engine lock. Owns: nothing; *out is the caller's. */
void fsc_engine_stats_get(struct fsc_engine *eng, struct fsc_engine_stats *out);

/* Fills *out for series id (the same fields fsc_engine_view_ids fills).
 * Returns 0, or -ENOENT (out zeroed, present = 0) when the engine has no
 * state for it.
 * Thread: any. Locks: the engine lock. Owns: nothing; *out is the caller's. */
int fsc_engine_view(struct fsc_engine *eng, fsc_series_id id, struct fsc_series_view *out);

/* Copies the views of n series (ids in any order, duplicates allowed) into
 * out[0..n) under one lock hold, so a renderer can walk 1 M series in chunks
 * of a few thousand without stalling ingest for more than a chunk's copy.
 * Ids without state get a zeroed view (present = 0). Returns 0.
 * Thread: any. Locks: the engine lock, held once for all n. Owns: nothing;
 * out[0..n) is the caller's. */
int fsc_engine_view_ids(struct fsc_engine *eng, const fsc_series_id *ids, size_t n,
                        struct fsc_series_view *out);

/* A group's imbalance state. */
struct fsc_group_view {
    uint8_t present; /* at least one member */
    uint32_t members;
    double ratio;    /* latest max/mean utilization (0 when unknown or idle) */
    uint64_t events; /* imbalance START events since start */
    uint8_t active;  /* an imbalance event is open */
};

/* One past the highest group index with a member (0: no groups), so that
 * `for (g = 0; g < count; g++) fsc_engine_group_view(...)` visits every
 * group; indexes in between without members answer present = 0.
 * Thread: any. Locks: the engine lock. Owns: nothing. */
uint32_t fsc_engine_group_count(struct fsc_engine *eng);

/* Fills *out for group. Returns 0, or -ENOENT (out zeroed, present = 0) for
 * a group without members or beyond max_groups.
 * Thread: any. Locks: the engine lock. Owns: nothing; *out is the caller's. */
int fsc_engine_group_view(struct fsc_engine *eng, uint32_t group, struct fsc_group_view *out);

/* Latest max/mean utilization ratio of a group (0 when unknown).
 * Thread: any. Locks: the engine lock. Owns: nothing. */
double fsc_engine_group_ratio(struct fsc_engine *eng, uint32_t group);

/* Total bytes the engine holds (series slots, traits, detector state, groups);
 * divide by the number of series for the per-series cost (benchmarks).
 * Thread: any. Locks: the engine lock. Owns: nothing. */
size_t fsc_engine_memory_bytes(struct fsc_engine *eng);

#endif
