/* The files and directories a config names (config.h, struct
 * fsc_config_input; recorded while decoding by config_values.c), checked
 * by check-config so a missing certificate or cable plan is found before
 * `run` starts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "config/config_decode.h"

/* Why path cannot be read as a regular file (dir: a directory), or NULL
 * when it can. Never blocks: a FIFO is refused, not opened for a writer. */
static const char *input_problem(const char *path, bool dir, char *buf, size_t size)
{
    if (!dir) {
        int fd = fsc_file_open_regular(path, buf, size);
        if (fd == -1)
            return buf;
        close(fd);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    if (fd == -1) {
        snprintf(buf, size, "%s", errno == ENOTDIR ? "is not a directory" : strerror(errno));
        return buf;
    }
    close(fd);
    return NULL;
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
