/* The runner's shared state (scenario_run.c records what the engine emits,
 * scenario_judge.c judges it against the truth): one variant's records, its
 * misses and its error figures. */
#ifndef FSC_SCENARIO_RUN_H
#define FSC_SCENARIO_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "scenario.h"

#define MAX_MISSES 12

struct win_rec {
    fsc_series_id id;
    unsigned level;
    int64_t t_end;  /* device time */
    int64_t offset; /* device minus true time when it was emitted */
    double rate;
};

struct iv_rec {
    fsc_series_id id;
    int64_t t0, t1, offset;
    double rate;
    bool gap;
};

struct ev_rec {
    struct fsc_event ev;
    int64_t offset;
};

struct run {
    const struct scn_case *c;
    struct fsc_engine *eng;
    struct fsc_event_bus *bus;
    struct fsc_event_sub *sub;
    int64_t offset; /* of the samples being ingested */
    struct win_rec *w;
    size_t nw, capw;
    struct iv_rec *iv;
    size_t niv, capiv;
    struct ev_rec *ev;
    size_t nev, capev;
    uint64_t lost_events;
    int oom;
    /* verdict */
    unsigned misses;
    char miss[MAX_MISSES][200];
};

struct dist {
    double *v;
    size_t n, cap;
    int oom;
};

struct figures {
    size_t judged[2], edge[2];
    struct dist werr[2]; /* relative, steady windows */
    double edge_max[2];  /* edge windows, utilization points */
    size_t emitted[2], possible[2];
    uint64_t withheld[2];
    struct dist ferr; /* fine, steady, relative */
    unsigned bursts_found, storms_found;
    double burst_start_ms, burst_dur_ms, burst_peak, burst_bytes;
    double storm_dur_ms, storm_peak, storm_count, storm_base;
    unsigned relocks;
};

/* Grows *p (capacity *cap elements of elem bytes) twice; on failure sets
 * *oom and returns p unchanged. */
void *scn_grow(void *p, size_t *cap, size_t elem, int *oom);

/* Records a miss (the first MAX_MISSES texts are kept). */
void scn_miss(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The case's line rate in bytes/s. */
static inline double scn_line_bytes(const struct scn_case *c)
{
    return (double)c->speed_bps / 8.0;
}

/* Port p's update period as the model makes it: its sample interval
 * stretched by the read jitter, its copy period, or the refresh the
 * lifespan allows. */
int64_t scn_update_period(const struct scn_case *c, unsigned port);

/* The distribution's quantile q (sorts it). */
double scn_dist_q(struct dist *d, double q);

/* The judges (scenario_judge.c): each records its misses in r and its
 * figures in f. */
void scn_judge_windows(struct run *r, struct figures *f);
void scn_judge_fine(struct run *r, struct figures *f);
void scn_judge_bursts(struct run *r, struct figures *f);
void scn_judge_storms(struct run *r, struct figures *f);
void scn_judge_counters(struct run *r);

#endif
