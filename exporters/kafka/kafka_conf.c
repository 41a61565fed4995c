/* The kafka config section -> a librdkafka producer configuration. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kafka/kafka_exporter.h"
#include "kafka/kafka_int.h"

/* Sets one property fabricscope derives; `what` names the config key it
 * comes from. Secret values are never echoed. */
static int set(rd_kafka_conf_t *conf, const char *name, const char *value, const char *what,
               bool secret, const char *file, char *err, size_t errlen)
{
    char why[512];
    if (rd_kafka_conf_set(conf, name, value, why, sizeof(why)) == RD_KAFKA_CONF_OK)
        return 0;
    snprintf(err, errlen, "%s%sexporters.kafka.%s: librdkafka refuses %s=%s: %s", file ? file : "",
             file ? ": " : "", what, name, secret ? "<redacted>" : value, why);
    return -1;
}

static int set_property(rd_kafka_conf_t *conf, const struct fsc_kafka_property *p, const char *file,
                        char *err, size_t errlen)
{
    char why[512];
    rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, p->name, p->value, why, sizeof(why));
    if (res == RD_KAFKA_CONF_OK)
        return 0;
    const struct fsc_config_mark *m = res == RD_KAFKA_CONF_UNKNOWN ? &p->name_mark : &p->value_mark;
    char where[64] = "";
    if (m->line > 0)
        snprintf(where, sizeof(where), "%u:%u: ", m->line, m->col);
    snprintf(err, errlen, "%s%s%sexporters.kafka.properties.%s: %s: %s", file ? file : "",
             file ? ":" : "", *where ? where : (file ? " " : ""), p->name,
             res == RD_KAFKA_CONF_UNKNOWN ? "librdkafka has no such property"
                                          : "librdkafka refuses the value",
             why);
    return -1;
}

static const char *compression_name(enum fsc_kafka_compression c)
{
    return c == FSC_KAFKA_ZSTD ? "zstd" : c == FSC_KAFKA_NONE ? "none" : "lz4";
}

static const char *sasl_name(enum fsc_sasl_mechanism m)
{
    return m == FSC_SASL_SCRAM_SHA_256   ? "SCRAM-SHA-256"
           : m == FSC_SASL_SCRAM_SHA_512 ? "SCRAM-SHA-512"
                                         : "PLAIN";
}

static int set_security(rd_kafka_conf_t *conf, const struct fsc_kafka_config *kc, const char *file,
                        char *err, size_t errlen)
{
    bool tls = kc->tls.present && kc->tls.enabled;
    bool sasl = kc->sasl.present;
    const char *proto = tls ? (sasl ? "SASL_SSL" : "SSL") : (sasl ? "SASL_PLAINTEXT" : "PLAINTEXT");
    if (set(conf, "security.protocol", proto, tls ? "tls" : "sasl", false, file, err, errlen) != 0)
        return -1;
    if (tls) {
        const struct fsc_tls_config *t = &kc->tls;
        if (t->ca_file &&
            set(conf, "ssl.ca.location", t->ca_file, "tls.ca_file", false, file, err, errlen) != 0)
            return -1;
        if (t->cert_file && set(conf, "ssl.certificate.location", t->cert_file, "tls.cert_file",
                                false, file, err, errlen) != 0)
            return -1;
        if (t->key_file && set(conf, "ssl.key.location", t->key_file, "tls.key_file", false, file,
                               err, errlen) != 0)
            return -1;
        if (t->insecure_skip_verify &&
            (set(conf, "enable.ssl.certificate.verification", "false", "tls.insecure_skip_verify",
                 false, file, err, errlen) != 0 ||
             set(conf, "ssl.endpoint.identification.algorithm", "none", "tls.insecure_skip_verify",
                 false, file, err, errlen) != 0))
            return -1;
    }
    if (sasl) {
        const struct fsc_sasl_config *s = &kc->sasl;
        if (set(conf, "sasl.mechanisms", sasl_name(s->mechanism), "sasl.mechanism", false, file,
                err, errlen) != 0 ||
            set(conf, "sasl.username", s->username, "sasl.username", false, file, err, errlen) !=
                0 ||
            set(conf, "sasl.password", s->password.value ? s->password.value : "", "sasl.password",
                true, file, err, errlen) != 0)
            return -1;
    }
    return 0;
}

rd_kafka_conf_t *fsc_kafka_conf_build(const struct fsc_kafka_config *kc, const char *file,
                                      bool spool, char *err, size_t errlen)
{
    (void)spool; /* the message timeout does not depend on it (kafka_int.h) */
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (conf == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char brokers[32 * 262] = "", num[64];
    for (size_t i = 0; i < kc->n_brokers; i++) {
        size_t len = strlen(brokers);
        snprintf(brokers + len, sizeof(brokers) - len, "%s%s", i ? "," : "", kc->brokers[i]);
    }
    if (set(conf, "bootstrap.servers", brokers, "brokers", false, file, err, errlen) != 0 ||
        set(conf, "client.id", kc->client_id, "client_id", false, file, err, errlen) != 0 ||
        /* No loss, no duplicates from retries, per-partition order kept
         * across retries: the idempotent producer, which needs acks=all. */
        set(conf, "enable.idempotence", "true", "enable.idempotence", false, file, err, errlen) !=
            0 ||
        set(conf, "acks", "all", "acks", false, file, err, errlen) != 0 ||
        set(conf, "compression.type", compression_name(kc->compression), "compression", false, file,
            err, errlen) != 0)
        goto fail;
    snprintf(num, sizeof(num), "%.3f", (double)kc->linger_ns / 1e6);
    if (set(conf, "linger.ms", num, "linger", false, file, err, errlen) != 0)
        goto fail;
    snprintf(num, sizeof(num), "%llu", (unsigned long long)kc->batch_size);
    if (set(conf, "batch.size", num, "batch_size", false, file, err, errlen) != 0)
        goto fail;
    /* The exporter never has more than queue_max messages inside librdkafka;
     * the same bound here means a produce() cannot fail for want of room
     * (the byte bound, queue.buffering.max.kbytes, stays at 1 GB). */
    snprintf(num, sizeof(num), "%u", kc->queue_max);
    if (set(conf, "queue.buffering.max.messages", num, "queue_max", false, file, err, errlen) != 0)
        goto fail;
    snprintf(num, sizeof(num), "%d", FSC_KAFKA_MESSAGE_TIMEOUT_MS);
    if (set(conf, "message.timeout.ms", num, "spool_dir", false, file, err, errlen) != 0)
        goto fail;
    /* Statistics once a second tell whether a broker connection is up. */
    if (set(conf, "statistics.interval.ms", "1000", "enabled", false, file, err, errlen) != 0)
        goto fail;
    if (set_security(conf, kc, file, err, errlen) != 0)
        goto fail;
    for (size_t i = 0; i < kc->n_properties; i++) {
        if (set_property(conf, &kc->properties[i], file, err, errlen) != 0)
            goto fail;
    }
    return conf;
fail:
    rd_kafka_conf_destroy(conf);
    return NULL;
}

int fsc_kafka_config_check(const struct fsc_kafka_config *cfg, const char *file, char *err,
                           size_t errlen)
{
    rd_kafka_conf_t *conf = fsc_kafka_conf_build(cfg, file, cfg->spool_dir[0] != '\0', err, errlen);
    if (conf == NULL)
        return -1;
    rd_kafka_conf_destroy(conf);
    return 0;
}
