/* Internal to the Kafka exporter: the producer configuration (kafka_conf.c)
 * shared by the exporter (kafka_exporter.c) and fsc_kafka_config_check(). */
#ifndef FSC_KAFKA_INT_H
#define FSC_KAFKA_INT_H

#include <librdkafka/rdkafka.h>
#include <stdbool.h>

#include "kafka/kafka_config.h"

/* message.timeout.ms, spool or not: 0 = librdkafka retries a message until
 * it is delivered, in order (idempotent producer). A finite timeout hands
 * expired records back while later ones may already be on their way again
 * when the broker returns, which reorders a key's events (seen in the
 * kafka.outage test); the re-send path stays for a user-set timeout and for
 * errors, and an outage shows as fabricscope_kafka_broker_up 0 and a growing
 * fabricscope_kafka_queue_messages instead of delivery failures. */
#define FSC_KAFKA_MESSAGE_TIMEOUT_MS 0

/* Builds a librdkafka configuration for cfg: brokers, client id, the
 * idempotent producer, compression, batching, queue bound, message timeout
 * (FSC_KAFKA_MESSAGE_TIMEOUT_MS), TLS and
 * SASL, then every `properties:` entry (last, so they may override the
 * timeout or anything else not reserved). Returns the configuration (the
 * caller owns it), or NULL with "file:line:col: exporters.kafka...: sentence"
 * in err. Callbacks are not set. Thread: any. */
rd_kafka_conf_t *fsc_kafka_conf_build(const struct fsc_kafka_config *cfg, const char *file,
                                      bool spool, char *err, size_t errlen);

#endif
