/* The refusing side of the table-driven decoder: errors with positions and
 * the path of the key ("sources[1].tls.ca_file"), quoting of what the file
 * said, the marks of nodes and keys, and the closest known name for an
 * unknown one. Used by the decoder and by every scalar and check; calls
 * nothing of theirs. See config_decode.h. */
#include "config/config_decode.h"

#include <stdarg.h>
#include <string.h>

/* ---- errors and paths ----------------------------------------------------- */

static int vfail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static int vfail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    const char *sep = ctx->pathlen ? ": " : "";
    const char *path = ctx->pathlen ? ctx->path : "";
    if (line != 0)
        snprintf(ctx->err, ctx->errlen, "%s:%u:%u: %s%s%s", ctx->name, (unsigned)line,
                 (unsigned)col, path, sep, msg);
    else
        snprintf(ctx->err, ctx->errlen, "%s: %s%s%s", ctx->name, path, sep, msg);
    return -1;
}

int fsc_cfg_fail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ctx, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int fsc_cfg_fail_raw(struct fsc_cctx *ctx, const char *sentence)
{
    snprintf(ctx->err, ctx->errlen, "%s", sentence);
    return -1;
}

int fsc_cfg_fail_at(struct fsc_cctx *ctx, const struct fsc_ynode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(ctx, node ? node->line : 0, node ? node->col : 0, fmt, ap);
    va_end(ap);
    return -1;
}

size_t fsc_cfg_path_key(struct fsc_cctx *ctx, const char *key)
{
    size_t old = ctx->pathlen;
    int n = snprintf(ctx->path + old, sizeof(ctx->path) - old, "%s%.64s", old ? "." : "", key);
    if (n > 0)
        ctx->pathlen =
            old + (size_t)n < sizeof(ctx->path) ? old + (size_t)n : sizeof(ctx->path) - 1;
    return old;
}

size_t fsc_cfg_path_index(struct fsc_cctx *ctx, size_t i)
{
    size_t old = ctx->pathlen;
    int n = snprintf(ctx->path + old, sizeof(ctx->path) - old, "[%zu]", i);
    if (n > 0)
        ctx->pathlen =
            old + (size_t)n < sizeof(ctx->path) ? old + (size_t)n : sizeof(ctx->path) - 1;
    return old;
}

void fsc_cfg_path_pop(struct fsc_cctx *ctx, size_t len)
{
    ctx->pathlen = len;
    ctx->path[len] = '\0';
}

const char *fsc_cfg_quote(const char *s, char *buf, size_t size)
{
    if (size < 8) {
        if (size)
            buf[0] = '\0';
        return buf;
    }
    size_t o = 0, max = size - 5; /* room for `..."` and the NUL */
    const unsigned char *p = (const unsigned char *)s;
    buf[o++] = '"';
    for (; *p; p++) {
        bool esc = *p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\';
        if (o + (esc ? 4 : 1) > max)
            break;
        if (esc)
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", *p);
        else
            buf[o++] = (char)*p;
    }
    if (*p) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

int fsc_cfg_fail_key(struct fsc_cctx *ctx, const struct fsc_ynode *node, const char *key,
                     struct fsc_config_mark dflt, const char *msg)
{
    struct fsc_config_mark m = fsc_cfg_key_mark(node, key, dflt);
    size_t pl = fsc_cfg_path_key(ctx, key);
    fsc_cfg_fail(ctx, m.line, m.col, "%s", msg);
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

struct fsc_config_mark fsc_cfg_node_mark(const struct fsc_ynode *node)
{
    struct fsc_config_mark m = {0, 0};
    if (node != NULL) {
        m.line = node->line;
        m.col = node->col;
    }
    return m;
}

struct fsc_config_mark fsc_cfg_key_mark(const struct fsc_ynode *map, const char *key,
                                        struct fsc_config_mark dflt)
{
    const struct fsc_ypair *p = fsc_ymap_get(map, key);
    return p ? fsc_cfg_node_mark(p->key) : dflt;
}

/* ---- unknown keys ----------------------------------------------------------- */

/* Optimal string alignment distance (Levenshtein plus adjacent swaps), for
 * "did you mean". Both strings are at most 64 bytes here. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

const char *fsc_cfg_closest(const char *word, const char *const *names,
                            const struct fsc_cspec *spec)
{
    if (strlen(word) > 64)
        return NULL;
    size_t limit = strlen(word) >= 6 ? 2 : 1, best_d = SIZE_MAX;
    const char *best = NULL;
    size_t n = spec ? spec->n_keys : SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *cand = spec ? spec->keys[i].key : names[i];
        if (cand == NULL)
            break;
        if (strlen(cand) > 64)
            continue;
        size_t dist = edit_distance(word, cand);
        if (dist <= limit && dist < best_d) {
            best_d = dist;
            best = cand;
        }
    }
    return best;
}
