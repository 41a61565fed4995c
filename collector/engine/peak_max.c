/* Trailing maxima of peak gauges (engine.h, FSC_PEAK_MAX_WINDOWS): a ring
 * of per-slot maxima over device time, 13 doubles per series that has a
 * peak signal, updated in O(1) per sample (a jump of the clock clears at
 * most the ring) and read in O(FSC_PEAK_SLOTS). Device time, not the
 * collector's clock: the windows hold whatever the device reported for that
 * span, whenever it arrived. */
#include <math.h>

#include "engine/engine_int.h"

const int64_t fsc_peak_max_window_ns[FSC_PEAK_MAX_WINDOWS] = {15000000000LL, 60000000000LL};

/* Floor division: device times before 1970 still fall into one slot each. */
static int64_t slot_of(int64_t t_ns)
{
    int64_t q = t_ns / FSC_PEAK_SLOT_NS;
    return (t_ns % FSC_PEAK_SLOT_NS < 0) ? q - 1 : q;
}

static size_t pos_of(int64_t slot)
{
    int64_t m = slot % FSC_PEAK_SLOTS;
    return (size_t)(m < 0 ? m + FSC_PEAK_SLOTS : m);
}

void fsc_peak_ring_add(struct fsc_peak_ring *ring, int64_t t_ns, double v)
{
    if (isnan(v))
        return; /* no value: nothing to hold */
    int64_t s = slot_of(t_ns);
    if (!ring->used) {
        for (size_t i = 0; i < FSC_PEAK_SLOTS; i++)
            ring->max[i] = -INFINITY;
        ring->slot = s;
        ring->used = 1;
    } else if (s > ring->slot) {
        /* Slots passed without a sample hold nothing. */
        int64_t clear = s - ring->slot < FSC_PEAK_SLOTS ? s - ring->slot : FSC_PEAK_SLOTS;
        for (int64_t k = 1; k <= clear; k++)
            ring->max[pos_of(ring->slot + k)] = -INFINITY;
        ring->slot = s;
    } else if (s <= ring->slot - FSC_PEAK_SLOTS) {
        return; /* older than every window */
    }
    double *m = &ring->max[pos_of(s)];
    if (v > *m)
        *m = v;
}

int fsc_peak_ring_max(const struct fsc_peak_ring *ring, double out[FSC_PEAK_MAX_WINDOWS])
{
    if (!ring->used)
        return -1;
    for (unsigned w = 0; w < FSC_PEAK_MAX_WINDOWS; w++) {
        /* The newest slot and the whole slots before it that cover the
         * window: 3 before for 15 s, 12 for 60 s. */
        int64_t back = fsc_peak_max_window_ns[w] / FSC_PEAK_SLOT_NS;
        double best = -INFINITY;
        for (int64_t k = 0; k <= back && k < FSC_PEAK_SLOTS; k++) {
            double m = ring->max[pos_of(ring->slot - k)];
            if (m > best)
                best = m;
        }
        out[w] = best;
    }
    return 0;
}
