/* Bounded gzip inflate for the OTLP receiver (internal to collector/sources/otlp).
 *
 * Both transports receive gzip bodies (HTTP `Content-Encoding: gzip`, gRPC
 * messages with `grpc-encoding: gzip`, which the gRPC server hands over still
 * compressed, see otlp_grpc.c) and must cap what they expand to: a few KiB of
 * gzip can expand to gigabytes. This inflater never allocates more than the
 * cap, whatever the input claims or contains. */
#ifndef FSC_OTLP_GZIP_H
#define FSC_OTLP_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* Inflates in[0..in_len): one gzip member (RFC 1952) or several
 * concatenated ones, as `gzip -c a b` writes. On success *out is a malloc'd
 * buffer the caller owns (free()) holding *out_len bytes, plus one spare byte
 * (so a text decoder may NUL-terminate); *out is NULL when *out_len is 0.
 * The buffer never grows beyond cap + 1 bytes.
 * Returns 0; -E2BIG when the output would exceed cap bytes; -EBADMSG with a
 * sentence in err when the input is not gzip, is truncated or corrupt, or
 * has trailing garbage; -ENOMEM. On error *out is NULL and nothing is kept.
 * Thread: any; no shared state. */
int fsc_otlp_gunzip(const uint8_t *in, size_t in_len, size_t cap, uint8_t **out, size_t *out_len,
                    char *err, size_t errlen);

#endif
