#include "sources/gnmi/gnmi_plan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies [s, s+n) with backslash escapes removed. */
static char *unescape_dup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        d[j++] = s[i];
    }
    d[j] = '\0';
    return d;
}

static void elem_free(Gnmi__PathElem *pe)
{
    if (!pe)
        return;
    for (size_t k = 0; k < pe->n_key; k++) {
        free(pe->key[k]->key);
        free(pe->key[k]->value);
        free(pe->key[k]);
    }
    free(pe->key);
    free(pe->name);
    free(pe);
}

void fsc_gnmi_path_free(Gnmi__Path *path)
{
    if (!path)
        return;
    for (size_t i = 0; i < path->n_elem; i++)
        elem_free(path->elem[i]);
    free(path->elem);
    free(path);
}

/* Parses "[k=v]..." at *ps into pe's keys; *ps is left after the last ']'. */
static int parse_keys(const char **ps, Gnmi__PathElem *pe, char *err, size_t errlen)
{
    const char *s = *ps;
    while (*s == '[') {
        const char *k = s + 1, *eq = strchr(k, '=');
        if (!eq || eq == k) {
            snprintf(err, errlen, "list key without a name or '=' in \"%s\"", s);
            return -EINVAL;
        }
        const char *v = eq + 1, *e = v;
        while (*e && *e != ']') {
            if (*e == '\\' && e[1])
                e++;
            e++;
        }
        if (*e != ']') {
            snprintf(err, errlen, "list key without a closing ']' in \"%s\"", s);
            return -EINVAL;
        }
        Gnmi__PathElem__KeyEntry **nk = realloc(pe->key, (pe->n_key + 1) * sizeof(*nk));
        if (!nk)
            return -ENOMEM;
        pe->key = nk;
        Gnmi__PathElem__KeyEntry *ke = malloc(sizeof(*ke));
        if (!ke)
            return -ENOMEM;
        gnmi__path_elem__key_entry__init(ke);
        ke->key = unescape_dup(k, (size_t)(eq - k));
        ke->value = unescape_dup(v, (size_t)(e - v));
        pe->key[pe->n_key++] = ke; /* owned by pe now, even half built */
        if (!ke->key || !ke->value)
            return -ENOMEM;
        s = e + 1;
    }
    *ps = s;
    return 0;
}

int fsc_gnmi_path_parse(const char *text, Gnmi__Path **out, char *err, size_t errlen)
{
    int rc = -ENOMEM;
    *out = NULL;
    if (!text || text[0] != '/') {
        snprintf(err, errlen, "path \"%s\" does not start with '/'", text ? text : "");
        return -EINVAL;
    }
    Gnmi__Path *path = malloc(sizeof(*path));
    if (!path)
        goto fail_nomem;
    gnmi__path__init(path);
    const char *s = text;
    while (*s) {
        if (*s == '/') {
            s++;
            continue;
        }
        size_t n = strcspn(s, "/[");
        if (n == 0) {
            snprintf(err, errlen, "list key without an element name in path \"%s\"", text);
            rc = -EINVAL;
            goto fail;
        }
        Gnmi__PathElem **ne = realloc(path->elem, (path->n_elem + 1) * sizeof(*ne));
        if (!ne)
            goto fail_nomem;
        path->elem = ne;
        Gnmi__PathElem *pe = malloc(sizeof(*pe));
        if (!pe)
            goto fail_nomem;
        gnmi__path_elem__init(pe);
        path->elem[path->n_elem++] = pe; /* owned by path now */
        pe->name = unescape_dup(s, n);
        if (!pe->name)
            goto fail_nomem;
        s += n;
        char kerr[200];
        rc = parse_keys(&s, pe, kerr, sizeof(kerr));
        if (rc == -ENOMEM)
            goto fail_nomem;
        if (rc < 0) {
            snprintf(err, errlen, "path \"%s\": %s", text, kerr);
            goto fail;
        }
        if (*s && *s != '/') {
            snprintf(err, errlen, "path \"%s\": unexpected '%c' after a list key", text, *s);
            rc = -EINVAL;
            goto fail;
        }
    }
    *out = path;
    return 0;
fail_nomem:
    snprintf(err, errlen, "out of memory parsing path \"%s\"", text);
    rc = -ENOMEM;
fail:
    fsc_gnmi_path_free(path);
    return rc;
}

static Gnmi__Encoding plan_encoding(enum fsc_gnmi_encoding enc)
{
    switch (enc) {
    case FSC_GNMI_JSON:
        return GNMI__ENCODING__JSON;
    case FSC_GNMI_JSON_IETF:
        return GNMI__ENCODING__JSON_IETF;
    case FSC_GNMI_PROTO:
        break;
    }
    return GNMI__ENCODING__PROTO;
}

int fsc_gnmi_plan_request(const struct fsc_gnmi_config *gc, size_t idx, uint8_t **buf, size_t *len,
                          char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    if (!gc || idx >= gc->n_streams) {
        snprintf(err, errlen, "no stream %zu in the gNMI config", idx);
        return -EINVAL;
    }
    const struct fsc_gnmi_stream *st = &gc->streams[idx];
    if (st->n_paths == 0) {
        snprintf(err, errlen, "stream %s has no paths", st->name ? st->name : "?");
        return -EINVAL;
    }
    int rc = 0;
    Gnmi__Subscription *subs = calloc(st->n_paths, sizeof(*subs));
    Gnmi__Subscription **sub_ptrs = calloc(st->n_paths, sizeof(*sub_ptrs));
    if (!subs || !sub_ptrs) {
        snprintf(err, errlen, "out of memory planning stream %s", st->name);
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < st->n_paths; i++) {
        Gnmi__Subscription *sub = &subs[i];
        gnmi__subscription__init(sub);
        rc = fsc_gnmi_path_parse(st->paths[i], &sub->path, err, errlen);
        if (rc < 0)
            goto out;
        if (st->mode == FSC_GNMI_ON_CHANGE) {
            sub->mode = GNMI__SUBSCRIPTION_MODE__ON_CHANGE;
        } else {
            sub->mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
            /* Config loading already rounded it (and warned); a config
             * built in code gets the same request. */
            int64_t iv = fsc_gnmi_interval_on_grid(st->sample_interval_ns, gc->interval_grid_ns);
            sub->sample_interval = iv > 0 ? (uint64_t)iv : 0;
        }
        sub_ptrs[i] = sub;
    }
    Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
    list.n_subscription = st->n_paths;
    list.subscription = sub_ptrs;
    list.mode = GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
    list.encoding = plan_encoding(gc->encoding);
    list.updates_only = st->updates_only;
    /* list.qos stays NULL on purpose (Junos answers "Qos not supported"); prefix stays NULL:
     * each path is absolute, so the response prefixes are the target's own. */
    Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
    req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
    req.subscribe = &list;
    size_t n = gnmi__subscribe_request__get_packed_size(&req);
    if (n > FSC_GNMI_PLAN_MAX_BYTES) {
        snprintf(err, errlen, "stream %s: request of %zu bytes is over the %d byte limit", st->name,
                 n, FSC_GNMI_PLAN_MAX_BYTES);
        rc = -E2BIG;
        goto out;
    }
    *buf = malloc(n ? n : 1);
    if (!*buf) {
        snprintf(err, errlen, "out of memory planning stream %s", st->name);
        rc = -ENOMEM;
        goto out;
    }
    *len = gnmi__subscribe_request__pack(&req, *buf);
out:
    if (subs)
        for (size_t i = 0; i < st->n_paths; i++)
            fsc_gnmi_path_free(subs[i].path);
    free(subs);
    free(sub_ptrs);
    return rc;
}
