/* The primitives of collector/base/ (and model/operstate) against known
 * answers taken from their specifications, not from our own output:
 * RFC 8259 for JSON escaping, RFC 3629 (and Markus Kuhn's UTF-8 stress
 * cases) for UTF-8, the proleptic Gregorian calendar and POSIX time for the
 * dates (day numbers as Python's datetime counts them), the shortest
 * round-trip spellings of IEEE 754 doubles (as Python's repr() gives them),
 * RFC 2863 / Linux IF_OPER_* for the operstate words. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/mem_trim.h"
#include "base/buf.h"
#include "base/json_write.h"
#include "base/numfmt.h"
#include "base/timefmt.h"
#include "base/utf8.h"
#include "model/operstate.h"
#include "test.h"

/* s[0..n) as one JSON string value, compact. */
static void check_quoted(const char *s, size_t n, const char *want)
{
    struct fsc_buf b = {0};
    CHECK_INT(fsc_json_quote(&b, s, n), 0);
    CHECK_STR(b.data, want);
    fsc_buf_free(&b);
}

/* Every control byte, DEL, the two characters RFC 8259 requires escaped,
 * the HTML-significant < > & and U+2028 / U+2029 (JavaScript line ends). */
static void json_escapes(void)
{
    static const char *const ctl[32] = {
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f"};
    for (int c = 0; c < 32; c++) {
        char in = (char)c, want[16];
        snprintf(want, sizeof(want), "\"%s\"", ctl[c]);
        check_quoted(&in, 1, want);
    }
    check_quoted("\x7f", 1, "\"\\u007f\"");
    check_quoted("a\"b\\c/", 6, "\"a\\\"b\\\\c/\"");
    check_quoted("</script>&", 10, "\"\\u003c/script\\u003e\\u0026\"");
    check_quoted("\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\"");
    check_quoted("", 0, "\"\"");
    check_quoted(" ~", 2, "\" ~\"");
}

/* Valid UTF-8 is copied byte for byte; each byte of an invalid sequence is
 * one U+FFFD. */
static void json_invalid_utf8(void)
{
    static const struct {
        const char *in;
        size_t n;
        const char *want;
    } cases[] = {
        {"\xc3\xa9", 2, "\"\xc3\xa9\""},                             /* U+00E9 */
        {"\xe2\x82\xac", 3, "\"\xe2\x82\xac\""},                     /* U+20AC */
        {"\xed\x9f\xbf", 3, "\"\xed\x9f\xbf\""},                     /* U+D7FF, below surrogates */
        {"\xee\x80\x80", 3, "\"\xee\x80\x80\""},                     /* U+E000, above them */
        {"\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\""},             /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\""},             /* U+10FFFF, the last */
        {"\x80", 1, "\"\\ufffd\""},                                  /* lone continuation */
        {"\xbf\x80", 2, "\"\\ufffd\\ufffd\""},                       /* two of them */
        {"\xc0\x80", 2, "\"\\ufffd\\ufffd\""},                       /* overlong NUL */
        {"\xc1\xbf", 2, "\"\\ufffd\\ufffd\""},                       /* overlong U+007F */
        {"\xe0\x9f\xbf", 3, "\"\\ufffd\\ufffd\\ufffd\""},            /* overlong U+07FF */
        {"\xf0\x8f\xbf\xbf", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* overlong U+FFFF */
        {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},            /* U+D800 */
        {"\xed\xbf\xbf", 3, "\"\\ufffd\\ufffd\\ufffd\""},            /* U+DFFF */
        {"\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* U+110000 */
        {"\xf8\x88\x80\x80\x80", 5, "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* 5 bytes */
        {"\xfe\xff", 2, "\"\\ufffd\\ufffd\""},
        {"a\xe2\x82", 3, "\"a\\ufffd\\ufffd\""}, /* cut short at the end */
        {"\xe2\x82z", 3, "\"\\ufffd\\ufffdz\""}, /* cut short by ASCII */
        {"\xc3\xa9\xc3", 3, "\"\xc3\xa9\\ufffd\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_quoted(cases[i].in, cases[i].n, cases[i].want);
}

/* Compact and pretty documents, exactly; misuse and bounds. */
static void json_documents(void)
{
    struct fsc_buf b = {0};
    struct fsc_json w;
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, "i", INT64_MIN);
    fsc_json_uint(&w, "u", UINT64_MAX);
    fsc_json_uint(&w, "p53", 9007199254740993ull); /* 2^53 + 1: exact as an integer */
    fsc_json_num(&w, "d", 0.1);
    fsc_json_num(&w, "nan", NAN);
    fsc_json_num(&w, "inf", -INFINITY);
    fsc_json_bool(&w, "t", 1);
    fsc_json_bool(&w, "f", 0);
    fsc_json_null(&w, "z");
    fsc_json_str(&w, "s", NULL);
    fsc_json_strn(&w, "nul", "a\0b", 3);
    fsc_json_array(&w, "a");
    fsc_json_num(&w, NULL, 1e21);
    fsc_json_object(&w, NULL);
    fsc_json_end(&w);
    fsc_json_array(&w, NULL);
    fsc_json_end(&w);
    fsc_json_end(&w);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    CHECK_STR(b.data, "{\"i\":-9223372036854775808,\"u\":18446744073709551615,"
                      "\"p53\":9007199254740993,\"d\":0.1,\"nan\":null,\"inf\":null,\"t\":true,"
                      "\"f\":false,\"z\":null,\"s\":null,\"nul\":\"a\\u0000b\","
                      "\"a\":[1e+21,{},[]]}");

    fsc_buf_reset(&b);
    fsc_json_start_pretty(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, "a", 1);
    fsc_json_array(&w, "b");
    fsc_json_str(&w, NULL, "x");
    fsc_json_str(&w, NULL, "y");
    fsc_json_end(&w);
    fsc_json_array(&w, "c");
    fsc_json_one_line(&w);
    fsc_json_int(&w, NULL, 1);
    fsc_json_object(&w, NULL); /* inside a one-line container: one line too */
    fsc_json_int(&w, "k", 2);
    fsc_json_int(&w, "l", 3);
    fsc_json_end(&w);
    fsc_json_end(&w);
    fsc_json_object(&w, "d");
    fsc_json_end(&w);
    fsc_json_array(&w, "e");
    fsc_json_end(&w);
    fsc_json_object(&w, "f");
    fsc_json_one_line(&w);
    fsc_json_bool(&w, "g", 1);
    fsc_json_null(&w, "h");
    fsc_json_end(&w);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    CHECK_STR(b.data, "{\n"
                      "  \"a\": 1,\n"
                      "  \"b\": [\n"
                      "    \"x\",\n"
                      "    \"y\"\n"
                      "  ],\n"
                      "  \"c\": [1, {\"k\": 2, \"l\": 3}],\n"
                      "  \"d\": {},\n"
                      "  \"e\": [],\n"
                      "  \"f\": {\"g\": true, \"h\": null}\n"
                      "}");

    /* misuse: no value, a key in an array, none in an object, a key at top
     * level, unclosed, one end too many, a second top-level value, too deep */
    fsc_buf_reset(&b);
    fsc_json_start(&w, &b);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_array(&w, NULL);
    fsc_json_int(&w, "k", 1);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, NULL, 1);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_start(&w, &b);
    fsc_json_int(&w, "k", 1);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_start(&w, &b);
    fsc_json_int(&w, NULL, 1);
    fsc_json_int(&w, NULL, 2);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_start(&w, &b);
    for (int d = 0; d < FSC_JSON_DEPTH; d++)
        fsc_json_array(&w, NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL); /* unclosed, but no error yet */
    CHECK_INT(w.err, 0);
    fsc_json_array(&w, NULL);
    CHECK_INT(w.err, -EINVAL);
    fsc_buf_free(&b);

    /* A fixed buffer: never written past, -E2BIG when the document and its
     * NUL do not fit, and the exact size works. */
    const char *want = "{\"k\":\"v\"}";
    char mem[16];
    for (size_t size = 1; size <= strlen(want) + 1; size++) {
        memset(mem, 'x', sizeof(mem));
        fsc_buf_fixed(&b, mem, size);
        fsc_json_start(&w, &b);
        fsc_json_object(&w, NULL);
        fsc_json_str(&w, "k", "v");
        fsc_json_end(&w);
        CHECK_INT(fsc_json_done(&w), size <= strlen(want) ? -E2BIG : 0);
        CHECK(memchr(mem, '\0', size) != NULL);
        CHECK(mem[size] == 'x');
        fsc_buf_free(&b); /* lets go of mem, frees nothing */
    }
    CHECK_STR(mem, want);
}

static void check_double(double v, const char *want)
{
    char buf[FSC_NUM_MAX + 1];
    size_t n = fsc_fmt_double(buf, v);
    CHECK(n <= FSC_NUM_MAX);
    buf[n < FSC_NUM_MAX ? n : FSC_NUM_MAX] = '\0';
    CHECK_STR(buf, want);
}

/* Shortest round-trip spellings (Python's repr of the same doubles, with
 * printf's exponent form), integers in full, and the rounding helpers. */
static void shortest_doubles(void)
{
    check_double(0.1, "0.1");
    check_double(-2.5, "-2.5");
    check_double(1.0 / 3.0, "0.3333333333333333");
    check_double(0.1 + 0.2, "0.30000000000000004");
    check_double(100, "100");
    check_double(0, "0");
    check_double(1e-7, "1e-07");
    check_double(1e21, "1e+21");
    check_double(1e15, "1000000000000000");
    check_double(9007199254740993.0, "9007199254740992"); /* 2^53 + 1 rounds to 2^53 */
    check_double(9007199254740994.0, "9007199254740994"); /* 2^53 + 2 */
    check_double(123456789012345678.0, "1.2345678901234568e+17");
    check_double(5e-324, "5e-324"); /* the smallest subnormal */
    check_double(-5e-324, "-5e-324");
    check_double(2.2250738585072014e-308, "2.2250738585072014e-308"); /* DBL_MIN */
    check_double(DBL_MAX, "1.7976931348623157e+308");
    check_double(NAN, "nan");
    check_double(INFINITY, "inf");
    check_double(-INFINITY, "-inf");

    char buf[FSC_NUM_MAX + 1];
    buf[fsc_fmt_u64(buf, UINT64_MAX)] = '\0';
    CHECK_STR(buf, "18446744073709551615");
    buf[fsc_fmt_u64(buf, 0)] = '\0';
    CHECK_STR(buf, "0");
    buf[fsc_fmt_i64(buf, INT64_MIN)] = '\0';
    CHECK_STR(buf, "-9223372036854775808");
    buf[fsc_fmt_i64(buf, -7)] = '\0';
    CHECK_STR(buf, "-7");

    CHECK(fsc_round_sig(0.90100123, 6) == 0.901001);
    CHECK(fsc_round_sig(1234567.0, 3) == 1230000.0);
    CHECK(fsc_round_sig(-0.00012345, 2) == -0.00012);
    CHECK(fsc_round_float(12499999744.0) == 12500000000.0); /* 1.25e10 stored as a float */
    CHECK(fsc_round_float(0) == 0);
    CHECK(isinf(fsc_round_float(INFINITY)));
}

static void check_civil(int64_t y, unsigned m, unsigned d, int64_t days)
{
    CHECK_INT(fsc_days_from_civil(y, m, d), days);
    int64_t yy;
    unsigned mm, dd;
    fsc_civil_from_days(days, &yy, &mm, &dd);
    CHECK_INT(yy, y);
    CHECK_INT(mm, m);
    CHECK_INT(dd, d);
}

static void check_time(int64_t t_ns, unsigned digits, const char *want)
{
    char buf[FSC_RFC3339_MAX];
    CHECK_STR(fsc_time_rfc3339_ns(t_ns, digits, buf, sizeof(buf)), want);
}

/* Day numbers of the proleptic Gregorian calendar (leap years every 4th,
 * not every 100th, every 400th) and RFC 3339 text of POSIX times. */
static void civil_dates_and_rfc3339(void)
{
    check_civil(1970, 1, 1, 0);
    check_civil(1969, 12, 31, -1);
    check_civil(2000, 2, 29, 11016); /* 2000 is a leap year (divisible by 400) */
    check_civil(2000, 3, 1, 11017);
    check_civil(2024, 2, 29, 19782);
    check_civil(2100, 2, 28, 47540); /* 2100 is not (divisible by 100) */
    check_civil(2100, 3, 1, 47541);
    check_civil(1900, 2, 28, -25509);
    check_civil(1900, 3, 1, -25508);
    check_civil(1600, 2, 29, -135081);
    check_civil(1, 1, 1, -719162);
    check_civil(9999, 12, 31, 2932896);
    /* every day of 1600-01-01 .. 2400-12-31 maps back to itself, and the
     * next day is the next date */
    int64_t bad = 0;
    for (int64_t z = -135140; z <= 157093; z++) {
        int64_t y;
        unsigned m, d;
        fsc_civil_from_days(z, &y, &m, &d);
        bad += fsc_days_from_civil(y, m, d) != z || m < 1 || m > 12 || d < 1 || d > 31;
    }
    CHECK_INT(bad, 0);

    check_time(0, 0, "1970-01-01T00:00:00Z");
    check_time(0, 9, "1970-01-01T00:00:00.000000000Z");
    check_time(-1, 9, "1969-12-31T23:59:59.999999999Z");
    check_time(-1, 3, "1969-12-31T23:59:59.999Z"); /* truncated towards the past */
    check_time(-1000000000, 0, "1969-12-31T23:59:59Z");
    check_time(951782400LL * 1000000000, 0, "2000-02-29T00:00:00Z");
    check_time(4107542400LL * 1000000000 + 123456789, 6, "2100-03-01T00:00:00.123456Z");
    check_time(1700000000LL * 1000000000 + 5000000, 3, "2023-11-14T22:13:20.005Z");
    check_time(INT64_MAX, 9, "2262-04-11T23:47:16.854775807Z");
    check_time(INT64_MIN, 9, "1677-09-21T00:12:43.145224192Z");
    check_time(0, 12, "1970-01-01T00:00:00.000000000Z"); /* more than 9 digits: 9 */

    char buf[FSC_RFC3339_MAX];
    CHECK_STR(fsc_time_rfc3339(253402300799LL, 999, 3, buf, sizeof(buf)),
              "9999-12-31T23:59:59.000Z");
    CHECK_STR(fsc_time_rfc3339(-62135596800LL, 0, 0, buf, sizeof(buf)), "0001-01-01T00:00:00Z");
    char small[11];
    CHECK_STR(fsc_time_rfc3339(0, 0, 0, small, sizeof(small)), "1970-01-01"); /* truncated */
}

static void utf8_validation(void)
{
    static const struct {
        const char *s;
        size_t n, seq; /* length; fsc_utf8_seq of the start */
        int valid;
    } cases[] = {
        {"", 0, 0, 1},
        {"a", 1, 1, 1},
        {"\0", 1, 1, 1},
        {"\xc2\x80", 2, 2, 1},
        {"\xdf\xbf", 2, 2, 1},
        {"\xe0\xa0\x80", 3, 3, 1},
        {"\xef\xbf\xbf", 3, 3, 1},
        {"\xf0\x90\x80\x80", 4, 4, 1},
        {"\xf4\x8f\xbf\xbf", 4, 4, 1},
        {"\x80", 1, 0, 0},
        {"\xc0\xaf", 2, 0, 0},
        {"\xc2", 1, 0, 0},
        {"\xc2\x41", 2, 0, 0},
        {"\xe0\x80\xaf", 3, 0, 0},
        {"\xed\xa0\x80", 3, 0, 0},
        {"\xf0\x80\x80\xaf", 4, 0, 0},
        {"\xf4\x90\x80\x80", 4, 0, 0},
        {"\xf5\x80\x80\x80", 4, 0, 0},
        {"\xff", 1, 0, 0},
        {"ok\xe2\x82\xac", 5, 1, 1},
        {"ok\xe2\x82", 4, 1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(fsc_utf8_valid(cases[i].s, cases[i].n), cases[i].valid);
        if (cases[i].n > 0)
            CHECK_INT(fsc_utf8_seq((const unsigned char *)cases[i].s, cases[i].n), cases[i].seq);
    }
}

/* RFC 2863 ifOperStatus as Linux numbers it (IF_OPER_*, linux/if.h). */
static void operstate_words(void)
{
    static const char *const want[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                       "testing", "dormant",    "up"};
    for (int i = 0; i < 7; i++) {
        CHECK_STR(fsc_oper_name(i), want[i]);
        CHECK_INT(fsc_oper_parse(want[i], strlen(want[i])), i);
    }
    CHECK_INT(FSC_OPER_UP, 6);
    CHECK_INT(fsc_oper_parse("up\n", 3), FSC_OPER_UP);
    CHECK_INT(fsc_oper_parse("up\n\n", 4), -EINVAL);
    CHECK_INT(fsc_oper_parse("", 0), -EINVAL);
    CHECK_STR(fsc_oper_name(7), "unknown");
    CHECK_STR(fsc_oper_name(-1), "unknown");
    CHECK_STR(fsc_oper_name(NAN), "unknown");
    CHECK_STR(fsc_peer_seen_name(FSC_PEER_NONE), "none");
    CHECK_STR(fsc_peer_seen_name(FSC_PEER_INCOMPLETE), "incomplete");
    CHECK_STR(fsc_peer_seen_name(FSC_PEER_ELSEWHERE), "elsewhere");
    CHECK_STR(fsc_peer_seen_name(FSC_PEER_OK), "complete");
    CHECK_STR(fsc_peer_seen_name(4), "none");
}

/* 64 MiB of small blocks freed but for the last one (so the heap's top is
 * not trimmed by free itself): fsc_mem_trim gives most of it back. ASan's
 * allocator is not glibc's: there only the call is exercised. */
static void mem_trim_returns_free_heap(void)
{
    enum { N = 128 * 1024, SIZE = 512 };
    char **blocks = malloc(N * sizeof(*blocks));
    CHECK(blocks != NULL);
    if (!blocks)
        return;
    size_t n = 0;
    for (; n < N; n++) {
        if (!(blocks[n] = malloc(SIZE)))
            break;
        memset(blocks[n], (int)n, SIZE);
    }
    CHECK_INT(n, N);
    for (size_t i = 0; i + 1 < n; i++)
        free(blocks[i]);
    int64_t released = fsc_mem_trim();
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
    CHECK(released >= 0);
#else
    CHECK(released >= 32 * 1024 * 1024); /* of ~64 MiB freed */
#endif
    if (n)
        free(blocks[n - 1]);
    free(blocks);
}

TEST_MAIN(TEST(json_escapes), TEST(json_invalid_utf8), TEST(json_documents), TEST(shortest_doubles),
          TEST(civil_dates_and_rfc3339), TEST(utf8_validation), TEST(operstate_words),
          TEST(mem_trim_returns_free_heap))
