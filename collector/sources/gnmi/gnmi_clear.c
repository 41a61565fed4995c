/* Ports of one gNMI stream and their last-clear: reset evidence (rate.h
 * rule 4).
 *
 * OpenConfig's last-clear (timeticks64, ns since the epoch of the last
 * clear of the interface's counters) is not a counter. Its change says that
 * every counter of the interface restarted, which a counter's own value shows
 * only when it went down: a cleared counter that grew past its old value by
 * the next sample would make a plausible rate out of nothing. The decoder
 * keeps, per port, the value seen last and the epoch (a count of changes of
 * any port) at which it last changed - never on the first sighting; each
 * counter's cache slot remembers the epoch its samples last looked at, so
 * its first sample at or after a change of its port carries FSC_SMP_RESET
 * and the engine restarts the baseline. Within one notification the order
 * does not matter: the counters after the last-clear leaf see the new epoch
 * as they are decoded, the ones before it are flagged when the notification
 * ends (gnmi_decode.c).
 *
 * One producer: an interface reported by several line cards has one
 * last-clear per producer, which need not agree; mixing them would make
 * every other sample reset evidence. The decoder follows the last-clear of
 * the producer that reported it first (its cache slot's); the others'
 * clears still show as a decrease of the combined sum (rate.h rule 6).
 * Ports are numbered in order of first sight and never move, so a slot
 * keeps a number, not a pointer. Memory: 32 bytes per port at most,
 * GNMI_PORTS_MAX ports per stream, nothing for a stream without ports. */
#include <stdlib.h>
#include <string.h>

#include "sources/gnmi/gnmi_int.h"

#define PORTS_MIN 16u /* ports of the first allocation; doubles up to max */

struct gnmi_ports *gnmi_ports_create(uint32_t max)
{
    struct gnmi_ports *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->max = max;
    p->memory = sizeof(*p);
    return p;
}

void gnmi_ports_destroy(struct gnmi_ports *p)
{
    if (!p)
        return;
    free(p->port);
    free(p->index);
    free(p);
}

uint64_t gnmi_port_key(const char *name, size_t n)
{
    uint64_t k = gnmi_key_hash((const uint8_t *)name, n, 0x504f5254ULL);
    return k ? k : 1; /* 0 marks "no port" */
}

static uint32_t *index_probe(uint32_t *index, uint32_t mask, const struct gnmi_port *port,
                             uint64_t key)
{
    uint32_t i = (uint32_t)key & mask;
    while (index[i] && port[index[i] - 1].key != key)
        i = (i + 1) & mask; /* load <= 1/2: ends */
    return &index[i];
}

/* Room for one more port: the array and the index (load <= 1/2) double. On
 * failure everything stays as it was. */
static int ports_grow(struct gnmi_ports *p)
{
    if (p->n < p->cap && (p->n + 1) * 2 <= p->mask + 1)
        return 0;
    uint32_t cap = p->cap ? 2 * p->cap : PORTS_MIN;
    struct gnmi_port *port = realloc(p->port, cap * sizeof(*port));
    if (!port)
        return -1;
    p->port = port;
    uint32_t *index = calloc(2 * (size_t)cap, sizeof(*index));
    if (!index)
        return -1; /* the larger array is kept: harmless */
    for (uint32_t k = 0; k < p->n; k++)
        *index_probe(index, 2 * cap - 1, port, port[k].key) = k + 1;
    free(p->index);
    p->index = index;
    p->mask = 2 * cap - 1;
    p->memory += (size_t)(cap - p->cap) * (sizeof(*port) + 2 * sizeof(*index));
    p->cap = cap;
    p->allocs++;
    return 0;
}

uint32_t gnmi_ports_intern(struct gnmi_ports *p, uint64_t key)
{
    if (p->index) {
        uint32_t no = *index_probe(p->index, p->mask, p->port, key);
        if (no)
            return no;
    }
    if (p->n >= p->max || ports_grow(p) != 0)
        return 0;
    p->port[p->n] = (struct gnmi_port){.key = key};
    *index_probe(p->index, p->mask, p->port, key) = ++p->n;
    return p->n;
}

int gnmi_ports_clear(struct gnmi_ports *p, uint32_t no, uint64_t clear)
{
    struct gnmi_port *e = &p->port[no - 1];
    if (e->seen && e->clear == clear)
        return 0;
    int changed = e->seen;
    e->seen = 1;
    e->clear = clear;
    if (changed)
        e->changed_at = ++p->epoch;
    return changed;
}
