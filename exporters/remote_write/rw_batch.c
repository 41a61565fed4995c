/* Queued samples -> one snappy-compressed WriteRequest (contract in
 * rw_int.h). Names and labels are looked up in the registry at encode time
 * (lock-free), so a queued sample is 24 bytes whatever its label set. */
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
}

void fsc_rw_encoder_free(struct fsc_rw_encoder *enc)
{
    fsc_buf_free(&enc->body);
    fsc_buf_free(&enc->z);
    free(enc->pts);
    enc->pts = NULL;
    enc->cap_pts = 0;
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

size_t fsc_rw_sample_labels(const struct fsc_registry *reg, const struct fsc_rw_sample *s,
                            struct fsc_rw_label *out, size_t max, char *nb)
{
    const char *metric = fsc_registry_metric(reg, s->id);
    if (!metric || max < MAX_LABELS)
        return 0;
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t nl = fsc_registry_labels(reg, s->id, lab, FSC_REGISTRY_MAX_LABELS);
    if (nl > FSC_REGISTRY_MAX_LABELS)
        nl = FSC_REGISTRY_MAX_LABELS;

    const char *name = metric, *extra = NULL, *extra_value = NULL;
    const char *dir = s->dir == FSC_DIR_RX ? "rx" : "tx";
    switch (s->what) {
    case FSC_RW_RAW_COUNTER: {
        size_t ml = strlen(metric);
        if (ml < 6 || strcmp(metric + ml - 6, "_total") != 0) {
            memcpy(nb, metric, ml);
            memcpy(nb + ml, "_total", 7);
            name = nb;
        }
        break;
    }
    case FSC_RW_PORT_RATE:
        name = "fabric_port_bytes_per_second", extra = "direction", extra_value = dir;
        break;
    case FSC_RW_PORT_UTIL:
        name = "fabric_port_utilization_ratio", extra = "direction", extra_value = dir;
        break;
    case FSC_RW_FINE_PORT_RATE:
        name = "fabric_port_fine_bytes_per_second", extra = "direction", extra_value = dir;
        break;
    case FSC_RW_DET_RATE:
        name = "fabric_rate_per_second", extra = "counter", extra_value = metric;
        break;
    case FSC_RW_FINE_RATE:
        name = "fabric_fine_rate_per_second", extra = "counter", extra_value = metric;
        break;
    default:
        break;
    }
    size_t n = 0;
    out[n++] = mk("__name__", name);
    for (size_t i = 0; i < nl; i++) {
        /* A series that has the label already keeps its own (as /metrics). */
        if (extra && strcmp(lab[i].name, extra) == 0)
            extra = NULL;
        out[n++] = mk(lab[i].name, lab[i].value);
    }
    if (extra)
        out[n++] = mk(extra, extra_value);
    /* Insertion sort by name (bytewise, as Prometheus compares): at most 18,
     * all but two already in order. */
    for (size_t i = 1; i < n; i++) {
        struct fsc_rw_label t = out[i];
        size_t j = i;
        while (j > 0 && label_cmp(&out[j - 1], &t) > 0) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = t;
    }
    return n;
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
    char nb[FSC_REGISTRY_NAME_MAX + 8];
    struct fsc_rw_label lab[MAX_LABELS];
    for (size_t i = 0; i < n;) {
        size_t j = i, np = 0;
        for (; j < n && batch[j].id == batch[i].id && batch[j].what == batch[i].what; j++) {
            if (np > 0 && enc->pts[np - 1].t_ms == batch[j].t_ms)
                continue; /* one sample per millisecond (receivers refuse two) */
            enc->pts[np++] = (struct fsc_rw_point){batch[j].value, batch[j].t_ms};
        }
        size_t nl = fsc_rw_sample_labels(enc->reg, &batch[i], lab, MAX_LABELS, nb);
        if (nl > 0) {
            int rc = fsc_rw_encode_series(&enc->body, lab, nl, enc->pts, np);
            if (rc != 0)
                return rc;
        }
        i = j;
    }
    return fsc_rw_snappy(enc->body.data ? enc->body.data : "", enc->body.len, &enc->z);
}
