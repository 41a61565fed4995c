/* Per-producer records of one series combined into one value (Junos).
 *
 * Junos exports a line-card sensor from every Packet Forwarding Engine that
 * holds part of the object: the header's component_id (line card) and
 * sub_component_id (PFE) name the producer, and an interface that spans
 * line cards is reported once per line card. Juniper's own rule for such
 * data is addition: "Data aggregation is the simple addition of given
 * counter values from all the Packet Forwarding Engine instances" (On-Box
 * Aggregation Overview, https://www.juniper.net/documentation/us/en/software/
 * junos/interfaces-telemetry/topics/concept/on-box-aggregation-overview.html),
 * and "Data from different sources (such as multiple line cards) for the
 * same metric" is aggregated by the collector (Guidelines for Aggregating
 * Junos Telemetry Interface Data, .../concept/
 * data-aggregation-junos-telemetry-interface-guidelines.html). Gauges take
 * their max there (the peak of a queue is the largest producer's peak).
 *
 * So a series fed by a second producer becomes the sum (counters) or max
 * (gauges) of each producer's last value, emitted only once every producer
 * has reported; the first value after the set of producers changed is
 * flagged FSC_SMP_RESET, because the combined counter has a new baseline
 * (no rate is made across it). A series with one producer never gets here:
 * the decoder compares the producer with the one its cache slot remembers. */
#include <stdlib.h>
#include <string.h>

#include "sources/gnmi/gnmi_int.h"

struct gnmi_multi_entry {
    fsc_series_id series; /* FSC_SERIES_NONE = empty */
    uint8_t n;            /* producers known */
    uint8_t changed;      /* the producer set changed since the last emit */
    uint8_t have[GNMI_MULTI_PRODUCERS];
    uint8_t f64[GNMI_MULTI_PRODUCERS];
    uint64_t comp[GNMI_MULTI_PRODUCERS];
    union fsc_value v[GNMI_MULTI_PRODUCERS];
};

/* The table starts at MULTI_SLOTS_MIN slots and doubles while it fills,
 * up to the first power of two >= 2 x max: most targets have no series with
 * a second producer, and a decoder per stream and hundreds of targets per
 * collector made a table sized for `max` up front (2048 x 152 B, every slot
 * written) the largest fixed cost of a gNMI stream. */
#define MULTI_SLOTS_MIN 16u

struct gnmi_multi {
    struct gnmi_multi_entry *e;
    uint32_t mask, count, max, cap; /* cap: slots at most */
};

static struct gnmi_multi_entry *slots_new(uint32_t n)
{
    struct gnmi_multi_entry *e = calloc(n, sizeof(*e));
    for (uint32_t i = 0; e && i < n; i++)
        e[i].series = FSC_SERIES_NONE;
    return e;
}

struct gnmi_multi *gnmi_multi_create(uint32_t max)
{
    struct gnmi_multi *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    uint32_t cap = MULTI_SLOTS_MIN;
    while (cap < 2 * max)
        cap <<= 1;
    m->e = slots_new(MULTI_SLOTS_MIN);
    if (!m->e) {
        free(m);
        return NULL;
    }
    m->mask = MULTI_SLOTS_MIN - 1;
    m->max = max;
    m->cap = cap;
    return m;
}

/* Doubles the table (rehashing every entry). Returns 0, or -1 at the cap or
 * out of memory (the table is unchanged). */
static int multi_grow(struct gnmi_multi *m)
{
    uint32_t n = (m->mask + 1) * 2;
    if (n > m->cap)
        return -1;
    struct gnmi_multi_entry *e = slots_new(n);
    if (!e)
        return -1;
    for (uint32_t i = 0; i <= m->mask; i++) {
        if (m->e[i].series == FSC_SERIES_NONE)
            continue;
        uint32_t j = (uint32_t)(m->e[i].series * 0x9e3779b97f4a7c15ULL >> 32) & (n - 1);
        while (e[j].series != FSC_SERIES_NONE)
            j = (j + 1) & (n - 1);
        e[j] = m->e[i];
    }
    free(m->e);
    m->e = e;
    m->mask = n - 1;
    return 0;
}

void gnmi_multi_destroy(struct gnmi_multi *m)
{
    if (!m)
        return;
    free(m->e);
    free(m);
}

size_t gnmi_multi_memory(const struct gnmi_multi *m)
{
    return sizeof(*m) + (size_t)(m->mask + 1) * sizeof(*m->e);
}

/* The entry of `series`, created when absent; NULL when the table is full. */
static struct gnmi_multi_entry *entry_of(struct gnmi_multi *m, fsc_series_id series,
                                         uint64_t first_comp)
{
    uint32_t i = (uint32_t)(series * 0x9e3779b97f4a7c15ULL >> 32) & m->mask;
    while (m->e[i].series != FSC_SERIES_NONE && m->e[i].series != series)
        i = (i + 1) & m->mask; /* load <= 1/2: ends */
    struct gnmi_multi_entry *e = &m->e[i];
    if (e->series == series)
        return e;
    if (m->count >= m->max)
        return NULL;
    if (2 * (m->count + 1) > m->mask + 1) { /* keep the load <= 1/2 */
        if (multi_grow(m) != 0)
            return NULL;
        return entry_of(m, series, first_comp);
    }
    m->count++;
    memset(e, 0, sizeof(*e));
    e->series = series;
    e->comp[0] = first_comp; /* the producer the series had so far: no value kept */
    e->n = 1;
    e->changed = 1;
    return e;
}

int gnmi_multi_combine(struct gnmi_multi *m, fsc_series_id series, uint64_t first_comp,
                       uint64_t comp, int gauge, union fsc_value *v, uint32_t *smp_flags)
{
    struct gnmi_multi_entry *e = entry_of(m, series, first_comp);
    if (!e)
        return GNMI_MULTI_FULL;
    uint32_t k = 0;
    while (k < e->n && e->comp[k] != comp)
        k++;
    if (k == e->n) {
        if (e->n == GNMI_MULTI_PRODUCERS)
            return GNMI_MULTI_FULL;
        e->comp[e->n++] = comp;
        e->have[k] = 0;
        e->changed = 1;
    }
    e->v[k] = *v;
    e->f64[k] = (*smp_flags & FSC_SMP_F64) != 0;
    e->have[k] = 1;
    int any_f64 = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        if (!e->have[i])
            return GNMI_MULTI_WAIT; /* a producer has not reported since it joined */
        any_f64 |= e->f64[i];
    }
    union fsc_value out = {0};
    for (uint32_t i = 0; i < e->n; i++) {
        double d = e->f64[i] ? e->v[i].d : (double)e->v[i].u;
        if (gauge && any_f64)
            out.d = i == 0 || d > out.d ? d : out.d;
        else if (gauge)
            out.u = i == 0 || e->v[i].u > out.u ? e->v[i].u : out.u;
        else if (any_f64)
            out.d += d;
        else
            out.u += e->v[i].u; /* 64-bit producer counters: their sum wraps like them */
    }
    *v = out;
    *smp_flags = (*smp_flags & ~(uint32_t)FSC_SMP_F64) | (any_f64 ? FSC_SMP_F64 : 0);
    if (e->changed && !gauge)
        *smp_flags |= FSC_SMP_RESET; /* new producer set: a new baseline, no rate across */
    e->changed = 0;
    return GNMI_MULTI_EMIT;
}
