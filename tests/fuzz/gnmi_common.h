/* Shared by the gNMI fuzz targets: a fresh registry + decoder per input (no
 * state crosses inputs, so a finding replays alone), and the check that a
 * message decodes the same twice: the second decode hits the series caches
 * the first one filled, so the cached (raw bytes) and slow (parsed,
 * canonical) paths must agree sample for sample and intern nothing new. */
#ifndef FSC_FUZZ_GNMI_COMMON_H
#define FSC_FUZZ_GNMI_COMMON_H

#include <errno.h>
#include <string.h>

#include "model/registry.h"
#include "fuzz.h"
#include "sources/gnmi/gnmi_decode.h"

#define GNMI_FUZZ_OUT 64 /* small on purpose: overflow is a path too */

struct gnmi_fuzz_run {
    int rc;
    struct fsc_gnmi_result res;
    struct fsc_sample out[GNMI_FUZZ_OUT];
};

struct gnmi_fuzz {
    struct fsc_registry *reg;
    struct fsc_gnmi_decoder *dec;
};

static inline void gnmi_fuzz_open(struct gnmi_fuzz *g)
{
    char err[256];
    uint16_t src;
    g->reg = fsc_registry_create(4096);
    FUZZ_CHECK(g->reg && fsc_registry_source_add(g->reg, "fuzz", 0, &src) == 0);
    struct fsc_source_env env = {.reg = g->reg, .source_id = src};
    /* A small series cache so "cache full" (every update resolved through
     * the registry) is reached by ordinary inputs too. */
    struct fsc_gnmi_decode_config cfg = {
        .device = "leaf1", .sample_interval_ns = 1000000000, .max_series = 48, .max_seq_keys = 8};
    g->dec = fsc_gnmi_decoder_create(&cfg, &env, err, sizeof err);
    FUZZ_CHECK(g->dec);
}

static inline void gnmi_fuzz_close(struct gnmi_fuzz *g)
{
    fsc_gnmi_decoder_destroy(g->dec);
    fsc_registry_destroy(g->reg);
}

/* One decode plus the checks that hold for any input. */
static inline void gnmi_fuzz_decode(struct gnmi_fuzz *g, const uint8_t *data, size_t size,
                                    struct gnmi_fuzz_run *run)
{
    static const struct fsc_gnmi_result zero;
    memset(run, 0xa5, sizeof *run); /* the decoder must overwrite *res */
    run->rc = fsc_gnmi_decode(g->dec, data, size, 42, run->out, GNMI_FUZZ_OUT, &run->res);
    FUZZ_CHECK(run->rc == 0 || run->rc == -EBADMSG);
    if (run->rc != 0) {
        /* refused: nothing reported, nothing emitted */
        FUZZ_CHECK(memcmp(&run->res, &zero, sizeof zero) == 0);
        return;
    }
    const struct fsc_gnmi_result *r = &run->res;
    FUZZ_CHECK(r->n_samples <= GNMI_FUZZ_OUT);
    FUZZ_CHECK(r->n_samples + r->pseudo + r->unsupported + r->no_series + r->overflow + r->clears ==
               r->updates);
    FUZZ_CHECK(r->unknown <= r->updates);
    uint32_t count = fsc_registry_count(g->reg);
    for (uint32_t i = 0; i < r->n_samples; i++) {
        const struct fsc_sample *s = &run->out[i];
        FUZZ_CHECK(s->series < count);
        FUZZ_CHECK(s->t_arr_ns == 42 && s->t_dev_ns == r->t_dev_ns);
        FUZZ_CHECK((s->flags & ~(uint32_t)(FSC_SMP_F64 | FSC_SMP_ARRIVAL_TIME | FSC_SMP_RESET)) ==
                   0);
        FUZZ_CHECK(!(s->flags & FSC_SMP_ARRIVAL_TIME) || s->t_dev_ns == 42);
    }
}

/* Decodes data twice on one decoder; both runs must agree. */
static inline void gnmi_fuzz_twice(struct gnmi_fuzz *g, const uint8_t *data, size_t size,
                                   struct gnmi_fuzz_run *a, struct gnmi_fuzz_run *b)
{
    gnmi_fuzz_decode(g, data, size, a);
    uint32_t count = fsc_registry_count(g->reg);
    struct fsc_gnmi_decode_stats st;
    fsc_gnmi_decoder_stats(g->dec, &st);
    int cache_was_full = st.cache_full != 0;
    gnmi_fuzz_decode(g, data, size, b);
    FUZZ_CHECK(a->rc == b->rc);
    if (a->rc != 0)
        return;
    /* The header's sequence number repeats: a repeat, never skipped, late
     * or lost; reset evidence needs a changed creation time, so none either. */
    FUZZ_CHECK(b->res.seq_skipped == 0 && b->res.seq_lost == 0 && b->res.seq_late == 0);
    a->res.seq_skipped = 0;
    a->res.seq_lost = 0;
    a->res.seq_late = 0;
    FUZZ_CHECK(memcmp(&a->res, &b->res, sizeof a->res) == 0);
    /* Last-clear leaves may differ between the runs in what they change (the
     * second run starts from the first one's last value), so with any of
     * them the reset flag may too. */
    uint32_t same = a->res.clears ? ~(uint32_t)FSC_SMP_RESET : ~(uint32_t)0;
    for (uint32_t i = 0; i < a->res.n_samples; i++) {
        const struct fsc_sample *x = &a->out[i], *y = &b->out[i];
        FUZZ_CHECK(x->series == y->series && (x->flags & same) == (y->flags & same) &&
                   x->t_dev_ns == y->t_dev_ns && x->v.u == y->v.u);
    }
    /* Every series was interned by the first run (unless the registry
     * refused some: then the second run asks again and may be refused again). */
    if (!cache_was_full && a->res.no_series == 0)
        FUZZ_CHECK(fsc_registry_count(g->reg) == count);
}

#endif
