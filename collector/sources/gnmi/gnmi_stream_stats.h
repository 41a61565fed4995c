/* What one gNMI stream counts (internal to collector/sources/gnmi): the
 * counters the client fills under its lock (gnmi_client.h) and the instance
 * copies out (fsc_gnmi_source_stats, gnmi_source.h). Types only, so the
 * client and the source's face both use them without knowing each other. */
#ifndef FSC_GNMI_STREAM_STATS_H
#define FSC_GNMI_STREAM_STATS_H

#include <stdbool.h>
#include <stdint.h>

enum fsc_gnmi_stream_state {
    FSC_GNMI_STATE_CONNECTING = 0, /* call started, nothing received yet */
    FSC_GNMI_STATE_STREAMING = 1,  /* at least one response received on this call */
    FSC_GNMI_STATE_BACKOFF = 2,    /* waiting to retry after a failure */
};

/* Counters of one stream since start (for self-monitoring exporters). */
struct fsc_gnmi_stream_stats {
    char name[64];                    /* the stream's configured name */
    enum fsc_gnmi_stream_state state; /* now */
    bool sync_seen;                   /* sync_response seen on the current call */
    int64_t last_update_ns;           /* wall time of the last response; 0 = never */
    uint64_t messages;                /* SubscribeResponses received */
    uint64_t updates;                 /* Update entries in them */
    uint64_t samples;                 /* samples fed to the engine */
    uint64_t decode_errors;           /* malformed responses */
    uint64_t seq_lost;                /* Junos messages lost (sequence numbers never seen) */
    uint64_t seq_late;                /* Junos messages that arrived after a higher number */
    uint64_t reconnects;              /* calls that failed and were retried after backoff */
    uint64_t resubscribes;            /* calls cancelled for silence and restarted */
    uint64_t names_hashed;            /* updates of series with a list-key label name hashed */
    uint64_t zero_filled;   /* samples of 0 given to zero-suppressed counters (gnmi_zero.c) */
    uint64_t over_cap;      /* updates past FSC_GNMI_SAMPLES_CAP in one response: dropped */
    uint64_t path_dropped;  /* updates whose path is past the decoder's bounds: dropped */
    uint64_t multi_dropped; /* updates of a multi-producer series past its bounds: dropped */
    /* Observed cadence (gnmi_client.h, struct fsc_gnmi_cadence): device-time
     * interval between messages that start with the same series, EWMA over ~64 intervals,
     * and the mean absolute deviation of the intervals from it; both in
     * seconds and meaningful once cadence_intervals > 0. */
    uint64_t cadence_intervals;
    double cadence_s;
    double jitter_s;
};

#endif
