/* A sink's face: an exporter (exporters/<name>/) or another consumer of
 * what the engine knows (the rollup store). One const struct fsc_sink_ops
 * per kind names its config section, when the daemon starts and stops it,
 * how to start and stop an instance, the stats tables it reports and the
 * HTTP routes it serves on the collector's listener. The plugin table the
 * build generates from each folder's fsc_sink() line (read by
 * daemon/plugins.c) lists it once.
 *
 * Order. The daemon starts EARLY sinks before the sources (they subscribe
 * to the event bus and must miss nothing), then the sources, then LATE
 * sinks (they read the engine), then LAST sinks (the HTTP listener: it
 * serves the others' stats and routes). It stops LAST sinks first, then
 * the sources, then the others in reverse start order, so that everything
 * the sources published reaches them. */
#ifndef FSC_SINK_H
#define FSC_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stats.h"
#include "config/config.h"
#include "model/registry.h"

struct fsc_engine;
struct fsc_event_bus;
struct fsc_http_route; /* net/http_route.h */

/* One configured source as the daemon runs it (status page, fabricscope_up). */
struct fsc_source_status {
    char name[64];
    char type[16];
    const char *state; /* static: "running", "disabled", "unavailable" */
    int up;            /* running and healthy */
    uint32_t series;   /* registered so far */
};

/* What the daemon shows of itself and of every plugin, for the sinks that
 * present state (the Prometheus exporter, the status page). Every callback
 * may run on any thread, concurrently with a reload. */
struct fsc_daemon_view {
    /* Every table the plugins and the daemon declare, in render order
     * (NULL-terminated). */
    const struct fsc_stat_table *const *tables;
    /* Writes the rows of every running plugin and of the daemon. */
    void (*stats)(void *arg, const struct fsc_stats_out *out);
    /* Fills up to cap configured sources of this shard (in config order)
     * and returns how many there are. */
    size_t (*sources)(void *arg, struct fsc_source_status *out, size_t cap);
    /* Fills up to cap routes other sinks serve on the collector's HTTP
     * listener and returns how many were written. */
    size_t (*routes)(void *arg, struct fsc_http_route *out, size_t cap);
    /* 1 once configuration, sources and sinks are up. */
    int (*ready)(void *arg);
    void *arg;
};

struct fsc_sink_env {
    const struct fsc_config *cfg; /* the whole config (engine windows, topology, sources) */
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_event_bus *bus;
    const struct fsc_daemon_view *view;
};

enum fsc_sink_phase {
    FSC_SINK_EARLY = 0, /* before the sources */
    FSC_SINK_LATE = 1,  /* after the sources */
    FSC_SINK_LAST = 2,  /* after every other sink */
};

struct fsc_sink_ops {
    const struct fsc_config_kind *config; /* its section */
    bool root_key;                        /* the section is a root key (rollup:), not a key
                                           * of exporters: */
    uint8_t phase;                        /* enum fsc_sink_phase */
    /* A sink that cannot start: the daemon stops with its sentence (true)
     * or logs it and runs without the sink (false: the rollup store, whose
     * directory may not be writable). */
    bool required;
    /* Whether the section asks for an instance. */
    bool (*enabled)(const void *settings);
    /* Starts an instance. settings (the section) and env are borrowed and
     * outlive it. Returns its context, or NULL with a sentence in err. */
    void *(*start)(const void *settings, const struct fsc_sink_env *env, char *err, size_t errlen);
    /* Flushes what it can, stops its threads, frees. NULL is a no-op. */
    void (*stop)(void *ctx);
    /* Sinks take no settings live: a changed section needs a restart (the
     * daemon says so on reload). Reserved for sinks that can. */
    int (*reload)(void *ctx, const void *settings, char *err, size_t errlen);
    /* Tables it reports (NULL-terminated; NULL: none) and one instance's rows. */
    const struct fsc_stat_table *const *stat_tables;
    void (*stats)(void *ctx, const struct fsc_stats_out *out);
    /* HTTP routes it serves on the collector's listener (the status page);
     * returns how many were written into out. Started only when a sink
     * that serves routes (serves_routes) runs. NULL: none. */
    size_t (*routes)(void *ctx, struct fsc_http_route *out, size_t cap);
    bool serves_routes; /* it runs the listener other sinks' routes are served on */
    /* `run --listen HOST:PORT`, for the sink that serves_routes: puts addr
     * (borrowed; outlives every config a reload loads) over the section's
     * listen address and marks it as the command line's. Returns 0, or -1
     * with a sentence in err (the section is disabled in file, the config
     * file's name). NULL: no listener. */
    int (*listen_override)(void *settings, const char *addr, const char *file, char *err,
                           size_t errlen);
    /* The address listen_override put in settings, or NULL (the file's). */
    const char *(*listen_overridden)(const void *settings);
};

#endif
