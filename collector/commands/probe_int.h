/* `fabricscope probe` internals (collector/commands): what the probe keeps of
 * the one source it runs (probe_tap.c) and how it prints it.
 *
 * Two taps feed it, both generic: the engine observer's on_samples (every
 * batch the source ingests, under the engine lock: one writer at a time) for
 * each series' sample count and last raw value, and the source tap
 * (plugin/source.h) for the native name each series came from and whether
 * the profile maps it (source threads, under the tap's own mutex). The
 * report is printed after the source has stopped, so it reads without
 * locks. Memory is bounded: PROBE_SERIES_MAX series (the registry is
 * created with that limit), PROBE_NATIVE_MAX native names. */
#ifndef FSC_PROBE_INT_H
#define FSC_PROBE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/registry.h"
#include "model/sample.h"
#include "plugin/source.h"

#define PROBE_SERIES_MAX 100000u
#define PROBE_NATIVE_MAX 4096u
#define PROBE_NO_NATIVE  UINT32_MAX

/* One series as the probe saw it. */
struct probe_series {
    uint64_t samples;
    union fsc_value last;
    bool last_f64;
    bool tapped;   /* the source named its native name (or NULL: derived) */
    uint32_t nat;  /* index into natives, PROBE_NO_NATIVE when derived or unknown */
    uint32_t nat2; /* a second native name feeding the same series, or PROBE_NO_NATIVE */
    bool multi;    /* more than two native names fed it */
};

struct probe_native {
    char *name;  /* owned */
    bool mapped; /* the profile has an entry for it */
    uint64_t hash;
};

struct probe_tap {
    struct probe_series *ser; /* [PROBE_SERIES_MAX] */
    uint64_t samples;         /* every sample of every batch */
    uint64_t beyond;          /* samples of ids >= PROBE_SERIES_MAX (none expected) */
    pthread_mutex_t mu;       /* natives and ser[].nat*, from source threads */
    struct probe_native natives[PROBE_NATIVE_MAX];
    uint32_t n_natives;
    uint32_t slots[2 * PROBE_NATIVE_MAX]; /* hash of natives: index + 1, 0 = empty */
    uint64_t natives_dropped;             /* names past PROBE_NATIVE_MAX */
    struct fsc_source_tap source_tap;     /* points back here */
};

/* Allocates an empty tap (its source_tap ready for fsc_source_env.tap).
 * Returns NULL when memory runs out. */
struct probe_tap *probe_tap_create(void);

/* Frees it (NULL: no-op). */
void probe_tap_destroy(struct probe_tap *t);

/* The engine observer's on_samples (arg: the tap). */
void probe_tap_samples(void *arg, const struct fsc_sample *smp, size_t n);

/* What the report says about the run around the series. */
struct probe_report_info {
    const char *source;
    const char *type;
    const char *profile; /* NULL: none */
    double seconds;      /* how long the source ran */
};

/* Prints the report to out: one `series` line per series of reg (name,
 * labels, native name, last value, samples), sorted, then one `map` or
 * `unmapped` line per native name (what it became and in how many series),
 * `derived` lines for series the source made itself, and a `probe` summary
 * line. Returns the number of samples from the device (the source's own
 * fabricscope_* statistics do not count: a NIC source on a host with no
 * RDMA device still reports its polls), or -1 when memory for sorting ran
 * out (nothing printed but a message in err). */
long long probe_report(const struct probe_tap *t, const struct fsc_registry *reg,
                       const struct probe_report_info *info, FILE *out, char *err, size_t errlen);

#endif
