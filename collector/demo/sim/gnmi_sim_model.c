/* Deterministic counter model of the simulator (see gnmi_sim.h for the
 * formulas). Integer arithmetic only, so a test that knows the CLI arguments
 * computes the same numbers bit for bit. */
#include "demo/sim/gnmi_sim.h"

#include <string.h>
#include <time.h>

void fsc_sim_config_defaults(struct fsc_sim_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->listen = "127.0.0.1:0";
    cfg->system_id = "qfx5240-sim:127.0.0.1";
    cfg->ports = 128;
    cfg->queues = 4;
    cfg->packet_size = 4096;
    cfg->interval_ms = 1000;
    cfg->utilization = 0.3;
    cfg->burst_port = -1;
    cfg->burst_queue = -1;
    cfg->burst_peak_bytes = 12000000;
    cfg->duration_ms = 30000;
    cfg->seed = 1;
    cfg->targets = 1;
}

int64_t fsc_sim_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t fsc_sim_base_rate(const struct fsc_sim_config *cfg)
{
    return (uint64_t)(cfg->utilization * (double)(FSC_SIM_LINE_BPS / 8));
}

int64_t fsc_sim_epoch(const struct fsc_sim_config *cfg, int64_t start_ms, int64_t t_ms)
{
    if (cfg->reset_after_ms <= 0 || t_ms <= start_ms)
        return start_ms;
    return start_ms + (t_ms - start_ms) / cfg->reset_after_ms * cfg->reset_after_ms;
}

int64_t fsc_sim_value_time(const struct fsc_sim_config *cfg, int64_t epoch_ms, int64_t t_ms)
{
    if (t_ms < epoch_ms)
        return epoch_ms;
    if (cfg->batch_copy_ms <= 0)
        return t_ms;
    /* Before the first copy of the epoch: what the epoch started with. */
    int64_t first = epoch_ms + cfg->batch_copy_phase_ms % cfg->batch_copy_ms;
    if (t_ms < first)
        return epoch_ms;
    return first + (t_ms - first) / cfg->batch_copy_ms * cfg->batch_copy_ms;
}

/* floor(rate * ms / 1000) without a 128-bit product: rate <= 5e10 and
 * ms % 1000 < 1000 keep both terms far below 2^64. */
static uint64_t integral(uint64_t rate, uint64_t ms)
{
    return rate * (ms / 1000) + rate * (ms % 1000) / 1000;
}

/* Time (ms) spent in bursts during [0, e): bursts are [k*every, k*every+len)
 * for k >= 1, so a stream that starts at the epoch sees a quiet baseline. */
static uint64_t burst_overlap(const struct fsc_sim_config *cfg, uint64_t e)
{
    uint64_t every = (uint64_t)cfg->burst_every_ms, len = (uint64_t)cfg->burst_length_ms;
    if (every == 0 || len == 0)
        return 0;
    if (len > every)
        len = every;
    uint64_t n = e / every, r = e % every;
    if (n == 0)
        return 0;
    return (n - 1) * len + (r < len ? r : len);
}

/* 1 when a burst overlaps the epoch offsets [a, b): the last burst that
 * starts before b is the one that ends latest (bursts are disjoint and in
 * order), so it alone decides. */
static int burst_within(const struct fsc_sim_config *cfg, uint64_t a, uint64_t b)
{
    if (cfg->burst_every_ms <= 0 || cfg->burst_length_ms <= 0 || b == 0 || b <= a)
        return 0;
    uint64_t every = (uint64_t)cfg->burst_every_ms, len = (uint64_t)cfg->burst_length_ms;
    uint64_t k = (b - 1) / every;
    return k >= 1 && k * every + len > a;
}

void fsc_sim_queue_peaks(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                         int64_t from_ms, int64_t to_ms, uint64_t peaks[FSC_SIM_MAX_QUEUES])
{
    uint64_t a = from_ms > epoch_ms ? (uint64_t)(from_ms - epoch_ms) : 0;
    uint64_t b = to_ms > epoch_ms ? (uint64_t)(to_ms - epoch_ms) : 0;
    int burst =
        cfg->burst_port >= 0 && (uint32_t)cfg->burst_port == port && burst_within(cfg, a, b);
    uint64_t base = (uint64_t)(cfg->utilization * 1000000.0);
    uint32_t nq = cfg->queues < FSC_SIM_MAX_QUEUES ? cfg->queues : FSC_SIM_MAX_QUEUES;
    for (uint32_t q = 0; q < FSC_SIM_MAX_QUEUES; q++) {
        uint64_t v = base >> q;
        if (q >= nq)
            v = 0;
        else if (burst && cfg->burst_queue < 0)
            v = cfg->burst_peak_bytes >> q; /* every queue fills, the lower ones most */
        else if (burst && (uint32_t)cfg->burst_queue == q)
            v = cfg->burst_peak_bytes; /* the burst's traffic class alone */
        peaks[q] = v;
    }
}

void fsc_sim_queue_levels(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                          int64_t from_ms, int64_t to_ms, struct fsc_sim_port_values *v)
{
    fsc_sim_queue_peaks(cfg, port, epoch_ms, from_ms, to_ms, v->q_peak_bytes);
    for (uint32_t q = 0; q < FSC_SIM_MAX_QUEUES; q++)
        v->q_avg_bytes[q] = v->q_peak_bytes[q] / 2;
}

void fsc_sim_peak_window(int64_t *from, int64_t *to, int64_t epoch_ms, int64_t vt_ms,
                         int64_t interval_ms)
{
    if (*to != 0 && vt_ms <= *to && *from >= epoch_ms)
        return; /* the same copy again: the same window, the same peak */
    int64_t f = *to != 0 && *to >= epoch_ms ? *to : vt_ms - interval_ms;
    *from = f > epoch_ms ? f : epoch_ms;
    *to = vt_ms;
}

void fsc_sim_port_values(const struct fsc_sim_config *cfg, uint32_t port, int64_t epoch_ms,
                         int64_t t_ms, struct fsc_sim_port_values *out)
{
    memset(out, 0, sizeof(*out));
    uint64_t e = t_ms > epoch_ms ? (uint64_t)(t_ms - epoch_ms) : 0;
    uint64_t base = fsc_sim_base_rate(cfg);
    uint64_t octets = integral(base, e);
    uint64_t burst_ms = 0; /* B of the formulas in gnmi_sim.h */
    if (cfg->burst_port >= 0 && (uint32_t)cfg->burst_port == port) {
        uint64_t line = FSC_SIM_LINE_BPS / 8;
        burst_ms = burst_overlap(cfg, e);
        octets += integral(line > base ? line - base : 0, burst_ms);
    }
    uint64_t psize = cfg->packet_size ? cfg->packet_size : 1;
    out->in_octets = out->out_octets = octets;
    out->in_pkts = out->out_pkts = octets / psize;
    out->in_discards = out->out_discards = out->in_pkts / 1000000;
    out->in_errors = out->out_errors = out->in_pkts / 100000000;
    out->in_pause = FSC_SIM_PAUSE_IN_PER_MS * burst_ms;
    out->out_pause = FSC_SIM_PAUSE_OUT_PER_MS * burst_ms;
    out->in_pfc[FSC_SIM_PFC_PRIORITY] = out->in_pause; /* the pauses are PFC on one class */
    out->out_pfc[FSC_SIM_PFC_PRIORITY] = out->out_pause;
    out->crc_errors = out->in_errors;
    out->fec_corrected_words = octets / 1000000;
    out->fec_uncorrectable_words = octets / 1000000000000ULL;

    /* Egress split over the queues: queue k gets 1/2^(k+1), the last one the
     * rest, so the queue counters sum to out-octets exactly. */
    uint32_t nq = cfg->queues < FSC_SIM_MAX_QUEUES ? cfg->queues : FSC_SIM_MAX_QUEUES;
    uint64_t left = octets;
    for (uint32_t q = 0; q < nq; q++) {
        uint64_t share = q + 1 < nq ? octets >> (q + 1) : left;
        left -= share;
        out->q_octets[q] = share;
        out->q_pkts[q] = share / psize;
        out->q_drop_pkts[q] = out->q_pkts[q] / 1000000;
        out->q_drop_octets[q] = out->q_drop_pkts[q] * psize;
    }
    /* The levels of the instant [t, t + 1 ms); a stream reports those of its
     * interval instead (fsc_sim_queue_levels). */
    fsc_sim_queue_levels(cfg, port, epoch_ms, t_ms, t_ms + 1, out);
}
