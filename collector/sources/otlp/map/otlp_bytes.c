/* Release-aware Cumulus port bytes (otlp_bytes.h has the rules and why). */
#include "sources/otlp/map/otlp_bytes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define NV             "nvswitch_interface_"
#define MISS_MAX       3 /* exports a learned class may be absent before it leaves */
#define NO_BYTES_AFTER 3 /* requests with interface metrics before "no byte counter" */
#define DEVICES_FIRST  16u
#define PORTS_FIRST    256u
#define NAMES_FIRST    4096u
#define DERIVED_GAUGE  "fabric_port_bytes_derived"
#define KEY_MAX        (3 + 2 * (FSC_OTLP_LABEL_VALUE_MAX + 2))
#define RX_PLAN        NV "if_in_octets"
#define TX_PLAN        NV "if_out_octets"

/* Names and ranks per release: docs/vendors/cumulus.md (CumulusNetworks/docs,
 * content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md).
 * pg_tx_octets (5.11, 5.12: "priority group transmit bytes") is not a
 * source: a priority group is an ingress buffer, so what it would sum is
 * not documented. Sorted by name for bsearch. */
static const struct otlp_bytes_role roles[] = {
    /* 5.13+: "total number of octets of data (including those in bad
     * packets) received"; survives 5.15, where if_in_octets is dropped as
     * its duplicate (content/cumulus-linux-515/Whats-New/_index.md) */
    {NV "ether_stats_octets", OTLP_BYTES_DIRECT, OTLP_BYTES_RX, 4, 0, NULL, RX_PLAN},
    {NV "if_in_octets", OTLP_BYTES_DIRECT, OTLP_BYTES_RX, 3, 0, NULL, NULL},  /* 5.13, 5.14 */
    {NV "if_out_octets", OTLP_BYTES_DIRECT, OTLP_BYTES_TX, 3, 0, NULL, NULL}, /* 5.13+ */
    {NV "pg_rx_octet", OTLP_BYTES_CLASS, OTLP_BYTES_RX, 2, 8, "pg", NULL}, /* 5.10, 5.11, 5.13+ */
    {NV "pg_rx_octets", OTLP_BYTES_CLASS, OTLP_BYTES_RX, 2, 8, "pg", NV "pg_rx_octet"}, /* 5.12 */
    {NV "sp_rx_octets", OTLP_BYTES_CLASS, OTLP_BYTES_RX, 1, 8, "sp", NULL}, /* 5.11 .. 5.14 */
    {NV "sp_tx_octets", OTLP_BYTES_CLASS, OTLP_BYTES_TX, 1, 8, "sp", NULL}, /* 5.11 .. 5.14 */
    {NV "tc_tx_octet", OTLP_BYTES_CLASS, OTLP_BYTES_TX, 2, 16, "tc", NULL}, /* 5.10+ */
};

static int role_cmp(const void *k, const void *e)
{
    return strcmp(k, ((const struct otlp_bytes_role *)e)->name);
}

const struct otlp_bytes_role *otlp_bytes_role(const char *metric)
{
    if (strncmp(metric, NV, sizeof(NV) - 1) != 0)
        return NULL;
    return bsearch(metric, roles, sizeof(roles) / sizeof(roles[0]), sizeof(roles[0]), role_cmp);
}

const char *otlp_bytes_plan_name(const char *metric)
{
    const struct otlp_bytes_role *r = otlp_bytes_role(metric);
    return r && r->plan_as ? r->plan_as : metric;
}

bool otlp_bytes_interface_metric(const char *metric)
{
    return strncmp(metric, NV, sizeof(NV) - 1) == 0;
}

int otlp_bytes_class_of(const char *v, uint32_t n, uint8_t n_class)
{
    if (n == 0 || n > 2)
        return -1;
    int c = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        c = c * 10 + (v[i] - '0');
    }
    return c < n_class ? c : -1;
}

/* ---- lifecycle ----------------------------------------------------------------- */

void otlp_bytes_init(struct otlp_bytes *ob, struct otlp_series *ser, otlp_bytes_apply_fn apply,
                     void *ctx)
{
    ob->ser = ser;
    ob->apply = apply;
    ob->ctx = ctx;
}

void otlp_bytes_fini(struct otlp_bytes *ob)
{
    free(ob->dev);
    free(ob->port);
    free(ob->slot);
    free(ob->names);
    free(ob->touched);
    memset(ob, 0, sizeof(*ob));
}

void otlp_bytes_begin(struct otlp_bytes *ob)
{
    ob->req++;
    if (ob->req == 0) /* 0 means "never": skip it on wrap */
        ob->req = 1;
    ob->n_touched = 0;
}

/* ---- tables --------------------------------------------------------------------- */

/* Grows *p (elements of size sz, capacity *cap) to hold need, at most max.
 * Returns 0 or -ENOMEM. */
static int grow(struct otlp_bytes *ob, void **p, uint32_t *cap, uint32_t need, size_t sz,
                uint32_t first, uint32_t max)
{
    if (need <= *cap)
        return 0;
    if (need > max)
        return -ENOMEM;
    uint32_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    if (c > max)
        c = max;
    void *n = realloc(*p, (size_t)c * sz);
    if (!n)
        return -ENOMEM;
    ob->memory += (size_t)(c - *cap) * sz;
    ob->allocs++;
    *p = n;
    *cap = c;
    return 0;
}

uint32_t otlp_bytes_device(struct otlp_bytes *ob, const char *device)
{
    /* Linear: called once per resource, and a collector sees ~100 switches. */
    for (uint32_t i = 0; i < ob->n_dev; i++)
        if (strcmp(ob->dev[i].name, device) == 0)
            return i;
    if (grow(ob, (void **)&ob->dev, &ob->cap_dev, ob->n_dev + 1, sizeof(*ob->dev), DEVICES_FIRST,
             OTLP_BYTES_MAX_DEVICES) != 0)
        return OTLP_BYTES_NONE;
    struct ob_device *d = &ob->dev[ob->n_dev];
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%s", device);
    return ob->n_dev++;
}

void otlp_bytes_interface_seen(struct otlp_bytes *ob, uint32_t dev)
{
    if (dev < ob->n_dev)
        ob->dev[dev].seen_req = ob->req;
}

static uint64_t port_hash(uint32_t dev, const char *port, uint32_t plen)
{
    return fsc_hash_bytes(port, plen, 0x9e3779b97f4a7c15ull * (dev + 1));
}

static bool port_is(const struct otlp_bytes *ob, const struct ob_port *p, uint64_t h, uint32_t dev,
                    const char *port, uint32_t plen)
{
    return p->hash == h && p->dev == dev && p->name_len == plen &&
           memcmp(ob->names + p->name_off, port, plen) == 0;
}

/* Rebuilds the index for cap_port ports (load <= 1/2). */
static int reindex(struct otlp_bytes *ob)
{
    uint32_t n = 1;
    while (n < 2 * ob->cap_port)
        n *= 2;
    if (n - 1 == ob->mask && ob->slot)
        return 0;
    uint32_t *s = calloc(n, sizeof(*s));
    if (!s)
        return -ENOMEM;
    ob->memory += (size_t)(n - (ob->slot ? ob->mask + 1 : 0)) * sizeof(*s);
    ob->allocs++;
    free(ob->slot);
    ob->slot = s;
    ob->mask = n - 1;
    for (uint32_t i = 0; i < ob->n_port; i++) {
        uint32_t k = (uint32_t)ob->port[i].hash & ob->mask;
        while (ob->slot[k])
            k = (k + 1) & ob->mask;
        ob->slot[k] = i + 1;
    }
    return 0;
}

/* The port's index (added when new, and marked touched in this request), or
 * OTLP_BYTES_NONE past the bounds or without memory. */
static uint32_t port_of(struct otlp_bytes *ob, uint32_t dev, const char *port, uint32_t plen)
{
    if (dev >= ob->n_dev || plen == 0 || plen > FSC_OTLP_LABEL_VALUE_MAX)
        return OTLP_BYTES_NONE;
    uint64_t h = port_hash(dev, port, plen);
    uint32_t k = ob->slot ? (uint32_t)h & ob->mask : 0, idx = OTLP_BYTES_NONE;
    for (; ob->slot && ob->slot[k]; k = (k + 1) & ob->mask)
        if (port_is(ob, &ob->port[ob->slot[k] - 1], h, dev, port, plen)) {
            idx = ob->slot[k] - 1;
            break;
        }
    if (idx == OTLP_BYTES_NONE) {
        if (grow(ob, (void **)&ob->port, &ob->cap_port, ob->n_port + 1, sizeof(*ob->port),
                 PORTS_FIRST, OTLP_BYTES_MAX_PORTS) != 0 ||
            grow(ob, (void **)&ob->touched, &ob->cap_touched, ob->cap_port, sizeof(*ob->touched),
                 PORTS_FIRST, OTLP_BYTES_MAX_PORTS) != 0 ||
            reindex(ob) != 0)
            return OTLP_BYTES_NONE;
        if (ob->names_used + plen + 1 > ob->names_cap) {
            size_t c = ob->names_cap ? ob->names_cap * 2 : NAMES_FIRST;
            while (c < ob->names_used + plen + 1)
                c *= 2;
            char *nn = realloc(ob->names, c);
            if (!nn)
                return OTLP_BYTES_NONE;
            ob->memory += c - ob->names_cap;
            ob->allocs++;
            ob->names = nn;
            ob->names_cap = c;
        }
        idx = ob->n_port++;
        struct ob_port *p = &ob->port[idx];
        memset(p, 0, sizeof(*p));
        p->hash = h;
        p->dev = dev;
        p->name_off = (uint32_t)ob->names_used;
        p->name_len = plen;
        memcpy(ob->names + ob->names_used, port, plen);
        ob->names[ob->names_used + plen] = '\0';
        ob->names_used += plen + 1;
        for (int d = 0; d < 2; d++)
            p->d[d].st_bytes = p->d[d].st_flag = OTLP_BYTES_NONE;
        k = (uint32_t)h & ob->mask;
        while (ob->slot[k])
            k = (k + 1) & ob->mask;
        ob->slot[k] = idx + 1;
    }
    struct ob_port *p = &ob->port[idx];
    if (p->touched != ob->req) {
        p->touched = ob->req;
        ob->touched[ob->n_touched++] = idx; /* n_touched <= n_port <= cap */
    }
    return idx;
}

/* ---- series ----------------------------------------------------------------------- */

/* State index of the derived-bytes series (flag false) or of the derived
 * gauge (flag true) of port p, direction d; made on first use. */
static uint32_t state_of(struct otlp_bytes *ob, struct ob_port *p, int d, bool flag)
{
    uint32_t *slot = flag ? &p->d[d].st_flag : &p->d[d].st_bytes;
    if (*slot != OTLP_BYTES_NONE)
        return *slot;
    const char *dev = ob->dev[p->dev].name, *port = ob->names + p->name_off;
    struct otlp_plan plan;
    memset(&plan, 0, sizeof(plan));
    if (flag) {
        snprintf(plan.m.canonical, sizeof(plan.m.canonical), "%s", DERIVED_GAUGE);
        snprintf(plan.m.label_name, sizeof(plan.m.label_name), "direction");
        snprintf(plan.m.label_value, sizeof(plan.m.label_value), "%s", d ? "tx" : "rx");
        plan.m.traits.kind = FSC_KIND_GAUGE;
        plan.m.traits.width = 53;
        plan.m.traits.scale = 1;
        plan.kind = FSC_KIND_GAUGE;
    } else if (otlp_series_plan(ob->ser, d ? TX_PLAN : RX_PLAN, FSC_OTLP_GAUGE, false, &plan) !=
               0) {
        return OTLP_BYTES_NONE;
    }
    plan.native = NULL; /* derived from other counters, not a name that arrived */
    /* A key no wire point can have: wire keys start with 'n' or 'h'. */
    uint8_t key[KEY_MAX], *k = key;
    size_t dl = strlen(dev);
    *k++ = flag ? 'g' : 'd';
    *k++ = (uint8_t)d;
    *k++ = (uint8_t)dl;
    memcpy(k, dev, dl);
    k += dl;
    *k++ = (uint8_t)p->name_len;
    memcpy(k, port, p->name_len);
    k += p->name_len;
    uint32_t n = (uint32_t)(k - key), n_ser = 0;
    uint64_t h = fsc_hash_bytes(key, n, 0);
    const uint32_t *idx = otlp_cache_find(ob->ser, key, n, h, &n_ser);
    if (!idx) {
        struct otlp_kv kv = {"interface", 9, port, p->name_len};
        struct otlp_ident id = {.device = dev, .kv = &kv, .n_kv = 1};
        const char *why;
        bool labels;
        idx = otlp_series_create(ob->ser, &id, &plan, key, n, h, &n_ser, &why, &labels);
    }
    if (!idx || n_ser != 1)
        return OTLP_BYTES_NONE;
    *slot = idx[0];
    return *slot;
}

/* Shows the derived gauge of p/d as on (1) or off (0), once per change. */
static void flag_set(struct otlp_bytes *ob, struct ob_port *p, int d, bool on, int64_t t)
{
    uint8_t want = on ? 1 : 2;
    if (p->d[d].flag == want || (!on && p->d[d].flag == 0))
        return;
    uint32_t st = state_of(ob, p, d, true);
    if (st == OTLP_BYTES_NONE)
        return;
    p->d[d].flag = want;
    ob->apply(ob->ctx, st, on ? 1.0 : 0.0, t, false);
}

/* ---- points ------------------------------------------------------------------------ */

bool otlp_bytes_direct(struct otlp_bytes *ob, uint32_t dev, const char *port, uint32_t plen,
                       const struct otlp_bytes_role *r, int64_t t, bool *reset)
{
    *reset = false;
    if (dev < ob->n_dev)
        ob->dev[dev].has_bytes = 1;
    uint32_t i = port_of(ob, dev, port, plen);
    if (i == OTLP_BYTES_NONE) {
        ob->st.unplaced++;
        return true; /* unfiltered beats dropped: a bound must not blank a port */
    }
    struct ob_port *p = &ob->port[i];
    struct ob_dir *d = &p->d[r->dir];
    if (r->rank < d->rank) {
        ob->st.dropped++;
        return false;
    }
    if (r->rank > d->rank) {
        *reset = d->rank != 0; /* another counter's values: a new baseline */
        bool was_derived = d->fam_rank != 0;
        d->rank = r->rank;
        d->fam_rank = 0;
        d->got = d->set = 0;
        d->t = 0;
        if (was_derived)
            flag_set(ob, p, r->dir, false, t);
    }
    return true;
}

/* Finishes the export being collected for p/d: emits its sum when it holds
 * every learned class. */
static void finish(struct otlp_bytes *ob, struct ob_port *p, int dir)
{
    struct ob_dir *d = &p->d[dir];
    if (d->t == 0)
        return;
    uint16_t fresh = d->got & (uint16_t)~d->set;
    if (fresh) {
        if (d->set)
            d->reset = 1; /* one more class in the sum: a new baseline */
        d->set |= fresh;
    }
    bool emit = (d->got & d->set) == d->set;
    if (!emit) {
        ob->st.incomplete++;
        if (++d->miss >= MISS_MAX) { /* reconfigured: the classes it still sends */
            d->set = d->got;
            d->miss = 0;
            d->reset = 1;
            emit = d->set != 0;
        }
    } else {
        d->miss = 0;
    }
    if (emit) {
        double sum = 0;
        for (unsigned c = 0; c < OTLP_BYTES_CLASSES; c++)
            if (d->set & (1u << c))
                sum += d->val[c];
        uint32_t st = state_of(ob, p, dir, false);
        if (st != OTLP_BYTES_NONE) {
            ob->apply(ob->ctx, st, sum, (int64_t)d->t, d->reset);
            d->reset = 0;
            ob->st.derived_samples++;
            flag_set(ob, p, dir, true, (int64_t)d->t);
        }
    }
    d->got = 0;
    d->t = 0;
}

void otlp_bytes_class(struct otlp_bytes *ob, uint32_t dev, const char *port, uint32_t plen,
                      const struct otlp_bytes_role *r, int cls, double v, int64_t t)
{
    if (dev < ob->n_dev)
        ob->dev[dev].has_bytes = 1;
    if (cls < 0 || cls >= (int)r->n_class) {
        ob->st.no_class++;
        return;
    }
    uint32_t i = port_of(ob, dev, port, plen);
    if (i == OTLP_BYTES_NONE) {
        ob->st.unplaced++;
        return;
    }
    struct ob_port *p = &ob->port[i];
    struct ob_dir *d = &p->d[r->dir];
    if (r->rank < d->rank) {
        ob->st.dropped++; /* a better source feeds this port */
        return;
    }
    if (r->rank > d->rank) { /* first class source, or a better family: start over */
        d->reset = d->rank != 0;
        d->rank = d->fam_rank = r->rank;
        d->got = d->set = 0;
        d->t = 0;
        d->miss = 0;
    }
    if (d->t != 0 && (uint64_t)t != d->t)
        finish(ob, p, r->dir); /* a new export: the last one is complete or not */
    d->t = (uint64_t)t;
    d->val[cls] = v;
    d->got |= (uint16_t)(1u << cls);
}

bool otlp_bytes_end(struct otlp_bytes *ob, char *warning, size_t cap)
{
    for (uint32_t i = 0; i < ob->n_touched; i++) {
        struct ob_port *p = &ob->port[ob->touched[i]];
        for (int d = 0; d < 2; d++)
            if (p->d[d].fam_rank)
                finish(ob, p, d);
    }
    ob->n_touched = 0;
    bool warned = false;
    for (uint32_t i = 0; i < ob->n_dev; i++) {
        struct ob_device *dv = &ob->dev[i];
        if (dv->seen_req != ob->req || dv->has_bytes)
            continue;
        if (dv->iface_requests < NO_BYTES_AFTER)
            dv->iface_requests++;
        if (dv->iface_requests >= NO_BYTES_AFTER && !dv->warned && !warned) {
            dv->warned = 1;
            warned = true;
            snprintf(warning, cap,
                     "device %s sends interface metrics but no port byte counter (no "
                     "ether_stats_octets, if_in_octets, if_out_octets, tc_tx_octet, pg_rx_octet "
                     "or sp_*_octets): its port bytes are unknown",
                     dv->name);
        }
    }
    return warned;
}

size_t otlp_bytes_devices(const struct otlp_bytes *ob,
                          void (*cb)(void *arg, const char *device, int has), void *arg)
{
    size_t n = 0;
    for (uint32_t i = 0; i < ob->n_dev; i++) {
        const struct ob_device *dv = &ob->dev[i];
        if (!dv->has_bytes && dv->iface_requests < NO_BYTES_AFTER)
            continue; /* not judged yet */
        cb(arg, dv->name, dv->has_bytes ? 1 : 0);
        n++;
    }
    return n;
}
