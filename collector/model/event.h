/* A detector event as data (docs/DESIGN.md, "Detectors and events"): what happened (kind, phase),
 * on which series or group, when, and the kind's figures. The engine's detectors and the sources
 * fill them; the event bus (engine/events.h) carries them; sinks render them. */
#ifndef FSC_EVENT_H
#define FSC_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

enum fsc_event_kind {
    FSC_EV_MICROBURST = 0,   /* burst shorter than micro_max */
    FSC_EV_BURST,            /* congestion lasting micro_max or longer */
    FSC_EV_QUEUE_PEAK,       /* switch-side evidence: queue peak above a share of the buffer */
    FSC_EV_BUFFER_THRESHOLD, /* NIC-side evidence: rx_buffer_passed_thres_phy moved */
    FSC_EV_CNP_SPIKE,
    FSC_EV_ECN_SPIKE,
    FSC_EV_REORDER_SPIKE,
    FSC_EV_PFC_STORM,
    FSC_EV_UPLINK_IMBALANCE,
    /* Published by the NIC source (collector/sources/nic), START when a condition
     * appears and END when it clears; no UPDATE. */
    FSC_EV_CABLE_MISMATCH, /* a host interface differs from the B300 cable plan */
    FSC_EV_PCIE_DEGRADED,  /* a NIC's PCIe link runs below its max speed or width */
    /* The rate engine's RESET verdict (a 64-bit counter went down, or the
     * source gave reset evidence): INSTANT, at most one per series per
     * engine.reset_event_every_ns; resets held back are counted (engine
     * stats reset_events_suppressed) and the series' next reset event says
     * how many it stands for. */
    FSC_EV_COUNTER_RESET,
    /* A subscription stream of a streaming source (gNMI) stopped delivering:
     * START when its call failed, timed out or stalled (also when it never
     * came up), END when data flows again. Published by the source with
     * fsc_engine_publish(); series is FSC_SERIES_NONE and `subject` names
     * "source/stream". A target that is down shows as all its streams down. */
    FSC_EV_STREAM_DOWN,
    FSC_EV__COUNT
};

/* Why a stream went down (FSC_EV_STREAM_DOWN's reason field). */
enum fsc_stream_down_reason {
    FSC_STREAM_DOWN_CALL_ENDED = 0,  /* the call ended: target closed it, connection lost */
    FSC_STREAM_DOWN_CONNECT_TIMEOUT, /* no answer within connect_timeout */
    FSC_STREAM_DOWN_STALLED,         /* silent for stall_intervals sample intervals */
    FSC_STREAM_DOWN_START_FAILED,    /* the call could not be started */
    FSC_STREAM_DOWN__COUNT
};

/* Room for FSC_EV_STREAM_DOWN's "source/stream", or a port event's peer
 * "device:port" (NUL included); longer names are cut. A fixed array, so
 * that publishing stays a copy. */
#define FSC_EVENT_SUBJECT_MAX 48

/* Cross-source evidence (engine/xsrc.h): what the port at the other end of
 * the link showed around a microburst, burst, queue-peak or
 * buffer-threshold event (struct fsc_event.peer_saw, bits). 0: the event's
 * port has no peer the engine knows, and `subject` is empty. */
enum fsc_peer_saw {
    FSC_PEER_LINKED = 1u << 0,   /* the port has a peer: `subject` names it "device:port" */
    FSC_PEER_REPORTED = 1u << 1, /* the peer reported past the event's end: no bit below
                                  * means it showed nothing (else: not known yet) */
    FSC_PEER_BURST = 1u << 2,    /* a microburst or burst on the peer */
    FSC_PEER_QUEUE_PEAK = 1u << 3,
    FSC_PEER_BUFFER_THRESHOLD = 1u << 4,
};
#define FSC_PEER_SEEN_MASK (FSC_PEER_BURST | FSC_PEER_QUEUE_PEAK | FSC_PEER_BUFFER_THRESHOLD)

enum fsc_event_phase {
    FSC_EV_START = 0,
    FSC_EV_UPDATE = 1, /* periodic update of a long event */
    FSC_EV_END = 2,
    FSC_EV_INSTANT = 3, /* a one-shot event (evidence) */
};

/* The figures an event carries, each a typed field: a name (the key in the
 * log line, the status page's API and the Kafka document), a unit that says
 * how the value reads, and the value. Which kinds use which fields is in
 * docs/EVENTS.md; every renderer decodes fields through this table only. */
enum fsc_event_field_id {
    FSC_EF_PEAK_UTILIZATION = 0, /* microburst, burst: peak fine utilization 0..1 */
    FSC_EF_BYTES,                /* microburst, burst: bytes moved during it */
    FSC_EF_WINDOW_UTILIZATION,   /* utilization of the surrounding window of level aux */
    FSC_EF_QUEUE_PEAK_BYTES,     /* queue peak: the peak occupancy */
    FSC_EF_BUFFER_SHARE,         /* queue peak: of the packet buffer */
    FSC_EF_CROSSINGS,            /* buffer threshold: crossings in the interval */
    FSC_EF_CROSSINGS_PER_SECOND,
    FSC_EF_PEAK_RATE,              /* spike: peak events/s */
    FSC_EF_BASELINE_RATE,          /* spike: the baseline it rose above */
    FSC_EF_COUNT,                  /* spike: events during it */
    FSC_EF_PEAK_PAUSE_FRAMES_RATE, /* PFC storm on pause frames */
    FSC_EF_PAUSE_FRAMES,
    FSC_EF_PEAK_PAUSED_FRACTION, /* PFC storm on paused time */
    FSC_EF_PAUSED_SECONDS,
    FSC_EF_PEAK_IMBALANCE, /* uplink imbalance: peak max/mean */
    FSC_EF_WINDOWS_ABOVE,
    FSC_EF_MEAN_UTILIZATION_AT_START,
    FSC_EF_OPERSTATE,     /* cable mismatch (down): enum fsc_oper */
    FSC_EF_PLANNED_SPEED, /* cable mismatch (speed): b/s */
    FSC_EF_SPEED,
    FSC_EF_PLANNED_ADDRESS, /* cable mismatch (address): IPv4, aux = prefix length */
    FSC_EF_ADDRESS,
    FSC_EF_PEER_ADDRESS, /* cable mismatch (peer) */
    FSC_EF_NEIGHBOUR,    /* enum fsc_peer_seen */
    FSC_EF_SPEED_GTS,    /* PCIe degraded */
    FSC_EF_MAX_SPEED_GTS,
    FSC_EF_WIDTH,
    FSC_EF_MAX_WIDTH,
    FSC_EF_VALUE_BEFORE, /* counter reset: the raw values */
    FSC_EF_VALUE_AFTER,
    FSC_EF_HELD_BACK_RESETS,
    FSC_EF_CAUSE,       /* counter reset: 0 decrease, 1 reset evidence */
    FSC_EF_REASON,      /* stream down: enum fsc_stream_down_reason */
    FSC_EF_GRPC_STATUS, /* stream down: the failed call's status */
    FSC_EF_FAILED_CALLS,
    FSC_EF_QUEUE_LATENCY, /* queue peak from a latency histogram: the latency bound reached */
    FSC_EF__COUNT
};

/* How a field's value reads. */
enum fsc_event_unit {
    FSC_EU_RATIO = 0,  /* a fraction or a ratio */
    FSC_EU_BYTES,      /* bytes */
    FSC_EU_PER_SECOND, /* events (or frames) per second */
    FSC_EU_COUNT,      /* an integer */
    FSC_EU_SECONDS,
    FSC_EU_BPS,  /* bits per second */
    FSC_EU_IPV4, /* a host-order IPv4 address; <= 0: none */
    FSC_EU_CIDR, /* the same with its prefix length in aux */
    FSC_EU_GTS,  /* PCIe GT/s */
    FSC_EU_RAW,  /* a counter's raw value (exact to 2^53) */
    FSC_EU_WORD, /* an index into the field's words */
};

struct fsc_event_field_desc {
    const char *name;              /* "peak_utilization" */
    uint8_t unit;                  /* enum fsc_event_unit */
    const char *label;             /* short label on the status page ("peak"); "" for none */
    const char *(*word)(double v); /* FSC_EU_WORD: the word of a value */
};

/* The descriptor of a field id (NULL beyond the table). Thread: any. */
const struct fsc_event_field_desc *fsc_event_field_desc(unsigned id);

struct fsc_event_field {
    uint8_t id;  /* enum fsc_event_field_id */
    uint8_t aux; /* FSC_EU_CIDR: prefix length; window utilization: window level */
    double value;
};

/* Fields an event holds at most (a microburst's END uses all four). */
#define FSC_EVENT_FIELDS_MAX 4

struct fsc_event {
    uint64_t seq;      /* assigned by the bus: 1, 2, 3, ... */
    uint8_t kind;      /* enum fsc_event_kind */
    uint8_t phase;     /* enum fsc_event_phase */
    uint8_t direction; /* enum fsc_direction */
    uint8_t n_fields;
    fsc_series_id series; /* the series it was detected on (FSC_SERIES_NONE for groups) */
    uint32_t group;       /* port group index for FSC_EV_UPLINK_IMBALANCE */
    uint8_t peer_saw;     /* enum fsc_peer_saw bits; in what was padding, so the event
                           * stays two cache lines */
    int64_t t_start_ns;   /* device time the condition started */
    int64_t t_end_ns;     /* device time it ended; 0 while ongoing */
    /* The fields in the order they were added, as parallel arrays so that
     * an event stays two cache lines (the bus copies whole events). */
    double field_value[FSC_EVENT_FIELDS_MAX];
    uint8_t field_id[FSC_EVENT_FIELDS_MAX];
    uint8_t field_aux[FSC_EVENT_FIELDS_MAX];
    char subject[FSC_EVENT_SUBJECT_MAX]; /* "source/stream" for FSC_EV_STREAM_DOWN; the
                                          * peer's "device:port" when peer_saw has
                                          * FSC_PEER_LINKED (both cut to
                                          * FSC_EVENT_SUBJECT_MAX - 1 bytes); else empty
                                          * (all zero) */
};

/* The peer ev names ("device:port", NUL-terminated in buf of size bytes),
 * or NULL when ev has none (peer_saw lacks FSC_PEER_LINKED). Thread: any. */
const char *fsc_event_peer(const struct fsc_event *ev, char *buf, size_t size);

/* What the peer showed, as one word: "burst", "queue_peak",
 * "buffer_threshold" or several joined by '+' ("burst+queue_peak"); "none"
 * when it reported past the event and showed nothing; "unknown" when it has
 * not reported that far yet. Writes into buf (32 bytes suffice) and
 * returns it. Thread: any. */
const char *fsc_event_peer_saw_text(unsigned peer_saw, char *buf, size_t size);

/* Appends field id = v (aux 0 / aux) to ev; beyond FSC_EVENT_FIELDS_MAX
 * fields the call is ignored (a kind never needs more). */
void fsc_event_add(struct fsc_event *ev, enum fsc_event_field_id id, double v);
void fsc_event_add_aux(struct fsc_event *ev, enum fsc_event_field_id id, unsigned aux, double v);

/* The i-th field of ev (i < ev->n_fields). */
struct fsc_event_field fsc_event_field_at(const struct fsc_event *ev, unsigned i);

/* The value of ev's first field `id` into *v; returns false when ev has none. */
bool fsc_event_get(const struct fsc_event *ev, enum fsc_event_field_id id, double *v);

/* How fsc_event_field_text() writes. */
enum fsc_event_text {
    FSC_EVENT_TEXT_LOG = 0, /* exact and plain: 0.95, 5000000000, 10.1.2.1/30 */
    FSC_EVENT_TEXT_HUMAN,   /* for people: 95.0 %, 5.0 GB, 400G */
};

/* Writes field f's value as text (words as their word, addresses dotted,
 * "none" for an absent address). Returns the length (snprintf's). */
int fsc_event_field_text(const struct fsc_event_field *f, enum fsc_event_text mode, char *buf,
                         size_t size);

struct fsc_json; /* base/json_write.h */

/* Writes ev's fields as members of the JSON object open in w, in the order
 * they were added: each as "name": value (a number, a word or an address as
 * a string, null for an absent address), except that the window
 * utilizations go together, at the place of the first, into one member
 * "window_utilization": {"<name>": v} named by window_names[level] ("1s";
 * NULL or beyond n_names: "level<N>"); then, for an event with a peer,
 * "peer": "device:port" and "peer_saw": fsc_event_peer_saw_text(). Writes
 * nothing for an event without fields or peer. The one rendering of the
 * fields for the status page's /api/events and the Kafka document.
 * Thread: any. */
void fsc_event_fields_json(struct fsc_json *w, const struct fsc_event *ev,
                           const char *const *window_names, unsigned n_names);

/* "microburst", "cnp_spike", ...; "start", "update", "end", "instant". */
const char *fsc_event_kind_name(enum fsc_event_kind kind);
const char *fsc_event_phase_name(enum fsc_event_phase phase);

/* "call_ended", "connect_timeout", "stalled", "start_failed"; "unknown". */
const char *fsc_stream_down_reason_name(enum fsc_stream_down_reason reason);

#endif
