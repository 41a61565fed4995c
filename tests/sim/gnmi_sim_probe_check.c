/* Known-answer checks of gnmi_sim_probe: the expected counters of --port are
 * computed here from the command line (--rate, --packet-size, --batch-copy,
 * --burst-*, --queues) with the formulas documented in gnmi_sim.h, not with
 * the simulator's model code, so a model change that breaks the documented
 * contract fails the smoke test. */
#include "gnmi_sim_probe.h"

#include <stdlib.h>
#include <string.h>

#define LINE_BYTES_PER_S 50000000000ULL /* 400G */
#define PAUSE_IN_PER_MS  10
#define PAUSE_OUT_PER_MS 4
#define PFC_PRIORITY     "3"       /* the priority the pauses are on */
#define UTIL_PEAK        1000000.0 /* baseline peak = utilization x 1e6 >> queue */

static const struct {
    unsigned sensor;
    const char *name, *streamed;
} sensors[PROBE_SENSORS] = {
    {PROBE_IF, "if", "/interfaces/interface/state/counters/"},
    {PROBE_ETH, "eth", "/interfaces/interface/ethernet/state/counters/"},
    {PROBE_QOS, "qos", "/qos/interfaces/interface/output/queues/"},
    {PROBE_QMON, "qmon", "/junos/system/linecard/qmon-sw/"},
    {PROBE_FEC, "fec", "/state/interfaces/interface/ethernet/counters/"},
    {PROBE_SPEED, "speed", "/interfaces/interface/"},
};

static const char *elem(const Gnmi__Path *pre, size_t i)
{
    return pre && i < pre->n_elem && pre->elem[i]->name ? pre->elem[i]->name : "";
}

static const char *key0(const Gnmi__Path *pre, size_t i)
{
    if (!pre || i >= pre->n_elem || pre->elem[i]->n_key != 1)
        return NULL;
    return pre->elem[i]->key[0]->value;
}

unsigned probe_sensor_of(const Gnmi__Path *prefix, const char **port)
{
    *port = NULL;
    if (strcmp(elem(prefix, 0), "interfaces") == 0) {
        *port = key0(prefix, 1);
        if (prefix->n_elem == 2)
            return PROBE_SPEED; /* updates ethernet/state/port-speed, state/high-speed */
        return strcmp(elem(prefix, 2), "ethernet") == 0 ? PROBE_ETH : PROBE_IF;
    }
    if (strcmp(elem(prefix, 0), "qos") == 0) {
        *port = key0(prefix, 2);
        return PROBE_QOS;
    }
    if (strcmp(elem(prefix, 0), "junos") == 0 && strcmp(elem(prefix, 3), "qmon-sw") == 0) {
        *port = key0(prefix, 3);
        return PROBE_QMON;
    }
    if (strcmp(elem(prefix, 0), "state") == 0 && strcmp(elem(prefix, 3), "ethernet") == 0) {
        *port = key0(prefix, 2);
        return PROBE_FEC;
    }
    return 0;
}

const char *probe_streamed_path(unsigned sensor)
{
    for (int i = 0; i < PROBE_SENSORS; i++)
        if (sensors[i].sensor == sensor)
            return sensors[i].streamed;
    return "";
}

unsigned probe_sensor_updates(unsigned sensor, unsigned queues)
{
    switch (sensor) {
    case PROBE_IF:
        return 16;
    case PROBE_ETH:
        return 3 + 2 * 8; /* and in/out PFC of priorities 0-7 */
    case PROBE_QOS:
        return 6 * queues;
    case PROBE_QMON:
        return 5 * queues;
    case PROBE_FEC:
        return 2;
    default: /* PROBE_SPEED */
        return 3;
    }
}

int probe_sensors_parse(const char *s, unsigned *out)
{
    *out = 0;
    if (strcmp(s, "none") == 0)
        return 0;
    if (strcmp(s, "all") == 0) {
        *out = PROBE_IF | PROBE_ETH | PROBE_QOS | PROBE_QMON | PROBE_FEC | PROBE_SPEED;
        return 0;
    }
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < PROBE_SENSORS && strcmp(sensors[i].name, tok) != 0)
            i++;
        if (i == PROBE_SENSORS)
            return -1;
        *out |= sensors[i].sensor;
    }
    return 0;
}

static uint64_t integral(uint64_t rate, uint64_t ms)
{
    return rate * (ms / 1000) + rate * (ms % 1000) / 1000;
}

static const char *label(const struct fsc_registry *reg, fsc_series_id id, const char *name)
{
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    size_t n = fsc_registry_labels(reg, id, lb, FSC_REGISTRY_MAX_LABELS);
    for (size_t i = 0; i < n && i < FSC_REGISTRY_MAX_LABELS; i++) {
        if (strcmp(lb[i].name, name) == 0)
            return lb[i].value;
    }
    return "";
}

/* What the model says for --port at one value time. */
struct expect {
    uint64_t octets, pkts, burst_ms;
    uint64_t q_octets[8], q_pkts[8];
    unsigned nq;
};

static void expect_at(const struct probe_opts *o, uint64_t e, struct expect *x)
{
    memset(x, 0, sizeof(*x));
    x->octets = integral(o->rate, e);
    if (o->burst_every_ms > 0) {
        /* Bursts fill [k*every, k*every + length), k >= 1, at line rate. */
        uint64_t every = (uint64_t)o->burst_every_ms, blen = (uint64_t)o->burst_length_ms;
        uint64_t n = e / every, r = e % every;
        x->burst_ms = n ? (n - 1) * blen + (r < blen ? r : blen) : 0;
        x->octets += integral(LINE_BYTES_PER_S - o->rate, x->burst_ms);
    }
    x->pkts = x->octets / o->packet_size;
    x->nq = o->queues < 8 ? o->queues : 8;
    uint64_t left = x->octets;
    for (unsigned q = 0; q < x->nq; q++) {
        x->q_octets[q] = q + 1 < x->nq ? x->octets >> (q + 1) : left;
        left -= x->q_octets[q];
        x->q_pkts[q] = x->q_octets[q] / o->packet_size;
    }
}

/* The expected value of sample metric m (labels from the registry), or -1
 * when the probe does not check that metric for this sensor. */
static int want_value(const struct probe *p, unsigned sensor, const struct expect *x, const char *m,
                      fsc_series_id id, uint64_t *want)
{
    if (sensor == PROBE_IF) {
        if (strcmp(m, "fabric_port_rx_bytes_total") == 0 ||
            strcmp(m, "fabric_port_tx_bytes_total") == 0)
            *want = x->octets;
        else if (strcmp(m, "fabric_port_rx_packets_total") == 0)
            *want = x->pkts;
        else
            return -1;
        return 0;
    }
    if (sensor == PROBE_ETH) {
        const char *prio = label(p->reg, id, "priority");
        if (strcmp(m, "fabric_port_rx_pause_frames_total") == 0)
            *want = PAUSE_IN_PER_MS * x->burst_ms;
        else if (strcmp(m, "fabric_port_tx_pause_frames_total") == 0)
            *want = PAUSE_OUT_PER_MS * x->burst_ms;
        else if (strcmp(m, "fabric_port_rx_crc_errors_total") == 0)
            *want = x->pkts / 100000000;
        else if (strcmp(m, "fabric_port_pfc_rx_pause_frames_total") == 0 &&
                 strcmp(prio, PFC_PRIORITY) == 0)
            *want = PAUSE_IN_PER_MS * x->burst_ms;
        else if (strcmp(m, "fabric_port_pfc_tx_pause_frames_total") == 0 &&
                 strcmp(prio, PFC_PRIORITY) == 0)
            *want = PAUSE_OUT_PER_MS * x->burst_ms;
        else
            return -1;
        return 0;
    }
    if (sensor == PROBE_FEC) {
        if (strcmp(m, "fabric_port_fec_corrected_codewords_total") == 0)
            *want = x->octets / 1000000;
        else if (strcmp(m, "fabric_port_fec_uncorrectable_codewords_total") == 0)
            *want = x->octets / 1000000000000ULL;
        else
            return -1;
        return 0;
    }
    if (sensor != PROBE_QOS)
        return -1;
    const char *qs = label(p->reg, id, "queue");
    char *end;
    unsigned long q = strtoul(qs, &end, 10);
    if (!qs[0] || *end || q >= x->nq)
        return -1;
    uint64_t drop = x->q_pkts[q] / 1000000;
    /* Bursts fill every queue (the probe's runs set no --burst-queue) to
     * 12e6 >> queue; a report's window is unknown here, so the levels are
     * checked on runs without bursts only. */
    uint64_t peak = (uint64_t)((double)p->o.rate / (double)LINE_BYTES_PER_S * UTIL_PEAK) >> q;
    if (strcmp(m, "fabric_port_queue_tx_packets_total") == 0)
        *want = x->q_pkts[q];
    else if (strcmp(m, "fabric_port_queue_tx_bytes_total") == 0)
        *want = x->q_octets[q];
    else if (strcmp(m, "fabric_port_queue_dropped_packets_total") == 0)
        *want = drop;
    else if (strcmp(m, "fabric_port_queue_dropped_bytes_total") == 0)
        *want = drop * p->o.packet_size;
    else if (strcmp(m, "fabric_port_queue_peak_bytes") == 0 && p->o.burst_every_ms == 0)
        *want = peak;
    else if (strcmp(m, "fabric_port_queue_avg_bytes") == 0 && p->o.burst_every_ms == 0)
        *want = peak / 2;
    else
        return -1;
    return 0;
}

void probe_check_port(struct probe *p, unsigned sensor, const struct fsc_gnmi_result *res,
                      int64_t payload_ms, int64_t epoch_ms)
{
    if (!(sensor & PROBE_CHECKED))
        return; /* qmon-sw: mapped labels only (counted in on_message); speed: counts */
    int64_t vt = payload_ms;
    if (p->o.batch_copy_ms > 0)
        vt = epoch_ms + (payload_ms - epoch_ms) / p->o.batch_copy_ms * p->o.batch_copy_ms;
    struct expect x;
    expect_at(&p->o, (uint64_t)(vt - epoch_ms), &x);
    unsigned hits = 0;
    for (uint32_t i = 0; i < res->n_samples; i++) {
        const struct fsc_sample *s = &p->smp[i];
        const char *m = fsc_registry_metric(p->reg, s->series);
        uint64_t want;
        if (!m || want_value(p, sensor, &x, m, s->series, &want) != 0)
            continue;
        hits++;
        if (s->v.u != want)
            FAIL(p, "%s port=%s queue=%s value=%llu want=%llu (payload=%lld epoch=%lld)", m,
                 label(p->reg, s->series, "port"), label(p->reg, s->series, "queue"),
                 (unsigned long long)s->v.u, (unsigned long long)want, (long long)payload_ms,
                 (long long)epoch_ms);
        if (s->t_dev_ns != payload_ms * 1000000)
            FAIL(p, "%s t_dev_ns=%lld, header payload ms=%lld", m, (long long)s->t_dev_ns,
                 (long long)payload_ms);
    }
    unsigned want_hits = sensor == PROBE_IF    ? 3
                         : sensor == PROBE_ETH ? 5
                         : sensor == PROBE_FEC ? 2
                                               : (p->o.burst_every_ms == 0 ? 6 : 4) * x.nq;
    if (hits != want_hits)
        FAIL(p, "%s message of the port gave %u of the %u checked series",
             probe_streamed_path(sensor), hits, want_hits);
    p->checked++;
    for (int i = 0; i < PROBE_SENSORS; i++)
        p->checked_by[i] += sensor == (1u << i);
}
