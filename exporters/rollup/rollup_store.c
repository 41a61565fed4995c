/* The rollup store's writer (contract in rollup_store.h): day files,
 * lazy NAME records, torn-tail repair, retention and the byte bound. */
#include "rollup/rollup_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "base/clock.h"
#include "rollup/rollup_dir.h"

#define DAY_S 86400

struct fsc_rollup_store {
    char dir[4096];
    int64_t retention_s;
    uint64_t max_bytes;
    /* key bindings, and which are already written into the open file */
    struct fsc_rr_name *names;
    uint8_t *bound;   /* names[k] is set */
    uint8_t *written; /* names[k] is in the open file */
    uint32_t cap_keys;
    /* the open day file */
    int fd;
    int64_t day_s;
    uint64_t file_bytes;
    /* every file of the store, sorted by day (the open one included) */
    struct fsc_rr_dayfile *days;
    size_t n_days;
    struct fsc_rollup_store_stats stats;
};

static uint64_t total_bytes(const struct fsc_rollup_store *st)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < st->n_days; i++)
        sum += st->days[i].bytes;
    return sum;
}

static struct fsc_rr_dayfile *day_entry(struct fsc_rollup_store *st, int64_t day_s)
{
    for (size_t i = 0; i < st->n_days; i++)
        if (st->days[i].day_s == day_s)
            return &st->days[i];
    return NULL;
}

/* Adds day_s to the sorted list (it is not there). Returns 0 or -ENOMEM. */
static int day_insert(struct fsc_rollup_store *st, int64_t day_s, uint64_t bytes)
{
    struct fsc_rr_dayfile *nv = realloc(st->days, (st->n_days + 1) * sizeof(*nv));
    if (!nv)
        return -ENOMEM;
    st->days = nv;
    size_t i = st->n_days;
    while (i > 0 && st->days[i - 1].day_s > day_s) {
        st->days[i] = st->days[i - 1];
        i--;
    }
    st->days[i] = (struct fsc_rr_dayfile){.day_s = day_s, .bytes = bytes};
    st->n_days++;
    return 0;
}

static void day_remove(struct fsc_rollup_store *st, size_t i)
{
    memmove(&st->days[i], &st->days[i + 1], (st->n_days - i - 1) * sizeof(*st->days));
    st->n_days--;
}

static void file_close(struct fsc_rollup_store *st)
{
    if (st->fd >= 0) {
        if (fdatasync(st->fd) != 0)
            st->stats.write_errors++;
        close(st->fd);
    }
    st->fd = -1;
    st->day_s = INT64_MIN;
    if (st->written)
        memset(st->written, 0, st->cap_keys);
}

/* Writes all of buf at the end of the open file; on failure cuts the file
 * back to where it was, so no partial record stays behind. */
static int file_write(struct fsc_rollup_store *st, const uint8_t *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(st->fd, buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            st->stats.write_errors++;
            if (ftruncate(st->fd, (off_t)st->file_bytes) != 0 ||
                lseek(st->fd, 0, SEEK_END) != (off_t)st->file_bytes) {
                /* the file cannot be trusted to end on a record: stop using it */
                close(st->fd);
                st->fd = -1;
                st->day_s = INT64_MIN;
            }
            return -e;
        }
        done += (size_t)w;
    }
    st->file_bytes += len;
    struct fsc_rr_dayfile *de = day_entry(st, st->day_s);
    if (de)
        de->bytes = st->file_bytes;
    return 0;
}

/* Reads the last full record of a file of `size` bytes and reports whether
 * its CRC holds. */
static int last_record_ok(int fd, uint64_t size)
{
    uint8_t rec[FSC_RR_RECORD_SIZE];
    struct fsc_rr_record r;
    if (size < FSC_RR_HEADER_SIZE + FSC_RR_RECORD_SIZE)
        return 1;
    ssize_t n = pread(fd, rec, sizeof(rec), (off_t)(size - FSC_RR_RECORD_SIZE));
    return n == (ssize_t)sizeof(rec) && fsc_rr_decode(rec, &r) == 0;
}

/* Opens (or creates) the file of day_s for appending. An existing file
 * with a bad header is renamed aside to <name>.bad and a new one started. */
static int file_open(struct fsc_rollup_store *st, int64_t day_s)
{
    char path[4200];
    struct stat sb, ps;
    if (fsc_rr_day_path(st->dir, day_s, path, sizeof(path)) != 0)
        return -ENAMETOOLONG;
    /* The open file must still be the one at its path: when the state_dir
     * was deleted or replaced under the daemon, writes to it
     * would go where nobody reads them. Then it is started again. */
    if (st->fd >= 0 && st->day_s == day_s) {
        if (fstat(st->fd, &sb) == 0 && stat(path, &ps) == 0 && sb.st_dev == ps.st_dev &&
            sb.st_ino == ps.st_ino)
            return 0;
        st->stats.reopened++;
    }
    file_close(st);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT && fsc_mkdir_p(st->dir, 0755) == 0)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644); /* the directory went too */
    if (fd < 0) {
        st->stats.write_errors++;
        return -errno;
    }
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        st->stats.write_errors++;
        return -e;
    }
    uint64_t size = (uint64_t)sb.st_size;
    uint8_t hdr[FSC_RR_HEADER_SIZE];
    int64_t hday;
    if (size >= FSC_RR_HEADER_SIZE) {
        if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
            fsc_rr_header_decode(hdr, &hday) != 0 || hday != day_s) {
            /* not ours to repair: keep it for a human, start afresh */
            char aside[4300];
            snprintf(aside, sizeof(aside), "%s.bad", path);
            close(fd);
            if (rename(path, aside) != 0)
                return -errno;
            fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0)
                return -errno;
            size = 0;
        }
    } else if (size > 0) {
        size = 0; /* a torn header: the file never held a record */
        st->stats.torn_cut++;
    }
    if (size == 0) {
        fsc_rr_header_encode(day_s, fsc_now_ns(), hdr);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
            int e = errno ? errno : EIO;
            (void)!ftruncate(fd, 0); /* no torn header left behind (a full disk) */
            close(fd);
            st->stats.write_errors++;
            return -e;
        }
        size = FSC_RR_HEADER_SIZE;
    } else {
        uint64_t body = size - FSC_RR_HEADER_SIZE;
        uint64_t whole = size - body % FSC_RR_RECORD_SIZE;
        if (whole != size || !last_record_ok(fd, whole)) {
            if (whole == size)
                whole -= FSC_RR_RECORD_SIZE; /* a full-size last record with garbage */
            if (ftruncate(fd, (off_t)whole) != 0) {
                int e = errno;
                close(fd);
                st->stats.write_errors++;
                return -e;
            }
            st->stats.torn_cut++;
            size = whole;
        }
    }
    if (lseek(fd, 0, SEEK_END) != (off_t)size) {
        close(fd);
        return -EIO;
    }
    st->fd = fd;
    st->day_s = day_s;
    st->file_bytes = size;
    struct fsc_rr_dayfile *de = day_entry(st, day_s);
    if (de) {
        de->bytes = size;
        return 0;
    }
    return day_insert(st, day_s, size);
}

/* Retention, then the oldest files until `need` more bytes fit. */
static int prune_for(struct fsc_rollup_store *st, int64_t now_s, uint64_t need)
{
    int deleted = 0;
    char path[4200];
    for (size_t i = 0; i < st->n_days;) {
        struct fsc_rr_dayfile *de = &st->days[i];
        int old = de->day_s + DAY_S <= now_s - st->retention_s;
        /* over the bound: the oldest file goes, unless it is the open one */
        int over = total_bytes(st) + need > st->max_bytes && de->day_s != st->day_s;
        if (!old && !over) {
            i++;
            continue;
        }
        if (de->day_s == st->day_s)
            file_close(st);
        if (fsc_rr_day_path(st->dir, de->day_s, path, sizeof(path)) == 0 &&
            (unlink(path) == 0 || errno == ENOENT)) {
            st->stats.files_deleted++;
            deleted++;
            day_remove(st, i);
        } else {
            st->stats.write_errors++;
            i++;
        }
    }
    return deleted;
}

int fsc_rollup_store_prune(struct fsc_rollup_store *st, int64_t now_s)
{
    return prune_for(st, now_s, 0);
}

struct fsc_rollup_store *fsc_rollup_store_open(const char *dir, int64_t retention_s,
                                               uint64_t max_bytes, int64_t now_s, char *err,
                                               size_t errlen)
{
    if (retention_s <= 0 || max_bytes < FSC_RR_HEADER_SIZE + 16 * FSC_RR_RECORD_SIZE) {
        snprintf(err, errlen, "rollup store: retention must be positive and max_bytes at least %u",
                 FSC_RR_HEADER_SIZE + 16 * FSC_RR_RECORD_SIZE);
        return NULL;
    }
    struct fsc_rollup_store *st = calloc(1, sizeof(*st));
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    st->fd = -1;
    st->day_s = INT64_MIN;
    st->retention_s = retention_s;
    st->max_bytes = max_bytes;
    if (strlen(dir) >= sizeof(st->dir)) {
        snprintf(err, errlen, "rollup store: directory name too long");
        free(st);
        return NULL;
    }
    strcpy(st->dir, dir);
    int rc = fsc_mkdir_p(dir, 0755);
    if (rc != 0) {
        snprintf(err, errlen, "rollup store: cannot create %s: %s", dir, strerror(-rc));
        free(st);
        return NULL;
    }
    long n = fsc_rr_list_days(dir, &st->days);
    if (n < 0) {
        snprintf(err, errlen, "rollup store: cannot list %s: %s", dir, strerror((int)-n));
        free(st);
        return NULL;
    }
    st->n_days = (size_t)n;
    fsc_rollup_store_prune(st, now_s);
    st->stats.disk_bytes = total_bytes(st);
    return st;
}

void fsc_rollup_store_close(struct fsc_rollup_store *st)
{
    if (!st)
        return;
    file_close(st);
    free(st->names);
    free(st->bound);
    free(st->written);
    free(st->days);
    free(st);
}

static int grow_keys(struct fsc_rollup_store *st, uint32_t key)
{
    if (key < st->cap_keys)
        return 0;
    if (key >= FSC_ROLLUP_MAX_KEYS)
        return -ERANGE;
    uint32_t cap = st->cap_keys ? st->cap_keys : 256;
    while (cap <= key)
        cap *= 2;
    struct fsc_rr_name *nn = realloc(st->names, cap * sizeof(*nn));
    if (!nn)
        return -ENOMEM;
    st->names = nn;
    uint8_t *nb = realloc(st->bound, cap);
    if (!nb)
        return -ENOMEM;
    st->bound = nb;
    uint8_t *nw = realloc(st->written, cap);
    if (!nw)
        return -ENOMEM;
    st->written = nw;
    memset(st->bound + st->cap_keys, 0, cap - st->cap_keys);
    memset(st->written + st->cap_keys, 0, cap - st->cap_keys);
    st->cap_keys = cap;
    return 0;
}

int fsc_rollup_store_define(struct fsc_rollup_store *st, uint32_t key,
                            const struct fsc_rr_name *name)
{
    int rc = grow_keys(st, key);
    if (rc != 0)
        return rc;
    st->names[key] = *name;
    st->bound[key] = 1;
    st->written[key] = 0; /* (re)write before the next use */
    return 0;
}

/* Floor to the day (minutes may be negative in tests of old dates). */
static int64_t day_of(int64_t t_s)
{
    int64_t d = t_s / DAY_S;
    if (t_s % DAY_S != 0 && t_s < 0)
        d--;
    return d * DAY_S;
}

/* Writes one data record, preceded by its key's NAME when the open file
 * lacks it. */
static int append_one(struct fsc_rollup_store *st, const struct fsc_rr_record *rec, int64_t now_s)
{
    uint8_t buf[2 * FSC_RR_RECORD_SIZE];
    size_t len = 0;
    if (rec->key >= st->cap_keys || !st->bound[rec->key])
        return -ENOENT;
    int rc = file_open(st, day_of(rec->minute_s));
    if (rc != 0)
        return rc;
    if (!st->written[rec->key]) {
        struct fsc_rr_record nr = {.type = FSC_RR_NAME, .key = rec->key, .minute_s = now_s};
        nr.name = st->names[rec->key];
        fsc_rr_encode(&nr, buf);
        len = FSC_RR_RECORD_SIZE;
    }
    fsc_rr_encode(rec, buf + len);
    len += FSC_RR_RECORD_SIZE;
    if (total_bytes(st) + len > st->max_bytes) {
        prune_for(st, now_s, len);
        if (total_bytes(st) + len > st->max_bytes)
            return -ENOSPC;
        if ((rc = file_open(st, day_of(rec->minute_s))) != 0)
            return rc;
    }
    rc = file_write(st, buf, len);
    if (rc != 0)
        return rc;
    st->written[rec->key] = 1;
    st->stats.records += len / FSC_RR_RECORD_SIZE;
    return 0;
}

int fsc_rollup_store_append(struct fsc_rollup_store *st, const struct fsc_rr_record *recs, size_t n,
                            int64_t now_s)
{
    int first = 0;
    fsc_rollup_store_prune(st, now_s);
    for (size_t i = 0; i < n; i++) {
        int rc = append_one(st, &recs[i], now_s);
        if (rc != 0) {
            st->stats.dropped++;
            if (first == 0)
                first = rc;
        }
    }
    if (st->fd >= 0 && fdatasync(st->fd) != 0) {
        st->stats.write_errors++;
        if (first == 0)
            first = -errno;
    }
    st->stats.disk_bytes = total_bytes(st);
    return first;
}

void fsc_rollup_store_stats(const struct fsc_rollup_store *st, struct fsc_rollup_store_stats *out)
{
    *out = st->stats;
    out->disk_bytes = total_bytes(st);
}
