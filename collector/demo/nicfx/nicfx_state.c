/* The tool's state file, ROOT/nic_fixture.json: the true counter values
 * (files of frozen hw_counters may show older ones), rates and clock.
 *   {"t_ms": MS, "steps": N, "lifespan": MS, "devices": [
 *     {"rdma", "netdev", "bdf", "gbps", "cnp_rate", "oos_rate" (rates as
 *      text), "speed_mbps", "link_up", "pcie_degraded",
 *      "counters": {"hw_counters": {NAME: V, ...}, "counters": {...},
 *                   "statistics": {...}},
 *      "aer": {"cor": {"entries": [[LABEL, N], ...], "total": N},
 *              "fatal": {...}, "nonfatal": {...}}}, ...]}
 * Device K of the array is mlx5_K of node 0. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "nicfx.h"

/* ---- load ------------------------------------------------------------------------------ */

/* A counter value: a non-negative JSON integer or a decimal string. */
static int value_of(const json_t *j, uint64_t *v)
{
    if (json_is_integer(j) && json_integer_value(j) >= 0) {
        *v = (uint64_t)json_integer_value(j);
        return 0;
    }
    const char *s = json_string_value(j);
    if (!s || *s == '\0')
        return -EINVAL;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -EINVAL;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 0;
}

static int rate_of(const json_t *dj, const char *key, struct fsc_nicfx_rate *r)
{
    const char *s = json_string_value(json_object_get(dj, key));
    return s ? fsc_nicfx_rate_parse(s, r) : -EINVAL;
}

/* Reads device k's counters and AER counts from dj into dev. Returns 0 or
 * -1 with the name of what is wrong in err. */
static int load_values(const json_t *dj, struct fsc_nicfx_dev *dev, char *err, size_t errlen)
{
    const json_t *groups = json_object_get(dj, "counters");
    for (int c = 0; c < FSC_NICFX__CTRS; c++) {
        const char *g = fsc_nicfx_group_names[fsc_nicfx_ctrs[c].group];
        const json_t *v = json_object_get(json_object_get(groups, g), fsc_nicfx_ctrs[c].name);
        if (value_of(v, &dev->ctr[c]) != 0) {
            snprintf(err, errlen, "counters.%s.%s", g, fsc_nicfx_ctrs[c].name);
            return -1;
        }
    }
    const json_t *aer = json_object_get(dj, "aer");
    for (int k = 0; k < FSC_NICFX__AER_KINDS; k++) {
        const struct fsc_nicfx_aer_def *a = &fsc_nicfx_aer[k];
        const json_t *kj = json_object_get(aer, a->kind);
        const json_t *entries = json_object_get(kj, "entries");
        const json_t *total = json_object_get(kj, "total");
        bool ok = json_is_integer(total) && json_array_size(entries) == a->n_labels;
        for (size_t i = 0; ok && i < a->n_labels; i++) {
            const json_t *e = json_array_get(entries, i);
            const char *label = json_string_value(json_array_get(e, 0));
            ok = label && strcmp(label, a->labels[i]) == 0 && json_is_integer(json_array_get(e, 1));
            if (ok)
                dev->aer[k][i] = json_integer_value(json_array_get(e, 1));
        }
        if (!ok) {
            snprintf(err, errlen, "aer.%s", a->kind);
            return -1;
        }
        dev->aer_total[k] = json_integer_value(total);
    }
    return 0;
}

/* Device k of the state. Returns 0 or -1 with a sentence in err. */
static int load_device(const json_t *dj, size_t k, int lifespan, struct fsc_nicfx_dev *dev,
                       char *err, size_t errlen)
{
    char what[128] = "netdev";
    const char *netdev = json_string_value(json_object_get(dj, "netdev"));
    const json_t *speed = json_object_get(dj, "speed_mbps");
    const json_t *up = json_object_get(dj, "link_up");
    const json_t *degraded = json_object_get(dj, "pcie_degraded");
    if (!netdev || fsc_nicfx_dev_init(dev, 0, (unsigned)k, netdev, what, sizeof(what)) != 0)
        goto fail;
    dev->lifespan_ms = lifespan;
    snprintf(what, sizeof(what), "a rate");
    if (rate_of(dj, "gbps", &dev->gbps) != 0 || rate_of(dj, "cnp_rate", &dev->cnp_rate) != 0 ||
        rate_of(dj, "oos_rate", &dev->oos_rate) != 0)
        goto fail;
    snprintf(what, sizeof(what), "speed_mbps, link_up or pcie_degraded");
    if (!json_is_integer(speed) || !json_is_boolean(up) || !json_is_boolean(degraded))
        goto fail;
    dev->speed_mbps = json_integer_value(speed);
    dev->link_up = json_is_true(up);
    dev->pcie_degraded = json_is_true(degraded);
    if (load_values(dj, dev, what, sizeof(what)) != 0)
        goto fail;
    return 0;
fail:
    snprintf(err, errlen, "device %zu: %s missing or malformed", k, what);
    return -1;
}

int fsc_nicfx_state_load(const char *root, struct fsc_nicfx *fx, char *err, size_t errlen)
{
    char path[PATH_MAX], why[256];
    int n = snprintf(path, sizeof(path), "%s/%s", root, FSC_NICFX_STATE_FILE);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        snprintf(err, errlen, "%s: path too long", root);
        return -1;
    }
    json_error_t je;
    json_t *st = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!st) {
        snprintf(err, errlen, "cannot read the fixture state in %s: %s", root, je.text);
        return -1;
    }
    const json_t *t_ms = json_object_get(st, "t_ms"), *steps = json_object_get(st, "steps");
    const json_t *lifespan = json_object_get(st, "lifespan");
    const json_t *devs = json_object_get(st, "devices");
    size_t nd = json_array_size(devs);
    int rc = -1;
    if (!json_is_integer(t_ms) || !json_is_integer(steps) || !json_is_integer(lifespan) || nd < 1 ||
        nd > FSC_NICFX_DEVICES_MAX) {
        snprintf(why, sizeof(why), "t_ms, steps, lifespan or devices missing or malformed");
        goto out;
    }
    memset(fx, 0, sizeof(*fx));
    fx->t_ms = json_integer_value(t_ms);
    fx->steps = (uint64_t)json_integer_value(steps);
    fx->lifespan_ms = (int)json_integer_value(lifespan);
    fx->n = nd;
    for (size_t k = 0; k < nd; k++)
        if (load_device(json_array_get(devs, k), k, fx->lifespan_ms, &fx->dev[k], why,
                        sizeof(why)) != 0)
            goto out;
    rc = 0;
out:
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    json_decref(st);
    return rc;
}

/* ---- save ------------------------------------------------------------------------------ */

/* o[key] = v, taking v; false when v is NULL (out of memory) or the set fails. */
static bool put(json_t *o, const char *key, json_t *v)
{
    return v && json_object_set_new(o, key, v) == 0;
}

static json_t *value_json(uint64_t v)
{
    char text[24];
    if (v <= INT64_MAX)
        return json_integer((json_int_t)v);
    snprintf(text, sizeof(text), "%" PRIu64, v);
    return json_string(text);
}

static json_t *rate_json(const struct fsc_nicfx_rate *r)
{
    char text[48];
    fsc_nicfx_rate_format(r, text, sizeof(text));
    return json_string(text);
}

static json_t *aer_json(const struct fsc_nicfx_dev *dev, enum fsc_nicfx_aer_kind k)
{
    json_t *o = json_object(), *entries = json_array();
    bool ok = o && entries;
    for (size_t i = 0; ok && i < fsc_nicfx_aer[k].n_labels; i++)
        ok = json_array_append_new(entries, json_pack("[sI]", fsc_nicfx_aer[k].labels[i],
                                                      (json_int_t)dev->aer[k][i])) == 0;
    ok = ok && put(o, "entries", json_incref(entries)) &&
         put(o, "total", json_integer(dev->aer_total[k]));
    json_decref(entries);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *device_json(const struct fsc_nicfx_dev *dev)
{
    json_t *d = json_object(), *groups = json_object(), *aer = json_object();
    bool ok = d && groups && aer;
    for (int g = 0; ok && g < FSC_NICFX__GROUPS; g++) {
        json_t *gj = json_object();
        for (int c = 0; gj && c < FSC_NICFX__CTRS; c++)
            if (fsc_nicfx_ctrs[c].group == (enum fsc_nicfx_group)g &&
                !put(gj, fsc_nicfx_ctrs[c].name, value_json(dev->ctr[c]))) {
                json_decref(gj);
                gj = NULL;
            }
        ok = put(groups, fsc_nicfx_group_names[g], gj);
    }
    for (int k = 0; ok && k < FSC_NICFX__AER_KINDS; k++)
        ok = put(aer, fsc_nicfx_aer[k].kind, aer_json(dev, (enum fsc_nicfx_aer_kind)k));
    ok = ok && put(d, "rdma", json_string(dev->rdma)) &&
         put(d, "netdev", json_string(dev->netdev)) && put(d, "bdf", json_string(dev->bdf)) &&
         put(d, "gbps", rate_json(&dev->gbps)) && put(d, "cnp_rate", rate_json(&dev->cnp_rate)) &&
         put(d, "oos_rate", rate_json(&dev->oos_rate)) &&
         put(d, "speed_mbps", json_integer(dev->speed_mbps)) &&
         put(d, "link_up", json_boolean(dev->link_up)) &&
         put(d, "pcie_degraded", json_boolean(dev->pcie_degraded)) &&
         put(d, "counters", json_incref(groups)) && put(d, "aer", json_incref(aer));
    json_decref(groups);
    json_decref(aer);
    if (!ok) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static json_t *state_json(const struct fsc_nicfx *fx)
{
    json_t *st = json_object(), *devs = json_array();
    bool ok = st && devs;
    for (size_t k = 0; ok && k < fx->n; k++)
        ok = json_array_append_new(devs, device_json(&fx->dev[k])) == 0;
    ok = ok && put(st, "t_ms", json_integer(fx->t_ms)) &&
         put(st, "steps", json_integer((json_int_t)fx->steps)) &&
         put(st, "lifespan", json_integer(fx->lifespan_ms)) &&
         put(st, "devices", json_incref(devs));
    json_decref(devs);
    if (!ok) {
        json_decref(st);
        return NULL;
    }
    return st;
}

#define DUMP_FLAGS (JSON_INDENT(1) | JSON_SORT_KEYS)

int fsc_nicfx_state_save(const char *root, const struct fsc_nicfx *fx, char *err, size_t errlen)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    int a = snprintf(path, sizeof(path), "%s/%s", root, FSC_NICFX_STATE_FILE);
    int b = snprintf(tmp, sizeof(tmp), "%s/%s.tmp", root, FSC_NICFX_STATE_FILE);
    if (a < 0 || b < 0 || (size_t)b >= sizeof(tmp)) {
        snprintf(err, errlen, "%s: path too long", root);
        return -1;
    }
    json_t *st = state_json(fx);
    if (!st) {
        snprintf(err, errlen, "out of memory building the fixture state");
        return -1;
    }
    int rc = json_dump_file(st, tmp, DUMP_FLAGS);
    json_decref(st);
    if (rc != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path,
                 rc != 0 ? "write failed" : strerror(errno));
        return -1;
    }
    return 0;
}

int fsc_nicfx_state_print(const struct fsc_nicfx *fx)
{
    json_t *st = state_json(fx);
    int rc = st ? json_dumpf(st, stdout, DUMP_FLAGS) : -1;
    json_decref(st);
    if (rc == 0 && fputc('\n', stdout) == EOF)
        rc = -1;
    return rc;
}
