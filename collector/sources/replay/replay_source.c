#include "sources/replay/replay_source.h"

#include "base/clock.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "base/file_read.h"
#include "base/log.h"
#include "model/profile.h"
#include "engine/topo_groups.h"
#include "engine/topo_peers.h"
#include "model/topo_labels.h"
#include "sources/replay/replay_file.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL
#define BATCH     512

struct replay_ctx {
    const struct fsc_replay_config *cfg;
    struct fsc_source_env env;
    char name[64];
    struct fsc_sample *smp;
    size_t n;
    int64_t base_ns;
    pthread_t thread;
    atomic_int stop;
};

static const char *label_value(const struct fsc_replay_line *ln, const char *name)
{
    for (size_t i = 0; i < ln->n_labels; i++)
        if (strcmp(ln->labels[i].name, name) == 0)
            return ln->labels[i].value;
    return NULL;
}

/* Traits for a series first seen in the file. */
static void replay_traits(const struct fsc_replay_line *ln, const struct fsc_source_env *env,
                          uint64_t speed_bps, int64_t interval_ns, struct fsc_traits *tr)
{
    if (fsc_profile_canonical_traits(env->profiles, ln->name, tr) != 0) {
        memset(tr, 0, sizeof(*tr));
        /* a passthrough level (Junos ..._percent) stays a gauge when replayed */
        tr->kind = fsc_profile_passthrough_is_gauge(env->profiles, ln->name) ? FSC_KIND_GAUGE
                                                                             : FSC_KIND_COUNTER;
        tr->width = 64;
        tr->scale = 1;
    }
    tr->nominal_interval_ns = interval_ns;
    if (tr->signal == FSC_SIG_PORT_BYTES || tr->signal == FSC_SIG_QUEUE_PEAK) {
        const char *device = label_value(ln, "device"), *port = label_value(ln, "port");
        const struct fsc_topo_port *tp = NULL;
        const struct fsc_topo_device *td = NULL;
        if (env->topo && device && port)
            tp = fsc_topology_port(env->topo, device, port, &td);
        tr->link_speed_bps = tp && tp->speed_bps ? tp->speed_bps : speed_bps;
        if (td && td->buffer_bytes)
            tr->buffer_bytes = td->buffer_bytes;
    }
}

int fsc_replay_load(const char *path, const struct fsc_source_env *env, uint64_t speed_bps,
                    int64_t interval_ns, struct fsc_sample **out, size_t *n_out, char *err,
                    size_t errlen)
{
    char line[FSC_REPLAY_LINE_MAX + 2];
    struct fsc_replay_line ln;
    struct fsc_sample *smp = NULL;
    size_t n = 0, cap = 0, lineno = 0, bytes = 0;
    char perr[256];

    char why[128];
    int fd = fsc_file_open_regular(path, why, sizeof(why));
    FILE *f = fd == -1 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd != -1) {
            snprintf(why, sizeof(why), "%s", strerror(errno));
            close(fd);
        }
        snprintf(err, errlen, "%s: cannot open: %s", path, why);
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        size_t len = strlen(line);
        bytes += len;
        if (bytes > FSC_REPLAY_FILE_MAX) {
            snprintf(err, errlen, "%s:%zu: file is larger than %u bytes", path, lineno,
                     FSC_REPLAY_FILE_MAX);
            goto fail;
        }
        if (len > FSC_REPLAY_LINE_MAX && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%zu: line longer than %d bytes", path, lineno,
                     FSC_REPLAY_LINE_MAX);
            goto fail;
        }
        int rc = fsc_replay_parse_line(line, &ln, perr, sizeof(perr));
        if (rc < 0) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno, perr);
            goto fail;
        }
        if (rc == 0)
            continue;
        char rail[FSC_TOPO_RAIL_BUF];
        fsc_topo_labels_add(env->topo, label_value(&ln, "device"), label_value(&ln, "port"),
                            ln.labels, &ln.n_labels, FSC_REGISTRY_MAX_LABELS, rail);
        fsc_series_id id =
            fsc_registry_lookup(env->reg, env->source_id, ln.name, ln.labels, ln.n_labels);
        if (id == FSC_SERIES_NONE) {
            id = fsc_registry_intern(env->reg, env->source_id, ln.name, ln.labels, ln.n_labels);
            if (id == FSC_SERIES_NONE) {
                snprintf(err, errlen,
                         "%s:%zu: series %s refused (invalid name or label, or the source's "
                         "series limit)",
                         path, lineno, ln.name);
                goto fail;
            }
            struct fsc_traits tr;
            /* A replay file names canonical metrics: mapped when a profile makes the name. */
            if (env->tap)
                fsc_source_tap_series(env, id, ln.name,
                                      fsc_profile_canonical_traits(env->profiles, ln.name, &tr) ==
                                          0);
            replay_traits(&ln, env, speed_bps, interval_ns, &tr);
            int trc = fsc_engine_set_traits(env->eng, id, &tr);
            if (trc == 0)
                trc = fsc_topo_groups_join(env->topo, env->eng, label_value(&ln, "device"),
                                           label_value(&ln, "port"), &tr, id);
            if (trc >= 0) /* the recorded `peer` label, else the topology's */
                trc =
                    fsc_topo_peer_join(env->topo, env->eng, label_value(&ln, "device"),
                                       label_value(&ln, "port"), label_value(&ln, "peer"), &tr, id);
            if (trc < 0) {
                snprintf(err, errlen, "%s:%zu: engine refused the series: %s", path, lineno,
                         strerror(-trc));
                goto fail;
            }
        }
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            struct fsc_sample *p = realloc(smp, ncap * sizeof(*p));
            if (!p) {
                snprintf(err, errlen, "%s:%zu: out of memory", path, lineno);
                goto fail;
            }
            smp = p;
            cap = ncap;
        }
        smp[n].series = id;
        smp[n].flags = ln.flags;
        smp[n].t_dev_ns = ln.t_ms * NS_PER_MS;
        smp[n].t_arr_ns = 0;
        smp[n].v = ln.v;
        n++;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    *out = smp;
    *n_out = n;
    return 0;
fail:
    fclose(f);
    free(smp);
    return -1;
}

/* Sleeps until wall time `t` or until stop; returns 1 when stopping. */
static int sleep_until(struct replay_ctx *ctx, int64_t t)
{
    for (;;) {
        if (atomic_load(&ctx->stop))
            return 1;
        int64_t left = t - fsc_now_ns();
        if (left <= 0)
            return 0;
        if (left > 100 * NS_PER_MS)
            left = 100 * NS_PER_MS; /* wake up to notice stop */
        struct timespec ts = {left / NS_PER_S, left % NS_PER_S};
        nanosleep(&ts, NULL);
    }
}

static void *replay_main(void *arg)
{
    struct replay_ctx *ctx = arg;
    size_t i = 0;
    while (i < ctx->n && !atomic_load(&ctx->stop)) {
        if ((ctx->cfg->mode == FSC_REPLAY_REALTIME) &&
            sleep_until(ctx, ctx->base_ns + ctx->smp[i].t_dev_ns))
            break;
        /* a batch: every sample due now (realtime) or the next BATCH (instant) */
        size_t j = i;
        int64_t now = fsc_now_ns();
        while (j < ctx->n && j - i < BATCH &&
               (!(ctx->cfg->mode == FSC_REPLAY_REALTIME) ||
                ctx->base_ns + ctx->smp[j].t_dev_ns <= now)) {
            ctx->smp[j].t_dev_ns += ctx->base_ns;
            ctx->smp[j].t_arr_ns = now;
            j++;
        }
        int rc = fsc_engine_ingest(ctx->env.eng, ctx->smp + i, j - i);
        if (rc != 0)
            fsc_log(FSC_LOG_WARN, "ingest_failed", "source=%s error=%d", ctx->name, rc);
        i = j;
    }
    if (i == ctx->n)
        fsc_log(FSC_LOG_INFO, "replay_done", "source=%s samples=%zu", ctx->name, ctx->n);
    return NULL;
}

static void replay_stop(void *arg)
{
    struct replay_ctx *ctx = arg;
    if (!ctx)
        return;
    atomic_store(&ctx->stop, 1);
    pthread_join(ctx->thread, NULL);
    free(ctx->smp);
    free(ctx);
}

static void *replay_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                          char *err, size_t errlen)
{
    struct replay_ctx *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ctx->cfg = fsc_replay_config_of(sc);
    ctx->env = *env;
    atomic_init(&ctx->stop, 0);
    snprintf(ctx->name, sizeof(ctx->name), "%s", sc->name);
    if (fsc_replay_load(ctx->cfg->file, env, ctx->cfg->speed_bps, ctx->cfg->interval_ns, &ctx->smp,
                        &ctx->n, err, errlen) != 0) {
        free(ctx);
        return NULL;
    }
    int64_t last_ms = 0;
    for (size_t i = 0; i < ctx->n; i++)
        if (ctx->smp[i].t_dev_ns > last_ms)
            last_ms = ctx->smp[i].t_dev_ns;
    /* A whole second, so file times on 100 ms steps sit on window edges:
     * realtime starts at the next second; instant ends before this one. */
    int64_t sec = fsc_now_ns() / NS_PER_S * NS_PER_S;
    ctx->base_ns = ctx->cfg->mode == FSC_REPLAY_REALTIME
                       ? sec + NS_PER_S
                       : sec - (last_ms + NS_PER_S - 1) / NS_PER_S * NS_PER_S;
    if (pthread_create(&ctx->thread, NULL, replay_main, ctx) != 0) {
        snprintf(err, errlen, "cannot start the replay thread");
        free(ctx->smp);
        free(ctx);
        return NULL;
    }
    fsc_log(FSC_LOG_INFO, "replay_loaded", "source=%s file=%s samples=%zu mode=%s", sc->name,
            ctx->cfg->file, ctx->n, ctx->cfg->mode == FSC_REPLAY_REALTIME ? "realtime" : "instant");
    return ctx;
}

const struct fsc_source_ops fsc_replay_source_ops = {
    .config = &fsc_replay_kind,
    .start = replay_start,
    .stop = replay_stop,
};
