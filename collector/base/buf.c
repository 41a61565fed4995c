#include "base/buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fsc_buf_reset(struct fsc_buf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->data)
        b->data[0] = '\0';
}

void fsc_buf_fixed(struct fsc_buf *b, char *mem, size_t size)
{
    *b = (struct fsc_buf){.data = mem, .cap = size, .fixed = 1};
    mem[0] = '\0';
}

void fsc_buf_free(struct fsc_buf *b)
{
    if (!b->fixed)
        free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
    b->fixed = 0;
}

int fsc_buf_reserve(struct fsc_buf *b, size_t more)
{
    if (more > SIZE_MAX - b->len - 1 || (b->limit && b->len + more > b->limit)) {
        b->failed = 1;
        return -E2BIG;
    }
    size_t need = b->len + more + 1; /* + NUL */
    if (need <= b->cap)
        return 0;
    if (b->fixed) {
        b->failed = 1;
        return -E2BIG;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -ENOMEM;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int fsc_buf_append(struct fsc_buf *b, const void *p, size_t n)
{
    int rc = fsc_buf_reserve(b, n);
    if (rc != 0)
        return rc;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int fsc_buf_puts(struct fsc_buf *b, const char *s)
{
    return fsc_buf_append(b, s, strlen(s));
}

int fsc_buf_vprintf(struct fsc_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof(small), fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->failed = 1;
        return -EINVAL;
    }
    if ((size_t)n < sizeof(small))
        return fsc_buf_append(b, small, (size_t)n);
    int rc = fsc_buf_reserve(b, (size_t)n);
    if (rc != 0)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int fsc_buf_printf(struct fsc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fsc_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}
