/* Per-minute rollups for capacity reports (docs/REPORT.md).
 *
 * A rollup polls the engine's series views once per tick (1 s) and writes,
 * once per wall-clock minute, one record per port, port group and B300 node
 * into the rollup store (rollup_store.h) under <state_dir>/rollup:
 *
 * - per port and direction (fabric_port_{rx,tx}_bytes_total): the exact
 *   delta of the engine's fine-utilization histogram over the minute (one
 *   observation per fine interval; p50 / p99 are read from these bucket
 *   counts, so their resolution is the bucket grid 0.1 .. 0.9, 0.95, 0.99,
 *   1.0, interpolated linearly inside a bucket as Prometheus'
 *   histogram_quantile does) and of its sum (mean fine utilization); the
 *   largest fine utilization and the largest 1 s aligned-window utilization
 *   among the windows seen to complete during the minute; the byte counter's
 *   increase (a decrease counts from zero, as Prometheus' increase() does);
 *   microbursts and long bursts that ended and the microburst durations;
 * - per port: CNPs sent (fabric_nic_cnp_sent_total) and the PFC rx pause
 *   duration (fabric_port_pfc_rx_pause_seconds_total, all priorities, and
 *   mlx5's fabric_port_rx_pause_seconds_total), in seconds;
 * - per port group: mean and max of the engine's max/mean imbalance ratio
 *   over the polls, imbalance events;
 * - per B300 node (fabric_node_rdma_bits_per_second / _efficiency_ratio):
 *   mean and max throughput per direction and mean efficiency.
 *
 * Why polling and not an engine observer: the engine has one observer slot,
 * and the status page needs it more; views are consistent copies taken under
 * the engine lock in chunks, so a poll never stalls ingest for long. The one
 * thing polling cannot see exactly is a 1 s window that completes and is
 * replaced between two polls: max_1s and max_fine are maxima over the
 * windows seen, which with a 1 s tick misses at most a window now and then;
 * the 10 s and 60 s window peaks (never missed at a 1 s tick) bound max_fine
 * from below, and the histogram (exact) bounds it from above.
 *
 * Memory is bounded: at most FSC_ROLLUP_MAX_SERIES series are tracked (the
 * rest counted as dropped), and the store is bounded by max_bytes. */
#ifndef FSC_ROLLUP_H
#define FSC_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "rollup/rollup_config.h"
#include "model/registry.h"
#include "model/topology.h"
#include "engine/engine.h"
#include "rollup/rollup_store.h"

#define FSC_ROLLUP_MAX_SERIES (1u << 18)
#define FSC_ROLLUP_TICK_NS    1000000000LL

/* What a rollup reads; all borrowed and outliving the rollup. */
struct fsc_rollup_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    const struct fsc_engine_config *engine_cfg; /* window widths (which level is 1 s) */
    const struct fsc_topology *topo;            /* may be NULL: no roles, groups "group<N>" */
};

struct fsc_rollup_params {
    const char *dir;      /* store directory (created), e.g. <state_dir>/rollup */
    int64_t retention_ns; /* > 0 */
    uint64_t max_bytes;
    int64_t tick_ns; /* poll period of the thread; 0 = FSC_ROLLUP_TICK_NS */
};

struct fsc_rollup_stats {
    uint32_t ports, groups, nodes; /* tracked */
    uint64_t series_dropped;       /* beyond FSC_ROLLUP_MAX_SERIES or without labels */
    uint64_t minutes;              /* minutes flushed */
    uint64_t ticks;
    struct fsc_rollup_store_stats store;
};

struct fsc_rollup;

/* Creates a rollup without a thread (tests drive it with fsc_rollup_tick).
 * Opens the store (applying retention at now_ns). Returns NULL with a
 * sentence in err. Thread: any. */
struct fsc_rollup *fsc_rollup_create(const struct fsc_rollup_params *params,
                                     const struct fsc_rollup_env *env, int64_t now_ns, char *err,
                                     size_t errlen);

/* One poll at wall time now_ns: picks up new series, reads their views
 * and, when now_ns is in a later minute than the previous tick, writes the
 * previous minute's records. Returns 0 or the store's negative errno (the
 * rollup goes on). Thread: one at a time (the rollup's own thread once
 * started). */
int fsc_rollup_tick(struct fsc_rollup *ru, int64_t now_ns);

/* Writes what the minute in progress has gathered so far (stop, tests): a
 * later record of the same minute adds to it. Returns as fsc_rollup_tick. */
int fsc_rollup_flush(struct fsc_rollup *ru, int64_t now_ns);

/* Frees (no flush). NULL is a no-op. */
void fsc_rollup_destroy(struct fsc_rollup *ru);

/* Copies the counters as of the last tick or flush (the daemon's
 * fabricscope_rollup_* self-metrics). Thread: any; takes the rollup's lock. */
void fsc_rollup_stats(struct fsc_rollup *ru, struct fsc_rollup_stats *out);

/* The daemon's entry points. fsc_rollup_start() creates a rollup from the
 * section (<state_dir>/rollup, rollup.retention, rollup.max_bytes) and starts
 * its thread, which ticks every second. Returns NULL with a sentence in err
 * (store not writable, out of memory); the caller decides whether that is
 * fatal (the daemon logs it and runs on without rollups). Call it after the
 * engine exists; sources may start before or after. */
struct fsc_rollup *fsc_rollup_start(const struct fsc_rollup_config *rc, const char *state_dir,
                                    const struct fsc_rollup_env *env, char *err, size_t errlen);

/* Stops the thread, flushes the minute in progress, closes the store and
 * frees. Call it after the sources stopped (so the last samples are in) and
 * before the engine is destroyed. NULL is a no-op. */
void fsc_rollup_stop(struct fsc_rollup *ru);

#endif
