/* The rollup store's reader (contract in rollup_store.h): walks the day
 * files that overlap a time range, binds keys from NAME records per file,
 * and returns the data records in range. Damaged records are skipped and
 * counted; a torn tail ends the file. */
#include "rollup/rollup_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rollup/rollup_dir.h"

#define DAY_S     86400
#define BATCH_REC 256 /* records read per pread */

struct fsc_rollup_reader {
    char dir[4096];
    int64_t from_s, to_s;
    struct fsc_rr_dayfile *days;
    size_t n_days, next_day;
    int fd;
    uint64_t end; /* whole-record end of the open file */
    uint64_t pos; /* next record offset */
    uint8_t *buf; /* BATCH_REC records */
    size_t buf_n, buf_i;
    struct fsc_rr_name *names;
    uint8_t *bound;
    uint32_t cap_keys;
    struct fsc_rollup_read_stats stats;
};

struct fsc_rollup_reader *fsc_rollup_reader_open(const char *dir, int64_t from_s, int64_t to_s,
                                                 int *errno_out, char *err, size_t errlen)
{
    int dummy;
    if (!errno_out)
        errno_out = &dummy;
    *errno_out = 0;
    struct fsc_rollup_reader *rd = calloc(1, sizeof(*rd));
    if (!rd || strlen(dir) >= sizeof(rd->dir)) {
        *errno_out = rd ? -ENAMETOOLONG : -ENOMEM;
        snprintf(err, errlen, rd ? "rollup store path too long" : "out of memory");
        free(rd);
        return NULL;
    }
    strcpy(rd->dir, dir);
    rd->from_s = from_s;
    rd->to_s = to_s;
    rd->fd = -1;
    rd->buf = malloc((size_t)BATCH_REC * FSC_RR_RECORD_SIZE);
    long n = rd->buf ? fsc_rr_list_days(dir, &rd->days) : -ENOMEM;
    if (n < 0) {
        *errno_out = (int)n;
        if (n == -ENOENT || n == -ENOTDIR)
            snprintf(err, errlen, "no rollup store at %s", dir);
        else
            snprintf(err, errlen, "cannot read the rollup store at %s: %s", dir, strerror((int)-n));
        free(rd->buf);
        free(rd);
        return NULL;
    }
    /* keep the days that overlap [from, to) */
    size_t k = 0;
    for (long i = 0; i < n; i++)
        if (rd->days[i].day_s < to_s && rd->days[i].day_s + DAY_S > from_s)
            rd->days[k++] = rd->days[i];
    rd->n_days = k;
    return rd;
}

void fsc_rollup_reader_close(struct fsc_rollup_reader *rd)
{
    if (!rd)
        return;
    if (rd->fd >= 0)
        close(rd->fd);
    free(rd->days);
    free(rd->buf);
    free(rd->names);
    free(rd->bound);
    free(rd);
}

void fsc_rollup_reader_stats(const struct fsc_rollup_reader *rd, struct fsc_rollup_read_stats *out)
{
    *out = rd->stats;
}

/* Opens the next day file with a valid header; 0 when none is left. */
static int open_next(struct fsc_rollup_reader *rd)
{
    char path[4200];
    while (rd->next_day < rd->n_days) {
        int64_t day = rd->days[rd->next_day++].day_s;
        if (fsc_rr_day_path(rd->dir, day, path, sizeof(path)) != 0)
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* deleted by retention since it was listed */
        struct stat sb;
        uint8_t hdr[FSC_RR_HEADER_SIZE];
        int64_t hday;
        if (fstat(fd, &sb) == 0 && sb.st_size < (off_t)FSC_RR_HEADER_SIZE) {
            /* no whole header: the writer could not start the day (a full
             * disk at midnight); it never held a record, as the store
             * itself reads it (rollup_store.c) */
            close(fd);
            continue;
        }
        if (fstat(fd, &sb) != 0 || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
            fsc_rr_header_decode(hdr, &hday) != 0 || hday != day) {
            rd->stats.bad_files++;
            close(fd);
            continue;
        }
        uint64_t size = (uint64_t)sb.st_size;
        uint64_t body = size - FSC_RR_HEADER_SIZE;
        if (body % FSC_RR_RECORD_SIZE != 0)
            rd->stats.torn++; /* the writer crashed mid-record: the tail is ignored */
        rd->fd = fd;
        rd->end = size - body % FSC_RR_RECORD_SIZE;
        rd->pos = FSC_RR_HEADER_SIZE;
        rd->buf_n = rd->buf_i = 0;
        if (rd->bound)
            memset(rd->bound, 0, rd->cap_keys); /* names are per file */
        rd->stats.files++;
        return 1;
    }
    return 0;
}

static int bind_name(struct fsc_rollup_reader *rd, const struct fsc_rr_record *rec)
{
    if (rec->key >= FSC_ROLLUP_MAX_KEYS)
        return 0; /* a key this build never writes: its data stays unnamed */
    if (rec->key >= rd->cap_keys) {
        uint32_t cap = rd->cap_keys ? rd->cap_keys : 256;
        while (cap <= rec->key)
            cap *= 2;
        struct fsc_rr_name *nn = realloc(rd->names, cap * sizeof(*nn));
        if (!nn)
            return -ENOMEM;
        rd->names = nn;
        uint8_t *nb = realloc(rd->bound, cap);
        if (!nb)
            return -ENOMEM;
        memset(nb + rd->cap_keys, 0, cap - rd->cap_keys);
        rd->bound = nb;
        rd->cap_keys = cap;
    }
    rd->names[rec->key] = rec->name;
    rd->bound[rec->key] = 1;
    return 0;
}

int fsc_rollup_reader_next(struct fsc_rollup_reader *rd, struct fsc_rr_record *rec,
                           const struct fsc_rr_name **name)
{
    for (;;) {
        if (rd->fd < 0 && !open_next(rd))
            return 0;
        if (rd->buf_i == rd->buf_n) {
            if (rd->pos >= rd->end) {
                close(rd->fd);
                rd->fd = -1;
                continue;
            }
            uint64_t want = rd->end - rd->pos;
            if (want > (uint64_t)BATCH_REC * FSC_RR_RECORD_SIZE)
                want = (uint64_t)BATCH_REC * FSC_RR_RECORD_SIZE;
            ssize_t got = pread(rd->fd, rd->buf, (size_t)want, (off_t)rd->pos);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return -errno;
            if ((size_t)got < FSC_RR_RECORD_SIZE) {
                rd->end = rd->pos; /* truncated under us: stop at what is there */
                continue;
            }
            rd->buf_n = (size_t)got / FSC_RR_RECORD_SIZE;
            rd->buf_i = 0;
            rd->pos += (uint64_t)rd->buf_n * FSC_RR_RECORD_SIZE;
        }
        const uint8_t *raw = rd->buf + rd->buf_i * FSC_RR_RECORD_SIZE;
        rd->buf_i++;
        if (fsc_rr_decode(raw, rec) != 0) {
            rd->stats.crc_errors++;
            continue;
        }
        if (rec->type == FSC_RR_NAME) {
            int rc = bind_name(rd, rec);
            if (rc != 0)
                return rc;
            continue;
        }
        if (rec->minute_s < rd->from_s || rec->minute_s >= rd->to_s)
            continue;
        if (rec->key >= rd->cap_keys || !rd->bound[rec->key]) {
            rd->stats.unnamed++;
            continue;
        }
        *name = &rd->names[rec->key];
        rd->stats.records++;
        return 1;
    }
}
