/* The B300 mesh's state, shared by demo_fixture.c (the trees) and
 * demo_fixture_step.c (the counter model and the stepping thread). Internal
 * to collector/demo.
 *
 * Layout (the one tests/tools/nic_fixture.py writes, 16 devices per node):
 * device K of a node is RDMA device mlx5_K, card K/2, np K%2, netdev the
 * cable plan layout's default name of that card and np (ens<c+1>f<np>np<np>),
 * PCI function 0000:XX:00.0 with XX = 0x20 + K. Under <root>/sys:
 *   class/infiniband/mlx5_K/ports/1/hw_counters/<mlx5 hw counters>, lifespan
 *   class/infiniband/mlx5_K/ports/1/counters/<IB PMA counters>
 *   class/infiniband/mlx5_K/ports/1/{state,phys_state,rate,link_layer}
 *   class/infiniband/mlx5_K/{fw_ver,board_id,hca_type}
 *   class/infiniband/mlx5_K/device -> ../../../bus/pci/devices/BDF
 *   class/net/IF/statistics/<netdev statistics>
 *   class/net/IF/{operstate,speed,carrier,mtu,address}
 *   class/net/IF/device -> ../../../bus/pci/devices/BDF
 *   bus/pci/devices/BDF/{current,max}_link_{speed,width}, aer_dev_*
 *   bus/pci/devices/BDF/net/IF/   (as a real function lists its netdevs)
 * and outside sys/, what the host check reads instead of the kernel
 * (nic_hostcheck.h, docs/CABLING.md "Fixtures"):
 *   ip_addr.txt     `ip -4 -o addr show`: every interface's planned /30
 *   proc/net/arp    one entry per interface for its planned peer address:
 *                   complete (flags 0x2, the peer's MAC) when the port the
 *                   cable really reaches owns that address, else incomplete
 *                   (0x0), as a host with arp_ignore=1 shows a swapped cable
 * Counter files are rewritten in place (pwrite at 0: readers keep their
 * descriptors and see the new text), and only when the value changed. */
#ifndef FSC_DEMO_MESH_INT_H
#define FSC_DEMO_MESH_INT_H

#include "demo/demo_int.h"

/* The counters that move; every other counter file stays "0". */
enum mesh_ctr {
    MC_RX_BYTES = 0, /* statistics */
    MC_TX_BYTES,
    MC_RX_PACKETS,
    MC_TX_PACKETS,
    MC_XMIT_DATA, /* counters (IB PMA): 4-byte words */
    MC_RCV_DATA,
    MC_XMIT_PACKETS,
    MC_RCV_PACKETS,
    MC_UC_XMIT_PACKETS,
    MC_UC_RCV_PACKETS,
    MC_WRITE_REQUESTS, /* hw_counters; 32-bit */
    MC_CNP_SENT,
    MC_CNP_HANDLED,
    MC_ECN_MARKED,
    MC_OUT_OF_SEQUENCE, /* 32-bit */
    MC__COUNT
};

enum mesh_dir { MD_HW = 0, MD_PMA, MD_STAT };

struct mesh_ctr_def {
    const char *name;
    enum mesh_dir dir;
    bool wrap32;
};
extern const struct mesh_ctr_def mesh_ctr_defs[MC__COUNT];

struct mesh_nic {
    char rdma[16];
    char netdev[16];
    char bdf[16];
    uint64_t tx_bps, rx_bps;  /* bytes per second each way (rx = the far end's tx) */
    bool cnp_storm;           /* DEMO_F_CNP: this is its port */
    bool reorder;             /* DEMO_F_REORDER */
    bool pcie_degraded;       /* DEMO_F_PCIE */
    bool miscabled;           /* DEMO_F_SWAP: the cable reaches another port than planned */
    bool cabled;              /* in the plan (every interface of the demo's full mesh) */
    uint32_t addr, peer_addr; /* planned, host byte order */
    int peer_n, peer_k;       /* where the cable really goes (-1: nowhere) */
    int fd[MC__COUNT];        /* open for writing; -1 when not open */
    uint64_t last[MC__COUNT];
    uint8_t last_len[MC__COUNT];
};

struct demo_mesh {
    struct demo_run *run;
    struct mesh_nic nic[DEMO_NODES][DEMO_NICS];
    pthread_t thread;
    bool started;
    uint64_t steps, writes, write_errors;
};

/* Value of counter c of nic at e_ns of the demo clock. Thread: any. */
uint64_t mesh_value(const struct mesh_nic *nic, enum mesh_ctr c, int64_t e_ns);

#endif
