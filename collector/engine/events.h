/* The event stream: detectors publish, sinks subscribe (docs/DESIGN.md,
 * "Detectors and events").
 *
 * A bounded broadcast ring. Publishing never blocks and never allocates: the
 * oldest events are overwritten, and a subscriber that fell behind learns how
 * many it lost from fsc_event_poll(). Each subscriber has its own cursor, so
 * Kafka, the status page and tests read the same stream independently.
 *
 * Thread-safety: all functions may be called from any thread; one mutex guards
 * the ring (publish is a copy under it). */
#ifndef FSC_EVENTS_H
#define FSC_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/sample.h"

struct fsc_event_bus;
struct fsc_event_sub;

/* Creates a bus holding the last `capacity` events (0 is treated as 1).
 * Returns NULL on allocation failure. */
struct fsc_event_bus *fsc_event_bus_create(size_t capacity);

/* Frees the bus. All subscriptions must have been closed. NULL is a no-op. */
void fsc_event_bus_destroy(struct fsc_event_bus *bus);

/* Copies *ev into the ring, assigns and returns its seq. Never blocks for
 * long, never fails. Wakes subscribers waiting in fsc_event_wait(). */
uint64_t fsc_event_publish(struct fsc_event_bus *bus, const struct fsc_event *ev);

/* New subscription starting after the newest event. NULL on allocation failure. */
struct fsc_event_sub *fsc_event_subscribe(struct fsc_event_bus *bus);

/* Closes a subscription. NULL is a no-op. */
void fsc_event_unsubscribe(struct fsc_event_sub *sub);

/* Copies up to `max` events the subscriber has not seen, oldest first.
 * Returns how many; *lost (may be NULL) gets how many were overwritten before
 * this subscriber read them since the previous poll. */
size_t fsc_event_poll(struct fsc_event_sub *sub, struct fsc_event *out, size_t max, uint64_t *lost);

/* Waits up to timeout_ms for an unseen event (0 only checks; a negative
 * timeout waits without limit). Returns 1 if one is ready, 0 on timeout. */
int fsc_event_wait(struct fsc_event_sub *sub, int timeout_ms);

/* Total published so far. */
uint64_t fsc_event_bus_published(struct fsc_event_bus *bus);

/* Publishes an event that a source raised itself (the NIC source's cable
 * mismatches and PCIe degradations) exactly as the engine's detectors do:
 * counted in the engine's stats.events (START and INSTANT phases) and copied
 * to the bus the engine was created with (none: only counted). The event's
 * series names the series whose labels describe it. Thread: any; takes the
 * engine lock, then the bus lock. (An engine function: its home is engine.h;
 * declared here until that header takes it.) */
struct fsc_engine;
void fsc_engine_publish(struct fsc_engine *eng, const struct fsc_event *ev);

#endif
