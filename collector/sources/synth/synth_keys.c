/* synthetic sources: the built-in traffic generator's device, ports,
 * load, bursts and storms (docs/CONFIG.md, "synthetic"). */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "sources/synth/synth_config.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define X(f) offsetof(struct fsc_synthetic_config, f)

static void synthetic_defaults(void *obj)
{
    struct fsc_synthetic_config *sy = obj;
    sy->ports = 8;
    sy->speed_bps = 400000000000ull;
    sy->interval_ns = 100 * MS;
    sy->utilization = 0.3;
    sy->burst_every_ns = 10 * SEC;
    sy->burst_length_ns = 100 * MS;
    sy->storm_every_ns = 30 * SEC;
    sy->seed = 1;
}

static int synthetic_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                            struct fsc_config_mark mark, void *obj)
{
    struct fsc_synthetic_config *sy = obj;
    if (sy->device == NULL)
        sy->device = ctx->source->name;
    if (sy->burst_every_ns > 0 && sy->burst_length_ns >= sy->burst_every_ns)
        return fsc_cfg_fail_key(ctx, node, "burst_length", mark,
                                "must be shorter than burst_every");
    if (sy->storm_every_ns > 0 && sy->storm_every_ns <= 5 * SEC)
        return fsc_cfg_fail_key(ctx, node, "storm_every", mark,
                                "must be longer than the 5s storm it starts (or 0s for no storms)");
    return 0;
}

static const struct fsc_ckey synthetic_keys[] = {
    {.key = "device", .kind = FSC_CK_STR, .off = X(device), .check = fsc_cfg_check_name},
    {.key = "ports", .kind = FSC_CK_U32, .off = X(ports), .min = 1, .max = 1024},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .off = X(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
    {.key = "interval", .kind = FSC_CK_DUR, .off = X(interval_ns), .min = 10 * MS, .max = 60 * SEC},
    {.key = "utilization", .kind = FSC_CK_F64, .off = X(utilization), .fmin = 0.0, .fmax = 0.8},
    {.key = "burst_every",
     .kind = FSC_CK_DUR,
     .off = X(burst_every_ns),
     .min = 0,
     .max = 3600 * SEC},
    {.key = "burst_length",
     .kind = FSC_CK_DUR,
     .off = X(burst_length_ns),
     .min = 1 * MS,
     .max = 60 * SEC},
    {.key = "storm_every",
     .kind = FSC_CK_DUR,
     .off = X(storm_every_ns),
     .min = 0,
     .max = 3600 * SEC},
    {.key = "seed", .kind = FSC_CK_U32, .off = X(seed), .min = 0, .max = UINT32_MAX},
};

static const struct fsc_cspec synthetic_spec = {
    .what = "a synthetic source",
    .keys = synthetic_keys,
    .n_keys = FSC_NELEM(synthetic_keys),
    .defaults = synthetic_defaults,
    .finish = synthetic_finish,
};

static const char *synthetic_device(const struct fsc_source_config *src)
{
    return ((const struct fsc_synthetic_config *)src->settings)->device;
}

const struct fsc_config_kind fsc_synthetic_kind = {
    .name = "synthetic",
    .spec = &synthetic_spec,
    .size = sizeof(struct fsc_synthetic_config),
    .shard = FSC_SHARD_BY_DEVICE,
    .device = synthetic_device,
};

const struct fsc_synthetic_config *fsc_synthetic_config_of(const struct fsc_source_config *sc)
{
    return sc->kind == &fsc_synthetic_kind ? sc->settings : NULL;
}
