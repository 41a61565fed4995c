/* The Kafka exporter against librdkafka's in-process mock cluster: every
 * event arrives exactly once and in order per key, through outages, stops
 * and a SIGKILL. (kcat / kafkajs against tests/tools/kafka_mock come with the
 * integration tests.) */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "base/log.h"
#include "kafka_fixture.h"
#include "kafka_mock_fixture.h"
#include "test.h"

#define SEC 1000000000ll

static char extra_buf[1024];

/* The kafka lines for a spool in dir (NULL: none) and a message timeout. */
static const char *extra(const char *dir, int timeout_ms, const char *more)
{
    int n = 0;
    if (more == NULL || strstr(more, "linger:") == NULL)
        n = snprintf(extra_buf, sizeof(extra_buf), "    linger: 2ms\n");
    if (dir != NULL)
        n += snprintf(extra_buf + n, sizeof(extra_buf) - (size_t)n, "    spool_dir: %s\n", dir);
    if (timeout_ms > 0)
        n += snprintf(extra_buf + n, sizeof(extra_buf) - (size_t)n,
                      "    properties: {message.timeout.ms: \"%d\"}\n", timeout_ms);
    if (more != NULL)
        snprintf(extra_buf + n, sizeof(extra_buf) - (size_t)n, "%s", more);
    return extra_buf;
}

static void init_encoder(struct kt_encoder *enc)
{
    memset(enc, 0, sizeof(*enc));
    fsc_kafka_run_id_new(enc->run);
}

static void event_ids(void)
{
    char run[FSC_KAFKA_RUN_ID_LEN + 1], other[FSC_KAFKA_RUN_ID_LEN + 1], id[FSC_KAFKA_EVENT_ID_MAX];
    fsc_kafka_run_id_new(run);
    fsc_kafka_run_id_new(other);
    CHECK_INT(strlen(run), 16);
    CHECK_INT(strspn(run, "0123456789abcdef"), 16);
    CHECK(strcmp(run, other) != 0);
    CHECK_INT(fsc_kafka_event_id(id, sizeof(id), "3f9c0a17d2e45b61", 1042), 21);
    CHECK_STR(id, "3f9c0a17d2e45b61-1042");
    CHECK_INT(fsc_kafka_event_id(id, sizeof(id), "3f9c0a17d2e45b61", UINT64_MAX), 37);
    CHECK_STR(id, "3f9c0a17d2e45b61-18446744073709551615");
    CHECK_INT(fsc_kafka_event_id(id, 10, "3f9c0a17d2e45b61", 1), -E2BIG);
}

static void delivers_exactly_once_in_order(void)
{
    struct kt_cluster c = {0};
    char dir[64];
    CHECK_INT(kt_cluster_start(&c, 3), 0);
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_config *cfg = kt_config(c.bootstraps, extra(dir, 0, NULL));
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct kt_encoder enc;
    init_encoder(&enc);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    for (int i = 0; i < 20; i++) { /* 2000 events in bursts of 100 */
        kt_publish(bus, 100);
        usleep(2000); /* the shape of the load (bursts), not synchronisation */
    }
    KT_WAIT(kt_stats(x).delivered == 2000, 30000);
    struct fsc_kafka_stats st = kt_stats(x);
    CHECK_INT(st.queued, 2000);
    CHECK_INT(st.delivered, 2000);
    CHECK_INT(st.failed, 0);
    CHECK_INT(st.retried, 0);
    CHECK_INT(st.dropped, 0);
    KT_WAIT(kt_stats(x).spool_records == 0 && kt_stats(x).broker_up == 1, 5000);
    st = kt_stats(x);
    CHECK_INT(st.spool_records, 0);
    CHECK_INT(st.spool_bytes, 0);
    CHECK_INT(st.queue_messages, 0);
    CHECK_INT(st.queue_bytes, 0);
    CHECK_INT(st.broker_up, 1);
    CHECK_INT(fsc_kafka_exporter_stop(x, 5 * SEC), 0);

    struct kt_seen s;
    CHECK_INT(kt_consume(c.bootstraps, 2000, &s), 0);
    CHECK_INT(s.messages, 2000);
    CHECK_INT(s.dups, 0);
    CHECK_INT(s.disorder, 0);
    CHECK_INT(s.bad, 0);
    CHECK(kt_exactly(&s, 2000));
    free(s.count);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    kt_cluster_stop(&c);
    kt_rmdir(dir);
}

static void no_spool_direct(void)
{
    struct kt_cluster c = {0};
    CHECK_INT(kt_cluster_start(&c, 1), 0);
    struct fsc_config *cfg = kt_config(c.bootstraps, extra(NULL, 0, "    compression: zstd\n"));
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct kt_encoder enc;
    init_encoder(&enc);
    enc.reject_every = 50; /* seq 50, 100, ... 500: 10 refused */
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    kt_publish(bus, 500);
    KT_WAIT(kt_stats(x).delivered == 490, 30000);
    struct fsc_kafka_stats st = kt_stats(x);
    CHECK_INT(st.queued, 490);
    CHECK_INT(st.delivered, 490);
    CHECK_INT(st.dropped_encode, 10);
    CHECK_INT(st.dropped, 10);
    CHECK_INT(st.spooled, 0);
    CHECK_INT(fsc_kafka_exporter_stop(x, 5 * SEC), 0);
    struct kt_seen s;
    CHECK_INT(kt_consume(c.bootstraps, 490, &s), 0);
    CHECK_INT(s.messages, 490);
    CHECK_INT(s.dups, 0);
    CHECK_INT(s.disorder, 0);
    for (uint64_t q = 1; q <= 500; q++)
        CHECK_INT(s.count[q], q % 50 == 0 ? 0 : 1);
    free(s.count);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    kt_cluster_stop(&c);
}

/* All brokers down for 4 s while events keep coming (message timeout
 * 1.5 s, so librdkafka gives messages back and the spool re-sends them). */
static void outage_resend_in_order(void)
{
    struct kt_cluster c = {0};
    char dir[64];
    CHECK_INT(kt_cluster_start(&c, 3), 0);
    kt_tmpdir(dir, sizeof(dir));
    struct fsc_config *cfg = kt_config(c.bootstraps, extra(dir, 1500, NULL));
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct kt_encoder enc;
    init_encoder(&enc);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    kt_publish(bus, 300);
    KT_WAIT(kt_stats(x).delivered == 300, 30000);
    CHECK_INT(kt_stats(x).delivered, 300);

    kt_cluster_set(&c, 0);
    for (int i = 0; i < 200; i++) { /* 20 events every 20 ms, ~4 s */
        kt_publish(bus, 20);
        usleep(20000); /* the outage's length is under test (beyond message.timeout.ms) */
    }
    struct fsc_kafka_stats mid = kt_stats(x);
    CHECK(mid.spool_records > 0);
    CHECK(mid.spool_bytes > 0);
    CHECK(mid.failed > 0); /* timed out at least once during the outage */
    kt_cluster_set(&c, 1);
    kt_publish(bus, 500);
    const uint64_t n = 300 + 4000 + 500;
    KT_WAIT(kt_stats(x).queued == n && kt_stats(x).spool_records == 0, 60000);
    struct fsc_kafka_stats st = kt_stats(x);
    CHECK_INT(st.queued, n);
    CHECK_INT(st.delivered, n);
    CHECK_INT(st.spool_records, 0);
    CHECK_INT(st.spool_bytes, 0);
    CHECK_INT(st.queue_messages, 0);
    CHECK_INT(st.dropped, 0);
    CHECK(st.failed > 0);
    CHECK(st.retried > 0);
    CHECK(st.spooled > 0);
    KT_WAIT(kt_stats(x).broker_up == 1, 5000);
    CHECK_INT(kt_stats(x).broker_up, 1);
    CHECK_INT(fsc_kafka_exporter_stop(x, 5 * SEC), 0);
    CHECK_INT(kt_count_segments(dir), 0); /* all delivered: no segment left */

    struct kt_seen s;
    CHECK_INT(kt_consume(c.bootstraps, n, &s), 0);
    CHECK_INT(s.messages, n);
    CHECK_INT(s.dups, 0);
    CHECK_INT(s.disorder, 0);
    CHECK_INT(s.bad, 0);
    CHECK(kt_exactly(&s, n));
    free(s.count);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    kt_cluster_stop(&c);
    kt_rmdir(dir);
}

/* stop() flushes; stopped during an outage, what is left stays in the spool
 * and the next start delivers it, once. */
static void stop_flushes_and_restart_delivers(void)
{
    struct kt_cluster c = {0};
    char dir[64];
    CHECK_INT(kt_cluster_start(&c, 3), 0);
    kt_tmpdir(dir, sizeof(dir));
    /* A long linger: at stop() the events are still batched, not sent. */
    struct fsc_config *cfg = kt_config(c.bootstraps, extra(dir, 0, "    linger: 300ms\n"));
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct kt_encoder enc;
    init_encoder(&enc);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    kt_publish(bus, 300);
    CHECK_INT(fsc_kafka_exporter_stop(x, 10 * SEC), 0); /* took all 300, delivered all */

    /* Brokers down: 200 more cannot be delivered before a short stop. */
    kt_cluster_set(&c, 0);
    x = kt_start(cfg, bus, &enc);
    CHECK(x != NULL);
    if (x == NULL)
        return;
    kt_publish(bus, 200);
    KT_WAIT(kt_stats(x).queued == 200, 10000);
    CHECK_INT(kt_stats(x).queued, 200);
    CHECK_INT(fsc_kafka_exporter_stop(x, SEC / 2), -ETIMEDOUT);
    CHECK(kt_count_segments(dir) >= 1);

    kt_cluster_set(&c, 1);
    x = kt_start(cfg, bus, &enc);
    CHECK(x != NULL);
    if (x == NULL)
        return;
    CHECK_INT(kt_stats(x).spooled, 200); /* found at start */
    kt_publish(bus, 50);
    KT_WAIT(kt_stats(x).delivered == 250, 30000);
    CHECK_INT(kt_stats(x).delivered, 250);
    CHECK_INT(fsc_kafka_exporter_stop(x, 5 * SEC), 0);

    struct kt_seen s;
    CHECK_INT(kt_consume(c.bootstraps, 550, &s), 0);
    CHECK_INT(s.messages, 550);
    CHECK_INT(s.dups, 0);
    CHECK_INT(s.disorder, 0);
    CHECK(kt_exactly(&s, 550));
    free(s.count);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    kt_cluster_stop(&c);
    kt_rmdir(dir);
}

/* A child spools 100 events while no broker is reachable and is killed
 * with SIGKILL; a new exporter on the same spool delivers all of them. */
static void sigkill_restart_delivers_spool(void)
{
    char dir[64];
    kt_tmpdir(dir, sizeof(dir));
    fflush(NULL);
    pid_t pid = fork(); /* before this process starts any librdkafka thread */
    if (pid == 0) {
        fsc_log_set_level(FSC_LOG_ERROR);
        struct fsc_config *cfg = kt_config("127.0.0.1:1", extra(dir, 0, NULL));
        struct fsc_event_bus *bus = fsc_event_bus_create(4096);
        struct kt_encoder enc;
        init_encoder(&enc);
        struct fsc_kafka_exporter *x = cfg && bus ? kt_start(cfg, bus, &enc) : NULL;
        if (x == NULL)
            _exit(3);
        kt_publish(bus, 100);
        KT_WAIT(kt_stats(x).queued == 100, 10000);
        if (kt_stats(x).queued != 100)
            _exit(4);
        raise(SIGKILL);
        _exit(5);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(kt_count_segments(dir) >= 1);

    struct kt_cluster c = {0};
    CHECK_INT(kt_cluster_start(&c, 3), 0);
    struct fsc_config *cfg = kt_config(c.bootstraps, extra(dir, 0, NULL));
    struct fsc_event_bus *bus = fsc_event_bus_create(4096);
    struct kt_encoder enc;
    init_encoder(&enc);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    CHECK_INT(kt_stats(x).spooled, 100);
    KT_WAIT(kt_stats(x).delivered == 100, 30000);
    CHECK_INT(kt_stats(x).delivered, 100);
    CHECK_INT(fsc_kafka_exporter_stop(x, 5 * SEC), 0);
    struct kt_seen s;
    CHECK_INT(kt_consume(c.bootstraps, 100, &s), 0);
    CHECK_INT(s.messages, 100);
    CHECK(kt_exactly(&s, 100));
    CHECK_INT(s.disorder, 0);
    free(s.count);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
    kt_cluster_stop(&c);
    kt_rmdir(dir);
}

/* The exporter thread is held inside the encoder while 100 events go into a
 * 16-slot bus: it then finds the newest 16 and counts 84 lost. */
static void bus_overrun_counted(void)
{
    struct fsc_config *cfg = kt_config("127.0.0.1:1", extra(NULL, 0, NULL));
    struct fsc_event_bus *bus = fsc_event_bus_create(16);
    struct kt_encoder enc;
    init_encoder(&enc);
    atomic_store(&enc.block, 1);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    if (x == NULL)
        return;
    kt_publish(bus, 1);
    KT_WAIT(atomic_load(&enc.entered), 5000);
    CHECK(atomic_load(&enc.entered));
    kt_publish(bus, 100);
    atomic_store(&enc.release, 1);
    KT_WAIT(kt_stats(x).queued == 17, 5000);
    struct fsc_kafka_stats st = kt_stats(x);
    CHECK_INT(st.queued, 17);
    CHECK_INT(st.dropped_bus, 84);
    CHECK_INT(st.dropped, 84);
    CHECK_INT(st.broker_up, 0);
    /* Nothing can be delivered: stop gives up at its deadline. */
    CHECK_INT(fsc_kafka_exporter_stop(x, SEC / 10), -ETIMEDOUT);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
}

/* Unreachable bootstrap: start succeeds, says so in the log, keeps trying. */
static void unreachable_bootstrap_starts(void)
{
    FILE *log = tmpfile();
    CHECK(log != NULL);
    if (log == NULL)
        return;
    fsc_log_set_stream(log);
    struct fsc_config *cfg = kt_config("127.0.0.1:1", extra(NULL, 0, NULL));
    struct fsc_event_bus *bus = fsc_event_bus_create(16);
    struct kt_encoder enc;
    init_encoder(&enc);
    struct fsc_kafka_exporter *x = cfg ? kt_start(cfg, bus, &enc) : NULL;
    CHECK(x != NULL);
    char text[16384] = "";
    for (int i = 0; i < 1000 && strstr(text, "event=kafka_brokers_down") == NULL; i++) {
        usleep(10000);
        fflush(log);
        size_t n = (size_t)pread(fileno(log), text, sizeof(text) - 1, 0);
        text[n < sizeof(text) ? n : 0] = '\0';
    }
    CHECK(strstr(text, "event=kafka_started brokers=127.0.0.1:1 topic=fabric.events spool=none") !=
          NULL);
    CHECK(strstr(text, "level=warn event=kafka_brokers_down topic=fabric.events") != NULL);
    if (x != NULL) {
        CHECK_INT(kt_stats(x).broker_up, 0);
        CHECK_INT(fsc_kafka_exporter_stop(x, SEC), 0); /* nothing was taken */
    }
    fsc_log_set_stream(NULL);
    fclose(log);
    fsc_event_bus_destroy(bus);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(event_ids), TEST(delivers_exactly_once_in_order), TEST(no_spool_direct),
          TEST(outage_resend_in_order), TEST(stop_flushes_and_restart_delivers),
          TEST(sigkill_restart_delivers_spool), TEST(bus_overrun_counted),
          TEST(unreachable_bootstrap_starts))
