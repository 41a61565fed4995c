/* The Prometheus exporter as the daemon runs it (plugin/sink.h). */
#ifndef FSC_PROM_SINK_H
#define FSC_PROM_SINK_H

#include "plugin/sink.h"

extern const struct fsc_sink_ops fsc_prometheus_sink_ops;

#endif
