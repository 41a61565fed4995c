/* MD5 from RFC 1321 section 3: four rounds of sixteen steps over 512-bit
 * blocks, little-endian words, the length in bits appended after 0x80 and
 * zero padding. The sine table T[i] = floor(2^32 * |sin(i + 1)|) is spelled
 * out rather than computed, so the result never depends on libm. */
#include "base/md5.h"

#include <string.h>

static const uint32_t md5_t[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* Per-round rotation amounts (s of the RFC's steps, four per round). */
static const unsigned md5_s[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

static uint32_t rotl(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void md5_block(uint32_t st[4], const unsigned char *p)
{
    uint32_t x[16];
    for (unsigned i = 0; i < 16; i++)
        x[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    for (unsigned i = 0; i < 64; i++) {
        uint32_t f;
        unsigned k, round = i / 16;
        switch (round) {
        case 0: /* F(X,Y,Z) = XY v not(X) Z */
            f = (b & c) | (~b & d);
            k = i;
            break;
        case 1: /* G(X,Y,Z) = XZ v Y not(Z) */
            f = (b & d) | (c & ~d);
            k = (5 * i + 1) % 16;
            break;
        case 2: /* H(X,Y,Z) = X xor Y xor Z */
            f = b ^ c ^ d;
            k = (3 * i + 5) % 16;
            break;
        default: /* I(X,Y,Z) = Y xor (X v not(Z)) */
            f = c ^ (b | ~d);
            k = (7 * i) % 16;
            break;
        }
        uint32_t tmp = d;
        d = c;
        c = b;
        b = b + rotl(a + f + md5_t[i] + x[k], md5_s[round][i % 4]);
        a = tmp;
    }
    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
}

void fsc_md5_init(struct fsc_md5 *md)
{
    md->state[0] = 0x67452301;
    md->state[1] = 0xefcdab89;
    md->state[2] = 0x98badcfe;
    md->state[3] = 0x10325476;
    md->bytes = 0;
    md->used = 0;
}

void fsc_md5_update(struct fsc_md5 *md, const void *data, size_t len)
{
    const unsigned char *p = data;
    md->bytes += len;
    while (len > 0) {
        size_t n = sizeof(md->block) - md->used;
        if (n > len)
            n = len;
        memcpy(md->block + md->used, p, n);
        md->used += n;
        p += n;
        len -= n;
        if (md->used == sizeof(md->block)) {
            md5_block(md->state, md->block);
            md->used = 0;
        }
    }
}

void fsc_md5_final(struct fsc_md5 *md, unsigned char out[FSC_MD5_DIGEST])
{
    uint64_t bits = md->bytes * 8;
    unsigned char pad[72] = {0x80};
    /* Pad to 56 mod 64, then the 64-bit little-endian bit length. */
    size_t padlen = md->used < 56 ? 56 - md->used : 120 - md->used;
    unsigned char len[8];
    for (unsigned i = 0; i < 8; i++)
        len[i] = (unsigned char)(bits >> (8 * i));
    fsc_md5_update(md, pad, padlen);
    fsc_md5_update(md, len, 8);
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++)
            out[4 * i + j] = (unsigned char)(md->state[i] >> (8 * j));
}

void fsc_md5(const void *data, size_t len, unsigned char out[FSC_MD5_DIGEST])
{
    struct fsc_md5 md;
    fsc_md5_init(&md);
    fsc_md5_update(&md, data, len);
    fsc_md5_final(&md, out);
}
