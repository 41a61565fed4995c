/* gnmi sources: the source's keys, its subscription streams and the
 * built-in stream plan (docs/CONFIG.md, "gnmi"). */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "model/time_guard.h"
#include "sources/gnmi/gnmi_config.h"
#include "sources/gnmi/gnmi_grid.h"

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

static const struct fsc_cspec stream_spec = {
    .what = "a gnmi stream",
    .keys = stream_keys,
    .n_keys = FSC_NELEM(stream_keys),
    .finish = stream_finish,
    .mark_off = STREAM(mark),
};

/* The built-in subscription plan: counters in one stream, queues in a
 * second and the rest in a third, because a single Junos stream stalls at
 * high update rates (docs/CONFIG.md, gnmi, "Why several streams"); FEC and
 * speed leaves in a fourth, so a target that rejects one of those paths
 * costs no counters. Per `os`: qmon-sw only on Junos OS (no Junos OS Evolved
 * release has the sensor, and a target may reject a stream that asks for
 * it); state/high-speed only on Junos OS Evolved (evo-if-oc_render.proto; no
 * Junos OS render proto has it). Sources: docs/vendors/junos.md. */
#define PLAN_PATHS_MAX 5

struct plan_stream {
    const char *name;
    const char *paths[PLAN_PATHS_MAX]; /* NULL-terminated when shorter */
};

static const struct plan_stream evo_plan[] = {
    {"interfaces", {"/interfaces/interface/state/counters"}},
    {"queues", {"/qos/interfaces/interface/output/queues/queue/state"}},
    {"rest",
     {"/interfaces/interface/ethernet/state/counters", "/junos/system/linecard/interface/"}},
    {"links",
     {"/state/interfaces/interface/ethernet/counters",
      "/interfaces/interface/ethernet/state/port-speed",
      "/interfaces/interface/ethernet/state/negotiated-port-speed",
      "/interfaces/interface/state/high-speed"}},
};

static const struct plan_stream junos_plan[] = {
    {"interfaces", {"/interfaces/interface/state/counters"}},
    {"queues",
     {"/qos/interfaces/interface/output/queues/queue/state", "/junos/system/linecard/qmon-sw/"}},
    {"rest",
     {"/interfaces/interface/ethernet/state/counters", "/junos/system/linecard/interface/"}},
    {"links",
     {"/state/interfaces/interface/ethernet/counters",
      "/interfaces/interface/ethernet/state/port-speed",
      "/interfaces/interface/ethernet/state/negotiated-port-speed"}},
};

static int default_streams(struct fsc_cctx *ctx, const struct fsc_ynode *at,
                           struct fsc_gnmi_config *g)
{
    const struct plan_stream *plan = g->os == FSC_GNMI_OS_JUNOS ? junos_plan : evo_plan;
    size_t n = g->os == FSC_GNMI_OS_JUNOS ? FSC_NELEM(junos_plan) : FSC_NELEM(evo_plan);
    g->streams = fsc_cfg_alloc(ctx, at, n * sizeof(*g->streams));
    if (g->streams == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct fsc_gnmi_stream *st = &g->streams[i];
        size_t np = 0;
        while (np < PLAN_PATHS_MAX && plan[i].paths[np] != NULL)
            np++;
        st->name = plan[i].name;
        st->paths = fsc_cfg_alloc(ctx, at, np * sizeof(*st->paths));
        if (st->paths == NULL)
            return -1;
        for (size_t p = 0; p < np; p++)
            st->paths[p] = plan[i].paths[p];
        st->n_paths = np;
        st->mode = FSC_GNMI_SAMPLE;
    }
    g->n_streams = n;
    return 0;
}

/* Stream names and paths must be unique within a source: a path in two
 * streams would be subscribed twice and counted twice. */
static int check_streams(struct fsc_cctx *ctx, const struct fsc_gnmi_config *g)
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

/* ---- the source ---------------------------------------------------------------- */

static const char *const encoding_names[] = {"proto", "json", "json_ietf", NULL};
/* os: enum fsc_gnmi_os, in its order. */
static const char *const os_names[] = {"evo", "junos", NULL};
/* counter_copy: "profile" (the profile's copy period, left when the data
 * changes faster: copy_grid.h) or "live" (every value true at its own
 * timestamp: a target that reads its counters when it exports them). */
static const char *const counter_copy_names[] = {"profile", "live", NULL};
/* sample_interval_grid: "profile" (Junos: multiples of 2 s, gnmi_plan.h) or
 * "none" (as written: simulators and lab targets that are not Junos). */
static const char *const grid_names[] = {"profile", "none", NULL};

#define X(f) offsetof(struct fsc_gnmi_config, f)

static void gnmi_defaults(void *obj)
{
    struct fsc_gnmi_config *g = obj;
    g->encoding = FSC_GNMI_PROTO;
    g->sample_interval_ns = 2 * SEC;
    g->stall_intervals = 3;
    g->keepalive_ns = 30 * SEC;
    g->connect_timeout_ns = 10 * SEC;
    g->max_time_ahead_ns = FSC_TIME_AHEAD_DEFAULT_NS;
    g->max_time_behind_ns = FSC_TIME_BEHIND_DEFAULT_NS;
}

/* Puts *ns on the source's interval grid; a value that moves is warned
 * about at its key (`pair`, NULL for a built-in value: no warning). Returns
 * 0, or -1 when the warning cannot be stored. */
static int grid_round(struct fsc_cctx *ctx, const struct fsc_ypair *pair, const char *key,
                      const struct fsc_gnmi_config *g, int64_t *ns)
{
    int64_t on = fsc_gnmi_interval_on_grid(*ns, g->interval_grid_ns);
    if (on == *ns)
        return 0;
    *ns = on;
    if (pair == NULL)
        return 0;
    char q[64];
    size_t pl = fsc_cfg_path_key(ctx, key);
    int rc = fsc_cfg_warn(ctx, pair->value->line, pair->value->col,
                          "Junos reports only on multiples of %lld s (Juniper, \"Guidelines for "
                          "Specifying Data Reporting Intervals\"): %s is subscribed as %llds; "
                          "sample_interval_grid: none keeps it (a target that is not Junos)",
                          (long long)(g->interval_grid_ns / SEC),
                          fsc_cfg_quote(pair->value->str ? pair->value->str : "", q, sizeof(q)),
                          (long long)(on / SEC));
    fsc_cfg_path_pop(ctx, pl);
    return rc;
}

static int gnmi_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    struct fsc_gnmi_config *g = obj;
    if (g->device == NULL)
        g->device = ctx->source->name;
    if (g->password.value != NULL && g->username == NULL) {
        const char *key = fsc_ymap_get(node, "password")        ? "password"
                          : fsc_ymap_get(node, "password_file") ? "password_file"
                                                                : "password_env";
        return fsc_cfg_fail_key(ctx, node, key, mark, "a password needs a username");
    }
    if (g->n_streams == 0 && default_streams(ctx, node, g) != 0)
        return -1;
    g->interval_grid_ns = fsc_gnmi_interval_grid(ctx->source->profile, g->sample_interval_grid);
    if (grid_round(ctx, fsc_ymap_get(node, "sample_interval"), "sample_interval", g,
                   &g->sample_interval_ns) != 0)
        return -1;
    const struct fsc_ypair *sl = fsc_ymap_get(node, "streams");
    for (size_t i = 0; i < g->n_streams; i++) {
        struct fsc_gnmi_stream *st = &g->streams[i];
        if (st->mode != FSC_GNMI_SAMPLE)
            continue;
        if (st->sample_interval_ns == 0) {
            st->sample_interval_ns = g->sample_interval_ns; /* already on the grid */
            continue;
        }
        const struct fsc_ynode *item =
            sl && sl->value->kind == FSC_YNODE_SEQ && i < sl->value->n ? sl->value->items[i] : NULL;
        size_t pl = fsc_cfg_path_key(ctx, "streams");
        fsc_cfg_path_index(ctx, i);
        int rc = grid_round(ctx, item ? fsc_ymap_get(item, "sample_interval") : NULL,
                            "sample_interval", g, &st->sample_interval_ns);
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    return check_streams(ctx, g);
}

static const struct fsc_ckey gnmi_keys[] = {
    {.key = "address",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = X(address),
     .check = fsc_cfg_check_hostport},
    {.key = "device", .kind = FSC_CK_STR, .off = X(device), .check = fsc_cfg_check_name},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = X(tls),
     .spec = &fsc_cspec_tls_client},
    {.key = "username", .kind = FSC_CK_STR, .off = X(username)},
    {.key = "password", .kind = FSC_CK_SECRET, .off = X(password)},
    {.key = "password_file", .kind = FSC_CK_SECRET_FILE, .off = X(password)},
    {.key = "password_env", .kind = FSC_CK_SECRET_ENV, .off = X(password)},
    {.key = "os", .kind = FSC_CK_ENUM, .off = X(os), .names = os_names},
    {.key = "encoding", .kind = FSC_CK_ENUM, .off = X(encoding), .names = encoding_names},
    {.key = "sample_interval",
     .kind = FSC_CK_DUR,
     .off = X(sample_interval_ns),
     .min = 10 * MS, /* Junos: rounded up to 2 s (grid_round); simulators go faster */
     .max = 3600 * SEC},
    {.key = "streams",
     .kind = FSC_CK_LIST,
     .off = X(streams),
     .off2 = X(n_streams),
     .spec = &stream_spec,
     .elem_size = sizeof(struct fsc_gnmi_stream),
     .min = 1,
     .max_items = 16},
    {.key = "stall_intervals", .kind = FSC_CK_U32, .off = X(stall_intervals), .min = 1, .max = 100},
    {.key = "counter_copy",
     .kind = FSC_CK_ENUM,
     .off = X(counter_copy),
     .names = counter_copy_names},
    {.key = "sample_interval_grid",
     .kind = FSC_CK_ENUM,
     .off = X(sample_interval_grid),
     .names = grid_names},
    {.key = "keepalive",
     .kind = FSC_CK_DUR,
     .off = X(keepalive_ns),
     .min = 1 * SEC,
     .max = 3600 * SEC},
    {.key = "connect_timeout",
     .kind = FSC_CK_DUR,
     .off = X(connect_timeout_ns),
     .min = 100 * MS,
     .max = 300 * SEC},
    {.key = "backoff", .kind = FSC_CK_MAP, .off = X(backoff), .spec = &fsc_cspec_backoff},
    {.key = "max_time_ahead",
     .kind = FSC_CK_DUR,
     .off = X(max_time_ahead_ns),
     .min = 0,
     .max = FSC_TIME_LIMIT_MAX_NS},
    {.key = "max_time_behind",
     .kind = FSC_CK_DUR,
     .off = X(max_time_behind_ns),
     .min = 0,
     .max = FSC_TIME_LIMIT_MAX_NS},
};

static const struct fsc_cspec gnmi_spec = {
    .what = "a gnmi source",
    .keys = gnmi_keys,
    .n_keys = FSC_NELEM(gnmi_keys),
    .defaults = gnmi_defaults,
    .finish = gnmi_finish,
};

static const char *gnmi_device(const struct fsc_source_config *src)
{
    return ((const struct fsc_gnmi_config *)src->settings)->device;
}

const struct fsc_config_kind fsc_gnmi_kind = {
    .name = "gnmi",
    .spec = &gnmi_spec,
    .size = sizeof(struct fsc_gnmi_config),
    .profile = "junos",
    .shard = FSC_SHARD_BY_DEVICE,
    .device = gnmi_device,
};

const struct fsc_gnmi_config *fsc_gnmi_config_of(const struct fsc_source_config *sc)
{
    return sc->kind == &fsc_gnmi_kind ? sc->settings : NULL;
}

const char *fsc_gnmi_os_name(enum fsc_gnmi_os os)
{
    return (size_t)os < FSC_NELEM(os_names) - 1 ? os_names[os] : "?";
}

uint8_t fsc_gnmi_variant_mask(const struct fsc_gnmi_config *gc, const struct fsc_profile *prof)
{
    return gc ? fsc_profile_variant_bit(prof, fsc_gnmi_os_name(gc->os)) : 0;
}
