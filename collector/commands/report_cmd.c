/* `fabricscope report`: options, time parsing, loading, writing the three
 * files. Command code: prints and returns the exit status; the report
 * itself comes from report_*.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/timefmt.h"
#include "config/config.h"
#include "model/topology_keys.h"
#include "commands/report.h"
#include "commands/report_compare.h"
#include "commands/report_tables.h"
#include "rollup/rollup_dir.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

const char fsc_report_usage[] =
    "Usage: fabricscope report [-c CONFIG] [--from T] [--to T] [--source rollup|prometheus]\n"
    "                          [--prometheus URL] [--state-dir DIR] [--out DIR]\n"
    "                          [--threshold RATIO]\n"
    "       fabricscope report --compare NAME=FROM..TO --compare NAME=FROM..TO [...]\n"
    "                          [-c CONFIG] [--state-dir DIR] [--source rollup|prometheus]\n"
    "                          [--prometheus URL] [--format text|csv|json|html] [--out DIR]\n"
    "\n"
    "Writes a capacity-planning report of the range [FROM, TO) as DIR/report.html\n"
    "(self-contained, SVG charts), DIR/report.csv and DIR/report.json, the same tables\n"
    "in each: per link p50 / p99 / max utilization at fine resolution next to the 1 s\n"
    "and 5 min averages, microburst frequency and durations, CNP per TB, PFC paused\n"
    "time, uplink imbalance, oversubscription and spine traffic share per leaf, B300\n"
    "node throughput against 6.4 Tb/s, and the links that reached the threshold with\n"
    "the trend of their p99 and an estimated saturation date. Every rate is over the\n"
    "time the data covers (shown in each file), not the requested range. On success\n"
    "one line on stdout says what was written where. See docs/REPORT.md.\n"
    "\n"
    "Options:\n"
    "  -c, --config CONFIG   the collector's configuration: state_dir (where the rollups\n"
    "                        are) and the topology (roles, speeds, leaves, cable plan)\n"
    "  --from T, --to T      the range; T is `now`, -DURATION relative to now (-24h, -7d,\n"
    "                        -90m), Unix seconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]Z;\n"
    "                        default: the last 24 hours\n"
    "  --source S            rollup (default: the collector's per-minute store) or\n"
    "                        prometheus (its HTTP API)\n"
    "  --prometheus URL      Prometheus base URL (default http://127.0.0.1:9090);\n"
    "                        implies --source prometheus\n"
    "  --state-dir DIR       the collector's state directory (overrides CONFIG's\n"
    "                        state_dir; default /var/lib/fabricscope)\n"
    "  --out DIR             output directory, created if needed (default .)\n"
    "  --threshold RATIO     utilization that counts as near saturation (default 0.8)\n"
    "  --compare NAME=FROM..TO\n"
    "                        one named range (one tuning setting; FROM and TO as for\n"
    "                        --from / --to); two or more compare the ranges side by side\n"
    "                        from the rollup store (or Prometheus with --prometheus /\n"
    "                        --source prometheus): CNP/s per rail (else per device),\n"
    "                        NIC throughput per rail, uplink max/mean and coefficient of\n"
    "                        variation per leaf, port group max/mean, microbursts per\n"
    "                        hour, PFC pause; p50, p99, max of the per-minute values and\n"
    "                        per pair of ranges a verdict\n"
    "                        (better / worse / same within noise: Mann-Whitney U, 5 %)\n"
    "                        and what the source does not hold (ECN marks, NIC reorder)\n"
    "  --format F            with --compare: text (default), csv, json or html, on\n"
    "                        stdout, or DIR/compare.F with --out DIR\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 success; 1 no rollup store, Prometheus unreachable or refusing,\n"
    "no data in the range (--compare: in any one range), or the files cannot be\n"
    "written; 2 usage or configuration error (--compare: fewer than two ranges, a\n"
    "malformed range).\n";

struct report_args {
    const char *config, *from, *to, *source, *url, *state_dir, *out, *threshold, *format;
    const char *compare[FSC_CMP_MAX_RANGES + 1]; /* one more: "too many" is reported */
    size_t n_compare;
};

static int usage_error(const char *what, const char *arg)
{
    if (arg)
        fprintf(stderr, "fabricscope: %s '%s'\n\n%s", what, arg, fsc_report_usage);
    else
        fprintf(stderr, "fabricscope: %s\n\n%s", what, fsc_report_usage);
    return EXIT_USAGE;
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/* Returns -1 when done (help printed or usage error: *status set). */
static int parse_args(int argc, char **argv, struct report_args *a, int *status)
{
    static const struct {
        const char *name;
        size_t off;
    } opts[] = {
        {"-c", offsetof(struct report_args, config)},
        {"--config", offsetof(struct report_args, config)},
        {"--from", offsetof(struct report_args, from)},
        {"--to", offsetof(struct report_args, to)},
        {"--source", offsetof(struct report_args, source)},
        {"--prometheus", offsetof(struct report_args, url)},
        {"--state-dir", offsetof(struct report_args, state_dir)},
        {"--out", offsetof(struct report_args, out)},
        {"--threshold", offsetof(struct report_args, threshold)},
        {"--format", offsetof(struct report_args, format)},
        {"--compare", 0}, /* repeatable: collected in compare[] */
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (is_help(arg)) {
            fputs(fsc_report_usage, stdout);
            *status = EXIT_OK;
            return -1;
        }
        size_t k = 0, n = sizeof(opts) / sizeof(opts[0]);
        const char *val = NULL;
        for (; k < n; k++) {
            size_t len = strlen(opts[k].name);
            if (strcmp(arg, opts[k].name) == 0) {
                if (++i >= argc) {
                    *status = usage_error("missing value after", arg);
                    return -1;
                }
                val = argv[i];
                break;
            }
            if (strncmp(arg, opts[k].name, len) == 0 && arg[len] == '=' && opts[k].name[1] == '-') {
                val = arg + len + 1;
                break;
            }
        }
        if (k == n) {
            *status = usage_error(arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
            return -1;
        }
        if (strcmp(opts[k].name, "--compare") == 0) {
            if (a->n_compare > FSC_CMP_MAX_RANGES) {
                *status = usage_error("too many --compare ranges at", val);
                return -1;
            }
            a->compare[a->n_compare++] = val;
            continue;
        }
        *(const char **)((char *)a + opts[k].off) = val;
    }
    return 0;
}

/* Writes one output file through a temporary name, so a reader never sees
 * half a report; *size gets its bytes (for the line saying what was
 * written). */
static int write_file(const char *dir, const char *name, const struct fsc_report *rep,
                      int (*fn)(const struct fsc_report *, FILE *), long *size)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "fabricscope: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    int rc = fn(rep, f);
    *size = ftell(f);
    if (fclose(f) != 0 || rc != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "fabricscope: cannot write %s: %s\n", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* --compare: the store from --state-dir or CONFIG's state_dir, or the
 * Prometheus server of --prometheus / --source prometheus. */
static int compare_main(const struct report_args *a, const struct fsc_config_schema *schema,
                        int64_t now)
{
    char err[1024];
    struct fsc_config *cfg = NULL;
    if (a->config) {
        cfg = fsc_config_load(a->config, schema, err, sizeof(err));
        if (!cfg) {
            fprintf(stderr, "%s\n", err);
            return EXIT_USAGE;
        }
    }
    const char *sd = a->state_dir ? a->state_dir : cfg ? cfg->state_dir : "/var/lib/fabricscope";
    char store[FSC_CONFIG_MAX_PATH + 16];
    snprintf(store, sizeof(store), "%s/rollup", sd);
    int status = EXIT_OK;
    if (a->out) {
        int rc = fsc_mkdir_p(a->out, 0755);
        if (rc != 0) {
            fprintf(stderr, "fabricscope: cannot create %s: %s\n", a->out, strerror(-rc));
            status = EXIT_RUNTIME;
        }
    }
    bool prom = a->url || (a->source && strcmp(a->source, "prometheus") == 0);
    const char *url = a->url ? a->url : "http://127.0.0.1:9090";
    if (status == EXIT_OK)
        status = fsc_report_compare_main(a->compare, a->n_compare, a->format, store,
                                         prom ? url : NULL, a->out, now);
    fsc_config_destroy(cfg);
    return status;
}

int fsc_report_main(int argc, char **argv, const struct fsc_config_schema *schema)
{
    struct report_args a = {0};
    int status = EXIT_OK;
    char err[1024];
    if (parse_args(argc, argv, &a, &status) != 0)
        return status;

    int64_t now = (int64_t)time(NULL);
    if (a.n_compare > 0 || a.format) {
        if (a.n_compare == 0)
            return usage_error("--format goes with --compare", NULL);
        if (a.from || a.to || a.threshold)
            return usage_error("--compare names its own ranges: no --from, --to, --threshold",
                               NULL);
        if (a.source && strcmp(a.source, "rollup") != 0 && strcmp(a.source, "prometheus") != 0)
            return usage_error("--source must be rollup or prometheus, got", a.source);
        if (a.url && a.source && strcmp(a.source, "prometheus") != 0)
            return usage_error("--prometheus needs --source prometheus, got", a.source);
        return compare_main(&a, schema, now);
    }
    int64_t to = now, from;
    if (a.to && fsc_report_parse_time(a.to, now, &to) != 0)
        return usage_error("bad time for --to", a.to);
    from = to - 86400;
    if (a.from && fsc_report_parse_time(a.from, now, &from) != 0)
        return usage_error("bad time for --from", a.from);
    if (from >= to)
        return usage_error("--from must be before --to", NULL);
    double threshold = 0.8;
    if (a.threshold) {
        char *end;
        threshold = strtod(a.threshold, &end);
        if (*end || !(threshold > 0 && threshold <= 1))
            return usage_error("--threshold must be a ratio in (0, 1]", a.threshold);
    }
    bool prom = a.url != NULL;
    if (a.source) {
        if (strcmp(a.source, "prometheus") == 0)
            prom = true;
        else if (strcmp(a.source, "rollup") == 0 && !a.url)
            prom = false;
        else
            return usage_error(a.url ? "--prometheus needs --source prometheus, got"
                                     : "--source must be rollup or prometheus, got",
                               a.source);
    }

    struct fsc_config *cfg = NULL;
    if (a.config) {
        cfg = fsc_config_load(a.config, schema, err, sizeof(err));
        if (!cfg) {
            fprintf(stderr, "%s\n", err);
            return EXIT_USAGE;
        }
    }
    const char *out_dir = a.out ? a.out : ".";
    int rc = fsc_mkdir_p(out_dir, 0755);
    if (rc != 0) {
        fprintf(stderr, "fabricscope: cannot create %s: %s\n", out_dir, strerror(-rc));
        fsc_config_destroy(cfg);
        return EXIT_RUNTIME;
    }

    struct fsc_report rep;
    fsc_report_init(&rep, from, to, threshold, cfg ? fsc_topology_of(cfg) : NULL);
    rep.generated_s = now;
    FILE *progress = isatty(STDERR_FILENO) ? stderr : NULL;
    char store[FSC_CONFIG_MAX_PATH + 16];
    if (prom) {
        rc = fsc_report_load_prometheus(&rep, a.url ? a.url : "http://127.0.0.1:9090", progress,
                                        err, sizeof(err));
    } else {
        const char *sd = a.state_dir ? a.state_dir : cfg ? cfg->state_dir : "/var/lib/fabricscope";
        snprintf(store, sizeof(store), "%s/rollup", sd);
        if (progress)
            fprintf(progress, "fabricscope report: reading %s\n", store);
        rc = fsc_report_load_rollup(&rep, store, err, sizeof(err));
    }
    if (rc == 0) {
        rc = fsc_report_compute(&rep);
        if (rc == -ENODATA)
            snprintf(err, sizeof(err), "no port utilization data between the range's ends");
        else if (rc != 0)
            snprintf(err, sizeof(err), "out of memory");
    }
    if (rc != 0) {
        fprintf(stderr, "fabricscope: %s\n", err);
        fsc_report_fini(&rep);
        fsc_config_destroy(cfg);
        return EXIT_RUNTIME;
    }
    status = EXIT_OK;
    long csv = 0, json = 0, html = 0;
    if (write_file(out_dir, "report.csv", &rep, fsc_report_write_csv, &csv) != 0 ||
        write_file(out_dir, "report.json", &rep, fsc_report_write_json, &json) != 0 ||
        write_file(out_dir, "report.html", &rep, fsc_report_write_html, &html) != 0) {
        status = EXIT_RUNTIME;
    } else {
        /* Success says what was written where, on stdout: the files are
         * never written to stdout, so it is the command's only output. */
        size_t rows = 0;
        for (size_t t = 0; t < fsc_rpt_n_tables; t++)
            rows += fsc_rpt_tables[t].rows(&rep);
        char cov[32], span[32];
        printf("fabricscope report: wrote %s/report.html (%ld bytes), %s/report.csv (%ld bytes, "
               "%zu rows in %zu tables), %s/report.json (%ld bytes); %zu link directions, data "
               "covering %s of the %s range\n",
               out_dir, html, out_dir, csv, rows, fsc_rpt_n_tables, out_dir, json, rep.n_dir_rows,
               fsc_report_duration(rep.covered_s, cov, sizeof(cov)),
               fsc_report_duration((double)(to - from), span, sizeof(span)));
        if (fflush(stdout) != 0)
            status = EXIT_RUNTIME;
    }
    fsc_report_fini(&rep);
    fsc_config_destroy(cfg);
    return status;
}
