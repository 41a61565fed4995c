/* Prometheus exposition of everything fabricscope knows (docs/METRICS.md):
 * the canonical counters from the registry and the engine, the engine's
 * derived gauges and histograms, detector counters and fabricscope_ self
 * metrics, in text format 0.0.4 or OpenMetrics 1.0.
 *
 * Rendering never holds the engine lock for long: it copies series views in
 * chunks (fsc_engine_view_ids) and formats outside the lock. Families are
 * contiguous, each with HELP and TYPE, and their order and the order of their
 * series are stable from scrape to scrape. Series whose device time has not
 * moved for stale_after (local time) are left out, so a removed port
 * disappears; no series' time is compared with another's.
 *
 * Thread: a renderer is used by one thread at a time (the HTTP layer
 * serialises renders); it reads the registry and engine, which are safe to
 * read while sources ingest. */
#ifndef FSC_PROM_RENDER_H
#define FSC_PROM_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "plugin/sink.h"

enum fsc_prom_format {
    FSC_PROM_TEXT = 0,        /* text/plain; version=0.0.4 */
    FSC_PROM_OPENMETRICS = 1, /* application/openmetrics-text; version=1.0.0 */
};

/* What the renderer reads; all borrowed and outliving the renderer. */
struct fsc_prom_render_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    const struct fsc_config *cfg; /* engine windows, topology, exporters.prometheus */
    /* The configured sources (fabricscope_up) and every plugin's and the
     * daemon's stats tables (their fabricscope_ families). NULL: neither. */
    const struct fsc_daemon_view *view;
};

struct fsc_prom_renderer;

/* Creates a renderer. Returns NULL with a sentence in err on allocation
 * failure. */
struct fsc_prom_renderer *fsc_prom_renderer_create(const struct fsc_prom_render_env *env, char *err,
                                                   size_t errlen);

/* Frees it. NULL is a no-op. */
void fsc_prom_renderer_destroy(struct fsc_prom_renderer *r);

/* Renders the whole exposition into out (reset first; its memory is reused).
 * now_ns is the wall clock (for staleness). Returns 0, or a negative errno
 * (-ENOMEM, -E2BIG when out's limit is hit). */
int fsc_prom_render(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                    struct fsc_buf *out);

/* Where a streamed render hands its bytes. fn(arg, out) is called once out
 * holds `segment` bytes or more, between two lines: it takes out's bytes
 * and resets out (it may lower out->limit to what the body may still
 * take). It returns 0, or a negative errno that ends the render with it. */
struct fsc_prom_flush {
    int (*fn)(void *arg, struct fsc_buf *out);
    void *arg;
    size_t segment;
};

/* As fsc_prom_render(), handing the exposition to flush in pieces of about
 * flush->segment bytes (NULL flush: all of it stays in out); the last piece
 * is left in out for the caller. The pieces concatenate to exactly what
 * fsc_prom_render() writes. No lock is held while flush runs: a render
 * that waits in flush for a slow reader holds up no ingest. What a reader
 * sees when series change during a long render: the series and families
 * indexed when the render began, each once and families contiguous (the
 * index is updated only at a render's start), each value as it was when
 * its chunk of views was copied (values of one scrape span the render's
 * time, as they do in one buffer); a series created meanwhile appears in
 * the next scrape, one removed meanwhile is left out from its chunk on. */
int fsc_prom_render_stream(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                           struct fsc_buf *out, const struct fsc_prom_flush *flush);

/* Content-Type header value of a format. */
const char *fsc_prom_content_type(enum fsc_prom_format fmt);

#endif
