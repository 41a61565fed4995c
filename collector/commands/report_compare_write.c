/* The comparison's outputs (docs/REPORT.md, "Comparing settings"): a text
 * table for the terminal, CSV, JSON and a self-contained HTML page with
 * one inline SVG bar chart per metric and entity. Every output lists the
 * ranges, the rows, the verdicts with the test used, and what the rollup
 * store does not hold. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json_write.h"
#include "base/numfmt.h"
#include "commands/report_compare.h"
#include "commands/report_tables.h"

/* The loader's source, and what it does not hold (a test may feed rows
 * without a loader: the rollup store's). */
static const char *source_of(const struct fsc_compare *cmp)
{
    return cmp->source ? cmp->source : "rollup";
}

static const char *const *not_held(const struct fsc_compare *cmp)
{
    return cmp->not_in_source ? cmp->not_in_source : fsc_cmp_not_in_store;
}

static const char *not_held_title(const struct fsc_compare *cmp)
{
    return strcmp(source_of(cmp), "rollup") == 0 ? "Not in the rollup store"
                                                 : "Not compared from Prometheus";
}

static const char *num(double v, char *buf, size_t size)
{
    return fsc_report_num(v, buf, size);
}

static const char *ratio_text(double v, char *buf, size_t size)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "x%.3f", v);
    return buf;
}

/* ---- text ------------------------------------------------------------------ */

int fsc_compare_write_text(const struct fsc_compare *cmp, FILE *out)
{
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(out, "fabricscope report --compare: %zu ranges from %s\n", cmp->n_ranges,
            cmp->origin ? cmp->origin : "");
    for (size_t r = 0; r < cmp->n_ranges; r++)
        fprintf(out, "  %-16s %s .. %s\n", cmp->ranges[r].name,
                fsc_report_time(cmp->ranges[r].from_s, a, sizeof(a)),
                fsc_report_time(cmp->ranges[r].to_s, b, sizeof(b)));
    fprintf(out,
            "Statistics over the per-minute values; verdicts by %s, \"better\" = lower "
            "(higher for throughput).\n",
            fsc_cmp_test_name);
    for (enum fsc_cmp_metric m = 0; m < FSC_CMP_METRICS; m++) {
        bool any = false;
        for (size_t i = 0; i < cmp->n_rows; i++) {
            const struct fsc_cmp_row *row = &cmp->rows[i];
            if (row->metric != m)
                continue;
            if (!any)
                fprintf(out, "\n%s (%s)\n  %-20s %-16s %7s %12s %12s %12s %12s\n",
                        fsc_cmp_metric_name(m), fsc_cmp_metric_unit(m), "entity", "range",
                        "minutes", "p50", "p99", "max", "mean");
            any = true;
            for (size_t r = 0; r < cmp->n_ranges; r++) {
                const struct fsc_cmp_stats *st = &row->st[r];
                fprintf(out, "  %-20s %-16s %7zu %12s %12s %12s %12s\n", r == 0 ? row->entity : "",
                        cmp->ranges[r].name, st->n, num(st->p50, a, sizeof(a)),
                        num(st->p99, b, sizeof(b)), num(st->max, c, sizeof(c)),
                        num(st->mean, d, sizeof(d)));
            }
            for (size_t k = 0; k < row->n_tests; k++) {
                const struct fsc_cmp_test *t = &row->tests[k];
                fprintf(out, "    %s vs %s: %s (p50 %s", cmp->ranges[t->b].name,
                        cmp->ranges[t->a].name, fsc_cmp_verdict_word(t->verdict),
                        ratio_text(t->ratio_p50, e, sizeof(e)));
                if (t->verdict == FSC_CMP_TOO_FEW)
                    fprintf(out, "; fewer than %d minutes)\n", FSC_CMP_MIN_N);
                else
                    fprintf(out, "; U=%s z=%s p=%s)\n", num(t->u, a, sizeof(a)),
                            num(t->z, b, sizeof(b)), num(t->p, c, sizeof(c)));
            }
        }
        if (!any)
            fprintf(out, "\n%s: no value in any range\n", fsc_cmp_metric_name(m));
    }
    fprintf(out, "\n%s (not shown, not zero):\n", not_held_title(cmp));
    for (size_t i = 0; not_held(cmp)[i]; i++)
        fprintf(out, "  - %s\n", not_held(cmp)[i]);
    if (cmp->dropped)
        fprintf(out, "note: %llu contributions beyond %d rows were left out\n",
                (unsigned long long)cmp->dropped, FSC_CMP_MAX_ROWS);
    return ferror(out) ? -EIO : 0;
}

/* ---- CSV: "# " header lines, then the tables `stats` and `verdicts` -------- */

int fsc_compare_write_csv(const struct fsc_compare *cmp, FILE *out)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out, "# fabricscope compare report, format 1\n");
    fprintf(out, "# source: %s %s\n", source_of(cmp), cmp->origin ? cmp->origin : "");
    for (size_t r = 0; r < cmp->n_ranges; r++)
        fprintf(out, "# range: %s,%s,%s\n", cmp->ranges[r].name,
                fsc_report_time(cmp->ranges[r].from_s, a, sizeof(a)),
                fsc_report_time(cmp->ranges[r].to_s, b, sizeof(b)));
    fprintf(out, "# test: %s\n", fsc_cmp_test_name);
    for (size_t i = 0; not_held(cmp)[i]; i++)
        fprintf(out, "# not in store: %s\n", not_held(cmp)[i]);
    if (cmp->dropped)
        fprintf(out, "# note: %llu contributions beyond %d rows were left out\n",
                (unsigned long long)cmp->dropped, FSC_CMP_MAX_ROWS);
    fputs("table,metric,entity,range,minutes,p50,p99,max,mean\n", out);
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const struct fsc_cmp_row *row = &cmp->rows[i];
        for (size_t r = 0; r < cmp->n_ranges; r++) {
            const struct fsc_cmp_stats *st = &row->st[r];
            fprintf(out, "stats,%s,%s,%s,%zu,%s,%s,%s,%s\n", fsc_cmp_metric_name(row->metric),
                    row->entity, cmp->ranges[r].name, st->n, num(st->p50, a, sizeof(a)),
                    num(st->p99, b, sizeof(b)), num(st->max, c, sizeof(c)),
                    num(st->mean, d, sizeof(d)));
        }
    }
    fputs("table,metric,entity,range_a,range_b,ratio_p50,u,z,p,verdict\n", out);
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const struct fsc_cmp_row *row = &cmp->rows[i];
        for (size_t k = 0; k < row->n_tests; k++) {
            const struct fsc_cmp_test *t = &row->tests[k];
            fprintf(out, "verdicts,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", fsc_cmp_metric_name(row->metric),
                    row->entity, cmp->ranges[t->a].name, cmp->ranges[t->b].name,
                    num(t->ratio_p50, a, sizeof(a)), num(t->u, b, sizeof(b)),
                    num(t->z, c, sizeof(c)), num(t->p, d, sizeof(d)),
                    fsc_cmp_verdict_word(t->verdict));
        }
    }
    return ferror(out) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_num6(struct fsc_json *w, const char *key, double v)
{
    if (isnan(v) || isinf(v))
        fsc_json_null(w, key);
    else
        fsc_json_num(w, key, fsc_round_sig(v, 6));
}

int fsc_compare_write_json(const struct fsc_compare *cmp, FILE *out)
{
    struct fsc_buf buf = {0};
    struct fsc_json w;
    char t[32];
    fsc_json_start_pretty(&w, &buf);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, "format", 1);
    fsc_json_str(&w, "source", source_of(cmp));
    fsc_json_str(&w, "origin", cmp->origin ? cmp->origin : "");
    fsc_json_str(&w, "test", fsc_cmp_test_name);
    fsc_json_num(&w, "alpha", FSC_CMP_ALPHA);
    fsc_json_uint(&w, "dropped", cmp->dropped); /* contributions beyond FSC_CMP_MAX_ROWS */
    fsc_json_array(&w, "ranges");
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        fsc_json_object(&w, NULL);
        fsc_json_one_line(&w);
        fsc_json_str(&w, "name", cmp->ranges[r].name);
        fsc_json_str(&w, "from", fsc_report_time(cmp->ranges[r].from_s, t, sizeof(t)));
        fsc_json_str(&w, "to", fsc_report_time(cmp->ranges[r].to_s, t, sizeof(t)));
        fsc_json_uint(&w, "records", cmp->ranges[r].records);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_array(&w, "not_in_store");
    for (size_t i = 0; not_held(cmp)[i]; i++)
        fsc_json_str(&w, NULL, not_held(cmp)[i]);
    fsc_json_end(&w);
    fsc_json_array(&w, "rows");
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const struct fsc_cmp_row *row = &cmp->rows[i];
        fsc_json_object(&w, NULL);
        fsc_json_str(&w, "metric", fsc_cmp_metric_name(row->metric));
        fsc_json_str(&w, "unit", fsc_cmp_metric_unit(row->metric));
        fsc_json_str(&w, "better", fsc_cmp_lower_is_better(row->metric) ? "lower" : "higher");
        fsc_json_str(&w, "entity", row->entity);
        fsc_json_array(&w, "stats");
        for (size_t r = 0; r < cmp->n_ranges; r++) {
            const struct fsc_cmp_stats *st = &row->st[r];
            fsc_json_object(&w, NULL);
            fsc_json_one_line(&w);
            fsc_json_str(&w, "range", cmp->ranges[r].name);
            fsc_json_uint(&w, "minutes", st->n);
            json_num6(&w, "p50", st->p50);
            json_num6(&w, "p99", st->p99);
            json_num6(&w, "max", st->max);
            json_num6(&w, "mean", st->mean);
            fsc_json_end(&w);
        }
        fsc_json_end(&w);
        fsc_json_array(&w, "verdicts");
        for (size_t k = 0; k < row->n_tests; k++) {
            const struct fsc_cmp_test *x = &row->tests[k];
            fsc_json_object(&w, NULL);
            fsc_json_one_line(&w);
            fsc_json_str(&w, "a", cmp->ranges[x->a].name);
            fsc_json_str(&w, "b", cmp->ranges[x->b].name);
            json_num6(&w, "ratio_p50", x->ratio_p50);
            json_num6(&w, "u", x->u);
            json_num6(&w, "z", x->z);
            json_num6(&w, "p", x->p);
            fsc_json_str(&w, "verdict", fsc_cmp_verdict_word(x->verdict));
            fsc_json_end(&w);
        }
        fsc_json_end(&w);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_end(&w);
    int rc = fsc_json_done(&w);
    if (rc == 0)
        rc = fsc_buf_append(&buf, "\n", 1);
    if (rc == 0 && fwrite(buf.data, 1, buf.len, out) != buf.len)
        rc = -EIO;
    fsc_buf_free(&buf);
    if (rc == 0 && ferror(out))
        rc = -EIO;
    return rc;
}

/* ---- HTML: per row a bar chart (p50, p99, max per range) and its verdicts -- */

static const char style[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;"
    "max-width:1200px}h1{font-size:1.6em}h2{font-size:1.1em;margin-top:1.6em;"
    "border-bottom:1px solid #ccc}.meta,.about{color:#555}.note{color:#a60}"
    "svg{display:block;margin:.5em 0}svg text{font-size:11px;fill:#333}"
    ".better{color:#1a7f37}.worse{color:#b2182b}";

static const char *const bar_color[3] = {"#2166ac", "#67a9cf", "#ef8a62"};
static const char *const bar_label[3] = {"p50", "p99", "max"};

/* One chart: a group of three bars (p50, p99, max) per range, scaled to
 * the row's largest value. */
static void chart(const struct fsc_compare *cmp, const struct fsc_cmp_row *row, size_t index,
                  FILE *out)
{
    const int bar_w = 18, gap = 30, h = 140, top = 10, label_h = 30;
    double most = 0;
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        const double v[3] = {row->st[r].p50, row->st[r].p99, row->st[r].max};
        for (int k = 0; k < 3; k++)
            if (v[k] > most)
                most = v[k];
    }
    int width = (int)cmp->n_ranges * (3 * bar_w + gap) + gap;
    char buf[32];
    fprintf(out,
            "<svg class=\"bars\" id=\"chart-%zu\" data-metric=\"%s\" width=\"%d\" height=\"%d\" "
            "role=\"img\">\n",
            index, fsc_cmp_metric_name(row->metric), width, h + top + label_h);
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        const double v[3] = {row->st[r].p50, row->st[r].p99, row->st[r].max};
        int x0 = gap + (int)r * (3 * bar_w + gap);
        for (int k = 0; k < 3; k++) {
            double frac = most > 0 && !isnan(v[k]) ? v[k] / most : 0;
            int bh = (int)lround(frac * h);
            fprintf(out,
                    "<rect class=\"bar\" data-range=\"%s\" data-stat=\"%s\" x=\"%d\" y=\"%d\" "
                    "width=\"%d\" height=\"%d\" fill=\"%s\"><title>",
                    cmp->ranges[r].name, bar_label[k], x0 + k * bar_w, top + h - bh, bar_w - 2, bh,
                    bar_color[k]);
            fsc_rpt_html_text(out, cmp->ranges[r].name);
            fprintf(out, " %s: %s</title></rect>\n", bar_label[k], num(v[k], buf, sizeof(buf)));
        }
        fprintf(out, "<text x=\"%d\" y=\"%d\">", x0, top + h + 16);
        fsc_rpt_html_text(out, cmp->ranges[r].name);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
}

int fsc_compare_write_html(const struct fsc_compare *cmp, FILE *out)
{
    char a[32], b[32];
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>fabricscope settings comparison</title><style>%s</style></head><body>\n"
            "<h1>fabricscope settings comparison</h1>\n<p class=\"meta\">source %s ",
            style, source_of(cmp));
    fsc_rpt_html_text(out, cmp->origin ? cmp->origin : "");
    fputs("</p>\n<ul id=\"ranges\">\n", out);
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        fputs("<li>", out);
        fsc_rpt_html_text(out, cmp->ranges[r].name);
        fprintf(out, ": %s .. %s</li>\n", fsc_report_time(cmp->ranges[r].from_s, a, sizeof(a)),
                fsc_report_time(cmp->ranges[r].to_s, b, sizeof(b)));
    }
    fprintf(out,
            "</ul>\n<p class=\"about\">Bars: p50, p99 and max of the per-minute values "
            "(colors %s, %s, %s). Verdicts: %s; better = lower, higher for throughput.</p>\n",
            bar_color[0], bar_color[1], bar_color[2], fsc_cmp_test_name);
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const struct fsc_cmp_row *row = &cmp->rows[i];
        fprintf(out, "<h2>%s &middot; ", fsc_cmp_metric_name(row->metric));
        fsc_rpt_html_text(out, row->entity);
        fprintf(out, "</h2><p class=\"about\">%s</p>\n", fsc_cmp_metric_unit(row->metric));
        chart(cmp, row, i, out);
        fputs("<ul>\n", out);
        for (size_t k = 0; k < row->n_tests; k++) {
            const struct fsc_cmp_test *t = &row->tests[k];
            fputs("<li>", out);
            fsc_rpt_html_text(out, cmp->ranges[t->b].name);
            fputs(" vs ", out);
            fsc_rpt_html_text(out, cmp->ranges[t->a].name);
            fprintf(out, ": <span class=\"%s\">%s</span> (p50 %s, p=%s)</li>\n",
                    t->verdict == FSC_CMP_BETTER  ? "better"
                    : t->verdict == FSC_CMP_WORSE ? "worse"
                                                  : "same",
                    fsc_cmp_verdict_word(t->verdict), ratio_text(t->ratio_p50, a, sizeof(a)),
                    num(t->p, b, sizeof(b)));
        }
        fputs("</ul>\n", out);
    }
    fprintf(out, "<h2>%s</h2>\n<ul id=\"not-in-store\">\n", not_held_title(cmp));
    for (size_t i = 0; not_held(cmp)[i]; i++) {
        fputs("<li>", out);
        fsc_rpt_html_text(out, not_held(cmp)[i]);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n</body></html>\n", out);
    return ferror(out) ? -EIO : 0;
}
