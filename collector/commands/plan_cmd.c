/* `fabricscope plan`: prints, from one cables.txt, what every B300 node must
 * be configured with and what each interface must face, so operators wire,
 * configure and verify from one source of truth (--dry-run, the default), or
 * applies one node's commands on this host (--apply, plan_apply.c). Command
 * code: it prints and returns the exit status; the plan itself comes from
 * cable_plan.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands/plan_apply.h"
#include "daemon/plugins.h"
#include "config/config.h"
#include "model/topology_keys.h"
#include "model/cable_plan.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

const char fsc_plan_usage[] =
    "Usage: fabricscope plan [--dry-run | --apply] [-c CONFIG] [CABLES_FILE] [--node N]\n"
    "\n"
    "Reads the cable plan of a switchless DGX B300 cluster and prints, for every node\n"
    "that has a cable (or only node N), a shell block: `ip addr flush dev IF`,\n"
    "`ip link set IF mtu 9000 up` and `ip addr add ADDR/30 dev IF` for each cabled\n"
    "interface (a rerun after re-cabling replaces the old addresses), then the expected map as\n"
    "comment lines: interface, card, np, physical port, peer node, peer port, peer\n"
    "interface, link number, local address/30 and peer address. Nodes are separated by\n"
    "a blank line; `fabricscope plan FILE --node 2 | sudo sh` configures node 2, as\n"
    "does `sudo fabricscope plan --apply FILE --node 2` run on node 2.\n"
    "\n"
    "CABLES_FILE has one cable per line, `A-P > B-Q` (node A physical port P to node B\n"
    "port Q, e.g. `1-3 > 2-3`); blank lines and # comments are allowed. Nodes are 1-9,\n"
    "ports 1-8. A cable carries two links, np0 to np0 and np1 to np1 of the cards\n"
    "behind its ports. Link L between nodes a < b is 10.1<a><b>.L.0/30: .1 on node a,\n"
    ".2 on node b; links are numbered from 1 by node a's port, np0 before np1.\n"
    "See docs/CABLING.md.\n"
    "\n"
    "Options:\n"
    "  --dry-run             print the commands and the map, change nothing (the default)\n"
    "  --apply               run node N's commands on this host instead (needs --node N and\n"
    "                        root): first checks that every planned interface of node N\n"
    "                        exists here (else changes nothing), then runs the `ip` lines\n"
    "                        --dry-run prints, in order, each echoed as `+ LINE`, and\n"
    "                        stops at the first that fails; a rerun is safe (flush first)\n"
    "  -c, --config CONFIG   take the hardware layout (topology.cable_plan: port_cards,\n"
    "                        cards, speed) and node names (nodes) from CONFIG; without\n"
    "                        it the defaults apply: ports 1-8 lead to cards\n"
    "                        7 4 6 5 0 3 1 2, card c has ens<c+1>f0np0 and ens<c+1>f1np1\n"
    "  CABLES_FILE           the cables file; default: topology.cable_plan.file of CONFIG\n"
    "  --node N              print (or apply) node N only (1-9; it must have a cable)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Interface names that no config gave (no -c, or cards left out of\n"
    "topology.cable_plan.cards) are the built-in defaults: a warning on stderr names\n"
    "those cards; check them with `ip -br link` on the node.\n"
    "\n"
    "Exit status: 0 success; 2 usage error, unreadable or invalid CONFIG or\n"
    "CABLES_FILE (printed as FILE:LINE:COLUMN: what is wrong), or N without cables;\n"
    "1 when the output cannot be written, or with --apply when an interface is\n"
    "missing or a command fails.\n";

static int usage_error(const char *what, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "fabricscope: %s '%s'\n\n%s", what, arg, fsc_plan_usage);
    else
        fprintf(stderr, "fabricscope: %s\n\n%s", what, fsc_plan_usage);
    return EXIT_USAGE;
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

struct plan_args {
    const char *config;
    const char *cables;
    const char *node; /* as given */
    bool dry_run, apply;
};

/* Returns -1 when done (help printed or usage error: *status set). */
static int parse_args(int argc, char **argv, struct plan_args *a, int *status)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (is_help(arg)) {
            fputs(fsc_plan_usage, stdout);
            *status = EXIT_OK;
            return -1;
        } else if (strcmp(arg, "-c") == 0 || strcmp(arg, "--config") == 0) {
            if (++i >= argc) {
                *status = usage_error("missing CONFIG after", arg);
                return -1;
            }
            a->config = argv[i];
        } else if (strncmp(arg, "--config=", 9) == 0) {
            a->config = arg + 9;
        } else if (strcmp(arg, "--node") == 0) {
            if (++i >= argc) {
                *status = usage_error("missing N after", arg);
                return -1;
            }
            a->node = argv[i];
        } else if (strncmp(arg, "--node=", 7) == 0) {
            a->node = arg + 7;
        } else if (strcmp(arg, "--dry-run") == 0) {
            a->dry_run = true;
        } else if (strcmp(arg, "--apply") == 0) {
            a->apply = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            *status = usage_error("unknown option", arg);
            return -1;
        } else if (a->cables != NULL) {
            *status = usage_error("unexpected argument", arg);
            return -1;
        } else {
            a->cables = arg;
        }
    }
    if (a->apply && a->dry_run) {
        *status = usage_error("--apply and --dry-run exclude each other", NULL);
        return -1;
    }
    if (a->apply && a->node == NULL) {
        *status = usage_error("--apply needs --node N: the node this host is", NULL);
        return -1;
    }
    return 0;
}

/* The device name of node n in the config's cable plan, or NULL. */
static const char *node_device(const struct fsc_config *cfg, uint32_t n)
{
    const struct fsc_cable_plan *cp = cfg ? &fsc_topology_of(cfg)->cable_plan : NULL;
    for (size_t i = 0; cp != NULL && cp->present && i < cp->n_nodes; i++) {
        if (cp->nodes[i].node == n)
            return cp->nodes[i].device;
    }
    return NULL;
}

/* Warns on stderr (never stdout: the plan is piped to sh) when some cards'
 * interface names are the built-in placeholders rather than the config's. */
static void warn_default_names(const struct fsc_cable_layout *lay)
{
    if (lay->default_names == 0)
        return;
    fputs("fabricscope: warning: the interface names of ", stderr);
    if (lay->default_names == (uint8_t)((1u << FSC_B300_CARDS) - 1)) {
        fputs("every card", stderr);
    } else {
        const char *sep = "card ";
        for (unsigned c = 0; c < FSC_B300_CARDS; c++) {
            if (lay->default_names & (1u << c)) {
                fprintf(stderr, "%s%u", sep, c);
                sep = ", ";
            }
        }
    }
    fputs(" are the built-in defaults (card c: ens<c+1>f0np0, ens<c+1>f1np1), not named "
          "by a config: check them with `ip -br link` on the node and name them in "
          "topology.cable_plan.cards (docs/CABLING.md)\n",
          stderr);
}

/* Renders node `only` (0: every node) and writes it to stdout, or with
 * apply runs node `only`'s commands (fsc_plan_apply). */
static int print_plan(const struct fsc_cabling *cab, const struct fsc_config *cfg, uint32_t only,
                      bool apply)
{
    struct fsc_buf out = {.limit = 1 << 20};
    int rc = 0;
    bool first = true;
    for (uint32_t n = 1; rc == 0 && n <= FSC_CABLE_MAX_NODE; n++) {
        if ((only != 0 && n != only) || fsc_cabling_node(cab, n) == NULL)
            continue;
        if (!first)
            rc = fsc_buf_puts(&out, "\n");
        first = false;
        if (rc == 0)
            rc = fsc_cabling_render_node(cab, n, node_device(cfg, n), &out);
    }
    if (rc != 0) {
        fprintf(stderr, "fabricscope: cannot render the plan: %s\n", strerror(-rc));
        fsc_buf_free(&out);
        return EXIT_RUNTIME;
    }
    if (apply) {
        rc = fsc_plan_apply(out.data, out.len, cab, only);
        fsc_buf_free(&out);
        return rc == 0 ? EXIT_OK : EXIT_RUNTIME;
    }
    size_t w = out.len ? fwrite(out.data, 1, out.len, stdout) : 0;
    bool ok = w == out.len && fflush(stdout) == 0;
    fsc_buf_free(&out);
    if (!ok) {
        fprintf(stderr, "fabricscope: cannot write the plan: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

int fsc_plan_main(int argc, char **argv)
{
    struct plan_args a = {0};
    int status = EXIT_OK;
    char err[1024];
    if (parse_args(argc, argv, &a, &status) != 0)
        return status;

    uint32_t only = 0;
    if (a.node != NULL) {
        if (strlen(a.node) != 1 || a.node[0] < '1' || a.node[0] > '0' + FSC_CABLE_MAX_NODE)
            return usage_error("--node takes a node number 1-9, not", a.node);
        only = (uint32_t)(a.node[0] - '0');
    }

    struct fsc_config *cfg = NULL;
    if (a.config != NULL) {
        cfg = fsc_app_config_load(a.config, err, sizeof(err));
        if (cfg == NULL) {
            fprintf(stderr, "%s\n", err);
            return EXIT_USAGE;
        }
    }
    const struct fsc_cable_plan *cp = cfg ? &fsc_topology_of(cfg)->cable_plan : NULL;
    if (a.cables == NULL) {
        if (cp == NULL || !cp->present) {
            fsc_config_destroy(cfg);
            return usage_error(cfg ? "CONFIG has no topology.cable_plan: give CABLES_FILE"
                                   : "missing CABLES_FILE",
                               NULL);
        }
        a.cables = cp->file;
    }

    struct fsc_cable_layout lay;
    struct fsc_cabling *cab = NULL;
    status = EXIT_USAGE;
    if (fsc_cable_layout_from_config(&lay, cp, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: topology.cable_plan: %s\n", a.config, err);
        goto out;
    }
    cab = fsc_cabling_load(a.cables, &lay, err, sizeof(err));
    if (cab == NULL) {
        fprintf(stderr, "%s\n", err);
        goto out;
    }
    if (only != 0 && fsc_cabling_node(cab, only) == NULL) {
        fprintf(stderr, "fabricscope: node %u has no cable in %s\n", (unsigned)only, a.cables);
        goto out;
    }
    warn_default_names(&lay);
    status = print_plan(cab, cfg, only, a.apply);
out:
    fsc_cabling_destroy(cab);
    fsc_config_destroy(cfg);
    return status;
}
