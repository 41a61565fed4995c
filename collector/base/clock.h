/* Clocks as int64 nanoseconds, the unit of every timestamp in fabricscope. */
#ifndef FSC_CLOCK_H
#define FSC_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Wall time, ns since the Unix epoch (device and arrival timestamps). */
static inline int64_t fsc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Monotonic time, ns since an arbitrary start (durations, deadlines). */
static inline int64_t fsc_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
