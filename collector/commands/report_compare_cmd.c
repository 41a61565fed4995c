/* `fabricscope report --compare NAME=FROM..TO ...`: the ranges parsed,
 * the rollup store or Prometheus read, the comparison written (contract in
 * report_compare.h). Command code: prints and returns the exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/report_compare.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "fabricscope: %s '%s'\n\n%s", what, arg, fsc_report_usage);
    return EXIT_USAGE;
}

/* "NAME=FROM..TO" into the comparison. */
static int add_spec(struct fsc_compare *cmp, const char *spec, int64_t now_s)
{
    const char *eq = strchr(spec, '=');
    const char *dots = eq ? strstr(eq + 1, "..") : NULL;
    if (!eq || !dots || eq == spec)
        return usage("--compare wants NAME=FROM..TO, got", spec);
    char name[FSC_CMP_NAME + 1], from[64], to[64];
    size_t nl = (size_t)(eq - spec), fl = (size_t)(dots - eq - 1);
    if (nl >= sizeof(name) || fl >= sizeof(from) || strlen(dots + 2) >= sizeof(to))
        return usage("--compare: too long", spec);
    memcpy(name, spec, nl);
    name[nl] = '\0';
    memcpy(from, eq + 1, fl);
    from[fl] = '\0';
    snprintf(to, sizeof(to), "%s", dots + 2);
    int64_t f, t;
    if (fsc_report_parse_time(from, now_s, &f) != 0)
        return usage("--compare: bad FROM time in", spec);
    if (fsc_report_parse_time(to, now_s, &t) != 0)
        return usage("--compare: bad TO time in", spec);
    if (f >= t)
        return usage("--compare: FROM must be before TO in", spec);
    int rc = fsc_compare_add_range(cmp, name, f, t);
    if (rc == -E2BIG) {
        fprintf(stderr,
                "fabricscope: --compare: at most %d ranges of %d minutes together; '%s' is "
                "one too many\n",
                FSC_CMP_MAX_RANGES, FSC_CMP_MAX_MINUTES, spec);
        return EXIT_USAGE;
    }
    if (rc != 0)
        return usage("--compare: NAME must be unique letters, digits, '.', '_', '-' and the "
                     "range hold a minute start, got",
                     spec);
    return EXIT_OK;
}

int fsc_report_compare_main(const char *const *specs, size_t n, const char *format,
                            const char *store, const char *prom_url, const char *out_dir,
                            int64_t now_s)
{
    static const struct {
        const char *name;
        int (*write)(const struct fsc_compare *, FILE *);
    } formats[] = {
        {"text", fsc_compare_write_text},
        {"csv", fsc_compare_write_csv},
        {"json", fsc_compare_write_json},
        {"html", fsc_compare_write_html},
    };
    size_t f = 0, nf = sizeof(formats) / sizeof(formats[0]);
    const char *fmt = format ? format : "text";
    while (f < nf && strcmp(formats[f].name, fmt) != 0)
        f++;
    if (f == nf)
        return usage("--format must be text, csv, json or html, got", fmt);
    if (n < 2) {
        fprintf(stderr, "fabricscope: --compare needs two or more ranges, got %zu\n\n%s", n,
                fsc_report_usage);
        return EXIT_USAGE;
    }
    struct fsc_compare *cmp = malloc(sizeof(*cmp));
    if (!cmp) {
        fprintf(stderr, "fabricscope: out of memory\n");
        return EXIT_RUNTIME;
    }
    fsc_compare_init(cmp);
    int status = EXIT_OK;
    for (size_t i = 0; i < n && status == EXIT_OK; i++)
        status = add_spec(cmp, specs[i], now_s);
    char err[1024] = "";
    if (status == EXIT_OK) {
        int rc = prom_url ? fsc_compare_load_prometheus(cmp, prom_url, NULL, err, sizeof(err))
                          : fsc_compare_load_rollup(cmp, store, err, sizeof(err));
        if (rc == 0)
            rc = fsc_compare_compute(cmp);
        if (rc != 0) {
            fprintf(stderr, "fabricscope: %s\n", err[0] ? err : strerror(-rc));
            status = EXIT_RUNTIME;
        }
    }
    if (status == EXIT_OK && !out_dir) {
        if (formats[f].write(cmp, stdout) != 0 || fflush(stdout) != 0)
            status = EXIT_RUNTIME;
    } else if (status == EXIT_OK) {
        /* through a temporary name, as the report's own files */
        char path[4200], tmp[4300];
        snprintf(path, sizeof(path), "%s/compare.%s", out_dir, fmt);
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        FILE *out = fopen(tmp, "w");
        int rc = out ? formats[f].write(cmp, out) : -errno;
        long size = out ? ftell(out) : 0;
        if (!out || fclose(out) != 0 || rc != 0 || rename(tmp, path) != 0) {
            fprintf(stderr, "fabricscope: cannot write %s\n", path);
            unlink(tmp);
            status = EXIT_RUNTIME;
        } else {
            printf("fabricscope report: wrote %s (%ld bytes), %zu ranges, %zu rows\n", path, size,
                   cmp->n_ranges, cmp->n_rows);
        }
    }
    fsc_compare_fini(cmp);
    free(cmp);
    return status;
}
