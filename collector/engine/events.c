/* The event bus: a bounded broadcast ring (see events.h).
 *
 * Event number `seq` (1, 2, 3, ...) lives in slot (seq - 1) % capacity until
 * it is overwritten by event seq + capacity. The ring therefore always holds
 * the events [oldest, next_seq) with oldest = max(1, next_seq - capacity), and
 * a subscriber is nothing but a cursor: the seq it will read next. A cursor
 * that fell below `oldest` lost the difference; poll() reports that and moves
 * it up. Publishing is a copy under the mutex and never waits for anyone, so
 * a stuck sink can only lose its own events, never stall the detectors. */
#include "engine/events.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Two cache lines: the ring copies whole events under its lock. */
_Static_assert(sizeof(struct fsc_event) == 128, "struct fsc_event stays 128 bytes");

struct fsc_event_bus {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled on publish; uses CLOCK_MONOTONIC */
    struct fsc_event *ring;
    size_t capacity;
    uint64_t next_seq; /* seq the next published event gets (starts at 1) */
    unsigned waiters;  /* threads inside fsc_event_wait(): skip the broadcast when 0 */
};

struct fsc_event_sub {
    struct fsc_event_bus *bus;
    uint64_t cursor; /* next seq this subscriber reads */
};

/* Oldest seq still in the ring. Caller holds bus->mu. */
static uint64_t bus_oldest(const struct fsc_event_bus *bus)
{
    if (bus->next_seq - 1 <= bus->capacity)
        return 1;
    return bus->next_seq - bus->capacity;
}

/* Owns: the returned bus. capacity 0 is treated as 1 (the contract asks for
 * >= 1; a bus that can hold nothing would be useless, not dangerous).
 * Returns NULL on allocation failure. Thread: any. */
struct fsc_event_bus *fsc_event_bus_create(size_t capacity)
{
    struct fsc_event_bus *bus;
    pthread_condattr_t ca;

    if (capacity == 0)
        capacity = 1;
    if (capacity > SIZE_MAX / sizeof(struct fsc_event))
        return NULL;
    bus = calloc(1, sizeof(*bus));
    if (!bus)
        return NULL;
    bus->ring = calloc(capacity, sizeof(*bus->ring));
    if (!bus->ring)
        goto fail_ring;
    if (pthread_mutex_init(&bus->mu, NULL) != 0)
        goto fail_mutex;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_attr;
    /* Monotonic, so a wall-clock step never stretches or cuts a wait. */
    if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&bus->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        goto fail_attr;
    }
    pthread_condattr_destroy(&ca);
    bus->capacity = capacity;
    bus->next_seq = 1;
    return bus;

fail_attr:
    pthread_mutex_destroy(&bus->mu);
fail_mutex:
    free(bus->ring);
fail_ring:
    free(bus);
    return NULL;
}

/* Frees the bus. Every subscription must have been closed first (they point
 * into it). NULL is a no-op. Thread: any, once nobody else uses the bus. */
void fsc_event_bus_destroy(struct fsc_event_bus *bus)
{
    if (!bus)
        return;
    pthread_cond_destroy(&bus->cv);
    pthread_mutex_destroy(&bus->mu);
    free(bus->ring);
    free(bus);
}

/* Copies *ev (its seq is ignored) into the ring and returns the seq assigned.
 * Never allocates, never waits on subscribers. Thread: any; takes bus->mu. */
uint64_t fsc_event_publish(struct fsc_event_bus *bus, const struct fsc_event *ev)
{
    uint64_t seq;

    pthread_mutex_lock(&bus->mu);
    seq = bus->next_seq++;
    struct fsc_event *slot = &bus->ring[(seq - 1) % bus->capacity];
    *slot = *ev;
    slot->seq = seq;
    if (bus->waiters > 0)
        pthread_cond_broadcast(&bus->cv);
    pthread_mutex_unlock(&bus->mu);
    return seq;
}

/* Owns: the returned subscription (close with fsc_event_unsubscribe before
 * the bus is destroyed). It sees only events published after this call.
 * Returns NULL on allocation failure. Thread: any; takes bus->mu. */
struct fsc_event_sub *fsc_event_subscribe(struct fsc_event_bus *bus)
{
    struct fsc_event_sub *sub = calloc(1, sizeof(*sub));
    if (!sub)
        return NULL;
    sub->bus = bus;
    pthread_mutex_lock(&bus->mu);
    sub->cursor = bus->next_seq;
    pthread_mutex_unlock(&bus->mu);
    return sub;
}

/* Frees a subscription. NULL is a no-op. Thread: the subscriber's. */
void fsc_event_unsubscribe(struct fsc_event_sub *sub)
{
    free(sub);
}

/* Copies up to max unseen events, oldest first; *lost gets how many were
 * overwritten before this subscriber could read them (since the last poll).
 * Returns the number copied. Thread: the subscriber's; takes bus->mu. */
size_t fsc_event_poll(struct fsc_event_sub *sub, struct fsc_event *out, size_t max, uint64_t *lost)
{
    struct fsc_event_bus *bus = sub->bus;
    uint64_t missed = 0;
    size_t n = 0;

    pthread_mutex_lock(&bus->mu);
    uint64_t oldest = bus_oldest(bus);
    if (sub->cursor < oldest) {
        missed = oldest - sub->cursor;
        sub->cursor = oldest;
    }
    while (n < max && sub->cursor < bus->next_seq) {
        out[n++] = bus->ring[(sub->cursor - 1) % bus->capacity];
        sub->cursor++;
    }
    pthread_mutex_unlock(&bus->mu);
    if (lost)
        *lost = missed;
    return n;
}

/* Absolute CLOCK_MONOTONIC deadline timeout_ms from now. */
static struct timespec deadline_after(int timeout_ms)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Waits until an unseen event exists or timeout_ms passes (0: just check;
 * negative: no limit, as poll(2)). Returns 1 if an event is ready, 0 on
 * timeout. Thread: the subscriber's; takes bus->mu. */
int fsc_event_wait(struct fsc_event_sub *sub, int timeout_ms)
{
    struct fsc_event_bus *bus = sub->bus;
    struct timespec until = {0, 0};
    int ready;

    if (timeout_ms > 0)
        until = deadline_after(timeout_ms);
    pthread_mutex_lock(&bus->mu);
    bus->waiters++;
    while (sub->cursor >= bus->next_seq && timeout_ms != 0) {
        int rc;
        if (timeout_ms < 0)
            rc = pthread_cond_wait(&bus->cv, &bus->mu);
        else
            rc = pthread_cond_timedwait(&bus->cv, &bus->mu, &until);
        if (rc == ETIMEDOUT)
            break;
    }
    bus->waiters--;
    ready = sub->cursor < bus->next_seq;
    pthread_mutex_unlock(&bus->mu);
    return ready;
}

/* Total events published since the bus was created. Thread: any. */
uint64_t fsc_event_bus_published(struct fsc_event_bus *bus)
{
    pthread_mutex_lock(&bus->mu);
    uint64_t n = bus->next_seq - 1;
    pthread_mutex_unlock(&bus->mu);
    return n;
}
