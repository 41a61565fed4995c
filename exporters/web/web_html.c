/* HTML escaping and the page writer (see web_html.h). */
#include "web/web_html.h"

#include <stdarg.h>
#include <string.h>

#include "web/web_json.h"

int fsc_html_escape(struct fsc_buf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* verbatim bytes ending at i */
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0;) {
        unsigned char c = p[i];
        const char *rep = NULL;
        size_t adv = 1;

        if (c >= 0x80) {
            adv = fsc_utf8_seq(p + i, n - i);
            if (adv == 0) {
                rep = "\xEF\xBF\xBD"; /* U+FFFD */
                adv = 1;
            }
        } else if (c == '&') {
            rep = "&amp;";
        } else if (c == '<') {
            rep = "&lt;";
        } else if (c == '>') {
            rep = "&gt;";
        } else if (c == '"') {
            rep = "&quot;";
        } else if (c == '\'') {
            rep = "&#39;";
        } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
            rep = "\xEF\xBF\xBD";
        }
        if (rep) {
            if (run)
                rc = fsc_buf_append(out, p + i - run, run);
            if (rc == 0)
                rc = fsc_buf_puts(out, rep);
            run = 0;
        } else {
            run += adv;
        }
        i += adv;
    }
    if (rc == 0 && run)
        rc = fsc_buf_append(out, p + n - run, run);
    return rc;
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
