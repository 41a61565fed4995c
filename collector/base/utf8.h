/* UTF-8 validation (RFC 3629), the one definition every layer uses: the
 * registry refusing a label value, the OTLP source cleaning one, the JSON and
 * HTML writers replacing what is not UTF-8. Strict: no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated
 * sequence. U+0000 is valid UTF-8 (callers that refuse NUL check it). Pure
 * functions: any thread. */
#ifndef FSC_UTF8_H
#define FSC_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Length (1..4) of the valid UTF-8 sequence that starts s[0..n), or 0 when
 * s does not start with one (a stray continuation byte, C0/C1, F5..FF, an
 * overlong form, a surrogate, beyond U+10FFFF, or cut short). n > 0. */
size_t fsc_utf8_seq(const unsigned char *s, size_t n);

/* true when all of s[0..n) is valid UTF-8 (n may be 0). */
bool fsc_utf8_valid(const void *s, size_t n);

/* What an escaper writes for one character: seq[0..len) is a valid UTF-8
 * sequence (len 1..4) or, with len 0, the single invalid byte seq[0].
 * Returns the replacement text (NUL-terminated; may be built in scratch),
 * or NULL to copy the sequence as it is. */
typedef const char *fsc_utf8_escape_fn(const unsigned char *seq, size_t len, char scratch[8]);

/* Appends s[0..n) to out (any bytes) through esc, one character at a time;
 * runs that esc copies are appended at once. The text layer of the JSON
 * and HTML escapers. Returns 0 or the buffer's error (out may then hold
 * part of the text). */
int fsc_utf8_escape(struct fsc_buf *out, const char *s, size_t n, fsc_utf8_escape_fn *esc);

#endif
