/* The report's computations (contract in report.h): linear trends of the
 * p99 and their saturation dates, per-leaf capacity figures, fabric totals
 * and the plain-language summary. Pure arithmetic over the loaded
 * aggregates. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report.h"

#define DAY_S 86400.0

/* Least squares over the bins with data: p99 = a + b x (days from `from`). */
static void trend(const struct fsc_report *rep, struct fsc_rpt_dir *d)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (unsigned i = 0; i < rep->n_bins; i++) {
        double y = d->bin_p99[i];
        if (isnan(y))
            continue;
        double x = ((double)i + 0.5) * (double)rep->bin_s / DAY_S;
        n++;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    d->trend = FSC_RPT_TREND_NONE;
    d->saturation_s = 0;
    double den = n * sxx - sx * sx;
    if (n < 3 || !(den > 0))
        return;
    d->slope_per_day = (n * sxy - sx * sy) / den;
    d->intercept = (sy - d->slope_per_day * sx) / n;
    /* a constant series fits a slope of +-1e-17 by rounding: that is flat */
    if (!(d->slope_per_day > 1e-9)) {
        if (fabs(d->slope_per_day) <= 1e-9)
            d->slope_per_day = 0;
        d->trend = FSC_RPT_TREND_FLAT;
        return;
    }
    double x_sat = (1.0 - d->intercept) / d->slope_per_day;
    double t_sat = (double)rep->from_s + x_sat * DAY_S;
    if (t_sat <= (double)rep->to_s) {
        d->trend = FSC_RPT_TREND_SATURATED;
        d->saturation_s = t_sat > (double)rep->from_s ? (int64_t)t_sat : rep->from_s;
        return;
    }
    d->trend = FSC_RPT_TREND_RISING;
    d->saturation_s = t_sat < 4.0e11 ? (int64_t)t_sat : (int64_t)4.0e11; /* ~year 14000 */
}

static void compute_dir(struct fsc_report *rep, struct fsc_rpt_dir *d)
{
    d->count = 0;
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        d->count += d->hist[b];
    d->p50 = fsc_report_quantile(0.5, d->hist, FSC_UTIL_BUCKETS, fsc_util_bucket_le);
    d->p99 = fsc_report_quantile(0.99, d->hist, FSC_UTIL_BUCKETS, fsc_util_bucket_le);
    /* Interpolating inside a bucket can land above the largest value seen
     * (all of (0.2, 0.3] really at 0.24): a quantile never exceeds the max. */
    if (!isnan(d->max_fine) && d->max_fine > 0) {
        d->p50 = fmin(d->p50, d->max_fine);
        d->p99 = fmin(d->p99, d->max_fine);
    }
    d->crossed = (!isnan(d->p99) && d->p99 >= rep->threshold) ||
                 (!isnan(d->max_1s) && d->max_1s >= rep->threshold);
    trend(rep, d);
}

/* Role and speed of port (device, port): the topology first, the data's
 * labels after. */
static void port_facts(const struct fsc_report *rep, const struct fsc_topo_port *tp,
                       const struct fsc_rpt_link *l, int *role, double *speed)
{
    *role = tp ? (int)tp->role : FSC_PORT_ROLE_NONE;
    *speed = tp ? (double)tp->speed_bps : 0;
    if (l && *role == FSC_PORT_ROLE_NONE)
        *role = l->role;
    if (l && *speed == 0)
        *speed = (double)l->speed_bps;
    (void)rep;
}

static void leaf_add_port(const struct fsc_report *rep, struct fsc_rpt_leaf *lf,
                          const struct fsc_topo_port *tp, const struct fsc_rpt_link *l,
                          double *up_bytes, size_t *n_up, size_t max_up, double *up_speed_seen)
{
    int role;
    double speed;
    port_facts(rep, tp, l, &role, &speed);
    if (role == FSC_PORT_UPLINK) {
        bool has = l && l->dir[FSC_RPT_TX].present;
        double tx = has ? l->dir[FSC_RPT_TX].bytes : 0;
        lf->uplinks++;
        lf->up_capacity_bps += speed;
        lf->up_tx_bytes += tx;
        /* the mean is over what each uplink could have carried while it was
         * measured: an uplink without data adds neither bytes nor time */
        if (has && l->dir[FSC_RPT_TX].covered_s > 0) {
            lf->up_capacity_s += speed * l->dir[FSC_RPT_TX].covered_s;
            *up_speed_seen += speed;
        }
        if (*n_up < max_up)
            up_bytes[(*n_up)++] = tx;
    } else if (role == FSC_PORT_DOWNLINK) {
        lf->downlinks++;
        lf->down_capacity_bps += speed;
        lf->down_rx_bytes += l && l->dir[FSC_RPT_RX].present ? l->dir[FSC_RPT_RX].bytes : 0;
    }
}

static bool leaf_known(const struct fsc_report *rep, size_t n, const char *device)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rep->leaves[i].device, device) == 0)
            return true;
    return false;
}

#define MAX_UPLINKS 1024

static void leaf_finish(struct fsc_rpt_leaf *lf, const double *up_bytes, size_t n_up,
                        double up_speed_seen)
{
    lf->oversubscription =
        lf->up_capacity_bps > 0 ? lf->down_capacity_bps / lf->up_capacity_bps : NAN;
    lf->up_mean_util = lf->up_capacity_s > 0 ? lf->up_tx_bytes * 8.0 / lf->up_capacity_s : NAN;
    lf->up_covered_s = up_speed_seen > 0 ? lf->up_capacity_s / up_speed_seen : NAN;
    lf->spine_share = lf->down_rx_bytes > 0 ? lf->up_tx_bytes / lf->down_rx_bytes : NAN;
    lf->imbalance = NAN;
    if (n_up >= 2) {
        double max = 0, sum = 0;
        for (size_t i = 0; i < n_up; i++) {
            sum += up_bytes[i];
            max = up_bytes[i] > max ? up_bytes[i] : max;
        }
        if (sum > 0)
            lf->imbalance = max / (sum / (double)n_up);
    }
}

/* Leaves: the topology's leaf devices; without a topology, every device
 * whose data names an uplink or downlink port. */
static int compute_leaves(struct fsc_report *rep)
{
    size_t cap = rep->topo ? rep->topo->n_devices : 0;
    if (!rep->topo)
        cap = rep->n_links;
    rep->leaves = calloc(cap ? cap : 1, sizeof(*rep->leaves));
    if (!rep->leaves)
        return -ENOMEM;
    double up_bytes[MAX_UPLINKS];
    size_t n = 0;
    if (rep->topo) {
        for (size_t i = 0; i < rep->topo->n_devices; i++) {
            const struct fsc_topo_device *dev = &rep->topo->devices[i];
            if (dev->role != FSC_DEVICE_LEAF)
                continue;
            struct fsc_rpt_leaf *lf = &rep->leaves[n++];
            size_t n_up = 0;
            double seen = 0;
            snprintf(lf->device, sizeof(lf->device), "%s", dev->name);
            for (size_t p = 0; p < dev->n_ports; p++)
                leaf_add_port(rep, lf, &dev->ports[p],
                              fsc_report_find_link(rep, dev->name, dev->ports[p].name), up_bytes,
                              &n_up, MAX_UPLINKS, &seen);
            leaf_finish(lf, up_bytes, n_up, seen);
        }
    } else {
        for (size_t i = 0; i < rep->n_links; i++) {
            const struct fsc_rpt_link *l = &rep->links[i];
            if ((l->role != FSC_PORT_UPLINK && l->role != FSC_PORT_DOWNLINK) ||
                leaf_known(rep, n, l->device))
                continue;
            struct fsc_rpt_leaf *lf = &rep->leaves[n++];
            size_t n_up = 0;
            double seen = 0;
            snprintf(lf->device, sizeof(lf->device), "%s", l->device);
            for (size_t k = i; k < rep->n_links; k++)
                if (strcmp(rep->links[k].device, l->device) == 0)
                    leaf_add_port(rep, lf, NULL, &rep->links[k], up_bytes, &n_up, MAX_UPLINKS,
                                  &seen);
            leaf_finish(lf, up_bytes, n_up, seen);
        }
    }
    rep->n_leaves = n;
    return 0;
}

static void compute_nodes(struct fsc_report *rep)
{
    for (size_t i = 0; i < rep->n_nodes; i++) {
        struct fsc_rpt_node *nd = &rep->nodes[i];
        double cap = NAN;
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
            if (nd->polls[d] > 0 && nd->eff_polls[d] > 0 && nd->eff_sum[d] > 0)
                cap = (nd->bps_sum[d] / nd->polls[d]) / (nd->eff_sum[d] / nd->eff_polls[d]);
        }
        if (isnan(cap) && rep->topo && rep->topo->cable_plan.present)
            cap = 16.0 * (double)rep->topo->cable_plan.speed_bps;
        nd->capacity_bps = isnan(cap) || !(cap > 0) ? FSC_RPT_NODE_CAPACITY_BPS : cap;
    }
}

static const char *link_name(const struct fsc_rpt_link *l, unsigned d, char *buf, size_t size)
{
    snprintf(buf, size, "%s:%s %s", l->device, l->port, fsc_report_dir_name(d));
    return buf;
}

static void say(struct fsc_report *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct fsc_report *rep, const char *fmt, ...)
{
    if (rep->n_summary >= sizeof(rep->summary) / sizeof(rep->summary[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->summary[rep->n_summary++], sizeof(rep->summary[0]), fmt, ap);
    va_end(ap);
}

static void summarize(struct fsc_report *rep, size_t n_dirs)
{
    char name[160], date[32];
    const struct fsc_rpt_link *top = NULL;
    unsigned top_d = 0;
    size_t crossed = 0;
    const struct fsc_rpt_link *soon = NULL;
    unsigned soon_d = 0;
    for (size_t i = 0; i < rep->n_links; i++) {
        const struct fsc_rpt_link *l = &rep->links[i];
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
            const struct fsc_rpt_dir *x = &l->dir[d];
            if (!x->present || isnan(x->p99))
                continue;
            if (!top || x->p99 > top->dir[top_d].p99) {
                top = l;
                top_d = d;
            }
            if (!x->crossed)
                continue;
            crossed++;
            if ((x->trend == FSC_RPT_TREND_RISING || x->trend == FSC_RPT_TREND_SATURATED) &&
                (!soon || x->saturation_s < soon->dir[soon_d].saturation_s)) {
                soon = l;
                soon_d = d;
            }
        }
    }
    char from[32], to[32], cov[32], span[32];
    double range_s = (double)(rep->to_s - rep->from_s);
    say(rep,
        "%zu link directions on %zu ports between %s and %s (source: %s); the data covers %s "
        "of the %s range (%.3g%%), and every rate below is over the time covered.",
        n_dirs, rep->n_links, fsc_report_time(rep->from_s, from, sizeof(from)),
        fsc_report_time(rep->to_s, to, sizeof(to)), rep->source ? rep->source : "?",
        fsc_report_duration(rep->covered_s, cov, sizeof(cov)),
        fsc_report_duration(range_s, span, sizeof(span)), rep->covered_s / range_s * 100);
    if (top) {
        const struct fsc_rpt_dir *x = &top->dir[top_d];
        say(rep,
            "Busiest: %s spent 1%% of its fine intervals at %.0f%% or above (p99) and peaked at "
            "%.0f%%, while its 1 s average never passed %.0f%% and its 5 min average %.0f%%: "
            "that is what coarse averages hide.",
            link_name(top, top_d, name, sizeof(name)), x->p99 * 100, x->max_fine * 100,
            x->max_1s * 100, x->max_5m * 100);
    }
    if (crossed == 0)
        say(rep, "No link reached %.0f%% (p99 of fine utilization or a 1 s average).",
            rep->threshold * 100);
    else if (soon)
        say(rep, "%zu link directions reached %.0f%%; %s trends towards saturation %s %s.", crossed,
            rep->threshold * 100, link_name(soon, soon_d, name, sizeof(name)),
            soon->dir[soon_d].trend == FSC_RPT_TREND_SATURATED ? "and is there since" : "by",
            fsc_report_time(soon->dir[soon_d].saturation_s, date, sizeof(date)));
    else
        say(rep, "%zu link directions reached %.0f%%, none with a rising trend.", crossed,
            rep->threshold * 100);
    double hours = rep->covered_s / 3600.0; /* the fabric's: union of the ports' time */
    say(rep,
        "%.0f microbursts (%.3g per hour); %.0f CNPs sent, %s per TB received; %.3g s of PFC "
        "pause.",
        rep->total_bursts, hours > 0 ? rep->total_bursts / hours : 0.0, rep->total_cnp,
        rep->total_cnp_rx_bytes > 0
            ? fsc_report_num(rep->total_cnp / (rep->total_cnp_rx_bytes / 1e12), name, sizeof(name))
            : "n/a",
        rep->total_pfc_s);
    if (!isnan(rep->spine_share))
        say(rep,
            "Spine traffic share: %.1f%% of the traffic entering the leaves left through their "
            "uplinks (near zero is expected with rail-local rings).",
            rep->spine_share * 100);
    const struct fsc_rpt_leaf *worst = NULL;
    for (size_t i = 0; i < rep->n_leaves; i++)
        if (!isnan(rep->leaves[i].imbalance) &&
            (!worst || rep->leaves[i].imbalance > worst->imbalance))
            worst = &rep->leaves[i];
    if (worst)
        say(rep, "Most uneven uplinks: %s, the busiest uplink carried %.2fx the mean.",
            worst->device, worst->imbalance);
    const struct fsc_rpt_node *big = NULL;
    unsigned big_d = 0;
    for (size_t i = 0; i < rep->n_nodes; i++)
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
            if (!isnan(rep->nodes[i].bps_max[d]) &&
                (!big || rep->nodes[i].bps_max[d] > big->bps_max[big_d])) {
                big = &rep->nodes[i];
                big_d = d;
            }
    if (big)
        say(rep, "B300: %s (node %s) peaked at %.2f Tb/s %s, %.0f%% of its %.1f Tb/s.", big->device,
            big->node, big->bps_max[big_d] / 1e12, fsc_report_dir_name(big_d),
            big->bps_max[big_d] / big->capacity_bps * 100, big->capacity_bps / 1e12);
}

int fsc_report_compute(struct fsc_report *rep)
{
    size_t n_dirs = 0;
    rep->total_bytes = rep->total_cnp = rep->total_cnp_rx_bytes = 0;
    rep->total_pfc_s = rep->total_bursts = 0;
    for (size_t i = 0; i < rep->n_links; i++) {
        struct fsc_rpt_link *l = &rep->links[i];
        const struct fsc_topo_port *tp =
            rep->topo ? fsc_topology_port(rep->topo, l->device, l->port, NULL) : NULL;
        if (tp) {
            /* what the data's labels left out (Prometheus has no link speed) */
            if (l->role == FSC_PORT_ROLE_NONE)
                l->role = (uint8_t)tp->role;
            if (l->speed_bps == 0)
                l->speed_bps = tp->speed_bps;
            if (l->rail < 0 && tp->rail != FSC_RAIL_NONE)
                l->rail = tp->rail;
        }
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
            if (!l->dir[d].present)
                continue;
            n_dirs++;
            compute_dir(rep, &l->dir[d]);
            rep->total_bytes += l->dir[d].bytes;
            rep->total_bursts += l->dir[d].bursts;
        }
        if (l->has_cnp) {
            rep->total_cnp += l->cnp;
            double rx = fsc_report_cnp_rx_bytes(l);
            rep->total_cnp_rx_bytes += isnan(rx) ? 0 : rx;
        }
        if (l->has_pfc)
            rep->total_pfc_s += l->pfc_s;
    }
    if (n_dirs == 0)
        return -ENODATA;
    if (fsc_report_sort(rep) != 0)
        return -ENOMEM;
    free(rep->leaves);
    rep->leaves = NULL;
    if (compute_leaves(rep) != 0)
        return -ENOMEM;
    double up = 0, down = 0;
    for (size_t i = 0; i < rep->n_leaves; i++) {
        up += rep->leaves[i].up_tx_bytes;
        down += rep->leaves[i].down_rx_bytes;
    }
    rep->spine_share = down > 0 ? up / down : NAN;
    compute_nodes(rep);
    if (rep->dropped)
        fsc_report_note(rep, "%llu links, groups or nodes beyond the report's bounds were left out",
                        (unsigned long long)rep->dropped);
    rep->n_summary = 0;
    summarize(rep, n_dirs);
    return 0;
}
