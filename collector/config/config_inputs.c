/* The files and directories a config names (config.h, struct
 * fsc_config_input): recorded while decoding, checked by check-config so a
 * missing certificate or cable plan is found before `run` starts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_decode.h"

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

/* Why path cannot be read as a regular file (dir: a directory), or NULL
 * when it can. Opened non-blocking: a FIFO or a device must not stall the
 * check (the first open of a FIFO blocks until a writer comes). */
static const char *input_problem(const char *path, bool dir, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd == -1) {
        snprintf(buf, size, "%s", strerror(errno));
        return buf;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(buf, size, "%s", strerror(errno));
        why = buf;
    } else if (dir && !S_ISDIR(st.st_mode)) {
        why = "is not a directory";
    } else if (!dir && S_ISDIR(st.st_mode)) {
        why = "is a directory, not a file";
    } else if (!dir && !S_ISREG(st.st_mode)) {
        why = S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file (reading it could block)"
                                   : "is not a regular file";
    }
    close(fd);
    return why;
}

size_t fsc_config_check_inputs(const struct fsc_config *cfg, char *err, size_t errlen)
{
    size_t bad = 0, used = 0;
    if (errlen)
        err[0] = '\0';
    for (const struct fsc_config_input *in = cfg->inputs; in; in = in->next) {
        if (in->source && !in->source->enabled)
            continue;
        char buf[256];
        const char *why = input_problem(in->path, in->dir, buf, sizeof(buf));
        if (!why)
            continue;
        if (bad < FSC_CONFIG_MAX_ERRORS && used < errlen) {
            int n =
                snprintf(err + used, errlen - used, "%s%s:%u:%u: %s: %s: %s", bad ? "\n" : "",
                         cfg->file, (unsigned)in->line, (unsigned)in->col, in->key, in->path, why);
            used = n < 0 ? used : used + (size_t)n < errlen ? used + (size_t)n : errlen;
        }
        bad++;
    }
    return bad;
}
