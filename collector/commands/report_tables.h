/* The report's tables, defined once for every writer (CSV, JSON, HTML), so
 * the three files always hold the same columns and numbers. Internal to
 * exporters/rollup. */
#ifndef FSC_REPORT_TABLES_H
#define FSC_REPORT_TABLES_H

#include <stddef.h>
#include <stdio.h>

#include "commands/report.h"

enum fsc_rpt_cell_kind {
    FSC_RPT_STR = 0, /* text */
    FSC_RPT_NUM,     /* a ratio or rate: 6 significant digits */
    FSC_RPT_INT,     /* bytes, counts, bits/s: a whole number */
    FSC_RPT_TIME,    /* Unix seconds as YYYY-MM-DDTHH:MM:SSZ; 0 = none */
    FSC_RPT_BPS,     /* a link speed or capacity: an integer in CSV / JSON (machines
                      * compute with it), "400G" in HTML (people read it) */
};

struct fsc_rpt_cell {
    enum fsc_rpt_cell_kind kind;
    const char *s; /* STR: borrowed from the report or a constant */
    double v;      /* NUM, INT, TIME; NaN = unknown */
};

#define FSC_RPT_MAX_COLS 20

struct fsc_rpt_table {
    const char *name;  /* CSV section and JSON key */
    const char *title; /* HTML heading */
    const char *about; /* one sentence under the heading */
    const char *const *cols;
    size_t n_cols;
    size_t (*rows)(const struct fsc_report *rep);
    void (*row)(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *out);
};

extern const struct fsc_rpt_table fsc_rpt_tables[];
extern const size_t fsc_rpt_n_tables;

/* Formats a cell as text (NaN: ""), for CSV and HTML. Returns buf. */
const char *fsc_rpt_cell_text(const struct fsc_rpt_cell *c, char *buf, size_t size);

/* Writes s to out as HTML text (<, >, & and " escaped), for the HTML
 * writers of the report and of --compare. */
void fsc_rpt_html_text(FILE *out, const char *s);

#endif
