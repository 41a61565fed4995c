/* Conditions to sentences (web_conditions.h): what and where, since when
 * and for how long, how bad against the engine's threshold, what to check,
 * and the list's summary line. Pure: the clock and the thresholds come in
 * as arguments. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/operstate.h"
#include "web/web_conditions.h"
#include "web/web_format.h"

/* Appends printf text to buf[0..size) at *o (cut at the end). */
static void put(char *buf, size_t size, size_t *o, const char *fmt, ...)
{
    va_list ap;
    if (*o >= size)
        return;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *o, size - *o, fmt, ap);
    va_end(ap);
    if (k > 0)
        *o = *o + (size_t)k < size ? *o + (size_t)k : size - 1;
}

static const char *node_name(const struct fsc_web_hnames *names, uint32_t node, char *buf,
                             size_t size)
{
    if (names && node <= FSC_CABLE_MAX_NODE && names->node[node])
        return names->node[node];
    snprintf(buf, size, "node%u", (unsigned)node);
    return buf;
}

static double field(const struct fsc_web_hfact *f, enum fsc_event_field_id id, bool *known)
{
    double v = 0;
    *known = f->has_ev && fsc_event_get(&f->ev, id, &v);
    return v;
}

static const char *dir_word(uint8_t d)
{
    return d == FSC_DIR_RX ? "rx" : d == FSC_DIR_TX ? "tx" : NULL;
}

/* "device port (tx, queue 3, peer leaf2:et-0/0/6)". */
static void where(const struct fsc_web_hfact *f, char *buf, size_t size, size_t *o)
{
    put(buf, size, o, "%s", f->device ? f->device : "?");
    if (f->port)
        put(buf, size, o, " %s", f->port);
    const char *d = dir_word(f->direction);
    int paren = 0;
    if (d)
        put(buf, size, o, "%s%s", paren++ ? ", " : " (", d);
    if (f->queue)
        put(buf, size, o, "%squeue %s", paren++ ? ", " : " (", f->queue);
    /* A cable's sentence names its planned peer in its measure. */
    if (f->peer && !(f->kind >= FSC_WEB_HK_CABLE_MISSING && f->kind <= FSC_WEB_HK_CABLE_PEER))
        put(buf, size, o, "%speer %s", paren++ ? ", " : " (", f->peer);
    if (paren)
        put(buf, size, o, ")");
}

static void what_swap(const struct fsc_web_hcond *c, const struct fsc_web_hnames *names,
                      struct fsc_web_htext *t)
{
    size_t o = 0, m = 0, k = 0;
    char nb[2][16];
    put(t->what, sizeof(t->what), &o, "%s", c->f.device ? c->f.device : "?");
    for (int p = 0; p < 2; p++) {
        put(t->what, sizeof(t->what), &o, "%s port %u (", p ? " and" : "",
            (unsigned)c->swap_port[p]);
        for (int i = 0; i < 2; i++)
            if (c->swap_if[p][i])
                put(t->what, sizeof(t->what), &o, "%s%s", i ? ", " : "", c->swap_if[p][i]);
        put(t->what, sizeof(t->what), &o, ")");
    }
    put(t->what, sizeof(t->what), &o, " look swapped: each reaches the other's planned peer");
    if (c->either_end)
        put(t->what, sizeof(t->what), &o, " (the swap may be at %s's end)",
            node_name(names, c->swap_peer_node[0], nb[0], sizeof(nb[0])));
    put(t->measure, sizeof(t->measure), &m,
        "planned: port %u to %s port %u, port %u to %s port %u; ", (unsigned)c->swap_port[0],
        node_name(names, c->swap_peer_node[0], nb[0], sizeof(nb[0])),
        (unsigned)c->swap_peer_port[0], (unsigned)c->swap_port[1],
        node_name(names, c->swap_peer_node[1], nb[1], sizeof(nb[1])),
        (unsigned)c->swap_peer_port[1]);
    put(t->measure, sizeof(t->measure), &m,
        "%u interfaces at both ends get no answer from their planned peer", (unsigned)c->folded);
    put(t->check, sizeof(t->check), &k,
        "ports %u and %u of %s against the cable plan (fabricscope plan), and swap the two "
        "cables",
        (unsigned)c->swap_port[0], (unsigned)c->swap_port[1], c->f.device ? c->f.device : "?");
}

static const char *reason_text(double r)
{
    switch ((int)r) {
    case FSC_STREAM_DOWN_CALL_ENDED:
        return "the call ended (target closed it or the connection was lost)";
    case FSC_STREAM_DOWN_CONNECT_TIMEOUT:
        return "no answer within connect_timeout";
    case FSC_STREAM_DOWN_STALLED:
        return "no update for stall_intervals sample intervals";
    case FSC_STREAM_DOWN_START_FAILED:
        return "the call could not be started";
    default:
        return "reason not known";
    }
}

static void measure_stream(const struct fsc_web_hfact *f, char *b, size_t size, size_t *o)
{
    bool k;
    double r = field(f, FSC_EF_REASON, &k);
    put(b, size, o, "%s", k ? reason_text(r) : "reason not known");
    double st = field(f, FSC_EF_GRPC_STATUS, &k);
    if (k && st > 0)
        put(b, size, o, ", gRPC status %.0f", st);
    double calls = field(f, FSC_EF_FAILED_CALLS, &k);
    if (k && calls > 0)
        put(b, size, o, ", %.0f failed calls", calls);
}

static void measure_spike(const struct fsc_web_hfact *f, const struct fsc_spike_config *sc,
                          const char *noun, char *b, size_t size, size_t *o)
{
    bool kp, kb, kc;
    char x[32], y[32], z[32];
    double peak = field(f, FSC_EF_PEAK_RATE, &kp), base = field(f, FSC_EF_BASELINE_RATE, &kb);
    double count = field(f, FSC_EF_COUNT, &kc);
    if (kp)
        put(b, size, o, "peak %s %s/s", fsc_web_fmt_count(peak, x, sizeof(x)), noun);
    if (kb) {
        double th = sc->factor * base > sc->floor ? sc->factor * base : sc->floor;
        put(b, size, o, "%s %s/s (%g x the baseline %s/s, at least %s/s)",
            kp ? " against a threshold of" : "threshold", fsc_web_fmt_count(th, x, sizeof(x)),
            sc->factor, fsc_web_fmt_count(base, y, sizeof(y)),
            fsc_web_fmt_count(sc->floor, z, sizeof(z)));
    }
    if (kc)
        put(b, size, o, "%s%s %s%s", kp || kb ? "; " : "", fsc_web_fmt_count(count, x, sizeof(x)),
            noun, f->ended ? "" : " so far");
}

static void measure_of(const struct fsc_web_hcond *c, const struct fsc_engine_config *ecfg, char *b,
                       size_t size)
{
    const struct fsc_web_hfact *f = &c->f;
    size_t o = 0;
    bool k, k2, k3, k4;
    char x[40], y[40];
    double v, v2, v3, v4;

    switch ((enum fsc_web_hk)f->kind) {
    case FSC_WEB_HK_SOURCE_DOWN:
        if (f->state && strcmp(f->state, "unavailable") == 0)
            put(b, size, &o, "this build has no %s source", f->detail ? f->detail : "such");
        else
            put(b, size, &o, "%s, not healthy", f->state ? f->state : "state not known");
        if (f->streams_down) {
            put(b, size, &o, "; %u stream%s down: ", (unsigned)f->streams_down,
                f->streams_down == 1 ? "" : "s");
            measure_stream(f, b, size, &o);
        }
        break;
    case FSC_WEB_HK_STREAM_DOWN:
        measure_stream(f, b, size, &o);
        break;
    case FSC_WEB_HK_CABLE_MISSING:
        put(b, size, &o, "the interface is not on the host");
        if (f->peer)
            put(b, size, &o, " (planned to reach %s)", f->peer);
        break;
    case FSC_WEB_HK_LINK_DOWN:
        v = field(f, FSC_EF_OPERSTATE, &k);
        put(b, size, &o, "operstate %s", k ? fsc_oper_name(v) : "down");
        if (f->peer)
            put(b, size, &o, "; planned peer %s", f->peer);
        break;
    case FSC_WEB_HK_CABLE_SPEED:
        v = field(f, FSC_EF_SPEED, &k);
        v2 = field(f, FSC_EF_PLANNED_SPEED, &k2);
        if (k && k2)
            put(b, size, &o, "runs at %s, planned %s",
                v > 0 ? fsc_web_fmt_speed((uint64_t)v, x, sizeof(x)) : "an unknown speed",
                fsc_web_fmt_speed((uint64_t)v2, y, sizeof(y)));
        else
            put(b, size, &o, "its speed is not the plan's");
        break;
    case FSC_WEB_HK_CABLE_ADDRESS:
        if (f->has_ev && f->ev.n_fields >= 2) {
            struct fsc_event_field want = fsc_event_field_at(&f->ev, 0);
            struct fsc_event_field have = fsc_event_field_at(&f->ev, 1);
            fsc_event_field_text(&have, FSC_EVENT_TEXT_HUMAN, x, sizeof(x));
            fsc_event_field_text(&want, FSC_EVENT_TEXT_HUMAN, y, sizeof(y));
            put(b, size, &o, "has %s, planned %s", x, y);
        } else {
            put(b, size, &o, "its address is not the plan's /30");
        }
        break;
    case FSC_WEB_HK_CABLE_PEER: {
        v = field(f, FSC_EF_PEER_ADDRESS, &k);
        v2 = field(f, FSC_EF_NEIGHBOUR, &k2);
        struct fsc_event_field a = {FSC_EF_PEER_ADDRESS, 0, v};
        if (k)
            fsc_event_field_text(&a, FSC_EVENT_TEXT_HUMAN, x, sizeof(x));
        put(b, size, &o, "no answer from the planned peer%s%s%s%s", f->peer ? " " : "",
            f->peer ? f->peer : "", k ? " at " : "", k ? x : "");
        if (k2)
            put(b, size, &o, " (neighbour entry %s%s)", fsc_peer_seen_name(v2),
                v2 == FSC_PEER_NONE ? ": an idle link's entry ages out" : "");
        break;
    }
    case FSC_WEB_HK_PCIE:
        v = field(f, FSC_EF_SPEED_GTS, &k);
        v2 = field(f, FSC_EF_WIDTH, &k2);
        v3 = field(f, FSC_EF_MAX_SPEED_GTS, &k3);
        v4 = field(f, FSC_EF_MAX_WIDTH, &k4);
        if (k && k2 && k3 && k4)
            put(b, size, &o, "trained at %g GT/s x%.0f against its maximum %g GT/s x%.0f", v, v2,
                v3, v4);
        else
            put(b, size, &o, "the link runs below its maximum speed or width");
        break;
    case FSC_WEB_HK_PFC_STORM:
        v = field(f, FSC_EF_PEAK_PAUSED_FRACTION, &k);
        v2 = field(f, FSC_EF_PEAK_PAUSE_FRAMES_RATE, &k2);
        if (k)
            put(b, size, &o, "paused %s of the time against %s", fsc_web_fmt_pct(v, x, sizeof(x)),
                fsc_web_fmt_pct(ecfg->pfc.paused_fraction, y, sizeof(y)));
        else if (k2)
            put(b, size, &o, "peak %s pause frames/s against %s/s",
                fsc_web_fmt_count(v2, x, sizeof(x)),
                fsc_web_fmt_count(ecfg->pfc.frames_per_second, y, sizeof(y)));
        break;
    case FSC_WEB_HK_BURST:
    case FSC_WEB_HK_MICROBURST:
        v = field(f, FSC_EF_PEAK_UTILIZATION, &k);
        if (k)
            put(b, size, &o, "peak %s of the link against %s", fsc_web_fmt_pct(v, x, sizeof(x)),
                fsc_web_fmt_pct(ecfg->microburst.rise, y, sizeof(y)));
        if (f->ended && f->since_ns && f->end_ns > f->since_ns)
            put(b, size, &o, "%sfor %s", k ? " " : "",
                fsc_web_fmt_span((double)(f->end_ns - f->since_ns) / 1e9, x, sizeof(x)));
        v2 = field(f, FSC_EF_BYTES, &k2);
        if (k2)
            put(b, size, &o, "%s%s", k || f->ended ? ", " : "",
                fsc_web_fmt_bytes(v2, x, sizeof(x)));
        break;
    case FSC_WEB_HK_ECN_SPIKE:
        measure_spike(f, &ecfg->ecn, "ECN marks", b, size, &o);
        break;
    case FSC_WEB_HK_CNP_SPIKE:
        measure_spike(f, &ecfg->cnp, "CNPs", b, size, &o);
        break;
    case FSC_WEB_HK_REORDER_SPIKE:
        measure_spike(f, &ecfg->reorder, "out-of-sequence packets", b, size, &o);
        break;
    case FSC_WEB_HK_IMBALANCE:
        v = field(f, FSC_EF_PEAK_IMBALANCE, &k);
        if (k)
            put(b, size, &o, "the busiest uplink at %.2f x the group's mean against %.2f x", v,
                ecfg->imbalance.ratio);
        break;
    case FSC_WEB_HK_QUEUE_PEAK:
        v = field(f, FSC_EF_QUEUE_PEAK_BYTES, &k);
        v2 = field(f, FSC_EF_BUFFER_SHARE, &k2);
        v3 = field(f, FSC_EF_QUEUE_LATENCY, &k3);
        if (k)
            put(b, size, &o, "%s", fsc_web_fmt_bytes(v, x, sizeof(x)));
        if (k2)
            put(b, size, &o, "%s%s of the buffer against %s", k ? ", " : "",
                fsc_web_fmt_pct(v2, x, sizeof(x)),
                fsc_web_fmt_pct(ecfg->microburst.queue_peak_share, y, sizeof(y)));
        if (k3)
            put(b, size, &o, "%slatency %s against %s", k || k2 ? ", " : "",
                fsc_web_fmt_secs(v3, x, sizeof(x)),
                fsc_web_fmt_secs((double)ecfg->microburst.latency_peak_ns / 1e9, y, sizeof(y)));
        break;
    case FSC_WEB_HK_BUFFER_THRESHOLD:
        v = field(f, FSC_EF_CROSSINGS, &k);
        v2 = field(f, FSC_EF_CROSSINGS_PER_SECOND, &k2);
        if (k)
            put(b, size, &o, "the receive buffer passed its threshold %.0f times", v);
        if (k2)
            put(b, size, &o, "%s%s/s", k ? ", " : "", fsc_web_fmt_count(v2, x, sizeof(x)));
        break;
    default:
        break;
    }
    if (f->quiet_ns && !f->ended)
        put(b, size, &o, "%sno data since %s, so its end cannot be seen", o ? "; " : "",
            fsc_web_fmt_when(f->quiet_ns, 0, x, sizeof(x)));
}

static void what_of(const struct fsc_web_hcond *c, struct fsc_web_htext *t)
{
    const struct fsc_web_hfact *f = &c->f;
    char *b = t->what;
    size_t size = sizeof(t->what), o = 0;
    switch ((enum fsc_web_hk)f->kind) {
    case FSC_WEB_HK_SOURCE_DOWN:
        put(b, size, &o, "source %s (%s) is down", f->name ? f->name : "?",
            f->detail ? f->detail : "?");
        return;
    case FSC_WEB_HK_STREAM_DOWN:
        put(b, size, &o, "stream %s is down", f->name ? f->name : "?");
        return;
    case FSC_WEB_HK_IMBALANCE:
        put(b, size, &o, "uplink group %s%s%s%s is unbalanced", f->name ? f->name : "?",
            f->device ? " (" : "", f->device ? f->device : "", f->device ? ")" : "");
        return;
    default:
        break;
    }
    where(f, b, size, &o);
    static const char *const what[FSC_WEB_HK__COUNT] = {
        [FSC_WEB_HK_CABLE_MISSING] = "interface missing",
        [FSC_WEB_HK_LINK_DOWN] = "link down",
        [FSC_WEB_HK_CABLE_SPEED] = "link speed differs from the cable plan",
        [FSC_WEB_HK_CABLE_ADDRESS] = "address differs from the cable plan",
        [FSC_WEB_HK_CABLE_PEER] = "does not reach its planned peer",
        [FSC_WEB_HK_PCIE] = "NIC's PCIe link degraded",
        [FSC_WEB_HK_PFC_STORM] = "PFC pause storm",
        [FSC_WEB_HK_BURST] = "link saturated (long burst)",
        [FSC_WEB_HK_ECN_SPIKE] = "ECN-mark storm",
        [FSC_WEB_HK_CNP_SPIKE] = "CNP storm",
        [FSC_WEB_HK_REORDER_SPIKE] = "packet reordering burst",
        [FSC_WEB_HK_MICROBURST] = "microburst",
        [FSC_WEB_HK_QUEUE_PEAK] = "queue peak",
        [FSC_WEB_HK_BUFFER_THRESHOLD] = "NIC receive buffer over its threshold",
    };
    if (f->kind < FSC_WEB_HK__COUNT && what[f->kind])
        put(b, size, &o, ": %s", what[f->kind]);
}

struct fsc_web_htext *fsc_web_condition_text(const struct fsc_web_hcond *c,
                                             const struct fsc_web_hnames *names,
                                             const struct fsc_engine_config *ecfg, int64_t now_ns,
                                             struct fsc_web_htext *t)
{
    const struct fsc_web_hfact *f = &c->f;
    bool instant = f->kind == FSC_WEB_HK_QUEUE_PEAK || f->kind == FSC_WEB_HK_BUFFER_THRESHOLD ||
                   f->kind == FSC_WEB_HK_MICROBURST;
    size_t o = 0;

    memset(t, 0, sizeof(*t));
    if (f->kind >= FSC_WEB_HK__COUNT)
        return t;
    snprintf(t->title, sizeof(t->title), "%s", fsc_web_hk_title((enum fsc_web_hk)f->kind));
    if (f->kind == FSC_WEB_HK_CABLES_SWAPPED) {
        what_swap(c, names, t);
    } else {
        what_of(c, t);
        measure_of(c, ecfg, t->measure, sizeof(t->measure));
        snprintf(t->check, sizeof(t->check), "%s", fsc_web_hk_check((enum fsc_web_hk)f->kind));
    }
    /* Active: since when and for how long. Recent: when it ended (an
     * instant: when it happened) and how long ago. */
    int64_t at = f->ended ? (f->end_ns ? f->end_ns : f->since_ns) : f->since_ns;
    if (at) {
        fsc_web_fmt_when(at, 0, t->when, sizeof(t->when));
        fsc_web_fmt_span((double)(now_ns - at) / 1e9, t->age, sizeof(t->age));
    }
    char *s = t->sentence;
    size_t ss = sizeof(t->sentence);
    put(s, ss, &o, "%s", t->what);
    if (!f->ended && at)
        put(s, ss, &o, ", since %s (for %s)", t->when, t->age);
    else if (!f->ended)
        put(s, ss, &o, ", since a time not known");
    else if (at)
        put(s, ss, &o, instant ? " at %s (%s ago)" : ", ended %s (%s ago)", t->when, t->age);
    if (t->measure[0])
        put(s, ss, &o, ": %s", t->measure);
    put(s, ss, &o, ". Check %s.", t->check);
    return t;
}

const char *fsc_web_health_summary(const size_t by_kind[FSC_WEB_HK__COUNT], size_t n_active,
                                   size_t n_recent, int64_t recent_ns, bool incomplete, char *buf,
                                   size_t size)
{
    size_t o = 0;
    const char *sep = ": ";
    if (size)
        buf[0] = '\0';
    put(buf, size, &o, "%zu active", n_active);
    for (int k = 0; k < FSC_WEB_HK__COUNT; k++) {
        if (!by_kind[k])
            continue;
        put(buf, size, &o, "%s%s %zu", sep, fsc_web_hk_title((enum fsc_web_hk)k), by_kind[k]);
        sep = ", ";
    }
    put(buf, size, &o, " \xc2\xb7 %zu in the last %lld minutes", n_recent,
        (long long)(recent_ns / (60 * 1000000000LL)));
    if (incomplete)
        put(buf, size, &o, " \xc2\xb7 incomplete: events were lost or a bound was reached");
    return buf;
}
