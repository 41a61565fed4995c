/* Body buffers and gzip for the exporter's HTTP server (prom_http_body.h). */
#include "prometheus/prom_http_body.h"

#include "base/clock.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int fsc_prom_bufpool_init(struct fsc_prom_bufpool *pool)
{
    memset(pool, 0, sizeof(*pool));
    if (pthread_mutex_init(&pool->mu, NULL) != 0)
        return -ENOMEM;
    return 0;
}

void fsc_prom_bufpool_fini(struct fsc_prom_bufpool *pool)
{
    for (size_t i = 0; i < pool->nidle; i++) {
        fsc_buf_free(pool->idle[i]);
        free(pool->idle[i]);
    }
    pool->nidle = 0;
    pthread_mutex_destroy(&pool->mu);
}

struct fsc_buf *fsc_prom_bufpool_get(struct fsc_prom_bufpool *pool, size_t limit)
{
    struct fsc_buf *b = NULL;

    pthread_mutex_lock(&pool->mu);
    if (pool->nidle > 0)
        b = pool->idle[--pool->nidle];
    pthread_mutex_unlock(&pool->mu);
    if (!b) {
        b = calloc(1, sizeof(*b));
        if (!b)
            return NULL;
    }
    fsc_buf_reset(b);
    b->limit = limit;
    return b;
}

void fsc_prom_bufpool_put(struct fsc_prom_bufpool *pool, struct fsc_buf *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&pool->mu);
    if (pool->nidle < FSC_PROM_BUFPOOL_IDLE) {
        pool->idle[pool->nidle++] = b;
        b = NULL; /* owned by the pool now */
    }
    pthread_mutex_unlock(&pool->mu);
    if (b) {
        fsc_buf_free(b);
        free(b);
    }
}

/* zlib counts in uInt (32 bits): feed and drain at most this much per call so
 * bodies above 4 GiB still work. */
#define GZ_STEP ((size_t)1 << 30)

int fsc_prom_gzip(const struct fsc_buf *in, int level, struct fsc_buf *out)
{
    z_stream zs;
    int rc, zrc;
    size_t bound;
    const char *src = in->data ? in->data : "";
    size_t left = in->len;

    fsc_buf_reset(out);
    memset(&zs, 0, sizeof(zs));
    /* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
    zrc = deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (zrc == Z_MEM_ERROR)
        return -ENOMEM;
    if (zrc != Z_OK)
        return -EIO;
    /* Reserving the worst case once means deflate never runs out of room and
     * the buffer is never re-grown mid-stream; incompressible input costs
     * only deflateBound's few bytes per 16 KiB. */
    bound = deflateBound(&zs, (uLong)in->len);
    rc = fsc_buf_reserve(out, bound);
    if (rc != 0)
        goto done;

    do {
        size_t chunk = left < GZ_STEP ? left : GZ_STEP;
        zs.next_in = (Bytef *)src; /* zlib's API is not const-correct */
        zs.avail_in = (uInt)chunk;
        src += chunk;
        left -= chunk;
        do {
            size_t room = out->cap - 1 - out->len; /* keep the NUL slot */
            if (room == 0) {
                rc = -EIO; /* cannot happen within deflateBound */
                goto done;
            }
            if (room > GZ_STEP)
                room = GZ_STEP;
            zs.next_out = (Bytef *)out->data + out->len;
            zs.avail_out = (uInt)room;
            zrc = deflate(&zs, left == 0 ? Z_FINISH : Z_NO_FLUSH);
            out->len += room - zs.avail_out;
            if (zrc == Z_STREAM_ERROR) {
                rc = -EIO;
                goto done;
            }
        } while (zs.avail_in > 0 || (left == 0 && zrc != Z_STREAM_END));
    } while (left > 0);
    out->data[out->len] = '\0';
    rc = 0;
done:
    deflateEnd(&zs);
    if (rc != 0)
        fsc_buf_reset(out);
    return rc;
}

int fsc_prom_gzshare_init(struct fsc_prom_gzshare *s, int level)
{
    memset(s, 0, sizeof(*s));
    if (pthread_mutex_init(&s->mu, NULL) != 0)
        return -ENOMEM;
    int rc = fsc_prom_gzchunks_new(level, &s->chunks);
    if (rc != 0) {
        pthread_mutex_destroy(&s->mu);
        return rc;
    }
    return 0;
}

void fsc_prom_gzshare_fini(struct fsc_prom_gzshare *s)
{
    fsc_prom_gzchunks_free(s->chunks);
    s->chunks = NULL;
    pthread_mutex_destroy(&s->mu);
}

int fsc_prom_gzip_scrape(struct fsc_prom_gzshare *s, int level, const struct fsc_buf *raw,
                         struct fsc_buf *out, struct fsc_prom_gz_stats *st)
{
    if (st)
        memset(st, 0, sizeof(*st));
    if (pthread_mutex_trylock(&s->mu) == 0) {
        int rc = fsc_prom_gzchunks_compress(s->chunks, raw, out, st);
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    return fsc_prom_gzip(raw, level, out);
}

/* ---- shared scrape bodies ---------------------------------------------------- */

int fsc_prom_bodies_init(struct fsc_prom_bodies *b, struct fsc_prom_bufpool *pool,
                         size_t budget_min)
{
    memset(b, 0, sizeof(*b));
    if (pthread_mutex_init(&b->mu, NULL) != 0)
        return -ENOMEM;
    b->pool = pool;
    b->budget_min = budget_min;
    return 0;
}

void fsc_prom_bodies_fini(struct fsc_prom_bodies *b)
{
    for (int f = 0; f < FSC_PROM_BODY_FORMATS; f++) {
        struct fsc_prom_body *cur = b->cur[f];
        b->cur[f] = NULL;
        if (cur)
            fsc_prom_body_unref(cur);
    }
    pthread_mutex_destroy(&b->mu);
}

/* Under b->mu: the bytes of bodies only responses hold (the newest ones
 * aside), against the budget. */
static bool held_over_budget(const struct fsc_prom_bodies *b)
{
    size_t newest = 0;
    for (int f = 0; f < FSC_PROM_BODY_FORMATS; f++)
        newest += b->cur[f] ? b->cur[f]->counted : 0;
    size_t budget = FSC_PROM_HELD_BODIES * newest > b->budget_min ? FSC_PROM_HELD_BODIES * newest
                                                                  : b->budget_min;
    return b->held - newest > budget;
}

struct fsc_prom_body *fsc_prom_bodies_take(struct fsc_prom_bodies *b, int fmt, int64_t arrived_ns,
                                           bool *stale)
{
    struct fsc_prom_body *body = NULL;
    *stale = false;
    pthread_mutex_lock(&b->mu);
    struct fsc_prom_body *cur = b->cur[fmt];
    if (cur && cur->finished_ns >= arrived_ns) {
        body = cur;
        b->shared++;
    } else if (cur && arrived_ns - cur->finished_ns < FSC_PROM_HELD_MAX_AGE_NS &&
               held_over_budget(b)) {
        body = cur;
        b->stale++;
        *stale = true;
    }
    if (body)
        body->refs++;
    pthread_mutex_unlock(&b->mu);
    return body;
}

/* The bytes a buffer holds (its capacity: what it costs). */
static size_t buf_bytes(const struct fsc_buf *buf)
{
    return buf ? buf->cap : 0;
}

struct fsc_prom_body *fsc_prom_bodies_publish(struct fsc_prom_bodies *b, int fmt,
                                              struct fsc_buf *plain, int64_t started_ns)
{
    struct fsc_prom_body *body = calloc(1, sizeof(*body));
    if (!body || pthread_mutex_init(&body->gz_mu, NULL) != 0) {
        free(body);
        fsc_prom_bufpool_put(b->pool, plain);
        return NULL;
    }
    body->owner = b;
    body->refs = 2; /* the caller's and b->cur's */
    body->started_ns = started_ns;
    body->finished_ns = fsc_mono_ns();
    body->plain = plain;
    body->gz_rc = 1;
    body->counted = buf_bytes(plain);
    pthread_mutex_lock(&b->mu);
    struct fsc_prom_body *old = b->cur[fmt];
    b->cur[fmt] = body;
    b->held += body->counted;
    pthread_mutex_unlock(&b->mu);
    if (old)
        fsc_prom_body_unref(old);
    return body;
}

const struct fsc_buf *fsc_prom_body_gzip(struct fsc_prom_body *body, struct fsc_prom_gzshare *gz,
                                         int level, struct fsc_prom_gz_stats *st, int *rc)
{
    struct fsc_prom_bodies *b = body->owner;
    if (st)
        memset(st, 0, sizeof(*st));
    pthread_mutex_lock(&body->gz_mu);
    if (body->gz_rc == 1) {
        struct fsc_buf *zbuf = fsc_prom_bufpool_get(b->pool, 0);
        int r = zbuf ? fsc_prom_gzip_scrape(gz, level, body->plain, zbuf, st) : -ENOMEM;
        if (r == 0) {
            body->gz = zbuf;
            pthread_mutex_lock(&b->mu);
            body->counted += buf_bytes(zbuf);
            b->held += buf_bytes(zbuf);
            pthread_mutex_unlock(&b->mu);
        } else {
            fsc_prom_bufpool_put(b->pool, zbuf);
        }
        body->gz_rc = r;
    }
    *rc = body->gz_rc;
    const struct fsc_buf *out = body->gz_rc == 0 ? body->gz : NULL;
    pthread_mutex_unlock(&body->gz_mu);
    return out;
}

void fsc_prom_body_unref(struct fsc_prom_body *body)
{
    struct fsc_prom_bodies *b = body->owner;
    pthread_mutex_lock(&b->mu);
    bool last = --body->refs == 0;
    if (last)
        b->held -= body->counted;
    pthread_mutex_unlock(&b->mu);
    if (!last)
        return;
    fsc_prom_bufpool_put(b->pool, body->plain);
    fsc_prom_bufpool_put(b->pool, body->gz);
    pthread_mutex_destroy(&body->gz_mu);
    free(body);
}
