/* What a listener's admission control closed or refused, and what it holds
 * open, exported as fabricscope_listener_closed_total{listener, reason} and
 * fabricscope_listener_open{listener}, so shedding and deadlines are seen
 * in metrics, not only in log lines.
 *
 * One row per listener, named as in its log lines: "prometheus",
 * "otlp/http:<source>", "otlp/grpc:<source>". The HTTP listeners fill the
 * watch's counters (net/http_watch.h), the gRPC receiver its call
 * admission's (otlp_grpc.c); a reason a listener does not have is left out
 * of its row, not shown as 0. */
#ifndef FSC_ADMIT_STATS_H
#define FSC_ADMIT_STATS_H

#include <stdint.h>

#include "base/stats.h"

/* A count that does not apply to a listener. */
#define FSC_ADMIT_NA UINT64_MAX

struct fsc_admit_stats {
    int present;                  /* 0: no listener (no row) */
    uint64_t header_timeout;      /* HTTP: no complete request header in time */
    uint64_t body_too_slow;       /* HTTP: a body slower than the minimum rate */
    uint64_t shed;                /* idle connections (HTTP) or calls still waiting for their
                                   * message (gRPC) closed to make room */
    uint64_t message_timeout;     /* gRPC: no request message in time */
    uint64_t refused_per_address; /* a connection or call over the per-address cap, none of
                                   * that address's idle */
    uint64_t reset_flood;         /* gRPC: connections closed for streams or calls ending
                                   * without a message over the per-connection budget */
    uint64_t open;                /* HTTP: connections open now; FSC_ADMIT_NA when unknown */
};

/* All counts FSC_ADMIT_NA, present 1: fill in what the listener has. */
void fsc_admit_stats_init(struct fsc_admit_stats *st);

/* The table (keys: listener) a component lists in its stat tables. */
extern const struct fsc_stat_table fsc_admit_stat_table;

/* Writes listener's row (nothing when !st->present). */
void fsc_admit_stat_row(const struct fsc_stats_out *out, const char *listener,
                        const struct fsc_admit_stats *st);

#endif
