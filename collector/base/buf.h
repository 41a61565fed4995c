/* A growable byte buffer with a hard cap, reused across uses (render buffers,
 * request bodies). Always NUL-terminated when data is non-NULL, so text can be
 * handed to string functions. Not thread-safe: one owner at a time. */
#ifndef FSC_BUF_H
#define FSC_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct fsc_buf {
    char *data;   /* NULL until the first append */
    size_t len;   /* bytes used (excluding the NUL) */
    size_t cap;   /* bytes allocated */
    size_t limit; /* appends that would grow len beyond this fail; 0 = no cap */
    int failed;   /* an append failed (limit or ENOMEM); sticky until reset */
    int fixed;    /* data is the caller's memory (fsc_buf_fixed): never grown or freed */
};

/* Makes b a buffer over the caller's mem[0..size) (size > 0): appends that
 * would need more than size bytes with the NUL fail with -E2BIG and nothing
 * is ever allocated, reallocated or freed (for writers that must not
 * allocate). mem[0] is set to NUL. Thread: the caller's. */
void fsc_buf_fixed(struct fsc_buf *b, char *mem, size_t size);

/* Empties the buffer, keeping its memory (and its limit). */
void fsc_buf_reset(struct fsc_buf *b);

/* Frees the memory (not a fixed buffer's: that is only let go); the buffer
 * is then empty and reusable. */
void fsc_buf_free(struct fsc_buf *b);

/* Makes room for `more` bytes beyond len. Returns 0, or -ENOMEM / -E2BIG
 * (limit) and sets failed. */
int fsc_buf_reserve(struct fsc_buf *b, size_t more);

/* Appends n bytes / a string / a formatted string. Return 0 or a negative
 * errno (and set failed); on failure the buffer's content is unchanged. */
int fsc_buf_append(struct fsc_buf *b, const void *p, size_t n);
int fsc_buf_puts(struct fsc_buf *b, const char *s);
int fsc_buf_printf(struct fsc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fsc_buf_vprintf(struct fsc_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
