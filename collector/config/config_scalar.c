/* Value syntax: durations, byte sizes, link speeds (config.h), and the
 * shortest round-trip formatting of doubles. Pure functions, any thread. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "config/config.h"
#include "config/config_decode.h"

struct unit {
    const char *name;
    uint64_t mult;
};

static const struct unit duration_units[] = {
    {"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
    {"ms", 1000000ull},      {"us", 1000ull},       {"ns", 1ull},
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int fsc_duration_parse(const char *s, int64_t *ns)
{
    uint64_t total = 0;
    const char *p = s;
    if (*p == '\0')
        return -EINVAL;
    while (*p != '\0') {
        if (!is_digit(*p))
            return -EINVAL;
        uint64_t n = 0;
        while (is_digit(*p)) {
            if (__builtin_mul_overflow(n, 10u, &n) ||
                __builtin_add_overflow(n, (uint64_t)(*p - '0'), &n))
                return -EINVAL;
            p++;
        }
        const char *u = p;
        while (is_alpha(*p))
            p++;
        size_t ulen = (size_t)(p - u);
        uint64_t mult = 0;
        for (size_t i = 0; i < FSC_NELEM(duration_units); i++) {
            if (strlen(duration_units[i].name) == ulen &&
                memcmp(duration_units[i].name, u, ulen) == 0)
                mult = duration_units[i].mult;
        }
        if (mult == 0)
            return -EINVAL;
        if (__builtin_mul_overflow(n, mult, &n) || __builtin_add_overflow(total, n, &total) ||
            total > (uint64_t)INT64_MAX)
            return -EINVAL;
    }
    *ns = (int64_t)total;
    return 0;
}

const char *fsc_duration_format(int64_t ns, char *buf, size_t size)
{
    if (ns <= 0) {
        snprintf(buf, size, "%s", ns == 0 ? "0s" : "-");
        return buf;
    }
    for (size_t i = 0; i < FSC_NELEM(duration_units); i++) {
        uint64_t m = duration_units[i].mult;
        if ((uint64_t)ns % m == 0) {
            snprintf(buf, size, "%" PRIu64 "%s", (uint64_t)ns / m, duration_units[i].name);
            break;
        }
    }
    return buf;
}

/* "<digits>[.<digits>]<suffix>": the number as mantissa / 10^decimals, the
 * suffix returned in *suffix. At most 18 significant digits. */
static int parse_decimal(const char *s, uint64_t *mant, unsigned *decimals, const char **suffix)
{
    const char *p = s;
    uint64_t m = 0;
    unsigned digits = 0, dec = 0;
    if (!is_digit(*p))
        return -EINVAL;
    while (is_digit(*p) || *p == '_') {
        if (*p != '_') {
            if (++digits > 18)
                return -EINVAL;
            m = m * 10u + (uint64_t)(*p - '0');
        }
        p++;
    }
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return -EINVAL;
        while (is_digit(*p)) {
            if (++digits > 18)
                return -EINVAL;
            m = m * 10u + (uint64_t)(*p - '0');
            dec++;
            p++;
        }
    }
    *mant = m;
    *decimals = dec;
    *suffix = p;
    return 0;
}

/* mant / 10^dec * mult, only when the result is a whole number. */
static int scale_exact(uint64_t mant, unsigned dec, uint64_t mult, uint64_t *out)
{
    uint64_t div = 1;
    for (unsigned i = 0; i < dec; i++)
        div *= 10u;
    unsigned __int128 v = (unsigned __int128)mant * mult;
    if (v % div != 0)
        return -EINVAL;
    v /= div;
    if (v > UINT64_MAX)
        return -EINVAL;
    *out = (uint64_t)v;
    return 0;
}

static const struct unit size_units[] = {
    {"", 1},
    {"B", 1},
    {"KB", 1000ull},
    {"MB", 1000000ull},
    {"GB", 1000000000ull},
    {"TB", 1000000000000ull},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
};

int fsc_size_parse(const char *s, uint64_t *bytes)
{
    uint64_t mant;
    unsigned dec;
    const char *suffix;
    if (parse_decimal(s, &mant, &dec, &suffix) != 0)
        return -EINVAL;
    for (size_t i = 0; i < FSC_NELEM(size_units); i++) {
        if (strcmp(suffix, size_units[i].name) == 0)
            return scale_exact(mant, dec, size_units[i].mult, bytes);
    }
    return -EINVAL;
}

const char *fsc_size_format(uint64_t bytes, char *buf, size_t size)
{
    /* Binary units first (buffers and caps are usually powers of two), then
     * decimal ones, then plain bytes; the largest exact unit wins. */
    static const size_t order[] = {9, 8, 7, 6, 5, 4, 3, 2};
    if (bytes != 0) {
        for (size_t i = 0; i < FSC_NELEM(order); i++) {
            const struct unit *u = &size_units[order[i]];
            if (bytes % u->mult == 0) {
                snprintf(buf, size, "%" PRIu64 "%s", bytes / u->mult, u->name);
                return buf;
            }
        }
    }
    snprintf(buf, size, "%" PRIu64, bytes);
    return buf;
}

static const struct unit speed_units[] = {
    {"T", 1000000000000ull}, {"G", 1000000000ull}, {"M", 1000000ull},
    {"K", 1000ull},          {"k", 1000ull},       {"", 1ull},
};

int fsc_speed_parse(const char *s, uint64_t *bps)
{
    uint64_t mant;
    unsigned dec;
    const char *suffix;
    if (parse_decimal(s, &mant, &dec, &suffix) != 0)
        return -EINVAL;
    for (size_t i = 0; i < FSC_NELEM(speed_units); i++) {
        size_t ul = strlen(speed_units[i].name);
        if (strncmp(suffix, speed_units[i].name, ul) != 0)
            continue;
        const char *rest = suffix + ul;
        if (*rest == '\0' || strcmp(rest, "bps") == 0 || strcmp(rest, "b/s") == 0)
            return scale_exact(mant, dec, speed_units[i].mult, bps);
    }
    return -EINVAL;
}

const char *fsc_speed_format(uint64_t bps, char *buf, size_t size)
{
    if (bps != 0) {
        for (size_t i = 0; i < 4; i++) {
            if (bps % speed_units[i].mult == 0) {
                snprintf(buf, size, "%" PRIu64 "%s", bps / speed_units[i].mult,
                         speed_units[i].name);
                return buf;
            }
        }
    }
    snprintf(buf, size, "%" PRIu64, bps);
    return buf;
}

const char *fsc_cfg_format_f64(double v, char *buf, size_t size)
{
    char num[FSC_NUM_MAX + 1];
    size_t n = fsc_fmt_double(num, v);
    num[n] = '\0';
    /* "5" would read back as an integer in other YAML tools: "5.0", and
     * whole numbers stay "5000.0" rather than "5e+03" (fsc_fmt_double writes
     * integers below 2^53 in full). */
    snprintf(buf, size, "%s%s", num, strpbrk(num, ".eEn") ? "" : ".0");
    return buf;
}
