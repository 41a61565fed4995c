/* exporters.kafka: key table, defaults and checks (librdkafka properties
 * pass through by name; docs/CONFIG.md, "kafka"). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_decode.h"
#include "kafka/kafka_config.h"
#include "kafka/kafka_exporter.h"

#define MS  1000000ll
#define SEC 1000000000ll

/* ---- kafka -------------------------------------------------------------------- */

static const char *const compression_names[] = {"lz4", "zstd", "none", NULL};
static const char *const spool_fsync_names[] = {"interval", "always", "never", NULL};
static const char *const sasl_names[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", NULL};

static int check_topic(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    bool ok = strlen(s) <= 249 && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
    for (const char *p = s; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '.' || *p == '_' || *p == '-';
    if (!ok)
        return fsc_cfg_fail_at(ctx, val,
                               "%s is not a valid Kafka topic (letters, digits, '.', '_', '-'; at "
                               "most 249)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

static int sasl_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    const struct fsc_sasl_config *s = obj;
    if (s->password.value == NULL)
        return fsc_cfg_fail_key(
            ctx, node, "password", mark,
            "required key is missing (password, password_file or password_env)");
    return 0;
}

#define SASL(field) offsetof(struct fsc_sasl_config, field)
static const struct fsc_ckey sasl_keys[] = {
    {.key = "mechanism", .kind = FSC_CK_ENUM, .off = SASL(mechanism), .names = sasl_names},
    {.key = "username", .kind = FSC_CK_STR, .flags = FSC_CF_REQUIRED, .off = SASL(username)},
    {.key = "password", .kind = FSC_CK_SECRET, .off = SASL(password)},
    {.key = "password_file", .kind = FSC_CK_SECRET_FILE, .off = SASL(password)},
    {.key = "password_env", .kind = FSC_CK_SECRET_ENV, .off = SASL(password)},
};

static const struct fsc_cspec sasl_spec = {
    .what = "a sasl section",
    .keys = sasl_keys,
    .n_keys = FSC_NELEM(sasl_keys),
    .finish = sasl_finish,
};

#define KAFKA(field)   offsetof(struct fsc_kafka_config, field)
#define MAX_PROPERTIES 64

/* librdkafka settings that fabricscope derives from its own keys (name the
 * key to use instead) or that the no-loss guarantee depends on. */
static const struct {
    const char *name, *use;
} reserved_properties[] = {
    {"bootstrap.servers", "brokers"},
    {"metadata.broker.list", "brokers"},
    {"client.id", "client_id"},
    {"compression.type", "compression"},
    {"compression.codec", "compression"},
    {"linger.ms", "linger"},
    {"queue.buffering.max.ms", "linger"},
    {"batch.size", "batch_size"},
    {"queue.buffering.max.messages", "queue_max"},
    {"enable.idempotence", NULL},
    {"acks", NULL},
    {"request.required.acks", NULL},
    {"security.protocol", "tls and sasl"},
    {"sasl.mechanisms", "sasl.mechanism"},
    {"sasl.mechanism", "sasl.mechanism"},
    {"sasl.username", "sasl.username"},
    {"ssl.ca.location", "tls.ca_file"},
    {"ssl.certificate.location", "tls.cert_file"},
    {"ssl.key.location", "tls.key_file"},
};

/* Checks one property name; fails at node k. */
static int check_property_name(struct fsc_cctx *ctx, const struct fsc_ynode *k)
{
    char q[96];
    bool ok = k->n > 0 && k->n <= 128;
    for (size_t c = 0; ok && c < k->n; c++)
        ok = (k->str[c] >= 'a' && k->str[c] <= 'z') || (k->str[c] >= 'A' && k->str[c] <= 'Z') ||
             (k->str[c] >= '0' && k->str[c] <= '9') || k->str[c] == '.' || k->str[c] == '_' ||
             k->str[c] == '-';
    if (!ok)
        return fsc_cfg_fail_at(ctx, k, "%s is not a librdkafka property name",
                               fsc_cfg_quote(k->str, q, sizeof(q)));
    for (size_t r = 0; r < FSC_NELEM(reserved_properties); r++) {
        if (strcmp(k->str, reserved_properties[r].name) != 0)
            continue;
        if (reserved_properties[r].use != NULL)
            return fsc_cfg_fail_at(ctx, k, "%s is set from the kafka key %s; set that instead",
                                   k->str, reserved_properties[r].use);
        return fsc_cfg_fail_at(ctx, k,
                               "%s is fixed by fabricscope (the idempotent producer with "
                               "acks=all is what makes delivery lossless)",
                               k->str);
    }
    /* Values are printed by check-config and logged on refusal: credentials
     * belong in sasl.password_file / password_env. */
    if (strstr(k->str, "password") != NULL || strstr(k->str, "secret") != NULL)
        return fsc_cfg_fail_at(ctx, k,
                               "%s holds a credential, which properties would print; use "
                               "sasl.password_file or sasl.password_env",
                               k->str);
    return 0;
}

static int decode_properties(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                             const struct fsc_ynode *val, void *obj)
{
    struct fsc_kafka_config *k = obj;
    (void)key;
    if (fsc_ynode_is_null(val))
        return 0;
    if (val->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, val,
                               "expected a mapping of librdkafka property names to values");
    if (val->n > MAX_PROPERTIES)
        return fsc_cfg_fail_at(ctx, val, "has %zu properties; at most %d are allowed", val->n,
                               MAX_PROPERTIES);
    k->properties = fsc_cfg_alloc(ctx, val, (val->n ? val->n : 1) * sizeof(*k->properties));
    if (k->properties == NULL)
        return -1;
    for (size_t i = 0; i < val->n; i++) {
        const struct fsc_ynode *kn = val->pairs[i].key;
        const struct fsc_ynode *vn = val->pairs[i].value;
        struct fsc_kafka_property *p = &k->properties[i];
        size_t pl = fsc_cfg_path_key(ctx, kn->str);
        int rc = check_property_name(ctx, kn);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (strcmp(kn->str, k->properties[j].name) == 0)
                rc = fsc_cfg_fail_at(ctx, kn, "%s is given twice", kn->str);
        }
        /* Scalars only: librdkafka takes every value as a string, so
         * `message.timeout.ms: 30000` and `"30000"` mean the same. */
        struct fsc_ckey vk = {.kind = FSC_CK_STR, .flags = FSC_CF_EMPTY_OK, .max = 1024};
        if (rc == 0)
            rc = fsc_cfg_decode_str(ctx, &vk, vn, &p->value);
        if (rc == 0) {
            p->name = fsc_cfg_strdup(ctx, kn, kn->str);
            rc = p->name ? 0 : -1;
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
        p->name_mark = fsc_cfg_node_mark(kn);
        p->value_mark = fsc_cfg_node_mark(vn);
        k->n_properties = i + 1;
    }
    return 0;
}

static void print_properties(FILE *out, unsigned indent, const struct fsc_ckey *key,
                             const void *obj)
{
    const struct fsc_kafka_config *k = obj;
    (void)key;
    fputc('\n', out);
    for (size_t i = 0; i < k->n_properties; i++) {
        fsc_cfg_print_indent(out, indent + 2);
        fsc_cfg_print_str(out, k->properties[i].name);
        fputs(": ", out);
        fsc_cfg_print_str(out, k->properties[i].value);
        fputc('\n', out);
    }
}

static bool properties_printed(const void *obj)
{
    return ((const struct fsc_kafka_config *)obj)->n_properties > 0;
}

static void kafka_defaults(void *obj)
{
    struct fsc_kafka_config *k = obj;
    k->enabled = true;
    k->client_id = "fabricscope";
    k->events_topic = "fabric.events";
    k->samples_topic = "";
    k->compression = FSC_KAFKA_LZ4;
    k->linger_ns = 5 * MS;
    k->batch_size = 1000000;
    k->queue_max = 100000;
    k->spool_dir = "";
    k->spool_max = 1ull << 30;
    k->spool_fsync = FSC_SPOOL_FSYNC_INTERVAL;
}

static int kafka_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                        struct fsc_config_mark mark, void *obj)
{
    const struct fsc_kafka_config *k = obj;
    if (k->enabled && k->n_brokers == 0)
        return fsc_cfg_fail_key(ctx, node, "brokers", mark, "required key is missing");
    if (strcmp(k->samples_topic, k->events_topic) == 0)
        return fsc_cfg_fail_key(ctx, node, "samples_topic", mark, "must differ from events_topic");
    /* librdkafka verifies the broker's certificate against the host in
     * `brokers` and has no setting for another name. */
    if (k->tls.present && k->tls.server_name != NULL)
        return fsc_cfg_fail_key(ctx, node, "tls", mark,
                                "server_name is not supported for Kafka (librdkafka verifies the "
                                "host named in brokers)");
    return 0;
}

static const struct fsc_ckey kafka_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = KAFKA(enabled)},
    {.key = "brokers",
     .kind = FSC_CK_STRLIST,
     .flags = FSC_CF_FLOW | FSC_CF_OMIT_ZERO,
     .off = KAFKA(brokers),
     .off2 = KAFKA(n_brokers),
     .max_items = 32,
     .check = fsc_cfg_check_hostport},
    {.key = "client_id", .kind = FSC_CK_STR, .off = KAFKA(client_id), .check = fsc_cfg_check_name},
    {.key = "events_topic", .kind = FSC_CK_STR, .off = KAFKA(events_topic), .check = check_topic},
    {.key = "samples_topic",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_EMPTY_OK,
     .off = KAFKA(samples_topic),
     .check = check_topic},
    {.key = "compression",
     .kind = FSC_CK_ENUM,
     .off = KAFKA(compression),
     .names = compression_names},
    {.key = "linger", .kind = FSC_CK_DUR, .off = KAFKA(linger_ns), .min = 0, .max = 10 * SEC},
    {.key = "batch_size",
     .kind = FSC_CK_BYTES,
     .off = KAFKA(batch_size),
     .min = 1024,
     .max = 1ll << 30},
    {.key = "queue_max", .kind = FSC_CK_U32, .off = KAFKA(queue_max), .min = 1, .max = 10000000},
    {.key = "spool_dir",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_EMPTY_OK,
     .off = KAFKA(spool_dir)},
    {.key = "spool_max",
     .kind = FSC_CK_BYTES,
     .off = KAFKA(spool_max),
     .min = 1ll << 20,
     .max = 1ll << 40},
    {.key = "spool_fsync",
     .kind = FSC_CK_ENUM,
     .off = KAFKA(spool_fsync),
     .names = spool_fsync_names},
    {.key = "properties",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_properties,
     .print = print_properties,
     .printed = properties_printed},
    {.key = "sasl",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = KAFKA(sasl),
     .spec = &sasl_spec},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = KAFKA(tls),
     .spec = &fsc_cspec_tls_client},
};

static const struct fsc_cspec kafka_spec = {
    .what = "the kafka exporter",
    .keys = kafka_keys,
    .n_keys = FSC_NELEM(kafka_keys),
    .defaults = kafka_defaults,
    .finish = kafka_finish,
};

/* librdkafka judges `properties:` names and values: ask it at load time,
 * so a bad one is a config error (check-config included), not only a
 * failed start. */
static int kafka_check(struct fsc_cctx *ctx, const struct fsc_config *cfg, const void *obj,
                       const struct fsc_ynode *node)
{
    const struct fsc_kafka_config *kc = obj;
    char err[1024];
    (void)node;
    if (!kc->present || !kc->enabled ||
        fsc_kafka_config_check(kc, cfg->file, err, sizeof(err)) == 0)
        return 0;
    return fsc_cfg_fail_raw(ctx, err);
}

const struct fsc_config_kind fsc_kafka_kind = {
    .name = "kafka",
    .spec = &kafka_spec,
    .size = sizeof(struct fsc_kafka_config),
    .optional = true,
    .check = kafka_check,
};

const struct fsc_kafka_config *fsc_kafka_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_kafka_kind);
}
