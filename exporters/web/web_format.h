/* Number and text formatting shared by the web renderers (internal to
 * exporters/web): human units for the page, RFC 3339 times for both.
 * Every function writes a NUL-terminated string into buf (truncated when
 * short) and returns buf. Thread: any. */
#ifndef FSC_WEB_FORMAT_H
#define FSC_WEB_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* bytes/s as bits/s with a unit: "12.50 Gb/s", "800 b/s". */
const char *fsc_web_fmt_bitrate(double bytes_per_second, char *buf, size_t size);

/* A ratio as a percentage with one decimal: "98.7 %". */
const char *fsc_web_fmt_pct(double ratio, char *buf, size_t size);

/* Seconds, human: "850 ms", "2.5 s", "12 min", "3.0 h". */
const char *fsc_web_fmt_secs(double seconds, char *buf, size_t size);

/* Bytes, decimal units: "1.3 GB", "512 B". */
const char *fsc_web_fmt_bytes(double bytes, char *buf, size_t size);

/* A link speed: "400G", "2.5G", "100M" (fsc_speed_format's text). */
const char *fsc_web_fmt_speed(uint64_t bps, char *buf, size_t size);

/* ns since the epoch as 2026-11-29T22:38:36.123Z (milliseconds). */
const char *fsc_web_fmt_time(int64_t t_ns, char *buf, size_t size);

/* ns since the epoch for people, with its date and zone:
 * "2023-11-14 22:13:20 UTC" (digits 0) or "... 22:13:20.100 UTC" (3). */
const char *fsc_web_fmt_when(int64_t t_ns, unsigned digits, char *buf, size_t size);

/* A span for people: "850 ms", "45 s", "3 m 20 s", "2 h 5 m", "3 d 4 h"
 * (negative reads as 0). */
const char *fsc_web_fmt_span(double seconds, char *buf, size_t size);

/* A count or a rate for people: "20", "250.0 k", "1.5 M", "2.0 G". */
const char *fsc_web_fmt_count(double v, char *buf, size_t size);

/* A window length: "1s", "100ms" (the label /metrics uses). */
const char *fsc_web_fmt_window(int64_t ns, char *buf, size_t size);

/* ns since the epoch as whole milliseconds (floor). */
int64_t fsc_web_ms(int64_t t_ns);

#endif
