/* Civil dates and RFC 3339 timestamps, the one implementation of the tree
 * (log lines, event text, Kafka documents, the web API, rollup file names,
 * the capacity report). Proleptic Gregorian calendar, UTC, no leap seconds
 * (POSIX time); no gmtime_r/timegm, so any int64 second works and nothing
 * depends on the C library's time_t or time zone. Pure functions: any
 * thread. */
#ifndef FSC_TIMEFMT_H
#define FSC_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest text of fsc_time_rfc3339 for any int64 ns time, with its NUL. */
#define FSC_RFC3339_MAX 40

/* Days since 1970-01-01 of the date y-m-d (m 1..12, d 1..31; a day past the
 * month's end counts on into the next month). Negative before 1970. */
int64_t fsc_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The date of day `days` since 1970-01-01 (negative before) into *y, *m
 * (1..12) and *d (1..31). */
void fsc_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* Writes sec seconds + nsec (0..999999999) nanoseconds since the epoch as
 * "YYYY-MM-DDTHH:MM:SS[.f]Z" into buf[0..size) (truncated, always
 * NUL-terminated when size > 0) with `digits` (0..9; more count as 9)
 * fraction digits, truncated, not rounded ("...:05.123Z" for 3). Years
 * before 0 or after 9999 are not RFC 3339: they print with a sign or more
 * digits. Returns buf. */
const char *fsc_time_rfc3339(int64_t sec, uint32_t nsec, unsigned digits, char *buf, size_t size);

/* The same for t_ns nanoseconds since the epoch (negative before it:
 * -1 ns is 1969-12-31T23:59:59.999999999Z). Returns buf. */
const char *fsc_time_rfc3339_ns(int64_t t_ns, unsigned digits, char *buf, size_t size);

#endif
