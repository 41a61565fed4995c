#define _GNU_SOURCE /* malloc_trim */
#include "base/mem_trim.h"

#include <stdio.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Resident bytes of this process, or -1. */
static int64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long long size = 0, resident = -1;
    if (!f)
        return -1;
    if (fscanf(f, "%lld %lld", &size, &resident) != 2)
        resident = -1;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return resident >= 0 && page > 0 ? (int64_t)resident * page : -1;
}

int64_t fsc_mem_trim(void)
{
#ifdef __GLIBC__
    int64_t before = rss_bytes();
    (void)malloc_trim(0);
    int64_t after = rss_bytes();
    return before >= 0 && after >= 0 && before > after ? before - after : 0;
#else
    return 0;
#endif
}
