/* The events topic's message: one JSON document per detector event and its
 * key (docs/EVENTS.md; schema docs/schema/fabric-event.schema.json).
 *
 * The document names its schema version, the event id ("<run id>-<bus
 * seq>", the consumers' dedupe key), the type (fsc_event_kind_name) and
 * phase, where it happened (device and port from the series' labels; a port
 * group's name; a stream's "source/stream"), the series' other labels, times
 * as int64 nanoseconds in strings (exact in JavaScript) and as RFC 3339 with
 * nanoseconds, and the detector's figures under names that say what they are
 * (peak_utilization, bytes, duration_seconds, ...). The key is
 * "device/port", so one port's events stay in one partition, in order. */
#ifndef FSC_KAFKA_EVENT_JSON_H
#define FSC_KAFKA_EVENT_JSON_H

#include <stddef.h>

#include "config/config.h"
#include "engine/engine_keys.h"
#include "model/topology_keys.h"
#include "model/registry.h"
#include "engine/events.h"
#include "kafka/kafka_exporter.h"

/* The document's "schema": bumped when a field changes meaning or goes away
 * (adding a field is not a new version). */
#define FSC_KAFKA_EVENT_SCHEMA "fabricscope.event/1"

/* The encoder's context (the `arg` of fsc_kafka_event_encode). */
struct fsc_kafka_event_json {
    const struct fsc_registry *reg; /* labels and metric of event series; NULL: "series" only */
    const struct fsc_config *cfg;   /* port group names, gNMI devices, window widths; may be
                                     * NULL (groups are then named by number) */
    char run_id[FSC_KAFKA_RUN_ID_LEN + 1]; /* fsc_kafka_run_id_new() */
};

/* An fsc_kafka_encode_fn: arg is a struct fsc_kafka_event_json (borrowed,
 * read only, so one may serve several threads). Writes the document into
 * out[0..cap) (NUL-terminated) and the key into key[0..keycap). Returns the
 * document's length, or -E2BIG when the document or the key does not fit
 * (nothing usable is left in out then), -EINVAL for an event of unknown
 * kind or phase. Never allocates. Thread: any. */
int fsc_kafka_event_encode(void *arg, const struct fsc_event *ev, char *out, size_t cap, char *key,
                           size_t keycap);

#endif
