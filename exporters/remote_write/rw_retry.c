/* Retry decisions (contract in rw_retry.h). HTTP-dates are parsed by
 * libcurl's curl_getdate(), which knows all three forms RFC 9110 allows. */
#include "remote_write/rw_retry.h"

#include <curl/curl.h>
#include <errno.h>
#include <string.h>

bool fsc_rw_status_retryable(long status)
{
    return status == 0 || status == 429 || (status >= 500 && status <= 599);
}

int fsc_rw_retry_after_parse(const char *value, int64_t now_s, int64_t *delay_s)
{
    const char *p = value;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
        n--;
    if (n == 0)
        return -EINVAL;
    bool digits = true;
    for (size_t i = 0; i < n && digits; i++)
        digits = p[i] >= '0' && p[i] <= '9';
    int64_t d;
    if (digits) {
        d = 0;
        for (size_t i = 0; i < n && d <= FSC_RW_RETRY_AFTER_MAX_S; i++)
            d = d * 10 + (p[i] - '0'); /* stops growing past the cap: no overflow */
    } else {
        char date[64];
        if (n >= sizeof(date))
            return -EINVAL;
        memcpy(date, p, n);
        date[n] = '\0';
        time_t t = curl_getdate(date, NULL);
        if (t == (time_t)-1)
            return -EINVAL;
        d = (int64_t)t - now_s;
    }
    *delay_s = d < 0 ? 0 : d > FSC_RW_RETRY_AFTER_MAX_S ? FSC_RW_RETRY_AFTER_MAX_S : d;
    return 0;
}

int64_t fsc_rw_backoff_ns(int64_t initial_ns, int64_t max_ns, unsigned attempt, uint64_t rnd)
{
    int64_t c = initial_ns;
    for (unsigned k = 0; k < attempt && c < max_ns; k++)
        c = c > max_ns / 2 ? max_ns : c * 2;
    if (c > max_ns)
        c = max_ns;
    int64_t half = c / 2;
    /* rnd mod (span + 1): uniform enough for jitter (span << 2^64). */
    return half + (int64_t)(rnd % (uint64_t)(c - half + 1));
}

int64_t fsc_rw_retry_wait_ns(int64_t retry_after_s, int64_t initial_ns, int64_t max_ns,
                             unsigned attempt, uint64_t rnd)
{
    if (retry_after_s <= 0)
        return fsc_rw_backoff_ns(initial_ns, max_ns, attempt, rnd);
    return retry_after_s > max_ns / 1000000000LL ? max_ns : retry_after_s * 1000000000LL;
}
