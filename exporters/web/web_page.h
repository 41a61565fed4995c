/* Pieces of the status page (internal to exporters/web): the SVG views
 * (web_page_svg.c) and the inline stylesheet and script
 * (web_page.css, web_page.js, embedded by
 * embed.cmake). The script re-renders the same tables and SVG from
 * /api/... with the same geometry, so the constants below are shared by
 * both (the script reads them from data- attributes of the SVG). */
#ifndef FSC_WEB_PAGE_H
#define FSC_WEB_PAGE_H

#include "web/web_html.h"
#include "web/web_model.h"

/* Rows of a collector table (sources, a plugin's table) the page shows;
 * a last row counts the rest. The script reads it from data-rows. */
#define FSC_WEB_PAGE_ROWS 20
/* Active and recent conditions the page lists; the rest are counted
 * (data-limit of the lists, for the script). */
#define FSC_WEB_PAGE_HEALTH 20
#define FSC_WEB_PAGE_RECENT 8

/* Chart geometry (SVG user units). */
#define FSC_WEB_CHART_W 900
#define FSC_WEB_CHART_H 240
#define FSC_WEB_CHART_L 48 /* left margin: the y labels */
#define FSC_WEB_CHART_R 10
#define FSC_WEB_CHART_T 10
#define FSC_WEB_CHART_B 26 /* bottom margin: the time labels */
/* Mesh geometry. */
#define FSC_WEB_MESH_SIZE 440
#define FSC_WEB_MESH_RING 160 /* radius of the circle of nodes */
#define FSC_WEB_MESH_NODE 24  /* radius of a node */
#define FSC_WEB_MESH_GAP  6   /* distance between parallel links of a node pair */

/* <svg id="chart-svg">: utilization of rx and tx over time (each pixel
 * column shows the highest point in it, so a burst is never averaged
 * away), the microburst threshold, and burst markers. c may be NULL (an
 * empty chart). */
void fsc_web_svg_chart(struct fsc_html *h, const struct fsc_web_chart *c);

/* <svg id="mesh-svg">: nodes on a circle, one line per link coloured by
 * utilization, mismatched links red and dashed. */
void fsc_web_svg_mesh(struct fsc_html *h, const struct fsc_web_mesh *m);

/* The fabric health section: a summary line, the active conditions
 * (<ul id="conditions">) and the recent ones (<ul id="recent">), each a
 * <li class="cond"> with its sentence's parts. hm may be NULL. */
void fsc_web_html_health(struct fsc_html *h, const struct fsc_web_health *hm);

/* The colour of a utilization (< 0: unknown), as "#rrggbb"; buf >= 8. */
const char *fsc_web_util_colour(double u, char *buf, size_t size);

extern const char fsc_web_css[];
extern const char fsc_web_js[];

#endif
