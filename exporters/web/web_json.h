/* A small JSON writer (RFC 8259) into an fsc_buf, for the web API.
 *
 * Bounded: nesting is tracked in a fixed stack of FSC_JW_DEPTH levels and
 * the output in the caller's buffer, whose limit caps the document. The
 * first error (the buffer's -E2BIG / -ENOMEM, or -EINVAL for a misuse:
 * a key where none belongs or none where one is needed, too deep, an end
 * without a begin, a second top-level value) is kept and every later call
 * does nothing, so a renderer writes straight through and checks once, in
 * fsc_jw_finish().
 *
 * Strings: any bytes in, valid JSON out. Valid UTF-8 (base/utf8.h) is copied, every byte
 * of an invalid sequence becomes U+FFFD; ", \ and control characters are
 * escaped (\n, \t, ... or \u00XX); so are <, > and & (\u003c, \u003e,
 * \u0026) and U+2028 / U+2029, so a document can be embedded in an HTML
 * <script> or evaluated as JavaScript without ending it early.
 *
 * Numbers: integers exactly; doubles with the fewest of 15, 16 or 17
 * significant digits that read back as the same double (the text /metrics
 * uses for the same value), non-finite ones as null.
 *
 * Thread: a writer belongs to one thread; nothing is global. */
#ifndef FSC_WEB_JSON_H
#define FSC_WEB_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define FSC_JW_DEPTH 16

struct fsc_jw {
    struct fsc_buf *out;
    int err;        /* 0 or the first negative errno */
    unsigned depth; /* open containers */
    int done;       /* the top-level value is complete */
    uint8_t is_obj[FSC_JW_DEPTH];
    uint8_t has_member[FSC_JW_DEPTH];
};

/* Starts a document appended to out (borrowed; not reset). */
void fsc_jw_init(struct fsc_jw *w, struct fsc_buf *out);

/* Each value call takes `key`: the member name inside an object, NULL
 * inside an array and for the top-level value. */
void fsc_jw_object(struct fsc_jw *w, const char *key);
void fsc_jw_array(struct fsc_jw *w, const char *key);
/* Closes the innermost object or array. */
void fsc_jw_end(struct fsc_jw *w);

/* s may be NULL (null). */
void fsc_jw_str(struct fsc_jw *w, const char *key, const char *s);
void fsc_jw_strn(struct fsc_jw *w, const char *key, const char *s, size_t n);
void fsc_jw_int(struct fsc_jw *w, const char *key, int64_t v);
void fsc_jw_uint(struct fsc_jw *w, const char *key, uint64_t v);
void fsc_jw_num(struct fsc_jw *w, const char *key, double v);
void fsc_jw_bool(struct fsc_jw *w, const char *key, int v);
void fsc_jw_null(struct fsc_jw *w, const char *key);

/* Returns 0 when one complete top-level value was written without error,
 * else the first error (-EINVAL also for an unclosed container or no value
 * at all). */
int fsc_jw_finish(const struct fsc_jw *w);

/* Appends s[0..n) as a quoted JSON string, escaped as above. Returns 0 or
 * the buffer's error. */
int fsc_json_quote(struct fsc_buf *out, const char *s, size_t n);

#endif
