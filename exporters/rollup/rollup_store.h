/* The rollup store: bounded, append-only day files of fixed-size records
 * (format in rollup_format.h) under one directory.
 *
 * Writer (one per directory; the collector's rollup thread):
 * - appends records to the file of the UTC day their minute falls in,
 *   writing the NAME record of each key into a file before the key's first
 *   data record there;
 * - on opening an existing day file (a restart) cuts a torn last record
 *   (a partial record, or a last full record whose CRC fails), so appends
 *   stay aligned;
 * - a failed write is rolled back with ftruncate() so a half-written
 *   record never sits in the middle of a file;
 * - fdatasync() after each batch: a minute survives a power cut once
 *   fsc_rollup_store_append() returned;
 * - deletes whole day files that ended more than `retention` ago, and the
 *   oldest files while the store is over `max_bytes`; when the current day
 *   alone is over the bound, records are dropped (counted) rather than the
 *   bound broken.
 *
 * Reader: any number, any process; sees every complete record with a good
 * CRC, skips (and counts) damaged ones and ignores a torn tail. A reader and
 * the writer may run at the same time: the reader stops at the size it saw.
 *
 * Threads: a writer or a reader belongs to one thread at a time. */
#ifndef FSC_ROLLUP_STORE_H
#define FSC_ROLLUP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "rollup/rollup_format.h"

#define FSC_ROLLUP_MAX_KEYS (1u << 20) /* names a writer or reader keeps per file */

struct fsc_rollup_store;

struct fsc_rollup_store_stats {
    uint64_t records;       /* data and NAME records written */
    uint64_t dropped;       /* records refused: over max_bytes, or a write failed */
    uint64_t write_errors;  /* failed write / sync / open calls */
    uint64_t files_deleted; /* by retention or max_bytes */
    uint64_t torn_cut;      /* torn tails cut when a file was reopened */
    uint64_t disk_bytes;    /* bytes the store's files hold now */
    uint64_t reopened;      /* open day files no longer at their path (state_dir
                             * deleted or replaced) and started again */
};

/* Opens (creating it and its parents) the store in `dir` (copied). Files
 * whose whole day lies more than retention_s before now are deleted first,
 * then the oldest while over max_bytes. retention_s > 0; max_bytes >=
 * header + 16 records. Returns NULL with a sentence in err (cannot create
 * or read the directory, out of memory). Thread: any. */
struct fsc_rollup_store *fsc_rollup_store_open(const char *dir, int64_t retention_s,
                                               uint64_t max_bytes, int64_t now_s, char *err,
                                               size_t errlen);

/* Flushes and frees. NULL is a no-op. */
void fsc_rollup_store_close(struct fsc_rollup_store *st);

/* Binds key (< FSC_ROLLUP_MAX_KEYS) to *name (copied). The NAME record is
 * written lazily, into each file before the key's first data record there;
 * binding a key again (a label learned later) rewrites it before the next
 * use. Returns 0, -ERANGE or -ENOMEM. */
int fsc_rollup_store_define(struct fsc_rollup_store *st, uint32_t key,
                            const struct fsc_rr_name *name);

/* Appends n data records (each key defined), in order, each to the file of
 * its minute's day, then syncs; prunes first when the batch would pass
 * max_bytes. Returns 0, or a negative errno for the first failure (the
 * records that could not be written are counted as dropped; the others are
 * on disk). */
int fsc_rollup_store_append(struct fsc_rollup_store *st, const struct fsc_rr_record *recs, size_t n,
                            int64_t now_s);

/* Applies retention and max_bytes at time now_s. Returns files deleted. */
int fsc_rollup_store_prune(struct fsc_rollup_store *st, int64_t now_s);

void fsc_rollup_store_stats(const struct fsc_rollup_store *st, struct fsc_rollup_store_stats *out);

/* ---- reading ------------------------------------------------------------------ */

struct fsc_rollup_reader;

struct fsc_rollup_read_stats {
    uint32_t files;      /* day files opened */
    uint32_t bad_files;  /* files whose header was not a rollup header of this version */
    uint64_t records;    /* data records returned */
    uint64_t crc_errors; /* records skipped: CRC mismatch or unknown type */
    uint64_t torn;       /* files that ended in a partial record */
    uint64_t unnamed;    /* data records whose key had no NAME in their file */
};

/* Opens the store in `dir` for the data records whose minute lies in
 * [from_s, to_s). Returns NULL with a sentence in err when dir does not
 * exist or cannot be listed (-ENOENT: "no rollup store at DIR"), or on
 * memory exhaustion; *errno_out (may be NULL) gets the negative errno. */
struct fsc_rollup_reader *fsc_rollup_reader_open(const char *dir, int64_t from_s, int64_t to_s,
                                                 int *errno_out, char *err, size_t errlen);

/* Next data record in file order (days ascending, then as appended).
 * Returns 1 with *rec filled and *name pointing at its key's binding (valid
 * until the next call), 0 at the end, or a negative errno on a read error. */
int fsc_rollup_reader_next(struct fsc_rollup_reader *rd, struct fsc_rr_record *rec,
                           const struct fsc_rr_name **name);

void fsc_rollup_reader_stats(const struct fsc_rollup_reader *rd, struct fsc_rollup_read_stats *out);

/* NULL is a no-op. */
void fsc_rollup_reader_close(struct fsc_rollup_reader *rd);

#endif
