/* replay sources: the file, its pacing, link speed and nominal interval
 * (docs/CONFIG.md, "replay"). */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "sources/replay/replay_config.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define X(f) offsetof(struct fsc_replay_config, f)

static const char *const replay_modes[] = {"instant", "realtime", NULL};

static void replay_defaults(void *obj)
{
    struct fsc_replay_config *rp = obj;
    rp->mode = FSC_REPLAY_REALTIME;
    rp->speed_bps = 400000000000ull;
    rp->interval_ns = 100 * MS;
}

static int replay_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    const struct fsc_replay_config *rp = obj;
    if (rp->file == NULL)
        return fsc_cfg_fail_key(ctx, node, "file", mark, "required key is missing");
    return 0;
}

static const struct fsc_ckey replay_keys[] = {
    {.key = "file", .kind = FSC_CK_STR, .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE, .off = X(file)},
    {.key = "mode", .kind = FSC_CK_ENUM, .off = X(mode), .names = replay_modes},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .off = X(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
    {.key = "interval", .kind = FSC_CK_DUR, .off = X(interval_ns), .min = MS, .max = 3600 * SEC},
};

static const struct fsc_cspec replay_spec = {
    .what = "a replay source",
    .keys = replay_keys,
    .n_keys = FSC_NELEM(replay_keys),
    .defaults = replay_defaults,
    .finish = replay_finish,
};

/* A replay file may hold many devices: it is sharded by its name. */
const struct fsc_config_kind fsc_replay_kind = {
    .name = "replay",
    .spec = &replay_spec,
    .size = sizeof(struct fsc_replay_config),
    .shard = FSC_SHARD_BY_NAME,
};

const struct fsc_replay_config *fsc_replay_config_of(const struct fsc_source_config *sc)
{
    return sc->kind == &fsc_replay_kind ? sc->settings : NULL;
}
