/* `fabricscope probe` (probe.h): the command line, and one source run the
 * way the daemon runs it (daemon_reload.c's run_start: its registry source,
 * profile, topology, an engine), with the two taps of probe_int.h and no
 * sink at all. SIGINT or SIGTERM ends the wait early; the report is
 * printed either way. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/plugins.h"
#include "commands/probe.h"
#include "commands/probe_int.h"
#include "base/clock.h"
#include "base/log.h"
#include "engine/engine.h"
#include "engine/engine_keys.h"
#include "model/registry.h"
#include "model/topology_keys.h"

enum { EXIT_OK = 0, EXIT_NOTHING = 1, EXIT_USAGE = 2 };

#define SECONDS_DEFAULT 5
#define SECONDS_MAX     300

const char fsc_probe_usage[] =
    "Usage: fabricscope probe -c FILE [--source NAME] [--seconds N]\n"
    "\n"
    "First contact with one source of FILE (as gnmic's --once or Telegraf's --test):\n"
    "starts only that source - a gNMI subscription, an OTLP receiver, a NIC poller -\n"
    "for N seconds, then prints what arrived as canonical series with the profile's\n"
    "mapping, and exits. No exporter listens, nothing is written (no rollups, no\n"
    "state directory). The source's own log lines (otlp_listening port=...) are on\n"
    "stderr; the report on stdout, one line each:\n"
    "  series NAME{LABELS} native=NATIVE last=VALUE samples=N\n"
    "                        a canonical series, the native (vendor) name it came\n"
    "                        from, its last raw value and how many samples arrived\n"
    "  map NATIVE -> NAME[,NAME...] series=N\n"
    "                        a native name the source's profile maps\n"
    "  unmapped NATIVE -> NAME series=N\n"
    "                        a native name no profile entry covers: passed through\n"
    "                        under a sanitized name (a profile entry would give it a\n"
    "                        canonical name, traits and a detector)\n"
    "  derived -> NAME series=N\n"
    "                        series the source computes itself (Cumulus port bytes\n"
    "                        summed over traffic classes)\n"
    "  probe source=... seconds=... series=... samples=... mapped=... unmapped=...\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE     configuration file (YAML, see docs/CONFIG.md); required\n"
    "  --source NAME         the source to probe (default: the first enabled one);\n"
    "                        a disabled source may be named\n"
    "  --seconds N           how long to listen, 1..300 (default 5)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 when the device sent anything, 1 when it did not (the source's own\n"
    "fabricscope_* statistics do not count; or the source could not start: a port in\n"
    "use, a peer that refuses), 2 usage or configuration error.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "fabricscope: %s%s%s%s\n\n%s", what, arg ? " '" : "", arg ? arg : "",
            arg ? "'" : "", fsc_probe_usage);
    return EXIT_USAGE;
}

struct probe_opts {
    const char *path;
    const char *source;
    int seconds;
};

/* The value of option `name` at argv[*i] ("--name V" or "--name=V"):
 * *i moves past it. NULL when argv[*i] is another option; *missing when it
 * is this one without a value. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=' && name[1] == '-')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* Returns -1 to go on, else the exit status (help printed: 0). */
static int parse_args(int argc, char **argv, struct probe_opts *o)
{
    o->seconds = SECONDS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(fsc_probe_usage, stdout);
            return EXIT_OK;
        }
        if ((v = opt_value(argc, argv, &i, "-c", &missing)) ||
            (v = opt_value(argc, argv, &i, "--config", &missing))) {
            o->path = v;
        } else if ((v = opt_value(argc, argv, &i, "--source", &missing))) {
            o->source = v;
        } else if ((v = opt_value(argc, argv, &i, "--seconds", &missing))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 1 || n > SECONDS_MAX)
                return usage_error("--seconds wants a whole number 1..300, not", v);
            o->seconds = (int)n;
        } else {
            return usage_error(missing ? "missing value after" : "unexpected argument", a);
        }
    }
    if (!o->path)
        return usage_error("missing -c FILE", NULL);
    return -1;
}

/* The source to probe, or NULL with a sentence in err. */
static const struct fsc_source_config *pick_source(const struct fsc_config *cfg, const char *name,
                                                   char *err, size_t errlen)
{
    if (name) {
        const struct fsc_source_config *sc = fsc_config_source(cfg, name);
        if (sc)
            return sc;
        size_t w =
            (size_t)snprintf(err, errlen, "%s has no source named '%s' (sources:", cfg->file, name);
        for (size_t i = 0; i < cfg->n_sources && w < errlen; i++)
            w += (size_t)snprintf(err + w, errlen - w, " %s", cfg->sources[i].name);
        if (w < errlen)
            snprintf(err + w, errlen - w, "%s)", cfg->n_sources ? "" : " none");
        return NULL;
    }
    for (size_t i = 0; i < cfg->n_sources; i++)
        if (cfg->sources[i].enabled)
            return &cfg->sources[i];
    snprintf(err, errlen, "%s has no enabled source to probe", cfg->file);
    return NULL;
}

/* Waits until `seconds` have passed or SIGINT/SIGTERM came (blocked in set).
 * Returns the seconds waited. */
static double wait_run(const sigset_t *set, int seconds)
{
    int64_t t0 = fsc_mono_ns();
    int64_t end = t0 + (int64_t)seconds * 1000000000LL;
    for (;;) {
        int64_t now = fsc_mono_ns();
        if (now >= end)
            break;
        int64_t left = end - now;
        struct timespec ts = {(time_t)(left / 1000000000LL), (long)(left % 1000000000LL)};
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            fsc_log(FSC_LOG_INFO, "probe_interrupted", "signal=%s",
                    sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
    }
    return (double)(fsc_mono_ns() - t0) / 1e9;
}

struct probe_run {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct probe_tap *tap;
    struct fsc_source_env env;
    const struct fsc_source_ops *ops;
    void *ctx;
};

static void run_free(struct probe_run *r)
{
    if (r->ctx)
        r->ops->stop(r->ctx);
    fsc_engine_destroy(r->eng);
    fsc_registry_destroy(r->reg);
    probe_tap_destroy(r->tap);
}

/* Sets up registry, engine and taps for sc. Returns 0, or the exit status
 * with a sentence in err. */
static int run_prepare(struct probe_run *r, const struct fsc_config *cfg,
                       const struct fsc_source_config *sc, char *err, size_t errlen)
{
    r->ops = fsc_app_source_ops(sc->kind);
    if (!r->ops) {
        snprintf(err, errlen, "source %s: type %s is not built in this version", sc->name,
                 sc->kind->name);
        return EXIT_USAGE;
    }
    r->env.profiles = fsc_app_profiles();
    r->env.profile = fsc_profile_find(r->env.profiles, sc->profile);
    if (sc->profile && !r->env.profile) {
        snprintf(err, errlen, "source %s: unknown profile %s", sc->name, sc->profile);
        return EXIT_USAGE;
    }
    const struct fsc_engine_config *ec = fsc_engine_config_of(cfg);
    uint32_t limit = ec->max_series < PROBE_SERIES_MAX ? ec->max_series : PROBE_SERIES_MAX;
    r->reg = fsc_registry_create(limit);
    r->tap = probe_tap_create();
    if (!r->reg || !r->tap) {
        snprintf(err, errlen, "out of memory creating the registry");
        return EXIT_NOTHING;
    }
    struct fsc_engine_config pec = *ec;
    pec.max_series = limit;
    r->eng = fsc_engine_create(&pec, NULL, err, errlen); /* no bus: events only counted */
    if (!r->eng)
        return EXIT_NOTHING;
    struct fsc_engine_observer obs = {.on_samples = probe_tap_samples, .arg = r->tap};
    fsc_engine_set_observer(r->eng, &obs);
    int rc = fsc_registry_source_add(r->reg, sc->name, sc->max_series, &r->env.source_id);
    if (rc != 0) {
        snprintf(err, errlen, "source %s: cannot register: %s", sc->name, strerror(-rc));
        return EXIT_NOTHING;
    }
    r->env.reg = r->reg;
    r->env.eng = r->eng;
    r->env.topo = fsc_topology_of(cfg);
    r->env.shard_index = 0; /* a probe hears every device, whatever the shard */
    r->env.shard_count = 1;
    r->env.tap = &r->tap->source_tap;
    return 0;
}

int fsc_probe_main(int argc, char **argv)
{
    struct probe_opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    char err[1024];
    struct fsc_config *cfg = fsc_app_config_load(o.path, err, sizeof(err));
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    fsc_log_set_level(cfg->log_level);
    const struct fsc_source_config *sc = pick_source(cfg, o.source, err, sizeof(err));
    struct probe_run r;
    memset(&r, 0, sizeof(r));
    if (!sc || (rc = run_prepare(&r, cfg, sc, err, sizeof(err))) != 0) {
        fprintf(stderr, "fabricscope probe: %s\n", err);
        run_free(&r);
        fsc_config_destroy(cfg);
        return sc ? rc : EXIT_USAGE;
    }

    /* Before the source's threads: only sigtimedwait takes these. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    char serr[512];
    r.ctx = r.ops->start(sc, &r.env, serr, sizeof(serr));
    if (!r.ctx) {
        fprintf(stderr, "fabricscope probe: source %s (%s): %s\n", sc->name, sc->kind->name, serr);
        run_free(&r);
        fsc_config_destroy(cfg);
        return EXIT_NOTHING;
    }
    fsc_log(FSC_LOG_INFO, "probe_started", "source=%s type=%s profile=%s seconds=%d%s", sc->name,
            sc->kind->name, sc->profile ? sc->profile : "-", o.seconds,
            sc->enabled ? "" : " enabled=false");
    double waited = wait_run(&set, o.seconds);
    r.ops->stop(r.ctx); /* every source thread ends: the taps are quiet from here */
    r.ctx = NULL;

    const struct probe_report_info info = {
        .source = sc->name, .type = sc->kind->name, .profile = sc->profile, .seconds = waited};
    long long got = probe_report(r.tap, r.reg, &info, stdout, err, sizeof(err));
    if (got < 0)
        fprintf(stderr, "fabricscope probe: %s\n", err);
    else if (got == 0)
        fprintf(stderr,
                "fabricscope probe: nothing arrived from the device of source %s (%s) in %.1f s "
                "(the collector's own fabricscope_* statistics do not count)\n",
                sc->name, sc->kind->name, waited);
    run_free(&r);
    fsc_config_destroy(cfg);
    return got > 0 ? EXIT_OK : EXIT_NOTHING;
}
