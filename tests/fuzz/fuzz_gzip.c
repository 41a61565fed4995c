/* Fuzz target gzip: bodies for fsc_otlp_gunzip() (collector/sources/otlp/transport/otlp_gzip.h),
 * the bounded inflater both OTLP transports use.
 *
 * The input is used two ways:
 *   - as a (hostile) gzip body, inflated with a cap taken from its first
 *     byte (0 .. 64 KiB): accepted means out_len <= cap and an owned buffer
 *     with a spare byte; refused means *out NULL; and zlib's own inflate
 *     (gzip mode, members concatenated) must agree on the bytes whenever we
 *     accept;
 *   - as a plain payload, compressed here with zlib's gzip writer: inflating
 *     it with cap = size gives it back exactly, with cap = size - 1 (when
 *     size > 0) it must fail with -E2BIG. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "sources/otlp/transport/otlp_gzip.h"

/* zlib's reading of in as concatenated gzip members, at most cap bytes.
 * Returns the length, or -1 when zlib refuses it or it exceeds cap. */
static long zlib_gunzip(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t used = 0, produced = 0;
    while (used < n) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
            return -1;
        zs.next_in = (Bytef *)(uintptr_t)(in + used);
        zs.avail_in = (uInt)(n - used);
        uint8_t spare;
        zs.next_out = cap > produced ? out + produced : &spare;
        zs.avail_out = cap > produced ? (uInt)(cap - produced) : 1;
        int rc = inflate(&zs, Z_FINISH);
        size_t got = zs.total_out;
        size_t ate = zs.total_in;
        inflateEnd(&zs);
        if (rc != Z_STREAM_END || produced + got > cap)
            return -1;
        produced += got;
        used += ate;
    }
    return (long)produced;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    uint8_t *out = (uint8_t *)1;
    size_t out_len = 12345;
    size_t cap = size ? (size_t)data[0] * 256 : 0;
    int rc = fsc_otlp_gunzip(data, size, cap, &out, &out_len, err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -E2BIG || rc == -EBADMSG);
    if (rc == 0) {
        FUZZ_CHECK(out_len <= cap && (out_len == 0) == (out == NULL));
        if (out)
            out[out_len] = 0; /* the spare byte is ours to write */
        uint8_t *ref = malloc(cap + 1);
        FUZZ_CHECK(ref);
        long zl = zlib_gunzip(data, size, ref, cap);
        FUZZ_CHECK(zl == (long)out_len && (out_len == 0 || memcmp(ref, out, out_len) == 0));
        free(ref);
        free(out);
    } else {
        FUZZ_CHECK(out == NULL);
    }

    /* Round trip through zlib's gzip writer. */
    uLong bound = compressBound((uLong)size) + 64;
    uint8_t *gz = malloc(bound);
    FUZZ_CHECK(gz);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    FUZZ_CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)size;
    zs.next_out = gz;
    zs.avail_out = (uInt)bound;
    FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    size_t gz_len = zs.total_out;
    deflateEnd(&zs);

    rc = fsc_otlp_gunzip(gz, gz_len, size, &out, &out_len, err, sizeof err);
    FUZZ_CHECK(rc == 0 && out_len == size && (size == 0 || memcmp(out, data, size) == 0));
    free(out);
    if (size > 0) {
        out = (uint8_t *)1;
        rc = fsc_otlp_gunzip(gz, gz_len, size - 1, &out, &out_len, err, sizeof err);
        FUZZ_CHECK(rc == -E2BIG && out == NULL);
    }
    free(gz);
    return 0;
}
