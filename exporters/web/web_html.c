/* HTML escaping and the page writer (see web_html.h). */
#include "web/web_html.h"

#include <stdarg.h>
#include <string.h>

#include "base/utf8.h"

/* The HTML text of one character (an fsc_utf8_escape_fn): the five
 * entities, U+FFFD for an invalid byte and for control characters other
 * than tab, newline and CR, NULL (copied) for everything else. */
static const char *html_escape(const unsigned char *seq, size_t len, char scratch[8])
{
    (void)scratch;
    if (len == 0)
        return "\xEF\xBF\xBD"; /* U+FFFD */
    if (len > 1)
        return NULL;
    switch (seq[0]) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    case '\t':
    case '\n':
    case '\r':
        return NULL;
    default:
        return seq[0] < 0x20 || seq[0] == 0x7F ? "\xEF\xBF\xBD" : NULL;
    }
}

int fsc_html_escape(struct fsc_buf *out, const char *s, size_t n)
{
    return fsc_utf8_escape(out, s, n, html_escape);
}

void fsc_html_raw(struct fsc_html *h, const char *s)
{
    if (h->err == 0)
        h->err = fsc_buf_puts(h->out, s);
}

void fsc_html_fmt(struct fsc_html *h, const char *fmt, ...)
{
    va_list ap;
    if (h->err)
        return;
    va_start(ap, fmt);
    h->err = fsc_buf_vprintf(h->out, fmt, ap);
    va_end(ap);
}

void fsc_html_text(struct fsc_html *h, const char *s)
{
    if (h->err == 0 && s)
        h->err = fsc_html_escape(h->out, s, strlen(s));
}

void fsc_html_urlarg(struct fsc_html *h, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char enc[4];

    for (const unsigned char *p = (const unsigned char *)s; s && *p && h->err == 0; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            h->err = fsc_buf_append(h->out, p, 1);
        } else {
            enc[0] = '%';
            enc[1] = hex[c >> 4];
            enc[2] = hex[c & 15];
            h->err = fsc_buf_append(h->out, enc, 3);
        }
    }
}
