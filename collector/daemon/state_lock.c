/* The daemon's hold on its state_dir (state_lock.h has the contract). */
#include "base/file_read.h"
#include "daemon/state_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The pid written in a held lock file, or 0 when unreadable. */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return end != buf && pid > 0 ? pid : 0;
}

int fsc_state_lock_take(struct fsc_state_lock *l, const char *dir, char *err, size_t errlen)
{
    l->fd = -1;
    size_t n = strlen(dir);
    if (n >= sizeof(l->dir) - sizeof("/lock")) {
        snprintf(err, errlen, "state_dir %s: name too long", dir);
        return -ENAMETOOLONG;
    }
    if (l->dir != dir)
        memcpy(l->dir, dir, n + 1);
    int rc = fsc_mkdir_p(dir, 0755);
    if (rc != 0) {
        snprintf(err, errlen, "state_dir %s: cannot create it: %s", dir, strerror(-rc));
        return rc;
    }
    char path[sizeof(l->dir)];
    snprintf(path, sizeof(path), "%s/lock", dir);
    /* O_NOFOLLOW: a symlink planted as the lock would have this daemon
     * open (and keep) whatever file it points to. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "state_dir %s: cannot open %s: %s", dir, path, strerror(-rc));
        return rc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
        if (rc == -EBUSY)
            snprintf(err, errlen,
                     "state_dir %s is in use by another fabricscope (pid %ld, lock %s): two "
                     "daemons must not share a state_dir; give each its own",
                     dir, holder_pid(fd), path);
        else
            snprintf(err, errlen, "state_dir %s: cannot lock %s: %s", dir, path, strerror(-rc));
        close(fd);
        return rc;
    }
    char pid[32];
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    struct stat sb;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len || stat(dir, &sb) != 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "state_dir %s: cannot write %s: %s", dir, path, strerror(-rc));
        close(fd);
        return rc;
    }
    l->dev = sb.st_dev;
    l->ino = sb.st_ino;
    l->fd = fd;
    return 0;
}

enum fsc_state_change fsc_state_lock_check(struct fsc_state_lock *l, int *rc, char *err,
                                           size_t errlen)
{
    *rc = 0;
    if (l->fd < 0)
        return FSC_STATE_SAME;
    struct stat sb;
    enum fsc_state_change ch;
    if (stat(l->dir, &sb) != 0)
        ch = FSC_STATE_DELETED;
    else if (sb.st_dev != l->dev || sb.st_ino != l->ino)
        ch = FSC_STATE_REPLACED;
    else
        return FSC_STATE_SAME;
    close(l->fd); /* its lock was on a file of the old directory */
    *rc = fsc_state_lock_take(l, l->dir, err, errlen);
    return ch;
}

void fsc_state_lock_release(struct fsc_state_lock *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
}
