/* The times `report` takes (--from, --to, --compare): contract in
 * report.h, fsc_report_parse_time(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timefmt.h"
#include "config/config.h"
#include "commands/report.h"

/* "now", "-24h" / "-7d", Unix seconds, "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS]Z". */
int fsc_report_parse_time(const char *s, int64_t now, int64_t *out)
{
    size_t len = strlen(s);
    if (strcmp(s, "now") == 0) {
        *out = now;
        return 0;
    }
    if (s[0] == '-') {
        int64_t ns;
        if (len >= 3 && s[len - 1] == 'd' && strspn(s + 1, "0123456789") == len - 2) {
            *out = now - atoll(s + 1) * 86400;
            return 0;
        }
        if (fsc_duration_parse(s + 1, &ns) != 0)
            return -1;
        *out = now - ns / 1000000000;
        return 0;
    }
    if (strspn(s, "0123456789") == len && len > 0 && len < 13) {
        *out = atoll(s);
        return 0;
    }
    unsigned y, mo, d, h = 0, mi = 0, se = 0;
    char tail[4] = "";
    int n;
    if (len == 10 && sscanf(s, "%4u-%2u-%2u%n", &y, &mo, &d, &n) == 3 && n == 10) {
        /* a date alone: midnight UTC */
    } else if (sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2u%1[Z]", &y, &mo, &d, &h, &mi, &se, tail) == 7 ||
               (se = 0, sscanf(s, "%4u-%2u-%2uT%2u:%2u%1[Z]", &y, &mo, &d, &h, &mi, tail) == 6)) {
        if (strlen(s) > 20)
            return -1;
    } else {
        return -1;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    *out = fsc_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}
