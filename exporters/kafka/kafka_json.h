/* A small JSON writer for the Kafka exporter's event documents: objects of
 * strings, numbers and nested objects written straight into a caller's fixed
 * buffer, never allocating (one event is encoded per call on the exporter
 * thread, thousands per second in a storm).
 *
 * Strings are escaped per RFC 8259 section 7: `"` and `\` and the control
 * characters U+0000..U+001F (as \b \f \n \r \t or \u00XX); U+2028 and U+2029
 * are escaped too, so a document is also a valid JavaScript literal. Bytes
 * that are not valid UTF-8 become U+FFFD, so the output is always valid
 * JSON text whatever a label holds. Numbers are written in the shortest
 * form of %.15g / %.16g / %.17g that reads back as the same double; a
 * non-finite number is written as null (JSON has no NaN or Infinity).
 *
 * Errors: the writer stops writing at the first byte that does not fit and
 * remembers it; fsc_kjson_finish() then answers -E2BIG. Nesting is bounded
 * (FSC_KJSON_DEPTH); deeper calls count as a misuse and answer -EINVAL.
 * Thread: a writer belongs to one thread. */
#ifndef FSC_KAFKA_JSON_H
#define FSC_KAFKA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSC_KJSON_DEPTH 8

struct fsc_kjson {
    char *buf;
    size_t cap; /* bytes of buf; the document and its NUL must fit */
    size_t len;
    unsigned depth;   /* open objects */
    uint32_t members; /* bit d: the object at depth d has a member already */
    int err;          /* 0, -E2BIG or -EINVAL */
};

/* Starts a document in buf[0..cap). Thread: the caller's. */
void fsc_kjson_init(struct fsc_kjson *w, char *buf, size_t cap);

/* Opens an object: the top-level one (key NULL, once) or a member `key` of
 * the current object. */
void fsc_kjson_begin(struct fsc_kjson *w, const char *key);

/* Closes the innermost object. */
void fsc_kjson_end(struct fsc_kjson *w);

/* Members of the current object. s is NUL-terminated (str) or n bytes
 * (strn); either may hold any bytes (see the escaping rules above). */
void fsc_kjson_str(struct fsc_kjson *w, const char *key, const char *s);
void fsc_kjson_strn(struct fsc_kjson *w, const char *key, const char *s, size_t n);
void fsc_kjson_num(struct fsc_kjson *w, const char *key, double v);
void fsc_kjson_int(struct fsc_kjson *w, const char *key, int64_t v);
void fsc_kjson_null(struct fsc_kjson *w, const char *key);

/* Ends the document: NUL-terminates it and returns its length, or -E2BIG
 * (buffer too small) / -EINVAL (unbalanced or too deep nesting). */
int fsc_kjson_finish(struct fsc_kjson *w);

/* Writes the shortest of %.15g / %.16g / %.17g that reads back as v into
 * buf (at least 32 bytes) and returns its length; v must be finite. */
size_t fsc_kjson_fmt_double(char *buf, size_t size, double v);

#endif
