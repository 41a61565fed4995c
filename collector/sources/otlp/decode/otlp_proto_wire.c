/* OTLP protobuf decoder, shared parts (otlp_proto_wire.h): error sentences
 * and the KeyValue / AnyValue readers. */
#include "sources/otlp/decode/otlp_proto_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WHERE_MAX  16 /* frames printed; deeper chains cannot occur (see otlp_proto.c) */
#define NAME_SHOWN 64 /* bytes of a metric name quoted in an error */

const char *otlp_pw_strerror(int rc)
{
    switch (-rc) {
    case FSC_PB_E_VARINT_TRUNC:
        return "truncated varint";
    case FSC_PB_E_VARINT_LONG:
        return "varint longer than 10 bytes";
    case FSC_PB_E_TAG_FIELD:
        return "field number out of range in tag";
    case FSC_PB_E_GROUP:
        return "group wire type (3/4), not valid in proto3";
    case FSC_PB_E_WIRE_TYPE:
        return "invalid wire type (6/7)";
    case FSC_PB_E_FIXED64_TRUNC:
        return "truncated fixed64";
    case FSC_PB_E_FIXED32_TRUNC:
        return "truncated fixed32";
    case FSC_PB_E_LEN_OVERFLOW:
        return "length runs past the end of the enclosing message";
    default:
        return "malformed field";
    }
}

/* Appends to out at *pos, keeping *pos <= cap - 1 (snprintf truncation). */
static void put(char *out, size_t cap, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *out, size_t cap, size_t *pos, const char *fmt, ...)
{
    if (*pos + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n < cap - *pos ? (size_t)n : cap - *pos - 1;
}

/* A metric name is peer-controlled bytes: quote at most NAME_SHOWN of them and
 * replace anything not printable ASCII, so the sentence stays one clean line
 * in a log. */
static void put_name(char *out, size_t cap, size_t *pos, struct fsc_otlp_str s)
{
    char buf[NAME_SHOWN + 4];
    size_t n = s.len < NAME_SHOWN ? s.len : NAME_SHOWN;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        buf[i] = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? (char)c : '?';
    }
    buf[n] = '\0';
    put(out, cap, pos, " (name \"%s%s\")", buf, s.len > NAME_SHOWN ? "..." : "");
}

int otlp_pw_fail(char *err, size_t errlen, const struct pw_where *w, size_t offset, const char *fmt,
                 ...)
{
    if (!err || errlen == 0)
        return -EBADMSG;
    const struct pw_where *chain[WHERE_MAX];
    size_t n = 0;
    for (; w && n < WHERE_MAX; w = w->up)
        chain[n++] = w;
    size_t pos = 0;
    err[0] = '\0';
    if (n == 0)
        put(err, errlen, &pos, "ExportMetricsServiceRequest");
    while (n > 0) {
        const struct pw_where *f = chain[--n];
        put(err, errlen, &pos, "%s%s", f->up ? "." : "", f->what);
        if (f->has_idx)
            put(err, errlen, &pos, "[%u]", f->idx);
        if (f->name.len)
            put_name(err, errlen, &pos, f->name);
    }
    put(err, errlen, &pos, ": ");
    if (pos + 1 < errlen) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(err + pos, errlen - pos, fmt, ap);
        va_end(ap);
        if (k > 0)
            pos += (size_t)k < errlen - pos ? (size_t)k : errlen - pos - 1;
    }
    put(err, errlen, &pos, " at byte %zu", offset);
    return -EBADMSG;
}

int otlp_pw_next_fail(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                      const struct fsc_pb_field *f, int rc)
{
    if (p > f->at) /* the tag was read: name the field */
        return PW_FAIL(d, w, p, "field %u: %s", f->num, otlp_pw_strerror(rc));
    return PW_FAIL(d, w, p, "%s", otlp_pw_strerror(rc));
}

int otlp_pw_bad_wt(struct pw_dec *d, const struct pw_where *w, const struct fsc_pb_field *f,
                   const char *name, unsigned want)
{
    return PW_FAIL(d, w, f->at, "field %u (%s) has wire type %u, expected %u", f->num, name, f->wt,
                   want);
}

/* ---- KeyValue / AnyValue ------------------------------------------------------- */

static int parse_kv(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                    const uint8_t *end, unsigned depth, struct fsc_otlp_attr *a);

/* Sets a's value type; the previous oneof member is cleared (last one wins). */
static inline void set_type(struct fsc_otlp_attr *a, uint8_t type)
{
    a->type = type;
    a->s = (struct fsc_otlp_str){NULL, 0};
    a->i = 0;
    a->d = 0;
}

static int parse_anyvalue(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                          const uint8_t *end, unsigned depth, struct fsc_otlp_attr *a);

/* ArrayValue {repeated AnyValue values = 1} inside `depth` containers. */
static int parse_array(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                       const uint8_t *end, unsigned depth)
{
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        if (f.num != 1)
            continue;
        PW_WANT(d, w, &f, "values", FSC_PB_LEN);
        if ((rc = parse_anyvalue(d, w, f.p, f.p + f.n, depth, NULL)) != 0)
            return rc;
    }
    return rc;
}

/* KeyValueList {repeated KeyValue values = 1} inside `depth` containers. */
static int parse_kvlist(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                        const uint8_t *end, unsigned depth)
{
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        if (f.num != 1)
            continue;
        PW_WANT(d, w, &f, "values", FSC_PB_LEN);
        if ((rc = parse_kv(d, w, f.p, f.p + f.n, depth, NULL)) != 0)
            return rc;
    }
    return rc;
}

/* AnyValue inside `depth` arrays/kvlists, into a (NULL: validate only).
 * Arrays, kvlists and bytes are kept as FSC_OTLP_VAL_OTHER; their contents
 * are walked in the validating pass only. Recursion is bounded by
 * FSC_OTLP_DEPTH_MAX: the (DEPTH_MAX + 1)-th nested container is refused
 * before it is entered. */
static int parse_anyvalue(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                          const uint8_t *end, unsigned depth, struct fsc_otlp_attr *a)
{
    struct fsc_otlp_attr scratch;
    struct fsc_pb_field f;
    int rc;
    if (!a)
        a = &scratch;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        switch (f.num) {
        case 1:
            PW_WANT(d, w, &f, "string_value", FSC_PB_LEN);
            set_type(a, FSC_OTLP_VAL_STRING);
            a->s = pw_str(&f);
            break;
        case 2:
            PW_WANT(d, w, &f, "bool_value", FSC_PB_VARINT);
            set_type(a, FSC_OTLP_VAL_BOOL);
            a->i = f.u != 0;
            break;
        case 3:
            PW_WANT(d, w, &f, "int_value", FSC_PB_VARINT);
            set_type(a, FSC_OTLP_VAL_INT);
            a->i = (int64_t)f.u;
            break;
        case 4:
            PW_WANT(d, w, &f, "double_value", FSC_PB_I64);
            set_type(a, FSC_OTLP_VAL_DOUBLE);
            a->d = fsc_pb_double(f.u);
            break;
        case 5:
        case 6:
            PW_WANT(d, w, &f, f.num == 5 ? "array_value" : "kvlist_value", FSC_PB_LEN);
            if (depth >= FSC_OTLP_DEPTH_MAX)
                return PW_FAIL(d, w, f.at, "AnyValue arrays/kvlists nested deeper than %d",
                               FSC_OTLP_DEPTH_MAX);
            if (!d->visit) {
                rc = f.num == 5 ? parse_array(d, w, f.p, f.p + f.n, depth + 1)
                                : parse_kvlist(d, w, f.p, f.p + f.n, depth + 1);
                if (rc != 0)
                    return rc;
            }
            set_type(a, FSC_OTLP_VAL_OTHER);
            break;
        case 7:
            PW_WANT(d, w, &f, "bytes_value", FSC_PB_LEN);
            set_type(a, FSC_OTLP_VAL_OTHER);
            break;
        default:
            break;
        }
    }
    return rc;
}

/* KeyValue {key = 1; value = 2} into a (NULL: validate only). A repeated
 * value merges like protobuf: a later member set replaces the earlier. */
static int parse_kv(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                    const uint8_t *end, unsigned depth, struct fsc_otlp_attr *a)
{
    struct fsc_pb_field f;
    int rc;
    while ((rc = pw_get(d, w, &p, end, &f)) > 0) {
        if (f.num == 1) {
            PW_WANT(d, w, &f, "key", FSC_PB_LEN);
            if (a)
                a->key = pw_str(&f);
        } else if (f.num == 2) {
            PW_WANT(d, w, &f, "value", FSC_PB_LEN);
            if ((rc = parse_anyvalue(d, w, f.p, f.p + f.n, depth, a)) != 0)
                return rc;
        }
    }
    return rc;
}

/* The shape nearly every attribute has on the wire (interface=swp1): key,
 * then a string value, each under 128 bytes, nothing else:
 *     0a klen key... 12 vlen 0a slen str...    with vlen == slen + 2
 * True when the KeyValue is exactly that (a filled in); false sends it to the
 * general path, which also explains every malformation. Saves the three
 * message loops of KeyValue -> AnyValue on the hot path. */
static inline bool kv_fast(const uint8_t *p, size_t n, struct fsc_otlp_attr *a)
{
    if (n < 6 || p[0] != 0x0a || p[1] >= 0x80 || (size_t)p[1] + 6 > n)
        return false;
    size_t klen = p[1];
    const uint8_t *v = p + 2 + klen; /* 4 bytes readable: klen + 6 <= n */
    if (v[0] != 0x12 || v[1] >= 0x80 || v[2] != 0x0a || v[3] >= 0x80)
        return false;
    size_t slen = v[3];
    if ((size_t)v[1] != slen + 2 || 4 + klen + 2 + slen != n)
        return false;
    a->key = (struct fsc_otlp_str){(const char *)p + 2, (uint32_t)klen};
    a->type = FSC_OTLP_VAL_STRING;
    a->s = (struct fsc_otlp_str){(const char *)v + 4, (uint32_t)slen};
    a->i = 0;
    a->d = 0;
    return true;
}

/* Appends one attribute (a KeyValue field) to the scratch array. */
int otlp_pw_add_attr(struct pw_dec *d, const struct pw_where *up, const struct fsc_pb_field *f)
{
    PW_WANT(d, up, f, "attributes", FSC_PB_LEN);
    if (d->n_attrs == FSC_OTLP_ATTRS_MAX)
        return PW_FAIL(d, up, f->at, "more than %d attributes", FSC_OTLP_ATTRS_MAX);
    struct fsc_otlp_attr *a = &d->attrs[d->n_attrs++];
    if (kv_fast(f->p, f->n, a))
        return 0;
    struct pw_where w = {up, "attributes", d->n_attrs - 1, true, {NULL, 0}};
    memset(a, 0, sizeof(*a));
    return parse_kv(d, &w, f->p, f->p + f->n, 0, a);
}

/* A repeated KeyValue we do not hand over (scope attributes, metadata,
 * exemplar attributes): validated in the first pass only. */
int otlp_pw_check_kv(struct pw_dec *d, const struct pw_where *up, const char *what, uint32_t idx,
                     const struct fsc_pb_field *f)
{
    PW_WANT(d, up, f, what, FSC_PB_LEN);
    if (d->visit)
        return 0;
    struct pw_where w = {up, what, idx, true, {NULL, 0}};
    return parse_kv(d, &w, f->p, f->p + f->n, 0, NULL);
}
