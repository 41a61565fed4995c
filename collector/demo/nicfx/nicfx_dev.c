/* One device's identity and defaults, counter lookup by name, and the
 * exact rates (nicfx.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nicfx.h"

int fsc_nicfx_ctr_find(const char *name)
{
    for (int c = 0; c < FSC_NICFX__CTRS; c++)
        if (strcmp(fsc_nicfx_ctrs[c].name, name) == 0)
            return c;
    return -1;
}

void fsc_nicfx_mac_text(char *out, size_t size, unsigned node, unsigned index)
{
    snprintf(out, size, "02:fc:%02x:00:%02x:00", node & 0xffu, index & 0xffu);
}

/* An interface name the kernel would accept: 1..15 bytes, no '/', no
 * white space, not "." or "..". */
static bool ifname_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= FSC_NICFX_NAME_MAX || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == ':' || (unsigned char)s[i] <= ' ')
            return false;
    return true;
}

int fsc_nicfx_dev_init(struct fsc_nicfx_dev *dev, unsigned node, unsigned index, const char *netdev,
                       char *err, size_t errlen)
{
    if (index >= FSC_NICFX_DEVICES_MAX) {
        snprintf(err, errlen, "device index %u: at most %d devices", index, FSC_NICFX_DEVICES_MAX);
        return -1;
    }
    if (!ifname_ok(netdev)) {
        snprintf(err, errlen, "'%s' is no interface name (1..%d bytes, no '/', ':' or space)",
                 netdev, FSC_NICFX_NAME_MAX - 1);
        return -1;
    }
    memset(dev, 0, sizeof(*dev));
    snprintf(dev->rdma, sizeof(dev->rdma), "mlx5_%u", index);
    snprintf(dev->netdev, sizeof(dev->netdev), "%s", netdev);
    snprintf(dev->bdf, sizeof(dev->bdf), "0000:%02x:00.0", 0x20u + index);
    dev->node = node;
    dev->index = index;
    dev->lifespan_ms = 10;
    dev->speed_mbps = 400000;
    dev->link_up = true;
    dev->gbps = (struct fsc_nicfx_rate){100, 1};
    dev->cnp_rate = dev->oos_rate = (struct fsc_nicfx_rate){0, 1};
    return 0;
}

/* ---- rates ------------------------------------------------------------------------- */

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *v = *v * 10 + d; false on overflow. */
static bool push_digit(uint64_t *v, unsigned d)
{
    if (*v > (UINT64_MAX - d) / 10)
        return false;
    *v = *v * 10 + d;
    return true;
}

/* Reads the digits at *s into *v (at least one); advances *s. Returns the
 * number of digits, or -1 on overflow. */
static int read_digits(const char **s, uint64_t *v)
{
    int n = 0;
    *v = 0;
    for (; **s >= '0' && **s <= '9'; (*s)++, n++)
        if (!push_digit(v, (unsigned)(**s - '0')))
            return -1;
    return n;
}

/* Multiplies *v by 10^e; false on overflow. */
static bool times_pow10(uint64_t *v, uint64_t e)
{
    for (; e > 0; e--)
        if (*v > UINT64_MAX / 10)
            return false;
        else
            *v *= 10;
    return true;
}

int fsc_nicfx_rate_parse(const char *text, struct fsc_nicfx_rate *rate)
{
    const char *s = text;
    uint64_t num = 0, den = 1;
    int n = read_digits(&s, &num);
    if (n < 0)
        return -EINVAL;
    if (*s == '/') {
        s++;
        if (n == 0 || read_digits(&s, &den) <= 0 || den == 0 || *s != '\0')
            return -EINVAL;
    } else {
        if (*s == '.') {
            s++;
            int f = 0;
            for (; *s >= '0' && *s <= '9'; s++, f++)
                if (!push_digit(&num, (unsigned)(*s - '0')) || !times_pow10(&den, 1))
                    return -EINVAL;
            n += f;
        }
        if (n == 0)
            return -EINVAL;
        if (*s == 'e' || *s == 'E') {
            s++;
            bool neg = *s == '-';
            if (*s == '-' || *s == '+')
                s++;
            uint64_t e;
            if (read_digits(&s, &e) <= 0 || e > 40)
                return -EINVAL;
            if (num != 0 && !times_pow10(neg ? &den : &num, e))
                return -EINVAL;
        }
        if (*s != '\0')
            return -EINVAL;
    }
    uint64_t g = gcd(num, den);
    rate->num = num / g;
    rate->den = den / g;
    return 0;
}

void fsc_nicfx_rate_format(const struct fsc_nicfx_rate *rate, char *out, size_t size)
{
    if (rate->den == 1)
        snprintf(out, size, "%" PRIu64, rate->num);
    else
        snprintf(out, size, "%" PRIu64 "/%" PRIu64, rate->num, rate->den);
}
