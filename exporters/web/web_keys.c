/* exporters.web: on or off (docs/CONFIG.md, "web"). */
#include <stddef.h>

#include "config/config_decode.h"
#include "web/web_config.h"

static void web_defaults(void *obj)
{
    struct fsc_web_config *w = obj;
    w->present = true;
    w->enabled = true;
}

static const struct fsc_ckey web_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = offsetof(struct fsc_web_config, enabled)},
};

static const struct fsc_cspec web_spec = {
    .what = "the status page",
    .keys = web_keys,
    .n_keys = FSC_NELEM(web_keys),
    .defaults = web_defaults,
};

const struct fsc_config_kind fsc_web_kind = {
    .name = "web",
    .spec = &web_spec,
    .size = sizeof(struct fsc_web_config),
};
