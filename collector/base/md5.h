/* MD5 (RFC 1321), written from the RFC. Used only to place devices on
 * collector shards the way Prometheus' hashmod relabelling does
 * (model/shard.h); never for anything that needs a secure hash. */
#ifndef FSC_MD5_H
#define FSC_MD5_H

#include <stddef.h>
#include <stdint.h>

#define FSC_MD5_DIGEST 16

struct fsc_md5 {
    uint32_t state[4]; /* A, B, C, D */
    uint64_t bytes;    /* message length so far */
    unsigned char block[64];
    size_t used; /* bytes in block */
};

/* Starts a digest. Thread: any; a context is used by one thread at a time. */
void fsc_md5_init(struct fsc_md5 *md);

/* Adds len bytes of message. */
void fsc_md5_update(struct fsc_md5 *md, const void *data, size_t len);

/* Pads, writes the 16-byte digest into out and leaves md unusable until the
 * next fsc_md5_init(). */
void fsc_md5_final(struct fsc_md5 *md, unsigned char out[FSC_MD5_DIGEST]);

/* The digest of one buffer. */
void fsc_md5(const void *data, size_t len, unsigned char out[FSC_MD5_DIGEST]);

#endif
