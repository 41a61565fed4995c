/* Configuration loader, the accepting side: the examples load, defaults are
 * filled, printing redacts secrets and round-trips, topology lookups, value
 * syntax, optional sections and relative paths, the synthetic source. Every
 * error-text case lives in config_errors_test.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_fixture.h"
#include "config/config.h"
#include "test.h"
#include "config_all.h"

#define SEC 1000000000ll
#define MS  1000000ll

/* The printed config as a heap string (caller frees). */
static char *print_str(const struct fsc_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    CHECK_INT(fsc_config_print(cfg, f), 0);
    fclose(f);
    return buf;
}

static struct fsc_config *load_example(const char *rel)
{
    char path[1024], err[512];
    struct fsc_config *cfg =
        fsc_app_config_load(repo_file(rel, path, sizeof(path)), err, sizeof(err));
    if (cfg == NULL)
        fprintf(stderr, "load %s: %s\n", rel, err);
    return cfg;
}

/* ---- examples ------------------------------------------------------------ */

static void example_loads(void)
{
    struct fsc_config *cfg = load_example("examples/fabric.yaml");
    CHECK(cfg != NULL);
    if (cfg == NULL)
        return;
    CHECK_INT(cfg->log_level, FSC_LOG_INFO);
    CHECK_INT(cfg->n_sources, 4);
    const char *const *warnings;
    CHECK_INT(fsc_config_warnings(cfg, &warnings), 0); /* the example is on the Junos grid */

    const struct fsc_source_config *leaf1 = fsc_config_source(cfg, "leaf1");
    CHECK(leaf1 != NULL && leaf1->kind == &fsc_gnmi_kind);
    if (leaf1 != NULL) {
        const struct fsc_gnmi_config *g = fsc_gnmi_config_of(leaf1);
        CHECK_STR(g->address, "10.0.0.11:32767");
        CHECK_STR(g->device, "leaf1");
        CHECK(g->tls.present && g->tls.enabled);
        CHECK_STR(g->tls.server_name, "leaf1.fabric.example");
        CHECK_STR(g->username, "telemetry");
        /* password_file: secrets/gnmi-password, beside the example */
        CHECK_STR(g->password.value, "change-me");
        CHECK(g->password.file != NULL && g->password.file[0] == '/');
        CHECK(g->password.file != NULL &&
              strstr(g->password.file, "examples/secrets/gnmi-password") != NULL);
        CHECK_INT(g->os, FSC_GNMI_OS_EVO);
        CHECK_INT(g->n_streams, 5);
        CHECK_STR(g->streams[1].name, "queues");
        CHECK_INT(g->streams[1].n_paths, 1); /* no qmon-sw on Junos OS Evolved */
        CHECK_STR(g->streams[3].name, "links");
        CHECK_INT(g->streams[3].n_paths, 4);
        CHECK_STR(g->streams[3].paths[3], "/interfaces/interface/state/high-speed");
        CHECK_INT(g->streams[0].sample_interval_ns, 2 * SEC); /* inherited */
        CHECK_INT(g->streams[2].sample_interval_ns, 10 * SEC);
        CHECK_INT(g->streams[4].mode, FSC_GNMI_ON_CHANGE);
        CHECK_INT(g->streams[4].sample_interval_ns, 0);
        CHECK_INT(g->backoff.max_ns, 60 * SEC);
    }
    const struct fsc_source_config *spines = fsc_config_source(cfg, "spines");
    CHECK(spines != NULL && spines->kind == &fsc_otlp_kind);
    if (spines != NULL) {
        CHECK_STR(fsc_otlp_config_of(spines)->grpc_listen, "0.0.0.0:8443");
        CHECK_INT(fsc_otlp_config_of(spines)->max_body, 4 << 20);
        CHECK_INT(spines->max_series, 200000);
        CHECK_STR(spines->profile, "cumulus");
    }
    const struct fsc_source_config *b300 = fsc_config_source(cfg, "b300-01");
    CHECK(b300 != NULL && b300->kind == &fsc_nic_kind);
    if (b300 != NULL) {
        CHECK(fsc_nic_config_of(b300)->auto_devices);
        CHECK_INT(fsc_nic_config_of(b300)->node, 1);
        CHECK_INT(fsc_nic_config_of(b300)->interval_ns, 100 * MS);
    }
    CHECK(fsc_config_source(cfg, "leaf3") == NULL);

    const struct fsc_kafka_config *k = fsc_kafka_config_of(cfg);
    CHECK(k->present && k->enabled);
    CHECK_INT(k->n_brokers, 3);
    CHECK_STR(k->brokers[2], "kafka-3.example:9093");
    CHECK_INT(k->compression, FSC_KAFKA_ZSTD);
    CHECK_INT(k->batch_size, 1000000);
    CHECK_INT(k->spool_max, 1ll << 30);
    CHECK_INT(k->sasl.mechanism, FSC_SASL_SCRAM_SHA_512);
    CHECK_STR(k->sasl.password.value, "change-me");
    const struct fsc_remote_write_config *rw = fsc_remote_write_config_of(cfg);
    CHECK(rw->present && rw->basic_auth.present);
    CHECK_STR(rw->basic_auth.password.value, "change-me");
    CHECK_INT(rw->n_headers, 1);
    CHECK_STR(rw->headers[0].name, "X-Scope-OrgID");
    CHECK_STR(rw->headers[0].value, "gpu-fabric");

    CHECK_INT(fsc_engine_config_of(cfg)->rate.n_windows, 3);
    CHECK_INT(fsc_engine_config_of(cfg)->rate.window_ns[2], 60 * SEC);
    CHECK_INT(fsc_engine_config_of(cfg)->imbalance.level, 1); /* window: 10s */

    CHECK_INT(fsc_topology_of(cfg)->rails, 2);
    CHECK_INT(fsc_topology_of(cfg)->n_devices, 6);
    CHECK_INT(fsc_topology_of(cfg)->n_groups, 3);
    CHECK_INT(fsc_topology_of(cfg)->groups[2].n_members, 16);
    CHECK(fsc_topology_of(cfg)->cable_plan.present);
    CHECK_INT(fsc_topology_of(cfg)->cable_plan.n_nodes, 2);
    fsc_config_destroy(cfg);

    cfg = load_example("examples/minimal.yaml");
    CHECK(cfg != NULL);
    fsc_config_destroy(cfg);
}

/* ---- defaults ------------------------------------------------------------ */

static void defaults_filled(void)
{
    char err[512];
    struct fsc_config *cfg = parse("sources:\n"
                                   "  - {name: leaf1, type: gnmi, address: \"leaf1:50051\"}\n"
                                   "  - {name: spines, type: otlp}\n"
                                   "  - {name: host1, type: nic}\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(cfg->log_level, FSC_LOG_INFO);
    const struct fsc_source_config *s = &cfg->sources[0];
    CHECK(s->enabled);
    CHECK_INT(s->max_series, 100000);
    CHECK_STR(s->profile, "junos");
    CHECK_STR(fsc_gnmi_config_of(s)->device, "leaf1");
    CHECK(!fsc_gnmi_config_of(s)->tls.present && !fsc_gnmi_config_of(s)->tls.enabled);
    CHECK(fsc_gnmi_config_of(s)->username == NULL && fsc_gnmi_config_of(s)->password.value == NULL);
    CHECK_INT(fsc_gnmi_config_of(s)->encoding, FSC_GNMI_PROTO);
    CHECK_INT(fsc_gnmi_config_of(s)->sample_interval_ns, 2 * SEC);
    CHECK_INT(fsc_gnmi_config_of(s)->stall_intervals, 3);
    CHECK_INT(fsc_gnmi_config_of(s)->keepalive_ns, 30 * SEC);
    CHECK_INT(fsc_gnmi_config_of(s)->connect_timeout_ns, 10 * SEC);
    CHECK_INT(fsc_gnmi_config_of(s)->backoff.initial_ns, 1 * SEC);
    CHECK_INT(fsc_gnmi_config_of(s)->backoff.max_ns, 60 * SEC);
    CHECK_INT(fsc_gnmi_config_of(s)->os, FSC_GNMI_OS_EVO); /* the QFX5240 */
    CHECK_INT(fsc_gnmi_config_of(s)->n_streams, 4);        /* the built-in plan */
    CHECK_STR(fsc_gnmi_config_of(s)->streams[0].name, "interfaces");
    CHECK_STR(fsc_gnmi_config_of(s)->streams[0].paths[0], "/interfaces/interface/state/counters");
    CHECK_STR(fsc_gnmi_config_of(s)->streams[1].name, "queues");
    CHECK_STR(fsc_gnmi_config_of(s)->streams[2].name, "rest");
    CHECK_INT(fsc_gnmi_config_of(s)->streams[2].sample_interval_ns, 2 * SEC);
    CHECK_STR(fsc_gnmi_config_of(s)->streams[3].name, "links");

    s = &cfg->sources[1];
    CHECK_STR(s->profile, "cumulus");
    CHECK_STR(fsc_otlp_config_of(s)->grpc_listen, "0.0.0.0:4317");
    CHECK_STR(fsc_otlp_config_of(s)->http_listen, "0.0.0.0:4318");
    CHECK_INT(fsc_otlp_config_of(s)->max_body, 4 << 20);
    CHECK_INT(fsc_otlp_config_of(s)->max_decompressed, 32 << 20);
    CHECK_STR(fsc_otlp_config_of(s)->device_attribute, "host.name");

    s = &cfg->sources[2];
    CHECK_STR(s->profile, "mlx5");
    CHECK_STR(fsc_nic_config_of(s)->device, "host1");
    CHECK_STR(fsc_nic_config_of(s)->sysfs_root, "/");
    CHECK_INT(fsc_nic_config_of(s)->interval_ns, 100 * MS);
    CHECK(fsc_nic_config_of(s)->auto_devices && fsc_nic_config_of(s)->ethtool &&
          fsc_nic_config_of(s)->pcie);
    CHECK(fsc_nic_config_of(s)->cable_plan == NULL);
    CHECK_INT(fsc_nic_config_of(s)->node, 0);

    const struct fsc_prometheus_config *p = fsc_prometheus_config_of(cfg);
    CHECK(p->present && p->enabled);
    CHECK_STR(p->listen, "0.0.0.0:9464");
    CHECK_INT(p->stale_after_ns, 300 * SEC);
    CHECK_INT(p->max_series, 2000000);
    CHECK(!fsc_kafka_config_of(cfg)->present && !fsc_kafka_config_of(cfg)->enabled);
    CHECK(!fsc_remote_write_config_of(cfg)->present && !fsc_remote_write_config_of(cfg)->enabled);

    struct fsc_engine_config def;
    fsc_engine_config_defaults(&def);
    CHECK(memcmp(&def, fsc_engine_config_of(cfg), sizeof(def)) == 0);
    CHECK_INT(fsc_topology_of(cfg)->n_devices, 0);
    CHECK(!fsc_topology_of(cfg)->cable_plan.present);
    fsc_config_destroy(cfg);

    /* Exporter defaults once a section is present. */
    cfg = parse("sources: [{name: s, type: otlp}]\n"
                "exporters:\n"
                "  prometheus: {enabled: false}\n"
                "  kafka: {brokers: [\"k:9092\"]}\n"
                "  remote_write:\n"
                "    url: http://vm:8428/api/v1/write\n",
                err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(!fsc_prometheus_config_of(cfg)->enabled);
    const struct fsc_kafka_config *k = fsc_kafka_config_of(cfg);
    CHECK(k->present && k->enabled);
    CHECK_STR(k->client_id, "fabricscope");
    CHECK_STR(k->events_topic, "fabric.events");
    CHECK_STR(k->samples_topic, "");
    CHECK_INT(k->compression, FSC_KAFKA_LZ4);
    CHECK_INT(k->linger_ns, 5 * MS);
    CHECK_INT(k->queue_max, 100000);
    CHECK_STR(k->spool_dir, "");
    CHECK_INT(k->spool_max, 1ll << 30);
    CHECK(!k->sasl.present && !k->tls.present);
    const struct fsc_remote_write_config *rw = fsc_remote_write_config_of(cfg);
    CHECK(rw->enabled);
    CHECK_INT(rw->interval_ns, 10 * SEC);
    CHECK_INT(rw->timeout_ns, 10 * SEC);
    CHECK_INT(rw->max_samples_per_send, 2000);
    CHECK_INT(rw->queue_max, 500000);
    CHECK(rw->bearer_token.value == NULL && rw->n_headers == 0);
    fsc_config_destroy(cfg);
}

/* ---- secrets --------------------------------------------------------------- */

static void secret_from_env_and_file_never_printed(void)
{
    char path[] = "/tmp/fsc_config_test_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    const char content[] = "s3cr3t-from-file\n";
    CHECK_INT(write(fd, content, sizeof(content) - 1), (long long)sizeof(content) - 1);
    close(fd);
    setenv("FSC_TEST_KAFKA_PW", "s3cr3t-from-env", 1);

    char text[2048], err[512];
    snprintf(text, sizeof(text),
             "sources:\n"
             "  - name: leaf1\n"
             "    type: gnmi\n"
             "    address: \"10.0.0.1:50051\"\n"
             "    username: telemetry\n"
             "    password_file: %s\n"
             "  - name: leaf2\n"
             "    type: gnmi\n"
             "    address: \"10.0.0.2:50051\"\n"
             "    username: telemetry\n"
             "    password: s3cr3t-inline\n"
             "exporters:\n"
             "  kafka:\n"
             "    brokers: [\"k1:9092\"]\n"
             "    sasl: {username: fsc, password_env: FSC_TEST_KAFKA_PW}\n"
             "  remote_write:\n"
             "    url: https://m/api/v1/push\n"
             "    bearer_token_file: %s\n",
             path, path);
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        CHECK_STR(fsc_gnmi_config_of(&cfg->sources[0])->password.value,
                  "s3cr3t-from-file"); /* newline cut */
        CHECK_STR(fsc_gnmi_config_of(&cfg->sources[0])->password.file, path);
        CHECK_STR(fsc_gnmi_config_of(&cfg->sources[1])->password.value, "s3cr3t-inline");
        CHECK_STR(fsc_kafka_config_of(cfg)->sasl.password.value, "s3cr3t-from-env");
        CHECK_STR(fsc_kafka_config_of(cfg)->sasl.password.env, "FSC_TEST_KAFKA_PW");
        CHECK_STR(fsc_remote_write_config_of(cfg)->bearer_token.value, "s3cr3t-from-file");
        char *out = print_str(cfg);
        CHECK(out != NULL);
        if (out != NULL) {
            char want[512];
            CHECK(strstr(out, "s3cr3t") == NULL);
            snprintf(want, sizeof(want), "    password_file: %s\n", path);
            CHECK(strstr(out, want) != NULL);
            CHECK(strstr(out, "    password: <redacted>\n") != NULL);
            CHECK(strstr(out, "      password_env: FSC_TEST_KAFKA_PW\n") != NULL);
            snprintf(want, sizeof(want), "    bearer_token_file: %s\n", path);
            CHECK(strstr(out, want) != NULL);
            free(out);
        }
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);

    /* Errors never quote a secret: not in type errors, not when an inline
     * secret precedes an unrelated error. */
    cfg = parse("sources:\n"
                "  - name: leaf1\n"
                "    type: gnmi\n"
                "    address: \"10.0.0.1:50051\"\n"
                "    username: u\n"
                "    password: [s3cr3t-in-a-list]\n",
                err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, "t.yaml:6:15: sources[0].password: expected a string, got a list");
    cfg = parse("sources:\n"
                "  - name: leaf1\n"
                "    type: gnmi\n"
                "    address: \"10.0.0.1:50051\"\n"
                "    username: u\n"
                "    password: s3cr3t-inline\n"
                "    password_env: FSC_TEST_KAFKA_PW\n",
                err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK(strstr(err, "s3cr3t") == NULL);
    CHECK_STR(err, "t.yaml:7:19: sources[0].password_env: give only one of password, "
                   "password_file and password_env");
    unlink(path);
}

/* ---- round trip ------------------------------------------------------------ */

static void roundtrip_one(const struct fsc_config *cfg)
{
    char err[512];
    char *a = print_str(cfg);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    struct fsc_config *again = parse(a, err, sizeof(err));
    CHECK(again != NULL);
    if (again == NULL) {
        fprintf(stderr, "reparse: %s\n", err);
    } else {
        char *b = print_str(again);
        CHECK(b != NULL && strcmp(a, b) == 0);
        if (b != NULL && strcmp(a, b) != 0)
            fprintf(stderr, "first print:\n%s\nsecond print:\n%s\n", a, b);
        free(b);
        /* Typed fields, not just text, survive. */
        CHECK_INT(again->n_sources, cfg->n_sources);
        CHECK(memcmp(fsc_engine_config_of(again), fsc_engine_config_of(cfg),
                     sizeof(struct fsc_engine_config)) == 0);
        CHECK_INT(fsc_topology_of(again)->n_devices, fsc_topology_of(cfg)->n_devices);
    }
    fsc_config_destroy(again);
    free(a);
}

static void roundtrip_print_parse(void)
{
    struct fsc_config *cfg = load_example("examples/fabric.yaml");
    CHECK(cfg != NULL);
    if (cfg != NULL)
        roundtrip_one(cfg);
    fsc_config_destroy(cfg);
    cfg = load_example("examples/minimal.yaml");
    CHECK(cfg != NULL);
    if (cfg != NULL)
        roundtrip_one(cfg);
    fsc_config_destroy(cfg);

    /* Odd values: quoting, fractions, sizes that are not powers of two. */
    char err[512];
    cfg = parse("sources:\n"
                "  - {name: s, type: otlp, device_attribute: \"a: b \\\"q\\\" #x\", "
                "max_body: 1500000}\n"
                "engine:\n"
                "  windows: [100ms, 1m30s]\n"
                "  microburst: {rise: 0.333333333333, fall: 0.1}\n"
                "topology:\n"
                "  devices: [{name: h, role: host, ports: [{name: \"et-0/0/1:2\", speed: "
                "2.5G}]}]\n",
                err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        CHECK_STR(fsc_otlp_config_of(&cfg->sources[0])->device_attribute, "a: b \"q\" #x");
        CHECK_INT(fsc_topology_of(cfg)->devices[0].ports[0].speed_bps, 2500000000ll);
        CHECK_INT(fsc_engine_config_of(cfg)->rate.window_ns[1], 90 * SEC);
        roundtrip_one(cfg);
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);
}

/* ---- topology -------------------------------------------------------------- */

static void topology_lookup(void)
{
    struct fsc_config *cfg = load_example("examples/fabric.yaml");
    CHECK(cfg != NULL);
    if (cfg == NULL)
        return;
    const struct fsc_topology *topo = fsc_topology_of(cfg);
    const struct fsc_topo_device *dev = NULL;
    const struct fsc_topo_port *port = fsc_topology_port(topo, "leaf1", "et-0/0/32", &dev);
    CHECK(port != NULL && dev != NULL);
    if (port != NULL && dev != NULL) {
        CHECK_STR(dev->name, "leaf1");
        CHECK_INT(dev->role, FSC_DEVICE_LEAF);
        CHECK_INT(dev->buffer_bytes, 165ll << 20);
        CHECK_INT(port->speed_bps, 400000000000ll);
        CHECK_INT(port->role, FSC_PORT_UPLINK);
        CHECK_INT(port->rail, 0);
        CHECK_STR(port->peer, "spine1:swp1");
        CHECK_STR(port->peer_device, "spine1");
        CHECK_STR(port->peer_port, "swp1");
    }
    /* The spine side named no peer: filled in from the leaf. */
    port = fsc_topology_port_ref(topo, "spine2:swp2", &dev);
    CHECK(port != NULL);
    if (port != NULL) {
        CHECK_STR(port->peer, "leaf2:et-0/0/33");
        CHECK_INT(port->rail, FSC_RAIL_NONE);
        CHECK_STR(dev->name, "spine2");
    }
    port = fsc_topology_port(topo, "leaf2", "et-0/0/0", NULL);
    CHECK(port != NULL && port->rail == 1 && port->role == FSC_PORT_DOWNLINK);
    port = fsc_topology_port(topo, "b300-01", "ens8f1np1", NULL);
    CHECK(port != NULL && port->role == FSC_PORT_NIC && port->peer == NULL);
    CHECK(fsc_topology_port(topo, "leaf1", "et-0/0/99", NULL) == NULL);
    CHECK(fsc_topology_port(topo, "leaf9", "et-0/0/0", NULL) == NULL);
    CHECK(fsc_topology_port_ref(topo, "no-colon", NULL) == NULL);

    dev = fsc_topology_device(topo, "spine1");
    CHECK(dev != NULL && dev->role == FSC_DEVICE_SPINE && dev->n_ports == 2);
    CHECK(fsc_topology_device(topo, "spine3") == NULL);

    const struct fsc_topo_group *grp = fsc_topology_group(topo, "leaf2-uplinks");
    CHECK(grp != NULL);
    if (grp != NULL) {
        CHECK_INT(grp - topo->groups, 1);
        CHECK_INT(grp->n_members, 2);
        port = fsc_topology_member(topo, &grp->members[1], &dev);
        CHECK_STR(dev->name, "leaf2");
        CHECK_STR(port->name, "et-0/0/33");
    }
    CHECK(fsc_topology_group(topo, "nope") == NULL);
    CHECK_STR(fsc_device_role_name(FSC_DEVICE_HOST), "host");
    CHECK_STR(fsc_port_role_name(FSC_PORT_DOWNLINK), "downlink");
    fsc_config_destroy(cfg);

    /* Many entries: 300 devices x 48 ports, every one found by hash. */
    size_t cap = 1 << 20, o = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    o += (size_t)snprintf(text + o, cap - o,
                          "sources: [{name: s, type: otlp}]\ntopology:\n  devices:\n");
    for (int d = 0; d < 300; d++) {
        o += (size_t)snprintf(text + o, cap - o,
                              "    - name: sw%03d\n      role: leaf\n"
                              "      ports:\n",
                              d);
        for (int p = 0; p < 48; p++)
            o += (size_t)snprintf(text + o, cap - o, "        - {name: swp%d, speed: %dG}\n", p + 1,
                                  100 + p);
    }
    char err[512];
    cfg = fsc_config_parse(text, o, "big.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        int found = 0;
        for (int d = 0; d < 300; d++) {
            for (int p = 0; p < 48; p++) {
                char dn[16], pn[16];
                snprintf(dn, sizeof(dn), "sw%03d", d);
                snprintf(pn, sizeof(pn), "swp%d", p + 1);
                port = fsc_topology_port(fsc_topology_of(cfg), dn, pn, &dev);
                found += port != NULL && port->speed_bps == (uint64_t)(100 + p) * 1000000000ull &&
                         strcmp(dev->name, dn) == 0;
            }
        }
        CHECK_INT(found, 300 * 48);
        CHECK(fsc_topology_port(fsc_topology_of(cfg), "sw000", "swp49", NULL) == NULL);
        CHECK(fsc_topology_device(fsc_topology_of(cfg), "sw299") ==
              &fsc_topology_of(cfg)->devices[299]);
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);
    free(text);
}

/* ---- value syntax (known answers) ------------------------------------------ */

static void value_syntax(void)
{
    static const struct {
        const char *s;
        long long ns;
    } durs[] = {{"100ms", 100 * MS}, {"2s", 2 * SEC},     {"1m", 60 * SEC}, {"500us", 500000},
                {"1h", 3600 * SEC},  {"1m30s", 90 * SEC}, {"7ns", 7},       {"0s", 0}};
    for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
        int64_t ns = -1;
        CHECK_INT(fsc_duration_parse(durs[i].s, &ns), 0);
        CHECK_INT(ns, durs[i].ns);
    }
    static const char *const bad_durs[] = {"", "2", "2x", "s", "-1s", "1.5s", "99999999999h"};
    for (size_t i = 0; i < sizeof(bad_durs) / sizeof(bad_durs[0]); i++) {
        int64_t ns;
        CHECK_INT(fsc_duration_parse(bad_durs[i], &ns), -EINVAL);
    }
    char buf[32];
    CHECK_STR(fsc_duration_format(90 * SEC, buf, sizeof(buf)), "90s");
    CHECK_STR(fsc_duration_format(60 * SEC, buf, sizeof(buf)), "1m");
    CHECK_STR(fsc_duration_format(1500 * MS, buf, sizeof(buf)), "1500ms");
    CHECK_STR(fsc_duration_format(0, buf, sizeof(buf)), "0s");

    uint64_t v = 0;
    CHECK_INT(fsc_size_parse("64MiB", &v), 0);
    CHECK_INT(v, 64ll << 20);
    CHECK_INT(fsc_size_parse("1GB", &v), 0);
    CHECK_INT(v, 1000000000ll);
    CHECK_INT(fsc_size_parse("1.5KiB", &v), 0);
    CHECK_INT(v, 1536);
    CHECK_INT(fsc_size_parse("4096", &v), 0);
    CHECK_INT(v, 4096);
    CHECK_INT(fsc_size_parse("4M", &v), -EINVAL);
    CHECK_INT(fsc_size_parse("1.0001KB", &v), -EINVAL); /* not whole bytes */
    CHECK_STR(fsc_size_format(4u << 20, buf, sizeof(buf)), "4MiB");
    CHECK_STR(fsc_size_format(1000000, buf, sizeof(buf)), "1MB");
    CHECK_STR(fsc_size_format(1500, buf, sizeof(buf)), "1500");
    CHECK_STR(fsc_size_format(1501, buf, sizeof(buf)), "1501");

    CHECK_INT(fsc_speed_parse("400G", &v), 0);
    CHECK_INT(v, 400000000000ll);
    CHECK_INT(fsc_speed_parse("400Gbps", &v), 0);
    CHECK_INT(v, 400000000000ll);
    CHECK_INT(fsc_speed_parse("400000000000", &v), 0);
    CHECK_INT(v, 400000000000ll);
    CHECK_INT(fsc_speed_parse("2.5G", &v), 0);
    CHECK_INT(v, 2500000000ll);
    CHECK_INT(fsc_speed_parse("800Gb", &v), -EINVAL);
    CHECK_INT(fsc_speed_parse("G", &v), -EINVAL);
    CHECK_STR(fsc_speed_format(800000000000ull, buf, sizeof(buf)), "800G");
    CHECK_STR(fsc_speed_format(2500000000ull, buf, sizeof(buf)), "2500M");

    /* Integers accept '_' separators; quoted numbers are numbers too. */
    char err[512];
    struct fsc_config *cfg = parse("sources: [{name: s, type: otlp, max_series: 1_000_000}]\n"
                                   "engine: {max_series: \"5000\"}\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        CHECK_INT(cfg->sources[0].max_series, 1000000);
        CHECK_INT(fsc_engine_config_of(cfg)->max_series, 5000);
    }
    fsc_config_destroy(cfg);
}

/* ---- optional sections, paths, synthetic source ------------------------- */

/* Sources are optional; relative file paths are relative to the config's
 * directory and become absolute; URLs and gNMI paths are not paths. */
static void optional_sources_and_paths(void)
{
    char err[512];
    const char *text = "log: {level: warn}\n";
    struct fsc_config *cfg =
        fsc_config_parse(text, strlen(text), "/etc/fsc/f.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        CHECK_INT(cfg->n_sources, 0);
        CHECK_INT(cfg->log_level, FSC_LOG_WARN);
        CHECK_STR(cfg->dir, "/etc/fsc");
        char *out = print_str(cfg);
        CHECK(out != NULL && strstr(out, "\nsources: []\n") != NULL);
        free(out);
        roundtrip_one(cfg);
    }
    fsc_config_destroy(cfg);

    text = "sources:\n"
           "  - name: leaf1\n"
           "    type: gnmi\n"
           "    address: \"a:1\"\n"
           "    tls: {ca_file: ca.pem, cert_file: ./certs/c.pem, key_file: /abs/k.pem}\n"
           "    streams: [{name: s, paths: [/interfaces]}]\n"
           "  - {name: h, type: nic, sysfs_root: fixtures/sys, cable_plan: cables.txt, node: 2}\n"
           "exporters:\n"
           "  kafka: {brokers: [\"k:1\"], spool_dir: spool}\n"
           "  remote_write: {url: \"http://vm:8428/api/v1/write\"}\n"
           "topology:\n"
           "  cable_plan: {file: ../cables.txt}\n";
    cfg =
        fsc_config_parse(text, strlen(text), "/etc/fsc/f.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        const struct fsc_gnmi_config *g = fsc_gnmi_config_of(&cfg->sources[0]);
        CHECK_STR(g->tls.ca_file, "/etc/fsc/ca.pem");
        CHECK_STR(g->tls.cert_file, "/etc/fsc/certs/c.pem");
        CHECK_STR(g->tls.key_file, "/abs/k.pem");
        CHECK_STR(g->streams[0].paths[0], "/interfaces");
        CHECK_STR(fsc_nic_config_of(&cfg->sources[1])->sysfs_root, "/etc/fsc/fixtures/sys");
        CHECK_STR(fsc_nic_config_of(&cfg->sources[1])->cable_plan, "/etc/fsc/cables.txt");
        CHECK_STR(fsc_kafka_config_of(cfg)->spool_dir, "/etc/fsc/spool");
        CHECK_STR(fsc_remote_write_config_of(cfg)->url, "http://vm:8428/api/v1/write");
        CHECK_STR(fsc_topology_of(cfg)->cable_plan.file, "/etc/fsc/../cables.txt");
        roundtrip_one(cfg);
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);

    /* A bare file name: the working directory. */
    char cwd[1024], want[1100];
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    text = "sources: [{name: h, type: nic, sysfs_root: sys}]\n";
    cfg = fsc_config_parse(text, strlen(text), "f.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        CHECK_STR(cfg->dir, cwd);
        snprintf(want, sizeof(want), "%s/sys", cwd);
        CHECK_STR(fsc_nic_config_of(&cfg->sources[0])->sysfs_root, want);
    }
    fsc_config_destroy(cfg);
}

/* The built-in generator (collector/sources/synth) and profile names. */
static void synthetic_and_profiles(void)
{
    char err[512];
    struct fsc_config *cfg = parse("sources:\n"
                                   "  - {name: demo, type: synthetic}\n"
                                   "  - {name: fast, type: synthetic, ports: 2, speed: 100G,\n"
                                   "     interval: 10ms, burst_every: 0s, storm_every: 0s}\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL) {
        const struct fsc_source_config *s = &cfg->sources[0];
        CHECK(s->kind == &fsc_synthetic_kind);
        CHECK_STR(s->kind->name, "synthetic");
        CHECK(s->profile == NULL);
        CHECK_STR(fsc_synthetic_config_of(s)->device, "demo");
        CHECK_INT(fsc_synthetic_config_of(s)->ports, 8);
        CHECK_INT(fsc_synthetic_config_of(s)->speed_bps, 400000000000ll);
        CHECK_INT(fsc_synthetic_config_of(s)->interval_ns, 100 * MS);
        CHECK_NEAR(fsc_synthetic_config_of(s)->utilization, 0.3, 0);
        CHECK_INT(fsc_synthetic_config_of(s)->burst_every_ns, 10 * SEC);
        CHECK_INT(fsc_synthetic_config_of(s)->burst_length_ns, 100 * MS);
        CHECK_INT(fsc_synthetic_config_of(s)->storm_every_ns, 30 * SEC);
        CHECK_INT(fsc_synthetic_config_of(s)->seed, 1);
        s = &cfg->sources[1];
        CHECK_INT(fsc_synthetic_config_of(s)->ports, 2);
        CHECK_INT(fsc_synthetic_config_of(s)->speed_bps, 100000000000ll);
        CHECK_INT(fsc_synthetic_config_of(s)->interval_ns, 10 * MS);
        CHECK_INT(fsc_synthetic_config_of(s)->burst_every_ns, 0);
        CHECK_INT(fsc_synthetic_config_of(s)->storm_every_ns, 0);
        roundtrip_one(cfg);
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);
    expect_error("sources: [{name: d, type: synthetic, storm_every: 3s}]\n",
                 "t.yaml:1:38: sources[0].storm_every: must be longer than the 5s storm it "
                 "starts (or 0s for no storms)");
    expect_error("sources: [{name: d, type: synthetic, utilization: 0.9}]\n",
                 "t.yaml:1:51: sources[0].utilization: \"0.9\" is out of range (0.0..0.8)");
    expect_error("sources: [{name: l, type: gnmi, address: \"a:1\", profile: junox}]\n",
                 "t.yaml:1:58: sources[0].profile: \"junox\" is not a built-in profile (junos, "
                 "cumulus, mlx5; did you mean \"junos\"?)");
}

/* ---- gnmi: the Junos 2 s interval grid ------------------------------------ */

/* Junos reports on multiples of 2 s: 100ms (source) and 3s (stream) are
 * rounded up to 2 s and 4 s, each warned about at its value's position; a
 * multiple (10s) is left alone and silent; sample_interval_grid: none keeps
 * 100ms without a word; the effective printout shows the rounded values. */
static void gnmi_interval_grid_warns(void)
{
    char err[512];
    const char *text = "sources:\n"
                       "  - name: leaf1\n"
                       "    type: gnmi\n"
                       "    address: \"leaf1:50051\"\n"
                       "    sample_interval: 100ms\n"
                       "    streams:\n"
                       "      - {name: a, paths: [/a]}\n"
                       "      - {name: b, paths: [/b], sample_interval: 3s}\n"
                       "      - {name: c, paths: [/c], sample_interval: 10s}\n"
                       "  - {name: sim, type: gnmi, address: \"sim:1\", sample_interval: 100ms,\n"
                       "     sample_interval_grid: none}\n";
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const struct fsc_gnmi_config *g = fsc_gnmi_config_of(&cfg->sources[0]);
    CHECK_INT(g->interval_grid_ns, 2 * SEC);
    CHECK_INT(g->sample_interval_ns, 2 * SEC);
    CHECK_INT(g->streams[0].sample_interval_ns, 2 * SEC);
    CHECK_INT(g->streams[1].sample_interval_ns, 4 * SEC);
    CHECK_INT(g->streams[2].sample_interval_ns, 10 * SEC);
    const struct fsc_gnmi_config *sim = fsc_gnmi_config_of(&cfg->sources[1]);
    CHECK_INT(sim->interval_grid_ns, 0);
    CHECK_INT(sim->sample_interval_ns, 100 * MS);
    CHECK_INT(sim->streams[0].sample_interval_ns, 100 * MS);
    const char *const *w;
    CHECK_INT(fsc_config_warnings(cfg, &w), 2);
    if (fsc_config_warnings(cfg, &w) == 2) {
        CHECK_STR(w[0], "t.yaml:5:22: sources[0].sample_interval: warning: Junos reports only on "
                        "multiples of 2 s (Juniper, \"Guidelines for Specifying Data Reporting "
                        "Intervals\"): \"100ms\" is subscribed as 2s; sample_interval_grid: none "
                        "keeps it (a target that is not Junos)");
        CHECK_STR(w[1], "t.yaml:8:49: sources[0].streams[1].sample_interval: warning: Junos "
                        "reports only on multiples of 2 s (Juniper, \"Guidelines for Specifying "
                        "Data Reporting Intervals\"): \"3s\" is subscribed as 4s; "
                        "sample_interval_grid: none keeps it (a target that is not Junos)");
    }
    /* The printout loads back to the same intervals, without a warning. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(fsc_config_print(cfg, f), 0);
        fclose(f);
        struct fsc_config *again = parse(buf, err, sizeof(err));
        CHECK(again != NULL);
        if (again) {
            CHECK_INT(fsc_config_warnings(again, &w), 0);
            CHECK_INT(fsc_gnmi_config_of(&again->sources[0])->streams[1].sample_interval_ns,
                      4 * SEC);
            CHECK_INT(fsc_gnmi_config_of(&again->sources[1])->sample_interval_ns, 100 * MS);
        }
        fsc_config_destroy(again);
    }
    free(buf);
    fsc_config_destroy(cfg);
}

/* The listen-address rules `run --listen` shares with the loader. */
static void listen_address_rules(void)
{
    static const char *const good[] = {"127.0.0.1:9464", "[::1]:9464", "0.0.0.0:0", "host-1:65535",
                                       "[fe80::1%eth0]:1"};
    static const char *const bad[] = {"",
                                      "nope",
                                      "127.0.0.1",
                                      ":9464",
                                      "::1:9464",
                                      "127.0.0.1:65536",
                                      "127.0.0.1:-1",
                                      "[::1]9464",
                                      "a b:1",
                                      "127.0.0.1:1_0",
                                      "[]:1"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        CHECK(fsc_config_listen_valid(good[i]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!fsc_config_listen_valid(bad[i]));
    CHECK(!fsc_config_listen_valid(NULL));
    CHECK(fsc_config_listen_clash("127.0.0.1:9464", "127.0.0.1:9464"));
    CHECK(fsc_config_listen_clash("0.0.0.0:4317", "127.0.0.1:4317")); /* a wildcard covers all */
    CHECK(fsc_config_listen_clash("127.0.0.1:4317", "[::]:4317"));
    CHECK(!fsc_config_listen_clash("127.0.0.1:4317", "127.0.0.2:4317"));
    CHECK(!fsc_config_listen_clash("127.0.0.1:4317", "127.0.0.1:4318"));
    CHECK(!fsc_config_listen_clash("0.0.0.0:0", "0.0.0.0:0")); /* ephemeral: distinct ports */
    CHECK(!fsc_config_listen_clash("", "127.0.0.1:1"));
    CHECK(!fsc_config_listen_clash(NULL, "127.0.0.1:1"));
}

/* `os` picks the built-in plan and the profile variant: qmon-sw only on
 * Junos OS, state/high-speed only on Junos OS Evolved, FEC and port speeds on
 * both (docs/vendors/junos.md). */
static void gnmi_os_plans(void)
{
    static const char *const evo[][5] = {
        {"/interfaces/interface/state/counters"},
        {"/qos/interfaces/interface/output/queues/queue/state"},
        {"/interfaces/interface/ethernet/state/counters", "/junos/system/linecard/interface/"},
        {"/state/interfaces/interface/ethernet/counters",
         "/interfaces/interface/ethernet/state/port-speed",
         "/interfaces/interface/ethernet/state/negotiated-port-speed",
         "/interfaces/interface/state/high-speed"},
    };
    static const char *const junos[][5] = {
        {"/interfaces/interface/state/counters"},
        {"/qos/interfaces/interface/output/queues/queue/state", "/junos/system/linecard/qmon-sw/"},
        {"/interfaces/interface/ethernet/state/counters", "/junos/system/linecard/interface/"},
        {"/state/interfaces/interface/ethernet/counters",
         "/interfaces/interface/ethernet/state/port-speed",
         "/interfaces/interface/ethernet/state/negotiated-port-speed"},
    };
    static const char *const names[] = {"interfaces", "queues", "rest", "links"};
    char err[512];
    struct fsc_config *cfg =
        parse("sources:\n"
              "  - {name: a, type: gnmi, address: \"a:1\", os: evo}\n"
              "  - {name: b, type: gnmi, address: \"b:1\", os: junos}\n"
              "  - {name: c, type: gnmi, address: \"c:1\", os: junos, streams: [{name: s, paths: "
              "[/interfaces]}]}\n",
              err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    for (int k = 0; k < 2; k++) {
        const struct fsc_gnmi_config *g = fsc_gnmi_config_of(&cfg->sources[k]);
        const char *const(*want)[5] = k == 0 ? evo : junos;
        CHECK_INT(g->os, k == 0 ? FSC_GNMI_OS_EVO : FSC_GNMI_OS_JUNOS);
        CHECK_STR(fsc_gnmi_os_name(g->os), k == 0 ? "evo" : "junos");
        CHECK_INT(fsc_gnmi_variant_mask(g, &fsc_profile_junos), k == 0 ? 1 : 2);
        CHECK_INT(fsc_gnmi_variant_mask(g, &fsc_profile_mlx5), 0); /* no variants: any */
        CHECK_INT(g->n_streams, 4);
        for (size_t i = 0; i < 4 && i < g->n_streams; i++) {
            const struct fsc_gnmi_stream *st = &g->streams[i];
            CHECK_STR(st->name, names[i]);
            size_t n = 0;
            while (n < 5 && want[i][n] != NULL)
                n++;
            CHECK_INT(st->n_paths, n);
            for (size_t p = 0; p < n && p < st->n_paths; p++)
                CHECK_STR(st->paths[p], want[i][p]);
            CHECK_INT(st->mode, FSC_GNMI_SAMPLE);
            CHECK_INT(st->sample_interval_ns, 2 * SEC);
        }
    }
    /* Streams written out are kept whatever the os. */
    const struct fsc_gnmi_config *c = fsc_gnmi_config_of(&cfg->sources[2]);
    CHECK_INT(c->n_streams, 1);
    CHECK_STR(c->streams[0].paths[0], "/interfaces");
    /* The printed config names the os (check-config). */
    char *text = print_str(cfg);
    CHECK(text != NULL && strstr(text, "os: junos") != NULL);
    free(text);
    fsc_config_destroy(cfg);

    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    address: \"10.0.0.1:50051\"\n"
                 "    os: junso\n",
                 "t.yaml:5:9: sources[0].os: \"junso\" is not one of: evo, junos (did you "
                 "mean \"junos\"?)");
    expect_error("sources: [{name: l, type: gnmi, address: \"a:1\", os: 24}]\n",
                 "t.yaml:1:53: sources[0].os: \"24\" is not one of: evo, junos");
}

TEST_MAIN(TEST(example_loads), TEST(defaults_filled), TEST(secret_from_env_and_file_never_printed),
          TEST(roundtrip_print_parse), TEST(topology_lookup), TEST(value_syntax),
          TEST(synthetic_and_profiles), TEST(optional_sources_and_paths),
          TEST(gnmi_interval_grid_warns), TEST(listen_address_rules), TEST(gnmi_os_plans))
