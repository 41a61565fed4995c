/* Scalar values (strings, booleans, integers, durations, sizes, speeds,
 * numbers, names), secrets, and the string checks shared by the key tables. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "base/file_read.h"
#include "config/config_decode.h"

/* Enum fields are decoded through an int: the enums of the key tables have
 * small non-negative values, so they are int-sized. */
_Static_assert(sizeof(enum fsc_client_auth) == sizeof(int), "enum size");
_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "engine counts are decoded as u32");

/* ---- scalars ---------------------------------------------------------------- */

static const char *kind_noun(const struct fsc_ynode *node)
{
    return node->kind == FSC_YNODE_SEQ ? "a list" : "a mapping";
}

int fsc_cfg_scalar(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *what,
                   const char **s)
{
    if (val->kind != FSC_YNODE_SCALAR)
        return fsc_cfg_fail_at(ctx, val, "expected %s, got %s", what, kind_noun(val));
    if (fsc_ynode_is_null(val))
        return fsc_cfg_fail_at(ctx, val, "expected %s, got nothing", what);
    *s = val->str;
    return 0;
}

void *fsc_cfg_alloc(struct fsc_cctx *ctx, const struct fsc_ynode *at, size_t size)
{
    void *p = fsc_cfg_arena_alloc(ctx->arena, size);
    if (p == NULL)
        fsc_cfg_fail_at(ctx, at, "out of memory (the configuration is too large)");
    return p;
}

char *fsc_cfg_strdup(struct fsc_cctx *ctx, const struct fsc_ynode *at, const char *s)
{
    char *p = fsc_cfg_arena_strndup(ctx->arena, s, strlen(s));
    if (p == NULL)
        fsc_cfg_fail_at(ctx, at, "out of memory (the configuration is too large)");
    return p;
}

/* A relative file path names a file beside the config (as Prometheus does),
 * so a config and its files move together; the result is absolute, so the
 * printed effective config loads from anywhere. */
static int resolve_path(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s,
                        const char **out)
{
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    size_t dl = strlen(ctx->dir), sl = strlen(s);
    if (dl + 1 + sl > FSC_CONFIG_MAX_PATH)
        return fsc_cfg_fail_at(ctx, val, "is longer than %d bytes once joined to %s",
                               FSC_CONFIG_MAX_PATH, ctx->dir);
    char *p = fsc_cfg_alloc(ctx, val, dl + sl + 2);
    if (p == NULL)
        return -1;
    memcpy(p, ctx->dir, dl);
    size_t o = dl;
    if (o == 0 || p[o - 1] != '/')
        p[o++] = '/';
    memcpy(p + o, s, sl + 1);
    *out = p;
    return 0;
}

int fsc_cfg_note_input(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *path,
                       bool dir)
{
    struct fsc_config_input *in = fsc_cfg_alloc(ctx, val, sizeof(*in));
    char *key = in ? fsc_cfg_strdup(ctx, val, ctx->path) : NULL;
    if (key == NULL)
        return -1;
    *in = (struct fsc_config_input){.path = path,
                                    .key = key,
                                    .line = val->line,
                                    .col = val->col,
                                    .dir = dir,
                                    .source = ctx->source};
    /* Appended at the end, so the list reads in file order. */
    if (ctx->last_input)
        ctx->last_input->next = in;
    else
        ctx->cfg->inputs = in;
    ctx->last_input = in;
    return 0;
}

int fsc_cfg_decode_str(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, const char **out)
{
    const char *s = "";
    bool empty_ok = key->flags & FSC_CF_EMPTY_OK;
    if (fsc_ynode_is_null(val)) {
        if (!empty_ok)
            return fsc_cfg_fail_at(ctx, val, "expected a string, got nothing");
    } else if (fsc_cfg_scalar(ctx, val, "a string", &s) != 0) {
        return -1;
    }
    if (*s == '\0' && !empty_ok)
        return fsc_cfg_fail_at(ctx, val, "must not be empty");
    size_t max = (key->flags & (FSC_CF_PATH | FSC_CF_LONG)) ? FSC_CONFIG_MAX_PATH
                 : key->max                                 ? (size_t)key->max
                                                            : 255;
    if (strlen(s) > max)
        return fsc_cfg_fail_at(ctx, val, "is longer than %zu bytes", max);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            return fsc_cfg_fail_at(ctx, val, "contains a control character");
    }
    if (*s != '\0' && key->check != NULL && key->check(ctx, val, s) != 0)
        return -1;
    if ((key->flags & FSC_CF_PATH) && *s != '\0' && *s != '/') {
        if (resolve_path(ctx, val, s, out) != 0)
            return -1;
    } else if ((*out = fsc_cfg_strdup(ctx, val, s)) == NULL) {
        return -1;
    }
    if ((key->flags & (FSC_CF_INPUT_FILE | FSC_CF_INPUT_DIR)) && **out != '\0')
        return fsc_cfg_note_input(ctx, val, *out, key->flags & FSC_CF_INPUT_DIR);
    return 0;
}

/* Decimal integer with optional '-' and '_' between digits (100_000). */
static int parse_int(const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = *p == '-';
    uint64_t v = 0;
    if (neg)
        p++;
    if (!(*p >= '0' && *p <= '9'))
        return -EINVAL;
    for (; *p; p++) {
        if (*p == '_' && p[1] >= '0' && p[1] <= '9' && p[-1] >= '0' && p[-1] <= '9')
            continue;
        if (!(*p >= '0' && *p <= '9'))
            return -EINVAL;
        if (__builtin_mul_overflow(v, 10u, &v) ||
            __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v) || v > (uint64_t)INT64_MAX)
            return -EINVAL;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int decode_int(struct fsc_cctx *ctx, const struct fsc_ckey *key, const struct fsc_ynode *val,
                      int64_t *out)
{
    const char *s;
    char q[96];
    if (fsc_cfg_scalar(ctx, val, "an integer", &s) != 0)
        return -1;
    if (parse_int(s, out) != 0)
        return fsc_cfg_fail_at(ctx, val, "%s is not an integer", fsc_cfg_quote(s, q, sizeof(q)));
    if (*out < key->min || *out > key->max)
        return fsc_cfg_fail_at(ctx, val, "%" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")",
                               *out, key->min, key->max);
    return 0;
}

/* Durations, sizes and speeds share one shape: parse, then range-check with
 * the bounds formatted in the same unit style. */
static int decode_unit(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, uint64_t *out)
{
    const char *s, *noun, *hint;
    char q[96], lo[32];
    int rc;
    switch (key->kind) {
    case FSC_CK_DUR:
        noun = "a duration";
        hint = "use 100ms, 2s, 1m";
        break;
    case FSC_CK_BYTES:
        noun = "a byte size";
        hint = "use 65536, 64KiB, 4MiB, 1GB";
        break;
    default:
        noun = "a link speed";
        hint = "use 400G, 400Gbps or bits per second";
        break;
    }
    if (fsc_cfg_scalar(ctx, val, noun, &s) != 0)
        return -1;
    if (key->kind == FSC_CK_DUR) {
        int64_t ns;
        rc = fsc_duration_parse(s, &ns);
        *out = (uint64_t)ns;
    } else if (key->kind == FSC_CK_BYTES) {
        rc = fsc_size_parse(s, out);
    } else {
        rc = fsc_speed_parse(s, out);
    }
    if (rc != 0)
        return fsc_cfg_fail_at(ctx, val, "%s is not %s (%s)", fsc_cfg_quote(s, q, sizeof(q)), noun,
                               hint);
    uint64_t min = (uint64_t)key->min, max = (uint64_t)key->max;
    if (*out >= min && *out <= max)
        return 0;
    uint64_t bound = *out < min ? min : max;
    const char *b = key->kind == FSC_CK_DUR ? fsc_duration_format((int64_t)bound, lo, sizeof(lo))
                    : key->kind == FSC_CK_BYTES ? fsc_size_format(bound, lo, sizeof(lo))
                                                : fsc_speed_format(bound, lo, sizeof(lo));
    return fsc_cfg_fail_at(ctx, val, "%s is %s the %s (%s)", fsc_cfg_quote(s, q, sizeof(q)),
                           *out < min ? "below" : "above", *out < min ? "minimum" : "maximum", b);
}

static int decode_f64(struct fsc_cctx *ctx, const struct fsc_ckey *key, const struct fsc_ynode *val,
                      double *out)
{
    const char *s;
    char q[96], lo[32], hi[32];
    if (fsc_cfg_scalar(ctx, val, "a number", &s) != 0)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || strpbrk(s, "xXnNiI") != NULL)
        return fsc_cfg_fail_at(ctx, val, "%s is not a number", fsc_cfg_quote(s, q, sizeof(q)));
    if (v < key->fmin || v > key->fmax)
        return fsc_cfg_fail_at(ctx, val, "%s is out of range (%s..%s)",
                               fsc_cfg_quote(s, q, sizeof(q)),
                               fsc_cfg_format_f64(key->fmin, lo, sizeof(lo)),
                               fsc_cfg_format_f64(key->fmax, hi, sizeof(hi)));
    *out = v;
    return 0;
}

int fsc_cfg_decode_enum(struct fsc_cctx *ctx, const char *const *names, const struct fsc_ynode *val,
                        int *out)
{
    const char *s;
    char q[96], list[256];
    if (fsc_cfg_scalar(ctx, val, "a name", &s) != 0)
        return -1;
    size_t o = 0;
    list[0] = '\0';
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
        if (o < sizeof(list))
            o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", names[i]);
    }
    const char *guess = fsc_cfg_closest(s, names, NULL);
    if (guess != NULL)
        return fsc_cfg_fail_at(ctx, val, "%s is not one of: %s (did you mean \"%s\"?)",
                               fsc_cfg_quote(s, q, sizeof(q)), list, guess);
    return fsc_cfg_fail_at(ctx, val, "%s is not one of: %s", fsc_cfg_quote(s, q, sizeof(q)), list);
}

static int decode_bool(struct fsc_cctx *ctx, const struct fsc_ynode *val, bool *out)
{
    const char *s;
    char q[96];
    if (fsc_cfg_scalar(ctx, val, "true or false", &s) != 0)
        return -1;
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        *out = true;
    else if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        *out = false;
    else
        return fsc_cfg_fail_at(ctx, val, "%s is not a boolean (use true or false)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

/* ---- secrets ---------------------------------------------------------------- */

/* Reads a secret file: a regular file (a FIFO would block the load), at
 * most FSC_CONFIG_MAX_SECRET bytes, trailing line breaks removed (editors
 * add one). Messages name the path, never content. */
static int read_secret_file(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *path,
                            const char **out)
{
    char buf[FSC_CONFIG_MAX_SECRET + 1], q[96], why[128];
    ssize_t got = fsc_file_read_regular(path, buf, FSC_CONFIG_MAX_SECRET, why, sizeof(why));
    size_t n = got > 0 ? (size_t)got : 0;
    int rc = 0;
    if (got < 0)
        rc =
            fsc_cfg_fail_at(ctx, val, "cannot read %s: %s", fsc_cfg_quote(path, q, sizeof(q)), why);
    while (rc == 0 && n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    if (rc == 0 && n == 0)
        rc = fsc_cfg_fail_at(ctx, val, "%s is empty", fsc_cfg_quote(path, q, sizeof(q)));
    if (rc == 0 && memchr(buf, '\0', n) != NULL)
        rc = fsc_cfg_fail_at(ctx, val, "%s contains a NUL byte", fsc_cfg_quote(path, q, sizeof(q)));
    if (rc == 0) {
        char *v = fsc_cfg_arena_strndup(ctx->arena, buf, n);
        if (v == NULL)
            rc = fsc_cfg_fail_at(ctx, val, "out of memory (the configuration is too large)");
        *out = v;
    }
    gnutls_memset(buf, 0, sizeof(buf)); /* the secret's bytes: a wipe that is not elided */
    return rc;
}

static int check_env_name(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    bool ok = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_';
    for (const char *p = s; ok && *p; p++)
        ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
             *p == '_';
    if (!ok)
        return fsc_cfg_fail_at(ctx, val, "%s is not an environment variable name",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

static int decode_secret(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                         const struct fsc_ynode *val, struct fsc_secret *sec)
{
    char base[64];
    size_t bl = strlen(key->key);
    if (key->kind == FSC_CK_SECRET_FILE)
        bl -= 5; /* "_file" */
    else if (key->kind == FSC_CK_SECRET_ENV)
        bl -= 4; /* "_env" */
    snprintf(base, sizeof(base), "%.*s", (int)bl, key->key);
    if (sec->value != NULL || sec->file != NULL || sec->env != NULL)
        return fsc_cfg_fail_at(ctx, val, "give only one of %s, %s_file and %s_env", base, base,
                               base);
    if (key->kind == FSC_CK_SECRET) {
        const char *s;
        if (fsc_cfg_scalar(ctx, val, "a string", &s) != 0)
            return -1;
        if (*s == '\0')
            return fsc_cfg_fail_at(ctx, val, "must not be empty");
        if (strlen(s) > FSC_CONFIG_MAX_SECRET)
            return fsc_cfg_fail_at(ctx, val, "is longer than %d bytes", FSC_CONFIG_MAX_SECRET);
        if (strcmp(s, "<redacted>") == 0)
            return fsc_cfg_fail_at(ctx, val,
                                   "\"<redacted>\" is the placeholder that check-config prints; "
                                   "give the secret, or use %s_file or %s_env",
                                   base, base);
        sec->value = fsc_cfg_strdup(ctx, val, s);
        return sec->value ? 0 : -1;
    }
    if (key->kind == FSC_CK_SECRET_FILE) {
        struct fsc_ckey pk = {.kind = FSC_CK_STR, .flags = FSC_CF_PATH};
        if (fsc_cfg_decode_str(ctx, &pk, val, &sec->file) != 0)
            return -1;
        return read_secret_file(ctx, val, sec->file, &sec->value);
    }
    struct fsc_ckey ek = {.kind = FSC_CK_STR, .max = 128, .check = check_env_name};
    if (fsc_cfg_decode_str(ctx, &ek, val, &sec->env) != 0)
        return -1;
    const char *v = getenv(sec->env);
    if (v == NULL)
        return fsc_cfg_fail_at(ctx, val, "environment variable %s is not set", sec->env);
    if (*v == '\0')
        return fsc_cfg_fail_at(ctx, val, "environment variable %s is empty", sec->env);
    if (strlen(v) > FSC_CONFIG_MAX_SECRET)
        return fsc_cfg_fail_at(ctx, val, "environment variable %s is longer than %d bytes",
                               sec->env, FSC_CONFIG_MAX_SECRET);
    sec->value = fsc_cfg_strdup(ctx, val, v);
    return sec->value ? 0 : -1;
}

/* ---- dispatch ------------------------------------------------------------------ */

int fsc_cfg_decode_scalar(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                          const struct fsc_ynode *val, void *field)
{
    int64_t i64;
    uint64_t u64;
    switch (key->kind) {
    case FSC_CK_STR:
        return fsc_cfg_decode_str(ctx, key, val, (const char **)field);
    case FSC_CK_BOOL:
        return decode_bool(ctx, val, (bool *)field);
    case FSC_CK_U32:
        if (decode_int(ctx, key, val, &i64) != 0)
            return -1;
        *(uint32_t *)field = (uint32_t)i64;
        return 0;
    case FSC_CK_INT:
        if (decode_int(ctx, key, val, &i64) != 0)
            return -1;
        *(int *)field = (int)i64;
        return 0;
    case FSC_CK_DUR:
        if (decode_unit(ctx, key, val, &u64) != 0)
            return -1;
        *(int64_t *)field = (int64_t)u64;
        return 0;
    case FSC_CK_BYTES:
    case FSC_CK_SPEED:
        return decode_unit(ctx, key, val, (uint64_t *)field);
    case FSC_CK_F64:
        return decode_f64(ctx, key, val, (double *)field);
    case FSC_CK_ENUM:
        return fsc_cfg_decode_enum(ctx, key->names, val, (int *)field);
    case FSC_CK_SECRET:
    case FSC_CK_SECRET_FILE:
    case FSC_CK_SECRET_ENV:
        return decode_secret(ctx, key, val, (struct fsc_secret *)field);
    default:
        return fsc_cfg_fail_at(ctx, val, "internal error: bad key kind");
    }
}

/* ---- string checks ---------------------------------------------------------- */

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool name_ok(const char *s, const char *extra)
{
    if (!is_alnum(*s) || strlen(s) > FSC_CONFIG_MAX_NAME)
        return false;
    for (const char *p = s; *p; p++) {
        if (!is_alnum(*p) && strchr(extra, *p) == NULL)
            return false;
    }
    return true;
}

int fsc_cfg_check_name(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (!name_ok(s, "._-"))
        return fsc_cfg_fail_at(ctx, val,
                               "%s is not a valid name (a letter or digit, then letters, digits, "
                               "'.', '_' or '-'; at most %d bytes)",
                               fsc_cfg_quote(s, q, sizeof(q)), FSC_CONFIG_MAX_NAME);
    return 0;
}

int fsc_cfg_check_port_name(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (!name_ok(s, "._-/:@"))
        return fsc_cfg_fail_at(ctx, val,
                               "%s is not a valid port name (a letter or digit, then letters, "
                               "digits or ._-/:@; at most %d bytes)",
                               fsc_cfg_quote(s, q, sizeof(q)), FSC_CONFIG_MAX_NAME);
    return 0;
}

/* host:port with the port in [min_port, 65535]. */
static bool hostport_ok(const char *s, int64_t min_port)
{
    const char *colon, *host = s;
    size_t hlen;
    bool ok = true;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        ok = close != NULL && close[1] == ':' && close > s + 1;
        colon = ok ? close + 1 : NULL;
        host = s + 1;
        hlen = ok ? (size_t)(close - host) : 0;
        for (size_t i = 0; ok && i < hlen; i++)
            ok = strchr("0123456789abcdefABCDEF:.%", host[i]) != NULL || is_alnum(host[i]);
    } else {
        colon = strrchr(s, ':');
        ok = colon != NULL && colon > s;
        hlen = ok ? (size_t)(colon - s) : 0;
        for (size_t i = 0; ok && i < hlen; i++)
            ok = is_alnum(host[i]) || host[i] == '.' || host[i] == '-' || host[i] == '_';
    }
    int64_t port = 0;
    if (ok)
        ok = parse_int(colon + 1, &port) == 0 && colon[1] != '-' && port >= min_port &&
             port <= 65535 && strchr(colon + 1, '_') == NULL;
    return ok;
}

static int check_hostport(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s,
                          int64_t min_port)
{
    char q[96];
    if (!hostport_ok(s, min_port))
        return fsc_cfg_fail_at(ctx, val,
                               "%s is not host:port (e.g. \"10.0.0.1:32767\", \"leaf1:50051\" or "
                               "\"[::1]:4317\")",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

bool fsc_config_listen_valid(const char *s)
{
    return s != NULL && hostport_ok(s, 0);
}

int fsc_cfg_check_hostport(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    return check_hostport(ctx, val, s, 1);
}

int fsc_cfg_check_listen(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    return check_hostport(ctx, val, s, 0);
}

int fsc_cfg_check_portref(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96], dev[FSC_CONFIG_MAX_NAME + 2];
    const char *colon = strchr(s, ':');
    size_t dl = colon ? (size_t)(colon - s) : 0;
    bool ok = colon != NULL && dl > 0 && dl <= FSC_CONFIG_MAX_NAME;
    if (ok) {
        memcpy(dev, s, dl);
        dev[dl] = '\0';
        ok = name_ok(dev, "._-") && name_ok(colon + 1, "._-/:@");
    }
    if (!ok)
        return fsc_cfg_fail_at(ctx, val, "%s is not a \"device:port\" reference",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}
