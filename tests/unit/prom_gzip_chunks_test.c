/* Chunked gzip of scrape bodies (exporters/prometheus/prom_gzip_chunks.h):
 * every output is checked by zlib's own inflate (one gzip member, the
 * header's exact bytes, the CRC-32 and length of RFC 1952) and by the chunks
 * it reused, whose count follows from how the body was changed. */
#include <errno.h>
#include <stdint.h>
#include <zlib.h>

#include "prometheus/prom_gzip_chunks.h"
#include "test.h"

#define FAMILIES 2
#define PORTS    3000 /* 2 x 3000 lines of ~60 bytes: ~360 KiB, ~18 chunks */

/* An exposition: FAMILIES families of PORTS series, value v(f, i) + bump
 * where (f, i) == (bump_f, bump_i); bump OMIT leaves that series out (it went
 * stale). */
#define OMIT (~0ULL)
static struct fsc_buf *make_body(int bump_f, int bump_i, unsigned long long bump)
{
    struct fsc_buf *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    for (int f = 0; f < FAMILIES; f++) {
        fsc_buf_printf(b, "# HELP fam_%d_total Family %d.\n# TYPE fam_%d_total counter\n", f, f, f);
        for (int i = 0; i < PORTS; i++) {
            unsigned long long v = (unsigned long long)f * 1000003ULL * (unsigned)(i + 1);
            if (f == bump_f && i == bump_i && bump == OMIT)
                continue;
            if (f == bump_f && i == bump_i)
                v += bump;
            fsc_buf_printf(b, "fam_%d_total{device=\"leaf1\",port=\"et-0/0/%d\"} %llu\n", f, i, v);
        }
    }
    return b;
}

static void drop(struct fsc_buf *b)
{
    if (b) {
        fsc_buf_free(b);
        free(b);
    }
}

/* 1 when gz is one gzip member whose content is exactly want. */
static int inflates_to(const struct fsc_buf *gz, const struct fsc_buf *want)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return 0;
    size_t cap = want->len + 64;
    unsigned char *out = malloc(cap);
    if (!out) {
        inflateEnd(&zs);
        return 0;
    }
    zs.next_in = (Bytef *)gz->data;
    zs.avail_in = (uInt)gz->len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int zrc = inflate(&zs, Z_FINISH);
    int ok = zrc == Z_STREAM_END && zs.avail_in == 0 && zs.total_out == want->len &&
             (want->len == 0 || memcmp(out, want->data, want->len) == 0);
    if (!ok)
        fprintf(stderr, "  inflate: rc %d, %lu of %zu bytes, %u input left\n", zrc, zs.total_out,
                want->len, zs.avail_in);
    inflateEnd(&zs);
    free(out);
    return ok;
}

static uint32_t le32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

static void one_member_exact_framing(void)
{
    struct fsc_prom_gzchunks *c;
    struct fsc_buf out = {0};
    struct fsc_prom_gz_stats st;
    CHECK_INT(fsc_prom_gzchunks_new(1, &c), 0);
    struct fsc_buf *body = make_body(-1, 0, 0);
    struct fsc_buf *copy = make_body(-1, 0, 0);
    CHECK_INT(fsc_prom_gzchunks_compress(c, body, &out, &st), 0);
    drop(body); /* borrowed only: the state keeps no pointer into it */
    CHECK(inflates_to(&out, copy));
    static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
    CHECK(out.len > 18 && memcmp(out.data, head, sizeof(head)) == 0);
    CHECK_INT(le32(out.data + out.len - 8), crc32(0, (const Bytef *)copy->data, (uInt)copy->len));
    CHECK_INT(le32(out.data + out.len - 4), copy->len);
    CHECK(st.chunks >= 12 && st.chunks <= 30);
    CHECK_INT(st.chunks_reused, 0);
    /* Every chunk is >= 16 KiB but the last, and the whole stays within 10 %
     * of a single deflate stream at the same level. */
    uLongf one = compressBound((uLong)copy->len);
    Bytef *ref = malloc(one);
    CHECK(ref && compress2(ref, &one, (const Bytef *)copy->data, (uLong)copy->len, 1) == Z_OK);
    CHECK((double)out.len < 1.10 * (double)one);
    free(ref);
    drop(copy);
    fsc_buf_free(&out);
    fsc_prom_gzchunks_free(c);
}

static void unchanged_and_changed_chunks(void)
{
    struct fsc_prom_gzchunks *c;
    struct fsc_buf out1 = {0}, out2 = {0}, out3 = {0}, out4 = {0};
    struct fsc_prom_gz_stats st1, st2, st3, st4;
    CHECK_INT(fsc_prom_gzchunks_new(1, &c), 0);

    struct fsc_buf *a = make_body(-1, 0, 0);
    CHECK_INT(fsc_prom_gzchunks_compress(c, a, &out1, &st1), 0);
    /* The previous body is not kept: its bytes are overwritten and freed
     * before the next call, which must still find every chunk. */
    memset(a->data, 'x', a->len);
    drop(a);
    /* The same bytes in a new buffer: every chunk reused, the very same
     * compressed bytes. */
    struct fsc_buf *b = make_body(-1, 0, 0);
    CHECK_INT(fsc_prom_gzchunks_compress(c, b, &out2, &st2), 0);
    CHECK_INT(st2.chunks, st1.chunks);
    CHECK_INT(st2.chunks_reused, st1.chunks);
    CHECK_INT(st2.bytes_reused, b->len);
    CHECK(out2.len == out1.len && memcmp(out1.data, out2.data, out1.len) == 0);
    drop(b);

    /* One value changed, same length: exactly one chunk is compressed anew. */
    struct fsc_buf *d = make_body(1, 1700, 1);
    CHECK_INT(fsc_prom_gzchunks_compress(c, d, &out3, &st3), 0);
    CHECK_INT(st3.chunks, st1.chunks);
    CHECK_INT(st3.chunks_reused, st1.chunks - 1);
    struct fsc_buf *want = make_body(1, 1700, 1);
    CHECK(inflates_to(&out3, want));
    drop(want);
    drop(d);

    /* A value that grows by 7 digits early in a family: the cuts after it
     * follow the series, not the offsets, so again one chunk changes. */
    struct fsc_buf *e = make_body(0, 10, 10000000000000ULL);
    CHECK_INT(fsc_prom_gzchunks_compress(c, e, &out4, &st4), 0);
    CHECK_INT(st4.chunks, st1.chunks);
    CHECK_INT(st4.chunks_reused, st1.chunks - 2); /* (1, 1700) is back to v too */
    want = make_body(0, 10, 10000000000000ULL);
    CHECK(inflates_to(&out4, want));
    drop(want);
    drop(e);

    /* A series early in a family goes stale: everything after it moves up
     * a line. Cuts chosen by offset would all move (every later chunk of
     * the family new); chosen by series, only the chunk that held it
     * changes, and the one that held (0, 10) before. */
    struct fsc_prom_gz_stats st5;
    struct fsc_buf out5 = {0};
    struct fsc_buf *g = make_body(0, 12, OMIT);
    CHECK_INT(fsc_prom_gzchunks_compress(c, g, &out5, &st5), 0);
    CHECK_INT(st5.chunks, st1.chunks);
    CHECK_INT(st5.chunks_reused, st1.chunks - 1); /* (0, 10) and (0, 12) share the first */
    want = make_body(0, 12, OMIT);
    CHECK(inflates_to(&out5, want));
    drop(want);
    drop(g);
    fsc_buf_free(&out5);
    fsc_buf_free(&out1);
    fsc_buf_free(&out2);
    fsc_buf_free(&out3);
    fsc_buf_free(&out4);
    fsc_prom_gzchunks_free(c);
}

/* Streams body in pieces whose sizes cycle through sizes[] (taking what is
 * made out of the output after every call, as a streamed response does)
 * into *all. Returns 0 or the first error. */
static int stream_pieces(struct fsc_prom_gzchunks *c, const struct fsc_buf *body,
                         const size_t *sizes, size_t n_sizes, struct fsc_buf *all,
                         struct fsc_prom_gz_stats *st)
{
    struct fsc_buf seg = {0};
    memset(st, 0, sizeof(*st));
    fsc_buf_reset(all);
    int rc = fsc_prom_gzchunks_begin(c, &seg);
    for (size_t off = 0, i = 0; rc == 0 && off < body->len; i++) {
        size_t n = sizes[i % n_sizes] < body->len - off ? sizes[i % n_sizes] : body->len - off;
        rc = fsc_prom_gzchunks_feed(c, body->data + off, n, &seg, st);
        off += n;
        if (rc == 0)
            rc = fsc_buf_append(all, seg.data ? seg.data : "", seg.len);
        fsc_buf_reset(&seg);
    }
    if (rc == 0)
        rc = fsc_prom_gzchunks_end(c, &seg, st);
    if (rc == 0)
        rc = fsc_buf_append(all, seg.data, seg.len);
    fsc_buf_free(&seg);
    return rc;
}

static int same_bytes(const struct fsc_buf *a, const struct fsc_buf *b)
{
    return a->len == b->len && a->len > 0 && memcmp(a->data, b->data, a->len) == 0;
}

/* A member made from pieces is byte for byte the member of the whole body,
 * whatever the pieces (a byte, odd sizes, more than a chunk), with the same
 * chunks reused; an aborted member leaves the previous chunks usable. */
static void streamed_pieces_equal_whole(void)
{
    struct fsc_prom_gzchunks *whole, *pieces;
    struct fsc_buf want = {0}, got = {0};
    struct fsc_prom_gz_stats sw, sp;
    CHECK_INT(fsc_prom_gzchunks_new(1, &whole), 0);
    CHECK_INT(fsc_prom_gzchunks_new(1, &pieces), 0);
    static const size_t odd[] = {1, 4093, 7, 65536, 17000};
    static const size_t big[] = {300 * 1024};

    struct fsc_buf *a = make_body(-1, 0, 0);
    CHECK_INT(fsc_prom_gzchunks_compress(whole, a, &want, &sw), 0);
    CHECK_INT(stream_pieces(pieces, a, odd, 5, &got, &sp), 0);
    CHECK(same_bytes(&got, &want));
    CHECK_INT(sp.chunks, sw.chunks);
    CHECK_INT(sp.chunks_reused, 0);
    CHECK(inflates_to(&got, a));

    /* One value changed: one chunk new, the rest copied, in both. */
    struct fsc_buf *d = make_body(1, 1700, 1);
    CHECK_INT(fsc_prom_gzchunks_compress(whole, d, &want, &sw), 0);
    CHECK_INT(stream_pieces(pieces, d, big, 1, &got, &sp), 0);
    CHECK(same_bytes(&got, &want));
    CHECK_INT(sp.chunks_reused, sw.chunks - 1);
    CHECK_INT(sw.chunks_reused, sw.chunks - 1);

    /* Half a member, aborted: the next member still reuses d's chunks. */
    struct fsc_buf seg = {0};
    CHECK_INT(fsc_prom_gzchunks_begin(pieces, &seg), 0);
    CHECK_INT(fsc_prom_gzchunks_feed(pieces, a->data, a->len / 2, &seg, NULL), 0);
    fsc_prom_gzchunks_abort(pieces);
    CHECK_INT(fsc_prom_gzchunks_feed(pieces, a->data, 10, &seg, NULL), -EINVAL);
    CHECK_INT(stream_pieces(pieces, d, odd, 5, &got, &sp), 0);
    CHECK_INT(sp.chunks_reused, sp.chunks);
    CHECK_INT(sp.bytes_reused, d->len);
    CHECK(inflates_to(&got, d));

    fsc_buf_free(&seg);
    drop(a);
    drop(d);
    fsc_buf_free(&want);
    fsc_buf_free(&got);
    fsc_prom_gzchunks_free(whole);
    fsc_prom_gzchunks_free(pieces);
}

static void edge_bodies(void)
{
    struct fsc_prom_gzchunks *c;
    struct fsc_buf out = {0};
    CHECK_INT(fsc_prom_gzchunks_new(1, &c), 0);
    CHECK_INT(fsc_prom_gzchunks_new(0, &(struct fsc_prom_gzchunks *){NULL}), -EINVAL);

    /* Empty: a member of nothing (CRC 0, ISIZE 0). */
    struct fsc_buf *empty = calloc(1, sizeof(*empty));
    struct fsc_buf none = {0};
    CHECK_INT(fsc_prom_gzchunks_compress(c, empty, &out, NULL), 0);
    drop(empty);
    CHECK(inflates_to(&out, &none));
    CHECK_INT(out.len, 10 + 2 + 8);

    /* One line of 600 KiB without a newline: cut hard at 256 KiB. */
    struct fsc_buf *big = calloc(1, sizeof(*big)), want = {0};
    for (int i = 0; i < 600 * 1024 / 16; i++) {
        fsc_buf_printf(big, "%015d ", i * 7919);
        fsc_buf_printf(&want, "%015d ", i * 7919);
    }
    struct fsc_prom_gz_stats st;
    CHECK_INT(fsc_prom_gzchunks_compress(c, big, &out, &st), 0);
    CHECK_INT(st.chunks, 3);
    CHECK(inflates_to(&out, &want));
    drop(big);

    /* A limit on out too small: -E2BIG, and the state starts afresh. */
    struct fsc_buf small = {.limit = 100};
    struct fsc_buf *again = calloc(1, sizeof(*again));
    fsc_buf_append(again, want.data, want.len);
    CHECK_INT(fsc_prom_gzchunks_compress(c, again, &small, NULL), -E2BIG);
    CHECK(again->len == want.len); /* untouched */
    CHECK_INT(fsc_prom_gzchunks_compress(c, again, &out, &st), 0);
    CHECK_INT(st.chunks_reused, 0);
    drop(again);
    CHECK(inflates_to(&out, &want));
    fsc_buf_free(&small);
    fsc_buf_free(&want);
    fsc_buf_free(&out);
    fsc_prom_gzchunks_free(c);
}

TEST_MAIN(TEST(one_member_exact_framing), TEST(unchanged_and_changed_chunks),
          TEST(streamed_pieces_equal_whole), TEST(edge_bodies))
