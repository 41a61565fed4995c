/* The comparison's data model and loader (contract in report_compare.h):
 * the rollup store's PORT records folded into per-minute values per
 * (metric, entity, range), then per range p50 / p99 / max / mean and per
 * pair of ranges a Mann-Whitney U test. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report_compare.h"
#include "rollup/rollup_store.h"

#define HASH_SLOTS (FSC_CMP_MAX_ROWS * 4)

const char fsc_cmp_test_name[] = "Mann-Whitney U, two-sided, 5 %, normal approximation";

const char *const fsc_cmp_not_in_store[] = {
    "ECN marks/s: the rollup store keeps CNPs sent (the notification point's answer to ECN-marked "
    "packets), not the switches' ECN mark counters",
    "reorder / out-of-sequence per NIC: the store keeps no NIC out-of-sequence counter "
    "(the engine's reorder detector sees it live; read it from Prometheus)",
    "CNP/s per spine: spines send no CNPs; CNPs are per rail (NIC ports with a rail) or per "
    "device; uplink balance is per leaf and per port group, not per spine",
    NULL,
};

const char *const fsc_cmp_not_in_prometheus[] = {
    "ECN marks/s and reorder / out-of-sequence per NIC: not compared yet from Prometheus either "
    "(the same metrics as from the rollup store)",
    "CNP/s per spine: spines send no CNPs; CNPs are per rail (NIC ports with a rail) or per "
    "device; uplink balance is per leaf and per port group, not per spine",
    NULL,
};

static const struct {
    const char *name, *unit;
    bool lower_better;
} metrics[FSC_CMP_METRICS] = {
    [FSC_CMP_CNP] = {"cnp_per_s", "CNPs sent per second", true},
    [FSC_CMP_THROUGHPUT] = {"throughput_bps", "NIC transmit bits per second", false},
    [FSC_CMP_UPLINK_MAXMEAN] = {"uplink_max_over_mean", "busiest uplink tx over the mean", true},
    [FSC_CMP_UPLINK_CV] = {"uplink_cv", "coefficient of variation of the uplinks' tx", true},
    [FSC_CMP_GROUP_MAXMEAN] = {"group_max_over_mean",
                               "port group's busiest member over the mean (engine ratio)", true},
    [FSC_CMP_BURSTS] = {"microbursts_per_hour", "microbursts per hour", true},
    [FSC_CMP_PFC] = {"pfc_pause_ms_per_s", "PFC rx pause, ms per second", true},
};

const char *fsc_cmp_metric_name(enum fsc_cmp_metric m)
{
    return m < FSC_CMP_METRICS ? metrics[m].name : "?";
}

const char *fsc_cmp_metric_unit(enum fsc_cmp_metric m)
{
    return m < FSC_CMP_METRICS ? metrics[m].unit : "?";
}

bool fsc_cmp_lower_is_better(enum fsc_cmp_metric m)
{
    return m < FSC_CMP_METRICS && metrics[m].lower_better;
}

const char *fsc_cmp_verdict_word(enum fsc_cmp_verdict v)
{
    switch (v) {
    case FSC_CMP_BETTER:
        return "better";
    case FSC_CMP_WORSE:
        return "worse";
    case FSC_CMP_TOO_FEW:
        return "too few minutes";
    default:
        return "same within noise";
    }
}

void fsc_compare_init(struct fsc_compare *cmp)
{
    memset(cmp, 0, sizeof(*cmp));
}

static size_t total_minutes(const struct fsc_compare *cmp)
{
    size_t n = 0;
    for (size_t r = 0; r < cmp->n_ranges; r++)
        n += cmp->ranges[r].n_minutes;
    return n;
}

int fsc_compare_add_range(struct fsc_compare *cmp, const char *name, int64_t from_s, int64_t to_s)
{
    if (cmp->n_ranges >= FSC_CMP_MAX_RANGES)
        return -E2BIG;
    /* names go into CSV fields and HTML attributes unquoted: keep them plain */
    if (!name[0] || strlen(name) >= FSC_CMP_NAME || from_s >= to_s ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
            strlen(name))
        return -EINVAL;
    for (size_t r = 0; r < cmp->n_ranges; r++)
        if (strcmp(cmp->ranges[r].name, name) == 0)
            return -EINVAL;
    struct fsc_cmp_range *rg = &cmp->ranges[cmp->n_ranges];
    memset(rg, 0, sizeof(*rg));
    snprintf(rg->name, sizeof(rg->name), "%s", name);
    rg->from_s = from_s;
    rg->to_s = to_s;
    int64_t first = from_s % 60 == 0 ? from_s : (from_s / 60 + (from_s > 0)) * 60;
    rg->first_minute = first;
    if (first >= to_s)
        return -EINVAL;
    rg->n_minutes = (size_t)((to_s - first + 59) / 60);
    if (total_minutes(cmp) + rg->n_minutes > FSC_CMP_MAX_MINUTES)
        return -E2BIG;
    cmp->n_ranges++;
    return 0;
}

void fsc_compare_fini(struct fsc_compare *cmp)
{
    for (size_t i = 0; i < cmp->n_rows; i++)
        for (size_t r = 0; r < FSC_CMP_MAX_RANGES; r++)
            free(cmp->rows[i].acc[r]);
    free(cmp->rows);
    cmp->rows = NULL;
    cmp->n_rows = 0;
}

static uint64_t row_hash(enum fsc_cmp_metric m, const char *entity)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)m;
    for (; *entity; entity++)
        h = (h ^ (uint8_t)*entity) * 1099511628211ULL;
    return h;
}

/* The row (metric, entity), created when absent; NULL beyond the bound
 * (counted) or without memory. */
static struct fsc_cmp_row *row_of(struct fsc_compare *cmp, enum fsc_cmp_metric m,
                                  const char *entity)
{
    size_t s = row_hash(m, entity) & (HASH_SLOTS - 1);
    while (cmp->hash[s]) {
        struct fsc_cmp_row *row = &cmp->rows[cmp->hash[s] - 1];
        if (row->metric == m && strcmp(row->entity, entity) == 0)
            return row;
        s = (s + 1) & (HASH_SLOTS - 1);
    }
    if (cmp->n_rows >= FSC_CMP_MAX_ROWS) {
        cmp->dropped++;
        return NULL;
    }
    if (!cmp->rows) {
        cmp->rows = calloc(FSC_CMP_MAX_ROWS, sizeof(*cmp->rows));
        if (!cmp->rows)
            return NULL;
    }
    struct fsc_cmp_row *row = &cmp->rows[cmp->n_rows];
    memset(row, 0, sizeof(*row));
    row->metric = m;
    snprintf(row->entity, sizeof(row->entity), "%s", entity);
    cmp->hash[s] = (uint32_t)++cmp->n_rows;
    return row;
}

int fsc_compare_add_value(struct fsc_compare *cmp, enum fsc_cmp_metric m, const char *entity,
                          size_t r, size_t minute, double v)
{
    if (r >= cmp->n_ranges || minute >= cmp->ranges[r].n_minutes || !isfinite(v))
        return 0;
    struct fsc_cmp_row *row = row_of(cmp, m, entity);
    if (!row)
        return cmp->n_rows >= FSC_CMP_MAX_ROWS ? 0 : -ENOMEM;
    if (!row->acc[r]) {
        row->acc[r] = calloc(cmp->ranges[r].n_minutes, sizeof(*row->acc[r]));
        if (!row->acc[r])
            return -ENOMEM;
    }
    struct fsc_cmp_acc *a = &row->acc[r][minute];
    a->sum += v;
    a->sumsq += v * v;
    if (a->n == 0 || v > a->max)
        a->max = v;
    a->n++;
    return 0;
}

static double seconds_of(uint32_t ms)
{
    return ms > 0 ? ms / 1000.0 : 0;
}

/* Folds one record into range r's minute: the entity is the port's rail
 * when it has one, else its device; uplinks are grouped by the device
 * that owns them (a leaf's spine-facing uplinks, the set ECMP / DLB
 * spreads over). */
static int add_to_range(struct fsc_compare *cmp, const struct fsc_rr_name *name,
                        const struct fsc_rr_record *rec, size_t r, size_t minute)
{
    const struct fsc_rr_port *p = &rec->port;
    char entity[FSC_RPT_NAME + 8];
    if (name->rail >= 0)
        snprintf(entity, sizeof(entity), "rail %d", name->rail);
    else
        snprintf(entity, sizeof(entity), "%s", name->device);
    double counters_s = seconds_of(p->counters_ms);
    double dir_s[FSC_RR_DIRS];
    for (unsigned d = 0; d < FSC_RR_DIRS; d++)
        dir_s[d] = seconds_of(p->dir[d].covered_ms);
    int rc = 0;
    if ((rec->flags & FSC_RR_F_CNP) && counters_s > 0)
        rc = fsc_compare_add_value(cmp, FSC_CMP_CNP, entity, r, minute, p->cnp / counters_s);
    if (rc == 0 && (rec->flags & FSC_RR_F_PFC) && counters_s > 0)
        rc = fsc_compare_add_value(cmp, FSC_CMP_PFC, entity, r, minute,
                                   1000.0 * p->pfc_pause_s / counters_s);
    if (rc == 0 && name->role == FSC_PORT_NIC && (rec->flags & FSC_RR_F_TX) && dir_s[FSC_RR_TX] > 0)
        rc = fsc_compare_add_value(cmp, FSC_CMP_THROUGHPUT, entity, r, minute,
                                   8.0 * p->dir[FSC_RR_TX].bytes / dir_s[FSC_RR_TX]);
    double port_s = 0, bursts = 0;
    for (unsigned d = 0; d < FSC_RR_DIRS; d++) {
        if (!(rec->flags & (d == FSC_RR_RX ? FSC_RR_F_RX : FSC_RR_F_TX)))
            continue;
        bursts += p->dir[d].bursts;
        if (dir_s[d] > port_s)
            port_s = dir_s[d];
    }
    if (rc == 0 && port_s > 0)
        rc =
            fsc_compare_add_value(cmp, FSC_CMP_BURSTS, entity, r, minute, bursts * 3600.0 / port_s);
    if (rc == 0 && name->role == FSC_PORT_UPLINK && (rec->flags & FSC_RR_F_TX) &&
        dir_s[FSC_RR_TX] > 0) {
        double bps = 8.0 * p->dir[FSC_RR_TX].bytes / dir_s[FSC_RR_TX];
        /* one accumulator per leaf and minute; both rows derive from it */
        rc = fsc_compare_add_value(cmp, FSC_CMP_UPLINK_MAXMEAN, name->device, r, minute, bps);
        if (rc == 0)
            rc = fsc_compare_add_value(cmp, FSC_CMP_UPLINK_CV, name->device, r, minute, bps);
    }
    return rc;
}

int fsc_compare_add_record(struct fsc_compare *cmp, const struct fsc_rr_name *name,
                           const struct fsc_rr_record *rec)
{
    bool port = rec->type == FSC_RR_PORT && name->kind == FSC_RR_NAME_PORT;
    bool group = rec->type == FSC_RR_GROUP && name->kind == FSC_RR_NAME_GROUP;
    if (!port && !group)
        return 0;
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        struct fsc_cmp_range *rg = &cmp->ranges[r];
        if (rec->minute_s < rg->from_s || rec->minute_s >= rg->to_s ||
            rec->minute_s < rg->first_minute)
            continue;
        size_t minute = (size_t)((rec->minute_s - rg->first_minute) / 60);
        if (minute >= rg->n_minutes)
            continue;
        rg->records++;
        /* a group record: the mean over the minute's polls of the engine's
         * max/mean ratio of the group's members (port groups of the topology,
         * e.g. a leaf's uplinks) */
        int rc = 0;
        if (port)
            rc = add_to_range(cmp, name, rec, r, minute);
        else if (rec->group.ratio_mean > 0) /* 0: the engine had no ratio (no traffic) */
            rc = fsc_compare_add_value(cmp, FSC_CMP_GROUP_MAXMEAN, name->device, r, minute,
                                       rec->group.ratio_mean);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int fsc_compare_load_rollup(struct fsc_compare *cmp, const char *dir, char *err, size_t errlen)
{
    int64_t from = INT64_MAX, to = INT64_MIN;
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        if (cmp->ranges[r].from_s < from)
            from = cmp->ranges[r].from_s;
        if (cmp->ranges[r].to_s > to)
            to = cmp->ranges[r].to_s;
    }
    cmp->source = "rollup";
    cmp->origin = dir;
    cmp->not_in_source = fsc_cmp_not_in_store;
    int eno = 0;
    struct fsc_rollup_reader *rd = fsc_rollup_reader_open(dir, from, to, &eno, err, errlen);
    if (!rd)
        return eno ? eno : -ENOMEM;
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    int rc;
    while ((rc = fsc_rollup_reader_next(rd, &rec, &name)) == 1) {
        if (!name)
            continue;
        rc = fsc_compare_add_record(cmp, name, &rec);
        if (rc != 0)
            break;
    }
    fsc_rollup_reader_close(rd);
    if (rc < 0) {
        snprintf(err, errlen, "cannot read the rollup store at %s: %s", dir, strerror(-rc));
        return rc;
    }
    for (size_t r = 0; r < cmp->n_ranges; r++) {
        if (cmp->ranges[r].records == 0) {
            char a[32], b[32];
            snprintf(err, errlen, "range %s (%s .. %s) holds no rollup record in %s",
                     cmp->ranges[r].name, fsc_report_time(cmp->ranges[r].from_s, a, sizeof(a)),
                     fsc_report_time(cmp->ranges[r].to_s, b, sizeof(b)), dir);
            return -ENODATA;
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The per-minute value of a minute's accumulator: the sum of the ports'
 * contributions, or for the uplink rows the spread over the uplinks
 * (NaN: fewer than two uplinks, or none carried traffic). */
static double minute_value(enum fsc_cmp_metric m, const struct fsc_cmp_acc *a)
{
    if (a->n == 0)
        return NAN;
    if (m != FSC_CMP_UPLINK_MAXMEAN && m != FSC_CMP_UPLINK_CV)
        return a->sum;
    double mean = a->sum / a->n;
    if (a->n < 2 || !(mean > 0))
        return NAN;
    if (m == FSC_CMP_UPLINK_MAXMEAN)
        return a->max / mean;
    double var = a->sumsq / a->n - mean * mean; /* population variance */
    return sqrt(var > 0 ? var : 0) / mean;
}

/* Range r's values of the row, sorted, into vals (n_minutes capacity). */
static size_t row_values(const struct fsc_compare *cmp, const struct fsc_cmp_row *row, size_t r,
                         double *vals)
{
    size_t n = 0;
    if (!row->acc[r])
        return 0;
    for (size_t i = 0; i < cmp->ranges[r].n_minutes; i++) {
        double v = minute_value(row->metric, &row->acc[r][i]);
        if (!isnan(v))
            vals[n++] = v;
    }
    qsort(vals, n, sizeof(*vals), cmp_double);
    return n;
}

static void test_pair(struct fsc_cmp_row *row, struct fsc_cmp_test *t, const double *xa, size_t na,
                      const double *xb, size_t nb, int *rc)
{
    t->u = t->z = NAN;
    t->p = NAN;
    double pa = row->st[t->a].p50, pb = row->st[t->b].p50;
    t->ratio_p50 = pa != 0 && !isnan(pa) ? pb / pa : NAN;
    if (na < FSC_CMP_MIN_N || nb < FSC_CMP_MIN_N) {
        t->verdict = FSC_CMP_TOO_FEW;
        return;
    }
    *rc = fsc_cmp_mann_whitney(xa, na, xb, nb, &t->u, &t->z, &t->p);
    if (*rc != 0 || !(t->p < FSC_CMP_ALPHA)) {
        t->verdict = FSC_CMP_SAME;
        return;
    }
    bool b_higher = t->z > 0; /* U of b above its mean: b's values tend higher */
    t->verdict = b_higher == fsc_cmp_lower_is_better(row->metric) ? FSC_CMP_WORSE : FSC_CMP_BETTER;
}

static int cmp_rows(const void *x, const void *y)
{
    const struct fsc_cmp_row *a = x, *b = y;
    if (a->metric != b->metric)
        return a->metric < b->metric ? -1 : 1;
    return strcmp(a->entity, b->entity);
}

/* Rows in output order (metric, then entity), the hash rebuilt for them. */
static void sort_rows(struct fsc_compare *cmp)
{
    if (cmp->n_rows == 0)
        return;
    qsort(cmp->rows, cmp->n_rows, sizeof(*cmp->rows), cmp_rows);
    memset(cmp->hash, 0, sizeof(cmp->hash));
    for (size_t i = 0; i < cmp->n_rows; i++) {
        size_t s = row_hash(cmp->rows[i].metric, cmp->rows[i].entity) & (HASH_SLOTS - 1);
        while (cmp->hash[s])
            s = (s + 1) & (HASH_SLOTS - 1);
        cmp->hash[s] = (uint32_t)i + 1;
    }
}

int fsc_compare_compute(struct fsc_compare *cmp)
{
    sort_rows(cmp);
    size_t most = 0;
    for (size_t r = 0; r < cmp->n_ranges; r++)
        if (cmp->ranges[r].n_minutes > most)
            most = cmp->ranges[r].n_minutes;
    double *va = malloc((most + 1) * sizeof(*va)), *vb = malloc((most + 1) * sizeof(*vb));
    int rc = va && vb ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < cmp->n_rows; i++) {
        struct fsc_cmp_row *row = &cmp->rows[i];
        for (size_t r = 0; r < cmp->n_ranges; r++) {
            struct fsc_cmp_stats *st = &row->st[r];
            st->n = row_values(cmp, row, r, va);
            st->p50 = fsc_cmp_quantile(va, st->n, 0.5);
            st->p99 = fsc_cmp_quantile(va, st->n, 0.99);
            st->max = st->n ? va[st->n - 1] : NAN;
            double sum = 0;
            for (size_t k = 0; k < st->n; k++)
                sum += va[k];
            st->mean = st->n ? sum / st->n : NAN;
        }
        row->n_tests = 0;
        for (unsigned a = 0; rc == 0 && a < cmp->n_ranges; a++) {
            for (unsigned b = a + 1; rc == 0 && b < cmp->n_ranges; b++) {
                struct fsc_cmp_test *t = &row->tests[row->n_tests++];
                t->a = a;
                t->b = b;
                size_t na = row_values(cmp, row, a, va), nb = row_values(cmp, row, b, vb);
                test_pair(row, t, va, na, vb, nb, &rc);
            }
        }
    }
    free(va);
    free(vb);
    return rc;
}
