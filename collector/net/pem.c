/* PEM files (net/pem.h). */
#include "net/pem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

char *fsc_pem_read(const char *path, const char *what, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s %s: %s", what, path, strerror(e));
        return NULL;
    }
    char *buf = malloc(FSC_PEM_MAX + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "out of memory reading %s %s", what, path);
        return NULL;
    }
    size_t n = fread(buf, 1, FSC_PEM_MAX + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n == 0 || n > FSC_PEM_MAX) {
        snprintf(err, errlen, "%s %s is %s", what, path,
                 bad ? "unreadable" : (n == 0 ? "empty" : "larger than 1 MiB"));
        fsc_pem_free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

void fsc_pem_free(char *pem)
{
    if (!pem)
        return;
    gnutls_memset(pem, 0, strlen(pem)); /* a wipe the compiler keeps before free() */
    free(pem);
}
