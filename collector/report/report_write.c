/* report.csv and report.json (docs/REPORT.md, "Files"): the tables of
 * report_tables.c, written row by row. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_tables.h"

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

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void json_cell(FILE *out, const struct fsc_rpt_cell *c)
{
    char buf[128];
    if (c->kind == FSC_RPT_STR || c->kind == FSC_RPT_TIME) {
        fsc_rpt_cell_text(c, buf, sizeof(buf));
        if (c->kind == FSC_RPT_TIME && buf[0] == '\0')
            fputs("null", out);
        else
            json_str(out, buf);
        return;
    }
    if (!isfinite(c->v)) {
        fputs("null", out);
        return;
    }
    fputs(fsc_rpt_cell_text(c, buf, sizeof(buf)), out);
}

int fsc_report_write_json(const struct fsc_report *rep, FILE *out)
{
    char a[32], b[32], g[32], buf[64];
    fprintf(out, "{\n  \"format\": 1,\n  \"source\": ");
    json_str(out, rep->source ? rep->source : "");
    fprintf(out, ",\n  \"origin\": ");
    json_str(out, rep->origin ? rep->origin : "");
    fprintf(out, ",\n  \"from\": \"%s\",\n  \"to\": \"%s\",\n  \"generated\": \"%s\",\n",
            fsc_report_time(rep->from_s, a, sizeof(a)), fsc_report_time(rep->to_s, b, sizeof(b)),
            fsc_report_time(rep->generated_s, g, sizeof(g)));
    fprintf(out, "  \"threshold\": %s,\n  \"bin_seconds\": %lld,\n",
            fsc_report_num(rep->threshold, buf, sizeof(buf)), (long long)rep->bin_s);
    fprintf(out, "  \"summary\": [");
    for (size_t i = 0; i < rep->n_summary; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        json_str(out, rep->summary[i]);
    }
    fprintf(out, "%s],\n  \"notes\": [", rep->n_summary ? "\n  " : "");
    for (size_t i = 0; i < rep->n_notes; i++) {
        fputs(i ? ", " : "", out);
        json_str(out, rep->notes[i]);
    }
    fprintf(out, "],\n  \"tables\": {");
    for (size_t t = 0; t < fsc_rpt_n_tables; t++) {
        const struct fsc_rpt_table *tb = &fsc_rpt_tables[t];
        fprintf(out, "%s\n    ", t ? "," : "");
        json_str(out, tb->name);
        fputs(": [", out);
        size_t n = tb->rows(rep);
        for (size_t r = 0; r < n; r++) {
            struct fsc_rpt_cell cells[FSC_RPT_MAX_COLS];
            tb->row(rep, r, cells);
            fputs(r ? ",\n      {" : "\n      {", out);
            for (size_t c = 0; c < tb->n_cols; c++) {
                fputs(c ? ", " : "", out);
                json_str(out, tb->cols[c]);
                fputs(": ", out);
                json_cell(out, &cells[c]);
            }
            fputc('}', out);
        }
        fputs(n ? "\n    ]" : "]", out);
    }
    fputs("\n  }\n}\n", out);
    return ferror(out) ? -EIO : 0;
}
