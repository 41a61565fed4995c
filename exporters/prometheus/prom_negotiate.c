/* Accept / Accept-Encoding parsing (see prom_negotiate.h).
 *
 * Both headers are comma-separated lists of `name *( OWS ";" OWS param )`
 * where a parameter value may be a quoted string that itself contains commas
 * or semicolons. The scanner below walks one element at a time, honouring
 * quotes, and extracts only what negotiation needs: the name, q and version.
 * Everything else (charset, escaping=...) is ignored on purpose: a parameter
 * we do not understand must not make a scraper lose its format. */
#include "prometheus/prom_negotiate.h"

#include <stddef.h>
#include <string.h>

/* One list element: its name and the two parameters we care about. */
struct neg_elem {
    const char *name;
    size_t name_n;
    int q; /* thousandths; 1000 when absent; -1 when malformed */
    const char *version;
    size_t version_n; /* version is NULL when absent */
};

static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static char ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive (ASCII only: header tokens are ASCII, and a locale-aware
 * compare would make negotiation depend on the process locale). */
static int tok_eq(const char *s, size_t n, const char *lit)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (lit[i] == '\0' || ascii_lower(s[i]) != ascii_lower(lit[i]))
            return 0;
    }
    return lit[i] == '\0';
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && is_ows(**s))
        (*s)++;
    while (*e > *s && is_ows((*e)[-1]))
        (*e)--;
}

/* End of the segment starting at p: the first `stop` character outside a
 * quoted string, or end. A backslash inside quotes escapes the next byte. */
static const char *seg_end(const char *p, const char *end, char stop)
{
    int quoted = 0;
    for (; p < end; p++) {
        if (quoted) {
            if (*p == '\\' && p + 1 < end)
                p++;
            else if (*p == '"')
                quoted = 0;
        } else if (*p == '"') {
            quoted = 1;
        } else if (*p == stop) {
            break;
        }
    }
    return p;
}

int fsc_prom_parse_qvalue(const char *s, size_t n)
{
    int v = 0;
    size_t i;

    if (n == 0 || (s[0] != '0' && s[0] != '1'))
        return -1;
    if (n == 1)
        return s[0] == '1' ? 1000 : 0;
    if (s[1] != '.' || n > 5)
        return -1;
    /* Up to three decimals; "1" may only be followed by zeros. */
    for (i = 2; i < 5; i++) {
        int d = 0;
        if (i < n) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            d = s[i] - '0';
        }
        v = v * 10 + d;
    }
    if (s[0] == '1')
        return v == 0 ? 1000 : -1;
    return v;
}

/* Parses the element in [p, end) into *el. */
static void parse_elem(const char *p, const char *end, struct neg_elem *el)
{
    const char *s = p;
    const char *e = seg_end(p, end, ';');

    el->q = 1000;
    el->version = NULL;
    el->version_n = 0;
    trim(&s, &e);
    el->name = s;
    el->name_n = (size_t)(e - s);
    p = seg_end(p, end, ';');
    while (p < end) {
        const char *ps = p + 1; /* past ';' */
        const char *pe = seg_end(ps, end, ';');
        const char *eq = memchr(ps, '=', (size_t)(pe - ps));
        p = pe;
        if (!eq)
            continue;
        const char *ns = ps, *ne = eq, *vs = eq + 1, *ve = pe;
        trim(&ns, &ne);
        trim(&vs, &ve);
        if (ve - vs >= 2 && vs[0] == '"' && ve[-1] == '"') {
            vs++;
            ve--;
        }
        if (tok_eq(ns, (size_t)(ne - ns), "q")) {
            el->q = fsc_prom_parse_qvalue(vs, (size_t)(ve - vs));
        } else if (tok_eq(ns, (size_t)(ne - ns), "version")) {
            el->version = vs;
            el->version_n = (size_t)(ve - vs);
        }
    }
}

/* Calls fn for each well-formed element of a list header. */
static void for_each_elem(const char *hdr, void (*fn)(const struct neg_elem *el, void *arg),
                          void *arg)
{
    const char *end = hdr + strlen(hdr);
    const char *p = hdr;

    while (p < end) {
        const char *e = seg_end(p, end, ',');
        struct neg_elem el;
        parse_elem(p, e, &el);
        if (el.name_n > 0 && el.q >= 0)
            fn(&el, arg);
        p = e < end ? e + 1 : e;
    }
}

/* The q an offer gets: from its most specific matching range; among equally
 * specific ranges, the highest q. spec 0 = nothing matched. */
struct neg_match {
    int spec;
    int q;
};

static void match_take(struct neg_match *m, int spec, int q)
{
    if (spec > m->spec || (spec == m->spec && q > m->q)) {
        m->spec = spec;
        m->q = q;
    }
}

struct neg_formats {
    struct neg_match om;
    struct neg_match text;
};

static int version_is(const struct neg_elem *el, const char *want)
{
    return el->version == NULL ||
           (el->version_n == strlen(want) && memcmp(el->version, want, el->version_n) == 0);
}

static void format_elem(const struct neg_elem *el, void *arg)
{
    struct neg_formats *f = arg;

    if (tok_eq(el->name, el->name_n, "*/*")) {
        match_take(&f->om, 1, el->q);
        match_take(&f->text, 1, el->q);
    } else if (tok_eq(el->name, el->name_n, "application/*")) {
        match_take(&f->om, 2, el->q);
    } else if (tok_eq(el->name, el->name_n, "text/*")) {
        match_take(&f->text, 2, el->q);
    } else if (tok_eq(el->name, el->name_n, "application/openmetrics-text")) {
        if (version_is(el, "1.0.0"))
            match_take(&f->om, 3, el->q);
    } else if (tok_eq(el->name, el->name_n, "text/plain")) {
        if (version_is(el, "0.0.4"))
            match_take(&f->text, 3, el->q);
    }
}

enum fsc_prom_format fsc_prom_negotiate_format(const char *accept)
{
    struct neg_formats f = {{0, 0}, {0, 0}};

    if (!accept)
        return FSC_PROM_TEXT;
    for_each_elem(accept, format_elem, &f);
    if (f.om.q > 0 && (f.om.q > f.text.q || (f.om.q == f.text.q && f.om.spec == 3)))
        return FSC_PROM_OPENMETRICS;
    return FSC_PROM_TEXT;
}

static void gzip_elem(const struct neg_elem *el, void *arg)
{
    struct neg_match *m = arg;

    if (tok_eq(el->name, el->name_n, "gzip") || tok_eq(el->name, el->name_n, "x-gzip"))
        match_take(m, 2, el->q);
    else if (tok_eq(el->name, el->name_n, "*"))
        match_take(m, 1, el->q);
}

int fsc_prom_negotiate_gzip(const char *accept_encoding)
{
    struct neg_match m = {0, 0};

    if (!accept_encoding)
        return 0;
    for_each_elem(accept_encoding, gzip_elem, &m);
    return m.q > 0;
}
