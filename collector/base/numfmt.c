/* Number text (see numfmt.h).
 *
 * Speed matters: a 1 M series Prometheus scrape writes a few million
 * numbers, so integers use a table-driven conversion, never printf, and the
 * doubles of the common range (derived gauges, histogram sums) go through an
 * exact integer-arithmetic path; the rest through snprintf + strtod. */
#include "base/numfmt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

size_t fsc_fmt_u64(char *buf, uint64_t v)
{
    /* Histogram buckets and detector counters are mostly tiny. */
    if (v < 10) {
        buf[0] = (char)('0' + v);
        return 1;
    }
    /* Count the digits, then write two at a time from the end straight into
     * buf: two digits per division and no copy. */
    size_t n = 2;
    for (uint64_t t = v; t >= 100 && n < 20; t /= 10)
        n++;
    char *p = buf + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digit_pairs[d + 1];
        *--p = digit_pairs[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--p = digit_pairs[d + 1];
        *--p = digit_pairs[d];
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

size_t fsc_fmt_i64(char *buf, int64_t v)
{
    if (v >= 0)
        return fsc_fmt_u64(buf, (uint64_t)v);
    buf[0] = '-';
    return 1 + fsc_fmt_u64(buf + 1, -(uint64_t)v); /* INT64_MIN too: unsigned negation */
}

/* 2^53: every integer below it is exactly representable, so printing it as
 * an integer is exact and reads back as the same double. */
#define EXACT_INT_LIMIT 9007199254740992.0

/* The shortest of %.15g, %.16g and %.17g that reads back as v: 17 digits
 * always do, but 0.1 or 0.25 read far better short. The portable slow path
 * (a few hundred ns per value). Subnormals, whose precision is below 15
 * digits, start from one digit: %.15g of 5e-324 would read back, but as
 * "4.94065645841247e-324", not the shortest "5e-324". */
static size_t fmt_double_slow(char *buf, double v)
{
    char tmp[40];
    int n = 0;
    for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (n <= 0 || (size_t)n >= sizeof(tmp))
            break;
        if (prec == 17 || strtod(tmp, NULL) == v)
            break;
    }
    if (n <= 0 || n > FSC_NUM_MAX) { /* cannot happen for finite doubles */
        memcpy(buf, "nan", 3);
        return 3;
    }
    memcpy(buf, tmp, (size_t)n);
    return (size_t)n;
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

static u128 pow10_u128(int k)
{
    return k < 20 ? (u128)pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

/* The same result as fmt_double_slow(), exactly, for 1e-5 <= |v| < 2^53
 * (the derived gauges and histogram sums), with integer arithmetic only.
 *
 * v = m x 2^-s with m < 2^53 and 1 <= s <= 70 in that range. For n
 * significant digits and decimal exponent x (10^x <= |v| < 10^(x+1)),
 * v x 10^k with k = n - 1 - x is exactly N / D where N = m x 10^max(k,0) and
 * D = 10^max(-k,0) x 2^s, all below 2^128; q = N / D rounded half-even is
 * what printf's correctly rounded %.{n}g prints. q reads back as v when it
 * lies within half an ulp of v: ulp(v) x 10^k x D = 10^max(k,0), so the test
 * is 2 |q D - N| < 10^max(k,0) (half that below a power of two, whose lower
 * neighbour is closer; an exact tie reads back as v when m is even).
 * Returns 0 when v is outside the range (the caller uses the slow path). */
static size_t fmt_double_fast(char *buf, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof(bits));
    int neg = (int)(bits >> 63);
    int bexp = (int)((bits >> 52) & 0x7ff);
    if (bexp == 0 || bexp == 0x7ff)
        return 0;
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int s = 1075 - bexp; /* v = m / 2^s */
    double a = fabs(v);
    if (s < 1 || s > 70 || a < 1e-5)
        return 0;

    /* 10^(x+1) for x = -5 .. 15; the literals are the doubles nearest the
     * powers, so x may be off by one next to a power: corrected below. */
    static const double next_pow10[21] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0,  1e1,  1e2,
                                          1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                                          1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
    int x = -5;
    while (x < 15 && a >= next_pow10[x + 5])
        x++;

    /* A value just under a power of ten rounds up to it at 15 digits (x one
     * higher) but not at 16, so each precision starts from the estimate. */
    const int x_est = x;
    uint64_t q = 0;
    int n = 15;
    for (; n <= 17; n++) {
        x = x_est;
        for (int tries = 0; tries < 3; tries++) {
            int k = n - 1 - x;
            int kp = k > 0 ? k : 0, km = k < 0 ? -k : 0;
            u128 num = (u128)m * pow10_u128(kp);
            u128 den = (u128)pow10_u64[km] << s;
            /* den is a power of two unless k < 0 (|v| >= 10^15): shift. */
            u128 qq = km ? num / den : num >> s;
            u128 r = num - qq * den;
            if (2 * r > den || (2 * r == den && (qq & 1)))
                qq++;
            if (qq >= pow10_u64[n]) {
                x++; /* rounded up to 10^n, or x was one too small */
                continue;
            }
            if (qq < pow10_u64[n - 1]) {
                x--;
                continue;
            }
            q = (uint64_t)qq;
            u128 qd = (u128)q * den;
            u128 diff = qd > num ? qd - num : num - qd;
            u128 lim = pow10_u128(kp);
            int below_pow2 = m == (1ull << 52) && qd < num;
            u128 twice = below_pow2 ? 4 * diff : 2 * diff;
            if (n == 17 || twice < lim || (twice == lim && !(m & 1)))
                goto found;
            break; /* not round-trip: try one more digit */
        }
    }
    return 0; /* estimates did not settle: cannot happen, be safe */

found:;
    /* Digits of q without trailing zeros, as %g prints them. */
    char dig[20];
    size_t nd = fsc_fmt_u64(dig, q);
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    char *p = buf;
    if (neg)
        *p++ = '-';
    if (x < -4 || x >= n) {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        *p++ = (char)('0' + ax / 10);
        *p++ = (char)('0' + ax % 10);
    } else if (x < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *p++ = '0';
        memcpy(p, dig, nd);
        p += nd;
    } else {
        size_t ip = (size_t)x + 1; /* digits before the point */
        if (nd <= ip) {
            memcpy(p, dig, nd);
            p += nd;
            for (size_t i = nd; i < ip; i++)
                *p++ = '0';
        } else {
            memcpy(p, dig, ip);
            p += ip;
            *p++ = '.';
            memcpy(p, dig + ip, nd - ip);
            p += nd - ip;
        }
    }
    return (size_t)(p - buf);
}
#else
static size_t fmt_double_fast(char *buf, double v)
{
    (void)buf;
    (void)v;
    return 0;
}
#endif

size_t fsc_fmt_double(char *buf, double v)
{
    if (isnan(v)) {
        memcpy(buf, "nan", 3);
        return 3;
    }
    if (isinf(v)) {
        memcpy(buf, v > 0 ? "inf" : "-inf", v > 0 ? 3 : 4);
        return v > 0 ? 3 : 4;
    }
    if (fabs(v) < EXACT_INT_LIMIT && v == (double)(int64_t)v)
        return fsc_fmt_i64(buf, (int64_t)v);
    size_t n = fmt_double_fast(buf, v);
    return n ? n : fmt_double_slow(buf, v);
}

double fsc_round_sig(double v, int digits)
{
    /* powers of ten up to 1e22 are exact doubles */
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (v == 0 || !isfinite(v) || digits < 1 || digits > 17)
        return v;
    int p = digits - 1 - (int)floor(log10(fabs(v))); /* decimal places that keep `digits` */
    if (p > 22 || p < -22)
        return v;
    if (p >= 0)
        return nearbyint(v * pow10[p]) / pow10[p];
    return nearbyint(v / pow10[-p]) * pow10[-p];
}

double fsc_round_float(double v)
{
    return fsc_round_sig(v, 7);
}
