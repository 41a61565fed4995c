/* Every family fabricscope exposes, in one table: name, type, unit, labels
 * and HELP, and for the families of registry series how they are exposed.
 * The Prometheus exporter takes its HELP lines from here, remote_write its
 * names, and docs/METRICS.md's reference is generated from it
 * (tests/tools/metrics_doc.c; the test `prometheus.metrics_doc` fails when
 * the document and the table differ). The families of the plugins' stats
 * tables (base/stats.h) carry their HELP in those tables and are documented
 * from them by the same generator.
 *
 * Registry names and exposed names. A source interns a series under its
 * canonical name (the profiles', the NIC source's); the engine, the events
 * and the status page use that name. The exposition uses the family's
 * `name`, which for a few families differs (`series`): a name Prometheus'
 * linter refuses (bits, the word histogram) is exposed under a base-unit
 * name, its value scaled (`scale`).
 *
 * Topology. Labels that describe where a port sits rather than which
 * counter it is (role, rail, peer, link, peer_node, node, card, pci) are not
 * exposed on the series: they go to three `_info` families
 * (fsc_metric_info_label), so a re-cabling changes an info line, not the
 * identity of every series of the port.
 *
 * All data is const; every function is pure. Thread: any. */
#ifndef FSC_METRIC_FAMILIES_H
#define FSC_METRIC_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

enum fsc_mf_type {
    FSC_MF_COUNTER = 0,
    FSC_MF_GAUGE = 1,
    FSC_MF_HISTOGRAM = 2,
};

/* Where a family's lines come from. */
enum fsc_mf_origin {
    FSC_MF_SERIES = 0, /* registry series a source interns (its raw value) */
    FSC_MF_RATE,       /* the window rate of a detector counter (that family's `rate`) */
    FSC_MF_FINE,       /* a fine-interval rate remote_write sends (`series: [fine_rates]`) */
    FSC_MF_MAX,        /* the trailing maximum of a peak gauge (that family's `max`) */
    FSC_MF_DERIVED,    /* computed by the exporter from the engine's views */
    FSC_MF_INFO,       /* topology, value 1 (fsc_metric_info_label) */
    FSC_MF_SELF,       /* fabricscope_ families of the engine, registry and exporter */
};

struct fsc_metric_family {
    const char *name;   /* exposed name; counters end in _total (OpenMetrics drops it) */
    const char *series; /* FSC_MF_SERIES: the registry name when it is not `name`, else NULL */
    double scale;       /* exposed value = the series' value x scale; 0 means 1 */
    uint8_t type;       /* enum fsc_mf_type */
    uint8_t origin;     /* enum fsc_mf_origin */
    const char *unit;   /* what one unit of the value is ("bytes", "seconds", "packets
                         * per second"); the HELP says it in these words */
    const char *labels; /* the labels of its series, comma-separated (docs) */
    const char *help;
    const char *rate; /* a counter feeding a detector: the family of its window rate */
    const char *max;  /* a peak gauge: the family of its trailing maximum */
};

/* The tables (metric_families_*.c), each sorted by its lookup key: `series`
 * when set, else `name` (fsc_metric_families_check). */
extern const struct fsc_metric_family fsc_mf_port[];
extern const size_t fsc_mf_port_count;
extern const struct fsc_metric_family fsc_mf_nic[];
extern const size_t fsc_mf_nic_count;
extern const struct fsc_metric_family fsc_mf_expo[];
extern const size_t fsc_mf_expo_count;

/* The family of registry metric `metric` (FSC_MF_SERIES families, by
 * `series`, else `name`), or NULL: a passthrough or unknown name. Binary
 * searches, no allocation. */
const struct fsc_metric_family *fsc_metric_family_of(const char *metric);

/* The family exposed as `name` (any origin), or NULL. Binary searches,
 * then a scan of the few renamed families. */
const struct fsc_metric_family *fsc_metric_family_named(const char *name);

/* The k-th family over all tables, k < fsc_metric_family_count(), in table
 * order; for the generator and the checks. */
size_t fsc_metric_family_count(void);
const struct fsc_metric_family *fsc_metric_family_at(size_t k);

/* Passthrough families: a vendor name no profile maps, exposed under the
 * profile's prefix (profile.h). Their HELP is the prefix's, by type. */
struct fsc_metric_passthrough {
    const char *prefix; /* "fabric_junos_" */
    const char *counter_help, *gauge_help, *histogram_help;
};
extern const struct fsc_metric_passthrough fsc_mf_passthrough[];
extern const size_t fsc_mf_passthrough_count;

/* The HELP of a family the table does not list (`metric` a registry name,
 * type enum fsc_mf_type): its passthrough prefix's sentence, else one that
 * says the collector has no description of it. Never NULL. */
const char *fsc_metric_unlisted_help(const char *metric, uint8_t type);

/* The info families and which of them carries a label. */
enum fsc_info_family {
    FSC_INFO_NONE = 0, /* an identity label: it stays on the series */
    FSC_INFO_PORT,     /* fabric_port_info{device,port,...}: cabling and place */
    FSC_INFO_NIC,      /* fabric_nic_info{device,port,...}: the NIC behind the port */
    FSC_INFO_NODE,     /* fabric_node_info{device,node}: the host's node number */
    FSC_INFO__COUNT
};

/* Which info family label `name` belongs to (FSC_INFO_NONE: it identifies
 * the series and stays on it). `peer` ("device:port" as the topology and
 * the cable plan write it) is shown as `peer` (the device) and `peer_port`. */
enum fsc_info_family fsc_metric_info_label(const char *name);

/* The exposed name of info family f (FSC_INFO_PORT .. FSC_INFO_NODE). */
const char *fsc_metric_info_name(enum fsc_info_family f);

/* Checks the tables: each sorted by its key, names and keys unique,
 * names valid, counters ending in _total and nothing else, a unit word in
 * the name agreeing with the unit (`_bytes`: bytes, `_seconds`: seconds,
 * `_ratio`: ratio, `_per_second`: per second), the HELP non-empty, ending
 * in '.', saying the unit and naming no metric, every `rate`/`max` a
 * family of that origin, and no name promtool's linter refuses (a type
 * word, bits, an abbreviated unit). Returns 0, or -EINVAL with a sentence
 * in err. */
int fsc_metric_families_check(char *err, size_t errlen);

#endif
