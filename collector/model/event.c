/* Names of event kinds, phases and stream-down reasons (model/event.h). */
#include "model/event.h"

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
