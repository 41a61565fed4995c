/* PEM files (net/pem.h). */
#include "net/pem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "base/file_read.h"
#include "base/log.h"

char *fsc_pem_read(const char *path, const char *what, char *err, size_t errlen)
{
    char *buf = malloc(FSC_PEM_MAX + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %s %s", what, path);
        return NULL;
    }
    char why[128];
    ssize_t n = fsc_file_read_regular(path, buf, FSC_PEM_MAX, why, sizeof(why));
    if (n <= 0) {
        if (n == 0)
            snprintf(err, errlen, "%s %s is empty", what, path);
        else
            snprintf(err, errlen, "cannot open %s %s: %s", what, path, why);
        gnutls_memset(buf, 0, FSC_PEM_MAX + 1); /* a failed read may have left key bytes */
        free(buf);
        return NULL;
    }
    return buf;
}

void fsc_pem_free(char *pem)
{
    if (!pem)
        return;
    gnutls_memset(pem, 0, strlen(pem)); /* a wipe the compiler keeps before free() */
    free(pem);
}

/* "2026-01-01 00:00:00 UTC" */
static void utc_text(time_t t, char *out, size_t size)
{
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(out, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(out, size, "%lld (seconds since 1970)", (long long)t);
}

int fsc_pem_cert_time_check(const char *pem, int64_t now_s, char *why, size_t whylen)
{
    gnutls_x509_crt_t crt;
    if (gnutls_x509_crt_init(&crt) < 0)
        return -1;
    gnutls_datum_t d = {.data = (unsigned char *)(uintptr_t)pem, .size = (unsigned)strlen(pem)};
    int rc = -1;
    if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) >= 0) {
        time_t from = gnutls_x509_crt_get_activation_time(crt);
        time_t until = gnutls_x509_crt_get_expiration_time(crt);
        char when[64];
        rc = 0;
        if (until != (time_t)-1 && now_s > (int64_t)until) {
            utc_text(until, when, sizeof(when));
            snprintf(why, whylen, "expired %s", when);
            rc = 1;
        } else if (from != (time_t)-1 && now_s < (int64_t)from) {
            utc_text(from, when, sizeof(when));
            snprintf(why, whylen, "not valid before %s", when);
            rc = 1;
        }
    }
    gnutls_x509_crt_deinit(crt);
    return rc;
}

void fsc_pem_warn_cert_time(const char *pem, const char *file, const char *listener)
{
    char why[96];
    if (pem && fsc_pem_cert_time_check(pem, (int64_t)time(NULL), why, sizeof(why)) == 1)
        fsc_log(FSC_LOG_WARN, "tls_certificate_time",
                "listener=\"%s\" file=%s reason=\"%s: clients will refuse it\"", listener, file,
                why);
}

int fsc_pem_check_pair(const char *cert, const char *key, const char *cert_file,
                       const char *key_file, char *err, size_t errlen)
{
    gnutls_certificate_credentials_t creds;
    int rc = gnutls_certificate_allocate_credentials(&creds);
    if (rc < 0) {
        snprintf(err, errlen, "TLS: %s", gnutls_strerror(rc));
        return -1;
    }
    gnutls_datum_t c = {.data = (unsigned char *)(uintptr_t)cert, .size = (unsigned)strlen(cert)};
    gnutls_datum_t k = {.data = (unsigned char *)(uintptr_t)key, .size = (unsigned)strlen(key)};
    rc = gnutls_certificate_set_x509_key_mem(creds, &c, &k, GNUTLS_X509_FMT_PEM);
    gnutls_certificate_free_credentials(creds);
    if (rc < 0) {
        snprintf(err, errlen, "certificate %s with key %s: %s", cert_file, key_file,
                 gnutls_strerror(rc));
        return -1;
    }
    return 0;
}
