/* The daemon's state, shared by daemon.c (start, stop, signals) and
 * daemon_views.c (what the sinks that present state read of it: the
 * daemon view of plugin/sink.h). Internal to collector/daemon. */
#ifndef FSC_DAEMON_STATE_H
#define FSC_DAEMON_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "daemon/daemon_reload.h"
#include "daemon/state_lock.h"
#include "config/config.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "model/registry.h"
#include "plugin/sink.h"

#define DAEMON_SINKS_MAX 16

/* One running sink. */
struct daemon_sink {
    const struct fsc_sink_ops *ops;
    void *ctx;
};

struct daemon {
    const struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_event_bus *bus;
    struct fsc_engine *eng;
    struct fsc_dsources src;         /* running sources; reloaded on SIGHUP (daemon_reload.c) */
    struct fsc_event_sub *event_sub; /* the event log's, opened before the sources start */
    pthread_t event_thread;
    int event_thread_started;
    atomic_int stopping;
    atomic_int ready;           /* config loaded, sources and sinks started */
    struct fsc_state_lock lock; /* on cfg->state_dir (state_lock.h); fd -1 when not held */
    /* Running sinks in start order. n_sinks is stored (release) after a
     * sink has started, so readers on other threads see only started ones. */
    struct daemon_sink sinks[DAEMON_SINKS_MAX];
    atomic_size_t n_sinks;
    struct fsc_daemon_view view; /* daemon_views.c */
};

/* Fills d->view (its callbacks read d). Thread: main, before any sink. */
void fsc_daemon_view_init(struct daemon *d);

#endif
