/* gnmi_sim command line: parses the options into struct fsc_sim_config and
 * runs the server (gnmi_sim_server.c). Test tool: it prints to stdout/stderr
 * and exits, which library code never does. */
#include "demo/sim/gnmi_sim.h"

#include <grpc/grpc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gnmi_sim [options]\n"
            "A gNMI target playing a Juniper QFX5240 (Junos OS Evolved) for tests.\n"
            "  --os evo|junos          evo (default): Junos OS Evolved, queue peaks in\n"
            "                          max-queue-len, no qmon-sw; junos: Junos OS, adds the\n"
            "                          qmon-sw sensor\n"
            "  --zero-suppress         after the initial sync dump, leave out every leaf whose\n"
            "                          value is 0 (Junos default)\n"
            "  --listen HOST:PORT      address (default 127.0.0.1:0 = free port; prints\n"
            "                          'listening port=N' on stdout)\n"
            "  --targets N             N independent targets in this process (max 1024), one\n"
            "                          port each: PORT+k, or a free port each with PORT 0;\n"
            "                          prints 'listening port=P target=K system_id=S' per\n"
            "                          target; system_id S-K, utilization F + K x step\n"
            "  --utilization-step F    with --targets: target K runs at --utilization + K x F\n"
            "  --tls-cert F --tls-key F  serve TLS; --tls-ca F requires client certs (mTLS)\n"
            "  --username U --password P  required gRPC metadata, else UNAUTHENTICATED\n"
            "  --ports N               400G ports et-0/0/0.. (default 128, max 1024)\n"
            "  --queues N              queues per port, qos and qmon-sw (default 4, max 8)\n"
            "  --packet-size B         bytes per packet (default 4096)\n"
            "  --interval D            SAMPLE interval when the request gives 0 (default 1s)\n"
            "  --min-interval D        reject faster intervals with InvalidArgument (default 1ms)\n"
            "  --jitter F              payload timestamp jitter, +-F of the interval (default 0)\n"
            "  --batch-copy D          export the counter copy taken every D (Junos: 2s)\n"
            "  --copy-phase D          the copies D after the start (default 0: at it)\n"
            "  --junos-cadence         Junos reporting: intervals rounded up to 2 s, N ports\n"
            "                          per interval (--batch-ports, default 10), eom per\n"
            "                          batch, 2 s counter copies\n"
            "  --batch-ports N         ports per interval with --junos-cadence\n"
            "  --utilization F         0..1 of line rate on every port (default 0.3)\n"
            "  --burst-port K --burst-every D --burst-length D  line-rate bursts on port K\n"
            "  --burst-queue Q         the burst fills queue Q's peak alone (default:\n"
            "                          every queue, --burst-peak >> queue)\n"
            "  --burst-peak B          peak bytes (max-queue-len, qmon peak) of an interval\n"
            "                          holding a burst (default 12000000)\n"
            "  --reset-after D         counters restart from 0 every D (new creation ts)\n"
            "  --stall-after D         per stream: stop sending after D, keep it open\n"
            "  --disconnect-after D    per stream: cancel it (UNAVAILABLE) after D\n"
            "  --garbage-every N       every Nth message of a stream is undecodable (random\n"
            "                          bytes, a CapabilityResponse, a truncated update in turn)\n"
            "  --speedup N             send N times as often as subscribed\n"
            "  --close-after-sync      end each call (status OK) right after its sync_response\n"
            "  --fault-for D           the three faults above only for D after the first\n"
            "                          Subscribe that streams\n"
            "  --clock-ahead D         every time sent is D ahead of the host's clock\n"
            "  --duration D            exit after D (default 30s)\n"
            "  --seed N                jitter random seed (default 1)\n"
            "  --system-id S           Junos header system_id\n"
            "  --verbose               log calls on stderr\n"
            "Durations: N[ms|s|m] (bare N = seconds).\n");
}

/* Parses "100ms", "2s", "1m", "3" (seconds) into ms; -1 on error. */
static int64_t parse_ms(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    if (*end == '\0' || strcmp(end, "s") == 0)
        return (int64_t)(v * 1000.0 + 0.5);
    if (strcmp(end, "ms") == 0)
        return (int64_t)(v + 0.5);
    if (strcmp(end, "m") == 0)
        return (int64_t)(v * 60000.0 + 0.5);
    return -1;
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_frac(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || v < 0 || v > 1)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct fsc_sim_config *cfg)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--verbose") == 0) {
            cfg->verbose = 1;
            continue;
        }
        if (strcmp(a, "--junos-cadence") == 0) {
            cfg->junos_cadence = 1;
            continue;
        }
        if (strcmp(a, "--close-after-sync") == 0) {
            cfg->close_after_sync = 1;
            continue;
        }
        if (strcmp(a, "--zero-suppress") == 0) {
            cfg->zero_suppress = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gnmi_sim: %s needs a value (or is unknown)\n", a);
            return -1;
        }
        const char *v = argv[++i];
        int bad = 0;
        uint32_t u;
        if (strcmp(a, "--listen") == 0) {
            cfg->listen = v;
        } else if (strcmp(a, "--tls-cert") == 0) {
            cfg->tls_cert = v;
        } else if (strcmp(a, "--tls-key") == 0) {
            cfg->tls_key = v;
        } else if (strcmp(a, "--tls-ca") == 0) {
            cfg->tls_ca = v;
        } else if (strcmp(a, "--username") == 0) {
            cfg->username = v;
        } else if (strcmp(a, "--password") == 0) {
            cfg->password = v;
        } else if (strcmp(a, "--system-id") == 0) {
            cfg->system_id = v;
        } else if (strcmp(a, "--os") == 0) {
            bad = strcmp(v, "evo") != 0 && strcmp(v, "junos") != 0;
            cfg->junos_os = strcmp(v, "junos") == 0;
        } else if (strcmp(a, "--ports") == 0) {
            bad = parse_u32(v, 1, FSC_SIM_MAX_PORTS, &cfg->ports);
        } else if (strcmp(a, "--queues") == 0) {
            bad = parse_u32(v, 0, FSC_SIM_MAX_QUEUES, &cfg->queues);
        } else if (strcmp(a, "--packet-size") == 0) {
            bad = parse_u32(v, 64, 65536, &cfg->packet_size);
        } else if (strcmp(a, "--targets") == 0) {
            bad = parse_u32(v, 1, FSC_SIM_MAX_TARGETS, &cfg->targets);
        } else if (strcmp(a, "--utilization-step") == 0) {
            bad = parse_frac(v, &cfg->utilization_step);
        } else if (strcmp(a, "--batch-ports") == 0) {
            bad = parse_u32(v, 1, FSC_SIM_MAX_PORTS, &cfg->batch_ports);
        } else if (strcmp(a, "--garbage-every") == 0) {
            bad = parse_u32(v, 1, 1000000, &cfg->garbage_every);
        } else if (strcmp(a, "--speedup") == 0) {
            bad = parse_u32(v, 1, 1000, &cfg->speedup);
        } else if (strcmp(a, "--burst-port") == 0) {
            bad = parse_u32(v, 0, FSC_SIM_MAX_PORTS - 1, &u);
            cfg->burst_port = (int32_t)u;
        } else if (strcmp(a, "--burst-queue") == 0) {
            bad = parse_u32(v, 0, FSC_SIM_MAX_QUEUES - 1, &u);
            cfg->burst_queue = (int32_t)u;
        } else if (strcmp(a, "--burst-peak") == 0) {
            char *end; /* qmon's peak-buffer-occupancy-bytes is a uint32 on Junos OS */
            unsigned long long b = strtoull(v, &end, 10);
            bad = end == v || *end != '\0' || b > UINT32_MAX;
            cfg->burst_peak_bytes = b;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            cfg->seed = strtoull(v, &end, 10);
            bad = end == v || *end != '\0';
        } else if (strcmp(a, "--jitter") == 0) {
            bad = parse_frac(v, &cfg->jitter);
        } else if (strcmp(a, "--utilization") == 0) {
            bad = parse_frac(v, &cfg->utilization);
        } else {
            static const struct {
                const char *name;
                size_t off;
            } durs[] = {
                {"--interval", offsetof(struct fsc_sim_config, interval_ms)},
                {"--min-interval", offsetof(struct fsc_sim_config, min_interval_ms)},
                {"--batch-copy", offsetof(struct fsc_sim_config, batch_copy_ms)},
                {"--copy-phase", offsetof(struct fsc_sim_config, batch_copy_phase_ms)},
                {"--burst-every", offsetof(struct fsc_sim_config, burst_every_ms)},
                {"--burst-length", offsetof(struct fsc_sim_config, burst_length_ms)},
                {"--reset-after", offsetof(struct fsc_sim_config, reset_after_ms)},
                {"--stall-after", offsetof(struct fsc_sim_config, stall_after_ms)},
                {"--disconnect-after", offsetof(struct fsc_sim_config, disconnect_after_ms)},
                {"--fault-for", offsetof(struct fsc_sim_config, fault_for_ms)},
                {"--duration", offsetof(struct fsc_sim_config, duration_ms)},
                {"--clock-ahead", offsetof(struct fsc_sim_config, clock_ahead_ms)},
            };
            size_t k;
            for (k = 0; k < sizeof(durs) / sizeof(durs[0]); k++) {
                if (strcmp(a, durs[k].name) == 0)
                    break;
            }
            if (k == sizeof(durs) / sizeof(durs[0])) {
                fprintf(stderr, "gnmi_sim: unknown option %s (see --help)\n", a);
                return -1;
            }
            int64_t ms = parse_ms(v);
            bad = ms < 0;
            if (!bad)
                *(int64_t *)(void *)((char *)cfg + durs[k].off) = ms;
        }
        if (bad) {
            fprintf(stderr, "gnmi_sim: bad value for %s: %s\n", a, v);
            return -1;
        }
    }
    if (cfg->junos_cadence) {
        if (cfg->batch_ports == 0)
            cfg->batch_ports = 10; /* Juniper's example: 10 interface records per interval */
        if (cfg->batch_copy_ms == 0)
            cfg->batch_copy_ms = 2000;
    } else if (cfg->batch_ports != 0) {
        fprintf(stderr, "gnmi_sim: --batch-ports needs --junos-cadence\n");
        return -1;
    }
    if (cfg->utilization + (double)(cfg->targets - 1) * cfg->utilization_step > 1.0) {
        fprintf(stderr, "gnmi_sim: --utilization + (targets-1) x --utilization-step is above 1\n");
        return -1;
    }
    if (cfg->interval_ms <= 0 || cfg->duration_ms <= 0) {
        fprintf(stderr, "gnmi_sim: --interval and --duration must be > 0\n");
        return -1;
    }
    if ((uint32_t)cfg->burst_port >= cfg->ports && cfg->burst_port >= 0) {
        fprintf(stderr, "gnmi_sim: --burst-port is not below --ports\n");
        return -1;
    }
    if (cfg->burst_queue >= 0 && (uint32_t)cfg->burst_queue >= cfg->queues) {
        fprintf(stderr, "gnmi_sim: --burst-queue is not below --queues\n");
        return -1;
    }
    if (!cfg->tls_cert && (cfg->tls_key || cfg->tls_ca)) {
        fprintf(stderr, "gnmi_sim: --tls-key / --tls-ca need --tls-cert\n");
        return -1;
    }
    return 0;
}

/* SIGTERM / SIGINT end the run through the normal shutdown path, so tests
 * that stop the simulator by PID still get a clean exit (and the sanitizer's
 * leak check). A signal flag is the one place a file-level mutable is due. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int main(int argc, char **argv)
{
    struct fsc_sim_config cfg;
    fsc_sim_config_defaults(&cfg);
    if (parse_args(argc, argv, &cfg) != 0)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    cfg.stop = &stop_requested;
    grpc_init();
    char err[256] = "";
    int rc = fsc_sim_run(&cfg, err, sizeof(err));
    grpc_shutdown();
    if (rc != 0) {
        fprintf(stderr, "gnmi_sim: %s\n", err);
        return 1;
    }
    return 0;
}
