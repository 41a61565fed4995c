/* The daemon's state, shared by daemon.c (start, stop, signals) and
 * daemon_views.c (what /metrics and the status page read of it: the
 * renderer's and the web module's callbacks, and their servers' start).
 * Internal to collector/core. */
#ifndef FSC_DAEMON_STATE_H
#define FSC_DAEMON_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "config/config.h"
#include "app/daemon_int.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "kafka/kafka_event_json.h"
#include "kafka/kafka_exporter.h"
#include "prometheus/prom_http.h"
#include "prometheus/prom_render.h"
#include "remote_write/remote_write.h"
#include "rollup/rollup.h"
#include "web/web.h"

#define DAEMON_STREAMS_MAX 1024 /* gNMI streams shown in /metrics (the renderer's bound too) */

struct daemon {
    const struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_event_bus *bus;
    struct fsc_engine *eng;
    struct fsc_dsources src; /* running sources; reloaded on SIGHUP (daemon_reload.c) */
    pthread_t event_thread;
    int event_thread_started;
    atomic_int stopping;
    atomic_int ready; /* config loaded, sources and sinks started */
    struct fsc_prom_renderer *prom;
    struct fsc_prom_http *prom_http;
    struct fsc_kafka_exporter *kafka;          /* exporters.kafka, or NULL */
    struct fsc_kafka_event_json kafka_json;    /* its encoder's context */
    char stream_names[DAEMON_STREAMS_MAX][64]; /* streams_cb's copies */
    struct fsc_web *web;                       /* the status page, on the Prometheus listener */
    struct fsc_rollup *rollup;                 /* per-minute rollups for reports, or NULL */
    struct fsc_remote_write *rw;               /* exporters.remote_write, or NULL */
    struct fsc_prom_route web_routes[FSC_WEB_ROUTES];
    size_t n_web_routes;
};

/* Creates the renderer and starts the Prometheus listener (with the status
 * page's routes when d->web exists). Returns 0, or -1 with a sentence in err. */
int fsc_daemon_start_prometheus(struct daemon *d, char *err, size_t errlen);

/* Creates the status page when the Prometheus exporter is on; it must run
 * before fsc_daemon_start_prometheus, which serves its routes. Returns 0,
 * or -1 with a sentence in err. */
int fsc_daemon_start_web(struct daemon *d, char *err, size_t errlen);

#endif
