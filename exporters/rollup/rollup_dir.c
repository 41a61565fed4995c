/* Listing, naming and creating the rollup store's directory (contract in
 * rollup_dir.h). */
#include "rollup/rollup_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rollup/rollup_format.h"

#define MAX_DAY_FILES 100000

static int cmp_day(const void *a, const void *b)
{
    const struct fsc_rr_dayfile *x = a, *y = b;
    return (x->day_s > y->day_s) - (x->day_s < y->day_s);
}

long fsc_rr_list_days(const char *dir, struct fsc_rr_dayfile **out)
{
    *out = NULL;
    DIR *dp = opendir(dir);
    if (!dp)
        return -errno;
    struct fsc_rr_dayfile *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    char path[4096];
    while ((de = readdir(dp)) != NULL && n < MAX_DAY_FILES) {
        int64_t day;
        if (fsc_rr_file_day(de->d_name, &day) != 0)
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct fsc_rr_dayfile *nv = realloc(v, ncap * sizeof(*v));
            if (!nv) {
                free(v);
                closedir(dp);
                return -ENOMEM;
            }
            v = nv;
            cap = ncap;
        }
        struct stat sb;
        int len = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (len < 0 || (size_t)len >= sizeof(path) || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        v[n].day_s = day;
        v[n].bytes = (uint64_t)sb.st_size;
        n++;
    }
    closedir(dp);
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_day);
    *out = v;
    return (long)n;
}

int fsc_rr_day_path(const char *dir, int64_t day_s, char *buf, size_t size)
{
    char name[32];
    int len = snprintf(buf, size, "%s/%s", dir, fsc_rr_file_name(day_s, name, sizeof(name)));
    return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}
