/* The nic source's ports: their readers, the series of their counters
 * (resolved once per name and cached in the reader's tag or the ethtool
 * index table), and the fast poll that reads them all into one engine batch
 * without allocating. Which ports there are: nic_poll_discover.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "sources/nic/nic_source_int.h"

/* ---- series of counters ---------------------------------------------------------- */

/* The plan of counter `name` of port p (nic_plan.h). */
static int counter_plan(const struct nic_ctx *ctx, const struct nic_port *p, int group,
                        const char *name, struct fsc_nic_plan *out)
{
    const struct fsc_nic_plan_in in = {
        .prof = ctx->prof,
        .group = group,
        .lifespan_ms = p->lifespan_ms,
        .interval_ns = ctx->cfg->interval_ns,
        .speed_bps = p->speed_bps,
    };
    return fsc_nic_counter_plan(&in, name, out);
}

/* The series of counter `name`, or NIC_TAG_REFUSED; *mult its value
 * multiplier (counter_plan). */
static uint32_t counter_series(struct nic_ctx *ctx, const struct nic_port *p, int group,
                               const char *name, uint32_t *mult)
{
    struct fsc_nic_plan pl;
    *mult = 1;
    if (counter_plan(ctx, p, group, name, &pl) != 0) {
        fsc_log(FSC_LOG_WARN, "nic_counter_skipped", "source=%s port=%s counter=%s reason=name",
                ctx->name, p->name, name);
        return NIC_TAG_REFUSED;
    }
    *mult = pl.mult;
    struct fsc_label ex = {pl.m.label_name, pl.m.label_value};
    bool extra = pl.m.label_name[0] && pl.m.label_value[0];
    fsc_series_id id = nic_series(ctx, pl.metric, &p->lab, &ex, extra ? 1 : 0, &pl.tr);
    fsc_source_tap_series(&ctx->env, id, name, pl.m.entry != NULL);
    return id == FSC_SERIES_NONE ? NIC_TAG_REFUSED : id;
}

static void cdir_resolve(struct nic_ctx *ctx, struct nic_port *p, int group)
{
    size_t n;
    struct fsc_nic_counter *ctr = fsc_nic_cdir_counters(p->cd[group], &n);
    for (size_t i = 0; i < n; i++)
        if (ctr[i].tag == FSC_NIC_TAG_NONE)
            ctr[i].tag = counter_series(ctx, p, group, ctr[i].name, &ctr[i].scale);
}

struct id_ref {
    fsc_series_id id;
    uint32_t prio; /* 0: a directory counter, 1: ethtool index */
    size_t idx;
};

static int cmp_ref(const void *a, const void *b)
{
    const struct id_ref *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Maps every ethtool name to its series. A name that maps to a series
 * already fed (a driver listing a name twice, or naming a stat like a file
 * of the port's directories) is skipped: two readings of one series at one
 * time would be dropped as out of order. */
static int et_resolve(struct nic_ctx *ctx, struct nic_port *p)
{
    size_t n = fsc_nic_ethtool_count(p->et), extra = 0;
    fsc_series_id *ids = realloc(p->et_ids, (n ? n : 1) * sizeof(*ids));
    if (!ids)
        return -ENOMEM;
    p->et_ids = ids;
    uint32_t *mult = realloc(p->et_scale, (n ? n : 1) * sizeof(*mult));
    if (!mult) {
        p->et_n = 0; /* et_ids may have shrunk; need_et stays set: retried */
        return -ENOMEM;
    }
    p->et_scale = mult;
    p->et_n = n;
    for (size_t i = 0; i < n; i++) {
        uint32_t t =
            counter_series(ctx, p, NIC_G_ETHTOOL, fsc_nic_ethtool_name(p->et, i), &mult[i]);
        ids[i] = t >= NIC_TAG_REFUSED ? FSC_SERIES_NONE : t;
    }
    for (int g = 0; g < NIC_G__CDIRS; g++)
        if (p->cd[g]) {
            size_t k;
            fsc_nic_cdir_counters(p->cd[g], &k);
            extra += k;
        }
    struct id_ref *refs = malloc((n + extra + 1) * sizeof(*refs));
    if (!refs)
        return -ENOMEM;
    size_t r = 0;
    for (int g = 0; g < NIC_G__CDIRS; g++) {
        if (!p->cd[g])
            continue;
        size_t k;
        const struct fsc_nic_counter *ctr = fsc_nic_cdir_counters(p->cd[g], &k);
        for (size_t i = 0; i < k; i++)
            if (ctr[i].tag < NIC_TAG_REFUSED)
                refs[r++] = (struct id_ref){ctr[i].tag, 0, i};
    }
    for (size_t i = 0; i < n; i++)
        if (ids[i] != FSC_SERIES_NONE)
            refs[r++] = (struct id_ref){ids[i], 1, i};
    qsort(refs, r, sizeof(*refs), cmp_ref);
    for (size_t i = 1; i < r; i++)
        if (refs[i].id == refs[i - 1].id && refs[i].prio == 1)
            ids[refs[i].idx] = FSC_SERIES_NONE;
    free(refs);
    return 0;
}

/* Which counters feed the node aggregate (nic_aggregate.h says why). */
static void agg_source(struct nic_port *p)
{
    p->agg_src = NIC_AGG_NONE;
    p->agg_idx[0] = p->agg_idx[1] = -1;
    if (p->et && !p->need_et) {
        long rx = fsc_nic_ethtool_find(p->et, "rx_vport_rdma_unicast_bytes");
        long tx = fsc_nic_ethtool_find(p->et, "tx_vport_rdma_unicast_bytes");
        if (rx >= 0 && tx >= 0 && (size_t)rx < p->et_n && (size_t)tx < p->et_n) {
            p->agg_src = NIC_AGG_ETHTOOL;
            p->agg_idx[FSC_NIC_AGG_RX] = rx;
            p->agg_idx[FSC_NIC_AGG_TX] = tx;
            return;
        }
    }
    if (p->cd[NIC_G_PMA]) {
        long rx = fsc_nic_cdir_find(p->cd[NIC_G_PMA], "port_rcv_data");
        long tx = fsc_nic_cdir_find(p->cd[NIC_G_PMA], "port_xmit_data");
        if (rx >= 0 && tx >= 0) {
            p->agg_src = NIC_AGG_PMA;
            p->agg_idx[FSC_NIC_AGG_RX] = rx;
            p->agg_idx[FSC_NIC_AGG_TX] = tx;
        }
    }
}

void nic_port_retrait(struct nic_ctx *ctx, struct nic_port *p)
{
    struct fsc_nic_plan pl;
    for (int g = 0; g < NIC_G__CDIRS; g++) {
        if (!p->cd[g])
            continue;
        size_t n;
        const struct fsc_nic_counter *ctr = fsc_nic_cdir_counters(p->cd[g], &n);
        for (size_t i = 0; i < n; i++)
            if (ctr[i].tag < NIC_TAG_REFUSED && counter_plan(ctx, p, g, ctr[i].name, &pl) == 0)
                fsc_engine_set_traits(ctx->env.eng, ctr[i].tag, &pl.tr);
    }
    for (size_t i = 0; p->et && !p->need_et && i < p->et_n; i++)
        if (p->et_ids[i] != FSC_SERIES_NONE &&
            counter_plan(ctx, p, NIC_G_ETHTOOL, fsc_nic_ethtool_name(p->et, i), &pl) == 0)
            fsc_engine_set_traits(ctx->env.eng, p->et_ids[i], &pl.tr);
}

/* ---- readers --------------------------------------------------------------------- */

/* Logs a reader that cannot be opened, once per port and kind. */
static void absent(struct nic_ctx *ctx, struct nic_port *p, unsigned bit, const char *what,
                   const char *why)
{
    if (p->warned & (1u << bit))
        return;
    p->warned |= (uint8_t)(1u << bit);
    char q[300];
    fsc_log(FSC_LOG_WARN, "nic_reader_absent", "source=%s port=%s reader=%s reason=%s", ctx->name,
            p->name, what, fsc_log_quote(why, q, sizeof(q)));
}

static void pcie_series(struct nic_ctx *ctx, struct nic_port *p)
{
    static const char *const which[2] = {"current", "max"};
    struct fsc_label ex[2] = {{"pci", p->bdf}, {"kind", NULL}};
    struct fsc_traits tr = nic_gauge_traits(FSC_UNIT_NONE, NIC_SLOW_NS);
    for (int k = 0; k < 2; k++) {
        ex[1].value = which[k];
        if (p->pcie_speed_id[k] == FSC_SERIES_NONE)
            p->pcie_speed_id[k] =
                nic_series(ctx, "fabric_pcie_link_speed_gts", &p->lab, ex, 2, &tr);
        if (p->pcie_width_id[k] == FSC_SERIES_NONE)
            p->pcie_width_id[k] = nic_series(ctx, "fabric_pcie_link_width", &p->lab, ex, 2, &tr);
    }
    if (p->pcie_degraded_id == FSC_SERIES_NONE)
        p->pcie_degraded_id = nic_series(ctx, "fabric_pcie_link_degraded", &p->lab, ex, 1, &tr);
}

static void open_readers(struct nic_ctx *ctx, struct nic_port *p)
{
    static const char *const dir[NIC_G__CDIRS] = {"hw_counters", "counters", "statistics"};
    char rel[FSC_CONFIG_MAX_NAME + 96], err[256];
    for (int g = 0; g < NIC_G__CDIRS; g++) {
        if (p->cd[g])
            continue;
        if (g == NIC_G_STAT) {
            if (!p->netdev[0])
                continue;
            snprintf(rel, sizeof(rel), "class/net/%s/statistics", p->netdev);
        } else {
            snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/%s", p->rdma, p->ibport,
                     dir[g]);
        }
        p->cd[g] = fsc_nic_cdir_create(ctx->sysfs, rel, 0, err, sizeof(err));
        if (!p->cd[g])
            absent(ctx, p, (unsigned)g, dir[g], err);
        else if (g == NIC_G_HW)
            p->lifespan_ms = fsc_nic_cdir_lifespan_ms(p->cd[g]);
    }
    if (p->netdev[0] && !p->link) {
        p->link = fsc_nic_link_create(ctx->sysfs, p->netdev, err, sizeof(err));
        p->link_gone = 0;
        if (!p->link) {
            absent(ctx, p, 3, "link", err);
        } else if (fsc_nic_link_read(p->link, &p->link_now) == 0) {
            if (p->link_now.speed_mbps > 0)
                p->speed_bps = (uint64_t)p->link_now.speed_mbps * 1000000u;
        }
    }
    /* One rule for every source (engine/link_speed.h): the topology's speed
     * when it names the port with one, else the kernel's (sysfs `speed`),
     * else, for a port down at start, the cable plan's. */
    if (p->topo_bps)
        p->speed_bps = p->topo_bps;
    else if (!p->speed_bps && p->plan && p->plan->cabled)
        p->speed_bps = p->plan->speed_bps;
    if (ctx->ethtool && p->netdev[0] && !p->et) {
        int errnum = 0;
        p->et = fsc_nic_ethtool_create(p->netdev, ctx->sock, 0, &errnum, err, sizeof(err));
        p->et_gone = 0;
        if (!p->et)
            absent(ctx, p, 4, "ethtool", err);
        else
            p->need_et = 1;
    } else if (ctx->fixture && p->netdev[0] && !p->et) {
        /* A fixture's statistics file, when the tree has one (nic_ethtool.h):
         * a tree without is a sysfs-only fixture, not an absence to log. */
        char path[FSC_NIC_PATH_MAX];
        int errnum = 0;
        p->et_gone = 0;
        if (snprintf(path, sizeof(path), "%s/%s", ctx->et_dir, p->netdev) < (int)sizeof(path))
            p->et = fsc_nic_ethtool_create_file(path, 0, &errnum, err, sizeof(err));
        if (p->et)
            p->need_et = 1;
        else if (errnum != 0 && errnum != -ENOENT)
            absent(ctx, p, 4, "ethtool", err);
    }
    if (ctx->pcie && !p->pcie) {
        p->pcie_gone = 0;
        int rc = p->bdf[0] ? 0
                           : fsc_nic_pcie_resolve(ctx->sysfs, "infiniband", p->rdma, p->bdf,
                                                  sizeof(p->bdf));
        if (rc != 0 && p->netdev[0])
            rc = fsc_nic_pcie_resolve(ctx->sysfs, "net", p->netdev, p->bdf, sizeof(p->bdf));
        if (rc != 0) {
            p->bdf[0] = '\0';
            absent(ctx, p, 5, "pcie", "no PCI device link");
        } else if (!(p->pcie = fsc_nic_pcie_create(ctx->sysfs, p->bdf, err, sizeof(err)))) {
            absent(ctx, p, 5, "pcie", err);
        }
    }
    if (p->link) {
        struct fsc_traits tr = nic_gauge_traits(FSC_UNIT_NONE, ctx->cfg->interval_ns);
        if (p->link_up_id == FSC_SERIES_NONE)
            p->link_up_id = nic_series(ctx, "fabric_port_link_up", &p->lab, NULL, 0, &tr);
        if (p->link_speed_id == FSC_SERIES_NONE)
            p->link_speed_id =
                nic_series(ctx, "fabric_port_link_speed_bits_per_second", &p->lab, NULL, 0, &tr);
    }
    if (p->pcie)
        pcie_series(ctx, p);
}

/* Tags of new directory counters, ethtool names when asked, aggregate. */
static int resolve_all(struct nic_ctx *ctx, struct nic_port *p)
{
    for (int g = 0; g < NIC_G__CDIRS; g++)
        if (p->cd[g])
            cdir_resolve(ctx, p, g);
    if (p->et && p->need_et) {
        if (et_resolve(ctx, p) != 0)
            return -ENOMEM;
        p->need_et = 0;
    }
    agg_source(p);
    return 0;
}

int nic_port_open(struct nic_ctx *ctx, struct nic_port *p)
{
    open_readers(ctx, p);
    return resolve_all(ctx, p);
}

void nic_port_close(struct nic_port *p)
{
    for (int g = 0; g < NIC_G__CDIRS; g++) {
        fsc_nic_cdir_destroy(p->cd[g]);
        p->cd[g] = NULL;
    }
    fsc_nic_ethtool_destroy(p->et);
    fsc_nic_link_destroy(p->link);
    fsc_nic_pcie_destroy(p->pcie);
    free(p->et_ids);
    free(p->et_scale);
    p->et = NULL;
    p->link = NULL;
    p->pcie = NULL;
    p->et_ids = NULL;
    p->et_scale = NULL;
    p->et_n = 0;
}

void nic_port_refresh(struct nic_ctx *ctx, struct nic_port *p, bool force)
{
    for (int g = 0; g < NIC_G__CDIRS; g++)
        if (p->cd[g] && (force || p->need_rescan))
            fsc_nic_cdir_rescan(p->cd[g]); /* < 0: gone for now, kept as it was */
    p->need_rescan = 0;
    if (p->et_gone) {
        fsc_nic_ethtool_destroy(p->et);
        p->et = NULL;
    }
    if (p->link_gone) {
        fsc_nic_link_destroy(p->link);
        p->link = NULL;
        p->link_ok = 0;
    }
    if (p->pcie_gone) {
        fsc_nic_pcie_destroy(p->pcie);
        p->pcie = NULL;
    }
    int rc = force ? nic_port_open(ctx, p) : resolve_all(ctx, p);
    if (rc != 0)
        fsc_log(FSC_LOG_WARN, "nic_out_of_memory", "source=%s port=%s", ctx->name, p->name);
}

int nic_samples_reserve(struct nic_ctx *ctx)
{
    size_t need = 2 * FSC_NIC_AGG__DIRS;
    for (size_t i = 0; i < ctx->n_ports; i++) {
        const struct nic_port *p = &ctx->ports[i];
        for (int g = 0; g < NIC_G__CDIRS; g++)
            if (p->cd[g]) {
                size_t k;
                fsc_nic_cdir_counters(p->cd[g], &k);
                need += k;
            }
        need += p->et_n + 2;
    }
    if (need <= ctx->smp_cap)
        return 0;
    need += need / 4; /* room for a few more counters without another realloc */
    struct fsc_sample *s = realloc(ctx->smp, need * sizeof(*s));
    if (!s)
        return -ENOMEM;
    ctx->smp = s;
    ctx->smp_cap = need;
    return 0;
}

/* ---- the fast poll ------------------------------------------------------------------ */

struct batch {
    struct fsc_sample *smp;
    size_t n, cap;
};

static inline void put_u(struct batch *b, fsc_series_id id, int64_t t, uint64_t v)
{
    if (b->n < b->cap)
        b->smp[b->n++] = (struct fsc_sample){.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
}

/* A value with a time of its own (t_dev), read at t_arr. */
static inline void put_u_at(struct batch *b, fsc_series_id id, int64_t t_dev, int64_t t_arr,
                            uint64_t v)
{
    if (b->n < b->cap)
        b->smp[b->n++] =
            (struct fsc_sample){.series = id, .t_dev_ns = t_dev, .t_arr_ns = t_arr, .v.u = v};
}

static inline void put_d(struct batch *b, fsc_series_id id, int64_t t, double v)
{
    if (id != FSC_SERIES_NONE && b->n < b->cap)
        b->smp[b->n++] = (struct fsc_sample){
            .series = id, .flags = FSC_SMP_F64, .t_dev_ns = t, .t_arr_ns = t, .v.d = v};
}

static uint64_t poll_port(struct nic_ctx *ctx, struct nic_port *p, size_t port_index,
                          struct batch *b)
{
    uint64_t counters = 0;
    /* The host's own clock, read right before this port's reads: the
     * device has no timestamp of its own, and this is as close to the
     * moment the kernel produced the values as a poller gets. */
    const int64_t t = fsc_now_ns();
    for (int g = 0; g < NIC_G__CDIRS; g++) {
        struct fsc_nic_cdir *cd = p->cd[g];
        if (!cd)
            continue;
        int rc = fsc_nic_cdir_read(cd);
        if (rc < 0)
            p->need_rescan = 1;
        if (rc != 0)
            ctx->st.read_errors += rc > 0 ? (uint64_t)rc : 1u;
        size_t n;
        const struct fsc_nic_counter *ctr = fsc_nic_cdir_counters(cd, &n);
        for (size_t i = 0; i < n; i++) {
            const struct fsc_nic_counter *c = &ctr[i];
            if (c->err != 0 || !c->valid || c->tag >= NIC_TAG_REFUSED)
                continue;
            /* in the metric's unit (nic_plan.h); a word counter past 2^62
             * wraps the product, which the engine reads as one reset */
            put_u(b, c->tag, t, c->value * c->scale);
            counters++;
        }
        if (g == NIC_G_PMA && p->agg_src == NIC_AGG_PMA) {
            for (unsigned d = 0; d < FSC_NIC_AGG__DIRS; d++) {
                long k = p->agg_idx[d];
                if (k >= 0 && (size_t)k < n && ctr[k].err == 0 && ctr[k].valid)
                    fsc_nic_agg_observe(&ctx->agg, port_index, d, ctr[k].value * ctr[k].scale);
            }
        }
    }
    if (p->et && !p->need_et && !p->et_gone) {
        int rc = fsc_nic_ethtool_read(p->et);
        if (rc == FSC_NIC_ETHTOOL_CHANGED) {
            p->need_et = 1; /* names re-mapped by the slow work; values skipped once */
        } else if (rc < 0) {
            ctx->st.read_errors++;
            p->et_gone = rc == -ENODEV;
        } else {
            const uint64_t *v = fsc_nic_ethtool_values(p->et);
            /* A fixture file's values carry the time they were made at. */
            const int64_t t_et = fsc_nic_ethtool_time_ns(p->et);
            for (size_t i = 0; i < p->et_n; i++) {
                if (p->et_ids[i] == FSC_SERIES_NONE)
                    continue;
                put_u_at(b, p->et_ids[i], t_et ? t_et : t, t, v[i] * p->et_scale[i]);
                counters++;
            }
            if (p->agg_src == NIC_AGG_ETHTOOL)
                for (unsigned d = 0; d < FSC_NIC_AGG__DIRS; d++)
                    fsc_nic_agg_observe(&ctx->agg, port_index, d,
                                        v[p->agg_idx[d]] * p->et_scale[p->agg_idx[d]]);
        }
    }
    if (p->link && !p->link_gone) {
        int rc = fsc_nic_link_read(p->link, &p->link_now);
        p->link_ok = rc == 0;
        if (rc == -ENODEV)
            p->link_gone = 1;
        if (rc != 0)
            ctx->st.read_errors++;
        if (p->link_ok) {
            if (p->link_up_id != FSC_SERIES_NONE)
                put_u(b, p->link_up_id, t, p->link_now.oper == FSC_OPER_UP);
            if (p->link_speed_id != FSC_SERIES_NONE)
                put_u(b, p->link_speed_id, t,
                      p->link_now.speed_mbps > 0 ? (uint64_t)p->link_now.speed_mbps * 1000000u : 0);
        }
    }
    return counters;
}

void nic_poll_once(struct nic_ctx *ctx, int64_t t0)
{
    struct batch b = {ctx->smp, 0, ctx->smp_cap};
    uint64_t counters = 0;
    for (size_t i = 0; i < ctx->n_ports; i++)
        counters += poll_port(ctx, &ctx->ports[i], i, &b);
    ctx->st.counters_last = counters;

    struct fsc_nic_agg_result res;
    if (ctx->n_ports && fsc_nic_agg_tick(&ctx->agg, t0, ctx->capacity_bps, &res)) {
        for (unsigned d = 0; d < FSC_NIC_AGG__DIRS; d++) {
            put_d(&b, ctx->agg_bits_id[d], t0, res.bits_per_second[d]);
            if (res.efficiency[d] >= 0)
                put_d(&b, ctx->agg_eff_id[d], t0, res.efficiency[d]);
        }
    }
    if (b.n && fsc_engine_ingest(ctx->env.eng, b.smp, b.n) != 0)
        fsc_log(FSC_LOG_WARN, "ingest_failed", "source=%s", ctx->name);
}
