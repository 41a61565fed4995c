/* Series registry (docs/DESIGN.md, "One data model"): (source, metric name, label set) -> dense id.
 *
 * Every sample names its series by a small integer (fsc_series_id, 0, 1, 2,
 * ...) so the engine and the sinks can keep per-series state in flat arrays.
 * The registry hands those ids out and remembers what they mean.
 *
 * Storage, and why it looks like this:
 * - Strings (metric names, label names, label values) are interned once in an
 *   append-only arena; label sets are interned too (labels sorted by name), so
 *   the 20 counters of one port share one label set and one copy of each
 *   string. A series entry is then 16 bytes: two 32-bit references, its hash
 *   and its source. Target: <= 64 bytes per series all-in for the realistic
 *   case (many metrics per port label set); ~30 bytes are typical.
 * - Entries live in fixed-size chunks and arena blocks that never move, and
 *   the count of published series is stored with release semantics after the
 *   entry is complete. A reader that loads the count (acquire) may therefore
 *   read any entry below it without a lock: fsc_registry_count(),
 *   fsc_registry_metric(), fsc_registry_labels() and fsc_registry_source_of()
 *   are lock-free and safe from any thread while other threads intern.
 * - Interning and lookups take one mutex (the registry lock). Sources intern rarely (they cache
 *   the id of every series the first time they see it), so the lock is cold.
 * - Memory is bounded: a per-source limit and a total limit. A series past a
 *   limit is not created (FSC_SERIES_NONE) and counted as dropped for its
 *   source; hash tables that cannot grow keep their old storage and the
 *   request fails, counted as alloc_failed.
 *
 * Validity (checked on every intern; invalid input is counted as rejected):
 * - metric names: Prometheus `[a-zA-Z_:][a-zA-Z0-9_:]*`, 1..FSC_REGISTRY_NAME_MAX bytes;
 * - label names: `[a-zA-Z_][a-zA-Z0-9_]*`, 1..FSC_REGISTRY_NAME_MAX bytes, not
 *   starting with "__" (reserved by Prometheus), no duplicates in one set;
 * - label values: valid UTF-8, at most FSC_REGISTRY_VALUE_MAX bytes. An empty
 *   value means "label absent" (Prometheus semantics), so it is dropped before
 *   interning: {a="", b="x"} is the same series as {b="x"};
 * - at most FSC_REGISTRY_MAX_LABELS labels. Labels may come in any order. */
#ifndef FSC_REGISTRY_H
#define FSC_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

#define FSC_REGISTRY_MAX_LABELS  16
#define FSC_REGISTRY_NAME_MAX    255 /* metric and label names, bytes */
#define FSC_REGISTRY_VALUE_MAX   256 /* label values, bytes */
#define FSC_REGISTRY_MAX_SOURCES 65535
#define FSC_REGISTRY_MAX_TOTAL   (1u << 28) /* upper bound for max_series_total */

struct fsc_label {
    const char *name;
    const char *value;
};

struct fsc_registry;

/* Creates an empty registry that will never hold more than max_series_total
 * series (1..FSC_REGISTRY_MAX_TOTAL). Memory grows with use; only a small
 * directory proportional to max_series_total is allocated up front.
 * Returns NULL on a bad limit or allocation failure.
 * Thread: any. Locks: none. Owns: the returned registry
 * (fsc_registry_destroy). */
struct fsc_registry *fsc_registry_create(uint32_t max_series_total);

/* Frees the registry and every string it handed out. NULL is a no-op.
 * Thread: any, once no other thread uses the registry (during or after).
 * Locks: none. Owns: frees reg and every name and label it handed out. */
void fsc_registry_destroy(struct fsc_registry *reg);

/* Registers a source (a device stream, an OTLP sender, a NIC poller) named
 * `name` (copied, 1..FSC_REGISTRY_NAME_MAX bytes) that may own at most
 * max_series series (0 = limited only by the total). Sources are numbered
 * 0, 1, 2, ... in order of registration; the number is written to
 * *source_out. Returns 0, -EINVAL (bad name), -EEXIST (name taken),
 * -ENOSPC (FSC_REGISTRY_MAX_SOURCES reached) or -ENOMEM.
 * Thread: any. Locks: the registry lock. Owns: a copy of name. */
int fsc_registry_source_add(struct fsc_registry *reg, const char *name, uint32_t max_series,
                            uint16_t *source_out);

/* Returns the id of series (source, metric, labels), creating it if it does
 * not exist. Labels may come in any order; the strings are copied, the caller
 * keeps ownership of its arguments. Returns FSC_SERIES_NONE when
 * - the input is invalid (see the validity rules above; counted as rejected),
 * - the source's limit or the total limit is reached (counted as dropped),
 * - memory ran out (counted as alloc_failed; the registry stays consistent),
 * - `source` is not a registered source (not counted anywhere).
 * Cost for an existing series: one hash over the input, one probe, no
 * allocation.
 * Thread: any. Locks: the registry lock. Owns: copies of the strings of a
 * new series; the arguments stay the caller's. */
fsc_series_id fsc_registry_intern(struct fsc_registry *reg, uint16_t source, const char *metric,
                                  const struct fsc_label *labels, size_t n_labels);

/* Like fsc_registry_intern() but never creates and never counts anything:
 * returns the existing id or FSC_SERIES_NONE.
 * Thread: any. Locks: the registry lock. Owns: nothing. */
fsc_series_id fsc_registry_lookup(struct fsc_registry *reg, uint16_t source, const char *metric,
                                  const struct fsc_label *labels, size_t n_labels);

/* Counts n series of `source` refused by its limit before the registry was
 * asked (a source that keeps its own count, as the OTLP cache does), so
 * that `dropped` is every series the limit refused. Unknown sources are
 * ignored.
 * Thread: any. Locks: the registry lock. Owns: nothing. */
void fsc_registry_note_dropped(struct fsc_registry *reg, uint16_t source, uint64_t n);

/* Number of series published so far; ids 0 .. count-1 are valid.
 * Thread: any. Locks: none (an acquire load: every entry below the returned
 * count is complete). Owns: nothing. */
uint32_t fsc_registry_count(const struct fsc_registry *reg);

/* Metric name of series id, or NULL when id >= fsc_registry_count(). The
 * string is interned: series with the same metric name return the same
 * pointer, so a sink can group a family by pointer.
 * Thread: any. Locks: none. Owns: nothing; the string is the registry's,
 * valid until fsc_registry_destroy(). */
const char *fsc_registry_metric(const struct fsc_registry *reg, fsc_series_id id);

/* Writes up to `max` labels of series id into out[], sorted by name (empty
 * values were dropped at intern time), and returns the series' total number
 * of labels (which may exceed max, as snprintf does), or 0 for an unknown id.
 * Thread: any. Locks: none. Owns: nothing; the strings are the registry's,
 * valid until fsc_registry_destroy(). */
size_t fsc_registry_labels(const struct fsc_registry *reg, fsc_series_id id, struct fsc_label *out,
                           size_t max);

/* Source that owns series id, or UINT16_MAX for an unknown id.
 * Thread: any. Locks: none. Owns: nothing. */
uint16_t fsc_registry_source_of(const struct fsc_registry *reg, fsc_series_id id);

struct fsc_registry_source_stats {
    const char *name;      /* valid until fsc_registry_destroy() */
    uint32_t series;       /* series owned */
    uint32_t limit;        /* max_series given at fsc_registry_source_add(), 0 = none */
    uint64_t dropped;      /* interns refused by the source or total limit */
    uint64_t rejected;     /* interns refused for invalid names/labels */
    uint64_t alloc_failed; /* interns refused because memory ran out */
};

/* Copies the counters of `source` into *out. Returns 0 or -ENOENT.
 * Thread: any. Locks: the registry lock. Owns: nothing; out->name is the
 * registry's. */
int fsc_registry_source_stats(struct fsc_registry *reg, uint16_t source,
                              struct fsc_registry_source_stats *out);

/* Number of registered sources.
 * Thread: any. Locks: the registry lock. Owns: nothing. */
uint16_t fsc_registry_source_count(struct fsc_registry *reg);

/* Bytes currently allocated by the registry (entries, chunks, arena, hash
 * tables, directories, the struct itself): a self-metric, exact when no
 * intern runs concurrently.
 * Thread: any. Locks: none (a relaxed load). Owns: nothing. */
size_t fsc_registry_memory_bytes(const struct fsc_registry *reg);

#endif
