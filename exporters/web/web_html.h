/* HTML output for the status page (internal to exporters/web): escaping
 * and a writer that keeps the first error, like the JSON writer.
 *
 * The rule the page follows: every string that comes from outside the
 * program (label values, source and stream names, device names) goes
 * through fsc_html_text / fsc_html_escape; fsc_html_raw and fsc_html_fmt
 * are for the page's own markup and numbers only. Escaping covers text and
 * double- or single-quoted attribute values alike: & < > " ' become
 * entities, invalid UTF-8 and control characters other than tab, newline
 * and carriage return become U+FFFD.
 *
 * Thread: a writer belongs to one thread. */
#ifndef FSC_WEB_HTML_H
#define FSC_WEB_HTML_H

#include <stddef.h>

#include "base/buf.h"

/* Appends s[0..n) escaped. Returns 0 or the buffer's error. */
int fsc_html_escape(struct fsc_buf *out, const char *s, size_t n);

struct fsc_html {
    struct fsc_buf *out;
    int err; /* 0 or the first negative errno */
};

/* Markup of the page itself, appended as is. */
void fsc_html_raw(struct fsc_html *h, const char *s);
/* Formatted markup or numbers; never pass outside strings through %s. */
void fsc_html_fmt(struct fsc_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Outside text, escaped; NULL writes nothing. */
void fsc_html_text(struct fsc_html *h, const char *s);

/* A URL query value, percent-encoded (RFC 3986 unreserved bytes kept),
 * then HTML-escaped (for href attributes). */
void fsc_html_urlarg(struct fsc_html *h, const char *s);

#endif
