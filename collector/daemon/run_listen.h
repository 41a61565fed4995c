/* `fabricscope run --listen HOST:PORT`: the Prometheus exporter's (and the
 * status page's) listen address from the command line, over
 * exporters.prometheus.listen of the file, at start and across SIGHUP
 * reloads. Internal to collector/daemon. */
#ifndef FSC_RUN_LISTEN_H
#define FSC_RUN_LISTEN_H

#include <stddef.h>

#include "config/config.h"

/* Sets exporters.prometheus.listen of cfg (freshly loaded, not yet read by
 * anyone) to addr, which is borrowed and must outlive cfg and every config a
 * reload loads (an argv string does). Returns 0, or -1 with a sentence in
 * err: addr is not HOST:PORT, the exporter is disabled in the file, or addr
 * collides with a listener of an enabled source. Thread: main. */
int fsc_run_listen_apply(struct fsc_config *cfg, const char *addr, char *err, size_t errlen);

/* A reload: when first's address came from the command line, next (just
 * loaded) gets the same one, so the reload neither sees a change nor
 * applies the file's. Thread: main. */
void fsc_run_listen_carry(const struct fsc_config *first, struct fsc_config *next);

#endif
