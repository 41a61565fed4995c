/* The report's tables (report_tables.h): columns and rows, once. */
#include "commands/report_tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/timefmt.h"

/* ---- shared formatting -------------------------------------------------------- */

const char *fsc_report_num(double v, char *buf, size_t size)
{
    if (!isfinite(v))
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%.6g", v);
    return buf;
}

const char *fsc_report_speed(double bps, char *buf, size_t size)
{
    static const struct {
        double unit;
        const char *suffix;
    } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
    if (!isfinite(bps) || !(bps > 0)) {
        snprintf(buf, size, "%s", "");
        return buf;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (bps >= units[i].unit) {
            snprintf(buf, size, "%.4g%s", bps / units[i].unit, units[i].suffix);
            return buf;
        }
    snprintf(buf, size, "%.0f", bps);
    return buf;
}

const char *fsc_report_duration(double s, char *buf, size_t size)
{
    if (!isfinite(s) || s < 0) {
        snprintf(buf, size, "%s", "?");
        return buf;
    }
    long long t = (long long)(s + 0.5);
    long long d = t / 86400, h = t / 3600 % 24, m = t / 60 % 60, sec = t % 60;
    /* the two largest units: "1d2h", "2m30s"; a fraction of a second is
     * kept below a minute (a partial minute's 12.3 s) */
    if (d)
        snprintf(buf, size, h ? "%lldd%lldh" : "%lldd", d, h);
    else if (h)
        snprintf(buf, size, m ? "%lldh%lldm" : "%lldh", h, m);
    else if (m)
        snprintf(buf, size, sec ? "%lldm%llds" : "%lldm", m, sec);
    else
        snprintf(buf, size, "%.3gs", s);
    return buf;
}

const char *fsc_report_time(int64_t t_s, char *buf, size_t size)
{
    return fsc_time_rfc3339(t_s, 0, 0, buf, size);
}

const char *fsc_report_dir_name(unsigned dir)
{
    return dir == FSC_RPT_TX ? "tx" : "rx";
}

const char *fsc_rpt_cell_text(const struct fsc_rpt_cell *c, char *buf, size_t size)
{
    switch (c->kind) {
    case FSC_RPT_STR:
        snprintf(buf, size, "%s", c->s ? c->s : "");
        break;
    case FSC_RPT_NUM:
        fsc_report_num(c->v, buf, size);
        break;
    case FSC_RPT_INT:
    case FSC_RPT_BPS:
        if (isfinite(c->v))
            snprintf(buf, size, "%.0f", c->v);
        else
            snprintf(buf, size, "%s", "");
        break;
    case FSC_RPT_TIME:
        if (isfinite(c->v) && c->v != 0)
            fsc_report_time((int64_t)c->v, buf, size);
        else
            snprintf(buf, size, "%s", "");
        break;
    }
    return buf;
}

static struct fsc_rpt_cell S(const char *s) {
    return (struct fsc_rpt_cell){.kind = FSC_RPT_STR, .s = s};
}

static struct fsc_rpt_cell
N(double v) {
    return (struct fsc_rpt_cell){.kind = FSC_RPT_NUM, .v = v};
}

static struct fsc_rpt_cell
I(double v) {
    return (struct fsc_rpt_cell){.kind = FSC_RPT_INT, .v = v};
}

static struct fsc_rpt_cell
T(double v) {
    return (struct fsc_rpt_cell){.kind = FSC_RPT_TIME, .v = v};
}

static struct fsc_rpt_cell
B(double v) {
    return (struct fsc_rpt_cell){.kind = FSC_RPT_BPS, .v = v};
}

static const char *
role_name(uint8_t role)
{
    switch (role) {
    case FSC_PORT_UPLINK:
        return "uplink";
    case FSC_PORT_DOWNLINK:
        return "downlink";
    case FSC_PORT_NIC:
        return "nic";
    default:
        return "";
    }
}

static const struct fsc_rpt_link *dir_row(const struct fsc_report *rep, size_t i, unsigned *d)
{
    uint32_t r = rep->dir_rows[i];
    *d = r % FSC_RPT_DIRS;
    return &rep->links[r / FSC_RPT_DIRS];
}

static size_t dir_rows(const struct fsc_report *rep)
{
    return rep->n_dir_rows;
}

/* ---- links -------------------------------------------------------------------------- */

static const char *const links_cols[] = {
    "device", "port",     "direction",  "role",       "rail", "speed_bps", "intervals", "p50",
    "p99",    "max_fine", "max_1s_avg", "max_5m_avg", "mean", "bytes",     "covered_s",
};

static void links_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    unsigned d;
    const struct fsc_rpt_link *l = dir_row(rep, i, &d);
    const struct fsc_rpt_dir *x = &l->dir[d];
    c[0] = S(l->device);
    c[1] = S(l->port);
    c[2] = S(fsc_report_dir_name(d));
    c[3] = S(role_name(l->role));
    c[4] = I(l->rail >= 0 ? l->rail : NAN);
    c[5] = B(l->speed_bps ? (double)l->speed_bps : NAN);
    c[6] = I(x->count);
    c[7] = N(x->p50);
    c[8] = N(x->p99);
    c[9] = N(x->max_fine);
    c[10] = N(x->max_1s);
    c[11] = N(x->max_5m);
    c[12] = N(x->mean);
    c[13] = I(x->bytes);
    c[14] = N(x->covered_s);
}

/* ---- bursts ------------------------------------------------------------------------- */

static const char *const bursts_cols[] = {
    "device",   "port",     "direction", "microbursts", "long_bursts", "per_hour",
    "mean_ms",  "le_1ms",   "le_5ms",    "le_10ms",     "le_25ms",     "le_50ms",
    "le_100ms", "le_250ms", "le_500ms",  "le_1s",       "gt_1s",       "covered_s",
};

static void bursts_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    unsigned d;
    const struct fsc_rpt_link *l = dir_row(rep, i, &d);
    const struct fsc_rpt_dir *x = &l->dir[d];
    double hours = x->covered_s / 3600.0; /* this direction's time with data */
    c[0] = S(l->device);
    c[1] = S(l->port);
    c[2] = S(fsc_report_dir_name(d));
    c[3] = I(x->bursts);
    c[4] = I(x->long_bursts);
    c[5] = N(hours > 0 ? x->bursts / hours : NAN);
    c[6] = N(x->bursts > 0 ? x->dur_sum / x->bursts * 1e3 : NAN);
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        c[7 + b] = I(x->dur[b]);
    c[8 + FSC_DURATION_BUCKETS] = N(x->covered_s);
}

/* ---- congestion ---------------------------------------------------------------------- */

static const char *const congestion_cols[] = {
    "device",
    "port",
    "rx_bytes",
    "cnp",
    "cnp_per_tb",
    "pfc_paused_s",
    "pfc_paused_fraction",
    "rx_bytes_from",
    "covered_s",
};

static const struct fsc_rpt_link *nth_link(const struct fsc_report *rep, size_t i,
                                           bool (*want)(const struct fsc_rpt_link *))
{
    for (size_t k = 0; k < rep->n_links; k++)
        if (want(&rep->links[k]) && i-- == 0)
            return &rep->links[k];
    return NULL;
}

static bool congested(const struct fsc_rpt_link *l)
{
    return l->has_cnp || l->has_pfc;
}

static size_t congestion_rows(const struct fsc_report *rep)
{
    size_t n = 0;
    for (size_t k = 0; k < rep->n_links; k++)
        n += congested(&rep->links[k]);
    return n;
}

static void congestion_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    const struct fsc_rpt_link *l = nth_link(rep, i, congested);
    double rx_bytes = fsc_report_cnp_rx_bytes(l);
    c[0] = S(l->device);
    c[1] = S(l->port);
    c[2] = I(rx_bytes);
    c[3] = I(l->has_cnp ? l->cnp : NAN);
    c[4] = N(l->has_cnp && rx_bytes > 0 ? l->cnp / (rx_bytes / 1e12) : NAN);
    c[5] = N(l->has_pfc ? l->pfc_s : NAN);
    c[6] = N(l->has_pfc && l->covered_s > 0 ? l->pfc_s / l->covered_s : NAN);
    c[7] = S(l->dir[FSC_RPT_RX].present ? "port" : l->has_ib_rx ? "ib" : "");
    c[8] = N(l->covered_s);
}

/* ---- leaves ----------------------------------------------------------------------------- */

static size_t leaf_rows(const struct fsc_report *rep)
{
    return rep->n_leaves;
}

static const char *const imbalance_cols[] = {
    "leaf", "uplinks", "uplink_tx_bytes", "imbalance", "uplink_mean_util", "uplink_covered_s",
};

static void imbalance_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    const struct fsc_rpt_leaf *lf = &rep->leaves[i];
    c[0] = S(lf->device);
    c[1] = I(lf->uplinks);
    c[2] = I(lf->up_tx_bytes);
    c[3] = N(lf->imbalance);
    c[4] = N(lf->up_mean_util);
    c[5] = N(lf->up_covered_s);
}

static const char *const oversub_cols[] = {
    "leaf",    "downlinks",           "downlink_capacity_bps",
    "uplinks", "uplink_capacity_bps", "oversubscription",
};

static void oversub_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    const struct fsc_rpt_leaf *lf = &rep->leaves[i];
    c[0] = S(lf->device);
    c[1] = I(lf->downlinks);
    c[2] = B(lf->down_capacity_bps);
    c[3] = I(lf->uplinks);
    c[4] = B(lf->up_capacity_bps);
    c[5] = N(lf->oversubscription);
}

static const char *const spine_cols[] = {
    "leaf",
    "downlink_rx_bytes",
    "uplink_tx_bytes",
    "spine_share",
};

static size_t spine_rows(const struct fsc_report *rep)
{
    return rep->n_leaves ? rep->n_leaves + 1 : 0; /* + the fabric's total */
}

static void spine_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    if (i == rep->n_leaves) {
        double up = 0, down = 0;
        for (size_t k = 0; k < rep->n_leaves; k++) {
            up += rep->leaves[k].up_tx_bytes;
            down += rep->leaves[k].down_rx_bytes;
        }
        c[0] = S("(fabric)");
        c[1] = I(down);
        c[2] = I(up);
        c[3] = N(rep->spine_share);
        return;
    }
    const struct fsc_rpt_leaf *lf = &rep->leaves[i];
    c[0] = S(lf->device);
    c[1] = I(lf->down_rx_bytes);
    c[2] = I(lf->up_tx_bytes);
    c[3] = N(lf->spine_share);
}

/* ---- groups (the engine's imbalance detector) ------------------------------------- */

static const char *const groups_cols[] = {"group", "mean_ratio", "max_ratio", "events"};

static size_t groups_rows(const struct fsc_report *rep)
{
    return rep->n_groups;
}

static void groups_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    const struct fsc_rpt_group *g = &rep->groups[i];
    c[0] = S(g->name);
    c[1] = N(g->polls > 0 ? g->ratio_sum / g->polls : NAN);
    c[2] = N(g->ratio_max);
    c[3] = I(g->events);
}

/* ---- B300 nodes ---------------------------------------------------------------------- */

static const char *const nodes_cols[] = {
    "device", "node", "direction", "mean_bps", "max_bps", "capacity_bps", "mean_share", "max_share",
};

static size_t nodes_rows(const struct fsc_report *rep)
{
    return rep->n_nodes * FSC_RPT_DIRS;
}

static void nodes_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    const struct fsc_rpt_node *n = &rep->nodes[i / FSC_RPT_DIRS];
    unsigned d = (unsigned)(i % FSC_RPT_DIRS);
    double mean = n->polls[d] > 0 ? n->bps_sum[d] / n->polls[d] : NAN;
    c[0] = S(n->device);
    c[1] = S(n->node);
    c[2] = S(fsc_report_dir_name(d));
    c[3] = I(mean);
    c[4] = I(n->bps_max[d]);
    c[5] = B(n->capacity_bps);
    c[6] = N(mean / n->capacity_bps);
    c[7] = N(n->bps_max[d] / n->capacity_bps);
}

/* ---- saturation ------------------------------------------------------------------------ */

static const char *const saturation_cols[] = {
    "device", "port", "direction", "p99", "max_1s_avg", "slope_per_day", "trend", "saturation",
};

static size_t saturation_rows(const struct fsc_report *rep)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n_dir_rows; i++) {
        unsigned d;
        n += dir_row(rep, i, &d)->dir[d].crossed;
    }
    return n;
}

static const char *trend_name(enum fsc_rpt_trend t)
{
    switch (t) {
    case FSC_RPT_TREND_FLAT:
        return "flat";
    case FSC_RPT_TREND_RISING:
        return "rising";
    case FSC_RPT_TREND_SATURATED:
        return "saturated";
    default:
        return "too_few_points";
    }
}

static void saturation_row(const struct fsc_report *rep, size_t i, struct fsc_rpt_cell *c)
{
    unsigned d = 0;
    const struct fsc_rpt_link *l = NULL;
    for (size_t k = 0; k < rep->n_dir_rows; k++) {
        l = dir_row(rep, k, &d);
        if (l->dir[d].crossed && i-- == 0)
            break;
    }
    const struct fsc_rpt_dir *x = &l->dir[d];
    c[0] = S(l->device);
    c[1] = S(l->port);
    c[2] = S(fsc_report_dir_name(d));
    c[3] = N(x->p99);
    c[4] = N(x->max_1s);
    c[5] = N(x->slope_per_day);
    c[6] = S(trend_name(x->trend));
    c[7] = T(x->trend == FSC_RPT_TREND_RISING || x->trend == FSC_RPT_TREND_SATURATED
                 ? (double)x->saturation_s
                 : NAN);
}

#define COLS(a) a, sizeof(a) / sizeof(a[0])

const struct fsc_rpt_table fsc_rpt_tables[] = {
    {"links", "Utilization per link",
     "Fine-interval utilization (p50, p99, max) next to the largest 1 s and 5 min averages and "
     "the mean over the time the direction has data (covered_s, seconds): the gap is what "
     "coarse monitoring hides.",
     COLS(links_cols), dir_rows, links_row},
    {"bursts", "Microbursts",
     "Bursts shorter than micro_max per link and direction, their rate and their durations "
     "(counts per duration bucket); per_hour is over the direction's covered_s; long_bursts "
     "lasted micro_max or longer.",
     COLS(bursts_cols), dir_rows, bursts_row},
    {"congestion", "CNP and PFC",
     "CNPs sent per TB received (the figure to compare configurations by; rx_bytes_from says "
     "whether the port's or the NIC's IB counters) and the time the port was paused by PFC, "
     "as a fraction of the port's covered_s.",
     COLS(congestion_cols), congestion_rows, congestion_row},
    {"imbalance", "Uplink imbalance per leaf",
     "Busiest uplink's transmitted bytes over the uplinks' mean: 1.0 is a perfect spread; the "
     "mean utilization is over the uplinks' covered time (uplink_covered_s, weighted by "
     "speed).",
     COLS(imbalance_cols), leaf_rows, imbalance_row},
    {"oversubscription", "Oversubscription per leaf",
     "Downlink capacity over uplink capacity, from the topology.", COLS(oversub_cols), leaf_rows,
     oversub_row},
    {"spine_share", "Spine traffic share",
     "Share of the bytes entering a leaf on its downlinks that left on its uplinks: near zero "
     "with rail-local rings; more means traffic crossing rails (mis-cabling, NCCL settings).",
     COLS(spine_cols), spine_rows, spine_row},
    {"groups", "Port groups (imbalance detector)",
     "The engine's max/mean utilization ratio per port group, averaged and at its worst, and "
     "the imbalance events.",
     COLS(groups_cols), groups_rows, groups_row},
    {"b300_nodes", "B300 node throughput",
     "RDMA throughput per node and direction against the node's line rate (16 x 400G = 6.4 "
     "Tb/s).",
     COLS(nodes_cols), nodes_rows, nodes_row},
    {"saturation", "Links near saturation",
     "Links whose p99 fine utilization or a 1 s average reached the threshold, with the linear "
     "trend of their p99 over the range and the date that trend reaches 100 %.",
     COLS(saturation_cols), saturation_rows, saturation_row},
};

const size_t fsc_rpt_n_tables = sizeof(fsc_rpt_tables) / sizeof(fsc_rpt_tables[0]);

/* Contract in report_tables.h. */
void fsc_rpt_html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}
