/* Fabric health: the conditions that hold now, and those that ended or
 * happened in the last minutes, as plain sentences (internal to
 * exporters/web; the status page opens with them and /api/health serves
 * them: docs/API.md, "/api/health").
 *
 * The request handler (web_health.c) gathers *facts*: one per condition it
 * finds in the collector's state, where that state is the truth - a
 * cable-mismatch or PCIe gauge at 1, a link-up gauge at 0, a source the
 * daemon reports down, a detector event started and not ended (the web
 * module keeps those in its active set, apart from the event ring, so a
 * condition is listed as long as it holds). This file's functions are pure
 * (the clock comes in as an argument; web_conditions.c derives,
 * web_conditions_text.c writes): they turn facts into *conditions* -
 * the interfaces of two swapped cables become one condition, the streams
 * of a source that is down fold into it - order them, and write each one's
 * sentence. The unit tests give known facts and compare exact sentences.
 *
 * Strings in a fact are borrowed (registry strings, the request's copies)
 * and must outlive the conditions made from it. Thread: any. */
#ifndef FSC_WEB_CONDITIONS_H
#define FSC_WEB_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cable_plan.h"
#include "model/event.h"
#include "engine/engine.h"

/* What a condition is, in the order the page lists them: what stops data
 * first, then what the cabling and the hosts get wrong, then what the
 * detectors see. The last three are never active (they are instants, or
 * a microburst, published once it is over): they appear as recent only. */
enum fsc_web_hk {
    FSC_WEB_HK_SOURCE_DOWN = 0, /* a configured source not up (daemon view) */
    FSC_WEB_HK_STREAM_DOWN,     /* stream_down started, not ended */
    FSC_WEB_HK_CABLES_SWAPPED,  /* two cables of one node each reach the other's peer */
    FSC_WEB_HK_CABLE_MISSING,   /* fabric_cable_mismatch{kind="missing"} 1 */
    FSC_WEB_HK_LINK_DOWN,       /* mismatch kind down, fabric_port_link_up 0, or oper down */
    FSC_WEB_HK_CABLE_SPEED,     /* mismatch kind speed */
    FSC_WEB_HK_CABLE_ADDRESS,   /* mismatch kind address */
    FSC_WEB_HK_CABLE_PEER,      /* mismatch kind peer */
    FSC_WEB_HK_PCIE,            /* fabric_pcie_link_degraded 1 */
    FSC_WEB_HK_PFC_STORM,
    FSC_WEB_HK_BURST, /* a burst lasting micro_max or longer */
    FSC_WEB_HK_ECN_SPIKE,
    FSC_WEB_HK_CNP_SPIKE,
    FSC_WEB_HK_REORDER_SPIKE,
    FSC_WEB_HK_IMBALANCE,
    FSC_WEB_HK_MICROBURST,
    FSC_WEB_HK_QUEUE_PEAK,
    FSC_WEB_HK_BUFFER_THRESHOLD,
    FSC_WEB_HK__COUNT
};

/* "source_down", "cables_swapped", "pcie_degraded", ... (the API's kind). */
const char *fsc_web_hk_name(enum fsc_web_hk kind);

/* The condition kind of a detector or NIC event kind (with the mismatch
 * kind, enum fsc_web_mismatch, for a cable mismatch), or -1 when the event
 * kind is no health condition (counter resets). */
int fsc_web_hk_of_event(unsigned event_kind, int mismatch);

/* One condition as the collector's state shows it. */
struct fsc_web_hfact {
    uint8_t kind;              /* enum fsc_web_hk */
    uint8_t direction;         /* enum fsc_direction */
    bool ended;                /* a recent one: it ended at end_ns (or happened then) */
    const char *device, *port; /* labels; NULL unknown */
    const char *peer;          /* the series' `peer` label ("device:port"), or NULL */
    const char *queue;         /* the `queue` label, or NULL */
    const char *name;          /* source: its name; stream: "source/stream"; group: its name */
    const char *detail;        /* source: its type */
    const char *state;         /* source: the daemon's state word */
    uint32_t node;             /* B300 plan node of a cable fact (the `node` label); 0 none */
    int64_t since_ns;          /* when it started (event time); 0 not known */
    int64_t end_ns;            /* ended: when; 0 */
    int64_t quiet_ns;          /* active detector condition whose series sent nothing for
                                * long: its last data (device time), so its end cannot be
                                * seen; 0 otherwise */
    int has_ev;                /* ev holds the kind's figures */
    struct fsc_event ev;       /* the START (or latest UPDATE / END) event */
    uint32_t streams_down;     /* source: streams of it down (folded in) */
};

/* A condition: a fact, or for swapped cables the facts of their
 * interfaces folded into one. */
struct fsc_web_hcond {
    struct fsc_web_hfact f; /* for a swap: device, node, since (the earliest) */
    /* FSC_WEB_HK_CABLES_SWAPPED: the two physical ports of f.node, the
     * interfaces on each (the plan's order) and where each was planned to
     * go. either_end: both cables go to one peer node, so the swap may be
     * at that end as well. */
    uint32_t swap_port[2];
    const char *swap_if[2][2];
    uint32_t swap_peer_node[2], swap_peer_port[2];
    bool either_end;
    uint32_t folded; /* facts folded into this one (swap: interfaces at both ends) */
};

/* Node names for the sentences: names[n] is node n's device name (NULL:
 * "node<n>"). */
struct fsc_web_hnames {
    const char *node[FSC_CABLE_MAX_NODE + 1];
};

/* Turns facts[0..n) into conditions: folds the peer facts of two cables
 * that look swapped (both cables' interfaces at one node fail the peer
 * check with an unanswered neighbour entry while everything else on them
 * is right, and their far ends, when reported, fail it too: the plan says
 * which port each interface is on and where it goes) into one condition,
 * folds the stream facts of a source that is down into it, then sorts:
 * kind order, then device, port, direction, name (recent ones: newest
 * first). plan may be NULL (no swap is inferred). Writes at most cap
 * conditions to out and returns how many there are in all; facts may be
 * reordered. */
size_t fsc_web_conditions_derive(struct fsc_web_hfact *facts, size_t n,
                                 const struct fsc_cabling *plan, struct fsc_web_hcond *out,
                                 size_t cap);

/* The sentence of a condition, in parts (each NUL-terminated; cut when
 * long) and whole. */
struct fsc_web_htext {
    char title[40];    /* "PCIe degraded" */
    char what[256];    /* what and where: "b300-01 ens7f0np0: PCIe link below its maximum" */
    char when[40];     /* since when (active) or when it ended or happened (recent):
                        * "2026-11-30 02:16:09 UTC"; "" when not known */
    char age[32];      /* active: how long it holds ("3 m 20 s"); recent: how long ago */
    char measure[256]; /* how bad, against its threshold */
    char check[200];   /* what to check */
    char sentence[1024];
};

/* Writes c's text at now_ns (wall clock) with the engine's thresholds
 * (ecfg). Returns t. */
struct fsc_web_htext *fsc_web_condition_text(const struct fsc_web_hcond *c,
                                             const struct fsc_web_hnames *names,
                                             const struct fsc_engine_config *ecfg, int64_t now_ns,
                                             struct fsc_web_htext *t);

/* The list's summary line: "4 active: Cables swapped 1, PCIe degraded 1
 * \u00b7 1 in the last 10 minutes",
 * and when incomplete, why. by_kind counts the active conditions of each
 * kind. Returns buf. */
const char *fsc_web_health_summary(const size_t by_kind[FSC_WEB_HK__COUNT], size_t n_active,
                                   size_t n_recent, int64_t recent_ns, bool incomplete, char *buf,
                                   size_t size);

/* "PCIe degraded", "Cables swapped", ... (the page's title of a kind). */
const char *fsc_web_hk_title(enum fsc_web_hk kind);

/* What to check for a kind ("" for a swap: its check names the ports). */
const char *fsc_web_hk_check(enum fsc_web_hk kind);

/* "error" for what stops traffic or data, else "warning". */
const char *fsc_web_hk_severity(enum fsc_web_hk kind);

/* ---- the model the page and /api/health render (web_model.h) ------------------------- */

/* One condition shown, with its sentence. */
struct fsc_web_hline {
    struct fsc_web_hcond c;
    struct fsc_web_htext t;
};

struct fsc_web_health {
    int64_t now_ns;                    /* wall clock the ages are measured from */
    size_t n_active;                   /* active conditions in all */
    size_t n_recent;                   /* recent ones in all (the last recent_ns) */
    int64_t recent_ns;                 /* what "recent" spans */
    size_t by_kind[FSC_WEB_HK__COUNT]; /* active ones by kind */
    bool incomplete; /* events were lost, or a bound was reached: the list may miss some */
    struct fsc_web_hline *active, *recent; /* the first ones, in order */
    size_t n_active_shown, n_recent_shown;
    void *owned[4]; /* what the builder allocated for the strings (fsc_web_health_free) */
};

#endif
