/* TLS and authentication of the libmicrohttpd listeners (http_sec.h). */
#include "net/http_sec.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/pem.h"

/* TLS 1.2 and 1.3 only, GnuTLS' default ciphers otherwise (what Prometheus'
 * web config allows by default, min_version TLS12). */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define TEXT_PLAIN     "text/plain; charset=utf-8"

struct fsc_http_sec {
    int tls;
    enum fsc_client_auth client_auth;
    char *cert, *key, *ca; /* PEM handed to MHD; kept until destroy */
    struct fsc_http_auth *auth;
    char listener[96];
    _Atomic uint64_t cert_refused;    /* connection threads count, a scrape reads */
    _Atomic int64_t cert_logged_ns;   /* last listener_client_cert_refused line, mono ns */
    _Atomic uint64_t cert_suppressed; /* refusals not logged since that line */
};

/* A scanner probing an mTLS port must not write a line per request: one
 * line per CERT_LOG_EVERY_NS per listener, with the count left out since
 * (as http_auth does for credential failures). */
#define CERT_LOG_EVERY_NS (10LL * 1000000000LL)

struct fsc_http_sec *fsc_http_sec_create(const struct fsc_tls_config *tls,
                                         const struct fsc_listener_auth *auth, const char *listener,
                                         char *err, size_t errlen)
{
    struct fsc_http_sec *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fsc_log_quote(listener ? listener : "", s->listener, sizeof(s->listener));
    if (tls && tls->enabled) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            snprintf(err, errlen, "this libmicrohttpd is built without TLS: cannot serve https");
            goto fail;
        }
        if (!tls->cert_file || !tls->key_file) {
            snprintf(err, errlen, "tls needs cert_file and key_file");
            goto fail;
        }
        s->tls = 1;
        /* A struct built without the loader may leave client_auth at none
         * with a CA: that meant "require" before the key existed. */
        s->client_auth = (enum fsc_client_auth)tls->client_auth;
        if (s->client_auth == FSC_CLIENT_AUTH_NONE && tls->ca_file)
            s->client_auth = FSC_CLIENT_AUTH_REQUIRE;
        if (s->client_auth != FSC_CLIENT_AUTH_NONE && !tls->ca_file) {
            snprintf(err, errlen, "tls.client_auth %s needs tls.ca_file",
                     s->client_auth == FSC_CLIENT_AUTH_REQUIRE ? "require" : "request");
            goto fail;
        }
        s->cert = fsc_pem_read(tls->cert_file, "certificate", err, errlen);
        if (!s->cert)
            goto fail;
        fsc_pem_warn_cert_time(s->cert, tls->cert_file, listener);
        s->key = fsc_pem_read(tls->key_file, "key", err, errlen);
        if (!s->key ||
            fsc_pem_check_pair(s->cert, s->key, tls->cert_file, tls->key_file, err, errlen) != 0)
            goto fail;
        if (s->client_auth != FSC_CLIENT_AUTH_NONE) {
            s->ca = fsc_pem_read(tls->ca_file, "CA file", err, errlen);
            if (!s->ca)
                goto fail;
        }
    }
    if (auth && auth->present) {
        s->auth = fsc_http_auth_create(auth, listener, err, errlen);
        if (!s->auth)
            goto fail;
    }
    return s;
fail:
    fsc_http_sec_destroy(s);
    return NULL;
}

void fsc_http_sec_destroy(struct fsc_http_sec *s)
{
    if (!s)
        return;
    fsc_pem_free(s->cert);
    fsc_pem_free(s->key);
    fsc_pem_free(s->ca);
    fsc_http_auth_destroy(s->auth);
    free(s);
}

unsigned fsc_http_sec_mhd_flags(const struct fsc_http_sec *s)
{
    return s && s->tls ? (unsigned)MHD_USE_TLS : 0u;
}

void fsc_http_sec_mhd_options(const struct fsc_http_sec *s,
                              struct MHD_OptionItem opts[FSC_HTTP_SEC_OPTIONS])
{
    size_t n = 0;
    if (s && s->tls) {
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, s->key};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
                                            (void *)(uintptr_t)TLS_PRIORITIES};
        /* A trust list makes MHD ask every client for a certificate
         * (GNUTLS_CERT_REQUEST); whether one is required is decided by the
         * gate, which also verifies it. */
        if (s->ca)
            opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, s->ca};
    }
    opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

int fsc_http_sec_tls(const struct fsc_http_sec *s)
{
    return s && s->tls;
}

const char *fsc_http_sec_client_auth(const struct fsc_http_sec *s)
{
    if (!s || !s->tls)
        return "none";
    return s->client_auth == FSC_CLIENT_AUTH_REQUIRE   ? "require"
           : s->client_auth == FSC_CLIENT_AUTH_REQUEST ? "request"
                                                       : "none";
}

int fsc_http_sec_auth(const struct fsc_http_sec *s)
{
    return s && s->auth;
}

void fsc_http_sec_stats(struct fsc_http_sec *s, struct fsc_http_sec_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!s)
        return;
    out->gated = s->auth || (s->tls && s->client_auth != FSC_CLIENT_AUTH_NONE);
    out->cert_refused = atomic_load(&s->cert_refused);
    if (s->auth)
        fsc_http_auth_stats(s->auth, &out->auth);
}

static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned status, const char *text,
                              const char *const *challenges, size_t n_challenges)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        strlen(text), (void *)(uintptr_t)text, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_NO;
    if (!resp)
        return MHD_NO;
    /* Connection: close makes MHD close after the refusal whatever the
     * method, so an unauthenticated request body is never read. */
    int ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, TEXT_PLAIN) == MHD_YES &&
             MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
    for (size_t i = 0; ok && i < n_challenges; i++)
        ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, challenges[i]) ==
             MHD_YES;
    if (ok)
        ret = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* 0 when the client certificate satisfies client_auth, else a reason. */
static const char *client_cert_problem(const struct fsc_http_sec *s, struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t sess = ci ? (gnutls_session_t)ci->tls_session : NULL;
    if (!sess)
        return "no TLS session";
    unsigned n_certs = 0;
    const gnutls_datum_t *certs = gnutls_certificate_get_peers(sess, &n_certs);
    if (!certs || n_certs == 0)
        return s->client_auth == FSC_CLIENT_AUTH_REQUIRE ? "missing" : NULL;
    /* Chain to the configured CA, validity dates, and a key purpose that
     * allows TLS client authentication (as Go's crypto/tls checks). */
    gnutls_typed_vdata_st purpose = {
        .type = GNUTLS_DT_KEY_PURPOSE_OID,
        .data = (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_CLIENT,
        .size = 0,
    };
    unsigned status = 0;
    if (gnutls_certificate_verify_peers(sess, &purpose, 1, &status) != GNUTLS_E_SUCCESS)
        return "unverifiable";
    return status == 0 ? NULL : "untrusted";
}

int fsc_http_sec_gate(struct fsc_http_sec *s, struct MHD_Connection *conn, enum MHD_Result *ret)
{
    if (!s)
        return 1;
    if (s->tls && s->client_auth != FSC_CLIENT_AUTH_NONE) {
        const char *why = client_cert_problem(s, conn);
        if (why) {
            atomic_fetch_add(&s->cert_refused, 1);
            int64_t now = fsc_mono_ns(), last = atomic_load(&s->cert_logged_ns);
            if ((last == 0 || now - last >= CERT_LOG_EVERY_NS) &&
                atomic_compare_exchange_strong(&s->cert_logged_ns, &last, now))
                fsc_log(FSC_LOG_WARN, "listener_client_cert_refused",
                        "listener=%s reason=%s suppressed=%llu", s->listener, why,
                        (unsigned long long)atomic_exchange(&s->cert_suppressed, 0));
            else
                atomic_fetch_add(&s->cert_suppressed, 1);
            *ret = refuse(conn, MHD_HTTP_FORBIDDEN,
                          "forbidden: a client certificate signed by the configured CA is "
                          "required\n",
                          NULL, 0);
            return 0;
        }
    }
    if (s->auth) {
        const char *authz =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (fsc_http_auth_check(s->auth, authz) != FSC_AUTH_OK) {
            const char *ch[2];
            size_t n;
            fsc_http_auth_challenges(s->auth, ch, &n);
            *ret = refuse(conn, MHD_HTTP_UNAUTHORIZED, "unauthorized\n", ch, n);
            return 0;
        }
    }
    return 1;
}

/* ---- stats ------------------------------------------------------------------ */

#define AUTH_FAMILY "fabricscope_listener_auth_failures"
#define AUTH_COL(word)                                                                             \
    {                                                                                              \
        .id = word, .family = AUTH_FAMILY, .type = FSC_STAT_COUNTER, .label = "reason",            \
        .label_value = word, .title = word                                                         \
    }

/* The credential verdicts in their enum order, then client certificates. */
static const struct fsc_stat_col auth_cols[] = {
    {.id = "missing",
     .family = AUTH_FAMILY,
     .type = FSC_STAT_COUNTER,
     .help = "Requests a listener refused (401, 403), by reason.",
     .label = "reason",
     .label_value = "missing",
     .title = "missing"},
    AUTH_COL("malformed"),
    AUTH_COL("unknown_user"),
    AUTH_COL("bad_password"),
    AUTH_COL("bad_token"),
    AUTH_COL("client_cert"),
};
_Static_assert(sizeof(auth_cols) / sizeof(auth_cols[0]) == FSC_AUTH_VERDICTS - FSC_AUTH_MISSING + 1,
               "a column per refusing verdict, and client certificates");

const struct fsc_stat_table fsc_http_sec_stat_table = {
    .id = "listener_auth",
    .title = "Listener refusals",
    .empty = "no listener checks credentials",
    .keys = {"listener", NULL},
    .cols = auth_cols,
    .n_cols = sizeof(auth_cols) / sizeof(auth_cols[0]),
};

void fsc_http_sec_stat_row(const struct fsc_stats_out *out, const char *listener,
                           const struct fsc_http_sec_stats *sec)
{
    double v[sizeof(auth_cols) / sizeof(auth_cols[0])];
    size_t n = 0;
    if (!sec->gated)
        return;
    for (int k = FSC_AUTH_MISSING; k < FSC_AUTH_VERDICTS; k++)
        v[n++] = (double)sec->auth.failed_by[k];
    v[n] = (double)sec->cert_refused;
    const char *keys[] = {listener};
    fsc_stats_row(out, &fsc_http_sec_stat_table, keys, v, NULL);
}
