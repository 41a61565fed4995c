/* The request handlers of the web module: parse the query, build the
 * model (web_model.h) from the engine, the registry, the daemon's
 * callbacks and the module's rings, render it. Each runs on an HTTP
 * connection thread, concurrently with the others and with the sampler;
 * every allocation is per request, bounded by the query limits, and freed
 * before returning. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "web/web_int.h"
#include "web/web_page.h"

#define CT_JSON "application/json"
#define CT_HTML "text/html; charset=utf-8"
#define CT_TEXT "text/plain; charset=utf-8"

/* ---- query parameters ------------------------------------------------------------ */

/* An unsigned decimal query parameter in [min, max], def when absent.
 * Returns 0, or -1 when present but not such a number. */
static int query_uint(const struct fsc_http_req *req, const char *key, unsigned def, unsigned min,
                      unsigned max, unsigned *out)
{
    const char *s = fsc_http_query(req, key);
    unsigned long v = 0;

    *out = def;
    if (!s)
        return 0;
    if (!*s || strlen(s) > 9)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v < min || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int bad_request(struct fsc_buf *out, const char **ctype, const char *msg)
{
    *ctype = CT_JSON;
    int rc = fsc_web_json_error(msg, out);
    return rc ? rc : 400;
}

static int done(int rc, int status)
{
    return rc < 0 ? rc : status;
}

/* ---- models ------------------------------------------------------------------------ */

struct status_model {
    struct fsc_web_status st;
    struct fsc_source_status *sources;
    struct fsc_web_stat_row *rows;
    size_t n_rows, cap_rows;
    int err;
};

static void status_free(struct status_model *sm)
{
    free(sm->sources);
    free(sm->rows);
}

/* Copies a plugin's row (keys cut to FSC_WEB_NAME_MAX - 1 bytes, columns
 * to FSC_WEB_STAT_COLS); rows past WEB_STAT_ROWS_MAX are left out. The
 * table grows with the rows: a thousand devices write ~6 000. */
static void status_row(void *arg, const struct fsc_stat_table *t, const char *const *keys,
                       const double *values, const struct fsc_stat_hist *hist)
{
    struct status_model *sm = arg;
    (void)hist;
    if (sm->err || sm->n_rows >= WEB_STAT_ROWS_MAX)
        return;
    if (sm->n_rows == sm->cap_rows) {
        size_t cap = sm->cap_rows ? 2 * sm->cap_rows : 256;
        struct fsc_web_stat_row *p = realloc(sm->rows, cap * sizeof(*p));
        if (!p) {
            sm->err = -ENOMEM;
            return;
        }
        sm->rows = p;
        sm->cap_rows = cap;
    }
    struct fsc_web_stat_row *r = &sm->rows[sm->n_rows++];
    memset(r, 0, sizeof(*r));
    r->table = t;
    for (size_t k = 0; k < FSC_STAT_KEYS_MAX && t->keys[k]; k++)
        snprintf(r->keys[k], sizeof(r->keys[k]), "%s", keys[k] ? keys[k] : "");
    for (size_t c = 0; c < t->n_cols && c < FSC_WEB_STAT_COLS; c++)
        r->values[c] = values[c];
}

static int status_build(struct fsc_web *web, struct status_model *sm)
{
    const struct fsc_web_env *env = &web->env;
    const struct fsc_daemon_view *view = env->view;
    struct fsc_engine_stats es;

    memset(sm, 0, sizeof(*sm));
    size_t n_sources = 0;
    sm->sources = view ? fsc_web_sources(view, &n_sources) : calloc(1, sizeof(*sm->sources));
    if (!sm->sources) {
        status_free(sm);
        return -ENOMEM;
    }
    struct fsc_web_status *st = &sm->st;
    st->now_ns = fsc_now_ns();
    st->sources = sm->sources;
    st->n_sources = n_sources;
    if (view) {
        const struct fsc_stats_out out = {.row = status_row, .arg = sm};
        view->stats(view->arg, &out);
        st->tables = view->tables;
        if (sm->err) {
            status_free(sm);
            return sm->err;
        }
    }
    st->rows = sm->rows;
    st->n_rows = sm->n_rows;
    fsc_engine_stats_get(env->eng, &es);
    st->series = fsc_registry_count(env->reg);
    st->samples = es.samples;
    memcpy(st->events_by_kind, es.events, sizeof(st->events_by_kind));
    const struct fsc_rate_params *rp = &fsc_engine_config_of(env->cfg)->rate;
    st->n_windows = rp->n_windows;
    memcpy(st->window_ns, rp->window_ns, sizeof(st->window_ns));
    return 0;
}

/* The newest `limit` events, newest first, with their series' labels. */
static int events_build(struct fsc_web *web, unsigned limit, struct fsc_web_events *evs,
                        struct fsc_web_event_row **rows_out)
{
    struct fsc_web_event_row *rows = calloc(limit ? limit : 1, sizeof(*rows));
    if (!rows)
        return -ENOMEM;
    memset(evs, 0, sizeof(*evs));
    evs->published = fsc_event_bus_published(web->env.bus);
    const struct fsc_rate_params *rp = &fsc_engine_config_of(web->env.cfg)->rate;
    evs->n_windows = rp->n_windows;
    memcpy(evs->window_ns, rp->window_ns, sizeof(evs->window_ns));
    pthread_mutex_lock(&web->mu);
    size_t n = web->ev_n < limit ? web->ev_n : limit;
    for (size_t i = 0; i < n; i++)
        rows[i].ev = web->events[(web->ev_head + WEB_EVENTS_MAX - 1 - i) % WEB_EVENTS_MAX];
    evs->kept = web->ev_n;
    evs->lost = web->ev_lost;
    pthread_mutex_unlock(&web->mu);

    uint32_t count = fsc_registry_count(web->env.reg);
    for (size_t i = 0; i < n; i++) {
        struct fsc_web_event_row *r = &rows[i];
        if (r->ev.series == FSC_SERIES_NONE || r->ev.series >= count)
            continue;
        size_t nl =
            fsc_registry_labels(web->env.reg, r->ev.series, r->labels, FSC_REGISTRY_MAX_LABELS);
        r->n_labels = nl < FSC_REGISTRY_MAX_LABELS ? nl : FSC_REGISTRY_MAX_LABELS;
        for (size_t k = 0; k < r->n_labels; k++) {
            if (strcmp(r->labels[k].name, "device") == 0)
                r->device = r->labels[k].value;
            else if (strcmp(r->labels[k].name, "port") == 0)
                r->port = r->labels[k].value;
            else if (strcmp(r->labels[k].name, "kind") == 0 && r->ev.kind == FSC_EV_CABLE_MISMATCH)
                r->mismatch = r->labels[k].value;
        }
    }
    evs->rows = rows;
    evs->n_rows = n;
    *rows_out = rows;
    return 0;
}

struct chart_model {
    struct fsc_web_chart c;
    struct fsc_web_point *pts[2];
    struct fsc_web_marker *markers;
};

static void chart_free(struct chart_model *cm)
{
    free(cm->pts[0]);
    free(cm->pts[1]);
    free(cm->markers);
}

/* Copies the ring's points newer than t_min, oldest first. */
static size_t ring_copy(const struct web_ring *r, int64_t t_min, struct fsc_web_point *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct fsc_web_point *p =
            &r->pts[(r->head + WEB_HIST_POINTS - r->n + i) % WEB_HIST_POINTS];
        if (p->t_ns >= t_min)
            out[n++] = *p;
    }
    return n;
}

/* Burst markers of the port's byte series from the event ring: one per
 * burst (its START and END carry the same start time; the newest wins).
 * Caller holds mu. */
static size_t markers_copy(const struct fsc_web *web, const fsc_series_id ids[2],
                           struct fsc_web_marker *out)
{
    size_t n = 0;
    for (size_t i = 0; i < web->ev_n; i++) {
        const struct fsc_event *ev =
            &web->events[(web->ev_head + WEB_EVENTS_MAX - web->ev_n + i) % WEB_EVENTS_MAX];
        if ((ev->kind != FSC_EV_MICROBURST && ev->kind != FSC_EV_BURST) ||
            ev->series == FSC_SERIES_NONE || (ev->series != ids[0] && ev->series != ids[1]))
            continue;
        size_t k;
        for (k = 0; k < n; k++)
            if (out[k].t_start_ns == ev->t_start_ns && out[k].direction == ev->direction)
                break;
        if (k == n)
            n++;
        double peak = 0;
        fsc_event_get(ev, FSC_EF_PEAK_UTILIZATION, &peak);
        out[k] =
            (struct fsc_web_marker){ev->t_start_ns, ev->t_end_ns, peak, ev->kind, ev->direction};
    }
    return n;
}

/* The chart of port index pi (and starts tracking it). */
static int chart_build(struct fsc_web *web, uint32_t pi, struct chart_model *cm)
{
    struct fsc_web_chart *c = &cm->c;
    int64_t now = fsc_now_ns(), t_min = now - WEB_HIST_NS;
    fsc_series_id ids[2];
    struct fsc_series_view v[2];

    memset(cm, 0, sizeof(*cm));
    cm->pts[0] = malloc(WEB_HIST_POINTS * sizeof(*cm->pts[0]));
    cm->pts[1] = malloc(WEB_HIST_POINTS * sizeof(*cm->pts[1]));
    cm->markers = malloc(WEB_EVENTS_MAX * sizeof(*cm->markers));
    if (!cm->pts[0] || !cm->pts[1] || !cm->markers) {
        chart_free(cm);
        return -ENOMEM;
    }
    pthread_mutex_lock(&web->mu);
    const struct web_port *p = &web->ports[pi];
    c->device = p->device;
    c->port = p->port;
    ids[0] = p->bytes[0];
    ids[1] = p->bytes[1];
    struct web_track *t = fsc_web_track_want(web, pi, fsc_mono_ns());
    if (t) {
        c->tracked = 1;
        c->tracked_since_ns = t->since_ns;
        for (int d = 0; d < 2; d++)
            c->n_points[d] = ring_copy(&t->ring[d], t_min, cm->pts[d]);
    }
    c->n_markers = markers_copy(web, ids, cm->markers);
    pthread_mutex_unlock(&web->mu);

    fsc_engine_view_ids(web->env.eng, ids, 2, v);
    c->speed_bps =
        v[0].link_speed_bps > v[1].link_speed_bps ? v[0].link_speed_bps : v[1].link_speed_bps;
    c->points[0] = cm->pts[0];
    c->points[1] = cm->pts[1];
    c->markers = cm->markers;
    c->rise = web->rise;
    /* The x range: the last WEB_HIST_NS, narrowed to the history there is
     * (a port tracked for a minute gets a one-minute chart, with its bursts
     * of that span), at least 10 s. */
    int64_t first = now;
    for (int d = 0; d < 2; d++)
        if (c->n_points[d] && cm->pts[d][0].t_ns < first)
            first = cm->pts[d][0].t_ns;
    for (size_t i = 0; i < c->n_markers; i++)
        if (cm->markers[i].t_start_ns < first)
            first = cm->markers[i].t_start_ns;
    c->t_to_ns = now;
    c->t_from_ns = first > t_min ? first : t_min;
    if (c->t_to_ns - c->t_from_ns < (int64_t)10 * 1000000000)
        c->t_from_ns = c->t_to_ns - (int64_t)10 * 1000000000;
    return 0;
}

/* The port index of ?device=&port=, -1 when absent, -2 when unknown. */
static long query_port(struct fsc_web *web, const struct fsc_http_req *req)
{
    const char *device = fsc_http_query(req, "device");
    const char *port = fsc_http_query(req, "port");
    if (!device || !port)
        return -1;
    pthread_mutex_lock(&web->mu);
    fsc_web_index_scan(web);
    long pi = fsc_web_index_find(web, device, port);
    if (pi >= 0 && web->ports[pi].bytes[0] == FSC_SERIES_NONE &&
        web->ports[pi].bytes[1] == FSC_SERIES_NONE)
        pi = -2; /* a port without byte counters has no chart */
    pthread_mutex_unlock(&web->mu);
    return pi >= 0 ? pi : -2;
}

/* ---- handlers -------------------------------------------------------------------------- */

int fsc_web_route_status(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype)
{
    struct status_model sm;
    (void)req;
    int rc = status_build(arg, &sm);
    if (rc)
        return rc;
    *ctype = CT_JSON;
    rc = fsc_web_json_status(&sm.st, out);
    status_free(&sm);
    return done(rc, 200);
}

int fsc_web_route_ports(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                        const char **ctype)
{
    unsigned top;
    if (query_uint(req, "top", WEB_DEFAULT_TOP, 1, WEB_TOP_MAX, &top) != 0)
        return bad_request(out, ctype, "top must be an integer from 1 to 100");
    struct fsc_web_port_row *rows = calloc(top, sizeof(*rows));
    if (!rows)
        return -ENOMEM;
    long n = fsc_web_top_ports(arg, rows, NULL, top);
    int rc = n < 0 ? (int)n : 0;
    *ctype = CT_JSON;
    if (rc == 0)
        rc = fsc_web_json_ports(rows, (size_t)n, out);
    free(rows);
    return done(rc, 200);
}

int fsc_web_route_events(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype)
{
    unsigned limit;
    struct fsc_web_events evs;
    struct fsc_web_event_row *rows;
    if (query_uint(req, "limit", WEB_DEFAULT_EVENTS, 1, WEB_EVENTS_MAX, &limit) != 0)
        return bad_request(out, ctype, "limit must be an integer from 1 to 1024");
    int rc = events_build(arg, limit, &evs, &rows);
    if (rc)
        return rc;
    *ctype = CT_JSON;
    rc = fsc_web_json_events(&evs, out);
    free(rows);
    return done(rc, 200);
}

int fsc_web_route_port(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype)
{
    struct chart_model cm;
    long pi = query_port(arg, req);
    if (pi == -1)
        return bad_request(out, ctype, "device and port are required");
    if (pi < 0) {
        *ctype = CT_JSON;
        return done(fsc_web_json_error("no such port with byte counters", out), 404);
    }
    int rc = chart_build(arg, (uint32_t)pi, &cm);
    if (rc)
        return rc;
    *ctype = CT_JSON;
    rc = fsc_web_json_chart(&cm.c, out);
    chart_free(&cm);
    return done(rc, 200);
}

int fsc_web_route_mesh(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype)
{
    (void)req;
    struct fsc_web_mesh *m = malloc(sizeof(*m));
    if (!m)
        return -ENOMEM;
    fsc_web_mesh_build(arg, m);
    *ctype = CT_JSON;
    int rc = fsc_web_json_mesh(m, out);
    free(m);
    return done(rc, 200);
}

int fsc_web_route_health(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype)
{
    struct fsc_web_health hm;
    unsigned limit, recent;
    if (query_uint(req, "limit", WEB_DEFAULT_HEALTH, 1, WEB_HEALTH_MAX, &limit) != 0 ||
        query_uint(req, "recent", WEB_DEFAULT_HEALTH, 0, WEB_HEALTH_MAX, &recent) != 0)
        return bad_request(out, ctype,
                           "limit must be an integer from 1 to 1000, recent from 0 "
                           "to 1000");
    int rc = fsc_web_health_build(arg, limit, recent, &hm);
    if (rc == 0) {
        *ctype = CT_JSON;
        rc = fsc_web_json_health(&hm, out);
    }
    fsc_web_health_free(&hm);
    return done(rc, 200);
}

int fsc_web_route_page(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype)
{
    struct fsc_web *web = arg;
    struct status_model sm;
    struct chart_model cm;
    struct fsc_web_events evs;
    struct fsc_web_event_row *evrows = NULL;
    struct fsc_web_port_row *rows = NULL;
    struct fsc_web_mesh *mesh = NULL;
    uint32_t *idx = NULL;
    unsigned top, limit;
    int rc, have_chart = 0;

    if (query_uint(req, "top", WEB_DEFAULT_TOP, 1, WEB_TOP_MAX, &top) != 0 ||
        query_uint(req, "limit", WEB_PAGE_EVENTS, 1, WEB_EVENTS_MAX, &limit) != 0) {
        *ctype = CT_TEXT;
        return done(fsc_buf_puts(out, "top must be 1..100 and limit 1..1024\n"), 400);
    }
    rc = status_build(web, &sm);
    if (rc)
        return rc;
    struct fsc_web_health hm;
    rc = fsc_web_health_build(web, FSC_WEB_PAGE_HEALTH, FSC_WEB_PAGE_RECENT, &hm);
    if (rc) {
        fsc_web_health_free(&hm);
        status_free(&sm);
        return rc;
    }
    rows = calloc(top, sizeof(*rows));
    idx = calloc(top, sizeof(*idx));
    mesh = malloc(sizeof(*mesh));
    long n = rows && idx && mesh ? fsc_web_top_ports(web, rows, idx, top) : -ENOMEM;
    rc = n < 0 ? (int)n : events_build(web, limit, &evs, &evrows);
    if (rc == 0) {
        /* The chart: the port asked for, else the top port. */
        long pi = query_port(web, req);
        if (pi < 0 && n > 0)
            pi = idx[0];
        if (pi >= 0) {
            rc = chart_build(web, (uint32_t)pi, &cm);
            have_chart = rc == 0;
        }
    }
    if (rc == 0) {
        fsc_web_mesh_build(web, mesh);
        struct fsc_web_page pg = {
            .health = &hm,
            .status = &sm.st,
            .ports = rows,
            .n_ports = (size_t)n,
            .events = &evs,
            .chart = have_chart ? &cm.c : NULL,
            .mesh = mesh,
            .refresh_s = WEB_REFRESH_S,
            .top = top,
            .limit = limit,
        };
        *ctype = CT_HTML;
        rc = fsc_web_html_page(&pg, out);
    }
    if (have_chart)
        chart_free(&cm);
    free(evrows);
    free(mesh);
    free(idx);
    free(rows);
    fsc_web_health_free(&hm);
    status_free(&sm);
    return done(rc, 200);
}
