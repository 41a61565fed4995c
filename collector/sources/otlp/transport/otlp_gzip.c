/* Bounded gzip inflate (otlp_gzip.h).
 *
 * The output buffer starts near the likely size (4x the input, OTLP protobuf
 * compresses about that much) and doubles up to the cap, never past it. When
 * the buffer is full at the cap, inflate is asked for one more byte into a
 * probe: if it has one, the body is over the cap and everything is dropped;
 * a gzip bomb thus costs at most cap + 1 bytes and the time to expand cap
 * bytes, never more. */
#include "sources/otlp/transport/otlp_gzip.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

/* zlib counts in uInt: feed and drain in steps of at most this. */
#define GZ_STEP ((size_t)1 << 30)
/* First allocation floor: small bodies need one allocation, not several. */
#define GZ_MIN_ALLOC ((size_t)16 * 1024)

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

int fsc_otlp_gunzip(const uint8_t *in, size_t in_len, size_t cap, uint8_t **out, size_t *out_len,
                    char *err, size_t errlen)
{
    z_stream zs = {0};
    uint8_t *buf = NULL;
    size_t alloc, len = 0, left = in_len;
    const uint8_t *p = in;
    int rc, members = 0;

    *out = NULL;
    *out_len = 0;
    if (in_len == 0) {
        snprintf(err, errlen, "gzip body is empty");
        return -EBADMSG;
    }
    /* 16 + 15: gzip wrapper only (not zlib or raw deflate), 32 KiB window. */
    int zrc = inflateInit2(&zs, 16 + 15);
    if (zrc != Z_OK)
        return zrc == Z_MEM_ERROR ? -ENOMEM : -EIO;
    alloc = in_len > SIZE_MAX / 4 ? cap : in_len * 4;
    if (alloc < GZ_MIN_ALLOC)
        alloc = GZ_MIN_ALLOC;
    alloc = min_size(alloc, cap);
    buf = malloc(alloc + 1);
    if (!buf) {
        rc = -ENOMEM;
        goto fail;
    }

    for (;;) {
        if (zs.avail_in == 0 && left > 0) {
            size_t chunk = min_size(left, GZ_STEP);
            zs.next_in = (Bytef *)(uintptr_t)p; /* zlib's API is not const-correct */
            zs.avail_in = (uInt)chunk;
            p += chunk;
            left -= chunk;
        }
        uint8_t probe;
        int probing = 0;
        if (len == alloc && alloc < cap) {
            size_t grow = alloc > cap / 2 ? cap : alloc * 2;
            uint8_t *nb = realloc(buf, grow + 1);
            if (!nb) {
                rc = -ENOMEM;
                goto fail;
            }
            buf = nb;
            alloc = grow;
        }
        if (len == alloc) {
            probing = 1;
            zs.next_out = &probe;
            zs.avail_out = 1;
        } else {
            zs.next_out = buf + len;
            zs.avail_out = (uInt)min_size(alloc - len, GZ_STEP);
        }
        uInt out_before = zs.avail_out, in_before = zs.avail_in;
        zrc = inflate(&zs, Z_NO_FLUSH);
        size_t produced = out_before - zs.avail_out;
        if (probing && produced > 0) {
            rc = -E2BIG;
            goto fail;
        }
        len += probing ? 0 : produced;
        size_t at = in_len - left - zs.avail_in; /* input bytes consumed so far */
        if (zrc == Z_STREAM_END) {
            members++;
            if (zs.avail_in == 0 && left == 0)
                break;
            /* Another member follows (or garbage, which the next header
             * check reports). */
            if (inflateReset(&zs) != Z_OK) {
                rc = -EIO;
                goto fail;
            }
            continue;
        }
        if (zrc == Z_OK)
            continue;
        if (zrc == Z_MEM_ERROR) {
            rc = -ENOMEM;
            goto fail;
        }
        if (zrc == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) {
            snprintf(err, errlen, "gzip body is truncated after %zu bytes", in_len);
            rc = -EBADMSG;
            goto fail;
        }
        if (zrc == Z_BUF_ERROR && (produced > 0 || zs.avail_in != in_before))
            continue; /* progress was made; more room or input next round */
        if (members > 0)
            snprintf(err, errlen, "unexpected bytes after the gzip data at byte %zu", at);
        else
            snprintf(err, errlen, "corrupt gzip body at byte %zu: %s", at,
                     zs.msg ? zs.msg : "inflate failed");
        rc = -EBADMSG;
        goto fail;
    }
    inflateEnd(&zs);
    if (len == 0) {
        free(buf);
        buf = NULL;
    } else {
        buf[len] = 0;
    }
    *out = buf;
    *out_len = len;
    return 0;
fail:
    inflateEnd(&zs);
    free(buf);
    return rc;
}
