/* The nic source's state, shared by its files (internal to collector/sources/nic):
 *   nic_source.c         start/stop, the poll thread and its timer, self-metrics
 *   nic_series.c         labels, series, the slow batch, events: what the files share
 *   nic_poll_discover.c  ports: listed, or discovered in sysfs
 *   nic_poll.c           ports: readers, series of counters, the fast poll
 *   nic_plan.c           what one counter becomes (metric, traits, multiplier)
 *   nic_poll_slow.c      the 1 s work: PCIe link and AER, traits updates, rescans
 *   nic_hostcheck_run.c  the 10 s host check against the cable plan
 *
 * Everything below belongs to the poll thread once start() returns; nothing
 * is shared with other threads except through the registry, the engine and
 * the event bus, which have their own locks. */
#ifndef FSC_NIC_SOURCE_INT_H
#define FSC_NIC_SOURCE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "plugin/source.h"
#include "engine/topo_groups.h"
#include "engine/topo_peers.h"
#include "model/topo_labels.h"
#include "model/cable_plan.h"
#include "sources/nic/nic_aggregate.h"
#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_hostcheck.h"
#include "sources/nic/nic_pcie.h"
#include "sources/nic/nic_plan.h"
#include "sources/nic/nic_source.h"
#include "sources/nic/nic_sysfs.h"

#define NIC_PORTS_MAX     256              /* ports one source polls (auto discovery stops there) */
#define NIC_LABELS_MAX    12               /* base labels of a port: device, port, plan, topology */
#define NIC_TAG_REFUSED   (UINT32_MAX - 1) /* a counter whose series was refused */
#define NIC_SLOW_NS       1000000000LL     /* PCIe, AER, traits, self-metrics */
#define NIC_CHECK_NS      10000000000LL    /* host check, rescans, reopening readers */
#define NIC_AGG_WINDOW_NS 1000000000LL     /* node aggregate window */
#define NIC_PEER_MAX      (FSC_CONFIG_MAX_NAME + FSC_CABLING_IFNAME_SIZE + 2)

/* Where a port's node-aggregate bytes come from (nic_aggregate.h). */
enum nic_agg_src { NIC_AGG_NONE = 0, NIC_AGG_ETHTOOL, NIC_AGG_PMA };

/* The labels every series of one interface starts with: device, port, the
 * cable plan's node / card / link / peer / peer_node, then the topology's
 * role / rail / peer (fsc_topo_labels_add; the plan's peer wins). Values
 * point into this struct, so it must not move once built. */
struct nic_labels {
    struct fsc_label lb[NIC_LABELS_MAX];
    size_t n;
    char node[12], card[12], link[12], peer_node[12];
    char peer[NIC_PEER_MAX];
    char rail[FSC_TOPO_RAIL_BUF];
};

struct nic_port {
    char rdma[FSC_CONFIG_MAX_NAME + 1];
    uint32_t ibport;
    char netdev[FSC_NIC_IFNAME_MAX];      /* "" when the port has none */
    char name[FSC_CONFIG_MAX_NAME + 16];  /* the port label: netdev, else "rdma/port" */
    char bdf[FSC_NIC_BDF_MAX];            /* "" until resolved */
    const struct fsc_cabling_iface *plan; /* NULL: not in the plan */
    struct nic_labels lab;

    struct fsc_nic_cdir *cd[NIC_G__CDIRS]; /* NULL: not there (retried every 10 s) */
    struct fsc_nic_ethtool *et;
    fsc_series_id *et_ids; /* per ethtool index; FSC_SERIES_NONE = skipped */
    uint32_t *et_scale;    /* per ethtool index: the profile's value multiplier */
    size_t et_n;
    struct fsc_nic_link_reader *link;
    struct fsc_nic_pcie_reader *pcie;

    uint8_t need_rescan; /* a directory reported a vanished file */
    uint8_t need_et;     /* ethtool strings changed: re-resolve the names */
    uint8_t et_gone;     /* the ethtool reader said ENODEV: closed, reopened every 10 s */
    uint8_t link_gone;   /* the same for the link reader */
    uint8_t pcie_gone;   /* and for the PCIe reader */
    uint8_t warned;      /* bit per reader kind whose absence was logged */
    int64_t lifespan_ms; /* hw_counters lifespan the traits were set with (-1 unknown) */
    uint64_t speed_bps;  /* link speed the traits were set with (0 unknown) */
    uint64_t topo_bps;   /* the topology's speed of the port (0: none); when set it is
                          * speed_bps, whatever sysfs says (engine/link_speed.h's rule) */
    struct fsc_nic_link link_now;
    uint8_t link_ok; /* link_now is from this poll */

    fsc_series_id link_up_id, link_speed_id;
    fsc_series_id pcie_speed_id[2], pcie_width_id[2], pcie_degraded_id; /* [0] current [1] max */
    fsc_series_id aer_id[FSC_NIC_AER__COUNT];
    int8_t degraded; /* -1 never read, 0, 1 */
    int64_t degraded_since;

    enum nic_agg_src agg_src;
    long agg_idx[FSC_NIC_AGG__DIRS]; /* ethtool index or PMA counter index */
};

/* One cabled interface of this node in the plan. */
struct nic_planned {
    const struct fsc_cabling_iface *want;
    struct nic_labels lab;
    fsc_series_id id[FSC_CABLE__COUNT];
    uint8_t state[FSC_CABLE__COUNT]; /* last value published */
    int64_t since[FSC_CABLE__COUNT]; /* wall time a mismatch started */
};

struct nic_stats {
    uint64_t polls, overruns, read_errors, counters_last;
    int64_t last_ns, max_ns, busy_ns; /* poll durations (monotonic) */
};

struct nic_ctx {
    char name[FSC_CONFIG_MAX_NAME + 1];
    const struct fsc_nic_config *cfg;
    struct fsc_source_env env;
    const struct fsc_profile *prof;
    char sysfs[FSC_NIC_PATH_MAX];      /* <root>/sys */
    char neigh_path[FSC_NIC_PATH_MAX]; /* /proc/net/arp; a fixture's <root>/proc/net/arp */
    char et_dir[FSC_NIC_PATH_MAX];     /* a fixture's <root>/ethtool ("" on a host) */
    bool fixture; /* nic.fixture: a tree without a kernel (no ioctl, addresses from files) */
    bool ethtool, pcie;
    int sock; /* for SIOCETHTOOL; -1 when ethtool is off */

    struct nic_port *ports;
    size_t n_ports;

    struct fsc_cabling *cab; /* NULL: no host check */
    uint32_t node;
    struct nic_planned *planned;
    size_t n_planned;
    struct fsc_nic_neigh *neigh; /* FSC_NIC_NEIGH_MAX */
    char *neigh_text;            /* grows up to FSC_NIC_NEIGH_TEXT_MAX */
    size_t neigh_text_size;
    struct fsc_nic_host_iface *have;
    const char **have_names;

    struct fsc_nic_agg agg;
    uint64_t capacity_bps;
    struct nic_labels node_lab;
    fsc_series_id agg_bits_id[FSC_NIC_AGG__DIRS], agg_eff_id[FSC_NIC_AGG__DIRS];

    struct fsc_sample *smp; /* the fast poll's batch */
    size_t smp_cap;
    struct fsc_sample *gsmp; /* the slow work's batch */
    size_t gsmp_cap, gsmp_n;

    struct nic_stats st;
    fsc_series_id self_id[8];

    pthread_t thread;
    atomic_int stop;
};

/* ---- nic_series.c -------------------------------------------------------------- */

/* Appends name=value to lab when value is not empty and lab has room. */
void nic_label_add(struct nic_labels *lab, const char *name, const char *value);

/* Builds lab for interface `port` (plan entry may be NULL). */
void nic_labels_build(struct nic_ctx *ctx, struct nic_labels *lab, const char *port,
                      const struct fsc_cabling_iface *plan);

/* Interns metric{lab, extra} with traits tr (set in the engine; transmit
 * port bytes also join the topology's port groups). Returns the id, or
 * FSC_SERIES_NONE (logged once per refusal kind). */
fsc_series_id nic_series(struct nic_ctx *ctx, const char *metric, const struct nic_labels *lab,
                         const struct fsc_label *extra, size_t n_extra,
                         const struct fsc_traits *tr);

/* Traits of a gauge sampled every period_ns. */
struct fsc_traits nic_gauge_traits(uint8_t unit, int64_t period_ns);

/* Appends a sample to the slow batch (dropped when full: the batch is sized
 * at start for every gauge). */
void nic_gauge_u(struct nic_ctx *ctx, fsc_series_id id, int64_t t, uint64_t v);
void nic_gauge_d(struct nic_ctx *ctx, fsc_series_id id, int64_t t, double v);

/* Publishes a START / END event of the NIC's own kinds through the engine's
 * bus, counted like the detectors' events. */
void nic_event_publish(struct nic_ctx *ctx, const struct fsc_event *ev);

/* ---- nic_poll_discover.c ------------------------------------------------------ */

/* Fills ctx->ports from the config (listed devices) or by discovery. Returns
 * 0 or -1 with a sentence in err (out of memory only: missing devices are
 * logged and retried). */
int nic_ports_discover(struct nic_ctx *ctx, char *err, size_t errlen);

/* ---- nic_poll.c -------------------------------------------------------------------- */

/* Opens what is missing of port p's readers and resolves the series of
 * every counter that has none. Allocates. Returns 0 or -ENOMEM. */
int nic_port_open(struct nic_ctx *ctx, struct nic_port *p);

/* Closes every reader of p and frees its arrays. */
void nic_port_close(struct nic_port *p);

/* Re-resolves what changed on p (flags need_*), rescans when asked or when
 * force is set (the 10 s rescan of fixture trees). Allocates. */
void nic_port_refresh(struct nic_ctx *ctx, struct nic_port *p, bool force);

/* Makes the fast batch hold every counter of every port. Returns 0 or -ENOMEM. */
int nic_samples_reserve(struct nic_ctx *ctx);

/* One poll of every port: reads, samples, one engine ingest, the node
 * aggregate. No allocation. t0 is the poll's wall time. */
void nic_poll_once(struct nic_ctx *ctx, int64_t t0);

/* Re-sets the traits of every counter of p (lifespan or link speed changed). */
void nic_port_retrait(struct nic_ctx *ctx, struct nic_port *p);

/* ---- nic_poll_slow.c ----------------------------------------------------------------- */

/* The 1 s work: PCIe + AER, traits updates, refreshes. Fills the slow batch. */
void nic_slow_tick(struct nic_ctx *ctx, int64_t now);

/* ---- nic_hostcheck_run.c ----------------------------------------------------------- */

/* Loads the cable plan of the config (nic.cable_plan or topology.cable_plan)
 * and prepares the planned interfaces of this node. ctx->cab stays NULL when
 * there is no plan. Returns 0 or -1 with a sentence in err. */
int nic_hostcheck_setup(struct nic_ctx *ctx, char *err, size_t errlen);

/* Frees what setup allocated. */
void nic_hostcheck_teardown(struct nic_ctx *ctx);

/* One host check: gauges into the slow batch, events on changes. */
void nic_hostcheck_run(struct nic_ctx *ctx, int64_t now);

#endif
