/* The `replay` source: plays a replay file (replay_file.h) into the engine,
 * either in real time from the start (mode realtime) or all at once with
 * device times ending just before now (mode instant). Device times are
 * epoch-aligned: t = base + t_ms, base a whole second, so a file written with
 * 100 ms steps lands exactly on the engine's aligned windows. Used by the
 * integration tests to feed the real daemon known samples, and by people to
 * re-run recorded counters through the detectors. */
#ifndef FSC_REPLAY_SOURCE_H
#define FSC_REPLAY_SOURCE_H

#include "plugin/source.h"
#include "sources/replay/replay_config.h"

extern const struct fsc_source_ops fsc_replay_source_ops;

/* Loads and resolves a whole replay file: every series interned in env->reg
 * under env->source_id with traits set in env->eng (profiles for canonical
 * names, link speed from the topology port or speed_bps). On success returns
 * 0 and *out and *n_out hold the samples with t_dev_ns = t_ms * 1e6 (relative;
 * the caller adds its base), ordered as in the file; the caller frees *out.
 * On error returns -1 with "path:line: sentence" in err. */
int fsc_replay_load(const char *path, const struct fsc_source_env *env, uint64_t speed_bps,
                    int64_t interval_ns, struct fsc_sample **out, size_t *n_out, char *err,
                    size_t errlen);

#endif
