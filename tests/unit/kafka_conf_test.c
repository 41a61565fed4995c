/* The kafka config section (exporters/kafka/kafka_keys.c) and its
 * mapping to librdkafka (exporters/kafka/kafka_conf.c): properties with
 * their positions, reserved names, TLS / SASL, defaults. */
#include <errno.h>
#include <librdkafka/rdkafka.h>

#include "config/config.h"
#include "kafka/kafka_exporter.h"
#include "kafka/kafka_int.h"
#include "test.h"
#include "config_all.h"

static struct fsc_config *parse(const char *text, char *err, size_t errlen)
{
    err[0] = '\0';
    return fsc_config_parse(text, strlen(text), "kt.yaml", fsc_app_schema(), err, errlen);
}

/* The value librdkafka holds for name (topic-level names included). */
static const char *conf_get(rd_kafka_conf_t *conf, const char *name, char *buf, size_t size)
{
    size_t n = size;
    if (rd_kafka_conf_get(conf, name, buf, &n) != RD_KAFKA_CONF_OK)
        snprintf(buf, size, "<unset>");
    return buf;
}

static void defaults_and_keys(void)
{
    char err[512];
    struct fsc_config *cfg =
        parse("exporters:\n  kafka: {brokers: [\"k:9092\"]}\n", err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL)
        return;
    const struct fsc_kafka_config *k = fsc_kafka_config_of(cfg);
    CHECK_STR(k->events_topic, "fabric.events");
    CHECK_STR(k->samples_topic, "");
    CHECK_INT(k->spool_fsync, FSC_SPOOL_FSYNC_INTERVAL);
    CHECK_INT(k->n_properties, 0);
    fsc_config_destroy(cfg);

    cfg = parse("exporters:\n"
                "  kafka:\n"
                "    brokers: [\"k:9092\"]\n"
                "    spool_dir: /var/spool/fsc\n"
                "    spool_fsync: always\n"
                "    properties:\n"
                "      message.timeout.ms: 30000\n"
                "      socket.keepalive.enable: \"true\"\n",
                err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    k = fsc_kafka_config_of(cfg);
    CHECK_INT(k->spool_fsync, FSC_SPOOL_FSYNC_ALWAYS);
    CHECK_INT(k->n_properties, 2);
    CHECK_STR(k->properties[0].name, "message.timeout.ms");
    CHECK_STR(k->properties[0].value, "30000");
    CHECK_INT(k->properties[0].name_mark.line, 7);
    CHECK_INT(k->properties[0].name_mark.col, 7);
    CHECK_INT(k->properties[0].value_mark.col, 27);
    CHECK_STR(k->properties[1].name, "socket.keepalive.enable");
    CHECK_STR(k->properties[1].value, "true");

    /* Printed and read back: the same properties. */
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    CHECK(f != NULL);
    if (f != NULL) {
        CHECK_INT(fsc_config_print(cfg, f), 0);
        fclose(f);
        CHECK(strstr(out, "    spool_fsync: always\n"
                          "    properties:\n"
                          "      message.timeout.ms: \"30000\"\n"
                          "      socket.keepalive.enable: \"true\"\n") != NULL);
        struct fsc_config *again =
            fsc_config_parse(out, outlen, "printed", fsc_app_schema(), err, sizeof(err));
        CHECK(again != NULL);
        if (again != NULL) {
            CHECK_INT(fsc_kafka_config_of(again)->n_properties, 2);
            CHECK_STR(fsc_kafka_config_of(again)->properties[1].value, "true");
            fsc_config_destroy(again);
        }
        free(out);
    }
    fsc_config_destroy(cfg);
}

static void loader_errors(void)
{
    static const struct {
        const char *lines; /* under exporters.kafka, after brokers */
        const char *want;
    } cases[] = {
        {"    properties: {acks: \"1\"}\n",
         "kt.yaml:4:18: exporters.kafka.properties.acks: acks is fixed by fabricscope (the "
         "idempotent producer with acks=all is what makes delivery lossless)"},
        {"    properties:\n      linger.ms: 10\n",
         "kt.yaml:5:7: exporters.kafka.properties.linger.ms: linger.ms is set from the kafka key "
         "linger; set that instead"},
        {"    properties:\n      ssl.key.password: hunter2\n",
         "kt.yaml:5:7: exporters.kafka.properties.ssl.key.password: ssl.key.password holds a "
         "credential, which properties would print; use sasl.password_file or "
         "sasl.password_env"},
        {"    properties: {\"bad name\": 1}\n",
         "kt.yaml:4:18: exporters.kafka.properties.bad name: \"bad name\" is not a librdkafka "
         "property name"},
        {"    properties: [a, b]\n",
         "kt.yaml:4:17: exporters.kafka.properties: expected a mapping of librdkafka property "
         "names to values"},
        {"    spool_fsync: sometimes\n",
         "kt.yaml:4:18: exporters.kafka.spool_fsync: \"sometimes\" is not one of: interval, "
         "always, never"},
        {"    tls: {server_name: kafka.example}\n",
         "kt.yaml:4:5: exporters.kafka.tls: server_name is not supported for Kafka (librdkafka "
         "verifies the host named in brokers)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512], err[512];
        snprintf(text, sizeof(text), "exporters:\n  kafka:\n    brokers: [\"k:9092\"]\n%s",
                 cases[i].lines);
        struct fsc_config *cfg = parse(text, err, sizeof(err));
        CHECK(cfg == NULL);
        CHECK_STR(err, cases[i].want);
        fsc_config_destroy(cfg);
    }
}

static int never_encode(void *arg, const struct fsc_event *ev, char *out, size_t cap, char *key,
                        size_t keycap)
{
    (void)arg, (void)ev, (void)out, (void)cap, (void)key, (void)keycap;
    return -EINVAL;
}

/* Names and values librdkafka refuses: found at startup (and by
 * fsc_kafka_config_check), reported at the property's line and column. */
static void librdkafka_refusals_have_positions(void)
{
    static const struct {
        const char *prop;
        const char *want; /* prefix of the error */
    } cases[] = {
        {"      no.such.thing: 1\n",
         "kt.yaml:5:7: exporters.kafka.properties.no.such.thing: librdkafka has no such "
         "property: "},
        {"      message.timeout.ms: soon\n",
         "kt.yaml:5:27: exporters.kafka.properties.message.timeout.ms: librdkafka refuses the "
         "value: "},
        {"      socket.keepalive.enable: maybe\n",
         "kt.yaml:5:32: exporters.kafka.properties.socket.keepalive.enable: librdkafka refuses "
         "the value: "},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512], err[512], err0[512];
        /* Loading asks librdkafka (the kafka kind's check): the file is refused
         * with the sentence. */
        snprintf(text, sizeof(text),
                 "exporters:\n  kafka:\n    brokers: [\"k:9092\"]\n    properties:\n%s",
                 cases[i].prop);
        CHECK(parse(text, err0, sizeof(err0)) == NULL);
        if (strncmp(err0, cases[i].want, strlen(cases[i].want)) != 0)
            CHECK_STR(err0, cases[i].want);
        /* Disabled, the section loads (nothing would start it); the check and
         * start() then refuse with the same sentence. */
        snprintf(text, sizeof(text),
                 "exporters:\n  kafka:\n    brokers: [\"k:9092\"]\n    properties:\n%s"
                 "    enabled: false\n",
                 cases[i].prop);
        struct fsc_config *cfg = parse(text, err, sizeof(err));
        CHECK(cfg != NULL);
        if (cfg == NULL)
            continue;
        CHECK_INT(fsc_kafka_config_check(fsc_kafka_config_of(cfg), cfg->file, err, sizeof(err)),
                  -1);
        CHECK_STR(err, err0);
        /* start() refuses with the same sentence, before touching the bus. */
        struct fsc_event_bus *bus = fsc_event_bus_create(4);
        char err2[512];
        struct fsc_kafka_exporter_options o = {.cfg = fsc_kafka_config_of(cfg),
                                               .config_file = cfg->file,
                                               .bus = bus,
                                               .encode = never_encode};
        CHECK(fsc_kafka_exporter_start(&o, err2, sizeof(err2)) == NULL);
        CHECK_STR(err2, err);
        fsc_event_bus_destroy(bus);
        fsc_config_destroy(cfg);
    }
}

static void librdkafka_settings(void)
{
    char err[512], v[256];
    struct fsc_config *cfg =
        parse("exporters:\n"
              "  kafka:\n"
              "    brokers: [\"k1:9093\", \"k2:9093\"]\n"
              "    client_id: fsc-a\n"
              "    compression: zstd\n"
              "    linger: 5ms\n"
              "    batch_size: 512KiB\n"
              "    queue_max: 5000\n"
              "    sasl: {mechanism: SCRAM-SHA-512, username: u, password: p}\n"
              "    tls: {ca_file: /etc/ca.pem, cert_file: /etc/c.pem, "
              "key_file: /etc/k.pem}\n"
              "    properties: {statistics.interval.ms: \"5000\"}\n",
              err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    rd_kafka_conf_t *conf =
        fsc_kafka_conf_build(fsc_kafka_config_of(cfg), cfg->file, true, err, sizeof(err));
    CHECK(conf != NULL);
    if (conf != NULL) {
        CHECK_STR(conf_get(conf, "bootstrap.servers", v, sizeof(v)), "k1:9093,k2:9093");
        CHECK_STR(conf_get(conf, "client.id", v, sizeof(v)), "fsc-a");
        CHECK_STR(conf_get(conf, "enable.idempotence", v, sizeof(v)), "true");
        CHECK_STR(conf_get(conf, "acks", v, sizeof(v)), "-1"); /* = all */
        CHECK_STR(conf_get(conf, "compression.type", v, sizeof(v)), "zstd");
        CHECK_STR(conf_get(conf, "linger.ms", v, sizeof(v)), "5");
        CHECK_STR(conf_get(conf, "batch.size", v, sizeof(v)), "524288");
        CHECK_STR(conf_get(conf, "queue.buffering.max.messages", v, sizeof(v)), "5000");
        CHECK_STR(conf_get(conf, "message.timeout.ms", v, sizeof(v)), "0");
        CHECK_STR(conf_get(conf, "security.protocol", v, sizeof(v)), "sasl_ssl");
        CHECK_STR(conf_get(conf, "sasl.mechanisms", v, sizeof(v)), "SCRAM-SHA-512");
        CHECK_STR(conf_get(conf, "sasl.username", v, sizeof(v)), "u");
        CHECK_STR(conf_get(conf, "ssl.ca.location", v, sizeof(v)), "/etc/ca.pem");
        CHECK_STR(conf_get(conf, "ssl.certificate.location", v, sizeof(v)), "/etc/c.pem");
        CHECK_STR(conf_get(conf, "ssl.key.location", v, sizeof(v)), "/etc/k.pem");
        /* properties come last and win */
        CHECK_STR(conf_get(conf, "statistics.interval.ms", v, sizeof(v)), "5000");
        rd_kafka_conf_destroy(conf);
    }
    /* Without a spool librdkafka keeps messages with no time limit. */
    conf = fsc_kafka_conf_build(fsc_kafka_config_of(cfg), NULL, false, err, sizeof(err));
    CHECK(conf != NULL);
    if (conf != NULL) {
        CHECK_STR(conf_get(conf, "message.timeout.ms", v, sizeof(v)), "0");
        rd_kafka_conf_destroy(conf);
    }
    CHECK_INT(fsc_kafka_config_check(fsc_kafka_config_of(cfg), cfg->file, err, sizeof(err)), 0);
    fsc_config_destroy(cfg);

    /* TLS alone, insecure: plain SSL without verification. */
    cfg = parse("exporters:\n  kafka:\n    brokers: [\"k:9093\"]\n"
                "    tls: {insecure_skip_verify: true}\n",
                err, sizeof(err));
    CHECK(cfg != NULL);
    if (cfg == NULL)
        return;
    conf = fsc_kafka_conf_build(fsc_kafka_config_of(cfg), NULL, false, err, sizeof(err));
    CHECK(conf != NULL);
    if (conf != NULL) {
        CHECK_STR(conf_get(conf, "security.protocol", v, sizeof(v)), "ssl");
        CHECK_STR(conf_get(conf, "enable.ssl.certificate.verification", v, sizeof(v)), "false");
        CHECK_STR(conf_get(conf, "ssl.endpoint.identification.algorithm", v, sizeof(v)), "none");
        CHECK_STR(conf_get(conf, "compression.type", v, sizeof(v)), "lz4");
        rd_kafka_conf_destroy(conf);
    }
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(defaults_and_keys), TEST(loader_errors), TEST(librdkafka_refusals_have_positions),
          TEST(librdkafka_settings))
