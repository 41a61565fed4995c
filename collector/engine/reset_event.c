/* Counter-reset events (FSC_EV_COUNTER_RESET).
 *
 * A reset is news to an operator (a device reloaded, someone cleared its
 * counters, an OTLP sender restarted), but a device reload resets thousands
 * of series at once, and a flapping sender may reset the same series every
 * few seconds. So every series publishes at most one event per
 * reset_event_every_ns; the resets in between are counted (engine-wide in
 * stats.reset_events_suppressed, per series in the next event's `baseline`).
 *
 * The span is measured on the collector's clock (the sample's arrival time;
 * its device time only when a source gave no arrival time): device clocks
 * differ between devices, and a table shared by all series needs one clock to
 * decide which entries are old. The table is bounded (FSC_RESET_SLOTS): when
 * all FSC_RESET_PROBE slots a series may use hold other series' recent
 * events, its reset is suppressed too - a storm over more series than the
 * table holds is counted rather than published one by one. */
#include <stdbool.h>

#include "engine/engine_int.h"

static inline int64_t limiter_now(const struct fsc_sample *smp)
{
    return smp->t_arr_ns > 0 ? smp->t_arr_ns : smp->t_dev_ns;
}

/* Still inside its span: a clock that stepped back makes an entry old. */
static inline bool slot_recent(const struct fsc_reset_slot *sl, int64_t now, int64_t every)
{
    return sl->key != 0 && now >= sl->t_ns && now - sl->t_ns < every;
}

static void publish(const struct fsc_det_ctx *ctx, const struct fsc_traits *tr,
                    const struct fsc_sample *smp, union fsc_value prev, bool prev_f64,
                    uint32_t held)
{
    struct fsc_event ev =
        fsc_det_event(FSC_EV_COUNTER_RESET, FSC_EV_INSTANT, smp->series, tr->direction);
    ev.t_start_ns = smp->t_dev_ns;
    ev.t_end_ns = smp->t_dev_ns;
    fsc_event_add(&ev, FSC_EF_VALUE_BEFORE, prev_f64 ? prev.d : (double)prev.u);
    fsc_event_add(&ev, FSC_EF_VALUE_AFTER,
                  (smp->flags & FSC_SMP_F64) ? smp->v.d : (double)smp->v.u);
    fsc_event_add(&ev, FSC_EF_HELD_BACK_RESETS, held);
    fsc_event_add(&ev, FSC_EF_CAUSE, (smp->flags & FSC_SMP_RESET) ? 1 : 0);
    fsc_det_publish(ctx, &ev);
}

/* Contract in engine_int.h. Thread: ingest, engine lock held. */
void fsc_reset_event(const struct fsc_det_ctx *ctx, struct fsc_reset_slot *tab,
                     uint64_t *suppressed, const struct fsc_traits *tr,
                     const struct fsc_sample *smp, union fsc_value prev, bool prev_f64)
{
    const int64_t every = ctx->cfg->reset_event_every_ns;
    const int64_t now = limiter_now(smp);
    const uint32_t key = smp->series + 1, mask = FSC_RESET_SLOTS - 1;

    if (every <= 0 || tab == NULL) {
        publish(ctx, tr, smp, prev, prev_f64, 0);
        return;
    }
    /* Dense ids: a multiplicative hash spreads neighbours over the table. */
    const uint32_t first = (uint32_t)(key * 2654435761u) & mask;
    struct fsc_reset_slot *free_slot = NULL;
    for (uint32_t k = 0; k < FSC_RESET_PROBE; k++) {
        struct fsc_reset_slot *sl = &tab[(first + k) & mask];
        if (sl->key == key) {
            if (slot_recent(sl, now, every)) {
                sl->held++;
                (*suppressed)++;
                return;
            }
            publish(ctx, tr, smp, prev, prev_f64, sl->held);
            *sl = (struct fsc_reset_slot){.key = key, .held = 0, .t_ns = now};
            return;
        }
        if (!free_slot && !slot_recent(sl, now, every))
            free_slot = sl;
    }
    if (!free_slot) {
        (*suppressed)++; /* the whole window is busy: a storm */
        return;
    }
    /* Not remembered (never reset, or its entry expired and was reused). */
    publish(ctx, tr, smp, prev, prev_f64, 0);
    *free_slot = (struct fsc_reset_slot){.key = key, .held = 0, .t_ns = now};
}
