/* Configuration loader, the refusing side: the exact error text, with
 * file:line:col, for unknown keys, bad values, missing keys, duplicates, YAML
 * syntax, aliases, unset secrets, bad references, engine limits, size bounds,
 * cross-section conflicts, and every fixture in tests/fixtures/config. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_fixture.h"
#include "config/config.h"
#include "config/yaml_tree.h"
#include "test.h"
#include "config_all.h"

/* ---- error texts ----------------------------------------------------------- */

static void unknown_key_file_line(void)
{
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    adress: \"10.0.0.1:50051\"\n",
                 "t.yaml:4:5: sources[0].adress: unknown key (did you mean \"address\"?)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "exporter:\n"
                 "  prometheus: {}\n",
                 "t.yaml:2:1: exporter: unknown key (did you mean \"exporters\"?)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "engine:\n"
                 "  microburst:\n"
                 "    fall: 0.4\n"
                 "    smaple: 1\n",
                 "t.yaml:5:5: engine.microburst.smaple: unknown key");
    expect_error("sources: [{name: s, type: otlp, sample_interval: 1s}]\n",
                 "t.yaml:1:33: sources[0].sample_interval: unknown key for an otlp source (it is "
                 "a key of a gnmi source)");
    /* Every error at once, in file order, one line each; a misspelt
     * required key is one error (its absence is not a second). */
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    adress: \"10.0.0.1:50051\"\n"
                 "  - name: leaf2\n"
                 "    type: gnmi\n"
                 "engine:\n"
                 "  microburst: {rise: 3, smaple: 1}\n",
                 /* unknown keys of a mapping first, then its keys' values */
                 "t.yaml:4:5: sources[0].adress: unknown key (did you mean \"address\"?)\n"
                 "t.yaml:5:5: sources[1].address: required key is missing\n"
                 "t.yaml:8:25: engine.microburst.smaple: unknown key\n"
                 "t.yaml:8:22: engine.microburst.rise: \"3\" is out of range (0.0..2.0)");
}

static void bad_duration_file_line(void)
{
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    address: \"10.0.0.1:50051\"\n"
                 "    sample_interval: 2x\n",
                 "t.yaml:5:22: sources[0].sample_interval: \"2x\" is not a duration (use 100ms, "
                 "2s, 1m)");
    /* A plain number is not a duration. */
    expect_error("sources: [{name: l, type: gnmi, address: \"a:1\", keepalive: 30}]\n",
                 "t.yaml:1:60: sources[0].keepalive: \"30\" is not a duration (use 100ms, 2s, "
                 "1m)");
    expect_error("sources: [{name: l, type: gnmi, address: \"a:1\", keepalive: 2h}]\n",
                 "t.yaml:1:60: sources[0].keepalive: \"2h\" is above the maximum (1h)");
}

static void missing_required(void)
{
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n",
                 "t.yaml:2:5: sources[0].address: required key is missing");
    expect_error("sources:\n"
                 "  - name: leaf1\n",
                 "t.yaml:2:5: sources[0].type: required key is missing (gnmi, otlp, nic, synthetic "
                 "or replay)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "exporters:\n"
                 "  remote_write:\n"
                 "    url: https://m/api/v1/push\n"
                 "    basic_auth:\n"
                 "      username: fabricscope\n",
                 "t.yaml:5:5: exporters.remote_write.basic_auth.password: required key is missing "
                 "(password, password_file or password_env)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "topology:\n"
                 "  devices:\n"
                 "    - name: leaf1\n",
                 "t.yaml:4:7: topology.devices[0].role: required key is missing");
}

static void duplicate_source_name(void)
{
    expect_error("sources:\n"
                 "  - {name: a, type: otlp}\n"
                 "  - {name: b, type: nic, auto: true}\n"
                 "  - {type: otlp, name: a, grpc_listen: \"0.0.0.0:14317\", http_listen: \"\"}\n",
                 "t.yaml:4:18: sources[2].name: \"a\" is already the name of sources[0]");
}

static void duplicate_port_name(void)
{
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "topology:\n"
                 "  devices:\n"
                 "    - name: leaf1\n"
                 "      role: leaf\n"
                 "      ports: [{name: swp1}, {name: swp2}, {name: swp1}]\n",
                 "t.yaml:6:43: topology.devices[0].ports[2].name: \"swp1\" is already the name of "
                 "ports[0] of device leaf1");
    /* The same port name on two devices is fine. */
    char err[512];
    struct fsc_config *cfg = parse("sources: [{name: s, type: otlp}]\n"
                                   "topology:\n"
                                   "  devices:\n"
                                   "    - {name: a, role: leaf, ports: [{name: swp1}]}\n"
                                   "    - {name: b, role: leaf, ports: [{name: swp1}]}\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    fsc_config_destroy(cfg);
}

static void yaml_syntax_error_line(void)
{
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "   address: x\n",
                 "t.yaml:4:4: invalid YAML: did not find expected '-' indicator (while parsing a "
                 "block collection at line 2)");
    expect_error("sources:\n"
                 "\t- name: leaf1\n",
                 "t.yaml:2:1: invalid YAML: found character that cannot start any token (while "
                 "scanning for the next token at line 2)");
    expect_error("sources:\n"
                 "  - name: a\n"
                 "    name: b\n",
                 "t.yaml:3:5: duplicate key \"name\" (first at line 2)");
    expect_error("a: 1\n---\nb: 2\n",
                 "t.yaml:2:1: only one YAML document is allowed (found a second \"---\")");
    const char nul[] = "sources:\n  - name: a\0\n";
    char err[512];
    struct fsc_config *cfg =
        fsc_config_parse(nul, sizeof(nul) - 1, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, "t.yaml:2:12: the file contains a NUL byte");
}

static void alias_rejected(void)
{
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "x: &lol [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
                 "y: [*lol, *lol, *lol, *lol, *lol, *lol, *lol, *lol, *lol]\n",
                 "t.yaml:2:4: anchors and aliases (&lol) are not supported");
    /* An alias to an undefined anchor is refused too. */
    expect_error("sources: *nothing\n",
                 "t.yaml:1:10: anchors and aliases (*nothing) are not supported");
    expect_error("sources: !!seq []\n", "t.yaml:1:10: tags (tag:yaml.org,2002:seq) are not "
                                        "supported");
}

/* ---- secrets --------------------------------------------------------------- */

static void secret_env_missing(void)
{
    unsetenv("FSC_TEST_UNSET_SECRET");
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    address: \"10.0.0.1:50051\"\n"
                 "    username: u\n"
                 "    password_env: FSC_TEST_UNSET_SECRET\n",
                 "t.yaml:6:19: sources[0].password_env: environment variable "
                 "FSC_TEST_UNSET_SECRET is not set");
    setenv("FSC_TEST_EMPTY_SECRET", "", 1);
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "exporters:\n"
                 "  remote_write: {url: \"https://m/\", bearer_token_env: FSC_TEST_EMPTY_SECRET}\n",
                 "t.yaml:3:55: exporters.remote_write.bearer_token_env: environment variable "
                 "FSC_TEST_EMPTY_SECRET is empty");
    expect_error("sources:\n"
                 "  - name: leaf1\n"
                 "    type: gnmi\n"
                 "    address: \"10.0.0.1:50051\"\n"
                 "    username: u\n"
                 "    password_file: /nonexistent/fsc/pw\n",
                 "t.yaml:6:20: sources[0].password_file: cannot read \"/nonexistent/fsc/pw\": No "
                 "such file or directory");
}

/* ---- references: port groups, engine settings ----------------------------- */

static void port_group_unknown_member(void)
{
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "topology:\n"
                 "  devices:\n"
                 "    - {name: leaf1, role: leaf, ports: [{name: a}, {name: b}]}\n"
                 "  port_groups:\n"
                 "    - name: up\n"
                 "      members: [\"leaf1:a\", \"leaf1:c\"]\n",
                 "t.yaml:6:7: topology.port_groups[0].members[1]: \"leaf1:c\": device leaf1 has "
                 "no port \"c\"");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "topology:\n"
                 "  devices:\n"
                 "    - {name: leaf1, role: leaf, ports: [{name: a}, {name: b}]}\n"
                 "  port_groups:\n"
                 "    - name: up\n"
                 "      members: [\"leaf1:a\", \"leaf1:a\"]\n",
                 "t.yaml:6:7: topology.port_groups[0].members[1]: \"leaf1:a\" is already "
                 "members[0]");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "topology:\n"
                 "  port_groups:\n"
                 "    - name: up\n"
                 "      members: [\"leaf1\", \"leaf1:a\"]\n",
                 "t.yaml:5:17: topology.port_groups[0].members[0]: \"leaf1\" is not a "
                 "\"device:port\" reference");
}

static void engine_validate_error_has_line(void)
{
    char err[512];
    struct fsc_config *cfg = parse("sources: [{name: s, type: otlp}]\n"
                                   "engine:\n"
                                   "  windows: [1s, 10s]\n"
                                   "  microburst:\n"
                                   "    rise: 0.5\n"
                                   "    fall: 0.6\n",
                                   err, sizeof(err));
    CHECK(cfg == NULL);
    /* The engine's sentence, at the line of the key it names. */
    const char *want = "t.yaml:6:5: engine.microburst.fall";
    CHECK(strncmp(err, want, strlen(want)) == 0);
    CHECK(strstr(err, "rise") != NULL);
    if (strncmp(err, want, strlen(want)) != 0)
        fprintf(stderr, "got: %s\n", err);
    fsc_config_destroy(cfg);
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "engine:\n"
                 "  windows: [1s, 10s]\n"
                 "  imbalance: {window: 60s}\n",
                 "t.yaml:4:23: engine.imbalance.window: \"60s\" is not one of engine.windows (1s, "
                 "10s)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "engine:\n"
                 "  windows: [1s, 2s, 3s, 4s, 5s]\n",
                 "t.yaml:3:12: engine.windows: needs 1 to 4 windows, got 5");
}

/* ---- bounds ---------------------------------------------------------------- */

static void bounds(void)
{
    char err[512];
    size_t big = FSC_CONFIG_MAX_FILE + 1;
    char *text = malloc(big);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    memset(text, '#', big);
    struct fsc_config *cfg =
        fsc_config_parse(text, big, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, "t.yaml: the file is larger than 67108864 bytes");

    /* More nodes than the tree allows, in lists each under their own cap. */
    size_t o = (size_t)snprintf(text, big, "sources: [{name: s, type: otlp}]\n");
    for (int l = 0; l < FSC_YTREE_MAX_NODES / 60000 + 1 && o < big - 200000; l++) {
        o += (size_t)snprintf(text + o, big - o, "k%d: [", l);
        for (int i = 0; i < 60000; i++) {
            text[o++] = '1';
            text[o++] = ',';
        }
        text[o - 1] = ']';
        text[o++] = '\n';
    }
    cfg = fsc_config_parse(text, o, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK(strstr(err, "the document has more than 4194304 nodes") != NULL);

    /* 1100 sources: within the default max_sources (4096), over a
     * max_sources of 1000 written after the list (checked once the whole
     * file is read), and a max_sources above its ceiling. */
    o = (size_t)snprintf(text, big, "sources: [");
    for (int i = 0; i < 1100; i++)
        o += (size_t)snprintf(text + o, big - o, "{name: s%d, type: nic},", i);
    text[o - 1] = ']';
    size_t list_end = o;
    cfg = fsc_config_parse(text, o, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL && cfg->n_sources == 1100 && cfg->max_sources == 4096);
    fsc_config_destroy(cfg);
    o = list_end + (size_t)snprintf(text + list_end, big - list_end, "\nmax_sources: 1000\n");
    cfg = fsc_config_parse(text, o, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, "t.yaml:1:10: sources: has 1100 sources; max_sources allows 1000 (raise it: "
                   "docs/CONFIG.md, \"Limits\", says what a source costs)");
    o = (size_t)snprintf(text, big, "max_sources: 65536\n");
    cfg = fsc_config_parse(text, o, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK(strstr(err, "t.yaml:1:14: max_sources:") != NULL && strstr(err, "65535") != NULL);

    o = (size_t)snprintf(text, big, "sources: [{name: \"");
    memset(text + o, 'a', 9000);
    o += 9000;
    o += (size_t)snprintf(text + o, big - o, "\", type: nic}]\n");
    cfg = fsc_config_parse(text, o, "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, "t.yaml:1:18: a value is longer than 8192 bytes");
    free(text);

    expect_error("sources: [{name: \"a b\", type: nic}]\n",
                 "t.yaml:1:18: sources[0].name: \"a b\" is not a valid name (a letter or digit, "
                 "then letters, digits, '.', '_' or '-'; at most 63 bytes)");
}

/* ---- fixtures -------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every .yaml file in tests/fixtures/config fails with the message on its first
 * line ("# expect: <message>", file named by its base name). */
static void fixtures_errors(void)
{
    char dir[1024];
    repo_file("tests/fixtures/config", dir, sizeof(dir));
    unsetenv("FSC_TEST_SURELY_UNSET_VAR");
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (d == NULL)
        return;
    char *names[256];
    size_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL && n < 256) {
        size_t l = strlen(ent->d_name);
        if (l > 5 && strcmp(ent->d_name + l - 5, ".yaml") == 0)
            names[n++] = strdup(ent->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), cmp_str);
    CHECK(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char path[1400], line[512], err[4096], want[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        CHECK(f != NULL);
        if (f == NULL)
            continue;
        line[0] = '\0';
        if (fgets(line, sizeof(line), f) == NULL)
            line[0] = '\0';
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        CHECK(strncmp(line, "# expect: ", 10) == 0);
        /* "@DIR@" in a message stands for the fixture directory */
        char msg[2048];
        const char *at = strstr(line + 10, "@DIR@");
        if (at != NULL)
            snprintf(msg, sizeof(msg), "%.*s%s%s", (int)(at - (line + 10)), line + 10, dir, at + 5);
        else
            snprintf(msg, sizeof(msg), "%s", line + 10);
        snprintf(want, sizeof(want), "%s/%s", dir, msg);
        struct fsc_config *cfg = fsc_app_config_load(path, err, sizeof(err));
        CHECK(cfg == NULL);
        CHECK_STR(err, want);
        fsc_config_destroy(cfg);
        free(names[i]);
    }
    char err[512];
    CHECK(fsc_app_config_load("/nonexistent/fabricscope.yaml", err, sizeof(err)) == NULL);
    CHECK_STR(err, "/nonexistent/fabricscope.yaml: cannot open: No such file or directory");
}

/* ---- cross-section checks -------------------------------------------------- */

static void cross_checks(void)
{
    expect_error("sources:\n"
                 "  - {name: spines, type: otlp}\n"
                 "exporters:\n"
                 "  prometheus: {listen: \"127.0.0.1:4318\"}\n",
                 "t.yaml:4:16: exporters.prometheus.listen: \"127.0.0.1:4318\" is already used by "
                 "sources[0].http_listen");
    expect_error("sources:\n"
                 "  - {name: a, type: gnmi, address: \"x:1\"}\n"
                 "  - {name: b, type: gnmi, address: \"y:1\", device: a}\n",
                 "t.yaml:3:43: sources[1].device: device a is already collected by sources[0] "
                 "(set device: to tell them apart)");
    expect_error("sources:\n"
                 "  - {name: h, type: nic, node: 3}\n",
                 "t.yaml:2:26: sources[0].node: needs a cable plan (cable_plan here or "
                 "topology.cable_plan)");
    expect_error("sources: [{name: s, type: otlp}]\n"
                 "engine: {max_groups: 1}\n"
                 "topology:\n"
                 "  devices: [{name: l, role: leaf, ports: [{name: a}, {name: b}]}]\n"
                 "  port_groups:\n"
                 "    - {name: g1, members: [\"l:a\", \"l:b\"]}\n"
                 "    - {name: g2, members: [\"l:b\", \"l:a\"]}\n",
                 "t.yaml:3:1: topology.port_groups: 2 groups exceed engine.max_groups (1)");
    /* A disabled source does not hold its listen address. */
    char err[512];
    struct fsc_config *cfg = parse("sources:\n"
                                   "  - {name: a, type: otlp, enabled: false}\n"
                                   "  - {name: b, type: otlp}\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg != NULL)
        CHECK(!cfg->sources[0].enabled && cfg->sources[1].enabled);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(unknown_key_file_line), TEST(bad_duration_file_line), TEST(missing_required),
          TEST(duplicate_source_name), TEST(duplicate_port_name), TEST(secret_env_missing),
          TEST(port_group_unknown_member), TEST(engine_validate_error_has_line),
          TEST(yaml_syntax_error_line), TEST(alias_rejected), TEST(bounds), TEST(fixtures_errors),
          TEST(cross_checks))
