/* fabricscope: command-line entry point.
 *
 * Commands: run, check-config, probe, plan, report, demo, version, help. Exit codes: 0 success,
 * 1 runtime failure, 2 usage or configuration error. This is the only file
 * that calls exit()/returns process status; everything below returns errors. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "daemon/daemon.h"
#include "base/build_info.h"
#include "base/closest.h"
#include "base/log.h"
#include "daemon/plugins.h"
#include "commands/check_config.h"
#include "commands/probe.h"
#include "daemon/run_listen.h"
#include "model/shard.h"
#include "demo/demo.h"
#include "model/cable_plan.h"
#include "commands/report.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static const char usage_main[] =
    "Usage: fabricscope COMMAND [OPTIONS]\n"
    "\n"
    "Switch-fabric telemetry collector: gNMI (Junos), OTLP (Cumulus) and NIC\n"
    "(ConnectX) counters turned into jitter-proof rates, microburst / CNP / PFC /\n"
    "reorder / imbalance detection, exported to Prometheus and Kafka.\n"
    "\n"
    "Commands:\n"
    "  demo                  run a simulated fabric and the collector against it\n"
    "  run -c FILE           run the collector with configuration FILE\n"
    "  check-config FILE     validate FILE and the files it names; print the effective\n"
    "                        configuration\n"
    "  probe -c FILE         start one source of FILE for a few seconds and print what\n"
    "                        arrives as canonical series, mapped and unmapped names\n"
    "  plan CABLES_FILE      the B300 cable plan: print its ip commands and expected map\n"
    "                        (--dry-run, the default), or --apply one node's on this host\n"
    "  report [OPTIONS]      write a capacity-planning report (HTML, CSV, JSON)\n"
    "  version               print the version and the commit it was built from\n"
    "  help [COMMAND]        show help for COMMAND\n"
    "\n"
    "Options:\n"
    "  -h, --help            show this help (COMMAND --help for a command)\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage or configuration error.\n"
    "Configuration reference: docs/CONFIG.md.\n";

static const char usage_run[] =
    "Usage: fabricscope run -c FILE [--listen HOST:PORT] [--shard I/N] [--log-level LEVEL]\n"
    "\n"
    "Runs the collector until SIGINT or SIGTERM: loads and validates FILE, starts the\n"
    "configured sources, feeds the rate engine and detectors, and logs every event\n"
    "(one key=value line per event on stderr).\n"
    "\n"
    "SIGHUP reloads FILE: sources added, removed or changed are started, stopped or\n"
    "restarted, the others keep running untouched; a FILE with an error is logged\n"
    "(FILE:LINE:COLUMN) and the running configuration stays. Changes to exporters,\n"
    "engine, topology, state_dir and rollup need a restart (logged).\n"
    "SIGTERM or SIGINT stops every source and exporter and exits with status 0.\n"
    "\n"
    "Options:\n"
    "  -c, --config FILE     configuration file (YAML, see docs/CONFIG.md); required\n"
    "  --listen HOST:PORT    where the Prometheus exporter (/metrics, /-/healthy, /-/ready)\n"
    "                        and the status page listen: overrides exporters.prometheus.listen\n"
    "                        in FILE (default 0.0.0.0:9464), also across reloads. IPv6 in\n"
    "                        brackets ([::1]:9464); port 0 picks a free one (logged)\n"
    "  --shard I/N           take shard I of N (0 <= I < N): only the gnmi, synthetic\n"
    "                        and replay sources and OTLP devices whose name hashes to I\n"
    "                        (md5, like Prometheus' hashmod); nic sources always run.\n"
    "                        Overrides shard: in FILE, also across reloads\n"
    "  --log-level LEVEL     error, warn, info or debug; overrides log.level in FILE\n"
    "  -h, --help            show this help\n";

static const char usage_version[] =
    "Usage: fabricscope version\n\nPrints the version and the commit it was built from\n"
    "(\"-dirty\": with uncommitted changes; \"unknown\": built outside a git checkout).\n";

static int is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/* Prints "fabricscope: <what> '<arg>'" and the command's usage; returns 2. */
static int usage_error(const char *usage, const char *what, const char *arg)
{
    if (arg)
        fprintf(stderr, "fabricscope: %s '%s'\n\n%s", what, arg, usage);
    else
        fprintf(stderr, "fabricscope: %s\n\n%s", what, usage);
    return EXIT_USAGE;
}

static int cmd_version(int argc, char **argv)
{
    if (argc > 1 && is_help(argv[1])) {
        fputs(usage_version, stdout);
        return EXIT_OK;
    }
    if (argc > 1)
        return usage_error(usage_version, "unexpected argument", argv[1]);
    printf("fabricscope %s (commit %s)\n", FSC_VERSION, fsc_build_commit);
    return EXIT_OK;
}

static int cmd_check_config(int argc, char **argv)
{
    return fsc_check_config_main(argc, argv, fsc_app_schema());
}

/* The report reads a config with this build's schema (for its topology). */
static int report_main(int argc, char **argv)
{
    return fsc_report_main(argc, argv, fsc_app_schema());
}

static int cmd_run(int argc, char **argv)
{
    const char *path = NULL;
    const char *level_arg = NULL;
    const char *shard_arg = NULL;
    const char *listen_arg = NULL;
    char err[1024];

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage_run, stdout);
            return EXIT_OK;
        } else if (strcmp(argv[i], "--shard") == 0) {
            if (++i >= argc)
                return usage_error(usage_run, "missing I/N after", argv[i - 1]);
            shard_arg = argv[i];
        } else if (strncmp(argv[i], "--shard=", 8) == 0) {
            shard_arg = argv[i] + 8;
        } else if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0) {
            if (++i >= argc)
                return usage_error(usage_run, "missing FILE after", argv[i - 1]);
            path = argv[i];
        } else if (strncmp(argv[i], "--config=", 9) == 0) {
            path = argv[i] + 9;
        } else if (strcmp(argv[i], "--listen") == 0) {
            if (++i >= argc)
                return usage_error(usage_run, "missing HOST:PORT after", argv[i - 1]);
            listen_arg = argv[i];
        } else if (strncmp(argv[i], "--listen=", 9) == 0) {
            listen_arg = argv[i] + 9;
        } else if (strcmp(argv[i], "--log-level") == 0) {
            if (++i >= argc)
                return usage_error(usage_run, "missing LEVEL after", argv[i - 1]);
            level_arg = argv[i];
        } else {
            return usage_error(usage_run, "unexpected argument", argv[i]);
        }
    }
    if (!path)
        return usage_error(usage_run, "missing -c FILE", NULL);

    enum fsc_log_level level;
    if (level_arg && fsc_log_level_parse(level_arg, &level) != 0)
        return usage_error(usage_run, "unknown log level", level_arg);
    uint32_t shard_index = 0, shard_count = 1;
    if (shard_arg && fsc_shard_parse(shard_arg, &shard_index, &shard_count) != 0)
        return usage_error(usage_run, "--shard wants I/N with 0 <= I < N <= 4096, not", shard_arg);
    if (listen_arg && !fsc_config_listen_valid(listen_arg))
        return usage_error(usage_run, "--listen wants HOST:PORT (127.0.0.1:9464, [::1]:9464), not",
                           listen_arg);

    struct fsc_config *cfg = fsc_app_config_load(path, err, sizeof(err));
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    if (listen_arg && fsc_run_listen_apply(cfg, listen_arg, err, sizeof(err)) != 0) {
        fprintf(stderr, "fabricscope: %s\n", err);
        fsc_config_destroy(cfg);
        return EXIT_USAGE;
    }
    fsc_log_set_level(level_arg ? level : cfg->log_level);
    const char *const *warnings;
    size_t n_warnings = fsc_config_warnings(cfg, &warnings);
    for (size_t i = 0; i < n_warnings; i++) {
        char q[800];
        fsc_log(FSC_LOG_WARN, "config_warning", "text=%s",
                fsc_log_quote(warnings[i], q, sizeof(q)));
    }
    if (shard_arg) {
        struct fsc_shard_config *sh = fsc_config_section_mut(cfg, &fsc_shard_kind);
        sh->index = shard_index;
        sh->count = shard_count;
        sh->from_cli = true;
    }

    int rc = fsc_daemon_run(cfg, path, err, sizeof(err));
    fsc_config_destroy(cfg);
    if (rc != 0) {
        fsc_log(FSC_LOG_ERROR, "exit", "reason=\"%s\"", err);
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static int cmd_help(int argc, char **argv);

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
} commands[] = {
    {"run", cmd_run, usage_run},
    {"check-config", cmd_check_config, fsc_check_config_usage},
    {"plan", fsc_plan_main, fsc_plan_usage},
    {"report", report_main, fsc_report_usage},
    {"demo", fsc_demo_main, fsc_demo_usage},
    {"probe", fsc_probe_main, fsc_probe_usage},
    {"version", cmd_version, usage_version},
    {"help", cmd_help, usage_main},
};

static const struct command *command_find(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* An unknown command: one line naming it, the closest command when one is
 * close ("did you mean"), and where the list is; not the whole help. */
static int unknown_command(const char *name)
{
    const char *names[sizeof(commands) / sizeof(commands[0])];
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        names[i] = commands[i].name;
    const char *guess = fsc_closest_name(name, names, sizeof(names) / sizeof(names[0]));
    if (guess)
        fprintf(stderr, "fabricscope: unknown command '%s' (did you mean '%s'?)\n", name, guess);
    else
        fprintf(stderr, "fabricscope: unknown command '%s'\n", name);
    fprintf(stderr, "Run 'fabricscope help' for the list of commands.\n");
    return EXIT_USAGE;
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    const struct command *cmd = command_find(argv[1]);
    if (!cmd)
        return unknown_command(argv[1]);
    fputs(cmd->usage, stdout);
    return EXIT_OK;
}

/* Defined in the file scripts/build_commit.cmake generates at build time. */
extern const char fsc_build_commit_text[];

/* glibc gives each thread that allocates an arena of its own, up to 8 per
 * core; the daemon's thirty-odd threads (eight gNMI workers among them) then
 * spread the same working set over as many heaps: `bench/soak.sh build 60`
 * grew 25 -> 87 MiB and still climbed, against 25 -> 42 MiB and flat with
 * one arena per core (2). Contention needs no more arenas than cores. An
 * operator's MALLOC_ARENA_MAX wins. */
static void limit_malloc_arenas(void)
{
#ifdef M_ARENA_MAX
    if (getenv("MALLOC_ARENA_MAX"))
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    (void)mallopt(M_ARENA_MAX, cores > 2 ? (int)(cores < 64 ? cores : 64) : 2);
#endif
}

int main(int argc, char **argv)
{
    fsc_build_commit = fsc_build_commit_text;
    limit_malloc_arenas();
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    if (is_help(argv[1])) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0)
        return cmd_version(1, argv + 1);
    const struct command *cmd = command_find(argv[1]);
    if (!cmd)
        return unknown_command(argv[1]);
    return cmd->fn(argc - 1, argv + 1);
}
