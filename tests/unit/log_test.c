/* Logging: exact line shape, level threshold, quoting of values. */
#include "core/log.h"
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

TEST_MAIN(TEST(format_and_levels), TEST(quoting))
