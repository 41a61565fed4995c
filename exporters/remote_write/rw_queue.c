/* Bounded FIFO ring (contract in rw_queue.h). */
#include "remote_write/rw_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 4096

void fsc_rw_queue_init(struct fsc_rw_queue *q, size_t max)
{
    memset(q, 0, sizeof(*q));
    q->max = max ? max : 1;
}

void fsc_rw_queue_free(struct fsc_rw_queue *q)
{
    free(q->ring);
    size_t max = q->max;
    uint64_t dropped = q->dropped;
    memset(q, 0, sizeof(*q));
    q->max = max;
    q->dropped = dropped;
}

/* Doubles the ring (up to max), unwrapping it so head becomes 0. */
static int grow(struct fsc_rw_queue *q)
{
    size_t cap = q->cap ? q->cap * 2 : FIRST_CAP;
    if (cap > q->max)
        cap = q->max;
    struct fsc_rw_sample *r = malloc(cap * sizeof(*r));
    if (!r)
        return -ENOMEM;
    size_t first = q->cap - q->head < q->len ? q->cap - q->head : q->len;
    if (q->len) {
        memcpy(r, q->ring + q->head, first * sizeof(*r));
        memcpy(r + first, q->ring, (q->len - first) * sizeof(*r));
    }
    free(q->ring);
    q->ring = r;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int fsc_rw_queue_push(struct fsc_rw_queue *q, const struct fsc_rw_sample *s, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (q->len == q->cap && q->cap < q->max && rc == 0)
            rc = grow(q);
        if (q->cap == 0) { /* not even the first block: all of them are lost */
            q->dropped += n - i;
            return rc;
        }
        if (q->len == q->cap) {
            q->head = (q->head + 1) % q->cap;
            q->len--;
            q->dropped++;
        }
        q->ring[(q->head + q->len) % q->cap] = s[i];
        q->len++;
    }
    return rc;
}

size_t fsc_rw_queue_pop(struct fsc_rw_queue *q, struct fsc_rw_sample *out, size_t max)
{
    size_t n = 0;
    while (n < max && q->len > 0) {
        out[n++] = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->len--;
    }
    return n;
}
