#include "sources/replay/replay_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *skip_ws(char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int fail(char *err, size_t errlen, const char *line, const char *at, const char *what)
{
    snprintf(err, errlen, "column %d: %s", (int)(at - line) + 1, what);
    return -1;
}

static int is_name_start(int c)
{
    return isalpha(c) || c == '_' || c == ':';
}

/* Parses {k="v",...} starting at *pp (which points at '{'). Unescapes values
 * in place. */
static int parse_labels(char *line, char **pp, struct fsc_replay_line *out, char *err,
                        size_t errlen)
{
    char *p = *pp + 1;
    for (;;) {
        p = skip_ws(p);
        if (*p == '}') {
            *pp = p + 1;
            return 0;
        }
        if (out->n_labels == FSC_REGISTRY_MAX_LABELS)
            return fail(err, errlen, line, p, "too many labels");
        if (!isalpha((unsigned char)*p) && *p != '_')
            return fail(err, errlen, line, p, "expected a label name");
        char *name = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        char *name_end = p;
        p = skip_ws(p);
        if (*p != '=')
            return fail(err, errlen, line, p, "expected '=' after the label name");
        *name_end = '\0';
        p = skip_ws(p + 1);
        if (*p != '"')
            return fail(err, errlen, line, p, "expected a double-quoted label value");
        char *value = ++p, *w = p;
        for (;;) {
            if (*p == '\0')
                return fail(err, errlen, line, p, "unterminated label value");
            if (*p == '"')
                break;
            if (*p == '\\') {
                p++;
                if (*p == 'n')
                    *w++ = '\n';
                else if (*p == '\\' || *p == '"')
                    *w++ = *p;
                else
                    return fail(err, errlen, line, p, "unknown escape in label value");
                p++;
                continue;
            }
            *w++ = *p++;
        }
        *w = '\0';
        p++;
        out->labels[out->n_labels].name = name;
        out->labels[out->n_labels].value = value;
        out->n_labels++;
        p = skip_ws(p);
        if (*p == ',')
            p++;
        else if (*p != '}')
            return fail(err, errlen, line, p, "expected ',' or '}' after a label");
    }
}

static int parse_value(char *line, char *tok, struct fsc_replay_line *out, char *err, size_t errlen)
{
    char *end;
    if (tok[0] >= '0' && tok[0] <= '9' && strspn(tok, "0123456789") == strlen(tok)) {
        errno = 0;
        unsigned long long u = strtoull(tok, &end, 10);
        if (errno == ERANGE)
            return fail(err, errlen, line, tok, "integer value does not fit 64 bits");
        out->v.u = u;
        return 0;
    }
    errno = 0;
    double d = strtod(tok, &end);
    if (end == tok || *end != '\0' || errno == ERANGE || !isfinite(d) || d < 0)
        return fail(err, errlen, line, tok,
                    "value must be an unsigned integer or a finite number >= 0");
    out->v.d = d;
    out->flags |= FSC_SMP_F64;
    return 0;
}

int fsc_replay_parse_line(char *line, struct fsc_replay_line *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    char *p = skip_ws(line);
    if (*p == '\0' || *p == '#')
        return 0;

    char *end;
    if (!isdigit((unsigned char)*p))
        return fail(err, errlen, line, p, "expected the time in milliseconds");
    errno = 0;
    long long t = strtoll(p, &end, 10);
    if (errno == ERANGE || t > (long long)(INT64_MAX / 1000000))
        return fail(err, errlen, line, p, "time out of range");
    if (*end != ' ' && *end != '\t')
        return fail(err, errlen, line, end, "expected whitespace after the time");
    out->t_ms = t;

    p = skip_ws(end);
    if (!is_name_start((unsigned char)*p))
        return fail(err, errlen, line, p, "expected a metric name");
    out->name = p;
    while (is_name_start((unsigned char)*p) || isdigit((unsigned char)*p))
        p++;
    if (*p == '{') {
        char *brace = p;
        if (parse_labels(line, &p, out, err, errlen) != 0)
            return -1;
        *brace = '\0'; /* terminates the name; labels were already cut out */
    } else if (*p == ' ' || *p == '\t') {
        *p++ = '\0';
    } else {
        return fail(err, errlen, line, p, "expected '{' or whitespace after the metric name");
    }

    p = skip_ws(p);
    char *tok = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '#')
        p++;
    if (p == tok)
        return fail(err, errlen, line, tok, "expected a value");
    char save = *p;
    *p = '\0';
    if (parse_value(line, tok, out, err, errlen) != 0)
        return -1;
    *p = save;

    p = skip_ws(p);
    if (strncmp(p, "reset", 5) == 0 &&
        (p[5] == '\0' || isspace((unsigned char)p[5]) || p[5] == '#')) {
        out->flags |= FSC_SMP_RESET;
        p = skip_ws(p + 5);
    }
    if (*p != '\0' && *p != '#')
        return fail(err, errlen, line, p, "unexpected text after the value");
    return 1;
}
