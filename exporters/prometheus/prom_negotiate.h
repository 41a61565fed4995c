/* Content negotiation for GET /metrics: which exposition format the client's
 * Accept header prefers, and whether its Accept-Encoding allows gzip.
 *
 * Pure string functions (no allocation, no locale), so they are safe on any
 * thread and easy to test table-driven. Parsing is tolerant: a malformed list
 * element is skipped, never an error, because a scraper with an odd header
 * should still get the default (text 0.0.4, identity). */
#ifndef FSC_PROM_NEGOTIATE_H
#define FSC_PROM_NEGOTIATE_H

#include "prometheus/prom_render.h"

/* The format an Accept header value asks for; NULL or empty gives text.
 *
 * Each offer (OpenMetrics 1.0.0, text 0.0.4) gets the q of the most specific
 * media range that matches it, as RFC 9110 12.5.1 orders them: the exact type,
 * then "application/" or "text/" with a wildcard subtype, then the full
 * wildcard. An exact range whose version parameter is not ours (1.0.0, 0.0.4)
 * does not match. OpenMetrics wins when its q is higher than text's, or equal
 * and it was named explicitly; so a bare full wildcard keeps the text default
 * and "application/openmetrics-text;q=0" refuses OpenMetrics. Thread: any. */
enum fsc_prom_format fsc_prom_negotiate_format(const char *accept);

/* 1 when an Accept-Encoding value allows gzip ("gzip" or "x-gzip" with q > 0,
 * or "*" with q > 0 when gzip is not listed), else 0. NULL gives 0.
 * Thread: any. */
int fsc_prom_negotiate_gzip(const char *accept_encoding);

/* Parses an HTTP qvalue ("0", "0.5", "1", "1.000") into thousandths (0..1000).
 * Returns -1 when s[0..n) is not a valid qvalue. Thread: any. */
int fsc_prom_parse_qvalue(const char *s, size_t n);

#endif
