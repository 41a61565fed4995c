/* shard: section (docs/CONFIG.md, "shard"): which share of the devices this
 * collector takes, by model/shard.h's hashmod rule. `run --shard I/N`
 * overrides it (collector/commands/main.c). */
#include <stddef.h>
#include <stdio.h>

#include "config/config_decode.h"
#include "model/shard.h"

#define SH(field) offsetof(struct fsc_shard_config, field)

static void shard_defaults(void *obj)
{
    struct fsc_shard_config *sh = obj;
    sh->index = 0;
    sh->count = 1;
}

/* index < count: checked here, after both keys, and reported at index (or
 * at the section when index is not written). */
static int shard_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                        struct fsc_config_mark mark, void *obj)
{
    const struct fsc_shard_config *sh = obj;
    char msg[96];
    if (sh->index < sh->count)
        return 0;
    snprintf(msg, sizeof(msg), "%u is not below count (%u): shards are 0 .. %u",
             (unsigned)sh->index, (unsigned)sh->count, (unsigned)sh->count - 1);
    return fsc_cfg_fail_key(ctx, node, "index", mark, msg);
}

static const struct fsc_ckey shard_keys[] = {
    {.key = "index", .kind = FSC_CK_U32, .off = SH(index), .min = 0, .max = FSC_SHARD_MAX - 1},
    {.key = "count", .kind = FSC_CK_U32, .off = SH(count), .min = 1, .max = FSC_SHARD_MAX},
};

static const struct fsc_cspec shard_spec = {
    .what = "the shard section",
    .keys = shard_keys,
    .n_keys = FSC_NELEM(shard_keys),
    .defaults = shard_defaults,
    .finish = shard_finish,
    .mark_off = SH(mark),
};

const struct fsc_config_kind fsc_shard_kind = {
    .name = "shard",
    .spec = &shard_spec,
    .size = sizeof(struct fsc_shard_config),
};

const struct fsc_shard_config *fsc_shard_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_shard_kind);
}
