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
 * about 1/14 of it, never the body itself: a scrape body can be shared by
 * several responses and freed with the last of them.
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

#endif
