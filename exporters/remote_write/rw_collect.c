/* The reader: engine views -> queued samples (contract in rw_int.h).
 *
 * Which series yield what (the same choices as the /metrics renderer,
 * exporters/prometheus/prom_series.c, so a TSDB fed by remote_write and one
 * that scrapes see the same names):
 * - counters: every series with a value, raw as the device reports it
 *   (microsecond counters in seconds, as their _seconds_total name says);
 * - window_rates: port bytes (rx/tx) -> fabric_port_bytes_per_second and,
 *   with a link speed, fabric_port_utilization_ratio; counters feeding a
 *   detector -> fabric_rate_per_second{counter}: the rate of the last
 *   completed window of the first width, stamped with that window's end;
 * - fine_rates: the same series' last fine-interval rate, stamped with the
 *   interval's end (the series' last sample), under
 *   fabric_port_fine_bytes_per_second / fabric_fine_rate_per_second.
 * A series queues a sample only when its time moved since the previous
 * reading, so a reading period at or below the sampling period sees every
 * sample once, and an idle collector sends nothing. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "remote_write/rw_int.h"

#define NS_PER_MS 1000000

int fsc_rw_reader_init(struct fsc_rw_reader *rd, struct fsc_registry *reg, struct fsc_engine *eng,
                       uint32_t series, int64_t window_ns)
{
    memset(rd, 0, sizeof(*rd));
    rd->reg = reg;
    rd->eng = eng;
    rd->series = series;
    rd->window_ns = window_ns;
    rd->ids = malloc(FSC_RW_CHUNK * sizeof(*rd->ids));
    rd->views = malloc(FSC_RW_CHUNK * sizeof(*rd->views));
    rd->out = malloc(FSC_RW_PER_SERIES * FSC_RW_CHUNK * sizeof(*rd->out));
    if (!rd->ids || !rd->views || !rd->out) {
        fsc_rw_reader_free(rd);
        return -ENOMEM;
    }
    return 0;
}

void fsc_rw_reader_free(struct fsc_rw_reader *rd)
{
    free(rd->seen);
    free(rd->ids);
    free(rd->views);
    free(rd->out);
    memset(rd, 0, sizeof(*rd));
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
        p[i] = (struct fsc_rw_seen){INT64_MIN, INT64_MIN, INT64_MIN};
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

/* Milliseconds of a device time, rounded down. */
static int64_t to_ms(int64_t t_ns)
{
    return floor_to(t_ns, NS_PER_MS) / NS_PER_MS;
}

static double unit_divisor(const struct fsc_series_view *v)
{
    return v->unit == FSC_UNIT_MICROSECONDS ? 1e6 : 1.0;
}

/* A counter whose rate the /metrics renderer shows (fabric_rate_per_second). */
static int detector_counter(const struct fsc_series_view *v)
{
    switch (v->signal) {
    case FSC_SIG_CNP:
    case FSC_SIG_ECN:
    case FSC_SIG_REORDER:
    case FSC_SIG_PFC_PAUSE_DURATION:
    case FSC_SIG_PFC_PAUSE_FRAMES:
    case FSC_SIG_BUFFER_THRESHOLD:
        return v->kind == FSC_KIND_COUNTER;
    default:
        return 0;
    }
}

static int port_series(const struct fsc_series_view *v)
{
    return v->signal == FSC_SIG_PORT_BYTES &&
           (v->direction == FSC_DIR_RX || v->direction == FSC_DIR_TX);
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
        put(rd, n, id, counter ? FSC_RW_RAW_COUNTER : FSC_RW_RAW_GAUGE, v, v->t_last_ns,
            raw / unit_divisor(v));
        sn->t_raw = v->t_last_ns;
    }
    int port = port_series(v), det = !port && detector_counter(v);
    if (!port && !det)
        return;
    if ((rd->series & FSC_RW_SERIES_WINDOW_RATES) && rd->window_ns > 0 && (v->windows_done & 1u)) {
        /* The window of the first width completes when a sample reaches its
         * end (rate.c), so the last completed one ends at or before t_last. */
        int64_t edge = floor_to(v->t_last_ns, rd->window_ns);
        if (edge != sn->t_win) {
            if (port) {
                put(rd, n, id, FSC_RW_PORT_RATE, v, edge, v->window_rate[0]);
                if (v->link_speed_bps > 0)
                    put(rd, n, id, FSC_RW_PORT_UTIL, v, edge,
                        v->window_rate[0] * 8.0 / (double)v->link_speed_bps);
            } else {
                put(rd, n, id, FSC_RW_DET_RATE, v, edge, v->window_rate[0] / unit_divisor(v));
            }
            sn->t_win = edge;
        }
    }
    if ((rd->series & FSC_RW_SERIES_FINE_RATES) && v->t_last_ns != sn->t_fine) {
        /* The first reading of a series may see only its baseline (no
         * interval yet): it sets the mark and sends nothing. */
        if (sn->t_fine != INT64_MIN)
            put(rd, n, id, port ? FSC_RW_FINE_PORT_RATE : FSC_RW_FINE_RATE, v, v->t_last_ns,
                v->fine_rate / (port ? 1.0 : unit_divisor(v)));
        sn->t_fine = v->t_last_ns;
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
