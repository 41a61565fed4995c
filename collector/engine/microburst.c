/* Microbursts and bursts (docs/DESIGN.md, "Detectors and events"), plus the switch- and NIC-side
 * evidence that stands in for them when rate sampling is too coarse.
 *
 * Fine utilization u = bytes*8/s / link speed of each non-gap interval. A
 * burst starts at the first interval with u >= rise and ends at the first with
 * u < fall (hysteresis, like the vendors' hardware burst monitors): it spans
 * [t0 of its first high interval, t0 of the first low one]. Gap intervals are
 * skipped entirely: a burst cannot be located inside one, so it neither starts
 * nor ends a burst.
 *
 * Kind. Whether a burst is a *micro*burst (shorter than micro_max, invisible
 * in a 1 s average) is only known once it ends or outlives micro_max. So the
 * START of a microburst is published when it ends (it carries the true start
 * time), while a burst that reaches micro_max publishes START as FSC_EV_BURST
 * right then, then UPDATE every update_every_ns. This keeps START and END of
 * one burst the same kind, and stats.events counts each burst once under the
 * right kind.
 *
 * Edges. A burst rarely starts or ends on a sample: the interval holding
 * its start, and the one holding its end, carry part burst and part base
 * traffic. With the burst at its peak utilization P over a base b (the
 * least of the port's last level-0 window before the burst and the two edge
 * intervals' utilizations), an edge interval at
 * utilization u holds the burst for the share f = (u - b) / (P - b) of its
 * span, so the burst starts f x span before the end of its first interval
 * (or, when that one is wholly inside, f x span into the interval before,
 * whose utilization the engine hands over) and ends f x span into the
 * interval that ended it; its bytes are those at P over that time in the
 * edge intervals plus the high intervals' in between. Without this a 50 ms
 * burst polled every 20 ms lost a fifth of its bytes and up to an interval
 * of its duration (tests/scenarios). A burst that is not flat at its peak
 * is placed as if it were: its bytes then lean high.
 *
 * Context. The END event carries the utilization of the aligned windows of
 * levels 0 and 1 (1 s and 10 s by default) that contain the burst's last
 * instant, so an operator sees "100 % for 100 ms inside a 4 % second". Those
 * windows usually complete after the burst, so the END waits for them
 * (fsc_mb_window) and is flushed with what is known when a second burst ends
 * first. */
#include <math.h>

#include "engine/engine_int.h"
#include "engine/xsrc.h"

/* The end edge of the aligned window of length w that contains the instant
 * just before t: the smallest multiple of w that is >= t. */
static int64_t window_end_at_or_after(int64_t t, int64_t w)
{
    int64_t q = t / w;
    if (q * w < t)
        q++;
    return q * w;
}

static void mb_publish_end(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                           const struct fsc_traits *tr)
{
    struct fsc_event ev = fsc_det_event(st->p_kind, FSC_EV_END, id, tr->direction);
    ev.t_start_ns = st->p_start;
    ev.t_end_ns = st->p_end;
    fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, st->p_peak);
    fsc_event_add(&ev, FSC_EF_BYTES, st->p_bytes);
    for (unsigned l = 0; l < FSC_MB_LEVELS; l++)
        if (st->p_util[l] >= 0) /* -1: that window was never emitted */
            fsc_event_add_aux(&ev, FSC_EF_WINDOW_UTILIZATION, l, st->p_util[l]);
    /* Late on purpose: a 2 s peer has usually reported the burst by now. */
    fsc_xsrc_annotate(ctx->xs, &ev, tr, st->p_start, st->p_end);
    fsc_det_publish(ctx, &ev);
    st->pending = 0;
}

/* Tries to fill the pending END's context for `level` from a completed
 * window ending at t_win. A later window means the one we wanted was never
 * emitted (baseline restart, a very long interval): unknown, -1. */
static void mb_resolve(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st,
                       const struct fsc_traits *tr, unsigned level, int64_t t_win, double rate)
{
    uint8_t bit = (uint8_t)(1u << level);
    if (st->p_resolved & bit)
        return;
    int64_t want = window_end_at_or_after(st->p_end, ctx->cfg->rate.window_ns[level]);
    if (t_win < want)
        return;
    st->p_util[level] = t_win == want ? (float)fsc_det_util(tr, rate) : -1.0f;
    st->p_resolved |= bit;
}

static void mb_maybe_flush(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                           const struct fsc_traits *tr)
{
    if (st->pending && st->p_resolved == (1u << FSC_MB_LEVELS) - 1)
        mb_publish_end(ctx, st, id, tr);
}

/* START or UPDATE of the burst known to last until t_known. */
static void mb_publish_progress(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st,
                                fsc_series_id id, const struct fsc_traits *tr,
                                enum fsc_event_kind kind, enum fsc_event_phase phase,
                                int64_t t_known)
{
    struct fsc_event ev = fsc_det_event(kind, phase, id, tr->direction);
    ev.t_start_ns = st->t_start;
    fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, st->peak);
    fsc_event_add(&ev, FSC_EF_BYTES, st->bytes);
    fsc_xsrc_annotate(ctx->xs, &ev, tr, st->t_start, t_known);
    fsc_det_publish(ctx, &ev);
}

/* Called at the end of each high interval (t_now = its t1): START for a burst
 * that just reached micro_max, then an UPDATE each update_every after that. */
static void mb_progress(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                        const struct fsc_traits *tr, int64_t t_now)
{
    const struct fsc_microburst_config *mc = &ctx->cfg->microburst;
    int64_t age = t_now - st->t_start;

    /* The burst lasts at least until t_now, for the peer's events. */
    fsc_xsrc_note(ctx->xs, id, FSC_PEER_BURST, st->t_start, t_now, true);
    if (age < mc->micro_max_ns)
        return;
    if (!st->started) {
        mb_publish_progress(ctx, st, id, tr, FSC_EV_BURST, FSC_EV_START, t_now);
        st->n_bursts++;
        st->started = 1;
        st->n_updates = 0;
        return;
    }
    if (mc->update_every_ns <= 0 || st->n_updates == UINT32_MAX)
        return;
    /* Due when the burst is micro_max + (n + 1) x update_every old; the
     * division keeps a burst that spans several periods in one interval to
     * one UPDATE. */
    uint64_t due = (uint64_t)(age - mc->micro_max_ns) / (uint64_t)mc->update_every_ns;
    if (due > st->n_updates) {
        st->n_updates = due > UINT32_MAX ? UINT32_MAX : (uint32_t)due;
        mb_publish_progress(ctx, st, id, tr, FSC_EV_BURST, FSC_EV_UPDATE, t_now);
    }
}

/* Share of an edge interval at utilization u that the burst filled; within
 * 0.1 % of empty or full it is taken as such, so that samples on the burst's
 * edges place it exactly there. */
static double edge_share(double u, double base, double peak)
{
    double f = (u - base) / (peak - base);
    return f < 0.001 ? 0 : f > 0.999 ? 1 : f;
}

/* s seconds as ns, rounded. */
static int64_t ns_of(double s)
{
    return (int64_t)llround(s * 1e9);
}

/* Where the burst that `post` (the first interval under fall) ended really
 * started and ended, and its bytes ("Edges" above). */
static void mb_edges(const struct fsc_mb_state *st, const struct fsc_traits *tr,
                     const struct fsc_interval *post, int64_t *start, int64_t *end, double *bytes)
{
    const double peak = st->peak, line = (double)tr->link_speed_bps / 8.0;
    /* The base: no more than the window before, nor than either edge
     * interval (each holds base traffic at least; a window may hold an
     * earlier burst). */
    const double u_post = fsc_det_util(tr, post->rate);
    double base = u_post;
    if (st->base_u >= 0 && st->base_u < base)
        base = st->base_u;
    if (st->head_u >= 0 && st->head_u < base)
        base = st->head_u;
    base = base > 0 ? base : 0;
    *start = st->t_start;
    *end = post->t0_ns;
    *bytes = st->bytes;
    if (!(peak - base > 0.05) || !(st->first_span > 0))
        return;                         /* no burst over its base to place */
    const double at_peak = peak * line; /* bytes/s while the burst lasts */
    const double span1 = st->first_span, span_last = st->last_span;
    const bool one = st->t_start + ns_of(span1) >= post->t0_ns - 1000; /* one high interval */
    const double f1 = edge_share(st->first_u, base, peak);
    const double f_last = edge_share(st->last_u, base, peak);
    const double span_post = (double)(post->t1_ns - post->t0_ns) / 1e9;
    const double f_post = post->t1_ns > post->t0_ns ? edge_share(u_post, base, peak) : 0;
    const double f_head = st->head_u >= 0 ? edge_share(st->head_u, base, peak) : 0;
    if (one) {
        /* A burst inside one interval (and its neighbours' edges): its
         * time in that interval is known, not where; put it in the middle
         * unless a neighbour shows which side it reached. */
        double in = f1 * span1, head = f1 > 0.999 ? f_head * span1 : 0;
        double tail = f1 > 0.999 ? f_post * span_post : 0;
        double lead = f1 > 0.999 ? 0 : (span1 - in) / 2;
        if (f1 > 0.999) { /* the interval's own bytes, measured, and the edges' */
            *start = st->t_start - ns_of(head);
            *end = post->t0_ns + ns_of(tail);
            *bytes = st->bytes + (head + tail) * at_peak;
        } else {
            *start = st->t_start + ns_of(lead);
            *end = *start + ns_of(in);
            *bytes = in * at_peak;
        }
        return;
    }
    double b = st->bytes;
    if (f1 < 0.999) { /* the burst began inside its first interval */
        *start = st->t_start + ns_of((1 - f1) * span1);
        b += f1 * span1 * at_peak - st->first_u * span1 * line;
    } else { /* or inside the one before */
        *start = st->t_start - ns_of(f_head * span1);
        b += f_head * span1 * at_peak;
    }
    if (f_last < 0.999) { /* it ended inside its last high interval */
        *end = post->t0_ns - ns_of((1 - f_last) * span_last);
        b += f_last * span_last * at_peak - st->last_u * span_last * line;
    } else { /* or inside the one that ended it */
        *end = post->t0_ns + ns_of(f_post * span_post);
        b += f_post * span_post * at_peak;
    }
    *bytes = b > 0 ? b : st->bytes;
}

static void mb_end(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                   const struct fsc_traits *tr, const struct fsc_interval *post)
{
    const struct fsc_engine_config *cfg = ctx->cfg;
    int64_t t_end;
    double bytes;
    if (!st->started) {
        /* The START goes out now: it carries the placed start. */
        mb_edges(st, tr, post, &st->t_start, &t_end, &bytes);
    } else {
        int64_t ignored;
        mb_edges(st, tr, post, &ignored, &t_end, &bytes);
    }
    st->bytes = bytes;
    /* Once a BURST START is out, the END must match it whatever the clock says. */
    enum fsc_event_kind kind = !st->started && t_end - st->t_start < cfg->microburst.micro_max_ns
                                   ? FSC_EV_MICROBURST
                                   : FSC_EV_BURST;

    st->active = 0;
    fsc_xsrc_note(ctx->xs, id, FSC_PEER_BURST, st->t_start, t_end, false);
    /* The previous burst's context windows never came in time: flush it so
     * its END is not overwritten, with -1 for what is still unknown. */
    if (st->pending)
        mb_publish_end(ctx, st, id, tr);
    if (!st->started)
        mb_publish_progress(ctx, st, id, tr, kind, FSC_EV_START, t_end);
    if (kind == FSC_EV_MICROBURST) {
        /* Its duration is final now, the moment its START is counted: the
         * histogram's count stays equal to the microburst count even while
         * the END waits for its context windows. */
        int64_t dur_ns = t_end - st->t_start;
        st->dur[fsc_hist_index(fsc_duration_bucket_le, FSC_DURATION_BUCKETS,
                               (double)dur_ns / 1e9)]++;
        st->dur_sum_ns += (uint64_t)dur_ns;
    }

    st->pending = 1;
    st->p_start = st->t_start;
    st->p_end = t_end;
    st->p_peak = st->peak;
    st->p_bytes = (float)st->bytes;
    st->p_kind = (uint8_t)kind;
    st->p_resolved = 0;
    for (unsigned level = 0; level < FSC_MB_LEVELS; level++) {
        st->p_util[level] = -1.0f;
        if (level >= cfg->rate.n_windows || fsc_rate_update_period(tr) > cfg->rate.window_ns[level])
            /* No such window, or one the series never emits (shorter than
             * its update period, rate.h rule 9): stays -1. */
            st->p_resolved |= (uint8_t)(1u << level);
        else if (st->win_t[level] != 0)
            mb_resolve(ctx, st, tr, level, st->win_t[level], st->win_rate[level]);
    }
    mb_maybe_flush(ctx, st, id, tr);
}

/* Returns whether a burst is in progress afterwards. Thread: ingest, engine
 * lock held. */
bool fsc_mb_interval(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                     const struct fsc_traits *tr, const struct fsc_interval *iv, double prev_rate)
{
    const struct fsc_microburst_config *mc = &ctx->cfg->microburst;

    if (!st->active) {
        if (fsc_mb_idle_ignores(ctx, tr, iv))
            return false;
        double u = fsc_det_util(tr, iv->rate);
        st->active = 1;
        st->started = 0;
        st->t_start = iv->t0_ns;
        st->peak = (float)u;
        st->bytes = iv->delta;
        st->head_u = prev_rate >= 0 ? (float)fsc_det_util(tr, prev_rate) : -1.0f;
        st->first_u = st->last_u = (float)u;
        st->first_span = st->last_span = (float)((double)(iv->t1_ns - iv->t0_ns) / 1e9);
        /* The base: the last level-0 window the series completed (or level
         * 1 when level 0 is withheld for it). */
        unsigned lb = fsc_rate_update_period(tr) > ctx->cfg->rate.window_ns[0] ? 1 : 0;
        st->base_u = st->win_t[lb] != 0 ? (float)fsc_det_util(tr, st->win_rate[lb]) : -1.0f;
        mb_progress(ctx, st, id, tr, iv->t1_ns);
        return true;
    }
    if (iv->gap)
        return true;
    double u = fsc_det_util(tr, iv->rate);
    if (u < 0)
        return true;
    if (u < mc->fall) {
        mb_end(ctx, st, id, tr, iv);
        return false;
    }
    if (u > st->peak)
        st->peak = (float)u;
    st->bytes += iv->delta;
    st->last_u = (float)u;
    st->last_span = (float)((double)(iv->t1_ns - iv->t0_ns) / 1e9);
    mb_progress(ctx, st, id, tr, iv->t1_ns);
    return true;
}

/* Thread: ingest, engine lock held. */
void fsc_mb_window(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                   const struct fsc_traits *tr, unsigned level, int64_t t_end_ns, double rate)
{
    if (level >= FSC_MB_LEVELS)
        return;
    st->win_t[level] = t_end_ns;
    st->win_rate[level] = (float)rate;
    if (st->pending) {
        mb_resolve(ctx, st, tr, level, t_end_ns, rate);
        mb_maybe_flush(ctx, st, id, tr);
    }
}

/* One event per crossing of the bar: a peak that stays high is one
 * congestion episode, not one per sample. Both kinds of queue peak (a
 * watermark or histogram occupancy in bytes, a histogram latency in
 * seconds) are FSC_EV_QUEUE_PEAK events; `field` says which figure the
 * event carries, and the series (the exporter's `counter` label) which
 * counter showed it. Thread: ingest. */
static void evid_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st, fsc_series_id id,
                      const struct fsc_traits *tr, int64_t t_ns, double value, double bar,
                      enum fsc_event_field_id field)
{
    if (!(value > bar)) { /* NaN re-arms too: it shows no peak */
        if (st->above)
            fsc_xsrc_close(ctx->xs, id, FSC_PEER_QUEUE_PEAK);
        st->above = 0; /* re-armed */
        return;
    }
    /* Every sample above extends the episode a peer's burst is compared
     * with; only the crossing is an event. */
    fsc_xsrc_note(ctx->xs, id, FSC_PEER_QUEUE_PEAK, t_ns, t_ns, true);
    if (st->above)
        return;
    st->above = 1;
    struct fsc_event ev = fsc_det_event(FSC_EV_QUEUE_PEAK, FSC_EV_INSTANT, id, tr->direction);
    ev.t_start_ns = t_ns;
    ev.t_end_ns = t_ns;
    fsc_event_add(&ev, field, value);
    if (field == FSC_EF_QUEUE_PEAK_BYTES)
        fsc_event_add(&ev, FSC_EF_BUFFER_SHARE, value / (double)tr->buffer_bytes);
    fsc_xsrc_annotate(ctx->xs, &ev, tr, t_ns, t_ns);
    st->t_last = t_ns;
    st->n_events++;
    fsc_det_publish(ctx, &ev);
}

/* Bar: queue_peak_share x the device's buffer; none when the buffer is
 * unknown. Thread: ingest. */
void fsc_evid_queue_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st, fsc_series_id id,
                         const struct fsc_traits *tr, int64_t t_ns, double value)
{
    if (tr->buffer_bytes == 0)
        return;
    double bar = ctx->cfg->microburst.queue_peak_share * (double)tr->buffer_bytes;
    evid_peak(ctx, st, id, tr, t_ns, value, bar, FSC_EF_QUEUE_PEAK_BYTES);
}

/* Bar: microburst.latency_peak. Thread: ingest. */
void fsc_evid_latency_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st,
                           fsc_series_id id, const struct fsc_traits *tr, int64_t t_ns,
                           double value)
{
    double bar = (double)ctx->cfg->microburst.latency_peak_ns / 1e9;
    evid_peak(ctx, st, id, tr, t_ns, value, bar, FSC_EF_QUEUE_LATENCY);
}

/* rx_buffer_passed_thres_phy moved: the NIC's buffer crossed its threshold,
 * which happens only in bursts. At most one event per second per series, so a
 * busy port cannot flood the bus; increments held back are carried into the
 * next event so the amounts still add up. Gap intervals count too: the
 * increments are real even if their timing is coarse. Thread: ingest. */
void fsc_evid_buffer_threshold(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st,
                               fsc_series_id id, const struct fsc_traits *tr,
                               const struct fsc_interval *iv)
{
    const int64_t min_spacing_ns = 1000000000;

    if (!(iv->delta > 0))
        return;
    fsc_xsrc_note(ctx->xs, id, FSC_PEER_BUFFER_THRESHOLD, iv->t0_ns, iv->t1_ns, false);
    if (st->carry == 0)
        st->t_carry = iv->t0_ns;
    st->carry += iv->delta;
    if (st->t_last != 0 && iv->t1_ns - st->t_last < min_spacing_ns)
        return;
    struct fsc_event ev = fsc_det_event(FSC_EV_BUFFER_THRESHOLD, FSC_EV_INSTANT, id, tr->direction);
    ev.t_start_ns = st->t_carry;
    ev.t_end_ns = iv->t1_ns;
    fsc_event_add(&ev, FSC_EF_CROSSINGS, st->carry);
    fsc_event_add(&ev, FSC_EF_CROSSINGS_PER_SECOND, iv->rate);
    fsc_xsrc_annotate(ctx->xs, &ev, tr, st->t_carry, iv->t1_ns);
    st->n_events++;
    fsc_det_publish(ctx, &ev);
    st->carry = 0;
    st->t_last = iv->t1_ns;
}
