/* Opening the spool: lock it, check what a previous run left (every record's
 * CRC), truncate bad tails, apply the ack file. */
#define _DEFAULT_SOURCE /* flock() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "kafka/kafka_spool_int.h"

uint32_t fsc_kspool_crc(const unsigned char *lens8, const void *key, size_t klen, const void *val,
                        size_t vlen)
{
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, lens8, 8);
    if (klen > 0)
        c = crc32(c, key, (uInt)klen);
    if (vlen > 0)
        c = crc32(c, val, (uInt)vlen);
    return (uint32_t)c;
}

void fsc_kspool_seg_name(uint64_t id, char *buf, size_t size)
{
    snprintf(buf, size, "%016llx.fsq", (unsigned long long)id);
}

size_t fsc_kspool_seg_lower(const struct fsc_kspool *sp, uint64_t id)
{
    size_t lo = 0, hi = sp->n_segs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->segs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int fsc_kspool_seg_push(struct fsc_kspool *sp, uint64_t id, uint64_t size)
{
    if (sp->n_segs == sp->cap_segs) {
        size_t cap = sp->cap_segs ? sp->cap_segs * 2 : 16;
        struct kspool_seg *s = realloc(sp->segs, cap * sizeof(*s));
        if (s == NULL)
            return -ENOMEM;
        sp->segs = s;
        sp->cap_segs = cap;
    }
    sp->segs[sp->n_segs].id = id;
    sp->segs[sp->n_segs].size = size;
    sp->n_segs++;
    return 0;
}

void fsc_kspool_free(struct fsc_kspool *sp)
{
    if (sp->wfd >= 0)
        close(sp->wfd);
    if (sp->rfd >= 0)
        close(sp->rfd);
    if (sp->dirfd >= 0)
        close(sp->dirfd);
    if (sp->lockfd >= 0)
        close(sp->lockfd); /* releases the flock */
    free(sp->segs);
    free(sp->wbuf);
    free(sp->rbuf);
    free(sp->dir_copy);
    free(sp);
}

/* The ack file is only a hint against re-sending delivered records after a
 * restart: a missing or damaged one means "nothing delivered", which can
 * duplicate but never lose. */
static void read_ack(struct fsc_kspool *sp)
{
    unsigned char b[KSPOOL_ACK_SIZE];
    int fd = openat(sp->dirfd, "ack", O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return;
    ssize_t n = pread(fd, b, sizeof(b), 0);
    close(fd);
    if (n != (ssize_t)sizeof(b) || memcmp(b, KSPOOL_ACK_MAGIC, 8) != 0)
        return;
    if ((uint32_t)crc32(0L, b + 8, 16) != kspool_get32(b + 24))
        return;
    sp->ack.seg = kspool_get64(b + 8);
    sp->ack.off = kspool_get64(b + 16);
}

int fsc_kspool_write_ack(struct fsc_kspool *sp)
{
    unsigned char b[KSPOOL_ACK_SIZE] = {0};
    memcpy(b, KSPOOL_ACK_MAGIC, 8);
    kspool_put64(b + 8, sp->ack.seg);
    kspool_put64(b + 16, sp->ack.off);
    kspool_put32(b + 24, (uint32_t)crc32(0L, b + 8, 16));
    int rc = 0;
    int fd = openat(sp->dirfd, "ack.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd == -1) {
        rc = -errno;
    } else {
        ssize_t n = write(fd, b, sizeof(b));
        rc = n == (ssize_t)sizeof(b) ? 0 : n == -1 ? -errno : -EIO;
        if (close(fd) == -1 && rc == 0)
            rc = -errno;
        if (rc == 0 && renameat(sp->dirfd, "ack.tmp", sp->dirfd, "ack") == -1)
            rc = -errno;
        if (rc != 0)
            unlinkat(sp->dirfd, "ack.tmp", 0);
    }
    if (rc != 0) {
        /* A full disk has no block for ack.tmp, but the ack file's own
         * block takes the 32 bytes in place. A torn overwrite fails the CRC
         * and reads as "nothing delivered": re-sends, never a loss. */
        fd = openat(sp->dirfd, "ack", O_WRONLY | O_CLOEXEC);
        if (fd != -1) {
            ssize_t n = pwrite(fd, b, sizeof(b), 0);
            if (n == (ssize_t)sizeof(b))
                rc = 0;
            else if (n > 0) /* torn: the next open reads "nothing delivered" */
                sp->ack_file = (struct fsc_kspool_pos){0, 0};
            close(fd);
        }
    }
    if (rc != 0)
        sp->st.io_errors++;
    else
        sp->ack_file = sp->ack;
    return rc;
}

static int seg_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct kspool_seg *)a)->id, y = ((const struct kspool_seg *)b)->id;
    return x < y ? -1 : x > y;
}

/* Collects segment ids from the directory, sorted. */
static int list_segments(struct fsc_kspool *sp, char *err, size_t errlen)
{
    int fd = dup(sp->dirfd);
    DIR *d = fd == -1 ? NULL : fdopendir(fd);
    if (d == NULL) {
        if (fd != -1)
            close(fd);
        snprintf(err, errlen, "cannot list spool directory %s: %s", sp->opt.dir, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strlen(n) != 20 || strcmp(n + 16, ".fsq") != 0 || strspn(n, "0123456789abcdef") != 16)
            continue;
        if (sp->n_segs >= KSPOOL_MAX_SEGS) {
            snprintf(err, errlen, "spool directory %s holds more than %u segments", sp->opt.dir,
                     KSPOOL_MAX_SEGS);
            rc = -1;
            break;
        }
        uint64_t id = strtoull(n, NULL, 16);
        if (fsc_kspool_seg_push(sp, id, 0) != 0) {
            snprintf(err, errlen, "out of memory listing the spool");
            rc = -1;
        }
    }
    closedir(d);
    if (rc != 0)
        return -1;
    if (sp->n_segs > 1)
        qsort(sp->segs, sp->n_segs, sizeof(*sp->segs), seg_cmp);
    return 0;
}

/* Checks one segment's records; returns the offset after the last good one
 * (the file's size when all are good) or -1 on a read error. Records at or
 * after `from` are counted as pending. */
static int64_t scan_segment(struct fsc_kspool *sp, int fd, uint64_t size, uint64_t from,
                            uint64_t *first_pending)
{
    uint64_t off = FSC_KSPOOL_HDR;
    uint64_t boff = 0;
    size_t blen = 0;
    *first_pending = UINT64_MAX;
    while (off < size) {
        /* Refill unless the whole record header is in the window. */
        if (off < boff || off + FSC_KSPOOL_REC_HDR > boff + blen) {
            size_t want = size - off < KSPOOL_RBUF ? (size_t)(size - off) : KSPOOL_RBUF;
            ssize_t n = pread(fd, sp->rbuf, want, (off_t)off);
            if (n == -1)
                return -1;
            boff = off;
            blen = (size_t)n;
            if (blen < FSC_KSPOOL_REC_HDR)
                break; /* torn header */
        }
        const unsigned char *h = (const unsigned char *)sp->rbuf + (off - boff);
        uint32_t klen = kspool_get32(h + 4), vlen = kspool_get32(h + 8);
        if (klen > FSC_KSPOOL_MAX_KEY || vlen > FSC_KSPOOL_MAX_VALUE)
            break;
        uint64_t total = FSC_KSPOOL_REC_HDR + (uint64_t)klen + vlen;
        if (off + total > size)
            break; /* torn record */
        if (off + total > boff + blen) {
            ssize_t n = pread(fd, sp->rbuf, (size_t)total, (off_t)off);
            if (n == -1)
                return -1;
            if ((uint64_t)n < total)
                break;
            boff = off;
            blen = (size_t)n;
            h = (const unsigned char *)sp->rbuf;
        }
        if (fsc_kspool_crc(h + 4, h + FSC_KSPOOL_REC_HDR, klen, h + FSC_KSPOOL_REC_HDR + klen,
                           vlen) != kspool_get32(h))
            break;
        if (off >= from) {
            if (*first_pending == UINT64_MAX)
                *first_pending = off;
            sp->st.pending_records++;
            sp->st.pending_bytes += total;
        }
        off += total;
    }
    return (int64_t)off;
}

/* Checks every listed segment, deleting delivered or headerless ones and
 * truncating bad tails; fills sizes and the pending counts. */
static int check_segments(struct fsc_kspool *sp, char *err, size_t errlen)
{
    size_t keep = 0;
    bool ack_found = false;
    for (size_t i = 0; i < sp->n_segs; i++) {
        uint64_t id = sp->segs[i].id;
        char name[32];
        fsc_kspool_seg_name(id, name, sizeof(name));
        if (id < sp->ack.seg) { /* wholly delivered; its deletion was cut short */
            unlinkat(sp->dirfd, name, 0);
            continue;
        }
        int fd = openat(sp->dirfd, name, O_RDWR | O_CLOEXEC);
        struct stat stt;
        if (fd == -1 || fstat(fd, &stt) == -1) {
            snprintf(err, errlen, "cannot open spool segment %s/%s: %s", sp->opt.dir, name,
                     strerror(errno));
            if (fd != -1)
                close(fd);
            return -1;
        }
        uint64_t size = (uint64_t)stt.st_size;
        unsigned char hdr[FSC_KSPOOL_HDR];
        if (size == 0) { /* created, nothing written (a full disk, a crash): no record */
            close(fd);
            unlinkat(sp->dirfd, name, 0);
            continue;
        }
        if (size < FSC_KSPOOL_HDR || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
            memcmp(hdr, KSPOOL_MAGIC, 8) != 0 || kspool_get32(hdr + 8) != 1) {
            /* A crash while creating it, or not ours to read: its records
             * (if any) cannot be trusted. */
            sp->st.corrupt++;
            sp->st.truncated_bytes += size;
            close(fd);
            unlinkat(sp->dirfd, name, 0);
            continue;
        }
        uint64_t from = id == sp->ack.seg ? sp->ack.off : 0, first = 0;
        int64_t good = scan_segment(sp, fd, size, from, &first);
        if (good < 0) {
            snprintf(err, errlen, "cannot read spool segment %s/%s: %s", sp->opt.dir, name,
                     strerror(errno));
            close(fd);
            return -1;
        }
        if ((uint64_t)good < size) {
            sp->st.corrupt++;
            sp->st.truncated_bytes += size - (uint64_t)good;
            if (ftruncate(fd, (off_t)good) == -1 ||
                (sp->opt.fsync != FSC_SPOOL_FSYNC_NEVER && fdatasync(fd) == -1)) {
                snprintf(err, errlen, "cannot truncate damaged spool segment %s/%s: %s",
                         sp->opt.dir, name, strerror(errno));
                close(fd);
                return -1;
            }
            size = (uint64_t)good;
        }
        close(fd);
        /* No records (left), or all of them delivered: nothing to keep. */
        if (size == FSC_KSPOOL_HDR || (id == sp->ack.seg && first == UINT64_MAX)) {
            unlinkat(sp->dirfd, name, 0);
            continue;
        }
        if (id == sp->ack.seg) {
            /* The ack must sit on a record boundary: the first pending
             * record, or the end when none is. */
            sp->ack.off = first != UINT64_MAX ? first : size;
            ack_found = true;
        }
        sp->segs[keep].id = id;
        sp->segs[keep].size = size;
        sp->st.disk_bytes += size;
        keep++;
    }
    sp->n_segs = keep;
    sp->st.segments = keep;
    if (!ack_found) /* its segment is gone: all of it was delivered */
        sp->ack.off = UINT64_MAX;
    uint64_t max_id = sp->n_segs ? sp->segs[sp->n_segs - 1].id : 0;
    if (sp->ack.seg > max_id)
        max_id = sp->ack.seg;
    sp->next_id = max_id + 1;
    sp->st.recovered = sp->st.pending_records;
    return 0;
}

struct fsc_kspool *fsc_kspool_open(const struct fsc_kspool_options *opt, char *err, size_t errlen)
{
    struct fsc_kspool *sp = calloc(1, sizeof(*sp));
    if (sp == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sp->dirfd = sp->lockfd = sp->wfd = sp->rfd = -1;
    sp->opt = *opt;
    sp->dir_copy = strdup(opt->dir);
    sp->wbuf = malloc(KSPOOL_WBUF);
    sp->rbuf = malloc(KSPOOL_RBUF);
    if (sp->dir_copy == NULL || sp->wbuf == NULL || sp->rbuf == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    sp->opt.dir = sp->dir_copy;
    if (sp->opt.segment_bytes == 0) {
        uint64_t s = opt->max_bytes / 16;
        sp->opt.segment_bytes = s < (64u << 10) ? (64u << 10) : s > (64u << 20) ? (64u << 20) : s;
    }
    if (sp->opt.fsync_interval_ns <= 0)
        sp->opt.fsync_interval_ns = 1000000000ll;

    if (mkdir(opt->dir, 0700) == -1 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create spool directory %s: %s", opt->dir, strerror(errno));
        goto fail;
    }
    sp->dirfd = open(opt->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sp->dirfd == -1) {
        snprintf(err, errlen, "cannot open spool directory %s: %s", opt->dir, strerror(errno));
        goto fail;
    }
    sp->lockfd = openat(sp->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (sp->lockfd == -1 || flock(sp->lockfd, LOCK_EX | LOCK_NB) == -1) {
        snprintf(err, errlen, "%s spool directory %s: %s",
                 errno == EWOULDBLOCK ? "another process uses the" : "cannot lock the", opt->dir,
                 strerror(errno));
        goto fail;
    }
    read_ack(sp);
    if (list_segments(sp, err, errlen) != 0 || check_segments(sp, err, errlen) != 0)
        goto fail;
    sp->ack_file = sp->ack; /* as the next open would read it, on the same segments */
    return sp;
fail:
    fsc_kspool_free(sp);
    return NULL;
}
