/* Queued samples -> one snappy-compressed WriteRequest (contract in
 * rw_int.h). Names and labels are looked up in the registry at encode time
 * (lock-free), so a queued sample is 24 bytes whatever its label set. The
 * names and labels are those /metrics shows (docs/METRICS.md): the family
 * table's names, topology in the info families. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "remote_write/rw_int.h"

/* Labels of one series: __name__, the registry's, one added. */
#define MAX_LABELS (FSC_REGISTRY_MAX_LABELS + 2)

void fsc_rw_encoder_init(struct fsc_rw_encoder *enc, const struct fsc_registry *reg)
{
    memset(enc, 0, sizeof(*enc));
    enc->reg = reg;
    enc->info_ms = INT64_MIN;
}

void fsc_rw_encoder_free(struct fsc_rw_encoder *enc)
{
    fsc_buf_free(&enc->body);
    fsc_buf_free(&enc->z);
    free(enc->pts);
    enc->pts = NULL;
    enc->cap_pts = 0;
    fsc_rw_names_free(&enc->names);
    fsc_topo_infos_free(&enc->infos);
}

static int sample_cmp(const void *a, const void *b)
{
    const struct fsc_rw_sample *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->what != y->what)
        return x->what < y->what ? -1 : 1;
    if (x->t_ms != y->t_ms)
        return x->t_ms < y->t_ms ? -1 : 1;
    return 0;
}

static struct fsc_rw_label mk(const char *name, const char *value)
{
    return (struct fsc_rw_label){name, strlen(name), value, strlen(value)};
}

static int label_cmp(const struct fsc_rw_label *a, const struct fsc_rw_label *b)
{
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    if (c != 0)
        return c;
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

/* Insertion sort by name (bytewise, as Prometheus compares): at most 18,
 * all but one already in order. */
static void sort_labels(struct fsc_rw_label *out, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct fsc_rw_label t = out[i];
        size_t j = i;
        while (j > 0 && label_cmp(&out[j - 1], &t) > 0) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = t;
    }
}

/* `family` with its last `cut` bytes replaced by `add`, into nb
 * (FSC_RW_NAME_BUF bytes). */
static const char *renamed(char *nb, const char *family, size_t cut, const char *add)
{
    size_t l = strlen(family);
    l = l > cut ? l - cut : 0;
    if (l + strlen(add) + 1 > FSC_RW_NAME_BUF)
        l = FSC_RW_NAME_BUF - strlen(add) - 1;
    memcpy(nb, family, l);
    memcpy(nb + l, add, strlen(add) + 1);
    return nb;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The name of a sample of a series of registry name `metric` and family row
 * mf (NULL: unlisted), as /metrics names it. */
static const char *sample_name(const struct fsc_metric_family *mf, const char *metric, uint8_t what,
                               char *nb)
{
    const char *family = mf ? mf->name : metric;
    int total = ends_with(family, "_total");
    switch (what) {
    case FSC_RW_RAW_COUNTER:
        return total ? family : renamed(nb, family, 0, "_total");
    case FSC_RW_RAW_GAUGE:
        return family;
    case FSC_RW_PORT_RATE:
        return "fabric_port_bytes_per_second";
    case FSC_RW_PORT_UTIL:
        return "fabric_port_utilization_ratio";
    case FSC_RW_FINE_PORT_RATE:
        return "fabric_port_fine_bytes_per_second";
    case FSC_RW_DET_RATE:
        /* The counter's rate family; an unlisted one is named as the
         * renderer names it. */
        if (mf && mf->rate)
            return mf->rate;
        return renamed(nb, family, total ? 6 : 0, "_per_second");
    case FSC_RW_FINE_RATE:
        if (mf && mf->rate)
            return renamed(nb, mf->rate, strlen("_per_second"), "_fine_per_second");
        return renamed(nb, family, total ? 6 : 0, "_fine_per_second");
    default:
        return family;
    }
}

size_t fsc_rw_sample_labels(const struct fsc_registry *reg, struct fsc_rw_names *names,
                            const struct fsc_rw_sample *s, struct fsc_rw_label *out, size_t max,
                            char *nb, struct fsc_topo_split *sp)
{
    const char *metric = fsc_registry_metric(reg, s->id);
    if (!metric || max < MAX_LABELS)
        return 0;
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t nl = fsc_registry_labels(reg, s->id, lab, FSC_REGISTRY_MAX_LABELS);
    if (nl > FSC_REGISTRY_MAX_LABELS)
        nl = FSC_REGISTRY_MAX_LABELS;
    struct fsc_topo_split own;
    if (!sp)
        sp = &own;
    fsc_topo_split(lab, nl, sp);

    const struct fsc_metric_family *mf =
        names ? fsc_rw_family(names, metric) : fsc_metric_family_of(metric);
    const char *name = sample_name(mf, metric, s->what, nb);
    const char *extra = NULL;
    const char *dir = s->dir == FSC_DIR_RX ? "rx" : "tx";
    if (s->what == FSC_RW_PORT_RATE || s->what == FSC_RW_PORT_UTIL ||
        s->what == FSC_RW_FINE_PORT_RATE)
        extra = "direction";
    size_t n = 0;
    out[n++] = mk("__name__", name);
    for (size_t i = 0; i < sp->n_id; i++) {
        /* A series that has the label already keeps its own (as /metrics). */
        if (extra && strcmp(sp->id[i].name, extra) == 0)
            extra = NULL;
        out[n++] = mk(sp->id[i].name, sp->id[i].value);
    }
    if (extra)
        out[n++] = mk(extra, dir);
    sort_labels(out, n);
    return n;
}

/* The info lines the batch's series touched (generation enc->gen), one
 * sample of value 1 each at t_ms. Returns 0 or the buffer's errno. */
static int encode_infos(struct fsc_rw_encoder *enc, int64_t t_ms)
{
    static const enum fsc_info_family fams[] = {FSC_INFO_PORT, FSC_INFO_NIC, FSC_INFO_NODE};
    struct fsc_topo_label tl[FSC_TOPO_LABELS_MAX];
    struct fsc_rw_label lab[FSC_TOPO_LABELS_MAX + 1];
    const struct fsc_rw_point pt = {1.0, t_ms};
    for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
        for (uint32_t i = 0; i < enc->infos.n; i++) {
            if (enc->infos.shown[i] != enc->gen)
                continue;
            size_t n = fsc_topo_info_labels(&enc->infos.rec[i], fams[f], tl);
            if (n == 0)
                continue;
            lab[0] = mk("__name__", fsc_metric_info_name(fams[f]));
            for (size_t k = 0; k < n; k++) /* already sorted, after __name__ */
                lab[k + 1] = (struct fsc_rw_label){tl[k].name, strlen(tl[k].name), tl[k].value,
                                                   tl[k].value_len};
            int rc = fsc_rw_encode_series(&enc->body, lab, n + 1, &pt, 1);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

int fsc_rw_encode_batch(struct fsc_rw_encoder *enc, struct fsc_rw_sample *batch, size_t n)
{
    fsc_buf_reset(&enc->body);
    if (n > enc->cap_pts) {
        struct fsc_rw_point *p = realloc(enc->pts, n * sizeof(*p));
        if (!p)
            return -ENOMEM;
        enc->pts = p;
        enc->cap_pts = n;
    }
    qsort(batch, n, sizeof(*batch), sample_cmp);
    char nb[FSC_RW_NAME_BUF];
    struct fsc_rw_label lab[MAX_LABELS];
    struct fsc_topo_split sp;
    int64_t newest = INT64_MIN;
    enc->gen++;
    for (size_t i = 0; i < n;) {
        size_t j = i, np = 0;
        for (; j < n && batch[j].id == batch[i].id && batch[j].what == batch[i].what; j++) {
            if (np > 0 && enc->pts[np - 1].t_ms == batch[j].t_ms)
                continue; /* one sample per millisecond (receivers refuse two) */
            enc->pts[np++] = (struct fsc_rw_point){batch[j].value, batch[j].t_ms};
            if (batch[j].t_ms > newest)
                newest = batch[j].t_ms;
        }
        size_t nl =
            fsc_rw_sample_labels(enc->reg, &enc->names, &batch[i], lab, MAX_LABELS, nb, &sp);
        if (nl > 0) {
            int rc = fsc_rw_encode_series(&enc->body, lab, nl, enc->pts, np);
            if (rc != 0)
                return rc;
            uint32_t rec;
            if (fsc_topo_info_note(&enc->infos, &sp, &rec) == 0)
                fsc_topo_info_show(&enc->infos, rec, enc->gen);
            /* else: its info line waits for a batch with memory */
        }
        i = j;
    }
    if (newest != INT64_MIN) {
        /* One time for every info line, never going back: a receiver
         * refuses a sample older than the series' last. */
        enc->info_ms = newest > enc->info_ms ? newest : enc->info_ms;
        int rc = encode_infos(enc, enc->info_ms);
        if (rc != 0)
            return rc;
    }
    return fsc_rw_snappy(enc->body.data ? enc->body.data : "", enc->body.len, &enc->z);
}
