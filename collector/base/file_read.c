/* Non-blocking, regular-only, bounded file reads (file_read.h). */
#include "base/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fsc_file_open_regular(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd == -1) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a directory";
    else if (S_ISFIFO(st.st_mode))
        why = "is a FIFO, not a regular file (reading it could block)";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    if (why) {
        snprintf(err, errlen, "%s", why);
        close(fd);
        return -1;
    }
    return fd;
}

ssize_t fsc_file_read_regular(const char *path, char *buf, size_t max, char *err, size_t errlen)
{
    int fd = fsc_file_open_regular(path, err, errlen);
    if (fd == -1)
        return -1;
    size_t n = 0;
    ssize_t rc = 0;
    /* One byte past max tells a file that is too large (it may grow while read). */
    while (n < max + 1) {
        ssize_t got = read(fd, buf + n, max + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (rc == 0 && n > max) {
        snprintf(err, errlen, "is larger than %zu bytes", max);
        rc = -1;
    }
    if (rc != 0)
        return -1;
    buf[n] = '\0';
    return (ssize_t)n;
}

int fsc_mkdir_p(const char *path, mode_t mode)
{
    char p[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(p))
        return -ENAMETOOLONG;
    memcpy(p, path, n + 1);
    /* Each prefix in turn; EEXIST on the way is the normal case. */
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST)
            return -errno;
        p[i] = c;
    }
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -errno;
    return S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
}
