/* Counter directories in sysfs: one decimal number per file, read many times
 * a second (docs/vendors/mlx5.md, "Where a counter comes from").
 *
 *   /sys/class/infiniband/<dev>/ports/<n>/hw_counters   (+ its `lifespan`)
 *   /sys/class/infiniband/<dev>/ports/<n>/counters
 *   /sys/class/net/<if>/statistics
 *
 * A `struct fsc_nic_cdir` opens every regular file of one directory once and
 * keeps the descriptors; each poll is one pread() per file into a stack
 * buffer and a strict decimal parse, with no allocation. sysfs regenerates an
 * attribute's text on every read at offset 0, so pread(fd, .., 0) is a fresh
 * value without lseek or reopen.
 *
 * Values are reported raw, exactly as the file says. In particular the IB PMA
 * `port_xmit_data` / `port_rcv_data` count 4-byte words and stay in words
 * here: the mlx5 profile says `scale = 4` (profile_mlx5.c) and the poller
 * multiplies before the value leaves it (nic_poll.c), using the counter's
 * caller-owned `scale`. Widths (32-bit Q counters that wrap, 64-bit ones that
 * reset) are the profile's business too.
 *
 * `lifespan` (hw_counters only: how many ms the RDMA core caches the values)
 * is not a counter: it is left out of the counter list and read on every poll
 * for the engine's stale-repeat rule (traits.refresh_ns).
 *
 * The set of files can change (a driver reload, PFC enabled, a device
 * unplugged). A read that fails with ENODEV/ENOENT/ESTALE tells the caller to
 * call fsc_nic_cdir_rescan(), which re-lists the directory and keeps each
 * surviving counter's caller tag. A file removed from a plain
 * (non-sysfs) fixture tree keeps reading its last content until a rescan, so
 * the poller also rescans on a slow timer.
 *
 * Paths: every reader takes the sysfs root (default "/sys"; a fixture tree's
 * "<ROOT>/sys") and a path relative to it, so tests never touch /sys. */
#ifndef FSC_NIC_SYSFS_H
#define FSC_NIC_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define FSC_NIC_SYSFS_DEFAULT    "/sys"
#define FSC_NIC_PATH_MAX         4096
#define FSC_NIC_CDIR_FILES_MAX   4096 /* hard bound on files per directory */
#define FSC_NIC_CDIR_FILES_DEF   1024 /* max_files when the caller passes 0 */
#define FSC_NIC_TAG_NONE         UINT32_MAX
#define FSC_NIC_LIFESPAN_UNKNOWN (-1)

/* One counter file. `name` points into the reader's name pool and is valid
 * until the next rescan that returns 1 (or destroy). */
struct fsc_nic_counter {
    const char *name; /* file name, e.g. "np_cnp_sent" */
    uint64_t value;   /* last value read successfully (raw units of the file) */
    int32_t err;      /* this poll: 0, -EINVAL (not a decimal u64), or -errno of pread */
    uint32_t tag;     /* the caller's slot (a series id): FSC_NIC_TAG_NONE for a new
                       * file, kept across rescans while the name exists */
    uint32_t valid;   /* 1 once a value has been read (at scan time, or later) */
    uint32_t scale;   /* the caller's unit multiplier for value (1 for a new file), kept
                       * with tag across rescans; the reader never applies it */
};

struct fsc_nic_cdir_stats {
    uint64_t polls;        /* fsc_nic_cdir_read() calls */
    uint64_t parse_errors; /* file reads whose text was not a decimal u64 */
    uint64_t read_errors;  /* pread() failures (lifespan included) */
    uint64_t rescans;      /* fsc_nic_cdir_rescan() calls that re-listed the directory */
    uint32_t skipped;      /* at the last scan: entries not regular, not readable, or
                            * beyond max_files */
    uint32_t generation;   /* bumped whenever the set of names changes */
};

struct fsc_nic_cdir;

/* Writes "<sysfs>/<rel>" into out (sysfs NULL or "" = "/sys"; a '/' is put
 * between them only when needed). Returns 0, or -ENAMETOOLONG when it does
 * not fit out_size. Thread: any. */
int fsc_nic_path(char *out, size_t out_size, const char *sysfs, const char *rel);

/* Parses the text of a sysfs counter: 1 to 20 decimal digits, optionally
 * followed by one '\n' and nothing else. No sign, no spaces, no locale, no
 * overflow (a value above 2^64-1 is an error). Returns 0 with *out set, or
 * -EINVAL. Thread: any. */
int fsc_nic_parse_u64(const char *s, size_t len, uint64_t *out);

/* Opens every regular file of "<sysfs>/<rel>" (sorted by name; `lifespan`
 * handled apart) and reads each once: files that cannot be opened or whose
 * first read fails (unsupported attributes) are skipped and counted, a file
 * with malformed text is kept (its err says so). max_files bounds the counter
 * list (0 = FSC_NIC_CDIR_FILES_DEF, at most FSC_NIC_CDIR_FILES_MAX); extra
 * files are skipped and counted. Returns the reader, or NULL with a sentence
 * in err (directory missing, not a directory, out of memory). Owns its
 * descriptors. Thread: any; one thread at a time per reader. */
struct fsc_nic_cdir *fsc_nic_cdir_create(const char *sysfs, const char *rel, size_t max_files,
                                         char *err, size_t errlen);

/* Closes every descriptor and frees the reader. NULL is a no-op. */
void fsc_nic_cdir_destroy(struct fsc_nic_cdir *cd);

/* One poll: pread()s every counter file (and lifespan) into a stack buffer and
 * updates value / err of each counter; a failed file keeps its last value.
 * No allocation, no syscalls beyond one pread per file. Returns 0 when every
 * file read cleanly, the number of failed files (> 0), or -ENODEV when at
 * least one file reported that it is gone (ENODEV/ENOENT/ESTALE): the other
 * files were still read; call fsc_nic_cdir_rescan(). Thread: the reader's. */
int fsc_nic_cdir_read(struct fsc_nic_cdir *cd);

/* Re-lists the directory and reopens every file: new files join (tag NONE,
 * value read once), vanished files leave, survivors keep their tag and get
 * the value the rescan just read (their last good value when that read is
 * malformed). Allocates (a rescan is rare). Returns 1 when the set of names changed
 * (counter pointers and names from before are then invalid), 0 when it did
 * not, or a negative errno (the directory is gone, -ENOMEM) with the reader
 * left exactly as it was. Thread: the reader's. */
int fsc_nic_cdir_rescan(struct fsc_nic_cdir *cd);

/* The counter array (n entries, sorted by name), owned by the reader; the
 * caller may write `tag` and `scale` only. Valid until a rescan returns 1. */
struct fsc_nic_counter *fsc_nic_cdir_counters(struct fsc_nic_cdir *cd, size_t *n);

/* Index of the counter named `name`, or -1 (binary search). */
long fsc_nic_cdir_find(const struct fsc_nic_cdir *cd, const char *name);

/* The directory's `lifespan` in ms as of the last read or scan, or
 * FSC_NIC_LIFESPAN_UNKNOWN when the directory has none (or it is unreadable). */
int64_t fsc_nic_cdir_lifespan_ms(const struct fsc_nic_cdir *cd);

/* The absolute directory path the reader was created with. */
const char *fsc_nic_cdir_path(const struct fsc_nic_cdir *cd);

/* Copies the reader's counters of errors and rescans into *out. */
void fsc_nic_cdir_get_stats(const struct fsc_nic_cdir *cd, struct fsc_nic_cdir_stats *out);

#endif
