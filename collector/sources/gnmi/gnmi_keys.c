/* gnmi sources: subscription streams, the built-in stream plan, reconnect
 * backoff. The gnmi source table itself is in config_sources.c. */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"

#define MS  1000000ll
#define SEC 1000000000ll

static const char *const mode_names[] = {"sample", "on_change", NULL};

static int check_gnmi_path(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (s[0] != '/')
        return fsc_cfg_fail_at(ctx, val, "%s is not a gNMI path (it must start with '/')",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

static int stream_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    struct fsc_gnmi_stream *st = obj;
    (void)mark;
    const struct fsc_ypair *si = fsc_ymap_get(node, "sample_interval");
    if (st->mode == FSC_GNMI_ON_CHANGE && si != NULL) {
        size_t pl = fsc_cfg_path_key(ctx, "sample_interval");
        fsc_cfg_fail_at(ctx, si->key, "only allowed with mode: sample");
        fsc_cfg_path_pop(ctx, pl);
        return -1;
    }
    return 0;
}

#define STREAM(field) offsetof(struct fsc_gnmi_stream, field)
static const struct fsc_ckey stream_keys[] = {
    {.key = "name",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = STREAM(name),
     .check = fsc_cfg_check_name},
    {.key = "paths",
     .kind = FSC_CK_STRLIST,
     .flags = FSC_CF_REQUIRED | FSC_CF_LONG,
     .off = STREAM(paths),
     .off2 = STREAM(n_paths),
     .min = 1,
     .max_items = 64,
     .check = check_gnmi_path},
    {.key = "mode", .kind = FSC_CK_ENUM, .off = STREAM(mode), .names = mode_names},
    {.key = "sample_interval",
     .kind = FSC_CK_DUR,
     .flags = FSC_CF_OMIT_ZERO,
     .off = STREAM(sample_interval_ns),
     .min = 10 * MS,
     .max = 3600 * SEC},
    {.key = "updates_only", .kind = FSC_CK_BOOL, .off = STREAM(updates_only)},
};

const struct fsc_cspec fsc_cspec_gnmi_stream = {
    .what = "a gnmi stream",
    .keys = stream_keys,
    .n_keys = FSC_NELEM(stream_keys),
    .finish = stream_finish,
    .mark_off = STREAM(mark),
};

static void backoff_defaults(void *obj)
{
    struct fsc_backoff *b = obj;
    b->initial_ns = 1 * SEC;
    b->max_ns = 60 * SEC;
}

static int backoff_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                          struct fsc_config_mark mark, void *obj)
{
    const struct fsc_backoff *b = obj;
    if (b->initial_ns <= b->max_ns)
        return 0;
    struct fsc_config_mark m = fsc_cfg_key_mark(node, "initial", mark);
    size_t pl = fsc_cfg_path_key(ctx, "initial");
    fsc_cfg_fail(ctx, m.line, m.col, "must not be longer than max");
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

static const struct fsc_ckey backoff_keys[] = {
    {.key = "initial",
     .kind = FSC_CK_DUR,
     .off = offsetof(struct fsc_backoff, initial_ns),
     .min = 10 * MS,
     .max = 3600 * SEC},
    {.key = "max",
     .kind = FSC_CK_DUR,
     .off = offsetof(struct fsc_backoff, max_ns),
     .min = 10 * MS,
     .max = 86400 * SEC},
};

const struct fsc_cspec fsc_cspec_backoff = {
    .keys = backoff_keys,
    .n_keys = FSC_NELEM(backoff_keys),
    .defaults = backoff_defaults,
    .finish = backoff_finish,
};

/* The built-in subscription plan: counters in one stream, queues in a second
 * and the rest in a third, because a single Junos stream stalls at high
 * update rates (DESIGN §6). */
struct plan_stream {
    const char *name;
    const char *paths[3];
};

static const struct plan_stream default_plan[] = {
    {"interfaces", {"/interfaces/interface/state/counters", NULL, NULL}},
    {"queues",
     {"/qos/interfaces/interface/output/queues/queue/state", "/junos/system/linecard/qmon-sw/",
      NULL}},
    {"rest",
     {"/interfaces/interface/ethernet/state/counters", "/junos/system/linecard/interface/", NULL}},
};

int fsc_cfg_gnmi_default_streams(struct fsc_cctx *ctx, const struct fsc_ynode *at,
                                 struct fsc_gnmi_config *g)
{
    size_t n = FSC_NELEM(default_plan);
    g->streams = fsc_cfg_alloc(ctx, at, n * sizeof(*g->streams));
    if (g->streams == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct fsc_gnmi_stream *st = &g->streams[i];
        size_t np = 0;
        while (np < 3 && default_plan[i].paths[np] != NULL)
            np++;
        st->name = default_plan[i].name;
        st->paths = fsc_cfg_alloc(ctx, at, np * sizeof(*st->paths));
        if (st->paths == NULL)
            return -1;
        for (size_t p = 0; p < np; p++)
            st->paths[p] = default_plan[i].paths[p];
        st->n_paths = np;
        st->mode = FSC_GNMI_SAMPLE;
    }
    g->n_streams = n;
    return 0;
}

/* Stream names and paths must be unique within a source: a path in two
 * streams would be subscribed twice and counted twice. */
int fsc_cfg_gnmi_check_streams(struct fsc_cctx *ctx, const struct fsc_gnmi_config *g)
{
    for (size_t i = 0; i < g->n_streams; i++) {
        const struct fsc_gnmi_stream *a = &g->streams[i];
        for (size_t j = 0; j <= i; j++) {
            const struct fsc_gnmi_stream *b = &g->streams[j];
            if (j < i && strcmp(a->name, b->name) == 0) {
                size_t pl = fsc_cfg_path_key(ctx, "streams");
                fsc_cfg_path_index(ctx, i);
                fsc_cfg_path_key(ctx, "name");
                fsc_cfg_fail(ctx, a->mark.line, a->mark.col,
                             "\"%s\" is already the name of streams[%zu]", a->name, j);
                fsc_cfg_path_pop(ctx, pl);
                return -1;
            }
            for (size_t p = 0; p < a->n_paths; p++) {
                for (size_t q = 0; q < (j < i ? b->n_paths : p); q++) {
                    if (strcmp(a->paths[p], b->paths[q]) != 0)
                        continue;
                    size_t pl = fsc_cfg_path_key(ctx, "streams");
                    fsc_cfg_path_index(ctx, i);
                    fsc_cfg_path_key(ctx, "paths");
                    fsc_cfg_path_index(ctx, p);
                    char qp[96];
                    fsc_cfg_fail(ctx, a->mark.line, a->mark.col, "path %s is also in streams[%zu]",
                                 fsc_cfg_quote(a->paths[p], qp, sizeof(qp)), j);
                    fsc_cfg_path_pop(ctx, pl);
                    return -1;
                }
            }
        }
    }
    return 0;
}
