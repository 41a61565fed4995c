/* The B300 cable plan: cables.txt parsed against the node's hardware layout
 * into the expected map of every (node, interface), and the per-node `ip`
 * commands that configure it. Pure: no sysfs, no sockets, no globals; the
 * NIC poller compares what a host really has against this map.
 *
 * Facts and decisions (docs/CABLING.md has the long form):
 *
 * - A DGX B300 node has 8 ConnectX-8 cards (0..7), each with two 400G
 *   netdevs np0 and np1: 16 interfaces. Which netdev names a card has is
 *   configuration (topology.cable_plan.cards); the default is card c ->
 *   "ens<c+1>f0np0" / "ens<c+1>f1np1" (no authoritative naming exists).
 * - Physical ports 1..8 on the back lead to cards in the field report's
 *   order 7 4 6 5 0 3 1 2 (topology.cable_plan.port_cards).
 * - cables.txt: one cable per line, `A-P > B-Q` = node A port P to node B
 *   port Q (`1-3 > 2-3`); the direction of `>` carries no meaning. Blank
 *   lines and `#` comments (whole line or after a cable) are allowed;
 *   spaces and tabs may surround the two ends, not split one (`1-3` is one
 *   token). Errors: syntax, node outside 1..9, port outside 1..8, a port
 *   used twice, a node cabled to itself, a line over 255 bytes, a file over
 *   1 MiB or without any cable.
 * - One cable = two links. An OSFP cage carries both 400G ports of its card,
 *   so a cable joins np0 to np0 and np1 to np1 of the cards behind its two
 *   ends: two /30 subnets per cable.
 * - Addressing: 10.1<a><b>.<link>.<end>/30 with a < b the two node numbers
 *   (one digit each, so the second octet is 112..189), <end> 1 on node a
 *   and 2 on node b. <link> numbers the links between a and b from 1: the
 *   pair's cables ordered by node a's physical port, np0 before np1 (cable
 *   k of the pair carries links 2k-1 and 2k). Numbering from 1 keeps
 *   10.1ab.0.x unused, so such an address on a host is always a mistake;
 *   ordering by port (not file line) keeps addresses stable when the file
 *   is reordered. The /30 network is 10.1ab.<link>.0.
 *
 * Limits follow from the rules: at most 9 nodes, 8 cables per node, so 36
 * cables and 144 interfaces; a plan is one allocation of fixed size.
 *
 * Thread: a plan is immutable after parsing; any number of threads may
 * read it. */
#ifndef FSC_NIC_CABLE_PLAN_H
#define FSC_NIC_CABLE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "model/topology.h"

#define FSC_CABLING_IFNAME_SIZE 16 /* IFNAMSIZ: 15 bytes and the NUL */
#define FSC_CABLING_IFACES      (2 * FSC_B300_CARDS)
#define FSC_CABLING_MAX_CABLES  (FSC_CABLE_MAX_NODE * FSC_B300_PORTS / 2)
#define FSC_CABLING_MAX_LINE    255       /* bytes of one line, without its newline */
#define FSC_CABLING_MAX_FILE    (1 << 20) /* bytes of cables.txt */
#define FSC_CABLING_PREFIX_LEN  30
/* The MTU the plan sets on every cabled interface: jumbo frames, the step the
 * field report's bring-up took on every back-to-back B300 link (RoCE traffic
 * with 4 KiB payloads does not fit the default 1500). */
#define FSC_CABLING_MTU 9000

/* The hardware layout the plan is read against (a copy, so a plan does not
 * borrow from the config). */
struct fsc_cable_layout {
    uint8_t port_card[FSC_B300_PORTS]; /* physical port p (1-based) -> card port_card[p - 1] */
    char ifname[FSC_B300_CARDS][2][FSC_CABLING_IFNAME_SIZE]; /* [card][np] */
    uint64_t speed_bps;                                      /* per interface */
    uint8_t default_names; /* bit c: card c's interface names are the built-in defaults
                            * (no config named them): placeholders to check on the node */
};

/* Fills *lay with the built-in defaults (model/topology.h). Thread: any. */
void fsc_cable_layout_default(struct fsc_cable_layout *lay);

/* Fills *lay from a loaded config's topology.cable_plan, or with the
 * defaults when cp is NULL or not present. Returns 0, or -EINVAL with a
 * sentence in err when cp is not what the config loader produces (wrong
 * card count, a name too long, a port order that is not a permutation).
 * Thread: any. */
int fsc_cable_layout_from_config(struct fsc_cable_layout *lay, const struct fsc_cable_plan *cp,
                                 char *err, size_t errlen);

/* One interface of the expected map. */
struct fsc_cabling_iface {
    uint32_t node;      /* 1..9 */
    uint32_t port;      /* physical port 1..8 */
    uint32_t card;      /* 0..7, the card behind port */
    uint32_t np;        /* 0 or 1 */
    const char *ifname; /* owned by the plan */
    bool cabled;        /* false: its port has no cable; every field below is 0 / NULL / "" */
    uint32_t peer_node, peer_port, peer_card; /* peer np == np */
    const char *peer_ifname;
    uint32_t link;            /* 1..16, numbering within the node pair */
    uint32_t addr, peer_addr; /* IPv4 in host byte order; prefix FSC_CABLING_PREFIX_LEN */
    char addr_text[16];       /* "10.112.1.1" (without the prefix) */
    char peer_addr_text[16];  /* "10.112.1.2" */
    uint64_t speed_bps;       /* expected link speed (the layout's) */
    uint32_t line;            /* the cable's line in cables.txt */
};

struct fsc_cabling;

/* Parses cables.txt text[0..len) (need not be NUL-terminated) against
 * layout `lay` (NULL: the defaults). `name` prefixes messages.
 * Returns a plan the caller owns (fsc_cabling_destroy), or NULL with
 * "name:line:col: sentence" in err ("name: sentence" for whole-file
 * problems: too large, no cable; "out of memory"). The first error stops
 * the parse. Thread: any. */
struct fsc_cabling *fsc_cabling_parse(const char *text, size_t len, const char *name,
                                      const struct fsc_cable_layout *lay, char *err, size_t errlen);

/* As fsc_cabling_parse() from a file (messages use `path`); I/O errors are
 * "path: strerror". Reads at most FSC_CABLING_MAX_FILE + 1 bytes. */
struct fsc_cabling *fsc_cabling_load(const char *path, const struct fsc_cable_layout *lay,
                                     char *err, size_t errlen);

/* Frees the plan. NULL is a no-op. */
void fsc_cabling_destroy(struct fsc_cabling *cab);

/* The layout the plan was read against. */
const struct fsc_cable_layout *fsc_cabling_layout(const struct fsc_cabling *cab);

/* Number of cables (lines that are not blank or comments). */
size_t fsc_cabling_n_cables(const struct fsc_cabling *cab);

/* The expected map: fsc_cabling_n_ifaces() entries, FSC_CABLING_IFACES per
 * node that has at least one cable, ordered by node, then physical port,
 * then np (the order of the cages on the back of a node). Uncabled ports of
 * such a node are in the map with cabled == false. i < n_ifaces. */
size_t fsc_cabling_n_ifaces(const struct fsc_cabling *cab);
const struct fsc_cabling_iface *fsc_cabling_iface(const struct fsc_cabling *cab, size_t i);

/* The FSC_CABLING_IFACES entries of `node` (a slice of the map, in map
 * order), or NULL when the node has no cable. */
const struct fsc_cabling_iface *fsc_cabling_node(const struct fsc_cabling *cab, uint32_t node);

/* The entry of interface `ifname` on `node`, or NULL when the node has no
 * cable or the layout has no such interface. The poller's question "what
 * should this interface be?": check ->cabled, then ->peer_*, ->addr /
 * ->addr_text with FSC_CABLING_PREFIX_LEN, and ->speed_bps. */
const struct fsc_cabling_iface *fsc_cabling_find(const struct fsc_cabling *cab, uint32_t node,
                                                 const char *ifname);

/* Appends node's block to out: a "# node N" header (with " (device)" when
 * device is not NULL), then for each cabled interface in map order `ip addr
 * flush dev IF` (a rerun after re-cabling must not leave the old link's
 * address), `ip link set IF mtu FSC_CABLING_MTU up` and `ip addr add A/30
 * dev IF`, then the expected map as a table
 * of "# " comment lines, so the whole block is a valid shell script.
 * Returns 0, -ENOENT when the node has no cable, or the fsc_buf error
 * (-ENOMEM, -E2BIG). Thread: any (out is the caller's). */
int fsc_cabling_render_node(const struct fsc_cabling *cab, uint32_t node, const char *device,
                            struct fsc_buf *out);

/* Formats an IPv4 address (host byte order) as a dotted quad into buf
 * (16 bytes suffice). Returns buf. */
const char *fsc_cabling_addr_format(uint32_t addr, char *buf, size_t size);

/* ---- the `fabricscope plan` command (plan_cmd.c) ---------------------------- */

/* Usage text of `fabricscope plan` (for `help plan` and `plan --help`). */
extern const char fsc_plan_usage[];

/* Runs `fabricscope plan`: argv[0] is "plan". Writes the plan to stdout and
 * errors to stderr; returns the process exit status (0 success, 2 usage,
 * config or cables-file error, 1 output failure). Thread: main. */
int fsc_plan_main(int argc, char **argv);

#endif
