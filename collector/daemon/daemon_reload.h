/* The daemon's running sources (daemon_reload.c; internal to
 * collector/daemon): the set a SIGHUP reload changes while scrapes and the
 * status page read it from other threads.
 *
 * Threads and locks. The main thread owns the set: it starts, reloads and
 * stops sources. Readers (the Prometheus render callback, the status page's
 * callbacks) take `lock` for reading; the main thread takes it for writing
 * only to swap the running array and the view, never while a source starts
 * or stops (that may take seconds). A source leaves the array before it is
 * stopped and enters it after it has started, so a reader never sees a
 * context that is being torn down.
 *
 * Configs. Each loaded config is a generation (struct fsc_dgen) that counts
 * its users: every running source started from it (its source config and
 * the strings it points to must outlive the instance) plus one while it is
 * the current config. A generation is freed when its count drops to zero,
 * so an unchanged source keeps pointing into the config it was started
 * from, however many reloads later. The first config is borrowed from the
 * caller of fsc_daemon_run() and never freed here. */
#ifndef FSC_DAEMON_RELOAD_H
#define FSC_DAEMON_RELOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "model/shard.h"
#include "plugin/source.h"
#include "engine/engine.h"

struct fsc_dgen; /* a loaded config and its users (daemon_reload.c) */

/* One running source instance. */
struct fsc_drun {
    const struct fsc_source_config *cfg; /* inside gen's config */
    struct fsc_dgen *gen;
    const struct fsc_source_ops *ops;
    void *ctx;
    struct fsc_source_env env; /* env.speeds: the instance's link-speed table, owned here */
};

struct fsc_dsources {
    pthread_rwlock_t lock;
    /* Under lock (read by other threads). Each instance is allocated on
     * its own: a source may keep the address of its env. */
    struct fsc_drun **run;
    size_t n_run;
    /* What the status page and scrapes see: the current generation's
     * sources of this shard, and the current shard. */
    const struct fsc_source_config *view_sources;
    size_t n_view;
    struct fsc_shard_config shard;
    uint32_t owned, skipped; /* sources of this shard / of other shards */
    uint64_t reloads_ok, reloads_error;
    double last_ok_s; /* unix time of the last successful load (start counts) */
    /* Main thread only. */
    const struct fsc_config *first;
    struct fsc_dgen *gens; /* every live generation */
    struct fsc_dgen *cur;
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    bool lock_ready;
};

/* Starts the sources of cfg (borrowed; outlives the set) that belong to
 * cfg->shard, registering each in reg. s must be zeroed. Returns 0, or -1
 * with a sentence in err (call fsc_dsources_stop() either way). Thread:
 * main. */
int fsc_dsources_start(struct fsc_dsources *s, const struct fsc_config *cfg,
                       struct fsc_registry *reg, struct fsc_engine *eng, char *err, size_t errlen);

/* SIGHUP: loads `path` again and applies what can change live (sources,
 * shard); logs everything else that differs as needing a restart. On a
 * load error the running config stays and the error is logged and counted.
 * Thread: main. */
void fsc_dsources_reload(struct fsc_dsources *s, const char *path);

/* Stops every source (in reverse start order) and frees every generation
 * but the first. A zeroed set is a no-op. Thread: main. */
void fsc_dsources_stop(struct fsc_dsources *s);

/* Read lock around any use of run, n_run, view_sources, shard and the counters from a
 * thread other than main. */
void fsc_dsources_read_lock(struct fsc_dsources *s);
void fsc_dsources_read_unlock(struct fsc_dsources *s);

/* The running instance named `name`, or NULL. Caller holds the read lock
 * (or is the main thread). */
const struct fsc_drun *fsc_dsources_find(const struct fsc_dsources *s, const char *name);

#endif
