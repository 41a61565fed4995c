/* The Kafka exporter as the daemon runs it (plugin/sink.h). */
#ifndef FSC_KAFKA_SINK_H
#define FSC_KAFKA_SINK_H

#include "plugin/sink.h"

extern const struct fsc_sink_ops fsc_kafka_sink_ops;

#endif
