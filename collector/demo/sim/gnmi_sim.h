/* gnmi_sim: a gNMI target that plays a Juniper QFX5240 (test tool, not shipped).
 *
 * It answers as Junos OS Evolved renders its sensors (the render protos of
 * github.com/Juniper/telemetry, docs/vendors/junos.md), or with --os junos
 * as Junos OS, which adds the qmon-sw sensor. Wire shape: per port and tick,
 * one SubscribeResponse per sensor, each with the Junos header extension (id
 * 1): payload_get_timestamp = value sample time (ms, Notification.timestamp
 * is the same in ns), stream_creation_timestamp = counter epoch,
 * sensor_name / streamed_path of that sensor, sequence_number from 0 per
 * stream and sensor, eom on the last port of a sensor's wrap. Sensors, in the
 * order a wrap sends them:
 *   interfaces: prefix /interfaces/interface[name=et-0/0/K]/state/counters,
 *               16 uint_val leaves (in-octets ... carrier-transitions);
 *   ethernet:   prefix /interfaces/interface[name=et-0/0/K]/ethernet/state/
 *               counters, 3 leaves (in-mac-pause-frames, out-mac-pause-frames,
 *               in-crc-errors) and jnx-pfc-statistics[priority=P]/in-mac-
 *               pause-frames, out-mac-pause-frames for P = 0..7 (19 updates);
 *   qos:        prefix /qos/interfaces/interface[interface-id=et-0/0/K]/output/
 *               queues, updates queue[name=Q]/state/<leaf>, 6 per queue
 *               (transmit-pkts, transmit-octets, dropped-pkts, dropped-octets,
 *               max-queue-len, avg-queue-len);
 *   qmon-sw:    --os junos only: prefix /junos/system/linecard/qmon-sw
 *               [name=et-0/0/K], updates egress[queue-number=Q]/<leaf>, 5 per
 *               queue (peak-buffer-occupancy-bytes, tail-drop-packets,
 *               tail-drop-bytes, packets, bytes; Junos OS 23.4R1
 *               pfe_qmon_oc.proto); on Junos OS Evolved a path that selects
 *               only it is InvalidArgument, as no EVO release has the sensor;
 *   fec:        prefix /state/interfaces/interface[name=et-0/0/K]/ethernet/
 *               counters, 2 leaves (fec-corrected-words,
 *               fec-uncorrectable-words: junos_state_interface_render.proto);
 *   speed:      prefix /interfaces/interface[name=et-0/0/K], updates
 *               ethernet/state/port-speed and .../negotiated-port-speed
 *               (string_val "SPEED_400GB", an OpenConfig identity) and
 *               state/high-speed (uint_val 400000, Mb/s);
 *   /junos/system/linecard/interface: accepted, exports nothing (a real
 *               target may serve a path without data: the stream still gets
 *               its sync_response, then stays quiet).
 * No ECN leaf: Juniper renders none. --zero-suppress leaves out every leaf
 * whose value is 0 after the initial sync dump (which sends them), as Junos
 * does by default (a message may then carry fewer updates, or none).
 * Subscribe: a path (prefix + subscription path, list keys ignored) selects
 * every sensor whose path it is a prefix of (`/interfaces` = interfaces +
 * ethernet + speed) or that is a prefix of it (`/qos/.../queues/queue/state`
 * = qos; any of the three speed leaves = speed, which sends all three); `*`
 * matches one element, `...` the rest, an empty path everything. A path that
 * selects nothing served is InvalidArgument. STREAM and ONCE (POLL:
 * UNIMPLEMENTED); PROTO only; the smallest sample_interval wins (0 =
 * --interval).
 *
 * Parts:
 *   gnmi_sim_main.c    command line;
 *   gnmi_sim_model.c   deterministic counters: value(t) is the exact integral
 *                      of the configured rate, so a test can compute the
 *                      expected counter and rate from the CLI arguments alone;
 *   gnmi_sim_msg.c     SubscribeResponse / CapabilityResponse bytes (protobuf-c
 *                      generated code from proto/, an encoder independent of
 *                      the collector's hand-written wire reader);
 *   gnmi_sim_request.c SubscribeRequest parsing and path -> sensor selection;
 *   gnmi_sim_run.c     binds the targets (--targets N: N gRPC servers on N
 *                      ports, one process) and runs the one loop: one
 *                      thread, one completion queue for all of them;
 *   gnmi_sim_server.c  the gRPC call plumbing: a small state machine per call;
 *   gnmi_sim_send.c    what a call sends: batches, messages, the status;
 *   gnmi_sim_stream.c  a Subscribe's stream: ticks, wraps, Junos batches,
 *                      the sync, jitter and the fault modes.
 *
 * Model (all times in ms since the Unix epoch, as the Junos header carries
 * them): the counter epoch is the process start, moved forward by every
 * --reset-after period (counters restart from 0 and the header's
 * stream_creation_timestamp, which is the epoch, changes). For a port, with
 * e = value time - epoch (ms) and rate R bytes/s:
 *   in-octets = out-octets = R*(e/1000) + (R*(e%1000))/1000
 * (exact floor of R*e/1000 without overflow), plus, on the burst port, the
 * line-rate excess for the time spent in bursts (bursts occupy
 * [k*every, k*every+length) of the epoch, k >= 1; B = ms spent in bursts
 * during [0, e), 0 on every other port). in-pkts = octets / packet size;
 * discards = pkts / 1e6; errors = pkts / 1e8. The value time is the
 * payload timestamp, or with --batch-copy the last copy time before it
 * (Junos copies ASIC counters every ~2 s and exports the copy at every
 * interval: equal values inside the copy period are stale repeats).
 * Ethernet:
 *   in-mac-pause-frames  = 10 * B   (the peer pauses the port while it bursts)
 *   out-mac-pause-frames =  4 * B
 *   jnx-pfc-statistics[3] in-/out-mac-pause-frames = the same (the pauses are
 *                          PFC on priority 3, the RoCE class); other
 *                          priorities 0
 *   in-crc-errors        = in-errors
 * FEC: fec-corrected-words = in-octets / 1e6, fec-uncorrectable-words =
 *   in-octets / 1e12.
 * Queues (qos and qmon-sw share them): queue q < n-1 gets out-octets >>
 * (q+1), the last queue the rest (the queues sum to out-octets exactly);
 *   transmit-pkts = queue octets / packet size, transmit-octets = queue octets
 *   dropped-pkts = transmit-pkts / 1e6, dropped-octets = dropped-pkts * size
 *   max-queue-len (qos) and qmon peak-buffer-occupancy-bytes: the peak
 *                     within the interval since the port's previous report
 *                     of that sensor (value times [prev, now); the first
 *                     report looks one interval back; a repeated value time
 *                     repeats its window): with a burst on the port
 *                     overlapping it, --burst-peak P (12e6) on --burst-queue
 *                     Q alone, or P >> q on every queue when no queue is
 *                     chosen; else utilization * 1e6 >> q. So a 300 ms burst
 *                     anywhere in a 2 s interval shows once, in the report
 *                     whose interval holds it (fsc_sim_queue_peaks);
 *   avg-queue-len   = max-queue-len / 2 (the same window);
 *   qmon tail-drop-* = dropped-*, packets / bytes = transmit-pkts / -octets. */
#ifndef FSC_GNMI_SIM_H
#define FSC_GNMI_SIM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define FSC_SIM_LINE_BPS         400000000000ULL /* 400G */
#define FSC_SIM_MAX_PORTS        1024
#define FSC_SIM_MAX_QUEUES       8
#define FSC_SIM_IF_LEAVES        16            /* OpenConfig interface counters per port message */
#define FSC_SIM_ETH_LEAVES       3             /* OpenConfig ethernet counters per port message */
#define FSC_SIM_PFC_PRIORITIES   8             /* jnx-pfc-statistics entries per port message */
#define FSC_SIM_PFC_PRIORITY     3             /* the priority that pauses (RoCE) */
#define FSC_SIM_QOS_LEAVES       6             /* OpenConfig qos leaves per queue */
#define FSC_SIM_QMON_LEAVES      5             /* qmon-sw leaves per queue */
#define FSC_SIM_FEC_LEAVES       2             /* junos-state FEC counters per port message */
#define FSC_SIM_SPEED_LEAVES     3             /* port-speed, negotiated-port-speed, high-speed */
#define FSC_SIM_SPEED_NAME       "SPEED_400GB" /* openconfig-if-ethernet identity */
#define FSC_SIM_HIGH_SPEED_MBPS  400000        /* state/high-speed of a 400G port */
#define FSC_SIM_PAUSE_IN_PER_MS  10            /* in-mac-pause-frames per ms spent in bursts */
#define FSC_SIM_PAUSE_OUT_PER_MS 4             /* out-mac-pause-frames per ms spent in bursts */
#define FSC_SIM_MSG_UPDATES      64            /* upper bound of updates in one message */
#define FSC_SIM_MAX_TARGETS      1024          /* targets served by one process */

struct fsc_sim_config {
    const char *listen;   /* host:port */
    const char *tls_cert; /* PEM file; NULL = insecure */
    const char *tls_key;  /* PEM file */
    const char *tls_ca;   /* client CA (mutual TLS); NULL = no client cert */
    const char *username; /* NULL = no credential check */
    const char *password;
    const char *system_id;       /* Junos header system_id */
    int junos_os;                /* --os junos: Junos OS (qmon-sw); 0: Junos OS Evolved */
    int zero_suppress;           /* --zero-suppress: leaves whose value is 0 are not sent */
    uint32_t ports;              /* et-0/0/0 .. et-0/0/(ports-1) */
    uint32_t queues;             /* queues per port (qos and qmon-sw) */
    uint32_t packet_size;        /* bytes per packet (pkts = octets / packet_size) */
    int64_t interval_ms;         /* SAMPLE interval when a subscription gives 0 */
    int64_t min_interval_ms;     /* below it: InvalidArgument (Junos floor is 2 s); 0 = 1 ms */
    double jitter;               /* payload timestamp jitter, +- fraction of the interval */
    int64_t batch_copy_ms;       /* counter copy period; 0 = live values */
    int64_t batch_copy_phase_ms; /* copies at the start + this + k x batch_copy_ms: the copy
                                  * timer's phase against the reporting ticks (which follow
                                  * the subscription); 0: copies at the start */
    /* --junos-cadence: Junos' reporting, as Juniper documents it ("Guidelines
     * for Specifying Data Reporting Intervals"): intervals are multiples of
     * 2 s (a request is rounded up), each interval reports batch_ports of
     * the ports (the next ones in turn, so one port's records come every
     * ports / batch_ports intervals), eom on the last message of a batch,
     * counters from the 2 s copy (batch_copy_ms 2000 unless given), the
     * sync_response after the first full round of ports. */
    int junos_cadence;
    uint32_t batch_ports; /* ports per interval with junos_cadence (default 10) */
    double utilization;   /* 0..1 of line rate, every port */
    int32_t burst_port;   /* -1 = none */
    int64_t burst_every_ms;
    int64_t burst_length_ms;
    int32_t burst_queue;         /* queue whose peak the burst fills; -1 = every queue */
    uint64_t burst_peak_bytes;   /* that queue's peak while bursting (default 12e6) */
    int64_t reset_after_ms;      /* counters restart every D; 0 = never */
    int64_t stall_after_ms;      /* per stream: stop sending after D; 0 = never */
    int64_t disconnect_after_ms; /* per stream: cancel after D; 0 = never */
    /* Network fault modes (tests/integration/faults_net_gnmi.sh). They act
     * for fault_for_ms after the first Subscribe that streams (0 = always),
     * so a test sees the target misbehave and then behave again. */
    uint32_t garbage_every; /* every Nth message of a stream is undecodable; 0 = never */
    uint32_t speedup;       /* ticks N times as often as subscribed; 0, 1 = no */
    int close_after_sync;   /* ends each call with OK right after its sync_response */
    int64_t fault_for_ms;
    /* Every time the target sends (payload, creation, export) is this far
     * ahead of the host's clock: a device with a wrong clock. */
    int64_t clock_ahead_ms;
    int64_t duration_ms; /* process lifetime (always bounded) */
    /* --targets N: N independent targets in this process, each its own gRPC
     * server and port (listen's port + k, or a free port each when it is
     * 0), its own calls, counter epoch and jitter seed (seed + k). Target k
     * has system_id "<system_id>-k" and utilization utilization + k *
     * utilization_step, so each one's counters are known apart; with one
     * target (the default) nothing changes. */
    uint32_t targets;
    double utilization_step;
    uint64_t seed;
    int verbose;
    /* Set (by a signal handler) to end the run early, as --duration does. */
    const volatile sig_atomic_t *stop;
};

/* Fills the defaults (128 ports, 4 queues, 1 s interval, 30 s duration). */
void fsc_sim_config_defaults(struct fsc_sim_config *cfg);

/* Counter leaves of one port at one value time. */
struct fsc_sim_port_values {
    uint64_t in_octets, out_octets, in_pkts, out_pkts, in_discards, out_discards, in_errors,
        out_errors;
    uint64_t q_octets[FSC_SIM_MAX_QUEUES], q_pkts[FSC_SIM_MAX_QUEUES];
    uint64_t q_drop_pkts[FSC_SIM_MAX_QUEUES], q_drop_octets[FSC_SIM_MAX_QUEUES];
    uint64_t q_peak_bytes[FSC_SIM_MAX_QUEUES], q_avg_bytes[FSC_SIM_MAX_QUEUES];
    uint64_t in_pause, out_pause, crc_errors;
    uint64_t in_pfc[FSC_SIM_PFC_PRIORITIES], out_pfc[FSC_SIM_PFC_PRIORITIES];
    uint64_t fec_corrected_words, fec_uncorrectable_words;
};

/* Rate of a port outside bursts, bytes per second (utilization * line / 8,
 * truncated to whole bytes). Thread: any. */
uint64_t fsc_sim_base_rate(const struct fsc_sim_config *cfg);

/* Counter epoch (ms) that applies at time t_ms, given the process start. */
int64_t fsc_sim_epoch(const struct fsc_sim_config *cfg, int64_t start_ms, int64_t t_ms);

/* Value time for a payload timestamp: t_ms, or the last batch copy <= t_ms. */
int64_t fsc_sim_value_time(const struct fsc_sim_config *cfg, int64_t epoch_ms, int64_t t_ms);

/* Fills *out for `port` at value time t_ms (>= epoch_ms). Thread: any. */
void fsc_sim_port_values(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                         int64_t t_ms, struct fsc_sim_port_values *out);

/* Fills peaks[q] with the peak occupancy (max-queue-len, qmon
 * peak-buffer-occupancy-bytes) of each queue of `port` within the value
 * times [from_ms, to_ms) (the formula above; queues past cfg->queues are 0).
 * Thread: any. */
void fsc_sim_queue_peaks(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                         int64_t from_ms, int64_t to_ms, uint64_t peaks[FSC_SIM_MAX_QUEUES]);

/* Sets v's queue peaks and averages (avg = peak / 2) to those of the value
 * times [from_ms, to_ms) (fsc_sim_queue_peaks). Thread: any. */
void fsc_sim_queue_levels(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                          int64_t from_ms, int64_t to_ms, struct fsc_sim_port_values *v);

/* Moves one port's peak window [*from, *to) for one sensor (both 0 before
 * its first report) to the report at value time vt_ms: [previous to, vt_ms);
 * the first report, and the first after a counter reset (the previous
 * window is before epoch_ms), look back interval_ms; a value time that did
 * not move (a stale copy exported again) keeps the window. Never before
 * epoch_ms. */
void fsc_sim_peak_window(int64_t *from, int64_t *to, int64_t epoch_ms, int64_t vt_ms,
                         int64_t interval_ms);

/* Sensors a subscription asks for; the bit order is the order of a wrap. */
enum {
    FSC_SIM_SENSOR_IF = 1u << 0,    /* /interfaces/interface/state/counters */
    FSC_SIM_SENSOR_ETH = 1u << 1,   /* /interfaces/interface/ethernet/state/counters */
    FSC_SIM_SENSOR_QOS = 1u << 2,   /* /qos/interfaces/interface/output/queues */
    FSC_SIM_SENSOR_QMON = 1u << 3,  /* /junos/system/linecard/qmon-sw (--os junos) */
    FSC_SIM_SENSOR_FEC = 1u << 4,   /* /state/interfaces/interface/ethernet/counters */
    FSC_SIM_SENSOR_SPEED = 1u << 5, /* port-speed, negotiated-port-speed, high-speed */
    FSC_SIM_SENSOR_JIF = 1u << 6,   /* /junos/system/linecard/interface: no data */
};
#define FSC_SIM_N_SENSORS 7
/* The data sensors: the low bits, contiguous (fsc_sim_next_sensor). */
#define FSC_SIM_SENSORS_DATA                                                                       \
    (FSC_SIM_SENSOR_IF | FSC_SIM_SENSOR_ETH | FSC_SIM_SENSOR_QOS | FSC_SIM_SENSOR_QMON |           \
     FSC_SIM_SENSOR_FEC | FSC_SIM_SENSOR_SPEED)
/* The sensors a target serves: everything but qmon-sw on Junos OS Evolved. */
#define FSC_SIM_SENSORS_SERVED(cfg) ((cfg)->junos_os ? ~0u : ~(unsigned)FSC_SIM_SENSOR_QMON)

/* The first data sensor of `sensors` after `after` (0 = from the start) in
 * wrap order, or 0 when none is left. Thread: any. */
unsigned fsc_sim_next_sensor(unsigned sensors, unsigned after);

/* Bit index (0 .. FSC_SIM_N_SENSORS-1) of one FSC_SIM_SENSOR_* bit. */
int fsc_sim_sensor_index(unsigned sensor);

/* What one message is about: everything the encoder needs. */
struct fsc_sim_msg_meta {
    const char *system_id;
    const char *subscribed_path;
    unsigned sensor; /* one FSC_SIM_SENSOR_* */
    uint32_t port;
    uint32_t queues;
    uint64_t sequence;
    int64_t payload_ms, epoch_ms, export_ms;
    int64_t clock_ahead_ms; /* added to the three times above as sent */
    int eom;                /* last message of one full wrap (--junos-cadence: of one batch) */
    int zero_suppress;      /* leave out leaves whose value is 0 */
};

/* Serializes a SubscribeResponse with one Notification for meta->port and
 * the Junos header extension into a malloc'd buffer (*out, *len). Returns 0
 * or -ENOMEM. Thread: any. */
int fsc_sim_msg_update(const struct fsc_sim_msg_meta *meta, const struct fsc_sim_port_values *v,
                       uint8_t **out, size_t *len);

/* Serializes SubscribeResponse{sync_response = true}. Returns 0 or -ENOMEM. */
int fsc_sim_msg_sync(uint8_t **out, size_t *len);

/* Serializes the CapabilityResponse. Returns 0 or -ENOMEM. */
int fsc_sim_msg_capabilities(uint8_t **out, size_t *len);

/* Parsed SubscribeRequest. */
struct fsc_sim_request {
    int mode;     /* 0 STREAM, 1 ONCE, 2 POLL */
    int encoding; /* gnmi.Encoding */
    int updates_only;
    unsigned sensors;    /* FSC_SIM_SENSOR_* union */
    int64_t interval_ms; /* smallest non-zero sample_interval, 0 = none given */
    char path[128];      /* first subscription path as text (header subscribed_path) */
};

/* Parses a SubscribeRequest; `served` (FSC_SIM_SENSORS_SERVED) are the
 * sensors this target has. Returns 0, or -EBADMSG with a sentence in err
 * (not a subscribe request, no subscription, a path that selects no served
 * sensor). */
int fsc_sim_request_parse(const uint8_t *buf, size_t len, unsigned served,
                          struct fsc_sim_request *req, char *err, size_t errlen);

/* Runs the targets until the duration ends. Prints `listening port=N` on
 * stdout once bound (with several targets, one line per target:
 * `listening port=N target=K system_id=S`, all of them bound and started
 * before the first line). Returns 0, or -1 with a sentence in err. */
int fsc_sim_run(const struct fsc_sim_config *cfg, char *err, size_t errlen);

/* Wall clock, ms since the Unix epoch. */
int64_t fsc_sim_now_ms(void);

#endif
