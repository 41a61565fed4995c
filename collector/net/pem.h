/* PEM files (certificates, keys, CA bundles) read whole for the TLS users
 * (gNMI client, OTLP servers). */
#ifndef FSC_PEM_H
#define FSC_PEM_H

#include <stddef.h>
#include <stdint.h>

#define FSC_PEM_MAX ((size_t)1024 * 1024) /* a certificate chain or CA bundle, bytes */

/* Reads the file at path (at most FSC_PEM_MAX bytes, not empty) as a
 * NUL-terminated string owned by the caller (free with fsc_pem_free).
 * `what` names it in errors ("certificate", "key", "CA file"). Returns NULL
 * with a sentence in err. Thread: any. */
char *fsc_pem_read(const char *path, const char *what, char *err, size_t errlen);

/* Wipes (key material) and frees a string from fsc_pem_read. NULL is a
 * no-op. */
void fsc_pem_free(char *pem);

/* Whether the first certificate in pem is valid at now_s (seconds since
 * the epoch): 0; 1 with a sentence in why when it has expired or is not
 * valid yet ("expired 2026-01-01 00:00:00 UTC"); -1 when it does not parse
 * (the TLS setup that reads it reports that). Thread: any. */
int fsc_pem_cert_time_check(const char *pem, int64_t now_s, char *why, size_t whylen);

/* Whether cert (a PEM chain) and key (its PEM private key) load as a TLS
 * server's pair: 0, or -1 with a sentence in err naming cert_file and
 * key_file and what GnuTLS found wrong (not PEM, a key that does not match
 * the certificate). Checked before a listener is set up, so a bad file is
 * named as such, not as the listen failure it would become later. */
int fsc_pem_check_pair(const char *cert, const char *key, const char *cert_file,
                       const char *key_file, char *err, size_t errlen);

/* Logs a warning (event=tls_certificate_time) when the server certificate
 * `pem` read from `file` for `listener` ("prometheus", "source spine1 OTLP/gRPC")
 * is outside its validity period now: clients will refuse it, and nothing
 * else would say why before they do. Thread: any. */
void fsc_pem_warn_cert_time(const char *pem, const char *file, const char *listener);

#endif
