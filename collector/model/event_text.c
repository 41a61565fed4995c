#include "model/event_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/timefmt.h"
#include "model/operstate.h"

struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
    if (o->len + 1 >= o->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    o->len += (size_t)n;
    if (o->len >= o->size)
        o->len = o->size - 1;
}

/* An IPv4 address carried as a host-order integer in a double. */
static const char *ipv4_text(double v, char *buf, size_t size)
{
    if (!(v > 0 && v <= 4294967295.0))
        return "none";
    uint32_t a = (uint32_t)v;
    snprintf(buf, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255u, (a >> 8) & 255u, a & 255u);
    return buf;
}

/* What the host has against what the cable plan wants (the NIC source's
 * encoding, events.h). */
static void cable_fields(struct out *o, const struct fsc_event *ev, const char *mismatch)
{
    char a[16], b[16];
    if (!mismatch)
        return;
    if (strcmp(mismatch, "down") == 0) {
        put(o, " operstate=%s", fsc_oper_name(ev->amount));
    } else if (strcmp(mismatch, "speed") == 0) {
        put(o, " want_bps=%.0f have_bps=%.0f", ev->baseline, ev->amount);
    } else if (strcmp(mismatch, "address") == 0) {
        put(o, " want=%s/30 have=%s", ipv4_text(ev->baseline, a, sizeof(a)),
            ipv4_text(ev->amount, b, sizeof(b)));
        if (ev->amount > 0)
            put(o, "/%.0f", ev->peak);
    } else if (strcmp(mismatch, "peer") == 0) {
        put(o, " peer_address=%s neighbour=%s", ipv4_text(ev->baseline, a, sizeof(a)),
            fsc_peer_seen_name(ev->amount));
    }
}

/* A stream event's "source/stream" as two fields. */
static void subject_fields(struct out *o, const struct fsc_event *ev)
{
    char subj[FSC_EVENT_SUBJECT_MAX], q[2 * FSC_EVENT_SUBJECT_MAX + 8];
    memcpy(subj, ev->subject, sizeof(subj));
    subj[sizeof(subj) - 1] = '\0';
    char *slash = strchr(subj, '/');
    if (slash)
        *slash = '\0';
    put(o, " source=%s", fsc_log_quote(subj, q, sizeof(q)));
    if (slash)
        put(o, " stream=%s", fsc_log_quote(slash + 1, q, sizeof(q)));
}

static const char *direction_name(unsigned dir)
{
    return dir == FSC_DIR_RX ? "rx" : dir == FSC_DIR_TX ? "tx" : NULL;
}

size_t fsc_event_format(const struct fsc_event *ev, const struct fsc_registry *reg, char *buf,
                        size_t size)
{
    struct out o = {buf, size, 0};
    char t[48], q[300];
    const char *mismatch = NULL;

    if (size == 0)
        return 0;
    buf[0] = '\0';
    put(&o, "kind=%s phase=%s", fsc_event_kind_name((enum fsc_event_kind)ev->kind),
        fsc_event_phase_name((enum fsc_event_phase)ev->phase));
    if (ev->series != FSC_SERIES_NONE) {
        struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
        size_t n = 0;
        if (reg && ev->series < fsc_registry_count(reg))
            n = fsc_registry_labels(reg, ev->series, labels, FSC_REGISTRY_MAX_LABELS);
        if (n == 0)
            put(&o, " series=%u", ev->series);
        for (size_t i = 0; i < n; i++) {
            const char *name = labels[i].name;
            /* A cable-mismatch series carries the mismatch in its `kind`
             * label, which would repeat the line's own kind= key. */
            if (ev->kind == FSC_EV_CABLE_MISMATCH && strcmp(name, "kind") == 0) {
                mismatch = labels[i].value;
                name = "mismatch";
            }
            put(&o, " %s=%s", name, fsc_log_quote(labels[i].value, q, sizeof(q)));
        }
    }
    if (ev->kind == FSC_EV_UPLINK_IMBALANCE)
        put(&o, " group=%u", ev->group);
    if (ev->kind == FSC_EV_STREAM_DOWN)
        subject_fields(&o, ev);
    if (direction_name(ev->direction))
        put(&o, " direction=%s", direction_name(ev->direction));
    fsc_time_rfc3339_ns(ev->t_start_ns, 9, t, sizeof(t));
    put(&o, " start=%s", t);
    if (ev->t_end_ns) {
        fsc_time_rfc3339_ns(ev->t_end_ns, 9, t, sizeof(t));
        put(&o, " end=%s duration_ms=%.3f", t, (double)(ev->t_end_ns - ev->t_start_ns) / 1e6);
    }
    /* On the byte, with a default: a kind this switch does not know yet
     * still gets its common fields. */
    switch (ev->kind) {
    case FSC_EV_MICROBURST:
    case FSC_EV_BURST:
        put(&o, " peak_utilization=%.4f bytes=%.0f", ev->peak, ev->amount);
        if (ev->util_1s >= 0)
            put(&o, " utilization_w0=%.4f", ev->util_1s);
        if (ev->util_10s >= 0)
            put(&o, " utilization_w1=%.4f", ev->util_10s);
        break;
    case FSC_EV_CNP_SPIKE:
    case FSC_EV_ECN_SPIKE:
    case FSC_EV_REORDER_SPIKE:
        put(&o, " peak_per_second=%.1f baseline_per_second=%.1f count=%.0f", ev->peak, ev->baseline,
            ev->amount);
        break;
    case FSC_EV_PFC_STORM:
        put(&o, " peak=%.4f amount=%.6g", ev->peak, ev->amount);
        break;
    case FSC_EV_UPLINK_IMBALANCE:
        put(&o, " max_mean_ratio=%.3f", ev->peak);
        break;
    case FSC_EV_QUEUE_PEAK:
    case FSC_EV_BUFFER_THRESHOLD:
        put(&o, " value=%.0f", ev->amount);
        break;
    case FSC_EV_CABLE_MISMATCH:
        cable_fields(&o, ev, mismatch);
        break;
    case FSC_EV_PCIE_DEGRADED:
        put(&o, " speed_gts=%g max_speed_gts=%g width=%.0f max_width=%.0f", ev->peak, ev->baseline,
            ev->amount, ev->util_1s);
        break;
    case FSC_EV_COUNTER_RESET:
        put(&o, " value_before=%.17g value_after=%.17g held_back=%.0f cause=%s", ev->peak,
            ev->amount, ev->baseline, ev->util_1s > 0 ? "reset_evidence" : "decrease");
        break;
    case FSC_EV_STREAM_DOWN:
        put(&o, " reason=%s",
            fsc_stream_down_reason_name((enum fsc_stream_down_reason)(int)ev->peak));
        if (ev->amount >= 0)
            put(&o, " grpc_status=%.0f", ev->amount);
        if (ev->phase == FSC_EV_END)
            put(&o, " failed_calls=%.0f", ev->baseline);
        break;
    default:
        break;
    }
    return o.len;
}
