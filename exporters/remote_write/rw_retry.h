/* When to try a failed request again (remote_write 1.0: retry 5xx and 429
 * with backoff, honouring Retry-After; never retry other 4xx).
 *
 * Pure functions: the sender passes its clock and its random numbers, so the
 * unit test checks exact answers. */
#ifndef FSC_RW_RETRY_H
#define FSC_RW_RETRY_H

#include <stdbool.h>
#include <stdint.h>

/* Longest Retry-After honoured, seconds: a receiver asking for more (or a
 * date far away) is answered after this, so one bad header cannot park the
 * exporter for a day while its queue overflows. */
#define FSC_RW_RETRY_AFTER_MAX_S 300

/* Whether an HTTP status is retried: 429 and 5xx. status 0 (no response:
 * connection refused, timeout, TLS failure) is retried too. */
bool fsc_rw_status_retryable(long status);

/* Parses a Retry-After value: delta-seconds ("120") or an HTTP-date
 * ("Wed, 21 Oct 2015 07:28:00 GMT", and the obsolete RFC 850 and asctime
 * forms), relative to now_s (Unix seconds). Writes the delay in seconds,
 * clamped to [0, FSC_RW_RETRY_AFTER_MAX_S] (a date in the past is 0).
 * Returns 0, or -EINVAL for anything else (the caller then uses its
 * backoff). */
int fsc_rw_retry_after_parse(const char *value, int64_t now_s, int64_t *delay_s);

/* Jittered exponential backoff for attempt k (0 = the first retry): the
 * ceiling c = min(max_ns, initial_ns * 2^k); the delay is uniform in
 * [c/2, c] by rnd (any 64-bit value; equal jitter keeps retries from many
 * collectors apart without ever retrying at once). initial_ns <= max_ns,
 * both > 0. */
int64_t fsc_rw_backoff_ns(int64_t initial_ns, int64_t max_ns, unsigned attempt, uint64_t rnd);

/* The wait before retry `attempt`: the receiver's Retry-After when it named
 * one (retry_after_s > 0), but never past max_ns (the backoff's ceiling: a
 * receiver that asks for 5 minutes and recovers in 10 s must not stall
 * sending for the other 4 m 50 s); else the jittered backoff. 0 or -1
 * (none, or a date already past) take the backoff: a retry storm against a
 * failing receiver is what Retry-After 0 would make. */
int64_t fsc_rw_retry_wait_ns(int64_t retry_after_s, int64_t initial_ns, int64_t max_ns,
                             unsigned attempt, uint64_t rnd);

#endif
