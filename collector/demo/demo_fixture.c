/* The B300 mesh's sysfs trees (demo_mesh_int.h has the layout): written once
 * before the collector starts, with the static faults in place, and the
 * moving counters' files left open for the stepping thread.
 *
 * A C port of what tests/tools/nic_fixture.py `init` writes (same names,
 * same text formats), for 4 nodes x 16 devices at once, plus the parts the
 * demo needs: netdev names from the cable plan layout, link rates that
 * agree at both ends of each cable, each node's addresses and neighbour
 * table (ip_addr.txt, proc/net/arp), and the two static faults:
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "demo/demo_mesh_int.h"
#include "model/cable_plan.h"

static const char *const hw_names[] = {"rx_write_requests",
                                       "rx_read_requests",
                                       "rx_atomic_requests",
                                       "rx_dct_connect",
                                       "out_of_buffer",
                                       "out_of_sequence",
                                       "duplicate_request",
                                       "rnr_nak_retry_err",
                                       "packet_seq_err",
                                       "implied_nak_seq_err",
                                       "local_ack_timeout_err",
                                       "resp_local_length_error",
                                       "resp_cqe_error",
                                       "req_cqe_error",
                                       "resp_cqe_flush_error",
                                       "req_cqe_flush_error",
                                       "req_remote_invalid_request",
                                       "req_remote_access_errors",
                                       "resp_remote_access_errors",
                                       "req_transport_retries_exceeded",
                                       "req_rnr_retries_exceeded",
                                       "roce_adp_retrans",
                                       "roce_adp_retrans_to",
                                       "roce_slow_restart",
                                       "roce_slow_restart_cnps",
                                       "roce_slow_restart_trans",
                                       "np_ecn_marked_roce_packets",
                                       "np_cnp_sent",
                                       "rp_cnp_handled",
                                       "rp_cnp_ignored",
                                       "rx_icrc_encapsulated",
                                       NULL};
static const char *const pma[] = {"port_xmit_data",
                                  "port_rcv_data",
                                  "port_xmit_packets",
                                  "port_rcv_packets",
                                  "unicast_rcv_packets",
                                  "unicast_xmit_packets",
                                  "multicast_rcv_packets",
                                  "multicast_xmit_packets",
                                  "port_rcv_errors",
                                  "port_xmit_discards",
                                  "port_xmit_wait",
                                  "symbol_error",
                                  "link_error_recovery",
                                  "link_downed",
                                  "port_rcv_remote_physical_errors",
                                  "port_rcv_switch_relay_errors",
                                  "port_xmit_constraint_errors",
                                  "port_rcv_constraint_errors",
                                  "local_link_integrity_errors",
                                  "excessive_buffer_overrun_errors",
                                  "VL15_dropped",
                                  NULL};
static const char *const stats[] = {"rx_bytes",
                                    "tx_bytes",
                                    "rx_packets",
                                    "tx_packets",
                                    "rx_errors",
                                    "tx_errors",
                                    "rx_dropped",
                                    "tx_dropped",
                                    "multicast",
                                    "collisions",
                                    "rx_length_errors",
                                    "rx_over_errors",
                                    "rx_crc_errors",
                                    "rx_frame_errors",
                                    "rx_fifo_errors",
                                    "rx_missed_errors",
                                    "rx_nohandler",
                                    "rx_compressed",
                                    "tx_aborted_errors",
                                    "tx_carrier_errors",
                                    "tx_fifo_errors",
                                    "tx_heartbeat_errors",
                                    "tx_window_errors",
                                    "tx_compressed",
                                    NULL};
static const char aer_cor[] = "Receiver Error 0\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\n"
                              "Replay Timer Timeout 0\nAdvisory Non-Fatal 0\n"
                              "Corrected Internal Error 0\nHeader Log Overflow 0\n"
                              "TOTAL_ERR_COR 0\n";
static const char aer_uncor[] =
    "Undefined 0\nData Link Protocol 0\nSurprise Down Error 0\nPoisoned TLP 0\n"
    "Flow Control Protocol 0\nCompletion Timeout 0\nCompleter Abort 0\n"
    "Unexpected Completion 0\nReceiver Overflow 0\nMalformed TLP 0\nECRC 0\n"
    "Unsupported Request 0\nACS Violation 0\nUncorrectable Internal Error 0\n"
    "MC Blocked TLP 0\nAtomicOp Egress Blocked 0\nTLP Prefix Blocked Error 0\n"
    "Poisoned TLP Egress Blocked 0\n";

/* Builds "<a>/<b>" into out; fails on truncation. */
static int join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s/%s", a, b);
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* mkdir -p of an absolute or relative path. */
static int mkdirs(const char *path)
{
    char p[DEMO_PATH];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(p))
        return -ENAMETOOLONG;
    memcpy(p, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, 0755) == -1 && errno != EEXIST)
            return -errno;
        p[i] = c;
    }
    return 0;
}

static int put_file(const char *dir, const char *name, const char *text)
{
    char path[DEMO_PATH];
    if (join(path, sizeof(path), dir, name) != 0)
        return -ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd == -1)
        return -errno;
    size_t len = strlen(text);
    int rc = write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
    if (close(fd) == -1 && rc == 0)
        rc = -errno;
    return rc;
}

static int put_zeros(const char *dir, const char *const *names)
{
    int rc = mkdirs(dir);
    for (size_t i = 0; rc == 0 && names[i]; i++)
        rc = put_file(dir, names[i], "0\n");
    return rc;
}

/* The directories of nic's three counter groups under root. */
static int nic_dirs(const char *root, const struct mesh_nic *nic, char dirs[3][DEMO_PATH])
{
    int a = snprintf(dirs[MD_HW], DEMO_PATH, "%s/sys/class/infiniband/%s/ports/1/hw_counters", root,
                     nic->rdma);
    int b = snprintf(dirs[MD_PMA], DEMO_PATH, "%s/sys/class/infiniband/%s/ports/1/counters", root,
                     nic->rdma);
    int c = snprintf(dirs[MD_STAT], DEMO_PATH, "%s/sys/class/net/%s/statistics", root, nic->netdev);
    return a < 0 || b < 0 || c < 0 || a >= DEMO_PATH || b >= DEMO_PATH || c >= DEMO_PATH
               ? -ENAMETOOLONG
               : 0;
}

/* The MAC of (node, device): 02:fc:<node>:00:<device>:00, as class/net/IF/address. */
static void mac_text(char *out, size_t size, unsigned node, unsigned k)
{
    snprintf(out, size, "02:fc:%02x:00:%02x:00", node + 1, k);
}

/* Writes one device's files (all counters 0) and opens its moving counters. */
static int write_nic(const char *root, unsigned node, unsigned k, struct mesh_nic *nic)
{
    char dirs[3][DEMO_PATH], d[DEMO_PATH], text[64];
    int rc = nic_dirs(root, nic, dirs);
    if (rc == 0)
        rc = put_zeros(dirs[MD_HW], hw_names);
    if (rc == 0)
        rc = put_file(dirs[MD_HW], "lifespan", "200\n"); /* demo_fixture_step.c says why */
    if (rc == 0)
        rc = put_zeros(dirs[MD_PMA], pma);
    if (rc == 0)
        rc = put_zeros(dirs[MD_STAT], stats);
    if (rc != 0)
        return rc;

    /* RDMA port and device attributes */
    snprintf(d, sizeof(d), "%s/sys/class/infiniband/%s/ports/1", root, nic->rdma);
    rc = put_file(d, "state", "4: ACTIVE\n");
    if (rc == 0)
        rc = put_file(d, "phys_state", "5: LinkUp\n");
    if (rc == 0)
        rc = put_file(d, "rate", "400 Gb/sec (4X XDR)\n");
    if (rc == 0)
        rc = put_file(d, "link_layer", "Ethernet\n");
    snprintf(d, sizeof(d), "%s/sys/class/infiniband/%s", root, nic->rdma);
    if (rc == 0)
        rc = put_file(d, "fw_ver", "40.0.0\n");
    if (rc == 0)
        rc = put_file(d, "board_id", "FSC_DEMO\n");
    if (rc == 0)
        rc = put_file(d, "hca_type", "FSC_DEMO\n");

    /* netdev attributes */
    snprintf(d, sizeof(d), "%s/sys/class/net/%s", root, nic->netdev);
    if (rc == 0)
        rc = put_file(d, "operstate", "up\n");
    if (rc == 0)
        rc = put_file(d, "speed", "400000\n");
    if (rc == 0)
        rc = put_file(d, "carrier", "1\n");
    if (rc == 0)
        rc = put_file(d, "mtu", "9000\n");
    mac_text(text, sizeof(text) - 1, node, k);
    strcat(text, "\n");
    if (rc == 0)
        rc = put_file(d, "address", text);

    /* the PCI function: link, AER, its netdev, and the two device links */
    snprintf(d, sizeof(d), "%s/sys/bus/pci/devices/%s/net/%s", root, nic->bdf, nic->netdev);
    if (rc == 0)
        rc = mkdirs(d);
    snprintf(d, sizeof(d), "%s/sys/bus/pci/devices/%s", root, nic->bdf);
    if (rc == 0)
        rc = put_file(d, "current_link_speed",
                      nic->pcie_degraded ? "32.0 GT/s PCIe\n" : "64.0 GT/s PCIe\n");
    if (rc == 0)
        rc = put_file(d, "current_link_width", nic->pcie_degraded ? "8\n" : "16\n");
    if (rc == 0)
        rc = put_file(d, "max_link_speed", "64.0 GT/s PCIe\n");
    if (rc == 0)
        rc = put_file(d, "max_link_width", "16\n");
    if (rc == 0)
        rc = put_file(d, "aer_dev_correctable", aer_cor);
    if (rc == 0)
        rc = put_file(d, "aer_dev_fatal", aer_uncor);
    if (rc == 0)
        rc = put_file(d, "aer_dev_nonfatal", aer_uncor);
    snprintf(text, sizeof(text), "../../../bus/pci/devices/%s", nic->bdf);
    snprintf(d, sizeof(d), "%s/sys/class/infiniband/%s/device", root, nic->rdma);
    if (rc == 0 && symlink(text, d) == -1)
        rc = -errno;
    snprintf(d, sizeof(d), "%s/sys/class/net/%s/device", root, nic->netdev);
    if (rc == 0 && symlink(text, d) == -1)
        rc = -errno;

    for (int c = 0; rc == 0 && c < MC__COUNT; c++) {
        char path[DEMO_PATH];
        if (join(path, sizeof(path), dirs[mesh_ctr_defs[c].dir], mesh_ctr_defs[c].name) != 0)
            return -ENAMETOOLONG;
        nic->fd[c] = open(path, O_WRONLY | O_CLOEXEC);
        if (nic->fd[c] == -1)
            rc = -errno;
        nic->last_len[c] = 2; /* "0\n" */
    }
    return rc;
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
    for (unsigned n = 0; n < DEMO_NODES; n++)
        for (unsigned k = 0; k < DEMO_NICS; k++) {
            struct mesh_nic *nic = &mesh->nic[n][k];
            snprintf(nic->rdma, sizeof(nic->rdma), "mlx5_%u", k);
            snprintf(nic->bdf, sizeof(nic->bdf), "0000:%02x:00.0", 0x20 + k);
            snprintf(nic->netdev, sizeof(nic->netdev), "%s", lay.ifname[k / 2][k % 2]);
        }
    int rc = mesh_wiring(mesh, &lay, cab, built, err, errlen);
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

    static const enum demo_fault_id flt[] = {DEMO_F_PCIE, DEMO_F_CNP, DEMO_F_REORDER};
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
            nic->pcie_degraded = true;
            break;
        case DEMO_F_CNP:
            nic->cnp_storm = true;
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
                k + 2, nic->netdev, ip, (unsigned)FSC_CABLING_PREFIX_LEN, brd, nic->netdev);
    }
    int rc = ferror(a) ? -EIO : 0;
    if (fclose(a) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0)
        return rc;

    char dir[DEMO_PATH];
    if (join(dir, sizeof(dir), root, "proc/net") != 0 || join(path, sizeof(path), dir, "arp") != 0)
        return -ENAMETOOLONG;
    rc = mkdirs(dir);
    if (rc != 0)
        return rc;
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
            mac_text(mac, sizeof(mac), (unsigned)nic->peer_n, (unsigned)nic->peer_k);
        else
            snprintf(mac, sizeof(mac), "00:00:00:00:00:00");
        fprintf(t, "%-16s 0x%-10x0x%-10x%-17s     %-8s %s\n", ip, 1u, ok ? 2u : 0u, mac, "*",
                nic->netdev);
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
            for (int c = 0; c < MC__COUNT; c++)
                mesh->nic[n][k].fd[c] = -1;
    if (mesh_plan(mesh, err, errlen) != 0)
        goto fail;
    for (unsigned n = 0; n < DEMO_NODES; n++) {
        int rc = 0;
        for (unsigned k = 0; k < DEMO_NICS && rc == 0; k++)
            rc = write_nic(run->node_root[n], n, k, &mesh->nic[n][k]);
        if (rc == 0)
            rc = write_host_view(mesh, n);
        if (rc != 0) {
            snprintf(err, errlen, "cannot write the B300 fixture under %s: %s", run->node_root[n],
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
            for (int c = 0; c < MC__COUNT; c++)
                if (mesh->nic[n][k].fd[c] >= 0)
                    close(mesh->nic[n][k].fd[c]);
    if (mesh->started)
        fsc_log(FSC_LOG_INFO, "demo_mesh_stopped", "steps=%llu writes=%llu write_errors=%llu",
                (unsigned long long)mesh->steps, (unsigned long long)mesh->writes,
                (unsigned long long)mesh->write_errors);
    free(mesh);
}
