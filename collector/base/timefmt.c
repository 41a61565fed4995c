/* Civil dates and RFC 3339 text (see timefmt.h). The date conversions are
 * H. Hinnant's days_from_civil / civil_from_days ("chrono-Compatible
 * Low-Level Date Algorithms"): eras of 400 years (146097 days), the year
 * starting on March 1 so the leap day is the era's last. */
#include "base/timefmt.h"

#include <inttypes.h>
#include <stdio.h>

int64_t fsc_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void fsc_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

const char *fsc_time_rfc3339(int64_t sec, uint32_t nsec, unsigned digits, char *buf, size_t size)
{
    int64_t days = sec / 86400, rem = sec % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    unsigned m, d;
    fsc_civil_from_days(days, &y, &m, &d);
    char frac[11] = "";
    if (digits > 9)
        digits = 9;
    if (digits > 0) {
        uint32_t f = nsec % 1000000000u;
        for (unsigned i = digits; i < 9; i++)
            f /= 10;
        snprintf(frac, sizeof(frac), ".%0*" PRIu32, (int)digits, f);
    }
    snprintf(buf, size, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u%sZ", y, m, d,
             (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60), frac);
    return buf;
}

const char *fsc_time_rfc3339_ns(int64_t t_ns, unsigned digits, char *buf, size_t size)
{
    int64_t sec = t_ns / 1000000000, nsec = t_ns % 1000000000;
    if (nsec < 0) {
        nsec += 1000000000;
        sec--;
    }
    return fsc_time_rfc3339(sec, (uint32_t)nsec, digits, buf, size);
}
