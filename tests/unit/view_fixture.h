/* A daemon view (plugin/sink.h) made of rows a test writes, for the sinks
 * that render it (the Prometheus renderer, the status page): the real
 * plugins' tables (fsc_app_tables), with values given by column id, so a
 * test states what a plugin reports without running the plugin. */
#ifndef FSC_VIEW_FIXTURE_H
#define FSC_VIEW_FIXTURE_H

#include <math.h>
#include <string.h>

#include "daemon/plugins.h"
#include "base/stats.h"
#include "plugin/sink.h"

#define VFX_VALS 24

struct vfx_val {
    const char *id; /* column id */
    double v;
};

struct vfx_row {
    const char *table; /* table id ("gnmi_streams") */
    const char *keys[FSC_STAT_KEYS_MAX];
    struct vfx_val vals[VFX_VALS]; /* ends at the first id NULL; other columns NAN */
    const struct fsc_stat_hist *hist;
};

struct vfx {
    struct fsc_daemon_view view;
    const struct vfx_row *rows;
    size_t n_rows;
    const struct fsc_source_status *sources;
    size_t n_sources;
};

/* The application's table with this id, or NULL. */
static inline const struct fsc_stat_table *vfx_table(const char *id)
{
    const struct fsc_stat_table *const *t = fsc_app_tables(NULL);
    for (size_t i = 0; t[i]; i++)
        if (strcmp(t[i]->id, id) == 0)
            return t[i];
    return NULL;
}

static inline void vfx_stats(void *arg, const struct fsc_stats_out *out)
{
    const struct vfx *f = arg;
    for (size_t r = 0; r < f->n_rows; r++) {
        const struct vfx_row *row = &f->rows[r];
        const struct fsc_stat_table *t = vfx_table(row->table);
        double v[64];
        if (!t || t->n_cols > 64)
            continue;
        for (size_t c = 0; c < t->n_cols; c++)
            v[c] = NAN;
        for (size_t k = 0; k < VFX_VALS && row->vals[k].id; k++)
            for (size_t c = 0; c < t->n_cols; c++)
                if (strcmp(t->cols[c].id, row->vals[k].id) == 0)
                    v[c] = row->vals[k].v;
        fsc_stats_row(out, t, row->keys, v, row->hist);
    }
}

static inline size_t vfx_sources(void *arg, struct fsc_source_status *out, size_t cap)
{
    const struct vfx *f = arg;
    for (size_t i = 0; i < f->n_sources && i < cap; i++)
        out[i] = f->sources[i];
    return f->n_sources;
}

/* Points f->view at f's rows and sources (set them before or after). */
static inline void vfx_init(struct vfx *f)
{
    f->view = (struct fsc_daemon_view){
        .tables = fsc_app_tables(NULL), .stats = vfx_stats, .sources = vfx_sources, .arg = f};
}

#endif
