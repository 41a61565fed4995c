/* Configuration entry points: load, parse, print, destroy, and the checks
 * that span sections. See config.h for the contract. */
#include "config/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "config/config_decode.h"
#include "config/yaml_tree.h"

/* Arena caps: a 4 MiB file cannot need more than this (the tree holds at
 * most FSC_YTREE_MAX_NODES nodes; the config a fraction of it). */
#define TREE_ARENA_LIMIT   (96u << 20)
#define CONFIG_ARENA_LIMIT (64u << 20)

struct fsc_config_private {
    struct fsc_cfg_arena *arena; /* owns the config itself and everything it points to */
};

/* rollup: and state_dir (config_rollup.c). */
extern const struct fsc_cspec fsc_cspec_rollup;
/* shard: (config_shard.c). */
extern const struct fsc_cspec fsc_cspec_shard;

static const struct fsc_ckey top_keys[] = {
    {.key = "log", .kind = FSC_CK_MAP, .off = 0, .spec = &fsc_cspec_log},
    {.key = "sources",
     .kind = FSC_CK_CUSTOM,
     .decode = fsc_cfg_decode_sources,
     .print = fsc_cfg_print_sources},
    {.key = "exporters",
     .kind = FSC_CK_MAP,
     .off = offsetof(struct fsc_config, exporters),
     .spec = &fsc_cspec_exporters},
    {.key = "engine",
     .kind = FSC_CK_MAP,
     .off = offsetof(struct fsc_config, engine),
     .spec = &fsc_cspec_engine},
    {.key = "topology",
     .kind = FSC_CK_MAP,
     .off = offsetof(struct fsc_config, topology),
     .spec = &fsc_cspec_topology},
    /* rollup before state_dir: its defaults set state_dir's default */
    {.key = "rollup", .kind = FSC_CK_MAP, .off = 0, .spec = &fsc_cspec_rollup},
    {.key = "state_dir",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_LONG,
     .off = offsetof(struct fsc_config, state_dir)},
    {.key = "shard",
     .kind = FSC_CK_MAP,
     .off = offsetof(struct fsc_config, shard),
     .spec = &fsc_cspec_shard},
};

static const struct fsc_cspec top_spec = {
    .what = "the top level",
    .keys = top_keys,
    .n_keys = FSC_NELEM(top_keys),
};

/* ---- checks across sections ------------------------------------------------------ */

struct listener {
    const char *addr;
    char path[48];
    struct fsc_config_mark mark;
};

static bool wildcard_host(const char *h, size_t len)
{
    return (len == 7 && memcmp(h, "0.0.0.0", 7) == 0) || (len == 4 && memcmp(h, "[::]", 4) == 0);
}

/* Two listen addresses collide when their ports are equal and their hosts
 * are equal or either is a wildcard. */
static bool listen_clash(const char *a, const char *b)
{
    const char *ca = strrchr(a, ':'), *cb = strrchr(b, ':');
    if (ca == NULL || cb == NULL || strcmp(ca, cb) != 0)
        return false;
    size_t la = (size_t)(ca - a), lb = (size_t)(cb - b);
    return (la == lb && memcmp(a, b, la) == 0) || wildcard_host(a, la) || wildcard_host(b, lb);
}

static int add_listener(struct fsc_cctx *ctx, struct listener *ls, size_t *n, const char *addr,
                        const char *path, struct fsc_config_mark mark)
{
    if (addr == NULL || addr[0] == '\0')
        return 0;
    const char *colon = strrchr(addr, ':');
    if (colon && strcmp(colon, ":0") == 0)
        return 0; /* ephemeral: the kernel hands out distinct ports */
    for (size_t i = 0; i < *n; i++) {
        if (!listen_clash(ls[i].addr, addr))
            continue;
        size_t pl = fsc_cfg_path_key(ctx, path);
        fsc_cfg_fail(ctx, mark.line, mark.col, "\"%s\" is already used by %s", addr, ls[i].path);
        fsc_cfg_path_pop(ctx, pl);
        return -1;
    }
    ls[*n].addr = addr;
    snprintf(ls[*n].path, sizeof(ls[*n].path), "%s", path);
    ls[*n].mark = mark;
    (*n)++;
    return 0;
}

/* Position of key (or, when absent, key2) in the i-th source's mapping;
 * the source item itself when neither is written (a default value). */
static struct fsc_config_mark source_key_mark(const struct fsc_ynode *root, size_t i,
                                              const char *key, const char *key2,
                                              struct fsc_config_mark dflt)
{
    const struct fsc_ypair *list = fsc_ymap_get(root, "sources");
    if (list == NULL || list->value->kind != FSC_YNODE_SEQ || i >= list->value->n)
        return dflt;
    const struct fsc_ynode *item = list->value->items[i];
    if (fsc_ymap_get(item, key) == NULL && key2 != NULL)
        key = key2;
    return fsc_cfg_key_mark(item, key, dflt);
}

static int check_listeners(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    const struct fsc_config *cfg = ctx->cfg;
    struct listener ls[2 * FSC_CONFIG_MAX_SOURCES + 1];
    size_t n = 0;
    char path[48];
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *src = &cfg->sources[i];
        if (src->type != FSC_SOURCE_OTLP || !src->enabled)
            continue;
        snprintf(path, sizeof(path), "sources[%zu].grpc_listen", i);
        if (add_listener(ctx, ls, &n, src->otlp.grpc_listen, path,
                         source_key_mark(root, i, "grpc_listen", NULL, src->mark)) != 0)
            return -1;
        snprintf(path, sizeof(path), "sources[%zu].http_listen", i);
        if (add_listener(ctx, ls, &n, src->otlp.http_listen, path,
                         source_key_mark(root, i, "http_listen", NULL, src->mark)) != 0)
            return -1;
    }
    const struct fsc_prometheus_config *prom = &cfg->exporters.prometheus;
    if (prom->enabled) {
        const struct fsc_ypair *ex = fsc_ymap_get(root, "exporters");
        struct fsc_config_mark m = {1, 1};
        if (ex != NULL) {
            m = fsc_cfg_key_mark(ex->value, "prometheus", fsc_cfg_node_mark(ex->key));
            const struct fsc_ypair *pp = fsc_ymap_get(ex->value, "prometheus");
            if (pp != NULL)
                m = fsc_cfg_key_mark(pp->value, "listen", m);
        }
        if (add_listener(ctx, ls, &n, prom->listen, "exporters.prometheus.listen", m) != 0)
            return -1;
    }
    return 0;
}

static const char *source_device(const struct fsc_source_config *src)
{
    switch (src->type) {
    case FSC_SOURCE_GNMI:
        return src->gnmi.device;
    case FSC_SOURCE_NIC:
        return src->nic.device;
    default:
        if (src->type == FSC_SOURCE_SYNTHETIC)
            return src->synthetic.device;
        return NULL; /* OTLP learns devices from resource attributes */
    }
}

static int check_sources(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    const struct fsc_config *cfg = ctx->cfg;
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *src = &cfg->sources[i];
        const char *dev = source_device(src);
        size_t pl = fsc_cfg_path_key(ctx, "sources");
        fsc_cfg_path_index(ctx, i);
        int rc = 0;
        for (size_t j = 0; dev != NULL && src->enabled && j < i; j++) {
            const char *other = source_device(&cfg->sources[j]);
            if (other != NULL && cfg->sources[j].enabled && strcmp(dev, other) == 0) {
                struct fsc_config_mark m = source_key_mark(root, i, "device", "name", src->mark);
                fsc_cfg_path_key(ctx, "device");
                rc = fsc_cfg_fail(ctx, m.line, m.col,
                                  "device %s is already collected by sources[%zu] (set device: "
                                  "to tell them apart)",
                                  dev, j);
                break;
            }
        }
        if (rc == 0 && src->type == FSC_SOURCE_NIC && src->nic.node != 0 &&
            src->nic.cable_plan == NULL && !cfg->topology.cable_plan.present) {
            struct fsc_config_mark m = source_key_mark(root, i, "node", NULL, src->mark);
            fsc_cfg_path_key(ctx, "node");
            rc = fsc_cfg_fail(ctx, m.line, m.col,
                              "needs a cable plan (cable_plan here or topology.cable_plan)");
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int fsc_cfg_check_whole(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    const struct fsc_config *cfg = ctx->cfg;
    if (check_listeners(ctx, root) != 0 || check_sources(ctx, root) != 0)
        return -1;
    if (cfg->topology.n_groups > cfg->engine.max_groups) {
        struct fsc_config_mark m =
            fsc_cfg_key_mark(root, "topology", (struct fsc_config_mark){1, 1});
        size_t pl = fsc_cfg_path_key(ctx, "topology.port_groups");
        fsc_cfg_fail(ctx, m.line, m.col, "%zu groups exceed engine.max_groups (%u)",
                     cfg->topology.n_groups, (unsigned)cfg->engine.max_groups);
        fsc_cfg_path_pop(ctx, pl);
        return -1;
    }
    return 0;
}

/* ---- entry points ----------------------------------------------------------------- */

/* The absolute directory of the file `name` (the working directory for a
 * bare file name); "." when the working directory is unknown. */
static char *config_dir(struct fsc_cfg_arena *arena, const char *name)
{
    const char *slash = strrchr(name, '/');
    size_t dl = slash == NULL ? 0 : slash == name ? 1 : (size_t)(slash - name);
    char cwd[FSC_CONFIG_MAX_PATH + 1];
    const char *prefix = "";
    if (dl == 0 || name[0] != '/') {
        prefix = getcwd(cwd, sizeof(cwd)) != NULL ? cwd : ".";
    }
    size_t pl = strlen(prefix);
    char *dir = fsc_cfg_arena_alloc(arena, pl + dl + 2);
    if (dir == NULL)
        return NULL;
    memcpy(dir, prefix, pl);
    size_t o = pl;
    if (dl > 0 && name[0] != '/') {
        if (o > 0 && dir[o - 1] != '/')
            dir[o++] = '/';
        memcpy(dir + o, name, dl);
        o += dl;
    } else if (dl > 0) {
        memcpy(dir, name, dl);
        o = dl;
    }
    /* "dir/." and "dir/./" read worse than "dir" in printed paths */
    while (o > 2 && dir[o - 1] == '.' && dir[o - 2] == '/')
        o -= 2;
    dir[o] = '\0';
    return dir;
}

struct fsc_config *fsc_config_parse(const char *text, size_t len, const char *name, char *err,
                                    size_t errlen)
{
    struct fsc_cctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    if (name == NULL)
        name = "<config>";
    ctx.name = name;
    ctx.err = err;
    ctx.errlen = errlen;
    if (errlen > 0)
        err[0] = '\0';
    if (len > FSC_CONFIG_MAX_FILE) {
        fsc_cfg_fail(&ctx, 0, 0, "the file is larger than %u bytes", FSC_CONFIG_MAX_FILE);
        return NULL;
    }
    struct fsc_cfg_arena *tree_arena = fsc_cfg_arena_create(TREE_ARENA_LIMIT);
    ctx.arena = fsc_cfg_arena_create(CONFIG_ARENA_LIMIT);
    struct fsc_config *cfg = NULL;
    if (tree_arena == NULL || ctx.arena == NULL)
        goto oom;
    cfg = fsc_cfg_arena_alloc(ctx.arena, sizeof(*cfg));
    if (cfg == NULL)
        goto oom;
    cfg->priv = fsc_cfg_arena_alloc(ctx.arena, sizeof(*cfg->priv));
    cfg->file = fsc_cfg_arena_strndup(ctx.arena, name, strlen(name));
    if (cfg->priv == NULL || cfg->file == NULL)
        goto oom;
    cfg->priv->arena = ctx.arena;
    cfg->dir = config_dir(ctx.arena, name);
    if (cfg->dir == NULL)
        goto oom;
    ctx.dir = cfg->dir;
    ctx.cfg = cfg;

    struct fsc_ynode *root;
    struct fsc_yerror yerr;
    if (fsc_ytree_parse(text, len, tree_arena, &root, &yerr) != 0) {
        fsc_cfg_fail(&ctx, yerr.line, yerr.col, "%s", yerr.msg);
        goto fail;
    }
    if (root == NULL) {
        fsc_cfg_fail(&ctx, 0, 0, "the file has no configuration in it (write {} for all defaults)");
        goto fail;
    }
    if (root->kind != FSC_YNODE_MAP) {
        fsc_cfg_fail_at(&ctx, root,
                        "expected a mapping of sections (log, sources, exporters, engine, "
                        "topology)");
        goto fail;
    }
    if (fsc_cfg_decode_map(&ctx, root, (struct fsc_config_mark){1, 1}, &top_spec, cfg) != 0 ||
        fsc_cfg_check_whole(&ctx, root) != 0)
        goto fail;
    fsc_cfg_arena_destroy(tree_arena);
    return cfg;

oom:
    fsc_cfg_fail(&ctx, 0, 0, "out of memory");
fail:
    fsc_cfg_arena_destroy(tree_arena);
    fsc_cfg_arena_destroy(ctx.arena);
    return NULL;
}

struct fsc_config *fsc_config_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(FSC_CONFIG_MAX_FILE + 1);
    if (buf == NULL) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(buf, 1, FSC_CONFIG_MAX_FILE + 1, f);
    int rd_errno = ferror(f) ? errno : 0;
    fclose(f);
    struct fsc_config *cfg = NULL;
    if (rd_errno != 0)
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(rd_errno));
    else if (n > FSC_CONFIG_MAX_FILE)
        snprintf(err, errlen, "%s: the file is larger than %u bytes", path, FSC_CONFIG_MAX_FILE);
    else
        cfg = fsc_config_parse(buf, n, path, err, errlen);
    /* The text may hold inline secrets: a wipe that is not elided. */
    gnutls_memset(buf, 0, n);
    free(buf);
    return cfg;
}

void fsc_config_destroy(struct fsc_config *cfg)
{
    if (cfg == NULL)
        return;
    fsc_cfg_arena_destroy(cfg->priv->arena); /* cfg itself lives in the arena */
}

int fsc_config_print(const struct fsc_config *cfg, FILE *out)
{
    fputs("# fabricscope effective configuration: every default filled in, secrets not shown\n",
          out);
    fsc_cfg_print_map(out, 0, false, &top_spec, cfg);
    return ferror(out) ? -EIO : 0;
}
