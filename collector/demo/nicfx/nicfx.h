/* nicfx: sysfs fixture trees of DGX B300 ConnectX-8 NICs, one writer for the
 * demo (collector/demo) and the tests (the fabricscope-nic-fixture tool).
 *
 * Layout. Device K of node N (the tool's devices are node 0) is RDMA device
 * mlx5_K with netdev IF (the caller's name), PCI function BDF = 0000:XX:00.0
 * with XX = 0x20 + K in hex, and address 02:fc:NN:00:KK:00 (hex). Under
 * ROOT/sys, as the NIC poller reads it (docs/vendors/mlx5.md):
 *   class/infiniband/mlx5_K/ports/1/hw_counters/<FSC_NICFX_HW counters>, lifespan
 *   class/infiniband/mlx5_K/ports/1/counters/<FSC_NICFX_PMA counters>
 *   class/infiniband/mlx5_K/ports/1/{state,phys_state,rate,link_layer}
 *   class/infiniband/mlx5_K/{fw_ver,board_id,hca_type}   (placeholder text)
 *   class/infiniband/mlx5_K/device -> ../../../bus/pci/devices/BDF
 *   class/net/IF/statistics/<FSC_NICFX_STAT counters>
 *   class/net/IF/{operstate,speed,carrier,mtu,address}
 *   class/net/IF/device -> ../../../bus/pci/devices/BDF
 *   bus/pci/devices/BDF/{current,max}_link_{speed,width}   64.0 GT/s PCIe x16
 *   bus/pci/devices/BDF/aer_dev_{correctable,fatal,nonfatal}
 *   bus/pci/devices/BDF/net/IF/   (as a real function lists its netdevs)
 * so a reader pointed at ROOT/sys (node_exporter: --path.sysfs=ROOT/sys) sees
 * the devices. Beside it, written only on request (fsc_nicfx_ethtool_write):
 *   ethtool/IF    `ethtool -S IF` as the NIC source's fixture mode reads it
 *                 (collector/sources/nic/nic_ethtool.h): the time of the
 *                 values, then rx_bytes_phy, tx_bytes_phy, rx_packets_phy,
 *                 tx_packets_phy equal to the statistics' rx_bytes, tx_bytes,
 *                 rx_packets, tx_packets, then the checksum line; rewritten
 *                 in place each write. The hw_counters are
 * the driver's Q counters (32 bits wide) and its congestion and PPCNT counters (64 bits); every
 * other counter is 64 bits. Counter files hold "<decimal>\n"; they are rewritten in place (pwrite
 * at offset 0, then truncated: the inode stays, so a reader's open descriptor sees the new text).
 *
 * The counter model (fsc_nicfx_step), with exact integer arithmetic. A step
 * advances the fixture clock by MS milliseconds and applies, in order:
 *   1. reset K: every counter of device K becomes 0 and gets no increment in
 *      this step (a driver reload / FW reset: 64-bit counters "decrease").
 *   2. near-wrap K: out_of_sequence and packet_seq_err of K become 2^32-100.
 *   3. set K:NAME=V: counter NAME of device K becomes V (mod 2^width).
 *   4. Rate increments for every device not reset in this step, with the
 *      step's rates overriding the device's base rates for this step only
 *      (for one device when the step names it, else for all):
 *        B = floor(G * 125000 * MS)       data bytes each way (G Gb/s)
 *        P = floor(B / 4096)              packets (4096-byte frames)
 *        C = floor(R_cnp * MS / 1000)     O = floor(R_oos * MS / 1000)
 *        statistics: rx_bytes, tx_bytes += B; rx_packets, tx_packets += P
 *        counters:   port_xmit_data, port_rcv_data += floor(B / 4) (4-byte words);
 *                    port_xmit_packets, port_rcv_packets,
 *                    unicast_xmit_packets, unicast_rcv_packets += P
 *        hw_counters: rx_write_requests += P;
 *                    np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets += C;
 *                    out_of_sequence, packet_seq_err += O
 *   5. cnp-storm K:RATE: np_cnp_sent, rp_cnp_handled and
 *      np_ecn_marked_roce_packets of K += floor(RATE * MS / 1000).
 *      add K:NAME=D: counter NAME of K += D.
 *   6. degrade-pcie K: current_link_speed "32.0 GT/s PCIe", current_link_width
 *      8 (max stays "64.0 GT/s PCIe" x16); restore-pcie K undoes it (a step
 *      with both restores). link-down K: operstate "down", speed "-1",
 *      carrier 0; link-up K undoes it (likewise). aer K:KIND:LABEL=N (KIND
 *      cor|fatal|nonfatal): LABEL += N and the file's TOTAL_ERR_* += N (one
 *      reported message).
 *   7. Every file of every device is rewritten in place, except the
 *      hw_counters of a device given freeze K (and not reset): they keep
 *      their previous text, as the RDMA core's `lifespan` cache does, and
 *      show the true (accumulated) values at the next step without freeze.
 * Counters of hw_counters 32 bits wide wrap modulo 2^32; all others modulo
 * 2^64. A step is not atomic against a concurrent reader: tests step between
 * polls. The tool's command line and its state file are described by
 * `fabricscope-nic-fixture --help` (nic_fixture_main.c). */
#ifndef FSC_NICFX_H
#define FSC_NICFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSC_NICFX_DEVICES_MAX 64 /* devices of one fixture (BDF 0x20 + K stays 2 hex digits) */
#define FSC_NICFX_NAME_MAX    16 /* rdma, netdev (IFNAMSIZ) and BDF names with their NUL */

/* ---- names -------------------------------------------------------------------------- */

/* The three counter directories of a device. */
enum fsc_nicfx_group {
    FSC_NICFX_HW = 0, /* class/infiniband/mlx5_K/ports/1/hw_counters */
    FSC_NICFX_PMA,    /* class/infiniband/mlx5_K/ports/1/counters (IB PMA) */
    FSC_NICFX_STAT,   /* class/net/IF/statistics */
    FSC_NICFX__GROUPS
};

/* Directory names of the groups ("hw_counters", "counters", "statistics"). */
extern const char *const fsc_nicfx_group_names[FSC_NICFX__GROUPS];

/* Every counter file of a device, in the order the files are written: the
 * group's counters together, hw_counters first. */
enum fsc_nicfx_ctr {
    /* hw_counters, 32 bits (Q counters) */
    FSC_NICFX_RX_WRITE_REQUESTS = 0,
    FSC_NICFX_RX_READ_REQUESTS,
    FSC_NICFX_RX_ATOMIC_REQUESTS,
    FSC_NICFX_RX_DCT_CONNECT,
    FSC_NICFX_OUT_OF_BUFFER,
    FSC_NICFX_OUT_OF_SEQUENCE,
    FSC_NICFX_DUPLICATE_REQUEST,
    FSC_NICFX_RNR_NAK_RETRY_ERR,
    FSC_NICFX_PACKET_SEQ_ERR,
    FSC_NICFX_IMPLIED_NAK_SEQ_ERR,
    FSC_NICFX_LOCAL_ACK_TIMEOUT_ERR,
    FSC_NICFX_RESP_LOCAL_LENGTH_ERROR,
    FSC_NICFX_RESP_CQE_ERROR,
    FSC_NICFX_REQ_CQE_ERROR,
    FSC_NICFX_RESP_CQE_FLUSH_ERROR,
    FSC_NICFX_REQ_CQE_FLUSH_ERROR,
    FSC_NICFX_REQ_REMOTE_INVALID_REQUEST,
    FSC_NICFX_REQ_REMOTE_ACCESS_ERRORS,
    FSC_NICFX_RESP_REMOTE_ACCESS_ERRORS,
    FSC_NICFX_REQ_TRANSPORT_RETRIES_EXCEEDED,
    FSC_NICFX_REQ_RNR_RETRIES_EXCEEDED,
    FSC_NICFX_ROCE_ADP_RETRANS,
    FSC_NICFX_ROCE_ADP_RETRANS_TO,
    FSC_NICFX_ROCE_SLOW_RESTART,
    FSC_NICFX_ROCE_SLOW_RESTART_CNPS,
    FSC_NICFX_ROCE_SLOW_RESTART_TRANS,
    /* hw_counters, 64 bits (congestion and PPCNT counters) */
    FSC_NICFX_NP_ECN_MARKED_ROCE_PACKETS,
    FSC_NICFX_NP_CNP_SENT,
    FSC_NICFX_RP_CNP_HANDLED,
    FSC_NICFX_RP_CNP_IGNORED,
    FSC_NICFX_RX_ICRC_ENCAPSULATED,
    /* counters (IB PMA); the data counters count 4-byte words */
    FSC_NICFX_PORT_XMIT_DATA,
    FSC_NICFX_PORT_RCV_DATA,
    FSC_NICFX_PORT_XMIT_PACKETS,
    FSC_NICFX_PORT_RCV_PACKETS,
    FSC_NICFX_UNICAST_RCV_PACKETS,
    FSC_NICFX_UNICAST_XMIT_PACKETS,
    FSC_NICFX_MULTICAST_RCV_PACKETS,
    FSC_NICFX_MULTICAST_XMIT_PACKETS,
    FSC_NICFX_PORT_RCV_ERRORS,
    FSC_NICFX_PORT_XMIT_DISCARDS,
    FSC_NICFX_PORT_XMIT_WAIT,
    FSC_NICFX_SYMBOL_ERROR,
    FSC_NICFX_LINK_ERROR_RECOVERY,
    FSC_NICFX_LINK_DOWNED,
    FSC_NICFX_PORT_RCV_REMOTE_PHYSICAL_ERRORS,
    FSC_NICFX_PORT_RCV_SWITCH_RELAY_ERRORS,
    FSC_NICFX_PORT_XMIT_CONSTRAINT_ERRORS,
    FSC_NICFX_PORT_RCV_CONSTRAINT_ERRORS,
    FSC_NICFX_LOCAL_LINK_INTEGRITY_ERRORS,
    FSC_NICFX_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    FSC_NICFX_VL15_DROPPED,
    /* statistics (netdev) */
    FSC_NICFX_RX_BYTES,
    FSC_NICFX_TX_BYTES,
    FSC_NICFX_RX_PACKETS,
    FSC_NICFX_TX_PACKETS,
    FSC_NICFX_RX_ERRORS,
    FSC_NICFX_TX_ERRORS,
    FSC_NICFX_RX_DROPPED,
    FSC_NICFX_TX_DROPPED,
    FSC_NICFX_MULTICAST,
    FSC_NICFX_COLLISIONS,
    FSC_NICFX_RX_LENGTH_ERRORS,
    FSC_NICFX_RX_OVER_ERRORS,
    FSC_NICFX_RX_CRC_ERRORS,
    FSC_NICFX_RX_FRAME_ERRORS,
    FSC_NICFX_RX_FIFO_ERRORS,
    FSC_NICFX_RX_MISSED_ERRORS,
    FSC_NICFX_RX_NOHANDLER,
    FSC_NICFX_RX_COMPRESSED,
    FSC_NICFX_TX_ABORTED_ERRORS,
    FSC_NICFX_TX_CARRIER_ERRORS,
    FSC_NICFX_TX_FIFO_ERRORS,
    FSC_NICFX_TX_HEARTBEAT_ERRORS,
    FSC_NICFX_TX_WINDOW_ERRORS,
    FSC_NICFX_TX_COMPRESSED,
    FSC_NICFX__CTRS
};

struct fsc_nicfx_ctr_def {
    const char *name; /* the file name */
    enum fsc_nicfx_group group;
    unsigned char width; /* 32 or 64: the counter wraps modulo 2^width */
};

/* The counters, indexed by enum fsc_nicfx_ctr. */
extern const struct fsc_nicfx_ctr_def fsc_nicfx_ctrs[FSC_NICFX__CTRS];

/* The counter named `name` (names are unique across the groups), or -1. */
int fsc_nicfx_ctr_find(const char *name);

/* The three AER files of a PCI function. */
enum fsc_nicfx_aer_kind {
    FSC_NICFX_AER_COR = 0, /* aer_dev_correctable */
    FSC_NICFX_AER_FATAL,   /* aer_dev_fatal */
    FSC_NICFX_AER_NONFATAL,
    FSC_NICFX__AER_KINDS
};
#define FSC_NICFX_AER_LABELS_MAX 18 /* the uncorrectable list; the correctable one has 8 */

struct fsc_nicfx_aer_def {
    const char *kind;        /* "cor", "fatal", "nonfatal" */
    const char *file;        /* "aer_dev_correctable", ... */
    const char *total_label; /* "TOTAL_ERR_COR", ... */
    const char *const *labels;
    size_t n_labels;
};

/* The AER files, indexed by enum fsc_nicfx_aer_kind: one line "<label> <n>"
 * per label in this order, then "<total_label> <n>" (the kernel's text). */
extern const struct fsc_nicfx_aer_def fsc_nicfx_aer[FSC_NICFX__AER_KINDS];

/* ---- one device ---------------------------------------------------------------------- */

/* A non-negative rate as an exact fraction num / den (den > 0). */
struct fsc_nicfx_rate {
    uint64_t num, den;
};

/* Parses a rate as Python's Fraction reads one: "100", "2.5", "1e3", "7/2"
 * (no sign, no spaces). Returns 0 or -EINVAL (malformed, negative, or
 * beyond 64 bits). */
int fsc_nicfx_rate_parse(const char *text, struct fsc_nicfx_rate *rate);

/* Writes the rate as text fsc_nicfx_rate_parse reads back ("100", "5/2"). */
void fsc_nicfx_rate_format(const struct fsc_nicfx_rate *rate, char *out, size_t size);

struct fsc_nicfx_dev {
    char rdma[FSC_NICFX_NAME_MAX];   /* mlx5_K */
    char netdev[FSC_NICFX_NAME_MAX]; /* IF */
    char bdf[FSC_NICFX_NAME_MAX];    /* 0000:XX:00.0 */
    unsigned node, index;            /* N and K of the layout */
    int lifespan_ms;                 /* hw_counters/lifespan (written by fsc_nicfx_tree_create) */
    int64_t speed_mbps;              /* class/net/IF/speed while the link is up */
    bool link_up, pcie_degraded;
    struct fsc_nicfx_rate gbps, cnp_rate, oos_rate; /* base rates of fsc_nicfx_step */
    uint64_t ctr[FSC_NICFX__CTRS];                  /* true values, each below 2^width */
    int64_t aer[FSC_NICFX__AER_KINDS][FSC_NICFX_AER_LABELS_MAX];
    int64_t aer_total[FSC_NICFX__AER_KINDS];
};

/* Fills dev as device `index` of node `node` named `netdev`: the layout's
 * names, every counter 0, link up at 400000 Mb/s, PCIe at its maximum,
 * lifespan 10 ms, base rates 100 Gb/s, 0 CNP/s, 0 out_of_sequence/s.
 * Returns 0, or -1 with a sentence in err (index beyond
 * FSC_NICFX_DEVICES_MAX, a netdev name that is no interface name). */
int fsc_nicfx_dev_init(struct fsc_nicfx_dev *dev, unsigned node, unsigned index, const char *netdev,
                       char *err, size_t errlen);

/* The address of device (node, index), "02:fc:NN:00:KK:00", into out
 * (18 bytes suffice). */
void fsc_nicfx_mac_text(char *out, size_t size, unsigned node, unsigned index);

/* ---- the files (nicfx_tree.c) ------------------------------------------------------- */

/* Creates dev's whole tree under root (root/sys/...; missing directories
 * are made): directories, symlinks, the static attributes and every file
 * fsc_nicfx_tree_write writes. A device already in the tree fails at its
 * symlinks (EEXIST). Returns 0, or -1 with a sentence (path and errno
 * text) in err. */
int fsc_nicfx_tree_create(const char *root, const struct fsc_nicfx_dev *dev, char *err,
                          size_t errlen);

/* Rewrites dev's counter, link, PCIe and AER files under root in place from
 * dev (the hw_counters left as they are when skip_hw). Returns 0, or -1 with
 * a sentence in err. */
int fsc_nicfx_tree_write(const char *root, const struct fsc_nicfx_dev *dev, bool skip_hw, char *err,
                         size_t errlen);

/* Opens counter c's file of dev under root for fsc_nicfx_ctr_rewrite.
 * Returns the descriptor (the caller closes it) or a negative errno. */
int fsc_nicfx_ctr_open(const char *root, const struct fsc_nicfx_dev *dev, enum fsc_nicfx_ctr c);

/* Rewrites an open counter file with value v in place; *len is the length
 * of the file's current text (the file is truncated only when the new text
 * is shorter) and becomes the new one. Returns 0 or a negative errno.
 * Thread: any (one writer per descriptor). */
int fsc_nicfx_ctr_rewrite(int fd, uint64_t v, uint8_t *len);

/* Rewrites ROOT/ethtool/IF (made with its directory when missing) with
 * dev's ethtool statistics stamped t_ns (ns since the Unix epoch, above 0:
 * when the values were true). Returns 0, or -1 with a sentence in err.
 * Thread: any (one writer per device). */
int fsc_nicfx_ethtool_write(const char *root, const struct fsc_nicfx_dev *dev, int64_t t_ns,
                            char *err, size_t errlen);

/* ---- the counter model (nicfx_step.c) ----------------------------------------------- */

/* The operations of a step (the model's steps 1-3, 5 and 6 above). */
enum fsc_nicfx_op_kind {
    FSC_NICFX_OP_RESET = 0,
    FSC_NICFX_OP_NEAR_WRAP,
    FSC_NICFX_OP_SET,
    FSC_NICFX_OP_ADD,
    FSC_NICFX_OP_CNP_STORM,
    FSC_NICFX_OP_FREEZE,
    FSC_NICFX_OP_DEGRADE_PCIE,
    FSC_NICFX_OP_RESTORE_PCIE,
    FSC_NICFX_OP_LINK_DOWN,
    FSC_NICFX_OP_LINK_UP,
    FSC_NICFX_OP_AER,
};

struct fsc_nicfx_op {
    enum fsc_nicfx_op_kind kind;
    unsigned dev;               /* the device index K */
    enum fsc_nicfx_ctr ctr;     /* SET, ADD */
    uint64_t value;             /* SET, ADD: the integer modulo 2^64 (a negative D wraps) */
    struct fsc_nicfx_rate rate; /* CNP_STORM: per second */
    enum fsc_nicfx_aer_kind aer;
    unsigned aer_label; /* AER: index into fsc_nicfx_aer[aer].labels */
    int64_t aer_n;      /* AER: added to the label and the total */
};

#define FSC_NICFX_DT_MS_MAX 1000000000000LL /* 31 years: keeps the arithmetic in 128 bits */

struct fsc_nicfx_step {
    int64_t dt_ms; /* 0 .. FSC_NICFX_DT_MS_MAX */
    int only;      /* the device the rate overrides apply to; -1: every device */
    const struct fsc_nicfx_rate *gbps, *cnp_rate, *oos_rate; /* NULL: the base rate */
    const struct fsc_nicfx_op *ops;                          /* borrowed */
    size_t n_ops;
};

/* Applies one step to devs[0 .. n) in memory, in the model's order. The
 * ops' device indices must be below n (the caller validated them). Returns
 * a bit per device (bit K) whose hw_counters are frozen in this step: pass
 * `skip_hw = bit K` to fsc_nicfx_tree_write. */
uint64_t fsc_nicfx_step(struct fsc_nicfx_dev *devs, size_t n, const struct fsc_nicfx_step *step);

/* ---- a fixture and its state file (nicfx_state.c) --------------------------------- */

#define FSC_NICFX_STATE_FILE "nic_fixture.json"

/* A fixture of the tool: its devices (node 0) and its clock. */
struct fsc_nicfx {
    int64_t t_ms;   /* the fixture clock: the sum of every step's MS */
    uint64_t steps; /* steps taken */
    int lifespan_ms;
    size_t n;
    struct fsc_nicfx_dev dev[FSC_NICFX_DEVICES_MAX];
};

/* Loads root/nic_fixture.json into fx. Returns 0, or -1 with a sentence in
 * err (missing, unreadable or not a state this writer wrote). */
int fsc_nicfx_state_load(const char *root, struct fsc_nicfx *fx, char *err, size_t errlen);

/* Writes fx as root/nic_fixture.json (through a temporary file and a
 * rename). Counter values above 2^63 - 1 are written as decimal strings
 * (JSON integers are read as signed 64-bit). Returns 0, or -1 with a
 * sentence in err. */
int fsc_nicfx_state_save(const char *root, const struct fsc_nicfx *fx, char *err, size_t errlen);

/* Prints fx's state on stdout (the state file's text). Returns 0 or -1. */
int fsc_nicfx_state_print(const struct fsc_nicfx *fx);

#endif
