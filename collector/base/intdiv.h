/* Integer division that rounds toward minus infinity (C's / and % round
 * toward zero): what time arithmetic on aligned windows, copy grids and
 * rollup blocks needs for instants before an origin. Header only. */
#ifndef FSC_INTDIV_H
#define FSC_INTDIV_H

#include <stdint.h>

/* floor(a / b) for any a and b != 0. */
static inline int64_t fsc_floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

#endif
