/* Fuzz target prom_escape: Prometheus exposition escaping and number text
 * (exporters/prometheus/prom_text.h).
 *
 * Invariants, each asserted (the escaping is what keeps a hostile label value
 * from forging series in a scrape):
 *   - the escaped label value holds no raw '"' or newline, every backslash
 *     starts one of \\ \" \n, and a strict unescaper gives the input back;
 *   - the same for HELP text, text format (quotes stay raw) and OpenMetrics;
 *   - a sample line written by fsc_prom_sample() with the input as both a
 *     series label and an extra label parses back strictly to exactly the
 *     name, both values and the number;
 *   - fsc_prom_fmt_double / fsc_fmt_u64 of the input's first bytes read
 *     back to the same value (bit for bit; NaN as NaN). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "prometheus/prom_text.h"

/* Strict unescape of s[0..n): only the escapes in `allowed` ("\\\"n" or
 * "\\n") after a backslash; `raw_quote_ok` says whether an unescaped '"' may
 * appear. No raw newline ever. Returns the length written to out, or -1. */
static long strict_unescape(const char *s, size_t n, char *out, const char *allowed,
                            int raw_quote_ok)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n' || (c == '"' && !raw_quote_ok))
            return -1;
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        if (i + 1 >= n || !strchr(allowed, s[i + 1]) || s[i + 1] == '\0')
            return -1;
        c = s[++i];
        out[o++] = c == 'n' ? '\n' : c;
    }
    return (long)o;
}

static void check_escape(const char *in, size_t n, char *esc, char *back)
{
    char *e = fsc_prom_escape_label(esc, in, n);
    size_t elen = (size_t)(e - esc);
    FUZZ_CHECK(elen >= n && elen <= 2 * n);
    long bl = strict_unescape(esc, elen, back, "\\\"n", 0);
    FUZZ_CHECK(bl == (long)n && memcmp(back, in, n) == 0);

    for (int om = 0; om < 2; om++) {
        e = fsc_prom_escape_help(esc, in, n, om);
        elen = (size_t)(e - esc);
        FUZZ_CHECK(elen >= n && elen <= 2 * n);
        bl = strict_unescape(esc, elen, back, om ? "\\\"n" : "\\n", !om);
        FUZZ_CHECK(bl == (long)n && memcmp(back, in, n) == 0);
    }
}

/* Parses `m{a="<v1>",b="<v2>"} 1\n` strictly; checks both values equal in. */
static void check_line(const char *line, size_t len, const char *in, size_t n, char *back)
{
    static const char head[] = "m{a=\"";
    FUZZ_CHECK(len > sizeof head - 1 && memcmp(line, head, sizeof head - 1) == 0);
    size_t i = sizeof head - 1;
    for (int k = 0; k < 2; k++) {
        size_t start = i;
        /* the value ends at the first quote not preceded by an escape */
        while (i < len && line[i] != '"') {
            if (line[i] == '\\')
                i++;
            i++;
        }
        FUZZ_CHECK(i < len);
        long bl = strict_unescape(line + start, i - start, back, "\\\"n", 0);
        FUZZ_CHECK(bl == (long)n && memcmp(back, in, n) == 0);
        i++; /* the closing quote */
        if (k == 0) {
            static const char mid[] = ",b=\"";
            FUZZ_CHECK(len - i >= sizeof mid - 1 && memcmp(line + i, mid, sizeof mid - 1) == 0);
            i += sizeof mid - 1;
        }
    }
    static const char tail[] = "} 1\n";
    FUZZ_CHECK(len - i == sizeof tail - 1 && memcmp(line + i, tail, sizeof tail - 1) == 0);
}

static void check_numbers(const uint8_t *data, size_t size)
{
    char buf[FSC_NUM_MAX + 1];
    uint64_t u = 0;
    memcpy(&u, data, size < 8 ? size : 8);
    double d;
    memcpy(&d, &u, sizeof d);

    size_t n = fsc_prom_fmt_double(buf, d);
    FUZZ_CHECK(n > 0 && n <= FSC_NUM_MAX);
    buf[n] = '\0';
    char *end = NULL;
    double back = strtod(buf, &end);
    FUZZ_CHECK(end == buf + n);
    if (isnan(d))
        FUZZ_CHECK(isnan(back) && strcmp(buf, "NaN") == 0);
    else
        FUZZ_CHECK(memcmp(&back, &d, sizeof d) == 0 || (d == 0 && back == 0));

    n = fsc_fmt_u64(buf, u);
    FUZZ_CHECK(n > 0 && n <= 20);
    buf[n] = '\0';
    FUZZ_CHECK(strtoull(buf, &end, 10) == u && end == buf + n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    char *esc = malloc(2 * size + 1), *back = malloc(size + 1);
    FUZZ_CHECK(esc && back);
    check_escape(in, size, esc, back);

    /* Through the line writer: the series block is preformatted (escaped by
     * the caller, as prom_series.c does), the extra label is escaped by it. */
    char *block = malloc(2 * size + 8);
    FUZZ_CHECK(block);
    memcpy(block, "a=\"", 3);
    char *e = fsc_prom_escape_label(block + 3, in, size);
    *e++ = '"';
    struct fsc_prom_label ex = {"b", 1, in, size};
    struct fsc_prom_writer w;
    memset(&w, 0, sizeof w);
    struct fsc_buf b = {0};
    int rc = fsc_prom_sample(&w, &b, "m", 1, "", 0, block, (size_t)(e - block), &ex, 1, "1", 1);
    FUZZ_CHECK(rc == 0 && w.samples == 1);
    check_line(b.data, b.len, in, size, back);

    /* The same line through a buffer limit just below its length: the
     * writer must refuse it whole (-E2BIG), never write a partial line. */
    size_t full = b.len;
    struct fsc_buf small = {0};
    small.limit = full - 1;
    struct fsc_prom_writer w2;
    memset(&w2, 0, sizeof w2);
    rc = fsc_prom_sample(&w2, &small, "m", 1, "", 0, block, (size_t)(e - block), &ex, 1, "1", 1);
    FUZZ_CHECK(rc != 0 && small.len == 0);

    check_numbers(data, size);

    fsc_buf_free(&b);
    fsc_buf_free(&small);
    fsc_prom_writer_free(&w);
    fsc_prom_writer_free(&w2);
    free(block);
    free(esc);
    free(back);
    return 0;
}
