/* exporters.kafka: the settings of the Kafka exporter (its key table is
 * kafka_keys.c; docs/CONFIG.md, "kafka"). */
#ifndef FSC_KAFKA_CONFIG_H
#define FSC_KAFKA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

enum fsc_kafka_compression {
    FSC_KAFKA_LZ4 = 0,
    FSC_KAFKA_ZSTD = 1,
    FSC_KAFKA_NONE = 2,
};

enum fsc_sasl_mechanism {
    FSC_SASL_PLAIN = 0,
    FSC_SASL_SCRAM_SHA_256 = 1,
    FSC_SASL_SCRAM_SHA_512 = 2,
};

struct fsc_sasl_config {
    bool present;
    enum fsc_sasl_mechanism mechanism; /* default PLAIN */
    const char *username;              /* required */
    struct fsc_secret password;        /* required */
};

/* When the Kafka spool calls fsync (docs/CONFIG.md, "kafka"). */
enum fsc_spool_fsync {
    FSC_SPOOL_FSYNC_INTERVAL = 0, /* once a second (default) */
    FSC_SPOOL_FSYNC_ALWAYS = 1,   /* before each batch is handed to librdkafka */
    FSC_SPOOL_FSYNC_NEVER = 2,    /* the kernel writes back when it wants */
};

/* One librdkafka setting passed through from `properties:`. The loader
 * checks the name's syntax and refuses names fabricscope sets itself; the
 * exporter validates name and value with rd_kafka_conf_set() at startup and
 * reports a refusal at these marks. */
struct fsc_kafka_property {
    const char *name;
    const char *value;
    struct fsc_config_mark name_mark, value_mark;
};

struct fsc_kafka_config {
    bool present;         /* the section exists */
    bool enabled;         /* default true once present */
    const char **brokers; /* "host:port", required when enabled */
    size_t n_brokers;
    const char *client_id;                  /* default "fabricscope" */
    const char *events_topic;               /* default "fabric.events" */
    const char *samples_topic;              /* "" = samples are not sent (default) */
    enum fsc_kafka_compression compression; /* default lz4 */
    int64_t linger_ns;                      /* default 5 ms */
    uint64_t batch_size;                    /* bytes; default 1 MB */
    uint32_t queue_max;                     /* messages held in memory; default 100000 */
    const char *spool_dir;                  /* "" = no on-disk spool (default) */
    uint64_t spool_max;                     /* default 1 GiB */
    enum fsc_spool_fsync spool_fsync;       /* default interval (1 s) */
    struct fsc_kafka_property *properties;  /* librdkafka pass-through, in file order */
    size_t n_properties;
    struct fsc_sasl_config sasl;
    struct fsc_tls_config tls;
};

/* The kind of exporters.kafka (kafka_keys.c). */
extern const struct fsc_config_kind fsc_kafka_kind;

/* cfg's exporters.kafka (present = false when the section is absent); NULL
 * when cfg's schema has none. */
const struct fsc_kafka_config *fsc_kafka_config_of(const struct fsc_config *cfg);

#endif
