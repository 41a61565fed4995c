/* gNMI subscription planner: one SubscribeRequest per configured stream.
 *
 * Pure functions (no I/O, no globals): config in, packed request bytes out,
 * so the exact bytes a device receives are unit-tested. Every request is
 * STREAM mode with the configured encoding, no prefix, and never `qos` (a
 * Junos target answers UNIMPLEMENTED "Qos not supported", as reported in
 * akarneliuk/pygnmi#131).
 * Paths are written in the usual gNMI string form, "/a/b[k=v][k2=v2]/c";
 * a '/' inside [] belongs to the key value, and a backslash escapes the next
 * character inside [] ("\]" is a literal ']'). */
#ifndef FSC_GNMI_PLAN_H
#define FSC_GNMI_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "sources/gnmi/gnmi_config.h"
#include "sources/gnmi/gnmi_grid.h"
#include "gnmi.pb-c.h"

#define FSC_GNMI_PLAN_MAX_BYTES (256 * 1024) /* one packed SubscribeRequest */

/* Parses `text` into a newly allocated Gnmi__Path (elems and keys only; no
 * origin or target). Returns 0 and *out (owned by the caller, free with
 * fsc_gnmi_path_free), or -EINVAL (bad syntax) / -ENOMEM with a sentence in
 * err. Thread: any. */
int fsc_gnmi_path_parse(const char *text, Gnmi__Path **out, char *err, size_t errlen);

/* Frees a path from fsc_gnmi_path_parse. NULL is a no-op. */
void fsc_gnmi_path_free(Gnmi__Path *path);

/* Builds and packs the SubscribeRequest for gc->streams[idx]: one
 * Subscription per path (SAMPLE with the stream's sample_interval_ns put on
 * gc->interval_grid_ns (fsc_gnmi_interval_on_grid), or
 * ON_CHANGE with none), list mode STREAM, the source's encoding, the
 * stream's updates_only. Returns 0 with *buf (malloc'ed, owned by the caller)
 * and *len, or a negative errno with a sentence in err (bad path, request
 * over FSC_GNMI_PLAN_MAX_BYTES, out of memory). Thread: any. */
int fsc_gnmi_plan_request(const struct fsc_gnmi_config *gc, size_t idx, uint8_t **buf, size_t *len,
                          char *err, size_t errlen);

#endif
