/* The remote_write exporter as the daemon runs it (plugin/sink.h). */
#ifndef FSC_RW_SINK_H
#define FSC_RW_SINK_H

#include "plugin/sink.h"

extern const struct fsc_sink_ops fsc_remote_write_sink_ops;

#endif
