/* The project's one non-cryptographic hash, for in-process hash tables
 * (registry, exposition index, traits, topology). Quality matters only for
 * probe lengths; values never leave the process, so it may change freely.
 * Static inline: the callers are hot paths. */
#ifndef FSC_HASH_H
#define FSC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A strong 64-bit finalizer (every input bit affects every output bit). */
static inline uint64_t fsc_hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Hash of len bytes, 8 bytes per step, continuing from seed (so several
 * pieces can be chained: h = fsc_hash_bytes(b, lb, fsc_hash_bytes(a, la, 0))). */
static inline uint64_t fsc_hash_bytes(const void *p, size_t len, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ull ^ ((uint64_t)len * 0xff51afd7ed558ccdull);
    uint64_t w;
    while (len >= 8) {
        memcpy(&w, s, 8);
        w *= 0x87c37b91114253d5ull;
        h = ((h ^ w) << 27 | (h ^ w) >> 37) * 0x4cf5ad432745937full + 0x52dce729u;
        s += 8;
        len -= 8;
    }
    w = 0;
    memcpy(&w, s, len);
    h ^= w * 0x87c37b91114253d5ull;
    return fsc_hash_mix64(h);
}

/* 32-bit form for tables indexed by uint32_t. */
static inline uint32_t fsc_hash_fold32(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

#endif
