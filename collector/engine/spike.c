/* CNP, ECN and reorder spikes (docs/DESIGN.md, "Detectors and events"), and the hysteresis shape
 * they share with the PFC storm detector.
 *
 * A spike is a rate far above what the series normally does. "Normally" is an
 * EWMA baseline of the fine rates seen while nothing is happening; it is
 * frozen during a suspected run of highs and during the spike itself, so a
 * storm cannot raise its own bar and end itself early. The absolute floor
 * keeps a quiet series (baseline near 0) from reporting every blip, and the
 * rise / fall interval counts are the hysteresis that makes one storm one
 * event even when single intervals dip under the threshold. */
#include "engine/engine_int.h"

/* Owns nothing; mutates *h. Returns what the caller must publish. Thread:
 * ingest, engine lock held. */
enum fsc_hyst_step fsc_hyst_step(struct fsc_hyst *h, bool high, double value, double amount,
                                 const struct fsc_interval *iv, unsigned rise, unsigned fall,
                                 int64_t update_every_ns)
{
    if (!h->active) {
        if (!high) {
            h->n_high = 0;
            return FSC_HYST_NONE;
        }
        if (h->n_high == 0) {
            h->t_start = iv->t0_ns;
            h->peak = value;
            h->amount = 0;
        }
        h->n_high++;
        if (value > h->peak)
            h->peak = value;
        h->amount += amount;
        h->t_high_end = iv->t1_ns;
        if (h->n_high < rise)
            return FSC_HYST_NONE;
        h->active = 1;
        h->n_high = 0;
        h->n_low = 0;
        h->amount_low = 0;
        h->t_update = iv->t1_ns;
        return FSC_HYST_START;
    }

    if (high) {
        /* The lows since the last high turned out to be a dip inside the
         * event: their events belong to it. */
        h->amount += h->amount_low + amount;
        h->amount_low = 0;
        h->n_low = 0;
        if (value > h->peak)
            h->peak = value;
        h->t_high_end = iv->t1_ns;
        if (update_every_ns > 0 && iv->t1_ns - h->t_update >= update_every_ns) {
            h->t_update = iv->t1_ns;
            return FSC_HYST_UPDATE;
        }
        return FSC_HYST_NONE;
    }

    h->n_low++;
    h->amount_low += amount;
    if (h->n_low < fall)
        return FSC_HYST_NONE;
    h->active = 0;
    h->n_low = 0;
    h->n_high = 0;
    h->amount_low = 0;
    return FSC_HYST_END;
}

/* Thread: ingest, engine lock held. Gap intervals are ignored: a storm cannot
 * be located inside one, and their average would drag the baseline. */
void fsc_spike_interval(const struct fsc_det_ctx *ctx, struct fsc_spike_state *st, fsc_series_id id,
                        const struct fsc_traits *tr, const struct fsc_interval *iv)
{
    const struct fsc_spike_config *sc;
    enum fsc_event_kind kind;

    switch (tr->signal) {
    case FSC_SIG_CNP:
        sc = &ctx->cfg->cnp;
        kind = FSC_EV_CNP_SPIKE;
        break;
    case FSC_SIG_ECN:
        sc = &ctx->cfg->ecn;
        kind = FSC_EV_ECN_SPIKE;
        break;
    case FSC_SIG_REORDER:
        sc = &ctx->cfg->reorder;
        kind = FSC_EV_REORDER_SPIKE;
        break;
    default:
        return;
    }
    if (iv->gap)
        return;
    if (!st->seeded) {
        st->baseline = iv->rate;
        st->seeded = 1;
        return;
    }

    double bar = sc->factor * st->baseline;
    if (bar < sc->floor)
        bar = sc->floor;
    bool high = iv->rate > bar;
    enum fsc_hyst_step step =
        fsc_hyst_step(&st->h, high, iv->rate, iv->delta, iv, sc->rise_intervals, sc->fall_intervals,
                      ctx->cfg->microburst.update_every_ns);
    if (step == FSC_HYST_NONE) {
        /* Only calm intervals move the baseline. */
        if (!high && !st->h.active)
            st->baseline += sc->ewma_alpha * (iv->rate - st->baseline);
        return;
    }

    static const uint8_t phase[] = {
        [FSC_HYST_START] = FSC_EV_START,
        [FSC_HYST_UPDATE] = FSC_EV_UPDATE,
        [FSC_HYST_END] = FSC_EV_END,
    };
    struct fsc_event ev = fsc_det_event(kind, phase[step], id, tr->direction);
    ev.t_start_ns = st->h.t_start;
    ev.t_end_ns = step == FSC_HYST_END ? st->h.t_high_end : 0;
    fsc_event_add(&ev, FSC_EF_PEAK_RATE, st->h.peak);
    fsc_event_add(&ev, FSC_EF_BASELINE_RATE, st->baseline);
    fsc_event_add(&ev, FSC_EF_COUNT, st->h.amount);
    if (step == FSC_HYST_START)
        st->n_events++;
    fsc_det_publish(ctx, &ev);
}
