/* The status page (GET /): one self-contained HTML document. Every table
 * is rendered here, on the server, so the page is complete with scripts
 * disabled; the inline script (web_page.js) only refreshes the same
 * tables and SVG from /api/... every refresh_s seconds. A Content-Security-
 * Policy meta tag forbids every external resource, so a stray reference
 * would fail loudly in a browser instead of silently reaching a CDN.
 *
 * Table rows carry data- attributes (keys) and their cells classes and
 * data-value attributes (the exact API numbers) so scripts and tests find
 * them without parsing the human text. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/numfmt.h"
#include "web/web_format.h"
#include "web/web_page.h"

static const char *dir_name(unsigned dir)
{
    return dir == FSC_DIR_RX ? "rx" : dir == FSC_DIR_TX ? "tx" : "";
}

/* ---- cells ------------------------------------------------------------------------ */

static void head(struct fsc_html *h, const char *id, const char *const *cols, size_t n)
{
    fsc_html_fmt(h, "<table id=\"%s\"><thead><tr>", id);
    for (size_t i = 0; i < n; i++)
        fsc_html_fmt(h, "<th>%s</th>", cols[i]);
    fsc_html_raw(h, "</tr></thead><tbody>");
}

static void tail(struct fsc_html *h, size_t rows, size_t cols, const char *empty)
{
    if (rows == 0)
        fsc_html_fmt(h, "<tr class=\"empty\"><td colspan=\"%zu\">%s</td></tr>", cols, empty);
    fsc_html_raw(h, "</tbody></table>\n");
}

static void td_text(struct fsc_html *h, const char *cls, const char *text)
{
    fsc_html_fmt(h, "<td class=\"%s\">", cls);
    fsc_html_text(h, text);
    fsc_html_raw(h, "</td>");
}

static void td_uint(struct fsc_html *h, const char *cls, uint64_t v)
{
    fsc_html_fmt(h, "<td class=\"num %s\">%llu</td>", cls, (unsigned long long)v);
}

/* A number cell: data-value holds the exact API number, the text a human
 * form (`shown`, page markup). Unknown: an empty value and a dash. */
static void td_num(struct fsc_html *h, const char *cls, int known, double v, const char *shown)
{
    char num[FSC_NUM_MAX + 1];
    if (!known) {
        fsc_html_fmt(h, "<td class=\"num %s\" data-value=\"\">&#8211;</td>", cls);
        return;
    }
    num[fsc_fmt_double(num, v)] = '\0';
    fsc_html_fmt(h, "<td class=\"num %s\" data-value=\"%s\">", cls, num);
    fsc_html_text(h, shown);
    fsc_html_raw(h, "</td>");
}

/* ---- sections ------------------------------------------------------------------------ */

/* A last row saying how many rows the page left out (the API has all). */
static void more_rows(struct fsc_html *h, size_t total, size_t shown, size_t cols)
{
    if (total > shown)
        fsc_html_fmt(h,
                     "<tr class=\"more\"><td colspan=\"%zu\">and %zu more: <a "
                     "href=\"/api/status\">/api/status</a> lists them</td></tr>",
                     cols, total - shown);
}

static void section_sources(struct fsc_html *h, const struct fsc_web_status *st)
{
    static const char *const cols[] = {"source", "type", "state", "up", "series"};
    size_t shown = 0;
    fsc_html_raw(h, "<div class=\"panel\"><h2>Sources</h2>\n");
    head(h, "sources", cols, 5);
    /* Down first, then the rest in config order, FSC_WEB_PAGE_ROWS at most. */
    for (size_t i = 0; i < 2 * st->n_sources && shown < FSC_WEB_PAGE_ROWS; i++) {
        const struct fsc_source_status *s = &st->sources[i % st->n_sources];
        if ((i < st->n_sources) == (s->up != 0))
            continue;
        shown++;
        fsc_html_raw(h, "<tr data-source=\"");
        fsc_html_text(h, s->name);
        fsc_html_raw(h, "\">");
        td_text(h, "name", s->name);
        td_text(h, "type", s->type);
        td_text(h, "state", s->state);
        fsc_html_fmt(h, "<td class=\"up %s\">%s</td>", s->up ? "good" : "bad",
                     s->up ? "up" : "down");
        td_uint(h, "series", s->series);
        fsc_html_raw(h, "</tr>\n");
    }
    more_rows(h, st->n_sources, shown, 5);
    tail(h, st->n_sources, 5, "no sources configured");
    fsc_html_raw(h, "</div>\n");
}

/* Does the page show anything of t (a column with a title)? */
static bool table_shown(const struct fsc_stat_table *t)
{
    for (size_t c = 0; c < t->n_cols && c < FSC_WEB_STAT_COLS; c++)
        if (t->cols[c].title)
            return true;
    return false;
}

/* One value cell of a plugin table, by the column's unit. */
static void stat_cell(struct fsc_html *h, const struct fsc_stat_col *c, double v)
{
    char a[40];
    if (v != v) {
        td_num(h, c->id, 0, 0, "");
        return;
    }
    switch (c->unit) {
    case FSC_STAT_WORD: {
        size_t n = 0;
        while (c->words && c->words[n])
            n++;
        const char *word = v >= 0 && v < (double)n ? c->words[(size_t)v] : "?";
        fsc_html_fmt(h, "<td class=\"%s w-%s\">", c->id, word);
        fsc_html_text(h, word);
        fsc_html_raw(h, "</td>");
        return;
    }
    case FSC_STAT_SECONDS:
        td_num(h, c->id, 1, v, fsc_web_fmt_secs(v, a, sizeof(a)));
        return;
    case FSC_STAT_BYTES:
        td_num(h, c->id, 1, v, fsc_web_fmt_bytes(v, a, sizeof(a)));
        return;
    case FSC_STAT_TIME_S:
        td_num(h, c->id, v > 0, v,
               v > 0 ? fsc_web_fmt_when((int64_t)(v * 1e9), 3, a, sizeof(a)) : "never");
        return;
    default:
        if (v >= 0 && v < 1e19 && v == (double)(uint64_t)v)
            td_uint(h, c->id, (uint64_t)v);
        else
            td_num(h, c->id, 1, v, fsc_web_fmt_secs(v, a, sizeof(a)));
        return;
    }
}

/* Whether a row reports something down: a column `up` at 0 (gNMI
 * streams). Such rows come first on the page. */
static bool row_down(const struct fsc_stat_table *t, const struct fsc_web_stat_row *row)
{
    for (size_t c = 0; c < t->n_cols && c < FSC_WEB_STAT_COLS; c++)
        if (strcmp(t->cols[c].id, "up") == 0)
            return row->values[c] == 0;
    return false;
}

/* Every plugin table with rows, as the API's "tables" has them: keys, then
 * the columns the page shows (those with a title); rows that report
 * something down first, FSC_WEB_PAGE_ROWS at most. */
static void section_tables(struct fsc_html *h, const struct fsc_web_status *st)
{
    fsc_html_raw(h, "<div id=\"plugins\" class=\"row\">");
    for (size_t t = 0; st->tables && st->tables[t]; t++) {
        const struct fsc_stat_table *tab = st->tables[t];
        size_t rows = 0, cols = 0;
        for (size_t r = 0; r < st->n_rows; r++)
            rows += st->rows[r].table == tab;
        if (rows == 0 || !table_shown(tab))
            continue;
        fsc_html_fmt(h, "<div class=\"panel\" data-table=\"%s\"><h2>", tab->id);
        fsc_html_text(h, tab->title);
        fsc_html_fmt(h, "</h2>\n<table id=\"%s\"><thead><tr>", tab->id);
        for (size_t k = 0; k < FSC_STAT_KEYS_MAX && tab->keys[k]; k++, cols++)
            fsc_html_fmt(h, "<th>%s</th>", tab->keys[k]);
        for (size_t c = 0; c < tab->n_cols && c < FSC_WEB_STAT_COLS; c++)
            if (tab->cols[c].title) {
                fsc_html_raw(h, "<th>");
                fsc_html_text(h, tab->cols[c].title);
                fsc_html_raw(h, "</th>");
                cols++;
            }
        fsc_html_raw(h, "</tr></thead><tbody>");
        size_t shown = 0;
        for (size_t i = 0; i < 2 * st->n_rows && shown < FSC_WEB_PAGE_ROWS; i++) {
            const struct fsc_web_stat_row *row = &st->rows[i % st->n_rows];
            if (row->table != tab || (i < st->n_rows) != row_down(tab, row))
                continue;
            shown++;
            fsc_html_raw(h, "<tr");
            for (size_t k = 0; k < FSC_STAT_KEYS_MAX && tab->keys[k]; k++) {
                fsc_html_fmt(h, " data-%s=\"", tab->keys[k]);
                fsc_html_text(h, row->keys[k]);
                fsc_html_raw(h, "\"");
            }
            fsc_html_raw(h, ">");
            for (size_t k = 0; k < FSC_STAT_KEYS_MAX && tab->keys[k]; k++)
                td_text(h, tab->keys[k], row->keys[k]);
            for (size_t c = 0; c < tab->n_cols && c < FSC_WEB_STAT_COLS; c++)
                if (tab->cols[c].title)
                    stat_cell(h, &tab->cols[c], row->values[c]);
            fsc_html_raw(h, "</tr>\n");
        }
        more_rows(h, rows, shown, cols);
        tail(h, rows, cols, tab->empty);
        fsc_html_raw(h, "</div>\n");
    }
    fsc_html_raw(h, "</div>\n");
}

/* A link to the page charting device/port. */
static void port_href(struct fsc_html *h, const char *device, const char *port)
{
    fsc_html_raw(h, "?device=");
    fsc_html_urlarg(h, device);
    fsc_html_raw(h, "&amp;port=");
    fsc_html_urlarg(h, port);
    fsc_html_raw(h, "#chart");
}

static void section_ports(struct fsc_html *h, const struct fsc_web_page *pg)
{
    static const char *const cols[] = {"#",       "device",      "port",  "speed", "peak",
                                       "window",  "dir",         "rx",    "tx",    "rx util",
                                       "tx util", "microbursts", "bursts"};
    char a[32];
    fsc_html_raw(h, "<h2>Hot links: top ports by peak fine-resolution utilization</h2>\n");
    head(h, "ports", cols, 13);
    for (size_t i = 0; i < pg->n_ports; i++) {
        const struct fsc_web_port_row *p = &pg->ports[i];
        fsc_html_raw(h, "<tr data-device=\"");
        fsc_html_text(h, p->device);
        fsc_html_raw(h, "\" data-port=\"");
        fsc_html_text(h, p->port);
        fsc_html_fmt(h, "\"><td class=\"num rank\">%zu</td>", i + 1);
        td_text(h, "device", p->device);
        fsc_html_raw(h, "<td class=\"port\"><a href=\"");
        port_href(h, p->device, p->port);
        fsc_html_raw(h, "\">");
        fsc_html_text(h, p->port);
        fsc_html_raw(h, "</a></td>");
        td_text(h, "speed", p->speed_bps ? fsc_web_fmt_speed(p->speed_bps, a, sizeof(a)) : "");
        td_num(h, "peak", p->has_peak, p->peak_utilization,
               fsc_web_fmt_pct(p->peak_utilization, a, sizeof(a)));
        td_text(h, "window",
                p->has_peak ? fsc_web_fmt_window(p->peak_window_ns, a, sizeof(a)) : "");
        td_text(h, "dir", p->has_peak ? dir_name(p->peak_direction) : "");
        td_num(h, "rx", p->has_rate[0], p->bytes_per_second[0],
               fsc_web_fmt_bitrate(p->bytes_per_second[0], a, sizeof(a)));
        td_num(h, "tx", p->has_rate[1], p->bytes_per_second[1],
               fsc_web_fmt_bitrate(p->bytes_per_second[1], a, sizeof(a)));
        td_num(h, "rxu", p->has_rate[0] && p->utilization[0] >= 0, p->utilization[0],
               fsc_web_fmt_pct(p->utilization[0], a, sizeof(a)));
        td_num(h, "txu", p->has_rate[1] && p->utilization[1] >= 0, p->utilization[1],
               fsc_web_fmt_pct(p->utilization[1], a, sizeof(a)));
        td_uint(h, "microbursts", p->microbursts);
        td_uint(h, "bursts", p->bursts);
        fsc_html_raw(h, "</tr>\n");
    }
    tail(h, pg->n_ports, 13, "no port has a measured rate yet");
}

static void section_chart(struct fsc_html *h, const struct fsc_web_chart *c)
{
    char a[32], b[40];
    fsc_html_raw(h, "<h2 id=\"chart\">Fine utilization <span id=\"chart-port\">");
    if (c) {
        fsc_html_text(h, c->device);
        fsc_html_raw(h, " ");
        fsc_html_text(h, c->port);
    }
    fsc_html_raw(h, "</span></h2>\n<p id=\"chart-info\" class=\"info\">");
    if (!c) {
        fsc_html_raw(h, "No port with byte counters yet.");
    } else {
        fsc_html_fmt(h, "speed %s &#183; ",
                     c->speed_bps ? fsc_web_fmt_speed(c->speed_bps, a, sizeof(a)) : "unknown");
        if (c->tracked)
            fsc_html_fmt(h, "history since %s",
                         fsc_web_fmt_when(c->tracked_since_ns, 0, b, sizeof(b)));
        else
            fsc_html_raw(h, "no history kept");
        fsc_html_fmt(h, " &#183; %zu rx / %zu tx points &#183; %zu bursts", c->n_points[0],
                     c->n_points[1], c->n_markers);
    }
    fsc_html_raw(h, "</p>\n<p class=\"legend\"><span class=\"k-rx\">&#9644; rx</span> "
                    "<span class=\"k-tx\">&#9644; tx</span> <span class=\"k-burst\">&#9646; "
                    "burst</span> <span class=\"k-rise\">- - microburst threshold</span></p>\n");
    fsc_web_svg_chart(h, c);
}

static void section_events(struct fsc_html *h, const struct fsc_web_events *evs)
{
    static const char *const cols[] = {"time", "kind", "phase",    "device",
                                       "port", "dir",  "duration", "details"};
    char t[40], w[48], a[32], sum[256];
    fsc_html_fmt(h,
                 "<h2>Recent events</h2>\n<p class=\"info\" id=\"events-info\">%llu published "
                 "&#183; %zu kept &#183; %llu lost &#183; the newest %zu shown</p>\n",
                 (unsigned long long)evs->published, evs->kept, (unsigned long long)evs->lost,
                 evs->n_rows);
    /* A scrolling box: the page's length does not grow with the rows. */
    fsc_html_raw(h, "<div class=\"scroll\">");
    head(h, "events", cols, 8);
    for (size_t i = 0; i < evs->n_rows; i++) {
        const struct fsc_web_event_row *r = &evs->rows[i];
        const char *kind = fsc_event_kind_name((enum fsc_event_kind)r->ev.kind);
        fsc_web_fmt_time(r->ev.t_start_ns, t, sizeof(t));
        fsc_web_fmt_when(r->ev.t_start_ns, 3, w, sizeof(w));
        fsc_html_fmt(h, "<tr data-seq=\"%llu\" class=\"ev-%s\">", (unsigned long long)r->ev.seq,
                     kind);
        fsc_html_fmt(h, "<td class=\"time\" title=\"%s\">%s</td>", t, w);
        td_text(h, "kind", kind);
        td_text(h, "phase", fsc_event_phase_name((enum fsc_event_phase)r->ev.phase));
        /* Events without a series (a gNMI stream down) name a subject. */
        char subject[sizeof(r->ev.subject) + 1];
        snprintf(subject, sizeof(subject), "%.*s",
                 (r->ev.peer_saw & FSC_PEER_LINKED) ? 0 : (int)sizeof(r->ev.subject),
                 r->ev.subject); /* a peer is not the event's own device */
        td_text(h, "device", r->device ? r->device : subject);
        td_text(h, "port", r->port);
        td_text(h, "dir", dir_name(r->ev.direction));
        double dur = (double)(r->ev.t_end_ns - r->ev.t_start_ns) / 1e9;
        td_num(h, "duration", r->ev.t_end_ns != 0, dur, fsc_web_fmt_secs(dur, a, sizeof(a)));
        td_text(h, "summary", fsc_web_event_summary(r, sum, sizeof(sum)));
        fsc_html_raw(h, "</tr>\n");
    }
    tail(h, evs->n_rows, 8, "no events yet");
    fsc_html_raw(h, "</div>\n");
}

static void section_mesh(struct fsc_html *h, const struct fsc_web_mesh *m)
{
    static const char *const cols[] = {"a", "b", "link", "utilization", "mismatch"};
    char a[32];
    fsc_html_fmt(h,
                 "<h2>B300 mesh</h2>\n<p class=\"info\" id=\"mesh-info\">%zu nodes &#183; %zu "
                 "links &#183; from the %s</p>\n<div class=\"mesh\">",
                 m->n_nodes, m->n_links, m->from_plan ? "cable plan" : "NIC series labels");
    fsc_web_svg_mesh(h, m);
    fsc_html_raw(h, "<div class=\"scroll mesh-table\">");
    head(h, "mesh-links", cols, 5);
    for (size_t i = 0; i < m->n_links; i++) {
        const struct fsc_web_mesh_link *l = &m->links[i];
        uint32_t mm = l->a.mismatch | l->b.mismatch;
        fsc_html_fmt(h, "<tr data-key=\"%u-%u-%u\"%s>", (unsigned)l->a.node, (unsigned)l->b.node,
                     (unsigned)l->link, mm ? " class=\"mismatch\"" : "");
        fsc_html_fmt(h, "<td class=\"a\">%u:", (unsigned)l->a.node);
        fsc_html_text(h, l->a.port);
        fsc_html_fmt(h, "</td><td class=\"b\">%u:", (unsigned)l->b.node);
        fsc_html_text(h, l->b.port);
        fsc_html_fmt(h, "</td><td class=\"num link\">%u</td>", (unsigned)l->link);
        td_num(h, "util", l->utilization >= 0, l->utilization,
               fsc_web_fmt_pct(l->utilization, a, sizeof(a)));
        fsc_html_raw(h, "<td class=\"mm\">");
        const struct fsc_web_mesh_end *ends[2] = {&l->a, &l->b};
        int first = 1;
        for (int e = 0; e < 2; e++)
            for (int k = 0; k < FSC_WEB_MM__COUNT; k++)
                if (ends[e]->mismatch & (1u << k)) {
                    fsc_html_fmt(h, "%s%u:", first ? "" : ", ", (unsigned)ends[e]->node);
                    fsc_html_text(h, ends[e]->port);
                    fsc_html_fmt(h, " %s", fsc_web_mismatch_name[k]);
                    first = 0;
                }
        fsc_html_raw(h, "</td></tr>\n");
    }
    tail(h, m->n_links, 5, "no B300 cable plan and no NIC series with cable labels");
    fsc_html_raw(h, "</div></div>\n");
}

/* ---- the page ----------------------------------------------------------------------------- */

static void page_head(struct fsc_html *h, const struct fsc_web_page *pg)
{
    fsc_html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; "
                    "img-src data:\">\n<link rel=\"icon\" href=\"data:,\">\n"
                    "<title>fabricscope status</title>\n<style>");
    fsc_html_raw(h, fsc_web_css);
    fsc_html_fmt(h, "</style></head>\n<body data-refresh=\"%u\" data-top=\"%u\" data-limit=\"%u\"",
                 pg->refresh_s, pg->top, pg->limit);
    /* The charted port; the script keeps charting it. */
    fsc_html_raw(h, " data-device=\"");
    if (pg->chart)
        fsc_html_text(h, pg->chart->device);
    fsc_html_raw(h, "\" data-port=\"");
    if (pg->chart)
        fsc_html_text(h, pg->chart->port);
    fsc_html_fmt(h, "\" data-rows=\"%u\">\n", FSC_WEB_PAGE_ROWS);
}

static void page_summary(struct fsc_html *h, const struct fsc_web_status *st)
{
    char t[40], w[32];
    uint64_t events = 0;
    for (int k = 0; k < FSC_EV__COUNT; k++)
        events += st->events_by_kind[k];
    fsc_html_fmt(h,
                 "<header><h1>fabricscope</h1><span id=\"live\" class=\"live\">static</span>"
                 "</header>\n<p id=\"summary\" class=\"info\"><span id=\"s-series\">%u</span> "
                 "series &#183; <span id=\"s-samples\">%llu</span> samples &#183; <span "
                 "id=\"s-events\">%llu</span> events &#183; windows <span id=\"s-windows\">",
                 (unsigned)st->series, (unsigned long long)st->samples, (unsigned long long)events);
    for (unsigned l = 0; l < st->n_windows && l < FSC_MAX_WINDOWS; l++)
        fsc_html_fmt(h, "%s%s", l ? " " : "", fsc_web_fmt_window(st->window_ns[l], w, sizeof(w)));
    fsc_html_fmt(h, "</span> &#183; updated <time id=\"updated\" datetime=\"%s\">",
                 fsc_web_fmt_time(st->now_ns, t, sizeof(t)));
    fsc_html_fmt(h, "%s</time></p>\n", fsc_web_fmt_when(st->now_ns, 0, t, sizeof(t)));
}

/* The collector's own state: sources and every plugin table, folded. */
static void page_internals(struct fsc_html *h, const struct fsc_web_status *st)
{
    size_t down = 0;
    for (size_t i = 0; i < st->n_sources; i++)
        down += !st->sources[i].up;
    fsc_html_fmt(h,
                 "<details id=\"internals\"><summary>Collector internals: <span "
                 "id=\"i-sources\">%zu sources, %zu not up</span>, and the tables of its "
                 "plugins</summary>\n"
                 "<section id=\"collector\" class=\"row\">",
                 st->n_sources, down);
    section_sources(h, st);
    section_tables(h, st);
    fsc_html_raw(h, "</section>\n</details>\n");
}

int fsc_web_html_page(const struct fsc_web_page *pg, struct fsc_buf *out)
{
    struct fsc_html h = {out, 0};

    page_head(&h, pg);
    page_summary(&h, pg->status);
    /* What is wrong with the fabric first, then its hot links and the
     * chart, the mesh, the events; the collector's own tables last, folded
     * (a <details>, open with a click, scripts or not). */
    fsc_html_raw(&h, "<main>\n<section id=\"fabric-health\">");
    fsc_web_html_health(&h, pg->health);
    fsc_html_raw(&h, "</section>\n<section id=\"traffic\">");
    section_ports(&h, pg);
    section_chart(&h, pg->chart);
    fsc_html_raw(&h, "</section>\n<section id=\"mesh\">");
    section_mesh(&h, pg->mesh);
    fsc_html_raw(&h, "</section>\n<section id=\"history\">");
    section_events(&h, pg->events);
    fsc_html_raw(&h, "</section>\n");
    page_internals(&h, pg->status);
    fsc_html_raw(&h, "</main>\n<footer>JSON: <a href=\"/api/health\">/api/health</a> <a "
                     "href=\"/api/status\">/api/status</a> <a href=\"/api/ports\">/api/ports</a> "
                     "<a href=\"/api/events\">/api/events</a> <a href=\"/api/mesh\">/api/mesh</a> "
                     "&#183; <a href=\"/metrics\">/metrics</a></footer>\n<script>");
    fsc_html_raw(&h, fsc_web_js);
    fsc_html_raw(&h, "</script>\n</body></html>\n");
    return h.err;
}
