/* PFC pause storms (docs/DESIGN.md, "Detectors and events").
 *
 * Where the device counts paused time (mlx5 rx_prio{p}_pause_duration in µs,
 * Cumulus sp_rx_pause_duration), the paused fraction of each fine interval is
 * the honest measure: 0.3 means the port could not send for 30 % of that
 * interval, whatever the frame count. Where only pause frames are counted,
 * their rate is compared with a frames-per-second bar. Both use the spike
 * detector's rise / fall hysteresis; PFC has no baseline, because any sustained
 * pausing is a problem in a lossless fabric, not only an unusual amount. */
#include "engine/engine_int.h"

/* Thread: ingest, engine lock held. Gap intervals are ignored. */
void fsc_pfc_interval(const struct fsc_det_ctx *ctx, struct fsc_spike_state *st, fsc_series_id id,
                      const struct fsc_traits *tr, const struct fsc_interval *iv)
{
    const struct fsc_pfc_config *pc = &ctx->cfg->pfc;
    double span_s = (double)(iv->t1_ns - iv->t0_ns) / 1e9;
    double value, amount;
    bool high;

    if (iv->gap || span_s <= 0)
        return;
    if (tr->signal == FSC_SIG_PFC_PAUSE_DURATION) {
        double paused_s;
        if (tr->unit == FSC_UNIT_MICROSECONDS)
            paused_s = iv->delta * 1e-6;
        else if (tr->unit == FSC_UNIT_SECONDS)
            paused_s = iv->delta;
        else
            return; /* a duration in an unknown unit is not a fraction we can judge */
        value = paused_s / span_s;
        amount = paused_s;
        high = value > pc->paused_fraction;
    } else if (tr->signal == FSC_SIG_PFC_PAUSE_FRAMES) {
        value = iv->rate;
        amount = iv->delta;
        high = value > pc->frames_per_second;
    } else {
        return;
    }

    enum fsc_hyst_step step =
        fsc_hyst_step(&st->h, high, value, amount, iv, pc->rise_intervals, pc->fall_intervals,
                      ctx->cfg->microburst.update_every_ns);
    if (step == FSC_HYST_NONE)
        return;
    enum fsc_event_phase phase = step == FSC_HYST_START    ? FSC_EV_START
                                 : step == FSC_HYST_UPDATE ? FSC_EV_UPDATE
                                                           : FSC_EV_END;
    struct fsc_event ev = fsc_det_event(FSC_EV_PFC_STORM, phase, id, tr->direction);
    ev.t_start_ns = st->h.t_start;
    ev.t_end_ns = step == FSC_HYST_END ? st->h.t_high_end : 0;
    if (tr->signal == FSC_SIG_PFC_PAUSE_DURATION) {
        fsc_event_add(&ev, FSC_EF_PEAK_PAUSED_FRACTION, st->h.peak);
        fsc_event_add(&ev, FSC_EF_PAUSED_SECONDS, st->h.amount);
    } else {
        fsc_event_add(&ev, FSC_EF_PEAK_PAUSE_FRAMES_RATE, st->h.peak);
        fsc_event_add(&ev, FSC_EF_PAUSE_FRAMES, st->h.amount);
    }
    if (step == FSC_HYST_START)
        st->n_events++;
    fsc_det_publish(ctx, &ev);
}
