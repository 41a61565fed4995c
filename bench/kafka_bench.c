/* Kafka exporter throughput: events/s from the bus to librdkafka's mock
 * cluster (delivery reports included) and CPU time per message.
 *
 *   kafka_bench [--events N] [--spool DIR|none|both] [--compression lz4|zstd|none]
 *               [--linger DURATION] [--fsync interval|always|never]
 *
 * The mock cluster (3 brokers, 4 partitions) runs in a child process, so the
 * CPU time measured here (getrusage of this process: the publisher, the
 * exporter thread with its encoder and spool, librdkafka's threads) is the
 * exporter's side only. The encoder is a small snprintf one (~126-byte JSON),
 * not the real event encoder; its cost alone is printed first. Prints the settings with the
 * numbers. Never part of the test suite's pass/fail. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "base/log.h"
#include "engine/events.h"
#include "kafka/kafka_exporter.h"
#include "../tests/config_all.h"

static long payload_bytes; /* average, measured by main() */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Child: hosts the mock cluster until the parent closes the pipe. */
static pid_t start_mock(char *bootstraps, size_t size)
{
    int up[2], down[2];
    if (pipe(up) != 0 || pipe(down) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        char err[256];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set(conf, "log_level", "3", NULL, 0);
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
        rd_kafka_mock_cluster_t *mc = rk ? rd_kafka_mock_cluster_new(rk, 3) : NULL;
        if (mc == NULL)
            _exit(2);
        rd_kafka_mock_topic_create(mc, "fabric.events", 4, 3);
        const char *bs = rd_kafka_mock_cluster_bootstraps(mc);
        if (write(up[1], bs, strlen(bs) + 1) < 0)
            _exit(2);
        char c;
        while (read(down[0], &c, 1) > 0) /* EOF: the parent is done */
            ;
        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    ssize_t n = read(up[0], bootstraps, size - 1);
    close(up[0]);
    if (n <= 0)
        return -1;
    bootstraps[n] = '\0';
    return pid;
}

static int encode(void *arg, const struct fsc_event *ev, char *out, size_t cap, char *key,
                  size_t keycap)
{
    const char *run = arg;
    char id[FSC_KAFKA_EVENT_ID_MAX];
    fsc_kafka_event_id(id, sizeof(id), run, ev->seq);
    snprintf(key, keycap, "leaf1/et-0/0/%u", (unsigned)(ev->series & 31));
    int n = snprintf(out, cap,
                     "{\"schema\":1,\"id\":\"%s\",\"type\":\"microburst\",\"device\":\"leaf1\","
                     "\"port\":\"et-0/0/%u\",\"t_start_ns\":%lld,\"peak\":%.3f}",
                     id, (unsigned)(ev->series & 31), (long long)ev->t_start_ns, 0.93);
    return (size_t)n >= cap ? -E2BIG : n;
}

struct opts {
    long events;
    const char *spool; /* "none", "both" or a directory */
    const char *compression, *linger, *fsync;
};

static int run_one(const struct opts *o, const char *bootstraps, const char *spool_dir)
{
    char text[2048], err[512];
    char list[600] = "", copy[512];
    snprintf(copy, sizeof(copy), "%s", bootstraps);
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof(list) - l, "%s\"%s\"", l ? ", " : "", t);
    }
    snprintf(text, sizeof(text),
             "exporters:\n  kafka:\n    brokers: [%s]\n    compression: %s\n    linger: %s\n"
             "    spool_dir: \"%s\"\n    spool_fsync: %s\n    spool_max: 16GiB\n",
             list, o->compression, o->linger, spool_dir ? spool_dir : "", o->fsync);
    struct fsc_config *cfg =
        fsc_config_parse(text, strlen(text), "bench", fsc_app_schema(), err, sizeof(err));
    if (cfg == NULL) {
        fprintf(stderr, "kafka_bench: %s\n", err);
        return -1;
    }
    const struct fsc_kafka_config *k = fsc_kafka_config_of(cfg);
    struct fsc_event_bus *bus = fsc_event_bus_create(65536);
    char run[FSC_KAFKA_RUN_ID_LEN + 1];
    fsc_kafka_run_id_new(run);
    struct fsc_kafka_exporter_options eo = {
        .cfg = k, .config_file = "bench", .bus = bus, .encode = encode, .encode_arg = run};
    struct fsc_kafka_exporter *x = fsc_kafka_exporter_start(&eo, err, sizeof(err));
    if (x == NULL) {
        fprintf(stderr, "kafka_bench: %s\n", err);
        return -1;
    }
    struct fsc_kafka_stats st;
    double t0 = now_s(), c0 = cpu_s();
    /* Publish as fast as the exporter takes events (the bus overwrites
     * what a slow reader misses, so stay within half its size). */
    for (long i = 0; i < o->events;) {
        fsc_kafka_exporter_stats(x, &st);
        if ((uint64_t)i - st.queued - st.dropped > 32768) {
            usleep(200);
            continue;
        }
        for (int b = 0; b < 1024 && i < o->events; b++, i++) {
            struct fsc_event ev = {.kind = FSC_EV_MICROBURST, .phase = FSC_EV_INSTANT};
            ev.series = (fsc_series_id)i;
            ev.t_start_ns = 1764460000000000000ll + i * 1000;
            fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, 0.93);
            fsc_event_publish(bus, &ev);
        }
    }
    for (int w = 0; w < 60000; w++) { /* until every event is delivered, <= 60 s */
        fsc_kafka_exporter_stats(x, &st);
        if (st.delivered + st.dropped >= (uint64_t)o->events)
            break;
        usleep(1000);
    }
    double t1 = now_s(), c1 = cpu_s();
    int rc = fsc_kafka_exporter_stop(x, 10ll * 1000000000);
    printf("spool=%s fsync=%s compression=%s linger=%s batch_size=1MB queue_max=%u acks=all "
           "idempotence=on brokers=3(mock) partitions=4 payload~%dB+key\n",
           spool_dir ? "on" : "off", spool_dir ? o->fsync : "-", o->compression, o->linger,
           k->queue_max, (int)payload_bytes);
    printf("  events=%ld delivered=%llu dropped=%llu wall=%.3fs -> %.0f events/s; "
           "cpu=%.3fs -> %.3f us/event; stop=%d\n",
           o->events, (unsigned long long)st.delivered, (unsigned long long)st.dropped, t1 - t0,
           (double)st.delivered / (t1 - t0), c1 - c0, (c1 - c0) * 1e6 / (double)st.delivered, rc);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {.events = 500000,
                     .spool = "both",
                     .compression = "lz4",
                     .linger = "5ms",
                     .fsync = "interval"};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--events") == 0)
            o.events = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--spool") == 0)
            o.spool = argv[i + 1];
        else if (strcmp(argv[i], "--compression") == 0)
            o.compression = argv[i + 1];
        else if (strcmp(argv[i], "--linger") == 0)
            o.linger = argv[i + 1];
        else if (strcmp(argv[i], "--fsync") == 0)
            o.fsync = argv[i + 1];
        else {
            fprintf(stderr, "usage: kafka_bench [--events N] [--spool DIR|none|both] "
                            "[--compression lz4|zstd|none] [--linger D] [--fsync P]\n");
            return 2;
        }
    }
    if (o.events < 1 || o.events > 100000000)
        return 2;
    fsc_log_set_level(FSC_LOG_WARN);
    /* The encoder's own cost, to tell it apart from the exporter's. */
    {
        char out[1024], key[64], run[FSC_KAFKA_RUN_ID_LEN + 1];
        fsc_kafka_run_id_new(run);
        struct fsc_event ev = {.kind = FSC_EV_MICROBURST};
        fsc_event_add(&ev, FSC_EF_PEAK_UTILIZATION, 0.93);
        double c0 = cpu_s();
        long sum = 0;
        for (long i = 0; i < o.events; i++) {
            ev.seq = (uint64_t)i + 1;
            ev.series = (fsc_series_id)i;
            sum += encode(run, &ev, out, sizeof(out), key, sizeof(key));
        }
        double c1 = cpu_s();
        payload_bytes = sum / o.events;
        printf("encoder alone: %.3f us/event (%ld bytes)\n", (c1 - c0) * 1e6 / (double)o.events,
               payload_bytes);
    }
    char bootstraps[512];
    pid_t mock = start_mock(bootstraps, sizeof(bootstraps));
    if (mock < 0) {
        fprintf(stderr, "kafka_bench: cannot start the mock cluster\n");
        return 1;
    }
    char tmp[] = "/tmp/fsc-kafka-bench-XXXXXX";
    int rc = 0;
    if (strcmp(o.spool, "none") == 0 || strcmp(o.spool, "both") == 0)
        rc |= run_one(&o, bootstraps, NULL);
    if (strcmp(o.spool, "none") != 0) {
        const char *dir = strcmp(o.spool, "both") == 0 ? mkdtemp(tmp) : o.spool;
        rc |= dir ? run_one(&o, bootstraps, dir) : -1;
        if (dir == tmp) { /* delivered segments are gone already */
            static const char *const left[] = {"lock", "ack", "ack.tmp"};
            char p[128];
            for (size_t i = 0; i < 3; i++) {
                snprintf(p, sizeof(p), "%s/%s", tmp, left[i]);
                unlink(p);
            }
            rmdir(tmp);
        }
    }
    kill(mock, SIGTERM);
    waitpid(mock, NULL, 0);
    return rc == 0 ? 0 : 1;
}
