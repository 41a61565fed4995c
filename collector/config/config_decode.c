/* The table-driven decoder: nested maps and lists, unknown keys. Scalar
 * kinds live in config_values.c, errors, paths and hints in
 * config_errors.c. See config_decode.h. */
#include "config/config_decode.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "base/closest.h"

static const struct fsc_ckey *spec_key(const struct fsc_cspec *spec, const char *key)
{
    for (size_t i = 0; i < spec->n_keys; i++) {
        if (strcmp(spec->keys[i].key, key) == 0)
            return &spec->keys[i];
    }
    return NULL;
}

/* Fails for an unknown key of a mapping read with the tables in specs[]
 * (NULL-terminated): a typo of one of their keys, or a key of a sibling
 * table (another kind of list item), gets a hint. */
static int unknown_key(struct fsc_cctx *ctx, const struct fsc_ynode *keynode,
                       const struct fsc_cspec *const *specs,
                       const struct fsc_cspec *const *siblings)
{
    size_t pl = fsc_cfg_path_key(ctx, keynode->str);
    const char *guess = NULL;
    for (size_t i = 0; specs[i] && guess == NULL; i++)
        guess = fsc_cfg_closest(keynode->str, NULL, specs[i]);
    const struct fsc_cspec *spec = specs[0], *own = specs[1] ? specs[1] : specs[0];
    if (guess != NULL) {
        fsc_cfg_fail_at(ctx, keynode, "unknown key (did you mean \"%s\"?)", guess);
    } else {
        const struct fsc_cspec *owner = NULL;
        if (siblings == NULL)
            siblings = spec->siblings;
        for (size_t i = 0; siblings && siblings[i] && owner == NULL; i++) {
            if (siblings[i] != own && spec_key(siblings[i], keynode->str))
                owner = siblings[i];
        }
        if (owner != NULL && own->what != NULL)
            fsc_cfg_fail_at(ctx, keynode, "unknown key for %s (it is a key of %s)", own->what,
                            owner->what);
        else
            fsc_cfg_fail_at(ctx, keynode, "unknown key");
    }
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

/* ---- lists ------------------------------------------------------------------ */

static int check_count(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, size_t n)
{
    if (key->max_items && n > key->max_items)
        return fsc_cfg_fail_at(ctx, val, "has %zu items; at most %zu are allowed", n,
                               key->max_items);
    if ((int64_t)n < key->min)
        return fsc_cfg_fail_at(ctx, val, "needs at least %" PRId64 " item%s", key->min,
                               key->min == 1 ? "" : "s");
    return 0;
}

static int decode_list(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, char *obj)
{
    if (val->kind != FSC_YNODE_SEQ && !fsc_ynode_is_null(val))
        return fsc_cfg_fail_at(ctx, val, "expected a list (lines starting with \"- \")");
    size_t n = val->kind == FSC_YNODE_SEQ ? val->n : 0;
    if (check_count(ctx, key, val, n) != 0)
        return -1;
    size_t esize = key->kind == FSC_CK_LIST ? key->elem_size : sizeof(const char *);
    char *arr = fsc_cfg_alloc(ctx, val, (n ? n : 1) * esize);
    if (arr == NULL)
        return -1;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        const struct fsc_ynode *item = val->items[i];
        size_t pl = fsc_cfg_path_index(ctx, i);
        int rc;
        if (key->kind == FSC_CK_STRLIST) {
            rc = fsc_cfg_decode_str(ctx, key, item, (const char **)(void *)(arr + i * esize));
        } else if (item->kind != FSC_YNODE_MAP) {
            rc = fsc_cfg_fail_at(ctx, item, "expected a mapping (key: value), got %s",
                                 item->kind == FSC_YNODE_SEQ ? "a list" : "a single value");
        } else {
            rc = fsc_cfg_decode_map(ctx, item, fsc_cfg_node_mark(item), key->spec, arr + i * esize);
        }
        fsc_cfg_path_pop(ctx, pl);
        failed |= rc != 0; /* the next items may hold more errors */
    }
    if (failed)
        return -1;
    memcpy(obj + key->off, &arr, sizeof(arr));
    memcpy(obj + key->off2, &n, sizeof(n));
    return 0;
}

/* ---- one key ---------------------------------------------------------------- */

static int decode_value(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                        const struct fsc_ynode *keynode, const struct fsc_ynode *val, char *obj)
{
    void *field = obj + key->off;
    switch (key->kind) {
    case FSC_CK_MAP:
        if (key->flags & FSC_CF_PRESENCE)
            *(bool *)field = true;
        return fsc_cfg_decode_map(ctx, val, fsc_cfg_node_mark(keynode), key->spec, field);
    case FSC_CK_LIST:
    case FSC_CK_STRLIST:
        return decode_list(ctx, key, val, obj);
    case FSC_CK_CUSTOM:
        return key->decode(ctx, key, val, obj);
    default:
        return fsc_cfg_decode_scalar(ctx, key, val, field);
    }
}

/* Is node a mapping (or absent)? Fails otherwise. */
static int expect_map(struct fsc_cctx *ctx, const struct fsc_ynode *node)
{
    if (node != NULL && node->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, node, "expected a mapping (key: value), got %s",
                               node->kind == FSC_YNODE_SEQ ? "a list" : "a single value");
    return 0;
}

/* Every key of node must be in one of specs[] (NULL-terminated); each one
 * that is not is an error. */
static int check_keys(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                      const struct fsc_cspec *const *specs, const struct fsc_cspec *const *siblings)
{
    int rc = 0;
    for (size_t i = 0; node != NULL && i < node->n; i++) {
        bool known = false;
        for (size_t k = 0; specs[k] && !known; k++)
            known = spec_key(specs[k], node->pairs[i].key->str) != NULL;
        if (!known)
            rc = unknown_key(ctx, node->pairs[i].key, specs, siblings);
    }
    return rc;
}

/* Whether node holds a key that is not spec's but close to `name`: a
 * misspelling already reported as unknown ("did you mean"), so name's
 * absence is not a second error. */
static bool misspelt_in(const struct fsc_ynode *node, const struct fsc_cspec *spec,
                        const char *name)
{
    for (size_t i = 0; node != NULL && i < node->n; i++) {
        const char *k = node->pairs[i].key->str;
        if (spec_key(spec, k) != NULL)
            continue;
        size_t d = fsc_edit_distance(k, name);
        if (d != SIZE_MAX && fsc_close_enough(k, d))
            return true;
    }
    return false;
}

/* Defaults, then spec's keys in table order (all of them, past an error:
 * the others may be wrong too), then finish when every key decoded. */
static int decode_keys(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, const struct fsc_cspec *spec, void *obj)
{
    char *base = obj;
    if (spec->defaults != NULL)
        spec->defaults(obj);
    if (spec->mark_off != 0)
        memcpy(base + spec->mark_off, &mark, sizeof(mark));
    int failed = 0;
    for (size_t i = 0; i < spec->n_keys; i++) {
        const struct fsc_ckey *key = &spec->keys[i];
        const struct fsc_ypair *pair = fsc_ymap_get(node, key->key);
        size_t pl = fsc_cfg_path_key(ctx, key->key);
        int rc = 0;
        if (pair != NULL) {
            rc = decode_value(ctx, key, pair->key, pair->value, base);
        } else if (key->flags & FSC_CF_REQUIRED) {
            rc = misspelt_in(node, spec, key->key)
                     ? -1
                     : fsc_cfg_fail(ctx, mark.line, mark.col, "required key is missing");
        } else if (key->kind == FSC_CK_MAP && !(key->flags & FSC_CF_PRESENCE)) {
            /* An absent section still gets its defaults and checks. */
            rc = fsc_cfg_decode_map(ctx, NULL, mark, key->spec, base + key->off);
        }
        fsc_cfg_path_pop(ctx, pl);
        failed |= rc != 0;
    }
    if (failed)
        return -1;
    return spec->finish ? spec->finish(ctx, node, mark, obj) : 0;
}

int fsc_cfg_decode_map(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, const struct fsc_cspec *spec, void *obj)
{
    const struct fsc_cspec *specs[] = {spec, NULL};
    if (node != NULL && fsc_ynode_is_null(node))
        node = NULL;
    if (expect_map(ctx, node) != 0)
        return -1;
    int unknown = check_keys(ctx, node, specs, NULL) != 0;
    return decode_keys(ctx, node, mark, spec, obj) != 0 || unknown ? -1 : 0;
}

int fsc_cfg_decode_shared(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                          struct fsc_config_mark mark, const struct fsc_cspec *head, void *head_obj,
                          const struct fsc_cspec *own, void *own_obj,
                          const struct fsc_cspec *const *siblings)
{
    const struct fsc_cspec *specs[] = {head, own, NULL};
    if (node != NULL && fsc_ynode_is_null(node))
        node = NULL;
    if (expect_map(ctx, node) != 0)
        return -1;
    int unknown = check_keys(ctx, node, specs, siblings) != 0;
    /* The head's finish may be needed by own's (a source's name): own is
     * decoded either way, for its errors. */
    int head_failed = decode_keys(ctx, node, mark, head, head_obj) != 0;
    int own_failed = decode_keys(ctx, node, mark, own, own_obj) != 0;
    return unknown || head_failed || own_failed ? -1 : 0;
}
