/* check-config (check_config.h): the loader finds what is wrong inside the
 * file; this adds what `run` would find only at start, outside it: a named
 * file that is missing or unreadable, a cable plan that does not parse. */
#include "commands/check_config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/cable_plan.h"
#include "model/topology_keys.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

const char fsc_check_config_usage[] =
    "Usage: fabricscope check-config [--no-files] FILE\n"
    "\n"
    "Validates FILE and prints the effective configuration (defaults filled in) as\n"
    "YAML on stdout. Secrets are printed as <redacted>. Every error found is printed\n"
    "on stderr as FILE:LINE:COLUMN: what is wrong, one per line, and the exit status\n"
    "is 2.\n"
    "\n"
    "Besides the file itself it checks every file the configuration names and the\n"
    "collector reads at start (TLS certificates and keys, token lists, cable plans,\n"
    "replay files, sysfs roots): each must be readable, and a cable plan must parse.\n"
    "Files of disabled sources are not checked.\n"
    "\n"
    "Options:\n"
    "  --no-files            check FILE alone (a config written for another machine)\n"
    "  -h, --help            show this help\n";

/* Parses one cable plan file; a problem is one line in err. */
static bool plan_parses(const struct fsc_config *cfg, const char *file, char *err, size_t errlen)
{
    const struct fsc_topology *topo = fsc_topology_of(cfg);
    const struct fsc_cable_plan *cp = topo && topo->cable_plan.present ? &topo->cable_plan : NULL;
    struct fsc_cable_layout lay;
    char e[512];
    if (fsc_cable_layout_from_config(&lay, cp, e, sizeof(e)) != 0) {
        snprintf(err, errlen, "%s: topology.cable_plan: %s", cfg->file, e);
        return false;
    }
    struct fsc_cabling *cab = fsc_cabling_load(file, &lay, e, sizeof(e));
    if (!cab) {
        snprintf(err, errlen, "%s: cable plan: %s", cfg->file, e);
        return false;
    }
    fsc_cabling_destroy(cab);
    return true;
}

/* The cable plans the enabled sources read (topology.cable_plan.file, each
 * nic source's own), each parsed once. Only files that opened are parsed
 * (the input check reported the others). Returns how many failed. */
static size_t check_plans(const struct fsc_config *cfg)
{
    const struct fsc_topology *topo = fsc_topology_of(cfg);
    const char *seen[64];
    size_t n_seen = 0, bad = 0;
    for (size_t i = 0; i <= cfg->n_sources; i++) {
        const char *file = NULL;
        if (i == cfg->n_sources)
            file = topo && topo->cable_plan.present ? topo->cable_plan.file : NULL;
        else if (cfg->sources[i].enabled && cfg->sources[i].kind->cable_plan)
            file = cfg->sources[i].kind->cable_plan(&cfg->sources[i]);
        if (!file || !file[0])
            continue;
        bool dup = false;
        for (size_t k = 0; k < n_seen && !dup; k++)
            dup = strcmp(seen[k], file) == 0;
        if (dup)
            continue;
        if (n_seen < sizeof(seen) / sizeof(seen[0]))
            seen[n_seen++] = file;
        FILE *probe = fopen(file, "r");
        if (!probe)
            continue;
        fclose(probe);
        char err[640];
        if (!plan_parses(cfg, file, err, sizeof(err))) {
            fprintf(stderr, "%s\n", err);
            bad++;
        }
    }
    return bad;
}

int fsc_check_config_main(int argc, char **argv, const struct fsc_config_schema *schema)
{
    const char *path = NULL;
    bool files = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(fsc_check_config_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--no-files") == 0) {
            files = false;
            continue;
        }
        const char *what = argv[i][0] == '-' && argv[i][1] != '\0' ? "unknown option"
                           : path                                  ? "unexpected argument"
                                                                   : NULL;
        if (what) {
            fprintf(stderr, "fabricscope: %s '%s'\n\n%s", what, argv[i], fsc_check_config_usage);
            return EXIT_USAGE;
        }
        path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "fabricscope: missing FILE\n\n%s", fsc_check_config_usage);
        return EXIT_USAGE;
    }

    static char err[FSC_CONFIG_MAX_ERRORS * 1400];
    struct fsc_config *cfg = fsc_config_load(path, schema, err, sizeof(err));
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    /* Warnings first, on stderr: the printout on stdout stays a config that
     * loads back (it shows the values as they will be used). */
    const char *const *warnings;
    size_t n_warnings = fsc_config_warnings(cfg, &warnings);
    for (size_t i = 0; i < n_warnings; i++)
        fprintf(stderr, "%s\n", warnings[i]);
    if (files) {
        size_t bad = fsc_config_check_inputs(cfg, err, sizeof(err));
        if (bad)
            fprintf(stderr, "%s\n", err);
        if (bad > FSC_CONFIG_MAX_ERRORS)
            fprintf(stderr, "(%zu more files not shown)\n", bad - FSC_CONFIG_MAX_ERRORS);
        bad += check_plans(cfg);
        if (bad) {
            fprintf(stderr,
                    "%s: %zu named file%s cannot be used (--no-files checks the file alone)\n",
                    path, bad, bad == 1 ? "" : "s");
            fsc_config_destroy(cfg);
            return EXIT_USAGE;
        }
    }
    int rc = fsc_config_print(cfg, stdout);
    fsc_config_destroy(cfg);
    if (rc != 0) {
        fprintf(stderr, "fabricscope: cannot print configuration: %s\n", strerror(-rc));
        return EXIT_RUNTIME;
    }
    fprintf(stderr, "%s: OK\n", path);
    return EXIT_OK;
}
