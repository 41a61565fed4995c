/* One detector event as a line of `key=value` fields, for the log and for
 * humans: the event's kind and phase, the labels of its series from the
 * registry (device, port, ...), times as RFC 3339 UTC, and the kind-specific
 * numbers. */
#ifndef FSC_EVENT_TEXT_H
#define FSC_EVENT_TEXT_H

#include <stddef.h>

#include "model/registry.h"
#include "model/event.h"

/* Writes the fields into buf (always NUL-terminated, truncated if short).
 * reg is borrowed and may be NULL (then series=<id> instead of labels).
 * Returns the length written. Thread: any (registry reads are lock-free). */
size_t fsc_event_format(const struct fsc_event *ev, const struct fsc_registry *reg, char *buf,
                        size_t size);

#endif
