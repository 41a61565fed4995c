/* The event stream: detectors publish, sinks subscribe (docs/DESIGN.md,
 * "Detectors and events").
 *
 * A bounded broadcast ring. Publishing never blocks and never allocates: the
 * oldest events are overwritten, and a subscriber that fell behind learns how
 * many it lost from fsc_event_poll(). Each subscriber has its own cursor, so
 * Kafka, the status page and tests read the same stream independently.
 *
 * Thread-safety: one mutex (the bus lock) guards the ring; publish is a copy
 * under it. Each function states its thread, locks and what it owns. */
#ifndef FSC_EVENTS_H
#define FSC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/sample.h"

struct fsc_event_bus;
struct fsc_event_sub;

/* Creates a bus holding the last `capacity` events (0 is treated as 1).
 * Returns NULL on allocation failure.
 * Thread: any. Locks: none. Owns: the returned bus (fsc_event_bus_destroy). */
struct fsc_event_bus *fsc_event_bus_create(size_t capacity);

/* Frees the bus. All subscriptions must have been closed (they point into
 * it). NULL is a no-op.
 * Thread: any, once no other thread uses the bus. Locks: none. Owns: frees bus. */
void fsc_event_bus_destroy(struct fsc_event_bus *bus);

/* Copies *ev (its seq is ignored) into the ring, assigns and returns its seq.
 * Never allocates, never waits on subscribers, never fails. Wakes
 * subscribers waiting in fsc_event_wait().
 * Thread: any. Locks: the bus lock (taken after the engine lock by the
 * detectors: engine, then bus). Owns: nothing; *ev is copied. */
uint64_t fsc_event_publish(struct fsc_event_bus *bus, const struct fsc_event *ev);

/* New subscription starting after the newest event. NULL on allocation
 * failure.
 * Thread: any. Locks: the bus lock. Owns: the returned subscription
 * (fsc_event_unsubscribe, before the bus is destroyed); bus is borrowed. */
struct fsc_event_sub *fsc_event_subscribe(struct fsc_event_bus *bus);

/* Closes a subscription. NULL is a no-op.
 * Thread: the subscriber's. Locks: none. Owns: frees sub. */
void fsc_event_unsubscribe(struct fsc_event_sub *sub);

/* Copies up to `max` events the subscriber has not seen, oldest first.
 * Returns how many; *lost (may be NULL) gets how many were overwritten before
 * this subscriber read them since the previous poll.
 * Thread: the subscriber's (one at a time per subscription). Locks: the bus
 * lock. Owns: nothing; the events are copied into out. */
size_t fsc_event_poll(struct fsc_event_sub *sub, struct fsc_event *out, size_t max, uint64_t *lost);

/* Waits up to timeout_ms for an unseen event (0 only checks; a negative
 * timeout waits without limit). Returns 1 if one is ready, 0 on timeout.
 * Thread: the subscriber's. Locks: the bus lock, released while waiting.
 * Owns: nothing. */
int fsc_event_wait(struct fsc_event_sub *sub, int timeout_ms);

/* Total published so far.
 * Thread: any. Locks: the bus lock. Owns: nothing. */
uint64_t fsc_event_bus_published(struct fsc_event_bus *bus);

#endif
