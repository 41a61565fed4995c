/* rollup: section (docs/CONFIG.md, "state_dir and rollup"): on or off,
 * retention and the store's bound. state_dir is a root key (config/). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_decode.h"
#include "rollup/rollup_config.h"

#define SEC 1000000000ll
#define DAY (86400 * SEC)

#define RU(field) offsetof(struct fsc_rollup_config, field)

static void rollup_defaults(void *obj)
{
    struct fsc_rollup_config *ru = obj;
    ru->enabled = true;
    ru->retention_ns = 30 * DAY;
    ru->max_bytes = 1ull << 30;
}

/* retention: a duration ("720h") or whole days ("30d"): the duration
 * syntax stops at hours, and days are how operators think of retention. */
static int decode_retention(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                            const struct fsc_ynode *val, void *obj)
{
    struct fsc_rollup_config *ru = obj;
    const char *s;
    char q[96];
    int64_t ns = 0;
    (void)key;
    if (fsc_cfg_scalar(ctx, val, "a duration", &s) != 0)
        return -1;
    size_t len = strlen(s);
    if (len >= 2 && s[len - 1] == 'd' && strspn(s, "0123456789") == len - 1 && len <= 6) {
        long days = 0;
        for (size_t i = 0; i + 1 < len; i++)
            days = days * 10 + (s[i] - '0');
        ns = days * DAY;
    } else if (fsc_duration_parse(s, &ns) != 0) {
        return fsc_cfg_fail_at(ctx, val, "%s is not a duration (use 30d, 720h, 90m)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    }
    if (ns < 60 * SEC || ns > 3650 * DAY)
        return fsc_cfg_fail_at(ctx, val, "%s is out of range (1m..3650d)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    ru->retention_ns = ns;
    return 0;
}

static void print_retention(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_rollup_config *ru = obj;
    char buf[32];
    (void)indent;
    (void)key;
    if (ru->retention_ns % DAY == 0)
        fprintf(out, " %lldd\n", (long long)(ru->retention_ns / DAY));
    else
        fprintf(out, " %s\n", fsc_duration_format(ru->retention_ns, buf, sizeof(buf)));
}

static const struct fsc_ckey rollup_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = RU(enabled)},
    {.key = "retention",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_retention,
     .print = print_retention},
    /* at least a header and 16 records: below that nothing useful fits */
    {.key = "max_bytes",
     .kind = FSC_CK_BYTES,
     .off = RU(max_bytes),
     .min = 64 * 1024,
     .max = INT64_MAX},
};

static const struct fsc_cspec rollup_spec = {
    .what = "the rollup section",
    .keys = rollup_keys,
    .n_keys = FSC_NELEM(rollup_keys),
    .defaults = rollup_defaults,
};

const struct fsc_config_kind fsc_rollup_kind = {
    .name = "rollup",
    .spec = &rollup_spec,
    .size = sizeof(struct fsc_rollup_config),
};

const struct fsc_rollup_config *fsc_rollup_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_rollup_kind);
}
