#include "sources/synth/synth_source.h"

#include "base/clock.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "engine/topo_groups.h"
#include "engine/topo_peers.h"
#include "model/topo_labels.h"

/* Counters generated per port, in this order. */
enum { SYN_RX_BYTES, SYN_TX_BYTES, SYN_CNP_SENT, SYN_OUT_OF_SEQ, SYN__COUNT };

struct synth_port {
    char name[24];
    fsc_series_id id[SYN__COUNT];
    double value[SYN__COUNT]; /* exact counter values, truncated when sampled */
};

struct synth_ctx {
    const struct fsc_synthetic_config *cfg;
    struct fsc_source_env env;
    char source_name[64];
    struct synth_port *ports;
    uint64_t rng;
    pthread_t thread;
    atomic_int stop;
    int64_t burst_until_ns, storm_until_ns;
    uint32_t burst_port, storm_port;
};

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: deterministic per seed, so a run can be reproduced */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int intern_ports(struct synth_ctx *ctx, char *err, size_t errlen)
{
    static const struct {
        const char *metric;
        struct fsc_traits traits;
    } kinds[SYN__COUNT] = {
        [SYN_RX_BYTES] = {"fabric_port_rx_bytes_total",
                          {.width = 64,
                           .unit = FSC_UNIT_BYTES,
                           .signal = FSC_SIG_PORT_BYTES,
                           .direction = FSC_DIR_RX}},
        [SYN_TX_BYTES] = {"fabric_port_tx_bytes_total",
                          {.width = 64,
                           .unit = FSC_UNIT_BYTES,
                           .signal = FSC_SIG_PORT_BYTES,
                           .direction = FSC_DIR_TX}},
        [SYN_CNP_SENT] = {"fabric_nic_cnp_sent_total", {.width = 64, .signal = FSC_SIG_CNP}},
        [SYN_OUT_OF_SEQ] = {"fabric_nic_out_of_sequence_total",
                            {.width = 32, .signal = FSC_SIG_REORDER}},
    };
    const struct fsc_synthetic_config *cfg = ctx->cfg;

    for (uint32_t p = 0; p < cfg->ports; p++) {
        struct synth_port *port = &ctx->ports[p];
        snprintf(port->name, sizeof(port->name), "swp%u", p + 1);
        struct fsc_label labels[5] = {{"device", cfg->device}, {"port", port->name}};
        size_t n_labels = 2;
        char rail[FSC_TOPO_RAIL_BUF];
        fsc_topo_labels_add(ctx->env.topo, cfg->device, port->name, labels, &n_labels, 5, rail);
        for (int k = 0; k < SYN__COUNT; k++) {
            struct fsc_traits tr = kinds[k].traits;
            tr.kind = FSC_KIND_COUNTER;
            tr.link_speed_bps = cfg->speed_bps;
            tr.nominal_interval_ns = cfg->interval_ns;
            fsc_series_id id = fsc_registry_intern(ctx->env.reg, ctx->env.source_id,
                                                   kinds[k].metric, labels, n_labels);
            if (id == FSC_SERIES_NONE) {
                snprintf(err, errlen, "series limit reached interning %s{port=%s}", kinds[k].metric,
                         port->name);
                return -1;
            }
            fsc_source_tap_series(&ctx->env, id, kinds[k].metric, true); /* canonical already */
            int rc = fsc_engine_set_traits(ctx->env.eng, id, &tr);
            if (rc == 0)
                rc = fsc_topo_groups_join(ctx->env.topo, ctx->env.eng, cfg->device, port->name, &tr,
                                          id);
            if (rc >= 0)
                rc = fsc_topo_peer_join(ctx->env.topo, ctx->env.eng, cfg->device, port->name, NULL,
                                        &tr, id);
            if (rc < 0) {
                snprintf(err, errlen, "engine refused series %u: %s", id, strerror(-rc));
                return -1;
            }
            port->id[k] = id;
            /* start counters somewhere non-trivial; out_of_sequence close to
             * its 32-bit wrap so the wrap path runs in every demo */
            port->value[k] = k == SYN_OUT_OF_SEQ ? 4294967296.0 - 50.0 * (p + 1)
                                                 : (double)(rng_next(&ctx->rng) % 1000000000ULL);
        }
    }
    return 0;
}

/* Advances every counter by dt and emits one sample each. */
static void synth_step(struct synth_ctx *ctx, int64_t now, double dt, struct fsc_sample *smp)
{
    const struct fsc_synthetic_config *cfg = ctx->cfg;
    double line_bytes = (double)cfg->speed_bps / 8.0;

    if (cfg->burst_every_ns > 0 && now >= ctx->burst_until_ns + cfg->burst_every_ns) {
        ctx->burst_port = (uint32_t)(rng_next(&ctx->rng) % cfg->ports);
        ctx->burst_until_ns = now + cfg->burst_length_ns;
    }
    if (cfg->storm_every_ns > 0 && now >= ctx->storm_until_ns + cfg->storm_every_ns) {
        ctx->storm_port = (uint32_t)(rng_next(&ctx->rng) % cfg->ports);
        ctx->storm_until_ns = now + 5000000000LL;
    }
    size_t n = 0;
    for (uint32_t p = 0; p < cfg->ports; p++) {
        struct synth_port *port = &ctx->ports[p];
        double noise = 0.8 + 0.4 * rng_unit(&ctx->rng);
        double util = cfg->utilization * noise;
        double tx_util = (p == ctx->burst_port && now < ctx->burst_until_ns) ? 1.0 : util;
        double cnp = (p == ctx->storm_port && now < ctx->storm_until_ns) ? 50000.0 : 200.0 * noise;
        double rates[SYN__COUNT] = {util * line_bytes, tx_util * line_bytes, cnp, 5.0 * noise};
        for (int k = 0; k < SYN__COUNT; k++) {
            port->value[k] += rates[k] * dt;
            if (k == SYN_OUT_OF_SEQ && port->value[k] >= 4294967296.0)
                port->value[k] -= 4294967296.0; /* the hardware counter is 32 bits */
            smp[n].series = port->id[k];
            smp[n].flags = 0;
            smp[n].t_dev_ns = now;
            smp[n].t_arr_ns = now;
            smp[n].v.u = (uint64_t)port->value[k];
            n++;
        }
    }
    int rc = fsc_engine_ingest(ctx->env.eng, smp, n);
    if (rc != 0)
        fsc_log(FSC_LOG_WARN, "ingest_failed", "source=%s error=%d", ctx->source_name, rc);
}

static void *synth_main(void *arg)
{
    struct synth_ctx *ctx = arg;
    const struct fsc_synthetic_config *cfg = ctx->cfg;
    struct fsc_sample *smp = calloc((size_t)cfg->ports * SYN__COUNT, sizeof(*smp));
    if (!smp) {
        fsc_log(FSC_LOG_ERROR, "source_failed", "source=%s reason=out_of_memory", ctx->source_name);
        return NULL;
    }
    int64_t prev = fsc_now_ns();
    /* the first burst and storm come one period after start, on a baseline */
    ctx->burst_until_ns = prev;
    ctx->storm_until_ns = prev;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&ctx->stop)) {
        next.tv_nsec += cfg->interval_ns % 1000000000LL;
        next.tv_sec += cfg->interval_ns / 1000000000LL + next.tv_nsec / 1000000000LL;
        next.tv_nsec %= 1000000000LL;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        int64_t now = fsc_now_ns();
        synth_step(ctx, now, (double)(now - prev) * 1e-9, smp);
        prev = now;
    }
    free(smp);
    return NULL;
}

static void synth_stop(void *arg)
{
    struct synth_ctx *ctx = arg;
    if (!ctx)
        return;
    atomic_store(&ctx->stop, 1);
    pthread_join(ctx->thread, NULL);
    free(ctx->ports);
    free(ctx);
}

static void *synth_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                         char *err, size_t errlen)
{
    struct synth_ctx *ctx = calloc(1, sizeof(*ctx));
    if (errlen)
        err[0] = '\0';
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ctx->cfg = fsc_synthetic_config_of(sc);
    ctx->env = *env;
    ctx->rng = ctx->cfg->seed;
    snprintf(ctx->source_name, sizeof(ctx->source_name), "%s", sc->name);
    atomic_init(&ctx->stop, 0);
    ctx->ports = calloc(ctx->cfg->ports, sizeof(*ctx->ports));
    if (!ctx->ports) {
        snprintf(err, errlen, "out of memory");
        free(ctx);
        return NULL;
    }
    if (intern_ports(ctx, err, errlen) != 0 ||
        pthread_create(&ctx->thread, NULL, synth_main, ctx) != 0) {
        if (!err[0])
            snprintf(err, errlen, "cannot start the generator thread");
        free(ctx->ports);
        free(ctx);
        return NULL;
    }
    return ctx;
}

const struct fsc_source_ops fsc_synth_source_ops = {
    .config = &fsc_synthetic_kind,
    .start = synth_start,
    .stop = synth_stop,
};
