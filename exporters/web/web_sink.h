/* The status page as the daemon runs it (plugin/sink.h). */
#ifndef FSC_WEB_SINK_H
#define FSC_WEB_SINK_H

#include "plugin/sink.h"

extern const struct fsc_sink_ops fsc_web_sink_ops;

#endif
