/* Accept / Accept-Encoding negotiation for /metrics, table-driven. */
#include "prometheus/prom_negotiate.h"
#include "test.h"

#define OM   FSC_PROM_OPENMETRICS
#define TEXT FSC_PROM_TEXT

static void accept_format(void)
{
    static const struct {
        const char *accept;
        enum fsc_prom_format want;
    } cases[] = {
        {NULL, TEXT},
        {"", TEXT},
        {"application/openmetrics-text", OM},
        {"Application/OpenMetrics-Text", OM},
        {"application/openmetrics-text; version=1.0.0; charset=utf-8", OM},
        {"application/openmetrics-text;version=\"1.0.0\"", OM},
        {"application/openmetrics-text;version=0.0.1", TEXT},
        {"application/openmetrics-text;version=0.0.1,*/*;q=0.1", TEXT},
        {"application/openmetrics-text;q=0", TEXT},
        {"application/openmetrics-text;q=0.000, */*", TEXT},
        {"application/openmetrics-text;q=0.001", OM},
        /* Prometheus 2.x default scrape_protocols. */
        {"application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;"
         "version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
         OM},
        /* Prometheus 3.x default (escaping parameter, text 1.0.0 offered). */
        {"application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/"
         "openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q="
         "0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
         OM},
        /* Prometheus configured for text only. */
        {"text/plain;version=0.0.4;q=0.9,*/*;q=0.8", TEXT},
        {"*/*", TEXT},
        {"application/*", OM},
        {"application/*;q=0.5, text/plain", TEXT},
        {"text/plain;q=0.4, application/openmetrics-text;q=0.5", OM},
        {"text/plain;q=0.6, application/openmetrics-text;q=0.5", TEXT},
        {"text/plain, application/openmetrics-text", OM}, /* tie, named explicitly */
        {"*/*;q=0.9, application/openmetrics-text;q=0", TEXT},
        {"text/html, application/json", TEXT},
        /* Malformed pieces are skipped, the rest still counts. */
        {"application/openmetrics-text;q=2, text/plain", TEXT},
        {"application/openmetrics-text;q=abc", TEXT},
        {";;;,,, application/openmetrics-text ;q=1.0", OM},
        {"text/plain;foo=\"a,b;c\", application/openmetrics-text", OM},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int before = test_failures;
        CHECK_INT(fsc_prom_negotiate_format(cases[i].accept), cases[i].want);
        if (test_failures != before)
            fprintf(stderr, "  accept: %s\n", cases[i].accept ? cases[i].accept : "(null)");
    }
}

static void accept_encoding_gzip(void)
{
    static const struct {
        const char *ae;
        int want;
    } cases[] = {
        {NULL, 0},
        {"", 0},
        {"gzip", 1},
        {"GZIP", 1},
        {"x-gzip", 1},
        {"gzip, deflate, br", 1},
        {"deflate, br", 0},
        {"identity", 0},
        {"*", 1},
        {"*;q=0", 0},
        {"gzip;q=0", 0},
        {"gzip;q=0, *", 0}, /* the named coding wins over the wildcard */
        {"gzip;q=0.5, *;q=0", 1},
        {"br;q=1.0, gzip;q=0.8, *;q=0.1", 1},
        {"gzip ; q=0.001", 1},
        {"gzip;q=1.5", 0}, /* malformed element skipped */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int before = test_failures;
        CHECK_INT(fsc_prom_negotiate_gzip(cases[i].ae), cases[i].want);
        if (test_failures != before)
            fprintf(stderr, "  accept-encoding: %s\n", cases[i].ae ? cases[i].ae : "(null)");
    }
}

static void qvalues(void)
{
    static const struct {
        const char *s;
        int want;
    } cases[] = {
        {"0", 0},  {"1", 1000},  {"0.5", 500},    {"0.25", 250}, {"0.125", 125},
        {"0.", 0}, {"1.", 1000}, {"1.000", 1000}, {"1.001", -1}, {"0.1234", -1},
        {"2", -1}, {"", -1},     {".5", -1},      {"0,5", -1},   {"0.5x", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int before = test_failures;
        CHECK_INT(fsc_prom_parse_qvalue(cases[i].s, strlen(cases[i].s)), cases[i].want);
        if (test_failures != before)
            fprintf(stderr, "  q: %s\n", cases[i].s);
    }
}

TEST_MAIN(TEST(accept_format), TEST(accept_encoding_gzip), TEST(qvalues))
