/* Renders one node of a cable plan as a shell script: `ip` commands, then
 * the expected map as a table of comment lines (so an operator can pipe the
 * whole block to `sh` on that node, and still read what each interface
 * should face). The layout is fixed so it can be diffed and checked by eye:
 *
 *   # node 1 (b300-01): 8 of 8 ports cabled, peers 2, 3, 4
 *   ip addr flush dev ens8f0np0
 *   ip link set ens8f0np0 mtu 9000 up
 *   ip addr add 10.112.1.1/30 dev ens8f0np0
 *   ...
 *   #
 *   # interface  card  np  port  peer node  peer port  peer interface  link  local address   peer
 * address # ens8f0np0  7     0   1     2          1          ens8f0np0
 * 1     10.112.1.1/30   10.112.1.2
 *
 * Columns are left-aligned and separated by two spaces; the interface
 * columns are as wide as the longest name of the layout (at least their
 * header), the others have fixed widths. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/cable_plan.h"

enum { COLS = 10 };

static const char *const headers[COLS] = {
    "interface", "card",           "np",   "port",          "peer node",
    "peer port", "peer interface", "link", "local address", "peer address",
};

/* Column widths: the longest value each column can hold, or its header. */
static void widths(const struct fsc_cable_layout *lay, int w[COLS])
{
    static const int fixed[COLS] = {0, 4, 2, 4, 9, 9, 0, 4, 14, 0};
    size_t ifw = 0;
    for (size_t c = 0; c < FSC_B300_CARDS; c++) {
        for (size_t np = 0; np < 2; np++) {
            size_t l = strlen(lay->ifname[c][np]);
            ifw = l > ifw ? l : ifw;
        }
    }
    for (int i = 0; i < COLS; i++)
        w[i] = fixed[i];
    w[0] = (int)(ifw > strlen(headers[0]) ? ifw : strlen(headers[0]));
    w[6] = (int)(ifw > strlen(headers[6]) ? ifw : strlen(headers[6]));
}

/* "# " + cells padded to their width, two spaces apart, the last unpadded. */
static int row(struct fsc_buf *out, const int w[COLS], const char *const cell[COLS])
{
    int rc = fsc_buf_printf(out, "# %-*s", w[0], cell[0]);
    for (int i = 1; rc == 0 && i < COLS - 1; i++)
        rc = fsc_buf_printf(out, "  %-*s", w[i], cell[i]);
    return rc == 0 ? fsc_buf_printf(out, "  %s\n", cell[COLS - 1]) : rc;
}

static int map_row(struct fsc_buf *out, const int w[COLS], const struct fsc_cabling_iface *ifc)
{
    char card[12], np[12], port[12], pnode[12], pport[12], link[12], local[24];
    snprintf(card, sizeof(card), "%u", (unsigned)ifc->card);
    snprintf(np, sizeof(np), "%u", (unsigned)ifc->np);
    snprintf(port, sizeof(port), "%u", (unsigned)ifc->port);
    if (!ifc->cabled) {
        const char *cell[COLS] = {ifc->ifname, card, np, port, "-", "-", "-", "-", "-", "-"};
        return row(out, w, cell);
    }
    snprintf(pnode, sizeof(pnode), "%u", (unsigned)ifc->peer_node);
    snprintf(pport, sizeof(pport), "%u", (unsigned)ifc->peer_port);
    snprintf(link, sizeof(link), "%u", (unsigned)ifc->link);
    snprintf(local, sizeof(local), "%s/%d", ifc->addr_text, FSC_CABLING_PREFIX_LEN);
    const char *cell[COLS] = {
        ifc->ifname,        card, np, port, pnode, pport, ifc->peer_ifname, link, local,
        ifc->peer_addr_text};
    return row(out, w, cell);
}

/* "# node N (device): C of 8 ports cabled, peers 2, 3, 4" */
static int header(struct fsc_buf *out, uint32_t node, const char *device,
                  const struct fsc_cabling_iface *ifc)
{
    unsigned peers = 0, ports = 0;
    for (size_t i = 0; i < FSC_CABLING_IFACES; i += 2) {
        if (ifc[i].cabled) {
            ports++;
            peers |= 1u << ifc[i].peer_node;
        }
    }
    int rc = fsc_buf_printf(out, "# node %u", (unsigned)node);
    if (rc == 0 && device != NULL)
        rc = fsc_buf_printf(out, " (%s)", device);
    if (rc == 0)
        rc = fsc_buf_printf(out, ": %u of %d ports cabled, peers", ports, FSC_B300_PORTS);
    const char *sep = " ";
    for (unsigned n = 1; rc == 0 && n <= FSC_CABLE_MAX_NODE; n++) {
        if (peers & (1u << n)) {
            rc = fsc_buf_printf(out, "%s%u", sep, n);
            sep = ", ";
        }
    }
    return rc == 0 ? fsc_buf_puts(out, "\n") : rc;
}

int fsc_cabling_render_node(const struct fsc_cabling *cab, uint32_t node, const char *device,
                            struct fsc_buf *out)
{
    const struct fsc_cabling_iface *ifc = fsc_cabling_node(cab, node);
    if (ifc == NULL)
        return -ENOENT;
    int w[COLS];
    widths(fsc_cabling_layout(cab), w);
    int rc = header(out, node, device, ifc);
    for (size_t i = 0; rc == 0 && i < FSC_CABLING_IFACES; i++) {
        if (!ifc[i].cabled)
            continue;
        rc = fsc_buf_printf(out,
                            "ip addr flush dev %s\nip link set %s mtu %d up\n"
                            "ip addr add %s/%d dev %s\n",
                            ifc[i].ifname, ifc[i].ifname, FSC_CABLING_MTU, ifc[i].addr_text,
                            FSC_CABLING_PREFIX_LEN, ifc[i].ifname);
    }
    if (rc == 0)
        rc = fsc_buf_puts(out, "#\n");
    if (rc == 0)
        rc = row(out, w, headers);
    for (size_t i = 0; rc == 0 && i < FSC_CABLING_IFACES; i++)
        rc = map_row(out, w, &ifc[i]);
    return rc;
}
