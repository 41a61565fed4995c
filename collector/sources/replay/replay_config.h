/* A replay source's settings (`type: replay`; key table replay_keys.c,
 * docs/CONFIG.md "replay"). */
#ifndef FSC_REPLAY_CONFIG_H
#define FSC_REPLAY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* Plays a replay file (collector/sources/replay/replay_file.h) into the engine. */
enum fsc_replay_mode {
    FSC_REPLAY_INSTANT = 0,  /* everything at once, device times ending before now */
    FSC_REPLAY_REALTIME = 1, /* each sample at its time from the start (default) */
};

struct fsc_replay_config {
    const char *file; /* required; relative paths are relative to the config file */
    enum fsc_replay_mode mode;
    uint64_t speed_bps;  /* link speed of port-byte counters not in the topology; 400G */
    int64_t interval_ns; /* nominal sampling interval of the file; default 100 ms */
};

/* The kind of this source type (its key table). */
extern const struct fsc_config_kind fsc_replay_kind;

/* The settings of a source of this type, or NULL when sc is of another. */
const struct fsc_replay_config *fsc_replay_config_of(const struct fsc_source_config *sc);

#endif
