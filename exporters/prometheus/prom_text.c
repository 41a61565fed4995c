/* Exposition text primitives (see prom_text.h).
 *
 * Speed matters here: a 1 M series scrape writes a few million lines, so the
 * common line (name, preformatted labels, integer value) is built with memcpy
 * and a table-driven integer conversion, never with printf. Doubles that are
 * not small integers are rarer (derived gauges, histogram sums) and go
 * through snprintf + strtod to find the shortest text that round-trips. */
#include "prometheus/prom_text.h"

#include <errno.h>
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

size_t fsc_prom_fmt_u64(char *buf, uint64_t v)
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

/* 2^53: every integer below it is exactly representable, so printing it as
 * an integer is exact and reads back as the same double. */
#define EXACT_INT_LIMIT 9007199254740992.0

/* The shortest of %.15g, %.16g and %.17g that reads back as v: 17 digits
 * always do, but 0.1 or 0.25 read far better short. The portable slow path
 * (a few hundred ns per value). */
static size_t fmt_double_slow(char *buf, double v)
{
    char tmp[40];
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (n <= 0 || (size_t)n >= sizeof(tmp))
            break;
        if (prec == 17 || strtod(tmp, NULL) == v)
            break;
    }
    if (n <= 0 || n > FSC_PROM_NUM_MAX) { /* cannot happen for finite doubles */
        memcpy(buf, "NaN", 3);
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
    size_t nd = fsc_prom_fmt_u64(dig, q);
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

size_t fsc_prom_fmt_double(char *buf, double v)
{
    if (isnan(v)) {
        memcpy(buf, "NaN", 3);
        return 3;
    }
    if (isinf(v)) {
        memcpy(buf, v > 0 ? "+Inf" : "-Inf", 4);
        return 4;
    }
    if (fabs(v) < EXACT_INT_LIMIT && v == (double)(int64_t)v) {
        if (v < 0) {
            buf[0] = '-';
            return 1 + fsc_prom_fmt_u64(buf + 1, (uint64_t)(-(int64_t)v));
        }
        return fsc_prom_fmt_u64(buf, (uint64_t)v);
    }
    size_t n = fmt_double_fast(buf, v);
    return n ? n : fmt_double_slow(buf, v);
}

char *fsc_prom_escape_label(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || c == '"') {
            *dst++ = '\\';
            *dst++ = c;
        } else if (c == '\n') {
            *dst++ = '\\';
            *dst++ = 'n';
        } else {
            *dst++ = c;
        }
    }
    return dst;
}

char *fsc_prom_escape_help(char *dst, const char *s, size_t n, int om)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || (om && c == '"')) {
            *dst++ = '\\';
            *dst++ = c;
        } else if (c == '\n') {
            *dst++ = '\\';
            *dst++ = 'n';
        } else {
            *dst++ = c;
        }
    }
    return dst;
}

void fsc_prom_writer_free(struct fsc_prom_writer *w)
{
    fsc_buf_free(&w->scratch);
    fsc_buf_free(&w->labels);
}

/* Writes ,name="value" (or without the comma at the start of a label set). */
static char *put_label(char *p, int first, const struct fsc_prom_label *l)
{
    if (!first)
        *p++ = ',';
    memcpy(p, l->name, l->name_len);
    p += l->name_len;
    *p++ = '=';
    *p++ = '"';
    p = fsc_prom_escape_label(p, l->value, l->value_len);
    *p++ = '"';
    return p;
}

/* Returns where a line of at most `bound` bytes may be written for b, or
 * NULL (w->err set). *direct tells whether it is b itself or the scratch. */
static char *line_begin(struct fsc_prom_writer *w, struct fsc_buf *b, size_t bound, int *direct)
{
    int rc;

    if (w->err)
        return NULL;
    if (!b->limit || (bound <= b->limit && b->len <= b->limit - bound)) {
        rc = fsc_buf_reserve(b, bound);
        if (rc == 0) {
            *direct = 1;
            return b->data + b->len;
        }
    } else {
        /* Near the cap: the bound may not fit although the line would. */
        fsc_buf_reset(&w->scratch);
        rc = fsc_buf_reserve(&w->scratch, bound);
        if (rc == 0) {
            *direct = 0;
            return w->scratch.data;
        }
    }
    w->err = rc;
    return NULL;
}

static int line_end(struct fsc_prom_writer *w, struct fsc_buf *b, char *start, char *end,
                    int direct)
{
    size_t n = (size_t)(end - start);
    if (direct) {
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
    }
    int rc = fsc_buf_append(b, start, n);
    if (rc != 0)
        w->err = rc;
    return rc;
}

int fsc_prom_sample(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *suffix, size_t suffix_len, const char *block, size_t block_len,
                    const struct fsc_prom_label *ex, size_t n_ex, const char *value,
                    size_t value_len)
{
    size_t bound = name_len + suffix_len + block_len + value_len + 4; /* {} space \n */
    for (size_t i = 0; i < n_ex; i++)
        bound += ex[i].name_len + 2 * ex[i].value_len + 4; /* , = "" */
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    memcpy(p, name, name_len);
    p += name_len;
    memcpy(p, suffix, suffix_len);
    p += suffix_len;
    if (block_len || n_ex) {
        *p++ = '{';
        memcpy(p, block, block_len);
        p += block_len;
        for (size_t i = 0; i < n_ex; i++)
            p = put_label(p, i == 0 && !block_len, &ex[i]);
        *p++ = '}';
    }
    *p++ = ' ';
    memcpy(p, value, value_len);
    p += value_len;
    *p++ = '\n';
    w->samples++;
    return line_end(w, b, start, p, direct);
}

int fsc_prom_histogram(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name,
                       size_t name_len, const char *block, size_t block_len,
                       const struct fsc_prom_label *ex, size_t n_ex, const uint64_t *bucket,
                       const struct fsc_prom_str *le, size_t n_le, double sum)
{
    if (w->err)
        return w->err;

    /* Every bucket line starts alike: build `<name>_bucket{<labels>,le="`
     * once (the labels are the block, then the extra labels). */
    size_t pre_bound = name_len + 8 + block_len + 5;
    for (size_t i = 0; i < n_ex; i++)
        pre_bound += ex[i].name_len + 2 * ex[i].value_len + 4;
    fsc_buf_reset(&w->labels);
    int rc = fsc_buf_reserve(&w->labels, pre_bound);
    if (rc != 0) {
        w->err = rc;
        return rc;
    }
    char *pre = w->labels.data, *lp = pre;
    memcpy(lp, name, name_len);
    lp += name_len;
    memcpy(lp, "_bucket{", 8);
    lp += 8;
    const char *lab = lp; /* the label text, also used by _sum and _count */
    memcpy(lp, block, block_len);
    lp += block_len;
    for (size_t i = 0; i < n_ex; i++)
        lp = put_label(lp, lp == lab, &ex[i]);
    size_t lab_len = (size_t)(lp - lab);
    if (lab_len)
        *lp++ = ',';
    memcpy(lp, "le=\"", 4);
    lp += 4;
    size_t pre_len = (size_t)(lp - pre);

    /* pre + bound + `"} ` + count + newline per bucket; _sum and _count. */
    size_t bound = (n_le + 1) * (pre_len + 2 * FSC_PROM_NUM_MAX + 4) +
                   2 * (name_len + lab_len + 10 + FSC_PROM_NUM_MAX);
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    uint64_t cum = 0;
    for (size_t i = 0; i <= n_le; i++) {
        cum += bucket[i];
        memcpy(p, pre, pre_len);
        p += pre_len;
        if (i < n_le) {
            memcpy(p, le[i].s, le[i].len);
            p += le[i].len;
        } else {
            memcpy(p, "+Inf", 4);
            p += 4;
        }
        memcpy(p, "\"} ", 3);
        p += 3;
        p += fsc_prom_fmt_u64(p, cum);
        *p++ = '\n';
    }
    for (int k = 0; k < 2; k++) {
        memcpy(p, name, name_len);
        p += name_len;
        memcpy(p, k ? "_count" : "_sum", k ? 6 : 4);
        p += k ? 6 : 4;
        if (lab_len) {
            *p++ = '{';
            memcpy(p, lab, lab_len);
            p += lab_len;
            *p++ = '}';
        }
        *p++ = ' ';
        p += k ? fsc_prom_fmt_u64(p, cum) : fsc_prom_fmt_double(p, sum);
        *p++ = '\n';
    }
    w->samples += n_le + 3;
    return line_end(w, b, start, p, direct);
}

int fsc_prom_header(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *type, const char *help, int om)
{
    size_t help_len = strlen(help), type_len = strlen(type);
    size_t bound = 2 * name_len + 2 * help_len + type_len + 20;
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    memcpy(p, "# HELP ", 7);
    p += 7;
    memcpy(p, name, name_len);
    p += name_len;
    *p++ = ' ';
    p = fsc_prom_escape_help(p, help, help_len, om);
    memcpy(p, "\n# TYPE ", 8);
    p += 8;
    memcpy(p, name, name_len);
    p += name_len;
    *p++ = ' ';
    memcpy(p, type, type_len);
    p += type_len;
    *p++ = '\n';
    return line_end(w, b, start, p, direct);
}

int fsc_prom_append(struct fsc_prom_writer *w, struct fsc_buf *b, const char *p, size_t n)
{
    if (w->err)
        return w->err;
    int rc = fsc_buf_append(b, p, n);
    if (rc != 0)
        w->err = rc;
    return rc;
}

double fsc_prom_round_float(double v)
{
    /* powers of ten up to 1e22 are exact doubles */
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (v == 0 || !isfinite(v))
        return v;
    int p = 6 - (int)floor(log10(fabs(v))); /* decimal places that keep 7 digits */
    if (p > 22 || p < -22)
        return v;
    if (p >= 0)
        return nearbyint(v * pow10[p]) / pow10[p];
    return nearbyint(v / pow10[-p]) * pow10[-p];
}
