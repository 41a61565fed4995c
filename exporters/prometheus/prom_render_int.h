/* The renderer's state, shared by its files (internal to
 * exporters/prometheus):
 *   prom_render.c  create/destroy, the render pass, families
 *   prom_stale.c   which series a render leaves out as stale
 *   prom_series.c  one series: its raw line, and what its derived lines need
 *   prom_hist.c    a histogram kept as separate counters: one histogram family
 *   prom_derived.c the derived families, written from those records
 *   prom_self.c    fabricscope_ self-metrics of the engine and the registry
 *   prom_plugins.c fabricscope_ families of the plugins' stats tables
 *   prom_index.c   family and label index; prom_text.c text primitives */
#ifndef FSC_PROM_RENDER_INT_H
#define FSC_PROM_RENDER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/engine_keys.h"
#include "model/topology_keys.h"
#include "prometheus/prom_config.h"
#include "prometheus/prom_index.h"
#include "prometheus/prom_render.h"
#include "prometheus/prom_text.h"

/* Views copied per engine lock hold: ~340 KB of views, a few tens of
 * microseconds of lock time (bench/prom_bench.c: 256 .. 2048 render at the
 * same speed; the smaller hold is kinder to ingest). */
#define FSC_PROM_CHUNK 1024

/* Derived families, in exposition order (docs/METRICS.md). */
enum fsc_prom_derived {
    FSC_PD_PORT_INFO = 0, /* fabric_port_info */
    FSC_PD_NIC_INFO,      /* fabric_nic_info */
    FSC_PD_NODE_INFO,     /* fabric_node_info */
    FSC_PD_PORT_RATE,     /* fabric_port_bytes_per_second */
    FSC_PD_UTIL,          /* fabric_port_utilization_ratio */
    FSC_PD_UTIL_PEAK,     /* fabric_port_utilization_peak_ratio{window} */
    FSC_PD_FINE_UTIL,     /* fabric_port_fine_utilization_ratio (histogram) */
    FSC_PD_RATE,          /* <counter>_per_second: one family per detector counter */
    FSC_PD_MICROBURST,    /* fabric_microbursts_total */
    FSC_PD_BURST,         /* fabric_bursts_total */
    FSC_PD_MB_DUR,        /* fabric_microburst_duration_seconds (histogram) */
    FSC_PD_CNP,           /* fabric_cnp_spikes_total */
    FSC_PD_ECN,           /* fabric_ecn_spikes_total */
    FSC_PD_REORDER,       /* fabric_reorder_spikes_total */
    FSC_PD_PFC,           /* fabric_pfc_storms_total */
    FSC_PD_EVIDENCE,      /* fabric_congestion_evidence_total */
    FSC_PD_IMB_RATIO,     /* fabric_uplink_imbalance_ratio{group} */
    FSC_PD_IMB_EVENTS,    /* fabric_uplink_imbalance_events_total{group} */
    FSC_PD__COUNT
};

/* Name and type of a family the renderer defines itself; its HELP is the
 * family table's (model/metric_families.h). */
struct fsc_prom_fdesc {
    const char *base;   /* OpenMetrics family name */
    const char *sample; /* sample name (counters: base + "_total") */
    const char *type;   /* "counter", "gauge", "histogram" */
};

extern const struct fsc_prom_fdesc fsc_prom_derived_desc[FSC_PD__COUNT];

/* Staleness bookkeeping per registry source. Device times are only ever
 * compared with device times of the same source; the local clock (now_ns)
 * only with the local clock. */
struct fsc_prom_src {
    int64_t moved_at; /* local time one of its series' device time last moved (or the
                       * source appeared) */
    uint8_t seen;     /* moved_at is set */
};

/* What a port-bytes series' derived lines need, copied from its view during
 * the raw pass: derived families are written after the raw ones, straight
 * into the output, from these records (a few hundred bytes per port instead
 * of the ~3.5 KB of text they become, which would otherwise be written to a
 * side buffer and copied again). */
struct fsc_prom_port_rec {
    uint32_t block; /* label block */
    uint8_t dir;    /* FSC_DIR_RX / FSC_DIR_TX */
    uint8_t rate;   /* has_value and a level-0 window completed: the rate is valid */
    uint8_t util;   /* has_util: histograms and burst counters are valid */
    uint8_t done;   /* bit L: a window of level L completed, its peak is valid */
    double speed;   /* bits/s; 0 = unknown */
    double bytes_per_s;
    double peak[FSC_MAX_WINDOWS]; /* bytes/s */
    uint64_t events, bursts;
    struct fsc_hist_util hu;
    struct fsc_hist_duration hd;
};

/* The same for a series that feeds a spike, storm or evidence detector. */
struct fsc_prom_det_rec {
    uint32_t block;
    uint8_t family; /* enum fsc_prom_derived: FSC_PD_CNP .. FSC_PD_EVIDENCE */
    uint8_t rate;   /* per_s is valid */
    uint8_t max;    /* a peak gauge with a trailing maximum: peak_max is valid */
    uint8_t pad_;
    const struct fsc_prom_family *fam; /* its raw family: its rate family, `signal` */
    double per_s;
    double peak_max[FSC_PEAK_MAX_WINDOWS];
    uint64_t events;
};

/* The escaped label text of one topology record's three info lines. */
struct fsc_prom_info_text {
    uint32_t version; /* the record's version it was made from */
    uint8_t valid;
    uint8_t pad_[3];
    uint32_t off[3], len[3]; /* into info_arena; len 0: no line in that family */
};

/* A histogram part's series as the raw pass found it (prom_hist.c). */
struct fsc_prom_hval {
    union fsc_value v;
    uint8_t ok;  /* present, fresh and has a value: its line is written */
    uint8_t f64; /* v.d, else v.u */
};

struct fsc_prom_renderer {
    struct fsc_prom_render_env env;
    struct fsc_prom_index ix;
    struct fsc_prom_writer w;
    struct fsc_series_view *views; /* FSC_PROM_CHUNK */
    struct fsc_prom_port_rec *ports;
    size_t n_ports, cap_ports;
    struct fsc_prom_det_rec *dets;
    size_t n_dets, cap_dets;
    struct fsc_prom_hval *hvals; /* one histogram family's series; reused */
    size_t cap_hvals;
    struct fsc_prom_src *src;
    size_t n_src;

    int64_t stale_after_ns;
    uint32_t max_series;
    unsigned n_windows;
    struct fsc_prom_str window[FSC_MAX_WINDOWS];           /* "1s", "10s", "1m" */
    struct fsc_prom_str peak_window[FSC_PEAK_MAX_WINDOWS]; /* "15s", "60s" */
    struct fsc_prom_str util_le[FSC_UTIL_BUCKETS];
    struct fsc_prom_str dur_le[FSC_DURATION_BUCKETS];
    struct fsc_prom_str ratio_le[FSC_INTERVAL_RATIO_BUCKETS];

    /* The render in progress. */
    int om;
    int64_t now_ns;
    uint32_t gen; /* render count: which topology records were shown (model/topo_info.h) */

    /* The info lines' label text per topology record and info family,
     * formatted when the record's version moves (prom_derived.c). */
    struct fsc_prom_info_text *info_text;
    uint32_t cap_info_text;
    struct fsc_buf info_arena;

    /* The plugin families' rows, reused from scrape to scrape (prom_plugins.c). */
    void *stat_rows;
    size_t cap_stat_rows;
    struct fsc_buf stat_strs;

    /* The streamed render in progress: its flush and the bytes handed to it. */
    const struct fsc_prom_flush *flush;
    uint64_t flushed;

    /* The previous render, for fabricscope_scrape_*. */
    double last_duration_s;
    uint64_t last_samples;
    uint64_t last_bytes;
};

/* Per raw family: the family whose HELP/TYPE opened the current group of
 * families that share one exposition name (NULL: none written yet). */
struct fsc_prom_rawctx {
    const struct fsc_prom_family *hdr;
};

/* One series: writes its raw sample into out (header first when needed) and
 * records what its derived lines need (r->ports, r->dets). The caller has
 * checked staleness and presence. Errors land in r->w.err. */
void fsc_prom_series(struct fsc_prom_renderer *r, struct fsc_prom_family *f, fsc_series_id id,
                     const struct fsc_series_view *v, struct fsc_prom_rawctx *raw,
                     struct fsc_buf *out);

/* 1 when present series `id` (view v) is to be left out as stale
 * (prom_stale.c's top comment); also notes whether its device time moved,
 * so it is called for every present series of a render. */
int fsc_prom_stale(struct fsc_prom_renderer *r, fsc_series_id id, const struct fsc_series_view *v);

/* After a render: a source seen for the first time counts as moved now. */
void fsc_prom_stale_settle(struct fsc_prom_renderer *r);

/* Writes one histogram family from the n (1..3) raw families of its parts,
 * fams[] in ix.order (adjacent, one per part): for each label set its
 * buckets in increasing `le`, then _count and _sum. Errors land in
 * r->w.err. */
void fsc_prom_hist_family(struct fsc_prom_renderer *r, struct fsc_prom_family *const *fams,
                          size_t n, struct fsc_buf *out);

/* Writes every derived family (docs/METRICS.md order) from the records of
 * the raw pass and the engine's port groups into out. */
void fsc_prom_derived(struct fsc_prom_renderer *r, struct fsc_buf *out);

/* Writes the fabricscope_ self-metrics into out. */
void fsc_prom_self(struct fsc_prom_renderer *r, struct fsc_buf *out);

/* Writes the families of the plugins' and the daemon's stats tables (the
 * view's). Errors land in r->w.err. */
void fsc_prom_plugins(struct fsc_prom_renderer *r, struct fsc_buf *out);

/* The HELP of a family the renderer names itself: the family table's
 * (every such family is listed: metric_families_test). */
static inline const char *fsc_prom_help(const char *sample)
{
    const struct fsc_metric_family *mf = fsc_metric_family_named(sample);
    return mf ? mf->help : "";
}

/* Writes a family header with the renderer's format. Text 0.0.4 names a
 * counter family after its samples (x_total); OpenMetrics names the family
 * x and its samples x_total. */
static inline void fsc_prom_family_header(struct fsc_prom_renderer *r, struct fsc_buf *b,
                                          const struct fsc_prom_fdesc *d)
{
    const char *name = r->om ? d->base : d->sample;
    fsc_prom_header(&r->w, b, name, strlen(name), d->type, fsc_prom_help(d->sample), r->om);
}

#endif
