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

const char *fsc_web_fmt_when(int64_t t_ns, unsigned digits, char *buf, size_t size)
{
    char t[FSC_RFC3339_MAX];
    fsc_time_rfc3339_ns(t_ns, digits, t, sizeof(t));
    size_t n = strlen(t);
    if (n > 11 && t[10] == 'T' && t[n - 1] == 'Z') {
        t[10] = ' ';
        t[n - 1] = '\0';
        snprintf(buf, size, "%s UTC", t);
    } else {
        snprintf(buf, size, "%s", t);
    }
    return buf;
}

const char *fsc_web_fmt_span(double s, char *buf, size_t size)
{
    if (!(s > 0))
        s = 0;
    if (s < 1.0) {
        snprintf(buf, size, "%.0f ms", s * 1e3);
        return buf;
    }
    uint64_t v = (uint64_t)s;
    if (v < 60)
        snprintf(buf, size, "%llu s", (unsigned long long)v);
    else if (v < 3600)
        snprintf(buf, size, "%llu m %llu s", (unsigned long long)(v / 60),
                 (unsigned long long)(v % 60));
    else if (v < 86400)
        snprintf(buf, size, "%llu h %llu m", (unsigned long long)(v / 3600),
                 (unsigned long long)(v % 3600 / 60));
    else
        snprintf(buf, size, "%llu d %llu h", (unsigned long long)(v / 86400),
                 (unsigned long long)(v % 86400 / 3600));
    return buf;
}

const char *fsc_web_fmt_count(double v, char *buf, size_t size)
{
    double a = fabs(v);
    if (a < 1e3)
        snprintf(buf, size, "%.0f", v);
    else if (a < 1e6)
        snprintf(buf, size, "%.1f k", v / 1e3);
    else if (a < 1e9)
        snprintf(buf, size, "%.1f M", v / 1e6);
    else
        snprintf(buf, size, "%.1f G", v / 1e9);
    return buf;
}

const char *fsc_web_fmt_window(int64_t ns, char *buf, size_t size)
{
    return fsc_duration_format(ns, buf, size);
}

/* What a spike's count counts: the field's generic label says "events",
 * which reads as detector events; the page names the packets. */
static const char *count_noun(unsigned kind)
{
    switch (kind) {
    case FSC_EV_CNP_SPIKE:
        return "CNPs";
    case FSC_EV_ECN_SPIKE:
        return "ECN marks";
    case FSC_EV_REORDER_SPIKE:
        return "out-of-sequence packets";
    default:
        return NULL;
    }
}

/* The event's figures as people read them, through the one field
 * decoder (model/event.h): "<label> <value>" in the order the detector
 * added them ("<value> <noun>" for a spike's count); a cable mismatch
 * starts with its mismatch. The windows around a burst are the chart's
 * business, not the summary's. */
const char *fsc_web_event_summary(const struct fsc_web_event_row *row, char *buf, size_t size)
{
    const struct fsc_event *ev = &row->ev;
    size_t o = 0;

    if (size == 0)
        return buf;
    buf[0] = '\0';
    bool named = ev->kind == FSC_EV_CABLE_MISMATCH;
    if (named)
        o = (size_t)snprintf(buf, size, "%s", row->mismatch ? row->mismatch : "mismatch");
    for (unsigned i = 0; i < ev->n_fields && i < FSC_EVENT_FIELDS_MAX && o < size; i++) {
        const struct fsc_event_field fi = fsc_event_field_at(ev, i), *f = &fi;
        const struct fsc_event_field_desc *d = fsc_event_field_desc(f->id);
        char v[48];
        if (!d || f->id == FSC_EF_WINDOW_UTILIZATION)
            continue;
        fsc_event_field_text(f, FSC_EVENT_TEXT_HUMAN, v, sizeof(v));
        const char *sep = o == 0 ? "" : named ? ": " : ", ";
        const char *noun = f->id == FSC_EF_COUNT ? count_noun(ev->kind) : NULL;
        named = false;
        int n = noun ? snprintf(buf + o, size - o, "%s%s %s", sep, v, noun)
                     : snprintf(buf + o, size - o, "%s%s%s%s", sep, d->label,
                                d->label[0] ? " " : "", v);
        if (n < 0)
            break;
        o += (size_t)n;
    }
    return buf;
}
