/* Exposition text primitives (prometheus/prom_text.h): integer and float
 * formatting against known answers and against printf + strtod, and the
 * label and HELP escapes of Prometheus' exposition_formats.md. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_text.h"
#include "test.h"

static void check_double(double v, const char *want)
{
    char buf[FSC_NUM_MAX + 1];
    size_t n = fsc_prom_fmt_double(buf, v);
    buf[n] = '\0';
    CHECK_STR(buf, want);
}

static void text_primitives(void)
{
    char buf[FSC_NUM_MAX + 1];
    size_t n = fsc_fmt_u64(buf, UINT64_MAX);
    buf[n] = '\0';
    CHECK_STR(buf, "18446744073709551615");
    n = fsc_fmt_u64(buf, 0);
    buf[n] = '\0';
    CHECK_STR(buf, "0");
    n = fsc_fmt_u64(buf, 1005);
    buf[n] = '\0';
    CHECK_STR(buf, "1005");

    check_double(0, "0");
    check_double(-3, "-3");
    check_double(4294967296.0, "4294967296");
    check_double(0.1, "0.1");
    check_double(-2.5, "-2.5");
    check_double(1.0 / 3.0, "0.3333333333333333");
    check_double(0.1 + 0.2, "0.30000000000000004");
    check_double(1e-7, "1e-07");
    /* From 2^53 on, %g's rules: plain digits while the exponent is below
     * the precision, then exponent form; always the shortest that reads
     * back exactly. */
    check_double(9007199254740992.0, "9007199254740992");
    check_double(123456789012345678.0, "1.2345678901234568e+17");
    check_double(1e21, "1e+21");
    check_double(1.0 / 0.0, "+Inf");
    check_double(-1.0 / 0.0, "-Inf");
    check_double(NAN, "NaN");

    char esc[64];
    const char *in = "a\"b\\c\nd";
    char *e = fsc_prom_escape_label(esc, in, strlen(in));
    *e = '\0';
    CHECK_STR(esc, "a\\\"b\\\\c\\nd");
    e = fsc_prom_escape_help(esc, in, strlen(in), 0);
    *e = '\0';
    CHECK_STR(esc, "a\"b\\\\c\\nd");
    e = fsc_prom_escape_help(esc, in, strlen(in), 1);
    *e = '\0';
    CHECK_STR(esc, "a\\\"b\\\\c\\nd");
}

/* The reference the formatter must match: the shortest of %.15g, %.16g and
 * %.17g that strtod reads back as v (printf rounds correctly). */
static void reference_double(double v, char *out, size_t size)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

static uint64_t fmt_rng = 0x243f6a8885a308d3ULL;

static uint64_t fmt_next(void)
{
    uint64_t z = (fmt_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The integer fast path against printf + strtod: random bit patterns over
 * 1e-7 .. 1e17 (both sides of the fast range), the neighbours of every power
 * of ten and of two, and typical ratios. Every text must read back exactly. */
static void double_format_matches_printf(void)
{
    char got[FSC_NUM_MAX + 1], want[64];
    int mismatches = 0, checked = 0;
    double samples[4096 + 400];
    size_t n = 0;
    for (int i = 0; i < 4096; i++) {
        double mag = pow(10.0, -7.0 + 24.0 * (double)(fmt_next() >> 11) / 9007199254740992.0);
        double v = mag * (1.0 + (double)(fmt_next() >> 11) / 9007199254740992.0);
        samples[n++] = (i & 1) ? -v : v;
    }
    for (int e = -7; e <= 17; e++) {
        double p10 = pow(10.0, e);
        samples[n++] = p10;
        samples[n++] = nextafter(p10, 0);
        samples[n++] = nextafter(p10, INFINITY);
        samples[n++] = p10 * 0.5;
        samples[n++] = p10 * 0.95;
    }
    for (int e = -20; e <= 54; e++) {
        double p2 = ldexp(1.0, e);
        samples[n++] = nextafter(p2, 0);
        samples[n++] = nextafter(p2, INFINITY);
        samples[n++] = p2 + ldexp(1.0, e - 1);
    }
    for (int i = 1; i <= 40 && n < sizeof(samples) / sizeof(samples[0]); i++)
        samples[n++] = (double)i / 41.0;
    for (size_t i = 0; i < n; i++) {
        double v = samples[i];
        size_t len = fsc_prom_fmt_double(got, v);
        got[len] = '\0';
        if (v == (double)(int64_t)v && fabs(v) < 9007199254740992.0)
            continue; /* integers print as integers: checked above */
        reference_double(v, want, sizeof(want));
        checked++;
        if (strcmp(got, want) != 0 || strtod(got, NULL) != v) {
            if (mismatches++ < 5)
                fprintf(stderr, "fmt_double(%.17g): got %s want %s\n", v, got, want);
        }
    }
    CHECK_INT(mismatches, 0);
    CHECK(checked > 4000);
}

TEST_MAIN(TEST(text_primitives), TEST(double_format_matches_printf))
