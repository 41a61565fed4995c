/* When the renderer leaves a series out as stale (prom_render_int.h).
 *
 * Staleness, decided per series on the local clock only:
 * - value lines need an accepted sample (has_value);
 * - a series whose device time t_last has not moved for stale_after of
 *   local time (now_ns, compared only with earlier now_ns: the renderer
 *   notes when it saw each series' t_last change) is left out entirely,
 *   until its time moves again. Device times are never compared with
 *   anything but the same series' earlier ones, so no series can hide
 *   another: neither a device clock off by any amount nor one point dated
 *   2200 (with the source's newest device time as the reference, one future
 *   point would hide every other series of its source);
 * - a series with engine state but no accepted sample yet (traits set by
 *   its source) shows only its detector counters and histograms, at 0, so
 *   rate() sees a port's first microburst as an increase; it is left out
 *   once no series of its source has moved for stale_after (the source is
 *   gone). */
#include "prometheus/prom_render_int.h"

/* t_last folded to 32 bits: a change of t_last keeps the fold unless it is
 * a multiple of 2^32 ns in the low word that the high word's change
 * cancels, which no device clock moving forward in real steps does. */
static uint32_t fold_time(int64_t t)
{
    uint64_t u = (uint64_t)t;
    return (uint32_t)u ^ (uint32_t)(u >> 32) * 0x9e3779b1u;
}

int fsc_prom_stale(struct fsc_prom_renderer *r, fsc_series_id id, const struct fsc_series_view *v)
{
    struct fsc_prom_series *ps = &r->ix.ser[id];
    struct fsc_prom_src *s = ps->source < r->n_src ? &r->src[ps->source] : NULL;
    if (!v->has_value) /* no time of its own: it goes with its source */
        return s && s->seen && r->now_ns - s->moved_at > r->stale_after_ns;
    uint32_t f = fold_time(v->t_last_ns);
    if (!ps->seen || ps->t_fold != f) {
        ps->seen = 1;
        ps->t_fold = f;
        ps->moved_at = r->now_ns;
        if (s) {
            s->moved_at = r->now_ns;
            s->seen = 1;
        }
        return 0;
    }
    return r->now_ns - ps->moved_at > r->stale_after_ns;
}

/* After a render: a source seen for the first time counts as moved now
 * (prom_render_int.h). */
void fsc_prom_stale_settle(struct fsc_prom_renderer *r)
{
    for (size_t i = 0; i < r->n_src; i++) {
        struct fsc_prom_src *s = &r->src[i];
        if (!s->seen) {
            s->moved_at = r->now_ns;
            s->seen = 1;
        }
    }
}
