/* Internal to the spool (kafka_spool.c: writing, reading, acks;
 * kafka_spool_open.c: opening and checking what a previous run left). */
#ifndef FSC_KAFKA_SPOOL_INT_H
#define FSC_KAFKA_SPOOL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kafka/kafka_spool.h"

#define KSPOOL_MAGIC     "FSCSPL01"
#define KSPOOL_ACK_MAGIC "FSCACK01"
#define KSPOOL_ACK_SIZE  32u
#define KSPOOL_MAX_SEGS  (1u << 20)
/* The read buffer holds the largest record whole. */
#define KSPOOL_RBUF (FSC_KSPOOL_REC_HDR + FSC_KSPOOL_MAX_KEY + FSC_KSPOOL_MAX_VALUE)
#define KSPOOL_WBUF (256u << 10)

struct kspool_seg {
    uint64_t id;
    uint64_t size; /* bytes, header included; the active segment's counts the buffer too */
};

struct fsc_kspool {
    struct fsc_kspool_options opt; /* dir points at dir_copy */
    char *dir_copy;
    int dirfd, lockfd;

    struct kspool_seg *segs; /* sorted by id */
    size_t n_segs, cap_segs;
    uint64_t next_id; /* id of the next segment created */

    /* Writing: the active segment is segs[n_segs - 1] when wfd >= 0. The
     * buffer always starts at a record boundary (or with the segment header
     * when wflushed is 0). */
    int wfd;
    uint64_t wseg;
    uint64_t wflushed; /* bytes of the active segment already written, whole records only */
    uint64_t wtorn;    /* bytes of a partly written record after wflushed that ftruncate
                        * failed to cut off: cut before anything else is written */
    char *wbuf;
    size_t wlen;
    uint64_t wrecs, wrec_bytes; /* records in wbuf and their bytes */
    bool dirty;                 /* written but not fsynced */
    bool dir_dirty; /* a segment was created or deleted since the last directory fsync */
    int64_t last_sync_ns;

    /* Reading: one segment's window [roff, roff + rlen) cached. */
    int rfd;
    uint64_t rseg;
    char *rbuf;
    uint64_t roff;
    size_t rlen;

    struct fsc_kspool_pos ack;      /* everything before it is delivered */
    struct fsc_kspool_pos ack_file; /* what the ack file says (read or last written) */
    bool ack_dirty;
    int64_t last_ack_ns;

    struct fsc_kspool_stats st;
};

/* Little-endian helpers. */
static inline uint32_t kspool_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t kspool_get64(const unsigned char *p)
{
    return (uint64_t)kspool_get32(p) | (uint64_t)kspool_get32(p + 4) << 32;
}

static inline void kspool_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void kspool_put64(unsigned char *p, uint64_t v)
{
    kspool_put32(p, (uint32_t)v);
    kspool_put32(p + 4, (uint32_t)(v >> 32));
}

/* CRC of a record: over its two length fields, key and value. */
uint32_t fsc_kspool_crc(const unsigned char *lens8, const void *key, size_t klen, const void *val,
                        size_t vlen);

/* "<16 hex digits>.fsq" into buf (at least 21 bytes). */
void fsc_kspool_seg_name(uint64_t id, char *buf, size_t size);

/* Index of the first segment with id >= `id` (n_segs if none). */
size_t fsc_kspool_seg_lower(const struct fsc_kspool *sp, uint64_t id);

/* Appends a segment entry (ids must grow). Returns 0 or -ENOMEM. */
int fsc_kspool_seg_push(struct fsc_kspool *sp, uint64_t id, uint64_t size);

/* Writes the ack file (tmp + rename). Returns 0 or -errno. */
int fsc_kspool_write_ack(struct fsc_kspool *sp);

/* Frees everything open() allocated; closes descriptors. */
void fsc_kspool_free(struct fsc_kspool *sp);

#endif
