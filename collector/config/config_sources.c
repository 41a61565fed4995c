/* sources: gnmi, otlp and nic instances (key tables, defaults, checks). */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "model/profile.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define SRC(field) offsetof(struct fsc_source_config, field)

static const char *const source_type_names[] = {"gnmi", "otlp", "nic", "synthetic", "replay", NULL};
static const char *const encoding_names[] = {"proto", "json", "json_ietf", NULL};

const char *fsc_source_type_name(enum fsc_source_type type)
{
    return (unsigned)type < 5 ? source_type_names[type] : "?";
}

static const struct fsc_cspec gnmi_spec, otlp_spec, nic_spec, synthetic_spec, replay_spec;
static const struct fsc_cspec *const source_specs[] = {&gnmi_spec,      &otlp_spec,   &nic_spec,
                                                       &synthetic_spec, &replay_spec, NULL};

/* Profiles are checked against the built-in ones now rather than when the
 * source starts, so check-config catches a typo. */
static int check_profile(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    const char *names[17];
    char list[160], q[96];
    size_t n = 0, o = 0;
    if (fsc_profile_find(s) != NULL)
        return 0;
    list[0] = '\0';
    for (const struct fsc_profile *p; n < 16 && (p = fsc_profile_at(n)) != NULL; n++) {
        names[n] = p->name;
        if (o < sizeof(list))
            o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", n ? ", " : "", p->name);
    }
    names[n] = NULL;
    const char *guess = fsc_cfg_closest(s, names, NULL);
    if (guess != NULL)
        return fsc_cfg_fail_at(ctx, val, "%s is not a built-in profile (%s; did you mean \"%s\"?)",
                               fsc_cfg_quote(s, q, sizeof(q)), list, guess);
    return fsc_cfg_fail_at(ctx, val, "%s is not a built-in profile (%s)",
                           fsc_cfg_quote(s, q, sizeof(q)), list);
}

/* Keys every source has, first in every source table. */
/* clang-format off */
#define COMMON_KEYS                                                                              \
    {.key = "name", .kind = FSC_CK_STR, .flags = FSC_CF_REQUIRED, .off = SRC(name),              \
     .check = fsc_cfg_check_name},                                                               \
    {.key = "type", .kind = FSC_CK_ENUM, .flags = FSC_CF_REQUIRED, .off = SRC(type),             \
     .names = source_type_names},                                                                \
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = SRC(enabled)},                                \
    {.key = "max_series", .kind = FSC_CK_U32, .off = SRC(max_series), .min = 1,                  \
     .max = 16777216},                                                                           \
    {.key = "profile", .kind = FSC_CK_STR, .off = SRC(profile), .check = check_profile}
/* clang-format on */

static void common_defaults(struct fsc_source_config *src, const char *profile)
{
    src->enabled = true;
    src->max_series = 100000;
    src->profile = profile;
}

/* ---- gnmi ------------------------------------------------------------------- */

static void gnmi_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    common_defaults(src, "junos");
    src->gnmi.encoding = FSC_GNMI_PROTO;
    src->gnmi.sample_interval_ns = 2 * SEC;
    src->gnmi.stall_intervals = 3;
    src->gnmi.keepalive_ns = 30 * SEC;
    src->gnmi.connect_timeout_ns = 10 * SEC;
}

static int gnmi_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    struct fsc_source_config *src = obj;
    struct fsc_gnmi_config *g = &src->gnmi;
    if (g->device == NULL)
        g->device = src->name;
    if (g->password.value != NULL && g->username == NULL) {
        const char *key = fsc_ymap_get(node, "password")        ? "password"
                          : fsc_ymap_get(node, "password_file") ? "password_file"
                                                                : "password_env";
        return fsc_cfg_fail_key(ctx, node, key, mark, "a password needs a username");
    }
    if (g->n_streams == 0 && fsc_cfg_gnmi_default_streams(ctx, node, g) != 0)
        return -1;
    for (size_t i = 0; i < g->n_streams; i++) {
        if (g->streams[i].mode == FSC_GNMI_SAMPLE && g->streams[i].sample_interval_ns == 0)
            g->streams[i].sample_interval_ns = g->sample_interval_ns;
    }
    return fsc_cfg_gnmi_check_streams(ctx, g);
}

static const struct fsc_ckey gnmi_keys[] = {
    COMMON_KEYS,
    {.key = "address",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = SRC(gnmi.address),
     .check = fsc_cfg_check_hostport},
    {.key = "device", .kind = FSC_CK_STR, .off = SRC(gnmi.device), .check = fsc_cfg_check_name},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = SRC(gnmi.tls),
     .spec = &fsc_cspec_tls_client},
    {.key = "username", .kind = FSC_CK_STR, .off = SRC(gnmi.username)},
    {.key = "password", .kind = FSC_CK_SECRET, .off = SRC(gnmi.password)},
    {.key = "password_file", .kind = FSC_CK_SECRET_FILE, .off = SRC(gnmi.password)},
    {.key = "password_env", .kind = FSC_CK_SECRET_ENV, .off = SRC(gnmi.password)},
    {.key = "encoding", .kind = FSC_CK_ENUM, .off = SRC(gnmi.encoding), .names = encoding_names},
    {.key = "sample_interval",
     .kind = FSC_CK_DUR,
     .off = SRC(gnmi.sample_interval_ns),
     .min = 10 * MS, /* real targets floor at 2 s; simulators and benchmarks go faster */
     .max = 3600 * SEC},
    {.key = "streams",
     .kind = FSC_CK_LIST,
     .off = SRC(gnmi.streams),
     .off2 = SRC(gnmi.n_streams),
     .spec = &fsc_cspec_gnmi_stream,
     .elem_size = sizeof(struct fsc_gnmi_stream),
     .min = 1,
     .max_items = 16},
    {.key = "stall_intervals",
     .kind = FSC_CK_U32,
     .off = SRC(gnmi.stall_intervals),
     .min = 1,
     .max = 100},
    {.key = "keepalive",
     .kind = FSC_CK_DUR,
     .off = SRC(gnmi.keepalive_ns),
     .min = 1 * SEC,
     .max = 3600 * SEC},
    {.key = "connect_timeout",
     .kind = FSC_CK_DUR,
     .off = SRC(gnmi.connect_timeout_ns),
     .min = 100 * MS,
     .max = 300 * SEC},
    {.key = "backoff", .kind = FSC_CK_MAP, .off = SRC(gnmi.backoff), .spec = &fsc_cspec_backoff},
};

static const struct fsc_cspec gnmi_spec = {
    .what = "a gnmi source",
    .keys = gnmi_keys,
    .n_keys = FSC_NELEM(gnmi_keys),
    .defaults = gnmi_defaults,
    .finish = gnmi_finish,
    .mark_off = SRC(mark),
    .siblings = source_specs,
};

/* ---- otlp ------------------------------------------------------------------- */

static void otlp_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    common_defaults(src, "cumulus");
    src->otlp.grpc_listen = "0.0.0.0:4317";
    src->otlp.http_listen = "0.0.0.0:4318";
    src->otlp.max_body = 4u << 20;
    src->otlp.max_decompressed = 32u << 20;
    src->otlp.device_attribute = "host.name";
}

static int otlp_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    struct fsc_otlp_config *o = &((struct fsc_source_config *)obj)->otlp;
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
    COMMON_KEYS,
    {.key = "grpc_listen",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_EMPTY_OK,
     .off = SRC(otlp.grpc_listen),
     .check = fsc_cfg_check_listen},
    {.key = "http_listen",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_EMPTY_OK,
     .off = SRC(otlp.http_listen),
     .check = fsc_cfg_check_listen},
    {.key = "max_body",
     .kind = FSC_CK_BYTES,
     .off = SRC(otlp.max_body),
     .min = 1024,
     .max = 256ll << 20},
    {.key = "max_decompressed",
     .kind = FSC_CK_BYTES,
     .off = SRC(otlp.max_decompressed),
     .min = 1024,
     .max = 1ll << 30},
    {.key = "device_attribute", .kind = FSC_CK_STR, .off = SRC(otlp.device_attribute)},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = SRC(otlp.tls),
     .spec = &fsc_cspec_tls_server},
    {.key = "auth",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = SRC(otlp.auth),
     .spec = &fsc_cspec_listener_auth},
};

static const struct fsc_cspec otlp_spec = {
    .what = "an otlp source",
    .keys = otlp_keys,
    .n_keys = FSC_NELEM(otlp_keys),
    .defaults = otlp_defaults,
    .finish = otlp_finish,
    .mark_off = SRC(mark),
    .siblings = source_specs,
};

/* ---- nic -------------------------------------------------------------------- */

static int check_netdev(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (fsc_cfg_check_name(ctx, val, s) != 0)
        return -1;
    if (strlen(s) > 15)
        return fsc_cfg_fail_at(ctx, val, "%s is longer than a Linux interface name (15 bytes)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

static void nic_device_defaults(void *obj)
{
    ((struct fsc_nic_device *)obj)->port = 1;
}

#define NICDEV(field) offsetof(struct fsc_nic_device, field)
static const struct fsc_ckey nic_device_keys[] = {
    {.key = "rdma",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = NICDEV(rdma),
     .check = fsc_cfg_check_name},
    {.key = "netdev", .kind = FSC_CK_STR, .off = NICDEV(netdev), .check = check_netdev},
    {.key = "port", .kind = FSC_CK_U32, .off = NICDEV(port), .min = 1, .max = 255},
};

static const struct fsc_cspec nic_device_spec = {
    .what = "a nic device",
    .keys = nic_device_keys,
    .n_keys = FSC_NELEM(nic_device_keys),
    .defaults = nic_device_defaults,
    .mark_off = NICDEV(mark),
};

static void nic_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    common_defaults(src, "mlx5");
    src->nic.sysfs_root = "/";
    src->nic.interval_ns = 100 * MS;
    src->nic.ethtool = true;
    src->nic.pcie = true;
}

static int nic_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                      struct fsc_config_mark mark, void *obj)
{
    struct fsc_source_config *src = obj;
    struct fsc_nic_config *n = &src->nic;
    if (n->device == NULL)
        n->device = src->name;
    if (fsc_ymap_get(node, "auto") == NULL)
        n->auto_devices = n->n_devices == 0;
    if (n->auto_devices && n->n_devices > 0)
        return fsc_cfg_fail_key(ctx, node, "auto", mark,
                                "give either devices or auto: true, not both");
    if (!n->auto_devices && n->n_devices == 0)
        return fsc_cfg_fail_key(ctx, node, "devices", mark,
                                "no devices to poll: list them or set auto: true");
    if (n->cable_plan != NULL && n->node == 0)
        return fsc_cfg_fail_key(ctx, node, "node", mark, "required with cable_plan");
    for (size_t i = 0; i < n->n_devices; i++) {
        for (size_t j = 0; j < i; j++) {
            const struct fsc_nic_device *a = &n->devices[i], *b = &n->devices[j];
            if (strcmp(a->rdma, b->rdma) != 0 || a->port != b->port)
                continue;
            size_t pl = fsc_cfg_path_key(ctx, "devices");
            fsc_cfg_path_index(ctx, i);
            fsc_cfg_fail(ctx, a->mark.line, a->mark.col, "%s port %u is already devices[%zu]",
                         a->rdma, (unsigned)a->port, j);
            fsc_cfg_path_pop(ctx, pl);
            return -1;
        }
    }
    return 0;
}

static const struct fsc_ckey nic_keys[] = {
    COMMON_KEYS,
    {.key = "device", .kind = FSC_CK_STR, .off = SRC(nic.device), .check = fsc_cfg_check_name},
    {.key = "sysfs_root", .kind = FSC_CK_STR, .flags = FSC_CF_PATH, .off = SRC(nic.sysfs_root)},
    {.key = "interval",
     .kind = FSC_CK_DUR,
     .off = SRC(nic.interval_ns),
     .min = 10 * MS,
     .max = 60 * SEC},
    {.key = "auto", .kind = FSC_CK_BOOL, .off = SRC(nic.auto_devices)},
    {.key = "devices",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_OMIT_ZERO | FSC_CF_FLOW,
     .off = SRC(nic.devices),
     .off2 = SRC(nic.n_devices),
     .spec = &nic_device_spec,
     .elem_size = sizeof(struct fsc_nic_device),
     .max_items = 64},
    {.key = "ethtool", .kind = FSC_CK_BOOL, .off = SRC(nic.ethtool)},
    {.key = "pcie", .kind = FSC_CK_BOOL, .off = SRC(nic.pcie)},
    {.key = "cable_plan", .kind = FSC_CK_STR, .flags = FSC_CF_PATH, .off = SRC(nic.cable_plan)},
    {.key = "node",
     .kind = FSC_CK_U32,
     .flags = FSC_CF_OMIT_ZERO,
     .off = SRC(nic.node),
     .min = 1,
     .max = FSC_CABLE_MAX_NODE},
};

static const struct fsc_cspec nic_spec = {
    .what = "a nic source",
    .keys = nic_keys,
    .n_keys = FSC_NELEM(nic_keys),
    .defaults = nic_defaults,
    .finish = nic_finish,
    .mark_off = SRC(mark),
    .siblings = source_specs,
};

/* ---- synthetic ------------------------------------------------------------------ */

static void synthetic_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    common_defaults(src, NULL);
    src->synthetic.ports = 8;
    src->synthetic.speed_bps = 400000000000ull;
    src->synthetic.interval_ns = 100 * MS;
    src->synthetic.utilization = 0.3;
    src->synthetic.burst_every_ns = 10 * SEC;
    src->synthetic.burst_length_ns = 100 * MS;
    src->synthetic.storm_every_ns = 30 * SEC;
    src->synthetic.seed = 1;
}

static int synthetic_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                            struct fsc_config_mark mark, void *obj)
{
    struct fsc_source_config *src = obj;
    struct fsc_synthetic_config *sy = &src->synthetic;
    if (sy->device == NULL)
        sy->device = src->name;
    if (sy->burst_every_ns > 0 && sy->burst_length_ns >= sy->burst_every_ns)
        return fsc_cfg_fail_key(ctx, node, "burst_length", mark,
                                "must be shorter than burst_every");
    if (sy->storm_every_ns > 0 && sy->storm_every_ns <= 5 * SEC)
        return fsc_cfg_fail_key(ctx, node, "storm_every", mark,
                                "must be longer than the 5s storm it starts (or 0s for no storms)");
    return 0;
}

#define SYN(field) SRC(synthetic.field)
static const struct fsc_ckey synthetic_keys[] = {
    COMMON_KEYS,
    {.key = "device", .kind = FSC_CK_STR, .off = SYN(device), .check = fsc_cfg_check_name},
    {.key = "ports", .kind = FSC_CK_U32, .off = SYN(ports), .min = 1, .max = 1024},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .off = SYN(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
    {.key = "interval",
     .kind = FSC_CK_DUR,
     .off = SYN(interval_ns),
     .min = 10 * MS,
     .max = 60 * SEC},
    {.key = "utilization", .kind = FSC_CK_F64, .off = SYN(utilization), .fmin = 0.0, .fmax = 0.8},
    {.key = "burst_every",
     .kind = FSC_CK_DUR,
     .off = SYN(burst_every_ns),
     .min = 0,
     .max = 3600 * SEC},
    {.key = "burst_length",
     .kind = FSC_CK_DUR,
     .off = SYN(burst_length_ns),
     .min = 1 * MS,
     .max = 60 * SEC},
    {.key = "storm_every",
     .kind = FSC_CK_DUR,
     .off = SYN(storm_every_ns),
     .min = 0,
     .max = 3600 * SEC},
    {.key = "seed", .kind = FSC_CK_U32, .off = SYN(seed), .min = 0, .max = UINT32_MAX},
};

static const struct fsc_cspec synthetic_spec = {
    .what = "a synthetic source",
    .keys = synthetic_keys,
    .n_keys = FSC_NELEM(synthetic_keys),
    .defaults = synthetic_defaults,
    .finish = synthetic_finish,
    .mark_off = SRC(mark),
    .siblings = source_specs,
};

/* ---- replay -------------------------------------------------------------------- */

static const char *const replay_modes[] = {"instant", "realtime", NULL};

static void replay_defaults(void *obj)
{
    struct fsc_source_config *src = obj;
    common_defaults(src, NULL);
    src->replay.mode = FSC_REPLAY_REALTIME;
    src->replay.speed_bps = 400000000000ull;
    src->replay.interval_ns = 100 * MS;
}

static int replay_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    struct fsc_source_config *src = obj;
    if (src->replay.file == NULL)
        return fsc_cfg_fail_key(ctx, node, "file", mark, "required key is missing");
    return 0;
}

#define RPL(field) SRC(replay.field)
static const struct fsc_ckey replay_keys[] = {
    COMMON_KEYS,
    {.key = "file", .kind = FSC_CK_STR, .flags = FSC_CF_PATH, .off = RPL(file)},
    {.key = "mode", .kind = FSC_CK_ENUM, .off = RPL(mode), .names = replay_modes},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .off = RPL(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
    {.key = "interval", .kind = FSC_CK_DUR, .off = RPL(interval_ns), .min = MS, .max = 3600 * SEC},
};

static const struct fsc_cspec replay_spec = {
    .what = "a replay source",
    .keys = replay_keys,
    .n_keys = FSC_NELEM(replay_keys),
    .defaults = replay_defaults,
    .finish = replay_finish,
    .mark_off = SRC(mark),
    .siblings = source_specs,
};

/* ---- the list --------------------------------------------------------------- */

static int decode_source(struct fsc_cctx *ctx, const struct fsc_ynode *item,
                         struct fsc_source_config *src)
{
    if (item->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, item, "expected a mapping (key: value), got %s",
                               item->kind == FSC_YNODE_SEQ ? "a list" : "a single value");
    const struct fsc_ypair *type = fsc_ymap_get(item, "type");
    if (type == NULL)
        return fsc_cfg_fail_key(ctx, item, "type", fsc_cfg_node_mark(item),
                                "required key is missing (gnmi, otlp, nic, synthetic or replay)");
    int t;
    size_t pl = fsc_cfg_path_key(ctx, "type");
    int rc = fsc_cfg_decode_enum(ctx, source_type_names, type->value, &t);
    fsc_cfg_path_pop(ctx, pl);
    if (rc != 0)
        return -1;
    return fsc_cfg_decode_map(ctx, item, fsc_cfg_node_mark(item), source_specs[t], src);
}

int fsc_cfg_decode_sources(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                           const struct fsc_ynode *val, void *obj)
{
    struct fsc_config *cfg = obj;
    (void)key;
    if (fsc_ynode_is_null(val))
        return 0;
    if (val->kind != FSC_YNODE_SEQ)
        return fsc_cfg_fail_at(ctx, val, "expected a list of sources (lines starting with \"- \")");
    if (val->n > FSC_CONFIG_MAX_SOURCES)
        return fsc_cfg_fail_at(ctx, val, "has %zu sources; at most %d are allowed", val->n,
                               FSC_CONFIG_MAX_SOURCES);
    struct fsc_source_config *arr = fsc_cfg_alloc(ctx, val, (val->n ? val->n : 1) * sizeof(*arr));
    if (arr == NULL)
        return -1;
    for (size_t i = 0; i < val->n; i++) {
        size_t pl = fsc_cfg_path_index(ctx, i);
        int rc = decode_source(ctx, val->items[i], &arr[i]);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (strcmp(arr[i].name, arr[j].name) != 0)
                continue;
            struct fsc_config_mark m = fsc_cfg_key_mark(val->items[i], "name", arr[i].mark);
            fsc_cfg_path_key(ctx, "name");
            rc = fsc_cfg_fail(ctx, m.line, m.col, "\"%s\" is already the name of sources[%zu]",
                              arr[i].name, j);
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    cfg->sources = arr;
    cfg->n_sources = val->n;
    return 0;
}

void fsc_cfg_print_sources(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_config *cfg = obj;
    (void)key;
    fputs(cfg->n_sources ? "\n" : " []\n", out);
    for (size_t i = 0; i < cfg->n_sources; i++)
        fsc_cfg_print_map(out, indent + 4, true, source_specs[cfg->sources[i].type],
                          &cfg->sources[i]);
}

const struct fsc_source_config *fsc_config_source(const struct fsc_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->n_sources; i++) {
        if (strcmp(cfg->sources[i].name, name) == 0)
            return &cfg->sources[i];
    }
    return NULL;
}
