/* The rollup store as the daemon runs it (plugin/sink.h). */
#ifndef FSC_ROLLUP_SINK_H
#define FSC_ROLLUP_SINK_H

#include "plugin/sink.h"

extern const struct fsc_sink_ops fsc_rollup_sink_ops;

#endif
