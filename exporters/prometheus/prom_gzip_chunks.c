/* Chunked gzip with reuse of unchanged chunks (prom_gzip_chunks.h). */
#include "prometheus/prom_gzip_chunks.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/hash.h"

/* Cut rule: a chunk is at least CHUNK_MIN bytes, then ends before the first
 * line that starts a family ('#') or whose series (the bytes before the
 * value) hashes to 0 mod CUT_ONE_IN: about CUT_ONE_IN lines later (~5 KiB of
 * 80-byte lines), whatever the values. 16 KiB keeps the ratio within a few
 * percent of one deflate stream (each chunk starts with an empty window and
 * its own Huffman tables) while a changed value recompresses ~20 KiB only.
 * CHUNK_HARD bounds a chunk whatever the lines (zlib counts in 32 bits). */
#define CHUNK_MIN  ((size_t)16 << 10)
#define CHUNK_HARD ((size_t)256 << 10)
#define CUT_ONE_IN 64u
/* The key a chunk is looked up by: its length and up to this many bytes at
 * each end. Equality is then decided by the length and a 128-bit hash of all
 * its bytes (chunk_sum: a false match among a few thousand chunks per scrape
 * is below 1e-30 for data nobody shaped against this hash), so the previous
 * body itself need not be kept. */
#define KEY_EDGE 64u

/* RFC 1952 member header: ID1 ID2, CM 8 (deflate), no flags, MTIME 0
 * (none), XFL 4 (fastest), OS 3 (Unix). */
static const unsigned char gzip_member_head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
/* An empty final block with fixed codes: BFINAL 1, BTYPE 01, end-of-block
 * code 0000000 (RFC 1951 3.2.6), padded to the byte. */
static const unsigned char deflate_last[2] = {0x03, 0x00};

struct gz_chunk {
    size_t off, len;   /* in the identity body */
    uint64_t key;      /* chunk_key() */
    uint64_t sum[2];   /* chunk_sum() of all its identity bytes */
    uint32_t crc;      /* CRC-32 of the identity bytes */
    size_t zoff, zlen; /* in the generation's compressed bytes */
};

/* One body's chunks (not the body) and their compressed bytes. */
struct gz_gen {
    struct gz_chunk *v;
    size_t n, cap;
    unsigned char *z; /* the chunks' deflate bytes, back to back */
    size_t zlen, zcap;
};

struct fsc_prom_gzchunks {
    z_stream zs; /* raw deflate, reset per chunk */
    struct gz_gen prev;
    struct gz_chunk *cur; /* this call's chunks (zoff into out, from its deflate start) */
    size_t ncur, capcur;
    uint32_t *slot; /* open addressing over prev.v: index + 1, 0 = empty */
    size_t nslot;   /* in use: a power of two >= 2 * prev.n, or 0 (no index) */
    size_t capslot; /* allocated */

    /* The member being made: its chunks' deflate bytes (the next
     * generation's, cur[].zoff into it), the identity bytes not cut into a
     * chunk yet (less than CHUNK_HARD + one piece), the CRC-32 and length
     * so far. */
    struct fsc_buf z;
    struct fsc_buf carry;
    uint32_t crc;
    uint64_t total;
    int open; /* begun and not ended */
};

int fsc_prom_gzchunks_new(int level, struct fsc_prom_gzchunks **out)
{
    struct fsc_prom_gzchunks *c;

    *out = NULL;
    if (level < 1 || level > 9)
        return -EINVAL;
    c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    /* windowBits -15: raw deflate, the gzip framing is ours. */
    int zrc = deflateInit2(&c->zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (zrc != Z_OK) {
        free(c);
        return zrc == Z_MEM_ERROR ? -ENOMEM : -EIO;
    }
    *out = c;
    return 0;
}

static void gen_forget(struct gz_gen *g)
{
    g->n = 0;
    g->zlen = 0;
}

void fsc_prom_gzchunks_free(struct fsc_prom_gzchunks *c)
{
    if (!c)
        return;
    deflateEnd(&c->zs);
    gen_forget(&c->prev);
    free(c->prev.v);
    free(c->prev.z);
    free(c->cur);
    free(c->slot);
    fsc_buf_free(&c->z);
    fsc_buf_free(&c->carry);
    free(c);
}

/* Where the chunk that starts at `start` ends (see the cut rule above). */
static size_t chunk_end(const unsigned char *d, size_t len, size_t start)
{
    if (len - start <= CHUNK_MIN)
        return len;
    size_t hard = len - start > CHUNK_HARD ? start + CHUNK_HARD : len;
    /* The first line start at or after start + CHUNK_MIN. */
    const unsigned char *nl =
        memchr(d + start + CHUNK_MIN - 1, '\n', hard - (start + CHUNK_MIN - 1));
    size_t ls = nl ? (size_t)(nl - d) + 1 : hard;
    while (ls < hard) {
        if (d[ls] == '#')
            return ls;
        nl = memchr(d + ls, '\n', hard - ls);
        size_t le = nl ? (size_t)(nl - d) : hard;
        /* The series: what precedes the line's last space (the value). */
        size_t sp = le;
        while (sp > ls && d[sp - 1] != ' ')
            sp--;
        if (sp > ls) {
            size_t n = sp - 1 - ls < 8 ? sp - 1 - ls : 8;
            uint64_t w = 0;
            memcpy(&w, d + sp - 1 - n, n);
            if (fsc_hash_mix64(w ^ n) % CUT_ONE_IN == 0)
                return ls;
        }
        ls = le + 1;
    }
    return hard;
}

static uint64_t chunk_key(const unsigned char *p, size_t n)
{
    size_t e = n < KEY_EDGE ? n : KEY_EDGE;
    return fsc_hash_bytes(p + n - e, e, fsc_hash_bytes(p, e, (uint64_t)n));
}

/* 128 bits over all of p[0..n): four independent lanes of 8 bytes each per
 * 32-byte step (the multiplies of one lane do not wait for another's, about
 * 4x the speed of one chain: a scrape hashes every byte of its body), folded
 * pairwise and finished with fsc_hash_mix64. */
static void chunk_sum(const unsigned char *p, size_t n, uint64_t out[2])
{
    uint64_t h[4] = {0x6a09e667f3bcc908ull ^ n, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                     0xa54ff53a5f1d36f1ull};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * (size_t)l, 8);
            h[l] ^= w * 0x87c37b91114253d5ull;
            h[l] = (h[l] << 31 | h[l] >> 33) * 0x4cf5ad432745937full;
        }
    }
    uint64_t tail = fsc_hash_bytes(p + i, n - i, h[3]);
    out[0] = fsc_hash_mix64(h[0] ^ (h[2] << 17 | h[2] >> 47) ^ tail);
    out[1] = fsc_hash_mix64(h[1] ^ (h[3] << 29 | h[3] >> 35) ^ (tail * 0x9e3779b97f4a7c15ull));
}

/* The previous body's chunk equal to `want` (length, key, sum), or NULL. */
static const struct gz_chunk *find_prev(const struct fsc_prom_gzchunks *c,
                                        const struct gz_chunk *want)
{
    if (c->nslot == 0)
        return NULL;
    for (size_t i = (size_t)want->key & (c->nslot - 1);; i = (i + 1) & (c->nslot - 1)) {
        uint32_t s = c->slot[i];
        if (s == 0)
            return NULL;
        const struct gz_chunk *k = &c->prev.v[s - 1];
        if (k->key == want->key && k->len == want->len && k->sum[0] == want->sum[0] &&
            k->sum[1] == want->sum[1])
            return k;
    }
}

/* Makes room in c->slot for an index of n chunks. Returns 0 or -ENOMEM. */
static int reserve_index(struct fsc_prom_gzchunks *c, size_t n, size_t *nslot)
{
    size_t want = 16;
    while (want < 2 * n)
        want *= 2;
    if (want > c->capslot) {
        uint32_t *s = realloc(c->slot, want * sizeof(*s));
        if (!s)
            return -ENOMEM;
        c->slot = s;
        c->capslot = want;
    }
    *nslot = want;
    return 0;
}

/* Indexes c->prev's chunks (room made by reserve_index). */
static void index_prev(struct fsc_prom_gzchunks *c, size_t nslot)
{
    c->nslot = nslot;
    memset(c->slot, 0, c->nslot * sizeof(*c->slot));
    for (size_t j = 0; j < c->prev.n; j++) {
        size_t i = (size_t)c->prev.v[j].key & (c->nslot - 1);
        while (c->slot[i] != 0)
            i = (i + 1) & (c->nslot - 1);
        c->slot[i] = (uint32_t)(j + 1);
    }
}

/* Appends p[0..n) to out as raw deflate ending in a sync flush. */
static int deflate_chunk(struct fsc_prom_gzchunks *c, const unsigned char *p, size_t n,
                         struct fsc_buf *out)
{
    if (deflateReset(&c->zs) != Z_OK)
        return -EIO;
    /* deflateBound assumes one Z_FINISH; a sync flush adds an empty stored
     * block (5 bytes at most) and the bits pending before it. */
    size_t room = (size_t)deflateBound(&c->zs, (uLong)n) + 16;
    int rc = fsc_buf_reserve(out, room);
    if (rc != 0)
        return rc;
    c->zs.next_in = (Bytef *)(uintptr_t)p;
    c->zs.avail_in = (uInt)n;
    c->zs.next_out = (Bytef *)out->data + out->len;
    c->zs.avail_out = (uInt)room;
    int zrc = deflate(&c->zs, Z_SYNC_FLUSH);
    if (zrc != Z_OK || c->zs.avail_in != 0 || c->zs.avail_out == 0)
        return -EIO;
    out->len += room - c->zs.avail_out;
    return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static int push_chunk(struct fsc_prom_gzchunks *c, const struct gz_chunk *k)
{
    if (c->ncur == c->capcur) {
        size_t cap = c->capcur ? c->capcur * 2 : 64;
        struct gz_chunk *v = realloc(c->cur, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        c->cur = v;
        c->capcur = cap;
    }
    c->cur[c->ncur++] = *k;
    return 0;
}

/* Makes this member's chunks the previous generation (their deflate bytes
 * in c->z trade places with the old ones). Returns 0, or -ENOMEM with
 * nothing changed. */
static int keep_generation(struct fsc_prom_gzchunks *c)
{
    struct gz_gen *g = &c->prev;
    size_t nslot;
    if (reserve_index(c, c->ncur, &nslot) != 0)
        return -ENOMEM;
    unsigned char *z = g->z; /* the byte arrays trade places */
    size_t zcap = g->zcap;
    g->z = (unsigned char *)c->z.data;
    g->zcap = c->z.cap;
    g->zlen = c->z.len;
    c->z.data = (char *)z;
    c->z.cap = zcap;
    c->z.len = 0;
    struct gz_chunk *v = g->v; /* and so do the chunk arrays */
    size_t cap = g->cap;
    g->v = c->cur;
    g->cap = c->capcur;
    g->n = c->ncur;
    c->cur = v;
    c->capcur = cap;
    c->ncur = 0;
    index_prev(c, nslot);
    return 0;
}

/* Appends one chunk d[0..len) to out and to c->z: the previous
 * generation's deflate bytes when it had the same chunk, else compressed. */
static int put_chunk(struct fsc_prom_gzchunks *c, const unsigned char *d, size_t len,
                     struct fsc_buf *out, struct fsc_prom_gz_stats *st)
{
    struct gz_chunk k = {.off = (size_t)c->total, .len = len, .zoff = c->z.len};
    size_t at = out->len;
    int rc;
    k.key = chunk_key(d, len);
    chunk_sum(d, len, k.sum);
    const struct gz_chunk *old = find_prev(c, &k);
    if (old) {
        rc = fsc_buf_append(out, c->prev.z + old->zoff, old->zlen);
        k.crc = old->crc;
        st->chunks_reused++;
        st->bytes_reused += len;
    } else {
        rc = deflate_chunk(c, d, len, out);
        k.crc = (uint32_t)crc32(0L, d, (uInt)len);
    }
    if (rc != 0)
        return rc;
    k.zlen = out->len - at;
    if ((rc = fsc_buf_append(&c->z, out->data + at, k.zlen)) != 0 || (rc = push_chunk(c, &k)) != 0)
        return rc;
    c->crc = (uint32_t)crc32_combine(c->crc, k.crc, (z_off_t)len);
    c->total += len;
    st->chunks++;
    return 0;
}

/* Cuts d[0..len) into chunks and puts them; unless `last`, stops where the
 * rest is no longer than CHUNK_HARD: chunk_end() reads at most CHUNK_HARD
 * bytes past a chunk's start, so every cut is the one the whole body would
 * get. *used: the bytes cut. */
static int cut_chunks(struct fsc_prom_gzchunks *c, const unsigned char *d, size_t len, int last,
                      struct fsc_buf *out, struct fsc_prom_gz_stats *st, size_t *used)
{
    size_t off = 0;
    int rc = 0;
    while (off < len && (last || len - off > CHUNK_HARD)) {
        size_t end = chunk_end(d, len, off);
        if ((rc = put_chunk(c, d + off, end - off, out, st)) != 0)
            break;
        off = end;
    }
    *used = off;
    return rc;
}

/* Forgets the member in progress and the previous generation: the next
 * member starts from scratch. */
static void forget(struct fsc_prom_gzchunks *c)
{
    c->nslot = 0;
    gen_forget(&c->prev);
    c->ncur = 0;
    fsc_buf_reset(&c->z);
    fsc_buf_reset(&c->carry);
    c->open = 0;
}

int fsc_prom_gzchunks_begin(struct fsc_prom_gzchunks *c, struct fsc_buf *out)
{
    c->ncur = 0;
    c->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    c->total = 0;
    fsc_buf_reset(&c->z);
    fsc_buf_reset(&c->carry);
    int rc = fsc_buf_append(out, gzip_member_head, sizeof(gzip_member_head));
    if (rc != 0) {
        forget(c);
        return rc;
    }
    c->open = 1;
    return 0;
}

int fsc_prom_gzchunks_feed(struct fsc_prom_gzchunks *c, const void *p, size_t n,
                           struct fsc_buf *out, struct fsc_prom_gz_stats *st)
{
    struct fsc_prom_gz_stats local = {0};
    size_t used;
    int rc;
    if (!st)
        st = &local;
    if (!c->open)
        return -EINVAL;
    if (c->carry.len == 0) {
        /* Cut straight from the caller's bytes; keep only the rest. */
        rc = cut_chunks(c, p, n, 0, out, st, &used);
        if (rc == 0)
            rc = fsc_buf_append(&c->carry, (const char *)p + used, n - used);
    } else {
        rc = fsc_buf_append(&c->carry, p, n);
        if (rc == 0)
            rc = cut_chunks(c, (const unsigned char *)c->carry.data, c->carry.len, 0, out, st,
                            &used);
        if (rc == 0 && used > 0) {
            memmove(c->carry.data, c->carry.data + used, c->carry.len - used);
            c->carry.len -= used;
            c->carry.data[c->carry.len] = '\0';
        }
    }
    if (rc != 0)
        forget(c);
    return rc;
}

int fsc_prom_gzchunks_end(struct fsc_prom_gzchunks *c, struct fsc_buf *out,
                          struct fsc_prom_gz_stats *st)
{
    struct fsc_prom_gz_stats local = {0};
    size_t used;
    if (!st)
        st = &local;
    if (!c->open)
        return -EINVAL;
    int rc = cut_chunks(c, (const unsigned char *)(c->carry.data ? c->carry.data : ""),
                        c->carry.len, 1, out, st, &used);
    if (rc == 0) {
        unsigned char trailer[sizeof(deflate_last) + 8];
        memcpy(trailer, deflate_last, sizeof(deflate_last));
        put_le32(trailer + 2, c->crc);
        put_le32(trailer + 6, (uint32_t)c->total); /* ISIZE: the length mod 2^32 */
        rc = fsc_buf_append(out, trailer, sizeof(trailer));
    }
    if (rc == 0)
        rc = keep_generation(c);
    if (rc != 0) {
        forget(c); /* nothing half-kept */
        return rc;
    }
    fsc_buf_reset(&c->carry);
    c->open = 0;
    return 0;
}

void fsc_prom_gzchunks_abort(struct fsc_prom_gzchunks *c)
{
    if (!c->open)
        return;
    /* The previous generation stays: nothing of it was changed. */
    c->ncur = 0;
    fsc_buf_reset(&c->z);
    fsc_buf_reset(&c->carry);
    c->open = 0;
}

int fsc_prom_gzchunks_compress(struct fsc_prom_gzchunks *c, const struct fsc_buf *body,
                               struct fsc_buf *out, struct fsc_prom_gz_stats *st)
{
    struct fsc_prom_gz_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    fsc_buf_reset(out);
    int rc = fsc_prom_gzchunks_begin(c, out);
    if (rc == 0)
        rc = fsc_prom_gzchunks_feed(c, body->data ? body->data : "", body->len, out, st);
    if (rc == 0)
        rc = fsc_prom_gzchunks_end(c, out, st);
    return rc;
}
