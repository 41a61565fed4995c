/* Directory helpers of the rollup store (internal to exporters/rollup). */
#ifndef FSC_ROLLUP_DIR_H
#define FSC_ROLLUP_DIR_H

#include <stddef.h>
#include <stdint.h>

/* One day file found in a store directory. */
struct fsc_rr_dayfile {
    int64_t day_s;  /* 00:00 UTC of its day */
    uint64_t bytes; /* its size when listed */
};

/* Lists the day files of dir (names fsc_rr_file_name() writes; anything
 * else is ignored), sorted by day, into a malloc'ed array the caller frees.
 * Returns the count (>= 0) or a negative errno (-ENOENT: no such
 * directory). At most 100000 files are listed (a 270-year store). */
long fsc_rr_list_days(const char *dir, struct fsc_rr_dayfile **out);

/* dir + "/" + the day file name of day_s into buf. Returns 0, or
 * -ENAMETOOLONG. */
int fsc_rr_day_path(const char *dir, int64_t day_s, char *buf, size_t size);

#endif
