/* The hash of names too long for their bound: FNV-1a 64-bit,
 * and the hashed form of a Prometheus label name.
 *
 * Unlike base/hash.h (in-process tables only, free to change), this hash
 * is part of series identities that leave the process: a label value's
 * "~h" suffix (OTLP attribute values and device names), a label name's
 * "_h" suffix (OTLP attribute keys, gNMI passthrough list-key names) and
 * the tail of an OTLP cache key cut at its bound. It must never change:
 * a new hash would rename series in every dashboard. FNV-1a is byte-wise
 * (no word loads, so no endianness or alignment), documented
 * (http://www.isthe.com/chongo/tech/comp/fnv/) and easy to compute
 * independently, which the tests do. Not collision-resistant against a
 * chosen input: a sender can make two of its own names collide, which
 * costs it its own series, nobody else's.
 *
 * Static inline: header-only, no state; used on the hot path only for
 * names over their bound. */
#ifndef FSC_NAME_HASH_H
#define FSC_NAME_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FSC_FNV1A64_OFFSET 0xcbf29ce484222325ull /* 14695981039346656037 */
#define FSC_FNV1A64_PRIME  0x100000001b3ull      /* 1099511628211 */

/* One FNV-1a step: h for the bytes so far and then c. Start from
 * FSC_FNV1A64_OFFSET. For callers that hash a stream or skip bytes. */
static inline uint64_t fsc_fnv1a64_step(uint64_t h, unsigned char c)
{
    return (h ^ c) * FSC_FNV1A64_PRIME;
}

/* FNV-1a 64 of p[0..n) (n = 0: the offset basis). */
static inline uint64_t fsc_fnv1a64(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = FSC_FNV1A64_OFFSET;
    for (size_t i = 0; i < n; i++)
        h = fsc_fnv1a64_step(h, s[i]);
    return h;
}

/* Writes h as 16 lowercase hex digits, most significant first, into
 * out[0..16) (no NUL). */
static inline void fsc_hex16(uint64_t h, char out[16])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        out[i] = hex[(h >> (60 - 4 * i)) & 0xf];
}

/* Label names. A sanitized name ([a-zA-Z_][a-zA-Z0-9_]*) of at most
 * FSC_LABEL_NAME_BOUND bytes is kept as it is; a longer one becomes its
 * first FSC_LABEL_NAME_KEEP bytes + "_h" + 16 hex digits of the FNV-1a
 * hash of the whole original name (the bytes as sent, before
 * sanitizing): exactly FSC_LABEL_NAME_BOUND bytes, still a valid label
 * name, and two names that differ anywhere stay two labels. */
#define FSC_LABEL_NAME_BOUND 63
#define FSC_LABEL_NAME_KEEP  45 /* + "_h" + 16 hex digits = 63 */

/* Rewrites out (a sanitized name of at least FSC_LABEL_NAME_KEEP bytes,
 * room for FSC_LABEL_NAME_BOUND + 1) into the hashed form for the
 * original name orig[0..orig_len), NUL-terminated. Returns
 * FSC_LABEL_NAME_BOUND. */
static inline size_t fsc_label_name_hash(char *out, const void *orig, size_t orig_len)
{
    out[FSC_LABEL_NAME_KEEP] = '_';
    out[FSC_LABEL_NAME_KEEP + 1] = 'h';
    fsc_hex16(fsc_fnv1a64(orig, orig_len), out + FSC_LABEL_NAME_KEEP + 2);
    out[FSC_LABEL_NAME_BOUND] = '\0';
    return FSC_LABEL_NAME_BOUND;
}

#endif
