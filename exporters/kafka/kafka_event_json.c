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
#include "model/operstate.h"

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

/* "1s", "10s", "1m": a window width in its largest exact unit. */
static void duration_label(int64_t ns, char *buf, size_t size)
{
    static const struct {
        int64_t ns;
        const char *unit;
    } units[] = {{3600000000000LL, "h"}, {60000000000LL, "m"}, {1000000000LL, "s"},
                 {1000000LL, "ms"},      {1000LL, "us"},       {1LL, "ns"}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (ns > 0 && ns % units[i].ns == 0) {
            snprintf(buf, size, "%" PRId64 "%s", ns / units[i].ns, units[i].unit);
            return;
        }
    }
    snprintf(buf, size, "%" PRId64 "ns", ns);
}

/* Utilization of the windows around a finished burst, named by width. */
static void put_windows(struct fsc_json *w, const struct fsc_kafka_event_json *cx,
                        const struct fsc_event *ev)
{
    const double util[2] = {ev->util_1s, ev->util_10s};
    if (!(util[0] >= 0) && !(util[1] >= 0))
        return;
    fsc_json_object(w, "window_utilization");
    for (unsigned l = 0; l < 2; l++) {
        char name[32];
        if (!(util[l] >= 0))
            continue;
        const struct fsc_engine_config *ec = cx->cfg ? fsc_engine_config_of(cx->cfg) : NULL;
        if (ec && l < ec->rate.n_windows)
            duration_label(ec->rate.window_ns[l], name, sizeof(name));
        else
            snprintf(name, sizeof(name), "level%u", l);
        fsc_json_num(w, name, util[l]);
    }
    fsc_json_end(w);
}

/* "a.b.c.d" of an IPv4 address carried as a host-order integer. */
static const char *ipv4_text(double v, char *buf, size_t size)
{
    if (!(v > 0 && v <= 4294967295.0))
        return NULL;
    uint32_t a = (uint32_t)v;
    snprintf(buf, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255u, (a >> 8) & 255u, a & 255u);
    return buf;
}

/* What the host has against what the cable plan wants (the NIC source's
 * encoding in events.h). */
static void put_cable(struct fsc_json *w, const struct fsc_event *ev, const char *mismatch)
{
    char a[24], b[24];
    fsc_json_str(w, "mismatch", mismatch ? mismatch : "unknown");
    if (!mismatch)
        return;
    if (strcmp(mismatch, "down") == 0) {
        fsc_json_str(w, "operstate", fsc_oper_name(ev->amount));
    } else if (strcmp(mismatch, "speed") == 0) {
        fsc_json_num(w, "planned_speed_bits_per_second", ev->baseline);
        fsc_json_num(w, "speed_bits_per_second", ev->amount);
    } else if (strcmp(mismatch, "address") == 0) {
        const char *want = ipv4_text(ev->baseline, a, sizeof(a));
        if (want) {
            size_t l = strlen(a);
            snprintf(a + l, sizeof(a) - l, "/30");
            fsc_json_str(w, "planned_address", a);
        } else {
            fsc_json_null(w, "planned_address");
        }
        const char *have = ipv4_text(ev->amount, b, sizeof(b));
        if (have) {
            size_t l = strlen(b);
            snprintf(b + l, sizeof(b) - l, "/%u",
                     ev->peak >= 0 && ev->peak <= 32 ? (unsigned)ev->peak : 0u);
            fsc_json_str(w, "address", b);
        } else {
            fsc_json_null(w, "address");
        }
    } else if (strcmp(mismatch, "peer") == 0) {
        const char *peer = ipv4_text(ev->baseline, a, sizeof(a));
        if (peer)
            fsc_json_str(w, "peer_address", peer);
        else
            fsc_json_null(w, "peer_address");
        fsc_json_str(w, "neighbour", fsc_peer_seen_name(ev->amount));
    }
}

/* A PFC storm is judged on paused time or on pause frames, whichever
 * counter the series is (the profiles name them *_pause_seconds_total and
 * *_pause_frames_total). */
static int pfc_by_frames(const char *metric)
{
    return metric && strstr(metric, "pause_frames") != NULL;
}

static void put_figures(struct fsc_json *w, const struct fsc_kafka_event_json *cx,
                        const struct fsc_event *ev, const struct where *wh)
{
    switch (ev->kind) {
    case FSC_EV_MICROBURST:
    case FSC_EV_BURST:
        fsc_json_num(w, "peak_utilization", ev->peak);
        fsc_json_num(w, "bytes", ev->amount);
        put_windows(w, cx, ev);
        break;
    case FSC_EV_QUEUE_PEAK:
        fsc_json_num(w, "queue_peak_bytes", ev->amount);
        fsc_json_num(w, "buffer_share", ev->peak);
        break;
    case FSC_EV_BUFFER_THRESHOLD:
        fsc_json_num(w, "crossings", ev->amount);
        fsc_json_num(w, "crossings_per_second", ev->peak);
        break;
    case FSC_EV_CNP_SPIKE:
    case FSC_EV_ECN_SPIKE:
    case FSC_EV_REORDER_SPIKE:
        fsc_json_num(w, "peak_rate_per_second", ev->peak);
        fsc_json_num(w, "baseline_rate_per_second", ev->baseline);
        fsc_json_num(w, "count", ev->amount);
        break;
    case FSC_EV_PFC_STORM:
        if (pfc_by_frames(wh->metric)) {
            fsc_json_num(w, "peak_pause_frames_per_second", ev->peak);
            fsc_json_num(w, "pause_frames", ev->amount);
        } else {
            fsc_json_num(w, "peak_paused_fraction", ev->peak);
            fsc_json_num(w, "paused_seconds", ev->amount);
        }
        break;
    case FSC_EV_UPLINK_IMBALANCE:
        fsc_json_num(w, "peak_imbalance_ratio", ev->peak);
        fsc_json_num(w, "windows_above", ev->amount);
        fsc_json_num(w, "mean_utilization_at_start", ev->baseline);
        break;
    case FSC_EV_CABLE_MISMATCH:
        put_cable(w, ev, wh->mismatch);
        break;
    case FSC_EV_PCIE_DEGRADED:
        fsc_json_num(w, "speed_gts", ev->peak);
        fsc_json_num(w, "max_speed_gts", ev->baseline);
        fsc_json_num(w, "width", ev->amount);
        fsc_json_num(w, "max_width", ev->util_1s);
        break;
    case FSC_EV_COUNTER_RESET:
        fsc_json_num(w, "value_before", ev->peak);
        fsc_json_num(w, "value_after", ev->amount);
        fsc_json_num(w, "held_back_resets", ev->baseline);
        fsc_json_str(w, "cause", ev->util_1s > 0 ? "reset_evidence" : "decrease");
        break;
    case FSC_EV_STREAM_DOWN:
        fsc_json_str(w, "reason", fsc_stream_down_reason_name((int)ev->peak));
        if (ev->amount >= 0)
            fsc_json_num(w, "grpc_status", ev->amount);
        if (ev->phase == FSC_EV_END)
            fsc_json_num(w, "failed_calls", ev->baseline);
        break;
    default:
        break;
    }
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
