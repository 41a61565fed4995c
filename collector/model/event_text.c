#include "model/event_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/timefmt.h"

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
            if (ev->kind == FSC_EV_CABLE_MISMATCH && strcmp(name, "kind") == 0)
                name = "mismatch";
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
    /* The kind's figures, through the one field decoder (model/event.h). */
    for (unsigned i = 0; i < ev->n_fields && i < FSC_EVENT_FIELDS_MAX; i++) {
        const struct fsc_event_field fi = fsc_event_field_at(ev, i), *f = &fi;
        const struct fsc_event_field_desc *d = fsc_event_field_desc(f->id);
        char v[48];
        if (!d)
            continue;
        fsc_event_field_text(f, FSC_EVENT_TEXT_LOG, v, sizeof(v));
        if (f->id == FSC_EF_WINDOW_UTILIZATION)
            put(&o, " %s_w%u=%s", d->name, (unsigned)f->aux, v);
        else
            put(&o, " %s=%s", d->name, v);
    }
    /* Cross-source evidence: the port at the other end and what it showed. */
    char peer[FSC_EVENT_SUBJECT_MAX], saw[40];
    if (fsc_event_peer(ev, peer, sizeof(peer)))
        put(&o, " peer=%s peer_saw=%s", fsc_log_quote(peer, q, sizeof(q)),
            fsc_event_peer_saw_text(ev->peer_saw, saw, sizeof(saw)));
    return o.len;
}
