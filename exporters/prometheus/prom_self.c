/* fabricscope_ self-metrics (docs/METRICS.md, in its order): build, source
 * health, the engine's counters, the registry's per-source counts, the
 * previous scrape's cost, then the streams, receivers, Kafka and remote_write
 * exporters, listener refusals and the rollup store the daemon reports
 * through its callbacks. A few dozen lines per scrape, so clarity wins
 * over speed here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

enum self_family {
    S_BUILD = 0,
    S_UP,
    S_SAMPLES,
    S_VERDICTS,
    S_WRAPS,
    S_GAPS,
    S_ARRIVAL,
    S_UNKNOWN_SERIES,
    S_INTERVAL,
    S_SERIES,
    S_LIMIT,
    S_DROPPED,
    S_REJECTED,
    S_EVENTS,
    S_RESETS_SUPPRESSED,
    S_SCRAPE_DURATION,
    S_SCRAPE_SERIES,
    S_SCRAPE_BYTES,
    S_GNMI_UP,
    S_GNMI_AGE,
    S_GNMI_CADENCE,
    S_GNMI_JITTER,
    S_GNMI_MESSAGES,
    S_GNMI_UPDATES,
    S_GNMI_DECODE_ERRORS,
    S_GNMI_SEQ_GAPS,
    S_GNMI_RECONNECTS,
    S_GNMI_RESUBSCRIBES,
    S_OTLP_REQUESTS,
    S_OTLP_BYTES,
    S_OTLP_POINTS,
    S_OTLP_REJECTED,
    S_OTLP_SKIPPED,
    S_KAFKA_QUEUED,
    S_KAFKA_DELIVERED,
    S_KAFKA_FAILED,
    S_KAFKA_RETRIES,
    S_KAFKA_SPOOLED,
    S_KAFKA_DROPPED,
    S_KAFKA_SPOOL_CORRUPT,
    S_KAFKA_SPOOL_IO_ERRORS,
    S_KAFKA_RESTARTS,
    S_KAFKA_QUEUE_MESSAGES,
    S_KAFKA_QUEUE_BYTES,
    S_KAFKA_SPOOL_RECORDS,
    S_KAFKA_SPOOL_BYTES,
    S_KAFKA_BROKER_UP,
    S_RW_SAMPLES,
    S_RW_QUEUE,
    S_RW_CAPACITY,
    S_RW_REQUESTS,
    S_RW_DURATION,
    S_RW_LAST_SUCCESS,
    S_AUTH_FAILURES,
    S_ROLLUP_RECORDS,
    S_ROLLUP_WRITE_ERRORS,
    S_ROLLUP_TORN,
    S_ROLLUP_SERIES_DROPPED,
    S__COUNT
};

/* Streams shown per scrape at most (a few per device). */
#define MAX_STREAMS 1024
/* Receiver transports shown per scrape at most (two per otlp source). */
#define MAX_RECEIVERS 64
/* Listeners shown per scrape at most (Prometheus, one per OTLP transport). */
#define MAX_LISTENERS 65

static const struct fsc_prom_fdesc self_desc[S__COUNT] = {
    [S_BUILD] = {"fabricscope_build_info", "fabricscope_build_info", "gauge",
                 "Always 1; the version label tells which fabricscope runs."},
    [S_UP] = {"fabricscope_up", "fabricscope_up", "gauge",
              "1 while the source is running and healthy."},
    [S_SAMPLES] = {"fabricscope_samples", "fabricscope_samples_total", "counter",
                   "Samples given to the engine."},
    [S_VERDICTS] = {"fabricscope_sample_verdicts", "fabricscope_sample_verdicts_total", "counter",
                    "What the rate engine did with each sample."},
    [S_WRAPS] = {"fabricscope_wraps", "fabricscope_wraps_total", "counter",
                 "32-bit counter wraps unwound."},
    [S_GAPS] = {"fabricscope_gaps", "fabricscope_gaps_total", "counter",
                "Intervals longer than max_gap."},
    [S_ARRIVAL] = {"fabricscope_arrival_time_samples", "fabricscope_arrival_time_samples_total",
                   "counter", "Samples without a device timestamp."},
    [S_UNKNOWN_SERIES] = {"fabricscope_unknown_series_samples",
                          "fabricscope_unknown_series_samples_total", "counter",
                          "Samples the engine dropped: series id beyond max_series, or no memory "
                          "for its state."},
    [S_INTERVAL] = {"fabricscope_sample_interval_ratio", "fabricscope_sample_interval_ratio",
                    "histogram", "Observed sample interval divided by the nominal interval."},
    [S_SERIES] = {"fabricscope_series", "fabricscope_series", "gauge", "Series known, per source."},
    [S_LIMIT] = {"fabricscope_series_limit", "fabricscope_series_limit", "gauge",
                 "Per-source series limit."},
    [S_DROPPED] = {"fabricscope_series_dropped", "fabricscope_series_dropped_total", "counter",
                   "Series refused by a series limit."},
    [S_REJECTED] = {"fabricscope_series_rejected", "fabricscope_series_rejected_total", "counter",
                    "Series refused as invalid."},
    [S_EVENTS] = {"fabricscope_events", "fabricscope_events_total", "counter",
                  "Detector events published (START and instant)."},
    [S_RESETS_SUPPRESSED] = {"fabricscope_reset_events_suppressed",
                             "fabricscope_reset_events_suppressed_total", "counter",
                             "Counter resets without a counter_reset event (rate-limited)."},
    [S_SCRAPE_DURATION] = {"fabricscope_scrape_duration_seconds",
                           "fabricscope_scrape_duration_seconds", "gauge",
                           "Time the previous scrape took to render, seconds."},
    [S_SCRAPE_SERIES] = {"fabricscope_scrape_series", "fabricscope_scrape_series", "gauge",
                         "Sample lines in the previous scrape."},
    [S_SCRAPE_BYTES] = {"fabricscope_scrape_bytes", "fabricscope_scrape_bytes", "gauge",
                        "Bytes of the previous scrape body before compression."},
    [S_GNMI_UP] = {"fabricscope_gnmi_stream_up", "fabricscope_gnmi_stream_up", "gauge",
                   "1 while the gNMI subscription stream is streaming."},
    [S_GNMI_AGE] = {"fabricscope_gnmi_last_update_age_seconds",
                    "fabricscope_gnmi_last_update_age_seconds", "gauge",
                    "Seconds since the stream's last response (absent before the first)."},
    [S_GNMI_CADENCE] = {"fabricscope_gnmi_stream_cadence_seconds",
                        "fabricscope_gnmi_stream_cadence_seconds", "gauge",
                        "Observed device-time interval between messages about the same "
                        "series (EWMA over ~64 intervals)."},
    [S_GNMI_JITTER] = {"fabricscope_gnmi_stream_jitter_seconds",
                       "fabricscope_gnmi_stream_jitter_seconds", "gauge",
                       "Mean absolute deviation of those intervals from the observed cadence."},
    [S_GNMI_MESSAGES] = {"fabricscope_gnmi_messages", "fabricscope_gnmi_messages_total", "counter",
                         "SubscribeResponses received."},
    [S_GNMI_UPDATES] = {"fabricscope_gnmi_updates", "fabricscope_gnmi_updates_total", "counter",
                        "Update entries received."},
    [S_GNMI_DECODE_ERRORS] = {"fabricscope_gnmi_decode_errors",
                              "fabricscope_gnmi_decode_errors_total", "counter",
                              "Malformed responses."},
    [S_GNMI_SEQ_GAPS] = {"fabricscope_gnmi_sequence_gaps", "fabricscope_gnmi_sequence_gaps_total",
                         "counter", "Junos telemetry header sequence gaps (lost messages)."},
    [S_GNMI_RECONNECTS] = {"fabricscope_gnmi_reconnects", "fabricscope_gnmi_reconnects_total",
                           "counter", "Calls that failed and were retried after backoff."},
    [S_GNMI_RESUBSCRIBES] = {"fabricscope_gnmi_resubscribes", "fabricscope_gnmi_resubscribes_total",
                             "counter", "Calls cancelled for silence and subscribed again."},
    [S_OTLP_REQUESTS] = {"fabricscope_otlp_requests", "fabricscope_otlp_requests_total", "counter",
                         "OTLP export requests answered, by outcome."},
    [S_OTLP_BYTES] = {"fabricscope_otlp_received_bytes", "fabricscope_otlp_received_bytes_total",
                      "counter", "OTLP request bytes received on the wire (before gzip)."},
    [S_OTLP_POINTS] = {"fabricscope_otlp_points", "fabricscope_otlp_points_total", "counter",
                       "OTLP data points in decoded requests."},
    [S_OTLP_REJECTED] = {"fabricscope_otlp_rejected_points",
                         "fabricscope_otlp_rejected_points_total", "counter",
                         "OTLP data points refused (partial success)."},
    [S_OTLP_SKIPPED] = {"fabricscope_otlp_skipped_points", "fabricscope_otlp_skipped_points_total",
                        "counter",
                        "OTLP data points neither accepted nor refused, by reason (other_shard: "
                        "another shard's device; no_recorded_value: staleness marker)."},
    [S_KAFKA_QUEUED] = {"fabricscope_kafka_messages_queued",
                        "fabricscope_kafka_messages_queued_total", "counter",
                        "Events the Kafka exporter took in (spooled or queued)."},
    [S_KAFKA_DELIVERED] = {"fabricscope_kafka_messages_delivered",
                           "fabricscope_kafka_messages_delivered_total", "counter",
                           "Messages the brokers acknowledged."},
    [S_KAFKA_FAILED] = {"fabricscope_kafka_delivery_failures",
                        "fabricscope_kafka_delivery_failures_total", "counter",
                        "Delivery attempts that failed (each failed retry counts)."},
    [S_KAFKA_RETRIES] = {"fabricscope_kafka_retries", "fabricscope_kafka_retries_total", "counter",
                         "Messages handed to the producer again after a failed attempt."},
    [S_KAFKA_SPOOLED] = {"fabricscope_kafka_spooled", "fabricscope_kafka_spooled_total", "counter",
                         "Events that waited in the on-disk spool."},
    [S_KAFKA_DROPPED] = {"fabricscope_kafka_dropped", "fabricscope_kafka_dropped_total", "counter",
                         "Events lost before delivery, by reason."},
    [S_KAFKA_SPOOL_CORRUPT] = {"fabricscope_kafka_spool_corrupt_records",
                               "fabricscope_kafka_spool_corrupt_records_total", "counter",
                               "Damaged spool records found at start (each ended its segment)."},
    [S_KAFKA_SPOOL_IO_ERRORS] = {"fabricscope_kafka_spool_io_errors",
                                 "fabricscope_kafka_spool_io_errors_total", "counter",
                                 "Spool writes, fsyncs or unlinks that failed."},
    [S_KAFKA_RESTARTS] = {"fabricscope_kafka_producer_restarts",
                          "fabricscope_kafka_producer_restarts_total", "counter",
                          "Producers re-created after a fatal librdkafka error."},
    [S_KAFKA_QUEUE_MESSAGES] = {"fabricscope_kafka_queue_messages",
                                "fabricscope_kafka_queue_messages", "gauge",
                                "Messages inside the producer, not yet acknowledged."},
    [S_KAFKA_QUEUE_BYTES] = {"fabricscope_kafka_queue_bytes", "fabricscope_kafka_queue_bytes",
                             "gauge", "Payload and key bytes of those messages."},
    [S_KAFKA_SPOOL_RECORDS] = {"fabricscope_kafka_spool_records", "fabricscope_kafka_spool_records",
                               "gauge", "Events in the on-disk spool, not yet delivered."},
    [S_KAFKA_SPOOL_BYTES] = {"fabricscope_kafka_spool_bytes", "fabricscope_kafka_spool_bytes",
                             "gauge", "Bytes of those events on disk."},
    [S_KAFKA_BROKER_UP] = {"fabricscope_kafka_broker_up", "fabricscope_kafka_broker_up", "gauge",
                           "1 while the producer has a connection to a broker."},
    [S_RW_SAMPLES] = {"fabricscope_remote_write_samples", "fabricscope_remote_write_samples_total",
                      "counter",
                      "remote_write samples by result (sent, failed, dropped, retried)."},
    [S_RW_QUEUE] = {"fabricscope_remote_write_queue_samples",
                    "fabricscope_remote_write_queue_samples", "gauge",
                    "Samples waiting to be sent (queue and the request in flight)."},
    [S_RW_CAPACITY] = {"fabricscope_remote_write_queue_capacity",
                       "fabricscope_remote_write_queue_capacity", "gauge",
                       "Samples the queue holds before the oldest are dropped (queue_max)."},
    [S_RW_REQUESTS] = {"fabricscope_remote_write_requests",
                       "fabricscope_remote_write_requests_total", "counter",
                       "remote_write requests by HTTP status (error: no response)."},
    [S_RW_DURATION] = {"fabricscope_remote_write_request_duration_seconds",
                       "fabricscope_remote_write_request_duration_seconds", "histogram",
                       "Duration of remote_write requests, seconds."},
    [S_RW_LAST_SUCCESS] = {"fabricscope_remote_write_last_success_timestamp_seconds",
                           "fabricscope_remote_write_last_success_timestamp_seconds", "gauge",
                           "Unix time of the last request the receiver accepted (0: none yet)."},
    [S_AUTH_FAILURES] = {"fabricscope_listener_auth_failures",
                         "fabricscope_listener_auth_failures_total", "counter",
                         "Requests a listener refused (401, 403), by reason."},
    [S_ROLLUP_RECORDS] = {"fabricscope_rollup_records", "fabricscope_rollup_records_total",
                          "counter", "Rollup store records, by result (written, dropped)."},
    [S_ROLLUP_WRITE_ERRORS] = {"fabricscope_rollup_write_errors",
                               "fabricscope_rollup_write_errors_total", "counter",
                               "Rollup store write, sync or open calls that failed."},
    [S_ROLLUP_TORN] = {"fabricscope_rollup_torn_records", "fabricscope_rollup_torn_records_total",
                       "counter", "Torn last records cut when a rollup day file was reopened."},
    [S_ROLLUP_SERIES_DROPPED] =
        {"fabricscope_rollup_series_dropped", "fabricscope_rollup_series_dropped_total", "counter",
         "Series the rollup could not track (over its limit or unlabelled)."},
};

static void line_num(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, const char *num, size_t len)
{
    const char *name = self_desc[s].sample;
    fsc_prom_sample(&r->w, out, name, strlen(name), "", 0, "", 0, ex, n_ex, num, len);
}

static void line_u64(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, uint64_t v)
{
    char num[FSC_NUM_MAX];
    line_num(r, out, s, ex, n_ex, num, fsc_fmt_u64(num, v));
}

static void line_f64(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, double v)
{
    char num[FSC_NUM_MAX];
    line_num(r, out, s, ex, n_ex, num, fsc_prom_fmt_double(num, v));
}

static struct fsc_prom_label lbl(const char *name, const char *value)
{
    return (struct fsc_prom_label){name, strlen(name), value, strlen(value)};
}

static void header(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s)
{
    fsc_prom_family_header(r, out, &self_desc[s]);
}

/* Health of every configured source, disabled ones as 0. */
static void self_up(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_config *cfg = r->env.cfg;
    if (cfg->n_sources == 0)
        return;
    header(r, out, S_UP);
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *sc = &cfg->sources[i];
        int up = 0;
        if (sc->enabled)
            up = r->env.source_up ? r->env.source_up(r->env.source_up_arg, i) != 0 : 1;
        struct fsc_prom_label ex[2] = {lbl("source", sc->name),
                                       lbl("type", fsc_source_type_name(sc->type))};
        line_u64(r, out, S_UP, ex, 2, (uint64_t)up);
    }
}

/* Registry counts per source: one family at a time, so each stays
 * contiguous. */
static void self_sources(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    uint16_t n = fsc_registry_source_count(r->env.reg);
    if (n == 0)
        return;
    for (enum self_family s = S_SERIES; s <= S_REJECTED; s++) {
        int headed = 0;
        for (uint16_t i = 0; i < n; i++) {
            struct fsc_registry_source_stats st;
            if (fsc_registry_source_stats(r->env.reg, i, &st) != 0)
                continue;
            if (s == S_LIMIT && st.limit == 0)
                continue; /* no limit: nothing to show */
            if (!headed) {
                header(r, out, s);
                headed = 1;
            }
            struct fsc_prom_label ex[1] = {lbl("source", st.name)};
            uint64_t v = s == S_SERIES    ? st.series
                         : s == S_LIMIT   ? st.limit
                         : s == S_DROPPED ? st.dropped
                                          : st.rejected;
            line_u64(r, out, s, ex, 1, v);
        }
    }
}

/* Per-stream families of streaming sources, one family at a time. */
static void self_streams(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    if (!r->env.streams)
        return;
    /* Once per scrape, a few KB: not worth a cache in the renderer. */
    struct fsc_prom_stream_stat *st = calloc(MAX_STREAMS, sizeof(*st));
    if (!st) {
        r->w.err = -ENOMEM;
        return;
    }
    size_t n = r->env.streams(r->env.streams_arg, st, MAX_STREAMS);
    if (n > MAX_STREAMS)
        n = MAX_STREAMS;
    for (enum self_family s = S_GNMI_UP; n > 0 && s <= S_GNMI_RESUBSCRIBES; s++) {
        header(r, out, s);
        for (size_t i = 0; i < n; i++) {
            struct fsc_prom_label ex[2] = {lbl("source", st[i].source),
                                           lbl("stream", st[i].stream)};
            switch (s) {
            case S_GNMI_UP:
                line_u64(r, out, s, ex, 2, (uint64_t)(st[i].up != 0));
                break;
            case S_GNMI_AGE:
                if (st[i].last_update_age >= 0)
                    line_f64(r, out, s, ex, 2, st[i].last_update_age);
                break;
            case S_GNMI_CADENCE:
            case S_GNMI_JITTER:
                if (st[i].cadence_intervals > 0)
                    line_f64(r, out, s, ex, 2,
                             s == S_GNMI_CADENCE ? st[i].cadence_s : st[i].jitter_s);
                break;
            default: {
                uint64_t v = s == S_GNMI_MESSAGES        ? st[i].messages
                             : s == S_GNMI_UPDATES       ? st[i].updates
                             : s == S_GNMI_DECODE_ERRORS ? st[i].decode_errors
                             : s == S_GNMI_SEQ_GAPS      ? st[i].seq_gaps
                             : s == S_GNMI_RECONNECTS    ? st[i].reconnects
                                                         : st[i].resubscribes;
                line_u64(r, out, s, ex, 2, v);
            }
            }
        }
    }
    free(st);
}

/* Per-transport families of push receivers (OTLP), one family at a time. */
static void self_receivers(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    if (!r->env.receivers)
        return;
    struct fsc_prom_receiver_stat st[MAX_RECEIVERS];
    size_t n = r->env.receivers(r->env.receivers_arg, st, MAX_RECEIVERS);
    if (n > MAX_RECEIVERS)
        n = MAX_RECEIVERS;
    if (n == 0)
        return;
    static const char *const outcome[] = {"ok", "partial", "bad_request", "too_large", "error"};
    header(r, out, S_OTLP_REQUESTS);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[5] = {st[i].ok, st[i].partial, st[i].bad_request, st[i].too_large,
                         st[i].other_errors};
        for (size_t k = 0; k < 5; k++) {
            struct fsc_prom_label ex[3] = {lbl("source", st[i].source),
                                           lbl("transport", st[i].transport),
                                           lbl("result", outcome[k])};
            line_u64(r, out, S_OTLP_REQUESTS, ex, 3, v[k]);
        }
    }
    for (enum self_family s = S_OTLP_BYTES; s <= S_OTLP_REJECTED; s++) {
        header(r, out, s);
        for (size_t i = 0; i < n; i++) {
            struct fsc_prom_label ex[2] = {lbl("source", st[i].source),
                                           lbl("transport", st[i].transport)};
            uint64_t v = s == S_OTLP_BYTES    ? st[i].bytes
                         : s == S_OTLP_POINTS ? st[i].points
                                              : st[i].rejected;
            line_u64(r, out, s, ex, 2, v);
        }
    }
    /* Both reasons always shown, so that rate() has a series from the start. */
    header(r, out, S_OTLP_SKIPPED);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            struct fsc_prom_label ex[3] = {
                lbl("source", st[i].source), lbl("transport", st[i].transport),
                lbl("reason", k == 0 ? "other_shard" : "no_recorded_value")};
            line_u64(r, out, S_OTLP_SKIPPED, ex, 3,
                     k == 0 ? st[i].skipped_other_shard : st[i].skipped_no_value);
        }
    }
}

/* The Kafka exporter's families, when one runs. */
static void self_kafka(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    struct fsc_prom_kafka_stat k;
    memset(&k, 0, sizeof(k));
    if (!r->env.kafka || !r->env.kafka(r->env.kafka_arg, &k))
        return;
    struct fsc_prom_label topic[1] = {lbl("topic", k.topic ? k.topic : "")};
    const struct {
        enum self_family s;
        uint64_t v;
    } per_topic[] = {{S_KAFKA_QUEUED, k.queued},
                     {S_KAFKA_DELIVERED, k.delivered},
                     {S_KAFKA_FAILED, k.failed},
                     {S_KAFKA_RETRIES, k.retried}};
    for (size_t i = 0; i < sizeof(per_topic) / sizeof(per_topic[0]); i++) {
        header(r, out, per_topic[i].s);
        line_u64(r, out, per_topic[i].s, topic, 1, per_topic[i].v);
    }
    header(r, out, S_KAFKA_SPOOLED);
    line_u64(r, out, S_KAFKA_SPOOLED, NULL, 0, k.spooled);
    /* Every reason always shown, so that rate() has a series from the start. */
    const struct {
        const char *reason;
        uint64_t v;
    } dropped[] = {{"bus_overrun", k.dropped_bus},
                   {"encode", k.dropped_encode},
                   {"full", k.dropped_full},
                   {"delivery_error", k.dropped_error}};
    header(r, out, S_KAFKA_DROPPED);
    for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
        struct fsc_prom_label ex[1] = {lbl("reason", dropped[i].reason)};
        line_u64(r, out, S_KAFKA_DROPPED, ex, 1, dropped[i].v);
    }
    const struct {
        enum self_family s;
        uint64_t v;
    } faults[] = {{S_KAFKA_SPOOL_CORRUPT, k.spool_corrupt},
                  {S_KAFKA_SPOOL_IO_ERRORS, k.spool_io_errors},
                  {S_KAFKA_RESTARTS, k.producer_restarts}};
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
        header(r, out, faults[i].s);
        line_u64(r, out, faults[i].s, NULL, 0, faults[i].v);
    }
    const struct {
        enum self_family s;
        uint64_t v;
    } gauges[] = {{S_KAFKA_QUEUE_MESSAGES, k.queue_messages},
                  {S_KAFKA_QUEUE_BYTES, k.queue_bytes},
                  {S_KAFKA_SPOOL_RECORDS, k.spool_records},
                  {S_KAFKA_SPOOL_BYTES, k.spool_bytes},
                  {S_KAFKA_BROKER_UP, k.broker_up != 0}};
    for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++) {
        header(r, out, gauges[i].s);
        line_u64(r, out, gauges[i].s, NULL, 0, gauges[i].v);
    }
}

/* The remote_write exporter's families, when one runs. */
static void self_remote_write(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    struct fsc_prom_remote_write_stat k;
    memset(&k, 0, sizeof(k));
    if (!r->env.remote_write || !r->env.remote_write(r->env.remote_write_arg, &k))
        return;
    /* Every result always shown, so that rate() has a series from the start. */
    const struct {
        const char *result;
        uint64_t v;
    } res[] = {
        {"sent", k.sent}, {"failed", k.failed}, {"dropped", k.dropped}, {"retried", k.retried}};
    header(r, out, S_RW_SAMPLES);
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        struct fsc_prom_label ex[1] = {lbl("result", res[i].result)};
        line_u64(r, out, S_RW_SAMPLES, ex, 1, res[i].v);
    }
    header(r, out, S_RW_QUEUE);
    line_u64(r, out, S_RW_QUEUE, NULL, 0, k.queue_samples);
    header(r, out, S_RW_CAPACITY);
    line_u64(r, out, S_RW_CAPACITY, NULL, 0, k.queue_capacity);
    if (k.n_codes > FSC_PROM_RW_CODES)
        k.n_codes = FSC_PROM_RW_CODES;
    if (k.n_codes > 0) {
        header(r, out, S_RW_REQUESTS);
        for (size_t i = 0; i < k.n_codes; i++) {
            k.codes[i].code[sizeof(k.codes[i].code) - 1] = '\0';
            struct fsc_prom_label ex[1] = {lbl("code", k.codes[i].code)};
            line_u64(r, out, S_RW_REQUESTS, ex, 1, k.codes[i].requests);
        }
    }
    if (k.n_le > FSC_PROM_RW_BUCKETS)
        k.n_le = FSC_PROM_RW_BUCKETS;
    struct fsc_prom_str le[FSC_PROM_RW_BUCKETS];
    for (size_t i = 0; i < k.n_le; i++) {
        le[i].len = fsc_prom_fmt_double(le[i].s, k.le[i]);
        le[i].s[le[i].len] = '\0';
    }
    header(r, out, S_RW_DURATION);
    const char *hname = self_desc[S_RW_DURATION].sample;
    fsc_prom_histogram(&r->w, out, hname, strlen(hname), "", 0, NULL, 0, k.bucket, le, k.n_le,
                       k.sum);
    header(r, out, S_RW_LAST_SUCCESS);
    line_f64(r, out, S_RW_LAST_SUCCESS, NULL, 0, k.last_success_s);
}

/* Refusals of the listeners that check credentials or client certificates;
 * every reason always shown, so that rate() has a series from the start. */
static void self_listeners(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    if (!r->env.listeners)
        return;
    /* ~7 KB once per scrape: heap, like the streams. */
    struct fsc_prom_listener_stat *st = calloc(MAX_LISTENERS, sizeof(*st));
    if (!st) {
        r->w.err = -ENOMEM;
        return;
    }
    size_t n = r->env.listeners(r->env.listeners_arg, st, MAX_LISTENERS);
    if (n > MAX_LISTENERS)
        n = MAX_LISTENERS;
    static const char *const reason[FSC_PROM_AUTH__COUNT] = {
        [FSC_PROM_AUTH_MISSING] = "missing",
        [FSC_PROM_AUTH_MALFORMED] = "malformed",
        [FSC_PROM_AUTH_UNKNOWN_USER] = "unknown_user",
        [FSC_PROM_AUTH_BAD_PASSWORD] = "bad_password",
        [FSC_PROM_AUTH_BAD_TOKEN] = "bad_token",
        [FSC_PROM_AUTH_CLIENT_CERT] = "client_cert",
    };
    if (n > 0)
        header(r, out, S_AUTH_FAILURES);
    for (size_t i = 0; i < n; i++) {
        st[i].listener[sizeof(st[i].listener) - 1] = '\0';
        for (size_t k = 0; k < FSC_PROM_AUTH__COUNT; k++) {
            struct fsc_prom_label ex[2] = {lbl("listener", st[i].listener),
                                           lbl("reason", reason[k])};
            line_u64(r, out, S_AUTH_FAILURES, ex, 2, st[i].failures[k]);
        }
    }
    free(st);
}

/* The rollup store's families, while the rollup runs. */
static void self_rollup(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    struct fsc_prom_rollup_stat k;
    memset(&k, 0, sizeof(k));
    if (!r->env.rollup || !r->env.rollup(r->env.rollup_arg, &k))
        return;
    header(r, out, S_ROLLUP_RECORDS);
    struct fsc_prom_label written[1] = {lbl("result", "written")};
    line_u64(r, out, S_ROLLUP_RECORDS, written, 1, k.written);
    struct fsc_prom_label dropped[1] = {lbl("result", "dropped")};
    line_u64(r, out, S_ROLLUP_RECORDS, dropped, 1, k.dropped);
    header(r, out, S_ROLLUP_WRITE_ERRORS);
    line_u64(r, out, S_ROLLUP_WRITE_ERRORS, NULL, 0, k.write_errors);
    header(r, out, S_ROLLUP_TORN);
    line_u64(r, out, S_ROLLUP_TORN, NULL, 0, k.torn_cut);
    header(r, out, S_ROLLUP_SERIES_DROPPED);
    line_u64(r, out, S_ROLLUP_SERIES_DROPPED, NULL, 0, k.series_dropped);
}

void fsc_prom_self(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    struct fsc_engine_stats st;
    fsc_engine_stats_get(r->env.eng, &st);

    header(r, out, S_BUILD);
    struct fsc_prom_label ver[1] = {lbl("version", FSC_VERSION)};
    line_u64(r, out, S_BUILD, ver, 1, 1);

    self_up(r, out);

    header(r, out, S_SAMPLES);
    line_u64(r, out, S_SAMPLES, NULL, 0, st.samples);

    header(r, out, S_VERDICTS);
    for (unsigned k = 0; k < FSC_RATE__COUNT; k++) {
        struct fsc_prom_label ex[1] = {lbl("verdict", fsc_rate_verdict_name(k))};
        line_u64(r, out, S_VERDICTS, ex, 1, st.verdicts[k]);
    }

    header(r, out, S_WRAPS);
    line_u64(r, out, S_WRAPS, NULL, 0, st.wraps);
    header(r, out, S_GAPS);
    line_u64(r, out, S_GAPS, NULL, 0, st.gaps);
    header(r, out, S_ARRIVAL);
    line_u64(r, out, S_ARRIVAL, NULL, 0, st.arrival_time_samples);
    header(r, out, S_UNKNOWN_SERIES);
    line_u64(r, out, S_UNKNOWN_SERIES, NULL, 0, st.unknown_series);

    header(r, out, S_INTERVAL);
    const char *hname = self_desc[S_INTERVAL].sample;
    fsc_prom_histogram(&r->w, out, hname, strlen(hname), "", 0, NULL, 0, st.interval_ratio.bucket,
                       r->ratio_le, FSC_INTERVAL_RATIO_BUCKETS, st.interval_ratio.sum);

    self_sources(r, out);

    header(r, out, S_EVENTS);
    for (unsigned k = 0; k < FSC_EV__COUNT; k++) {
        struct fsc_prom_label ex[1] = {lbl("kind", fsc_event_kind_name(k))};
        line_u64(r, out, S_EVENTS, ex, 1, st.events[k]);
    }
    header(r, out, S_RESETS_SUPPRESSED);
    line_u64(r, out, S_RESETS_SUPPRESSED, NULL, 0, st.reset_events_suppressed);

    header(r, out, S_SCRAPE_DURATION);
    line_f64(r, out, S_SCRAPE_DURATION, NULL, 0, r->last_duration_s);
    header(r, out, S_SCRAPE_SERIES);
    line_u64(r, out, S_SCRAPE_SERIES, NULL, 0, r->last_samples);
    header(r, out, S_SCRAPE_BYTES);
    line_u64(r, out, S_SCRAPE_BYTES, NULL, 0, r->last_bytes);

    self_streams(r, out);
    self_receivers(r, out);
    self_kafka(r, out);
    self_remote_write(r, out);
    self_listeners(r, out);
    self_rollup(r, out);
}
