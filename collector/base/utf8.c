/* UTF-8 validation (see utf8.h). */
#include "base/utf8.h"

size_t fsc_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    size_t len;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0; /* continuation byte, C0/C1 (overlong) or F5..FF */
    /* The second byte's range excludes overlongs (E0, F0), surrogates (ED)
     * and code points above U+10FFFF (F4): RFC 3629 section 4. */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

bool fsc_utf8_valid(const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n;) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = fsc_utf8_seq(s + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

int fsc_utf8_escape(struct fsc_buf *out, const char *s, size_t n, fsc_utf8_escape_fn *esc)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* bytes p[i - run .. i) copied verbatim when the run ends */
    char scratch[8];
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0;) {
        size_t len = p[i] < 0x80 ? 1 : fsc_utf8_seq(p + i, n - i);
        const char *rep = esc(p + i, len, scratch);
        size_t adv = len ? len : 1;
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
