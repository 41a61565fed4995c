/* Response bodies of the extra routes of the exporter's HTTP server
 * (internal to prom_http*.c; scrapes are streamed: prom_http_stream.h): a
 * small free-list of buffers, and gzip of a body in one piece (the bench's
 * reference for the chunked compressor).
 *
 * A body buffer belongs to exactly one request from fsc_prom_bufpool_get()
 * until the response that sends it is destroyed; only then does it go back
 * to the pool. The pool keeps at most FSC_PROM_BUFPOOL_IDLE idle buffers so
 * steady scraping reuses the same memory (a 100 MB exposition is not
 * re-grown by doubling on every scrape) while a burst of parallel scrapes
 * does not leave its peak allocation behind for ever. */
#ifndef FSC_PROM_HTTP_BODY_H
#define FSC_PROM_HTTP_BODY_H

#include <pthread.h>
#include <stddef.h>

#include "base/buf.h"

#define FSC_PROM_BUFPOOL_IDLE 2

struct fsc_prom_bufpool {
    pthread_mutex_t mu;
    struct fsc_buf *idle[FSC_PROM_BUFPOOL_IDLE];
    size_t nidle;
};

/* Initialises an empty pool. Returns 0 or a negative errno. Thread: one. */
int fsc_prom_bufpool_init(struct fsc_prom_bufpool *pool);

/* Frees the idle buffers. Buffers still out must have been put back (the HTTP
 * daemon is stopped first). Thread: one. */
void fsc_prom_bufpool_fini(struct fsc_prom_bufpool *pool);

/* Owns: the returned buffer, empty, with its limit set to `limit` (0 = none),
 * until it is passed to fsc_prom_bufpool_put(). Returns NULL on allocation
 * failure. Thread: any (takes pool->mu briefly). */
struct fsc_buf *fsc_prom_bufpool_get(struct fsc_prom_bufpool *pool, size_t limit);

/* Takes ownership of b (NULL is a no-op): keeps it idle, or frees it when the
 * pool is full. Thread: any (takes pool->mu briefly). */
void fsc_prom_bufpool_put(struct fsc_prom_bufpool *pool, struct fsc_buf *b);

/* Compresses in->data[0..in->len) into out (reset first) as one gzip member
 * (RFC 1952) at zlib `level`. Returns 0, -ENOMEM, -E2BIG (out's limit) or
 * -EIO (zlib failure). Thread: any; uses no shared state. */
int fsc_prom_gzip(const struct fsc_buf *in, int level, struct fsc_buf *out);

#endif
