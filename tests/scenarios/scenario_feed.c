/* The readings a case's device delivers, in delivery order (contract in
 * scenario.h): the sampling schedule (batches at their offsets, read
 * jitter, stamp jitter, arrival stamps), the device model's values, and the
 * wire's faults (a lost batch, a late one, a stream restart's re-send). */
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

/* The batch port p (or the CNP counter, p == n_ports) is read in. */
static unsigned batch_of(const struct scn_case *c, unsigned p)
{
    if (p >= c->n_ports)
        return 0;
    return p * c->n_batches / c->n_ports;
}

struct feed {
    const struct scn_case *c;
    struct scn_device dev;
    struct scn_rng jit;
    struct scn_read *r;
    size_t n, cap;
    bool fault_used[SCN_MAX_FAULTS];
};

static struct scn_read *feed_add(struct feed *f)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 1024;
        struct scn_read *r = realloc(f->r, cap * sizeof(*r));
        if (!r)
            return NULL;
        f->r = r;
        f->cap = cap;
    }
    struct scn_read *rd = &f->r[f->n];
    memset(rd, 0, sizeof(*rd));
    rd->seq = f->n++;
    return rd;
}

/* A stamp for a read at true time `read`: the device clock, its stamping
 * noise, and the arrival delay when stamps are arrival times. */
static int64_t stamp_of(struct feed *f, int64_t read, uint32_t *flags)
{
    const struct scn_case *c = f->c;
    int64_t stamp = scn_device_time(c, read);
    if (c->stamp_jitter_ns > 0)
        stamp += (int64_t)((scn_rng_uniform(&f->jit) * 2.0 - 1.0) * (double)c->stamp_jitter_ns);
    *flags = 0;
    if (c->arrival) {
        stamp += (int64_t)(scn_rng_uniform(&f->jit) * (double)c->delay_ns);
        *flags = FSC_SMP_ARRIVAL_TIME;
    }
    return stamp;
}

/* Batch b read at true time `read` (every series of it, or all when b is
 * SCN_MAX_BATCHES: a restart's re-send); delivered when the faults say. */
static int feed_read(struct feed *f, unsigned b, int64_t read)
{
    const struct scn_case *c = f->c;
    int64_t deliver = read;
    for (size_t i = 0; i < c->n_faults && b < SCN_MAX_BATCHES; i++) {
        const struct scn_fault *ft = &c->faults[i];
        if (f->fault_used[i] || ft->batch != b || read < SCN_T0 + ft->at_ns)
            continue;
        f->fault_used[i] = true;
        if (ft->kind == SCN_LOSE)
            return 0;
        deliver = read + ft->by_ns;
    }
    struct scn_read *rd = feed_add(f);
    if (!rd)
        return -1;
    uint32_t flags;
    int64_t stamp = stamp_of(f, read, &flags);
    rd->deliver = deliver;
    rd->read = read;
    rd->offset = scn_device_time(c, read) - read;
    const unsigned n_series = c->n_ports + (c->cnp ? 1 : 0);
    for (unsigned s = 0; s < n_series; s++) {
        if (b < SCN_MAX_BATCHES && batch_of(c, s) != b)
            continue;
        int64_t at = scn_device_read(&f->dev, s, read);
        rd->smp[rd->n++] = (struct fsc_sample){.series = s,
                                               .flags = flags,
                                               .t_dev_ns = stamp,
                                               .t_arr_ns = stamp,
                                               .v.u = scn_counter_value(c, s, at)};
    }
    return 0;
}

static int cmp_read(const void *a, const void *b)
{
    const struct scn_read *x = a, *y = b;
    if (x->deliver != y->deliver)
        return x->deliver < y->deliver ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Contract in scenario.h. */
int scn_feed_build(const struct scn_case *c, struct scn_read **out, size_t *n_out)
{
    struct feed f = {.c = c, .jit = {c->seed * 0x9e3779b97f4a7c15ull + 7}};
    scn_device_init(&f.dev, c);
    bool restarted = !c->restart;
    for (int64_t k = 0;; k++) {
        int64_t base = SCN_T0 + c->offset_ns + k * c->sample_ns;
        if (base >= SCN_T0 + c->duration_ns)
            break;
        for (unsigned b = 0; b < c->n_batches; b++) {
            int64_t shift = c->restart && base + c->batch_offset_ns[b] >= SCN_T0 + c->restart_at_ns
                                ? c->restart_shift_ns
                                : 0;
            double j = (scn_rng_uniform(&f.jit) * 2.0 - 1.0) * c->jitter * (double)c->sample_ns;
            int64_t read = base + c->batch_offset_ns[b] + shift + (int64_t)j;
            if (!restarted && read >= SCN_T0 + c->restart_at_ns) {
                /* The restarted stream's first message: everything again. */
                restarted = true;
                if (feed_read(&f, SCN_MAX_BATCHES, SCN_T0 + c->restart_at_ns) != 0)
                    goto oom;
            }
            if (read < SCN_T0 || read >= SCN_T0 + c->duration_ns)
                continue;
            if (feed_read(&f, b, read) != 0)
                goto oom;
        }
    }
    qsort(f.r, f.n, sizeof(*f.r), cmp_read);
    *out = f.r;
    *n_out = f.n;
    return 0;
oom:
    free(f.r);
    return -1;
}
