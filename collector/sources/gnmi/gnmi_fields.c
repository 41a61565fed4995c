/* Path and value decoding for the gNMI decoder: the canonical path key
 * (gnmi_int.h) and TypedValue -> number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sources/gnmi/gnmi_decode.h"
#include "sources/gnmi/gnmi_int.h"

/* ---- paths ----------------------------------------------------------------- */

static void wr16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Appends one elem (name + sorted keys) to the key. Keys arrive in `keys`
 * as (name, value) slice pairs. */
static int enc_elem(uint8_t *key, struct path_enc *pe, struct fsc_pb_slice name,
                    struct fsc_pb_slice (*keys)[2], size_t nk)
{
    /* A `__` elem followed by another elem is dropped; a trailing one makes
     * the update a pseudo leaf (decided by the caller). */
    if (pe->dunder_off >= 0) {
        pe->len = (size_t)pe->dunder_off;
        pe->elems--;
        pe->dunder_off = -1;
    }
    size_t need = 3 + name.n;
    for (size_t i = 0; i < nk; i++)
        need += 4 + keys[i][0].n + keys[i][1].n;
    if (pe->elems >= FSC_GNMI_ELEMS_MAX || need > FSC_GNMI_PATH_KEY_MAX - pe->len)
        return GNMI_UNSUPPORTED;
    /* insertion sort by key name: map order is not significant on the wire */
    for (size_t i = 1; i < nk; i++) {
        for (size_t j = i; j > 0; j--) {
            struct fsc_pb_slice *a = keys[j - 1], *b = keys[j];
            size_t m = a[0].n < b[0].n ? a[0].n : b[0].n;
            int c = memcmp(a[0].p, b[0].p, m);
            if (c < 0 || (c == 0 && a[0].n <= b[0].n))
                break;
            struct fsc_pb_slice t0 = a[0], t1 = a[1];
            a[0] = b[0];
            a[1] = b[1];
            b[0] = t0;
            b[1] = t1;
        }
    }
    size_t start = pe->len;
    uint8_t *p = key + pe->len;
    wr16(p, name.n);
    if (name.n)
        memcpy(p + 2, name.p, name.n);
    p += 2 + name.n;
    *p++ = (uint8_t)nk;
    for (size_t i = 0; i < nk; i++) {
        for (int kv = 0; kv < 2; kv++) {
            wr16(p, keys[i][kv].n);
            if (keys[i][kv].n)
                memcpy(p + 2, keys[i][kv].p, keys[i][kv].n);
            p += 2 + keys[i][kv].n;
        }
    }
    pe->len = (size_t)(p - key);
    pe->elems++;
    if (name.n >= 2 && name.p[0] == '_' && name.p[1] == '_')
        pe->dunder_off = (long)start;
    return 0;
}

/* gnmi.PathElem {name = 1; map<string,string> key = 2}. */
static int enc_path_elem(uint8_t *key, struct path_enc *pe, struct fsc_pb_slice s)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_slice name = FSC_PB_NONE;
    struct fsc_pb_slice keys[FSC_GNMI_KEYS_MAX][2];
    struct fsc_pb_field f, g;
    size_t nk = 0;
    int too_many = 0, rc;
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        if (f.num != 1 && f.num != 2)
            continue;
        if (f.wt != FSC_PB_LEN)
            return GNMI_BAD;
        if (f.num == 1) {
            name = fsc_pb_bytes(&f);
            continue;
        }
        /* map entry {string key = 1; string value = 2} */
        struct fsc_pb_slice kv[2] = {FSC_PB_NONE, FSC_PB_NONE};
        const uint8_t *q = f.p, *qend = f.p + f.n;
        while ((rc = fsc_pb_next(&q, qend, &g)) > 0) {
            if (g.num != 1 && g.num != 2)
                continue;
            if (g.wt != FSC_PB_LEN)
                return GNMI_BAD;
            kv[g.num - 1] = fsc_pb_bytes(&g);
        }
        if (rc < 0)
            return GNMI_BAD;
        if (nk == FSC_GNMI_KEYS_MAX) {
            too_many = 1;
            continue;
        }
        keys[nk][0] = kv[0];
        keys[nk][1] = kv[1];
        nk++;
    }
    if (rc < 0)
        return GNMI_BAD;
    if (too_many)
        return GNMI_UNSUPPORTED;
    return enc_elem(key, pe, name, keys, nk);
}

/* gnmi.Path: elem (3) and the deprecated string `element` (1); origin (2)
 * and target (4) are not part of a series' identity. Returns 0, GNMI_BAD or
 * GNMI_UNSUPPORTED (too deep / too long / too many keys). */
int gnmi_enc_path(uint8_t *key, struct path_enc *pe, struct fsc_pb_slice s)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_field f;
    int rc = 0, got;
    while ((got = fsc_pb_next(&p, end, &f)) > 0) {
        if (f.num > 4)
            continue;
        if (f.wt != FSC_PB_LEN) /* element, origin, elem, target: all strings/messages */
            return GNMI_BAD;
        int r = 0;
        if (f.num == 3)
            r = enc_path_elem(key, pe, fsc_pb_bytes(&f));
        else if (f.num == 1)
            r = enc_elem(key, pe, fsc_pb_bytes(&f), NULL, 0);
        if (r == GNMI_BAD)
            return GNMI_BAD;
        if (r == GNMI_UNSUPPORTED)
            rc = GNMI_UNSUPPORTED; /* keep walking: the rest may be malformed */
    }
    return got < 0 ? GNMI_BAD : rc;
}

/* ---- values ---------------------------------------------------------------- */

/* A decimal number in text: optional JSON quotes and blanks around it. A
 * non-negative integer becomes VAL_U (exact to 2^64-1); a number with a
 * fraction or exponent VAL_D. Negative integers, like int_val < 0, are not
 * counter values: VAL_NONE. */
static int parse_text_number(const uint8_t *s, size_t n, union fsc_value *v)
{
    while (n && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
        s++, n -= 2;
    if (n == 0 || n > 63)
        return VAL_NONE;
    uint64_t u = 0;
    size_t i = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (u > (UINT64_MAX - d) / 10)
            return VAL_NONE;
        u = u * 10 + d;
    }
    if (i == n) {
        v->u = u;
        return VAL_U;
    }
    /* fraction or exponent: strtod on a NUL-terminated copy, whole string */
    char buf[64];
    int digit = 0, dot = 0, exp = 0;
    for (size_t j = 0; j < n; j++) {
        uint8_t c = s[j];
        if (c >= '0' && c <= '9')
            digit = 1;
        else if (c == '.' && !dot && !exp)
            dot = 1;
        else if ((c == 'e' || c == 'E') && digit && !exp)
            exp = 1;
        else if (!((c == '-' || c == '+') && (j == 0 || s[j - 1] == 'e' || s[j - 1] == 'E')))
            return VAL_NONE;
    }
    if (!digit || (!dot && !exp))
        return VAL_NONE; /* a negative integer, or no digits */
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *endp = NULL;
    double d = strtod(buf, &endp);
    if (endp != buf + n || !isfinite(d))
        return VAL_NONE;
    v->d = d;
    return VAL_D;
}

/* gnmi.TypedValue (a oneof: the last field wins). Returns the kind, or GNMI_BAD. */
int gnmi_parse_typed_value(struct fsc_pb_slice s, union fsc_value *v)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_field f;
    int kind = VAL_NONE, rc;
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        switch (f.num) {
        case 2: /* int_val */
        case 3: /* uint_val */
            if (f.wt != FSC_PB_VARINT)
                return GNMI_BAD;
            kind = (f.num == 2 && (int64_t)f.u < 0) ? VAL_NONE : VAL_U;
            v->u = f.u;
            break;
        case 14: /* double_val */
            if (f.wt != FSC_PB_I64)
                return GNMI_BAD;
            v->d = fsc_pb_double(f.u);
            kind = isfinite(v->d) ? VAL_D : VAL_NONE;
            break;
        case 6: /* float_val (legacy) */
            if (f.wt != FSC_PB_I32)
                return GNMI_BAD;
            v->d = fsc_pb_float((uint32_t)f.u);
            kind = isfinite(v->d) ? VAL_D : VAL_NONE;
            break;
        case 1:  /* string_val */
        case 10: /* json_val */
        case 11: /* json_ietf_val */
            if (f.wt != FSC_PB_LEN)
                return GNMI_BAD;
            kind = (int)parse_text_number(f.p, f.n, v);
            break;
        default: /* bool, bytes, decimal, leaflist, any, ascii, proto_bytes */
            kind = VAL_NONE;
            break;
        }
    }
    return rc < 0 ? GNMI_BAD : kind;
}
