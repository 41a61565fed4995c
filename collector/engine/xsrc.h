/* Cross-source evidence (docs/DESIGN.md, "Cross-source evidence"): which port is
 * at the other end of a link, what congestion each linked port showed
 * lately, and the annotation of a port's burst and evidence events with
 * what its peer showed around them. Internal to the engine: the engine
 * owns the table (fsc_engine_peer_add() fills it), the detectors note and
 * annotate through the table their fsc_det_ctx carries, all under the engine
 * lock, so nothing here locks. What a peer's series last reported is asked
 * of the engine through a callback, so the table needs none of its types.
 *
 * A port is a "device:port" name; a series joins one port in the direction
 * of its traits. Traffic a port sends (tx) is what its peer receives (rx),
 * so an event on a port in direction d is compared with what the peer
 * showed in the other direction: a NIC's rx burst with the leaf port's
 * egress (tx) queue peak, and the other way round.
 *
 * Memory is bounded: at most FSC_XSRC_PORTS_MAX ports and
 * FSC_XSRC_SERIES_MAX series, each port keeping its last XSRC_EPISODES
 * congestion episodes per direction; nothing is allocated after a link is
 * made. */
#ifndef FSC_XSRC_H
#define FSC_XSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/event.h"
#include "model/sample.h"

#define FSC_XSRC_PORTS_MAX  65536u
#define FSC_XSRC_SERIES_MAX 262144u

struct fsc_xsrc;

/* How far series id has reported: fills *period_ns (its update period) and
 * *t_last (device time of its last sample) and returns true, or returns
 * false when the series has no rate baseline yet (it says nothing then).
 * Called under the lock the caller of fsc_xsrc_annotate() holds. */
typedef bool (*fsc_xsrc_reported_fn)(const void *arg, fsc_series_id id, int64_t *period_ns,
                                     int64_t *t_last);

/* Owns: the returned empty table, which asks reported(arg, ...) about a
 * peer's series when it annotates (arg is borrowed and must outlive the
 * table). Returns NULL on allocation failure. */
struct fsc_xsrc *fsc_xsrc_create(fsc_xsrc_reported_fn reported, const void *arg);

/* Frees the table. NULL is a no-op. */
void fsc_xsrc_destroy(struct fsc_xsrc *xs);

/* Bytes held (NULL: 0). */
size_t fsc_xsrc_memory(const struct fsc_xsrc *xs);

/* Series id (direction FSC_DIR_RX or FSC_DIR_TX) is one of port self's;
 * self's link ends at port peer (both "device:port", copied; cut to
 * FSC_EVENT_SUBJECT_MAX - 1 bytes). Linking again moves the series and
 * re-points self at the new peer. Returns 0, -EINVAL (no direction, empty
 * name, self == peer), -ENOSPC (the port or series limit) or -ENOMEM;
 * on failure nothing changed. */
int fsc_xsrc_link(struct fsc_xsrc *xs, fsc_series_id id, uint8_t direction, const char *self,
                  const char *peer);

/* Series id showed congestion `what` (one FSC_PEER_BURST /
 * FSC_PEER_QUEUE_PEAK / FSC_PEER_BUFFER_THRESHOLD) over [t0, t1] device
 * time. open: it is still going on (a burst in progress, a queue peak still
 * above its share): the next note of the same kind extends this episode
 * instead of starting one. A note that touches the last episode of its
 * kind extends it too, so a busy evidence counter does not flush the ring.
 * No-op for a series without a link or when xs is NULL (no table). */
void fsc_xsrc_note(struct fsc_xsrc *xs, fsc_series_id id, unsigned what, int64_t t0, int64_t t1,
                   bool open);

/* The open episode of `what` of series id, if any, has ended. */
void fsc_xsrc_close(struct fsc_xsrc *xs, fsc_series_id id, unsigned what);

/* Annotates ev (of series ev->series, whose update period tr gives) about
 * [t0, t1]: for a series with a link, sets ev->peer_saw (FSC_PEER_LINKED,
 * what the peer showed in the other direction overlapping [t0 - P, t1 + P]
 * with P the slower update period of the two, and FSC_PEER_REPORTED when
 * the peer has a sample at or after t1) and writes the peer's name into
 * ev->subject. Leaves ev alone otherwise (and when xs is NULL). */
void fsc_xsrc_annotate(const struct fsc_xsrc *xs, struct fsc_event *ev, const struct fsc_traits *tr,
                       int64_t t0, int64_t t1);

#endif
