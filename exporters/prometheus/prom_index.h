/* The renderer's index of the registry: which series belong to which raw
 * family, and each series' label text, formatted once.
 *
 * Why: a scrape must walk every series family by family (all lines of a
 * family contiguous), while series ids are handed out in arrival order (the
 * 20 counters of a port one after the other). Re-grouping 1 M ids on every
 * scrape would cost more than formatting them, so the index keeps one id list
 * per metric name and only appends the ids created since the previous
 * scrape (ids only grow). Label sets are shared by many series (the counters
 * of one port), so their escaped text `device="leaf1",port="et-0/0/1"` is
 * kept once per distinct label set, found by the registry's interned string
 * pointers, and every series points at its block.
 *
 * Internal to exporters/prometheus. Not thread-safe: the renderer's thread
 * owns it. Memory grows with the number of series and label sets indexed and
 * is bounded by the limit given to fsc_prom_index_update(). */
#ifndef FSC_PROM_INDEX_H
#define FSC_PROM_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric_families.h"
#include "model/registry.h"
#include "model/sample.h"
#include "model/topo_info.h"

enum fsc_prom_ftype {
    FSC_PROM_PENDING = 0, /* no series with engine state seen yet: kind unknown */
    FSC_PROM_COUNTER = 1,
    FSC_PROM_GAUGE = 2,
    /* One part (_bucket, _count or _sum) of a histogram a source keeps as
     * separate counters (traits.expo): the families of one base name are
     * exposed together as one histogram family (prom_hist.c). */
    FSC_PROM_HISTOGRAM = 3,
};

/* Label names the renderer adds to derived series; a series that already has
 * one of them (bit set in fsc_prom_block.reserved) does not get that label
 * added, so no line ever carries a label twice. */
enum {
    FSC_PROM_RES_DIRECTION = 1u << 0,
    FSC_PROM_RES_WINDOW = 1u << 1,
    FSC_PROM_RES_SIGNAL = 1u << 2,
    FSC_PROM_RES_LE = 1u << 3,
};

/* One distinct set of identity labels and its text. Topology labels are
 * not part of it (model/topo_info.h): two registry label sets that differ only in
 * them share a block. */
struct fsc_prom_block {
    uint32_t off;     /* into fsc_prom_index.text */
    uint32_t len;     /* bytes, no braces, already escaped */
    uint32_t key;     /* into fsc_prom_index.keys: 2 * n interned pointers */
    uint8_t n;        /* labels */
    uint8_t reserved; /* FSC_PROM_RES_* */
    uint8_t has_sig;  /* sig is set */
    uint8_t multi;    /* series with other topology labels share it: a re-cabling */
    uint32_t sig;     /* hash of the topology labels of its first series */
};

/* Where a histogram part's series sits in its histogram (hist_order). */
struct fsc_prom_hpos {
    const char *le; /* _bucket: the bound (the registry's `le` value); else NULL */
    uint32_t base;  /* the label block of its label set without `le` */
};

/* One raw family: every series of one registry metric name. */
struct fsc_prom_family {
    const char *metric; /* the registry's interned name (the key) */
    size_t metric_len;
    const struct fsc_metric_family *mf; /* its row of the family table; NULL: unlisted */
    uint8_t type;                       /* enum fsc_prom_ftype */
    uint8_t sorted_;                    /* internal */
    uint8_t part;                       /* FSC_PROM_HISTOGRAM: enum fsc_expo, which part */
    /* OpenMetrics family name: the metric without "_total"; for text the
     * sample name is used as family name. Counters' samples are always
     * named <om_name>_total (appended for passthrough counters that lack it).
     * A histogram part: the base name (metric without _bucket / _count /
     * _sum), the family name in both formats. */
    char *om_name; /* from mf->name when the table renames the family */
    size_t om_len;
    char *sample_name; /* set once the type is known */
    size_t sample_len;
    /* In creation order; a histogram part's in exposition order once
     * fsc_prom_family_hist_order() ran (hist[i] then describes ids[i]). */
    fsc_series_id *ids;
    uint32_t n_ids, cap_ids;
    struct fsc_prom_hpos *hist;
    uint32_t n_hist; /* ids ordered so far; < n_ids when new ids came */
};

/* What the index knows about one series id. */
struct fsc_prom_series {
    uint32_t block;     /* into blocks[]: its identity labels */
    uint16_t source;    /* registry source */
    uint8_t seen;       /* t_fold and moved_at are set (the renderer's staleness) */
    uint8_t superseded; /* a newer series of its family has its identity labels: not shown */
    uint32_t t_fold;    /* the series' last device time t_last, folded to 32 bits */
    uint32_t info;      /* its topology record (model/topo_info.h), or FSC_TOPO_INFO_NONE */
    int64_t moved_at;   /* local time (render now_ns) t_fold last changed */
};

struct fsc_prom_index {
    struct fsc_prom_family **fams; /* creation order */
    uint32_t n_fams, cap_fams;
    uint32_t *fam_slots; /* open addressing: family index + 1, 0 = empty */
    uint32_t fam_mask;
    struct fsc_prom_family **order; /* sorted by om_name, then type */
    int order_dirty;

    struct fsc_prom_series *ser; /* [0, indexed) */
    uint32_t indexed, cap_ser;

    struct fsc_prom_block *blocks;
    uint32_t n_blocks, cap_blocks;
    uint32_t *block_slots; /* open addressing: block index + 1 */
    uint32_t block_mask;
    char *text;
    size_t text_len, text_cap;
    const char **keys;
    size_t keys_len, keys_cap;

    struct fsc_topo_infos infos; /* the topology taken off the series */
};

/* Frees everything; the index is then empty and reusable. */
void fsc_prom_index_free(struct fsc_prom_index *ix);

/* Indexes the series created since the last call, up to `limit` series in
 * total (ids >= limit are never exposed): its family, the block of its
 * identity labels (every label but the topology ones,
 * fsc_metric_info_label, which go to its topology record), and whether it
 * supersedes older series of its family with the same identity labels (a
 * port re-cabled: its series were interned again with a new peer).
 * Returns 0, or -ENOMEM with the index still consistent (the series not
 * indexed yet are tried again next time). Thread: the renderer's; reads the
 * registry lock-free. */
int fsc_prom_index_update(struct fsc_prom_index *ix, const struct fsc_registry *reg,
                          uint32_t limit);

/* Sets a pending family's type from the kind and expo of its first series
 * with engine state (enum fsc_kind, enum fsc_expo) and names its samples. A
 * histogram part whose metric lacks the part's suffix is a plain counter.
 * Returns 0 or -ENOMEM. */
int fsc_prom_family_resolve(struct fsc_prom_index *ix, struct fsc_prom_family *f, uint8_t kind,
                            uint8_t expo);

/* Orders a histogram part's ids for exposition, when new ids came: by label
 * set without `le` (its block index), then by the numeric value of `le`
 * (+Inf last), and fills f->hist. Label blocks without `le` are created
 * when missing. Returns 0 or -ENOMEM (the family is then left as it was). */
int fsc_prom_family_hist_order(struct fsc_prom_index *ix, struct fsc_prom_family *f);

/* Sorts ix->order when families were added. Returns 0 or -ENOMEM. */
int fsc_prom_index_sort(struct fsc_prom_index *ix);

#endif
