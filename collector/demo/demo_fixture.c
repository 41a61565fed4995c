/* The B300 mesh's sysfs trees (demo_mesh_int.h has the layout): written once
 * before the collector starts, with the static faults in place, and the
 * moving counters' files left open for the stepping thread.
 *
 * The trees are the NIC fixture's (fsc_nicfx_tree_create, the writer the
 * tests' fabricscope-nic-fixture uses), for 4 nodes x 16 devices, plus what
 * the demo adds: netdev names from the cable plan layout, each node's
 * addresses and neighbour table (ip_addr.txt, proc/net/arp), every
 * interface's ethtool file (fsc_nicfx_ethtool_write), and the two static
 * faults:
 *   DEMO_F_PCIE  b300-01's device behind ens7f0np0 trained at
 *                "32.0 GT/s PCIe" x8 (max "64.0 GT/s PCIe" x16);
 *   DEMO_F_SWAP  the cables as plugged (demo_cables_built_txt) differ from
 *                the plan: b300-04's ports 4 and 5 hold each other's cable.
 *                Every host is addressed by the plan, so each of the eight
 *                interfaces on those two cables asks ARP for its planned
 *                peer through a cable that reaches another port, which
 *                (arp_ignore=1) does not answer: an incomplete entry, and
 *                the host check's `peer` mismatch, exactly as on real
 *                hosts. Those interfaces carry no traffic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "demo/demo_mesh_int.h"
#include "model/cable_plan.h"

/* Builds "<a>/<b>" into out; fails on truncation. */
static int join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s/%s", a, b);
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Writes nic's tree under root and opens its moving counters. Returns 0 or
 * -1 with a sentence in err. */
static int write_nic(const char *root, struct mesh_nic *nic, char *err, size_t errlen)
{
    if (fsc_nicfx_tree_create(root, &nic->dev, err, errlen) != 0)
        return -1;
    for (int i = 0; i < MESH_MOVING; i++) {
        nic->fd[i] = fsc_nicfx_ctr_open(root, &nic->dev, mesh_moving[i]);
        if (nic->fd[i] < 0) {
            snprintf(err, errlen, "cannot open %s of %s: %s", fsc_nicfx_ctrs[mesh_moving[i]].name,
                     nic->dev.rdma, strerror(-nic->fd[i]));
            return -1;
        }
        nic->last_len[i] = 2; /* "0\n" */
    }
    return 0;
}

/* Index of interface `ifname` in the default layout (K = 2 card + np), or -1. */
static int layout_index(const struct fsc_cable_layout *lay, const char *ifname)
{
    for (int k = 0; k < DEMO_NICS; k++)
        if (strcmp(lay->ifname[k / 2][k % 2], ifname) == 0)
            return k;
    return -1;
}

/* Bytes per second one way on (node, device): DEMO_B300_GBPS. */
static uint64_t tx_rate(uint64_t seed, unsigned node, unsigned k)
{
    return (uint64_t)DEMO_B300_GBPS(node + 1, k, seed) * 1000000000ULL / 8;
}

/* Where every interface's cable really goes (the as-built plan), its planned
 * addresses, and whether the two disagree. Checks that they disagree on
 * exactly the DEMO_F_SWAP ports (the built text and the constants describe
 * one fault). */
static int mesh_wiring(struct demo_mesh *mesh, const struct fsc_cable_layout *lay,
                       const struct fsc_cabling *plan, const struct fsc_cabling *built, char *err,
                       size_t errlen)
{
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++) {
            struct mesh_nic *nic = &mesh->nic[n][k];
            const char *ifname = lay->ifname[k / 2][k % 2];
            const struct fsc_cabling_iface *want = fsc_cabling_find(plan, n + 1, ifname);
            const struct fsc_cabling_iface *is = fsc_cabling_find(built, n + 1, ifname);
            nic->peer_n = nic->peer_k = -1;
            if (want && want->cabled) {
                nic->cabled = true;
                nic->addr = want->addr;
                nic->peer_addr = want->peer_addr;
            }
            if (is && is->cabled && is->peer_node >= 1 && is->peer_node <= DEMO_NODES) {
                nic->peer_n = (int)is->peer_node - 1;
                nic->peer_k = layout_index(lay, is->peer_ifname);
            }
            nic->miscabled =
                nic->cabled && (!is || !is->cabled || is->peer_node != want->peer_node ||
                                strcmp(is->peer_ifname, want->peer_ifname) != 0);
            bool swap_port = want && n + 1 == DEMO_SWAP_NODE &&
                             (want->port == DEMO_SWAP_PORT_A || want->port == DEMO_SWAP_PORT_B);
            if (n + 1 == DEMO_SWAP_NODE && nic->miscabled != swap_port) {
                snprintf(err, errlen, "the demo's as-built cables do not match DEMO_F_SWAP (%s %s)",
                         demo_node_names[n], ifname);
                return -1;
            }
        }
    return 0;
}

/* Names, rates, wiring and fault flags of every device, from the plan. */
static int mesh_plan(struct demo_mesh *mesh, char *err, size_t errlen)
{
    struct demo_run *run = mesh->run;
    struct fsc_cable_layout lay;
    char e[512];
    fsc_cable_layout_default(&lay);
    struct fsc_cabling *cab = fsc_cabling_load(run->cables_path, &lay, e, sizeof(e));
    if (!cab) {
        snprintf(err, errlen, "demo cable plan: %s", e);
        return -1;
    }
    struct fsc_cabling *built = fsc_cabling_parse(
        demo_cables_built_txt, strlen(demo_cables_built_txt), "as-built", &lay, e, sizeof(e));
    if (!built) {
        fsc_cabling_destroy(cab);
        snprintf(err, errlen, "demo as-built cables: %s", e);
        return -1;
    }
    int rc = 0;
    for (unsigned n = 0; n < DEMO_NODES && rc == 0; n++)
        for (unsigned k = 0; k < DEMO_NICS && rc == 0; k++) {
            struct fsc_nicfx_dev *dev = &mesh->nic[n][k].dev;
            rc = fsc_nicfx_dev_init(dev, n + 1, k, lay.ifname[k / 2][k % 2], err, errlen);
            dev->lifespan_ms = 200; /* demo_fixture_step.c says why */
        }
    if (rc == 0)
        rc = mesh_wiring(mesh, &lay, cab, built, err, errlen);
    fsc_cabling_destroy(built);
    fsc_cabling_destroy(cab);
    if (rc != 0)
        return -1;
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++) {
            struct mesh_nic *nic = &mesh->nic[n][k];
            nic->tx_bps = nic->miscabled ? 0 : tx_rate(run->opt.seed, n, k);
        }
    /* Each interface receives what the port at the other end of its cable
     * sends (an uncabled one nothing; the full mesh has none). */
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++) {
            struct mesh_nic *nic = &mesh->nic[n][k];
            nic->rx_bps = nic->peer_n >= 0 && nic->peer_k >= 0
                              ? mesh->nic[nic->peer_n][nic->peer_k].tx_bps
                              : 0;
        }

    static const enum demo_fault_id flt[] = {DEMO_F_PCIE, DEMO_F_CNP, DEMO_F_REORDER,
                                             DEMO_F_NIC_BURST};
    for (size_t i = 0; i < sizeof(flt) / sizeof(flt[0]); i++) {
        const struct demo_fault *f = &demo_faults[flt[i]];
        int n = -1, k = layout_index(&lay, f->port);
        for (unsigned j = 0; j < DEMO_NODES; j++)
            if (strcmp(demo_node_names[j], f->device) == 0)
                n = (int)j;
        if (n < 0 || k < 0) {
            snprintf(err, errlen, "fault %s names no B300 device (%s %s)", f->event, f->device,
                     f->port);
            return -1;
        }
        struct mesh_nic *nic = &mesh->nic[n][k];
        switch (flt[i]) {
        case DEMO_F_PCIE:
            nic->dev.pcie_degraded = true;
            break;
        case DEMO_F_CNP:
            nic->cnp_storm = true;
            break;
        case DEMO_F_NIC_BURST:
            /* Over a cable that works: the far end receives the burst. */
            if (nic->miscabled || nic->peer_n < 0 || nic->peer_k < 0) {
                snprintf(err, errlen, "the microburst's port %s %s has no working cable", f->device,
                         f->port);
                return -1;
            }
            nic->burst_tx = true;
            mesh->nic[nic->peer_n][nic->peer_k].burst_rx = true;
            break;
        default:
            nic->reorder = true;
            break;
        }
    }
    return 0;
}

/* Node n's ip_addr.txt and proc/net/arp (demo_mesh_int.h has the rules), in
 * the text `ip -4 -o addr show` and the kernel print. */
static int write_host_view(const struct demo_mesh *mesh, unsigned n)
{
    const char *root = mesh->run->node_root[n];
    char path[DEMO_PATH];
    if (join(path, sizeof(path), root, "ip_addr.txt") != 0)
        return -ENAMETOOLONG;
    FILE *a = fopen(path, "w");
    if (!a)
        return -errno;
    fprintf(a, "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever "
               "preferred_lft forever\n");
    for (unsigned k = 0; k < DEMO_NICS; k++) {
        const struct mesh_nic *nic = &mesh->nic[n][k];
        char ip[16], brd[16];
        if (!nic->cabled)
            continue;
        fsc_cabling_addr_format(nic->addr, ip, sizeof(ip));
        fsc_cabling_addr_format(nic->addr | 3u, brd, sizeof(brd));
        fprintf(a,
                "%u: %s    inet %s/%u brd %s scope global %s\\       valid_lft forever "
                "preferred_lft forever\n",
                k + 2, nic->dev.netdev, ip, (unsigned)FSC_CABLING_PREFIX_LEN, brd, nic->dev.netdev);
    }
    int rc = ferror(a) ? -EIO : 0;
    if (fclose(a) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0)
        return rc;

    char dir[DEMO_PATH];
    if (join(dir, sizeof(dir), root, "proc/net") != 0 ||
        join(path, sizeof(path), root, "proc") != 0)
        return -ENAMETOOLONG;
    if (mkdir(path, 0755) == -1 && errno != EEXIST)
        return -errno;
    if (mkdir(dir, 0755) == -1 && errno != EEXIST)
        return -errno;
    if (join(path, sizeof(path), dir, "arp") != 0)
        return -ENAMETOOLONG;
    FILE *t = fopen(path, "w");
    if (!t)
        return -errno;
    fprintf(t, "IP address       HW type     Flags       HW address            Mask     Device\n");
    for (unsigned k = 0; k < DEMO_NICS; k++) {
        const struct mesh_nic *nic = &mesh->nic[n][k];
        if (!nic->cabled)
            continue;
        /* Complete only when the port the cable reaches owns the address
         * asked for (arp_ignore=1 on every node). */
        const struct mesh_nic *far =
            nic->peer_n >= 0 && nic->peer_k >= 0 ? &mesh->nic[nic->peer_n][nic->peer_k] : NULL;
        bool ok = far && far->cabled && far->addr == nic->peer_addr;
        char ip[16], mac[24];
        fsc_cabling_addr_format(nic->peer_addr, ip, sizeof(ip));
        if (ok)
            fsc_nicfx_mac_text(mac, sizeof(mac), (unsigned)nic->peer_n + 1, (unsigned)nic->peer_k);
        else
            snprintf(mac, sizeof(mac), "00:00:00:00:00:00");
        fprintf(t, "%-16s 0x%-10x0x%-10x%-17s     %-8s %s\n", ip, 1u, ok ? 2u : 0u, mac, "*",
                nic->dev.netdev);
    }
    rc = ferror(t) ? -EIO : 0;
    if (fclose(t) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

struct demo_mesh *demo_mesh_create(struct demo_run *run, char *err, size_t errlen)
{
    struct demo_mesh *mesh = calloc(1, sizeof(*mesh));
    if (!mesh) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    mesh->run = run;
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++)
            for (int c = 0; c < MESH_MOVING; c++)
                mesh->nic[n][k].fd[c] = -1;
    if (mesh_plan(mesh, err, errlen) != 0)
        goto fail;
    for (unsigned n = 0; n < DEMO_NODES; n++) {
        char e[512];
        int rc = 0;
        for (unsigned k = 0; k < DEMO_NICS && rc == 0; k++) {
            rc = write_nic(run->node_root[n], &mesh->nic[n][k], e, sizeof(e));
            /* Its ethtool file too, so the poller finds it from the start:
             * every counter 0, at the clock's zero (it restarts with the
             * simulators, later: the values and times only grow). */
            if (rc == 0 && mesh_ethtool_write(mesh, &mesh->nic[n][k], n, 0) != 0) {
                snprintf(e, sizeof(e), "cannot write the ethtool file of %s",
                         mesh->nic[n][k].dev.netdev);
                rc = -1;
            }
        }
        if (rc != 0) {
            snprintf(err, errlen, "cannot write the B300 fixture under %s: %s", run->node_root[n],
                     e);
            goto fail;
        }
        rc = write_host_view(mesh, n);
        if (rc != 0) {
            snprintf(err, errlen, "cannot write the B300 host view under %s: %s", run->node_root[n],
                     strerror(-rc));
            goto fail;
        }
    }
    fsc_log(FSC_LOG_INFO, "demo_mesh_created", "nodes=%u devices_per_node=%u root=%s/b300-0N",
            DEMO_NODES, DEMO_NICS, run->state_dir);
    return mesh;
fail:
    demo_mesh_destroy(mesh);
    return NULL;
}

void demo_mesh_destroy(struct demo_mesh *mesh)
{
    if (!mesh)
        return;
    if (mesh->started)
        pthread_join(mesh->thread, NULL);
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++)
            for (int c = 0; c < MESH_MOVING; c++)
                if (mesh->nic[n][k].fd[c] >= 0)
                    close(mesh->nic[n][k].fd[c]);
    if (mesh->started)
        fsc_log(FSC_LOG_INFO, "demo_mesh_stopped", "steps=%llu writes=%llu write_errors=%llu",
                (unsigned long long)mesh->steps, (unsigned long long)mesh->writes,
                (unsigned long long)mesh->write_errors);
    free(mesh);
}
