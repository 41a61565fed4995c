/* Vendor profiles (docs/DESIGN.md, "One data model"): vendor counter names -> canonical metrics.
 *
 * A profile is data, not code: one sorted const table per source family
 * (sources/gnmi/profile_junos.c, sources/otlp/map/profile_cumulus.c,
 * sources/nic/profile_mlx5.c) that says, for each
 * vendor counter name, its canonical `fabric_` name and its static traits
 * (kind, hardware width, unit, detector signal, direction, scale). A source
 * maps a name once, when it first sees a series, and caches the result.
 *
 * Names the table does not know pass through under
 * `<passthrough_prefix><vendor name in lower snake case>` (bounded: long
 * ones keep their last words) with no signal, so nothing is
 * silently dropped: as gauges when the profile's `passthrough_gauges` says
 * the name is a level (fsc_profile_name_is_gauge), else as counters.
 *
 * Labels. The device/port labels come from the source (gNMI interface key,
 * OTLP `interface` attribute, the NIC's netdev) and are not the profile's
 * business. An entry may add one more label:
 * - a vendor name with a "{p}" placeholder (mlx5 `rx_prio{p}_pause`) matches
 *   a run of 1-3 decimal digits there, and the digits become the value of
 *   `label` (e.g. priority="3");
 * - otherwise `label` + `attr` say which key of the source's own data fills
 *   the label: the gNMI list key (`queue[name=...]` -> attr "name") or the
 *   OTLP point attribute (`tc` -> attr "tc"). The source reads the value. */
#ifndef FSC_PROFILE_H
#define FSC_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

#define FSC_PROFILE_NAME_MAX 192 /* canonical / passthrough name incl. NUL */
/* Passthrough names are at most this long incl. NUL, so with the longest
 * suffix an exporter adds (`_bucket`) an exposed name stays within 100 bytes:
 * Prometheus tooling and people read them (docs/METRICS.md, "Passthrough
 * names"). */
#define FSC_PROFILE_PASSTHROUGH_MAX 94
#define FSC_PROFILE_VENDOR_MAX      256 /* longest vendor name accepted, bytes */
#define FSC_PROFILE_LABEL_MAX       32

struct fsc_profile_entry {
    const char *vendor;    /* exact vendor name; may contain one "{p}" placeholder */
    const char *canonical; /* canonical metric name (Prometheus rules) */
    const char *label;     /* label filled by {p} or by `attr`, or NULL */
    const char *attr;      /* source key (gNMI list key / OTLP attribute) for `label`,
                            * NULL when `label` comes from {p} or there is none */
    uint8_t kind;          /* enum fsc_kind */
    uint8_t width;         /* 32, 53 (doubles) or 64 */
    uint8_t unit;          /* enum fsc_unit */
    uint8_t signal;        /* enum fsc_signal */
    uint8_t direction;     /* enum fsc_direction */
    uint32_t scale;        /* raw x scale = unit value; >= 1 */
    uint8_t variants;      /* bit i: the device variant `variant_names[i]` sends this name
                            * as the entry means it; 0 = every variant */
};

/* Which unmapped names are gauges, by their words. The leaf (what follows
 * the last '/') is cut into lowercase words at '-', '_', '.' and where a
 * lowercase letter or digit meets an uppercase one ("ifHighSpeed" -> if,
 * high, speed). A leaf is a gauge when one of its words is in `words`, or
 * its last word is in `last_words` or ends in one of `last_suffixes` - unless
 * its last word is in `counter_last_words` (events counted: "..._failures").
 * Every list is NULL-terminated; a NULL list matches nothing. */
struct fsc_gauge_names {
    const char *const *words;
    const char *const *last_words;
    const char *const *last_suffixes;
    const char *const *counter_last_words;
};

/* The label a list key (gNMI `queue[queue-number=3]`) or a point attribute
 * (OTLP `tc`) of a passthrough series gets: the canonical label its
 * profile's entries use for that key, so a passthrough family and a mapped
 * one name a queue alike. `elem` NULL: the key in any list element. */
struct fsc_key_label {
    const char *elem; /* gNMI path element of the list, or NULL */
    const char *key;  /* the key or attribute as the device sends it */
    const char *label;
};

struct fsc_profile {
    const char *name;                        /* "junos", "cumulus", "mlx5" */
    const struct fsc_profile_entry *entries; /* sorted by strcmp(vendor), unique */
    size_t n_entries;
    const char *passthrough_prefix; /* e.g. "fabric_junos_" */
    uint8_t passthrough_width;      /* 64, or 53 where values arrive as doubles */
    int64_t refresh_ns;             /* device copy period, copied into traits */
    uint8_t refresh;                /* enum fsc_refresh behind refresh_ns, copied too */
    const struct fsc_gauge_names *passthrough_gauges; /* NULL: every passthrough is a counter */
    /* Vendor name of a leaf that is no series but says when the counters of
     * its port were last cleared: a change is reset evidence for them
     * (Junos: OpenConfig last-clear). NULL: none. The source applies it. */
    const char *reset_leaf;
    /* Device variants whose names differ (junos: {"evo", "junos", NULL}:
     * Junos OS Evolved, Junos OS), bit i of an entry's `variants` naming
     * variant_names[i]; at most 8. NULL: one variant. */
    const char *const *variant_names;
    /* Canonical labels of list keys and attributes (NULL-terminated by a
     * NULL key; NULL: none): fsc_profile_key_label. */
    const struct fsc_key_label *key_labels;
};

/* The profile named `name` in profiles (NULL-terminated; the application
 * collects them from its sources: sources/gnmi/profile_junos.c, ...), or
 * NULL. Thread: any. */
const struct fsc_profile *fsc_profile_find(const struct fsc_profile *const *profiles,
                                           const char *name);

struct fsc_profile_match {
    const struct fsc_profile_entry *entry; /* NULL = passthrough */
    char canonical[FSC_PROFILE_NAME_MAX];
    char label_name[FSC_PROFILE_LABEL_MAX];  /* "" when the entry adds no label */
    char label_value[FSC_PROFILE_LABEL_MAX]; /* digits captured by {p}; "" when the
                                              * source must read `label_attr` */
    const char *label_attr;                  /* source key that holds the label value, or NULL */
    struct fsc_traits traits;
};

/* Maps vendor_name through prof into *out (fully overwritten).
 * - Known name: canonical name, extra label and traits from the entry;
 *   traits.refresh_ns from the profile; link speed, buffer size and nominal
 *   interval are left 0 for the caller (topology / config) to fill.
 * - Unknown name: passthrough, entry NULL, canonical = prefix + the name in
 *   lower snake case ('/', '-', '.' and a lowercase-to-uppercase step become
 *   one '_': "/a/VL15Dropped" -> prefix + "a_vl15_dropped"), without a first
 *   word equal to the prefix's last one ("/junos/system/x" ->
 *   "fabric_junos_system_x") and without the words promtool reserves for
 *   types (counter, gauge, histogram, summary); a last word that is a unit
 *   outside Prometheus' base units becomes the base unit with traits.unit
 *   saying how to scale ("..._ms" -> "..._seconds", FSC_UNIT_MILLISECONDS;
 *   "..._bits" -> "..._bytes", FSC_UNIT_BITS); shortened to
 *   FSC_PROFILE_PASSTHROUGH_MAX - 1 bytes by keeping its trailing words behind
 *   an 8-hex-digit FNV-1a tag of the whole vendor name ("x1a2b3c4d_..."); no
 *   signal; a gauge when fsc_profile_name_is_gauge(prof->passthrough_gauges)
 *   says so, else a counter of passthrough_width bits.
 * Cost: O(log n) binary searches (one exact, one per digit run tried for
 * "{p}"), no allocation. Returns 0, or -EINVAL for a NULL/empty name, a name
 * longer than FSC_PROFILE_VENDOR_MAX, or a passthrough name that would not
 * fit FSC_PROFILE_NAME_MAX. Thread: any (reads const data only). */
int fsc_profile_map(const struct fsc_profile *prof, const char *vendor_name,
                    struct fsc_profile_match *out);

/* fsc_profile_map for a device of the variants in variant_mask (bits as in
 * fsc_profile_entry.variants; 0 = any variant, as fsc_profile_map): an entry
 * whose `variants` exclude them maps as an unknown name (passthrough), so
 * two variants may give one canonical name to different vendor names (Junos
 * OS Evolved's max-queue-len, Junos OS's qmon peak) and a device of one
 * variant never merges the other's leaf into that series. Same returns,
 * cost and threads as fsc_profile_map. */
int fsc_profile_map_variant(const struct fsc_profile *prof, uint8_t variant_mask,
                            const char *vendor_name, struct fsc_profile_match *out);

/* The variant bit of prof named `name` (1 << its index in variant_names),
 * or 0 when prof has no such variant. Thread: any. */
uint8_t fsc_profile_variant_bit(const struct fsc_profile *prof, const char *name);

/* 1 when the leaf of vendor_name (what follows its last '/') is a gauge by
 * the words of g (struct fsc_gauge_names), 0 otherwise or when g is NULL.
 * Leaves longer than FSC_PROFILE_VENDOR_MAX bytes are not gauges. No
 * allocation. Thread: any. */
int fsc_profile_name_is_gauge(const struct fsc_gauge_names *g, const char *vendor_name);

/* 1 when `canonical` is a passthrough name of one of profiles
 * (NULL-terminated: it starts with that profile's passthrough_prefix) that
 * the profile's passthrough_gauges call a gauge, 0 otherwise. A replay file
 * names series by their canonical names, where '/' and '-' became '_': the
 * words of the whole name after the prefix are read, not the leaf's alone.
 * Thread: any. */
int fsc_profile_passthrough_is_gauge(const struct fsc_profile *const *profiles,
                                     const char *canonical);

/* Static traits of a canonical metric name (as a replay file or a test
 * names it), taken from the first of profiles (NULL-terminated) that maps a
 * vendor name to it: kind, width, unit, signal, direction; scale 1 (the value is already
 * in canonical units), refresh 0, no link speed or interval. Returns 0, or
 * -ENOENT when no profile produces that name. Linear in the table sizes
 * (~130 entries): call it once per series. Thread: any. */
int fsc_profile_canonical_traits(const struct fsc_profile *const *profiles, const char *canonical,
                                 struct fsc_traits *out);

/* The canonical label name of list key or attribute `key` (in gNMI path
 * element `elem`, NULL for OTLP) by prof->key_labels (queue-number ->
 * queue, tc -> queue, sp -> priority), or NULL when the profile names none
 * (the source then uses the key's sanitized name). Thread: any. */
const char *fsc_profile_key_label(const struct fsc_profile *prof, const char *elem,
                                  const char *key);

/* Writes `in` as a valid Prometheus metric name for an exporter: every byte
 * outside [a-zA-Z0-9_] becomes '_' (':' too: colons are reserved for
 * recording rules), and a leading digit gets a '_' in front. Always
 * NUL-terminates when out_size > 0. Returns the length of the full result
 * (as snprintf does): the output was truncated if that is >= out_size. An
 * empty input gives "" and 0 (not a valid name: callers reject it). */
size_t fsc_metric_name_sanitize(const char *in, char *out, size_t out_size);

/* Checks a profile's table: sorted strictly by vendor name (so binary search
 * works and names are unique), at most one "{p}" per vendor name and a label
 * for it, label/attr consistency, canonical names valid and unique within the
 * profile (two vendor names on one canonical name would merge two counters
 * into one series) unless both entries name variants and no variant in
 * common (then they must agree on kind, unit, signal, direction and label),
 * variant bits within variant_names, `_total` exactly on counters, widths
 * 32/53/64, known enum values, scale >= 1. Returns 0 or -EINVAL with a sentence in err.
 * Used by the tests and cheap enough to run at startup. */
int fsc_profile_check(const struct fsc_profile *prof, char *err, size_t errlen);

#endif
