/* The report's data model (contract in report.h): links, groups and nodes
 * found by name, what one link's numbers say on their own (quantiles as
 * Prometheus computes them, the bytes CNP per TB divides by), and the loader
 * that folds the rollup store's per-minute records into range aggregates. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intdiv.h"
#include "commands/report.h"
#include "rollup/rollup_store.h"

#define BLOCK_S  300 /* the "5 min average": aligned 5-minute blocks */
#define BIN_VALS (FSC_UTIL_BUCKETS + 1)

/* Prometheus 2.42 bucketQuantile(): cumulative counts made monotonic, the
 * rank's bucket found, linear interpolation inside it; the +Inf bucket
 * answers the highest finite bound; the first bucket starts at 0. */
double fsc_report_quantile(double q, const double *bucket, size_t n_finite, const double *le)
{
    double cum[64];
    if (n_finite + 1 > sizeof(cum) / sizeof(cum[0]) || n_finite < 1)
        return NAN;
    double run = 0;
    for (size_t i = 0; i <= n_finite; i++) {
        double c = bucket[i] > 0 ? bucket[i] : 0;
        run += c;
        cum[i] = run;
    }
    double total = cum[n_finite];
    if (!(total > 0))
        return NAN;
    double rank = q * total;
    size_t b = 0;
    while (b < n_finite && cum[b] < rank)
        b++;
    if (b == n_finite)
        return le[n_finite - 1];
    double start = b > 0 ? le[b - 1] : 0.0;
    double count = cum[b];
    if (b > 0) {
        count -= cum[b - 1];
        rank -= cum[b - 1];
    }
    if (!(count > 0))
        return le[b];
    return start + (le[b] - start) * (rank / count);
}

double fsc_report_cnp_rx_bytes(const struct fsc_rpt_link *l)
{
    if (l->dir[FSC_RPT_RX].present)
        return l->dir[FSC_RPT_RX].bytes;
    return l->has_ib_rx ? l->ib_rx_bytes : NAN;
}

void fsc_report_init(struct fsc_report *rep, int64_t from_s, int64_t to_s, double threshold,
                     const struct fsc_topology *topo)
{
    memset(rep, 0, sizeof(*rep));
    rep->from_s = from_s;
    rep->to_s = to_s;
    rep->threshold = threshold;
    rep->topo = topo;
    rep->spine_share = NAN;
    int64_t span = to_s - from_s;
    int64_t bin = (span + FSC_RPT_BINS - 1) / FSC_RPT_BINS;
    bin = (bin + 59) / 60 * 60; /* whole minutes: rollup records are minutes */
    rep->bin_s = bin > 0 ? bin : 60;
    rep->n_bins = (unsigned)((span + rep->bin_s - 1) / rep->bin_s);
    if (rep->n_bins > FSC_RPT_BINS)
        rep->n_bins = FSC_RPT_BINS;
    if (rep->n_bins == 0)
        rep->n_bins = 1;
}

void fsc_report_fini(struct fsc_report *rep)
{
    for (size_t i = 0; i < rep->n_links; i++)
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
            free(rep->links[i].dir[d].bin_hist);
    free(rep->links);
    free(rep->hash);
    free(rep->groups);
    free(rep->nodes);
    free(rep->leaves);
    free(rep->dir_rows);
    free(rep->minute_ms);
    rep->minute_ms = NULL;
    rep->dir_rows = NULL;
    rep->links = NULL;
    rep->hash = NULL;
    rep->groups = NULL;
    rep->nodes = NULL;
    rep->leaves = NULL;
}

void fsc_report_note(struct fsc_report *rep, const char *fmt, ...)
{
    if (rep->n_notes >= FSC_RPT_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->notes[rep->n_notes++], sizeof(rep->notes[0]), fmt, ap);
    va_end(ap);
}

static uint64_t hash2(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *a; a++)
        h = (h ^ (uint8_t)*a) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (; *b; b++)
        h = (h ^ (uint8_t)*b) * 1099511628211ULL;
    return h;
}

static int hash_grow(struct fsc_report *rep)
{
    size_t cap = rep->cap_hash ? rep->cap_hash * 2 : 1024;
    uint32_t *nh = calloc(cap, sizeof(*nh));
    if (!nh)
        return -ENOMEM;
    for (size_t i = 0; i < rep->n_links; i++) {
        size_t s = hash2(rep->links[i].device, rep->links[i].port) & (cap - 1);
        while (nh[s])
            s = (s + 1) & (cap - 1);
        nh[s] = (uint32_t)i + 1;
    }
    free(rep->hash);
    rep->hash = nh;
    rep->cap_hash = cap;
    return 0;
}

static void dir_init(struct fsc_rpt_dir *d)
{
    memset(d, 0, sizeof(*d));
    d->max_fine = d->max_1s = d->max_5m = d->mean = NAN;
    d->p50 = d->p99 = NAN;
    d->slope_per_day = d->intercept = NAN;
    d->block = INT64_MIN;
    for (unsigned b = 0; b < FSC_RPT_BINS; b++)
        d->bin_p99[b] = NAN;
}

struct fsc_rpt_link *fsc_report_link(struct fsc_report *rep, const char *device, const char *port)
{
    if (rep->n_links * 2 >= rep->cap_hash && hash_grow(rep) != 0)
        return NULL;
    size_t s = hash2(device, port) & (rep->cap_hash - 1);
    while (rep->hash[s]) {
        struct fsc_rpt_link *l = &rep->links[rep->hash[s] - 1];
        if (strcmp(l->device, device) == 0 && strcmp(l->port, port) == 0)
            return l;
        s = (s + 1) & (rep->cap_hash - 1);
    }
    if (rep->n_links >= FSC_RPT_MAX_LINKS) {
        rep->dropped++;
        return NULL;
    }
    if (rep->n_links == rep->cap_links) {
        size_t cap = rep->cap_links ? rep->cap_links * 2 : 64;
        struct fsc_rpt_link *nl = realloc(rep->links, cap * sizeof(*nl));
        if (!nl)
            return NULL;
        rep->links = nl;
        rep->cap_links = cap;
    }
    struct fsc_rpt_link *l = &rep->links[rep->n_links];
    memset(l, 0, sizeof(*l));
    snprintf(l->device, sizeof(l->device), "%s", device);
    snprintf(l->port, sizeof(l->port), "%s", port);
    l->rail = -1;
    l->last_minute = INT64_MIN;
    for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
        dir_init(&l->dir[d]);
    rep->hash[s] = (uint32_t)++rep->n_links;
    return l;
}

struct fsc_rpt_link *fsc_report_find_link(const struct fsc_report *rep, const char *device,
                                          const char *port)
{
    if (rep->cap_hash == 0)
        return NULL;
    size_t s = hash2(device, port) & (rep->cap_hash - 1);
    while (rep->hash[s]) {
        struct fsc_rpt_link *l = &rep->links[rep->hash[s] - 1];
        if (strcmp(l->device, device) == 0 && strcmp(l->port, port) == 0)
            return l;
        s = (s + 1) & (rep->cap_hash - 1);
    }
    return NULL;
}

static int cmp_link(const void *a, const void *b)
{
    const struct fsc_rpt_link *x = a, *y = b;
    int c = strcmp(x->device, y->device);
    return c ? c : strcmp(x->port, y->port);
}

int fsc_report_sort(struct fsc_report *rep)
{
    if (rep->n_links > 1)
        qsort(rep->links, rep->n_links, sizeof(*rep->links), cmp_link);
    /* the indexes moved: rebuild the hash at the same size */
    if (rep->cap_hash) {
        rep->cap_hash /= 2;
        if (hash_grow(rep) != 0)
            return -ENOMEM;
    }
    free(rep->dir_rows);
    rep->n_dir_rows = 0;
    rep->dir_rows = malloc((rep->n_links * FSC_RPT_DIRS + 1) * sizeof(*rep->dir_rows));
    if (!rep->dir_rows)
        return -ENOMEM;
    for (size_t i = 0; i < rep->n_links; i++)
        for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
            if (rep->links[i].dir[d].present)
                rep->dir_rows[rep->n_dir_rows++] = (uint32_t)(i * FSC_RPT_DIRS + d);
    return 0;
}

/* Whether a table holding n entries may take one more (else counted in
 * rep->dropped): groups and nodes are few (a fabric's devices), so their
 * arrays grow by one. */
static bool room_for_one(struct fsc_report *rep, size_t n, size_t max)
{
    if (n < max)
        return true;
    rep->dropped++;
    return false;
}

struct fsc_rpt_group *fsc_report_group(struct fsc_report *rep, const char *name)
{
    for (size_t i = 0; i < rep->n_groups; i++)
        if (strcmp(rep->groups[i].name, name) == 0)
            return &rep->groups[i];
    if (!room_for_one(rep, rep->n_groups, FSC_RPT_MAX_GROUPS))
        return NULL;
    struct fsc_rpt_group *grown = realloc(rep->groups, (rep->n_groups + 1) * sizeof(*grown));
    if (!grown)
        return NULL;
    rep->groups = grown;
    struct fsc_rpt_group *g = &grown[rep->n_groups++];
    *g = (struct fsc_rpt_group){0};
    snprintf(g->name, sizeof(g->name), "%s", name);
    g->ratio_max = NAN;
    return g;
}

struct fsc_rpt_node *fsc_report_node(struct fsc_report *rep, const char *device, const char *node)
{
    for (size_t i = 0; i < rep->n_nodes; i++)
        if (strcmp(rep->nodes[i].device, device) == 0 && strcmp(rep->nodes[i].node, node) == 0)
            return &rep->nodes[i];
    if (!room_for_one(rep, rep->n_nodes, FSC_RPT_MAX_NODES))
        return NULL;
    struct fsc_rpt_node *grown = realloc(rep->nodes, (rep->n_nodes + 1) * sizeof(*grown));
    if (!grown)
        return NULL;
    rep->nodes = grown;
    struct fsc_rpt_node *n = &grown[rep->n_nodes++];
    *n = (struct fsc_rpt_node){0};
    snprintf(n->device, sizeof(n->device), "%s", device);
    snprintf(n->node, sizeof(n->node), "%s", node);
    for (unsigned d = 0; d < FSC_RPT_DIRS; d++)
        n->bps_max[d] = NAN;
    n->capacity_bps = NAN;
    return n;
}

/* ---- the rollup store ------------------------------------------------------------- */

static double nanmax(double a, double b)
{
    if (isnan(a))
        return b;
    return isnan(b) || a >= b ? a : b;
}

/* Ends d's open 5-minute block: its average - over the seconds of the
 * block that had data, not 300 - counts towards max_5m. */
static void block_close(struct fsc_rpt_dir *d, uint64_t speed_bps)
{
    if (d->block == INT64_MIN || !d->block_minutes)
        return;
    if (speed_bps && d->block_s > 0)
        d->max_5m = nanmax(d->max_5m, d->block_bytes * 8.0 / (d->block_s * (double)speed_bps));
    d->block_bytes = 0;
    d->block_s = 0;
    d->block_minutes = 0;
}

static int add_dir(struct fsc_report *rep, struct fsc_rpt_dir *d, const struct fsc_rr_dir *r,
                   int64_t minute_s, uint64_t speed_bps)
{
    d->present = true;
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        d->hist[b] += r->util[b];
    d->hist_sum += r->util_sum;
    d->max_fine = nanmax(d->max_fine, r->max_fine);
    d->max_1s = nanmax(d->max_1s, r->max_1s);
    d->bytes += r->bytes;
    d->bursts += r->bursts;
    d->long_bursts += r->long_bursts;
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        d->dur[b] += r->dur[b];
    d->dur_sum += r->dur_sum;

    int64_t block = fsc_floor_div(minute_s, BLOCK_S);
    if (block != d->block) {
        block_close(d, speed_bps);
        d->block = block;
    }
    d->block_bytes += r->bytes;
    /* a minute seen twice (two collectors, a replayed file) adds its bytes
     * but not its time twice */
    uint8_t bit = (uint8_t)(1u << (fsc_floor_div(minute_s, 60) - block * 5));
    if (!(d->block_minutes & bit)) {
        double secs = r->covered_ms / 1000.0;
        d->block_s += secs;
        d->covered_s += secs;
    }
    d->block_minutes |= bit;

    int64_t bin = (minute_s - rep->from_s) / rep->bin_s;
    if (bin >= 0 && bin < rep->n_bins) {
        if (!d->bin_hist) {
            d->bin_hist = calloc((size_t)FSC_RPT_BINS * BIN_VALS, sizeof(*d->bin_hist));
            if (!d->bin_hist)
                return -ENOMEM;
        }
        for (unsigned b = 0; b < BIN_VALS; b++)
            d->bin_hist[bin * BIN_VALS + b] += r->util[b];
    }
    return 0;
}

static int add_port(struct fsc_report *rep, const struct fsc_rr_record *rec,
                    const struct fsc_rr_name *name)
{
    struct fsc_rpt_link *l = fsc_report_link(rep, name->device, name->port);
    if (!l)
        return rep->n_links >= FSC_RPT_MAX_LINKS ? 0 : -ENOMEM;
    /* the latest name wins: a speed or peer learned later */
    if (name->speed_bps)
        l->speed_bps = name->speed_bps;
    if (name->role)
        l->role = name->role;
    if (name->rail >= 0)
        l->rail = name->rail;
    if (name->peer[0])
        snprintf(l->peer, sizeof(l->peer), "%s", name->peer);
    uint32_t rec_ms = 0;
    bool any_dir = false;
    for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
        if (!(rec->flags & (d == FSC_RPT_TX ? FSC_RR_F_TX : FSC_RR_F_RX)))
            continue;
        any_dir = true;
        if (rec->port.dir[d].covered_ms > rec_ms)
            rec_ms = rec->port.dir[d].covered_ms;
        int rc = add_dir(rep, &l->dir[d], &rec->port.dir[d], rec->minute_s, l->speed_bps);
        if (rc != 0)
            return rc;
    }
    if (rec->flags & FSC_RR_F_CNP) {
        l->has_cnp = true;
        l->cnp += rec->port.cnp;
    }
    if (rec->flags & FSC_RR_F_PFC) {
        l->has_pfc = true;
        l->pfc_s += rec->port.pfc_pause_s;
    }
    if (rec->flags & FSC_RR_F_IB_RX) {
        l->has_ib_rx = true;
        l->ib_rx_bytes += rec->port.ib_rx_bytes;
    }
    /* a port's counters (CNP, PFC, IB bytes) say how long they ran too: a
     * NIC port with no byte series is covered by them */
    if (rec->flags & (FSC_RR_F_CNP | FSC_RR_F_PFC | FSC_RR_F_IB_RX) &&
        rec->port.counters_ms > rec_ms)
        rec_ms = rec->port.counters_ms;
    if (rec_ms > FSC_RR_MINUTE_S * 1000)
        rec_ms = FSC_RR_MINUTE_S * 1000;
    if (rec->minute_s != l->last_minute)
        l->covered_s += rec_ms / 1000.0;
    l->last_minute = rec->minute_s;
    /* the union is the time byte data covers (bursts per hour divide by
     * it): a record of counters only says nothing about that */
    int64_t m = fsc_floor_div(rec->minute_s - rep->from_s, 60);
    if (any_dir && rep->minute_ms && m >= 0 && (size_t)m < rep->n_minutes &&
        rep->minute_ms[m] < rec_ms)
        rep->minute_ms[m] = (uint16_t)rec_ms;
    return 0;
}

static void add_group(struct fsc_report *rep, const struct fsc_rr_record *rec,
                      const struct fsc_rr_name *name)
{
    struct fsc_rpt_group *g = fsc_report_group(rep, name->device);
    if (!g)
        return;
    g->ratio_sum += rec->group.ratio_mean;
    g->polls += 1;
    g->ratio_max = nanmax(g->ratio_max, rec->group.ratio_max);
    g->events += rec->group.events;
}

static void add_node(struct fsc_report *rep, const struct fsc_rr_record *rec,
                     const struct fsc_rr_name *name)
{
    struct fsc_rpt_node *n = fsc_report_node(rep, name->device, name->port);
    if (!n)
        return;
    for (unsigned d = 0; d < FSC_RPT_DIRS; d++) {
        n->bps_sum[d] += rec->node.bps_mean[d];
        n->polls[d] += 1;
        n->bps_max[d] = nanmax(n->bps_max[d], rec->node.bps_max[d]);
        if ((rec->flags & FSC_RR_F_EFF) && rec->node.eff_mean[d] >= 0) {
            n->eff_sum[d] += rec->node.eff_mean[d];
            n->eff_polls[d] += 1;
        }
    }
}

/* After the last record: close the blocks, turn bytes into the mean and
 * the trend bins' histograms into p99s. */
static void finish_dirs(struct fsc_report *rep)
{
    for (size_t i = 0; i < rep->n_links; i++) {
        struct fsc_rpt_link *l = &rep->links[i];
        for (unsigned dd = 0; dd < FSC_RPT_DIRS; dd++) {
            struct fsc_rpt_dir *d = &l->dir[dd];
            if (!d->present)
                continue;
            block_close(d, l->speed_bps);
            if (l->speed_bps && d->covered_s > 0)
                d->mean = d->bytes * 8.0 / (d->covered_s * (double)l->speed_bps);
            if (d->bin_hist) {
                for (unsigned b = 0; b < rep->n_bins; b++) {
                    double h[BIN_VALS];
                    for (unsigned k = 0; k < BIN_VALS; k++)
                        h[k] = d->bin_hist[b * BIN_VALS + k];
                    d->bin_p99[b] =
                        fsc_report_quantile(0.99, h, FSC_UTIL_BUCKETS, fsc_util_bucket_le);
                }
                free(d->bin_hist);
                d->bin_hist = NULL;
            }
        }
    }
}

int fsc_report_load_rollup(struct fsc_report *rep, const char *dir, char *err, size_t errlen)
{
    int oerr = 0;
    struct fsc_rollup_reader *rd =
        fsc_rollup_reader_open(dir, rep->from_s, rep->to_s, &oerr, err, errlen);
    if (!rd)
        return oerr ? oerr : -ENOMEM;
    rep->source = "rollup";
    rep->origin = dir;
    /* the union of covered time, a minute at a time: 2 bytes per minute
     * (10 years of range: 10 MB) */
    rep->n_minutes = (size_t)((rep->to_s - rep->from_s + 59) / 60);
    rep->minute_ms = calloc(rep->n_minutes ? rep->n_minutes : 1, sizeof(*rep->minute_ms));
    if (!rep->minute_ms) {
        fsc_rollup_reader_close(rd);
        snprintf(err, errlen, "out of memory for a range of %zu minutes", rep->n_minutes);
        return -ENOMEM;
    }
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    int rc;
    uint64_t n = 0;
    while ((rc = fsc_rollup_reader_next(rd, &rec, &name)) == 1) {
        n++;
        if (rec.type == FSC_RR_PORT && name->kind == FSC_RR_NAME_PORT)
            rc = add_port(rep, &rec, name);
        else if (rec.type == FSC_RR_GROUP && name->kind == FSC_RR_NAME_GROUP)
            add_group(rep, &rec, name);
        else if (rec.type == FSC_RR_NODE && name->kind == FSC_RR_NAME_NODE)
            add_node(rep, &rec, name);
        if (rc < 0)
            break;
    }
    struct fsc_rollup_read_stats st;
    fsc_rollup_reader_stats(rd, &st);
    fsc_rollup_reader_close(rd);
    if (rc < 0) {
        snprintf(err, errlen, "reading the rollup store at %s: %s", dir, strerror(-rc));
        return rc;
    }
    if (st.crc_errors || st.bad_files || st.unnamed)
        fsc_report_note(rep,
                        "rollup store: %llu damaged records, %u unreadable files and %llu records "
                        "without a name were skipped",
                        (unsigned long long)st.crc_errors, st.bad_files,
                        (unsigned long long)st.unnamed);
    finish_dirs(rep);
    rep->covered_s = 0;
    for (size_t m = 0; m < rep->n_minutes; m++)
        rep->covered_s += rep->minute_ms[m] / 1000.0;
    free(rep->minute_ms);
    rep->minute_ms = NULL;
    if (n == 0) {
        snprintf(err, errlen, "the rollup store at %s has no record in the range", dir);
        return -ENODATA;
    }
    return 0;
}
