/* The page's two SVG views, drawn on the server for the first load (and
 * for browsers without scripts); the script redraws them from /api/port
 * and /api/mesh with the same geometry (web_page.js). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "web/web_format.h"
#include "web/web_page.h"

#define PW     (FSC_WEB_CHART_W - FSC_WEB_CHART_L - FSC_WEB_CHART_R)
#define PH     (FSC_WEB_CHART_H - FSC_WEB_CHART_T - FSC_WEB_CHART_B)
#define WEB_PI 3.14159265358979323846 /* M_PI is not ISO C */

const char *fsc_web_util_colour(double u, char *buf, size_t size)
{
    /* green (idle) -> amber (half) -> orange (full); red is kept for
     * mismatches and bursts. */
    static const double stop[3][3] = {{46, 158, 79}, {224, 176, 0}, {232, 99, 10}};
    if (u < 0) {
        snprintf(buf, size, "#9aa0a6");
        return buf;
    }
    if (u > 1)
        u = 1;
    int s = u < 0.5 ? 0 : 1;
    double f = (u - 0.5 * s) / 0.5;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)floor(stop[s][i] + (stop[s + 1][i] - stop[s][i]) * f + 0.5);
    snprintf(buf, size, "#%02x%02x%02x", c[0], c[1], c[2]);
    return buf;
}

/* ---- chart -------------------------------------------------------------------------- */

static double chart_x(const struct fsc_web_chart *c, int64_t t)
{
    double span = (double)(c->t_to_ns - c->t_from_ns);
    return FSC_WEB_CHART_L + (double)(t - c->t_from_ns) / span * PW;
}

static double chart_y(double u)
{
    if (u < 0)
        u = 0;
    if (u > 1)
        u = 1;
    return FSC_WEB_CHART_T + (1.0 - u) * PH;
}

/* One polyline: per pixel column the highest point in it. */
static void chart_line(struct fsc_html *h, const struct fsc_web_chart *c, int d)
{
    static const char *const cls[2] = {"rx", "tx"};
    const struct fsc_web_point *p = c->points[d];
    double span = (double)(c->t_to_ns - c->t_from_ns);
    long col = -1;
    double best = 0;

    fsc_html_fmt(h, "<polyline class=\"%s\" points=\"", cls[d]);
    for (size_t i = 0; i <= c->n_points[d]; i++) {
        long k = -2;
        if (i < c->n_points[d]) {
            if (p[i].t_ns < c->t_from_ns || p[i].t_ns > c->t_to_ns)
                continue;
            k = (long)floor((double)(p[i].t_ns - c->t_from_ns) / span * PW);
            if (k >= PW)
                k = PW - 1;
        }
        if (k != col && col >= 0)
            fsc_html_fmt(h, "%.1f,%.1f ", FSC_WEB_CHART_L + col + 0.5, chart_y(best));
        if (k == -2)
            break;
        if (k != col) {
            col = k;
            best = p[i].utilization;
        } else if (p[i].utilization > best) {
            best = p[i].utilization;
        }
    }
    fsc_html_raw(h, "\"/>");
}

void fsc_web_svg_chart(struct fsc_html *h, const struct fsc_web_chart *c)
{
    char t[40], a[32], b[32];

    fsc_html_fmt(h,
                 "<svg id=\"chart-svg\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 0 %d %d\" data-l=\"%d\" data-r=\"%d\" data-t=\"%d\" data-b=\"%d\" "
                 "role=\"img\" aria-label=\"fine utilization chart\">",
                 FSC_WEB_CHART_W, FSC_WEB_CHART_H, FSC_WEB_CHART_L, FSC_WEB_CHART_R,
                 FSC_WEB_CHART_T, FSC_WEB_CHART_B);
    fsc_html_fmt(h, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
                 FSC_WEB_CHART_L, FSC_WEB_CHART_T, PW, PH);
    for (int i = 0; i <= 4; i++) {
        double y = chart_y(i / 4.0);
        fsc_html_fmt(h,
                     "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                     "<text class=\"ylab\" x=\"%d\" y=\"%.1f\">%d %%</text>",
                     FSC_WEB_CHART_L, y, FSC_WEB_CHART_L + PW, y, FSC_WEB_CHART_L - 4, y + 4,
                     i * 25);
    }
    if (!c || c->t_to_ns <= c->t_from_ns) {
        fsc_html_raw(h, "</svg>\n");
        return;
    }
    for (int i = 0; i <= 4; i++) {
        int64_t tt = c->t_from_ns + (c->t_to_ns - c->t_from_ns) / 4 * i;
        /* The first label has the date and the zone, the others the time
         * of day; the end labels stay inside the plot's width. */
        if (i == 0)
            fsc_web_fmt_when(tt, 0, t, sizeof(t));
        else
            fsc_web_fmt_time(tt, t, sizeof(t));
        fsc_html_fmt(h, "<text class=\"xlab\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.*s</text>",
                     chart_x(c, tt), FSC_WEB_CHART_H - 8,
                     i == 0   ? "start"
                     : i == 4 ? "end"
                              : "middle",
                     i == 0 ? 64 : 8, i == 0 ? t : t + 11);
    }
    double yr = chart_y(c->rise);
    fsc_html_fmt(h, "<line class=\"rise\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                 FSC_WEB_CHART_L, yr, FSC_WEB_CHART_L + PW, yr);
    for (size_t i = 0; i < c->n_markers; i++) {
        const struct fsc_web_marker *m = &c->markers[i];
        int64_t end = m->t_end_ns                    ? m->t_end_ns
                      : m->kind == FSC_EV_MICROBURST ? m->t_start_ns
                                                     : c->t_to_ns;
        if (end < c->t_from_ns || m->t_start_ns > c->t_to_ns)
            continue;
        double x1 = chart_x(c, m->t_start_ns < c->t_from_ns ? c->t_from_ns : m->t_start_ns);
        double x2 = chart_x(c, end > c->t_to_ns ? c->t_to_ns : end);
        double w = x2 - x1 < 2 ? 2 : x2 - x1;
        fsc_html_fmt(h,
                     "<rect class=\"burst\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
                     "<title>%s %s %s, peak %s</title></rect>",
                     x1, FSC_WEB_CHART_T, w, PH, fsc_event_kind_name((enum fsc_event_kind)m->kind),
                     m->direction == FSC_DIR_RX ? "rx" : "tx",
                     m->t_end_ns ? fsc_web_fmt_secs((double)(m->t_end_ns - m->t_start_ns) / 1e9, a,
                                                    sizeof(a))
                     : m->kind == FSC_EV_MICROBURST ? "(end pending)"
                                                    : "ongoing",
                     fsc_web_fmt_pct(m->peak, b, sizeof(b)));
    }
    chart_line(h, c, 0);
    chart_line(h, c, 1);
    fsc_html_raw(h, "</svg>\n");
}

/* ---- mesh ----------------------------------------------------------------------------- */

static void node_xy(size_t i, size_t n, double *x, double *y)
{
    double c = FSC_WEB_MESH_SIZE / 2.0;
    double a = -WEB_PI / 2 + 2 * WEB_PI * (double)i / (double)(n ? n : 1);
    *x = n > 1 ? c + FSC_WEB_MESH_RING * cos(a) : c;
    *y = n > 1 ? c + FSC_WEB_MESH_RING * sin(a) : c;
}

static size_t node_index(const struct fsc_web_mesh *m, uint32_t node)
{
    for (size_t i = 0; i < m->n_nodes; i++)
        if (m->nodes[i].node == node)
            return i;
    return 0;
}

static void mesh_link(struct fsc_html *h, const struct fsc_web_mesh *m, size_t li)
{
    const struct fsc_web_mesh_link *l = &m->links[li];
    size_t ia = node_index(m, l->a.node), ib = node_index(m, l->b.node);
    size_t k = 0, cnt = 0;
    double xa, ya, xb, yb;
    char col[8], u[32];

    /* Parallel links of one node pair side by side, in list order. */
    for (size_t j = 0; j < m->n_links; j++) {
        if (m->links[j].a.node != l->a.node || m->links[j].b.node != l->b.node)
            continue;
        if (j < li)
            k++;
        cnt++;
    }
    node_xy(ia, m->n_nodes, &xa, &ya);
    node_xy(ib, m->n_nodes, &xb, &yb);
    double dx = xb - xa, dy = yb - ya, len = sqrt(dx * dx + dy * dy);
    double off = ((double)k - (double)(cnt - 1) / 2.0) * FSC_WEB_MESH_GAP;
    double ox = len > 0 ? -dy / len * off : 0, oy = len > 0 ? dx / len * off : 0;
    int mm = (l->a.mismatch | l->b.mismatch) != 0;

    fsc_html_fmt(h,
                 "<line class=\"link%s\" data-key=\"%u-%u-%u\" x1=\"%.1f\" y1=\"%.1f\" "
                 "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"><title>%u:",
                 mm ? " mismatch" : "", (unsigned)l->a.node, (unsigned)l->b.node, (unsigned)l->link,
                 xa + ox, ya + oy, xb + ox, yb + oy,
                 mm ? "#d00000" : fsc_web_util_colour(l->utilization, col, sizeof(col)),
                 (unsigned)l->a.node);
    fsc_html_text(h, l->a.port);
    fsc_html_fmt(h, " - %u:", (unsigned)l->b.node);
    fsc_html_text(h, l->b.port);
    fsc_html_fmt(h, " link %u, %s%s</title></line>", (unsigned)l->link,
                 l->utilization >= 0 ? fsc_web_fmt_pct(l->utilization, u, sizeof(u)) : "no data",
                 mm ? ", MISMATCH" : "");
}

void fsc_web_svg_mesh(struct fsc_html *h, const struct fsc_web_mesh *m)
{
    fsc_html_fmt(h,
                 "<svg id=\"mesh-svg\" class=\"meshview\" xmlns=\"http://www.w3.org/2000/svg\" "
                 "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"B300 mesh\">",
                 FSC_WEB_MESH_SIZE, FSC_WEB_MESH_SIZE);
    for (size_t i = 0; i < m->n_links; i++)
        mesh_link(h, m, i);
    for (size_t i = 0; i < m->n_nodes; i++) {
        const struct fsc_web_mesh_node *n = &m->nodes[i];
        double x, y;
        node_xy(i, m->n_nodes, &x, &y);
        /* The name sits outside the ring, away from the links. */
        double c = FSC_WEB_MESH_SIZE / 2.0, ty = y + (y >= c ? 40 : -32);
        fsc_html_fmt(h,
                     "<g class=\"node%s\" data-node=\"%u\"><circle cx=\"%.1f\" cy=\"%.1f\" "
                     "r=\"%d\"/><text class=\"num\" x=\"%.1f\" y=\"%.1f\">%u</text><text "
                     "class=\"name\" x=\"%.1f\" y=\"%.1f\">",
                     n->polled ? " polled" : "", (unsigned)n->node, x, y, FSC_WEB_MESH_NODE, x,
                     y + 5, (unsigned)n->node, x, ty);
        fsc_html_text(h, n->device);
        fsc_html_raw(h, "</text></g>");
    }
    fsc_html_raw(h, "</svg>\n");
}
