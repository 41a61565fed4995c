/* The remote_write exporter's face (plugin/sink.h): started after the
 * sources (it reads the engine, not the bus) and before the Prometheus
 * listener (whose scrapes read its stats); stopped after the sources, so
 * its last reading has everything, with a flush of up to FLUSH_NS. A
 * receiver that cannot be reached is no start-up error: the exporter
 * retries while samples wait in its queue. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "engine/engine_keys.h"
#include "remote_write/remote_write.h"
#include "remote_write/rw_sink.h"

#define FLUSH_NS (10 * 1000000000LL)

static bool rw_enabled(const void *settings)
{
    const struct fsc_remote_write_config *rc = settings;
    return rc->present && rc->enabled;
}

static void *rw_start(const void *settings, const struct fsc_sink_env *env, char *err,
                      size_t errlen)
{
    const struct fsc_remote_write_config *rc = settings;
    const struct fsc_rate_params *rp = &fsc_engine_config_of(env->cfg)->rate;
    const struct fsc_remote_write_options opt = {
        .cfg = rc,
        .reg = env->reg,
        .eng = env->eng,
        .window_ns = rp->n_windows > 0 ? rp->window_ns[0] : 0,
        .rate = rp,
    };
    char rerr[512];
    struct fsc_remote_write *rw = fsc_remote_write_start(&opt, rerr, sizeof(rerr));
    if (!rw) {
        snprintf(err, errlen, "remote_write exporter: %s", rerr);
        return NULL;
    }
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=remote_write url=%s", rc->url);
    return rw;
}

static void rw_stop(void *ctx)
{
    fsc_remote_write_stop(ctx, FLUSH_NS); /* logs remote_write_stopped */
}

/* ---- stats --------------------------------------------------------------------- */

enum { C_SENT, C_FAILED, C_DROPPED, C_RETRIED, C_QUEUE, C_CAPACITY, C_DURATION, C_LAST, C__COUNT };

#define SAMPLES "fabricscope_remote_write_samples"
/* Every result always shown, so that rate() has a series from the start. */
static const struct fsc_stat_col rw_cols[C__COUNT] = {
    [C_SENT] = {.id = "sent",
                .family = SAMPLES,
                .type = FSC_STAT_COUNTER,
                .help = "remote_write samples by result (sent, failed, dropped, retried).",
                .label = "result",
                .label_value = "sent",
                .title = "sent"},
    [C_FAILED] = {.id = "failed",
                  .family = SAMPLES,
                  .type = FSC_STAT_COUNTER,
                  .label = "result",
                  .label_value = "failed",
                  .title = "failed"},
    [C_DROPPED] = {.id = "dropped",
                   .family = SAMPLES,
                   .type = FSC_STAT_COUNTER,
                   .label = "result",
                   .label_value = "dropped",
                   .title = "dropped"},
    [C_RETRIED] = {.id = "retried",
                   .family = SAMPLES,
                   .type = FSC_STAT_COUNTER,
                   .label = "result",
                   .label_value = "retried",
                   .title = "retried"},
    [C_QUEUE] = {.id = "queue_samples",
                 .family = "fabricscope_remote_write_queue_samples",
                 .type = FSC_STAT_GAUGE,
                 .help = "Samples waiting to be sent (queue and the request in flight).",
                 .title = "queued"},
    [C_CAPACITY] = {.id = "queue_capacity",
                    .family = "fabricscope_remote_write_queue_capacity",
                    .type = FSC_STAT_GAUGE,
                    .help = "Samples the queue holds before the oldest are dropped (queue_max).",
                    .title = "capacity"},
    [C_DURATION] = {.id = "request_duration_seconds",
                    .family = "fabricscope_remote_write_request_duration_seconds",
                    .type = FSC_STAT_HISTOGRAM,
                    .help = "Duration of remote_write requests, seconds."},
    [C_LAST] = {.id = "last_success_timestamp_seconds",
                .family = "fabricscope_remote_write_last_success_timestamp_seconds",
                .type = FSC_STAT_GAUGE,
                .help = "Unix time of the last request the receiver accepted (0: none yet).",
                .title = "last success",
                .unit = FSC_STAT_TIME_S},
};

static const struct fsc_stat_table rw_table = {
    .id = "remote_write",
    .title = "remote_write",
    .empty = "no remote_write exporter",
    .keys = {NULL},
    .cols = rw_cols,
    .n_cols = C__COUNT,
};

static const struct fsc_stat_col code_cols[] = {
    {.id = "requests",
     .family = "fabricscope_remote_write_requests",
     .type = FSC_STAT_COUNTER,
     .help = "remote_write requests by HTTP status (error: no response).",
     .title = "requests"},
};

static const struct fsc_stat_table code_table = {
    .id = "remote_write_requests",
    .title = "remote_write requests",
    .empty = "no request sent yet",
    .keys = {"code", NULL},
    .cols = code_cols,
    .n_cols = 1,
};

static const struct fsc_stat_table *const rw_tables[] = {&rw_table, &code_table, NULL};

static void rw_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct fsc_remote_write_stats st;
    fsc_remote_write_stats(ctx, &st);
    const double v[C__COUNT] = {
        [C_SENT] = (double)st.sent,           [C_FAILED] = (double)st.failed,
        [C_DROPPED] = (double)st.dropped,     [C_RETRIED] = (double)st.retried,
        [C_QUEUE] = (double)st.queue_samples, [C_CAPACITY] = (double)st.queue_capacity,
        [C_LAST] = st.last_success_s,
    };
    const struct fsc_stat_hist h = {.n = FSC_RW_DURATION_BUCKETS,
                                    .le = fsc_rw_duration_le,
                                    .bucket = st.duration_bucket,
                                    .sum = st.duration_sum};
    fsc_stats_row(out, &rw_table, NULL, v, &h);
    size_t n = st.n_codes < FSC_RW_MAX_CODES + 2 ? st.n_codes : FSC_RW_MAX_CODES + 2;
    for (size_t i = 0; i < n; i++) {
        char code[sizeof(st.codes[i].code)];
        memcpy(code, st.codes[i].code, sizeof(code));
        code[sizeof(code) - 1] = '\0';
        const char *keys[] = {code};
        const double r[1] = {(double)st.codes[i].requests};
        fsc_stats_row(out, &code_table, keys, r, NULL);
    }
}

const struct fsc_sink_ops fsc_remote_write_sink_ops = {
    .config = &fsc_remote_write_kind,
    .phase = FSC_SINK_LATE,
    .required = true,
    .enabled = rw_enabled,
    .start = rw_start,
    .stop = rw_stop,
    .stat_tables = rw_tables,
    .stats = rw_stats,
};
