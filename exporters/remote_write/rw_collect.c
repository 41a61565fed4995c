/* The reader: engine views -> queued samples (contract in rw_int.h).
 *
 * Which series yield what (the same choices as the /metrics renderer,
 * exporters/prometheus/prom_series.c, so a TSDB fed by remote_write and one
 * that scrapes see the same names):
 * - counters: every series with a value, raw as the device reports it
 *   (microsecond counters in seconds, as their _seconds_total name says; a
 *   family the table renames to a base unit scaled as its name says);
 * - window_rates: port bytes (rx/tx) -> fabric_port_bytes_per_second and,
 *   with a link speed, fabric_port_utilization_ratio; counters feeding a
 *   detector -> their rate family (<counter>_per_second): every window of the first
 *   width the engine emits, once, stamped with that window's end (the
 *   journal, below; a window the engine withholds is not sent either);
 * - fine_rates: the same series' fine-interval rates, stamped with each
 *   interval's end (when its value became true: for periodic copies the
 *   copy instant), under fabric_port_fine_bytes_per_second /
 *   <counter>_fine_per_second. A series that updates no faster than the
 *   reading period (its update period >= resolution: 2 s copies read every
 *   second) sends every fine interval once, through the journal (below):
 *   after a stall the engine applies seconds of buffered samples between
 *   two readings, and a reading of the views would see only the newest of
 *   them (CI lost two fine rates of a 2 s Junos copy that way). A faster
 *   series sends the newest fine rate of each reading, read from its view.
 * A series queues a raw or polled fine sample only when its time moved since
 * the previous reading, so a reading period at or below the sampling period
 * sees every sample once, and an idle collector sends nothing. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "remote_write/rw_int.h"

#define NS_PER_MS 1000000

/* Journal growth step floor (samples). */
#define JOURNAL_MIN_CAP 4096

/* A counter whose rate the /metrics renderer shows (its rate family). */
static int detector_signal(uint8_t signal, uint8_t kind)
{
    switch (signal) {
    case FSC_SIG_CNP:
    case FSC_SIG_ECN:
    case FSC_SIG_REORDER:
    case FSC_SIG_PFC_PAUSE_DURATION:
    case FSC_SIG_PFC_PAUSE_FRAMES:
    case FSC_SIG_BUFFER_THRESHOLD:
        return kind == FSC_KIND_COUNTER;
    default:
        return 0;
    }
}

static int port_signal(uint8_t signal, uint8_t direction)
{
    return signal == FSC_SIG_PORT_BYTES && (direction == FSC_DIR_RX || direction == FSC_DIR_TX);
}

static double unit_divisor_of(uint8_t unit)
{
    return fsc_unit_divisor(unit);
}

/* Milliseconds of a device time, rounded down. */
static int64_t to_ms(int64_t t_ns);

/* Appends k samples to the journal (growing by doubling up to jr->max;
 * beyond it they are dropped and counted). Thread: any. */
static void journal_put(struct fsc_rw_journal *jr, const struct fsc_rw_sample *s, size_t k)
{
    pthread_mutex_lock(&jr->mu);
    if (jr->n + k > jr->cap && jr->cap < jr->max) {
        size_t cap = jr->cap ? jr->cap * 2 : JOURNAL_MIN_CAP;
        cap = cap > jr->max ? jr->max : cap;
        struct fsc_rw_sample *p = realloc(jr->pend, cap * sizeof(*p));
        if (p) {
            jr->pend = p;
            jr->cap = cap;
        }
    }
    if (jr->n + k <= jr->cap) {
        memcpy(jr->pend + jr->n, s, k * sizeof(*s));
        jr->n += k;
    } else {
        jr->dropped += k;
    }
    pthread_mutex_unlock(&jr->mu);
}

/* Whether a series' fine rates go through the journal (every interval)
 * rather than the views (the newest per reading): see the top comment. */
static int fine_journaled(const struct fsc_rw_reader *rd, int64_t update_period_ns)
{
    return rd->resolution_ns > 0 && update_period_ns >= rd->resolution_ns;
}

/* The engine's fine listener: runs on an ingest thread under the engine
 * lock, so it only appends. */
static void rw_on_fine(void *arg, fsc_series_id id, const struct fsc_traits *tr, int64_t t_ns,
                       double rate)
{
    struct fsc_rw_reader *rd = arg;
    int port = port_signal(tr->signal, tr->direction);
    if (!port && !detector_signal(tr->signal, tr->kind))
        return;
    if (!fine_journaled(rd, fsc_rate_update_period(tr)))
        return;
    struct fsc_rw_sample s = {.id = id,
                              .what = port ? FSC_RW_FINE_PORT_RATE : FSC_RW_FINE_RATE,
                              .dir = tr->direction,
                              .t_ms = to_ms(t_ns),
                              .value = port ? rate : rate / unit_divisor_of(tr->unit)};
    journal_put(&rd->jr, &s, 1);
}

/* The engine's window listener: runs on an ingest thread under the engine
 * lock, so it only appends. */
static void rw_on_window(void *arg, fsc_series_id id, const struct fsc_traits *tr, unsigned level,
                         int64_t t_end_ns, double rate)
{
    struct fsc_rw_reader *rd = arg;
    if (level != fsc_rate_base_level(&rd->rate, tr))
        return; /* the series' rate level only, as /metrics shows it */
    struct fsc_rw_sample s[2];
    size_t k = 0;
    int64_t t_ms = to_ms(t_end_ns);
    if (port_signal(tr->signal, tr->direction)) {
        s[k++] = (struct fsc_rw_sample){
            .id = id, .what = FSC_RW_PORT_RATE, .dir = tr->direction, .t_ms = t_ms, .value = rate};
        if (tr->link_speed_bps > 0)
            s[k++] = (struct fsc_rw_sample){.id = id,
                                            .what = FSC_RW_PORT_UTIL,
                                            .dir = tr->direction,
                                            .t_ms = t_ms,
                                            .value = rate * 8.0 / (double)tr->link_speed_bps};
    } else if (detector_signal(tr->signal, tr->kind)) {
        s[k++] = (struct fsc_rw_sample){.id = id,
                                        .what = FSC_RW_DET_RATE,
                                        .dir = tr->direction,
                                        .t_ms = t_ms,
                                        .value = rate / unit_divisor_of(tr->unit)};
    } else {
        return;
    }
    journal_put(&rd->jr, s, k);
}

int fsc_rw_reader_init(struct fsc_rw_reader *rd, struct fsc_registry *reg, struct fsc_engine *eng,
                       uint32_t series, int64_t window_ns, const struct fsc_rate_params *rate,
                       int64_t resolution_ns, size_t journal_max)
{
    memset(rd, 0, sizeof(*rd));
    if (rate)
        rd->rate = *rate;
    else
        rd->rate = (struct fsc_rate_params){.window_ns = {window_ns}, .n_windows = 1};
    rd->reg = reg;
    rd->eng = eng;
    rd->series = series;
    rd->window_ns = window_ns;
    rd->resolution_ns = resolution_ns;
    rd->jr.max = journal_max > 2 ? journal_max : 2;
    if (pthread_mutex_init(&rd->jr.mu, NULL) != 0)
        return -ENOMEM;
    rd->ids = malloc(FSC_RW_CHUNK * sizeof(*rd->ids));
    rd->views = malloc(FSC_RW_CHUNK * sizeof(*rd->views));
    rd->out = malloc(FSC_RW_PER_SERIES * FSC_RW_CHUNK * sizeof(*rd->out));
    if (!rd->ids || !rd->views || !rd->out) {
        fsc_rw_reader_free(rd);
        return -ENOMEM;
    }
    if ((series & FSC_RW_SERIES_WINDOW_RATES) && window_ns > 0) {
        int rc = fsc_engine_add_window_listener(eng, rw_on_window, rd);
        if (rc != 0) {
            fsc_rw_reader_free(rd);
            return rc;
        }
        rd->listening = 1;
    }
    if ((series & FSC_RW_SERIES_FINE_RATES) && resolution_ns > 0) {
        int rc = fsc_engine_add_fine_listener(eng, rw_on_fine, rd);
        if (rc != 0) {
            fsc_rw_reader_free(rd);
            return rc;
        }
        rd->listening_fine = 1;
    }
    return 0;
}

void fsc_rw_reader_free(struct fsc_rw_reader *rd)
{
    if (rd->listening)
        fsc_engine_remove_window_listener(rd->eng, rw_on_window, rd);
    if (rd->listening_fine)
        fsc_engine_remove_fine_listener(rd->eng, rw_on_fine, rd);
    free(rd->seen);
    free(rd->ids);
    free(rd->views);
    free(rd->out);
    free(rd->jr.pend);
    free(rd->drain);
    fsc_rw_names_free(&rd->names);
    pthread_mutex_destroy(&rd->jr.mu);
    memset(rd, 0, sizeof(*rd));
}

uint64_t fsc_rw_reader_dropped(struct fsc_rw_reader *rd)
{
    pthread_mutex_lock(&rd->jr.mu);
    uint64_t d = rd->jr.dropped;
    pthread_mutex_unlock(&rd->jr.mu);
    return d;
}

/* Grows the per-series table to n entries (registry ids only grow). */
static int seen_grow(struct fsc_rw_reader *rd, size_t n)
{
    if (n <= rd->n_seen)
        return 0;
    struct fsc_rw_seen *p = realloc(rd->seen, n * sizeof(*p));
    if (!p)
        return -ENOMEM;
    for (size_t i = rd->n_seen; i < n; i++)
        p[i] = (struct fsc_rw_seen){INT64_MIN, INT64_MIN};
    rd->seen = p;
    rd->n_seen = n;
    return 0;
}

/* Floor division for device times (negative ones included). */
static int64_t floor_to(int64_t t, int64_t w)
{
    int64_t r = t % w;
    return t - (r < 0 ? r + w : r);
}

static int64_t to_ms(int64_t t_ns)
{
    return floor_to(t_ns, NS_PER_MS) / NS_PER_MS;
}

static double unit_divisor(const struct fsc_series_view *v)
{
    return unit_divisor_of(v->unit);
}

static struct fsc_rw_sample *put(struct fsc_rw_reader *rd, size_t *n, fsc_series_id id,
                                 uint8_t what, const struct fsc_series_view *v, int64_t t_ns,
                                 double value)
{
    /* read_series yields at most FSC_RW_PER_SERIES samples per series and
     * a chunk has at most FSC_RW_CHUNK series: rd->out has room for all. */
    assert(*n < (size_t)FSC_RW_PER_SERIES * FSC_RW_CHUNK);
    struct fsc_rw_sample *s = &rd->out[(*n)++];
    *s = (struct fsc_rw_sample){
        .id = id, .what = what, .dir = v->direction, .t_ms = to_ms(t_ns), .value = value};
    return s;
}

/* What one series yields; appends to rd->out (FSC_RW_PER_SERIES at most:
 * raw counter, window rate, utilization, fine rate of a port-bytes series). */
static void read_series(struct fsc_rw_reader *rd, fsc_series_id id, const struct fsc_series_view *v,
                        size_t *n)
{
    struct fsc_rw_seen *sn = &rd->seen[id];
    if (!v->present || !v->has_value)
        return;
    if ((rd->series & FSC_RW_SERIES_COUNTERS) && v->t_last_ns != sn->t_raw) {
        double raw = v->is_f64 ? v->value.d : (double)v->value.u;
        int counter = v->kind == FSC_KIND_COUNTER && v->expo == FSC_EXPO_DEFAULT;
        const char *metric = fsc_registry_metric(rd->reg, id);
        const struct fsc_metric_family *mf = metric ? fsc_rw_family(&rd->names, metric) : NULL;
        double scale = mf && mf->scale != 0 ? mf->scale : 1.0;
        put(rd, n, id, counter ? FSC_RW_RAW_COUNTER : FSC_RW_RAW_GAUGE, v, v->t_last_ns,
            raw / unit_divisor(v) * scale);
        sn->t_raw = v->t_last_ns;
    }
    int port = port_signal(v->signal, v->direction);
    int det = !port && detector_signal(v->signal, v->kind);
    if (!port && !det)
        return;
    if ((rd->series & FSC_RW_SERIES_FINE_RATES) && v->t_value_ns != sn->t_fine &&
        !fine_journaled(rd, v->update_period_ns)) {
        /* The first reading of a series may see only its baseline (no
         * interval yet): it sets the mark and sends nothing. */
        if (sn->t_fine != INT64_MIN && v->fine_rate >= 0)
            put(rd, n, id, port ? FSC_RW_FINE_PORT_RATE : FSC_RW_FINE_RATE, v, v->t_value_ns,
                v->fine_rate / (port ? 1.0 : unit_divisor(v)));
        sn->t_fine = v->t_value_ns;
    }
}

long fsc_rw_read(struct fsc_rw_reader *rd,
                 void (*emit)(void *arg, const struct fsc_rw_sample *s, size_t n), void *arg)
{
    uint32_t count = fsc_registry_count(rd->reg);
    int rc = 0;
    if (seen_grow(rd, count) != 0) {
        rc = -ENOMEM;
        count = (uint32_t)rd->n_seen;
    }
    long total = 0;
    /* The windows completed since the previous reading, swapped out whole. */
    pthread_mutex_lock(&rd->jr.mu);
    struct fsc_rw_sample *w = rd->jr.pend;
    size_t nw = rd->jr.n, wcap = rd->jr.cap;
    rd->jr.pend = rd->drain;
    rd->jr.cap = rd->drain_cap;
    rd->jr.n = 0;
    pthread_mutex_unlock(&rd->jr.mu);
    rd->drain = w;
    rd->drain_cap = wcap;
    if (nw > 0) {
        emit(arg, w, nw);
        total += (long)nw;
    }
    for (uint32_t base = 0; base < count; base += FSC_RW_CHUNK) {
        size_t m = count - base < FSC_RW_CHUNK ? count - base : FSC_RW_CHUNK;
        for (size_t i = 0; i < m; i++)
            rd->ids[i] = base + (fsc_series_id)i;
        fsc_engine_view_ids(rd->eng, rd->ids, m, rd->views);
        size_t n = 0;
        for (size_t i = 0; i < m; i++)
            read_series(rd, rd->ids[i], &rd->views[i], &n);
        if (n > 0) {
            emit(arg, rd->out, n);
            total += (long)n;
        }
    }
    return rc != 0 ? rc : total;
}
