/* Internal to the rollup (rollup.c, rollup_track.c): tracked series and
 * their per-minute accumulators. */
#ifndef FSC_ROLLUP_INT_H
#define FSC_ROLLUP_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "rollup/rollup.h"

/* What a tracked series contributes. */
enum ru_what {
    RU_RX_BYTES = 0,
    RU_TX_BYTES,
    RU_CNP,
    RU_PFC,
    RU_NODE_BPS, /* dir from the direction label */
    RU_NODE_EFF,
    RU_IB_RX, /* IB PMA received bytes of a NIC port: CNP per TB's denominator */
};

/* Cumulative engine state of a byte series at the previous poll. */
struct ru_cum {
    union fsc_value value;
    uint64_t util[FSC_UTIL_BUCKETS + 1];
    double util_sum;
    uint64_t events, bursts;
    uint64_t dur[FSC_DURATION_BUCKETS + 1];
    double dur_sum;
};

struct ru_entry {
    fsc_series_id id;
    uint32_t owner; /* port or node index */
    uint8_t what;   /* enum ru_what */
    uint8_t dir;    /* FSC_RR_RX / FSC_RR_TX */
    uint8_t have_prev;
    uint8_t prev_f64;
    struct ru_cum prev;
    int64_t prev_t_ns;                 /* t_value_ns of prev: the increase's span starts there */
    int64_t last_end[FSC_MAX_WINDOWS]; /* end of the last window seen per level */
};

struct ru_port {
    uint32_t key;
    bool defined; /* the store has its current name */
    struct fsc_rr_name name;
    struct fsc_rr_port acc;          /* the minute in progress */
    int64_t covered_ns[FSC_RR_DIRS]; /* spans of the increases in acc, until written */
    int64_t counter_ns[3];           /* the same for CNP, PFC, IB rx (counters_ms) */
    uint16_t flags;
};

struct ru_group {
    uint32_t key;
    bool defined;
    uint64_t prev_events;
    bool have_prev;
    struct fsc_rr_group acc;
    double ratio_sum;
};

struct ru_node {
    uint32_t key;
    bool defined;
    struct fsc_rr_name name;
    struct fsc_rr_node acc;
    double bps_sum[FSC_RR_DIRS], eff_sum[FSC_RR_DIRS];
    uint32_t bps_polls[FSC_RR_DIRS], eff_polls[FSC_RR_DIRS];
    uint16_t flags;
};

struct fsc_rollup {
    struct fsc_rollup_env env;
    struct fsc_engine_config ecfg; /* copy: window widths */
    unsigned level_1s;             /* window level whose width is 1 s (else 0) */
    struct fsc_rollup_store *store;
    uint32_t next_key;

    uint32_t scanned; /* registry ids below this were classified */
    struct ru_entry *entries;
    size_t n_entries, cap_entries;
    struct ru_port *ports;
    size_t n_ports, cap_ports;
    uint32_t *port_hash; /* port index + 1, 0 = empty; cap_hash slots */
    size_t cap_hash;
    struct ru_node *nodes;
    size_t n_nodes, cap_nodes;
    struct ru_group *groups;
    size_t n_groups;

    struct fsc_series_view *views; /* chunk buffer */
    struct fsc_rr_record *batch;   /* records of one store append */
    int64_t minute_s;              /* minute in progress; INT64_MIN before the first tick */
    struct fsc_rollup_stats stats; /* the tick's thread only */
    struct fsc_rollup_stats pub;   /* copy of stats for other threads, under mu */

    /* thread (fsc_rollup_start) */
    int64_t tick_ns;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu; /* guards stop and stats for other threads */
    pthread_cond_t cv;
    bool stop;
};

/* Classifies registry ids [ru->scanned, count) and tracks the ones the
 * rollup wants (rollup_track.c). Returns 0 or -ENOMEM. */
int fsc_ru_discover(struct fsc_rollup *ru);

/* Number of tracked groups brought up to the engine's group count. */
int fsc_ru_groups_sync(struct fsc_rollup *ru);

#endif
