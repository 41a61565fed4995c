/* The refusing side of the table-driven decoder: errors with positions and
 * the path of the key ("sources[1].tls.ca_file"), quoting of what the file
 * said, the marks of nodes and keys, and the closest known name for an
 * unknown one. Used by the decoder and by every scalar and check; calls
 * nothing of theirs. See config_decode.h. */
#include "config/config_decode.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "base/closest.h"

/* ---- errors and paths ----------------------------------------------------- */

static int vfail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* Adds one error line to ctx->err: the first one alone, later ones after a
 * newline while they fit (FSC_CONFIG_MAX_ERRORS, and errlen), then one line
 * saying more were found. */
static void add_error(struct fsc_cctx *ctx, const char *line)
{
    unsigned n = ctx->n_errors++;
    if (ctx->errlen == 0)
        return;
    if (n == 0) {
        snprintf(ctx->err, ctx->errlen, "%s", line);
        return;
    }
    size_t used = strlen(ctx->err);
    if (n < FSC_CONFIG_MAX_ERRORS)
        snprintf(ctx->err + used, ctx->errlen - used, "\n%s", line);
    else if (n == FSC_CONFIG_MAX_ERRORS)
        snprintf(ctx->err + used, ctx->errlen - used,
                 "\n(more errors not shown: fix these and run it again)");
}

static int vfail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, va_list ap)
{
    char msg[512], full[1280];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    const char *sep = ctx->pathlen ? ": " : "";
    const char *path = ctx->pathlen ? ctx->path : "";
    if (line != 0)
        snprintf(full, sizeof(full), "%s:%u:%u: %s%s%s", ctx->name, (unsigned)line, (unsigned)col,
                 path, sep, msg);
    else
        snprintf(full, sizeof(full), "%s: %s%s%s", ctx->name, path, sep, msg);
    add_error(ctx, full);
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
    add_error(ctx, sentence);
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

const char *fsc_cfg_closest(const char *word, const char *const *names,
                            const struct fsc_cspec *spec)
{
    size_t best_d = SIZE_MAX;
    const char *best = NULL;
    size_t n = spec ? spec->n_keys : SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const char *cand = spec ? spec->keys[i].key : names[i];
        if (cand == NULL)
            break;
        size_t d = fsc_edit_distance(word, cand);
        if (d != SIZE_MAX && fsc_close_enough(word, d) && d < best_d) {
            best_d = d;
            best = cand;
        }
    }
    return best;
}
