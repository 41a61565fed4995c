/* Body buffers and gzip for the exporter's HTTP server (prom_http_body.h). */
#include "prometheus/prom_http_body.h"

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
