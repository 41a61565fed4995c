/* sources: the list, the keys every source has (name, type, enabled,
 * max_series, profile), and the dispatch of each item's own keys to its
 * kind's table (the kinds come from the schema; their tables live in
 * sources/<kind>/). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_load_int.h"

#define SRC(field) offsetof(struct fsc_source_config, field)

/* At most this many source kinds in a schema (for hints and lists). */
#define MAX_KINDS 16

static size_t kind_names(const struct fsc_config_schema *schema, const char **names, size_t cap)
{
    size_t n = 0;
    for (; schema->sources && schema->sources[n] && n + 1 < cap; n++)
        names[n] = schema->sources[n]->name;
    names[n] = NULL;
    return n;
}

/* "a, b, c or d" of names[0..n). */
static const char *name_list(const char *const *names, size_t n, const char *last, char *buf,
                             size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s",
                              i == 0       ? ""
                              : i + 1 == n ? last
                                           : ", ",
                              names[i]);
    return buf;
}

/* Profiles are checked against the schema's now rather than when the
 * source starts, so check-config catches a typo. */
static int check_profile(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    const char *const *profiles = ctx->cfg->schema->profiles;
    const char *names[17];
    char list[160], q[96];
    size_t n = 0;
    for (; profiles && profiles[n] && n < 16; n++) {
        if (strcmp(profiles[n], s) == 0)
            return 0;
        names[n] = profiles[n];
    }
    names[n] = NULL;
    name_list(names, n, ", ", list, sizeof(list));
    const char *guess = fsc_cfg_closest(s, names, NULL);
    if (guess != NULL)
        return fsc_cfg_fail_at(ctx, val, "%s is not a built-in profile (%s; did you mean \"%s\"?)",
                               fsc_cfg_quote(s, q, sizeof(q)), list, guess);
    return fsc_cfg_fail_at(ctx, val, "%s is not a built-in profile (%s)",
                           fsc_cfg_quote(s, q, sizeof(q)), list);
}

/* type: is decoded before the table runs (it picks the table); this key
 * only prints it. */
static int decode_type(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, void *obj)
{
    (void)ctx;
    (void)key;
    (void)val;
    (void)obj;
    return 0;
}

static void print_type(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_source_config *src = obj;
    (void)indent;
    (void)key;
    fputc(' ', out);
    fsc_cfg_print_str(out, src->kind->name);
    fputc('\n', out);
}

static void common_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    src->enabled = true;
    src->max_series = 100000;
    src->profile = src->kind->profile;
}

static const struct fsc_ckey common_keys[] = {
    {.key = "name",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = SRC(name),
     .check = fsc_cfg_check_name},
    {.key = "type", .kind = FSC_CK_CUSTOM, .decode = decode_type, .print = print_type},
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = SRC(enabled)},
    {.key = "max_series", .kind = FSC_CK_U32, .off = SRC(max_series), .min = 1, .max = 16777216},
    {.key = "profile", .kind = FSC_CK_STR, .off = SRC(profile), .check = check_profile},
};

static const struct fsc_cspec common_spec = {
    .what = "a source",
    .keys = common_keys,
    .n_keys = FSC_NELEM(common_keys),
    .defaults = common_defaults,
    .mark_off = SRC(mark),
};

static int decode_source(struct fsc_cctx *ctx, const struct fsc_ynode *item,
                         struct fsc_source_config *src)
{
    const struct fsc_config_schema *schema = ctx->cfg->schema;
    const char *names[MAX_KINDS + 1];
    char list[160];
    size_t n = kind_names(schema, names, FSC_NELEM(names));
    if (item->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, item, "expected a mapping (key: value), got %s",
                               item->kind == FSC_YNODE_SEQ ? "a list" : "a single value");
    const struct fsc_ypair *type = fsc_ymap_get(item, "type");
    if (type == NULL) {
        char msg[200];
        snprintf(msg, sizeof(msg), "required key is missing (%s)",
                 name_list(names, n, " or ", list, sizeof(list)));
        return fsc_cfg_fail_key(ctx, item, "type", fsc_cfg_node_mark(item), msg);
    }
    int t;
    size_t pl = fsc_cfg_path_key(ctx, "type");
    int rc = fsc_cfg_decode_enum(ctx, names, type->value, &t);
    fsc_cfg_path_pop(ctx, pl);
    if (rc != 0)
        return -1;
    const struct fsc_config_kind *kind = schema->sources[t];
    void *settings = fsc_cfg_alloc(ctx, item, kind->size ? kind->size : 1);
    if (settings == NULL)
        return -1;
    const struct fsc_cspec *siblings[MAX_KINDS + 1];
    for (size_t i = 0; i <= n; i++)
        siblings[i] = i < n ? schema->sources[i]->spec : NULL;
    src->kind = kind;
    src->settings = settings;
    ctx->source = src;
    rc = fsc_cfg_decode_shared(ctx, item, fsc_cfg_node_mark(item), &common_spec, src, kind->spec,
                               settings, siblings);
    ctx->source = NULL;
    return rc;
}

int fsc_cfg_decode_sources(struct fsc_cctx *ctx, const struct fsc_ynode *val)
{
    struct fsc_config *cfg = ctx->cfg;
    if (fsc_ynode_is_null(val))
        return 0;
    if (val->kind != FSC_YNODE_SEQ)
        return fsc_cfg_fail_at(ctx, val, "expected a list of sources (lines starting with \"- \")");
    if (val->n > FSC_CONFIG_MAX_SOURCES)
        return fsc_cfg_fail_at(ctx, val,
                               "has %zu sources; at most %d are allowed (max_sources' "
                               "ceiling)",
                               val->n, FSC_CONFIG_MAX_SOURCES);
    struct fsc_source_config *arr = fsc_cfg_alloc(ctx, val, (val->n ? val->n : 1) * sizeof(*arr));
    if (arr == NULL)
        return -1;
    int failed = 0;
    for (size_t i = 0; i < val->n; i++) {
        size_t pl = fsc_cfg_path_index(ctx, i);
        int rc = decode_source(ctx, val->items[i], &arr[i]);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (arr[j].name == NULL || strcmp(arr[i].name, arr[j].name) != 0)
                continue;
            struct fsc_config_mark m = fsc_cfg_key_mark(val->items[i], "name", arr[i].mark);
            fsc_cfg_path_key(ctx, "name");
            rc = fsc_cfg_fail(ctx, m.line, m.col, "\"%s\" is already the name of sources[%zu]",
                              arr[i].name, j);
        }
        fsc_cfg_path_pop(ctx, pl);
        failed |= rc != 0; /* the next sources may hold more errors */
    }
    if (failed)
        return -1;
    cfg->sources = arr;
    cfg->n_sources = val->n;
    return 0;
}

void fsc_cfg_print_source_item(FILE *out, unsigned indent, const struct fsc_source_config *src)
{
    fsc_cfg_print_shared(out, indent, true, &common_spec, src, src->kind->spec, src->settings);
}

int fsc_config_print_source(const struct fsc_source_config *src, FILE *out)
{
    fsc_cfg_print_source_item(out, 2, src);
    return ferror(out) ? -EIO : 0;
}

bool fsc_config_source_equal(const struct fsc_source_config *a, const struct fsc_source_config *b)
{
    if (a->kind != b->kind || !fsc_cfg_secrets_equal(a->kind->spec, a->settings, b->settings))
        return false;
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
    bool same = false;
    if (fa && fb) {
        fsc_cfg_print_source_item(fa, 2, a);
        fsc_cfg_print_source_item(fb, 2, b);
    }
    bool ok = fa && fb;
    if (fa && fclose(fa) != 0)
        ok = false;
    if (fb && fclose(fb) != 0)
        ok = false;
    same = ok && ta && tb && strcmp(ta, tb) == 0;
    free(ta);
    free(tb);
    return same;
}

const struct fsc_source_config *fsc_config_source(const struct fsc_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_sources; i++) {
        if (strcmp(cfg->sources[i].name, name) == 0)
            return &cfg->sources[i];
    }
    return NULL;
}

const struct fsc_config_kind *fsc_config_source_kind(const struct fsc_config_schema *schema,
                                                     const char *name)
{
    for (size_t i = 0; schema->sources && schema->sources[i]; i++) {
        if (strcmp(schema->sources[i]->name, name) == 0)
            return schema->sources[i];
    }
    return NULL;
}
