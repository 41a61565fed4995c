/* Private to collector/sources/otlp: release-aware port bytes for Cumulus
 * (docs/vendors/cumulus.md).
 *
 * Cumulus Linux changes its interface octet counters per release (NVIDIA's
 * CumulusNetworks/docs, content/cumulus-linux-5NN/Monitoring-and-
 * Troubleshooting/Open-Telemetry-Export.md): 5.10 .. 5.12 export none, only
 * per-class octets (tc_tx_octet per traffic class, pg_rx_octet per priority
 * group, sp_*_octets per switch priority); 5.13 and 5.14 export both
 * if_in_octets and ether_stats_octets (duplicates) and if_out_octets; 5.15+
 * drop if_in_octets and the sp octets. One canonical series per port and
 * direction (fabric_port_{rx,tx}_bytes_total) is fed from the best source
 * each port sends, detected from what arrives, no configuration:
 *
 *   rank 4 ether_stats_octets (rx)   rank 3 if_in_octets (rx), if_out_octets (tx)
 *   rank 2 sum over tc of tc_tx_octet (tx), over pg of pg_rx_octet(s) (rx)
 *   rank 1 sum over sp of sp_{rx,tx}_octets
 *
 * A port never counts two sources: points of a lower rank than the best the
 * port has sent are dropped from the canonical series (their own series,
 * fabric_port_queue_tx_bytes_total etc., stay); moving to a better source
 * marks the next sample FSC_SMP_RESET (a new baseline: the values differ).
 *
 * Derived sums. Per port, direction and family the set of classes is
 * learned from what arrives (the switch exports only the configured
 * classes). A sum is emitted only for an export (points of one time stamp)
 * that carries every learned class: a class missing gives no sample for
 * that export (counted), never a dip. A class that appears grows the set and
 * marks the sample RESET; one absent for 3 exports in a row leaves the set
 * (reconfiguration; RESET too). Derived ports also get the gauge
 * fabric_port_bytes_derived{device,port,direction} = 1 (0 once a direct
 * counter takes over).
 *
 * No byte counter. A device that sent interface metrics (nvswitch_interface_*)
 * in 3 requests and no byte source at all is flagged: otlp_bytes_end()
 * returns one warning for it (once per device), and otlp_bytes_devices()
 * lists it with 0 (1 for devices with a byte source).
 *
 * Bounded: at most OTLP_BYTES_MAX_DEVICES devices and OTLP_BYTES_MAX_PORTS
 * ports (beyond them: no derivation, no filtering, counted). */
#ifndef FSC_OTLP_BYTES_H
#define FSC_OTLP_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/otlp/map/otlp_series.h"

#define OTLP_BYTES_MAX_DEVICES 4096u
#define OTLP_BYTES_MAX_PORTS   16384u
#define OTLP_BYTES_CLASSES     16u /* tc 0..15; pg and sp 0..7 */
#define OTLP_BYTES_NONE        UINT32_MAX

enum { OTLP_BYTES_RX = 0, OTLP_BYTES_TX = 1 };
enum { OTLP_BYTES_DIRECT = 1, OTLP_BYTES_CLASS = 2 };

/* What a metric name is to port bytes (static data). */
struct otlp_bytes_role {
    const char *name;    /* vendor metric name */
    uint8_t kind;        /* OTLP_BYTES_DIRECT / OTLP_BYTES_CLASS */
    uint8_t dir;         /* OTLP_BYTES_RX / OTLP_BYTES_TX */
    uint8_t rank;        /* higher wins */
    uint8_t n_class;     /* classes 0 .. n_class-1 (CLASS) */
    const char *attr;    /* class attribute key (CLASS) */
    const char *plan_as; /* vendor name to map through the profile instead, or NULL */
};

/* The role of metric name, or NULL. Thread: any. */
const struct otlp_bytes_role *otlp_bytes_role(const char *metric);
/* The vendor name the profile should map for metric: an alias's plan_as
 * (ether_stats_octets -> if_in_octets, pg_rx_octets -> pg_rx_octet), else
 * metric itself. Thread: any. */
const char *otlp_bytes_plan_name(const char *metric);
/* True for Cumulus interface metrics (nvswitch_interface_*). */
bool otlp_bytes_interface_metric(const char *metric);

/* Applies value v at device time t to state index st of the ingest's series
 * (the ingest's own apply: DELTA/CUMULATIVE rules, sample buffer). */
typedef void (*otlp_bytes_apply_fn)(void *ctx, uint32_t st, double v, int64_t t, bool reset);

struct ob_dir {
    double val[OTLP_BYTES_CLASSES]; /* class values of the export being collected */
    uint64_t t;                     /* its time stamp, 0 = none */
    uint16_t got, set;              /* classes of that export / learned classes */
    uint8_t rank, fam_rank;         /* best source seen / class family in use */
    uint8_t miss, reset;            /* exports missing a class / next sample resets */
    uint8_t flag;                   /* derived gauge: 0 none, 1 shows 1, 2 shows 0 */
    uint32_t st_bytes, st_flag;     /* state indexes, OTLP_BYTES_NONE until made */
};

struct ob_port {
    uint64_t hash;
    uint32_t dev;
    uint32_t name_off, name_len;
    uint32_t touched; /* request number it was last touched in */
    struct ob_dir d[2];
};

struct ob_device {
    char name[FSC_OTLP_LABEL_VALUE_MAX + 1];
    uint32_t seen_req;       /* last request with interface metrics */
    uint32_t iface_requests; /* such requests while no byte source was seen */
    uint8_t has_bytes, warned;
};

struct otlp_bytes_stats {
    uint64_t derived_samples; /* derived sums emitted */
    uint64_t incomplete;      /* exports of a port that lacked a learned class */
    uint64_t dropped;         /* points of a lower-ranked source not counted */
    uint64_t unplaced;        /* points beyond the device/port bounds or memory */
    uint64_t no_class;        /* class points without a usable class attribute */
};

struct otlp_bytes {
    struct otlp_series *ser; /* borrowed: series are made through the ingest's cache */
    otlp_bytes_apply_fn apply;
    void *ctx;

    struct ob_device *dev;
    uint32_t n_dev, cap_dev;
    struct ob_port *port;
    uint32_t n_port, cap_port;
    uint32_t *slot; /* port index + 1 by hash; 0 = empty */
    uint32_t mask;
    char *names; /* port names, NUL-terminated, by name_off */
    size_t names_used, names_cap;
    uint32_t *touched; /* ports touched in this request */
    uint32_t n_touched, cap_touched;
    uint32_t req; /* request number, from 1 */

    struct otlp_bytes_stats st;
    size_t memory;
    uint32_t allocs;
};

/* Sets up an empty state (ob zeroed by the caller) feeding ser through
 * apply(ctx, ...). ser is borrowed. Nothing is allocated until used. */
void otlp_bytes_init(struct otlp_bytes *ob, struct otlp_series *ser, otlp_bytes_apply_fn apply,
                     void *ctx);
/* Frees what use allocated. */
void otlp_bytes_fini(struct otlp_bytes *ob);

/* Starts a request (numbers it). */
void otlp_bytes_begin(struct otlp_bytes *ob);

/* The index of device (a label value, NUL-terminated), added when new, or
 * OTLP_BYTES_NONE when the table is full or memory is short. */
uint32_t otlp_bytes_device(struct otlp_bytes *ob, const char *device);

/* Device dev sent an interface metric in this request. */
void otlp_bytes_interface_seen(struct otlp_bytes *ob, uint32_t dev);

/* A point of a DIRECT role for port[0..plen) of dev. Returns false when the
 * point must not feed the canonical series (a better source is known, or
 * the port is past the bounds: then true, unfiltered); *reset is set when
 * it does and is the port's first point of a better source. */
bool otlp_bytes_direct(struct otlp_bytes *ob, uint32_t dev, const char *port, uint32_t plen,
                       const struct otlp_bytes_role *r, int64_t t, bool *reset);

/* A point of a CLASS role: value v of class `cls` (parsed by the caller from
 * the role's attribute; < 0 = missing, counted) for port[0..plen) of dev at
 * device time t. */
void otlp_bytes_class(struct otlp_bytes *ob, uint32_t dev, const char *port, uint32_t plen,
                      const struct otlp_bytes_role *r, int cls, double v, int64_t t);

/* Ends a request: finishes the exports of every port it touched (derived
 * sums through apply) and judges its devices. When a device has just been
 * found to send no byte counter, writes one sentence naming it into
 * warning (cap bytes) and returns true; each device is reported once. */
bool otlp_bytes_end(struct otlp_bytes *ob, char *warning, size_t cap);

/* Calls cb for every judged device: has 1 (sends a byte source) or 0 (sent
 * interface metrics in 3 requests, no byte source). Returns the count. */
size_t otlp_bytes_devices(const struct otlp_bytes *ob,
                          void (*cb)(void *arg, const char *device, int has), void *arg);

/* The class number in text v[0..n) (decimal, < n_class), or -1. */
int otlp_bytes_class_of(const char *v, uint32_t n, uint8_t n_class);

#endif
