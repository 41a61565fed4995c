/* Shard placement (shard.h): hashmod over an MD5 digest. */
#include "model/shard.h"

#include <errno.h>
#include <string.h>

#include <gnutls/crypto.h>

uint64_t fsc_shard_hash(const char *name)
{
    unsigned char dg[16]; /* MD5 (RFC 1321), gnutls' */
    if (gnutls_hash_fast(GNUTLS_DIG_MD5, name, strlen(name), dg) < 0)
        return 0;
    uint64_t v = 0;
    for (unsigned i = 8; i < 16; i++)
        v = v << 8 | dg[i];
    return v;
}

uint32_t fsc_shard_of(const char *name, uint32_t count)
{
    if (count <= 1)
        return 0;
    return (uint32_t)(fsc_shard_hash(name) % count);
}

bool fsc_shard_owns(uint32_t index, uint32_t count, const char *name)
{
    return count <= 1 || fsc_shard_of(name, count) == index;
}

/* A decimal number of at most 9 digits (no sign, no spaces); end is where
 * it stopped. */
static int parse_u32(const char *s, const char **end, uint32_t *out)
{
    uint32_t v = 0;
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9') {
        if (n == 9)
            return -EINVAL;
        v = v * 10 + (uint32_t)(s[n] - '0');
        n++;
    }
    if (n == 0)
        return -EINVAL;
    *end = s + n;
    *out = v;
    return 0;
}

int fsc_shard_parse(const char *s, uint32_t *index, uint32_t *count)
{
    const char *p;
    uint32_t i, n;
    if (!s || parse_u32(s, &p, &i) != 0 || *p != '/' || parse_u32(p + 1, &p, &n) != 0 || *p)
        return -EINVAL;
    if (n == 0 || n > FSC_SHARD_MAX || i >= n)
        return -EINVAL;
    *index = i;
    *count = n;
    return 0;
}

const char *fsc_shard_key(const struct fsc_source_config *sc)
{
    switch (sc->kind->shard) {
    case FSC_SHARD_BY_DEVICE: {
        const char *dev = sc->kind->device ? sc->kind->device(sc) : NULL;
        return dev ? dev : sc->name;
    }
    case FSC_SHARD_BY_NAME:
        return sc->name;
    default:
        return NULL;
    }
}
