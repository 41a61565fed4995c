/* Returning the heap's free pages to the kernel. glibc keeps memory freed
 * inside its heaps (the start's initial dumps, a scrape's segments) resident
 * until something trims it: at 1 000 devices ~100 MiB of the collector's
 * RSS was free heap (docs/PERFORMANCE.md, "Memory per series"). */
#ifndef FSC_MEM_TRIM_H
#define FSC_MEM_TRIM_H

#include <stdint.h>

/* Trims every malloc arena (malloc_trim(0) under glibc; nothing elsewhere)
 * and returns the resident bytes that went away (from /proc/self/statm,
 * 0 when unknown or none). Takes each arena's lock in turn: allocating
 * threads wait meanwhile (a few ms per GiB of heap). Thread: any. */
int64_t fsc_mem_trim(void);

#endif
