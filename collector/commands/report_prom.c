/* The report from a Prometheus server (contract in report.h): the HTTP API
 * (/api/v1/query at the end of the range, /api/v1/query_range for the trend
 * bins) over libcurl, answers parsed with jansson. Every query
 * aggregates over the whole range with increase() / *_over_time(), so each
 * figure is exactly what the same PromQL typed into Prometheus returns at
 * `to` (docs/REPORT.md lists them). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report.h"
#include "commands/report_prom_api.h"

#define QUERY_MAX 1024

struct pq;
typedef void (*sample_fn)(struct fsc_report *rep, const struct pq *q,
                          const struct fsc_prom_labels *lab, double t, double v);

/* One query: a PromQL template with the range (and, for subqueries, the
 * step) filled in, and what to do with each sample. */
struct pq {
    const char *tmpl;
    sample_fn fn;
    int field; /* what the handler sets */
};

/* What a query's samples go to (fsc_prom_api_query's ctx). */
struct pq_call {
    struct fsc_report *rep;
    const struct pq *q;
};

static void on_sample(void *ctx, const struct fsc_prom_labels *lab, double t, double v)
{
    const struct pq_call *call = ctx;
    call->q->fn(call->rep, call->q, lab, t, v);
}

static int run_query(struct fsc_prom_api *c, struct fsc_report *rep, const struct pq *q,
                     const char *path, const char *promql, const char *extra, char *err,
                     size_t errlen)
{
    struct pq_call call = {rep, q};
    return fsc_prom_api_query(c, path, promql, extra, on_sample, &call, err, errlen);
}

/* ---- handlers ------------------------------------------------------------------------- */

enum {
    F_HIST,
    F_HIST_SUM,
    F_MAX_FINE,
    F_MAX_1S,
    F_MAX_5M,
    F_MEAN,
    F_BYTES_RX,
    F_BYTES_TX,
    F_BURSTS,
    F_LONG,
    F_DUR,
    F_DUR_SUM,
    F_CNP,
    F_IB_RX,
    F_PFC,
    F_G_MAX,
    F_G_AVG,
    F_G_EVENTS,
    F_N_AVG,
    F_N_MAX,
    F_N_EFF,
    F_META
};

static struct fsc_rpt_dir *dir_of(struct fsc_report *rep, const struct fsc_prom_labels *lab)
{
    if (!lab->device[0] || !lab->port[0])
        return NULL;
    struct fsc_rpt_link *l = fsc_report_link(rep, lab->device, lab->port);
    if (!l)
        return NULL;
    return &l->dir[strcmp(lab->direction, "tx") == 0 ? FSC_RPT_TX : FSC_RPT_RX];
}

/* Bucket index of an `le` label over bounds le[0..n) (+Inf is n), or -1. */
static int le_index(const char *s, const double *le, unsigned n)
{
    if (strcmp(s, "+Inf") == 0)
        return (int)n;
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (fabs(v - le[i]) <= 1e-9 * fmax(1.0, le[i]))
            return (int)i;
    return -1;
}

static void on_dir(struct fsc_report *rep, const struct pq *q, const struct fsc_prom_labels *lab,
                   double t, double v)
{
    (void)t;
    struct fsc_rpt_dir *d = dir_of(rep, lab);
    if (!d)
        return;
    int i;
    switch (q->field) {
    case F_HIST: /* cumulative for now: made per-bucket once all are in */
        if ((i = le_index(lab->le, fsc_util_bucket_le, FSC_UTIL_BUCKETS)) >= 0)
            d->hist[i] = v;
        d->present = true;
        break;
    case F_HIST_SUM:
        d->hist_sum = v;
        break;
    case F_MAX_FINE:
        d->max_fine = v;
        break;
    case F_MAX_1S:
        d->max_1s = v;
        break;
    case F_MAX_5M:
        d->max_5m = v;
        break;
    case F_MEAN:
        d->mean = v;
        break;
    case F_BURSTS:
        d->bursts = v;
        break;
    case F_LONG:
        d->long_bursts = v;
        break;
    case F_DUR:
        if ((i = le_index(lab->le, fsc_duration_bucket_le, FSC_DURATION_BUCKETS)) >= 0)
            d->dur[i] = v;
        break;
    case F_DUR_SUM:
        d->dur_sum = v;
        break;
    default:
        break;
    }
}

static void on_port(struct fsc_report *rep, const struct pq *q, const struct fsc_prom_labels *lab,
                    double t, double v)
{
    (void)t;
    if (!lab->device[0] || !lab->port[0])
        return;
    struct fsc_rpt_link *l = fsc_report_link(rep, lab->device, lab->port);
    if (!l)
        return;
    switch (q->field) {
    case F_BYTES_RX:
    case F_BYTES_TX: {
        struct fsc_rpt_dir *d = &l->dir[q->field == F_BYTES_TX ? FSC_RPT_TX : FSC_RPT_RX];
        d->present = true;
        d->bytes = v;
        break;
    }
    case F_CNP:
        l->has_cnp = true;
        l->cnp = v;
        break;
    case F_IB_RX:
        l->has_ib_rx = true;
        l->ib_rx_bytes = v;
        break;
    case F_PFC:
        l->has_pfc = true;
        l->pfc_s = v;
        break;
    case F_META:
        if (lab->role[0])
            l->role = strcmp(lab->role, "uplink") == 0     ? FSC_PORT_UPLINK
                      : strcmp(lab->role, "downlink") == 0 ? FSC_PORT_DOWNLINK
                      : strcmp(lab->role, "nic") == 0      ? FSC_PORT_NIC
                                                           : FSC_PORT_ROLE_NONE;
        if (lab->rail[0])
            l->rail = atoi(lab->rail);
        /* fabric_port_info splits the topology's "device:port" peer. */
        if (lab->peer[0]) {
            int w = snprintf(l->peer, sizeof(l->peer), "%s", lab->peer);
            if (lab->peer_port[0] && w > 0 && (size_t)w + 1 < sizeof(l->peer))
                snprintf(l->peer + w, sizeof(l->peer) - (size_t)w, ":%.*s",
                         (int)(sizeof(l->peer) - (size_t)w - 2), lab->peer_port);
        }
        break;
    default:
        break;
    }
}

static void on_group(struct fsc_report *rep, const struct pq *q, const struct fsc_prom_labels *lab,
                     double t, double v)
{
    (void)t;
    struct fsc_rpt_group *g = lab->group[0] ? fsc_report_group(rep, lab->group) : NULL;
    if (!g)
        return;
    if (q->field == F_G_MAX)
        g->ratio_max = v;
    else if (q->field == F_G_AVG) {
        g->ratio_sum = v;
        g->polls = 1;
    } else
        g->events = v;
}

static void on_node(struct fsc_report *rep, const struct pq *q, const struct fsc_prom_labels *lab,
                    double t, double v)
{
    (void)t;
    struct fsc_rpt_node *n = lab->device[0] ? fsc_report_node(rep, lab->device, lab->node) : NULL;
    if (!n || !isfinite(v))
        return;
    unsigned d = strcmp(lab->direction, "tx") == 0 ? FSC_RPT_TX : FSC_RPT_RX;
    if (q->field == F_N_AVG) {
        n->bps_sum[d] = v;
        n->polls[d] = 1;
    } else if (q->field == F_N_MAX)
        n->bps_max[d] = v;
    else {
        n->eff_sum[d] = v;
        n->eff_polls[d] = 1;
    }
}

/* query_range of the per-bin p99: the sample at from + (k + 1) x bin
 * covers bin k. */
static void on_trend(struct fsc_report *rep, const struct pq *q, const struct fsc_prom_labels *lab,
                     double t, double v)
{
    (void)q;
    struct fsc_rpt_dir *d = dir_of(rep, lab);
    if (!d || !isfinite(v))
        return;
    long k = lround((t - (double)rep->from_s) / (double)rep->bin_s) - 1;
    if (k >= 0 && k < (long)rep->n_bins)
        d->bin_p99[k] = v;
}

#define BY_DIR "sum by (device,port,direction)"
static const struct pq queries[] = {
    {"sum by (device,port,direction,le) "
     "(increase(fabric_port_fine_utilization_ratio_bucket[%1$s]))",
     on_dir, F_HIST},
    {BY_DIR " (increase(fabric_port_fine_utilization_ratio_sum[%1$s]))", on_dir, F_HIST_SUM},
    {"max by (device,port,direction) (max_over_time(fabric_port_utilization_peak_ratio[%1$s]))",
     on_dir, F_MAX_FINE},
    {"max by (device,port,direction) (max_over_time(fabric_port_utilization_ratio[%1$s]))", on_dir,
     F_MAX_1S},
    {"max by (device,port,direction) "
     "(max_over_time(avg_over_time(fabric_port_utilization_ratio[5m])[%1$s:%2$s]))",
     on_dir, F_MAX_5M},
    {"avg by (device,port,direction) (avg_over_time(fabric_port_utilization_ratio[%1$s]))", on_dir,
     F_MEAN},
    {"sum by (device,port) (increase(fabric_port_rx_bytes_total[%1$s]))", on_port, F_BYTES_RX},
    {"sum by (device,port) (increase(fabric_port_tx_bytes_total[%1$s]))", on_port, F_BYTES_TX},
    {BY_DIR " (increase(fabric_microbursts_total[%1$s]))", on_dir, F_BURSTS},
    {BY_DIR " (increase(fabric_bursts_total[%1$s]))", on_dir, F_LONG},
    {"sum by (device,port,direction,le) "
     "(increase(fabric_microburst_duration_seconds_bucket[%1$s]))",
     on_dir, F_DUR},
    {BY_DIR " (increase(fabric_microburst_duration_seconds_sum[%1$s]))", on_dir, F_DUR_SUM},
    {"sum by (device,port) (increase(fabric_nic_cnp_sent_total[%1$s]))", on_port, F_CNP},
    /* CNP per TB's denominator on NIC ports without fabric_port_rx_bytes_total */
    {"sum by (device,port) (increase(fabric_nic_ib_port_rx_bytes_total[%1$s]))", on_port, F_IB_RX},
    {"sum by (device,port) (increase({__name__=~\"fabric_port_pfc_rx_pause_seconds_total|"
     "fabric_port_rx_pause_seconds_total\"}[%1$s]))",
     on_port, F_PFC},
    /* Where each port sits: the topology is in fabric_port_info
     * (docs/METRICS.md, "Topology: the info families"). */
    {"group by (device,port,role,rail,peer,peer_port) (max_over_time(fabric_port_info[%1$s]))",
     on_port, F_META},
    {"max by (group) (max_over_time(fabric_uplink_imbalance_ratio[%1$s]))", on_group, F_G_MAX},
    {"avg by (group) (avg_over_time(fabric_uplink_imbalance_ratio[%1$s]))", on_group, F_G_AVG},
    {"sum by (group) (increase(fabric_uplink_imbalance_events_total[%1$s]))", on_group, F_G_EVENTS},
    /* Node RDMA in bits/s for the report: the exposed bytes/s x 8, the node
     * number joined from fabric_node_info. */
    {"avg by (device,node,direction) (8 * avg_over_time(fabric_node_rdma_bytes_per_second[%1$s]) "
     "* on (device) group_left (node) max by (device,node) "
     "(max_over_time(fabric_node_info[%1$s])))",
     on_node, F_N_AVG},
    {"max by (device,node,direction) (8 * max_over_time(fabric_node_rdma_bytes_per_second[%1$s]) "
     "* on (device) group_left (node) max by (device,node) "
     "(max_over_time(fabric_node_info[%1$s])))",
     on_node, F_N_MAX},
    {"avg by (device,node,direction) (avg_over_time(fabric_node_rdma_efficiency_ratio[%1$s]) "
     "* on (device) group_left (node) max by (device,node) "
     "(max_over_time(fabric_node_info[%1$s])))",
     on_node, F_N_EFF},
};

static const struct pq trend_query = {
    "histogram_quantile(0.99, sum by (device,port,direction,le) "
    "(increase(fabric_port_fine_utilization_ratio_bucket[%1$s])))",
    on_trend, 0};

/* ---- the answer --------------------------------------------------------------------- */

/* Turns the cumulative `le` counts of the histogram queries into
 * per-bucket counts (as the rollup store keeps them). */
static void decumulate(double *h, unsigned n)
{
    for (unsigned i = n; i > 0; i--)
        h[i] = h[i] - h[i - 1] > 0 ? h[i] - h[i - 1] : 0;
}

int fsc_report_load_prometheus(struct fsc_report *rep, const char *url, FILE *progress, char *err,
                               size_t errlen)
{
    struct fsc_prom_api c;
    char range[32], step[32], extra[128], promql[QUERY_MAX];
    int64_t span = rep->to_s - rep->from_s;
    int64_t sub = span / 30 < 1 ? 1 : (span / 30 > 60 ? 60 : span / 30);
    int rc = 0;
    rep->source = "prometheus";
    rep->origin = url;
    rc = fsc_prom_api_open(&c, url, err, errlen);
    if (rc != 0)
        return rc;
    snprintf(range, sizeof(range), "%llds", (long long)span);
    snprintf(step, sizeof(step), "%llds", (long long)sub);
    snprintf(extra, sizeof(extra), "time=%lld", (long long)rep->to_s);
    size_t nq = sizeof(queries) / sizeof(queries[0]);
    for (size_t i = 0; i < nq && rc == 0; i++) {
        if (progress)
            fprintf(progress, "\rfabricscope report: query %zu/%zu", i + 1, nq + 1);
            /* the templates use %1$s / %2$s: a constant table, so -Wformat-nonliteral is moot */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(promql, sizeof(promql), queries[i].tmpl, range, step);
#pragma GCC diagnostic pop
        rc = run_query(&c, rep, &queries[i], "/api/v1/query", promql, extra, err, errlen);
    }
    if (rc == 0) {
        if (progress)
            fprintf(progress, "\rfabricscope report: query %zu/%zu", nq + 1, nq + 1);
        char bin[32];
        snprintf(bin, sizeof(bin), "%llds", (long long)rep->bin_s);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(promql, sizeof(promql), trend_query.tmpl, bin);
#pragma GCC diagnostic pop
        snprintf(extra, sizeof(extra), "start=%lld&end=%lld&step=%lld",
                 (long long)(rep->from_s + rep->bin_s), (long long)rep->to_s,
                 (long long)rep->bin_s);
        if (rep->from_s + rep->bin_s <= rep->to_s)
            rc =
                run_query(&c, rep, &trend_query, "/api/v1/query_range", promql, extra, err, errlen);
    }
    if (progress)
        fputc('\n', progress);
    fsc_prom_api_close(&c);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < rep->n_links; i++)
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
            decumulate(rep->links[i].dir[d].hist, FSC_UTIL_BUCKETS);
            decumulate(rep->links[i].dir[d].dur, FSC_DURATION_BUCKETS);
        }
    size_t present = 0;
    for (size_t i = 0; i < rep->n_links; i++)
        present += rep->links[i].dir[0].present || rep->links[i].dir[1].present;
    /* The queries aggregate with increase() / *_over_time(), which already
     * extrapolate over the range; the time the series cover is not queried,
     * so rates here are over the whole range (said in a note). */
    for (size_t i = 0; i < rep->n_links; i++) {
        rep->links[i].covered_s = (double)span;
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
            rep->links[i].dir[d].covered_s = (double)span;
    }
    rep->covered_s = (double)span;
    if (present)
        fsc_report_note(rep, "Prometheus source: rates are over the whole range; the time each "
                             "series covers is known to the rollup source only");
    if (present == 0) {
        char a[32], b[32];
        snprintf(err, errlen, "Prometheus at %s has no fabric_port_* series between %s and %s", url,
                 fsc_report_time(rep->from_s, a, sizeof(a)),
                 fsc_report_time(rep->to_s, b, sizeof(b)));
        return -ENODATA;
    }
    return 0;
}
