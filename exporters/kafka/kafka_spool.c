/* The spool's steady state: appending, flushing, reading back, acknowledging
 * (format and guarantees: kafka_spool.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kafka/kafka_spool_int.h"

/* A fully delivered active segment at least this big is deleted at once
 * instead of waiting to fill up, so an idle spool holds (almost) nothing. */
#define RECYCLE_BYTES (64u << 10)

int fsc_kspool_pos_cmp(struct fsc_kspool_pos a, struct fsc_kspool_pos b)
{
    if (a.seg != b.seg)
        return a.seg < b.seg ? -1 : 1;
    return a.off < b.off ? -1 : a.off > b.off;
}

static bool active(const struct fsc_kspool *sp)
{
    return sp->wfd >= 0;
}

struct fsc_kspool_pos fsc_kspool_tail(const struct fsc_kspool *sp)
{
    if (active(sp))
        return (struct fsc_kspool_pos){sp->wseg, sp->segs[sp->n_segs - 1].size};
    return (struct fsc_kspool_pos){sp->next_id, FSC_KSPOOL_HDR};
}

/* The first record at or after pos, or the tail. */
static struct fsc_kspool_pos normalize(const struct fsc_kspool *sp, struct fsc_kspool_pos pos)
{
    size_t i = fsc_kspool_seg_lower(sp, pos.seg);
    if (i < sp->n_segs && sp->segs[i].id == pos.seg) {
        uint64_t off = pos.off < FSC_KSPOOL_HDR ? FSC_KSPOOL_HDR : pos.off;
        if (off < sp->segs[i].size)
            return (struct fsc_kspool_pos){pos.seg, off};
        i++;
    }
    for (; i < sp->n_segs; i++) {
        if (sp->segs[i].size > FSC_KSPOOL_HDR)
            return (struct fsc_kspool_pos){sp->segs[i].id, FSC_KSPOOL_HDR};
    }
    return fsc_kspool_tail(sp);
}

struct fsc_kspool_pos fsc_kspool_head(const struct fsc_kspool *sp)
{
    return normalize(sp, sp->ack);
}

static int sync_fd(struct fsc_kspool *sp, int fd)
{
    if (fdatasync(fd) == -1) {
        sp->st.io_errors++;
        return -errno;
    }
    sp->st.fsyncs++;
    return 0;
}

/* Directory entries (segment creation and deletion) are made durable with
 * the data, or a power loss could forget a segment whose records were
 * fsynced. */
static int sync_all(struct fsc_kspool *sp)
{
    int rc = 0;
    if (sp->dirty && active(sp))
        rc = sync_fd(sp, sp->wfd);
    if (rc == 0 && sp->dir_dirty) {
        if (fsync(sp->dirfd) == -1) {
            sp->st.io_errors++;
            rc = -errno;
        } else {
            sp->dir_dirty = false;
        }
    }
    if (rc == 0)
        sp->dirty = false;
    return rc;
}

/* The whole units (segment header, records) among the first n bytes of the
 * write buffer: returns the bytes they span; *recs and *rbytes get the
 * records among them and their bytes. */
static size_t whole_units(const struct fsc_kspool *sp, size_t n, uint64_t *recs, uint64_t *rbytes)
{
    size_t at = 0;
    *recs = *rbytes = 0;
    if (sp->wflushed == 0) { /* the buffer starts with the segment header */
        if (n < FSC_KSPOOL_HDR)
            return 0;
        at = FSC_KSPOOL_HDR;
    }
    while (at + FSC_KSPOOL_REC_HDR <= n) {
        const unsigned char *h = (const unsigned char *)sp->wbuf + at;
        size_t total = FSC_KSPOOL_REC_HDR + (size_t)kspool_get32(h + 4) + kspool_get32(h + 8);
        if (at + total > n)
            break;
        at += total;
        (*recs)++;
        *rbytes += total;
    }
    return at;
}

/* Cuts the `torn` bytes of a partly written record off the active segment,
 * back to wflushed (a record boundary). A failure is remembered in wtorn and
 * retried before the next write. */
static int cut_torn(struct fsc_kspool *sp, uint64_t torn)
{
    if (ftruncate(sp->wfd, (off_t)sp->wflushed) == -1) {
        sp->st.io_errors++;
        sp->wtorn = torn;
        return -errno;
    }
    sp->wtorn = 0;
    return 0;
}

int fsc_kspool_flush(struct fsc_kspool *sp)
{
    size_t done = 0;
    int rc = 0;
    /* Nothing may follow a torn record: the next open would drop it all. */
    if (sp->wtorn > 0 && (rc = cut_torn(sp, sp->wtorn)) != 0)
        return rc;
    while (done < sp->wlen) {
        ssize_t n = write(sp->wfd, sp->wbuf + done, sp->wlen - done);
        if (n == -1) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            sp->st.io_errors++;
            break;
        }
        done += (size_t)n;
    }
    if (done > 0) {
        uint64_t recs = sp->wrecs, rbytes = sp->wrec_bytes;
        size_t whole = done == sp->wlen ? done : whole_units(sp, done, &recs, &rbytes);
        memmove(sp->wbuf, sp->wbuf + whole, sp->wlen - whole);
        sp->wlen -= whole;
        sp->wflushed += whole;
        sp->wrecs -= recs;
        sp->wrec_bytes -= rbytes;
        sp->st.written += recs;
        sp->dirty = true;
        /* A short write (disk full) ended inside a record: it stays in the
         * buffer whole, its written part goes. */
        if (whole < done)
            (void)cut_torn(sp, done - whole);
    }
    if (rc == 0 && sp->opt.fsync == FSC_SPOOL_FSYNC_ALWAYS && (sp->dirty || sp->dir_dirty))
        rc = sync_all(sp);
    return rc;
}

/* Closes the active segment (flushed and, unless the policy is never,
 * fsynced): the next append starts a new one. */
static int seal(struct fsc_kspool *sp)
{
    int rc = fsc_kspool_flush(sp);
    if (rc == 0 && sp->opt.fsync != FSC_SPOOL_FSYNC_NEVER)
        rc = sync_all(sp);
    if (rc != 0)
        return rc;
    close(sp->wfd);
    sp->wfd = -1;
    sp->dirty = false;
    return 0;
}

static int new_segment(struct fsc_kspool *sp)
{
    char name[32];
    uint64_t id = sp->next_id;
    fsc_kspool_seg_name(id, name, sizeof(name));
    int fd = openat(sp->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd == -1) {
        sp->st.io_errors++;
        return -errno;
    }
    if (fsc_kspool_seg_push(sp, id, FSC_KSPOOL_HDR) != 0) {
        close(fd);
        unlinkat(sp->dirfd, name, 0);
        return -ENOMEM;
    }
    sp->next_id++;
    sp->wfd = fd;
    sp->wseg = id;
    sp->wflushed = 0;
    unsigned char *h = (unsigned char *)sp->wbuf;
    memcpy(h, KSPOOL_MAGIC, 8);
    kspool_put32(h + 8, 1);
    kspool_put32(h + 12, 0);
    sp->wlen = FSC_KSPOOL_HDR;
    sp->st.disk_bytes += FSC_KSPOOL_HDR;
    sp->dir_dirty = true;
    return 0;
}

int fsc_kspool_append(struct fsc_kspool *sp, const void *key, size_t klen, const void *val,
                      size_t vlen, struct fsc_kspool_pos *pos)
{
    if (klen > FSC_KSPOOL_MAX_KEY || vlen > FSC_KSPOOL_MAX_VALUE)
        return -EMSGSIZE;
    uint64_t total = FSC_KSPOOL_REC_HDR + klen + vlen;
    int rc;
    if (active(sp) && sp->segs[sp->n_segs - 1].size > FSC_KSPOOL_HDR &&
        sp->segs[sp->n_segs - 1].size + total > sp->opt.segment_bytes) {
        if ((rc = seal(sp)) != 0)
            return rc;
    }
    uint64_t need = total + (active(sp) ? 0 : FSC_KSPOOL_HDR);
    if (sp->st.disk_bytes + need > sp->opt.max_bytes) {
        sp->st.dropped++;
        return -ENOSPC;
    }
    if (!active(sp) && (rc = new_segment(sp)) != 0)
        return rc;
    /* A flush that fails part-way may still have made room. */
    if (sp->wlen + total > KSPOOL_WBUF && (rc = fsc_kspool_flush(sp)) != 0 &&
        sp->wlen + total > KSPOOL_WBUF)
        return rc;
    unsigned char *h = (unsigned char *)sp->wbuf + sp->wlen;
    kspool_put32(h + 4, (uint32_t)klen);
    kspool_put32(h + 8, (uint32_t)vlen);
    if (klen > 0)
        memcpy(h + FSC_KSPOOL_REC_HDR, key, klen);
    if (vlen > 0)
        memcpy(h + FSC_KSPOOL_REC_HDR + klen, val, vlen);
    kspool_put32(h, fsc_kspool_crc(h + 4, key, klen, val, vlen));
    sp->wlen += (size_t)total;
    sp->wrecs++;
    sp->wrec_bytes += total;
    struct kspool_seg *seg = &sp->segs[sp->n_segs - 1];
    if (pos != NULL)
        *pos = (struct fsc_kspool_pos){seg->id, seg->size};
    seg->size += total;
    sp->st.disk_bytes += total;
    sp->st.appended++;
    sp->st.pending_records++;
    sp->st.pending_bytes += total;
    return 0;
}

/* Makes [off, off + len) of segment index i readable from the window. */
static int fill(struct fsc_kspool *sp, size_t i, uint64_t off)
{
    const struct kspool_seg *seg = &sp->segs[i];
    if (sp->rfd < 0 || sp->rseg != seg->id) {
        char name[32];
        fsc_kspool_seg_name(seg->id, name, sizeof(name));
        if (sp->rfd >= 0)
            close(sp->rfd);
        sp->rlen = 0;
        sp->rfd = openat(sp->dirfd, name, O_RDONLY | O_CLOEXEC);
        if (sp->rfd == -1) {
            sp->st.io_errors++;
            return -errno;
        }
        sp->rseg = seg->id;
    }
    uint64_t end = seg->size - (seg->id == sp->wseg && active(sp) ? sp->wlen : 0);
    size_t want = end - off < KSPOOL_RBUF ? (size_t)(end - off) : KSPOOL_RBUF;
    ssize_t n = pread(sp->rfd, sp->rbuf, want, (off_t)off);
    if (n == -1) {
        sp->rlen = 0;
        sp->st.io_errors++;
        return -errno;
    }
    sp->roff = off;
    sp->rlen = (size_t)n;
    return 0;
}

int fsc_kspool_read(struct fsc_kspool *sp, struct fsc_kspool_pos pos, struct fsc_kspool_rec *rec)
{
    pos = normalize(sp, pos);
    size_t i = fsc_kspool_seg_lower(sp, pos.seg);
    if (i == sp->n_segs || sp->segs[i].id != pos.seg || pos.off >= sp->segs[i].size)
        return -ENOENT;
    int rc;
    /* The record, or the window read with it, may still be in the write
     * buffer. A record before wflushed is whole on disk: readable even when
     * the flush fails (disk full). */
    if (active(sp) && pos.seg == sp->wseg && sp->wlen > 0 && pos.off + KSPOOL_RBUF > sp->wflushed &&
        (rc = fsc_kspool_flush(sp)) != 0 && pos.off >= sp->wflushed)
        return rc;
    bool in_window = sp->rfd >= 0 && sp->rseg == pos.seg && pos.off >= sp->roff &&
                     pos.off + FSC_KSPOOL_REC_HDR <= sp->roff + sp->rlen;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!in_window && (rc = fill(sp, i, pos.off)) != 0)
            return rc;
        in_window = false;
        size_t at = (size_t)(pos.off - sp->roff);
        if (at + FSC_KSPOOL_REC_HDR > sp->rlen)
            continue;
        const unsigned char *h = (const unsigned char *)sp->rbuf + at;
        uint32_t klen = kspool_get32(h + 4), vlen = kspool_get32(h + 8);
        if (klen > FSC_KSPOOL_MAX_KEY || vlen > FSC_KSPOOL_MAX_VALUE)
            return -EIO;
        size_t total = FSC_KSPOOL_REC_HDR + (size_t)klen + vlen;
        if (at + total > sp->rlen)
            continue;
        /* Records were checked by open() or written by this process: no CRC
         * here (the hot path of replay). */
        rec->key = (const char *)h + FSC_KSPOOL_REC_HDR;
        rec->klen = klen;
        rec->val = rec->key + klen;
        rec->vlen = vlen;
        rec->pos = pos;
        rec->next = (struct fsc_kspool_pos){pos.seg, pos.off + total};
        return 0;
    }
    return -EIO; /* the file is shorter than the record says */
}

/* Record bytes between a and b (a <= b). */
static uint64_t bytes_between(const struct fsc_kspool *sp, struct fsc_kspool_pos a,
                              struct fsc_kspool_pos b)
{
    uint64_t sum = 0;
    for (size_t i = fsc_kspool_seg_lower(sp, a.seg); i < sp->n_segs && sp->segs[i].id <= b.seg;
         i++) {
        const struct kspool_seg *s = &sp->segs[i];
        uint64_t start = s->id == a.seg && a.off > FSC_KSPOOL_HDR ? a.off : FSC_KSPOOL_HDR;
        uint64_t end = s->id == b.seg && b.off < s->size ? b.off : s->size;
        if (start > s->size)
            start = s->size;
        if (end > start)
            sum += end - start;
    }
    return sum;
}

static void delete_first(struct fsc_kspool *sp)
{
    char name[32];
    fsc_kspool_seg_name(sp->segs[0].id, name, sizeof(name));
    if (sp->rfd >= 0 && sp->rseg == sp->segs[0].id) {
        close(sp->rfd);
        sp->rfd = -1;
        sp->rlen = 0;
    }
    if (unlinkat(sp->dirfd, name, 0) == -1)
        sp->st.io_errors++;
    sp->st.disk_bytes -= sp->segs[0].size;
    memmove(sp->segs, sp->segs + 1, (sp->n_segs - 1) * sizeof(*sp->segs));
    sp->n_segs--;
    sp->dir_dirty = true;
}

int fsc_kspool_ack(struct fsc_kspool *sp, struct fsc_kspool_pos upto, uint64_t records)
{
    struct fsc_kspool_pos tail = fsc_kspool_tail(sp);
    if (fsc_kspool_pos_cmp(upto, sp->ack) < 0 || fsc_kspool_pos_cmp(upto, tail) > 0 ||
        records > sp->st.pending_records)
        return -EINVAL;
    uint64_t bytes = bytes_between(sp, sp->ack, upto);
    sp->st.pending_bytes -= bytes < sp->st.pending_bytes ? bytes : sp->st.pending_bytes;
    sp->st.pending_records -= records;
    sp->ack = upto;
    sp->ack_dirty = true;
    while (sp->n_segs > 0) {
        const struct kspool_seg *s = &sp->segs[0];
        bool is_active = active(sp) && s->id == sp->wseg;
        bool passed = s->id < upto.seg || (s->id == upto.seg && upto.off >= s->size);
        if (!passed)
            break;
        if (is_active) {
            /* Everything written is delivered. Keep appending to a small
             * segment; recycle a big one now rather than when it fills. */
            if (s->size < RECYCLE_BYTES || sp->wlen > 0)
                break;
            close(sp->wfd);
            sp->wfd = -1;
            sp->dirty = false;
        }
        delete_first(sp);
    }
    return 0;
}

void fsc_kspool_tick(struct fsc_kspool *sp, int64_t now_ns)
{
    if (active(sp) && sp->wlen > 0)
        (void)fsc_kspool_flush(sp); /* an error is counted and retried next time */
    int64_t iv = sp->opt.fsync_interval_ns;
    if (sp->opt.fsync == FSC_SPOOL_FSYNC_INTERVAL && (sp->dirty || sp->dir_dirty) &&
        now_ns - sp->last_sync_ns >= iv) {
        (void)sync_all(sp);
        sp->last_sync_ns = now_ns;
    }
    if (sp->ack_dirty && now_ns - sp->last_ack_ns >= iv) {
        if (fsc_kspool_write_ack(sp) == 0)
            sp->ack_dirty = false;
        sp->last_ack_ns = now_ns;
    }
}

void fsc_kspool_get_stats(const struct fsc_kspool *sp, struct fsc_kspool_stats *out)
{
    *out = sp->st;
    out->segments = sp->n_segs;
    out->buffered_records = sp->wrecs;
    out->buffered_bytes = sp->wrec_bytes;
}

/* Forgets what the write buffer holds (it could not be written). */
static void discard_buffer(struct fsc_kspool *sp)
{
    sp->segs[sp->n_segs - 1].size -= sp->wlen;
    sp->st.disk_bytes -= sp->wlen;
    sp->st.pending_records -= sp->wrecs;
    sp->st.pending_bytes -= sp->wrec_bytes;
    sp->wlen = 0;
    sp->wrecs = sp->wrec_bytes = 0;
}

/* Delivered records the next open will still find pending because the ack
 * file lags the acknowledgements: those from the file's position up to the
 * in-memory ack, in the segments that are left (the file may point into one
 * already deleted: open then takes the next segment from its start). */
static void count_unsaved_acks(struct fsc_kspool *sp, uint64_t *recs, uint64_t *bytes)
{
    struct fsc_kspool_pos pos = sp->ack_file;
    struct fsc_kspool_rec rec;
    while (fsc_kspool_pos_cmp(normalize(sp, pos), sp->ack) < 0 &&
           fsc_kspool_read(sp, pos, &rec) == 0) {
        (*recs)++;
        *bytes += FSC_KSPOOL_REC_HDR + (uint64_t)rec.klen + rec.vlen;
        pos = rec.next;
    }
}

void fsc_kspool_close(struct fsc_kspool *sp, struct fsc_kspool_left *left)
{
    struct fsc_kspool_left l = {0};
    if (sp == NULL) {
        if (left != NULL)
            *left = l;
        return;
    }
    if (active(sp)) {
        (void)fsc_kspool_flush(sp); /* what it cannot write is lost: counted below */
        if (sp->opt.fsync != FSC_SPOOL_FSYNC_NEVER)
            l.sync_error = sync_all(sp);
        l.dropped = sp->wrecs;
        discard_buffer(sp);
    }
    if (sp->ack_dirty && fsc_kspool_write_ack(sp) != 0)
        count_unsaved_acks(sp, &l.resend, &l.bytes);
    l.records = sp->st.pending_records + l.resend;
    l.bytes += sp->st.pending_bytes;
    if (left != NULL)
        *left = l;
    fsc_kspool_free(sp);
}
