/* The rollup store's face (plugin/sink.h): per-minute rollups under
 * state_dir, started after the sources and stopped after them (so the last
 * minute has everything), before the engine goes. Not required: a
 * collector that cannot write its state directory still collects. */
#include <stdio.h>

#include "engine/engine_keys.h"
#include "model/topology_keys.h"
#include "rollup/rollup.h"
#include "rollup/rollup_sink.h"

static bool rollup_enabled(const void *settings)
{
    return ((const struct fsc_rollup_config *)settings)->enabled;
}

static void *rollup_start(const void *settings, const struct fsc_sink_env *env, char *err,
                          size_t errlen)
{
    const struct fsc_rollup_env renv = {.reg = env->reg,
                                        .eng = env->eng,
                                        .engine_cfg = fsc_engine_config_of(env->cfg),
                                        .topo = fsc_topology_of(env->cfg)};
    return fsc_rollup_start(settings, env->cfg->state_dir, &renv, err, errlen);
}

static void rollup_stop(void *ctx)
{
    fsc_rollup_stop(ctx);
}

enum { C_WRITTEN, C_DROPPED, C_WRITE_ERRORS, C_TORN, C_SERIES_DROPPED, C__COUNT };

#define RECORDS "fabricscope_rollup_records"
static const struct fsc_stat_col rollup_cols[C__COUNT] = {
    [C_WRITTEN] = {.id = "written",
                   .family = RECORDS,
                   .type = FSC_STAT_COUNTER,
                   .help = "Rollup store records, by result (written, dropped).",
                   .label = "result",
                   .label_value = "written",
                   .title = "written"},
    [C_DROPPED] = {.id = "dropped",
                   .family = RECORDS,
                   .type = FSC_STAT_COUNTER,
                   .label = "result",
                   .label_value = "dropped",
                   .title = "dropped"},
    [C_WRITE_ERRORS] = {.id = "write_errors",
                        .family = "fabricscope_rollup_write_errors",
                        .type = FSC_STAT_COUNTER,
                        .help = "Rollup store write, sync or open calls that failed.",
                        .title = "write errors"},
    [C_TORN] = {.id = "torn_records",
                .family = "fabricscope_rollup_torn_records",
                .type = FSC_STAT_COUNTER,
                .help = "Torn last records cut when a rollup day file was reopened.",
                .title = "torn"},
    [C_SERIES_DROPPED] = {.id = "series_dropped",
                          .family = "fabricscope_rollup_series_dropped",
                          .type = FSC_STAT_COUNTER,
                          .help = "Series the rollup could not track (over its limit or "
                                  "unlabelled).",
                          .title = "series dropped"},
};

static const struct fsc_stat_table rollup_table = {
    .id = "rollup",
    .title = "Rollup store",
    .empty = "rollups off",
    .keys = {NULL},
    .cols = rollup_cols,
    .n_cols = C__COUNT,
};

static const struct fsc_stat_table *const rollup_tables[] = {&rollup_table, NULL};

static void rollup_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct fsc_rollup_stats st;
    fsc_rollup_stats(ctx, &st);
    const double v[C__COUNT] = {
        [C_WRITTEN] = (double)st.store.records,           [C_DROPPED] = (double)st.store.dropped,
        [C_WRITE_ERRORS] = (double)st.store.write_errors, [C_TORN] = (double)st.store.torn_cut,
        [C_SERIES_DROPPED] = (double)st.series_dropped,
    };
    fsc_stats_row(out, &rollup_table, NULL, v, NULL);
}

const struct fsc_sink_ops fsc_rollup_sink_ops = {
    .config = &fsc_rollup_kind,
    .root_key = true,
    .phase = FSC_SINK_LATE,
    .required = false,
    .enabled = rollup_enabled,
    .start = rollup_start,
    .stop = rollup_stop,
    .stat_tables = rollup_tables,
    .stats = rollup_stats,
};
