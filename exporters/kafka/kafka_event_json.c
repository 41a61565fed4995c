/* The events topic's JSON document (contract in kafka_event_json.h; every
 * field is described in docs/EVENTS.md and checked against
 * docs/schema/fabric-event.schema.json by the tests).
 *
 * The struct fsc_event fields are overloaded per kind (events.h); this file
 * is where they get their real names, so a consumer never needs to know that
 * `peak` is a utilization for a microburst and a GT/s speed for PCIe. */
#include "kafka/kafka_event_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/json_write.h"
#include "base/timefmt.h"

/* Where an event happened: its device and port (the key) and the other
 * labels of its series. */
struct where {
    const char *device, *port;
    const char *metric;       /* series events with registry labels */
    const char *group;        /* uplink_imbalance */
    const char *mismatch;     /* cable_mismatch: the series' `kind` label */
    const char *src, *stream; /* stream_down */
    struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
    size_t n_labels;
    int by_id; /* a series the registry could not name: "series" carries its id */
    char num[16];
    char subject[FSC_EVENT_SUBJECT_MAX];
    char src_stream[FSC_EVENT_SUBJECT_MAX];
};

static void where_series(const struct fsc_kafka_event_json *cx, const struct fsc_event *ev,
                         struct where *wh)
{
    size_t n = 0;
    if (cx->reg && ev->series < fsc_registry_count(cx->reg))
        n = fsc_registry_labels(cx->reg, ev->series, wh->labels, FSC_REGISTRY_MAX_LABELS);
    if (n == 0) {
        wh->by_id = 1;
        return;
    }
    if (n > FSC_REGISTRY_MAX_LABELS)
        n = FSC_REGISTRY_MAX_LABELS;
    wh->metric = fsc_registry_metric(cx->reg, ev->series);
    /* device and port become fields of their own; the rest stay labels. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const struct fsc_label *l = &wh->labels[i];
        if (strcmp(l->name, "device") == 0)
            wh->device = l->value;
        else if (strcmp(l->name, "port") == 0)
            wh->port = l->value;
        else if (ev->kind == FSC_EV_CABLE_MISMATCH && strcmp(l->name, "kind") == 0)
            wh->mismatch = l->value; /* "mismatch": the label would clash with "type" */
        else
            wh->labels[kept++] = *l;
    }
    wh->n_labels = kept;
}

/* A port group: its name, and its members' device when they share one. */
static void where_group(const struct fsc_kafka_event_json *cx, const struct fsc_event *ev,
                        struct where *wh)
{
    const struct fsc_topology *topo = cx->cfg ? fsc_topology_of(cx->cfg) : NULL;
    if (!topo || ev->group >= topo->n_groups) {
        snprintf(wh->num, sizeof(wh->num), "%u", (unsigned)ev->group);
        wh->group = wh->port = wh->num; /* as fabric_uplink_imbalance_ratio{group} does */
        return;
    }
    const struct fsc_topo_group *g = &topo->groups[ev->group];
    wh->group = wh->port = g->name;
    for (size_t m = 0; m < g->n_members; m++) {
        const char *dev = topo->devices[g->members[m].device].name;
        if (m == 0) {
            wh->device = dev;
        } else if (strcmp(dev, wh->device) != 0) {
            wh->device = ""; /* a group across devices */
            break;
        }
    }
}

/* A stream: "source/stream" from the event, the device from the source's
 * config (a gNMI source's `device`, else the source name). */
static void where_stream(const struct fsc_kafka_event_json *cx, const struct fsc_event *ev,
                         struct where *wh)
{
    memcpy(wh->subject, ev->subject, sizeof(wh->subject));
    wh->subject[sizeof(wh->subject) - 1] = '\0';
    memcpy(wh->src_stream, wh->subject, sizeof(wh->src_stream));
    char *slash = strchr(wh->src_stream, '/');
    if (slash)
        *slash = '\0';
    wh->src = wh->src_stream;
    wh->stream = slash ? slash + 1 : "";
    wh->port = wh->subject;
    wh->device = wh->src;
    if (!cx->cfg)
        return;
    for (size_t i = 0; i < cx->cfg->n_sources; i++) {
        const struct fsc_source_config *sc = &cx->cfg->sources[i];
        const char *dev = sc->kind->device ? sc->kind->device(sc) : NULL;
        if (strcmp(sc->name, wh->src) == 0 && dev)
            wh->device = dev;
    }
}

static void put_time(struct fsc_json *w, const char *name_ns, const char *name, int64_t t_ns)
{
    char num[24], text[FSC_RFC3339_MAX];
    snprintf(num, sizeof(num), "%" PRId64, t_ns);
    fsc_time_rfc3339_ns(t_ns, 9, text, sizeof(text));
    fsc_json_str(w, name_ns, num);
    fsc_json_str(w, name, text);
}

/* The event's figures through the one field decoder (model/event.h), in
 * the order they were added; a cable mismatch first names its mismatch (the
 * series' `kind` label), and the window utilizations go into one object
 * named by window width. */
static void put_figures(struct fsc_json *w, const struct fsc_kafka_event_json *cx,
                        const struct fsc_event *ev, const struct where *wh)
{
    if (ev->kind == FSC_EV_CABLE_MISMATCH)
        fsc_json_str(w, "mismatch", wh->mismatch ? wh->mismatch : "unknown");
    char names[FSC_MAX_WINDOWS][32];
    const char *name_of[FSC_MAX_WINDOWS];
    unsigned n_names = 0;
    const struct fsc_engine_config *ec = cx->cfg ? fsc_engine_config_of(cx->cfg) : NULL;
    for (; ec && n_names < ec->rate.n_windows && n_names < FSC_MAX_WINDOWS; n_names++) {
        fsc_duration_format(ec->rate.window_ns[n_names], names[n_names], sizeof(names[0]));
        name_of[n_names] = names[n_names];
    }
    fsc_event_fields_json(w, ev, name_of, n_names);
}

static const char *direction_name(unsigned dir)
{
    return dir == FSC_DIR_RX ? "rx" : dir == FSC_DIR_TX ? "tx" : NULL;
}

/* Contract in kafka_event_json.h. */
int fsc_kafka_event_encode(void *arg, const struct fsc_event *ev, char *out, size_t cap, char *key,
                           size_t keycap)
{
    const struct fsc_kafka_event_json *cx = arg;
    struct where wh;
    struct fsc_json w;
    struct fsc_buf buf;
    char id[FSC_KAFKA_EVENT_ID_MAX];

    if (ev->kind >= FSC_EV__COUNT || ev->phase > FSC_EV_INSTANT)
        return -EINVAL;
    memset(&wh, 0, sizeof(wh));
    wh.device = wh.port = "";
    if (ev->kind == FSC_EV_UPLINK_IMBALANCE)
        where_group(cx, ev, &wh);
    else if (ev->kind == FSC_EV_STREAM_DOWN)
        where_stream(cx, ev, &wh);
    else
        where_series(cx, ev, &wh);

    int kn = snprintf(key, keycap, "%s/%s", wh.device, wh.port);
    if (kn < 0 || (size_t)kn >= keycap)
        return -E2BIG;
    if (fsc_kafka_event_id(id, sizeof(id), cx->run_id, ev->seq) < 0)
        return -EINVAL;

    if (cap == 0)
        return -E2BIG;
    fsc_buf_fixed(&buf, out, cap);
    fsc_json_start(&w, &buf);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "schema", FSC_KAFKA_EVENT_SCHEMA);
    fsc_json_str(&w, "id", id);
    fsc_json_str(&w, "type", fsc_event_kind_name(ev->kind));
    fsc_json_str(&w, "phase", fsc_event_phase_name(ev->phase));
    fsc_json_str(&w, "device", wh.device);
    fsc_json_str(&w, "port", wh.port);
    if (direction_name(ev->direction))
        fsc_json_str(&w, "direction", direction_name(ev->direction));
    if (wh.group)
        fsc_json_str(&w, "group", wh.group);
    if (wh.src) {
        fsc_json_str(&w, "source", wh.src);
        fsc_json_str(&w, "stream", wh.stream);
    }
    if (wh.metric)
        fsc_json_str(&w, "metric", wh.metric);
    if (wh.by_id)
        fsc_json_int(&w, "series", ev->series);
    fsc_json_object(&w, "labels");
    for (size_t i = 0; i < wh.n_labels; i++)
        fsc_json_str(&w, wh.labels[i].name, wh.labels[i].value);
    fsc_json_end(&w);
    /* The moment this message is about: the end once there is one, the
     * start before (an update carries the figures so far). */
    put_time(&w, "time_ns", "time", ev->t_end_ns ? ev->t_end_ns : ev->t_start_ns);
    put_time(&w, "start_ns", "start", ev->t_start_ns);
    if (ev->t_end_ns) {
        put_time(&w, "end_ns", "end", ev->t_end_ns);
        fsc_json_num(&w, "duration_seconds", (double)(ev->t_end_ns - ev->t_start_ns) / 1e9);
    }
    put_figures(&w, cx, ev, &wh);
    fsc_json_end(&w);
    int rc = fsc_json_done(&w);
    return rc != 0 ? rc : (int)buf.len;
}
