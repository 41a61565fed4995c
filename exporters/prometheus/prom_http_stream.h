/* Streamed scrape bodies of the exporter's HTTP server (internal to
 * prom_http.c): no scrape body is ever whole in memory.
 *
 * One render thread renders the exposition for the scrapes that asked for
 * it, handing it over in segments of about FSC_PROM_SEGMENT bytes (the
 * renderer's flush, prom_render.h) and, when one of its readers asked for
 * gzip, compressing each segment through the chunk-reusing compressor
 * (prom_gzip_chunks.h, which remembers the previous body's chunk hashes and
 * compressed chunks, never the body). The scrapes that share a render are
 * its readers: each follows the segments with its own cursor (segment,
 * offset) and copies from them into its connection as the client takes
 * bytes. A segment is freed once every reader has passed it.
 *
 * Sharing: a scrape joins the pending render of its format (scrapes that
 * arrive while another render runs share the next one), or the running one
 * while its first segment is still held (kept up to FSC_PROM_RETAIN for
 * that); else it queues a render of its own. Renders are serialised: one
 * renderer.
 *
 * Slow readers: a render runs at most FSC_PROM_WINDOW segments ahead of its
 * slowest reader, so a render's memory is at most that many segments
 * (plain and gzip), plus what it keeps for joiners (FSC_PROM_RETAIN, only
 * while it runs), whatever its readers do. A reader that keeps the window
 * from moving for FSC_PROM_PIN_MAX_NS is dropped (its connection is closed
 * at its next read, or by the listener's idle timeout when the client reads
 * no more: the client sees a body cut short) and the render goes on for the
 * others; a render left without readers stops. So a reader that
 * never reads holds its connection and, at most, the window of a render
 * that others have finished: readers that never read cannot grow memory
 * past one window per render in progress.
 *
 * Locks: one mutex (mu) for everything here, held for bookkeeping and for
 * a reader's copy of at most one MHD block; never while rendering, and the
 * renderer holds no engine or registry lock while it flushes. */
#ifndef FSC_PROM_HTTP_STREAM_H
#define FSC_PROM_HTTP_STREAM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "prometheus/prom_gzip_chunks.h"
#include "prometheus/prom_render.h"

/* 256 KiB: a few thousand series per segment; the flush, the hand-over and
 * the chunker's carry cost per segment, not per series. */
#define FSC_PROM_SEGMENT ((size_t)256 << 10)
/* Segments a render may run ahead of its slowest reader: 2 MiB plain. */
#define FSC_PROM_WINDOW 8
/* While a render runs, the segments its readers have passed are kept from
 * the start up to this much, so that a scrape arriving meanwhile joins it
 * (an exposition of up to 32 MiB is shared by every scrape that arrives
 * during its render, as one body was); past it they are freed. */
#define FSC_PROM_RETAIN ((size_t)32 << 20)
/* A reader that keeps the window from moving this long is dropped: a
 * Prometheus server takes a segment in milliseconds; one that cannot take
 * 256 KiB in 2 s would time out its scrape anyway. */
#define FSC_PROM_PIN_MAX_NS (2 * 1000000000LL)
#define FSC_PROM_FORMATS    2

/* Renders fmt into out, calling flush (when the renderer streams) with
 * pieces of about flush->segment bytes; the rest stays in out. Returns 0 or
 * a negative errno. Called on the render thread only. */
typedef int (*fsc_prom_stream_render_fn)(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out,
                                         const struct fsc_prom_flush *flush);

struct fsc_prom_stream;
struct fsc_prom_reader;

struct fsc_prom_streams {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* segments, ends, drops, queued renders, stop */
    pthread_t thread;
    int stopping;
    fsc_prom_stream_render_fn render;
    void *arg;
    size_t max_body;    /* identity bytes of one exposition; 0 = no cap */
    const char *listen; /* for log lines; borrowed */
    struct fsc_prom_stream *pending[FSC_PROM_FORMATS];
    struct fsc_prom_stream *running;
    struct fsc_prom_gzchunks *gz; /* the render thread's */
    uint64_t seq;                 /* renders queued so far: the older pending runs first */
    /* Stats (under mu): scrapes that joined a render, readers dropped,
     * bytes of segments held now. */
    uint64_t shared, dropped;
    size_t held;
    int64_t drop_logged_ns;
};

/* Owns: s's mutex, condition, gzip state and render thread until
 * fsc_prom_streams_fini(). render/arg/listen are borrowed. Returns 0 or a
 * negative errno. Thread: one. */
int fsc_prom_streams_init(struct fsc_prom_streams *s, fsc_prom_stream_render_fn render, void *arg,
                          size_t max_body, const char *listen);

/* Makes every wait here return: readers' reads fail from now on, a render
 * in progress stops at its next segment. Call before stopping the HTTP
 * server (whose connection threads may wait here). Thread: any. */
void fsc_prom_streams_stop(struct fsc_prom_streams *s);

/* Joins the render thread and frees what is left; every reader must have
 * been closed (the HTTP server is stopped). Thread: one. */
void fsc_prom_streams_fini(struct fsc_prom_streams *s);

/* Owns: a reader of a render of fmt (gzip: the gzip member, else the
 * identity bytes), joined or queued as the top comment says, until
 * fsc_prom_reader_close(). Returns NULL on ENOMEM or when stopping.
 * Thread: any. */
struct fsc_prom_reader *fsc_prom_reader_open(struct fsc_prom_streams *s, enum fsc_prom_format fmt,
                                             int gzip);

/* Waits until the reader's render has made its first segment or ended.
 * Returns 0 with *len_known 1 and *len the reader's whole body when the
 * render has ended (the body fits in what is held), *len_known 0 when it is
 * still going; or the render's negative errno when it failed before making
 * any segment, -ECANCELED when stopping or dropped. Thread: the reader's. */
int fsc_prom_reader_first(struct fsc_prom_reader *r, uint64_t *len, int *len_known);

/* Copies the next bytes (at most max, waiting for the render when it has
 * none yet). Returns > 0, FSC_HTTP_READ_END at the end of the body, or
 * FSC_HTTP_READ_ERROR (render failed, reader dropped, stopping). Thread:
 * the reader's. */
ssize_t fsc_prom_reader_read(void *reader, char *buf, size_t max);

/* Stops following the render (a HEAD request reads nothing); reads fail
 * from then on. Thread: the reader's. */
void fsc_prom_reader_detach(struct fsc_prom_reader *r);

/* Detaches and frees r (void * for the HTTP server's release). */
void fsc_prom_reader_close(void *reader);

#endif
