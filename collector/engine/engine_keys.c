/* engine: section. Its keys map one to one onto
 * struct fsc_engine_config (engine/engine.h); its defaults and its semantic
 * validation belong to the engine, this file only adds syntax, ranges and
 * positions. */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "engine/engine_keys.h"
#include "model/topology_keys.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define ENG(field) offsetof(struct fsc_engine_config, field)

/* ---- windows -------------------------------------------------------------------- */

static int decode_windows(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                          const struct fsc_ynode *val, void *obj)
{
    struct fsc_rate_params *rate = &((struct fsc_engine_config *)obj)->rate;
    (void)key;
    if (val->kind != FSC_YNODE_SEQ)
        return fsc_cfg_fail_at(ctx, val, "expected a list of durations, e.g. [1s, 10s, 60s]");
    if (val->n < 1 || val->n > FSC_MAX_WINDOWS)
        return fsc_cfg_fail_at(ctx, val, "needs 1 to %d windows, got %zu", FSC_MAX_WINDOWS, val->n);
    struct fsc_ckey dk = {.kind = FSC_CK_DUR, .min = 10 * MS, .max = 86400 * SEC};
    for (size_t i = 0; i < val->n; i++) {
        const struct fsc_ynode *item = val->items[i];
        const char *s;
        int64_t ns;
        char q[96];
        size_t pl = fsc_cfg_path_index(ctx, i);
        int rc = fsc_cfg_scalar(ctx, item, "a duration", &s);
        if (rc == 0 && fsc_duration_parse(s, &ns) != 0)
            rc = fsc_cfg_fail_at(ctx, item, "%s is not a duration (use 100ms, 2s, 1m)",
                                 fsc_cfg_quote(s, q, sizeof(q)));
        if (rc == 0 && (ns < dk.min || ns > dk.max))
            rc = fsc_cfg_fail_at(ctx, item, "%s is out of range (10ms..24h)",
                                 fsc_cfg_quote(s, q, sizeof(q)));
        if (rc == 0 && i > 0 && ns <= rate->window_ns[i - 1])
            rc = fsc_cfg_fail_at(ctx, item, "windows must be in ascending order");
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
        rate->window_ns[i] = ns;
    }
    for (size_t i = val->n; i < FSC_MAX_WINDOWS; i++)
        rate->window_ns[i] = 0;
    rate->n_windows = (unsigned)val->n;
    return 0;
}

static void print_windows(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_rate_params *rate = &((const struct fsc_engine_config *)obj)->rate;
    char buf[32];
    (void)indent;
    (void)key;
    fputs(" [", out);
    for (unsigned i = 0; i < rate->n_windows && i < FSC_MAX_WINDOWS; i++)
        fprintf(out, "%s%s", i ? ", " : "",
                fsc_duration_format(rate->window_ns[i], buf, sizeof(buf)));
    fputs("]\n", out);
}

/* ---- imbalance.window: a duration naming one of the windows --------------------- */

static int decode_imbalance_window(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                                   const struct fsc_ynode *val, void *obj)
{
    struct fsc_imbalance_config *imb = obj;
    const struct fsc_rate_params *rate = &fsc_engine_config_of(ctx->cfg)->rate;
    const char *s;
    int64_t ns;
    char q[96], list[128], buf[32];
    (void)key;
    if (fsc_cfg_scalar(ctx, val, "a duration", &s) != 0)
        return -1;
    if (fsc_duration_parse(s, &ns) != 0)
        return fsc_cfg_fail_at(ctx, val, "%s is not a duration (use 100ms, 2s, 1m)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    size_t o = 0;
    for (unsigned i = 0; i < rate->n_windows; i++) {
        if (rate->window_ns[i] == ns) {
            imb->level = i;
            return 0;
        }
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "",
                              fsc_duration_format(rate->window_ns[i], buf, sizeof(buf)));
        if (o >= sizeof(list))
            break;
    }
    return fsc_cfg_fail_at(ctx, val, "%s is not one of engine.windows (%s)",
                           fsc_cfg_quote(s, q, sizeof(q)), list);
}

static const struct fsc_engine_config *engine_of_imbalance(const void *obj)
{
    return (const struct fsc_engine_config *)(const void *)((const char *)obj - ENG(imbalance));
}

static void print_imbalance_window(FILE *out, unsigned indent, const struct fsc_ckey *key,
                                   const void *obj)
{
    const struct fsc_imbalance_config *imb = obj;
    const struct fsc_rate_params *rate = &engine_of_imbalance(obj)->rate;
    char buf[32];
    (void)indent;
    (void)key;
    fprintf(out, " %s\n", fsc_duration_format(rate->window_ns[imb->level], buf, sizeof(buf)));
}

static bool imbalance_window_printed(const void *obj)
{
    const struct fsc_imbalance_config *imb = obj;
    return imb->level < engine_of_imbalance(obj)->rate.n_windows && imb->level < FSC_MAX_WINDOWS;
}

/* ---- detector sections ------------------------------------------------------------ */

#define F64(k, type, field, lo, hi)                                                                \
    {                                                                                              \
        .key = k, .kind = FSC_CK_F64, .off = offsetof(type, field), .fmin = lo, .fmax = hi         \
    }
#define U32(k, type, field, lo, hi)                                                                \
    {                                                                                              \
        .key = k, .kind = FSC_CK_U32, .off = offsetof(type, field), .min = lo, .max = hi           \
    }
#define DUR(k, type, field, lo, hi)                                                                \
    {                                                                                              \
        .key = k, .kind = FSC_CK_DUR, .off = offsetof(type, field), .min = lo, .max = hi           \
    }

static const struct fsc_ckey microburst_keys[] = {
    F64("rise", struct fsc_microburst_config, rise, 0.0, 2.0),
    F64("fall", struct fsc_microburst_config, fall, 0.0, 2.0),
    DUR("micro_max", struct fsc_microburst_config, micro_max_ns, 1 * MS, 3600 * SEC),
    DUR("update_every", struct fsc_microburst_config, update_every_ns, 100 * MS, 3600 * SEC),
    F64("queue_peak_share", struct fsc_microburst_config, queue_peak_share, 0.0, 1.0),
    DUR("latency_peak", struct fsc_microburst_config, latency_peak_ns, 1, 3600 * SEC),
};

static const struct fsc_cspec microburst_spec = {
    .keys = microburst_keys,
    .n_keys = FSC_NELEM(microburst_keys),
};

static const struct fsc_ckey spike_keys[] = {
    F64("floor", struct fsc_spike_config, floor, 0.0, 1e15),
    F64("factor", struct fsc_spike_config, factor, 1.0, 1e6),
    U32("rise_intervals", struct fsc_spike_config, rise_intervals, 1, 100000),
    U32("fall_intervals", struct fsc_spike_config, fall_intervals, 1, 100000),
    F64("ewma_alpha", struct fsc_spike_config, ewma_alpha, 0.0, 1.0),
};

static const struct fsc_cspec spike_spec = {
    .keys = spike_keys,
    .n_keys = FSC_NELEM(spike_keys),
};

static const struct fsc_ckey pfc_keys[] = {
    F64("paused_fraction", struct fsc_pfc_config, paused_fraction, 0.0, 1.0),
    F64("frames_per_second", struct fsc_pfc_config, frames_per_second, 0.0, 1e12),
    U32("rise_intervals", struct fsc_pfc_config, rise_intervals, 1, 100000),
    U32("fall_intervals", struct fsc_pfc_config, fall_intervals, 1, 100000),
};

static const struct fsc_cspec pfc_spec = {
    .keys = pfc_keys,
    .n_keys = FSC_NELEM(pfc_keys),
};

static const struct fsc_ckey imbalance_keys[] = {
    F64("ratio", struct fsc_imbalance_config, ratio, 1.0, 1e6),
    U32("windows", struct fsc_imbalance_config, windows, 1, 100000),
    {.key = "window",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_imbalance_window,
     .print = print_imbalance_window,
     .printed = imbalance_window_printed},
    F64("min_mean_utilization", struct fsc_imbalance_config, min_mean_utilization, 0.0, 1.0),
};

static const struct fsc_cspec imbalance_spec = {
    .keys = imbalance_keys,
    .n_keys = FSC_NELEM(imbalance_keys),
};

/* ---- engine ----------------------------------------------------------------------- */

static void engine_defaults(void *obj)
{
    fsc_engine_config_defaults(obj);
}

/* Position of the key an engine sentence starts with ("engine.pfc.fall ..."),
 * walking the engine mapping; the engine: key itself when it is not there
 * (a default value, or a sentence of another shape). */
static struct fsc_config_mark sentence_mark(const char *sentence, const struct fsc_ynode *node,
                                            struct fsc_config_mark mark)
{
    char key[64];
    const char *p = sentence;
    if (strncmp(p, "engine.", 7) != 0)
        return mark;
    p += 7;
    for (int depth = 0; depth < 3 && node != NULL; depth++) {
        size_t n = strcspn(p, ". (");
        if (n == 0 || n >= sizeof(key))
            break;
        memcpy(key, p, n);
        key[n] = '\0';
        const struct fsc_ypair *pair = fsc_ymap_get(node, key);
        if (pair == NULL)
            break;
        mark = fsc_cfg_node_mark(pair->key);
        node = pair->value;
        if (p[n] != '.')
            break;
        p += n + 1;
    }
    return mark;
}

/* The engine's own validation knows relations this table cannot express
 * (fall < rise, ...). Its sentences name the key ("engine.microburst.fall
 * (0.6) must be below rise (0.5)"), so they replace the path prefix and are
 * reported at that key's position when it is in the file. */
static int engine_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    char sentence[256];
    sentence[0] = '\0';
    if (fsc_engine_config_validate(obj, sentence, sizeof(sentence)) == 0)
        return 0;
    if (sentence[0] == '\0')
        snprintf(sentence, sizeof(sentence), "invalid engine settings");
    struct fsc_config_mark m = sentence_mark(sentence, node, mark);
    if (strncmp(sentence, "engine", 6) == 0)
        fsc_cfg_path_pop(ctx, 0); /* loading stops here: the path is not needed again */
    return fsc_cfg_fail(ctx, m.line, m.col, "%s", sentence);
}

static const struct fsc_ckey engine_keys[] = {
    {.key = "windows", .kind = FSC_CK_CUSTOM, .decode = decode_windows, .print = print_windows},
    F64("max_gap_factor", struct fsc_engine_config, rate.max_gap_factor, 1.0, 1000.0),
    F64("plausibility_factor", struct fsc_engine_config, rate.plausibility_factor, 1.0, 10.0),
    F64("stale_factor", struct fsc_engine_config, rate.stale_factor, 1.0, 100.0),
    DUR("clock_step", struct fsc_engine_config, rate.clock_step_ns, 1 * MS, 3600 * SEC),
    {.key = "microburst", .kind = FSC_CK_MAP, .off = ENG(microburst), .spec = &microburst_spec},
    {.key = "cnp", .kind = FSC_CK_MAP, .off = ENG(cnp), .spec = &spike_spec},
    {.key = "ecn", .kind = FSC_CK_MAP, .off = ENG(ecn), .spec = &spike_spec},
    {.key = "reorder", .kind = FSC_CK_MAP, .off = ENG(reorder), .spec = &spike_spec},
    {.key = "pfc", .kind = FSC_CK_MAP, .off = ENG(pfc), .spec = &pfc_spec},
    {.key = "imbalance", .kind = FSC_CK_MAP, .off = ENG(imbalance), .spec = &imbalance_spec},
    U32("max_series", struct fsc_engine_config, max_series, 1, 1u << 30),
    U32("max_groups", struct fsc_engine_config, max_groups, 1, 1u << 20),
};

static const struct fsc_cspec engine_spec = {
    .what = "the engine section",
    .keys = engine_keys,
    .n_keys = FSC_NELEM(engine_keys),
    .defaults = engine_defaults,
    .finish = engine_finish,
};

/* The topology's port groups are the imbalance detector's groups: there
 * must be room for all of them. */
static int engine_check(struct fsc_cctx *ctx, const struct fsc_config *cfg, const void *obj,
                        const struct fsc_ynode *node)
{
    const struct fsc_engine_config *ec = obj;
    const struct fsc_topology *topo = fsc_topology_of(cfg);
    (void)node;
    if (topo == NULL || topo->n_groups <= ec->max_groups)
        return 0;
    struct fsc_config_mark m =
        fsc_cfg_key_mark(ctx->root, "topology", (struct fsc_config_mark){1, 1});
    size_t pl = fsc_cfg_path_key(ctx, "topology.port_groups");
    fsc_cfg_fail(ctx, m.line, m.col, "%zu groups exceed engine.max_groups (%u)", topo->n_groups,
                 (unsigned)ec->max_groups);
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

const struct fsc_config_kind fsc_engine_kind = {
    .name = "engine",
    .spec = &engine_spec,
    .size = sizeof(struct fsc_engine_config),
    .check = engine_check,
};

const struct fsc_engine_config *fsc_engine_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_engine_kind);
}
