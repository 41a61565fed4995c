/* otlp sources: listeners, body bounds, device attribute, server TLS and
 * auth (docs/CONFIG.md, "otlp"). */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "model/time_guard.h"
#include "sources/otlp/otlp_config.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define X(f) offsetof(struct fsc_otlp_config, f)

static void otlp_defaults(void *obj)
{
    struct fsc_otlp_config *o = obj;
    o->grpc_listen = "0.0.0.0:4317";
    o->http_listen = "0.0.0.0:4318";
    o->max_body = 4u << 20;
    o->max_decompressed = 32u << 20;
    o->device_attribute = "host.name";
    o->max_time_ahead_ns = FSC_TIME_AHEAD_DEFAULT_NS;
    o->max_time_behind_ns = FSC_TIME_BEHIND_DEFAULT_NS;
}

static int otlp_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    struct fsc_otlp_config *o = obj;
    if (o->grpc_listen[0] == '\0' && o->http_listen[0] == '\0')
        return fsc_cfg_fail_key(
            ctx, node, "grpc_listen", mark,
            "grpc_listen and http_listen are both empty: the source would receive "
            "nothing");
    if (o->max_decompressed < o->max_body)
        return fsc_cfg_fail_key(ctx, node, "max_decompressed", mark,
                                "must not be smaller than max_body");
    return 0;
}

static const struct fsc_ckey otlp_keys[] = {
    {.key = "grpc_listen",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_EMPTY_OK,
     .off = X(grpc_listen),
     .check = fsc_cfg_check_listen},
    {.key = "http_listen",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_EMPTY_OK,
     .off = X(http_listen),
     .check = fsc_cfg_check_listen},
    {.key = "max_body", .kind = FSC_CK_BYTES, .off = X(max_body), .min = 1024, .max = 256ll << 20},
    {.key = "max_decompressed",
     .kind = FSC_CK_BYTES,
     .off = X(max_decompressed),
     .min = 1024,
     .max = 1ll << 30},
    {.key = "device_attribute", .kind = FSC_CK_STR, .off = X(device_attribute)},
    {.key = "max_time_ahead",
     .kind = FSC_CK_DUR,
     .off = X(max_time_ahead_ns),
     .min = 0,
     .max = FSC_TIME_LIMIT_MAX_NS},
    {.key = "max_time_behind",
     .kind = FSC_CK_DUR,
     .off = X(max_time_behind_ns),
     .min = 0,
     .max = FSC_TIME_LIMIT_MAX_NS},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = X(tls),
     .spec = &fsc_cspec_tls_server},
    {.key = "auth",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = X(auth),
     .spec = &fsc_cspec_listener_auth},
    {.key = "limits", .kind = FSC_CK_MAP, .off = X(limits), .spec = &fsc_cspec_listener_limits},
};

static const struct fsc_cspec otlp_spec = {
    .what = "an otlp source",
    .keys = otlp_keys,
    .n_keys = FSC_NELEM(otlp_keys),
    .defaults = otlp_defaults,
    .finish = otlp_finish,
};

static size_t otlp_listeners(const void *obj, struct fsc_config_listen *out, size_t cap)
{
    const struct fsc_otlp_config *o = obj;
    size_t n = 0;
    if (n < cap)
        out[n++] = (struct fsc_config_listen){.addr = o->grpc_listen, .key = "grpc_listen"};
    if (n < cap)
        out[n++] = (struct fsc_config_listen){.addr = o->http_listen, .key = "http_listen"};
    return n;
}

/* OTLP learns its devices from each point's resource, and filters points
 * by shard itself (otlp_ingest.c). */
const struct fsc_config_kind fsc_otlp_kind = {
    .name = "otlp",
    .spec = &otlp_spec,
    .size = sizeof(struct fsc_otlp_config),
    .profile = "cumulus",
    .shard = FSC_SHARD_BY_POINT,
    .listeners = otlp_listeners,
};

const struct fsc_otlp_config *fsc_otlp_config_of(const struct fsc_source_config *sc)
{
    return sc->kind == &fsc_otlp_kind ? sc->settings : NULL;
}
