/* report.csv and report.json (docs/REPORT.md, "The tables"): the tables of
 * report_tables.c, written row by row. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json_write.h"
#include "base/numfmt.h"
#include "base/timefmt.h"
#include "commands/report_tables.h"

/* ---- CSV: "# " lines for the header and summary, then per table a header
 * row and its rows, each starting with the table's name ----------------------------- */

static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int fsc_report_write_csv(const struct fsc_report *rep, FILE *out)
{
    char a[32], b[32], buf[128];
    fprintf(out, "# fabricscope capacity report, format 1\n");
    fprintf(out, "# source: %s %s\n", rep->source ? rep->source : "",
            rep->origin ? rep->origin : "");
    fprintf(out, "# range: %s .. %s, threshold %s\n", fsc_report_time(rep->from_s, a, sizeof(a)),
            fsc_report_time(rep->to_s, b, sizeof(b)),
            fsc_report_num(rep->threshold, buf, sizeof(buf)));
    fprintf(out, "# covered: %s s of the range's %lld s had data\n",
            fsc_report_num(rep->covered_s, buf, sizeof(buf)), (long long)(rep->to_s - rep->from_s));
    for (size_t i = 0; i < rep->n_summary; i++)
        fprintf(out, "# summary: %s\n", rep->summary[i]);
    for (size_t i = 0; i < rep->n_notes; i++)
        fprintf(out, "# note: %s\n", rep->notes[i]);
    for (size_t t = 0; t < fsc_rpt_n_tables; t++) {
        const struct fsc_rpt_table *tb = &fsc_rpt_tables[t];
        fputs("table", out);
        for (size_t c = 0; c < tb->n_cols; c++) {
            fputc(',', out);
            fputs(tb->cols[c], out);
        }
        fputc('\n', out);
        size_t n = tb->rows(rep);
        for (size_t r = 0; r < n; r++) {
            struct fsc_rpt_cell cells[FSC_RPT_MAX_COLS];
            tb->row(rep, r, cells);
            fputs(tb->name, out);
            for (size_t c = 0; c < tb->n_cols; c++) {
                fputc(',', out);
                csv_field(out, fsc_rpt_cell_text(&cells[c], buf, sizeof(buf)));
            }
            fputc('\n', out);
        }
    }
    return ferror(out) ? -EIO : 0;
}

/* ---- JSON: base/json_write.h, pretty, a table's rows one a line ---------------------- */

/* A ratio or rate: 6 significant digits, as the CSV shows it. */
static void json_num6(struct fsc_json *w, const char *key, double v)
{
    fsc_json_num(w, key, fsc_round_sig(v, 6));
}

static void json_cell(struct fsc_json *w, const char *key, const struct fsc_rpt_cell *c)
{
    char buf[FSC_RFC3339_MAX];
    switch (c->kind) {
    case FSC_RPT_STR:
        fsc_json_str(w, key, c->s ? c->s : "");
        break;
    case FSC_RPT_TIME:
        if (isfinite(c->v) && c->v != 0)
            fsc_json_str(w, key, fsc_report_time((int64_t)c->v, buf, sizeof(buf)));
        else
            fsc_json_null(w, key);
        break;
    case FSC_RPT_INT:
    case FSC_RPT_BPS:
        /* whole numbers in full (%.0f's digits), beyond 2^53 too */
        if (fabs(c->v) < 9223372036854775808.0)
            fsc_json_int(w, key, (int64_t)nearbyint(c->v));
        else
            fsc_json_num(w, key, c->v);
        break;
    default:
        json_num6(w, key, c->v);
        break;
    }
}

int fsc_report_write_json(const struct fsc_report *rep, FILE *out)
{
    struct fsc_buf b = {0};
    struct fsc_json w;
    char t[FSC_RFC3339_MAX];

    fsc_json_start_pretty(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, "format", 1);
    fsc_json_str(&w, "source", rep->source ? rep->source : "");
    fsc_json_str(&w, "origin", rep->origin ? rep->origin : "");
    fsc_json_str(&w, "from", fsc_report_time(rep->from_s, t, sizeof(t)));
    fsc_json_str(&w, "to", fsc_report_time(rep->to_s, t, sizeof(t)));
    fsc_json_str(&w, "generated", fsc_report_time(rep->generated_s, t, sizeof(t)));
    json_num6(&w, "threshold", rep->threshold);
    fsc_json_int(&w, "bin_seconds", rep->bin_s);
    json_num6(&w, "covered_seconds", rep->covered_s);
    fsc_json_array(&w, "summary");
    for (size_t i = 0; i < rep->n_summary; i++)
        fsc_json_str(&w, NULL, rep->summary[i]);
    fsc_json_end(&w);
    fsc_json_array(&w, "notes");
    fsc_json_one_line(&w);
    for (size_t i = 0; i < rep->n_notes; i++)
        fsc_json_str(&w, NULL, rep->notes[i]);
    fsc_json_end(&w);
    fsc_json_object(&w, "tables");
    for (size_t i = 0; i < fsc_rpt_n_tables; i++) {
        const struct fsc_rpt_table *tb = &fsc_rpt_tables[i];
        fsc_json_array(&w, tb->name);
        size_t n = tb->rows(rep);
        for (size_t r = 0; r < n; r++) {
            struct fsc_rpt_cell cells[FSC_RPT_MAX_COLS];
            tb->row(rep, r, cells);
            fsc_json_object(&w, NULL);
            fsc_json_one_line(&w);
            for (size_t c = 0; c < tb->n_cols; c++)
                json_cell(&w, tb->cols[c], &cells[c]);
            fsc_json_end(&w);
        }
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_end(&w);
    int rc = fsc_json_done(&w);
    if (rc == 0)
        rc = fsc_buf_append(&b, "\n", 1);
    if (rc == 0 && fwrite(b.data, 1, b.len, out) != b.len)
        rc = -EIO;
    fsc_buf_free(&b);
    if (rc == 0 && ferror(out))
        rc = -EIO;
    return rc;
}
