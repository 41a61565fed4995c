/* The rollup store (exporters/rollup/rollup_store.h, rollup_format.h):
 * known-answer CRC and names, write / read round trip across days, range
 * filtering, a torn last record (ignored by readers, cut by the next
 * writer), a damaged record in the middle, retention, the max_bytes bound,
 * and keys rebound by a restarted writer. Each case uses its own temporary
 * directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rollup/rollup_store.h"
#include "test.h"

#define DAY 86400LL
/* 2023-11-15T00:00:00Z */
#define D0 (19676LL * DAY)

static char dir[64];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof(dir), "/tmp/fsc_rollup_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
}

static void rm_tmp(void)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    char path[512];
    while (dp && (de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    if (dp)
        closedir(dp);
    rmdir(dir);
}

static long file_size(int64_t day)
{
    char path[512], name[32];
    snprintf(path, sizeof(path), "%s/%s", dir, fsc_rr_file_name(day, name, sizeof(name)));
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static struct fsc_rr_name port_name(const char *device, const char *port)
{
    struct fsc_rr_name n;
    memset(&n, 0, sizeof(n));
    n.kind = FSC_RR_NAME_PORT;
    n.role = 1;
    n.rail = 3;
    n.speed_bps = 400000000000ull;
    snprintf(n.device, sizeof(n.device), "%s", device);
    snprintf(n.port, sizeof(n.port), "%s", port);
    snprintf(n.peer, sizeof(n.peer), "spine1:swp%s", port + strlen(port) - 1);
    return n;
}

/* A port record whose numbers encode (key, minute). */
static struct fsc_rr_record port_rec(uint32_t key, int64_t minute)
{
    struct fsc_rr_record r;
    memset(&r, 0, sizeof(r));
    r.type = FSC_RR_PORT;
    r.flags = FSC_RR_F_TX | FSC_RR_F_CNP;
    r.key = key;
    r.minute_s = minute;
    r.port.dir[FSC_RR_TX].util[2] = 590;
    r.port.dir[FSC_RR_TX].util[8] = 10;
    r.port.dir[FSC_RR_TX].util_sum = 150.75;
    r.port.dir[FSC_RR_TX].max_fine = 0.875f;
    r.port.dir[FSC_RR_TX].max_1s = 0.5f;
    r.port.dir[FSC_RR_TX].bytes = 1.2e12 + (double)minute;
    r.port.dir[FSC_RR_TX].bursts = key;
    r.port.dir[FSC_RR_TX].dur[5] = 2;
    r.port.cnp = 1500;
    return r;
}

static struct fsc_rollup_store *open_store(int64_t retention, uint64_t max_bytes, int64_t now)
{
    char err[256] = "";
    struct fsc_rollup_store *st =
        fsc_rollup_store_open(dir, retention, max_bytes, now, err, sizeof(err));
    if (!st)
        fprintf(stderr, "open: %s\n", err);
    CHECK(st != NULL);
    return st;
}

/* Reads [from, to) and returns how many data records came back; keys and
 * minutes into the arrays (up to max). */
static size_t read_all(int64_t from, int64_t to, uint32_t *keys, int64_t *minutes, size_t max,
                       struct fsc_rollup_read_stats *stats)
{
    char err[256] = "";
    struct fsc_rollup_reader *rd = fsc_rollup_reader_open(dir, from, to, NULL, err, sizeof(err));
    CHECK(rd != NULL);
    if (!rd)
        return 0;
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    size_t n = 0;
    for (int guard = 0; guard < 100000 && fsc_rollup_reader_next(rd, &rec, &name) == 1; guard++) {
        if (n < max) {
            keys[n] = rec.key;
            minutes[n] = rec.minute_s;
        }
        n++;
    }
    if (stats)
        fsc_rollup_reader_stats(rd, stats);
    fsc_rollup_reader_close(rd);
    return n;
}

static void crc_and_names(void)
{
    /* A header ends in the CRC-32 (zlib's) of its first 60 bytes, little-endian. */
    uint8_t hdr[FSC_RR_HEADER_SIZE];
    fsc_rr_header_encode(86400 * 19000, 0, hdr);
    uint32_t want_crc = (uint32_t)crc32(0L, hdr, FSC_RR_HEADER_SIZE - 4);
    CHECK_INT(hdr[FSC_RR_HEADER_SIZE - 4] | hdr[FSC_RR_HEADER_SIZE - 3] << 8 |
                  hdr[FSC_RR_HEADER_SIZE - 2] << 16 | (uint32_t)hdr[FSC_RR_HEADER_SIZE - 1] << 24,
              want_crc);
    char buf[32];
    CHECK_STR(fsc_rr_file_name(0, buf, sizeof(buf)), "rollup-19700101.fsr");
    CHECK_STR(fsc_rr_file_name(D0 + 86399, buf, sizeof(buf)), "rollup-20231115.fsr");
    CHECK_STR(fsc_rr_file_name(951782400, buf, sizeof(buf)), "rollup-20000229.fsr");
    int64_t day = -1;
    CHECK_INT(fsc_rr_file_day("rollup-20231115.fsr", &day), 0);
    CHECK_INT(day, D0);
    CHECK_INT(fsc_rr_file_day("rollup-20231115.fsr.bad", &day), -1);
    CHECK_INT(fsc_rr_file_day("rollup-2023111x.fsr", &day), -1);
    CHECK_INT(fsc_rr_file_day("rollup-20231315.fsr", &day), -1);

    /* encode / decode round trip, and one flipped bit is caught */
    struct fsc_rr_record a = port_rec(7, D0 + 60), b;
    uint8_t raw[FSC_RR_RECORD_SIZE];
    fsc_rr_encode(&a, raw);
    CHECK_INT(fsc_rr_decode(raw, &b), 0);
    CHECK_INT(b.key, 7);
    CHECK_INT(b.minute_s, D0 + 60);
    CHECK_INT(b.port.dir[FSC_RR_TX].util[8], 10);
    CHECK(b.port.dir[FSC_RR_TX].bytes == 1.2e12 + (double)(D0 + 60));
    CHECK(b.port.dir[FSC_RR_TX].max_fine == 0.875f);
    CHECK(b.port.cnp == 1500);
    /* little-endian on disk whatever the host: the key sits at bytes 8..11 */
    CHECK_INT(raw[8], 7);
    CHECK_INT(raw[9] | raw[10] | raw[11], 0);
    raw[100] ^= 0x10;
    CHECK_INT(fsc_rr_decode(raw, &b), -EBADMSG);
}

static void write_read_days(void)
{
    mkdir_tmp();
    struct fsc_rollup_store *st = open_store(30 * DAY, 1ull << 30, D0 + DAY);
    if (!st)
        return;
    struct fsc_rr_name a = port_name("leaf1", "et-0/0/1"), b = port_name("leaf1", "et-0/0/2");
    CHECK_INT(fsc_rollup_store_define(st, 0, &a), 0);
    CHECK_INT(fsc_rollup_store_define(st, 1, &b), 0);
    CHECK_INT(fsc_rollup_store_define(st, FSC_ROLLUP_MAX_KEYS, &b), -ERANGE);
    struct fsc_rr_record recs[4] = {port_rec(0, D0 + 23 * 3600), port_rec(1, D0 + 23 * 3600),
                                    port_rec(0, D0 + DAY), port_rec(1, D0 + DAY + 60)};
    CHECK_INT(fsc_rollup_store_append(st, recs, 4, D0 + DAY + 120), 0);
    struct fsc_rr_record unnamed = port_rec(5, D0 + DAY);
    CHECK_INT(fsc_rollup_store_append(st, &unnamed, 1, D0 + DAY + 120), -ENOENT);
    struct fsc_rollup_store_stats ss;
    fsc_rollup_store_stats(st, &ss);
    CHECK_INT(ss.records, 8); /* 4 data + a NAME per key per file */
    CHECK_INT(ss.dropped, 1);
    fsc_rollup_store_close(st);
    CHECK_INT(file_size(D0), FSC_RR_HEADER_SIZE + 4 * FSC_RR_RECORD_SIZE);
    CHECK_INT(file_size(D0 + DAY), FSC_RR_HEADER_SIZE + 4 * FSC_RR_RECORD_SIZE);

    uint32_t keys[8];
    int64_t mins[8];
    CHECK_INT(read_all(0, D0 + 2 * DAY, keys, mins, 8, NULL), 4);
    CHECK_INT(keys[0], 0);
    CHECK_INT(keys[3], 1);
    CHECK_INT(mins[3], D0 + DAY + 60);
    /* range: only the second day's first minute */
    CHECK_INT(read_all(D0 + DAY, D0 + DAY + 60, keys, mins, 8, NULL), 1);
    CHECK_INT(keys[0], 0);

    /* names and values come back as written */
    char err[128];
    struct fsc_rollup_reader *rd =
        fsc_rollup_reader_open(dir, D0 + DAY + 60, D0 + DAY + 120, NULL, err, sizeof(err));
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name = NULL;
    CHECK(rd != NULL);
    if (rd) {
        CHECK_INT(fsc_rollup_reader_next(rd, &rec, &name), 1);
        CHECK_STR(name->device, "leaf1");
        CHECK_STR(name->port, "et-0/0/2");
        CHECK_STR(name->peer, "spine1:swp2");
        CHECK_INT(name->rail, 3);
        CHECK_INT(rec.port.dir[FSC_RR_TX].bursts, 1);
        CHECK_INT(fsc_rollup_reader_next(rd, &rec, &name), 0);
        fsc_rollup_reader_close(rd);
    }
    int e = 0;
    CHECK(fsc_rollup_reader_open("/nonexistent/fsc", 0, 1, &e, err, sizeof(err)) == NULL);
    CHECK_INT(e, -ENOENT);
    CHECK_STR(err, "no rollup store at /nonexistent/fsc");
    rm_tmp();
}

static void append_bytes(int64_t day, const void *buf, size_t len, long at)
{
    char path[512], name[32];
    snprintf(path, sizeof(path), "%s/%s", dir, fsc_rr_file_name(day, name, sizeof(name)));
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    if (at < 0)
        CHECK_INT(lseek(fd, 0, SEEK_END) > 0, 1);
    else
        CHECK_INT(lseek(fd, at, SEEK_SET), at);
    CHECK_INT(write(fd, buf, len), (long long)len);
    close(fd);
}

static void torn_record(void)
{
    mkdir_tmp();
    struct fsc_rollup_store *st = open_store(30 * DAY, 1ull << 30, D0);
    if (!st)
        return;
    struct fsc_rr_name a = port_name("leaf1", "et-0/0/1");
    fsc_rollup_store_define(st, 0, &a);
    struct fsc_rr_record recs[3] = {port_rec(0, D0), port_rec(0, D0 + 60), port_rec(0, D0 + 120)};
    CHECK_INT(fsc_rollup_store_append(st, recs, 3, D0 + 180), 0);
    fsc_rollup_store_close(st);

    /* a crash mid-write: the first 100 bytes of a fourth record */
    uint8_t raw[FSC_RR_RECORD_SIZE];
    struct fsc_rr_record r4 = port_rec(0, D0 + 180);
    fsc_rr_encode(&r4, raw);
    append_bytes(D0, raw, 100, -1);
    uint32_t keys[8];
    int64_t mins[8];
    struct fsc_rollup_read_stats rs;
    CHECK_INT(read_all(0, D0 + DAY, keys, mins, 8, &rs), 3);
    CHECK_INT(rs.torn, 1);
    CHECK_INT(rs.crc_errors, 0);

    /* the next writer cuts the torn tail and appends aligned */
    st = open_store(30 * DAY, 1ull << 30, D0 + 240);
    if (!st)
        return;
    fsc_rollup_store_define(st, 0, &a);
    CHECK_INT(fsc_rollup_store_append(st, &r4, 1, D0 + 240), 0);
    struct fsc_rollup_store_stats ss;
    fsc_rollup_store_stats(st, &ss);
    CHECK_INT(ss.torn_cut, 1);
    fsc_rollup_store_close(st);
    /* header + NAME + 3 + (NAME again: a new writer) + 1 */
    CHECK_INT(file_size(D0), FSC_RR_HEADER_SIZE + 6 * FSC_RR_RECORD_SIZE);
    CHECK_INT(read_all(0, D0 + DAY, keys, mins, 8, &rs), 4);
    CHECK_INT(rs.torn, 0);
    CHECK_INT(mins[3], D0 + 180);

    /* a full-size last record of zeros (the size grew, the data never came) */
    memset(raw, 0, sizeof(raw));
    append_bytes(D0, raw, sizeof(raw), -1);
    CHECK_INT(read_all(0, D0 + DAY, keys, mins, 8, &rs), 4);
    CHECK_INT(rs.crc_errors, 1);
    st = open_store(30 * DAY, 1ull << 30, D0 + 300);
    if (st) {
        fsc_rollup_store_define(st, 0, &a);
        struct fsc_rr_record r5 = port_rec(0, D0 + 240);
        CHECK_INT(fsc_rollup_store_append(st, &r5, 1, D0 + 300), 0);
        fsc_rollup_store_close(st);
    }
    CHECK_INT(read_all(0, D0 + DAY, keys, mins, 8, &rs), 5);
    CHECK_INT(rs.crc_errors, 0);

    /* a damaged record in the middle is skipped, the rest still read */
    append_bytes(D0, "\xff\xff", 2, FSC_RR_HEADER_SIZE + 2 * FSC_RR_RECORD_SIZE + 40);
    CHECK_INT(read_all(0, D0 + DAY, keys, mins, 8, &rs), 4);
    CHECK_INT(rs.crc_errors, 1);
    CHECK_INT(mins[0], D0);
    CHECK_INT(mins[1], D0 + 120);
    rm_tmp();
}

static void retention_and_bound(void)
{
    mkdir_tmp();
    /* a long retention while writing five days, 10 records each */
    struct fsc_rollup_store *st = open_store(365 * DAY, 1ull << 30, D0);
    if (!st)
        return;
    struct fsc_rr_name a = port_name("leaf1", "et-0/0/1");
    fsc_rollup_store_define(st, 0, &a);
    int64_t days[5] = {D0 - 40 * DAY, D0 - 31 * DAY, D0 - 30 * DAY, D0 - DAY, D0};
    for (int d = 0; d < 5; d++)
        for (int m = 0; m < 10; m++) {
            struct fsc_rr_record r = port_rec(0, days[d] + m * 60);
            CHECK_INT(fsc_rollup_store_append(st, &r, 1, D0), 0);
        }
    fsc_rollup_store_close(st);
    long one_day = FSC_RR_HEADER_SIZE + 11 * FSC_RR_RECORD_SIZE;
    for (int d = 0; d < 5; d++)
        CHECK_INT(file_size(days[d]), one_day);

    /* reopened at D0 + 12h with 30 days: a day goes once it ended more
     * than 30 days ago (D0 - 30d ends at D0 - 29d: it stays) */
    st = open_store(30 * DAY, 1ull << 30, D0 + 12 * 3600);
    if (!st)
        return;
    struct fsc_rollup_store_stats ss;
    fsc_rollup_store_stats(st, &ss);
    CHECK_INT(ss.files_deleted, 2);
    CHECK_INT(ss.disk_bytes, 3 * one_day);
    fsc_rollup_store_close(st);
    CHECK_INT(file_size(days[0]), -1);
    CHECK_INT(file_size(days[1]), -1);
    CHECK_INT(file_size(days[2]), one_day);

    /* max_bytes of two and a half days: the oldest goes first */
    uint64_t bound = (uint64_t)(2 * one_day + one_day / 2);
    st = open_store(30 * DAY, bound, D0 + 12 * 3600);
    if (!st)
        return;
    fsc_rollup_store_stats(st, &ss);
    CHECK_INT(ss.files_deleted, 1);
    CHECK(ss.disk_bytes <= bound);
    CHECK_INT(file_size(days[2]), -1);
    CHECK_INT(file_size(days[3]), one_day);

    /* today grows: yesterday is deleted, then today alone hits the bound and
     * further records are dropped, never the bound broken */
    fsc_rollup_store_define(st, 0, &a);
    int dropped_rc = 0;
    for (int m = 10; m < 1000; m++) {
        struct fsc_rr_record r = port_rec(0, D0 + m * 60);
        int rc = fsc_rollup_store_append(st, &r, 1, D0 + 12 * 3600);
        if (rc != 0) {
            dropped_rc = rc;
            break;
        }
    }
    CHECK_INT(dropped_rc, -ENOSPC);
    fsc_rollup_store_stats(st, &ss);
    CHECK(ss.disk_bytes <= bound);
    CHECK_INT(ss.dropped, 1);
    CHECK_INT(file_size(days[3]), -1);
    CHECK_INT(file_size(D0), (long)(bound - (bound - FSC_RR_HEADER_SIZE) % FSC_RR_RECORD_SIZE));
    fsc_rollup_store_close(st);
    rm_tmp();
}

static void keys_rebound_after_restart(void)
{
    mkdir_tmp();
    struct fsc_rollup_store *st = open_store(30 * DAY, 1ull << 30, D0);
    if (!st)
        return;
    struct fsc_rr_name a = port_name("leaf1", "p1"), b = port_name("leaf2", "p2");
    fsc_rollup_store_define(st, 0, &a);
    struct fsc_rr_record r = port_rec(0, D0);
    fsc_rollup_store_append(st, &r, 1, D0);
    fsc_rollup_store_close(st);
    /* a restarted collector gives key 0 to another port */
    st = open_store(30 * DAY, 1ull << 30, D0 + 60);
    if (!st)
        return;
    fsc_rollup_store_define(st, 0, &b);
    r = port_rec(0, D0 + 60);
    fsc_rollup_store_append(st, &r, 1, D0 + 60);
    /* and a speed learned later rebinds the key mid-file */
    b.speed_bps = 800000000000ull;
    fsc_rollup_store_define(st, 0, &b);
    r = port_rec(0, D0 + 120);
    fsc_rollup_store_append(st, &r, 1, D0 + 120);
    fsc_rollup_store_close(st);

    char err[128];
    struct fsc_rollup_reader *rd = fsc_rollup_reader_open(dir, 0, D0 + DAY, NULL, err, sizeof(err));
    CHECK(rd != NULL);
    if (!rd)
        return;
    struct fsc_rr_record rec;
    const struct fsc_rr_name *name;
    const char *want[3] = {"leaf1", "leaf2", "leaf2"};
    uint64_t speed[3] = {400000000000ull, 400000000000ull, 800000000000ull};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(fsc_rollup_reader_next(rd, &rec, &name), 1);
        CHECK_STR(name->device, want[i]);
        CHECK_INT(name->speed_bps, speed[i]);
    }
    CHECK_INT(fsc_rollup_reader_next(rd, &rec, &name), 0);
    fsc_rollup_reader_close(rd);
    rm_tmp();
}

/* Format version 2 reads version 1: a version 1 header is accepted (an
 * unknown later one is not), and a PORT record without FSC_RR_F_COVERED -
 * as every version 1 writer wrote them, the tail bytes zero - reads as
 * whole minutes; one with the flag keeps its partial minute and IB bytes. */
static void version1_reads_whole_minutes(void)
{
    uint8_t h[FSC_RR_HEADER_SIZE];
    int64_t day = 0;
    for (uint32_t v = 0; v <= FSC_RR_VERSION + 1; v++) {
        fsc_rr_header_encode(86400 * 19000, 0, h);
        h[8] = (uint8_t)v; /* the version, little-endian at byte 8 */
        uint32_t crc = (uint32_t)crc32(0L, h, FSC_RR_HEADER_SIZE - 4);
        for (int b = 0; b < 4; b++)
            h[FSC_RR_HEADER_SIZE - 4 + b] = (uint8_t)(crc >> (8 * b));
        int want = v >= 1 && v <= FSC_RR_VERSION ? 0 : -EPROTO;
        CHECK_INT(fsc_rr_header_decode(h, &day), want);
    }
    CHECK_INT(FSC_RR_VERSION, 2);
    struct fsc_rr_record r, back;
    memset(&r, 0, sizeof(r));
    r.type = FSC_RR_PORT;
    r.flags = FSC_RR_F_TX;
    r.minute_s = 86400 * 19000;
    r.port.dir[FSC_RR_TX].bytes = 1e9;
    r.port.dir[FSC_RR_TX].covered_ms = 0; /* what a version 1 record holds there */
    uint8_t buf[FSC_RR_RECORD_SIZE];
    fsc_rr_encode(&r, buf);
    CHECK_INT(fsc_rr_decode(buf, &back), 0);
    CHECK_INT(back.port.dir[FSC_RR_TX].covered_ms, 60000);
    CHECK_INT(back.port.dir[FSC_RR_RX].covered_ms, 60000);
    CHECK_INT(back.port.counters_ms, 60000);
    r.flags = FSC_RR_F_TX | FSC_RR_F_COVERED | FSC_RR_F_IB_RX;
    r.port.dir[FSC_RR_TX].covered_ms = 12345;
    r.port.ib_rx_bytes = 7e12;
    r.port.counters_ms = 54321;
    r.port.pfc_pause_s = 0.5;
    fsc_rr_encode(&r, buf);
    CHECK_INT(fsc_rr_decode(buf, &back), 0);
    CHECK_INT(back.port.dir[FSC_RR_TX].covered_ms, 12345);
    CHECK_INT(back.port.dir[FSC_RR_RX].covered_ms, 0);
    CHECK_NEAR(back.port.ib_rx_bytes, 7e12, 0);
    CHECK_INT(back.port.counters_ms, 54321);
    CHECK_NEAR(back.port.pfc_pause_s, 0.5, 0);
    CHECK_NEAR(back.port.dir[FSC_RR_TX].bytes, 1e9, 0);
}

/* The directory deleted under an open store (rm -rf), then replaced (moved
 * away, an empty one put there): the next append finds the file no longer
 * at its path and starts it again where it belongs, rather than writing
 * into an open file that is gone or elsewhere. */
static void dir_deleted_or_replaced(void)
{
    mkdir_tmp();
    struct fsc_rollup_store *st = open_store(30 * DAY, 1ull << 30, D0 + 600);
    if (!st)
        return;
    struct fsc_rr_name a = port_name("leaf1", "et-0/0/1");
    CHECK_INT(fsc_rollup_store_define(st, 0, &a), 0);
    struct fsc_rr_record r = port_rec(0, D0);
    CHECK_INT(fsc_rollup_store_append(st, &r, 1, D0 + 60), 0);
    uint32_t keys[4];
    int64_t mins[4];
    CHECK_INT(read_all(D0, D0 + DAY, keys, mins, 4, NULL), 1);

    rm_tmp(); /* the day file and the directory */
    r = port_rec(0, D0 + 60);
    CHECK_INT(fsc_rollup_store_append(st, &r, 1, D0 + 120), 0);
    CHECK_INT(read_all(D0, D0 + DAY, keys, mins, 4, NULL), 1);
    CHECK_INT(mins[0], D0 + 60);

    char old[80];
    snprintf(old, sizeof(old), "%s.old", dir);
    CHECK_INT(rename(dir, old), 0);
    CHECK_INT(mkdir(dir, 0755), 0);
    r = port_rec(0, D0 + 120);
    CHECK_INT(fsc_rollup_store_append(st, &r, 1, D0 + 180), 0);
    CHECK_INT(read_all(D0, D0 + DAY, keys, mins, 4, NULL), 1);
    CHECK_INT(mins[0], D0 + 120);
    struct fsc_rollup_store_stats ss;
    fsc_rollup_store_stats(st, &ss);
    CHECK_INT(ss.reopened, 2);
    fsc_rollup_store_close(st);
    rm_tmp();
    memcpy(dir, old, strlen(old) + 1);
    rm_tmp();
}

TEST_MAIN(TEST(crc_and_names), TEST(write_read_days), TEST(torn_record), TEST(retention_and_bound),
          TEST(keys_rebound_after_restart), TEST(version1_reads_whole_minutes),
          TEST(dir_deleted_or_replaced))
