/* Fuzz target config: YAML text for fsc_config_parse() (config/config.h):
 * every section, the topology included, from a buffer, with a schema of
 * every kind's key table (the application's kinds, without the plugins
 * that run them: a kind's table is all the loader needs).
 *
 * Checked:
 *   - refused: NULL and a sentence in err;
 *   - accepted: fsc_config_print() writes YAML that parses back, and printing
 *     that gives the same text again (the printer writes what the loader
 *     reads, with every default filled in). The one exception is documented
 *     in config.h: an inline secret prints as "<redacted>", which the loader
 *     refuses on purpose; such configs stop after the first print.
 * Seeds: the examples/ and tests/fixtures/config/ YAML files. */
#include <string.h>

#include "config/config.h"
#include "fuzz.h"
#include "../config_all.h"

static const struct fsc_config_kind *const sources[] = {
    &fsc_gnmi_kind, &fsc_otlp_kind, &fsc_nic_kind, &fsc_synthetic_kind, &fsc_replay_kind, NULL};
static const struct fsc_config_kind *const exporters[] = {
    &fsc_prometheus_kind, &fsc_web_kind, &fsc_kafka_kind, &fsc_remote_write_kind, NULL};
static const struct fsc_config_kind *const sections[] = {&fsc_engine_kind, &fsc_topology_kind,
                                                         &fsc_rollup_kind, &fsc_shard_kind, NULL};
static const char *const profiles[] = {"junos", "cumulus", "mlx5", NULL};
static const struct fsc_config_schema schema = {
    .sources = sources, .exporters = exporters, .sections = sections, .profiles = profiles};

/* The printed text of cfg (malloc'd, NUL-terminated) and its length. */
static char *print_config(const struct fsc_config *cfg, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    FUZZ_CHECK(f);
    FUZZ_CHECK(fsc_config_print(cfg, f) == 0);
    FUZZ_CHECK(fclose(f) == 0 && text);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    err[0] = '\0';
    struct fsc_config *cfg =
        fsc_config_parse((const char *)data, size, "fuzz.yaml", &schema, err, sizeof err);
    if (!cfg) {
        FUZZ_CHECK(err[0] != '\0' && memchr(err, '\0', sizeof err));
        return 0;
    }
    size_t n1, n2;
    char *t1 = print_config(cfg, &n1);
    fsc_config_destroy(cfg);
    if (strstr(t1, "<redacted>")) {
        free(t1);
        return 0;
    }
    cfg = fsc_config_parse(t1, n1, "printed.yaml", &schema, err, sizeof err);
    if (!cfg)
        fprintf(stderr, "printed config refused: %s\n----\n%s\n", err, t1);
    FUZZ_CHECK(cfg);
    char *t2 = print_config(cfg, &n2);
    fsc_config_destroy(cfg);
    if (n1 != n2 || memcmp(t1, t2, n1) != 0)
        fprintf(stderr, "print is not a fixed point:\n%s\n----\n%s\n", t1, t2);
    FUZZ_CHECK(n1 == n2 && memcmp(t1, t2, n1) == 0);
    free(t1);
    free(t2);
    return 0;
}
