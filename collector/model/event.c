/* Names of event kinds, phases and stream-down reasons (model/event.h). */
#include "model/event.h"

#include <stdio.h>
#include <string.h>

#include "base/json_write.h"
#include "base/numfmt.h"
#include "model/operstate.h"

const char *fsc_event_kind_name(enum fsc_event_kind kind)
{
    static const char *const names[FSC_EV__COUNT] = {
        [FSC_EV_MICROBURST] = "microburst",
        [FSC_EV_BURST] = "burst",
        [FSC_EV_QUEUE_PEAK] = "queue_peak",
        [FSC_EV_BUFFER_THRESHOLD] = "buffer_threshold",
        [FSC_EV_CNP_SPIKE] = "cnp_spike",
        [FSC_EV_ECN_SPIKE] = "ecn_spike",
        [FSC_EV_REORDER_SPIKE] = "reorder_spike",
        [FSC_EV_PFC_STORM] = "pfc_storm",
        [FSC_EV_UPLINK_IMBALANCE] = "uplink_imbalance",
        [FSC_EV_CABLE_MISMATCH] = "cable_mismatch",
        [FSC_EV_PCIE_DEGRADED] = "pcie_degraded",
        [FSC_EV_COUNTER_RESET] = "counter_reset",
        [FSC_EV_STREAM_DOWN] = "stream_down",
    };
    if ((unsigned)kind >= FSC_EV__COUNT)
        return "unknown";
    return names[kind];
}

const char *fsc_event_phase_name(enum fsc_event_phase phase)
{
    switch (phase) {
    case FSC_EV_START:
        return "start";
    case FSC_EV_UPDATE:
        return "update";
    case FSC_EV_END:
        return "end";
    case FSC_EV_INSTANT:
        return "instant";
    }
    return "unknown";
}

const char *fsc_stream_down_reason_name(enum fsc_stream_down_reason reason)
{
    static const char *const names[FSC_STREAM_DOWN__COUNT] = {
        [FSC_STREAM_DOWN_CALL_ENDED] = "call_ended",
        [FSC_STREAM_DOWN_CONNECT_TIMEOUT] = "connect_timeout",
        [FSC_STREAM_DOWN_STALLED] = "stalled",
        [FSC_STREAM_DOWN_START_FAILED] = "start_failed",
    };
    if ((unsigned)reason >= FSC_STREAM_DOWN__COUNT)
        return "unknown";
    return names[reason];
}

/* ---- typed fields ------------------------------------------------------------- */

static const char *cause_word(double v)
{
    return v > 0 ? "reset_evidence" : "decrease";
}

static const char *reason_word(double v)
{
    return fsc_stream_down_reason_name(v >= 0 && v < FSC_STREAM_DOWN__COUNT
                                           ? (enum fsc_stream_down_reason)(int)v
                                           : FSC_STREAM_DOWN__COUNT);
}

static const struct fsc_event_field_desc descs[FSC_EF__COUNT] = {
    [FSC_EF_PEAK_UTILIZATION] = {"peak_utilization", FSC_EU_RATIO, "peak", NULL},
    [FSC_EF_BYTES] = {"bytes", FSC_EU_BYTES, "", NULL},
    [FSC_EF_WINDOW_UTILIZATION] = {"window_utilization", FSC_EU_RATIO, "window", NULL},
    [FSC_EF_QUEUE_PEAK_BYTES] = {"queue_peak_bytes", FSC_EU_BYTES, "queue peak", NULL},
    [FSC_EF_BUFFER_SHARE] = {"buffer_share", FSC_EU_RATIO, "of buffer", NULL},
    [FSC_EF_CROSSINGS] = {"crossings", FSC_EU_COUNT, "crossings", NULL},
    [FSC_EF_CROSSINGS_PER_SECOND] = {"crossings_per_second", FSC_EU_PER_SECOND, "", NULL},
    [FSC_EF_PEAK_RATE] = {"peak_rate_per_second", FSC_EU_PER_SECOND, "peak", NULL},
    [FSC_EF_BASELINE_RATE] = {"baseline_rate_per_second", FSC_EU_PER_SECOND, "baseline", NULL},
    [FSC_EF_COUNT] = {"count", FSC_EU_COUNT, "events", NULL},
    [FSC_EF_PEAK_PAUSE_FRAMES_RATE] = {"peak_pause_frames_per_second", FSC_EU_PER_SECOND, "peak",
                                       NULL},
    [FSC_EF_PAUSE_FRAMES] = {"pause_frames", FSC_EU_COUNT, "frames", NULL},
    [FSC_EF_PEAK_PAUSED_FRACTION] = {"peak_paused_fraction", FSC_EU_RATIO, "peak paused", NULL},
    [FSC_EF_PAUSED_SECONDS] = {"paused_seconds", FSC_EU_SECONDS, "paused", NULL},
    [FSC_EF_PEAK_IMBALANCE] = {"peak_imbalance_ratio", FSC_EU_RATIO, "max/mean", NULL},
    [FSC_EF_WINDOWS_ABOVE] = {"windows_above", FSC_EU_COUNT, "windows", NULL},
    [FSC_EF_MEAN_UTILIZATION_AT_START] = {"mean_utilization_at_start", FSC_EU_RATIO, "mean", NULL},
    [FSC_EF_OPERSTATE] = {"operstate", FSC_EU_WORD, "operstate", fsc_oper_name},
    [FSC_EF_PLANNED_SPEED] = {"planned_speed_bits_per_second", FSC_EU_BPS, "want", NULL},
    [FSC_EF_SPEED] = {"speed_bits_per_second", FSC_EU_BPS, "have", NULL},
    [FSC_EF_PLANNED_ADDRESS] = {"planned_address", FSC_EU_CIDR, "want", NULL},
    [FSC_EF_ADDRESS] = {"address", FSC_EU_CIDR, "have", NULL},
    [FSC_EF_PEER_ADDRESS] = {"peer_address", FSC_EU_IPV4, "address", NULL},
    [FSC_EF_NEIGHBOUR] = {"neighbour", FSC_EU_WORD, "neighbour", fsc_peer_seen_name},
    [FSC_EF_SPEED_GTS] = {"speed_gts", FSC_EU_GTS, "speed", NULL},
    [FSC_EF_MAX_SPEED_GTS] = {"max_speed_gts", FSC_EU_GTS, "max", NULL},
    [FSC_EF_WIDTH] = {"width", FSC_EU_COUNT, "width", NULL},
    [FSC_EF_MAX_WIDTH] = {"max_width", FSC_EU_COUNT, "max width", NULL},
    [FSC_EF_VALUE_BEFORE] = {"value_before", FSC_EU_RAW, "", NULL},
    [FSC_EF_VALUE_AFTER] = {"value_after", FSC_EU_RAW, "->", NULL},
    [FSC_EF_HELD_BACK_RESETS] = {"held_back_resets", FSC_EU_COUNT, "held back", NULL},
    [FSC_EF_CAUSE] = {"cause", FSC_EU_WORD, "", cause_word},
    [FSC_EF_REASON] = {"reason", FSC_EU_WORD, "", reason_word},
    [FSC_EF_GRPC_STATUS] = {"grpc_status", FSC_EU_COUNT, "gRPC status", NULL},
    [FSC_EF_FAILED_CALLS] = {"failed_calls", FSC_EU_COUNT, "failed calls", NULL},
    [FSC_EF_QUEUE_LATENCY] = {"queue_latency_seconds", FSC_EU_SECONDS, "latency", NULL},
};

const struct fsc_event_field_desc *fsc_event_field_desc(unsigned id)
{
    return id < FSC_EF__COUNT ? &descs[id] : NULL;
}

void fsc_event_add_aux(struct fsc_event *ev, enum fsc_event_field_id id, unsigned aux, double v)
{
    if (ev->n_fields >= FSC_EVENT_FIELDS_MAX)
        return;
    ev->field_id[ev->n_fields] = (uint8_t)id;
    ev->field_aux[ev->n_fields] = (uint8_t)(aux < 255 ? aux : 255);
    ev->field_value[ev->n_fields++] = v;
}

void fsc_event_add(struct fsc_event *ev, enum fsc_event_field_id id, double v)
{
    fsc_event_add_aux(ev, id, 0, v);
}

struct fsc_event_field fsc_event_field_at(const struct fsc_event *ev, unsigned i)
{
    if (i >= FSC_EVENT_FIELDS_MAX)
        return (struct fsc_event_field){.id = FSC_EF__COUNT};
    return (struct fsc_event_field){
        .id = ev->field_id[i], .aux = ev->field_aux[i], .value = ev->field_value[i]};
}

bool fsc_event_get(const struct fsc_event *ev, enum fsc_event_field_id id, double *v)
{
    for (unsigned i = 0; i < ev->n_fields && i < FSC_EVENT_FIELDS_MAX; i++) {
        if (ev->field_id[i] == id) {
            *v = ev->field_value[i];
            return true;
        }
    }
    return false;
}

/* "a.b.c.d" (and "/p" with cidr) of a host-order address; "none" <= 0. */
static int ipv4_text(double v, int prefix, char *buf, size_t size)
{
    if (!(v > 0 && v <= 4294967295.0))
        return snprintf(buf, size, "none");
    uint32_t a = (uint32_t)v;
    int n =
        snprintf(buf, size, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255u, (a >> 8) & 255u, a & 255u);
    if (prefix >= 0 && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "/%d", prefix);
    return n;
}

/* 5.0 GB, 120.0 kB, 17 B */
static int human_bytes(double b, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *unit;
    } u[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        if (b >= u[i].scale)
            return snprintf(buf, size, "%.1f %s", b / u[i].scale, u[i].unit);
    return snprintf(buf, size, "%.0f B", b);
}

/* 400G, 25G, 1.5G, 100M */
static int human_bps(double bps, char *buf, size_t size)
{
    if (bps >= 1e12)
        return snprintf(buf, size, "%gT", bps / 1e12);
    if (bps >= 1e9)
        return snprintf(buf, size, "%gG", bps / 1e9);
    if (bps >= 1e6)
        return snprintf(buf, size, "%gM", bps / 1e6);
    return snprintf(buf, size, "%.0f", bps);
}

static int human_secs(double s, char *buf, size_t size)
{
    if (s < 1)
        return snprintf(buf, size, "%.0f ms", s * 1e3);
    if (s < 60)
        return snprintf(buf, size, "%.1f s", s);
    return snprintf(buf, size, "%.0f min", s / 60);
}

int fsc_event_field_text(const struct fsc_event_field *f, enum fsc_event_text mode, char *buf,
                         size_t size)
{
    const struct fsc_event_field_desc *d = fsc_event_field_desc(f->id);
    bool human = mode == FSC_EVENT_TEXT_HUMAN;
    double v = f->value;
    if (!d)
        return snprintf(buf, size, "%g", v);
    switch (d->unit) {
    case FSC_EU_RATIO:
        /* utilizations and shares as percentages; a max/mean ratio as is */
        if (human && f->id != FSC_EF_PEAK_IMBALANCE)
            return snprintf(buf, size, "%.1f %%", v * 100);
        return snprintf(buf, size, human ? "%.2f" : "%.4f", v);
    case FSC_EU_BYTES:
        return human ? human_bytes(v, buf, size) : snprintf(buf, size, "%.0f", v);
    case FSC_EU_PER_SECOND:
        return snprintf(buf, size, human ? "%.0f/s" : "%.1f", v);
    case FSC_EU_COUNT:
        return snprintf(buf, size, "%.0f", v);
    case FSC_EU_SECONDS:
        return human ? human_secs(v, buf, size) : snprintf(buf, size, "%.6g", v);
    case FSC_EU_BPS:
        return human ? human_bps(v, buf, size) : snprintf(buf, size, "%.0f", v);
    case FSC_EU_IPV4:
        return ipv4_text(v, -1, buf, size);
    case FSC_EU_CIDR:
        return ipv4_text(v, f->aux, buf, size);
    case FSC_EU_GTS:
        return snprintf(buf, size, human ? "%g GT/s" : "%g", v);
    case FSC_EU_RAW:
        return snprintf(buf, size, human ? "%.0f" : "%.17g", v);
    case FSC_EU_WORD:
        return snprintf(buf, size, "%s", d->word ? d->word(v) : "?");
    }
    return snprintf(buf, size, "%g", v);
}

/* Writes field f as a JSON member: "name": value (a number, a word or an
 * address as a string, null for an absent address). A window utilization
 * is not written here (its name needs the window widths): windows_json()
 * groups those. */
static void field_json(struct fsc_json *w, const struct fsc_event_field *f)
{
    const struct fsc_event_field_desc *d = fsc_event_field_desc(f->id);
    char text[40];
    if (!d || f->id == FSC_EF_WINDOW_UTILIZATION)
        return;
    switch (d->unit) {
    case FSC_EU_IPV4:
    case FSC_EU_CIDR:
        if (f->value > 0 && f->value <= 4294967295.0) {
            fsc_event_field_text(f, FSC_EVENT_TEXT_LOG, text, sizeof(text));
            fsc_json_str(w, d->name, text);
        } else {
            fsc_json_null(w, d->name);
        }
        return;
    case FSC_EU_WORD:
        fsc_json_str(w, d->name, d->word ? d->word(f->value) : "?");
        return;
    case FSC_EU_RATIO:
    case FSC_EU_PER_SECOND:
        /* Detectors keep utilizations and rates as floats: 7 digits are
         * all they have (as /metrics shows them). */
        fsc_json_num(w, d->name, fsc_round_float(f->value));
        return;
    default:
        fsc_json_num(w, d->name, f->value);
        return;
    }
}

/* Writes ev's window utilizations as "window_utilization": {"<name>": v}
 * with names[level] ("1s"; NULL or beyond n_names: "level<N>"); nothing
 * when ev has none. */
static void windows_json(struct fsc_json *w, const struct fsc_event *ev, const char *const *names,
                         unsigned n_names)
{
    bool open = false;
    for (unsigned i = 0; i < ev->n_fields && i < FSC_EVENT_FIELDS_MAX; i++) {
        const struct fsc_event_field fi = fsc_event_field_at(ev, i), *f = &fi;
        if (f->id != FSC_EF_WINDOW_UTILIZATION)
            continue;
        if (!open) {
            fsc_json_object(w, "window_utilization");
            open = true;
        }
        char name[32];
        if (names && f->aux < n_names && names[f->aux])
            snprintf(name, sizeof(name), "%s", names[f->aux]);
        else
            snprintf(name, sizeof(name), "level%u", (unsigned)f->aux);
        fsc_json_num(w, name, f->value);
    }
    if (open)
        fsc_json_end(w);
}

const char *fsc_event_peer(const struct fsc_event *ev, char *buf, size_t size)
{
    if (!(ev->peer_saw & FSC_PEER_LINKED) || size == 0)
        return NULL;
    snprintf(buf, size, "%.*s", (int)strnlen(ev->subject, sizeof(ev->subject)), ev->subject);
    return buf;
}

const char *fsc_event_peer_saw_text(unsigned peer_saw, char *buf, size_t size)
{
    static const struct {
        unsigned bit;
        const char *word;
    } seen[] = {{FSC_PEER_BURST, "burst"},
                {FSC_PEER_QUEUE_PEAK, "queue_peak"},
                {FSC_PEER_BUFFER_THRESHOLD, "buffer_threshold"}};
    size_t len = 0;
    if (size == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
        if (!(peer_saw & seen[i].bit))
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? "+" : "", seen[i].word);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
    if (len == 0)
        snprintf(buf, size, "%s", (peer_saw & FSC_PEER_REPORTED) ? "none" : "unknown");
    return buf;
}

void fsc_event_fields_json(struct fsc_json *w, const struct fsc_event *ev,
                           const char *const *window_names, unsigned n_names)
{
    bool windows = false;
    for (unsigned i = 0; i < ev->n_fields && i < FSC_EVENT_FIELDS_MAX; i++) {
        const struct fsc_event_field f = fsc_event_field_at(ev, i);
        if (f.id != FSC_EF_WINDOW_UTILIZATION) {
            field_json(w, &f);
        } else if (!windows) {
            windows_json(w, ev, window_names, n_names);
            windows = true;
        }
    }
    char peer[FSC_EVENT_SUBJECT_MAX], saw[40];
    if (fsc_event_peer(ev, peer, sizeof(peer))) {
        fsc_json_str(w, "peer", peer);
        fsc_json_str(w, "peer_saw", fsc_event_peer_saw_text(ev->peer_saw, saw, sizeof(saw)));
    }
}
