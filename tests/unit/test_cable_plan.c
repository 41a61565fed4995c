/* The B300 cable plan (collector/model/cable_plan.h): parsing and its exact
 * error messages, the addressing rule, the default layout, the golden
 * rendering of examples/b300/cables.txt (tests/fixtures/b300/plan.txt, node 1
 * written by hand from the rules), lookups, and the layout from a config. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_fixture.h"
#include "model/cable_plan.h"
#include "test.h"
#include "config_all.h"

static struct fsc_cabling *parse_text(const char *text, char *err, size_t errlen)
{
    err[0] = '\0';
    return fsc_cabling_parse(text, strlen(text), "c.txt", NULL, err, errlen);
}

/* Parsing `text` fails with exactly `want`. */
static void expect_plan_error(const char *text, const char *want)
{
    char err[512];
    struct fsc_cabling *cab = parse_text(text, err, sizeof(err));
    CHECK(cab == NULL);
    CHECK_STR(err, want);
    fsc_cabling_destroy(cab);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *s = calloc(1, 1 << 16);
    size_t n = s ? fread(s, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return s;
}

/* ---- parsing ------------------------------------------------------------------ */

static void parse_valid(void)
{
    char err[512];
    /* Comments, blank lines, tabs, CRLF, a trailing comment, no spaces
     * around '>', and a cable written from the higher node. */
    const char *text = "# cluster\n"
                       "\n"
                       "1-3 > 2-3\r\n"
                       "\t2-1\t>\t1-1   # second cable of the pair\n"
                       "   \n"
                       "3-8>1-2\n"
                       "# end";
    struct fsc_cabling *cab = parse_text(text, err, sizeof(err));
    CHECK(cab != NULL);
    if (cab == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(fsc_cabling_n_cables(cab), 3);
    CHECK_INT(fsc_cabling_n_ifaces(cab), 3 * FSC_CABLING_IFACES);
    CHECK(fsc_cabling_node(cab, 1) != NULL);
    CHECK(fsc_cabling_node(cab, 2) != NULL);
    CHECK(fsc_cabling_node(cab, 3) != NULL);
    CHECK(fsc_cabling_node(cab, 4) == NULL);
    CHECK(fsc_cabling_node(cab, 0) == NULL);
    CHECK(fsc_cabling_node(cab, 10) == NULL);
    CHECK(fsc_cabling_iface(cab, 3 * FSC_CABLING_IFACES) == NULL);

    /* Map order: node, port, np. Node 1 port 1 (card 7) faces node 2 port 1. */
    const struct fsc_cabling_iface *ifc = fsc_cabling_iface(cab, 0);
    CHECK_INT(ifc->node, 1);
    CHECK_INT(ifc->port, 1);
    CHECK_INT(ifc->card, 7);
    CHECK_INT(ifc->np, 0);
    CHECK_STR(ifc->ifname, "ens8f0np0");
    CHECK(ifc->cabled);
    CHECK_INT(ifc->peer_node, 2);
    CHECK_INT(ifc->peer_port, 1);
    CHECK_INT(ifc->line, 4);
    ifc = fsc_cabling_iface(cab, 1);
    CHECK_INT(ifc->np, 1);
    CHECK_STR(ifc->ifname, "ens8f1np1");
    CHECK_STR(ifc->peer_ifname, "ens8f1np1");
    /* Node 1 port 4 has no cable: in the map, not cabled. */
    ifc = fsc_cabling_iface(cab, 6);
    CHECK_INT(ifc->port, 4);
    CHECK(!ifc->cabled);
    CHECK_INT(ifc->peer_node, 0);
    CHECK(ifc->peer_ifname == NULL);
    CHECK_STR(ifc->addr_text, "");
    /* The last node's last entry: node 3 port 8 np1, the cable on line 6. */
    ifc = fsc_cabling_iface(cab, 3 * FSC_CABLING_IFACES - 1);
    CHECK_INT(ifc->node, 3);
    CHECK_INT(ifc->port, 8);
    CHECK_INT(ifc->card, 2);
    CHECK_INT(ifc->peer_node, 1);
    CHECK_INT(ifc->peer_port, 2);
    CHECK_INT(ifc->peer_card, 4);
    CHECK_STR(ifc->peer_ifname, "ens5f1np1");
    CHECK_INT(ifc->line, 6);
    fsc_cabling_destroy(cab);
    fsc_cabling_destroy(NULL);
}

#define HINT " (a cable is written A-P > B-Q, e.g. 1-3 > 2-3)"

static void parse_errors(void)
{
    /* Syntax, with the column of the offending byte. */
    expect_plan_error("1-3 > 2-3x",
                      "c.txt:1:10: expected the end of the line (or a # comment) after the cable, "
                      "found 'x'" HINT);
    expect_plan_error("1-3 2-3", "c.txt:1:5: expected '>' between the two ends, found '2'" HINT);
    expect_plan_error("# x\na-3 > 2-3", "c.txt:2:1: expected a node number, found 'a'" HINT);
    expect_plan_error(
        "1 -3 > 2-3",
        "c.txt:1:2: expected '-' right after the node number, found white space" HINT);
    expect_plan_error("1-3 > 2-",
                      "c.txt:1:9: expected a port number, found the end of the line" HINT);
    expect_plan_error("1-3 > # x",
                      "c.txt:1:7: expected a node number, found the end of the line" HINT);
    expect_plan_error("1-3 > 2-3\n1-\x01 > 2-4",
                      "c.txt:2:3: expected a port number, found byte 0x01" HINT);
    expect_plan_error("1-3 > 2-3\n-1-2 > 2-4", "c.txt:2:1: expected a node number, found '-'" HINT);
    /* Node and port ranges: node before port, A before B. */
    expect_plan_error("12-3 > 2-3", "c.txt:1:1: node 12 is out of range 1-9 (one digit per node "
                                    "in 10.1<a><b>.<link>.<end>)");
    expect_plan_error("12-9 > 2-3", "c.txt:1:1: node 12 is out of range 1-9 (one digit per node "
                                    "in 10.1<a><b>.<link>.<end>)");
    expect_plan_error("1-3 > 0-3", "c.txt:1:7: node 0 is out of range 1-9 (one digit per node "
                                   "in 10.1<a><b>.<link>.<end>)");
    expect_plan_error("1-9 > 2-3",
                      "c.txt:1:3: port 9 is out of range 1-8 (a B300 node has 8 ports)");
    expect_plan_error("1-3 >  2-0",
                      "c.txt:1:10: port 0 is out of range 1-8 (a B300 node has 8 ports)");
    /* A self-loop, at the second end. */
    expect_plan_error("1-3 > 1-4",
                      "c.txt:1:7: the cable connects node 1 to itself (ports 3 and 4)");
    expect_plan_error("5-2 > 5-2",
                      "c.txt:1:7: the cable connects node 5 to itself (ports 2 and 2)");
    /* A port used twice, at the end that repeats, naming the first line. */
    expect_plan_error("1-3 > 2-3\n# x\n3-1 > 2-3",
                      "c.txt:3:7: node 2 port 3 is already used by the cable on line 1");
    expect_plan_error("1-3 > 2-3\n\n  1-3 > 4-1",
                      "c.txt:3:3: node 1 port 3 is already used by the cable on line 1");
    expect_plan_error("1-3 > 2-3\n2-3 > 1-3",
                      "c.txt:2:1: node 2 port 3 is already used by the cable on line 1");
    /* Whole-file problems. */
    expect_plan_error("", "c.txt: no cables (every line is blank or a comment)");
    expect_plan_error("# a\n\n   \n", "c.txt: no cables (every line is blank or a comment)");

    char line[400];
    memset(line, 'x', sizeof(line) - 1);
    line[0] = '#';
    line[sizeof(line) - 1] = '\0';
    expect_plan_error(line, "c.txt:1:256: the line is longer than 255 bytes");
    line[255] = '\0'; /* exactly 255 bytes: a fine comment */
    expect_plan_error(line, "c.txt: no cables (every line is blank or a comment)");

    size_t big = FSC_CABLING_MAX_FILE + 1;
    char *text = malloc(big);
    CHECK(text != NULL);
    if (text != NULL) {
        char err[256];
        memset(text, '\n', big);
        CHECK(fsc_cabling_parse(text, big, "c.txt", NULL, err, sizeof(err)) == NULL);
        CHECK_STR(err, "c.txt: the file is larger than 1048576 bytes");
        /* At the limit it parses (and finds nothing). */
        CHECK(fsc_cabling_parse(text, big - 1, "c.txt", NULL, err, sizeof(err)) == NULL);
        CHECK_STR(err, "c.txt: no cables (every line is blank or a comment)");
        free(text);
    }

    char err[256];
    CHECK(fsc_cabling_load("/nonexistent/cables.txt", NULL, err, sizeof(err)) == NULL);
    CHECK_STR(err, "/nonexistent/cables.txt: No such file or directory");
    CHECK(fsc_cabling_load("/", NULL, err, sizeof(err)) == NULL);
    CHECK_STR(err, "/: is a directory");
}

/* ---- addressing ---------------------------------------------------------------- */

static void address_rule(void)
{
    char err[512];
    /* Pair 1-2 has three cables, written out of port order: links follow
     * node 1's (the lower node's) ports 2, 3, 8, np0 before np1 -- not the
     * file order, and not node 2's ports (1, 3, 5 would reverse them). Pair
     * 8-9 is written from the higher node. */
    const char *text = "2-1 > 1-8\n"
                       "1-3 > 2-3\n"
                       "1-2 > 2-5\n"
                       "9-1 > 8-2\n";
    struct fsc_cabling *cab = parse_text(text, err, sizeof(err));
    CHECK(cab != NULL);
    if (cab == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    static const struct {
        uint32_t node;
        const char *ifname;
        uint32_t peer_node;
        const char *peer_ifname;
        uint32_t link;
        const char *addr, *peer;
        uint32_t addr_bin;
    } want[] = {
        /* node 1 port 2 = card 4 <-> node 2 port 5 = card 0: links 1, 2 */
        {1, "ens5f0np0", 2, "ens1f0np0", 1, "10.112.1.1", "10.112.1.2", 0x0a700101},
        {1, "ens5f1np1", 2, "ens1f1np1", 2, "10.112.2.1", "10.112.2.2", 0x0a700201},
        {2, "ens1f0np0", 1, "ens5f0np0", 1, "10.112.1.2", "10.112.1.1", 0x0a700102},
        /* node 1 port 3 = card 6 <-> node 2 port 3: links 3, 4 */
        {1, "ens7f0np0", 2, "ens7f0np0", 3, "10.112.3.1", "10.112.3.2", 0x0a700301},
        {2, "ens7f1np1", 1, "ens7f1np1", 4, "10.112.4.2", "10.112.4.1", 0x0a700402},
        /* node 1 port 8 = card 2 <-> node 2 port 1 = card 7: links 5, 6 */
        {1, "ens3f0np0", 2, "ens8f0np0", 5, "10.112.5.1", "10.112.5.2", 0x0a700501},
        {2, "ens8f1np1", 1, "ens3f1np1", 6, "10.112.6.2", "10.112.6.1", 0x0a700602},
        /* node 8 port 2 = card 4 <-> node 9 port 1 = card 7: a = 8, b = 9 */
        {8, "ens5f0np0", 9, "ens8f0np0", 1, "10.189.1.1", "10.189.1.2", 0x0abd0101},
        {9, "ens8f1np1", 8, "ens5f1np1", 2, "10.189.2.2", "10.189.2.1", 0x0abd0202},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct fsc_cabling_iface *ifc = fsc_cabling_find(cab, want[i].node, want[i].ifname);
        CHECK(ifc != NULL);
        if (ifc == NULL)
            continue;
        CHECK(ifc->cabled);
        CHECK_INT(ifc->peer_node, want[i].peer_node);
        CHECK_STR(ifc->peer_ifname, want[i].peer_ifname);
        CHECK_INT(ifc->link, want[i].link);
        CHECK_STR(ifc->addr_text, want[i].addr);
        CHECK_STR(ifc->peer_addr_text, want[i].peer);
        CHECK_INT(ifc->addr, want[i].addr_bin);
        CHECK_INT(ifc->peer_addr, want[i].addr_bin ^ 3); /* .1 <-> .2 */
    }
    char buf[16];
    CHECK_STR(fsc_cabling_addr_format(0x0a700101, buf, sizeof(buf)), "10.112.1.1");
    CHECK_STR(fsc_cabling_addr_format(0xffffffff, buf, sizeof(buf)), "255.255.255.255");
    fsc_cabling_destroy(cab);
}

/* ---- layout --------------------------------------------------------------------- */

static void default_port_order(void)
{
    static const uint8_t order[FSC_B300_PORTS] = {7, 4, 6, 5, 0, 3, 1, 2};
    struct fsc_cable_layout lay;
    fsc_cable_layout_default(&lay);
    for (size_t p = 0; p < FSC_B300_PORTS; p++) {
        CHECK_INT(lay.port_card[p], order[p]);
        CHECK_INT(fsc_cable_default_port_cards[p], order[p]);
    }
    CHECK_STR(lay.ifname[0][0], "ens1f0np0");
    CHECK_STR(lay.ifname[0][1], "ens1f1np1");
    CHECK_STR(lay.ifname[7][0], "ens8f0np0");
    CHECK_STR(lay.ifname[7][1], "ens8f1np1");
    CHECK_INT(lay.speed_bps, 400000000000ll);
    struct fsc_cable_layout from_null;
    char err[128];
    CHECK_INT(fsc_cable_layout_from_config(&from_null, NULL, err, sizeof(err)), 0);
    CHECK(memcmp(&from_null, &lay, sizeof(lay)) == 0);
    CHECK_INT(lay.default_names, 0xff); /* every name a placeholder */

    /* Every port of node 1 cabled to the same port of node 2: port p's
     * entries carry card order[p - 1] and its names. */
    char err2[512];
    struct fsc_cabling *cab = parse_text("1-1 > 2-1\n1-2 > 2-2\n1-3 > 2-3\n1-4 > 2-4\n"
                                         "1-5 > 2-5\n1-6 > 2-6\n1-7 > 2-7\n1-8 > 2-8\n",
                                         err2, sizeof(err2));
    CHECK(cab != NULL);
    const struct fsc_cabling_iface *ifc = cab ? fsc_cabling_node(cab, 1) : NULL;
    for (size_t i = 0; ifc != NULL && i < FSC_CABLING_IFACES; i++) {
        char name[16];
        snprintf(name, sizeof(name), "ens%uf%unp%u", order[i / 2] + 1u, (unsigned)(i % 2),
                 (unsigned)(i % 2));
        CHECK_INT(ifc[i].port, i / 2 + 1);
        CHECK_INT(ifc[i].card, order[i / 2]);
        CHECK_STR(ifc[i].ifname, name);
        CHECK_INT(ifc[i].link, i + 1);
        CHECK_INT(ifc[i].speed_bps, 400000000000ll);
    }
    fsc_cabling_destroy(cab);
}

/* ---- the 4-node example ------------------------------------------------------- */

static void example_golden(void)
{
    char path[512], err[512];
    struct fsc_cabling *cab = fsc_cabling_load(
        repo_file("examples/b300/cables.txt", path, sizeof(path)), NULL, err, sizeof(err));
    CHECK(cab != NULL);
    if (cab == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(fsc_cabling_n_cables(cab), 16);
    CHECK_INT(fsc_cabling_n_ifaces(cab), 4 * FSC_CABLING_IFACES);

    struct fsc_buf out = {0};
    for (uint32_t n = 1; n <= 4; n++) {
        if (n > 1)
            fsc_buf_puts(&out, "\n");
        CHECK_INT(fsc_cabling_render_node(cab, n, NULL, &out), 0);
    }
    CHECK_INT(fsc_cabling_render_node(cab, 5, NULL, &out), -ENOENT);
    char *want = read_all(repo_file("tests/fixtures/b300/plan.txt", path, sizeof(path)));
    CHECK(want != NULL);
    CHECK(out.data != NULL);
    if (want != NULL && out.data != NULL && strcmp(out.data, want) != 0) {
        CHECK_STR(out.data, want);
    }
    free(want);

    /* Consistency of the whole map: every interface cabled, its peer's entry
     * points back with the same link and swapped addresses, and all 64
     * addresses are distinct. */
    uint32_t addrs[4 * FSC_CABLING_IFACES];
    size_t n_addrs = 0;
    for (size_t i = 0; i < fsc_cabling_n_ifaces(cab); i++) {
        const struct fsc_cabling_iface *ifc = fsc_cabling_iface(cab, i);
        CHECK(ifc->cabled);
        const struct fsc_cabling_iface *peer =
            fsc_cabling_find(cab, ifc->peer_node, ifc->peer_ifname);
        CHECK(peer != NULL);
        if (peer != NULL) {
            CHECK_INT(peer->peer_node, ifc->node);
            CHECK_STR(peer->peer_ifname, ifc->ifname);
            CHECK_INT(peer->link, ifc->link);
            CHECK_INT(peer->addr, ifc->peer_addr);
            CHECK_INT(peer->port, ifc->port); /* the example is rail-aligned */
        }
        for (size_t j = 0; j < n_addrs; j++)
            CHECK(addrs[j] != ifc->addr);
        addrs[n_addrs++] = ifc->addr;
    }
    CHECK_INT(n_addrs, 64);

    /* With a device name, only the header changes. */
    fsc_buf_reset(&out);
    CHECK_INT(fsc_cabling_render_node(cab, 2, "b300-02", &out), 0);
    const char *head = "# node 2 (b300-02): 8 of 8 ports cabled, peers 1, 3, 4\n"
                       "ip addr flush dev ens8f0np0\n"
                       "ip link set ens8f0np0 mtu 9000 up\n"
                       "ip addr add 10.112.1.2/30 dev ens8f0np0\n";
    CHECK(out.data != NULL && strncmp(out.data, head, strlen(head)) == 0);
    fsc_buf_free(&out);
    fsc_cabling_destroy(cab);
}

static void lookups(void)
{
    char path[512], err[512];
    struct fsc_cabling *cab = fsc_cabling_load(
        repo_file("examples/b300/cables.txt", path, sizeof(path)), NULL, err, sizeof(err));
    CHECK(cab != NULL);
    if (cab == NULL)
        return;
    /* Node 2, port 3 (card 6) is cabled to node 3 port 3 (`2-3 > 3-3`,
     * the first cable of pair 2-3). */
    const struct fsc_cabling_iface *ifc = fsc_cabling_find(cab, 2, "ens7f0np0");
    CHECK(ifc != NULL);
    if (ifc != NULL) {
        CHECK_INT(ifc->node, 2);
        CHECK_INT(ifc->port, 3);
        CHECK_INT(ifc->card, 6);
        CHECK_INT(ifc->np, 0);
        CHECK_INT(ifc->peer_node, 3);
        CHECK_INT(ifc->peer_port, 3);
        CHECK_STR(ifc->peer_ifname, "ens7f0np0");
        CHECK_INT(ifc->link, 1);
        CHECK_STR(ifc->addr_text, "10.123.1.1");
        CHECK_STR(ifc->peer_addr_text, "10.123.1.2");
        CHECK_INT(ifc->speed_bps, 400000000000ll);
        CHECK_INT(ifc->line, 24);
    }
    /* Node 2, port 6 np1 (card 3): the pair's second cable, link 4; node 2
     * is the lower node of 2-3, so it holds .1. */
    ifc = fsc_cabling_find(cab, 2, "ens4f1np1");
    CHECK(ifc != NULL && ifc->peer_node == 3 && ifc->link == 4);
    CHECK_STR(ifc ? ifc->addr_text : NULL, "10.123.4.1");
    /* Node 4 is the higher node of all its pairs: always .2. */
    ifc = fsc_cabling_find(cab, 4, "ens2f1np1");
    CHECK(ifc != NULL && ifc->peer_node == 3 && ifc->link == 6);
    CHECK_STR(ifc ? ifc->addr_text : NULL, "10.134.6.2");
    CHECK_STR(ifc ? ifc->peer_addr_text : NULL, "10.134.6.1");
    /* Not in the plan. */
    CHECK(fsc_cabling_find(cab, 2, "ens9f0np0") == NULL);
    CHECK(fsc_cabling_find(cab, 2, "") == NULL);
    CHECK(fsc_cabling_find(cab, 5, "ens1f0np0") == NULL);
    CHECK(fsc_cabling_find(cab, 0, "ens1f0np0") == NULL);
    fsc_cabling_destroy(cab);
}

/* ---- config ---------------------------------------------------------------------- */

static const char config_head[] = "sources: [{name: s, type: otlp}]\n"
                                  "topology:\n"
                                  "  devices: [{name: h1, role: host}]\n"
                                  "  cable_plan:\n"
                                  "    file: cables.txt\n";

static void layout_from_config(void)
{
    char text[1024], err[512];
    snprintf(text, sizeof(text),
             "%s"
             "    port_cards: [0, 1, 2, 3, 4, 5, 6, 7]\n"
             "    cards:\n"
             "      - {card: 3, np0: enp170s0f0np0, np1: enp170s0f1np1}\n"
             "    speed: 200G\n",
             config_head);
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const struct fsc_cable_plan *cp = &fsc_topology_of(cfg)->cable_plan;
    CHECK_INT(cp->n_cards, FSC_B300_CARDS);
    CHECK_STR(cp->cards[3].np0, "enp170s0f0np0");
    CHECK_STR(cp->cards[4].np1, "ens5f1np1"); /* a default */
    CHECK_INT(cp->port_cards[7], 7);
    struct fsc_cable_layout lay;
    CHECK_INT(fsc_cable_layout_from_config(&lay, cp, err, sizeof(err)), 0);
    CHECK_INT(lay.port_card[3], 3);
    CHECK_STR(lay.ifname[3][1], "enp170s0f1np1");
    CHECK_INT(lay.speed_bps, 200000000000ll);
    CHECK_INT(lay.default_names, 0xf7); /* only card 3 was named by the config */

    /* Port 4 now leads to card 3. The interface columns widen to the
     * longest name (13 bytes; the peer column keeps its 14-byte header). */
    struct fsc_cabling *cab = fsc_cabling_parse("1-4 > 2-1\n", 10, "c.txt", &lay, err, sizeof(err));
    CHECK(cab != NULL);
    const struct fsc_cabling_iface *ifc = cab ? fsc_cabling_find(cab, 1, "enp170s0f1np1") : NULL;
    CHECK(ifc != NULL && ifc->port == 4 && ifc->card == 3 && ifc->peer_card == 0);
    CHECK_STR(ifc ? ifc->peer_ifname : NULL, "ens1f1np1");
    CHECK_INT(ifc ? ifc->speed_bps : 0, 200000000000ll);
    CHECK(fsc_cabling_find(cab, 1, "ens4f0np0") == NULL);
    struct fsc_buf out = {0};
    CHECK_INT(fsc_cabling_render_node(cab, 1, NULL, &out), 0);
    const char *want =
        "# node 1: 1 of 8 ports cabled, peers 2\n"
        "ip addr flush dev enp170s0f0np0\n"
        "ip link set enp170s0f0np0 mtu 9000 up\n"
        "ip addr add 10.112.1.1/30 dev enp170s0f0np0\n"
        "ip addr flush dev enp170s0f1np1\n"
        "ip link set enp170s0f1np1 mtu 9000 up\n"
        "ip addr add 10.112.2.1/30 dev enp170s0f1np1\n"
        "#\n"
        "# interface      card  np  port  peer node  peer port  peer interface  link  local "
        "address   peer address\n"
        "# ens1f0np0      0     0   1     -          -          -               -     -          "
        "     -\n"
        "# ens1f1np1      0     1   1     -          -          -               -     -          "
        "     -\n"
        "# ens2f0np0      1     0   2     -          -          -               -     -          "
        "     -\n"
        "# ens2f1np1      1     1   2     -          -          -               -     -          "
        "     -\n"
        "# ens3f0np0      2     0   3     -          -          -               -     -          "
        "     -\n"
        "# ens3f1np1      2     1   3     -          -          -               -     -          "
        "     -\n"
        "# enp170s0f0np0  3     0   4     2          1          ens1f0np0       1     "
        "10.112.1.1/30   10.112.1.2\n"
        "# enp170s0f1np1  3     1   4     2          1          ens1f1np1       2     "
        "10.112.2.1/30   10.112.2.2\n"
        "# ens5f0np0      4     0   5     -          -          -               -     -          "
        "     -\n"
        "# ens5f1np1      4     1   5     -          -          -               -     -          "
        "     -\n"
        "# ens6f0np0      5     0   6     -          -          -               -     -          "
        "     -\n"
        "# ens6f1np1      5     1   6     -          -          -               -     -          "
        "     -\n"
        "# ens7f0np0      6     0   7     -          -          -               -     -          "
        "     -\n"
        "# ens7f1np1      6     1   7     -          -          -               -     -          "
        "     -\n"
        "# ens8f0np0      7     0   8     -          -          -               -     -          "
        "     -\n"
        "# ens8f1np1      7     1   8     -          -          -               -     -          "
        "     -\n";
    CHECK_STR(out.data, want);
    fsc_buf_free(&out);
    fsc_cabling_destroy(cab);
    fsc_config_destroy(cfg);

    /* Without a cable_plan section the layout is the default one. */
    cfg = parse("sources: [{name: s, type: otlp}]\n", err, sizeof(err));
    CHECK(cfg != NULL);
    struct fsc_cable_layout def;
    fsc_cable_layout_default(&def);
    CHECK_INT(fsc_cable_layout_from_config(&lay, cfg ? &fsc_topology_of(cfg)->cable_plan : NULL,
                                           err, sizeof(err)),
              0);
    CHECK(memcmp(&lay, &def, sizeof(lay)) == 0);
    fsc_config_destroy(cfg);
}

static void config_errors(void)
{
    static const struct {
        const char *tail, *want;
    } cases[] = {
        {"    port_cards: [7, 4, 6, 5, 0, 3, 1, 7]\n",
         "t.yaml:6:39: topology.cable_plan.port_cards[7]: card 7 is already behind port 1"},
        {"    port_cards: [7, 4, 6]\n", "t.yaml:6:17: topology.cable_plan.port_cards: needs 8 "
                                        "card numbers, one per physical port, got 3"},
        {"    port_cards: [7, 4, 6, 5, 0, 3, 1, 8]\n",
         "t.yaml:6:39: topology.cable_plan.port_cards[7]: 8 is out of range (0..7)"},
        {"    port_cards: 7\n",
         "t.yaml:6:17: topology.cable_plan.port_cards: expected a list of 8 card numbers (ports "
         "1..8 in order), e.g. [7, 4, 6, 5, 0, 3, 1, 2]"},
        {"    cards: [{card: 3, np0: a, np1: b}, {card: 3, np0: c, np1: d}]\n",
         "t.yaml:6:40: topology.cable_plan.cards[1].card: card 3 is already cards[0]"},
        {"    cards: [{card: 3, np0: ens1f0np0, np1: x}]\n",
         "t.yaml:6:13: topology.cable_plan.cards[0]: \"ens1f0np0\" is also the name of card 0 np0 "
         "(its default name: give that card's names too)"},
        {"    cards: [{card: 3, np0: a, np1: b}, {card: 4, np0: c, np1: a}]\n",
         "t.yaml:6:40: topology.cable_plan.cards[1]: \"a\" is also the name of card 3 np0"},
        {"    cards: [{card: 3, np0: a, np1: a}]\n",
         "t.yaml:6:13: topology.cable_plan.cards[0]: \"a\" is also the name of card 3 np0"},
        {"    cards: [{card: 2, np0: abcdefghijklmnop, np1: b}]\n",
         "t.yaml:6:28: topology.cable_plan.cards[0].np0: \"abcdefghijklmnop\" is longer than a "
         "Linux interface name (15 bytes)"},
        {"    cards: [{card: 8, np0: a, np1: b}]\n",
         "t.yaml:6:20: topology.cable_plan.cards[0].card: 8 is out of range (0..7)"},
        {"    nodes: [{node: 10, device: h1}]\n",
         "t.yaml:6:20: topology.cable_plan.nodes[0].node: 10 is out of range (1..9)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[1024];
        snprintf(text, sizeof(text), "%s%s", config_head, cases[i].tail);
        expect_error(text, cases[i].want);
    }
}

TEST_MAIN(TEST(parse_valid), TEST(parse_errors), TEST(address_rule), TEST(default_port_order),
          TEST(example_golden), TEST(lookups), TEST(layout_from_config), TEST(config_errors))
