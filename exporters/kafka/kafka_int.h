/* Internal to the Kafka exporter: the producer configuration (kafka_conf.c)
 * shared by the exporter (kafka_exporter.c) and fsc_kafka_config_check(). */
#ifndef FSC_KAFKA_INT_H
#define FSC_KAFKA_INT_H

#include <librdkafka/rdkafka.h>
#include <stdbool.h>

#include "core/config.h"

/* message.timeout.ms with a spool: how long librdkafka retries a message on
 * its own (idempotent, in order) before handing it back to be re-sent from
 * the spool. Long enough to ride out a leader election or a broker restart
 * without re-sending anything; short enough that an outage shows up as
 * delivery failures (fabricscope_kafka_delivery_failures_total) within a
 * minute, which is what the FabricscopeKafkaDeliveryFailing alert watches.
 * Nothing is lost when it passes: the record is still in the spool. */
#define FSC_KAFKA_MESSAGE_TIMEOUT_MS 60000

/* Builds a librdkafka configuration for cfg: brokers, client id, the
 * idempotent producer, compression, batching, queue bound, message timeout
 * (FSC_KAFKA_MESSAGE_TIMEOUT_MS with a spool, 0 = none without), TLS and
 * SASL, then every `properties:` entry (last, so they may override the
 * timeout or anything else not reserved). Returns the configuration (the
 * caller owns it), or NULL with "file:line:col: exporters.kafka...: sentence"
 * in err. Callbacks are not set. Thread: any. */
rd_kafka_conf_t *fsc_kafka_conf_build(const struct fsc_kafka_config *cfg, const char *file,
                                      bool spool, char *err, size_t errlen);

#endif
