/* gzip for scrape bodies that reuses the compressed bytes of unchanged parts
 * (internal to the exporter's HTTP server).
 *
 * Why: deflate costs about five times the render (measured 241 ns against
 * 42 ns per series at 100 k series, docs/PERFORMANCE.md), and between two
 * scrapes most of an exposition is byte-for-byte the same: HELP/TYPE lines,
 * error and discard counters that stay 0, idle ports, histogram buckets no
 * sample reached. The body is cut into chunks at line starts chosen by the
 * content (the series a line names), so a value that changes length does not
 * move the cuts of the chunks after it. Each chunk is compressed alone as raw
 * deflate ending in a sync flush (byte aligned, not final), so compressed
 * chunks concatenate into one valid deflate stream (RFC 1951 3.2.3: blocks
 * follow each other; a sync flush ends on a byte boundary); one empty final
 * block, the CRC-32 combined from the chunks' and the length make it one gzip
 * member (RFC 1952). A chunk equal to a chunk of the previous body (same
 * length and 128-bit hash of its bytes) is not compressed again: its
 * compressed bytes are copied.
 *
 * The state holds the previous body's chunk hashes and compressed chunks,
 * about 1/14 of it, never the body itself: a body is streamed in segments
 * (fsc_prom_gzchunks_feed) and no segment outlives its readers. Cuts depend
 * only on the bytes (never on how the body was split into segments): a cut
 * is made only once CHUNK_HARD bytes past the chunk's start are known.
 * Not thread-safe: one caller at a time (the HTTP server serialises callers
 * with a trylock and compresses without the cache when it is busy). */
#ifndef FSC_PROM_GZIP_CHUNKS_H
#define FSC_PROM_GZIP_CHUNKS_H

#include <stddef.h>

#include "base/buf.h"

struct fsc_prom_gzchunks;

/* What one call did, for the scrape's debug line and the bench. */
struct fsc_prom_gz_stats {
    size_t chunks;        /* chunks the body was cut into */
    size_t chunks_reused; /* of them, equal to a chunk of the previous body */
    size_t bytes_reused;  /* identity bytes of the reused chunks */
};

/* Owns: a new, empty state at zlib `level` (1..9) in *out, until
 * fsc_prom_gzchunks_free(). Returns 0, -ENOMEM or -EINVAL (level). */
int fsc_prom_gzchunks_new(int level, struct fsc_prom_gzchunks **out);

/* Frees c and everything it holds (NULL is a no-op). */
void fsc_prom_gzchunks_free(struct fsc_prom_gzchunks *c);

/* Compresses body->data[0..len) (borrowed) into out (reset first) as one
 * gzip member, and remembers its chunks for the next call. On failure the
 * state forgets what it held (the next call compresses everything) and
 * out's content is unspecified. st may be NULL. Returns 0, -ENOMEM, -E2BIG
 * (out's limit) or -EIO (zlib failure). */
int fsc_prom_gzchunks_compress(struct fsc_prom_gzchunks *c, const struct fsc_buf *body,
                               struct fsc_buf *out, struct fsc_prom_gz_stats *st);

/* ---- streaming: one member from pieces ----------------------------------
 * begin, feed any number of times, then end (or abort). What each call
 * appends to out concatenates to exactly what fsc_prom_gzchunks_compress()
 * makes of the pieces' concatenation; the member's bytes may be taken out
 * of out (and out reset) between calls. The state holds at most
 * 256 KiB + one piece of identity bytes between calls, plus the member's
 * compressed bytes (the next generation). On failure the state forgets
 * what it held, as compress does. */

/* Starts a member: appends its gzip header to out. Returns 0 or -ENOMEM. */
int fsc_prom_gzchunks_begin(struct fsc_prom_gzchunks *c, struct fsc_buf *out);

/* Appends the compressed chunks that p[0..n) (borrowed) completes to out.
 * st (may be NULL) is added to, not reset. Returns 0, -ENOMEM, -E2BIG,
 * -EIO, or -EINVAL (no member begun). */
int fsc_prom_gzchunks_feed(struct fsc_prom_gzchunks *c, const void *p, size_t n,
                           struct fsc_buf *out, struct fsc_prom_gz_stats *st);

/* Appends the last chunks and the trailer to out and keeps the member's
 * chunks for the next one. st as for feed. Returns as feed. */
int fsc_prom_gzchunks_end(struct fsc_prom_gzchunks *c, struct fsc_buf *out,
                          struct fsc_prom_gz_stats *st);

/* Drops the member in progress (a reader went away, the render failed);
 * the previous member's chunks stay for the next. No member: a no-op. */
void fsc_prom_gzchunks_abort(struct fsc_prom_gzchunks *c);

#endif
