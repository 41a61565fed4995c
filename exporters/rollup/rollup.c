/* The rollup: polls engine views, accumulates per-minute aggregates and
 * writes them to the store (contract in rollup.h). */
#include "rollup/rollup.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/intdiv.h"
#include "base/log.h"
#include "rollup/rollup_int.h"

#define VIEW_CHUNK  512 /* views copied per engine lock hold */
#define WRITE_CHUNK 256 /* records per store append */
#define NS_PER_S    1000000000LL

struct fsc_rollup *fsc_rollup_create(const struct fsc_rollup_params *params,
                                     const struct fsc_rollup_env *env, int64_t now_ns, char *err,
                                     size_t errlen)
{
    if (!env->reg || !env->eng || !env->engine_cfg || !params->dir) {
        snprintf(err, errlen, "rollup: registry, engine, engine config and directory are required");
        return NULL;
    }
    struct fsc_rollup *ru = calloc(1, sizeof(*ru));
    if (!ru) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ru->env = *env;
    ru->ecfg = *env->engine_cfg;
    ru->minute_s = INT64_MIN;
    ru->tick_ns = params->tick_ns > 0 ? params->tick_ns : FSC_ROLLUP_TICK_NS;
    for (unsigned l = 0; l < ru->ecfg.rate.n_windows && l < FSC_MAX_WINDOWS; l++)
        if (ru->ecfg.rate.window_ns[l] == NS_PER_S)
            ru->level_1s = l;
    ru->views = calloc(VIEW_CHUNK, sizeof(*ru->views));
    ru->batch = calloc(WRITE_CHUNK, sizeof(*ru->batch));
    if (!ru->views || !ru->batch) {
        snprintf(err, errlen, "out of memory");
        free(ru->views);
        free(ru->batch);
        free(ru);
        return NULL;
    }
    ru->store =
        fsc_rollup_store_open(params->dir, params->retention_ns / NS_PER_S, params->max_bytes,
                              fsc_floor_div(now_ns, NS_PER_S), err, errlen);
    if (!ru->store) {
        free(ru->views);
        free(ru->batch);
        free(ru);
        return NULL;
    }
    pthread_mutex_init(&ru->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ru->cv, &ca);
    pthread_condattr_destroy(&ca);
    return ru;
}

void fsc_rollup_destroy(struct fsc_rollup *ru)
{
    if (!ru)
        return;
    fsc_rollup_store_close(ru->store);
    pthread_cond_destroy(&ru->cv);
    pthread_mutex_destroy(&ru->mu);
    free(ru->entries);
    free(ru->ports);
    free(ru->port_hash);
    free(ru->nodes);
    free(ru->groups);
    free(ru->views);
    free(ru->batch);
    free(ru);
}

/* ---- polling ---------------------------------------------------------------------- */

/* Increase of a cumulative value; a decrease counts from zero (the engine's
 * detector restarted, or the device reset its counter), as increase() does. */
static double inc_u64(uint64_t cur, uint64_t prev)
{
    return cur >= prev ? (double)(cur - prev) : (double)cur;
}

static double inc_f64(double cur, double prev)
{
    return cur >= prev ? cur - prev : cur;
}

static uint32_t inc_u32(uint64_t cur, uint64_t prev)
{
    uint64_t d = cur >= prev ? cur - prev : cur;
    return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static double value_of(const struct fsc_series_view *v)
{
    return v->is_f64 ? v->value.d : (double)v->value.u;
}

static double value_inc(const struct ru_entry *e, const struct fsc_series_view *v)
{
    if (v->is_f64 || e->prev_f64)
        return inc_f64(value_of(v), e->prev_f64 ? e->prev.value.d : (double)e->prev.value.u);
    return inc_u64(v->value.u, e->prev.value.u);
}

static void cum_of(const struct fsc_series_view *v, struct ru_cum *c)
{
    c->value = v->value;
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        c->util[b] = v->util.bucket[b];
    c->util_sum = v->util.sum;
    c->events = v->events;
    c->bursts = v->bursts;
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        c->dur[b] = v->microburst_duration.bucket[b];
    c->dur_sum = v->microburst_duration.sum;
}

static void fmax_to(float *dst, double v)
{
    if (isfinite(v) && v > *dst)
        *dst = (float)v;
}

/* Window peaks and 1 s averages of the windows that completed since the
 * previous poll. A window's end is read off the last sample time: the
 * engine completes a window when an interval reaches its end edge. */
static void poll_windows(struct fsc_rollup *ru, struct ru_entry *e, const struct fsc_series_view *v,
                         struct fsc_rr_dir *acc)
{
    double to_util = 8.0 / (double)v->link_speed_bps;
    if (v->fine_rate >= 0) /* -1: the latest interval was no fine evidence */
        fmax_to(&acc->max_fine, v->fine_rate * to_util);
    for (unsigned l = 0; l < ru->ecfg.rate.n_windows && l < FSC_MAX_WINDOWS; l++) {
        if (!(v->windows_done & (1u << l)))
            continue;
        int64_t w = ru->ecfg.rate.window_ns[l];
        int64_t end = fsc_floor_div(v->t_last_ns, w) * w;
        if (end == e->last_end[l])
            continue;
        e->last_end[l] = end;
        fmax_to(&acc->max_fine, v->window_peak[l] * to_util);
        if (l == ru->level_1s)
            fmax_to(&acc->max_1s, v->window_rate[l] * to_util);
    }
}

static void poll_bytes(struct fsc_rollup *ru, struct ru_entry *e, const struct fsc_series_view *v)
{
    struct ru_port *p = &ru->ports[e->owner];
    struct fsc_rr_dir *acc = &p->acc.dir[e->dir];
    p->flags |= e->dir == FSC_RR_TX ? FSC_RR_F_TX : FSC_RR_F_RX;
    if (v->link_speed_bps && v->link_speed_bps != p->name.speed_bps) {
        p->name.speed_bps = v->link_speed_bps; /* learned later (NIC link up) */
        p->defined = false;
    }
    struct ru_cum cur;
    cum_of(v, &cur);
    if (e->have_prev && v->has_value) {
        acc->bytes += value_inc(e, v);
        /* the increase spans the samples' times: that is the time these
         * bytes are spread over, whatever the poll cadence */
        if (v->t_value_ns > e->prev_t_ns)
            p->covered_ns[e->dir] += v->t_value_ns - e->prev_t_ns;
        for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
            acc->util[b] += inc_u32(cur.util[b], e->prev.util[b]);
        acc->util_sum += inc_f64(cur.util_sum, e->prev.util_sum);
        acc->bursts += inc_u32(cur.events, e->prev.events);
        acc->long_bursts += inc_u32(cur.bursts, e->prev.bursts);
        for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
            acc->dur[b] += inc_u32(cur.dur[b], e->prev.dur[b]);
        acc->dur_sum += (float)inc_f64(cur.dur_sum, e->prev.dur_sum);
    }
    if (v->has_util && v->link_speed_bps)
        poll_windows(ru, e, v, acc);
    if (v->has_value) {
        e->prev = cur;
        e->prev_f64 = v->is_f64;
        e->prev_t_ns = v->t_value_ns;
        e->have_prev = 1;
    }
}

static void poll_entry(struct fsc_rollup *ru, struct ru_entry *e, const struct fsc_series_view *v)
{
    if (!v->present)
        return;
    switch (e->what) {
    case RU_RX_BYTES:
    case RU_TX_BYTES:
        poll_bytes(ru, e, v);
        return;
    case RU_CNP:
    case RU_PFC:
    case RU_IB_RX: {
        struct ru_port *p = &ru->ports[e->owner];
        p->flags |= e->what == RU_CNP   ? FSC_RR_F_CNP
                    : e->what == RU_PFC ? FSC_RR_F_PFC
                                        : FSC_RR_F_IB_RX;
        if (!v->has_value)
            return;
        if (e->have_prev) {
            double d = value_inc(e, v);
            int64_t *span = &p->counter_ns[e->what == RU_CNP ? 0 : e->what == RU_PFC ? 1 : 2];
            if (v->t_value_ns > e->prev_t_ns)
                *span += v->t_value_ns - e->prev_t_ns;
            if (e->what == RU_CNP)
                p->acc.cnp += d;
            else if (e->what == RU_IB_RX)
                p->acc.ib_rx_bytes += d;
            else
                p->acc.pfc_pause_s += v->unit == FSC_UNIT_MICROSECONDS ? d * 1e-6 : d;
        }
        e->prev.value = v->value;
        e->prev_f64 = v->is_f64;
        e->prev_t_ns = v->t_value_ns;
        e->have_prev = 1;
        return;
    }
    case RU_NODE_BPS:
    case RU_NODE_EFF: {
        struct ru_node *nd = &ru->nodes[e->owner];
        if (!v->has_value)
            return;
        double x = value_of(v);
        if (!isfinite(x))
            return;
        if (e->what == RU_NODE_BPS) {
            nd->bps_sum[e->dir] += x;
            nd->bps_polls[e->dir]++;
            if (nd->bps_polls[e->dir] == 1 || x > nd->acc.bps_max[e->dir])
                nd->acc.bps_max[e->dir] = x;
        } else {
            nd->eff_sum[e->dir] += x;
            nd->eff_polls[e->dir]++;
            nd->flags |= FSC_RR_F_EFF;
        }
        return;
    }
    default:
        return;
    }
}

static void poll_groups(struct fsc_rollup *ru)
{
    for (size_t g = 0; g < ru->n_groups; g++) {
        struct fsc_group_view gv;
        struct ru_group *gr = &ru->groups[g];
        if (fsc_engine_group_view(ru->env.eng, (uint32_t)g, &gv) != 0)
            continue;
        gr->ratio_sum += gv.ratio;
        gr->acc.polls++;
        if (gv.ratio > gr->acc.ratio_max)
            gr->acc.ratio_max = gv.ratio;
        gr->acc.members = gv.members;
        if (gr->have_prev)
            gr->acc.events += inc_u32(gv.events, gr->prev_events);
        gr->prev_events = gv.events;
        gr->have_prev = true;
    }
}

static void poll_all(struct fsc_rollup *ru)
{
    fsc_series_id ids[VIEW_CHUNK];
    for (size_t i = 0; i < ru->n_entries; i += VIEW_CHUNK) {
        size_t n = ru->n_entries - i < VIEW_CHUNK ? ru->n_entries - i : VIEW_CHUNK;
        for (size_t k = 0; k < n; k++)
            ids[k] = ru->entries[i + k].id;
        fsc_engine_view_ids(ru->env.eng, ids, n, ru->views);
        for (size_t k = 0; k < n; k++)
            poll_entry(ru, &ru->entries[i + k], &ru->views[k]);
    }
    poll_groups(ru);
}

/* ---- writing ------------------------------------------------------------------- */

/* Records waiting for one store append (ru->batch holds WRITE_CHUNK). */
struct batch {
    struct fsc_rr_record *rec;
    size_t n;
    int rc;
};

static void batch_push(struct fsc_rollup *ru, struct batch *b, const struct fsc_rr_record *rec,
                       int64_t now_s)
{
    b->rec[b->n++] = *rec;
    if (b->n == WRITE_CHUNK) {
        int rc = fsc_rollup_store_append(ru->store, b->rec, b->n, now_s);
        if (rc != 0 && b->rc == 0)
            b->rc = rc;
        b->n = 0;
    }
}

static void define(struct fsc_rollup *ru, uint32_t key, const struct fsc_rr_name *name,
                   bool *defined)
{
    if (!*defined && fsc_rollup_store_define(ru->store, key, name) == 0)
        *defined = true;
}

static void group_name(const struct fsc_rollup *ru, size_t g, struct fsc_rr_name *name)
{
    memset(name, 0, sizeof(*name));
    name->kind = FSC_RR_NAME_GROUP;
    name->rail = -1;
    if (ru->env.topo && g < ru->env.topo->n_groups)
        snprintf(name->device, sizeof(name->device), "%s", ru->env.topo->groups[g].name);
    else
        snprintf(name->device, sizeof(name->device), "group%zu", g);
}

/* Writes the accumulators as records of minute_s and clears them. */
static int write_minute(struct fsc_rollup *ru, int64_t minute_s, int64_t now_s)
{
    struct batch b = {.rec = ru->batch};
    struct batch *bp = &b;
    struct fsc_rr_record rec;
    for (size_t i = 0; i < ru->n_ports; i++) {
        struct ru_port *p = &ru->ports[i];
        if (p->flags) {
            define(ru, p->key, &p->name, &p->defined);
            memset(&rec, 0, sizeof(rec));
            rec.type = FSC_RR_PORT;
            rec.flags = p->flags | FSC_RR_F_COVERED;
            rec.key = p->key;
            rec.minute_s = minute_s;
            rec.port = p->acc;
            for (unsigned d = 0; d < FSC_RR_DIRS; d++) {
                /* a span longer than the minute (a series back from a gap)
                 * is capped: the record says how much of *its* minute */
                int64_t ms = (p->covered_ns[d] + 500000) / 1000000;
                rec.port.dir[d].covered_ms =
                    (uint32_t)(ms < FSC_RR_MINUTE_S * 1000 ? ms : FSC_RR_MINUTE_S * 1000);
            }
            int64_t cn = 0; /* the longest-running counter's span */
            for (unsigned k = 0; k < 3; k++)
                cn = p->counter_ns[k] > cn ? p->counter_ns[k] : cn;
            cn = (cn + 500000) / 1000000;
            rec.port.counters_ms =
                (uint32_t)(cn < FSC_RR_MINUTE_S * 1000 ? cn : FSC_RR_MINUTE_S * 1000);
            batch_push(ru, bp, &rec, now_s);
        }
        memset(&p->acc, 0, sizeof(p->acc));
        memset(p->covered_ns, 0, sizeof(p->covered_ns));
        memset(p->counter_ns, 0, sizeof(p->counter_ns));
        p->flags = 0;
    }
    for (size_t g = 0; g < ru->n_groups; g++) {
        struct ru_group *gr = &ru->groups[g];
        if (gr->acc.polls) {
            struct fsc_rr_name name;
            group_name(ru, g, &name);
            define(ru, gr->key, &name, &gr->defined);
            memset(&rec, 0, sizeof(rec));
            rec.type = FSC_RR_GROUP;
            rec.key = gr->key;
            rec.minute_s = minute_s;
            rec.group = gr->acc;
            rec.group.ratio_mean = gr->ratio_sum / gr->acc.polls;
            batch_push(ru, bp, &rec, now_s);
        }
        memset(&gr->acc, 0, sizeof(gr->acc));
        gr->ratio_sum = 0;
    }
    for (size_t i = 0; i < ru->n_nodes; i++) {
        struct ru_node *nd = &ru->nodes[i];
        uint32_t polls = nd->bps_polls[0] > nd->bps_polls[1] ? nd->bps_polls[0] : nd->bps_polls[1];
        if (polls) {
            define(ru, nd->key, &nd->name, &nd->defined);
            memset(&rec, 0, sizeof(rec));
            rec.type = FSC_RR_NODE;
            rec.flags = nd->flags;
            rec.key = nd->key;
            rec.minute_s = minute_s;
            rec.node = nd->acc;
            rec.node.polls = polls;
            for (unsigned d = 0; d < FSC_RR_DIRS; d++) {
                rec.node.bps_mean[d] = nd->bps_polls[d] ? nd->bps_sum[d] / nd->bps_polls[d] : 0;
                rec.node.eff_mean[d] = nd->eff_polls[d] ? nd->eff_sum[d] / nd->eff_polls[d] : -1;
            }
            batch_push(ru, bp, &rec, now_s);
        }
        memset(&nd->acc, 0, sizeof(nd->acc));
        memset(nd->bps_sum, 0, sizeof(nd->bps_sum));
        memset(nd->eff_sum, 0, sizeof(nd->eff_sum));
        memset(nd->bps_polls, 0, sizeof(nd->bps_polls));
        memset(nd->eff_polls, 0, sizeof(nd->eff_polls));
        nd->flags = 0;
    }
    if (bp->n) {
        int rc = fsc_rollup_store_append(ru->store, bp->rec, bp->n, now_s);
        if (rc != 0 && bp->rc == 0)
            bp->rc = rc;
    }
    ru->stats.minutes++;
    return bp->rc;
}

static void publish_stats(struct fsc_rollup *ru)
{
    /* stats is written without the lock by this thread (discovery counts
     * dropped series as it goes); readers get the copy made here. */
    pthread_mutex_lock(&ru->mu);
    fsc_rollup_store_stats(ru->store, &ru->stats.store);
    ru->pub = ru->stats;
    pthread_mutex_unlock(&ru->mu);
}

int fsc_rollup_tick(struct fsc_rollup *ru, int64_t now_ns)
{
    int64_t now_s = fsc_floor_div(now_ns, NS_PER_S);
    int64_t minute = fsc_floor_div(now_s, FSC_RR_MINUTE_S) * FSC_RR_MINUTE_S;
    int rc = 0;
    /* out of memory here only delays tracking new series to the next tick */
    (void)fsc_ru_discover(ru);
    (void)fsc_ru_groups_sync(ru);
    poll_all(ru);
    pthread_mutex_lock(&ru->mu);
    ru->stats.ticks++;
    pthread_mutex_unlock(&ru->mu);
    if (ru->minute_s == INT64_MIN)
        ru->minute_s = minute;
    else if (minute > ru->minute_s) {
        rc = write_minute(ru, ru->minute_s, now_s);
        ru->minute_s = minute;
    }
    publish_stats(ru);
    return rc;
}

int fsc_rollup_flush(struct fsc_rollup *ru, int64_t now_ns)
{
    if (ru->minute_s == INT64_MIN)
        return 0;
    int rc = write_minute(ru, ru->minute_s, fsc_floor_div(now_ns, NS_PER_S));
    publish_stats(ru);
    return rc;
}

void fsc_rollup_stats(struct fsc_rollup *ru, struct fsc_rollup_stats *out)
{
    pthread_mutex_lock(&ru->mu);
    *out = ru->pub;
    pthread_mutex_unlock(&ru->mu);
}

/* ---- the daemon's thread ------------------------------------------------------ */

/* A minute that could not be written (disk full, I/O error) is logged once
 * per failing minute, and the first minute written again after that, so an
 * operator sees both the loss and the recovery; the counts are the store's
 * (fsc_rollup_store_stats). */
static void log_write(struct fsc_rollup *ru, int rc, bool *failing)
{
    struct fsc_rollup_store_stats st;
    fsc_rollup_store_stats(ru->store, &st);
    if (rc != 0) {
        fsc_log(FSC_LOG_ERROR, "rollup_write_failed",
                "error=%s dropped=%llu write_errors=%llu action=\"records of this minute lost; "
                "next minute retried\"",
                strerror(-rc), (unsigned long long)st.dropped, (unsigned long long)st.write_errors);
        *failing = true;
    } else if (*failing) {
        fsc_log(FSC_LOG_INFO, "rollup_write_recovered", "records=%llu dropped=%llu",
                (unsigned long long)st.records, (unsigned long long)st.dropped);
        *failing = false;
    }
}

static void *rollup_main(void *arg)
{
    struct fsc_rollup *ru = arg;
    bool failing = false;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&ru->mu);
    while (!ru->stop) {
        next.tv_nsec += ru->tick_ns % NS_PER_S;
        next.tv_sec += ru->tick_ns / NS_PER_S + next.tv_nsec / NS_PER_S;
        next.tv_nsec %= NS_PER_S;
        while (!ru->stop && pthread_cond_timedwait(&ru->cv, &ru->mu, &next) == 0)
            ; /* woken early without stop: keep the deadline */
        if (ru->stop)
            break;
        pthread_mutex_unlock(&ru->mu);
        uint64_t minutes = ru->stats.minutes; /* only this thread writes it */
        int rc = fsc_rollup_tick(ru, fsc_now_ns());
        if (ru->stats.minutes != minutes)
            log_write(ru, rc, &failing);
        pthread_mutex_lock(&ru->mu);
    }
    pthread_mutex_unlock(&ru->mu);
    return NULL;
}

struct fsc_rollup *fsc_rollup_start(const struct fsc_rollup_config *rc, const char *state_dir,
                                    const struct fsc_rollup_env *env, char *err, size_t errlen)
{
    char dir[FSC_CONFIG_MAX_PATH + 16];
    int len = snprintf(dir, sizeof(dir), "%s/rollup", state_dir);
    if (len < 0 || (size_t)len >= sizeof(dir)) {
        snprintf(err, errlen, "state_dir is too long");
        return NULL;
    }
    struct fsc_rollup_params p = {
        .dir = dir,
        .retention_ns = rc->retention_ns,
        .max_bytes = rc->max_bytes,
    };
    struct fsc_rollup *ru = fsc_rollup_create(&p, env, fsc_now_ns(), err, errlen);
    if (!ru)
        return NULL;
    if (pthread_create(&ru->thread, NULL, rollup_main, ru) != 0) {
        snprintf(err, errlen, "cannot start the rollup thread");
        fsc_rollup_destroy(ru);
        return NULL;
    }
    ru->thread_started = true;
    return ru;
}

void fsc_rollup_stop(struct fsc_rollup *ru)
{
    if (!ru)
        return;
    if (ru->thread_started) {
        pthread_mutex_lock(&ru->mu);
        ru->stop = true;
        pthread_cond_signal(&ru->cv);
        pthread_mutex_unlock(&ru->mu);
        pthread_join(ru->thread, NULL);
    }
    /* the last samples (sources stopped before this) into the minute in progress */
    int64_t now = fsc_now_ns();
    (void)fsc_rollup_tick(ru, now);
    (void)fsc_rollup_flush(ru, now);
    fsc_rollup_destroy(ru);
}
