/* Cross-source evidence: links between ports and what each showed (see
 * xsrc.h for the contract).
 *
 * Two open-addressing indexes (ports by name, series by id) over two plain
 * arrays. Both grow only in fsc_xsrc_link(), which runs when a source
 * interns a series; the detectors' calls only look up and write in place,
 * so the ingest path never allocates here.
 *
 * Why episodes and not just events: a leaf's queue-peak event fires once
 * per crossing of its share, and a microburst's START comes out only when
 * the burst ended, so neither event alone says *when* a port was congested.
 * Each port keeps its last few congestion episodes per direction instead,
 * noted by the detectors as they see them, and an event on one end of a
 * link looks at the other end's episodes. Whichever of the two events is
 * published later sees the other side; the earlier one says what was known
 * then ("unknown" while the peer has not reported past it). */
#include "engine/xsrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "engine/rate.h"

#define XSRC_EPISODES                                                                              \
    4 /* per port and direction: a few bursts back is enough for                                   \
       * a peer that reports every 2 s */
#define XSRC_REPORTERS                                                                             \
    4 /* series per port and direction whose sample times say                                      \
       * how far the port has reported (more are linked, not read) */

struct xs_episode {
    int64_t t0, t1;
    uint8_t what; /* one FSC_PEER_* seen bit; 0 = empty */
    uint8_t open;
};

struct xs_dir {
    struct xs_episode ep[XSRC_EPISODES]; /* ring, newest at last */
    uint8_t last;
    uint8_t n_rep;
    fsc_series_id rep[XSRC_REPORTERS];
};

struct xs_port {
    char name[FSC_EVENT_SUBJECT_MAX];
    uint64_t hash;
    uint32_t peer;        /* index + 1 of the peer's port; 0 = none */
    struct xs_dir dir[2]; /* [0] rx, [1] tx */
};

struct xs_series {
    fsc_series_id id;
    uint32_t port; /* index into ports */
    uint8_t dir;   /* 0 rx, 1 tx */
};

struct fsc_xsrc {
    fsc_xsrc_reported_fn reported;
    const void *reported_arg;
    struct xs_port *ports;
    uint32_t n_ports, cap_ports;
    uint32_t *port_index; /* port index + 1; 0 = empty; cap a power of two */
    uint32_t port_index_cap;
    struct xs_series *series;
    uint32_t n_series, cap_series;
    uint32_t *series_index; /* series entry + 1 */
    uint32_t series_index_cap;
};

struct fsc_xsrc *fsc_xsrc_create(fsc_xsrc_reported_fn reported, const void *arg)
{
    struct fsc_xsrc *xs = calloc(1, sizeof(*xs));
    if (xs) {
        xs->reported = reported;
        xs->reported_arg = arg;
    }
    return xs;
}

void fsc_xsrc_destroy(struct fsc_xsrc *xs)
{
    if (!xs)
        return;
    free(xs->ports);
    free(xs->port_index);
    free(xs->series);
    free(xs->series_index);
    free(xs);
}

size_t fsc_xsrc_memory(const struct fsc_xsrc *xs)
{
    if (!xs)
        return 0;
    return sizeof(*xs) + (size_t)xs->cap_ports * sizeof(*xs->ports) +
           (size_t)xs->port_index_cap * sizeof(uint32_t) +
           (size_t)xs->cap_series * sizeof(*xs->series) +
           (size_t)xs->series_index_cap * sizeof(uint32_t);
}

/* ---- indexes ---- */

static uint64_t name_hash(const char *name)
{
    return fsc_hash_bytes(name, strlen(name), 0);
}

static uint64_t id_hash(fsc_series_id id)
{
    return fsc_hash_mix64((uint64_t)id + 1);
}

/* The slot of `hash` in index (cap a power of two) whose entry matches, or
 * the empty slot where it would go. match(arg, entry) tests entry. */
static uint32_t probe(const uint32_t *index, uint32_t cap, uint64_t hash,
                      bool (*match)(const struct fsc_xsrc *xs, uint32_t entry, const void *key),
                      const struct fsc_xsrc *xs, const void *key)
{
    uint32_t mask = cap - 1, i = fsc_hash_fold32(hash) & mask;
    while (index[i] != 0 && !match(xs, index[i] - 1, key))
        i = (i + 1) & mask;
    return i;
}

static bool port_match(const struct fsc_xsrc *xs, uint32_t entry, const void *key)
{
    return strcmp(xs->ports[entry].name, key) == 0;
}

static bool series_match(const struct fsc_xsrc *xs, uint32_t entry, const void *key)
{
    return xs->series[entry].id == *(const fsc_series_id *)key;
}

/* Makes *index (a power of two) at least twice `need`, rebuilding it from
 * the entries [0, n). */
static int index_reserve(struct fsc_xsrc *xs, uint32_t **index, uint32_t *cap, uint32_t need,
                         uint32_t n, bool ports)
{
    if ((uint64_t)need * 2 <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 64;
    while ((uint64_t)need * 2 > ncap)
        ncap *= 2;
    uint32_t *nidx = calloc(ncap, sizeof(*nidx));
    if (!nidx)
        return -ENOMEM;
    for (uint32_t e = 0; e < n; e++) {
        uint64_t h = ports ? xs->ports[e].hash : id_hash(xs->series[e].id);
        uint32_t mask = ncap - 1, i = fsc_hash_fold32(h) & mask;
        while (nidx[i] != 0)
            i = (i + 1) & mask;
        nidx[i] = e + 1;
    }
    free(*index);
    *index = nidx;
    *cap = ncap;
    return 0;
}

/* Makes *arr hold at least `need` elements. */
static int array_reserve(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 64;
    if (ncap < need)
        ncap = need;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Room for `extra` more ports and one more series, so that the link below
 * cannot fail half way. */
static int reserve(struct fsc_xsrc *xs, uint32_t extra)
{
    uint32_t np = xs->n_ports + extra, ns = xs->n_series + 1;
    if (np > FSC_XSRC_PORTS_MAX || ns > FSC_XSRC_SERIES_MAX)
        return -ENOSPC;
    int rc = array_reserve((void **)&xs->ports, &xs->cap_ports, np, sizeof(*xs->ports));
    if (rc == 0)
        rc = index_reserve(xs, &xs->port_index, &xs->port_index_cap, np, xs->n_ports, true);
    if (rc == 0)
        rc = array_reserve((void **)&xs->series, &xs->cap_series, ns, sizeof(*xs->series));
    if (rc == 0)
        rc = index_reserve(xs, &xs->series_index, &xs->series_index_cap, ns, xs->n_series, false);
    return rc;
}

static int64_t port_find(const struct fsc_xsrc *xs, const char *name, uint64_t h)
{
    if (xs->port_index_cap == 0)
        return -1;
    uint32_t i = probe(xs->port_index, xs->port_index_cap, h, port_match, xs, name);
    return xs->port_index[i] ? (int64_t)xs->port_index[i] - 1 : -1;
}

/* The port's index, added when new. Room was reserved. */
static uint32_t port_get(struct fsc_xsrc *xs, const char *name, uint64_t h)
{
    uint32_t i = probe(xs->port_index, xs->port_index_cap, h, port_match, xs, name);
    if (xs->port_index[i])
        return xs->port_index[i] - 1;
    struct xs_port *p = &xs->ports[xs->n_ports];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->hash = h;
    xs->port_index[i] = ++xs->n_ports;
    return xs->n_ports - 1;
}

static const struct xs_series *series_find(const struct fsc_xsrc *xs, fsc_series_id id)
{
    if (!xs || xs->series_index_cap == 0)
        return NULL;
    uint32_t i = probe(xs->series_index, xs->series_index_cap, id_hash(id), series_match, xs, &id);
    return xs->series_index[i] ? &xs->series[xs->series_index[i] - 1] : NULL;
}

/* ---- linking ---- */

static void reporter_drop(struct xs_dir *d, fsc_series_id id)
{
    for (unsigned k = 0; k < d->n_rep; k++) {
        if (d->rep[k] == id) {
            d->rep[k] = d->rep[--d->n_rep];
            return;
        }
    }
}

static void reporter_add(struct xs_dir *d, fsc_series_id id)
{
    for (unsigned k = 0; k < d->n_rep; k++)
        if (d->rep[k] == id)
            return;
    if (d->n_rep < XSRC_REPORTERS)
        d->rep[d->n_rep++] = id;
}

int fsc_xsrc_link(struct fsc_xsrc *xs, fsc_series_id id, uint8_t direction, const char *self,
                  const char *peer)
{
    char a[FSC_EVENT_SUBJECT_MAX], b[FSC_EVENT_SUBJECT_MAX];
    if ((direction != FSC_DIR_RX && direction != FSC_DIR_TX) || !self || !peer || !*self || !*peer)
        return -EINVAL;
    /* Names are kept cut, so compare them cut. */
    snprintf(a, sizeof(a), "%s", self);
    snprintf(b, sizeof(b), "%s", peer);
    if (strcmp(a, b) == 0)
        return -EINVAL;
    uint64_t ha = name_hash(a), hb = name_hash(b);
    uint32_t extra = (port_find(xs, a, ha) < 0) + (port_find(xs, b, hb) < 0);
    int rc = reserve(xs, extra);
    if (rc != 0)
        return rc;
    uint32_t pa = port_get(xs, a, ha), pb = port_get(xs, b, hb);
    xs->ports[pa].peer = pb + 1;
    /* The topology fills both ends' peers; a config naming only one, or a
     * series of the far end that has not joined yet, still links back. */
    if (xs->ports[pb].peer == 0)
        xs->ports[pb].peer = pa + 1;

    uint8_t dir = direction == FSC_DIR_TX;
    uint32_t i = probe(xs->series_index, xs->series_index_cap, id_hash(id), series_match, xs, &id);
    if (xs->series_index[i]) { /* moves */
        struct xs_series *s = &xs->series[xs->series_index[i] - 1];
        reporter_drop(&xs->ports[s->port].dir[s->dir], id);
        s->port = pa;
        s->dir = dir;
    } else {
        xs->series[xs->n_series] = (struct xs_series){.id = id, .port = pa, .dir = dir};
        xs->series_index[i] = ++xs->n_series;
    }
    reporter_add(&xs->ports[pa].dir[dir], id);
    return 0;
}

/* ---- noting ---- */

static struct xs_dir *dir_of(struct fsc_xsrc *xs, fsc_series_id id)
{
    const struct xs_series *s = series_find(xs, id);
    return s ? &xs->ports[s->port].dir[s->dir] : NULL;
}

void fsc_xsrc_note(struct fsc_xsrc *xs, fsc_series_id id, unsigned what, int64_t t0, int64_t t1,
                   bool open)
{
    struct xs_dir *d = dir_of(xs, id);
    if (!d)
        return;
    /* The newest episode of this kind, if it is the one going on or this
     * note touches it. */
    struct xs_episode *e = NULL;
    for (unsigned k = 0; k < XSRC_EPISODES; k++) {
        struct xs_episode *c = &d->ep[(d->last + XSRC_EPISODES - k) % XSRC_EPISODES];
        if (c->what == what) {
            if (c->open || t0 <= c->t1)
                e = c;
            break;
        }
    }
    if (!e) {
        d->last = (uint8_t)((d->last + 1) % XSRC_EPISODES);
        e = &d->ep[d->last];
        *e = (struct xs_episode){.t0 = t0, .t1 = t1, .what = (uint8_t)what};
    }
    if (t0 < e->t0)
        e->t0 = t0; /* a burst's placed start lies before its first high interval */
    if (t1 > e->t1)
        e->t1 = t1;
    e->open = open;
}

void fsc_xsrc_close(struct fsc_xsrc *xs, fsc_series_id id, unsigned what)
{
    struct xs_dir *d = dir_of(xs, id);
    for (unsigned k = 0; d && k < XSRC_EPISODES; k++)
        if (d->ep[k].what == what)
            d->ep[k].open = 0;
}

/* ---- annotating ---- */

void fsc_xsrc_annotate(const struct fsc_xsrc *xs, struct fsc_event *ev, const struct fsc_traits *tr,
                       int64_t t0, int64_t t1)
{
    const struct xs_series *s = series_find(xs, ev->series);
    if (!s || xs->ports[s->port].peer == 0)
        return;
    const struct xs_port *peer = &xs->ports[xs->ports[s->port].peer - 1];
    const struct xs_dir *d = &peer->dir[!s->dir]; /* what we send, it receives */

    /* How far the peer has reported, and the slower of the two update
     * periods: a 2 s Junos copy can only place congestion within 2 s. */
    int64_t period = fsc_rate_update_period(tr), reported = INT64_MIN;
    for (unsigned k = 0; k < d->n_rep; k++) {
        int64_t p, t_last;
        if (!xs->reported(xs->reported_arg, d->rep[k], &p, &t_last))
            continue;
        if (p > period)
            period = p;
        if (t_last > reported)
            reported = t_last;
    }
    uint8_t saw = FSC_PEER_LINKED;
    if (reported != INT64_MIN && reported >= t1)
        saw |= FSC_PEER_REPORTED;
    for (unsigned k = 0; k < XSRC_EPISODES; k++) {
        const struct xs_episode *e = &d->ep[k];
        if (e->what && e->t0 <= t1 + period && e->t1 >= t0 - period)
            saw |= e->what;
    }
    ev->peer_saw = saw;
    memcpy(ev->subject, peer->name, sizeof(ev->subject));
}
