/* PCIe health of a NIC (the kernel's drivers/pci/pci-sysfs.c and
 * Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats): link speed
 * and width against their maximum, and the AER error counters, from
 * /sys/bus/pci/devices/<BDF>/.
 *
 * On B300 the GPU-NIC path is PCIe Gen6 x16 (64 GT/s). A ConnectX-8 that
 * trains at Gen5 or at reduced width halves its bandwidth with no error on
 * the network side, so "degraded" (current speed below max, or current width
 * below max) is worth a gauge and an event.
 *
 * The PCI device of a netdev or RDMA device is the target of its `device`
 * symlink (/sys/class/net/<if>/device, /sys/class/infiniband/<dev>/device),
 * whose last component is the BDF ("0000:17:00.0"). The reader keeps the
 * seven files open and reads them with pread into a buffer of its own: no
 * allocation per poll. Limits: only the endpoint is read; a narrower
 * upstream port and the root ports' aer_rootport_total_err_* are not. */
#ifndef FSC_NIC_PCIE_H
#define FSC_NIC_PCIE_H

#include <stddef.h>
#include <stdint.h>

#define FSC_NIC_BDF_MAX         32 /* "0000:17:00.0" (wider PCI domains allowed), NUL incl. */
#define FSC_NIC_AER_ENTRIES_MAX 32 /* one per AER status bit at most */
#define FSC_NIC_AER_LABEL_MAX   48 /* longer labels are truncated */
#define FSC_NIC_AER_TEXT_MAX    4096

enum fsc_nic_aer_kind {
    FSC_NIC_AER_CORRECTABLE = 0, /* aer_dev_correctable, TOTAL_ERR_COR */
    FSC_NIC_AER_FATAL = 1,       /* aer_dev_fatal, TOTAL_ERR_FATAL */
    FSC_NIC_AER_NONFATAL = 2,    /* aer_dev_nonfatal, TOTAL_ERR_NONFATAL */
    FSC_NIC_AER__COUNT
};

struct fsc_nic_aer_entry {
    char label[FSC_NIC_AER_LABEL_MAX]; /* "Bad TLP", "RELAY_NUM Rollover", ... */
    uint64_t value;
};

/* One AER file. TOTAL may be below the sum of the entries: one error message
 * can report several causes. */
struct fsc_nic_aer {
    uint8_t present;    /* the file exists and was read */
    uint8_t has_total;  /* a TOTAL_ERR_* line was seen */
    uint8_t truncated;  /* the text filled the buffer: later lines were lost */
    uint32_t n;         /* entries in e[] */
    uint32_t dropped;   /* well-formed lines beyond FSC_NIC_AER_ENTRIES_MAX */
    uint32_t bad_lines; /* lines that are not "label SP number" */
    uint64_t total;     /* the TOTAL_ERR_* value */
    struct fsc_nic_aer_entry e[FSC_NIC_AER_ENTRIES_MAX]; /* file order */
};

struct fsc_nic_pcie {
    uint32_t cur_speed_mts, max_speed_mts; /* MT/s: 32000 = "32.0 GT/s"; 0 = unknown */
    double cur_speed_gts, max_speed_gts;   /* the same in GT/s */
    uint32_t cur_width, max_width;         /* lanes; 0 = unknown */
    uint8_t speed_degraded;                /* both speeds known and current < max */
    uint8_t width_degraded;                /* both widths known and current < max */
    uint8_t degraded;                      /* either of the two */
    struct fsc_nic_aer aer[FSC_NIC_AER__COUNT];
};

struct fsc_nic_pcie_reader;

/* Parses a link speed ("32.0 GT/s PCIe", "2.5 GT/s PCIe", the older "8 GT/s",
 * optional '\n') into MT/s; "Unknown" gives 0. Returns 0, or -EINVAL for
 * anything else. Thread: any. */
int fsc_nic_pcie_parse_speed(const char *s, size_t len, uint32_t *mts);

/* Parses a link width (decimal lanes, optional '\n'). Returns 0 or -EINVAL. */
int fsc_nic_pcie_parse_width(const char *s, size_t len, uint32_t *lanes);

/* Parses an aer_dev_* text into *out (fully overwritten, present = 1): one
 * "label SP number" per line, the label being everything before the last
 * space (so it may contain spaces); TOTAL_ERR_* lines set total. Blank lines
 * are ignored, others are counted in bad_lines. Returns 0, or -EINVAL when
 * no line was well-formed. Thread: any. */
int fsc_nic_aer_parse(const char *text, size_t len, struct fsc_nic_aer *out);

/* The value of the entry labelled `label`, or -1 (as int64) when absent. */
int64_t fsc_nic_aer_value(const struct fsc_nic_aer *aer, const char *label);

/* Resolves the PCI address of "<sysfs>/class/<cls>/<name>/device" (cls "net"
 * or "infiniband") into bdf. Returns 0, -ENOENT (no device link: a virtual
 * interface), -EINVAL (the target is not a PCI address), or -ENAMETOOLONG.
 * Thread: any. */
int fsc_nic_pcie_resolve(const char *sysfs, const char *cls, const char *name, char *bdf,
                         size_t bdflen);

/* Opens <sysfs>/bus/pci/devices/<bdf>/{current,max}_link_{speed,width} and
 * aer_dev_{correctable,fatal,nonfatal}; files the device lacks are left out
 * (their fields read as unknown / not present). Returns the reader, or NULL
 * with a sentence in err (no such device, out of memory). Thread: any. */
struct fsc_nic_pcie_reader *fsc_nic_pcie_create(const char *sysfs, const char *bdf, char *err,
                                                size_t errlen);

/* Closes the descriptors and frees. NULL is a no-op. */
void fsc_nic_pcie_destroy(struct fsc_nic_pcie_reader *pr);

/* Reads every open file into *out (fully overwritten; no allocation). Returns
 * 0, the number of files that could not be read or parsed (> 0; their fields
 * read as unknown), or -ENODEV when the device is gone. Thread: the reader's. */
int fsc_nic_pcie_read(struct fsc_nic_pcie_reader *pr, struct fsc_nic_pcie *out);

/* The reader's BDF. */
const char *fsc_nic_pcie_bdf(const struct fsc_nic_pcie_reader *pr);

#endif
