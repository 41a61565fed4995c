/* A source's face (as fluent-bit's input plugins): one const
 * struct fsc_source_ops per type, naming its config kind (type name, key
 * table, config hooks), how to start, reload and stop an instance, its
 * health and the stats tables it reports. A source is one folder under
 * sources/ with this face; the plugin table the build generates from each
 * folder's fsc_source() line (read by daemon/plugins.c) lists it once.
 *
 * The daemon starts one instance per enabled `sources:` entry of its shard.
 * Each instance interns its series in the registry under its own source id
 * (so the per-source series limit applies), sets their traits in the
 * engine, and feeds samples with fsc_engine_ingest() from its own threads.
 * All state lives in the instance's context: two instances of a type never
 * share anything but const data (and, for gnmi, the worker threads its
 * instances run on: sources/gnmi/gnmi_pool.c). */
#ifndef FSC_SOURCE_H
#define FSC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stats.h"
#include "config/config.h"
#include "engine/engine.h"
#include "engine/link_speed.h"
#include "model/profile.h"
#include "model/registry.h"
#include "model/topology.h"

/* An observer of the names a source maps (`fabricscope probe`; NULL in
 * `run`). */
struct fsc_source_tap {
    /* Called when the source resolves series id from the native (vendor)
     * name `native` (borrowed for the call): at least once per series, maybe
     * again (a cache refilled, another stream of the device); NULL native
     * for a series the source derives itself. `mapped`: the profile has an
     * entry for the name (false: passed through under a sanitized name).
     * From the source's threads, possibly several at once; must be quick and
     * must not call into the source. */
    void (*series)(void *arg, fsc_series_id id, const char *native, bool mapped);
    void *arg;
};

/* What a running source may use; all borrowed, all outlive the instance. */
struct fsc_source_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    const struct fsc_topology *topo;
    uint16_t source_id; /* this instance's registry source */
    /* This collector's shard (model/shard.h): a source that hears from many
     * devices (otlp) keeps only those of shard_index; count 0 or 1 = all. */
    uint32_t shard_index, shard_count;
    /* The profile the config names for this source (its `profile:` key),
     * resolved; NULL when the source has none. */
    const struct fsc_profile *profile;
    /* Every profile the application knows, NULL-terminated (a replay file
     * names canonical metrics of any of them). */
    const struct fsc_profile *const *profiles;
    /* NULL but under `fabricscope probe` (struct fsc_source_tap). */
    const struct fsc_source_tap *tap;
    /* This instance's table of port link speeds (engine/link_speed.h): a
     * source that learns speeds from its devices notes them there and
     * attaches its series that take a speed. Owned by the application,
     * one per running instance; NULL (tools, tests): the topology's speeds
     * only. */
    struct fsc_link_speeds *speeds;
};

/* Tells env's tap, if any, that series id came from `native` (mapped by
 * the profile or not). */
static inline void fsc_source_tap_series(const struct fsc_source_env *env, fsc_series_id id,
                                         const char *native, bool mapped)
{
    if (env->tap && env->tap->series && id != FSC_SERIES_NONE)
        env->tap->series(env->tap->arg, id, native, mapped);
}

struct fsc_source_ops {
    const struct fsc_config_kind *config; /* type name, key table, config hooks */
    /* The vendor profiles this type brings (NULL-terminated; NULL: none). */
    const struct fsc_profile *const *profiles;
    /* Starts an instance (threads included). cfg and env are borrowed and
     * outlive it. Returns the instance context, or NULL with a sentence in
     * err. */
    void *(*start)(const struct fsc_source_config *cfg, const struct fsc_source_env *env, char *err,
                   size_t errlen);
    /* Stops the instance's threads and frees it. NULL is a no-op. */
    void (*stop)(void *ctx);
    /* Optional: tells the instance to begin stopping and returns at once
     * (no wait, no free); `stop` then waits for what is left and frees it.
     * The daemon calls it on every instance it stops together before the
     * first `stop`, so instances wind down in parallel rather than one
     * after the other. After it, the instance may stop delivering; only
     * `stop` may follow (never reload, stats go on being valid). NULL:
     * `stop` does it all. Thread: the one that then calls stop. */
    void (*stop_begin)(void *ctx);
    /* Applies changed settings in place. NULL (or a negative return): the
     * daemon stops the instance and starts a new one instead. */
    int (*reload)(void *ctx, const struct fsc_source_config *cfg, char *err, size_t errlen);
    /* false while the instance runs but is not delivering (a gNMI stream
     * down). NULL: healthy while running. Thread: any. */
    bool (*healthy)(void *ctx);
    /* The tables this type reports (NULL-terminated; NULL: none), and the
     * rows of one instance. Thread: any, concurrently with ingest. */
    const struct fsc_stat_table *const *stat_tables;
    void (*stats)(void *ctx, const struct fsc_stats_out *out);
};

#endif
