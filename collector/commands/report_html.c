/* report.html: one self-contained page (inline CSS and SVG, no script, no
 * external resource) with the summary, four charts and the same tables as
 * the CSV and JSON files (report_tables.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report_tables.h"

#define TOP_LINKS   20 /* bars in the "what averages hide" chart */
#define TREND_PLOTS 12 /* saturating links drawn */

static const char style[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222;"
    "max-width:1200px}"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:2em;"
    "border-bottom:1px solid #ccc}"
    ".meta{color:#666}.summary li{margin:.3em 0}.note{color:#a60}"
    "table{border-collapse:collapse;font-size:.85em;margin:.5em 0}"
    "th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right}"
    "th{background:#f3f3f3}td.s{text-align:left}tr.hot td{background:#fde8e8}"
    ".about{color:#555;font-size:.9em}svg{display:block;margin:.5em 0}"
    "svg text{font-size:11px;fill:#333}.legend span{display:inline-block;margin-right:1em}"
    ".sw{display:inline-block;width:10px;height:10px;margin-right:.3em}"
    "#trends svg{display:inline-block;margin-right:1em}";

static const char *const series_color[] = {"#b2182b", "#ef8a62", "#67a9cf", "#2166ac", "#999"};
static const char *const series_label[] = {"max fine", "p99 fine", "max 1 s avg", "max 5 min avg",
                                           "mean"};

/* Indexes of dir rows, ordered by descending p99 (NaN last). */
static int cmp_p99(const void *a, const void *b, const struct fsc_report *rep)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double px = rep->links[x / 2].dir[x % 2].p99, py = rep->links[y / 2].dir[y % 2].p99;
    if (isnan(px))
        return isnan(py) ? 0 : 1;
    if (isnan(py))
        return -1;
    return (px < py) - (px > py);
}

/* qsort has no context argument in C11: a small insertion sort over at most
 * TOP_LINKS kept entries does the job in one pass. */
static size_t top_rows(const struct fsc_report *rep, uint32_t *top, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n_dir_rows; i++) {
        uint32_t r = rep->dir_rows[i];
        size_t k = n < max ? n++ : max;
        if (k == max && cmp_p99(&r, &top[max - 1], rep) >= 0)
            continue;
        if (k == max)
            k = max - 1;
        while (k > 0 && cmp_p99(&r, &top[k - 1], rep) < 0) {
            top[k] = top[k - 1];
            k--;
        }
        top[k] = r;
    }
    return n;
}

static void chart_hide(const struct fsc_report *rep, FILE *out)
{
    uint32_t top[TOP_LINKS];
    size_t n = top_rows(rep, top, TOP_LINKS);
    if (n == 0)
        return;
    const int label_w = 220, plot_w = 640, row_h = 30, bar_h = 5;
    int h = (int)n * row_h + 30;
    fprintf(out,
            "<h2>What averages hide</h2><p class=\"about\">The %zu busiest link directions "
            "by p99 fine utilization: each bar group shows the same link at fine resolution "
            "and averaged over 1 s, 5 min and the whole range.</p>\n<div class=\"legend\">",
            n);
    for (int s = 0; s < 5; s++)
        fprintf(out, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>", series_color[s],
                series_label[s]);
    fprintf(out,
            "</div>\n<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-hide\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"utilization by "
            "resolution\">\n",
            label_w + plot_w + 20, h, label_w + plot_w + 20, h);
    for (int g = 0; g <= 10; g += 2) {
        int x = label_w + plot_w * g / 10;
        fprintf(out,
                "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>"
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
                x, x, h - 20, x, h - 6, g * 10);
    }
    for (size_t i = 0; i < n; i++) {
        const struct fsc_rpt_link *l = &rep->links[top[i] / 2];
        unsigned d = top[i] % 2;
        const struct fsc_rpt_dir *x = &l->dir[d];
        double v[5] = {x->max_fine, x->p99, x->max_1s, x->max_5m, x->mean};
        int y0 = (int)i * row_h + 2;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 6, y0 + 15);
        fsc_rpt_html_text(out, l->device);
        fputc(':', out);
        fsc_rpt_html_text(out, l->port);
        fprintf(out, " %s</text>\n", fsc_report_dir_name(d));
        for (int s = 0; s < 5; s++) {
            double u = isnan(v[s]) ? 0 : (v[s] > 1.05 ? 1.05 : v[s]);
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                    "<title>%s %.1f%%</title></rect>\n",
                    label_w, y0 + s * bar_h, u * plot_w, bar_h - 1, series_color[s],
                    series_label[s], isnan(v[s]) ? 0.0 : v[s] * 100);
        }
    }
    fputs("</svg>\n", out);
}

static void chart_bursts(const struct fsc_report *rep, FILE *out)
{
    static const char *const names[FSC_DURATION_BUCKETS + 1] = {
        "≤1ms", "≤5ms", "≤10ms", "≤25ms", "≤50ms", "≤100ms", "≤250ms", "≤500ms", "≤1s", ">1s"};
    double tot[FSC_DURATION_BUCKETS + 1] = {0}, max = 0;
    for (size_t i = 0; i < rep->n_dir_rows; i++) {
        const struct fsc_rpt_dir *x = &rep->links[rep->dir_rows[i] / 2].dir[rep->dir_rows[i] % 2];
        for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
            tot[b] += x->dur[b];
    }
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        max = tot[b] > max ? tot[b] : max;
    fputs("<h2>Microburst durations</h2><p class=\"about\">All microbursts of the range by "
          "duration.</p>\n",
          out);
    if (max <= 0) {
        fputs("<p>No microburst in the range.</p>\n", out);
        return;
    }
    const int bw = 60, ph = 160, top = 16; /* top: room for the tallest bar's count */
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-bursts\" width=\"%d\" "
            "height=\"%d\" role=\"img\" aria-label=\"microburst durations\">\n",
            bw * (FSC_DURATION_BUCKETS + 1) + 20, ph + 40 + top);
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++) {
        double hgt = tot[b] / max * ph;
        int x = 10 + (int)b * bw;
        fprintf(out,
                "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#2166ac\">"
                "<title>%s: %.0f</title></rect><text x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text><text x=\"%d\" y=\"%.1f\" "
                "text-anchor=\"middle\">%.0f</text>\n",
                x + 4, top + ph + 10 - hgt, bw - 8, hgt, names[b], tot[b], x + bw / 2,
                top + ph + 26, names[b], x + bw / 2, top + ph + 6 - hgt, tot[b]);
    }
    fputs("</svg>\n", out);
}

static void chart_nodes(const struct fsc_report *rep, FILE *out)
{
    if (rep->n_nodes == 0)
        return;
    const int label_w = 200, plot_w = 600, row_h = 22;
    int h = (int)(rep->n_nodes * FSC_RPT_DIRS) * row_h + 10;
    fputs("<h2>B300 nodes against 6.4 Tb/s</h2><p class=\"about\">Mean (dark) and peak (light) "
          "RDMA throughput per node and direction; the line is the node's line rate.</p>\n",
          out);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-nodes\" width=\"%d\" "
            "height=\"%d\" role=\"img\" aria-label=\"node throughput\">\n",
            label_w + plot_w + 40, h);
    fprintf(out, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#b2182b\"/>\n",
            label_w + plot_w, label_w + plot_w, h);
    for (size_t i = 0; i < rep->n_nodes; i++) {
        const struct fsc_rpt_node *nd = &rep->nodes[i];
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
            int y = (int)(i * FSC_RPT_DIRS + d) * row_h + 4;
            double mean = nd->polls[d] > 0 ? nd->bps_sum[d] / nd->polls[d] : 0;
            double peak = isnan(nd->bps_max[d]) ? 0 : nd->bps_max[d];
            double m = fmin(mean / nd->capacity_bps, 1.1), p = fmin(peak / nd->capacity_bps, 1.1);
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 6, y + 13);
            fsc_rpt_html_text(out, nd->device);
            fprintf(out, " %s</text>", fsc_report_dir_name(d));
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#92c5de\">"
                    "<title>peak %.3f Tb/s</title></rect><rect x=\"%d\" y=\"%d\" "
                    "width=\"%.1f\" height=\"16\" fill=\"#2166ac\"><title>mean %.3f "
                    "Tb/s</title></rect>\n",
                    label_w, y, p * plot_w, peak / 1e12, label_w, y, m * plot_w, mean / 1e12);
        }
    }
    fputs("</svg>\n", out);
}

static void chart_trend(const struct fsc_report *rep, const struct fsc_rpt_link *l, unsigned d,
                        FILE *out)
{
    const struct fsc_rpt_dir *x = &l->dir[d];
    const int w = 360, h = 140, pad = 30;
    double pw = w - 2 * pad, ph = h - 2 * pad;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" width=\"%d\" "
            "height=\"%d\" role=\"img\" aria-label=\"p99 trend\"><text x=\"%d\" y=\"14\">",
            w, h, pad);
    fsc_rpt_html_text(out, l->device);
    fputc(':', out);
    fsc_rpt_html_text(out, l->port);
    fprintf(out, " %s p99</text>\n", fsc_report_dir_name(d));
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
            "stroke=\"#ccc\"/><line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#b2182b\" stroke-dasharray=\"4 3\"/>\n",
            pad, pad, pw, ph, pad, pad + pw, pad + ph * (1 - rep->threshold),
            pad + ph * (1 - rep->threshold));
    fputs("<polyline fill=\"none\" stroke=\"#2166ac\" points=\"", out);
    for (unsigned b = 0; b < rep->n_bins; b++) {
        if (isnan(x->bin_p99[b]))
            continue;
        double px = pad + pw * (b + 0.5) / rep->n_bins;
        double py = pad + ph * (1 - fmin(x->bin_p99[b], 1.0));
        fprintf(out, "%.1f,%.1f ", px, py);
    }
    fputs("\"/>\n", out);
    if (x->trend != FSC_RPT_TREND_NONE) {
        double span_d = (double)(rep->to_s - rep->from_s) / 86400.0;
        double y0 = x->intercept, y1 = x->intercept + x->slope_per_day * span_d;
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ef8a62\"/>\n",
                pad, pad + ph * (1 - fmax(fmin(y0, 1.2), -0.2)), pad + pw,
                pad + ph * (1 - fmax(fmin(y1, 1.2), -0.2)));
    }
    fputs("</svg>\n", out);
}

static unsigned bins_with_data(const struct fsc_report *rep, const struct fsc_rpt_dir *x)
{
    unsigned n = 0;
    for (unsigned b = 0; b < rep->n_bins; b++)
        n += !isnan(x->bin_p99[b]);
    return n;
}

static void charts_trend(const struct fsc_report *rep, FILE *out)
{
    size_t drawn = 0, short_range = 0;
    for (size_t i = 0; i < rep->n_dir_rows && drawn < TREND_PLOTS; i++) {
        const struct fsc_rpt_link *l = &rep->links[rep->dir_rows[i] / 2];
        unsigned d = rep->dir_rows[i] % 2;
        if (!l->dir[d].crossed)
            continue;
        if (bins_with_data(rep, &l->dir[d]) < 2) {
            short_range++; /* one point draws no line */
            continue;
        }
        if (drawn++ == 0)
            fputs("<h2>Trends of the links near saturation</h2><p class=\"about\">p99 fine "
                  "utilization per time bin (blue), its linear fit (orange) and the threshold "
                  "(dashed).</p>\n<div id=\"trends\">",
                  out);
        chart_trend(rep, l, d, out);
    }
    if (drawn)
        fputs("</div>\n", out);
    if (short_range)
        fprintf(out,
                "<p class=\"note\">%zu links near saturation have fewer than two trend bins of "
                "%lld s with data: the range is too short for a trend.</p>\n",
                short_range, (long long)rep->bin_s);
}

static void table(const struct fsc_report *rep, const struct fsc_rpt_table *tb, FILE *out)
{
    char buf[128];
    fprintf(out, "<h2>%s</h2><p class=\"about\">", tb->title);
    fsc_rpt_html_text(out, tb->about);
    fprintf(out, "</p>\n<table id=\"table-%s\"><thead><tr>", tb->name);
    for (size_t c = 0; c < tb->n_cols; c++)
        fprintf(out, "<th>%s</th>", tb->cols[c]);
    fputs("</tr></thead><tbody>\n", out);
    size_t n = tb->rows(rep);
    for (size_t r = 0; r < n; r++) {
        struct fsc_rpt_cell cells[FSC_RPT_MAX_COLS];
        tb->row(rep, r, cells);
        fputs("<tr>", out);
        for (size_t c = 0; c < tb->n_cols; c++) {
            fputs(cells[c].kind == FSC_RPT_STR ? "<td class=\"s\">" : "<td>", out);
            if (cells[c].kind == FSC_RPT_BPS)
                fsc_rpt_html_text(out, fsc_report_speed(cells[c].v, buf, sizeof(buf)));
            else
                fsc_rpt_html_text(out, fsc_rpt_cell_text(&cells[c], buf, sizeof(buf)));
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (n == 0)
        fprintf(out, "<tr><td class=\"s\" colspan=\"%zu\">no data</td></tr>\n", tb->n_cols);
    fputs("</tbody></table>\n", out);
}

int fsc_report_write_html(const struct fsc_report *rep, FILE *out)
{
    char a[32], b[32], buf[64];
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            "<title>fabricscope capacity report</title><style>%s</style></head><body>\n",
            style);
    fprintf(out, "<h1>fabricscope capacity report</h1><p class=\"meta\">%s to %s &middot; source ",
            fsc_report_time(rep->from_s, a, sizeof(a)), fsc_report_time(rep->to_s, b, sizeof(b)));
    fsc_rpt_html_text(out, rep->source ? rep->source : "");
    fputc(' ', out);
    fsc_rpt_html_text(out, rep->origin ? rep->origin : "");
    fprintf(out, " &middot; threshold %s", fsc_report_num(rep->threshold, buf, sizeof(buf)));
    fprintf(out, " &middot; <span id=\"covered\">data covers %s",
            fsc_report_duration(rep->covered_s, a, sizeof(a)));
    fprintf(out, " of %s</span></p>\n<ul class=\"summary\" id=\"summary\">\n",
            fsc_report_duration((double)(rep->to_s - rep->from_s), b, sizeof(b)));
    for (size_t i = 0; i < rep->n_summary; i++) {
        fputs("<li>", out);
        fsc_rpt_html_text(out, rep->summary[i]);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
    for (size_t i = 0; i < rep->n_notes; i++) {
        fputs("<p class=\"note\">", out);
        fsc_rpt_html_text(out, rep->notes[i]);
        fputs("</p>\n", out);
    }
    chart_hide(rep, out);
    chart_bursts(rep, out);
    chart_nodes(rep, out);
    charts_trend(rep, out);
    for (size_t t = 0; t < fsc_rpt_n_tables; t++)
        table(rep, &fsc_rpt_tables[t], out);
    fputs("</body></html>\n", out);
    return ferror(out) ? -EIO : 0;
}
