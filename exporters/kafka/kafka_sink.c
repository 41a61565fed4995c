/* The Kafka exporter's face (plugin/sink.h): started before the sources, so
 * its bus subscription sees every event, and stopped after them with a
 * flush of up to FLUSH_NS; what is left stays in the spool for the next
 * start. Brokers that cannot be reached are no start-up error: the exporter
 * keeps retrying (log kafka_brokers_down, fabricscope_kafka_broker_up 0)
 * while events wait in its queue or spool. */
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"
#include "kafka/kafka_event_json.h"
#include "kafka/kafka_exporter.h"
#include "kafka/kafka_sink.h"

#define FLUSH_NS (10 * 1000000000LL)

struct kafka_sink {
    struct fsc_kafka_exporter *exp;
    struct fsc_kafka_event_json json; /* the encoder's context */
    const struct fsc_kafka_config *kc;
};

static bool kafka_enabled(const void *settings)
{
    const struct fsc_kafka_config *kc = settings;
    return kc->present && kc->enabled;
}

static void *kafka_start(const void *settings, const struct fsc_sink_env *env, char *err,
                         size_t errlen)
{
    struct kafka_sink *ks = calloc(1, sizeof(*ks));
    if (!ks) {
        snprintf(err, errlen, "kafka exporter: out of memory");
        return NULL;
    }
    ks->kc = settings;
    ks->json.reg = env->reg;
    ks->json.cfg = env->cfg;
    fsc_kafka_run_id_new(ks->json.run_id);
    const struct fsc_kafka_exporter_options opt = {.cfg = ks->kc,
                                                   .config_file = env->cfg->file,
                                                   .bus = env->bus,
                                                   .encode = fsc_kafka_event_encode,
                                                   .encode_arg = &ks->json};
    /* Its sentence starts with "file:line:col:" for a refused property. */
    ks->exp = fsc_kafka_exporter_start(&opt, err, errlen);
    if (!ks->exp) {
        free(ks);
        return NULL;
    }
    fsc_log(FSC_LOG_INFO, "exporter_started", "exporter=kafka topic=%s run_id=%s",
            ks->kc->events_topic, ks->json.run_id);
    return ks;
}

static void kafka_stop(void *ctx)
{
    struct kafka_sink *ks = ctx;
    if (!ks)
        return;
    fsc_kafka_exporter_stop(ks->exp, FLUSH_NS); /* logs kafka_stopped */
    free(ks);
}

/* ---- stats: what was delivered (per topic), what the producer holds ---- */

enum { T_QUEUED, T_DELIVERED, T_FAILED, T_RETRIED, T__COUNT };

static const struct fsc_stat_col topic_cols[T__COUNT] = {
    [T_QUEUED] = {.id = "queued",
                  .family = "fabricscope_kafka_messages_queued",
                  .type = FSC_STAT_COUNTER,
                  .help = "Events the Kafka exporter took in (spooled or queued).",
                  .title = "queued"},
    [T_DELIVERED] = {.id = "delivered",
                     .family = "fabricscope_kafka_messages_delivered",
                     .type = FSC_STAT_COUNTER,
                     .help = "Messages the brokers acknowledged.",
                     .title = "delivered"},
    [T_FAILED] = {.id = "delivery_failures",
                  .family = "fabricscope_kafka_delivery_failures",
                  .type = FSC_STAT_COUNTER,
                  .help = "Delivery attempts that failed (each failed retry counts).",
                  .title = "failures"},
    [T_RETRIED] = {.id = "retries",
                   .family = "fabricscope_kafka_retries",
                   .type = FSC_STAT_COUNTER,
                   .help = "Messages handed to the producer again after a failed attempt.",
                   .title = "retries"},
};

static const struct fsc_stat_table topic_table = {
    .id = "kafka",
    .title = "Kafka",
    .empty = "no Kafka exporter",
    .keys = {"topic", NULL},
    .cols = topic_cols,
    .n_cols = T__COUNT,
};

enum {
    P_SPOOLED,
    P_DROP_BUS,
    P_DROP_ENCODE,
    P_DROP_FULL,
    P_DROP_ERROR,
    P_SPOOL_CORRUPT,
    P_SPOOL_IO,
    P_RESTARTS,
    P_QUEUE_MESSAGES,
    P_QUEUE_BYTES,
    P_SPOOL_RECORDS,
    P_SPOOL_BYTES,
    P_BROKER_UP,
    P__COUNT
};

#define DROPPED "fabricscope_kafka_dropped"
/* Every reason always shown, so that rate() has a series from the start. */
static const struct fsc_stat_col producer_cols[P__COUNT] = {
    [P_SPOOLED] = {.id = "spooled",
                   .family = "fabricscope_kafka_spooled",
                   .type = FSC_STAT_COUNTER,
                   .help = "Events that waited in the on-disk spool.",
                   .title = "spooled"},
    [P_DROP_BUS] = {.id = "dropped_bus_overrun",
                    .family = DROPPED,
                    .type = FSC_STAT_COUNTER,
                    .help = "Events lost before delivery, by reason.",
                    .label = "reason",
                    .label_value = "bus_overrun",
                    .title = "lost: bus"},
    [P_DROP_ENCODE] = {.id = "dropped_encode",
                       .family = DROPPED,
                       .type = FSC_STAT_COUNTER,
                       .label = "reason",
                       .label_value = "encode",
                       .title = "lost: encode"},
    [P_DROP_FULL] = {.id = "dropped_full",
                     .family = DROPPED,
                     .type = FSC_STAT_COUNTER,
                     .label = "reason",
                     .label_value = "full",
                     .title = "lost: full"},
    [P_DROP_ERROR] = {.id = "dropped_delivery_error",
                      .family = DROPPED,
                      .type = FSC_STAT_COUNTER,
                      .label = "reason",
                      .label_value = "delivery_error",
                      .title = "lost: error"},
    [P_SPOOL_CORRUPT] = {.id = "spool_corrupt_records",
                         .family = "fabricscope_kafka_spool_corrupt_records",
                         .type = FSC_STAT_COUNTER,
                         .help = "Damaged spool records found at start (each ended its segment)."},
    [P_SPOOL_IO] = {.id = "spool_io_errors",
                    .family = "fabricscope_kafka_spool_io_errors",
                    .type = FSC_STAT_COUNTER,
                    .help = "Spool writes, fsyncs or unlinks that failed.",
                    .title = "spool errors"},
    [P_RESTARTS] = {.id = "producer_restarts",
                    .family = "fabricscope_kafka_producer_restarts",
                    .type = FSC_STAT_COUNTER,
                    .help = "Producers re-created after a fatal librdkafka error."},
    [P_QUEUE_MESSAGES] = {.id = "queue_messages",
                          .family = "fabricscope_kafka_queue_messages",
                          .type = FSC_STAT_GAUGE,
                          .help = "Messages inside the producer, not yet acknowledged.",
                          .title = "in flight"},
    [P_QUEUE_BYTES] = {.id = "queue_bytes",
                       .family = "fabricscope_kafka_queue_bytes",
                       .type = FSC_STAT_GAUGE,
                       .help = "Payload and key bytes of those messages."},
    [P_SPOOL_RECORDS] = {.id = "spool_records",
                         .family = "fabricscope_kafka_spool_records",
                         .type = FSC_STAT_GAUGE,
                         .help = "Events in the on-disk spool, not yet delivered.",
                         .title = "in spool"},
    [P_SPOOL_BYTES] = {.id = "spool_bytes",
                       .family = "fabricscope_kafka_spool_bytes",
                       .type = FSC_STAT_GAUGE,
                       .help = "Bytes of those events on disk.",
                       .unit = FSC_STAT_BYTES,
                       .title = "spool size"},
    [P_BROKER_UP] = {.id = "broker_up",
                     .family = "fabricscope_kafka_broker_up",
                     .type = FSC_STAT_GAUGE,
                     .help = "1 while the producer has a connection to a broker.",
                     .title = "broker up"},
};

static const struct fsc_stat_table producer_table = {
    .id = "kafka_producer",
    .title = "Kafka producer",
    .empty = "no Kafka exporter",
    .keys = {NULL},
    .cols = producer_cols,
    .n_cols = P__COUNT,
};

static const struct fsc_stat_table *const kafka_tables[] = {&topic_table, &producer_table, NULL};

static void kafka_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct kafka_sink *ks = ctx;
    struct fsc_kafka_stats k;
    fsc_kafka_exporter_stats(ks->exp, &k);
    const double t[T__COUNT] = {(double)k.queued, (double)k.delivered, (double)k.failed,
                                (double)k.retried};
    const char *topic[] = {ks->kc->events_topic ? ks->kc->events_topic : ""};
    fsc_stats_row(out, &topic_table, topic, t, NULL);
    const double p[P__COUNT] = {
        [P_SPOOLED] = (double)k.spooled,
        [P_DROP_BUS] = (double)k.dropped_bus,
        [P_DROP_ENCODE] = (double)k.dropped_encode,
        [P_DROP_FULL] = (double)k.dropped_full,
        [P_DROP_ERROR] = (double)k.dropped_error,
        [P_SPOOL_CORRUPT] = (double)k.spool_corrupt,
        [P_SPOOL_IO] = (double)k.spool_io_errors,
        [P_RESTARTS] = (double)k.producer_restarts,
        [P_QUEUE_MESSAGES] = (double)k.queue_messages,
        [P_QUEUE_BYTES] = (double)k.queue_bytes,
        [P_SPOOL_RECORDS] = (double)k.spool_records,
        [P_SPOOL_BYTES] = (double)k.spool_bytes,
        [P_BROKER_UP] = k.broker_up != 0,
    };
    fsc_stats_row(out, &producer_table, NULL, p, NULL);
}

const struct fsc_sink_ops fsc_kafka_sink_ops = {
    .config = &fsc_kafka_kind,
    .phase = FSC_SINK_EARLY,
    .required = true,
    .enabled = kafka_enabled,
    .start = kafka_start,
    .stop = kafka_stop,
    .stat_tables = kafka_tables,
    .stats = kafka_stats,
};
