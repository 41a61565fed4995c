/* Response bodies of the exporter's HTTP server (internal to prom_http*.c):
 * a small free-list of render buffers and gzip compression.
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "prometheus/prom_gzip_chunks.h"

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

/* The chunk-reusing compressor (prom_gzip_chunks.h) shared by a server's
 * scrape threads: one scrape at a time uses it, a scrape that finds it busy
 * compresses its body in one piece instead (parallel scrapes are rare; they
 * must not wait for each other). */
struct fsc_prom_gzshare {
    pthread_mutex_t mu;
    struct fsc_prom_gzchunks *chunks;
};

/* Owns: s's mutex and compressor at zlib `level`, until
 * fsc_prom_gzshare_fini(). Returns 0 or -ENOMEM. Thread: one. */
int fsc_prom_gzshare_init(struct fsc_prom_gzshare *s, int level);

/* Frees what s holds. No scrape may be running. Thread: one. */
void fsc_prom_gzshare_fini(struct fsc_prom_gzshare *s);

/* Compresses raw (borrowed) into out (reset first) as one gzip member,
 * through the shared compressor when it is free, else in one piece. st (may
 * be NULL) says what was reused; zero when compressed in one piece. Returns
 * 0, -ENOMEM, -E2BIG or -EIO. Thread: any. */
int fsc_prom_gzip_scrape(struct fsc_prom_gzshare *s, int level, const struct fsc_buf *raw,
                         struct fsc_buf *out, struct fsc_prom_gz_stats *st);

/* ---- shared scrape bodies ------------------------------------------------
 * One rendered exposition serves every scrape that arrived while it was
 * being rendered (scrapes that came together wait for one render and one
 * gzip instead of queueing a render each), and is freed with the last
 * response that sends it. The bytes
 * of all live bodies are counted: when the bodies still held by responses
 * (slow readers) pass the budget, a scrape is answered from the newest body
 * (if under FSC_PROM_HELD_MAX_AGE_NS old) instead of rendering another, so
 * readers that never read cannot grow memory past the budget plus a few
 * bodies, and a scrape is never refused for it. */

struct fsc_prom_bodies;

struct fsc_prom_body {
    struct fsc_prom_bodies *owner;
    unsigned refs;         /* under owner->mu */
    int64_t started_ns;    /* monotonic time its render began */
    int64_t finished_ns;   /* and ended (published) */
    struct fsc_buf *plain; /* the exposition; immutable once published */
    size_t counted;        /* bytes counted in owner->held */
    pthread_mutex_t gz_mu; /* held while the gzip form is made */
    int gz_rc;             /* 1: not made yet; 0: made; < 0: failed (send plain) */
    struct fsc_buf *gz;
};

#define FSC_PROM_BODY_FORMATS 2
/* The budget of bodies held only by responses: this many times the newest
 * bodies (plain and gzip, as allocated), or budget_min if larger. Four: a
 * couple of Prometheus servers each still reading an older body, with room
 * to spare; 256 readers that never read hold four bodies, not 256. */
#define FSC_PROM_HELD_BODIES 4
/* ... but never a body older than this: an attack that lasts must not
 * freeze the values Prometheus sees (flat counters read as zero rates).
 * Past it a scrape renders anyway; the slow readers' bodies still end with
 * their connections (the listener's idle timeout), so at most timeout / age
 * + 1 extra bodies live: 7 at the default 30 s. */
#define FSC_PROM_HELD_MAX_AGE_NS (5 * 1000000000LL)

struct fsc_prom_bodies {
    pthread_mutex_t mu;
    struct fsc_prom_body *cur[FSC_PROM_BODY_FORMATS]; /* the newest per format */
    size_t held;                                      /* bytes of every live body */
    size_t budget_min; /* the budget is max(this, FSC_PROM_HELD_BODIES x the newest) */
    struct fsc_prom_bufpool *pool;
    uint64_t shared, stale; /* scrapes answered from a body already made */
};

/* Owns: b's mutex until fsc_prom_bodies_fini(). pool (borrowed) takes the
 * buffers of freed bodies. Returns 0 or -ENOMEM. Thread: one. */
int fsc_prom_bodies_init(struct fsc_prom_bodies *b, struct fsc_prom_bufpool *pool,
                         size_t budget_min);

/* Drops the newest bodies; every response must be gone. Thread: one. */
void fsc_prom_bodies_fini(struct fsc_prom_bodies *b);

/* A reference to the newest body of format fmt when it may answer a scrape
 * that arrived at arrived_ns: its render ended after that (the scrape
 * waited for it), or the bodies held by responses are over the budget and
 * it is younger than FSC_PROM_HELD_MAX_AGE_NS (*stale set). NULL: render a
 * new one. Thread: any. */
struct fsc_prom_body *fsc_prom_bodies_take(struct fsc_prom_bodies *b, int fmt, int64_t arrived_ns,
                                           bool *stale);

/* Publishes plain (owned from here) as the newest body of format fmt and
 * returns a reference to it, or NULL on ENOMEM (plain back in the pool).
 * Thread: any. */
struct fsc_prom_body *fsc_prom_bodies_publish(struct fsc_prom_bodies *b, int fmt,
                                              struct fsc_buf *plain, int64_t started_ns);

/* The body's gzip form, made by the first caller (through gz, at level) and
 * kept for the others; st (may be NULL) describes the making. Returns the
 * buffer (owned by the body), or NULL when it could not be made (*rc set):
 * send the plain form. Thread: any. */
const struct fsc_buf *fsc_prom_body_gzip(struct fsc_prom_body *body, struct fsc_prom_gzshare *gz,
                                         int level, struct fsc_prom_gz_stats *st, int *rc);

/* Drops a reference; the last one frees the body. Thread: any. */
void fsc_prom_body_unref(struct fsc_prom_body *body);

#endif
