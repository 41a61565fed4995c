/* Logging: exact line shape, level threshold, quoting of values. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "test.h"

static char *capture(void (*emit)(void))
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    if (!f)
        return NULL;
    fsc_log_set_stream(f);
    emit();
    fsc_log_set_stream(NULL);
    fclose(f);
    return buf;
}

static void emit_levels(void)
{
    fsc_log_set_level(FSC_LOG_WARN);
    fsc_log(FSC_LOG_INFO, "hidden", "a=%d", 1);
    fsc_log(FSC_LOG_WARN, "series_dropped", "source=%s limit=%d", "leaf1", 100);
    fsc_log(FSC_LOG_ERROR, "bare", "%s", "");
    fsc_log_set_level(FSC_LOG_INFO);
}

static void format_and_levels(void)
{
    char *out = capture(emit_levels);
    CHECK(out != NULL);
    if (!out)
        return;
    /* "ts=YYYY-MM-DDTHH:MM:SS.mmmZ" is 27 characters. */
    CHECK(strncmp(out, "ts=", 3) == 0);
    CHECK(out[13] == 'T' && out[26] == 'Z');
    char *first_end = strchr(out, '\n');
    CHECK(first_end != NULL);
    if (!first_end)
        return;
    *first_end = '\0';
    CHECK_STR(out + 27, " level=warn event=series_dropped source=leaf1 limit=100");
    char *second = first_end + 1;
    char *second_end = strchr(second, '\n');
    CHECK(second_end != NULL);
    if (!second_end)
        return;
    *second_end = '\0';
    CHECK_STR(second + 27, " level=error event=bare");
    CHECK(second_end[1] == '\0'); /* info line was filtered */

    enum fsc_log_level lvl;
    CHECK_INT(fsc_log_level_parse("debug", &lvl), 0);
    CHECK_INT(lvl, FSC_LOG_DEBUG);
    CHECK_INT(fsc_log_level_parse("WARNING", &lvl), 0);
    CHECK_INT(lvl, FSC_LOG_WARN);
    CHECK_INT(fsc_log_level_parse("loud", &lvl), -1);
}

static void quoting(void)
{
    char buf[64];
    CHECK_STR(fsc_log_quote("et-0/0/1", buf, sizeof(buf)), "et-0/0/1");
    CHECK_STR(fsc_log_quote("two words", buf, sizeof(buf)), "\"two words\"");
    CHECK_STR(fsc_log_quote("a\"b\\c", buf, sizeof(buf)), "\"a\\\"b\\\\c\"");
    CHECK_STR(fsc_log_quote("k=v", buf, sizeof(buf)), "\"k=v\"");
    CHECK_STR(fsc_log_quote("nl\n", buf, sizeof(buf)), "\"nl\\x0a\"");
    CHECK_STR(fsc_log_quote("", buf, sizeof(buf)), "\"\"");
    char tiny[6];
    CHECK_STR(fsc_log_quote("abcdefgh", tiny, sizeof(tiny)), "abcde");
    CHECK_STR(fsc_log_quote("a b c d", tiny, sizeof(tiny)), "\"a b\"");
}

/* 1000 library messages within far less than a second, differing only in
 * their numbers (as libmicrohttpd's "resource limit at N connections"),
 * plus one other text: one line each, the rest left out and counted later. */
static void emit_lib_flood(void)
{
    char msg[96];
    for (int i = 0; i < 1000; i++) {
        snprintf(msg, sizeof(msg), "Hit resource limit at %d connections.\n", i);
        fsc_log_lib(FSC_LOG_WARN, "microhttpd", msg);
    }
    fsc_log_lib(FSC_LOG_WARN, "microhttpd", "Other text");
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void library_flood_limited(void)
{
    char *out = capture(emit_lib_flood);
    CHECK(out != NULL);
    if (!out)
        return;
    CHECK_INT(count_of(out, "event=library"), 2);
    CHECK(strstr(out, "lib=microhttpd msg=\"Hit resource limit at 0 connections.\"\n") != NULL);
    CHECK(strstr(out, "lib=microhttpd msg=\"Other text\"\n") != NULL);
    CHECK_INT(count_of(out, "suppressed="), 0);
}

TEST_MAIN(TEST(format_and_levels), TEST(quoting), TEST(library_flood_limited))
