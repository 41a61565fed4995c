/* A gnmi source's settings (`type: gnmi`; key table gnmi_keys.c,
 * docs/CONFIG.md "gnmi"). */
#ifndef FSC_GNMI_CONFIG_H
#define FSC_GNMI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "model/profile.h"

enum fsc_gnmi_encoding {
    FSC_GNMI_PROTO = 0,
    FSC_GNMI_JSON = 1,
    FSC_GNMI_JSON_IETF = 2,
};

enum fsc_gnmi_mode {
    FSC_GNMI_SAMPLE = 0,
    FSC_GNMI_ON_CHANGE = 1,
};

/* When a value was true (rate.h rule 5). */
enum fsc_gnmi_copy {
    FSC_GNMI_COPY_PROFILE = 0, /* the profile's copy period (Junos: 2 s copies), or live once
                                * the data changes faster than that (copy_grid.h) */
    FSC_GNMI_COPY_LIVE = 1,    /* at its own timestamp: the target reads counters on export */
};

/* Which grid SAMPLE intervals are put on (gnmi_plan.h). */
enum fsc_gnmi_grid {
    FSC_GNMI_GRID_PROFILE = 0, /* the profile's: Junos reports on multiples of 2 s */
    FSC_GNMI_GRID_NONE = 1,    /* as configured: a simulator or lab target that is not Junos */
};

/* Which Junos a device runs (`os:`): it picks the profile variant the
 * device's names are read with (profile_junos.c) and the built-in plan. */
enum fsc_gnmi_os {
    FSC_GNMI_OS_EVO = 0,   /* Junos OS Evolved (QFX5240): OpenConfig queue occupancy,
                            * no qmon-sw sensor */
    FSC_GNMI_OS_JUNOS = 1, /* Junos OS: queue peaks from qmon-sw */
};

/* One subscription stream (a gNMI Subscribe RPC of its own). */
struct fsc_gnmi_stream {
    const char *name;
    const char **paths; /* each starts with '/' */
    size_t n_paths;
    enum fsc_gnmi_mode mode;
    int64_t sample_interval_ns; /* SAMPLE: resolved (the source's by default) and rounded up
                                 * to the source's interval grid; ON_CHANGE: 0 */
    bool updates_only;
    struct fsc_config_mark mark; /* {0,0} for the built-in plan */
};

struct fsc_gnmi_config {
    const char *address; /* "host:port", required */
    const char *device;  /* device label; default the source name */
    struct fsc_tls_config tls;
    const char *username;            /* optional */
    struct fsc_secret password;      /* optional; needs username */
    enum fsc_gnmi_os os;             /* default evo */
    enum fsc_gnmi_encoding encoding; /* default proto */
    int64_t sample_interval_ns;      /* default 2 s */
    struct fsc_gnmi_stream *streams; /* never empty: the default plan when omitted */
    size_t n_streams;
    uint32_t stall_intervals;        /* resubscribe after this many silent intervals; default 3 */
    enum fsc_gnmi_copy counter_copy; /* default FSC_GNMI_COPY_PROFILE */
    enum fsc_gnmi_grid sample_interval_grid; /* default FSC_GNMI_GRID_PROFILE */
    int64_t interval_grid_ns;   /* resolved grid: 2 s for Junos, 0 = none; intervals are on it */
    int64_t keepalive_ns;       /* gRPC keepalive; default 30 s */
    int64_t connect_timeout_ns; /* default 10 s */
    struct fsc_backoff backoff; /* reconnect backoff (jittered); 1 s .. 60 s */
    /* Time sanity (model/time_guard.h): updates whose time is further ahead
     * of / behind the collector's clock are dropped; 0 = unchecked; 5 m / 24 h. */
    int64_t max_time_ahead_ns, max_time_behind_ns;
};

/* The Junos profile (profile_junos.c): the type's default. */
extern const struct fsc_profile fsc_profile_junos;

/* The kind of this source type (its key table). */
extern const struct fsc_config_kind fsc_gnmi_kind;

/* The settings of a source of this type, or NULL when sc is of another. */
const struct fsc_gnmi_config *fsc_gnmi_config_of(const struct fsc_source_config *sc);

/* The name of an `os` value ("evo", "junos"), as the config and
 * fsc_profile_variant_bit() spell it. */
const char *fsc_gnmi_os_name(enum fsc_gnmi_os os);

/* The variant mask to map this device's names with
 * (fsc_profile_map_variant): the bit of prof's variant named like gc->os, or
 * 0 (any variant) when prof has no such variant (a profile other than
 * junos). Thread: any. */
uint8_t fsc_gnmi_variant_mask(const struct fsc_gnmi_config *gc, const struct fsc_profile *prof);

#endif
