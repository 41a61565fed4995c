/* A strict, allocation-free JSON pull reader (RFC 8259) over a caller's
 * buffer, for the OTLP/JSON decoder (otlp_json.c).
 *
 * The caller walks the document with begin/next calls and reads scalars as
 * raw tokens (offset + length into the buffer); nothing is copied. In
 * validating mode every byte is checked: string UTF-8 (no overlongs, no
 * surrogates, nothing above U+10FFFF), escapes (\uXXXX surrogate pairs must
 * pair up), control characters, number grammar, literals, bracket matching
 * and a nesting bound. In trusting mode (a second walk over a document that
 * already passed validation) strings and skipped values are only scanned
 * for their end, which is several times faster; on text that did not pass,
 * its results are meaningless (though it never reads outside the buffer).
 * Thread: a reader belongs to one thread; nothing is global or allocated.
 *
 * Nesting is tracked in a fixed bit stack, so skipping a value is iterative:
 * a 10 000-deep [[[[ ... costs no stack and fails at FSC_JSON_DEPTH_MAX.
 *
 * Errors: every function returns 0 (or a documented positive value) on
 * success and -EBADMSG on malformed input, with a static sentence in
 * r->err_msg and the byte offset in r->err_pos; fsc_json_position() turns the
 * offset into line and column for the message. */
#ifndef FSC_JSON_READER_H
#define FSC_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSC_JSON_DEPTH_MAX 128 /* object/array nesting; deeper is malformed */

enum fsc_json_type {
    FSC_JSON_END = 0, /* end of input (or nothing but whitespace left) */
    FSC_JSON_OBJECT,
    FSC_JSON_ARRAY,
    FSC_JSON_STRING,
    FSC_JSON_NUMBER,
    FSC_JSON_TRUE,
    FSC_JSON_FALSE,
    FSC_JSON_NULL,
    FSC_JSON_INVALID, /* a byte that cannot start a value */
};

struct fsc_json_reader {
    char *buf;
    size_t len;
    size_t pos;
    unsigned depth;
    bool validate;       /* false: the document is known to be valid */
    uint64_t kinds[2];   /* bit d set: level d is an object, clear: an array */
    const char *err_msg; /* static sentence, NULL until an error */
    size_t err_pos;      /* byte offset of the error */
};

/* A scalar token: for strings the raw content between the quotes. */
struct fsc_json_tok {
    size_t off;
    size_t len;
    bool escaped; /* string: contains a backslash (needs fsc_json_unescape) */
    bool integer; /* number: no fraction and no exponent */
};

/* A saved position, to come back to a value found by a look-ahead scan. */
struct fsc_json_mark {
    size_t pos;
    unsigned depth;
};

/* Starts reading buf[0..len) (borrowed; never written by the reader). */
void fsc_json_init(struct fsc_json_reader *r, char *buf, size_t len, bool validate);

/* Skips whitespace and returns the type of the next value without consuming
 * it (FSC_JSON_END at end of input). */
enum fsc_json_type fsc_json_peek(struct fsc_json_reader *r);

/* Records an error at the current position; returns -EBADMSG. */
int fsc_json_fail(struct fsc_json_reader *r, const char *msg);

/* Objects: begin consumes '{'. next returns 1 with the member's key in *key
 * and the reader at its value (which the caller must consume exactly once),
 * or 0 after consuming '}'. *n counts members so far (start at 0). */
int fsc_json_object_begin(struct fsc_json_reader *r);
int fsc_json_object_next(struct fsc_json_reader *r, size_t *n, struct fsc_json_tok *key);

/* Arrays: begin consumes '['. next returns 1 with the reader at the next
 * element (*n incremented: the element's index is *n - 1), or 0 after
 * consuming ']'. */
int fsc_json_array_begin(struct fsc_json_reader *r);
int fsc_json_array_next(struct fsc_json_reader *r, size_t *n);

/* Scalars: each consumes one value of its type or fails. */
int fsc_json_string(struct fsc_json_reader *r, struct fsc_json_tok *t);
int fsc_json_number(struct fsc_json_reader *r, struct fsc_json_tok *t);
/* true, false or null: *type receives which. */
int fsc_json_literal(struct fsc_json_reader *r, enum fsc_json_type *type);

/* Consumes one value of any type (validated as the mode says). */
int fsc_json_skip(struct fsc_json_reader *r);

/* After the top-level value: only whitespace may follow. */
int fsc_json_finish(struct fsc_json_reader *r);

static inline struct fsc_json_mark fsc_json_mark(const struct fsc_json_reader *r)
{
    struct fsc_json_mark m = {r->pos, r->depth};
    return m;
}

static inline void fsc_json_seek(struct fsc_json_reader *r, struct fsc_json_mark m)
{
    r->pos = m.pos;
    r->depth = m.depth;
}

/* Decodes the escapes of a VALID raw string (as validated by
 * fsc_json_string) into dst, which may equal src (the result is never
 * longer); returns the decoded length. \uXXXX become UTF-8. */
size_t fsc_json_unescape(const char *src, size_t len, char *dst);

/* Scalars of the protobuf JSON mapping; each consumes one value or fails
 * with a sentence naming the expected form, at the value's first byte.
 * Integers are exact (no double round trip): a JSON number without fraction
 * or exponent, or a string holding `-?(0|[1-9][0-9]*)` ('-' only for the
 * signed forms), in range. Doubles: any JSON number, or a string holding one
 * or "NaN", "Infinity", "-Infinity"; a magnitude beyond a double is out of
 * range, a text over 127 bytes is refused; up to 15 significant digits with a
 * decimal exponent within +-22 are converted exactly without strtod, the
 * rest with strtod (LC_NUMERIC must be "C", the default).
 * Enums: a JSON integer in int32 range (no strings). Bools: true / false. */
int fsc_json_read_u64(struct fsc_json_reader *r, uint64_t *out);
int fsc_json_read_u32(struct fsc_json_reader *r, uint32_t *out);
int fsc_json_read_i64(struct fsc_json_reader *r, int64_t *out);
int fsc_json_read_double(struct fsc_json_reader *r, double *out);
int fsc_json_read_enum(struct fsc_json_reader *r, int32_t *out);
int fsc_json_read_bool(struct fsc_json_reader *r, bool *out);

/* 1-based line and column (in bytes) of offset off in buf. */
void fsc_json_position(const char *buf, size_t len, size_t off, unsigned *line, unsigned *col);

#endif
