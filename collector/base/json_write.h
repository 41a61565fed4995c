/* The JSON writer (RFC 8259) of the tree: the web API, the Kafka event
 * documents and the capacity report's report.json all write through it.
 *
 * Bounded: nesting is tracked in a fixed stack of FSC_JSON_DEPTH levels and
 * the output goes to the caller's fsc_buf, whose limit caps the document (a
 * buffer made with fsc_buf_fixed() makes the writer allocation-free). The
 * first error (the buffer's -E2BIG / -ENOMEM, or -EINVAL for a misuse: a key
 * where none belongs or none where one is needed, too deep, an end without
 * a begin, a second top-level value) is kept and every later call does
 * nothing, so a renderer writes straight through and checks once, in
 * fsc_json_done().
 *
 * Strings: any bytes in, valid JSON out. Valid UTF-8 (base/utf8.h) is
 * copied, every byte of an invalid sequence becomes \ufffd; ", \ and the
 * control characters are escaped (\b \f \n \r \t, else \u00XX), and so are
 * DEL (\u007f), <, > and & (\u003c, \u003e, \u0026) and U+2028 / U+2029, so
 * a document can also be embedded in an HTML <script> or evaluated as
 * JavaScript without ending it early.
 *
 * Numbers: integers exactly; doubles as base/numfmt's fsc_fmt_double (the
 * shortest text that reads back as the same double, the text /metrics uses
 * for the same value); non-finite ones as null (JSON has no NaN or Inf).
 *
 * Layout: compact (no whitespace) by default. A pretty writer
 * (fsc_json_start_pretty) puts each member of a container on its own line,
 * indented two spaces a level, with ": " after keys; a container marked
 * fsc_json_one_line() keeps its members on one line, ", " between them.
 *
 * Thread: a writer belongs to one thread; nothing is global. */
#ifndef FSC_JSON_WRITE_H
#define FSC_JSON_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define FSC_JSON_DEPTH 16

struct fsc_json {
    struct fsc_buf *out;
    int err;        /* 0 or the first negative errno */
    unsigned depth; /* open containers */
    int done;       /* the top-level value is complete */
    int pretty;
    uint8_t is_obj[FSC_JSON_DEPTH];
    uint8_t has_member[FSC_JSON_DEPTH];
    uint8_t one_line[FSC_JSON_DEPTH];
};

/* Starts a compact document appended to out (borrowed; not reset). */
void fsc_json_start(struct fsc_json *w, struct fsc_buf *out);

/* Starts a pretty-printed document appended to out (see Layout above). */
void fsc_json_start_pretty(struct fsc_json *w, struct fsc_buf *out);

/* Each value call takes `key`: the member name inside an object, NULL
 * inside an array and for the top-level value. */
void fsc_json_object(struct fsc_json *w, const char *key);
void fsc_json_array(struct fsc_json *w, const char *key);
/* Closes the innermost object or array. */
void fsc_json_end(struct fsc_json *w);

/* Pretty writers: the innermost open container and all it holds go on one
 * line. Call it before the container's first member. No effect when
 * compact. */
void fsc_json_one_line(struct fsc_json *w);

/* s may be NULL (null). s[0..n) may hold any bytes, NUL included. */
void fsc_json_str(struct fsc_json *w, const char *key, const char *s);
void fsc_json_strn(struct fsc_json *w, const char *key, const char *s, size_t n);
void fsc_json_int(struct fsc_json *w, const char *key, int64_t v);
void fsc_json_uint(struct fsc_json *w, const char *key, uint64_t v);
void fsc_json_num(struct fsc_json *w, const char *key, double v);
void fsc_json_bool(struct fsc_json *w, const char *key, int v);
void fsc_json_null(struct fsc_json *w, const char *key);

/* Returns 0 when one complete top-level value was written without error,
 * else the first error (-EINVAL also for an unclosed container or no value
 * at all). */
int fsc_json_done(const struct fsc_json *w);

/* Appends s[0..n) as a quoted JSON string, escaped as above. Returns 0 or
 * the buffer's error. */
int fsc_json_quote(struct fsc_buf *out, const char *s, size_t n);

#endif
