/* The web module's port index, the top-port ranking and the per-port
 * history rings (web_int.h has the bounds and the locking rules).
 *
 * The index is built from metric names, not traits: a series is interned
 * before its traits reach the engine, so a name is the one thing known the
 * moment the id exists, and indexing each id once keeps the scan
 * incremental. Every canonical port-bytes series is named
 * fabric_port_{rx,tx}_bytes_total (all profiles and the synthetic source);
 * the ranking then keeps only those whose engine view says port bytes
 * (FSC_SIG_PORT_BYTES), exactly the series /metrics derives utilization
 * from. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/numfmt.h"
#include "web/web_int.h"

/* ---- classification ------------------------------------------------------------ */

enum web_role { ROLE_BYTES, ROLE_MISMATCH, ROLE_PCIE, ROLE_LINK_UP, ROLE_OPER };

static const struct {
    const char *metric;
    enum web_role role;
    int dir;  /* 0 rx, 1 tx */
    int rank; /* enum web_rank; for ROLE_PCIE the enum web_pcie slot */
} web_metrics[] = {
    {"fabric_port_rx_bytes_total", ROLE_BYTES, 0, WEB_RANK_PORT},
    {"fabric_port_tx_bytes_total", ROLE_BYTES, 1, WEB_RANK_PORT},
    {"fabric_nic_ib_port_rx_bytes_total", ROLE_BYTES, 0, WEB_RANK_IB},
    {"fabric_nic_ib_port_tx_bytes_total", ROLE_BYTES, 1, WEB_RANK_IB},
    {"fabric_netdev_rx_bytes_total", ROLE_BYTES, 0, WEB_RANK_NETDEV},
    {"fabric_netdev_tx_bytes_total", ROLE_BYTES, 1, WEB_RANK_NETDEV},
    {"fabric_cable_mismatch", ROLE_MISMATCH, 0, 0},
    /* The health list's standing conditions (web_health.c). */
    {"fabric_pcie_link_degraded", ROLE_PCIE, 0, WEB_PCIE_DEGRADED},
    {"fabric_pcie_link_speed_gts", ROLE_PCIE, 0, WEB_PCIE_SPEED},
    {"fabric_pcie_link_width", ROLE_PCIE, 0, WEB_PCIE_WIDTH},
    {"fabric_port_link_up", ROLE_LINK_UP, 0, 0},
    /* Cumulus' oper-state passthrough (docs/vendors/cumulus.md): Up 1, Down 2. */
    {"fabric_cumulus_nvswitch_interface_oper_state", ROLE_OPER, 0, 0},
};

static uint32_t small_uint(const char *s)
{
    uint32_t v = 0;
    if (!s || !*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000)
            return 0;
        v = v * 10 + (uint32_t)(*s - '0');
    }
    return v;
}

/* ---- the hash of device/port pairs ---------------------------------------------- */

static uint32_t pair_hash(const char *device, const char *port)
{
    uint32_t h = 2166136261u; /* FNV-1a, with a 0 byte between the two */
    for (const unsigned char *p = (const unsigned char *)device; *p; p++)
        h = (h ^ *p) * 16777619u;
    h = (h ^ 0u) * 16777619u;
    for (const unsigned char *p = (const unsigned char *)port; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

long fsc_web_index_find(const struct fsc_web *web, const char *device, const char *port)
{
    if (web->hash_cap == 0)
        return -1;
    uint32_t mask = web->hash_cap - 1;
    for (uint32_t i = pair_hash(device, port) & mask, n = 0; n < web->hash_cap;
         i = (i + 1) & mask, n++) {
        uint32_t slot = web->hash[i];
        if (slot == 0)
            return -1;
        const struct web_port *p = &web->ports[slot - 1];
        if (strcmp(p->device, device) == 0 && strcmp(p->port, port) == 0)
            return (long)(slot - 1);
    }
    return -1;
}

static void hash_put(uint32_t *hash, uint32_t cap, uint32_t h, uint32_t index)
{
    uint32_t mask = cap - 1;
    uint32_t i = h & mask;
    while (hash[i] != 0)
        i = (i + 1) & mask;
    hash[i] = index + 1;
}

/* Grows the arrays so one more port fits. Returns 0 or -ENOMEM. */
static int index_grow(struct fsc_web *web)
{
    if (web->n_ports == web->cap_ports) {
        uint32_t c = web->cap_ports ? web->cap_ports * 2 : 64;
        struct web_port *np = realloc(web->ports, (size_t)c * sizeof(*np));
        if (!np)
            return -ENOMEM;
        web->ports = np;
        web->cap_ports = c;
    }
    /* Load factor at most 1/2. */
    if ((web->n_ports + 1) * 2 > web->hash_cap) {
        uint32_t c = web->hash_cap ? web->hash_cap * 2 : 128;
        uint32_t *nh = calloc(c, sizeof(*nh));
        if (!nh)
            return -ENOMEM;
        for (uint32_t i = 0; i < web->n_ports; i++)
            hash_put(nh, c, pair_hash(web->ports[i].device, web->ports[i].port), i);
        free(web->hash);
        web->hash = nh;
        web->hash_cap = c;
    }
    return 0;
}

/* The index of device/port, added when new; -1 when the index is full or
 * memory ran out (counted). */
static long index_get(struct fsc_web *web, const char *device, const char *port)
{
    long pi = fsc_web_index_find(web, device, port);
    if (pi >= 0)
        return pi;
    if (web->n_ports >= WEB_PORTS_MAX || index_grow(web) != 0) {
        web->ports_dropped++;
        return -1;
    }
    struct web_port *p = &web->ports[web->n_ports];
    memset(p, 0, sizeof(*p));
    p->device = device;
    p->port = port;
    for (int d = 0; d < 2; d++)
        p->bytes[d] = p->mesh[d] = FSC_SERIES_NONE;
    for (int k = 0; k < FSC_WEB_MM__COUNT; k++)
        p->mismatch[k] = FSC_SERIES_NONE;
    for (int k = 0; k < WEB_PCIE__COUNT; k++)
        p->pcie[k] = FSC_SERIES_NONE;
    p->link_up = p->oper = FSC_SERIES_NONE;
    hash_put(web->hash, web->hash_cap, pair_hash(device, port), web->n_ports);
    return (long)web->n_ports++;
}

static void index_series(struct fsc_web *web, fsc_series_id id)
{
    const char *metric = fsc_registry_metric(web->env.reg, id);
    size_t m;

    if (!metric || strncmp(metric, "fabric_", 7) != 0)
        return;
    for (m = 0; m < sizeof(web_metrics) / sizeof(web_metrics[0]); m++)
        if (strcmp(metric, web_metrics[m].metric) == 0)
            break;
    if (m == sizeof(web_metrics) / sizeof(web_metrics[0]))
        return;

    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t n = fsc_registry_labels(web->env.reg, id, lab, FSC_REGISTRY_MAX_LABELS);
    const char *device = NULL, *port = NULL, *node = NULL, *kind = NULL, *peer = NULL;
    const char *peer_node = NULL, *link = NULL;
    for (size_t i = 0; i < n && i < FSC_REGISTRY_MAX_LABELS; i++) {
        const char *k = lab[i].name;
        if (strcmp(k, "device") == 0)
            device = lab[i].value;
        else if (strcmp(k, "port") == 0)
            port = lab[i].value;
        else if (strcmp(k, "node") == 0)
            node = lab[i].value;
        else if (strcmp(k, "kind") == 0)
            kind = lab[i].value;
        else if (strcmp(k, "peer") == 0)
            peer = lab[i].value;
        else if (strcmp(k, "peer_node") == 0)
            peer_node = lab[i].value;
        else if (strcmp(k, "link") == 0)
            link = lab[i].value;
    }
    if (!device || !port)
        return;
    long pi = index_get(web, device, port);
    if (pi < 0)
        return;
    struct web_port *p = &web->ports[pi];
    if (node && !p->node) {
        p->node = small_uint(node);
        p->peer_node = small_uint(peer_node);
        p->link = small_uint(link);
    }
    if (peer && !p->peer)
        p->peer = peer;
    switch (web_metrics[m].role) {
    case ROLE_MISMATCH:
        for (int k = 0; kind && k < FSC_WEB_MM__COUNT; k++)
            if (strcmp(kind, fsc_web_mismatch_name[k]) == 0 && p->mismatch[k] == FSC_SERIES_NONE)
                p->mismatch[k] = id;
        return;
    case ROLE_PCIE: {
        /* Speed and width come as kind="current" and kind="max". */
        int k = web_metrics[m].rank;
        if (k != WEB_PCIE_DEGRADED && kind && strcmp(kind, "max") == 0)
            k++;
        else if (k != WEB_PCIE_DEGRADED && (!kind || strcmp(kind, "current") != 0))
            return;
        if (p->pcie[k] == FSC_SERIES_NONE)
            p->pcie[k] = id;
        return;
    }
    case ROLE_LINK_UP:
        if (p->link_up == FSC_SERIES_NONE)
            p->link_up = id;
        return;
    case ROLE_OPER:
        if (p->oper == FSC_SERIES_NONE)
            p->oper = id;
        return;
    case ROLE_BYTES:
        break;
    }
    int d = web_metrics[m].dir, rank = web_metrics[m].rank;
    /* The first series of a kind wins (a second source naming the same
     * device/port would otherwise make the port flip between them). */
    if (rank == WEB_RANK_PORT && p->bytes[d] == FSC_SERIES_NONE)
        p->bytes[d] = id;
    if (p->mesh_rank[d] == 0 || rank < p->mesh_rank[d]) {
        p->mesh[d] = id;
        p->mesh_rank[d] = (uint8_t)rank;
    }
}

void fsc_web_index_scan(struct fsc_web *web)
{
    uint32_t count = fsc_registry_count(web->env.reg);
    uint32_t end =
        count - web->scanned > WEB_SCAN_PER_TICK ? web->scanned + WEB_SCAN_PER_TICK : count;
    for (uint32_t id = web->scanned; id < end; id++)
        index_series(web, id);
    web->scanned = end;
}

/* ---- rows and ranking ---------------------------------------------------------------- */

/* Fills *row from the views of a port's rx and tx byte counters (either
 * may be absent: present == 0), with /metrics' arithmetic. */
static void row_from_views(const struct fsc_web *web, const struct fsc_series_view v[2],
                           struct fsc_web_port_row *row)
{
    const struct fsc_rate_params *rp = &fsc_engine_config_of(web->env.cfg)->rate;
    int best_level = -1;

    for (int d = 0; d < 2; d++) {
        const struct fsc_series_view *s = &v[d];
        if (!s->present || s->signal != FSC_SIG_PORT_BYTES)
            continue;
        if (s->link_speed_bps > row->speed_bps)
            row->speed_bps = s->link_speed_bps;
        row->microbursts += s->events;
        row->bursts += s->bursts;
        /* /metrics: a rate once a window of the series' rate level
         * completed, utilization with a link speed, a peak per completed
         * window level. */
        const unsigned rl = s->rate_level;
        if (!s->has_value || !(s->windows_done & (1u << rl)))
            continue;
        double speed = (double)s->link_speed_bps;
        row->has_rate[d] = 1;
        row->bytes_per_second[d] = fsc_round_float(s->window_rate[rl]);
        row->utilization[d] = speed > 0 ? fsc_round_float(s->window_rate[rl] * 8.0 / speed) : -1;
        if (speed <= 0)
            continue;
        int level = -1;
        for (unsigned l = 0; l < rp->n_windows && l < FSC_MAX_WINDOWS; l++)
            if (s->windows_done & (1u << l))
                level = (int)l;
        double peak = fsc_round_float(s->window_peak[level] * 8.0 / speed);
        /* Peaks of different window lengths do not compare: the longer
         * window wins, then the higher peak. */
        if (level > best_level || (level == best_level && peak > row->peak_utilization)) {
            best_level = level;
            row->has_peak = 1;
            row->peak_utilization = peak;
            row->peak_direction = d == 0 ? FSC_DIR_RX : FSC_DIR_TX;
            row->peak_window_ns = rp->window_ns[level];
        }
    }
}

static void row_init(struct fsc_web_port_row *row, const struct web_port *p)
{
    memset(row, 0, sizeof(*row));
    row->device = p->device;
    row->port = p->port;
    row->utilization[0] = row->utilization[1] = -1;
}

void fsc_web_port_row_fill(struct fsc_web *web, uint32_t pi, struct fsc_web_port_row *row)
{
    const struct web_port *p = &web->ports[pi];
    struct fsc_series_view v[2];
    row_init(row, p);
    fsc_engine_view_ids(web->env.eng, p->bytes, 2, v);
    row_from_views(web, v, row);
}

/* Ranking order: with a peak first, higher peak first, then device and
 * port names (so equal peaks list in a stable order). <0: a before b. */
static int row_cmp(const struct fsc_web_port_row *a, const struct fsc_web_port_row *b)
{
    if (a->has_peak != b->has_peak)
        return a->has_peak ? -1 : 1;
    if (a->has_peak && a->peak_utilization != b->peak_utilization)
        return a->peak_utilization > b->peak_utilization ? -1 : 1;
    int c = strcmp(a->device, b->device);
    return c ? c : strcmp(a->port, b->port);
}

struct cand {
    uint32_t pi;
    const char *device, *port;
    fsc_series_id ids[2];
};

long fsc_web_top_ports(struct fsc_web *web, struct fsc_web_port_row *rows, uint32_t *port_idx,
                       size_t top)
{
    struct cand *cands = NULL;
    struct fsc_series_view *views = NULL;
    size_t nc = 0, nrows = 0;
    long rc = 0;

    if (top == 0)
        return 0;
    /* Copy the candidates so the engine is read without mu; index what
     * the registry gained first, so an answer never lags the sampler. */
    pthread_mutex_lock(&web->mu);
    fsc_web_index_scan(web);
    if (web->n_ports > 0)
        cands = malloc((size_t)web->n_ports * sizeof(*cands));
    for (uint32_t i = 0; cands && i < web->n_ports; i++) {
        const struct web_port *p = &web->ports[i];
        if (p->bytes[0] == FSC_SERIES_NONE && p->bytes[1] == FSC_SERIES_NONE)
            continue;
        cands[nc++] = (struct cand){i, p->device, p->port, {p->bytes[0], p->bytes[1]}};
    }
    int oom = web->n_ports > 0 && !cands;
    pthread_mutex_unlock(&web->mu);
    if (oom)
        return -ENOMEM;
    views = malloc(WEB_VIEW_CHUNK * sizeof(*views));
    if (!views) {
        free(cands);
        return -ENOMEM;
    }
    fsc_series_id ids[WEB_VIEW_CHUNK];
    for (size_t c0 = 0; c0 < nc; c0 += WEB_VIEW_CHUNK / 2) {
        size_t cn = nc - c0 < WEB_VIEW_CHUNK / 2 ? nc - c0 : WEB_VIEW_CHUNK / 2;
        for (size_t i = 0; i < cn; i++) {
            ids[2 * i] = cands[c0 + i].ids[0];
            ids[2 * i + 1] = cands[c0 + i].ids[1];
        }
        fsc_engine_view_ids(web->env.eng, ids, 2 * cn, views);
        for (size_t i = 0; i < cn; i++) {
            struct fsc_web_port_row row;
            struct web_port p = {.device = cands[c0 + i].device, .port = cands[c0 + i].port};
            row_init(&row, &p);
            row_from_views(web, &views[2 * i], &row);
            if (!row.has_rate[0] && !row.has_rate[1] && !row.has_peak)
                continue; /* nothing measured yet */
            /* Insertion into the sorted top list (top <= WEB_TOP_MAX). */
            size_t at = nrows;
            while (at > 0 && row_cmp(&row, &rows[at - 1]) < 0)
                at--;
            if (at >= top)
                continue;
            size_t last = nrows < top ? nrows : top - 1;
            memmove(&rows[at + 1], &rows[at], (last - at) * sizeof(*rows));
            if (port_idx)
                memmove(&port_idx[at + 1], &port_idx[at], (last - at) * sizeof(*port_idx));
            rows[at] = row;
            if (port_idx)
                port_idx[at] = cands[c0 + i].pi;
            if (nrows < top)
                nrows++;
        }
    }
    rc = (long)nrows;
    free(views);
    free(cands);
    return rc;
}

/* ---- tracks --------------------------------------------------------------------------- */

struct web_track *fsc_web_track_find(struct fsc_web *web, uint32_t pi)
{
    for (int i = 0; i < WEB_TRACK_MAX; i++)
        if (web->tracks[i].used && web->tracks[i].port == pi)
            return &web->tracks[i];
    return NULL;
}

struct web_track *fsc_web_track_want(struct fsc_web *web, uint32_t pi, int64_t now_mono_ns)
{
    struct web_track *t = fsc_web_track_find(web, pi);
    if (t) {
        t->wanted_mono_ns = now_mono_ns;
        return t;
    }
    /* A free slot, else the one wanted least recently. */
    for (int i = 0; i < WEB_TRACK_MAX; i++) {
        struct web_track *c = &web->tracks[i];
        if (!c->used) {
            t = c;
            break;
        }
        if (!t || c->wanted_mono_ns < t->wanted_mono_ns)
            t = c;
    }
    for (int d = 0; d < 2; d++) {
        if (!t->ring[d].pts) {
            t->ring[d].pts = malloc(WEB_HIST_POINTS * sizeof(*t->ring[d].pts));
            if (!t->ring[d].pts)
                return NULL;
        }
        t->ring[d].head = t->ring[d].n = 0;
        t->ring[d].last_t_ns = 0;
    }
    t->used = 1;
    t->port = pi;
    t->since_ns = fsc_now_ns();
    t->wanted_mono_ns = now_mono_ns;
    return t;
}

void fsc_web_track_sample(struct fsc_web *web)
{
    fsc_series_id ids[2 * WEB_TRACK_MAX];
    struct fsc_series_view views[2 * WEB_TRACK_MAX];
    int slot[WEB_TRACK_MAX];
    size_t n = 0;

    for (int i = 0; i < WEB_TRACK_MAX; i++) {
        if (!web->tracks[i].used)
            continue;
        const struct web_port *p = &web->ports[web->tracks[i].port];
        ids[2 * n] = p->bytes[0];
        ids[2 * n + 1] = p->bytes[1];
        slot[n++] = i;
    }
    if (n == 0)
        return;
    fsc_engine_view_ids(web->env.eng, ids, 2 * n, views);
    for (size_t k = 0; k < n; k++) {
        struct web_track *t = &web->tracks[slot[k]];
        for (int d = 0; d < 2; d++) {
            const struct fsc_series_view *v = &views[2 * k + d];
            struct web_ring *r = &t->ring[d];
            if (!v->present || !v->has_value || v->link_speed_bps == 0 ||
                v->signal != FSC_SIG_PORT_BYTES || v->t_last_ns <= r->last_t_ns || v->fine_rate < 0)
                continue;
            r->pts[r->head] = (struct fsc_web_point){
                v->t_last_ns, (float)(v->fine_rate * 8.0 / (double)v->link_speed_bps)};
            r->head = (r->head + 1) % WEB_HIST_POINTS;
            if (r->n < WEB_HIST_POINTS)
                r->n++;
            r->last_t_ns = v->t_last_ns;
        }
    }
}

void fsc_web_index_free(struct fsc_web *web)
{
    for (int i = 0; i < WEB_TRACK_MAX; i++)
        for (int d = 0; d < 2; d++)
            free(web->tracks[i].ring[d].pts);
    free(web->ports);
    free(web->hash);
    web->ports = NULL;
    web->hash = NULL;
    web->n_ports = web->cap_ports = web->hash_cap = 0;
}
