/* Link speeds learned from the devices: the table, its precedence rule and
 * the re-traits (contract and rule in link_speed.h). */
#include "engine/link_speed.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "engine/topo_peers.h"

#define PORTS_MIN  16u
#define SERIES_MIN 64u
#define DEVS_MIN   4u

/* One series that takes its port's speed; entries of a port are chained. */
struct ls_series {
    fsc_series_id id;
    uint32_t next; /* the port's next entry + 1; 0 = last */
    uint8_t signal, direction;
};

struct ls_port {
    uint64_t hash;
    char *port;
    uint32_t dev;                          /* index into ls->dev */
    uint32_t first;                        /* the port's first series entry + 1; 0 = none */
    uint32_t byte_series;                  /* attached port-bytes series */
    uint64_t topo_bps;                     /* the topology's speed; 0 = it gives none */
    uint64_t report[FSC_LINK_SPEED_RANKS]; /* the device's reports by rank; 0 = unknown */
    uint64_t bps;                          /* the speed the series have; 0 = unknown */
    bool learned;                          /* bps came from a report */
};

/* Devices are few per source (one for a gNMI or NIC source, the switches
 * of one OTLP listener): found by a scan when a port is first seen, the
 * last one found first. */
struct ls_device {
    char *name;
    uint32_t byte_ports; /* ports with a port-bytes series */
    uint32_t unknown;    /* of those, ports without a speed */
};

struct fsc_link_speeds {
    pthread_mutex_t mu;
    struct fsc_engine *eng;
    const struct fsc_topology *topo;
    uint32_t max_ports, max_series;
    struct ls_port *port; /* by handle - 1, append-only: handles never move */
    uint32_t n_port, cap_port;
    uint32_t *index; /* open addressing over port hashes: handle, 0 = empty; load <= 1/2 */
    uint32_t mask;
    struct ls_series *ser;
    uint32_t n_ser, cap_ser;
    struct ls_device *dev;
    uint32_t n_dev, cap_dev, last_dev;
    struct fsc_link_speeds_stats st; /* the counters; the gauges are computed */
    size_t names;                    /* bytes of the names held */
};

struct fsc_link_speeds *fsc_link_speeds_create(struct fsc_engine *eng,
                                               const struct fsc_topology *topo, uint32_t max_ports,
                                               uint32_t max_series)
{
    struct fsc_link_speeds *ls = calloc(1, sizeof(*ls));
    if (!ls)
        return NULL;
    if (pthread_mutex_init(&ls->mu, NULL) != 0) {
        free(ls);
        return NULL;
    }
    ls->eng = eng;
    ls->topo = topo;
    ls->max_ports = max_ports ? max_ports : 1;
    ls->max_series = max_series ? max_series : 1;
    ls->last_dev = UINT32_MAX;
    return ls;
}

void fsc_link_speeds_destroy(struct fsc_link_speeds *ls)
{
    if (!ls)
        return;
    for (uint32_t i = 0; i < ls->n_port; i++)
        free(ls->port[i].port);
    for (uint32_t i = 0; i < ls->n_dev; i++)
        free(ls->dev[i].name);
    free(ls->port);
    free(ls->index);
    free(ls->ser);
    free(ls->dev);
    pthread_mutex_destroy(&ls->mu);
    free(ls);
}

/* ---- ports ---------------------------------------------------------------------- */

static uint64_t port_hash(const char *device, const char *port)
{
    uint64_t h = fsc_hash_bytes(device, strlen(device) + 1, 0x4c4e4b53ULL); /* NUL separates */
    h = fsc_hash_bytes(port, strlen(port), h);
    return h ? h : 1;
}

/* The index slot of (device, port): its handle, or the empty slot where it
 * goes. The index is at most half full, so the probe ends. */
static uint32_t *index_slot(const struct fsc_link_speeds *ls, uint64_t h, const char *device,
                            const char *port)
{
    uint32_t i = (uint32_t)h & ls->mask;
    while (ls->index[i]) {
        const struct ls_port *p = &ls->port[ls->index[i] - 1];
        if (p->hash == h && strcmp(p->port, port) == 0 && strcmp(ls->dev[p->dev].name, device) == 0)
            return &ls->index[i];
        i = (i + 1) & ls->mask;
    }
    return &ls->index[i];
}

/* Room for one more port (array and index, load <= 1/2). On failure
 * everything stays as it was. */
static int ports_grow(struct fsc_link_speeds *ls)
{
    if (ls->n_port < ls->cap_port && (ls->n_port + 1) * 2 <= ls->mask + 1)
        return 0;
    uint32_t cap = ls->cap_port ? 2 * ls->cap_port : PORTS_MIN;
    struct ls_port *port = realloc(ls->port, (size_t)cap * sizeof(*port));
    if (!port)
        return -ENOMEM;
    ls->port = port;
    ls->cap_port = cap;
    uint32_t *index = calloc(2 * (size_t)cap, sizeof(*index));
    if (!index)
        return -ENOMEM; /* the larger array is kept: harmless */
    for (uint32_t k = 0; k < ls->n_port; k++) {
        uint32_t i = (uint32_t)port[k].hash & (2 * cap - 1);
        while (index[i])
            i = (i + 1) & (2 * cap - 1);
        index[i] = k + 1;
    }
    free(ls->index);
    ls->index = index;
    ls->mask = 2 * cap - 1;
    return 0;
}

/* The index of device `name`, added when new; UINT32_MAX on ENOMEM. */
static uint32_t device_of(struct fsc_link_speeds *ls, const char *name)
{
    if (ls->last_dev < ls->n_dev && strcmp(ls->dev[ls->last_dev].name, name) == 0)
        return ls->last_dev;
    for (uint32_t i = 0; i < ls->n_dev; i++)
        if (strcmp(ls->dev[i].name, name) == 0)
            return ls->last_dev = i;
    if (ls->n_dev == ls->cap_dev) {
        uint32_t cap = ls->cap_dev ? 2 * ls->cap_dev : DEVS_MIN;
        struct ls_device *dev = realloc(ls->dev, (size_t)cap * sizeof(*dev));
        if (!dev)
            return UINT32_MAX;
        ls->dev = dev;
        ls->cap_dev = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return UINT32_MAX;
    ls->names += strlen(name) + 1;
    ls->dev[ls->n_dev] = (struct ls_device){.name = copy};
    return ls->last_dev = ls->n_dev++;
}

uint32_t fsc_link_speeds_port(struct fsc_link_speeds *ls, const char *device, const char *port)
{
    if (!ls || !device || !*device || !port || !*port)
        return 0;
    uint64_t h = port_hash(device, port);
    uint32_t handle = 0;
    pthread_mutex_lock(&ls->mu);
    if (ls->index && (handle = *index_slot(ls, h, device, port)) != 0)
        goto out;
    char *name = NULL;
    uint32_t dev = UINT32_MAX;
    if (ls->n_port >= ls->max_ports || ports_grow(ls) != 0 ||
        (dev = device_of(ls, device)) == UINT32_MAX || !(name = strdup(port))) {
        ls->st.untracked_ports++;
        goto out;
    }
    const struct fsc_topo_port *tp =
        ls->topo ? fsc_topology_port(ls->topo, device, port, NULL) : NULL;
    struct ls_port *p = &ls->port[ls->n_port];
    *p = (struct ls_port){.hash = h, .port = name, .dev = dev};
    p->topo_bps = tp ? tp->speed_bps : 0;
    p->bps = p->topo_bps;
    ls->names += strlen(name) + 1;
    handle = ++ls->n_port;
    *index_slot(ls, h, device, port) = handle;
out:
    pthread_mutex_unlock(&ls->mu);
    return handle;
}

/* ---- speeds ------------------------------------------------------------------------- */

/* The port's speed by the rule of link_speed.h; *learned: from a report. */
static uint64_t port_speed(const struct ls_port *p, bool *learned)
{
    *learned = false;
    if (p->topo_bps)
        return p->topo_bps; /* rule 1: the operator's word */
    for (unsigned r = 0; r < FSC_LINK_SPEED_RANKS; r++) {
        if (p->report[r]) {
            *learned = true;
            return p->report[r]; /* rule 2 */
        }
    }
    *learned = p->learned;
    return p->bps; /* rules 3 and 4: the last one known, or none */
}

static bool port_unknown(const struct ls_port *p)
{
    return p->byte_series > 0 && p->bps == 0;
}

/* Keeps the device's counts after p's byte series or speed changed; was:
 * what port_unknown() and byte_series > 0 said before. */
static void device_recount(struct fsc_link_speeds *ls, const struct ls_port *p, bool was_bytes,
                           bool was_unknown)
{
    struct ls_device *d = &ls->dev[p->dev];
    bool bytes = p->byte_series > 0, unknown = port_unknown(p);
    if (bytes != was_bytes)
        d->byte_ports = bytes ? d->byte_ports + 1 : d->byte_ports - 1;
    if (unknown != was_unknown)
        d->unknown = unknown ? d->unknown + 1 : d->unknown - 1;
}

static struct ls_port *port_at(struct fsc_link_speeds *ls, uint32_t handle)
{
    return ls && handle >= 1 && handle <= ls->n_port ? &ls->port[handle - 1] : NULL;
}

/* attach and follow: `known` says the series' traits are set already (only
 * its speed is given, so nothing else of them changes). */
static int attach(struct fsc_link_speeds *ls, uint32_t port, fsc_series_id id,
                  struct fsc_traits *tr, bool known)
{
    if (!ls)
        return -EINVAL;
    pthread_mutex_lock(&ls->mu);
    struct ls_port *p = port_at(ls, port);
    int rc = -EINVAL;
    if (!p)
        goto out;
    tr->link_speed_bps = p->bps;
    /* Under the table lock: a report handled by another thread either
     * came before (its speed is in tr) or waits and re-traits this one. */
    rc = known ? fsc_engine_set_link_speed(ls->eng, id, p->bps) : -ENOENT;
    if (rc == -ENOENT)
        rc = fsc_engine_set_traits(ls->eng, id, tr);
    else if (rc == 0 && p->bps && tr->signal == FSC_SIG_PORT_BYTES) {
        /* interned while its speed was unknown (by an instance whose table
         * never heard it): the peer its microbursts read, as port_apply */
        int joined =
            fsc_topo_peer_join(ls->topo, ls->eng, ls->dev[p->dev].name, p->port, NULL, tr, id);
        rc = joined < 0 ? joined : 0;
    }
    if (rc != 0)
        goto out;
    for (uint32_t e = p->first; e; e = ls->ser[e - 1].next)
        if (ls->ser[e - 1].id == id)
            goto out; /* followed already */
    if (ls->n_ser >= ls->max_series) {
        ls->st.untracked_series++;
        goto out;
    }
    if (ls->n_ser == ls->cap_ser) {
        uint32_t cap = ls->cap_ser ? 2 * ls->cap_ser : SERIES_MIN;
        if (cap > ls->max_series)
            cap = ls->max_series;
        struct ls_series *ser = realloc(ls->ser, (size_t)cap * sizeof(*ser));
        if (!ser) {
            ls->st.untracked_series++;
            goto out;
        }
        ls->ser = ser;
        ls->cap_ser = cap;
    }
    ls->ser[ls->n_ser] = (struct ls_series){
        .id = id, .next = p->first, .signal = tr->signal, .direction = tr->direction};
    p->first = ++ls->n_ser;
    if (tr->signal == FSC_SIG_PORT_BYTES) {
        bool was_bytes = p->byte_series > 0, was_unknown = port_unknown(p);
        p->byte_series++;
        device_recount(ls, p, was_bytes, was_unknown);
    }
out:
    pthread_mutex_unlock(&ls->mu);
    return rc;
}

int fsc_link_speeds_attach(struct fsc_link_speeds *ls, uint32_t port, fsc_series_id id,
                           struct fsc_traits *tr)
{
    return attach(ls, port, id, tr, false);
}

int fsc_link_speeds_follow(struct fsc_link_speeds *ls, uint32_t port, fsc_series_id id,
                           struct fsc_traits *tr)
{
    return attach(ls, port, id, tr, true);
}

/* Applies p's new speed to its series: the engine's traits, and the topology
 * peer of a port-bytes series that gains a speed (its microbursts read the
 * peer). Returns 0 or the first engine error. Caller holds ls->mu. */
static int port_apply(struct fsc_link_speeds *ls, const struct ls_port *p, uint64_t old_bps)
{
    int first_rc = 0;
    for (uint32_t e = p->first; e; e = ls->ser[e - 1].next) {
        const struct ls_series *s = &ls->ser[e - 1];
        int rc = fsc_engine_set_link_speed(ls->eng, s->id, p->bps);
        if (rc == 0 && old_bps == 0 && s->signal == FSC_SIG_PORT_BYTES) {
            struct fsc_traits tr = {
                .signal = s->signal, .direction = s->direction, .link_speed_bps = p->bps};
            rc = fsc_topo_peer_join(ls->topo, ls->eng, ls->dev[p->dev].name, p->port, NULL, &tr,
                                    s->id);
            rc = rc < 0 ? rc : 0;
        }
        if (rc != 0) {
            ls->st.engine_errors++;
            if (first_rc == 0)
                first_rc = rc;
        }
    }
    return first_rc;
}

int fsc_link_speeds_learn(struct fsc_link_speeds *ls, uint32_t port, unsigned rank, uint64_t bps)
{
    if (!ls || rank >= FSC_LINK_SPEED_RANKS)
        return -EINVAL;
    pthread_mutex_lock(&ls->mu);
    struct ls_port *p = port_at(ls, port);
    int rc = 0;
    if (!p) {
        rc = -EINVAL;
    } else if (p->report[rank] != bps) {
        p->report[rank] = bps;
        ls->st.reports++;
        bool learned;
        uint64_t now = port_speed(p, &learned);
        p->learned = learned;
        if (now != p->bps) {
            bool was_bytes = p->byte_series > 0, was_unknown = port_unknown(p);
            uint64_t old = p->bps;
            p->bps = now;
            device_recount(ls, p, was_bytes, was_unknown);
            ls->st.changes++;
            rc = port_apply(ls, p, old);
            rc = rc < 0 ? rc : 1;
        }
    }
    pthread_mutex_unlock(&ls->mu);
    return rc;
}

uint64_t fsc_link_speeds_get(struct fsc_link_speeds *ls, uint32_t port)
{
    if (!ls)
        return 0;
    pthread_mutex_lock(&ls->mu);
    const struct ls_port *p = port_at(ls, port);
    uint64_t bps = p ? p->bps : 0;
    pthread_mutex_unlock(&ls->mu);
    return bps;
}

/* ---- views ------------------------------------------------------------------------- */

void fsc_link_speeds_stats(struct fsc_link_speeds *ls, struct fsc_link_speeds_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!ls)
        return;
    pthread_mutex_lock(&ls->mu);
    *out = ls->st;
    out->ports = ls->n_port;
    out->series = ls->n_ser;
    for (uint32_t i = 0; i < ls->n_port; i++) {
        const struct ls_port *p = &ls->port[i];
        out->ports_topology += p->topo_bps != 0;
        out->ports_learned += p->topo_bps == 0 && p->learned;
    }
    for (uint32_t i = 0; i < ls->n_dev; i++)
        out->ports_unknown += ls->dev[i].unknown;
    out->memory_bytes = sizeof(*ls) + (size_t)ls->cap_port * sizeof(*ls->port) +
                        (ls->index ? ((size_t)ls->mask + 1) * sizeof(*ls->index) : 0) +
                        (size_t)ls->cap_ser * sizeof(*ls->ser) +
                        (size_t)ls->cap_dev * sizeof(*ls->dev) + ls->names;
    pthread_mutex_unlock(&ls->mu);
}

size_t fsc_link_speeds_each_unknown(struct fsc_link_speeds *ls, size_t max,
                                    void (*fn)(void *arg, const char *device, const char *port,
                                               uint32_t byte_series),
                                    void *arg)
{
    if (!ls)
        return 0;
    size_t total = 0;
    pthread_mutex_lock(&ls->mu);
    for (uint32_t i = 0; i < ls->n_dev; i++)
        total += ls->dev[i].unknown;
    size_t shown = 0;
    for (uint32_t i = 0; i < ls->n_port && shown < max && shown < total; i++) {
        const struct ls_port *p = &ls->port[i];
        if (!port_unknown(p))
            continue;
        fn(arg, ls->dev[p->dev].name, p->port, p->byte_series);
        shown++;
    }
    pthread_mutex_unlock(&ls->mu);
    return total;
}

size_t fsc_link_speeds_each_device(struct fsc_link_speeds *ls,
                                   void (*fn)(void *arg, const char *device,
                                              uint32_t ports_unknown),
                                   void *arg)
{
    if (!ls)
        return 0;
    size_t calls = 0;
    pthread_mutex_lock(&ls->mu);
    for (uint32_t i = 0; i < ls->n_dev; i++) {
        if (ls->dev[i].byte_ports == 0)
            continue;
        fn(arg, ls->dev[i].name, ls->dev[i].unknown);
        calls++;
    }
    pthread_mutex_unlock(&ls->mu);
    return calls;
}
