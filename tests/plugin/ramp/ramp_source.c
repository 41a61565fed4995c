/* `type: ramp`: a test source that exists to show what adding a source
 * takes (tests/plugin/CMakeLists.txt). One device, one port, an rx byte
 * counter that grows by exactly `rate` bytes per second on a 100 ms device
 * clock grid, so the engine's rate is known in advance. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "config/config_decode.h"
#include "plugin/source.h"

#define STEP_NS 100000000ll

struct ramp_config {
    const char *device; /* default: the source name */
    double rate;        /* bytes per second; default 1e6 */
};

static void ramp_defaults(void *obj)
{
    ((struct ramp_config *)obj)->rate = 1e6;
}

static int ramp_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    (void)node;
    (void)mark;
    struct ramp_config *rc = obj;
    if (rc->device == NULL)
        rc->device = ctx->source->name;
    return 0;
}

static const struct fsc_ckey ramp_keys[] = {
    {.key = "device",
     .kind = FSC_CK_STR,
     .off = offsetof(struct ramp_config, device),
     .check = fsc_cfg_check_name},
    {.key = "rate",
     .kind = FSC_CK_F64,
     .off = offsetof(struct ramp_config, rate),
     .fmin = 1.0,
     .fmax = 1e12},
};

static const struct fsc_cspec ramp_spec = {
    .what = "a ramp source",
    .keys = ramp_keys,
    .n_keys = FSC_NELEM(ramp_keys),
    .defaults = ramp_defaults,
    .finish = ramp_finish,
};

static const char *ramp_device(const struct fsc_source_config *src)
{
    return ((const struct ramp_config *)src->settings)->device;
}

static const struct fsc_config_kind ramp_kind = {
    .name = "ramp",
    .spec = &ramp_spec,
    .size = sizeof(struct ramp_config),
    .shard = FSC_SHARD_BY_DEVICE,
    .device = ramp_device,
};

struct ramp {
    const struct ramp_config *cfg;
    struct fsc_source_env env;
    fsc_series_id id;
    pthread_t thread;
    atomic_int stop;
};

static void *ramp_main(void *arg)
{
    struct ramp *r = arg;
    int64_t t0 = fsc_now_ns() / STEP_NS * STEP_NS;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int64_t k = 0; !atomic_load(&r->stop); k++) {
        struct fsc_sample s = {.series = r->id,
                               .t_dev_ns = t0 + k * STEP_NS,
                               .t_arr_ns = fsc_now_ns(),
                               .v.u = (uint64_t)(r->cfg->rate * (double)k * 0.1)};
        (void)fsc_engine_ingest(r->env.eng, &s, 1);
        next.tv_nsec += STEP_NS;
        next.tv_sec += next.tv_nsec / 1000000000ll;
        next.tv_nsec %= 1000000000ll;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    return NULL;
}

static void *ramp_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                        char *err, size_t errlen)
{
    struct ramp *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->cfg = sc->settings;
    r->env = *env;
    atomic_init(&r->stop, 0);
    struct fsc_label labels[] = {{"device", r->cfg->device}, {"port", "p1"}};
    r->id = fsc_registry_intern(env->reg, env->source_id, "fabric_port_rx_bytes_total", labels, 2);
    struct fsc_traits tr = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_RX,
                            .nominal_interval_ns = STEP_NS};
    int rc = r->id == FSC_SERIES_NONE ? -ENOSPC : fsc_engine_set_traits(env->eng, r->id, &tr);
    if (rc != 0 || pthread_create(&r->thread, NULL, ramp_main, r) != 0) {
        snprintf(err, errlen, "cannot start: %s", rc ? strerror(-rc) : "no thread");
        free(r);
        return NULL;
    }
    return r;
}

static void ramp_stop(void *ctx)
{
    struct ramp *r = ctx;
    if (r == NULL)
        return;
    atomic_store(&r->stop, 1);
    pthread_join(r->thread, NULL);
    free(r);
}

const struct fsc_source_ops fsc_ramp_source_ops = {
    .config = &ramp_kind,
    .start = ramp_start,
    .stop = ramp_stop,
};
