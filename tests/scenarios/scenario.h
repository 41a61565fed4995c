/* The accuracy corpus (tests/scenarios/README.md): a case file describes a
 * device (how it copies its counters), how it is sampled, the traffic on its
 * ports and the truth that traffic implies; the runner generates the samples
 * from that description, feeds the real engine and detectors, and compares
 * what they emit with the truth computed from the same formula - never with
 * an earlier output of fabricscope.
 *
 * scenario_case.c parses case files, scenario_model.c is the traffic and
 * device model (counter values, copy and refresh instants, sample times),
 * scenario_run.c drives the engine and judges. */
#ifndef FSC_SCENARIO_H
#define FSC_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

#define SCN_MAX_PORTS   16
#define SCN_MAX_BURSTS  64
#define SCN_MAX_STORMS  8
#define SCN_MAX_VARIANT 32
#define SCN_MAX_BATCHES 8
#define SCN_MAX_FAULTS  8
#define SCN_MAX_FLAPS   4
#define SCN_NAME_MAX    96

#define SCN_MS  1000000LL
#define SCN_SEC 1000000000LL
/* Every case starts here: 2023-11-14T22:13:20Z, a whole minute. */
#define SCN_T0 (1700000040LL * SCN_SEC)

enum scn_copy {
    SCN_LIVE = 0, /* read when sampled (Cumulus ASIC reads, sysfs netdev stats) */
    SCN_PERIODIC, /* copied on the device's timer every period (Junos) */
    SCN_ON_READ,  /* refreshed by a read older than the lifespan (mlx5 hw_counters) */
};

/* A line-rate (or any util) episode on one port, and the truth beside it. */
struct scn_burst {
    unsigned port;
    int64_t at_ns, len_ns; /* since SCN_T0, true time */
    double util;           /* utilization during the burst (replaces the port's load) */
    double truth_bytes;    /* written in the case file: util x speed / 8 x len */
};

/* A link flap: port carries nothing in [at, at + len) (true time). */
struct scn_flap {
    unsigned port;
    int64_t at_ns, len_ns;
};

/* A delivery fault of one batch's reading: the first reading of batch
 * `batch` at or after `at` is lost, or delivered `by` after it was read
 * (behind later readings: out of order on the wire; its stamp unchanged). */
struct scn_fault {
    enum { SCN_LOSE, SCN_LATE } kind;
    unsigned batch;
    int64_t at_ns, by_ns;
};

/* A CNP storm on the device's CNP counter. */
struct scn_storm {
    int64_t at_ns, len_ns;
    double rate;        /* events/s during the storm (replaces the base rate) */
    double truth_count; /* written in the case file: rate x len */
};

struct scn_case {
    char name[SCN_NAME_MAX];
    /* device */
    enum scn_copy copy;
    int64_t period_ns;      /* PERIODIC: copy period; ON_READ: lifespan */
    int64_t phase_ns;       /* PERIODIC: first copy at SCN_T0 + phase */
    int64_t copy_jitter_ns; /* PERIODIC: each copy up to +- this late / early */
    int64_t jiffy_ns;       /* ON_READ: the kernel's tick (a refresh needs lifespan + 1 tick) */
    /* sampling */
    int64_t sample_ns;
    double jitter;           /* read times +- jitter x sample_ns */
    int64_t offset_ns;       /* first read at SCN_T0 + offset */
    bool arrival;            /* stamps are arrival times: read + U(0, delay) */
    int64_t delay_ns;        /* arrival delay bound */
    int64_t duration_ns;     /* reads in [T0, T0 + duration) */
    int64_t stamp_jitter_ns; /* stamps = read +- this (uniform), reads on time */
    /* The ports are read in n_batches batches (port p in batch
     * p x n_batches / n_ports; the CNP counter in batch 0), batch b at
     * offset batch_offset_ns[b] within each sample interval; 1 batch at 0
     * by default. */
    unsigned n_batches;
    int64_t batch_offset_ns[SCN_MAX_BATCHES];
    /* A stream restart at restart_at: every series' value is sent again
     * (stamped then), and the batches' offsets move by restart_shift on. */
    bool restart;
    int64_t restart_at_ns, restart_shift_ns;
    size_t n_faults;
    struct scn_fault faults[SCN_MAX_FAULTS];
    /* ports */
    unsigned n_ports;
    uint64_t speed_bps;
    double load[SCN_MAX_PORTS];       /* steady utilization per port */
    double truth_rate[SCN_MAX_PORTS]; /* written in the case file: load x speed / 8, B/s */
    /* ports lo..hi (inclusive; lo > hi: none) of a periodic device are live */
    int live_lo, live_hi;
    /* A ramp: port p's utilization moves linearly from load[p] at T0 to
     * ramp_to[p] at T0 + duration; truth_slope[p] (written beside it) is
     * (ramp_to - load) x speed / 8 / duration, B/s per s. */
    bool ramp[SCN_MAX_PORTS];
    double ramp_to[SCN_MAX_PORTS], truth_slope[SCN_MAX_PORTS];
    size_t n_flaps;
    struct scn_flap flaps[SCN_MAX_FLAPS];
    unsigned width;       /* 64, or 32 (values mod 2^32) */
    uint64_t start_value; /* every counter starts here */
    /* discontinuities */
    int reset_port; /* -1: none; else its counter restarts from 0 at reset_at */
    int64_t reset_at_ns;
    int64_t step_at_ns, step_ns; /* device clock steps by step_ns at step_at (0: none) */
    /* detectors' inputs */
    size_t n_bursts;
    struct scn_burst bursts[SCN_MAX_BURSTS];
    bool cnp;        /* the device has a CNP counter */
    double cnp_base; /* events/s outside storms */
    double truth_cnp_base;
    size_t n_storms;
    struct scn_storm storms[SCN_MAX_STORMS];
    /* what the truth says the engine can and cannot determine */
    bool expect_withheld[2];     /* windows of level 0 / 1 are not determined */
    double min_emitted[2];       /* share of the possible windows that must be emitted
                                  * (1 unless the case says the data cannot place them) */
    unsigned expect_microbursts; /* in all (each injected burst the data can show) */
    bool bursts_invisible;       /* the update period hides the bursts: expect none */
    /* The copies fall within the readings' jitter: which copy a reading saw
     * is not determined. Windows are judged against the placement bound
     * (one copy period of traffic at each edge), fine rates only for
     * being there and above 0 on a moving port. */
    bool straddle;
    uint64_t seed;
};

/* A case file may vary some settings: every combination is one variant. */
struct scn_variants {
    struct scn_case v[SCN_MAX_VARIANT];
    size_t n;
};

/* Parses `path` into its variants. Returns 0, or -1 with "file:line: what"
 * in err. */
int scn_case_load(const char *path, struct scn_variants *out, char *err, size_t errlen);

/* ---- the model (scenario_model.c) ---- */

/* Bytes port p has carried from SCN_T0 to true time t (t >= SCN_T0): the
 * integral of its rate, load outside bursts and util inside them. */
double scn_bytes(const struct scn_case *c, unsigned port, int64_t t);

/* True when port p is read live on a periodic device (live_ports). */
bool scn_port_live(const struct scn_case *c, unsigned port);

/* Bytes/s of port p at true time t. */
double scn_rate_at(const struct scn_case *c, unsigned port, int64_t t);

/* True when port p's rate changes anywhere in [a, b] (true times). */
bool scn_rate_changes(const struct scn_case *c, unsigned port, int64_t a, int64_t b);

/* CNP events from SCN_T0 to t, and the rate at t. */
double scn_cnp(const struct scn_case *c, int64_t t);
double scn_cnp_rate_at(const struct scn_case *c, int64_t t);
bool scn_cnp_changes(const struct scn_case *c, int64_t a, int64_t b);

/* The device's clock at true time t (the clock step applied). */
int64_t scn_device_time(const struct scn_case *c, int64_t t);

/* A deterministic generator (splitmix64). */
struct scn_rng {
    uint64_t s;
};
double scn_rng_uniform(struct scn_rng *r); /* [0, 1) */

/* The device as the collector reads it: copy or refresh instants per port. */
struct scn_device {
    const struct scn_case *c;
    struct scn_rng rng;
    int64_t copy_prev, copy_next;         /* PERIODIC: true times of the copies around now */
    int64_t refreshed[SCN_MAX_PORTS + 1]; /* ON_READ: true time of each port's cached copy
                                           * ([n_ports]: the CNP counter's) */
};

void scn_device_init(struct scn_device *d, const struct scn_case *c);

/* The true instant port p's value read at true time r was taken at (the
 * copy, the cached refresh, or r itself); port == n_ports is the CNP
 * counter. Reads must come in time order. */
int64_t scn_device_read(struct scn_device *d, unsigned port, int64_t r);

/* The counter value of port p (n_ports: CNP) taken at true time t: the
 * model's integral from start_value, reset and width applied. */
uint64_t scn_counter_value(const struct scn_case *c, unsigned port, int64_t t);

/* ---- the feed (scenario_feed.c) ---- */

/* One reading as the collector receives it: a batch's samples, all with one
 * stamp. */
struct scn_read {
    int64_t deliver; /* true time it reaches the collector (its order) */
    int64_t read;    /* true time it was read */
    int64_t offset;  /* device minus true time at the read (a clock step) */
    uint64_t seq;    /* generation order, ties of deliver */
    unsigned n;
    struct fsc_sample smp[SCN_MAX_PORTS + 1];
};

/* Every reading of case c from T0 to its duration, in delivery order, into
 * *out (malloc'ed, the caller frees it) and *n. Returns 0, or -1 when
 * memory ran out. */
int scn_feed_build(const struct scn_case *c, struct scn_read **out, size_t *n);

#endif
