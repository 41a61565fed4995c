/* A synthetic source's settings (`type: synthetic`; key table
 * synth_keys.c, docs/CONFIG.md "synthetic"). */
#ifndef FSC_SYNTH_CONFIG_H
#define FSC_SYNTH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* One simulated device: per port, rx/tx byte counters at `utilization` of
 * `speed` with noise, a line-rate burst on one port every burst_every, a CNP
 * storm on one port every storm_every, a wrapping 32-bit reorder counter. */
struct fsc_synthetic_config {
    const char *device;      /* device label; default the source name */
    uint32_t ports;          /* default 8 */
    uint64_t speed_bps;      /* default 400G */
    int64_t interval_ns;     /* sample period; default 100 ms */
    double utilization;      /* baseline, 0..0.8; default 0.3 */
    int64_t burst_every_ns;  /* default 10 s; 0 = no bursts */
    int64_t burst_length_ns; /* default 100 ms */
    int64_t storm_every_ns;  /* default 30 s; 0 = no CNP storms (a storm lasts 5 s) */
    uint32_t seed;           /* random seed; default 1 */
};

/* The kind of this source type (its key table). */
extern const struct fsc_config_kind fsc_synthetic_kind;

/* The settings of a source of this type, or NULL when sc is of another. */
const struct fsc_synthetic_config *fsc_synthetic_config_of(const struct fsc_source_config *sc);

#endif
