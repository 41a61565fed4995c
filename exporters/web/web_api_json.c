/* The JSON documents of /api/... from their models (web_model.h; every field
 * is documented in docs/API.md). Pure: the clock and every number come in
 * the model. */
#include <errno.h>
#include <string.h>

#include "base/numfmt.h"
#include "web/web_conditions.h"
#include "web/web_format.h"
#include "base/json_write.h"
#include "web/web_model.h"

static const char *dir_name(unsigned dir)
{
    return dir == FSC_DIR_RX ? "rx" : dir == FSC_DIR_TX ? "tx" : NULL;
}

static void jw_time(struct fsc_json *w, const char *key, int64_t t_ns)
{
    char t[40];
    fsc_json_str(w, key, fsc_web_fmt_time(t_ns, t, sizeof(t)));
}

/* A number, or null when `known` is 0. */
static void jw_num_or_null(struct fsc_json *w, const char *key, int known, double v)
{
    if (known)
        fsc_json_num(w, key, v);
    else
        fsc_json_null(w, key);
}

int fsc_web_json_error(const char *msg, struct fsc_buf *out)
{
    struct fsc_json w;
    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "error", msg);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/status ---------------------------------------------------------------- */

static void status_engine(struct fsc_json *w, const struct fsc_web_status *st)
{
    char win[32];
    fsc_json_object(w, "engine");
    fsc_json_uint(w, "series", st->series);
    fsc_json_uint(w, "samples", st->samples);
    fsc_json_array(w, "windows");
    for (unsigned l = 0; l < st->n_windows && l < FSC_MAX_WINDOWS; l++)
        fsc_json_str(w, NULL, fsc_web_fmt_window(st->window_ns[l], win, sizeof(win)));
    fsc_json_end(w);
    /* Kinds with events only: the list of kinds grows with the detectors. */
    fsc_json_object(w, "events_total");
    for (int k = 0; k < FSC_EV__COUNT; k++)
        if (st->events_by_kind[k])
            fsc_json_uint(w, fsc_event_kind_name((enum fsc_event_kind)k), st->events_by_kind[k]);
    fsc_json_end(w);
    fsc_json_end(w);
}

static const char *const unit_names[] = {
    [FSC_STAT_COUNT] = "count", [FSC_STAT_SECONDS] = "seconds",     [FSC_STAT_WORD] = "word",
    [FSC_STAT_BYTES] = "bytes", [FSC_STAT_TIME_S] = "unix_seconds",
};

/* One value of a plugin table: a word, null when unknown, an integer for
 * counts and bytes, else a number. */
static void stat_value(struct fsc_json *w, const struct fsc_stat_col *c, double v)
{
    if (v != v) {
        fsc_json_null(w, c->id);
    } else if (c->unit == FSC_STAT_WORD) {
        size_t n = 0;
        while (c->words && c->words[n])
            n++;
        if (v >= 0 && v < (double)n)
            fsc_json_str(w, c->id, c->words[(size_t)v]);
        else
            fsc_json_null(w, c->id);
    } else if ((c->unit == FSC_STAT_COUNT || c->unit == FSC_STAT_BYTES) && v >= 0 &&
               v < 18446744073709551616.0 && v == (double)(uint64_t)v) {
        fsc_json_uint(w, c->id, (uint64_t)v);
    } else {
        fsc_json_num(w, c->id, v);
    }
}

/* Every plugin table with its columns and rows (docs/API.md, "/api/status"). */
static void status_tables(struct fsc_json *w, const struct fsc_web_status *st)
{
    fsc_json_array(w, "tables");
    for (size_t t = 0; st->tables && st->tables[t]; t++) {
        const struct fsc_stat_table *tab = st->tables[t];
        size_t n_cols = tab->n_cols < FSC_WEB_STAT_COLS ? tab->n_cols : FSC_WEB_STAT_COLS;
        fsc_json_object(w, NULL);
        fsc_json_str(w, "id", tab->id);
        fsc_json_str(w, "title", tab->title);
        fsc_json_str(w, "empty", tab->empty);
        fsc_json_array(w, "keys");
        for (size_t k = 0; k < FSC_STAT_KEYS_MAX && tab->keys[k]; k++)
            fsc_json_str(w, NULL, tab->keys[k]);
        fsc_json_end(w);
        fsc_json_array(w, "columns");
        for (size_t c = 0; c < n_cols; c++) {
            const struct fsc_stat_col *col = &tab->cols[c];
            fsc_json_object(w, NULL);
            fsc_json_str(w, "id", col->id);
            if (col->title)
                fsc_json_str(w, "title", col->title);
            else
                fsc_json_null(w, "title");
            fsc_json_str(w, "unit",
                         col->unit < sizeof(unit_names) / sizeof(unit_names[0])
                             ? unit_names[col->unit]
                             : "count");
            fsc_json_end(w);
        }
        fsc_json_end(w);
        fsc_json_array(w, "rows");
        for (size_t r = 0; r < st->n_rows; r++) {
            const struct fsc_web_stat_row *row = &st->rows[r];
            if (row->table != tab)
                continue;
            fsc_json_object(w, NULL);
            for (size_t k = 0; k < FSC_STAT_KEYS_MAX && tab->keys[k]; k++)
                fsc_json_str(w, tab->keys[k], row->keys[k]);
            for (size_t c = 0; c < n_cols; c++)
                stat_value(w, &tab->cols[c], row->values[c]);
            fsc_json_end(w);
        }
        fsc_json_end(w);
        fsc_json_end(w);
    }
    fsc_json_end(w);
}

int fsc_web_json_status(const struct fsc_web_status *st, struct fsc_buf *out)
{
    struct fsc_json w;
    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    jw_time(&w, "time", st->now_ns);
    status_engine(&w, st);
    fsc_json_array(&w, "sources");
    for (size_t i = 0; i < st->n_sources; i++) {
        const struct fsc_source_status *s = &st->sources[i];
        fsc_json_object(&w, NULL);
        fsc_json_str(&w, "name", s->name);
        fsc_json_str(&w, "type", s->type);
        fsc_json_str(&w, "state", s->state);
        fsc_json_bool(&w, "up", s->up);
        fsc_json_uint(&w, "series", s->series);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    status_tables(&w, st);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/ports ------------------------------------------------------------------- */

int fsc_web_json_ports(const struct fsc_web_port_row *rows, size_t n, struct fsc_buf *out)
{
    struct fsc_json w;
    char win[32];

    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    fsc_json_array(&w, "ports");
    for (size_t i = 0; i < n; i++) {
        const struct fsc_web_port_row *p = &rows[i];
        fsc_json_object(&w, NULL);
        fsc_json_str(&w, "device", p->device);
        fsc_json_str(&w, "port", p->port);
        jw_num_or_null(&w, "speed_bps", p->speed_bps > 0, (double)p->speed_bps);
        jw_num_or_null(&w, "peak_utilization", p->has_peak, p->peak_utilization);
        fsc_json_str(&w, "peak_direction", p->has_peak ? dir_name(p->peak_direction) : NULL);
        fsc_json_str(&w, "peak_window",
                     p->has_peak ? fsc_web_fmt_window(p->peak_window_ns, win, sizeof(win)) : NULL);
        jw_num_or_null(&w, "rx_bytes_per_second", p->has_rate[0], p->bytes_per_second[0]);
        jw_num_or_null(&w, "tx_bytes_per_second", p->has_rate[1], p->bytes_per_second[1]);
        jw_num_or_null(&w, "rx_utilization", p->has_rate[0] && p->utilization[0] >= 0,
                       p->utilization[0]);
        jw_num_or_null(&w, "tx_utilization", p->has_rate[1] && p->utilization[1] >= 0,
                       p->utilization[1]);
        fsc_json_uint(&w, "microbursts", p->microbursts);
        fsc_json_uint(&w, "bursts", p->bursts);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/events -------------------------------------------------------------------- */

static void event_row(struct fsc_json *w, const struct fsc_web_events *evs,
                      const struct fsc_web_event_row *r)
{
    const struct fsc_event *ev = &r->ev;
    char sum[256], names[FSC_MAX_WINDOWS][32];
    const char *window_names[FSC_MAX_WINDOWS];
    unsigned n_window_names = 0;
    for (; n_window_names < evs->n_windows && n_window_names < FSC_MAX_WINDOWS; n_window_names++)
        window_names[n_window_names] = fsc_web_fmt_window(evs->window_ns[n_window_names],
                                                          names[n_window_names], sizeof(names[0]));

    fsc_json_object(w, NULL);
    fsc_json_uint(w, "seq", ev->seq);
    fsc_json_str(w, "kind", fsc_event_kind_name((enum fsc_event_kind)ev->kind));
    fsc_json_str(w, "phase", fsc_event_phase_name((enum fsc_event_phase)ev->phase));
    fsc_json_str(w, "device", r->device);
    fsc_json_str(w, "port", r->port);
    /* Events without a series name their subject ("source/stream"); a
     * port event's subject is its peer, which the fields carry. */
    if (ev->subject[0] && !(ev->peer_saw & FSC_PEER_LINKED))
        fsc_json_strn(w, "subject", ev->subject, strnlen(ev->subject, sizeof(ev->subject)));
    fsc_json_str(w, "direction", dir_name(ev->direction));
    if (ev->kind == FSC_EV_CABLE_MISMATCH)
        fsc_json_str(w, "mismatch", r->mismatch);
    if (ev->kind == FSC_EV_UPLINK_IMBALANCE)
        fsc_json_uint(w, "group", ev->group);
    jw_time(w, "start", ev->t_start_ns);
    if (ev->t_end_ns) {
        jw_time(w, "end", ev->t_end_ns);
        fsc_json_num(w, "duration_seconds", (double)(ev->t_end_ns - ev->t_start_ns) / 1e9);
    } else {
        fsc_json_null(w, "end");
        fsc_json_null(w, "duration_seconds");
    }
    /* The kind's figures, named as in the log and the Kafka document. */
    fsc_json_object(w, "fields");
    fsc_event_fields_json(w, ev, window_names, n_window_names);
    fsc_json_end(w);
    fsc_json_str(w, "summary", fsc_web_event_summary(r, sum, sizeof(sum)));
    fsc_json_object(w, "labels");
    for (size_t i = 0; i < r->n_labels; i++)
        fsc_json_str(w, r->labels[i].name, r->labels[i].value);
    fsc_json_end(w);
    fsc_json_end(w);
}

int fsc_web_json_events(const struct fsc_web_events *evs, struct fsc_buf *out)
{
    struct fsc_json w;
    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    fsc_json_uint(&w, "published", evs->published);
    fsc_json_uint(&w, "lost", evs->lost);
    fsc_json_uint(&w, "kept", evs->kept);
    fsc_json_array(&w, "events");
    for (size_t i = 0; i < evs->n_rows; i++)
        event_row(&w, evs, &evs->rows[i]);
    fsc_json_end(&w);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/port ----------------------------------------------------------------------- */

int fsc_web_json_chart(const struct fsc_web_chart *c, struct fsc_buf *out)
{
    static const char *const key[2] = {"rx", "tx"};
    struct fsc_json w;

    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "device", c->device);
    fsc_json_str(&w, "port", c->port);
    jw_num_or_null(&w, "speed_bps", c->speed_bps > 0, (double)c->speed_bps);
    fsc_json_bool(&w, "tracked", c->tracked);
    if (c->tracked)
        jw_time(&w, "tracked_since", c->tracked_since_ns);
    else
        fsc_json_null(&w, "tracked_since");
    fsc_json_int(&w, "from_ms", fsc_web_ms(c->t_from_ns));
    fsc_json_int(&w, "to_ms", fsc_web_ms(c->t_to_ns));
    fsc_json_num(&w, "rise", c->rise);
    for (int d = 0; d < 2; d++) {
        /* [t_ms, utilization] pairs: compact, and what the chart draws. */
        fsc_json_array(&w, key[d]);
        for (size_t i = 0; i < c->n_points[d]; i++) {
            const struct fsc_web_point *p = &c->points[d][i];
            fsc_json_array(&w, NULL);
            fsc_json_int(&w, NULL, fsc_web_ms(p->t_ns));
            fsc_json_num(&w, NULL, fsc_round_float(p->utilization));
            fsc_json_end(&w);
        }
        fsc_json_end(&w);
    }
    fsc_json_array(&w, "bursts");
    for (size_t i = 0; i < c->n_markers; i++) {
        const struct fsc_web_marker *m = &c->markers[i];
        fsc_json_object(&w, NULL);
        fsc_json_str(&w, "kind", fsc_event_kind_name((enum fsc_event_kind)m->kind));
        fsc_json_str(&w, "direction", dir_name(m->direction));
        fsc_json_int(&w, "start_ms", fsc_web_ms(m->t_start_ns));
        if (m->t_end_ns)
            fsc_json_int(&w, "end_ms", fsc_web_ms(m->t_end_ns));
        else
            fsc_json_null(&w, "end_ms");
        fsc_json_num(&w, "peak", fsc_round_float(m->peak));
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/mesh ------------------------------------------------------------------------- */

static void mesh_end(struct fsc_json *w, const char *key, const struct fsc_web_mesh_end *e)
{
    fsc_json_object(w, key);
    fsc_json_uint(w, "node", e->node);
    fsc_json_str(w, "port", e->port);
    jw_num_or_null(w, "rx_bytes_per_second", e->has_rate, e->rx_bytes_per_second);
    jw_num_or_null(w, "tx_bytes_per_second", e->has_rate, e->tx_bytes_per_second);
    fsc_json_array(w, "mismatches");
    for (int k = 0; k < FSC_WEB_MM__COUNT; k++)
        if (e->mismatch & (1u << k))
            fsc_json_str(w, NULL, fsc_web_mismatch_name[k]);
    fsc_json_end(w);
    fsc_json_end(w);
}

static const char *node_device(const struct fsc_web_mesh *m, uint32_t node)
{
    for (size_t i = 0; i < m->n_nodes; i++)
        if (m->nodes[i].node == node)
            return m->nodes[i].device;
    return NULL;
}

static void mesh_mismatches(struct fsc_json *w, const struct fsc_web_mesh *m)
{
    fsc_json_array(w, "mismatches");
    for (size_t i = 0; i < m->n_links; i++) {
        const struct fsc_web_mesh_end *ends[2] = {&m->links[i].a, &m->links[i].b};
        for (int e = 0; e < 2; e++) {
            for (int k = 0; k < FSC_WEB_MM__COUNT; k++) {
                if (!(ends[e]->mismatch & (1u << k)))
                    continue;
                fsc_json_object(w, NULL);
                fsc_json_uint(w, "node", ends[e]->node);
                fsc_json_str(w, "device", node_device(m, ends[e]->node));
                fsc_json_str(w, "port", ends[e]->port);
                fsc_json_uint(w, "link", m->links[i].link);
                fsc_json_str(w, "kind", fsc_web_mismatch_name[k]);
                fsc_json_end(w);
            }
        }
    }
    fsc_json_end(w);
}

int fsc_web_json_mesh(const struct fsc_web_mesh *m, struct fsc_buf *out)
{
    struct fsc_json w;

    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    fsc_json_str(&w, "source", m->from_plan ? "plan" : "labels");
    fsc_json_array(&w, "nodes");
    for (size_t i = 0; i < m->n_nodes; i++) {
        fsc_json_object(&w, NULL);
        fsc_json_uint(&w, "node", m->nodes[i].node);
        fsc_json_str(&w, "device", m->nodes[i].device);
        fsc_json_bool(&w, "polled", m->nodes[i].polled);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    fsc_json_array(&w, "links");
    for (size_t i = 0; i < m->n_links; i++) {
        const struct fsc_web_mesh_link *l = &m->links[i];
        fsc_json_object(&w, NULL);
        fsc_json_uint(&w, "link", l->link);
        jw_num_or_null(&w, "speed_bps", l->speed_bps > 0, (double)l->speed_bps);
        jw_num_or_null(&w, "utilization", l->utilization >= 0, l->utilization);
        fsc_json_bool(&w, "mismatch", (l->a.mismatch | l->b.mismatch) != 0);
        mesh_end(&w, "a", &l->a);
        mesh_end(&w, "b", &l->b);
        fsc_json_end(&w);
    }
    fsc_json_end(&w);
    mesh_mismatches(&w, m);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}

/* ---- /api/health ------------------------------------------------------------------- */

static void jw_str_or_null(struct fsc_json *w, const char *key, const char *s)
{
    if (s && s[0])
        fsc_json_str(w, key, s);
    else
        fsc_json_null(w, key);
}

static void health_line(struct fsc_json *w, const struct fsc_web_hline *l, int64_t now_ns)
{
    const struct fsc_web_hfact *f = &l->c.f;
    fsc_json_object(w, NULL);
    fsc_json_str(w, "kind", fsc_web_hk_name((enum fsc_web_hk)f->kind));
    fsc_json_str(w, "severity", fsc_web_hk_severity((enum fsc_web_hk)f->kind));
    fsc_json_str(w, "title", l->t.title);
    jw_str_or_null(w, "device", f->device);
    jw_str_or_null(w, "port", f->port);
    if (f->kind == FSC_WEB_HK_CABLES_SWAPPED) {
        fsc_json_array(w, "ports");
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < 2; i++)
                if (l->c.swap_if[p][i])
                    fsc_json_str(w, NULL, l->c.swap_if[p][i]);
        fsc_json_end(w);
        fsc_json_array(w, "physical_ports");
        fsc_json_uint(w, NULL, l->c.swap_port[0]);
        fsc_json_uint(w, NULL, l->c.swap_port[1]);
        fsc_json_end(w);
    }
    jw_str_or_null(w, "peer", f->peer);
    jw_str_or_null(w, "direction", dir_name(f->direction));
    jw_str_or_null(w, "name", f->name);
    if (f->since_ns)
        jw_time(w, "since", f->since_ns);
    else
        fsc_json_null(w, "since");
    if (f->ended)
        jw_time(w, "end", f->end_ns);
    else
        fsc_json_null(w, "end");
    int64_t at = f->ended ? f->end_ns : f->since_ns;
    jw_num_or_null(w, "age_seconds", at != 0, at ? (double)(now_ns - at) / 1e9 : 0);
    fsc_json_str(w, "what", l->t.what);
    fsc_json_str(w, "when_text", l->t.when);
    fsc_json_str(w, "age_text", l->t.age);
    fsc_json_str(w, "measure", l->t.measure);
    fsc_json_str(w, "check", l->t.check);
    fsc_json_str(w, "sentence", l->t.sentence);
    fsc_json_end(w);
}

int fsc_web_json_health(const struct fsc_web_health *hm, struct fsc_buf *out)
{
    struct fsc_json w;

    fsc_json_start(&w, out);
    fsc_json_object(&w, NULL);
    char sum[512];
    jw_time(&w, "time", hm->now_ns);
    fsc_json_str(&w, "summary",
                 fsc_web_health_summary(hm->by_kind, hm->n_active, hm->n_recent, hm->recent_ns,
                                        hm->incomplete, sum, sizeof(sum)));
    fsc_json_uint(&w, "active_total", hm->n_active);
    fsc_json_uint(&w, "recent_total", hm->n_recent);
    fsc_json_uint(&w, "recent_seconds", (uint64_t)(hm->recent_ns / 1000000000));
    fsc_json_bool(&w, "incomplete", hm->incomplete);
    /* Kinds with active conditions only. */
    fsc_json_object(&w, "by_kind");
    for (int k = 0; k < FSC_WEB_HK__COUNT; k++)
        if (hm->by_kind[k])
            fsc_json_uint(&w, fsc_web_hk_name((enum fsc_web_hk)k), hm->by_kind[k]);
    fsc_json_end(&w);
    fsc_json_array(&w, "active");
    for (size_t i = 0; i < hm->n_active_shown; i++)
        health_line(&w, &hm->active[i], hm->now_ns);
    fsc_json_end(&w);
    fsc_json_array(&w, "recent");
    for (size_t i = 0; i < hm->n_recent_shown; i++)
        health_line(&w, &hm->recent[i], hm->now_ns);
    fsc_json_end(&w);
    fsc_json_end(&w);
    return fsc_json_done(&w);
}
