/* PEM files (certificates, keys, CA bundles) read whole for the TLS users
 * (gNMI client, OTLP servers). */
#ifndef FSC_PEM_H
#define FSC_PEM_H

#include <stddef.h>

#define FSC_PEM_MAX ((size_t)1024 * 1024) /* a certificate chain or CA bundle, bytes */

/* Reads the file at path (at most FSC_PEM_MAX bytes, not empty) as a
 * NUL-terminated string owned by the caller (free with fsc_pem_free).
 * `what` names it in errors ("certificate", "key", "CA file"). Returns NULL
 * with a sentence in err. Thread: any. */
char *fsc_pem_read(const char *path, const char *what, char *err, size_t errlen);

/* Wipes (key material) and frees a string from fsc_pem_read. NULL is a
 * no-op. */
void fsc_pem_free(char *pem);

#endif
