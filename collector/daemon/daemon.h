/* The `run` command: wires registry, event bus, engine, sources and the event
 * log together and runs until SIGINT or SIGTERM. */
#ifndef FSC_DAEMON_H
#define FSC_DAEMON_H

#include <stddef.h>

#include "base/stats.h"
#include "config/config.h"

/* Runs the collector with cfg (borrowed; `path` is for log lines). Blocks
 * SIGINT/SIGTERM/SIGHUP in the calling thread (threads it starts inherit the
 * mask) and returns after one of them arrives and everything has stopped.
 * Returns 0 on a clean stop, or -1 with a sentence in err when start-up
 * failed. Call it from the main thread, once. */
int fsc_daemon_run(const struct fsc_config *cfg, const char *path, char *err, size_t errlen);

/* The daemon's own stats tables (shard, reloads, cadence, link speeds),
 * NULL-terminated: what its view adds to the plugins' (fsc_app_tables), for
 * the metrics reference generator (tests/tools/metrics_doc.c). Thread: any. */
const struct fsc_stat_table *const *fsc_daemon_stat_tables(void);

#endif
