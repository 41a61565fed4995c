/* The bounded sample queue between the reader (engine views) and the sender.
 *
 * A FIFO ring of samples that grows on demand up to `max` entries; when it is
 * full a push overwrites the oldest entry and counts it as dropped, because
 * during an outage the newest data is what an operator wants first when the
 * receiver comes back (Prometheus' remote_write makes the same choice at its
 * WAL's end). Memory: 24 bytes per sample held, never more than max * 24.
 *
 * Thread: not thread-safe; the exporter guards it with its own mutex. */
#ifndef FSC_RW_QUEUE_H
#define FSC_RW_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

/* What a queued sample is: which name and extra label the encoder gives it
 * (rw_batch.c), from the series' registry name and labels. */
enum fsc_rw_what {
    FSC_RW_RAW_COUNTER = 0, /* the raw counter under its family's name (_total) */
    FSC_RW_RAW_GAUGE,       /* the raw value under its family's name */
    FSC_RW_PORT_RATE,       /* fabric_port_bytes_per_second{direction} */
    FSC_RW_PORT_UTIL,       /* fabric_port_utilization_ratio{direction} */
    FSC_RW_DET_RATE,        /* the counter's rate family (<counter>_per_second) */
    FSC_RW_FINE_PORT_RATE,  /* fabric_port_fine_bytes_per_second{direction} */
    FSC_RW_FINE_RATE,       /* the counter's fine rate (<counter>_fine_per_second) */
    FSC_RW__WHAT_COUNT
};

struct fsc_rw_sample {
    fsc_series_id id;
    uint8_t what; /* enum fsc_rw_what */
    uint8_t dir;  /* enum fsc_direction, for the direction label */
    uint8_t pad_[2];
    int64_t t_ms;
    double value;
};

struct fsc_rw_queue {
    struct fsc_rw_sample *ring;
    size_t cap;  /* allocated entries */
    size_t max;  /* bound */
    size_t head; /* oldest */
    size_t len;
    uint64_t dropped; /* overwritten by pushes into a full queue */
};

/* Sets up an empty queue of at most max (>= 1) samples; nothing is
 * allocated until the first push. */
void fsc_rw_queue_init(struct fsc_rw_queue *q, size_t max);

/* Frees the ring; the queue is then empty (max kept). */
void fsc_rw_queue_free(struct fsc_rw_queue *q);

/* Appends n samples in order. When the queue is full, each push drops the
 * oldest (q->dropped counts them). Returns 0, or -ENOMEM when the ring could
 * not grow: then the queue behaves as full at its current size (the oldest
 * are dropped), so no sample is refused silently. */
int fsc_rw_queue_push(struct fsc_rw_queue *q, const struct fsc_rw_sample *s, size_t n);

/* Moves up to max samples, oldest first, into out; returns how many. */
size_t fsc_rw_queue_pop(struct fsc_rw_queue *q, struct fsc_rw_sample *out, size_t max);

#endif
