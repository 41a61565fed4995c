/* The B300 mesh's state, shared by demo_fixture.c (the trees) and
 * demo_fixture_step.c (the counter model and the stepping thread). Internal
 * to collector/demo.
 *
 * Layout: the NIC fixture's (demo/nicfx/nicfx.h) under <root>/sys, 16
 * devices per node: device K of node N (1-based) is the fixture's device K
 * of node N (mlx5_K, its PCI function and address), card K/2, np K%2, with
 * the netdev the cable plan layout's default name of that card and np
 * (ens<c+1>f<np>np<np>), and `lifespan` 200 ms (demo_fixture_step.c says
 * why). Outside sys/, what the NIC source's fixture mode reads instead of
 * the kernel (nic_ethtool.h, nic_hostcheck.h, docs/CABLING.md "Fixtures"):
 *   ethtool/IF      `ethtool -S IF` with the time of its values (the *_phy
 *                   byte and packet counters), rewritten every step
 *   ip_addr.txt     `ip -4 -o addr show`: every interface's planned /30
 *   proc/net/arp    one entry per interface for its planned peer address:
 *                   complete (flags 0x2, the peer's MAC) when the port the
 *                   cable really reaches owns that address, else incomplete
 *                   (0x0), as a host with arp_ignore=1 shows a swapped cable
 * Counter files are rewritten in place (fsc_nicfx_ctr_rewrite: readers keep
 * their descriptors and see the new text), and only when the value changed. */
#ifndef FSC_DEMO_MESH_INT_H
#define FSC_DEMO_MESH_INT_H

#include "demo/demo_int.h"
#include "demo/nicfx/nicfx.h"

/* The counters that move (the ones the fixture's rate model moves); every
 * other counter file stays "0". */
#define MESH_MOVING 15
extern const enum fsc_nicfx_ctr mesh_moving[MESH_MOVING];

struct mesh_nic {
    struct fsc_nicfx_dev dev; /* names, lifespan, link and PCIe state (DEMO_F_PCIE) */
    uint64_t tx_bps, rx_bps;  /* bytes per second each way (rx = the far end's tx) */
    bool cnp_storm;           /* DEMO_F_CNP: this is its port */
    bool reorder;             /* DEMO_F_REORDER */
    bool burst_tx, burst_rx;  /* DEMO_F_NIC_BURST: its sender, its receiver */
    bool miscabled;           /* DEMO_F_SWAP: the cable reaches another port than planned */
    bool cabled;              /* in the plan (every interface of the demo's full mesh) */
    uint32_t addr, peer_addr; /* planned, host byte order */
    int peer_n, peer_k;       /* where the cable really goes (-1: nowhere) */
    int fd[MESH_MOVING];      /* mesh_moving[i]'s file, open for writing; -1 when not open */
    uint64_t last[MESH_MOVING];
    uint8_t last_len[MESH_MOVING];
};

struct demo_mesh {
    struct demo_run *run;
    struct mesh_nic nic[DEMO_NODES][DEMO_NICS];
    pthread_t thread;
    bool started;
    uint64_t steps, writes, write_errors;
};

/* Value of moving counter c of nic at e_ns of the demo clock (0 for a
 * counter that does not move). Thread: any. */
uint64_t mesh_value(const struct mesh_nic *nic, enum fsc_nicfx_ctr c, int64_t e_ns);

/* Rewrites nic's ethtool file (<node root>/ethtool/IF) with its values at
 * e_ns, stamped with that moment's wall time. Returns 0 or -1. Thread: the
 * stepping thread, or main before it starts. */
int mesh_ethtool_write(struct demo_mesh *mesh, struct mesh_nic *nic, unsigned node, int64_t e_ns);

#endif
