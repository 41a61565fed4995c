/* The Kafka exporter's on-disk spool: a write-ahead log of encoded events.
 *
 * Every event is appended here before librdkafka sees it, so a broker outage
 * of any length, and a crash of the process, lose nothing the fsync policy
 * does not allow to be lost (docs/CONFIG.md, "kafka"). Records are
 * read back in append order to be produced, and acknowledged in that order
 * once delivered; a segment file is deleted when every record in it is.
 *
 * Layout of spool_dir:
 *   0000000000000001.fsq ...  segments, named by a 64-bit id in hex; replay
 *                             order is id order, then file order
 *   ack                       "everything before (segment, offset) is
 *                             delivered" (written once a second and on close)
 *   lock                      flock()ed: one process per spool
 * A segment is a 16-byte header ("FSCSPL01", u32 version 1, u32 0) and then
 * records, all integers little-endian:
 *   u32 crc    CRC-32 (zlib) of the 8 length bytes, the key and the value
 *   u32 klen   key bytes (<= FSC_KSPOOL_MAX_KEY)
 *   u32 vlen   value bytes (<= FSC_KSPOOL_MAX_VALUE)
 *   key, value
 * fsc_kspool_open() checks every record; the first bad one (torn write,
 * bit rot, zeroes) ends its segment: the file is truncated there and the
 * loss counted in stats.corrupt / truncated_bytes.
 *
 * Appends go to a write buffer first. A write that fails part-way (ENOSPC)
 * is cut back to the last whole record at once (ftruncate), so the file
 * always ends at a record boundary and every byte in it is a record the next
 * open reads back; what could not be written stays buffered, is retried by
 * the next flush, and is reported as dropped by fsc_kspool_close().
 *
 * Thread: a spool belongs to one thread (the exporter's); no locks. */
#ifndef FSC_KAFKA_SPOOL_H
#define FSC_KAFKA_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "kafka/kafka_config.h"

#define FSC_KSPOOL_HDR       16u /* segment header bytes */
#define FSC_KSPOOL_REC_HDR   12u /* record header bytes */
#define FSC_KSPOOL_MAX_KEY   1024u
#define FSC_KSPOOL_MAX_VALUE (1u << 20)

/* A record's place: segment id and byte offset in the segment file. */
struct fsc_kspool_pos {
    uint64_t seg;
    uint64_t off;
};

struct fsc_kspool_options {
    const char *dir;            /* created (one level, mode 0700) if missing */
    uint64_t max_bytes;         /* cap on the segment files' total size */
    uint64_t segment_bytes;     /* start a new segment beyond this; 0: max_bytes / 16
                                 * within [64 KiB, 64 MiB] */
    enum fsc_spool_fsync fsync; /* see enum fsc_spool_fsync */
    int64_t fsync_interval_ns;  /* FSC_SPOOL_FSYNC_INTERVAL period; 0: 1 s */
};

struct fsc_kspool_stats {
    uint64_t appended;         /* records appended since open */
    uint64_t written;          /* of those, written to their segment file */
    uint64_t dropped;          /* appends refused because the spool was full */
    uint64_t pending_records;  /* appended (or found at open) and not acknowledged */
    uint64_t pending_bytes;    /* their bytes, record headers included */
    uint64_t buffered_records; /* of the pending, still in the write buffer (not in a file) */
    uint64_t buffered_bytes;   /* their bytes */
    uint64_t disk_bytes;       /* size of all segment files */
    uint64_t segments;         /* segment files */
    uint64_t recovered;        /* unacknowledged records found at open */
    uint64_t corrupt;          /* bad records found at open (each ended its segment) */
    uint64_t truncated_bytes;  /* bytes cut off at those records */
    uint64_t fsyncs;
    uint64_t io_errors; /* failed writes / fsyncs / unlinks (each also returned or logged) */
};

/* One record as read back. key and val point into the spool's read buffer
 * and stay valid until the next fsc_kspool_read() or fsc_kspool_close(). */
struct fsc_kspool_rec {
    const char *key;
    uint32_t klen;
    const char *val;
    uint32_t vlen;
    struct fsc_kspool_pos pos;  /* where it is (normalized: never a segment's end) */
    struct fsc_kspool_pos next; /* where the record after it starts */
};

struct fsc_kspool;

/* Opens (creating if needed) the spool in opt->dir: takes the lock, checks
 * every segment (truncating bad tails), reads the ack file and deletes
 * segments it says are delivered. Returns the spool, or NULL with a sentence
 * in err (directory not creatable, locked by another process, I/O error).
 * Thread: any; the spool then belongs to the caller's thread. */
struct fsc_kspool *fsc_kspool_open(const struct fsc_kspool_options *opt, char *err, size_t errlen);

/* What fsc_kspool_close() left on disk: exactly what the next open finds. */
struct fsc_kspool_left {
    uint64_t records; /* records the next open reads back as pending (its stats.recovered) */
    uint64_t bytes;   /* their bytes, record headers included (the open's pending_bytes) */
    uint64_t resend;  /* of those, records already delivered whose acknowledgement could not
                       * be saved (the ack file unwritable): the next start sends them again */
    uint64_t dropped; /* records still in the write buffer that could not be written: lost */
    int sync_error;   /* 0, or -errno of the final fsync (written, but a power loss may
                       * lose them); 0 under the policy never */
};

/* Flushes, fsyncs (unless the policy is never), writes the ack file,
 * releases the lock and frees. *left (may be NULL) gets what stays on disk
 * and what was lost. NULL sp is a no-op (*left zeroed). */
void fsc_kspool_close(struct fsc_kspool *sp, struct fsc_kspool_left *left);

/* Appends one record into the write buffer (nothing reaches the file until
 * fsc_kspool_flush()). *pos (may be NULL) gets its position. Returns 0,
 * -ENOSPC when the spool is full (counted in stats.dropped), -EMSGSIZE when
 * key or value are over the limits, -EIO (or another -errno) on a failed
 * write of the buffer or of a new segment. */
int fsc_kspool_append(struct fsc_kspool *sp, const void *key, size_t klen, const void *val,
                      size_t vlen, struct fsc_kspool_pos *pos);

/* Writes the buffered records with write(2), and fdatasync()s them when the
 * policy is always. After it returns 0 a process crash (SIGKILL) no longer
 * loses them. Returns 0 or -errno: the records written whole stay written (a
 * partly written one is cut off the file), the others stay buffered and are
 * retried on the next flush. */
int fsc_kspool_flush(struct fsc_kspool *sp);

/* Periodic work, called about every 100 ms: fsync under the interval
 * policy once per interval, and the ack file when the ack moved. */
void fsc_kspool_tick(struct fsc_kspool *sp, int64_t now_ns);

/* The first unacknowledged record (where replay starts after open), and
 * where the next append goes. head == tail: nothing pending. */
struct fsc_kspool_pos fsc_kspool_head(const struct fsc_kspool *sp);
struct fsc_kspool_pos fsc_kspool_tail(const struct fsc_kspool *sp);

/* Reads the record at pos (a position from append, head or a record's
 * next). Flushes first if pos is still in the write buffer. Returns 0,
 * -ENOENT at the tail, -EIO (or -errno) on a read error or a record that
 * does not parse. */
int fsc_kspool_read(struct fsc_kspool *sp, struct fsc_kspool_pos pos, struct fsc_kspool_rec *rec);

/* Acknowledges delivery of every record before upto, `records` of them
 * newly; segments that lie wholly before upto are deleted. upto must not
 * go backwards or past the tail (-EINVAL). Returns 0 or -EINVAL. */
int fsc_kspool_ack(struct fsc_kspool *sp, struct fsc_kspool_pos upto, uint64_t records);

void fsc_kspool_get_stats(const struct fsc_kspool *sp, struct fsc_kspool_stats *out);

/* -1, 0, 1 as a is before, at, after b. */
int fsc_kspool_pos_cmp(struct fsc_kspool_pos a, struct fsc_kspool_pos b);

#endif
