/* The Prometheus HTTP API client of the reports (report_prom_api.h). */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/report_prom_api.h"

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct fsc_prom_api_body *b = arg;
    size_t n = size * nmemb;
    if (b->len + n + 1 > FSC_PROM_API_MAX_BODY) {
        b->too_big = 1;
        return 0;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *nb = realloc(b->buf, cap);
        if (!nb)
            return 0;
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, ptr, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return n;
}

int fsc_prom_api_open(struct fsc_prom_api *c, const char *url, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->url = url;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        snprintf(err, errlen, "cannot initialise libcurl");
        return -ENOMEM;
    }
    c->global = 1;
    if (!(c->curl = curl_easy_init())) {
        fsc_prom_api_close(c);
        snprintf(err, errlen, "cannot initialise libcurl");
        return -ENOMEM;
    }
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->body);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "fabricscope-report");
    return 0;
}

void fsc_prom_api_close(struct fsc_prom_api *c)
{
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->body.buf);
    if (c->global)
        curl_global_cleanup();
    memset(c, 0, sizeof(*c));
}

/* ---- the answer --------------------------------------------------------------------- */

struct parse {
    fsc_prom_api_sample_fn fn;
    void *ctx;
    char status[16], error[256], error_type[64];
    char why[JSON_ERROR_TEXT_LENGTH + 48]; /* what is wrong with a malformed answer */
};

static int malformed(struct parse *p, const char *msg)
{
    snprintf(p->why, sizeof(p->why), "%s", msg);
    return -EBADMSG;
}

/* A string value into dst (cut to size). */
static int read_str(struct parse *p, const json_t *v, char *dst, size_t size)
{
    if (!json_is_string(v))
        return malformed(p, "expected a string");
    size_t n = json_string_length(v);
    if (n >= size)
        n = size - 1;
    memcpy(dst, json_string_value(v), n);
    dst[n] = '\0';
    return 0;
}

static int read_metric(struct parse *p, const json_t *v, struct fsc_prom_labels *lab)
{
    static const struct {
        const char *name;
        size_t off, size;
    } want[] = {
#define W(f) {#f, offsetof(struct fsc_prom_labels, f), sizeof(((struct fsc_prom_labels *)0)->f)}
        W(device), W(port), W(direction), W(le),   W(group),
        W(node),   W(role), W(rail),      W(peer), W(peer_port),
#undef W
    };
    if (!json_is_object(v))
        return malformed(p, "expected an object");
    for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
        const json_t *s = json_object_get(v, want[w].name);
        int rc = s ? read_str(p, s, (char *)lab + want[w].off, want[w].size) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* [t, "v"] (further elements ignored); t a number, or a string holding one */
static int read_point(struct parse *p, const json_t *v, double *t, double *val)
{
    char s[64];
    if (!json_is_array(v))
        return malformed(p, "expected an array");
    if (json_array_size(v) < 2)
        return malformed(p, "expected [time, value]");
    const json_t *jt = json_array_get(v, 0);
    if (json_is_number(jt)) {
        *t = json_number_value(jt);
    } else {
        const char *text = json_is_string(jt) ? json_string_value(jt) : NULL;
        char *end = NULL;
        if (text)
            *t = strtod(text, &end);
        if (!text || end == text || *end != '\0')
            return malformed(p, "expected a number");
    }
    int rc = read_str(p, json_array_get(v, 1), s, sizeof(s));
    if (rc != 0)
        return rc;
    *val = strtod(s, NULL); /* "NaN", "+Inf" and numbers alike */
    return 0;
}

/* One series: its labels ("metric"), then its samples in answer order. */
static int read_series(struct parse *p, json_t *v)
{
    struct fsc_prom_labels lab;
    int rc;
    memset(&lab, 0, sizeof(lab));
    if (!json_is_object(v))
        return malformed(p, "expected an object");
    const json_t *metric = json_object_get(v, "metric");
    if (metric && (rc = read_metric(p, metric, &lab)) != 0)
        return rc;
    for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
        const char *key = json_object_iter_key(it);
        json_t *m = json_object_iter_value(it);
        double t, val;
        if (strcmp(key, "value") == 0) {
            if ((rc = read_point(p, m, &t, &val)) != 0)
                return rc;
            p->fn(p->ctx, &lab, t, val);
        } else if (strcmp(key, "values") == 0) {
            if (!json_is_array(m))
                return malformed(p, "expected an array");
            for (size_t i = 0; i < json_array_size(m); i++) {
                if ((rc = read_point(p, json_array_get(m, i), &t, &val)) != 0)
                    return rc;
                p->fn(p->ctx, &lab, t, val);
            }
        }
    }
    return 0;
}

static int read_answer(struct parse *p, json_t *root)
{
    const json_t *v;
    int rc;
    if (!json_is_object(root))
        return malformed(p, "expected an object");
    if ((v = json_object_get(root, "status")) &&
        (rc = read_str(p, v, p->status, sizeof(p->status))))
        return rc;
    if ((v = json_object_get(root, "error")) && (rc = read_str(p, v, p->error, sizeof(p->error))))
        return rc;
    if ((v = json_object_get(root, "errorType")) &&
        (rc = read_str(p, v, p->error_type, sizeof(p->error_type))))
        return rc;
    json_t *data = json_object_get(root, "data");
    json_t *result = json_is_object(data) ? json_object_get(data, "result") : NULL;
    for (size_t i = 0; i < json_array_size(result); i++)
        if ((rc = read_series(p, json_array_get(result, i))) != 0)
            return rc;
    return 0;
}

/* 0, -EBADMSG (p->why says why) or -ENOMEM. Integers are read as doubles:
 * every number used is one, and jansson refuses integers beyond int64
 * otherwise. */
static int parse_answer(struct parse *p, const char *buf, size_t len)
{
    json_error_t e;
    json_t *root = json_loadb(buf, len, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &e);
    if (!root) {
        if (e.text[0] == '\0' || json_error_code(&e) == json_error_out_of_memory)
            return -ENOMEM;
        snprintf(p->why, sizeof(p->why), "%s (line %d, column %d)", e.text, e.line, e.column);
        return -EBADMSG;
    }
    int rc = read_answer(p, root);
    json_decref(root);
    return rc;
}

/* ---- requests ---------------------------------------------------------------------- */

int fsc_prom_api_query(struct fsc_prom_api *c, const char *path, const char *promql,
                       const char *extra, fsc_prom_api_sample_fn fn, void *ctx, char *err,
                       size_t errlen)
{
    char *enc = curl_easy_escape(c->curl, promql, 0);
    if (!enc)
        return -ENOMEM;
    size_t need = strlen(c->url) + strlen(path) + strlen(enc) + strlen(extra) + 16;
    char *full = malloc(need);
    if (!full) {
        curl_free(enc);
        return -ENOMEM;
    }
    snprintf(full, need, "%s%s?query=%s&%s", c->url, path, enc, extra);
    curl_free(enc);
    c->body.len = 0;
    c->body.too_big = 0;
    curl_easy_setopt(c->curl, CURLOPT_URL, full);
    CURLcode cc = curl_easy_perform(c->curl);
    free(full);
    long status = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (cc != CURLE_OK) {
        if (c->body.too_big) {
            snprintf(err, errlen, "Prometheus at %s answered more than %u MiB for %s", c->url,
                     FSC_PROM_API_MAX_BODY >> 20, promql);
            return -E2BIG;
        }
        snprintf(err, errlen, "cannot reach Prometheus at %s: %s", c->url, curl_easy_strerror(cc));
        return -ECONNREFUSED;
    }
    struct parse p = {.fn = fn, .ctx = ctx};
    int rc = c->body.buf ? parse_answer(&p, c->body.buf, c->body.len) : -EBADMSG;
    if (rc == -ENOMEM) {
        snprintf(err, errlen, "out of memory reading the answer of Prometheus at %s", c->url);
        return rc;
    }
    if (rc != 0) {
        if (status != 200)
            snprintf(err, errlen, "HTTP %ld from %s%s (is this a Prometheus server?)", status,
                     c->url, path);
        else
            snprintf(err, errlen, "malformed answer from Prometheus at %s: %s", c->url,
                     p.why[0] ? p.why : "not JSON");
        return -EPROTO;
    }
    if (strcmp(p.status, "success") != 0) {
        snprintf(err, errlen, "Prometheus at %s refused the query %s: %s: %s", c->url, promql,
                 p.error_type[0] ? p.error_type : "error", p.error[0] ? p.error : "(no message)");
        return -EPROTO;
    }
    return 0;
}
