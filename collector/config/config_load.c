/* Configuration entry points: load, parse, print, destroy (the checks that
 * span sections are config_check.c). See config.h for the contract. */
#include "config/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "base/file_read.h"
#include "config/config_decode.h"
#include "config/config_load_int.h"
#include "config/yaml_tree.h"

/* Arena caps: a FSC_CONFIG_MAX_FILE file cannot need more than this (the
 * tree holds at most FSC_YTREE_MAX_NODES nodes, ~100 B each with their
 * text; the config a fraction of it). */
#define TREE_ARENA_LIMIT   (512u << 20)
#define CONFIG_ARENA_LIMIT (256u << 20)

/* The root keys this layer owns: log, sources, exporters, state_dir,
 * max_sources. The
 * sections of the schema are decoded beside them from a table built per
 * load (struct layout below), so unknown keys, defaults, the order of
 * decoding and printing all come from the same table walker. */

static const char *const level_names[] = {"error", "warn", "info", "debug", NULL};
_Static_assert(FSC_LOG_ERROR == 0 && FSC_LOG_WARN == 1 && FSC_LOG_INFO == 2 && FSC_LOG_DEBUG == 3,
               "level_names follows enum fsc_log_level");

static void log_defaults(void *obj)
{
    ((struct fsc_config *)obj)->log_level = FSC_LOG_INFO;
}

static const struct fsc_ckey log_keys[] = {
    {.key = "level",
     .kind = FSC_CK_ENUM,
     .off = offsetof(struct fsc_config, log_level),
     .names = level_names},
};

static const struct fsc_cspec log_spec = {
    .what = "the log section",
    .keys = log_keys,
    .n_keys = FSC_NELEM(log_keys),
    .defaults = log_defaults,
};

/* state_dir's default: systemd's StateDirectory= exports STATE_DIRECTORY
 * (absolute; several directories joined by ':'), the natural place for a
 * unit's state; otherwise /var/lib/fabricscope. The environment is not
 * changed by the daemon, so the pointer stays valid. */
static const char *default_state_dir(void)
{
    const char *env = getenv("STATE_DIRECTORY");
    if (env && env[0] == '/' && !strchr(env, ':') && strlen(env) < 1024)
        return env;
    return "/var/lib/fabricscope";
}

static void root_defaults(void *obj)
{
    ((struct fsc_config *)obj)->state_dir = default_state_dir();
    ((struct fsc_config *)obj)->max_sources = FSC_CONFIG_DEFAULT_SOURCES;
}

static int decode_sources_key(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                              const struct fsc_ynode *val, void *obj)
{
    (void)key;
    (void)obj;
    return fsc_cfg_decode_sources(ctx, val);
}

static void print_sources_key(FILE *out, unsigned indent, const struct fsc_ckey *key,
                              const void *obj)
{
    const struct fsc_config *cfg = obj;
    (void)key;
    fputs(cfg->n_sources ? "\n" : " []\n", out);
    for (size_t i = 0; i < cfg->n_sources; i++)
        fsc_cfg_print_source_item(out, indent + 4, &cfg->sources[i]);
}

/* The per-load tables of the schema's kinds (in the config's arena). */
struct fsc_config_private {
    struct fsc_cfg_arena *arena; /* owns the config itself and everything it points to */
    struct fsc_cspec exporters_spec, sections_spec;
    struct fsc_ckey exporter_keys[FSC_CONFIG_MAX_SECTIONS];
    struct fsc_ckey section_keys[FSC_CONFIG_MAX_SECTIONS];
    char *exporters_block, *sections_block; /* the instances, at the tables' offsets */
    struct fsc_ckey root_keys[5];
    struct fsc_cspec root_spec;
    /* Warnings of the load (fsc_cfg_warn), in the arena; past the bound
     * they are counted, not kept, so a file cannot grow the config. */
    const char *warnings[FSC_CONFIG_MAX_WARNINGS];
    size_t n_warnings, dropped_warnings;
};

int fsc_cfg_warn(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, ...)
{
    struct fsc_config_private *p = ctx->cfg->priv;
    if (p->n_warnings == FSC_CONFIG_MAX_WARNINGS) {
        p->dropped_warnings++;
        return 0;
    }
    char msg[512], full[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    const char *sep = ctx->pathlen ? ": " : "";
    int n = snprintf(full, sizeof(full), "%s:%u:%u: %s%swarning: %s", ctx->name, (unsigned)line,
                     (unsigned)col, ctx->pathlen ? ctx->path : "", sep, msg);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(full) ? (size_t)n : sizeof(full) - 1;
    char *w = fsc_cfg_arena_alloc(p->arena, len + 1);
    if (w == NULL)
        return fsc_cfg_fail(ctx, line, col, "out of memory");
    memcpy(w, full, len);
    w[len] = '\0';
    p->warnings[p->n_warnings++] = w;
    return 0;
}

size_t fsc_config_warnings(const struct fsc_config *cfg, const char *const **out)
{
    *out = cfg->priv->warnings;
    return cfg->priv->n_warnings;
}

static int decode_exporters_key(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                                const struct fsc_ynode *val, void *obj)
{
    struct fsc_config *cfg = obj;
    (void)key;
    return fsc_cfg_decode_map(ctx, val, fsc_cfg_node_mark(val), &cfg->priv->exporters_spec,
                              cfg->priv->exporters_block);
}

static void print_exporters_key(FILE *out, unsigned indent, const struct fsc_ckey *key,
                                const void *obj)
{
    const struct fsc_config *cfg = obj;
    (void)key;
    fputc('\n', out);
    fsc_cfg_print_map(out, indent + 2, false, &cfg->priv->exporters_spec,
                      cfg->priv->exporters_block);
}

static size_t count_kinds(const struct fsc_config_kind *const *kinds)
{
    size_t n = 0;
    while (kinds && kinds[n])
        n++;
    return n;
}

/* A MAP key per kind, each at its own (aligned) offset of one block. */
static char *kinds_table(struct fsc_cfg_arena *arena, const struct fsc_config_kind *const *kinds,
                         struct fsc_ckey *keys, struct fsc_cspec *spec, const char *what)
{
    size_t n = count_kinds(kinds), off = 0;
    for (size_t i = 0; i < n; i++) {
        keys[i] = (struct fsc_ckey){
            .key = kinds[i]->name,
            .kind = FSC_CK_MAP,
            .flags = kinds[i]->optional ? FSC_CF_PRESENCE : 0,
            .off = off,
            .spec = kinds[i]->spec,
        };
        off += (kinds[i]->size + 15) & ~(size_t)15;
    }
    *spec = (struct fsc_cspec){.what = what, .keys = keys, .n_keys = n};
    return fsc_cfg_arena_alloc(arena, off ? off : 1);
}

static int build_tables(struct fsc_config *cfg, const struct fsc_config_schema *schema)
{
    struct fsc_config_private *p = cfg->priv;
    if (count_kinds(schema->exporters) > FSC_CONFIG_MAX_SECTIONS ||
        count_kinds(schema->sections) > FSC_CONFIG_MAX_SECTIONS)
        return -1;
    p->exporters_block = kinds_table(p->arena, schema->exporters, p->exporter_keys,
                                     &p->exporters_spec, "the exporters section");
    p->sections_block = kinds_table(p->arena, schema->sections, p->section_keys, &p->sections_spec,
                                    "the top level");
    if (p->exporters_block == NULL || p->sections_block == NULL)
        return -1;
    for (size_t i = 0; i < p->exporters_spec.n_keys; i++)
        cfg->exporters[i] = p->exporters_block + p->exporter_keys[i].off;
    for (size_t i = 0; i < p->sections_spec.n_keys; i++)
        cfg->sections[i] = p->sections_block + p->section_keys[i].off;
    p->root_keys[0] = (struct fsc_ckey){.key = "log", .kind = FSC_CK_MAP, .spec = &log_spec};
    p->root_keys[1] = (struct fsc_ckey){.key = "sources",
                                        .kind = FSC_CK_CUSTOM,
                                        .decode = decode_sources_key,
                                        .print = print_sources_key};
    p->root_keys[2] = (struct fsc_ckey){.key = "exporters",
                                        .kind = FSC_CK_CUSTOM,
                                        .decode = decode_exporters_key,
                                        .print = print_exporters_key};
    p->root_keys[3] = (struct fsc_ckey){.key = "state_dir",
                                        .kind = FSC_CK_STR,
                                        .flags = FSC_CF_PATH | FSC_CF_LONG,
                                        .off = offsetof(struct fsc_config, state_dir)};
    p->root_keys[4] = (struct fsc_ckey){.key = "max_sources",
                                        .kind = FSC_CK_U32,
                                        .off = offsetof(struct fsc_config, max_sources),
                                        .min = 1,
                                        .max = FSC_CONFIG_MAX_SOURCES};
    p->root_spec = (struct fsc_cspec){
        .what = "the top level", .keys = p->root_keys, .n_keys = 5, .defaults = root_defaults};
    return 0;
}

const void *fsc_config_section(const struct fsc_config *cfg, const struct fsc_config_kind *kind)
{
    const struct fsc_config_schema *schema = cfg->schema;
    for (size_t i = 0; schema->exporters && schema->exporters[i]; i++) {
        if (schema->exporters[i] == kind)
            return cfg->exporters[i];
    }
    for (size_t i = 0; schema->sections && schema->sections[i]; i++) {
        if (schema->sections[i] == kind)
            return cfg->sections[i];
    }
    return NULL;
}

void *fsc_config_section_mut(struct fsc_config *cfg, const struct fsc_config_kind *kind)
{
    return (void *)fsc_config_section(cfg, kind);
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

struct fsc_config *fsc_config_parse(const char *text, size_t len, const char *name,
                                    const struct fsc_config_schema *schema, char *err,
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
    cfg->schema = schema;
    if (build_tables(cfg, schema) != 0)
        goto oom;
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
    ctx.root = root;
    int bad =
        fsc_cfg_decode_shared(&ctx, root, (struct fsc_config_mark){1, 1}, &cfg->priv->root_spec,
                              cfg, &cfg->priv->sections_spec, cfg->priv->sections_block, NULL) != 0;
    if (fsc_ymap_get(root, "exporters") == NULL)
        bad |= fsc_cfg_decode_map(&ctx, NULL, (struct fsc_config_mark){1, 1},
                                  &cfg->priv->exporters_spec, cfg->priv->exporters_block) != 0;
    /* The checks across sections read decoded values: only on a clean file. */
    if (bad || ctx.n_errors != 0 || fsc_cfg_check_whole(&ctx, root) != 0)
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

struct fsc_config *fsc_config_load(const char *path, const struct fsc_config_schema *schema,
                                   char *err, size_t errlen)
{
    /* Not blocking on a FIFO, not a directory: the config is a file. */
    char why[128];
    int fd = fsc_file_open_regular(path, why, sizeof(why));
    FILE *f = fd == -1 ? NULL : fdopen(fd, "rb");
    if (f == NULL) {
        if (fd != -1) {
            snprintf(why, sizeof(why), "%s", strerror(errno));
            close(fd);
        }
        snprintf(err, errlen, "%s: cannot open: %s", path, why);
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
        cfg = fsc_config_parse(buf, n, path, schema, err, errlen);
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

int fsc_config_print_parts(const struct fsc_config *cfg, unsigned what, FILE *out)
{
    const struct fsc_config_private *p = cfg->priv;
    if (what == FSC_CONFIG_PART_ALL) {
        fputs("# fabricscope effective configuration: every default filled in, secrets not "
              "shown\n",
              out);
        fsc_cfg_print_shared(out, 0, false, &p->root_spec, cfg, &p->sections_spec,
                             p->sections_block);
        return ferror(out) ? -EIO : 0;
    }
    for (size_t i = 0; i < p->root_spec.n_keys; i++) {
        const struct fsc_ckey *key = &p->root_keys[i];
        bool sources = strcmp(key->key, "sources") == 0;
        bool exporters = strcmp(key->key, "exporters") == 0;
        unsigned part = sources     ? FSC_CONFIG_PART_SOURCES
                        : exporters ? FSC_CONFIG_PART_EXPORTERS
                                    : FSC_CONFIG_PART_ROOT;
        if (!(what & part))
            continue;
        struct fsc_cspec one = {.keys = key, .n_keys = 1};
        fsc_cfg_print_map(out, 0, false, &one, cfg);
    }
    if (what & FSC_CONFIG_PART_ROOT)
        fsc_cfg_print_map(out, 0, false, &p->sections_spec, p->sections_block);
    return ferror(out) ? -EIO : 0;
}

int fsc_config_print(const struct fsc_config *cfg, FILE *out)
{
    return fsc_config_print_parts(cfg, FSC_CONFIG_PART_ALL, out);
}
