/* fsc_nic_source_ops: one poller instance (nic_source.h): start/stop, the
 * poll thread with its single timer and the poller's own self-metrics. The
 * helpers every file of the poller uses (labels, series, the slow batch,
 * events) are nic_series.c. */
#include "sources/nic/nic_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "sources/nic/nic_source_int.h"

#define SLEEP_CHUNK_NS 200000000LL /* the stop flag is seen within this */

/* Self-metrics, engine series labelled {source}: names in docs/METRICS.md. */
enum {
    SELF_POLL_SECONDS = 0, /* gauge: duration of the last poll */
    SELF_POLL_MAX,         /* gauge: longest poll of the last 10 to 20 s */
    SELF_BUSY,             /* counter: seconds spent polling */
    SELF_POLLS,            /* counter: polls */
    SELF_OVERRUNS,         /* counter: deadlines missed (polls skipped) */
    SELF_COUNTERS,         /* gauge: counters read by the last poll */
    SELF_READ_ERRORS,      /* counter: failed reads */
    SELF_PORTS,            /* gauge: ports polled */
    SELF__COUNT
};

/* ---- self-metrics ------------------------------------------------------------------ */

static void self_setup(struct nic_ctx *ctx)
{
    static const struct {
        const char *metric;
        uint8_t kind, unit, f64;
    } self[SELF__COUNT] = {
        [SELF_POLL_SECONDS] = {"fabricscope_nic_poll_seconds", FSC_KIND_GAUGE, FSC_UNIT_SECONDS, 1},
        [SELF_POLL_MAX] = {"fabricscope_nic_poll_max_seconds", FSC_KIND_GAUGE, FSC_UNIT_SECONDS, 1},
        [SELF_BUSY] = {"fabricscope_nic_poll_busy_seconds_total", FSC_KIND_COUNTER,
                       FSC_UNIT_SECONDS, 1},
        [SELF_POLLS] = {"fabricscope_nic_polls_total", FSC_KIND_COUNTER, FSC_UNIT_NONE, 0},
        [SELF_OVERRUNS] = {"fabricscope_nic_poll_overruns_total", FSC_KIND_COUNTER, FSC_UNIT_NONE,
                           0},
        [SELF_COUNTERS] = {"fabricscope_nic_poll_counters", FSC_KIND_GAUGE, FSC_UNIT_NONE, 0},
        [SELF_READ_ERRORS] = {"fabricscope_nic_read_errors_total", FSC_KIND_COUNTER, FSC_UNIT_NONE,
                              0},
        [SELF_PORTS] = {"fabricscope_nic_ports", FSC_KIND_GAUGE, FSC_UNIT_NONE, 0},
    };
    struct nic_labels lab;
    memset(&lab, 0, sizeof(lab));
    nic_label_add(&lab, "source", ctx->name);
    for (int i = 0; i < SELF__COUNT; i++) {
        struct fsc_traits tr = nic_gauge_traits(self[i].unit, NIC_SLOW_NS);
        tr.kind = self[i].kind;
        tr.width = self[i].f64 && self[i].kind == FSC_KIND_COUNTER ? 53 : 64;
        ctx->self_id[i] = nic_series(ctx, self[i].metric, &lab, NULL, 0, &tr);
    }
}

static void self_sample(struct nic_ctx *ctx, int64_t now, int64_t prev_max_ns)
{
    const struct nic_stats *st = &ctx->st;
    int64_t mx = st->max_ns > prev_max_ns ? st->max_ns : prev_max_ns;
    nic_gauge_d(ctx, ctx->self_id[SELF_POLL_SECONDS], now, (double)st->last_ns / 1e9);
    nic_gauge_d(ctx, ctx->self_id[SELF_POLL_MAX], now, (double)mx / 1e9);
    nic_gauge_d(ctx, ctx->self_id[SELF_BUSY], now, (double)st->busy_ns / 1e9);
    nic_gauge_u(ctx, ctx->self_id[SELF_POLLS], now, st->polls);
    nic_gauge_u(ctx, ctx->self_id[SELF_OVERRUNS], now, st->overruns);
    nic_gauge_u(ctx, ctx->self_id[SELF_COUNTERS], now, st->counters_last);
    nic_gauge_u(ctx, ctx->self_id[SELF_READ_ERRORS], now, st->read_errors);
    nic_gauge_u(ctx, ctx->self_id[SELF_PORTS], now, ctx->n_ports);
}

/* ---- the thread -------------------------------------------------------------------- */

/* Sleeps until the absolute monotonic deadline (or the stop flag). */
static void sleep_until(struct nic_ctx *ctx, int64_t deadline)
{
    while (!atomic_load(&ctx->stop)) {
        int64_t now = fsc_mono_ns();
        if (now >= deadline)
            return;
        int64_t until = deadline - now > SLEEP_CHUNK_NS ? now + SLEEP_CHUNK_NS : deadline;
        struct timespec ts = {.tv_sec = until / 1000000000LL, .tv_nsec = until % 1000000000LL};
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc != 0 && rc != EINTR)
            return;
    }
}

static void *nic_main(void *arg)
{
    struct nic_ctx *ctx = arg;
    const int64_t interval = ctx->cfg->interval_ns;
    int64_t next = fsc_mono_ns();
    int64_t next_slow = next, next_check = next, prev_max = 0;

    while (!atomic_load(&ctx->stop)) {
        int64_t m0 = fsc_mono_ns();
        nic_poll_once(ctx, fsc_now_ns());
        int64_t m1 = fsc_mono_ns();
        struct nic_stats *st = &ctx->st;
        st->polls++;
        st->last_ns = m1 - m0;
        st->busy_ns += st->last_ns;
        if (st->last_ns > st->max_ns)
            st->max_ns = st->last_ns;

        /* The slow work runs after the poll, outside its measurement. */
        if (m1 >= next_slow) {
            int64_t now = fsc_now_ns();
            ctx->gsmp_n = 0;
            nic_slow_tick(ctx, now);
            if (m1 >= next_check) {
                nic_hostcheck_run(ctx, now);
                for (size_t i = 0; i < ctx->n_ports; i++)
                    nic_port_refresh(ctx, &ctx->ports[i], true);
                if (nic_samples_reserve(ctx) != 0)
                    fsc_log(FSC_LOG_WARN, "nic_out_of_memory", "source=%s", ctx->name);
                prev_max = st->max_ns;
                st->max_ns = 0;
                while (next_check <= m1)
                    next_check += NIC_CHECK_NS;
            }
            self_sample(ctx, now, prev_max);
            if (ctx->gsmp_n && fsc_engine_ingest(ctx->env.eng, ctx->gsmp, ctx->gsmp_n) != 0)
                fsc_log(FSC_LOG_WARN, "ingest_failed", "source=%s", ctx->name);
            while (next_slow <= m1)
                next_slow += NIC_SLOW_NS;
        }

        /* One timer for every port: absolute deadlines, so the poll's own
         * cost does not drift the cadence; a missed deadline is skipped
         * (and counted), never run late twice in a row. */
        next += interval;
        int64_t now = fsc_mono_ns();
        if (next <= now) {
            int64_t missed = (now - next) / interval + 1;
            st->overruns += (uint64_t)missed;
            next += missed * interval;
        }
        sleep_until(ctx, next);
    }
    return NULL;
}

/* ---- start / stop ---------------------------------------------------------------- */

static void nic_free(struct nic_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_ports; i++)
        nic_port_close(&ctx->ports[i]);
    free(ctx->ports);
    nic_hostcheck_teardown(ctx);
    fsc_nic_agg_fini(&ctx->agg);
    free(ctx->smp);
    free(ctx->gsmp);
    if (ctx->sock >= 0)
        close(ctx->sock);
    free(ctx);
}

static void nic_stop(void *arg)
{
    struct nic_ctx *ctx = arg;
    if (!ctx)
        return;
    atomic_store(&ctx->stop, 1);
    pthread_join(ctx->thread, NULL);
    nic_free(ctx);
}

/* sysfs_root is where the host's /sys is mounted (a DaemonSet's hostPath
 * at /host/sys: sysfs_root /host), nothing more: ethtool and the host check
 * keep asking the kernel, in the network namespace the poller runs in. The
 * neighbour table is that namespace's /proc/net/arp, never under the
 * prefix: /proc/net is a link to self/net, so a host /proc mounted there
 * would show the reader's own namespace all the same. Only nic.fixture (a
 * test tree with no kernel behind it) reads the table from the tree, and
 * its ethtool statistics from files under <root>/ethtool (nic_ethtool.h). */
static int paths_setup(struct nic_ctx *ctx, char *err, size_t errlen)
{
    const char *root = ctx->cfg->sysfs_root ? ctx->cfg->sysfs_root : "/";
    ctx->fixture = ctx->cfg->fixture;
    size_t rl = strlen(root);
    while (rl > 0 && root[rl - 1] == '/')
        rl--; /* "/" and "/host/" are "" and "/host" before "/sys" */
    int a = snprintf(ctx->sysfs, sizeof(ctx->sysfs), "%.*s/sys", (int)rl, root);
    int b = ctx->fixture ? snprintf(ctx->neigh_path, sizeof(ctx->neigh_path), "%.*s/proc/net/arp",
                                    (int)rl, root)
                         : snprintf(ctx->neigh_path, sizeof(ctx->neigh_path), "/proc/net/arp");
    int c = ctx->fixture ? snprintf(ctx->et_dir, sizeof(ctx->et_dir), "%.*s/ethtool", (int)rl, root)
                         : 0;
    if (a < 0 || (size_t)a >= sizeof(ctx->sysfs) || b < 0 || (size_t)b >= sizeof(ctx->neigh_path) ||
        c < 0 || (size_t)c >= sizeof(ctx->et_dir)) {
        snprintf(err, errlen, "sysfs_root is too long");
        return -1;
    }
    return 0;
}

static int node_setup(struct nic_ctx *ctx, char *err, size_t errlen)
{
    struct nic_labels *lab = &ctx->node_lab;
    memset(lab, 0, sizeof(*lab));
    nic_label_add(lab, "device", ctx->cfg->device);
    if (ctx->cab) {
        snprintf(lab->node, sizeof(lab->node), "%u", ctx->node);
        nic_label_add(lab, "node", lab->node);
    }
    if (fsc_nic_agg_init(&ctx->agg, ctx->n_ports, NIC_AGG_WINDOW_NS) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    static const char *const dir[FSC_NIC_AGG__DIRS] = {"rx", "tx"};
    for (unsigned d = 0; d < FSC_NIC_AGG__DIRS; d++) {
        struct fsc_label ex = {"direction", dir[d]};
        struct fsc_traits tr = nic_gauge_traits(FSC_UNIT_NONE, NIC_AGG_WINDOW_NS);
        ctx->agg_bits_id[d] = nic_series(ctx, "fabric_node_rdma_bits_per_second", lab, &ex, 1, &tr);
        tr.unit = FSC_UNIT_RATIO;
        ctx->agg_eff_id[d] = nic_series(ctx, "fabric_node_rdma_efficiency_ratio", lab, &ex, 1, &tr);
    }
    return 0;
}

static void *nic_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                       char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    const struct fsc_profile *prof = env->profile ? env->profile : &fsc_profile_mlx5;
    if (!env->eng || !env->reg) {
        snprintf(err, errlen, "the nic source needs the registry and the engine");
        return NULL;
    }
    struct nic_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(ctx->name, sizeof(ctx->name), "%s", sc->name);
    ctx->cfg = fsc_nic_config_of(sc);
    ctx->env = *env;
    ctx->prof = prof;
    ctx->sock = -1;
    atomic_init(&ctx->stop, 0);
    if (paths_setup(ctx, err, errlen) != 0)
        goto fail;
    ctx->pcie = ctx->cfg->pcie;
    /* SIOCETHTOOL talks to the running kernel, whatever sysfs_root says: a
     * fixture tree's interface names are not the kernel's (the config
     * already turned it off with fixture; this is the guard of the mode). */
    ctx->ethtool = ctx->cfg->ethtool && !ctx->fixture;
    if (ctx->ethtool) {
        ctx->sock = fsc_nic_ethtool_socket();
        if (ctx->sock < 0) {
            fsc_log(FSC_LOG_WARN, "nic_ethtool_off", "source=%s reason=%s", ctx->name,
                    strerror(-ctx->sock));
            ctx->ethtool = false;
        }
    } else if (ctx->fixture) {
        char qd[FSC_NIC_PATH_MAX + 8];
        fsc_log(FSC_LOG_INFO, "nic_ethtool_off", "source=%s reason=fixture statistics_files=%s",
                ctx->name, fsc_log_quote(ctx->et_dir, qd, sizeof(qd)));
    }
    if (nic_hostcheck_setup(ctx, err, errlen) != 0 || nic_ports_discover(ctx, err, errlen) != 0)
        goto fail;
    for (size_t i = 0; i < ctx->n_ports; i++)
        if (nic_port_open(ctx, &ctx->ports[i]) != 0) {
            snprintf(err, errlen, "out of memory opening port %s", ctx->ports[i].name);
            goto fail;
        }
    if (node_setup(ctx, err, errlen) != 0)
        goto fail;
    self_setup(ctx);
    /* Slow batch: per port link, PCIe (5) and AER (3); per planned interface
     * 5 kinds; the aggregate and self-metrics. */
    ctx->gsmp_cap = ctx->n_ports * 16 + ctx->n_planned * FSC_CABLE__COUNT + 32;
    ctx->gsmp = calloc(ctx->gsmp_cap, sizeof(*ctx->gsmp));
    if (!ctx->gsmp || nic_samples_reserve(ctx) != 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (ctx->n_ports == 0)
        fsc_log(FSC_LOG_WARN, "nic_no_ports", "source=%s sysfs=%s auto=%s", ctx->name, ctx->sysfs,
                ctx->cfg->auto_devices ? "true" : "false");
    char qs[FSC_NIC_PATH_MAX + 8], qn[FSC_NIC_PATH_MAX + 8];
    fsc_log(FSC_LOG_INFO, "nic_started",
            "source=%s ports=%zu interval_ms=%.3f ethtool=%s pcie=%s fixture=%s host_check=%s "
            "node=%u planned=%zu sysfs=%s neighbours=%s",
            ctx->name, ctx->n_ports, (double)ctx->cfg->interval_ns / 1e6,
            ctx->ethtool ? "on" : "off", ctx->pcie ? "on" : "off", ctx->fixture ? "yes" : "no",
            ctx->cab ? "on" : "off", ctx->node, ctx->n_planned,
            fsc_log_quote(ctx->sysfs, qs, sizeof(qs)),
            fsc_log_quote(ctx->neigh_path, qn, sizeof(qn)));
    if (pthread_create(&ctx->thread, NULL, nic_main, ctx) != 0) {
        snprintf(err, errlen, "cannot start the poll thread");
        goto fail;
    }
    return ctx;
fail:
    nic_free(ctx);
    return NULL;
}

static const struct fsc_profile *const nic_profiles[] = {&fsc_profile_mlx5, NULL};

const struct fsc_source_ops fsc_nic_source_ops = {
    .config = &fsc_nic_kind,
    .profiles = nic_profiles,
    .start = nic_start,
    .stop = nic_stop,
};
