/* TLS and authentication of the collector's HTTP server (net/http_server.c,
 * which runs the Prometheus and status page listener and OTLP/HTTP): one
 * implementation for every listener (docs/SECURITY.md).
 *
 * TLS: MHD_USE_TLS with the PEM certificate and key (libmicrohttpd on
 * Debian is built with GnuTLS), TLS 1.2 or newer. Client certificates: with
 * client_auth request/require the CA goes to MHD (MHD_OPTION_HTTPS_MEM_TRUST),
 * which makes GnuTLS ask for a certificate; MHD does not verify what it gets,
 * so the gate does, per request, on the connection's GnuTLS session
 * (gnutls_certificate_verify_peers against that CA, key purpose TLS client).
 *
 * The gate runs on the first access-handler call of every request, before
 * any body is read or any route runs: a missing or untrusted client
 * certificate gets 403, missing or wrong credentials 401 with
 * WWW-Authenticate. Queuing the refusal on the first call makes MHD close the
 * connection after it, so an unauthenticated body is never read. */
#ifndef FSC_HTTP_SEC_H
#define FSC_HTTP_SEC_H

#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "base/stats.h"
#include "config/config.h"
#include "net/http_auth.h"

/* MHD option items fsc_http_sec_mhd_options() writes, END included. */
#define FSC_HTTP_SEC_OPTIONS 6

struct fsc_http_sec;

/* Loads TLS material (tls: NULL or !enabled = plain HTTP) and builds the
 * credential check (auth: NULL or !present = open). Both borrowed; what is
 * needed is copied (key PEM wiped on destroy). `listener` names it in log
 * lines. Returns NULL with a sentence in err. Thread: any. */
struct fsc_http_sec *fsc_http_sec_create(const struct fsc_tls_config *tls,
                                         const struct fsc_listener_auth *auth, const char *listener,
                                         char *err, size_t errlen);

/* Frees (after MHD_stop_daemon: MHD keeps pointers to the PEM strings).
 * NULL is a no-op. */
void fsc_http_sec_destroy(struct fsc_http_sec *s);

/* MHD_USE_TLS when TLS is on, else 0. */
unsigned fsc_http_sec_mhd_flags(const struct fsc_http_sec *s);

/* Writes the TLS options (key, cert, trust, priorities) followed by
 * MHD_OPTION_END into opts, for MHD_OPTION_ARRAY. */
void fsc_http_sec_mhd_options(const struct fsc_http_sec *s,
                              struct MHD_OptionItem opts[FSC_HTTP_SEC_OPTIONS]);

/* 1 when TLS is on; "none"/"request"/"require"; 1 when auth is on. */
int fsc_http_sec_tls(const struct fsc_http_sec *s);
const char *fsc_http_sec_client_auth(const struct fsc_http_sec *s);
int fsc_http_sec_auth(const struct fsc_http_sec *s);

/* Checks the request's client certificate and credentials. Returns 1 when
 * it may proceed; else 0 with the refusal queued (403 or 401, text/plain,
 * Connection: close) and MHD's answer in *ret. Thread: the connection's. */
int fsc_http_sec_gate(struct fsc_http_sec *s, struct MHD_Connection *conn, enum MHD_Result *ret);

/* What a listener refused, for fabricscope_listener_auth_failures_total. */
struct fsc_http_sec_stats {
    int gated;                       /* 1 when credentials or client certificates are checked */
    uint64_t cert_refused;           /* 403: client certificate missing or not trusted */
    struct fsc_http_auth_stats auth; /* 401s per verdict (zeros without auth) */
};

/* Copies the counters (zeros, gated 0, for NULL). Thread: any. */
void fsc_http_sec_stats(struct fsc_http_sec *s, struct fsc_http_sec_stats *out);

/* The table of listener refusals every listener reports in
 * (fabricscope_listener_auth_failures_total{listener, reason}): one row
 * per listener that checks credentials or client certificates. */
extern const struct fsc_stat_table fsc_http_sec_stat_table;

/* Writes listener's row (nothing when it checks nothing: !sec->gated). */
void fsc_http_sec_stat_row(const struct fsc_stats_out *out, const char *listener,
                           const struct fsc_http_sec_stats *sec);

#endif
