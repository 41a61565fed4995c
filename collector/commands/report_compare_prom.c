/* The comparison's per-minute values from a Prometheus server (contract in
 * report_compare.h): what the rollup store keeps per port and minute, asked
 * of Prometheus as the increase (or mean) over each minute.
 *
 * Per range: one instant query at its end for where each port sits
 * (fabric_port_info: role, rail), then one query_range per metric from the
 * end of the range's first minute to the end of its last, step 60 s: the
 * point at t is the minute [t - 60 s, t), as a rollup record of the minute
 * starting at t - 60 s. The ports' values are folded exactly as the rollup
 * loader folds records: CNP/s and PFC per rail (else per device), NIC
 * transmit bits/s per rail, microbursts per hour, a leaf's uplinks' spread,
 * a port group's max/mean. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report_compare.h"
#include "commands/report_prom_api.h"

#define QUERY_MAX 512

/* Where a port sits, from fabric_port_info. */
struct port_meta {
    char device[FSC_PROM_API_LABEL], port[FSC_PROM_API_LABEL];
    char role[16];
    int rail; /* -1: none */
};

struct meta_table {
    struct port_meta *v;
    size_t n, cap;
    int err;
};

enum query_kind { Q_CNP, Q_PFC, Q_TX, Q_BURSTS, Q_GROUP, Q__COUNT };

/* Per-minute queries: each point is the minute before its time. */
static const char *const minute_query[Q__COUNT] = {
    [Q_CNP] = "sum by (device,port) (increase(fabric_nic_cnp_sent_total[60s])) / 60",
    [Q_PFC] = "1000 * sum by (device,port) (increase({__name__=~"
              "\"fabric_port_pfc_rx_pause_seconds_total|fabric_port_rx_pause_seconds_total\"}"
              "[60s])) / 60",
    [Q_TX] = "8 * sum by (device,port) (increase(fabric_port_tx_bytes_total[60s])) / 60",
    [Q_BURSTS] = "60 * sum by (device,port) (increase(fabric_microbursts_total[60s]))",
    [Q_GROUP] = "avg by (group) (avg_over_time(fabric_uplink_imbalance_ratio[60s]))",
};

struct fold {
    struct fsc_compare *cmp;
    const struct meta_table *meta;
    size_t r;
    enum query_kind kind;
    uint64_t points;
    int err;
};

static void on_meta(void *ctx, const struct fsc_prom_labels *lab, double t, double v)
{
    (void)t;
    (void)v;
    struct meta_table *m = ctx;
    if (m->err || !lab->device[0] || !lab->port[0])
        return;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        struct port_meta *p = realloc(m->v, cap * sizeof(*p));
        if (!p) {
            m->err = -ENOMEM;
            return;
        }
        m->v = p;
        m->cap = cap;
    }
    struct port_meta *pm = &m->v[m->n++];
    memset(pm, 0, sizeof(*pm));
    snprintf(pm->device, sizeof(pm->device), "%s", lab->device);
    snprintf(pm->port, sizeof(pm->port), "%s", lab->port);
    snprintf(pm->role, sizeof(pm->role), "%s", lab->role);
    char *end = NULL;
    long rail = lab->rail[0] ? strtol(lab->rail, &end, 10) : -1;
    pm->rail = lab->rail[0] && *end == '\0' && rail >= 0 && rail < 1000000 ? (int)rail : -1;
}

static int meta_order(const void *x, const void *y)
{
    const struct port_meta *a = x, *b = y;
    int c = strcmp(a->device, b->device);
    return c ? c : strcmp(a->port, b->port);
}

static const struct port_meta *meta_find(const struct meta_table *m, const char *device,
                                         const char *port)
{
    struct port_meta key;
    snprintf(key.device, sizeof(key.device), "%s", device);
    snprintf(key.port, sizeof(key.port), "%s", port);
    return m->n ? bsearch(&key, m->v, m->n, sizeof(*m->v), meta_order) : NULL;
}

static void on_point(void *ctx, const struct fsc_prom_labels *lab, double t, double v)
{
    struct fold *f = ctx;
    const struct fsc_cmp_range *rg = &f->cmp->ranges[f->r];
    double k = (t - 60.0 - (double)rg->first_minute) / 60.0;
    if (f->err || !isfinite(v) || k < 0 || k != floor(k) || k >= (double)rg->n_minutes)
        return;
    size_t minute = (size_t)k;
    int rc = 0;
    if (f->kind == Q_GROUP) {
        if (lab->group[0] && v > 0) /* 0: the engine had no ratio (no traffic) */
            rc = fsc_compare_add_value(f->cmp, FSC_CMP_GROUP_MAXMEAN, lab->group, f->r, minute, v);
        f->points++;
        f->err = rc;
        return;
    }
    if (!lab->device[0] || !lab->port[0])
        return;
    const struct port_meta *pm = meta_find(f->meta, lab->device, lab->port);
    char entity[FSC_RPT_NAME + 8];
    if (pm && pm->rail >= 0)
        snprintf(entity, sizeof(entity), "rail %d", pm->rail);
    else
        snprintf(entity, sizeof(entity), "%s", lab->device);
    const char *role = pm ? pm->role : "";
    f->points++;
    switch (f->kind) {
    case Q_CNP:
        rc = fsc_compare_add_value(f->cmp, FSC_CMP_CNP, entity, f->r, minute, v);
        break;
    case Q_PFC:
        rc = fsc_compare_add_value(f->cmp, FSC_CMP_PFC, entity, f->r, minute, v);
        break;
    case Q_BURSTS:
        rc = fsc_compare_add_value(f->cmp, FSC_CMP_BURSTS, entity, f->r, minute, v);
        break;
    case Q_TX:
        if (strcmp(role, "nic") == 0)
            rc = fsc_compare_add_value(f->cmp, FSC_CMP_THROUGHPUT, entity, f->r, minute, v);
        else if (strcmp(role, "uplink") == 0) {
            rc =
                fsc_compare_add_value(f->cmp, FSC_CMP_UPLINK_MAXMEAN, lab->device, f->r, minute, v);
            if (rc == 0)
                rc = fsc_compare_add_value(f->cmp, FSC_CMP_UPLINK_CV, lab->device, f->r, minute, v);
        }
        break;
    default:
        break;
    }
    f->err = rc;
}

/* One range: the ports' places, then every metric's minutes. */
static int load_range(struct fsc_compare *cmp, struct fsc_prom_api *c, size_t r, FILE *progress,
                      char *err, size_t errlen)
{
    const struct fsc_cmp_range *rg = &cmp->ranges[r];
    struct meta_table meta = {0};
    char promql[QUERY_MAX], extra[128];
    snprintf(promql, sizeof(promql),
             "group by (device,port,role,rail) (max_over_time(fabric_port_info[%llds]))",
             (long long)(rg->to_s - rg->from_s));
    snprintf(extra, sizeof(extra), "time=%lld", (long long)rg->to_s);
    if (progress)
        fprintf(progress, "fabricscope report: range %s: port roles and rails\n", rg->name);
    int rc = fsc_prom_api_query(c, "/api/v1/query", promql, extra, on_meta, &meta, err, errlen);
    if (rc == 0 && meta.err)
        rc = meta.err;
    if (rc == 0)
        qsort(meta.v, meta.n, sizeof(*meta.v), meta_order);
    int64_t start = rg->first_minute + 60;
    int64_t end = rg->first_minute + 60 * (int64_t)rg->n_minutes;
    snprintf(extra, sizeof(extra), "start=%lld&end=%lld&step=60", (long long)start, (long long)end);
    uint64_t points = 0;
    for (int k = 0; k < Q__COUNT && rc == 0; k++) {
        struct fold f = {.cmp = cmp, .meta = &meta, .r = r, .kind = (enum query_kind)k};
        if (progress)
            fprintf(progress, "fabricscope report: range %s: query %d/%d\n", rg->name, k + 1,
                    Q__COUNT);
        rc = fsc_prom_api_query(c, "/api/v1/query_range", minute_query[k], extra, on_point, &f, err,
                                errlen);
        if (rc == 0)
            rc = f.err;
        points += f.points;
    }
    free(meta.v);
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory reading Prometheus at %s", c->url);
    cmp->ranges[r].records = points;
    return rc;
}

int fsc_compare_load_prometheus(struct fsc_compare *cmp, const char *url, FILE *progress, char *err,
                                size_t errlen)
{
    struct fsc_prom_api c;
    cmp->source = "prometheus";
    cmp->origin = url;
    cmp->not_in_source = fsc_cmp_not_in_prometheus;
    int rc = fsc_prom_api_open(&c, url, err, errlen);
    for (size_t r = 0; r < cmp->n_ranges && rc == 0; r++)
        rc = load_range(cmp, &c, r, progress, err, errlen);
    fsc_prom_api_close(&c);
    if (rc != 0)
        return rc;
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        if (cmp->ranges[r].records == 0) {
            char a[32], b[32];
            snprintf(err, errlen, "range %s (%s .. %s): Prometheus at %s has no fabricscope value",
                     cmp->ranges[r].name, fsc_report_time(cmp->ranges[r].from_s, a, sizeof(a)),
                     fsc_report_time(cmp->ranges[r].to_s, b, sizeof(b)), url);
            return -ENODATA;
        }
    }
    return 0;
}
