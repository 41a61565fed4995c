/* Number text: the one integer and shortest-double formatter of the tree
 * (Prometheus exposition, JSON documents, config print-out, the web page).
 * Pure functions: any thread. */
#ifndef FSC_NUMFMT_H
#define FSC_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest text fsc_fmt_u64 / fsc_fmt_i64 / fsc_fmt_double write (no NUL). */
#define FSC_NUM_MAX 32

/* Writes v in decimal into buf (>= FSC_NUM_MAX bytes, not NUL-terminated)
 * and returns the length. */
size_t fsc_fmt_u64(char *buf, uint64_t v);
size_t fsc_fmt_i64(char *buf, int64_t v);

/* Writes v into buf (>= FSC_NUM_MAX bytes, not NUL-terminated) and returns
 * the length. Integral values below 2^53 as exact integers ("42", "-3");
 * anything else as the shortest %g text that reads back (strtod) as the
 * same double: the fewest of 15, 16 or 17 significant digits (from one digit
 * for subnormals, "5e-324"), printf's exponent form ("1e+21", "1e-07").
 * Non-finite values as "nan", "inf", "-inf": a format with other spellings
 * (Prometheus' NaN / +Inf, JSON's null) handles them before calling. */
size_t fsc_fmt_double(char *buf, double v);

/* v rounded to `digits` (1..17) significant decimal digits, as the nearest
 * double. Zero, non-finite values and digits out of range return v. */
double fsc_round_sig(double v, int digits);

/* v rounded to 7 significant digits: the precision of a value that was
 * stored as a float (a 1.25e10 B/s rate kept as a float reads back as
 * 12499999744; printing that would be false precision). */
double fsc_round_float(double v);

#endif
