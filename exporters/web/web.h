/* The status page and its JSON API (docs/API.md), served by the collector on
 * the Prometheus exporter's listener as entries of its route table on the
 * HTTP server (net/http_route.h, net/http_server.h):
 *
 *   /              one self-contained HTML page (inline CSS and JS, no
 *                  external resource); every table is rendered on the
 *                  server, so it is usable with JavaScript disabled; the
 *                  script only refreshes it from /api/... every few seconds
 *   /api/status    sources, gNMI streams, OTLP receivers, engine counters
 *   /api/ports     top ports by peak fine-resolution utilization (?top=N)
 *   /api/events    recent detector events (?limit=N)
 *   /api/port      one port's fine utilization history (?device=&port=)
 *   /api/mesh      the B300 mesh: nodes, links, utilization, mismatches
 *   /api/health    the conditions active now and recent ones, in sentences
 * docs/API.md documents every field with an example.
 *
 * A web instance owns one thread (the sampler) that, every
 * FSC_WEB_TICK_NS, reads the event bus into a bounded ring, indexes new
 * registry series (port bytes, cable mismatch gauges) and appends the fine
 * utilization of tracked ports to bounded per-port rings, and keeps the
 * conditions that started and have not ended (the active set; web_int.h
 * has every bound). Requests are read-only: they read the engine's views, the
 * registry and those rings, and never change the engine. */
#ifndef FSC_WEB_H
#define FSC_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "net/http_route.h"
#include "plugin/sink.h"
#include "web/web_model.h"

/* What the web module reads; all borrowed and outliving the instance. The
 * view's callbacks are called from HTTP threads, concurrently with each
 * other. view NULL: the sources and plugin tables stay empty. */
struct fsc_web_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_event_bus *bus; /* the engine's bus */
    const struct fsc_config *cfg;
    const struct fsc_daemon_view *view;
};

struct fsc_web;

/* Creates the instance and starts its sampler thread (it subscribes to the
 * bus now, so events from here on are kept). Loads the B300 cable plan of
 * the topology (or of a nic source) for the mesh view when one is configured; a plan
 * that does not load is logged and the mesh falls back to the cable labels
 * of the NIC series. Returns NULL with a sentence in err. Thread: one. */
struct fsc_web *fsc_web_create(const struct fsc_web_env *env, char *err, size_t errlen);

/* Stops the thread and frees everything. Must follow the stop of the HTTP
 * server that serves its routes. NULL is a no-op. Thread: one. */
void fsc_web_destroy(struct fsc_web *web);

/* Writes the module's routes into out[0..cap) and returns how many there
 * are (FSC_WEB_ROUTES; fewer are written when cap is smaller). Paths are
 * static; arg is web. Thread: any. */
#define FSC_WEB_ROUTES 7
size_t fsc_web_routes(struct fsc_web *web, struct fsc_http_route *out, size_t cap);

#endif
