/* Attribute values as label text (otlp_point.h). */
#include <stdio.h>
#include <string.h>

#include "base/numfmt.h"
#include "sources/otlp/decode/otlp_point.h"

size_t fsc_otlp_attr_text(const struct fsc_otlp_attr *a, char *out, size_t cap)
{
    if (cap == 0)
        return 0;
    int n = 0;
    switch (a->type) {
    case FSC_OTLP_VAL_STRING: {
        size_t len = a->s.len < cap - 1 ? a->s.len : cap - 1;
        if (len)
            memcpy(out, a->s.p, len);
        out[len] = '\0';
        return len;
    }
    case FSC_OTLP_VAL_INT:
        n = snprintf(out, cap, "%lld", (long long)a->i);
        break;
    case FSC_OTLP_VAL_BOOL:
        n = snprintf(out, cap, "%s", a->i ? "true" : "false");
        break;
    case FSC_OTLP_VAL_DOUBLE: {
        /* The shortest text that reads back equal (0.1 stays "0.1"); nan,
         * inf, -inf spelled as printf does. */
        char num[FSC_NUM_MAX + 1];
        num[fsc_fmt_double(num, a->d)] = '\0';
        n = snprintf(out, cap, "%s", num);
        break;
    }
    default:
        out[0] = '\0';
        return 0;
    }
    if (n < 0) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n < cap ? (size_t)n : cap - 1;
}
