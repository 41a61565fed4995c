/* The nic source's keys that choose what it reads (nic_keys.c,
 * docs/CONFIG.md "nic"): sysfs_root is only where the host's /sys is
 * mounted (ethtool stays on), fixture: true is the explicit test mode
 * (ethtool off), and the refusals of check-config, with file:line:col, for
 * a fixture without a tree, ethtool asked for in a fixture and a
 * non-boolean fixture. A printed fixture config loads back unchanged. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_fixture.h"
#include "test.h"

static void prefix_keeps_ethtool(void)
{
    char err[512];
    /* the shipped DaemonSet's source (deploy/kubernetes/configmap.yaml) */
    struct fsc_config *cfg = parse("sources:\n"
                                   "  - name: nic\n"
                                   "    type: nic\n"
                                   "    sysfs_root: /host\n"
                                   "    auto: true\n",
                                   err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg) {
        const struct fsc_nic_config *n = fsc_nic_config_of(&cfg->sources[0]);
        CHECK_STR(n->sysfs_root, "/host");
        CHECK(!n->fixture);
        CHECK(n->ethtool);
        CHECK(n->pcie);
    } else {
        fprintf(stderr, "%s\n", err);
    }
    fsc_config_destroy(cfg);
    cfg = parse("sources: [{name: h, type: nic}]\n", err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK(!fsc_nic_config_of(&cfg->sources[0])->fixture);
        CHECK(fsc_nic_config_of(&cfg->sources[0])->ethtool);
    }
    fsc_config_destroy(cfg);
}

static void fixture_turns_ethtool_off(void)
{
    char err[512];
    const char *text = "sources:\n"
                       "  - {name: h, type: nic, sysfs_root: /fx, fixture: true, node: 1,\n"
                       "     cable_plan: /c.txt}\n";
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const struct fsc_nic_config *n = fsc_nic_config_of(&cfg->sources[0]);
    CHECK(n->fixture);
    CHECK(!n->ethtool);
    CHECK_STR(n->sysfs_root, "/fx");
    /* printed, it says so, and loads back to the same settings */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(fsc_config_print(cfg, f), 0);
        fclose(f);
        CHECK(strstr(out, "    fixture: true\n") != NULL);
        CHECK(strstr(out, "    ethtool: false\n") != NULL);
        struct fsc_config *back = parse(out, err, sizeof(err));
        CHECK(back != NULL);
        if (back) {
            const struct fsc_nic_config *b = fsc_nic_config_of(&back->sources[0]);
            CHECK(b->fixture && !b->ethtool);
            CHECK_STR(b->sysfs_root, "/fx");
        } else {
            fprintf(stderr, "%s\n%s\n", err, out);
        }
        fsc_config_destroy(back);
        free(out);
    }
    fsc_config_destroy(cfg);
    /* ethtool: false written out is what fixture implies: accepted */
    cfg = parse("sources: [{name: h, type: nic, sysfs_root: /fx, fixture: true, ethtool: false}]\n",
                err, sizeof(err));
    CHECK(cfg != NULL);
    fsc_config_destroy(cfg);
}

static void fixture_refusals(void)
{
    expect_error("sources:\n"
                 "  - name: h\n"
                 "    type: nic\n"
                 "    fixture: true\n",
                 "t.yaml:4:5: sources[0].fixture: fixture: true needs sysfs_root pointing at a "
                 "fixture tree (sysfs_root is \"/\", the running host)");
    expect_error("sources: [{name: h, type: nic, sysfs_root: //, fixture: true}]\n",
                 "t.yaml:1:48: sources[0].fixture: fixture: true needs sysfs_root pointing at a "
                 "fixture tree (sysfs_root is \"/\", the running host)");
    expect_error("sources:\n"
                 "  - name: h\n"
                 "    type: nic\n"
                 "    sysfs_root: /fx\n"
                 "    fixture: true\n"
                 "    ethtool: true\n",
                 "t.yaml:6:5: sources[0].ethtool: ethtool: true asks the running kernel, whose "
                 "interfaces are not the fixture tree's: drop it (fixture: true turns it off)");
    expect_error("sources: [{name: h, type: nic, sysfs_root: /fx, fixture: files}]\n",
                 "t.yaml:1:58: sources[0].fixture: \"files\" is not a boolean (use true or false)");
}

TEST_MAIN(TEST(prefix_keeps_ethtool), TEST(fixture_turns_ethtool_off), TEST(fixture_refusals))
