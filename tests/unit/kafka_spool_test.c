/* The Kafka exporter's on-disk spool (exporters/kafka/kafka_spool.h):
 * order, segment files, acks, the size bound, damage, crashes, and a disk
 * that refuses writes (RLIMIT_FSIZE stands in for a full one: write(2)
 * stops at the same byte every time, without root). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kafka/kafka_spool.h"
#include "kafka_fixture.h"
#include "test.h"

static struct fsc_kspool *open_spool(const char *dir, uint64_t max, uint64_t seg,
                                     enum fsc_spool_fsync fs)
{
    struct fsc_kspool_options o = {.dir = dir, .max_bytes = max, .segment_bytes = seg, .fsync = fs};
    char err[256] = "";
    struct fsc_kspool *sp = fsc_kspool_open(&o, err, sizeof(err));
    if (sp == NULL)
        fprintf(stderr, "open: %s\n", err);
    return sp;
}

/* Record i: key "k<i>", value "value-<i>" padded with (i % 50) dots. */
static size_t make_rec(int i, char *key, size_t ksz, char *val, size_t vsz)
{
    snprintf(key, ksz, "k%d", i);
    int n = snprintf(val, vsz, "value-%d", i);
    for (int d = 0; d < i % 50; d++)
        val[n++] = '.';
    val[n] = '\0';
    return (size_t)n;
}

static int append_n(struct fsc_kspool *sp, int from, int to)
{
    char k[32], v[128];
    for (int i = from; i < to; i++) {
        size_t vl = make_rec(i, k, sizeof(k), v, sizeof(v));
        int rc = fsc_kspool_append(sp, k, strlen(k), v, vl, NULL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Reads from pos; checks records from..to-1 follow in order; returns how
 * many matched, and leaves *pos after the last one. */
static int read_expect(struct fsc_kspool *sp, struct fsc_kspool_pos *pos, int from, int to)
{
    char k[32], v[128];
    int ok = 0;
    for (int i = from; i < to; i++) {
        struct fsc_kspool_rec rec;
        if (fsc_kspool_read(sp, *pos, &rec) != 0)
            break;
        size_t vl = make_rec(i, k, sizeof(k), v, sizeof(v));
        if (rec.klen != strlen(k) || memcmp(rec.key, k, rec.klen) != 0 || rec.vlen != vl ||
            memcmp(rec.val, v, vl) != 0)
            break;
        *pos = rec.next;
        ok++;
    }
    return ok;
}

static uint64_t rec_bytes(int from, int to)
{
    char k[32], v[128];
    uint64_t sum = 0;
    for (int i = from; i < to; i++) {
        size_t vl = make_rec(i, k, sizeof(k), v, sizeof(v));
        sum += FSC_KSPOOL_REC_HDR + strlen(k) + vl;
    }
    return sum;
}

static void append_read_order(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    struct fsc_kspool_pos head = fsc_kspool_head(sp), tail = fsc_kspool_tail(sp);
    CHECK_INT(fsc_kspool_pos_cmp(head, tail), 0);
    struct fsc_kspool_rec rec;
    CHECK_INT(fsc_kspool_read(sp, head, &rec), -ENOENT);

    CHECK_INT(append_n(sp, 0, 1000), 0);
    /* Reading flushes what is still buffered. */
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    CHECK_INT(pos.off, FSC_KSPOOL_HDR);
    CHECK_INT(read_expect(sp, &pos, 0, 1000), 1000);
    CHECK_INT(fsc_kspool_read(sp, pos, &rec), -ENOENT);
    CHECK_INT(fsc_kspool_pos_cmp(pos, fsc_kspool_tail(sp)), 0);

    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.appended, 1000);
    CHECK_INT(st.pending_records, 1000);
    CHECK_INT(st.pending_bytes, rec_bytes(0, 1000));
    CHECK_INT(st.segments, 1);
    CHECK_INT(st.disk_bytes, FSC_KSPOOL_HDR + rec_bytes(0, 1000));
    CHECK_INT(st.corrupt, 0);
    /* Empty key and empty value are records too. */
    CHECK_INT(fsc_kspool_append(sp, "", 0, "", 0, NULL), 0);
    CHECK_INT(fsc_kspool_read(sp, pos, &rec), 0);
    CHECK_INT(rec.klen + rec.vlen, 0);
    char big[16];
    CHECK_INT(fsc_kspool_append(sp, big, FSC_KSPOOL_MAX_KEY + 1, "", 0, NULL), -EMSGSIZE);
    fsc_kspool_close(sp, NULL);
    CHECK_INT(kt_file_size(dir, "0000000000000001.fsq"),
              FSC_KSPOOL_HDR + rec_bytes(0, 1000) + FSC_KSPOOL_REC_HDR);
    kt_rmdir(dir);
}

static void segments_and_acks(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    /* 4 KiB segments; record i takes 12 + 2..3 + 7..57 bytes. */
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 4096, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    CHECK_INT(append_n(sp, 0, 100), 0);
    CHECK_INT(fsc_kspool_flush(sp), 0);
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    /* 100 records = 4730 bytes: records 0..89 fill the first segment
     * (4071 bytes with its header), 90..99 start the second. */
    CHECK_INT(rec_bytes(0, 100), 4730);
    CHECK_INT(st.segments, 2);
    CHECK_INT(kt_count_segments(dir), 2);

    /* Acknowledging 60 deletes nothing: the first segment is not done. */
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 0, 60), 60);
    CHECK_INT(fsc_kspool_ack(sp, pos, 60), 0);
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.pending_records, 40);
    CHECK_INT(st.pending_bytes, rec_bytes(60, 100));
    CHECK_INT(kt_count_segments(dir), 2);
    CHECK_INT(fsc_kspool_pos_cmp(fsc_kspool_head(sp), pos), 0);
    /* Through record 89: the first segment is wholly delivered and goes. */
    CHECK_INT(read_expect(sp, &pos, 60, 90), 30);
    CHECK_INT(pos.seg, 1);
    CHECK_INT(pos.off, 4071); /* 16 + records 0..89 */
    CHECK_INT(fsc_kspool_ack(sp, pos, 30), 0);
    CHECK_INT(kt_count_segments(dir), 1);
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.disk_bytes, FSC_KSPOOL_HDR + rec_bytes(90, 100));
    CHECK_INT(fsc_kspool_head(sp).seg, 2);
    CHECK_INT(fsc_kspool_head(sp).off, FSC_KSPOOL_HDR);

    /* Acks never go backwards nor past the tail. */
    struct fsc_kspool_pos back = {1, FSC_KSPOOL_HDR};
    CHECK_INT(fsc_kspool_ack(sp, back, 0), -EINVAL);
    struct fsc_kspool_pos beyond = fsc_kspool_tail(sp);
    beyond.off += 1;
    CHECK_INT(fsc_kspool_ack(sp, beyond, 0), -EINVAL);

    /* Everything delivered: only the (small) active segment remains. */
    CHECK_INT(read_expect(sp, &pos, 90, 100), 10);
    CHECK_INT(fsc_kspool_ack(sp, pos, 10), 0);
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.pending_records, 0);
    CHECK_INT(st.pending_bytes, 0);
    CHECK_INT(kt_count_segments(dir), 1);
    CHECK_INT(fsc_kspool_pos_cmp(fsc_kspool_head(sp), fsc_kspool_tail(sp)), 0);
    fsc_kspool_close(sp, NULL);

    /* Reopen: the ack file says it is all delivered, so nothing is left. */
    sp = open_spool(dir, 64ull << 20, 4096, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp != NULL) {
        fsc_kspool_get_stats(sp, &st);
        CHECK_INT(st.recovered, 0);
        CHECK_INT(kt_count_segments(dir), 0);
        /* New records get a new segment id after the acknowledged ones. */
        struct fsc_kspool_pos p;
        CHECK_INT(fsc_kspool_append(sp, "a", 1, "b", 1, &p), 0);
        CHECK_INT(p.seg, 3);
        CHECK_INT(p.off, FSC_KSPOOL_HDR);
        fsc_kspool_close(sp, NULL);
    }
    kt_rmdir(dir);
}

static void big_active_segment_recycled(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 1u << 20, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    static char v[1000];
    memset(v, 'x', sizeof(v));
    for (int i = 0; i < 100; i++) /* 100 * 1013 bytes: over the 64 KiB recycle size */
        CHECK_INT(fsc_kspool_append(sp, "", 0, v, sizeof(v), NULL), 0);
    CHECK_INT(fsc_kspool_flush(sp), 0);
    CHECK_INT(fsc_kspool_ack(sp, fsc_kspool_tail(sp), 100), 0);
    CHECK_INT(kt_count_segments(dir), 0);
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.disk_bytes, 0);
    CHECK_INT(st.segments, 0);
    struct fsc_kspool_pos p;
    CHECK_INT(fsc_kspool_append(sp, "", 0, v, 10, &p), 0);
    CHECK_INT(p.seg, 2);
    fsc_kspool_close(sp, NULL);
    kt_rmdir(dir);
}

static void bound_drops_counted(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    /* 1 MiB cap, default segments (1 MiB / 16 = 64 KiB). A record of key "k"
     * and a 10240-byte value takes 10253 bytes: 6 fit a segment (16 + 6 *
     * 10253 = 61534), 17 segments take 1046078 bytes, an 18th would need
     * 16 + 10253 more than the cap allows. */
    struct fsc_kspool *sp = open_spool(dir, 1u << 20, 0, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    static char v[10240];
    memset(v, 'v', sizeof(v));
    int ok = 0, full = 0;
    for (int i = 0; i < 120; i++) {
        int rc = fsc_kspool_append(sp, "k", 1, v, sizeof(v), NULL);
        ok += rc == 0;
        full += rc == -ENOSPC;
    }
    CHECK_INT(ok, 102);
    CHECK_INT(full, 18);
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.dropped, 18);
    CHECK_INT(st.disk_bytes, 1046078);
    CHECK_INT(st.segments, 17);
    /* Delivering the first segment makes room again. */
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    struct fsc_kspool_rec rec;
    for (int i = 0; i < 6; i++) {
        CHECK_INT(fsc_kspool_read(sp, pos, &rec), 0);
        pos = rec.next;
    }
    CHECK_INT(fsc_kspool_ack(sp, pos, 6), 0);
    CHECK_INT(kt_count_segments(dir), 16);
    CHECK_INT(fsc_kspool_append(sp, "k", 1, v, sizeof(v), NULL), 0);
    fsc_kspool_close(sp, NULL);
    kt_rmdir(dir);
}

/* A child appends, flushes some, acknowledges some and dies by SIGKILL
 * without closing anything: what a crash leaves behind. */
static void crash_child(const char *dir, enum fsc_spool_fsync fs)
{
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, fs);
    if (sp == NULL)
        _exit(3);
    if (append_n(sp, 0, 100) != 0 || fsc_kspool_flush(sp) != 0)
        _exit(4);
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    if (read_expect(sp, &pos, 0, 40) != 40 || fsc_kspool_ack(sp, pos, 40) != 0)
        _exit(5);
    fsc_kspool_tick(sp, 10 * 1000000000ll); /* writes the ack file, fsyncs (interval) */
    if (append_n(sp, 100, 105) != 0)        /* buffered only: lost by the crash */
        _exit(6);
    raise(SIGKILL);
    _exit(7);
}

static void crash_survivors(void)
{
    const enum fsc_spool_fsync policies[] = {FSC_SPOOL_FSYNC_ALWAYS, FSC_SPOOL_FSYNC_INTERVAL,
                                             FSC_SPOOL_FSYNC_NEVER};
    for (size_t p = 0; p < 3; p++) {
        char dir[64];
        kt_tmpdir(dir, sizeof(dir));
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0)
            crash_child(dir, policies[p]);
        int status = 0;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, policies[p]);
        CHECK(sp != NULL);
        if (sp == NULL)
            continue;
        /* Every record written before the kill survives a process crash
         * under any policy (write(2) happened; fsync only matters for the
         * kernel crashing); the acknowledged 40 are not re-sent; the 5 that
         * were still buffered are gone. */
        struct fsc_kspool_stats st;
        fsc_kspool_get_stats(sp, &st);
        CHECK_INT(st.recovered, 60);
        CHECK_INT(st.pending_bytes, rec_bytes(40, 100));
        CHECK_INT(st.corrupt, 0);
        struct fsc_kspool_pos pos = fsc_kspool_head(sp);
        CHECK_INT(read_expect(sp, &pos, 40, 100), 60);
        struct fsc_kspool_rec rec;
        CHECK_INT(fsc_kspool_read(sp, pos, &rec), -ENOENT);
        /* New records go behind them, in a new segment. */
        CHECK_INT(append_n(sp, 100, 110), 0);
        CHECK_INT(read_expect(sp, &pos, 100, 110), 10);
        CHECK_INT(pos.seg, 2);
        fsc_kspool_close(sp, NULL);
        kt_rmdir(dir);
    }
}

static void damage(const char *dir, long long off, const void *bytes, size_t n, bool append)
{
    char p[256];
    snprintf(p, sizeof(p), "%s/0000000000000001.fsq", dir);
    int fd = open(p, O_WRONLY | (append ? O_APPEND : 0));
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    if (append)
        CHECK(write(fd, bytes, n) == (ssize_t)n);
    else
        CHECK(pwrite(fd, bytes, n, off) == (ssize_t)n);
    close(fd);
}

static void corruption_truncated(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    CHECK_INT(append_n(sp, 0, 50), 0);
    fsc_kspool_close(sp, NULL);
    long long size = kt_file_size(dir, "0000000000000001.fsq");
    CHECK_INT(size, FSC_KSPOOL_HDR + rec_bytes(0, 50));

    /* 1. A torn tail: half a record header. */
    damage(dir, 0, "\x05\x00\x00", 3, true);
    sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.corrupt, 1);
    CHECK_INT(st.truncated_bytes, 3);
    CHECK_INT(st.recovered, 50);
    fsc_kspool_close(sp, NULL);
    CHECK_INT(kt_file_size(dir, "0000000000000001.fsq"), size);

    /* 2. A flipped byte in record 30's value: the CRC catches it and the
     * segment ends before it. */
    long long off30 = FSC_KSPOOL_HDR + (long long)rec_bytes(0, 30);
    damage(dir, off30 + FSC_KSPOOL_REC_HDR + 3 + 2, "X", 1, false);
    sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.corrupt, 1);
    CHECK_INT(st.truncated_bytes, size - off30);
    CHECK_INT(st.recovered, 30);
    CHECK_INT(st.pending_bytes, rec_bytes(0, 30));
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 0, 30), 30);
    struct fsc_kspool_rec rec;
    CHECK_INT(fsc_kspool_read(sp, pos, &rec), -ENOENT);
    fsc_kspool_close(sp, NULL);
    CHECK_INT(kt_file_size(dir, "0000000000000001.fsq"), off30);

    /* 3. Zeroes where a record should be (a crash after the file grew but
     * before the data landed). */
    static const char zeros[64];
    damage(dir, 0, zeros, sizeof(zeros), true);
    sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp != NULL) {
        fsc_kspool_get_stats(sp, &st);
        CHECK_INT(st.corrupt, 1);
        CHECK_INT(st.truncated_bytes, 64);
        CHECK_INT(st.recovered, 30);
        fsc_kspool_close(sp, NULL);
    }
    kt_rmdir(dir);
}

/* Writes past `bytes` of any file fail (EFBIG; a write crossing it is cut
 * short there); RLIM_INFINITY lifts it. */
static void limit_file_size(rlim_t bytes)
{
    struct rlimit rl;
    CHECK_INT(getrlimit(RLIMIT_FSIZE, &rl), 0);
    rl.rlim_cur = bytes == RLIM_INFINITY ? rl.rlim_max : bytes;
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static void short_write_cut_and_counted(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    signal(SIGXFSZ, SIG_IGN);
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    CHECK_INT(append_n(sp, 0, 10), 0);
    CHECK_INT(fsc_kspool_flush(sp), 0);
    /* The disk takes records 10..14 and 5 bytes of record 15. */
    long long whole = FSC_KSPOOL_HDR + (long long)rec_bytes(0, 15);
    limit_file_size((rlim_t)whole + 5);
    CHECK_INT(append_n(sp, 10, 30), 0);
    CHECK_INT(fsc_kspool_flush(sp), -EFBIG);
    CHECK_INT(kt_file_size(dir, "0000000000000001.fsq"), whole); /* the 5 bytes cut off */
    CHECK_INT(fsc_kspool_flush(sp), -EFBIG);                     /* again, the same */
    CHECK_INT(kt_file_size(dir, "0000000000000001.fsq"), whole);
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.appended, 30);
    CHECK_INT(st.written, 15);
    CHECK_INT(st.pending_records, 30);
    CHECK_INT(st.buffered_records, 15);
    CHECK_INT(st.buffered_bytes, rec_bytes(15, 30));
    /* What is on disk reads back although the flush keeps failing. */
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 0, 30), 15);
    struct fsc_kspool_rec rec;
    CHECK_INT(fsc_kspool_read(sp, pos, &rec), -EFBIG);
    struct fsc_kspool_left left;
    fsc_kspool_close(sp, &left);
    CHECK_INT(left.records, 15);
    CHECK_INT(left.bytes, rec_bytes(0, 15));
    CHECK_INT(left.dropped, 15);
    CHECK_INT(left.resend, 0);
    CHECK_INT(left.sync_error, 0);
    limit_file_size(RLIM_INFINITY);

    sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.recovered, left.records);
    CHECK_INT(st.pending_bytes, left.bytes);
    CHECK_INT(st.corrupt, 0);
    pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 0, 15), 15);
    /* A new segment on a disk that takes only 8 bytes of its header: the
     * file is cut back to empty, which the next open deletes as harmless. */
    limit_file_size(8);
    CHECK_INT(append_n(sp, 100, 103), 0);
    CHECK(fsc_kspool_flush(sp) == -EFBIG);
    CHECK_INT(kt_file_size(dir, "0000000000000002.fsq"), 0);
    fsc_kspool_close(sp, &left);
    limit_file_size(RLIM_INFINITY);
    CHECK_INT(left.records, 15);
    CHECK_INT(left.dropped, 3);
    sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK(sp != NULL);
    if (sp != NULL) {
        fsc_kspool_get_stats(sp, &st);
        CHECK_INT(st.recovered, 15);
        CHECK_INT(st.corrupt, 0);
        CHECK_INT(kt_count_segments(dir), 1);
        fsc_kspool_close(sp, NULL);
    }
    signal(SIGXFSZ, SIG_DFL);
    kt_rmdir(dir);
}

/* Acknowledgements the ack file could not take are re-sent after a restart:
 * close() counts them in left.resend and left.records. */
static void unsaved_acks_counted(void)
{
    char dir[64], p[128];
    kt_tmpdir(dir, sizeof(dir));
    signal(SIGXFSZ, SIG_IGN);
    /* 4 KiB segments: records 0..89 in the first, 90.. in the second
     * (segments_and_acks). */
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 4096, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    CHECK_INT(append_n(sp, 0, 100), 0);
    CHECK_INT(fsc_kspool_flush(sp), 0);
    struct fsc_kspool_pos pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 0, 10), 10);
    CHECK_INT(fsc_kspool_ack(sp, pos, 10), 0);
    fsc_kspool_tick(sp, 10 * 1000000000ll); /* the ack file: records 0..9 */
    /* Through record 94: the first segment is deleted, the file still says
     * record 10 (in the deleted segment) and cannot be written. */
    CHECK_INT(read_expect(sp, &pos, 10, 95), 85);
    CHECK_INT(fsc_kspool_ack(sp, pos, 85), 0);
    CHECK_INT(kt_count_segments(dir), 1);
    limit_file_size(0);
    struct fsc_kspool_left left;
    fsc_kspool_close(sp, &left);
    limit_file_size(RLIM_INFINITY);
    CHECK_INT(left.resend, 5); /* 90..94 */
    CHECK_INT(left.records, 10);
    CHECK_INT(left.bytes, rec_bytes(90, 100));
    CHECK_INT(left.dropped, 0);
    sp = open_spool(dir, 64ull << 20, 4096, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp == NULL)
        return;
    struct fsc_kspool_stats st;
    fsc_kspool_get_stats(sp, &st);
    CHECK_INT(st.recovered, 10);
    CHECK_INT(st.pending_bytes, rec_bytes(90, 100));

    /* ack.tmp cannot be made (a directory in its place, as a full disk
     * refuses a new file's block): the ack file is overwritten in place. */
    pos = fsc_kspool_head(sp);
    CHECK_INT(read_expect(sp, &pos, 90, 97), 7);
    CHECK_INT(fsc_kspool_ack(sp, pos, 7), 0);
    snprintf(p, sizeof(p), "%s/ack.tmp", dir);
    CHECK_INT(mkdir(p, 0700), 0);
    fsc_kspool_close(sp, &left);
    CHECK_INT(left.resend, 0);
    CHECK_INT(left.records, 3);
    CHECK_INT(rmdir(p), 0);
    sp = open_spool(dir, 64ull << 20, 4096, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    if (sp != NULL) {
        fsc_kspool_get_stats(sp, &st);
        CHECK_INT(st.recovered, 3);
        fsc_kspool_close(sp, NULL);
    }
    signal(SIGXFSZ, SIG_DFL);
    kt_rmdir(dir);
}

static void lock_and_errors(void)
{
    char dir[64], err[256];
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_kspool *sp = open_spool(dir, 64ull << 20, 0, FSC_SPOOL_FSYNC_NEVER);
    CHECK(sp != NULL);
    struct fsc_kspool_options o = {.dir = dir, .max_bytes = 1u << 20};
    CHECK(fsc_kspool_open(&o, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "another process uses the spool directory") != NULL);
    fsc_kspool_close(sp, NULL);
    fsc_kspool_close(NULL, NULL);
    /* Once closed, the lock is free. */
    sp = fsc_kspool_open(&o, err, sizeof(err));
    CHECK(sp != NULL);
    fsc_kspool_close(sp, NULL);
    /* A directory that cannot be created. */
    struct fsc_kspool_options bad = {.dir = "/proc/fsc-no/spool", .max_bytes = 1u << 20};
    CHECK(fsc_kspool_open(&bad, err, sizeof(err)) == NULL);
    CHECK(strstr(err, "cannot create spool directory /proc/fsc-no/spool") != NULL);
    kt_rmdir(dir);
}

TEST_MAIN(TEST(append_read_order), TEST(segments_and_acks), TEST(big_active_segment_recycled),
          TEST(bound_drops_counted), TEST(crash_survivors), TEST(corruption_truncated),
          TEST(short_write_cut_and_counted), TEST(unsaved_acks_counted), TEST(lock_and_errors))
