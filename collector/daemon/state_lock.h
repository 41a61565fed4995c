/* The daemon's hold on its state_dir: a lock file that keeps a
 * second daemon out of the same directory, and a watch for the directory
 * being deleted or replaced under the running daemon.
 *
 * - STATE_DIR/lock is created (0644) and flock()ed (LOCK_EX | LOCK_NB) at
 *   start; it holds the owner's pid and a newline. A second daemon finds
 *   the lock held and refuses to start, naming the pid in the file. The
 *   lock ends with the process (the kernel drops it), so a crashed
 *   daemon's stale file does not block the next start.
 * - fsc_state_lock_check() compares the directory's device and inode with
 *   those seen when the lock was taken: when the directory is gone
 *   (deleted) or is another one (replaced: rm -rf and mkdir, mv), it is
 *   created again where needed and the lock taken again in it; the caller
 *   logs. Files kept open in the old directory (rollup day files) notice
 *   on their own (rollup_store.c reopens a file no longer at its path).
 *
 * Internal to collector/daemon; used by the main thread only. */
#ifndef FSC_STATE_LOCK_H
#define FSC_STATE_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fsc_state_lock {
    int fd; /* the lock file, -1 when not held */
    char dir[4096];
    dev_t dev;
    ino_t ino;
};

enum fsc_state_change {
    FSC_STATE_SAME = 0,
    FSC_STATE_DELETED = 1,  /* the directory was gone: created again, lock taken again */
    FSC_STATE_REPLACED = 2, /* another directory at the path: lock taken again in it */
};

/* Creates dir (and its parents) if needed and takes its lock. Returns 0;
 * -EBUSY when another process holds it (err names its pid); another
 * negative errno when the directory or the file cannot be made (err says
 * which). l->fd is -1 on any failure. */
int fsc_state_lock_take(struct fsc_state_lock *l, const char *dir, char *err, size_t errlen);

/* Whether the locked directory is still the one at l->dir (see above).
 * On a change, *rc is 0 when the lock was taken again, else the negative
 * errno of fsc_state_lock_take() with err set. No-op (SAME) without a
 * lock. */
enum fsc_state_change fsc_state_lock_check(struct fsc_state_lock *l, int *rc, char *err,
                                           size_t errlen);

/* Releases the lock (the file stays; the next owner rewrites it). */
void fsc_state_lock_release(struct fsc_state_lock *l);

#endif
