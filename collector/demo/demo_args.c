/* The command line of `fabricscope demo` (demo.h): its usage text and the
 * parser that turns it into struct demo_opts, ports resolved. Every sentence
 * of the usage text says what the code does (docs/DEMO.md says it at
 * length). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "demo/demo.h"
#include "demo/demo_int.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2 };

#define DEFAULT_LISTEN "127.0.0.1:9464"

const char fsc_demo_usage[] =
    "Usage: fabricscope demo [--duration D] [--port-base N] [--listen HOST:PORT]\n"
    "                        [--gnmi-ports P1,P2] [--otlp-port P] [--state-dir DIR]\n"
    "                        [--seed N]\n"
    "\n"
    "Runs a simulated fabric and the real collector against it, in this process, on\n"
    "loopback: two QFX5240 leaves over gNMI (Junos-style 2 s batched reports, one\n"
    "with timestamp jitter), one SN4700 spine over OTLP/gRPC, and a four-node\n"
    "switchless DGX B300 mesh from sysfs fixture trees, with a fixed schedule of\n"
    "injected faults: from the start a PCIe link trained at Gen5 x8 and two swapped\n"
    "cables (8 interfaces reach a wrong peer); then every 30 s an ECN storm on the\n"
    "spine, a CNP storm on a B300 port, a 2 s line-rate burst on a loaded spine port,\n"
    "a reordering burst on a B300 port, a 300 ms line-rate microburst from one B300\n"
    "port to another, and a 300 ms microburst on a leaf port, which the leaf shows as\n"
    "a queue peak (docs/DEMO.md). Prints the status page and /metrics URLs and the\n"
    "schedule; the event log (event=detect lines) is on stderr. Runs until Ctrl-C\n"
    "(SIGINT) or SIGTERM, or for D.\n"
    "\n"
    "Options:\n"
    "  --duration D          stop after D (\"60s\", \"2m\", or seconds: \"60\")\n"
    "  --port-base N         every port from N: the status page on 127.0.0.1:N, the\n"
    "                        leaves' gNMI targets on N+1 and N+2, the OTLP receiver\n"
    "                        on N+3; each option below wins for its own port\n"
    "  --listen HOST:PORT    status page and /metrics (default 127.0.0.1:9464; port 0\n"
    "                        picks a free one, named in the exporter_started log line)\n"
    "  --gnmi-ports P1,P2    the two leaves' gNMI targets on 127.0.0.1:P1 and :P2\n"
    "                        (default: free ports, printed in the banner)\n"
    "  --otlp-port P         the collector's OTLP/gRPC receiver on 127.0.0.1:P, where the\n"
    "                        spine posts (default: a free port)\n"
    "                        A fixed port in use stops the demo before anything starts,\n"
    "                        with exit status 1 and the port named\n"
    "  --state-dir DIR       where the generated config, cables.txt, the B300 trees\n"
    "                        and the collector's rollups go; at exit only the trees\n"
    "                        are removed. Default: a temporary directory, removed at\n"
    "                        exit, and the rollups in $XDG_STATE_HOME/fabricscope-demo\n"
    "                        (else ~/.local/state/fabricscope-demo), kept for\n"
    "                        `fabricscope report --state-dir`\n"
    "  --seed N              traffic rates and jitter (default 1); the faults are fixed\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 after a clean stop, 1 when something could not start, 2 usage error.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "fabricscope: %s%s%s%s\n\n%s", what, arg ? " '" : "", arg ? arg : "",
            arg ? "'" : "", fsc_demo_usage);
    return EXIT_USAGE;
}

static int parse_duration(const char *s, int64_t *ns)
{
    char *end;
    unsigned long long secs = strtoull(s, &end, 10);
    if (end != s && *end == '\0' && secs > 0 && secs < 100ULL * 365 * 24 * 3600) {
        *ns = (int64_t)secs * DEMO_S;
        return 0;
    }
    return fsc_duration_parse(s, ns) == 0 && *ns > 0 ? 0 : -1;
}

/* A TCP port lo..65535 from [s, end). */
static int parse_port(const char *s, const char *end, unsigned long lo, uint16_t *port)
{
    unsigned long p = 0;
    if (s == end || end - s > 5)
        return -1;
    for (const char *c = s; c < end; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        p = p * 10 + (unsigned long)(*c - '0');
    }
    if (p < lo || p > 65535)
        return -1;
    *port = (uint16_t)p;
    return 0;
}

/* --gnmi-ports P1,P2: one port per leaf, distinct. */
static int parse_gnmi_ports(const char *s, uint16_t port[DEMO_LEAVES])
{
    const char *comma = strchr(s, ',');
    if (!comma || parse_port(s, comma, 1, &port[0]) != 0 ||
        parse_port(comma + 1, comma + 1 + strlen(comma + 1), 1, &port[1]) != 0 ||
        port[0] == port[1])
        return -1;
    return 0;
}

/* Splits HOST:PORT ("[::1]:9464" keeps its brackets in host). */
static int parse_listen(const char *s, char *host, size_t hostlen, uint16_t *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= hostlen)
        return -1;
    if (parse_port(colon + 1, colon + 1 + strlen(colon + 1), 0, port) != 0)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    if (strchr(host, ':') && host[0] != '[')
        return -1; /* a bare IPv6 address needs brackets */
    return 0;
}

static bool is_option(const char *a)
{
    static const char *const opts[] = {"--duration",   "--listen",    "--state-dir", "--seed",
                                       "--gnmi-ports", "--otlp-port", "--port-base"};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (strcmp(a, opts[i]) == 0)
            return true;
    return false;
}

/* Ports --port-base N gives where no option of their own did. */
static void apply_base(struct demo_opts *o, bool listen_set, bool gnmi_set, bool otlp_set)
{
    if (!o->port_base)
        return;
    if (!listen_set) {
        snprintf(o->listen_buf, sizeof(o->listen_buf), "127.0.0.1:%u", (unsigned)o->port_base);
        o->listen = o->listen_buf;
        o->listen_opt = "--port-base";
    }
    if (!gnmi_set) {
        for (unsigned i = 0; i < DEMO_LEAVES; i++)
            o->gnmi_port[i] = (uint16_t)(o->port_base + 1 + i);
        o->gnmi_opt = "--port-base";
    }
    if (!otlp_set) {
        o->otlp_port = (uint16_t)(o->port_base + 1 + DEMO_LEAVES);
        o->otlp_opt = "--port-base";
    }
}

int demo_args_parse(int argc, char **argv, struct demo_opts *o, char *host, size_t hostlen,
                    uint16_t *port, int *help)
{
    bool listen_set = false, gnmi_set = false, otlp_set = false;
    o->listen = DEFAULT_LISTEN;
    o->listen_opt = "--listen";
    o->gnmi_opt = "--gnmi-ports";
    o->otlp_opt = "--otlp-port";
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            return EXIT_OK;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!is_option(a))
            return usage_error("unexpected argument", a);
        if (!v)
            return usage_error("missing value after", a);
        i++;
        if (strcmp(a, "--duration") == 0) {
            if (parse_duration(v, &o->duration_ns) != 0)
                return usage_error("--duration is not a positive duration:", v);
        } else if (strcmp(a, "--listen") == 0) {
            o->listen = v;
            listen_set = true;
        } else if (strcmp(a, "--state-dir") == 0) {
            o->state_dir = v;
        } else if (strcmp(a, "--gnmi-ports") == 0) {
            if (parse_gnmi_ports(v, o->gnmi_port) != 0)
                return usage_error("--gnmi-ports wants two distinct ports P1,P2 (1..65535):", v);
            gnmi_set = true;
        } else if (strcmp(a, "--otlp-port") == 0) {
            if (parse_port(v, v + strlen(v), 1, &o->otlp_port) != 0)
                return usage_error("--otlp-port wants a port 1..65535:", v);
            otlp_set = true;
        } else if (strcmp(a, "--port-base") == 0) {
            if (parse_port(v, v + strlen(v), 1, &o->port_base) != 0 ||
                o->port_base > 65535 - 1 - DEMO_LEAVES)
                return usage_error("--port-base wants a port 1..65532 (it uses N to N+3):", v);
        } else {
            char *end;
            o->seed = strtoull(v, &end, 10);
            if (end == v || *end != '\0')
                return usage_error("--seed is not a number:", v);
        }
    }
    apply_base(o, listen_set, gnmi_set, otlp_set);
    if (parse_listen(o->listen, host, hostlen, port) != 0)
        return usage_error("--listen is not HOST:PORT:", o->listen);
    /* The leaves and the receiver all listen on 127.0.0.1: one port each. */
    uint16_t fixed[DEMO_LEAVES + 2] = {o->gnmi_port[0], o->gnmi_port[1], o->otlp_port, *port};
    for (unsigned i = 0; i < DEMO_LEAVES + 2; i++) {
        for (unsigned j = i + 1; j < DEMO_LEAVES + 2; j++) {
            if (fixed[i] && fixed[i] == fixed[j]) {
                char p[8];
                snprintf(p, sizeof(p), "%u", (unsigned)fixed[i]);
                return usage_error("--port-base, --listen, --gnmi-ports and --otlp-port name "
                                   "one port twice:",
                                   p);
            }
        }
    }
    return EXIT_OK;
}
