/* Formatting helpers of the web renderers (see web_format.h) and the
 * one-line event summary (web_model.h). */
#include "web/web_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/timefmt.h"
#include "config/config.h"
#include "model/operstate.h"
#include "web/web_model.h"

const char *const fsc_web_mismatch_name[FSC_WEB_MM__COUNT] = {
    [FSC_WEB_MM_MISSING] = "missing", [FSC_WEB_MM_DOWN] = "down", [FSC_WEB_MM_SPEED] = "speed",
    [FSC_WEB_MM_ADDRESS] = "address", [FSC_WEB_MM_PEER] = "peer",
};

const char *fsc_web_fmt_bitrate(double bytes_per_second, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e12, "Tb/s"}, {1e9, "Gb/s"}, {1e6, "Mb/s"}, {1e3, "kb/s"}};
    double b = bytes_per_second * 8.0;

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (fabs(b) >= units[i].scale) {
            snprintf(buf, size, "%.2f %s", b / units[i].scale, units[i].unit);
            return buf;
        }
    }
    snprintf(buf, size, "%.0f b/s", b);
    return buf;
}

const char *fsc_web_fmt_pct(double ratio, char *buf, size_t size)
{
    snprintf(buf, size, "%.1f %%", ratio * 100.0);
    return buf;
}

const char *fsc_web_fmt_secs(double s, char *buf, size_t size)
{
    if (s < 1.0)
        snprintf(buf, size, "%.0f ms", s * 1e3);
    else if (s < 60.0)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 3600.0)
        snprintf(buf, size, "%.0f min", floor(s / 60.0));
    else
        snprintf(buf, size, "%.1f h", s / 3600.0);
    return buf;
}

const char *fsc_web_fmt_bytes(double bytes, char *buf, size_t size)
{
    if (bytes >= 1e9)
        snprintf(buf, size, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(buf, size, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(buf, size, "%.1f kB", bytes / 1e3);
    else
        snprintf(buf, size, "%.0f B", bytes);
    return buf;
}

const char *fsc_web_fmt_speed(uint64_t bps, char *buf, size_t size)
{
    return fsc_speed_format(bps, buf, size);
}

int64_t fsc_web_ms(int64_t t_ns)
{
    int64_t ms = t_ns / 1000000;
    return t_ns % 1000000 < 0 ? ms - 1 : ms;
}

const char *fsc_web_fmt_time(int64_t t_ns, char *buf, size_t size)
{
    return fsc_time_rfc3339_ns(t_ns, 3, buf, size);
}

const char *fsc_web_fmt_window(int64_t ns, char *buf, size_t size)
{
    return fsc_duration_format(ns, buf, size);
}

/* An IPv4 address the NIC source carries as a host-order integer. */
static const char *ipv4(double v, char *buf, size_t size)
{
    if (!(v > 0 && v <= 4294967295.0))
        return "none";
    uint32_t a = (uint32_t)v;
    snprintf(buf, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255u, (a >> 8) & 255u, a & 255u);
    return buf;
}

/* What the host has against what the plan wants (events.h encoding). */
static void mismatch_summary(const struct fsc_web_event_row *row, char *buf, size_t size)
{
    const struct fsc_event *ev = &row->ev;
    const char *mm = row->mismatch ? row->mismatch : "mismatch";
    char a[16], b[16], s1[32], s2[32];

    if (strcmp(mm, "down") == 0) {
        snprintf(buf, size, "down: operstate %s", fsc_oper_name(ev->amount));
    } else if (strcmp(mm, "speed") == 0) {
        snprintf(buf, size, "speed: want %s, have %s",
                 fsc_web_fmt_speed((uint64_t)(ev->baseline > 0 ? ev->baseline : 0), s1, sizeof(s1)),
                 fsc_web_fmt_speed((uint64_t)(ev->amount > 0 ? ev->amount : 0), s2, sizeof(s2)));
    } else if (strcmp(mm, "address") == 0) {
        snprintf(buf, size, "address: want %s/30, have %s", ipv4(ev->baseline, a, sizeof(a)),
                 ipv4(ev->amount, b, sizeof(b)));
    } else if (strcmp(mm, "peer") == 0) {
        snprintf(buf, size, "peer: %s neighbour %s", ipv4(ev->baseline, a, sizeof(a)),
                 fsc_peer_seen_name(ev->amount));
    } else {
        snprintf(buf, size, "%s", mm);
    }
}

const char *fsc_web_event_summary(const struct fsc_web_event_row *row, char *buf, size_t size)
{
    const struct fsc_event *ev = &row->ev;
    char a[32], b[32];

    if (size == 0)
        return buf;
    buf[0] = '\0';
    switch (ev->kind) { /* the uint8_t: every kind, also ones outside the enum */
    case FSC_EV_MICROBURST:
    case FSC_EV_BURST:
        snprintf(buf, size, "peak %s, %s", fsc_web_fmt_pct(ev->peak, a, sizeof(a)),
                 fsc_web_fmt_bytes(ev->amount, b, sizeof(b)));
        break;
    case FSC_EV_QUEUE_PEAK:
    case FSC_EV_BUFFER_THRESHOLD:
        snprintf(buf, size, "value %.0f", ev->amount);
        break;
    case FSC_EV_CNP_SPIKE:
    case FSC_EV_ECN_SPIKE:
    case FSC_EV_REORDER_SPIKE:
        snprintf(buf, size, "peak %.0f/s, baseline %.0f/s, %.0f events", ev->peak, ev->baseline,
                 ev->amount);
        break;
    case FSC_EV_PFC_STORM:
        snprintf(buf, size, "peak paused %s, paused %s", fsc_web_fmt_pct(ev->peak, a, sizeof(a)),
                 fsc_web_fmt_secs(ev->amount, b, sizeof(b)));
        break;
    case FSC_EV_UPLINK_IMBALANCE:
        snprintf(buf, size, "max/mean %.2f, group %u", ev->peak, (unsigned)ev->group);
        break;
    case FSC_EV_CABLE_MISMATCH:
        mismatch_summary(row, buf, size);
        break;
    case FSC_EV_PCIE_DEGRADED:
        snprintf(buf, size, "PCIe %g GT/s x%.0f (max %g GT/s x%.0f)", ev->peak, ev->amount,
                 ev->baseline, ev->util_1s);
        break;
    case FSC_EV_COUNTER_RESET:
        snprintf(buf, size, "%.0f -> %.0f%s", ev->peak, ev->amount,
                 ev->util_1s > 0 ? " (reset evidence)" : "");
        break;
    case FSC_EV_STREAM_DOWN: {
        static const char *const why[FSC_STREAM_DOWN__COUNT] = {
            [FSC_STREAM_DOWN_CALL_ENDED] = "call ended",
            [FSC_STREAM_DOWN_CONNECT_TIMEOUT] = "connect timeout",
            [FSC_STREAM_DOWN_STALLED] = "stalled",
            [FSC_STREAM_DOWN_START_FAILED] = "start failed",
        };
        unsigned k = ev->peak >= 0 && ev->peak < FSC_STREAM_DOWN__COUNT ? (unsigned)ev->peak : 0;
        if (ev->amount >= 0)
            snprintf(buf, size, "%s, gRPC status %.0f", why[k], ev->amount);
        else
            snprintf(buf, size, "%s", why[k]);
        break;
    }
    default: /* a kind newer than this page: the generic numbers */
        snprintf(buf, size, "peak %g, amount %g", ev->peak, ev->amount);
        break;
    }
    return buf;
}
