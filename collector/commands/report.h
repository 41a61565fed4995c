/* The capacity-planning report (`fabricscope report`, docs/REPORT.md).
 *
 * One data model for both sources: the loaders (report_data.c for the
 * rollup store, report_prom.c for a Prometheus server) fill per-link
 * aggregates over the range [from, to); report_calc.c derives every table
 * (quantiles, trends, per-leaf figures, the summary); report_write.c and
 * report_html.c write the same tables as CSV, JSON and HTML.
 *
 * Memory is bounded: at most FSC_RPT_MAX_LINKS links, FSC_RPT_MAX_GROUPS
 * groups and FSC_RPT_MAX_NODES nodes (the rest are counted and named in a
 * note), FSC_RPT_BINS trend bins per link direction.
 *
 * Thread: a report belongs to one thread. */
#ifndef FSC_REPORT_H
#define FSC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/topology.h"
#include "engine/engine.h"
#include "rollup/rollup_format.h"

#define FSC_RPT_MAX_LINKS         20000
#define FSC_RPT_MAX_GROUPS        4096
#define FSC_RPT_MAX_NODES         256
#define FSC_RPT_BINS              32
#define FSC_RPT_MAX_NOTES         16
#define FSC_RPT_NAME              (FSC_RR_NAME_MAX + 1)
#define FSC_RPT_NODE_CAPACITY_BPS 6.4e12 /* 16 x 400G: a DGX B300 node's line rate */

enum { FSC_RPT_RX = 0, FSC_RPT_TX = 1, FSC_RPT_DIRS = 2 };

enum fsc_rpt_trend {
    FSC_RPT_TREND_NONE = 0,  /* fewer than 3 bins with data */
    FSC_RPT_TREND_FLAT,      /* slope <= 0: no saturation date */
    FSC_RPT_TREND_RISING,    /* saturation_s set, after the range */
    FSC_RPT_TREND_SATURATED, /* the fitted line is at 1.0 already */
};

/* One direction of a link over the range. NaN means unknown. */
struct fsc_rpt_dir {
    bool present;
    double hist[FSC_UTIL_BUCKETS + 1]; /* per bucket (not cumulative), +Inf last */
    double hist_sum;
    double max_fine, max_1s, max_5m, mean;
    double bytes;
    double bursts, long_bursts;
    double dur[FSC_DURATION_BUCKETS + 1];
    double dur_sum;
    double bin_p99[FSC_RPT_BINS]; /* NaN: no data in the bin */
    /* derived by fsc_report_compute() */
    double count, p50, p99;
    bool crossed; /* p99 or max_1s at or above the threshold */
    enum fsc_rpt_trend trend;
    double slope_per_day, intercept; /* p99 = intercept + slope x days since from */
    int64_t saturation_s;
    /* rollup loader state: 5-minute aligned blocks, trend-bin histograms */
    int64_t block;
    double block_bytes;
    uint8_t block_minutes; /* bit m: minute m of the block seen */
    double block_s;        /* seconds of the open block with data */
    /* seconds of the range this direction has data for: the sum of its
     * records' covered_ms (whole minutes for version 1 records); every
     * per-direction figure (mean, bursts per hour) divides by it */
    double covered_s;
    uint32_t *bin_hist; /* FSC_RPT_BINS x (FSC_UTIL_BUCKETS + 1), or NULL */
};

struct fsc_rpt_link {
    char device[FSC_RPT_NAME], port[FSC_RPT_NAME], peer[FSC_RPT_NAME];
    uint8_t role; /* enum fsc_port_role */
    int rail;     /* -1 none */
    uint64_t speed_bps;
    struct fsc_rpt_dir dir[FSC_RPT_DIRS];
    bool has_cnp, has_pfc, has_ib_rx;
    double cnp, pfc_s;
    double ib_rx_bytes; /* IB PMA received bytes: CNP per TB without port rx bytes */
    /* seconds with data of the port's records (per minute the longest of
     * its directions and its counters): PFC's paused fraction divides by it */
    double covered_s;
    int64_t last_minute; /* loader: minute of the last record added */
};

struct fsc_rpt_group {
    char name[FSC_RPT_NAME];
    double ratio_sum, ratio_max, events;
    double polls; /* rollup: minutes; Prometheus: 1 (ratio_sum is the mean) */
};

struct fsc_rpt_node {
    char device[FSC_RPT_NAME], node[FSC_RPT_NAME];
    double bps_sum[FSC_RPT_DIRS], bps_max[FSC_RPT_DIRS], eff_sum[FSC_RPT_DIRS];
    double polls[FSC_RPT_DIRS], eff_polls[FSC_RPT_DIRS];
    double capacity_bps; /* derived */
};

/* A leaf: per-leaf figures from its uplinks and downlinks. */
struct fsc_rpt_leaf {
    char device[FSC_RPT_NAME];
    uint32_t uplinks, downlinks;
    double up_capacity_bps, down_capacity_bps;
    double oversubscription; /* down / up capacity; NaN when up is 0 */
    double up_tx_bytes, down_rx_bytes;
    double up_capacity_s; /* sum over uplinks of speed x tx covered seconds (bits) */
    double up_covered_s;  /* up_capacity_s / capacity of the uplinks with data */
    double up_mean_util;  /* uplink tx bytes x 8 over up_capacity_s */
    double imbalance;     /* max / mean of the uplinks' tx bytes; NaN with < 2 uplinks */
    double spine_share;   /* uplink tx bytes / downlink rx bytes; NaN when the latter is 0 */
};

struct fsc_report {
    int64_t from_s, to_s;
    double threshold;
    const char *source; /* "rollup" or "prometheus" */
    const char *origin; /* the store directory or the Prometheus URL */
    int64_t generated_s;
    int64_t bin_s; /* trend bin width */
    unsigned n_bins;
    const struct fsc_topology *topo; /* may be NULL */

    struct fsc_rpt_link *links;
    size_t n_links, cap_links;
    uint32_t *hash; /* link index + 1; cap_hash slots */
    size_t cap_hash;
    struct fsc_rpt_group *groups;
    size_t n_groups;
    struct fsc_rpt_node *nodes;
    size_t n_nodes;
    uint64_t dropped; /* links, groups, nodes beyond the bounds */
    /* Seconds of the range any port had data: per minute the longest
     * covered time of any record of that minute (the union of the ports'
     * minutes; within a minute, which seconds are not known). Fabric-wide
     * rates divide by it. */
    double covered_s;
    uint16_t *minute_ms; /* loader: per minute of the range, ms covered */
    size_t n_minutes;

    /* derived */
    uint32_t *dir_rows; /* link index x 2 + direction of every present direction, sorted */
    size_t n_dir_rows;
    struct fsc_rpt_leaf *leaves;
    size_t n_leaves;
    double spine_share; /* fabric-wide; NaN unknown */
    double total_bytes, total_cnp, total_cnp_rx_bytes, total_pfc_s, total_bursts;
    char summary[8][320];
    size_t n_summary;
    char notes[FSC_RPT_MAX_NOTES][200];
    size_t n_notes;
};

/* Prepares an empty report of [from_s, to_s) (to_s > from_s) with the
 * trend bins: the range split into at most FSC_RPT_BINS bins of whole
 * minutes. topo is borrowed (may be NULL). */
void fsc_report_init(struct fsc_report *rep, int64_t from_s, int64_t to_s, double threshold,
                     const struct fsc_topology *topo);

/* Frees what the report holds (not *rep itself). */
void fsc_report_fini(struct fsc_report *rep);

/* The link (device, port), created (with NaN unknowns) when absent. Returns
 * NULL when FSC_RPT_MAX_LINKS is reached (counted in dropped) or memory ran
 * out. */
struct fsc_rpt_link *fsc_report_link(struct fsc_report *rep, const char *device, const char *port);

/* The link (device, port), or NULL; never creates. */
struct fsc_rpt_link *fsc_report_find_link(const struct fsc_report *rep, const char *device,
                                          const char *port);

struct fsc_rpt_group *fsc_report_group(struct fsc_report *rep, const char *name);
struct fsc_rpt_node *fsc_report_node(struct fsc_report *rep, const char *device, const char *node);

/* Adds a note shown under the summary ("20 links beyond the bound"). */
void fsc_report_note(struct fsc_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reads the rollup store at dir into rep. Returns 0, -ENOENT (no store:
 * sentence in err), -ENODATA (no record in the range) or another negative
 * errno. */
int fsc_report_load_rollup(struct fsc_report *rep, const char *dir, char *err, size_t errlen);

/* Reads rep's range from the Prometheus HTTP API at url with libcurl.
 * progress (may be NULL) receives one line per query. Returns 0,
 * -ECONNREFUSED (unreachable, sentence in err), -EPROTO (an error answer or
 * malformed JSON), -ENODATA (no series in range) or -ENOMEM. */
int fsc_report_load_prometheus(struct fsc_report *rep, const char *url, FILE *progress, char *err,
                               size_t errlen);

/* Sorts the links by (device, port) and lists their present directions in
 * rep->dir_rows (called by fsc_report_compute). Returns 0 or -ENOMEM. */
int fsc_report_sort(struct fsc_report *rep);

/* Derives every table and the summary. Returns 0 or -ENODATA when no link
 * has data. */
int fsc_report_compute(struct fsc_report *rep);

/* The bytes CNP per TB divides by: the port's rx bytes, else (NIC ports
 * whose netdev bytes are not collected) the IB PMA rx bytes; NaN when
 * neither was measured. */
double fsc_report_cnp_rx_bytes(const struct fsc_rpt_link *l);

/* Prometheus' histogram_quantile() over per-bucket counts (bounds
 * fsc_util_bucket_le, the last bucket +Inf): NaN when empty. */
double fsc_report_quantile(double q, const double *bucket, size_t n_finite, const double *le);

/* Writers: report.csv, report.json, report.html into an open stream.
 * Return 0 or -EIO (report.json also -ENOMEM: it is built in memory and
 * written at once). */
int fsc_report_write_csv(const struct fsc_report *rep, FILE *out);
int fsc_report_write_json(const struct fsc_report *rep, FILE *out);
int fsc_report_write_html(const struct fsc_report *rep, FILE *out);

/* Number formatting shared by the writers: "%.6g", "" (CSV) / null (JSON)
 * for NaN; bytes and counts as integers. */
const char *fsc_report_num(double v, char *buf, size_t size);
/* A link speed as operators write it: "400G", "1.6T", "25G", "100M";
 * "" for 0 or NaN. Returns buf. */
const char *fsc_report_speed(double bps, char *buf, size_t size);
/* A duration of seconds as "2m30s", "4h", "1d2h": the covered time. */
const char *fsc_report_duration(double s, char *buf, size_t size);
/* t_s as "YYYY-MM-DDTHH:MM:SSZ" (base/timefmt.h) into buf; returns buf. */
const char *fsc_report_time(int64_t t_s, char *buf, size_t size);
const char *fsc_report_dir_name(unsigned dir);

/* ---- the command (report_cmd.c) ------------------------------------------------ */

extern const char fsc_report_usage[];

/* A time as the options take it: `now`, -DURATION relative to now_s (-24h,
 * -7d, -90m), Unix seconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]Z. Returns 0
 * with *out set, or -1. */
int fsc_report_parse_time(const char *s, int64_t now_s, int64_t *out);

/* Runs `fabricscope report`; argv[0] is "report". Returns the exit status:
 * 0, 1 (runtime: no store, unreachable Prometheus, empty range, cannot
 * write), 2 (usage or configuration). A --config file is loaded with
 * `schema` (the application's; borrowed). Thread: main. */
int fsc_report_main(int argc, char **argv, const struct fsc_config_schema *schema);

#endif
