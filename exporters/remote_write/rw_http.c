/* The sender's libcurl handle (contract in rw_int.h). One easy handle for
 * the exporter's life, so the connection (and TLS session) is kept alive
 * between requests. Credentials go through libcurl (basic auth) or one
 * header built here (bearer), never into a log line. */
#include <curl/curl.h>
#include <gnutls/gnutls.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/clock.h"
#include "remote_write/rw_int.h"
#include "remote_write/rw_retry.h"

struct fsc_rw_http {
    CURL *curl;
    struct curl_slist *headers;
    char *auth_header;        /* "Authorization: Bearer ..."; wiped at destroy (the
                               * copy curl_slist_append made is freed unwiped) */
    _Atomic int64_t abort_at; /* mono ns; 0 = never (fsc_rw_http_abort_at) */
    struct fsc_rw_reply *rep; /* the request in progress */
    size_t body_len;
    char retry_after[64];
    int has_retry_after;
};

/* libcurl calls this about once a second and on progress: a non-zero
 * return aborts the transfer (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    struct fsc_rw_http *h = arg;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    int64_t at = atomic_load(&h->abort_at);
    return at != 0 && fsc_mono_ns() >= at;
}

void fsc_rw_http_abort_at(struct fsc_rw_http *h, int64_t mono_ns)
{
    if (h)
        atomic_store(&h->abort_at, mono_ns > 0 ? mono_ns : 1);
}

/* Keeps the first bytes of the response body for the log; reads the rest
 * away (receivers explain a 400 there). */
static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    struct fsc_rw_http *h = arg;
    size_t len = size * n, room = sizeof(h->rep->body) - 1 - h->body_len;
    size_t k = len < room ? len : room;
    memcpy(h->rep->body + h->body_len, p, k);
    h->body_len += k;
    h->rep->body[h->body_len] = '\0';
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    struct fsc_rw_http *h = arg;
    size_t len = size * n;
    static const char key[] = "retry-after:";
    if (len > sizeof(key) - 1 && strncasecmp(p, key, sizeof(key) - 1) == 0) {
        size_t v = len - (sizeof(key) - 1);
        if (v >= sizeof(h->retry_after))
            v = sizeof(h->retry_after) - 1;
        memcpy(h->retry_after, p + sizeof(key) - 1, v);
        h->retry_after[v] = '\0';
        h->has_retry_after = 1;
    }
    return len;
}

void fsc_rw_http_destroy(struct fsc_rw_http *h)
{
    if (!h)
        return;
    if (h->curl)
        curl_easy_cleanup(h->curl);
    curl_slist_free_all(h->headers);
    if (h->auth_header) {
        gnutls_memset(h->auth_header, 0, strlen(h->auth_header));
        free(h->auth_header);
    }
    free(h);
}

static int add_header(struct fsc_rw_http *h, const char *line)
{
    struct curl_slist *l = curl_slist_append(h->headers, line);
    if (!l)
        return -ENOMEM;
    h->headers = l;
    return 0;
}

struct fsc_rw_http *fsc_rw_http_create(const struct fsc_remote_write_config *cfg, char *err,
                                       size_t errlen)
{
    const struct fsc_tls_config *tls = &cfg->tls;
    if (tls->present && tls->enabled && tls->server_name) {
        snprintf(err, errlen,
                 "exporters.remote_write.tls.server_name is not supported: libcurl verifies the "
                 "host named in url");
        return NULL;
    }
    struct fsc_rw_http *h = calloc(1, sizeof(*h));
    if (!h || !(h->curl = curl_easy_init())) {
        snprintf(err, errlen, "out of memory creating the remote_write HTTP client");
        fsc_rw_http_destroy(h);
        return NULL;
    }
    char line[1200];
    int rc = 0;
    rc |= add_header(h, "Content-Encoding: snappy");
    rc |= add_header(h, "Content-Type: application/x-protobuf");
    rc |= add_header(h, "X-Prometheus-Remote-Write-Version: 0.1.0");
    rc |= add_header(h, "Expect:"); /* no 100-continue round trip before large bodies */
    for (size_t i = 0; i < cfg->n_headers; i++) {
        snprintf(line, sizeof(line), "%s: %s", cfg->headers[i].name, cfg->headers[i].value);
        rc |= add_header(h, line);
    }
    if (cfg->bearer_token.value) {
        size_t n = strlen(cfg->bearer_token.value) + sizeof("Authorization: Bearer ");
        h->auth_header = malloc(n);
        if (!h->auth_header)
            rc = -ENOMEM;
        else {
            snprintf(h->auth_header, n, "Authorization: Bearer %s", cfg->bearer_token.value);
            rc |= add_header(h, h->auth_header);
        }
    }
    if (rc != 0) {
        snprintf(err, errlen, "out of memory creating the remote_write HTTP client");
        fsc_rw_http_destroy(h);
        return NULL;
    }
    CURL *c = h->curl;
    CURLcode cc = CURLE_OK;
#define SET(opt, val)                                                                              \
    do {                                                                                           \
        if (cc == CURLE_OK)                                                                        \
            cc = curl_easy_setopt(c, opt, val);                                                    \
    } while (0)
    SET(CURLOPT_URL, cfg->url);
    SET(CURLOPT_HTTPHEADER, h->headers);
    SET(CURLOPT_USERAGENT, "fabricscope/" FSC_VERSION);
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM-based DNS timeouts */
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, h);
    SET(CURLOPT_NOPROGRESS, 0L); /* on_progress runs, to honour abort_at */
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, h);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, h);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout_ns / 1000000));
    if (cfg->basic_auth.present) {
        SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SET(CURLOPT_USERNAME, cfg->basic_auth.username);
        SET(CURLOPT_PASSWORD, cfg->basic_auth.password.value);
    }
    if (tls->present && tls->enabled) {
        if (tls->ca_file)
            SET(CURLOPT_CAINFO, tls->ca_file);
        if (tls->cert_file) {
            SET(CURLOPT_SSLCERT, tls->cert_file);
            SET(CURLOPT_SSLKEY, tls->key_file);
        }
        if (tls->insecure_skip_verify) {
            SET(CURLOPT_SSL_VERIFYPEER, 0L);
            SET(CURLOPT_SSL_VERIFYHOST, 0L);
        }
    }
#undef SET
    if (cc != CURLE_OK) {
        snprintf(err, errlen, "libcurl refuses a remote_write setting: %s", curl_easy_strerror(cc));
        fsc_rw_http_destroy(h);
        return NULL;
    }
    return h;
}

void fsc_rw_http_post(struct fsc_rw_http *h, const void *body, size_t n, int64_t timeout_ms,
                      struct fsc_rw_reply *rep)
{
    memset(rep, 0, sizeof(*rep));
    rep->retry_after_s = -1;
    h->rep = rep;
    h->body_len = 0;
    h->has_retry_after = 0;
    CURL *c = h->curl;
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_ms > 1 ? timeout_ms : 1));
    CURLcode cc = curl_easy_perform(c);
    if (cc != CURLE_OK) {
        snprintf(rep->error, sizeof(rep->error), "%s", curl_easy_strerror(cc));
        rep->status = 0;
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rep->status);
    }
    int64_t d;
    if (h->has_retry_after &&
        fsc_rw_retry_after_parse(h->retry_after, (int64_t)time(NULL), &d) == 0)
        rep->retry_after_s = d;
    h->rep = NULL;
}
