/* The checks that span sections, run once the whole file is decoded: no
 * two listeners (of sources and exporters) on one address, no device
 * collected by two enabled sources, then each source kind's and each
 * section kind's own check. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_decode.h"
#include "config/config_load_int.h"
#include "config/yaml_tree.h"

struct listener {
    const char *addr;
    char path[96];
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

bool fsc_config_listen_clash(const char *a, const char *b)
{
    const char *ca = a ? strrchr(a, ':') : NULL, *cb = b ? strrchr(b, ':') : NULL;
    if (!ca || !cb || strcmp(ca, ":0") == 0 || strcmp(cb, ":0") == 0)
        return false; /* ephemeral: the kernel hands out distinct ports */
    return listen_clash(a, b);
}

static int add_listener(struct fsc_cctx *ctx, struct listener *ls, size_t *n, size_t cap,
                        const char *addr, const char *path, struct fsc_config_mark mark)
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
    if (*n == cap)
        return 0; /* more listeners than any schema has; the kernel will tell */
    ls[*n].addr = addr;
    snprintf(ls[*n].path, sizeof(ls[*n].path), "%s", path);
    ls[*n].mark = mark;
    (*n)++;
    return 0;
}

/* The mark of sources[i].key (config_decode.h). */
struct fsc_config_mark fsc_cfg_source_key_mark(const struct fsc_ynode *root, size_t i,
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

/* The mapping of exporters.<name> (NULL when absent) and a mark for it. */
static const struct fsc_ynode *exporter_node(const struct fsc_ynode *root, const char *name,
                                             struct fsc_config_mark *mark)
{
    const struct fsc_ypair *ex = fsc_ymap_get(root, "exporters");
    *mark = (struct fsc_config_mark){1, 1};
    if (ex == NULL)
        return NULL;
    *mark = fsc_cfg_key_mark(ex->value, name, fsc_cfg_node_mark(ex->key));
    const struct fsc_ypair *pp = fsc_ymap_get(ex->value, name);
    return pp ? pp->value : NULL;
}

#define MAX_LISTENERS (4 * FSC_CONFIG_MAX_SOURCES + 4 * FSC_CONFIG_MAX_SECTIONS)

static int check_listeners_in(struct fsc_cctx *ctx, const struct fsc_ynode *root,
                              struct listener *ls)
{
    const struct fsc_config *cfg = ctx->cfg;
    const struct fsc_config_schema *schema = cfg->schema;
    struct fsc_config_listen got[8];
    size_t n = 0;
    char path[96];
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *src = &cfg->sources[i];
        if (!src->enabled || src->kind->listeners == NULL)
            continue;
        size_t k = src->kind->listeners(src->settings, got, FSC_NELEM(got));
        for (size_t j = 0; j < k && j < FSC_NELEM(got); j++) {
            snprintf(path, sizeof(path), "sources[%zu].%s", i, got[j].key);
            if (add_listener(ctx, ls, &n, MAX_LISTENERS, got[j].addr, path,
                             fsc_cfg_source_key_mark(root, i, got[j].key, NULL, src->mark)) != 0)
                return -1;
        }
    }
    for (size_t e = 0; schema->exporters && schema->exporters[e]; e++) {
        const struct fsc_config_kind *kind = schema->exporters[e];
        if (kind->listeners == NULL)
            continue;
        size_t k = kind->listeners(cfg->exporters[e], got, FSC_NELEM(got));
        for (size_t j = 0; j < k && j < FSC_NELEM(got); j++) {
            struct fsc_config_mark m;
            const struct fsc_ynode *node = exporter_node(root, kind->name, &m);
            m = fsc_cfg_key_mark(node, got[j].key, m);
            snprintf(path, sizeof(path), "exporters.%s.%s", kind->name, got[j].key);
            if (add_listener(ctx, ls, &n, MAX_LISTENERS, got[j].addr, path, m) != 0)
                return -1;
        }
    }
    return 0;
}

/* The table is ~500 KiB: on the heap for the check only. A static
 * _Thread_local array would be zeroed into every thread the daemon starts
 * (glibc initialises each thread's static TLS block), one per source. */
static int check_listeners(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    struct listener *ls = calloc(MAX_LISTENERS, sizeof(*ls));
    if (!ls)
        return fsc_cfg_fail(ctx, 0, 0, "out of memory");
    int rc = check_listeners_in(ctx, root, ls);
    free(ls);
    return rc;
}

static const char *source_device(const struct fsc_source_config *src)
{
    return src->kind->device ? src->kind->device(src) : NULL;
}

/* An enabled source's device and its index, sorted to find duplicates. */
struct device_use {
    const char *dev;
    size_t idx;
};

static int device_use_cmp(const void *a, const void *b)
{
    const struct device_use *x = a, *y = b;
    int c = strcmp(x->dev, y->dev);
    return c != 0 ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* first[i]: the lowest index of an enabled source collecting the same
 * device as enabled source i, or i itself. Sorted, not pairwise: a file may
 * hold tens of thousands of sources. Returns -1 out of memory. */
static int first_users(const struct fsc_config *cfg, size_t *first)
{
    struct device_use *uses = malloc((cfg->n_sources ? cfg->n_sources : 1) * sizeof(*uses));
    if (uses == NULL)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < cfg->n_sources; i++) {
        first[i] = i;
        const char *dev = source_device(&cfg->sources[i]);
        if (dev != NULL && cfg->sources[i].enabled)
            uses[n++] = (struct device_use){dev, i};
    }
    qsort(uses, n, sizeof(*uses), device_use_cmp);
    for (size_t k = 1; k < n; k++)
        if (strcmp(uses[k].dev, uses[k - 1].dev) == 0)
            first[uses[k].idx] = first[uses[k - 1].idx];
    free(uses);
    return 0;
}

static int check_sources(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    const struct fsc_config *cfg = ctx->cfg;
    const struct fsc_ypair *list = fsc_ymap_get(root, "sources");
    if (cfg->n_sources > cfg->max_sources) {
        /* n_sources > 0: the list is in the file. */
        size_t pl = fsc_cfg_path_key(ctx, "sources");
        fsc_cfg_fail_at(ctx, list->value,
                        "has %zu sources; max_sources allows %u (raise it: docs/CONFIG.md, "
                        "\"Limits\", says what a source costs)",
                        cfg->n_sources, (unsigned)cfg->max_sources);
        fsc_cfg_path_pop(ctx, pl);
        return -1;
    }
    size_t *first = malloc((cfg->n_sources ? cfg->n_sources : 1) * sizeof(*first));
    if (first == NULL || first_users(cfg, first) != 0) {
        free(first);
        return fsc_cfg_fail(ctx, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *src = &cfg->sources[i];
        const char *dev = source_device(src);
        size_t pl = fsc_cfg_path_key(ctx, "sources");
        fsc_cfg_path_index(ctx, i);
        int rc = 0;
        if (first[i] != i) {
            struct fsc_config_mark m =
                fsc_cfg_source_key_mark(root, i, "device", "name", src->mark);
            fsc_cfg_path_key(ctx, "device");
            rc = fsc_cfg_fail(ctx, m.line, m.col,
                              "device %s is already collected by sources[%zu] (set device: "
                              "to tell them apart)",
                              dev, first[i]);
        }
        if (rc == 0 && src->kind->check != NULL) {
            const struct fsc_ynode *item =
                list && list->value->kind == FSC_YNODE_SEQ && i < list->value->n
                    ? list->value->items[i]
                    : NULL;
            rc = src->kind->check(ctx, cfg, src->settings, item);
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0) {
            free(first);
            return -1;
        }
    }
    free(first);
    return 0;
}

static int check_sections(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    const struct fsc_config *cfg = ctx->cfg;
    const struct fsc_config_schema *schema = cfg->schema;
    for (size_t e = 0; schema->exporters && schema->exporters[e]; e++) {
        const struct fsc_config_kind *kind = schema->exporters[e];
        if (kind->check == NULL)
            continue;
        struct fsc_config_mark m;
        const struct fsc_ynode *node = exporter_node(root, kind->name, &m);
        size_t pl = fsc_cfg_path_key(ctx, "exporters");
        fsc_cfg_path_key(ctx, kind->name);
        int rc = kind->check(ctx, cfg, cfg->exporters[e], node);
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    for (size_t s = 0; schema->sections && schema->sections[s]; s++) {
        const struct fsc_config_kind *kind = schema->sections[s];
        if (kind->check == NULL)
            continue;
        const struct fsc_ypair *pair = fsc_ymap_get(root, kind->name);
        if (kind->check(ctx, cfg, cfg->sections[s], pair ? pair->value : NULL) != 0)
            return -1;
    }
    return 0;
}

/* Runs the checks across sections (config_load_int.h). */
int fsc_cfg_check_whole(struct fsc_cctx *ctx, const struct fsc_ynode *root)
{
    if (check_listeners(ctx, root) != 0 || check_sources(ctx, root) != 0 ||
        check_sections(ctx, root) != 0)
        return -1;
    return 0;
}
