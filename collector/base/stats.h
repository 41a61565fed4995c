/* What a plugin (source or sink) reports about itself, in one shape that
 * both the Prometheus exporter (fabricscope_* families) and the status page
 * (a table per kind of row) render without knowing the plugin.
 *
 * A plugin declares tables (struct fsc_stat_table, const data): a table
 * names the labels that identify a row ("source", "stream") and its
 * columns. A column is one Prometheus family (or one labelled slice of it:
 * fabricscope_otlp_requests_total{result="ok"}), a column shown on the
 * status page only, or both. When asked, a running instance writes its
 * rows through a struct fsc_stats_out; the caller copies what it needs
 * before the call returns.
 *
 * Families: two columns (of any tables) with the same family name are one
 * family; the renderer keeps its samples together, in the order the
 * tables are declared. A counter's family name is given without "_total". */
#ifndef FSC_STATS_H
#define FSC_STATS_H

#include <stddef.h>
#include <stdint.h>

enum fsc_stat_type {
    FSC_STAT_COUNTER = 0,
    FSC_STAT_GAUGE = 1,
    FSC_STAT_HISTOGRAM = 2, /* the row's value is ignored; its histogram is used */
};

/* How the status page shows a value. */
enum fsc_stat_unit {
    FSC_STAT_COUNT = 0,   /* an integer */
    FSC_STAT_SECONDS = 1, /* a duration */
    FSC_STAT_WORD = 2,    /* an index into words[] */
    FSC_STAT_BYTES = 3,
    FSC_STAT_TIME_S = 4, /* a Unix time in seconds */
};

#define FSC_STAT_KEYS_MAX 4 /* labels that identify a row */

struct fsc_stat_col {
    const char *id;           /* the column's name in the JSON API ("messages") */
    const char *family;       /* Prometheus family, "fabricscope_gnmi_messages"; NULL: page only */
    const char *help;         /* the family's HELP (on one of its columns is enough) */
    uint8_t type;             /* enum fsc_stat_type */
    const char *label;        /* extra label of this column's samples ("result"), or NULL */
    const char *label_value;  /* its value ("ok") */
    const char *title;        /* status page heading, or NULL: not on the page */
    uint8_t unit;             /* enum fsc_stat_unit (page only) */
    const char *const *words; /* FSC_STAT_WORD: value i is shown as words[i] */
};

struct fsc_stat_table {
    const char *id;    /* "gnmi_streams": the page's and the JSON API's name */
    const char *title; /* "gNMI streams" */
    const char *empty; /* what the page says without rows ("no gNMI streams") */
    const char *keys[FSC_STAT_KEYS_MAX + 1]; /* row labels, NULL-terminated */
    const struct fsc_stat_col *cols;
    size_t n_cols;
};

/* A histogram value: bounds le[0..n), per-bucket (not cumulative) counts
 * bucket[0..n] (bucket[n]: above the last bound), sum of observations. */
struct fsc_stat_hist {
    size_t n;
    const double *le;
    const uint64_t *bucket;
    double sum;
};

/* Where a plugin writes its rows: one call per row, with a value per
 * column (NAN: none: a gauge not known yet is left out) and, for tables
 * with a histogram column, that histogram (else NULL). keys and hist are
 * borrowed for the call. */
struct fsc_stats_out {
    void (*row)(void *arg, const struct fsc_stat_table *table, const char *const *keys,
                const double *values, const struct fsc_stat_hist *hist);
    void *arg;
};

static inline void fsc_stats_row(const struct fsc_stats_out *out, const struct fsc_stat_table *t,
                                 const char *const *keys, const double *values,
                                 const struct fsc_stat_hist *hist)
{
    out->row(out->arg, t, keys, values, hist);
}

/* The value for an absent gauge. */
#define FSC_STAT_NONE (__builtin_nan(""))

#endif
