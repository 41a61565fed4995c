/* The health list's inputs (web_int.h, web_conditions.h): the active set
 * the sampler keeps from the bus, the sources seen down, and the model
 * /api/health and the page render.
 *
 * Where each condition comes from, and why there:
 * - cabling, PCIe and link state from the gauges the NIC source (and a
 *   Cumulus switch) keep at their current value: the gauge is the truth
 *   now, whatever the event stream did; the START event adds when it began
 *   and its evidence (the neighbour entry, the addresses);
 * - detector conditions (spikes, storms, long bursts, imbalance) and gNMI
 *   streams down from the active set: a START not yet ended, however many
 *   events came after it (the page's event ring forgets);
 * - sources from the daemon's view;
 * - recent ones (ended, or instants such as a queue peak) from the event
 *   ring, which is what it is for.
 * Everything is copied under mu and read from the engine without it, in
 * chunks, as the top-port ranking does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "model/cable_plan.h"
#include "web/web_int.h"

/* ---- the active set ------------------------------------------------------------------ */

/* Kinds that start and end (a microburst's START comes once it is over). */
static bool lasting(unsigned kind)
{
    switch (kind) {
    case FSC_EV_BURST:
    case FSC_EV_CNP_SPIKE:
    case FSC_EV_ECN_SPIKE:
    case FSC_EV_REORDER_SPIKE:
    case FSC_EV_PFC_STORM:
    case FSC_EV_UPLINK_IMBALANCE:
    case FSC_EV_CABLE_MISMATCH:
    case FSC_EV_PCIE_DEGRADED:
    case FSC_EV_STREAM_DOWN:
        return true;
    default:
        return false;
    }
}

static bool same_condition(const struct fsc_event *a, const struct fsc_event *b)
{
    return a->kind == b->kind && a->series == b->series && a->group == b->group &&
           a->direction == b->direction &&
           (a->series != FSC_SERIES_NONE ||
            strncmp(a->subject, b->subject, sizeof(a->subject)) == 0);
}

void fsc_web_active_note(struct fsc_web *web, const struct fsc_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct fsc_event *e = &ev[i];
        if (!lasting(e->kind) || e->phase == FSC_EV_INSTANT)
            continue;
        size_t k;
        for (k = 0; k < web->n_active; k++)
            if (same_condition(&web->active[k], e))
                break;
        if (e->phase == FSC_EV_END) {
            if (k < web->n_active)
                web->active[k] = web->active[--web->n_active];
            continue;
        }
        if (k == web->n_active) {
            if (web->n_active == WEB_ACTIVE_MAX) {
                web->active_dropped++;
                continue;
            }
            web->n_active++;
        } else if (e->phase == FSC_EV_UPDATE) {
            /* The figures move on; the start stays the START's. */
            int64_t t0 = web->active[k].t_start_ns;
            web->active[k] = *e;
            web->active[k].t_start_ns = t0 ? t0 : e->t_start_ns;
            continue;
        }
        web->active[k] = *e;
    }
}

struct fsc_source_status *fsc_web_sources(const struct fsc_daemon_view *view, size_t *n)
{
    *n = 0;
    if (!view || !view->sources)
        return NULL;
    /* A reload may add sources between the count and the copy: retry. */
    size_t want = view->sources(view->arg, NULL, 0);
    for (int attempt = 0; attempt < 4; attempt++) {
        size_t cap = want < WEB_SOURCES_MAX ? want : WEB_SOURCES_MAX;
        struct fsc_source_status *src = calloc(cap ? cap : 1, sizeof(*src));
        if (!src)
            return NULL;
        size_t got = view->sources(view->arg, src, cap);
        if (got <= cap || cap == WEB_SOURCES_MAX) {
            *n = got < cap ? got : cap;
            return src;
        }
        free(src);
        want = got;
    }
    return NULL;
}

void fsc_web_down_note(struct fsc_web *web, const struct fsc_source_status *src, size_t n)
{
    int64_t now = fsc_now_ns();
    pthread_mutex_lock(&web->mu);
    /* Forget the sources that are up again (or gone after a reload). */
    for (size_t d = 0; d < web->n_down;) {
        bool down = false;
        for (size_t i = 0; i < n && !down; i++)
            down = !src[i].up && strcmp(src[i].name, web->down[d].name) == 0;
        if (down)
            d++;
        else
            web->down[d] = web->down[--web->n_down];
    }
    for (size_t i = 0; i < n; i++) {
        if (src[i].up || strcmp(src[i].state, "disabled") == 0)
            continue;
        size_t d;
        for (d = 0; d < web->n_down; d++)
            if (strcmp(src[i].name, web->down[d].name) == 0)
                break;
        if (d == web->n_down && d == web->cap_down && d < WEB_SOURCES_MAX) {
            size_t cap = d ? 2 * d : 16;
            struct web_down *p = realloc(web->down, cap * sizeof(*p));
            if (p) {
                web->down = p;
                web->cap_down = cap;
            }
        }
        if (d == web->n_down && d < web->cap_down) {
            snprintf(web->down[d].name, sizeof(web->down[d].name), "%s", src[i].name);
            web->down[d].since_ns = now;
            web->n_down++;
        }
    }
    pthread_mutex_unlock(&web->mu);
}

/* ---- gathering facts ----------------------------------------------------------------- */

/* The gauges of one port the health list reads. */
enum {
    G_MM = 0,
    G_PCIE = G_MM + FSC_WEB_MM__COUNT,
    G_LINK = G_PCIE + WEB_PCIE__COUNT,
    G_OPER,
    G__N
};

struct cand {
    const char *device, *port, *peer;
    uint32_t node;
    fsc_series_id ids[G__N];
};

struct gather {
    struct fsc_web_hfact *facts;
    size_t n, cap;
    bool full;
    struct fsc_event *active; /* copy of the active set, sorted by series */
    size_t n_active;
};

static struct fsc_web_hfact *fact_add(struct gather *g)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        struct fsc_web_hfact *nf =
            cap <= WEB_FACTS_MAX ? realloc(g->facts, cap * sizeof(*nf)) : NULL;
        if (!nf) {
            g->full = true;
            return NULL;
        }
        g->facts = nf;
        g->cap = cap;
    }
    struct fsc_web_hfact *f = &g->facts[g->n++];
    memset(f, 0, sizeof(*f));
    return f;
}

static int series_cmp(const void *a, const void *b)
{
    fsc_series_id x = ((const struct fsc_event *)a)->series;
    fsc_series_id y = ((const struct fsc_event *)b)->series;
    return x < y ? -1 : x > y;
}

/* The active START of a gauge's condition (the NIC source publishes its
 * events on the gauge's series), or NULL. */
static const struct fsc_event *active_of(const struct gather *g, fsc_series_id id)
{
    struct fsc_event key;
    key.series = id;
    return id == FSC_SERIES_NONE
               ? NULL
               : bsearch(&key, g->active, g->n_active, sizeof(*g->active), series_cmp);
}

static double gauge(const struct fsc_series_view *v, bool *known)
{
    *known = v->present && v->has_value;
    return !*known ? 0 : v->is_f64 ? v->value.d : (double)v->value.u;
}

static void fact_from_event(struct fsc_web_hfact *f, const struct fsc_event *ev)
{
    if (!ev)
        return;
    f->since_ns = ev->t_start_ns;
    f->ev = *ev;
    f->has_ev = 1;
}

/* The facts of one port from its gauges' views v[G__N]. */
static void port_facts(struct gather *g, const struct cand *c, const struct fsc_series_view *v)
{
    bool k, down_known = false;
    for (int m = 0; m < FSC_WEB_MM__COUNT; m++) {
        if (gauge(&v[G_MM + m], &k) == 0 || !k)
            continue;
        struct fsc_web_hfact *f = fact_add(g);
        if (!f)
            return;
        f->kind = (uint8_t)fsc_web_hk_of_event(FSC_EV_CABLE_MISMATCH, m);
        f->device = c->device;
        f->port = c->port;
        f->peer = c->peer;
        f->node = c->node;
        fact_from_event(f, active_of(g, c->ids[G_MM + m]));
        down_known = down_known || m == FSC_WEB_MM_DOWN || m == FSC_WEB_MM_MISSING;
    }
    if (gauge(&v[G_PCIE + WEB_PCIE_DEGRADED], &k) != 0 && k) {
        struct fsc_web_hfact *f = fact_add(g);
        if (!f)
            return;
        f->kind = FSC_WEB_HK_PCIE;
        f->device = c->device;
        f->port = c->port;
        fact_from_event(f, active_of(g, c->ids[G_PCIE + WEB_PCIE_DEGRADED]));
        /* The gauges are what the link runs at now. */
        static const enum fsc_event_field_id fid[WEB_PCIE__COUNT] = {
            [WEB_PCIE_SPEED] = FSC_EF_SPEED_GTS,
            [WEB_PCIE_MAX_SPEED] = FSC_EF_MAX_SPEED_GTS,
            [WEB_PCIE_WIDTH] = FSC_EF_WIDTH,
            [WEB_PCIE_MAX_WIDTH] = FSC_EF_MAX_WIDTH};
        struct fsc_event now = {.kind = FSC_EV_PCIE_DEGRADED};
        bool all = true;
        for (int p = WEB_PCIE_SPEED; p < WEB_PCIE__COUNT; p++) {
            double x = gauge(&v[G_PCIE + p], &k);
            all = all && k;
            fsc_event_add(&now, fid[p], x);
        }
        if (all) {
            now.t_start_ns = f->since_ns;
            f->ev = now;
            f->has_ev = 1;
        }
    }
    /* A planned interface down is a cable fact already. */
    double up = gauge(&v[G_LINK], &k);
    bool link_down = k && up == 0 && !down_known;
    double oper = gauge(&v[G_OPER], &k);
    link_down = link_down || (k && oper == 2);
    if (link_down) {
        struct fsc_web_hfact *f = fact_add(g);
        if (!f)
            return;
        f->kind = FSC_WEB_HK_LINK_DOWN;
        f->device = c->device;
        f->port = c->port;
        f->peer = c->peer;
    }
}

/* Device, port, peer, queue and mismatch kind of an event's series. */
static int event_labels(const struct fsc_web *web, const struct fsc_event *ev,
                        struct fsc_web_hfact *f)
{
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    int mismatch = -1;
    if (ev->series == FSC_SERIES_NONE || ev->series >= fsc_registry_count(web->env.reg))
        return -1;
    size_t n = fsc_registry_labels(web->env.reg, ev->series, lab, FSC_REGISTRY_MAX_LABELS);
    for (size_t i = 0; i < n && i < FSC_REGISTRY_MAX_LABELS; i++) {
        const char *k = lab[i].name;
        if (strcmp(k, "device") == 0)
            f->device = lab[i].value;
        else if (strcmp(k, "port") == 0)
            f->port = lab[i].value;
        else if (strcmp(k, "peer") == 0)
            f->peer = lab[i].value;
        else if (strcmp(k, "queue") == 0)
            f->queue = lab[i].value;
        else if (strcmp(k, "kind") == 0)
            for (int m = 0; m < FSC_WEB_MM__COUNT; m++)
                if (strcmp(lab[i].value, fsc_web_mismatch_name[m]) == 0)
                    mismatch = m;
    }
    return mismatch;
}

/* A fact from an event (active, or recent when ended). Returns false for
 * an event that is no health condition. */
static bool event_fact(const struct fsc_web *web, const struct fsc_event *ev, bool ended,
                       struct fsc_web_hfact *f)
{
    memset(f, 0, sizeof(*f));
    int mismatch = event_labels(web, ev, f);
    int hk = fsc_web_hk_of_event(ev->kind, mismatch);
    if (hk < 0)
        return false;
    f->kind = (uint8_t)hk;
    f->direction = ev->direction;
    f->ended = ended;
    fact_from_event(f, ev);
    if (ended) /* an instant happened at its start */
        f->end_ns = ev->t_end_ns ? ev->t_end_ns : ev->t_start_ns;
    if (ev->kind == FSC_EV_STREAM_DOWN) {
        f->name = f->ev.subject; /* "source/stream", in the fact's own copy */
    } else if (ev->kind == FSC_EV_UPLINK_IMBALANCE) {
        const struct fsc_topology *topo = fsc_topology_of(web->env.cfg);
        f->name = topo && ev->group < topo->n_groups ? topo->groups[ev->group].name : NULL;
        f->port = NULL;
    }
    return true;
}

/* Whether the source of a stream_down event ("source/stream") is still
 * configured (a reload may have removed it, and its END with it). */
static bool source_known(const struct fsc_source_status *src, size_t n, const struct fsc_event *ev)
{
    const char *slash = memchr(ev->subject, '/', sizeof(ev->subject));
    size_t len = slash ? (size_t)(slash - ev->subject) : strnlen(ev->subject, sizeof(ev->subject));
    for (size_t i = 0; i < n; i++)
        if (strlen(src[i].name) == len && strncmp(src[i].name, ev->subject, len) == 0)
            return true;
    return false;
}

/* The last data of a series that has been silent for WEB_QUIET_NS and ten
 * of its update periods (a detector ends a condition only on new data, so
 * a device gone dark mid-storm leaves it open), else 0. */
static int64_t quiet_since(struct fsc_web *web, fsc_series_id id, int64_t now)
{
    struct fsc_series_view v;
    if (fsc_engine_view(web->env.eng, id, &v) != 0 || !v.present || !v.has_value)
        return 0;
    int64_t quiet = 10 * v.update_period_ns > WEB_QUIET_NS ? 10 * v.update_period_ns : WEB_QUIET_NS;
    return now - v.t_last_ns > quiet ? v.t_last_ns : 0;
}

/* ---- the model -------------------------------------------------------------------------- */

static void node_names(const struct fsc_web *web, const struct cand *cands, size_t nc,
                       struct fsc_web_hnames *names)
{
    const struct fsc_cable_plan *cp = &fsc_topology_of(web->env.cfg)->cable_plan;
    memset(names, 0, sizeof(*names));
    for (size_t k = 0; k < cp->n_nodes; k++)
        if (cp->nodes[k].node <= FSC_CABLE_MAX_NODE)
            names->node[cp->nodes[k].node] = cp->nodes[k].device;
    for (size_t i = 0; i < nc; i++)
        if (cands[i].node && cands[i].node <= FSC_CABLE_MAX_NODE && !names->node[cands[i].node])
            names->node[cands[i].node] = cands[i].device;
}

/* The conditions of facts[0..n) into hm's lines: `limit` of them with text. */
static int lines_make(struct fsc_web *web, struct fsc_web_hfact *facts, size_t n,
                      const struct fsc_cabling *plan, const struct fsc_web_hnames *names,
                      unsigned limit, int64_t now, struct fsc_web_hline **out, size_t *shown,
                      size_t *total, size_t *by_kind)
{
    const struct fsc_engine_config *ecfg = fsc_engine_config_of(web->env.cfg);
    struct fsc_web_hcond *conds = malloc((n + FSC_CABLE_MAX_NODE + 1) * sizeof(*conds));
    if (!conds)
        return -ENOMEM;
    *total = fsc_web_conditions_derive(facts, n, plan, conds, n + FSC_CABLE_MAX_NODE + 1);
    for (size_t i = 0; by_kind && i < *total; i++)
        by_kind[conds[i].f.kind]++;
    *shown = *total < limit ? *total : limit;
    *out = calloc(*shown ? *shown : 1, sizeof(**out));
    if (!*out) {
        free(conds);
        return -ENOMEM;
    }
    for (size_t i = 0; i < *shown; i++) {
        struct fsc_web_hline *l = &(*out)[i];
        fsc_web_condition_text(&conds[i], names, ecfg, now, &l->t);
        l->c = conds[i];
        if (l->c.f.kind == FSC_WEB_HK_STREAM_DOWN) /* its name is in its event's copy */
            l->c.f.name = l->c.f.ev.subject;
    }
    free(conds);
    return 0;
}

int fsc_web_health_build(struct fsc_web *web, unsigned limit, unsigned recent_limit,
                         struct fsc_web_health *hm)
{
    const struct fsc_daemon_view *view = web->env.view;
    struct gather g = {0}, r = {0};
    struct cand *cands = NULL;
    struct fsc_source_status *src = NULL;
    struct fsc_event *recent = NULL;
    struct web_down *down = NULL;
    size_t nc = 0, n_src = 0, n_recent = 0, n_down = 0;
    int rc = -ENOMEM;

    memset(hm, 0, sizeof(*hm));
    hm->now_ns = fsc_now_ns();
    hm->recent_ns = WEB_RECENT_NS;
    g.active = malloc(WEB_ACTIVE_MAX * sizeof(*g.active));
    recent = malloc(WEB_EVENTS_MAX * sizeof(*recent));
    if (!g.active || !recent)
        goto out;
    if (view) {
        if (!(src = fsc_web_sources(view, &n_src)))
            goto out;
        fsc_web_down_note(web, src, n_src);
    }

    /* Copies under mu: the ports with health gauges, the active set, the
     * ring's recent events, the sources seen down. */
    pthread_mutex_lock(&web->mu);
    fsc_web_index_scan(web);
    cands = malloc((web->n_ports ? web->n_ports : 1) * sizeof(*cands));
    for (uint32_t i = 0; cands && i < web->n_ports; i++) {
        const struct web_port *p = &web->ports[i];
        struct cand c = {p->device, p->port, p->peer, p->node, {0}};
        bool any = false;
        for (int m = 0; m < FSC_WEB_MM__COUNT; m++)
            c.ids[G_MM + m] = p->mismatch[m];
        for (int k = 0; k < WEB_PCIE__COUNT; k++)
            c.ids[G_PCIE + k] = p->pcie[k];
        c.ids[G_LINK] = p->link_up;
        c.ids[G_OPER] = p->oper;
        for (int k = 0; k < G__N; k++)
            any = any || c.ids[k] != FSC_SERIES_NONE;
        if (any)
            cands[nc++] = c;
    }
    g.n_active = web->n_active;
    memcpy(g.active, web->active, web->n_active * sizeof(*g.active));
    for (size_t i = 0; i < web->ev_n; i++) {
        const struct fsc_event *e =
            &web->events[(web->ev_head + WEB_EVENTS_MAX - 1 - i) % WEB_EVENTS_MAX];
        int64_t at = e->t_end_ns ? e->t_end_ns : e->t_start_ns;
        bool kept = e->phase == FSC_EV_END || e->phase == FSC_EV_INSTANT ||
                    (e->kind == FSC_EV_MICROBURST && e->phase == FSC_EV_START);
        if (kept && at >= hm->now_ns - WEB_RECENT_NS)
            recent[n_recent++] = *e;
    }
    n_down = web->n_down;
    down = malloc((n_down ? n_down : 1) * sizeof(*down));
    if (down && n_down)
        memcpy(down, web->down, n_down * sizeof(*down));
    n_down = down ? n_down : 0;
    hm->incomplete = web->ev_lost > 0 || web->active_dropped > 0;
    pthread_mutex_unlock(&web->mu);
    if (!cands)
        goto out;
    if (g.n_active > 1)
        qsort(g.active, g.n_active, sizeof(*g.active), series_cmp);

    /* Gauges, in chunks of whole ports. */
    enum { PER = WEB_VIEW_CHUNK / G__N };
    fsc_series_id ids[PER * G__N];
    struct fsc_series_view *views = malloc(PER * G__N * sizeof(*views));
    if (!views)
        goto out;
    for (size_t c0 = 0; c0 < nc; c0 += PER) {
        size_t cn = nc - c0 < PER ? nc - c0 : PER;
        for (size_t i = 0; i < cn; i++)
            memcpy(&ids[i * G__N], cands[c0 + i].ids, sizeof(cands[0].ids));
        fsc_engine_view_ids(web->env.eng, ids, cn * G__N, views);
        for (size_t i = 0; i < cn; i++)
            port_facts(&g, &cands[c0 + i], &views[i * G__N]);
    }
    free(views);

    /* Detector conditions and streams from the active set; cable and PCIe
     * conditions came from their gauges above. */
    for (size_t i = 0; i < g.n_active; i++) {
        const struct fsc_event *e = &g.active[i];
        struct fsc_web_hfact f, *slot;
        if (e->kind == FSC_EV_CABLE_MISMATCH || e->kind == FSC_EV_PCIE_DEGRADED ||
            !event_fact(web, e, false, &f) ||
            (f.kind == FSC_WEB_HK_STREAM_DOWN && view && !source_known(src, n_src, e)))
            continue;
        if (e->series != FSC_SERIES_NONE)
            f.quiet_ns = quiet_since(web, e->series, hm->now_ns);
        if (!(slot = fact_add(&g)))
            continue;
        *slot = f;
        if (slot->kind == FSC_WEB_HK_STREAM_DOWN)
            slot->name = slot->ev.subject; /* the slot's own copy */
    }
    for (size_t i = 0; i < n_src; i++) {
        struct fsc_web_hfact *f;
        if (src[i].up || strcmp(src[i].state, "disabled") == 0 || !(f = fact_add(&g)))
            continue;
        f->kind = FSC_WEB_HK_SOURCE_DOWN;
        f->name = src[i].name;
        f->detail = src[i].type;
        f->state = src[i].state;
        for (size_t d = 0; d < n_down; d++)
            if (strcmp(down[d].name, src[i].name) == 0)
                f->since_ns = down[d].since_ns;
    }

    /* Recent: newest first; a microburst's START and END are one burst. */
    for (size_t i = 0; i < n_recent; i++) {
        struct fsc_web_hfact f, *slot;
        const struct fsc_event *e = &recent[i];
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = recent[j].kind == e->kind && recent[j].series == e->series &&
                  recent[j].t_start_ns == e->t_start_ns && e->series != FSC_SERIES_NONE;
        if (dup || !event_fact(web, e, true, &f) || !(slot = fact_add(&r)))
            continue;
        *slot = f;
        if (slot->kind == FSC_WEB_HK_STREAM_DOWN)
            slot->name = slot->ev.subject;
    }

    struct fsc_web_hnames names;
    node_names(web, cands, nc, &names);
    hm->incomplete = hm->incomplete || g.full || r.full;
    rc = lines_make(web, g.facts, g.n, web->plan, &names, limit, hm->now_ns, &hm->active,
                    &hm->n_active_shown, &hm->n_active, hm->by_kind);
    if (rc == 0)
        rc = lines_make(web, r.facts, r.n, NULL, &names, recent_limit, hm->now_ns, &hm->recent,
                        &hm->n_recent_shown, &hm->n_recent, NULL);
out:
    /* Source lines name their source in this copy. */
    hm->owned[0] = src;
    free(cands);
    free(g.facts);
    free(r.facts);
    free(g.active);
    free(recent);
    free(down);
    return rc;
}

void fsc_web_health_free(struct fsc_web_health *hm)
{
    if (!hm)
        return;
    free(hm->active);
    free(hm->recent);
    for (size_t i = 0; i < sizeof(hm->owned) / sizeof(hm->owned[0]); i++)
        free(hm->owned[i]);
    memset(hm, 0, sizeof(*hm));
}
