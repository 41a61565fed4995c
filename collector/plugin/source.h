/* A source is a const table of functions plus a per-instance context
 * (STYLE.md, like fluent-bit's input plugins): the daemon starts one instance
 * per `sources:` entry and stops it at shutdown. Each instance interns its
 * series in the registry under its own source id (so the per-source series
 * limit applies), sets their traits in the engine, and feeds samples with
 * fsc_engine_ingest() from its own threads. */
#ifndef FSC_SOURCE_H
#define FSC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"

/* What a running source may use; all borrowed, all outlive the instance. */
struct fsc_source_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    const struct fsc_topology *topo;
    uint16_t source_id; /* this instance's registry source */
    /* This collector's shard (model/shard.h): a source that hears from many
     * devices (otlp) keeps only those of shard_index; count 0 or 1 = all. */
    uint32_t shard_index, shard_count;
};

struct fsc_source_ops {
    const char *type; /* "gnmi", "otlp", "nic", ... */
    /* Starts an instance (threads included). cfg and env are borrowed and
     * outlive it. Returns the instance context, or NULL with a sentence in err. */
    void *(*start)(const struct fsc_source_config *cfg, const struct fsc_source_env *env, char *err,
                   size_t errlen);
    /* Stops the instance's threads and frees it. NULL is a no-op. */
    void (*stop)(void *ctx);
};

/* The implementation of a source type in this build, or NULL when the type
 * is not built yet. */
const struct fsc_source_ops *fsc_source_ops_find(enum fsc_source_type type);

#endif
