/* gnmi_sim_probe internals shared by gnmi_sim_probe.c (the gRPC client and
 * the command line) and gnmi_sim_probe_check.c (the known-answer checks). */
#ifndef FSC_GNMI_SIM_PROBE_H
#define FSC_GNMI_SIM_PROBE_H

#include <stdint.h>
#include <stdio.h>

#include "model/registry.h"
#include "gnmi.pb-c.h"
#include "sources/gnmi/gnmi_decode.h"

/* Sensors as the probe names them (bit order = the simulator's wrap order). */
enum {
    PROBE_IF = 1u << 0,    /* /interfaces/interface/state/counters */
    PROBE_ETH = 1u << 1,   /* /interfaces/interface/ethernet/state/counters */
    PROBE_QOS = 1u << 2,   /* /qos/interfaces/interface/output/queues */
    PROBE_QMON = 1u << 3,  /* /junos/system/linecard/qmon-sw (gnmi_sim --os junos) */
    PROBE_FEC = 1u << 4,   /* /state/interfaces/interface/ethernet/counters */
    PROBE_SPEED = 1u << 5, /* port-speed, negotiated-port-speed, high-speed */
};
#define PROBE_SENSORS 6
/* Sensors whose every update is a number (one sample each); the speed
 * strings are the gNMI source's business, not a sample of the decoder. */
#define PROBE_NUMERIC (PROBE_IF | PROBE_ETH | PROBE_QOS | PROBE_QMON | PROBE_FEC)
/* Sensors whose values the probe knows (probe_check_port). */
#define PROBE_CHECKED (PROBE_IF | PROBE_ETH | PROBE_QOS | PROBE_FEC)

struct probe_opts {
    const char *target, *path, *username, *password, *tls_ca, *tls_cert, *tls_key;
    unsigned ports, port, queues, packet_size, updates;
    unsigned sensors;        /* PROBE_* the subscription must yield in the dump */
    unsigned long long rate; /* bytes/s outside bursts */
    long long interval_ms, batch_copy_ms, timeout_ms;
    long long burst_every_ms, burst_length_ms; /* bursts on --port (line rate) */
    int expect_status;                         /* -1: expect a healthy stream */
    int expect_reset;                          /* at least one FSC_SMP_RESET sample */
    int capabilities;
    int once; /* mode ONCE: dump, sync_response, then status OK from the target */
};

struct probe {
    struct probe_opts o;
    struct fsc_registry *reg;
    struct fsc_gnmi_decoder *dec;
    struct fsc_sample smp[128];
    unsigned dump, updates, resets, sync_seen;
    unsigned dump_sensors;              /* PROBE_* seen before the sync_response */
    unsigned checked;                   /* messages of --port checked (any sensor) */
    unsigned checked_by[PROBE_SENSORS]; /* ... per sensor */
    unsigned qmon_mapped; /* qmon-sw samples the junos profile mapped, with port + queue */
    int failed;
};

#define FAIL(p, ...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "probe: FAIL: " __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                                       \
        (p)->failed = 1;                                                                           \
    } while (0)

/* The PROBE_* sensor of a notification prefix (0 when unknown) and the
 * interface its port key names (*port, NULL when absent). */
unsigned probe_sensor_of(const Gnmi__Path *prefix, const char **port);

/* The streamed_path a sensor's Junos header must carry. */
const char *probe_streamed_path(unsigned sensor);

/* Update entries one message of `sensor` carries. */
unsigned probe_sensor_updates(unsigned sensor, unsigned queues);

/* Parses "if,eth,qos,qmon,fec,speed" / "all" / "none" into PROBE_* bits;
 * -1 on error. */
int probe_sensors_parse(const char *s, unsigned *out);

/* Known-answer check of one message of --port: every value the probe knows
 * (interfaces: bytes and rx packets; ethernet: the 3 leaves and priority 3's
 * PFC counters; qos: the 4 counters of every queue and its baseline peak and
 * average; fec: both words) against the formulas of gnmi_sim.h computed from
 * the command line, and the sample time against the header. */
void probe_check_port(struct probe *p, unsigned sensor, const struct fsc_gnmi_result *res,
                      int64_t payload_ms, int64_t epoch_ms);

#endif
