/* Facts to conditions (web_conditions.h): the kinds, the swap inference,
 * the folding and the order; the sentences are web_conditions_text.c's.
 * Pure: the plan comes in as an argument.
 *
 * Why a swap is inferred, and only then: the host check proves a cable
 * wrong when the planned peer's address gets no complete neighbour entry
 * on the interface (docs/CABLING.md: hosts answer ARP only on the
 * interface that owns the address). When both cables of two physical
 * ports of one node fail so on every link, and nothing else is wrong with
 * them (link up, speed and address right), the one explanation with a
 * single mistake is that the two cables sit in each other's port: each
 * port then reaches the other's planned peer. A neighbour table without an
 * entry ("none") is no evidence - an idle link's entry ages out - so such
 * interfaces are reported one by one. */
#include <stdlib.h>
#include <string.h>

#include "model/operstate.h"
#include "web/web_conditions.h"
#include "web/web_model.h"

static const struct {
    const char *name, *title, *check;
    bool error;
} hk_info[FSC_WEB_HK__COUNT] = {
    [FSC_WEB_HK_SOURCE_DOWN] = {"source_down", "Source down",
                                "the device's address, credentials and TLS in the config; the "
                                "collector log's lines for this source say why",
                                true},
    [FSC_WEB_HK_STREAM_DOWN] = {"stream_down", "Stream down",
                                "the target's gRPC service and its subscription paths; the "
                                "collector log's gnmi lines say why",
                                true},
    [FSC_WEB_HK_CABLES_SWAPPED] = {"cables_swapped", "Cables swapped", NULL, true},
    [FSC_WEB_HK_CABLE_MISSING] = {"cable_missing", "Interface missing",
                                  "the NIC and its interface names against the plan's layout "
                                  "(ip -br link)",
                                  true},
    [FSC_WEB_HK_LINK_DOWN] = {"link_down", "Link down",
                              "the cable, its transceivers and the port at the other end", true},
    [FSC_WEB_HK_CABLE_SPEED] = {"cable_speed", "Wrong link speed",
                                "the cable type and the speed set on both ends", false},
    [FSC_WEB_HK_CABLE_ADDRESS] = {"cable_address", "Wrong address",
                                  "the addresses against the cable plan (fabricscope plan "
                                  "--apply sets them)",
                                  false},
    [FSC_WEB_HK_CABLE_PEER] = {"cable_peer", "Planned peer not reached",
                               "the cable against the cable plan (fabricscope plan); hosts need "
                               "arp_ignore=1",
                               false},
    [FSC_WEB_HK_PCIE] = {"pcie_degraded", "PCIe degraded",
                         "the NIC's seating, slot and riser, and the BIOS PCIe settings", true},
    [FSC_WEB_HK_PFC_STORM] = {"pfc_storm", "PFC storm",
                              "the receiver that cannot drain (its buffers, the PFC watchdog) "
                              "and the traffic toward it",
                              false},
    [FSC_WEB_HK_BURST] = {"burst", "Long burst",
                          "what saturates the link: an elephant flow, or a parallel link down",
                          false},
    [FSC_WEB_HK_ECN_SPIKE] = {"ecn_spike", "ECN-mark storm",
                              "the traffic converging on this queue, uplink balance and the ECN "
                              "thresholds",
                              false},
    [FSC_WEB_HK_CNP_SPIKE] = {"cnp_spike", "CNP storm",
                              "the congestion these flows meet: ECN marks and pause frames "
                              "along their path",
                              false},
    [FSC_WEB_HK_REORDER_SPIKE] = {"reorder_spike", "Reordering",
                                  "multipath or adaptive routing changes and link flaps on the "
                                  "path",
                                  false},
    [FSC_WEB_HK_IMBALANCE] = {"uplink_imbalance", "Uplink imbalance",
                              "ECMP hashing, and a down or slower uplink in the group", false},
    [FSC_WEB_HK_MICROBURST] = {"microburst", "Microburst",
                               "incast toward this port: many senders at once (collectives)",
                               false},
    [FSC_WEB_HK_QUEUE_PEAK] = {"queue_peak", "Queue peak",
                               "incast toward this port; the peer's counters say which side "
                               "bursts",
                               false},
    [FSC_WEB_HK_BUFFER_THRESHOLD] = {"buffer_threshold", "NIC buffer threshold",
                                     "what keeps the host from draining: PCIe, memory or CPU on "
                                     "this node",
                                     false},
};

const char *fsc_web_hk_name(enum fsc_web_hk kind)
{
    return kind < FSC_WEB_HK__COUNT ? hk_info[kind].name : "unknown";
}

const char *fsc_web_hk_title(enum fsc_web_hk kind)
{
    return kind < FSC_WEB_HK__COUNT ? hk_info[kind].title : "Unknown";
}

const char *fsc_web_hk_severity(enum fsc_web_hk kind)
{
    return kind < FSC_WEB_HK__COUNT && hk_info[kind].error ? "error" : "warning";
}

const char *fsc_web_hk_check(enum fsc_web_hk kind)
{
    return kind < FSC_WEB_HK__COUNT && hk_info[kind].check ? hk_info[kind].check : "";
}

int fsc_web_hk_of_event(unsigned event_kind, int mismatch)
{
    static const int mm[FSC_WEB_MM__COUNT] = {
        [FSC_WEB_MM_MISSING] = FSC_WEB_HK_CABLE_MISSING,
        [FSC_WEB_MM_DOWN] = FSC_WEB_HK_LINK_DOWN,
        [FSC_WEB_MM_SPEED] = FSC_WEB_HK_CABLE_SPEED,
        [FSC_WEB_MM_ADDRESS] = FSC_WEB_HK_CABLE_ADDRESS,
        [FSC_WEB_MM_PEER] = FSC_WEB_HK_CABLE_PEER,
    };
    switch (event_kind) {
    case FSC_EV_MICROBURST:
        return FSC_WEB_HK_MICROBURST;
    case FSC_EV_BURST:
        return FSC_WEB_HK_BURST;
    case FSC_EV_QUEUE_PEAK:
        return FSC_WEB_HK_QUEUE_PEAK;
    case FSC_EV_BUFFER_THRESHOLD:
        return FSC_WEB_HK_BUFFER_THRESHOLD;
    case FSC_EV_CNP_SPIKE:
        return FSC_WEB_HK_CNP_SPIKE;
    case FSC_EV_ECN_SPIKE:
        return FSC_WEB_HK_ECN_SPIKE;
    case FSC_EV_REORDER_SPIKE:
        return FSC_WEB_HK_REORDER_SPIKE;
    case FSC_EV_PFC_STORM:
        return FSC_WEB_HK_PFC_STORM;
    case FSC_EV_UPLINK_IMBALANCE:
        return FSC_WEB_HK_IMBALANCE;
    case FSC_EV_CABLE_MISMATCH:
        return mismatch >= 0 && mismatch < FSC_WEB_MM__COUNT ? mm[mismatch] : -1;
    case FSC_EV_PCIE_DEGRADED:
        return FSC_WEB_HK_PCIE;
    case FSC_EV_STREAM_DOWN:
        return FSC_WEB_HK_STREAM_DOWN;
    default:
        return -1;
    }
}

/* ---- deriving ------------------------------------------------------------------------- */

#define FOLDED FSC_WEB_HK__COUNT /* a fact's kind once folded into another condition */

static int str_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int fact_cmp(const void *pa, const void *pb)
{
    const struct fsc_web_hfact *a = pa, *b = pb;
    if (a->ended != b->ended)
        return a->ended ? 1 : -1;
    if (a->ended && a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns ? -1 : 1; /* recent: newest first */
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = str_cmp(a->device, b->device);
    if (!c)
        c = str_cmp(a->port, b->port);
    if (!c && a->direction != b->direction)
        c = a->direction < b->direction ? -1 : 1;
    return c ? c : str_cmp(a->name, b->name);
}

static bool is_cable(uint8_t kind)
{
    return kind >= FSC_WEB_HK_CABLE_MISSING && kind <= FSC_WEB_HK_CABLE_PEER;
}

/* The active cable fact of kind (any cable kind: -1) on node/ifname. */
static struct fsc_web_hfact *cable_fact(struct fsc_web_hfact *facts, size_t n, uint32_t node,
                                        const char *ifname, int kind)
{
    for (size_t i = 0; i < n; i++) {
        struct fsc_web_hfact *f = &facts[i];
        if (!f->ended && f->node == node && is_cable(f->kind) && (kind < 0 || f->kind == kind) &&
            f->port && strcmp(f->port, ifname) == 0)
            return f;
    }
    return NULL;
}

/* Whether interface node/ifname shows the swap's evidence: a peer fact
 * whose neighbour entry exists but is not complete here, and no other
 * cable fact. */
static bool peer_evidence(struct fsc_web_hfact *facts, size_t n, uint32_t node, const char *ifname)
{
    const struct fsc_web_hfact *f = cable_fact(facts, n, node, ifname, FSC_WEB_HK_CABLE_PEER);
    double seen = FSC_PEER_NONE;
    if (!f || !f->has_ev || !fsc_event_get(&f->ev, FSC_EF_NEIGHBOUR, &seen) ||
        (seen != FSC_PEER_INCOMPLETE && seen != FSC_PEER_ELSEWHERE))
        return false;
    for (size_t i = 0; i < n; i++)
        if (&facts[i] != f && !facts[i].ended && facts[i].node == node && is_cable(facts[i].kind) &&
            facts[i].port && strcmp(facts[i].port, ifname) == 0)
            return false;
    return true;
}

/* The far end of a planned interface shows nothing but a failed peer
 * check (or nothing: not polled here, or its entry aged out). */
static bool far_end_agrees(struct fsc_web_hfact *facts, size_t n, const struct fsc_cabling_iface *e)
{
    const struct fsc_web_hfact *f = cable_fact(facts, n, e->peer_node, e->peer_ifname, -1);
    return !f || f->kind == FSC_WEB_HK_CABLE_PEER;
}

static void fold(struct fsc_web_hfact *facts, size_t n, uint32_t node, const char *ifname,
                 struct fsc_web_hcond *c)
{
    struct fsc_web_hfact *f = cable_fact(facts, n, node, ifname, FSC_WEB_HK_CABLE_PEER);
    if (!f)
        return;
    if (f->since_ns && (!c->f.since_ns || f->since_ns < c->f.since_ns))
        c->f.since_ns = f->since_ns;
    f->kind = FOLDED;
    c->folded++;
}

/* Finds the swapped cable pairs of the plan's nodes; writes at most cap
 * conditions (one per node at most) and folds their facts. */
static size_t find_swaps(struct fsc_web_hfact *facts, size_t n, const struct fsc_cabling *plan,
                         struct fsc_web_hcond *swaps, size_t cap)
{
    size_t ns = 0;
    for (uint32_t node = 1; plan && node <= FSC_CABLE_MAX_NODE && ns < cap; node++) {
        const struct fsc_cabling_iface *ifs = fsc_cabling_node(plan, node);
        const struct fsc_cabling_iface *port_if[2][2] = {{NULL}};
        uint32_t cand[2], n_cand = 0;
        if (!ifs)
            continue;
        for (uint32_t port = 1; port <= FSC_CABLING_IFACES / 2; port++) {
            const struct fsc_cabling_iface *on[2] = {NULL, NULL};
            size_t k = 0;
            bool all = true;
            for (size_t i = 0; i < FSC_CABLING_IFACES; i++) {
                const struct fsc_cabling_iface *e = &ifs[i];
                if (e->port != port || !e->cabled)
                    continue;
                if (k < 2)
                    on[k++] = e;
                all =
                    all && peer_evidence(facts, n, node, e->ifname) && far_end_agrees(facts, n, e);
            }
            if (k == 0 || !all)
                continue;
            if (n_cand < 2) {
                port_if[n_cand][0] = on[0];
                port_if[n_cand][1] = on[1];
                cand[n_cand] = port;
            }
            n_cand++;
        }
        if (n_cand != 2)
            continue; /* none, or more than two: no single swap explains it */
        struct fsc_web_hcond *c = &swaps[ns++];
        memset(c, 0, sizeof(*c));
        const struct fsc_web_hfact *first =
            cable_fact(facts, n, node, port_if[0][0]->ifname, FSC_WEB_HK_CABLE_PEER);
        c->f.kind = FSC_WEB_HK_CABLES_SWAPPED;
        c->f.device = first->device;
        c->f.node = node; /* port stays NULL: the swap is of two ports, named apart */
        for (int p = 0; p < 2; p++) {
            c->swap_port[p] = cand[p];
            c->swap_peer_node[p] = port_if[p][0]->peer_node;
            c->swap_peer_port[p] = port_if[p][0]->peer_port;
            for (int k = 0; k < 2; k++) {
                const struct fsc_cabling_iface *e = port_if[p][k];
                if (!e)
                    continue;
                c->swap_if[p][k] = e->ifname;
                fold(facts, n, node, e->ifname, c);
                fold(facts, n, e->peer_node, e->peer_ifname, c);
            }
        }
        c->either_end = c->swap_peer_node[0] == c->swap_peer_node[1];
    }
    return ns;
}

/* Folds the streams of each source that is down into it. */
static void fold_streams(struct fsc_web_hfact *facts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct fsc_web_hfact *src = &facts[i];
        if (src->kind != FSC_WEB_HK_SOURCE_DOWN || src->ended || !src->name)
            continue;
        size_t len = strlen(src->name);
        for (size_t j = 0; j < n; j++) {
            struct fsc_web_hfact *st = &facts[j];
            if (st->kind != FSC_WEB_HK_STREAM_DOWN || st->ended || !st->name ||
                strncmp(st->name, src->name, len) != 0 || st->name[len] != '/')
                continue;
            if (st->since_ns && (!src->since_ns || st->since_ns < src->since_ns))
                src->since_ns = st->since_ns;
            if (!src->has_ev && st->has_ev) { /* the first stream's reason */
                src->ev = st->ev;
                src->has_ev = 1;
            }
            src->streams_down++;
            st->kind = FOLDED;
        }
    }
}

size_t fsc_web_conditions_derive(struct fsc_web_hfact *facts, size_t n,
                                 const struct fsc_cabling *plan, struct fsc_web_hcond *out,
                                 size_t cap)
{
    struct fsc_web_hcond swaps[FSC_CABLE_MAX_NODE];
    size_t ns = find_swaps(facts, n, plan, swaps, FSC_CABLE_MAX_NODE), total = 0, si = 0;

    fold_streams(facts, n);
    if (n > 1)
        qsort(facts, n, sizeof(*facts), fact_cmp);
    /* Swaps go where their kind sorts: after the facts of lower kinds. */
    for (size_t i = 0; i <= n; i++) {
        const struct fsc_web_hfact *f = i < n ? &facts[i] : NULL;
        while (si < ns && (!f || f->ended || f->kind > FSC_WEB_HK_CABLES_SWAPPED)) {
            if (total < cap)
                out[total] = swaps[si];
            total++;
            si++;
        }
        if (!f || f->kind == FOLDED)
            continue;
        if (total < cap) {
            memset(&out[total], 0, sizeof(out[total]));
            out[total].f = *f;
        }
        total++;
    }
    return total;
}
