/* The demo's state directory: where the generated config, cables.txt and
 * the four B300 sysfs trees live while it runs, and where the collector's
 * rollups go (its state_dir), which outlive the demo for `fabricscope
 * report`.
 *
 * Without --state-dir a fresh directory under $TMPDIR (or /tmp) is made and
 * removed whole at exit, and the rollups go to the user's state directory
 * of the XDG Base Directory Specification: $XDG_STATE_HOME/fabricscope-demo
 * when that variable is an absolute path, else
 * $HOME/.local/state/fabricscope-demo (made 0700 where missing), kept. With
 * --state-dir DIR the directory is created when missing and marked with a
 * `.fabricscope-demo` file; at exit only the fixture trees go (the config,
 * cables.txt and the collector's rollups under rollup/ stay for a look, or a
 * report, afterwards).
 * A b300-0N directory found in an unmarked DIR is somebody else's: the demo
 * refuses to start rather than delete it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "demo/demo_state.h"

#define MARKER    ".fabricscope-demo"
#define MAX_DEPTH 16 /* the trees are 9 levels deep */

/* Removes everything inside directory dfd (closed here), depth-bounded,
 * without following symlinks. Returns 0 or a negative errno. */
static int rm_inside(int dfd, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -errno;
    }
    int rc = 0;
    const struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
            rc = -errno;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int sub = depth < MAX_DEPTH
                          ? openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                          : -1;
            int r = sub >= 0 ? rm_inside(sub, depth + 1) : -ELOOP;
            if (r == 0 && unlinkat(dirfd(d), name, AT_REMOVEDIR) == -1)
                r = -errno;
            if (r != 0)
                rc = r;
        } else if (unlinkat(dirfd(d), name, 0) == -1) {
            rc = -errno;
        }
    }
    closedir(d);
    return rc;
}

int demo_rm_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1)
        return errno == ENOENT ? 0 : -errno;
    int rc = rm_inside(fd, 0);
    if (rc == 0 && rmdir(path) == -1)
        rc = -errno;
    return rc;
}

static int set_path(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, DEMO_PATH, "%s/%s", dir, name);
    return n < 0 || n >= DEMO_PATH ? -ENAMETOOLONG : 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* run->rollup_dir without --state-dir: the XDG state home's
 * fabricscope-demo, made when missing. Returns 0 or -1 with err. */
static int rollup_home(struct demo_run *run, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n = -1;
    /* The specification: a relative path in the variable is invalid, ignored. */
    if (xdg && xdg[0] == '/')
        n = snprintf(run->rollup_dir, sizeof(run->rollup_dir), "%s/fabricscope-demo", xdg);
    else if (home && home[0] == '/')
        n = snprintf(run->rollup_dir, sizeof(run->rollup_dir), "%s/.local/state/fabricscope-demo",
                     home);
    if (n < 0) {
        snprintf(err, errlen,
                 "no place for the rollups: neither XDG_STATE_HOME nor HOME is an absolute "
                 "path (give --state-dir)");
        return -1;
    }
    int rc =
        (size_t)n >= sizeof(run->rollup_dir) ? -ENAMETOOLONG : fsc_mkdir_p(run->rollup_dir, 0700);
    if (rc != 0) {
        snprintf(err, errlen, "cannot create the rollup directory %s: %s (give --state-dir)",
                 run->rollup_dir, strerror(-rc));
        return -1;
    }
    return 0;
}

/* The collector locks its state_dir (rollup_dir/lock, flock): another
 * collector holding it would stop this one only after the fabric started,
 * so the demo asks first. Returns 0 or -1 with err. */
static int rollup_free(const struct demo_run *run, char *err, size_t errlen)
{
    char path[DEMO_PATH + 8];
    snprintf(path, sizeof(path), "%s/lock", run->rollup_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return 0; /* no lock file: nobody ran there yet */
    int rc = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK) {
        char pid[32] = "";
        ssize_t r = pread(fd, pid, sizeof(pid) - 1, 0);
        pid[r > 0 ? r : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(err, errlen,
                 "the rollup directory %s is in use by another fabricscope (pid %s): stop it, "
                 "or give this demo its own --state-dir",
                 run->rollup_dir, pid[0] ? pid : "unknown");
        rc = -1;
    }
    close(fd); /* and with it the lock, if taken */
    return rc;
}

int demo_state_prepare(struct demo_run *run, char *err, size_t errlen)
{
    const char *dir = run->opt.state_dir;
    if (!dir) {
        if (rollup_home(run, err, errlen) != 0)
            return -1;
        const char *tmp = getenv("TMPDIR");
        int n = snprintf(run->state_dir, sizeof(run->state_dir), "%s/fabricscope-demo.XXXXXX",
                         tmp && tmp[0] ? tmp : "/tmp");
        if (n < 0 || (size_t)n >= sizeof(run->state_dir) || !mkdtemp(run->state_dir)) {
            snprintf(err, errlen, "cannot create a temporary state directory: %s",
                     strerror(n < 0 || (size_t)n >= sizeof(run->state_dir) ? ENAMETOOLONG : errno));
            return -1;
        }
        run->state_is_tmp = true;
    } else {
        /* Absolute, so the config's paths do not depend on the cwd. */
        char *abs = NULL;
        if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create the state directory %s: %s", dir, strerror(errno));
            return -1;
        }
        abs = realpath(dir, NULL);
        if (!abs || strlen(abs) >= sizeof(run->state_dir)) {
            snprintf(err, errlen, "cannot use the state directory %s: %s", dir,
                     abs ? strerror(ENAMETOOLONG) : strerror(errno));
            free(abs);
            return -1;
        }
        memcpy(run->state_dir, abs, strlen(abs) + 1);
        memcpy(run->rollup_dir, abs, strlen(abs) + 1);
        free(abs);
    }
    if (rollup_free(run, err, errlen) != 0)
        return -1;
    char marker[DEMO_PATH];
    if (set_path(marker, run->state_dir, MARKER) != 0 ||
        set_path(run->config_path, run->state_dir, "fabricscope-demo.yaml") != 0 ||
        set_path(run->cables_path, run->state_dir, "cables.txt") != 0) {
        snprintf(err, errlen, "the state directory's path is too long");
        return -1;
    }
    bool marked = exists(marker);
    for (unsigned n = 0; n < DEMO_NODES; n++) {
        if (set_path(run->node_root[n], run->state_dir, demo_node_names[n]) != 0) {
            snprintf(err, errlen, "the state directory's path is too long");
            return -1;
        }
        if (!exists(run->node_root[n]))
            continue;
        if (!marked) {
            snprintf(err, errlen,
                     "%s exists and the state directory was not made by fabricscope demo "
                     "(no %s file): choose another --state-dir",
                     run->node_root[n], MARKER);
            return -1;
        }
        int rc = demo_rm_tree(run->node_root[n]); /* a previous run's tree */
        if (rc != 0) {
            snprintf(err, errlen, "cannot remove the old %s: %s", run->node_root[n], strerror(-rc));
            return -1;
        }
    }
    FILE *f = fopen(marker, "w");
    if (!f ||
        fputs("made by fabricscope demo: the b300-0N trees here are removed at exit\n", f) < 0 ||
        fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", marker, strerror(errno));
        return -1;
    }
    for (unsigned n = 0; n < DEMO_NODES; n++)
        if (mkdir(run->node_root[n], 0755) == -1) {
            snprintf(err, errlen, "cannot create %s: %s", run->node_root[n], strerror(errno));
            return -1;
        }
    return 0;
}

int demo_state_cleanup(struct demo_run *run)
{
    if (!run->state_dir[0])
        return 0;
    if (run->state_is_tmp)
        return demo_rm_tree(run->state_dir);
    int rc = 0;
    for (unsigned n = 0; n < DEMO_NODES; n++) {
        int r = run->node_root[n][0] ? demo_rm_tree(run->node_root[n]) : 0;
        if (r != 0)
            rc = r;
    }
    return rc;
}
