/* Node aggregate RDMA throughput (nic_aggregate.h). */
#include "sources/nic/nic_aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fsc_nic_agg_init(struct fsc_nic_agg *agg, size_t n_ports, int64_t window_ns)
{
    memset(agg, 0, sizeof(*agg));
    if (window_ns <= 0)
        return -EINVAL;
    agg->ports = calloc(n_ports ? n_ports : 1, sizeof(*agg->ports));
    if (!agg->ports)
        return -ENOMEM;
    agg->n_ports = n_ports;
    agg->window_ns = window_ns;
    return 0;
}

void fsc_nic_agg_fini(struct fsc_nic_agg *agg)
{
    free(agg->ports);
    agg->ports = NULL;
    agg->n_ports = 0;
}

void fsc_nic_agg_observe(struct fsc_nic_agg *agg, size_t port, unsigned dir, uint64_t bytes)
{
    if (port >= agg->n_ports || dir >= FSC_NIC_AGG__DIRS)
        return;
    struct fsc_nic_agg_port *p = &agg->ports[port];
    if (p->have[dir]) {
        if (bytes >= p->last[dir])
            agg->sum[dir] += (double)(bytes - p->last[dir]);
        else
            agg->resets++; /* 64-bit counters reset, they do not wrap */
    }
    /* Deltas seen before the first tick belong to no window: the first
     * tick opens the window and drops them (the baseline is what counts). */
    p->last[dir] = bytes;
    p->have[dir] = 1;
}

int fsc_nic_agg_tick(struct fsc_nic_agg *agg, int64_t t_ns, uint64_t capacity_bps,
                     struct fsc_nic_agg_result *out)
{
    if (!agg->started) {
        agg->started = 1;
        agg->t_start = t_ns;
        agg->sum[0] = agg->sum[1] = 0;
        return 0;
    }
    int64_t span = t_ns - agg->t_start;
    if (span < agg->window_ns)
        return 0;
    out->t_start_ns = agg->t_start;
    out->t_end_ns = t_ns;
    for (unsigned d = 0; d < FSC_NIC_AGG__DIRS; d++) {
        out->bits_per_second[d] = agg->sum[d] * 8.0 * 1e9 / (double)span;
        out->efficiency[d] = capacity_bps ? out->bits_per_second[d] / (double)capacity_bps : -1.0;
        agg->sum[d] = 0;
    }
    agg->t_start = t_ns;
    return 1;
}
