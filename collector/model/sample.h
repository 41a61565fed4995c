/* The one data model that crosses every boundary (docs/DESIGN.md, "One data model").
 *
 * A source turns protocol messages into `struct fsc_sample` at its edge: the
 * series it belongs to (interned once in the registry, then cached by the
 * source), the device timestamp, the arrival timestamp and the value. Protocol
 * types (protobuf-c, gNMI, OTLP) never travel past the source.
 *
 * The static facts about a series (counter or gauge, hardware width, unit, link
 * speed, nominal sampling interval, device copy period, which detector it
 * feeds, how an exporter presents it) are its `struct fsc_traits`, filled
 * from the source's profile and the topology when the series is first seen.
 * Types only; no functions here. */
#ifndef FSC_SAMPLE_H
#define FSC_SAMPLE_H

#include <stdint.h>

/* Dense series id handed out by the registry (0, 1, 2, ...). */
typedef uint32_t fsc_series_id;
#define FSC_SERIES_NONE UINT32_MAX

/* Sample flags. */
enum {
    /* value is a double (v.d), e.g. Cumulus OTLP gauges; otherwise v.u. */
    FSC_SMP_F64 = 1u << 0,
    /* the source had no device timestamp: t_dev_ns is the arrival time. The
     * engine counts these so the jitter they bring is visible. */
    FSC_SMP_ARRIVAL_TIME = 1u << 1,
    /* explicit reset evidence from the source (OTLP start_time_unix_nano
     * changed, Junos last-clear / stream_creation_timestamp changed): the
     * engine restarts the baseline at this sample whatever the value does. */
    FSC_SMP_RESET = 1u << 2,
};

union fsc_value {
    uint64_t u;
    double d;
};

struct fsc_sample {
    fsc_series_id series;
    uint32_t flags;   /* FSC_SMP_* */
    int64_t t_dev_ns; /* device time, ns since the Unix epoch */
    int64_t t_arr_ns; /* arrival time at the collector, ns since the Unix epoch */
    union fsc_value v;
};

enum fsc_kind {
    FSC_KIND_COUNTER = 0, /* cumulative, rates are computed */
    FSC_KIND_GAUGE = 1,   /* instantaneous, last value is kept */
};

enum fsc_unit {
    FSC_UNIT_NONE = 0,     /* events, errors, ... */
    FSC_UNIT_BYTES,        /* octets */
    FSC_UNIT_PACKETS,      /* packets or frames */
    FSC_UNIT_MICROSECONDS, /* mlx5 *_pause_duration */
    FSC_UNIT_SECONDS,
    FSC_UNIT_RATIO,        /* 0..1 */
    FSC_UNIT_PERCENT,      /* 0..100 (outbound_pci_stalled_*) */
    FSC_UNIT_NANOSECONDS,  /* Cumulus tx_wait; exposed in seconds like microseconds */
    FSC_UNIT_MILLISECONDS, /* a passthrough name ending in `ms`: exposed in seconds */
    FSC_UNIT_BITS,         /* a passthrough name ending in `bits`: exposed in bytes */
};

/* What an exporter divides a value of unit `unit` by to show it in the base
 * unit its exposed name says (seconds, bytes; Prometheus' base units): a
 * division, not a multiplication by the inverse, so 2250000 us is exactly
 * 2.25 s. 1 for every other unit. */
static inline double fsc_unit_divisor(uint8_t unit)
{
    switch (unit) {
    case FSC_UNIT_MICROSECONDS:
        return 1e6;
    case FSC_UNIT_NANOSECONDS:
        return 1e9;
    case FSC_UNIT_MILLISECONDS:
        return 1e3;
    case FSC_UNIT_BITS:
        return 8.0;
    default:
        return 1.0;
    }
}

/* What a series means to the detectors; set by the profile. */
enum fsc_signal {
    FSC_SIG_NONE = 0,
    FSC_SIG_PORT_BYTES,         /* rx/tx bytes of a port: utilization, microbursts */
    FSC_SIG_CNP,                /* np_cnp_sent, rp_cnp_handled: CNP spike */
    FSC_SIG_ECN,                /* ECN-marked packets (NIC or switch queue): ECN spike */
    FSC_SIG_REORDER,            /* out_of_sequence, packet_seq_err: reorder spike */
    FSC_SIG_PFC_PAUSE_DURATION, /* cumulative paused time: PFC storm (paused fraction) */
    FSC_SIG_PFC_PAUSE_FRAMES,   /* pause frames: PFC storm (frame rate) */
    FSC_SIG_QUEUE_PEAK,         /* gauge: queue peak occupancy / watermark, bytes */
    FSC_SIG_BUFFER_THRESHOLD,   /* rx_buffer_passed_thres_phy: NIC-side burst evidence */
    FSC_SIG_LATENCY_PEAK,       /* gauge: queueing latency reached in the interval, seconds */
    FSC_SIG__COUNT
};

enum fsc_direction {
    FSC_DIR_NONE = 0,
    FSC_DIR_RX = 1,
    FSC_DIR_TX = 2,
};

/* How an exporter presents a series; the engine ignores it. A source that
 * keeps a histogram as separate counters (OTLP: `<name>_bucket{le}`
 * cumulative over buckets, `<name>_count`, `<name>_sum`) marks each part, so
 * the Prometheus exporter can join them into one `histogram` family <name>
 * instead of three counter families. The parts stay counters for the engine
 * (rates and resets as usual). */
enum fsc_expo {
    FSC_EXPO_DEFAULT = 0,     /* a series of its own */
    FSC_EXPO_HIST_BUCKET = 1, /* name ends in _bucket, an `le` label holds the bound */
    FSC_EXPO_HIST_COUNT = 2,  /* name ends in _count */
    FSC_EXPO_HIST_SUM = 3,    /* name ends in _sum */
};

struct fsc_traits {
    uint8_t kind;      /* enum fsc_kind */
    uint8_t width;     /* hardware width in bits: 32 wraps at 2^32, 64 never wraps
                        * (a decrease is a reset); 53 for counters carried as doubles */
    uint8_t unit;      /* enum fsc_unit */
    uint8_t signal;    /* enum fsc_signal */
    uint8_t direction; /* enum fsc_direction */
    uint8_t expo;      /* enum fsc_expo */
    uint8_t refresh;   /* enum fsc_refresh: how the device's copy behind refresh_ns works */
    uint8_t pad_;
    uint32_t scale;      /* raw value x scale = unit value (IB port_xmit_data: 4); 0 = 1 */
    uint16_t copy_group; /* FSC_REFRESH_PERIODIC: the device's copy grid, from
                          * fsc_engine_copy_group(); 0 = none. Not interned: the
                          * engine keeps it per series */
    uint16_t pad2_;
    uint64_t link_speed_bps;     /* 0 = unknown: no plausibility check, no utilization */
    uint64_t buffer_bytes;       /* queue/buffer size for FSC_SIG_QUEUE_PEAK, 0 = unknown */
    int64_t nominal_interval_ns; /* expected sampling interval; 0 = learn nothing, no gap rule */
    int64_t refresh_ns;          /* device copy period (Junos ASIC copy ~2 s, mlx5 lifespan);
                                  * 0 = the device refreshes on every read */
};

/* What a device does behind refresh_ns > 0 (rate.h rule 5). */
enum fsc_refresh {
    /* A read older than refresh_ns refreshes the cache, so a new value is
     * true from the first sample that shows it (the RDMA core's hw_counters
     * `lifespan`, Linux drivers/infiniband/core/sysfs.c). */
    FSC_REFRESH_ON_READ = 0,
    /* The device copies all its counters on its own timer every refresh_ns
     * (Junos' line-card copy), whatever is read when: a new value was true
     * from the copy instant, somewhere between the last sample showing the
     * old value and the first showing the new one. */
    FSC_REFRESH_PERIODIC = 1,
};

#endif
