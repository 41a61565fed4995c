/* Attribute values as label text (otlp_point.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/otlp_point.h"

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
    case FSC_OTLP_VAL_DOUBLE:
        /* Shortest of %.15g / %.17g that reads back equal: 0.1 stays "0.1". */
        n = snprintf(out, cap, "%.15g", a->d);
        if (n > 0 && (size_t)n < cap && isfinite(a->d) && strtod(out, NULL) != a->d)
            n = snprintf(out, cap, "%.17g", a->d);
        break;
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
