/* Counter directory reader: descriptors kept open, pread() per poll, strict
 * decimal parse. See nic_sysfs.h for the contract. */
#define _GNU_SOURCE /* O_NOATIME */
#include "sources/nic/nic_sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A u64 is at most 20 digits plus '\n': a read that fills the whole buffer is
 * text no counter prints. */
#define CDIR_READ_BUF 32

/* One listing of the directory: parallel arrays sorted by name. */
struct cdir_set {
    size_t n;
    struct fsc_nic_counter *ctr;
    int *fd;
    char *names; /* pool the ctr[].name point into */
    int lifespan_fd;
    int64_t lifespan_ms;
    uint32_t skipped;
};

struct fsc_nic_cdir {
    char path[FSC_NIC_PATH_MAX];
    size_t max_files;
    struct cdir_set set;
    struct fsc_nic_cdir_stats st;
};

int fsc_nic_path(char *out, size_t out_size, const char *sysfs, const char *rel)
{
    if (sysfs == NULL || sysfs[0] == '\0')
        sysfs = FSC_NIC_SYSFS_DEFAULT;
    size_t sl = strlen(sysfs);
    while (rel[0] == '/')
        rel++;
    const char *sep = (sl > 0 && sysfs[sl - 1] == '/') || rel[0] == '\0' ? "" : "/";
    int w = snprintf(out, out_size, "%s%s%s", sysfs, sep, rel);
    if (w < 0 || (size_t)w >= out_size)
        return -ENAMETOOLONG;
    return 0;
}

int fsc_nic_parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len > 0 && s[len - 1] == '\n')
        len--;
    if (len == 0 || len > 20)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9)
            return -EINVAL;
        if (v > (UINT64_MAX - d) / 10)
            return -EINVAL; /* 2^64 or more */
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Reads one file at offset 0. Returns 0 with *v set, 1 when the text is not a
 * counter, or -errno when pread failed. EINTR cannot loop forever: it is
 * retried a bounded number of times. */
static int read_one(int fd, uint64_t *v)
{
    char buf[CDIR_READ_BUF];
    ssize_t r = -1;
    for (int tries = 0; tries < 4; tries++) {
        r = pread(fd, buf, sizeof buf, 0);
        if (r != -1 || errno != EINTR)
            break;
    }
    if (r == -1)
        return errno ? -errno : -EIO;
    if ((size_t)r == sizeof buf)
        return 1;
    return fsc_nic_parse_u64(buf, (size_t)r, v) == 0 ? 0 : 1;
}

/* Opens a counter file for the poll. O_NOATIME because on a regular-file
 * tree (fixtures, the bench) every read pays the access-time check and the
 * first read after each change writes the inode (relatime): 14 % of the
 * daemon's samples in bench/nic_poll_bench.sh. Reading sysfs never touches
 * atime, so on a host the flag changes nothing. It needs the file's owner or
 * CAP_FOWNER: on EPERM the file is opened without it. */
static int open_counter(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOATIME);
    if (fd == -1 && errno == EPERM)
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    return fd;
}

static int is_gone(int e)
{
    return e == -ENODEV || e == -ENOENT || e == -ESTALE;
}

static void set_free(struct cdir_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->fd[i] >= 0)
            close(s->fd[i]);
    if (s->lifespan_fd >= 0)
        close(s->lifespan_fd);
    free(s->ctr);
    free(s->fd);
    free(s->names);
    memset(s, 0, sizeof *s);
    s->lifespan_fd = -1;
}

static int cmp_name_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends name to the growing pool; offsets are stored (the pool moves). */
static int pool_add(char **pool, size_t *used, size_t *cap, const char *name, size_t *off)
{
    size_t len = strlen(name) + 1;
    if (*used + len > *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        while (ncap < *used + len)
            ncap *= 2;
        char *np = realloc(*pool, ncap);
        if (np == NULL)
            return -ENOMEM;
        *pool = np;
        *cap = ncap;
    }
    memcpy(*pool + *used, name, len);
    *off = *used;
    *used += len;
    return 0;
}

/* Lists the regular files of the directory (names only), bounded by
 * FSC_NIC_CDIR_FILES_MAX candidates. On success *offs / *pool hold `*n`
 * names (offsets into the pool). */
static int list_names(DIR *dir, size_t **offs, size_t *n, char **pool, uint32_t *skipped)
{
    size_t cap_offs = 0, used = 0, cap_pool = 0;
    *offs = NULL;
    *n = 0;
    *pool = NULL;
    int dfd = dirfd(dir);
    /* A directory is finite; the bound only guards against a pathological
     * filesystem that never ends a listing. */
    for (size_t guard = 0; guard < 16 * FSC_NIC_CDIR_FILES_MAX; guard++) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (de == NULL) {
            if (errno != 0)
                return -errno;
            return 0;
        }
        /* Hidden entries, "." and ".." are never counters. */
        if (de->d_name[0] == '.' || strcmp(de->d_name, "lifespan") == 0)
            continue;
        struct stat sb;
        if (fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode)) {
            (*skipped)++;
            continue;
        }
        if (*n == FSC_NIC_CDIR_FILES_MAX) {
            (*skipped)++;
            continue;
        }
        if (*n == cap_offs) {
            size_t ncap = cap_offs ? cap_offs * 2 : 64;
            size_t *no = realloc(*offs, ncap * sizeof *no);
            if (no == NULL)
                return -ENOMEM;
            *offs = no;
            cap_offs = ncap;
        }
        if (pool_add(pool, &used, &cap_pool, de->d_name, &(*offs)[*n]) != 0)
            return -ENOMEM;
        (*n)++;
    }
    return 0;
}

/* Builds a fresh set for path: lists, sorts, opens and probes each file. */
static int scan(const char *path, size_t max_files, struct cdir_set *out)
{
    memset(out, 0, sizeof *out);
    out->lifespan_fd = -1;
    out->lifespan_ms = FSC_NIC_LIFESPAN_UNKNOWN;

    DIR *dir = opendir(path);
    if (dir == NULL)
        return errno ? -errno : -EIO;
    size_t *offs = NULL, n = 0;
    char *pool = NULL, **sorted = NULL;
    int rc = list_names(dir, &offs, &n, &pool, &out->skipped);
    if (rc != 0)
        goto done;

    rc = -ENOMEM;
    size_t keep = n < max_files ? n : max_files;
    sorted = malloc((n ? n : 1) * sizeof *sorted);
    out->ctr = calloc(keep ? keep : 1, sizeof *out->ctr);
    out->fd = malloc((keep ? keep : 1) * sizeof *out->fd);
    if (sorted == NULL || out->ctr == NULL || out->fd == NULL)
        goto done;
    for (size_t i = 0; i < n; i++)
        sorted[i] = pool + offs[i];
    qsort(sorted, n, sizeof *sorted, cmp_name_ptr);

    int dfd = dirfd(dir);
    for (size_t i = 0; i < n; i++) {
        if (out->n == keep) {
            out->skipped++;
            continue;
        }
        int fd = open_counter(dfd, sorted[i]);
        if (fd == -1) {
            out->skipped++;
            continue;
        }
        uint64_t v = 0;
        int r = read_one(fd, &v);
        if (r < 0) { /* unsupported / unreadable attribute: not a counter here */
            close(fd);
            out->skipped++;
            continue;
        }
        struct fsc_nic_counter *c = &out->ctr[out->n];
        c->name = sorted[i]; /* re-pointed into the final pool below */
        c->value = r == 0 ? v : 0;
        c->err = r == 0 ? 0 : -EINVAL;
        c->valid = r == 0;
        c->tag = FSC_NIC_TAG_NONE;
        c->scale = 1;
        out->fd[out->n++] = fd;
    }

    /* A compact pool holding only the kept names, in sorted order. */
    size_t bytes = 0;
    for (size_t i = 0; i < out->n; i++)
        bytes += strlen(out->ctr[i].name) + 1;
    out->names = malloc(bytes ? bytes : 1);
    if (out->names == NULL)
        goto done;
    char *p = out->names;
    for (size_t i = 0; i < out->n; i++) {
        size_t len = strlen(out->ctr[i].name) + 1;
        memcpy(p, out->ctr[i].name, len);
        out->ctr[i].name = p;
        p += len;
    }

    out->lifespan_fd = open_counter(dfd, "lifespan");
    if (out->lifespan_fd >= 0) {
        uint64_t v;
        if (read_one(out->lifespan_fd, &v) == 0 && v <= INT64_MAX)
            out->lifespan_ms = (int64_t)v;
    }
    rc = 0;
done:
    if (rc != 0)
        set_free(out);
    free(sorted);
    free(offs);
    free(pool);
    closedir(dir);
    return rc;
}

struct fsc_nic_cdir *fsc_nic_cdir_create(const char *sysfs, const char *rel, size_t max_files,
                                         char *err, size_t errlen)
{
    if (rel == NULL) {
        snprintf(err, errlen, "no counter directory given");
        return NULL;
    }
    struct fsc_nic_cdir *cd = calloc(1, sizeof *cd);
    if (cd == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cd->set.lifespan_fd = -1;
    if (fsc_nic_path(cd->path, sizeof cd->path, sysfs, rel) != 0) {
        snprintf(err, errlen, "counter directory path is too long");
        free(cd);
        return NULL;
    }
    if (max_files == 0)
        max_files = FSC_NIC_CDIR_FILES_DEF;
    cd->max_files = max_files < FSC_NIC_CDIR_FILES_MAX ? max_files : FSC_NIC_CDIR_FILES_MAX;
    int rc = scan(cd->path, cd->max_files, &cd->set);
    if (rc != 0) {
        snprintf(err, errlen, "cannot list counter directory %s: %s", cd->path, strerror(-rc));
        free(cd);
        return NULL;
    }
    cd->st.skipped = cd->set.skipped;
    return cd;
}

void fsc_nic_cdir_destroy(struct fsc_nic_cdir *cd)
{
    if (cd == NULL)
        return;
    set_free(&cd->set);
    free(cd);
}

int fsc_nic_cdir_read(struct fsc_nic_cdir *cd)
{
    struct cdir_set *s = &cd->set;
    int failed = 0, gone = 0;
    cd->st.polls++;
    for (size_t i = 0; i < s->n; i++) {
        struct fsc_nic_counter *c = &s->ctr[i];
        uint64_t v;
        int r = read_one(s->fd[i], &v);
        if (r == 0) {
            c->value = v;
            c->err = 0;
            c->valid = 1;
            continue;
        }
        failed++;
        if (r == 1) {
            c->err = -EINVAL;
            cd->st.parse_errors++;
        } else {
            c->err = r;
            cd->st.read_errors++;
            gone |= is_gone(r);
        }
    }
    if (s->lifespan_fd >= 0) {
        uint64_t v;
        int r = read_one(s->lifespan_fd, &v);
        if (r == 0 && v <= INT64_MAX) {
            s->lifespan_ms = (int64_t)v;
        } else {
            cd->st.read_errors++;
            gone |= r < 0 && is_gone(r);
        }
    }
    if (gone)
        return -ENODEV;
    return failed;
}

int fsc_nic_cdir_rescan(struct fsc_nic_cdir *cd)
{
    struct cdir_set fresh;
    int rc = scan(cd->path, cd->max_files, &fresh);
    if (rc != 0)
        return rc;
    cd->st.rescans++;
    struct cdir_set *old = &cd->set;

    /* Both lists are sorted: one merge walk carries tag / scale / valid over and
     * tells whether the name set changed. */
    int changed = fresh.n != old->n;
    size_t i = 0, j = 0;
    while (i < fresh.n && j < old->n) {
        int c = strcmp(fresh.ctr[i].name, old->ctr[j].name);
        if (c == 0) {
            fresh.ctr[i].tag = old->ctr[j].tag;
            fresh.ctr[i].scale = old->ctr[j].scale;
            if (!fresh.ctr[i].valid) { /* keep the last good value */
                fresh.ctr[i].value = old->ctr[j].value;
                fresh.ctr[i].valid = old->ctr[j].valid;
            }
            i++;
            j++;
        } else {
            changed = 1;
            if (c < 0)
                i++;
            else
                j++;
        }
    }
    if (i < fresh.n || j < old->n)
        changed = 1;

    if (!changed) {
        /* Same names: keep the caller's pointers valid, take the fresh
         * descriptors (a replaced file gets a new inode) and values. */
        for (size_t k = 0; k < old->n; k++) {
            close(old->fd[k]);
            old->fd[k] = fresh.fd[k];
            fresh.fd[k] = -1;
            old->ctr[k].value = fresh.ctr[k].value;
            old->ctr[k].err = fresh.ctr[k].err;
            old->ctr[k].valid = fresh.ctr[k].valid;
        }
        if (old->lifespan_fd >= 0)
            close(old->lifespan_fd);
        old->lifespan_fd = fresh.lifespan_fd;
        old->lifespan_ms = fresh.lifespan_ms;
        old->skipped = fresh.skipped;
        fresh.lifespan_fd = -1;
        set_free(&fresh);
    } else {
        set_free(old);
        *old = fresh;
        cd->st.generation++;
    }
    cd->st.skipped = cd->set.skipped;
    return changed;
}

struct fsc_nic_counter *fsc_nic_cdir_counters(struct fsc_nic_cdir *cd, size_t *n)
{
    *n = cd->set.n;
    return cd->set.ctr;
}

long fsc_nic_cdir_find(const struct fsc_nic_cdir *cd, const char *name)
{
    size_t lo = 0, hi = cd->set.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, cd->set.ctr[mid].name);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

int64_t fsc_nic_cdir_lifespan_ms(const struct fsc_nic_cdir *cd)
{
    return cd->set.lifespan_ms;
}

const char *fsc_nic_cdir_path(const struct fsc_nic_cdir *cd)
{
    return cd->path;
}

void fsc_nic_cdir_get_stats(const struct fsc_nic_cdir *cd, struct fsc_nic_cdir_stats *out)
{
    *out = cd->st;
}
