/* Kafka producer tests against librdkafka's in-process mock cluster: the
 * cluster, a test encoder, a config built through the real loader, and a
 * consumer that checks exactly-once and per-key order. Header-only (static
 * functions) for the test executables. */
#ifndef FSC_KAFKA_MOCK_FIXTURE_H
#define FSC_KAFKA_MOCK_FIXTURE_H

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "engine/events.h"
#include "kafka/kafka_exporter.h"
#include "config_all.h"

#define KT_TOPIC  "fabric.events"
#define KT_PARTS  4
#define KT_KEYS   8
#define KT_MAXSEQ 20000

/* Polls `cond` every 10 ms, at most max_ms (a bound, not an assertion). */
#define KT_WAIT(cond, max_ms)                                                                      \
    for (int kt_w_ = 0; kt_w_ < (max_ms) / 10 && !(cond); kt_w_++)                                 \
    usleep(10000)

struct kt_cluster {
    rd_kafka_t *rk; /* hosts the cluster */
    rd_kafka_mock_cluster_t *mc;
    char bootstraps[512];
    int n_brokers;
};

static inline int kt_cluster_start(struct kt_cluster *c, int n_brokers)
{
    char err[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "4", NULL, 0);
    c->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    if (c->rk == NULL)
        return -1;
    c->mc = rd_kafka_mock_cluster_new(c->rk, n_brokers);
    if (c->mc == NULL)
        return -1;
    c->n_brokers = n_brokers;
    snprintf(c->bootstraps, sizeof(c->bootstraps), "%s", rd_kafka_mock_cluster_bootstraps(c->mc));
    return rd_kafka_mock_topic_create(c->mc, KT_TOPIC, KT_PARTS, n_brokers) == 0 ? 0 : -1;
}

static inline void kt_cluster_stop(struct kt_cluster *c)
{
    if (c->mc)
        rd_kafka_mock_cluster_destroy(c->mc);
    if (c->rk)
        rd_kafka_destroy(c->rk);
    memset(c, 0, sizeof(*c));
}

/* Every broker down (up = 0) or up (up = 1). */
static inline void kt_cluster_set(struct kt_cluster *c, int up)
{
    for (int b = 1; b <= c->n_brokers; b++) {
        if (up)
            rd_kafka_mock_broker_set_up(c->mc, b);
        else
            rd_kafka_mock_broker_set_down(c->mc, b);
    }
}

/* The test encoder: {"id":"<run>-<seq>","seq":N,"port":P,"pad":"xxx..."},
 * key "leaf1/et-0/0/<P>" with P = series % KT_KEYS. Optionally refuses
 * every reject_every-th seq, or blocks on its first call until released. */
struct kt_encoder {
    char run[FSC_KAFKA_RUN_ID_LEN + 1];
    uint64_t reject_every;
    atomic_int block;   /* 1: the next call waits for release */
    atomic_int entered; /* set when a blocked call is waiting */
    atomic_int release;
};

static inline int kt_encode(void *arg, const struct fsc_event *ev, char *out, size_t cap, char *key,
                            size_t keycap)
{
    struct kt_encoder *e = arg;
    if (atomic_exchange(&e->block, 0)) {
        atomic_store(&e->entered, 1);
        for (int i = 0; i < 3000 && !atomic_load(&e->release); i++)
            usleep(1000);
    }
    if (e->reject_every && ev->seq % e->reject_every == 0)
        return -E2BIG;
    char id[FSC_KAFKA_EVENT_ID_MAX];
    if (fsc_kafka_event_id(id, sizeof(id), e->run, ev->seq) < 0)
        return -EINVAL;
    snprintf(key, keycap, "leaf1/et-0/0/%u", (unsigned)(ev->series % KT_KEYS));
    int n =
        snprintf(out, cap, "{\"id\":\"%s\",\"seq\":%llu,\"port\":%u,\"pad\":\"%s\"}", id,
                 (unsigned long long)ev->seq, (unsigned)(ev->series % KT_KEYS),
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    return n < 0 || (size_t)n >= cap ? -E2BIG : n;
}

/* Publishes n events with series = i % KT_KEYS. */
static inline void kt_publish(struct fsc_event_bus *bus, int n)
{
    for (int i = 0; i < n; i++) {
        struct fsc_event ev = {.kind = FSC_EV_MICROBURST, .phase = FSC_EV_INSTANT};
        ev.series = (fsc_series_id)(fsc_event_bus_published(bus) % KT_KEYS);
        fsc_event_publish(bus, &ev);
    }
}

/* A config through the real loader: brokers from a comma list, plus
 * `extra` lines (indented 4) under exporters.kafka. */
static inline struct fsc_config *kt_config(const char *brokers, const char *extra)
{
    char text[4096], list[1024] = "", err[512];
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", brokers);
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s\"%s\"", l ? ", " : "", t);
    }
    snprintf(text, sizeof(text),
             "exporters:\n  prometheus: {enabled: false}\n  kafka:\n    brokers: [%s]\n%s", list,
             extra ? extra : "");
    struct fsc_config *cfg =
        fsc_config_parse(text, strlen(text), "kt.yaml", fsc_app_schema(), err, sizeof(err));
    if (cfg == NULL)
        fprintf(stderr, "config: %s\n", err);
    return cfg;
}

static inline struct fsc_kafka_exporter *kt_start(const struct fsc_config *cfg,
                                                  struct fsc_event_bus *bus, struct kt_encoder *enc)
{
    char err[512] = "";
    struct fsc_kafka_exporter_options o = {.cfg = fsc_kafka_config_of(cfg),
                                           .config_file = cfg->file,
                                           .bus = bus,
                                           .encode = kt_encode,
                                           .encode_arg = enc};
    struct fsc_kafka_exporter *x = fsc_kafka_exporter_start(&o, err, sizeof(err));
    if (x == NULL)
        fprintf(stderr, "start: %s\n", err);
    return x;
}

static inline struct fsc_kafka_stats kt_stats(const struct fsc_kafka_exporter *x)
{
    struct fsc_kafka_stats st;
    fsc_kafka_exporter_stats(x, &st);
    return st;
}

/* What a consumer saw. */
struct kt_seen {
    uint64_t messages; /* all, duplicates included */
    uint64_t distinct; /* distinct seq */
    uint64_t dups;     /* a seq seen again */
    uint64_t disorder; /* a key's seq not above the previous of that key */
    uint64_t bad;      /* payload or key not as the encoder writes them */
    uint64_t max_seq;
    unsigned char *count; /* per seq, KT_MAXSEQ + 1 */
};

/* Reads the topic from the beginning until `expect` distinct events came
 * (then a little longer, to see duplicates), at most ~60 s. */
static inline int kt_consume(const char *bootstraps, uint64_t expect, struct kt_seen *s)
{
    char err[256];
    memset(s, 0, sizeof(*s));
    s->count = calloc(KT_MAXSEQ + 1, 1);
    uint64_t last[KT_KEYS] = {0};
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (s->count == NULL ||
        rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err, sizeof(err)) != 0 ||
        rd_kafka_conf_set(conf, "group.id", "fsc-test", err, sizeof(err)) != 0 ||
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err)) != 0 ||
        rd_kafka_conf_set(conf, "log_level", "3", err, sizeof(err)) != 0)
        return -1;
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    if (rk == NULL)
        return -1;
    rd_kafka_poll_set_consumer(rk);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(KT_PARTS);
    for (int p = 0; p < KT_PARTS; p++)
        rd_kafka_topic_partition_list_add(l, KT_TOPIC, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    /* Bounded: at most 600 empty polls (~60 s), and once everything came,
     * 10 more empty polls (~1 s) to catch duplicates. */
    int idle = 0, extra = 0;
    while (idle < 600 && extra < 10) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (m == NULL) {
            idle++;
            extra += s->distinct >= expect;
            continue;
        }
        if (m->err == 0) {
            char buf[512], key[64];
            size_t n = m->len < sizeof(buf) - 1 ? m->len : sizeof(buf) - 1;
            memcpy(buf, m->payload, n);
            buf[n] = '\0';
            const char *sp = strstr(buf, "\"seq\":"), *pp = strstr(buf, "\"port\":");
            unsigned long long seq = sp ? strtoull(sp + 6, NULL, 10) : 0;
            unsigned port = pp ? (unsigned)strtoul(pp + 7, NULL, 10) : KT_KEYS;
            snprintf(key, sizeof(key), "leaf1/et-0/0/%u", port);
            s->messages++;
            if (seq == 0 || seq > KT_MAXSEQ || port >= KT_KEYS || m->key_len != strlen(key) ||
                memcmp(m->key, key, m->key_len) != 0) {
                s->bad++;
            } else {
                if (s->count[seq]++ == 0)
                    s->distinct++;
                else
                    s->dups++;
                if (seq <= last[port])
                    s->disorder++;
                last[port] = seq;
                if (seq > s->max_seq)
                    s->max_seq = seq;
            }
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return 0;
}

/* Each seq in [1, n] seen exactly once? */
static inline int kt_exactly(const struct kt_seen *s, uint64_t n)
{
    for (uint64_t q = 1; q <= n && q <= KT_MAXSEQ; q++) {
        if (s->count[q] != 1)
            return 0;
    }
    return s->messages == n && s->max_seq == n;
}

#endif
