/* The web module's writers (the JSON writer it uses, base/json_write.h, and
 * its own web_html.h): exact
 * output for known input, escaping of every special byte, invalid UTF-8,
 * misuse and buffer limits; every document the JSON writer accepts is read
 * back by jansson (strict: RFC 8259 syntax, UTF-8). */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "test.h"
#include "web/web_html.h"
#include "base/json_write.h"
#include "base/utf8.h"

/* 1 when text is one valid JSON document (jansson: any top-level value,
 * integers of any size, \u0000 allowed in strings). */
static int json_valid(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &e);
    json_decref(j);
    return j != NULL;
}

/* The decoded value of the top-level string `text` (jansson). */
static int decoded_string(const char *text, char *out, size_t outlen)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &e);
    int rc = -1;
    if (json_is_string(j) && json_string_length(j) < outlen) {
        memcpy(out, json_string_value(j), json_string_length(j));
        out[json_string_length(j)] = '\0';
        rc = 0;
    }
    json_decref(j);
    return rc;
}

static void writer_exact(void)
{
    struct fsc_buf b = {0};
    struct fsc_json w;
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "s", "text");
    fsc_json_str(&w, "nul", NULL);
    fsc_json_int(&w, "i", -42);
    fsc_json_int(&w, "min", INT64_MIN);
    fsc_json_uint(&w, "u", UINT64_MAX);
    fsc_json_num(&w, "d", 0.1);
    fsc_json_num(&w, "whole", 12500000000.0);
    fsc_json_num(&w, "big", 1e21);
    fsc_json_num(&w, "small", 1.5e-7);
    fsc_json_num(&w, "nan", NAN);
    fsc_json_num(&w, "inf", -INFINITY);
    fsc_json_bool(&w, "t", 1);
    fsc_json_bool(&w, "f", 0);
    fsc_json_null(&w, "n");
    fsc_json_array(&w, "a");
    fsc_json_int(&w, NULL, 1);
    fsc_json_array(&w, NULL);
    fsc_json_end(&w);
    fsc_json_object(&w, NULL);
    fsc_json_end(&w);
    fsc_json_str(&w, NULL, "x");
    fsc_json_end(&w);
    fsc_json_object(&w, "o");
    fsc_json_num(&w, "third", 1.0 / 3.0);
    fsc_json_end(&w);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    CHECK_STR(b.data, "{\"s\":\"text\",\"nul\":null,\"i\":-42,\"min\":-9223372036854775808,"
                      "\"u\":18446744073709551615,\"d\":0.1,\"whole\":12500000000,"
                      "\"big\":1e+21,\"small\":1.5e-07,\"nan\":null,\"inf\":null,\"t\":true,"
                      "\"f\":false,\"n\":null,\"a\":[1,[],{},\"x\"],"
                      "\"o\":{\"third\":0.3333333333333333}}");
    CHECK(json_valid(b.data));
    fsc_buf_free(&b);
}

/* A table of inputs and their exact JSON string. */
static void string_escapes(void)
{
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"plain", 5, "\"plain\""},
        {"q\"b\\s/", 6, "\"q\\\"b\\\\s/\""},
        {"\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\""},
        {"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\""},
        {"a\0b", 3, "\"a\\u0000b\""},
        {"</script>&", 10, "\"\\u003c/script\\u003e\\u0026\""},
        /* valid UTF-8 is copied: e-acute, euro, an astral character */
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""},
        /* U+2028 and U+2029 end a JavaScript string literal: escaped */
        {"\xe2\x80\xa8\xe2\x80\xa9", 6, "\"\\u2028\\u2029\""},
        /* invalid: a stray continuation, 0xff, an overlong '/', a
         * surrogate, above U+10FFFF, a truncated sequence at the end */
        {"\x80", 1, "\"\\ufffd\""},
        {"a\xff"
         "b",
         3, "\"a\\ufffdb\""},
        {"\xc0\xaf", 2, "\"\\ufffd\\ufffd\""},
        {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},
        {"\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
        {"x\xe2\x82", 3, "\"x\\ufffd\\ufffd\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fsc_buf b = {0};
        CHECK_INT(fsc_json_quote(&b, cases[i].in, cases[i].len), 0);
        CHECK_STR(b.data, cases[i].want);
        CHECK(json_valid(b.data));
        fsc_buf_free(&b);
    }
    /* Read back by jansson: what went in (valid UTF-8) comes out. */
    const char *round = "dev \"x\"\\<1>\n\xc3\xa9\xe2\x80\xa8";
    struct fsc_buf b = {0};
    char back[64];
    CHECK_INT(fsc_json_quote(&b, round, strlen(round)), 0);
    CHECK_INT(decoded_string(b.data, back, sizeof(back)), 0);
    CHECK_STR(back, round);
    fsc_buf_free(&b);
}

static void misuse_and_limits(void)
{
    struct fsc_buf b = {0};
    struct fsc_json w;

    /* a key inside an array */
    fsc_json_start(&w, &b);
    fsc_json_array(&w, NULL);
    fsc_json_int(&w, "k", 1);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    /* no key inside an object */
    fsc_buf_reset(&b);
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    fsc_json_int(&w, NULL, 1);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    /* unclosed, and an end too many */
    fsc_buf_reset(&b);
    fsc_json_start(&w, &b);
    fsc_json_object(&w, NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), 0);
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    /* a second top-level value; nothing at all */
    fsc_buf_reset(&b);
    fsc_json_start(&w, &b);
    fsc_json_int(&w, NULL, 1);
    CHECK_INT(fsc_json_done(&w), 0);
    CHECK_STR(b.data, "1");
    fsc_json_int(&w, NULL, 2);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    CHECK_STR(b.data, "1");
    fsc_json_start(&w, &b);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    /* nesting beyond FSC_JSON_DEPTH */
    fsc_buf_reset(&b);
    fsc_json_start(&w, &b);
    for (int i = 0; i < FSC_JSON_DEPTH + 1; i++)
        fsc_json_array(&w, NULL);
    CHECK_INT(fsc_json_done(&w), -EINVAL);
    CHECK_INT((long long)b.len, FSC_JSON_DEPTH);
    fsc_buf_free(&b);

    /* The buffer's limit: the first failure sticks, later calls do nothing. */
    struct fsc_buf lim = {0};
    lim.limit = 10;
    fsc_json_start(&w, &lim);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "key", "a long value");
    fsc_json_end(&w);
    CHECK_INT(fsc_json_done(&w), -E2BIG);
    CHECK((long long)lim.len <= 10);
    fsc_buf_free(&lim);
}

static void html_escapes(void)
{
    static const struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"plain text", 10, "plain text"},
        {"<script>alert(\"x\")</script>", 27, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"},
        {"a&b 'c'", 7, "a&amp;b &#39;c&#39;"},
        {"tab\tnl\ncr\r", 10, "tab\tnl\ncr\r"},
        {"\x01x\x7f", 3, "\xef\xbf\xbdx\xef\xbf\xbd"},
        {"\xc3\xa9t\xc3\xa9", 5, "\xc3\xa9t\xc3\xa9"},
        {"bad\xff\xc0\xaf", 6, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fsc_buf b = {0};
        CHECK_INT(fsc_html_escape(&b, cases[i].in, cases[i].len), 0);
        CHECK_STR(b.data, cases[i].want);
        fsc_buf_free(&b);
    }
    /* The writer: text escaped, markup and numbers as given, URL args
     * percent-encoded. */
    struct fsc_buf b = {0};
    struct fsc_html h = {&b, 0};
    fsc_html_raw(&h, "<td>");
    fsc_html_text(&h, "a<b");
    fsc_html_fmt(&h, "</td><td>%d</td>", 7);
    fsc_html_raw(&h, "<a href=\"?port=");
    fsc_html_urlarg(&h, "et-0/0/1 \"x\"&");
    fsc_html_raw(&h, "\">");
    fsc_html_text(&h, NULL);
    CHECK_INT(h.err, 0);
    CHECK_STR(b.data, "<td>a&lt;b</td><td>7</td><a href=\"?port=et-0%2F0%2F1%20%22x%22%26\">");
    fsc_buf_free(&b);
}

static void utf8_sequences(void)
{
    static const struct {
        const char *s;
        size_t n;
        size_t want;
    } cases[] = {
        {"A", 1, 1},
        {"\xc2\x80", 2, 2},
        {"\xdf\xbf", 2, 2},
        {"\xe0\xa0\x80", 3, 3},
        {"\xe0\x9f\xbf", 3, 0},
        {"\xed\x9f\xbf", 3, 3},
        {"\xed\xa0\x80", 3, 0},
        {"\xef\xbf\xbf", 3, 3},
        {"\xf0\x90\x80\x80", 4, 4},
        {"\xf0\x8f\xbf\xbf", 4, 0},
        {"\xf4\x8f\xbf\xbf", 4, 4},
        {"\xf4\x90\x80\x80", 4, 0},
        {"\xf5\x80\x80\x80", 4, 0},
        {"\xc1\xbf", 2, 0},
        {"\xe2\x82", 2, 0},
        {"\xe2\x28\xa1", 3, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_INT(fsc_utf8_seq((const unsigned char *)cases[i].s, cases[i].n), cases[i].want);
}

TEST_MAIN(TEST(writer_exact), TEST(string_escapes), TEST(misuse_and_limits), TEST(html_escapes),
          TEST(utf8_sequences))
