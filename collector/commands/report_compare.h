/* `fabricscope report --compare`: two or more named time ranges (one per
 * tuning setting) side by side (docs/REPORT.md, "Comparing settings").
 *
 * One pass over the rollup store folds every PORT record into per-minute
 * values per (metric, entity, range); each range's values then give p50,
 * p99, max and mean, and every pair of ranges a Mann-Whitney U test on
 * the per-minute values (report_compare_stats.c) and a verdict.
 *
 * Memory is bounded: at most FSC_CMP_MAX_RANGES ranges holding
 * FSC_CMP_MAX_MINUTES minutes together, FSC_CMP_MAX_ROWS (metric, entity)
 * rows (the rest are counted in dropped and named in a note).
 *
 * Thread: a comparison belongs to one thread. */
#ifndef FSC_REPORT_COMPARE_H
#define FSC_REPORT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "commands/report.h"

#define FSC_CMP_MAX_RANGES  8
#define FSC_CMP_MAX_PAIRS   (FSC_CMP_MAX_RANGES * (FSC_CMP_MAX_RANGES - 1) / 2)
#define FSC_CMP_MAX_MINUTES 10080 /* all ranges together: a week of minutes */
#define FSC_CMP_MAX_ROWS    128
#define FSC_CMP_NAME        32
#define FSC_CMP_MIN_N       5    /* fewer per-minute values: no verdict */
#define FSC_CMP_ALPHA       0.05 /* two-sided significance level */

enum fsc_cmp_metric {
    FSC_CMP_CNP = 0,        /* CNPs sent per second, summed over the entity's ports */
    FSC_CMP_THROUGHPUT,     /* NIC transmit bits/s, summed over the entity's ports */
    FSC_CMP_UPLINK_MAXMEAN, /* busiest uplink's tx over the uplinks' mean */
    FSC_CMP_UPLINK_CV,      /* coefficient of variation of the uplinks' tx */
    FSC_CMP_GROUP_MAXMEAN,  /* a port group's max/mean (the engine's imbalance ratio) */
    FSC_CMP_BURSTS,         /* microbursts per hour, summed over ports */
    FSC_CMP_PFC,            /* PFC rx pause, ms per second summed over ports */
    FSC_CMP_METRICS
};

enum fsc_cmp_verdict {
    FSC_CMP_SAME = 0, /* no significant difference at FSC_CMP_ALPHA */
    FSC_CMP_BETTER,   /* range b better than range a */
    FSC_CMP_WORSE,
    FSC_CMP_TOO_FEW, /* fewer than FSC_CMP_MIN_N minutes in a or b */
};

struct fsc_cmp_range {
    char name[FSC_CMP_NAME];
    int64_t from_s, to_s; /* [from_s, to_s) */
    int64_t first_minute; /* first multiple of 60 at or after from_s */
    size_t n_minutes;     /* minute starts in the range */
    uint64_t records;     /* PORT records read inside the range */
};

/* One minute of one row in one range: the per-port contributions. */
struct fsc_cmp_acc {
    double sum, sumsq, max;
    uint32_t n;
};

struct fsc_cmp_stats {
    size_t n; /* minutes with a value */
    double p50, p99, max, mean;
};

struct fsc_cmp_test {
    unsigned a, b;    /* range indexes, a < b */
    double u;         /* Mann-Whitney U of range b (pairs b > a, ties half) */
    double z, p;      /* normal approximation, tie-corrected; two-sided p */
    double ratio_p50; /* b's p50 over a's; NaN when a's is 0 */
    enum fsc_cmp_verdict verdict;
};

struct fsc_cmp_row {
    enum fsc_cmp_metric metric;
    char entity[FSC_RPT_NAME + 8]; /* "rail 3" or a device name */
    struct fsc_cmp_acc *acc[FSC_CMP_MAX_RANGES];
    struct fsc_cmp_stats st[FSC_CMP_MAX_RANGES];
    struct fsc_cmp_test tests[FSC_CMP_MAX_PAIRS];
    size_t n_tests;
};

struct fsc_compare {
    struct fsc_cmp_range ranges[FSC_CMP_MAX_RANGES];
    size_t n_ranges;
    const char *source;               /* "rollup" or "prometheus" (the loader's) */
    const char *origin;               /* the store directory or the URL (borrowed) */
    const char *const *not_in_source; /* what the source does not hold (NULL-terminated) */
    struct fsc_cmp_row *rows;
    size_t n_rows;
    uint32_t hash[FSC_CMP_MAX_ROWS * 4]; /* row index + 1 */
    uint64_t dropped;                    /* contributions to rows beyond the bound */
};

/* Names, units and the better direction of the metrics. */
const char *fsc_cmp_metric_name(enum fsc_cmp_metric m);
const char *fsc_cmp_metric_unit(enum fsc_cmp_metric m);
bool fsc_cmp_lower_is_better(enum fsc_cmp_metric m);
const char *fsc_cmp_verdict_word(enum fsc_cmp_verdict v);

/* What the rollup store and what the Prometheus loader do not hold, one
 * sentence each (NULL-terminated): the writers print the source's so no one
 * reads a missing figure as zero. */
extern const char *const fsc_cmp_not_in_store[];
extern const char *const fsc_cmp_not_in_prometheus[];

/* The test's name as the outputs print it. */
extern const char fsc_cmp_test_name[];

/* Prepares an empty comparison. */
void fsc_compare_init(struct fsc_compare *cmp);

/* Adds the range NAME [from_s, to_s); NAME is letters, digits, '.', '_'
 * and '-', under FSC_CMP_NAME bytes. Returns 0, -E2BIG (too many ranges or
 * minutes), -EINVAL (from_s >= to_s, a bad or duplicate name, or a range
 * holding no minute start). */
int fsc_compare_add_range(struct fsc_compare *cmp, const char *name, int64_t from_s, int64_t to_s);

/* Frees what cmp holds (not *cmp). */
void fsc_compare_fini(struct fsc_compare *cmp);

/* Reads the rollup store at dir for every range. Returns 0, -ENOENT (no
 * store: sentence in err), -ENODATA (a range holds no PORT record: err
 * names it) or another negative errno (sentence in err). A range's
 * records are its PORT and GROUP records. */
int fsc_compare_load_rollup(struct fsc_compare *cmp, const char *dir, char *err, size_t errlen);

/* Folds one PORT or GROUP record named *name into every range holding its
 * minute (the loader's step; tests feed records directly); other records
 * are ignored. Returns 0 or -ENOMEM. */
int fsc_compare_add_record(struct fsc_compare *cmp, const struct fsc_rr_name *name,
                           const struct fsc_rr_record *rec);

/* Reads the same per-minute values from the Prometheus server at url (its
 * HTTP API; report_compare_prom.c): per range, the ports' roles and rails
 * from fabric_port_info, then one query_range per metric at a 60 s step,
 * each point the increase (or mean) over the minute before it. progress
 * (may be NULL) gets a line per query. Returns 0, -ECONNREFUSED / -EPROTO /
 * -E2BIG / -ENOMEM (sentence in err) or -ENODATA (a range got no value:
 * err names it). */
int fsc_compare_load_prometheus(struct fsc_compare *cmp, const char *url, FILE *progress, char *err,
                                size_t errlen);

/* Adds one port's (or group's) value v to the row (metric m, entity) at
 * minute `minute` of range r (the loaders' step). Returns 0 (also when the
 * row bound drops it: counted in cmp->dropped) or -ENOMEM. */
int fsc_compare_add_value(struct fsc_compare *cmp, enum fsc_cmp_metric m, const char *entity,
                          size_t r, size_t minute, double v);

/* Sorts the rows (metric, then entity) and derives their statistics and
 * tests. Returns 0 or -ENOMEM. */
int fsc_compare_compute(struct fsc_compare *cmp);

/* ---- statistics (report_compare_stats.c) ------------------------------------- */

/* Quantile q of the n sorted values, linear between the closest ranks
 * (h = (n - 1) q; Hyndman and Fan's definition 7, numpy's default). NaN
 * when n is 0. */
double fsc_cmp_quantile(const double *sorted, size_t n, double q);

/* Mann-Whitney U test of xb against xa (not sorted; not modified): *u gets
 * U of xb, *z the normal approximation with the tie correction and a 0.5
 * continuity correction, *p the two-sided p value (1 when the variance is
 * 0). Returns 0 or -ENOMEM. */
int fsc_cmp_mann_whitney(const double *xa, size_t na, const double *xb, size_t nb, double *u,
                         double *z, double *p);

/* ---- the command (report_compare_cmd.c) ------------------------------------ */

/* Runs `fabricscope report --compare ...`: specs are the n --compare values
 * (NAME=FROM..TO), format "text" (default when NULL), "csv", "json" or
 * "html"; the output goes to stdout, or with out_dir to
 * out_dir/compare.<format>. The values come from the Prometheus server at
 * prom_url, or when it is NULL from the rollup directory store. Returns the
 * exit status: 0, 1 (no store, Prometheus unreachable or refusing, an empty
 * range, cannot write), 2 (usage). */
int fsc_report_compare_main(const char *const *specs, size_t n, const char *format,
                            const char *store, const char *prom_url, const char *out_dir,
                            int64_t now_s);

/* ---- writers (report_compare_write.c): stdout text, CSV, JSON, HTML ---------- */
int fsc_compare_write_text(const struct fsc_compare *cmp, FILE *out);
int fsc_compare_write_csv(const struct fsc_compare *cmp, FILE *out);
int fsc_compare_write_json(const struct fsc_compare *cmp, FILE *out);
int fsc_compare_write_html(const struct fsc_compare *cmp, FILE *out);

#endif
