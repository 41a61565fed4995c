/* The files the demo's collector runs from (demo_int.h): the cluster's
 * cables.txt (the 4-node full mesh of examples/b300/cables.txt) and the
 * collector config, both in the state directory, so `fabricscope
 * check-config` and `fabricscope plan -c` work on them while the demo runs.
 *
 * The config is plain text written here rather than built in memory: what
 * the demo runs is exactly what a user reads in the file, and it goes
 * through the same loader and validation as any other config. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "demo/demo_int.h"

/* The example mesh: every node uses its 8 ports for 3 peers (3 + 3 + 2
 * cables); each cable joins the same port number on both nodes. */
static const char cables_txt[] =
    "# Cable plan of the demo's 4-node switchless DGX B300 mesh, written by\n"
    "# `fabricscope demo` (the same mesh as examples/b300/cables.txt).\n"
    "# One line per cable: A-P > B-Q = node A physical port P to node B port Q.\n"
    "1-1 > 2-1\n3-1 > 4-1\n"
    "1-2 > 3-2\n2-2 > 4-2\n"
    "1-3 > 4-3\n2-3 > 3-3\n"
    "1-4 > 2-4\n3-4 > 4-4\n"
    "1-5 > 3-5\n2-5 > 4-5\n"
    "1-6 > 4-6\n2-6 > 3-6\n"
    "1-7 > 2-7\n3-7 > 4-7\n"
    "1-8 > 3-8\n2-8 > 4-8\n";

/* What the technicians really plugged (DEMO_F_SWAP): the same cables, but
 * b300-04's ends of `3-4 > 4-4` and `2-5 > 4-5` exchanged. The fixture
 * derives from it which port each interface's traffic and ARP requests
 * reach; the collector never sees it (it only knows the plan). */
const char demo_cables_built_txt[] = "1-1 > 2-1\n3-1 > 4-1\n"
                                     "1-2 > 3-2\n2-2 > 4-2\n"
                                     "1-3 > 4-3\n2-3 > 3-3\n"
                                     "1-4 > 2-4\n3-4 > 4-5\n"
                                     "1-5 > 3-5\n2-5 > 4-4\n"
                                     "1-6 > 4-6\n2-6 > 3-6\n"
                                     "1-7 > 2-7\n3-7 > 4-7\n"
                                     "1-8 > 3-8\n2-8 > 4-8\n";

/* A YAML double-quoted scalar (paths may hold anything). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static void write_leaf(FILE *f, const struct demo_run *run, unsigned i)
{
    /* Both leaves as a QFX5240 (Junos OS Evolved) is subscribed: every
     * stream on the 2 s grid Junos reports on (the profile's default grid;
     * nothing finer asked), the queue peaks in the queues stream
     * (max-queue-len), FEC words and port speeds in links. */
    fprintf(f,
            "  - name: %s\n"
            "    type: gnmi\n"
            "    address: \"127.0.0.1:%u\"\n"
            "    os: evo\n"
            "    streams:\n"
            "      - {name: interfaces, paths: [/interfaces/interface/state/counters], "
            "sample_interval: 2s}\n"
            "      - name: queues\n"
            "        paths: [/qos/interfaces/interface/output/queues/queue/state]\n"
            "        sample_interval: 2s\n"
            "      - name: rest\n"
            "        paths: [/interfaces/interface/ethernet/state/counters,\n"
            "                /junos/system/linecard/interface/]\n"
            "        sample_interval: %s\n"
            "      - name: links\n"
            "        paths: [/state/interfaces/interface/ethernet/counters,\n"
            "                /interfaces/interface/ethernet/state/port-speed,\n"
            "                /interfaces/interface/ethernet/state/negotiated-port-speed,\n"
            "                /interfaces/interface/state/high-speed]\n"
            "        sample_interval: 10s\n"
            "    stall_intervals: 3\n"
            "    connect_timeout: 2s\n"
            "    backoff: {initial: 200ms, max: 2s}\n",
            demo_leaf_names[i], (unsigned)run->leaf_port[i], i == 0 ? "10s" : "2s");
}

static void write_sources(FILE *f, const struct demo_run *run)
{
    fputs("sources:\n", f);
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        write_leaf(f, run, i);
    fprintf(f,
            "  # The spine pushes OTLP/gRPC here (device label: its host.name).\n"
            "  - name: spines\n"
            "    type: otlp\n"
            "    grpc_listen: \"127.0.0.1:%u\"\n"
            "    http_listen: \"\"\n",
            (unsigned)run->otlp_port);
    for (unsigned n = 0; n < DEMO_NODES; n++) {
        fprintf(f,
                "  - name: %s\n"
                "    type: nic\n"
                "    sysfs_root: ",
                demo_node_names[n]);
        put_quoted(f, run->node_root[n]);
        fprintf(f,
                "\n"
                "    fixture: true\n"
                "    interval: 100ms\n"
                "    # no SIOCETHTOOL: the tree's ethtool/<netdev> files stand in\n"
                "    ethtool: false\n"
                "    node: %u\n",
                n + 1);
    }
}

static void write_topology(FILE *f)
{
    fputs("topology:\n  devices:\n", f);
    for (unsigned i = 0; i < DEMO_LEAVES; i++) {
        fprintf(f,
                "    - name: %s\n"
                "      role: leaf\n"
                "      buffer: 165MiB\n"
                "      ports:\n",
                demo_leaf_names[i]);
        for (unsigned p = 0; p < DEMO_LEAF_PORTS; p++) {
            if (p < DEMO_LEAF_PORTS - 2)
                fprintf(f, "        - {name: et-0/0/%u, speed: 400G, role: downlink}\n", p);
            else
                fprintf(f,
                        "        - {name: et-0/0/%u, speed: 400G, role: uplink, "
                        "peer: \"%s:swp%u\"}\n",
                        p, DEMO_SPINE_NAME, 2 * i + (p - (DEMO_LEAF_PORTS - 2)) + 1);
        }
    }
    fprintf(f,
            "    - name: %s\n"
            "      role: spine\n"
            "      buffer: 64MiB\n"
            "      ports:\n",
            DEMO_SPINE_NAME);
    for (unsigned p = 1; p <= DEMO_SPINE_PORTS; p++)
        fprintf(f, "        - {name: swp%u, speed: 400G, role: downlink}\n", p);
    for (unsigned n = 0; n < DEMO_NODES; n++)
        fprintf(f, "    - {name: %s, role: host}\n", demo_node_names[n]);
    fputs("  port_groups:\n", f);
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        fprintf(f, "    - {name: %s-uplinks, members: [\"%s:et-0/0/%u\", \"%s:et-0/0/%u\"]}\n",
                demo_leaf_names[i], demo_leaf_names[i], DEMO_LEAF_PORTS - 2, demo_leaf_names[i],
                DEMO_LEAF_PORTS - 1);
    fputs("  cable_plan:\n"
          "    file: cables.txt\n"
          "    nodes:\n",
          f);
    for (unsigned n = 0; n < DEMO_NODES; n++)
        fprintf(f, "      - {node: %u, device: %s}\n", n + 1, demo_node_names[n]);
}

static int write_file(const char *path, const char *what, int (*body)(FILE *, const void *),
                      const void *arg, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write the %s %s: %s", what, path, strerror(errno));
        return -1;
    }
    int rc = body(f, arg);
    if (fclose(f) != 0 || rc != 0) {
        snprintf(err, errlen, "cannot write the %s %s: %s", what, path, strerror(errno));
        return -1;
    }
    return 0;
}

static int cables_body(FILE *f, const void *arg)
{
    (void)arg;
    return fputs(cables_txt, f) < 0 ? -1 : 0;
}

static int config_body(FILE *f, const void *arg)
{
    const struct demo_run *run = arg;
    fputs("# The collector config of `fabricscope demo` (docs/DEMO.md), generated at start.\n"
          "# Two QFX5240 leaves over gNMI, one SN4700 spine over OTLP, a 4-node\n"
          "# switchless DGX B300 mesh from sysfs fixture trees; every key is in\n"
          "# docs/CONFIG.md. Run it yourself (while the demo's simulators run) with\n"
          "# `fabricscope run -c` on a copy whose listen ports you change.\n"
          "log:\n"
          "  level: info\n"
          "# The collector's own state: the rollups `fabricscope report` reads, kept\n"
          "# after the demo (in --state-dir, else in the XDG state home).\n"
          "state_dir: ",
          f);
    put_quoted(f, run->rollup_dir);
    fputc('\n', f);
    write_sources(f, run);
    fputs("exporters:\n  prometheus:\n    listen: ", f);
    char listen[DEMO_HOST + 16];
    bool v6 = strchr(run->prom_host, ':') != NULL && run->prom_host[0] != '[';
    snprintf(listen, sizeof(listen), v6 ? "[%s]:%u" : "%s:%u", run->prom_host,
             (unsigned)run->prom_port);
    put_quoted(f, listen);
    fputc('\n', f);
    write_topology(f);
    return ferror(f) ? -1 : 0;
}

int demo_config_write(const struct demo_run *run, char *err, size_t errlen)
{
    if (write_file(run->cables_path, "cable plan", cables_body, NULL, err, errlen) != 0)
        return -1;
    return write_file(run->config_path, "config", config_body, run, err, errlen);
}
