/* The traffic and device model behind every case (contract in scenario.h).
 * Everything here is the generating formula: piecewise-constant rates whose
 * integrals are the counters, and the three ways a device hands them out. */
#include <math.h>
#include <string.h>

#include "scenario.h"

static double overlap_s(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? (double)(hi - lo) / 1e9 : 0.0;
}

static double line_bytes(const struct scn_case *c)
{
    return (double)c->speed_bps / 8.0;
}

double scn_bytes(const struct scn_case *c, unsigned port, int64_t t)
{
    const double line = line_bytes(c);
    const double tau = (double)(t - SCN_T0) / 1e9;
    double b = c->load[port] * line * tau;
    if (c->ramp[port])
        b += (c->ramp_to[port] - c->load[port]) * line * tau * tau /
             (2.0 * (double)c->duration_ns / 1e9);
    for (size_t i = 0; i < c->n_flaps; i++) {
        const struct scn_flap *f = &c->flaps[i];
        if (f->port == port) {
            int64_t s = SCN_T0 + f->at_ns;
            b -= c->load[port] * line * overlap_s(SCN_T0, t, s, s + f->len_ns);
        }
    }
    for (size_t i = 0; i < c->n_bursts; i++) {
        const struct scn_burst *u = &c->bursts[i];
        if (u->port != port)
            continue;
        int64_t s = SCN_T0 + u->at_ns;
        b += (u->util - c->load[port]) * line * overlap_s(SCN_T0, t, s, s + u->len_ns);
    }
    return b;
}

double scn_rate_at(const struct scn_case *c, unsigned port, int64_t t)
{
    for (size_t i = 0; i < c->n_flaps; i++) {
        const struct scn_flap *f = &c->flaps[i];
        int64_t s = SCN_T0 + f->at_ns;
        if (f->port == port && t >= s && t < s + f->len_ns)
            return 0.0;
    }
    if (c->ramp[port])
        return line_bytes(c) * (c->load[port] + (c->ramp_to[port] - c->load[port]) *
                                                    (double)(t - SCN_T0) / (double)c->duration_ns);
    for (size_t i = 0; i < c->n_bursts; i++) {
        const struct scn_burst *u = &c->bursts[i];
        int64_t s = SCN_T0 + u->at_ns;
        if (u->port == port && t >= s && t < s + u->len_ns)
            return u->util * line_bytes(c);
    }
    return c->load[port] * line_bytes(c);
}

bool scn_rate_changes(const struct scn_case *c, unsigned port, int64_t a, int64_t b)
{
    for (size_t i = 0; i < c->n_flaps; i++) {
        const struct scn_flap *f = &c->flaps[i];
        int64_t s = SCN_T0 + f->at_ns, e = s + f->len_ns;
        if (f->port == port && ((s >= a && s <= b) || (e >= a && e <= b)))
            return true;
    }
    for (size_t i = 0; i < c->n_bursts; i++) {
        const struct scn_burst *u = &c->bursts[i];
        int64_t s = SCN_T0 + u->at_ns, e = s + u->len_ns;
        if (u->port == port && ((s >= a && s <= b) || (e >= a && e <= b)))
            return true;
    }
    return false;
}

double scn_cnp(const struct scn_case *c, int64_t t)
{
    double n = c->cnp_base * (double)(t - SCN_T0) / 1e9;
    for (size_t i = 0; i < c->n_storms; i++) {
        int64_t s = SCN_T0 + c->storms[i].at_ns;
        n += (c->storms[i].rate - c->cnp_base) * overlap_s(SCN_T0, t, s, s + c->storms[i].len_ns);
    }
    return n;
}

double scn_cnp_rate_at(const struct scn_case *c, int64_t t)
{
    for (size_t i = 0; i < c->n_storms; i++) {
        int64_t s = SCN_T0 + c->storms[i].at_ns;
        if (t >= s && t < s + c->storms[i].len_ns)
            return c->storms[i].rate;
    }
    return c->cnp_base;
}

bool scn_cnp_changes(const struct scn_case *c, int64_t a, int64_t b)
{
    for (size_t i = 0; i < c->n_storms; i++) {
        int64_t s = SCN_T0 + c->storms[i].at_ns, e = s + c->storms[i].len_ns;
        if ((s >= a && s <= b) || (e >= a && e <= b))
            return true;
    }
    return false;
}

int64_t scn_device_time(const struct scn_case *c, int64_t t)
{
    if (c->step_ns != 0 && t >= SCN_T0 + c->step_at_ns)
        return t + c->step_ns;
    return t;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double scn_rng_uniform(struct scn_rng *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    return (double)(mix(r->s) >> 11) / 9007199254740992.0;
}

void scn_device_init(struct scn_device *d, const struct scn_case *c)
{
    memset(d, 0, sizeof(*d));
    d->c = c;
    d->rng.s = c->seed * 0x2545f4914f6cdd1dull + 1;
    for (unsigned p = 0; p <= SCN_MAX_PORTS; p++)
        d->refreshed[p] = INT64_MIN;
}

/* Copy k of a periodic device, its own jitter a fixed function of k. */
static int64_t copy_time(const struct scn_case *c, int64_t k)
{
    int64_t t = SCN_T0 + c->phase_ns + k * c->period_ns;
    if (c->copy_jitter_ns > 0) {
        double u = (double)(mix((uint64_t)k ^ (c->seed << 32)) >> 11) / 9007199254740992.0;
        t += (int64_t)((u * 2.0 - 1.0) * (double)c->copy_jitter_ns);
    }
    return t;
}

bool scn_port_live(const struct scn_case *c, unsigned port)
{
    return c->copy == SCN_PERIODIC && (int)port >= c->live_lo && (int)port <= c->live_hi;
}

int64_t scn_device_read(struct scn_device *d, unsigned port, int64_t r)
{
    const struct scn_case *c = d->c;
    if (scn_port_live(c, port))
        return r;
    switch (c->copy) {
    case SCN_PERIODIC: {
        int64_t since = r - SCN_T0 - c->phase_ns;
        int64_t k =
            since >= 0 ? since / c->period_ns : -((-since + c->period_ns - 1) / c->period_ns);
        /* The copy jitter is under half a period: copy k + 1 may already be
         * done, copy k may not yet. */
        if (copy_time(c, k + 1) <= r)
            return copy_time(c, k + 1);
        if (copy_time(c, k) <= r)
            return copy_time(c, k);
        return copy_time(c, k - 1);
    }
    case SCN_ON_READ:
        /* Linux drivers/infiniband/core/sysfs.c update_hw_stats(): the cache
         * is refreshed once jiffies pass timestamp + lifespan. */
        if (d->refreshed[port] == INT64_MIN || r - d->refreshed[port] > c->period_ns + c->jiffy_ns)
            d->refreshed[port] = r;
        return d->refreshed[port];
    case SCN_LIVE:
    default:
        return r;
    }
}

uint64_t scn_counter_value(const struct scn_case *c, unsigned port, int64_t t)
{
    if (t < SCN_T0)
        t = SCN_T0;
    double v;
    if (port == c->n_ports) {
        v = scn_cnp(c, t);
    } else {
        v = scn_bytes(c, port, t);
        if ((int)port == c->reset_port && t >= SCN_T0 + c->reset_at_ns)
            return (uint64_t)floor(v - scn_bytes(c, port, SCN_T0 + c->reset_at_ns));
    }
    uint64_t u = c->start_value + (uint64_t)floor(v);
    return c->width == 32 ? (u & 0xffffffffull) : u;
}
