/* PEM files (net/pem.h). */
#include "net/pem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "base/file_read.h"

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
