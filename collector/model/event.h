/* A detector event as data (DESIGN §5): what happened (kind, phase), on
 * which series or group, when, and the kind's figures. The engine's
 * detectors and the sources fill them; the event bus (engine/events.h)
 * carries them; sinks render them. */
#ifndef FSC_EVENT_H
#define FSC_EVENT_H

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

/* Why a stream went down (FSC_EV_STREAM_DOWN's `peak`). */
enum fsc_stream_down_reason {
    FSC_STREAM_DOWN_CALL_ENDED = 0,  /* the call ended: target closed it, connection lost */
    FSC_STREAM_DOWN_CONNECT_TIMEOUT, /* no answer within connect_timeout */
    FSC_STREAM_DOWN_STALLED,         /* silent for stall_intervals sample intervals */
    FSC_STREAM_DOWN_START_FAILED,    /* the call could not be started */
    FSC_STREAM_DOWN__COUNT
};

/* Room for FSC_EV_STREAM_DOWN's "source/stream" (NUL included); longer
 * names are cut. A fixed array, so that publishing stays a copy. */
#define FSC_EVENT_SUBJECT_MAX 48

enum fsc_event_phase {
    FSC_EV_START = 0,
    FSC_EV_UPDATE = 1, /* periodic update of a long event */
    FSC_EV_END = 2,
    FSC_EV_INSTANT = 3, /* a one-shot event (evidence) */
};

struct fsc_event {
    uint64_t seq;      /* assigned by the bus: 1, 2, 3, ... */
    uint8_t kind;      /* enum fsc_event_kind */
    uint8_t phase;     /* enum fsc_event_phase */
    uint8_t direction; /* enum fsc_direction */
    uint8_t pad_;
    fsc_series_id series; /* the series it was detected on (FSC_SERIES_NONE for groups) */
    uint32_t group;       /* port group index for FSC_EV_UPLINK_IMBALANCE */
    int64_t t_start_ns;   /* device time the condition started */
    int64_t t_end_ns;     /* device time it ended; 0 while ongoing */
    double peak;          /* microburst: peak utilization 0..1; spike: peak rate/s;
                           * PFC: peak paused fraction; imbalance: peak max/mean ratio;
                           * cable mismatch: prefix length of `amount` (address);
                           * PCIe: current speed GT/s; counter reset: the raw value
                           * before the reset; stream down: enum
                           * fsc_stream_down_reason */
    double amount;        /* microburst: bytes; spike: events; PFC: paused seconds;
                           * cable mismatch: what the host has (down: enum fsc_oper
                           * number; speed: b/s; address: first IPv4 address as a
                           * host-order integer, 0 none; peer: enum fsc_peer_seen;
                           * both model/operstate.h);
                           * PCIe: current width; counter reset: the raw value
                           * after it; stream down: gRPC status code of the
                           * failure (-1: none) */
    double baseline;      /* spike: baseline rate/s at start; cable mismatch: what the
                           * plan wants (speed b/s, address or peer address as a
                           * host-order integer); PCIe: max speed GT/s;
                           * counter reset: resets of the series held back by the
                           * rate limit since its previous reset event; stream
                           * down (END): calls that failed while it was down */
    double util_1s;       /* microburst: utilization of the surrounding window of
                           * window level 0 (1 s by default); -1 if unknown;
                           * PCIe: max width; counter reset: 1 when the source gave
                           * reset evidence (start time / last-clear changed), 0
                           * when the value went down */
    double util_10s;      /* same for level 1 (10 s by default); -1 if unknown */
    char subject[FSC_EVENT_SUBJECT_MAX]; /* "source/stream" for FSC_EV_STREAM_DOWN (cut to
                                          * FSC_EVENT_SUBJECT_MAX - 1 bytes); empty
                                          * (all zero) for every other kind */
};

/* "microburst", "cnp_spike", ...; "start", "update", "end", "instant". */
const char *fsc_event_kind_name(enum fsc_event_kind kind);
const char *fsc_event_phase_name(enum fsc_event_phase phase);

/* "call_ended", "connect_timeout", "stalled", "start_failed"; "unknown". */
const char *fsc_stream_down_reason_name(enum fsc_stream_down_reason reason);

#endif
