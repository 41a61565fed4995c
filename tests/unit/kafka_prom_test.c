/* The Kafka exporter's self-metrics (exporters/prometheus/prom_self.c): the
 * exact fabricscope_kafka_* block in both formats from the daemon's stats
 * callback, and nothing of it while no exporter runs. */
#include <string.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "prometheus/prom_render.h"
#include "test.h"
#include "config_all.h"
#include "view_fixture.h"

static const char yaml[] = "sources:\n"
                           "  - name: leaf1\n"
                           "    type: synthetic\n";

/* What the Kafka sink reports: its real tables, these values. */
static const struct vfx_row kafka_rows[] = {
    {.table = "kafka",
     .keys = {"fabric.events"},
     .vals = {{"queued", 120}, {"delivered", 117}, {"delivery_failures", 9}, {"retries", 3}}},
    {.table = "kafka_producer",
     .vals = {{"spooled", 40},
              {"dropped_bus_overrun", 1},
              {"dropped_encode", 0},
              {"dropped_full", 2},
              {"dropped_delivery_error", 5},
              {"spool_corrupt_records", 6},
              {"spool_io_errors", 11},
              {"producer_restarts", 2},
              {"queue_messages", 3},
              {"queue_bytes", 2048},
              {"spool_records", 4},
              {"spool_bytes", 4096},
              {"broker_up", 1}}},
};

#define BLOCK(Q, D, F, R, S, X, C, I, P)                                                           \
    "# HELP " Q " Events the Kafka exporter took in (spooled or queued).\n"                        \
    "# TYPE " Q " counter\n"                                                                       \
    "fabricscope_kafka_messages_queued_total{topic=\"fabric.events\"} 120\n"                       \
    "# HELP " D " Messages the brokers acknowledged.\n"                                            \
    "# TYPE " D " counter\n"                                                                       \
    "fabricscope_kafka_messages_delivered_total{topic=\"fabric.events\"} 117\n"                    \
    "# HELP " F " Delivery attempts that failed (each failed retry counts).\n"                     \
    "# TYPE " F " counter\n"                                                                       \
    "fabricscope_kafka_delivery_failures_total{topic=\"fabric.events\"} 9\n"                       \
    "# HELP " R " Messages handed to the producer again after a failed attempt.\n"                 \
    "# TYPE " R " counter\n"                                                                       \
    "fabricscope_kafka_retries_total{topic=\"fabric.events\"} 3\n"                                 \
    "# HELP " S " Events that waited in the on-disk spool.\n"                                      \
    "# TYPE " S " counter\n"                                                                       \
    "fabricscope_kafka_spooled_total 40\n"                                                         \
    "# HELP " X " Events lost before delivery, by reason.\n"                                       \
    "# TYPE " X " counter\n"                                                                       \
    "fabricscope_kafka_dropped_total{reason=\"bus_overrun\"} 1\n"                                  \
    "fabricscope_kafka_dropped_total{reason=\"encode\"} 0\n"                                       \
    "fabricscope_kafka_dropped_total{reason=\"full\"} 2\n"                                         \
    "fabricscope_kafka_dropped_total{reason=\"delivery_error\"} 5\n"                               \
    "# HELP " C " Damaged spool records found at start (each ended its segment).\n"                \
    "# TYPE " C " counter\n"                                                                       \
    "fabricscope_kafka_spool_corrupt_records_total 6\n"                                            \
    "# HELP " I " Spool writes, fsyncs or unlinks that failed.\n"                                  \
    "# TYPE " I " counter\n"                                                                       \
    "fabricscope_kafka_spool_io_errors_total 11\n"                                                 \
    "# HELP " P " Producers re-created after a fatal librdkafka error.\n"                          \
    "# TYPE " P " counter\n"                                                                       \
    "fabricscope_kafka_producer_restarts_total 2\n"                                                \
    "# HELP fabricscope_kafka_queue_messages Messages inside the producer, not yet "               \
    "acknowledged.\n"                                                                              \
    "# TYPE fabricscope_kafka_queue_messages gauge\n"                                              \
    "fabricscope_kafka_queue_messages 3\n"                                                         \
    "# HELP fabricscope_kafka_queue_bytes Payload and key bytes of those messages.\n"              \
    "# TYPE fabricscope_kafka_queue_bytes gauge\n"                                                 \
    "fabricscope_kafka_queue_bytes 2048\n"                                                         \
    "# HELP fabricscope_kafka_spool_records Events in the on-disk spool, not yet delivered.\n"     \
    "# TYPE fabricscope_kafka_spool_records gauge\n"                                               \
    "fabricscope_kafka_spool_records 4\n"                                                          \
    "# HELP fabricscope_kafka_spool_bytes Bytes of those events on disk.\n"                        \
    "# TYPE fabricscope_kafka_spool_bytes gauge\n"                                                 \
    "fabricscope_kafka_spool_bytes 4096\n"                                                         \
    "# HELP fabricscope_kafka_broker_up 1 while the producer has a connection to a broker.\n"      \
    "# TYPE fabricscope_kafka_broker_up gauge\n"                                                   \
    "fabricscope_kafka_broker_up 1\n"

static const char want_text[] =
    BLOCK("fabricscope_kafka_messages_queued_total", "fabricscope_kafka_messages_delivered_total",
          "fabricscope_kafka_delivery_failures_total", "fabricscope_kafka_retries_total",
          "fabricscope_kafka_spooled_total", "fabricscope_kafka_dropped_total",
          "fabricscope_kafka_spool_corrupt_records_total",
          "fabricscope_kafka_spool_io_errors_total", "fabricscope_kafka_producer_restarts_total");
static const char want_om[] = BLOCK(
    "fabricscope_kafka_messages_queued", "fabricscope_kafka_messages_delivered",
    "fabricscope_kafka_delivery_failures", "fabricscope_kafka_retries", "fabricscope_kafka_spooled",
    "fabricscope_kafka_dropped", "fabricscope_kafka_spool_corrupt_records",
    "fabricscope_kafka_spool_io_errors", "fabricscope_kafka_producer_restarts") "# EOF\n";

static int ends_with(const struct fsc_buf *b, const char *want)
{
    size_t n = strlen(want);
    return b->len >= n && memcmp(b->data + b->len - n, want, n) == 0;
}

/* The block closes the exposition (the daemon's callbacks come last), in
 * text 0.0.4 and OpenMetrics; without a running exporter there is none. */
static void kafka_families_exact(void)
{
    char err[512];
    struct fsc_config *cfg =
        fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
    struct fsc_registry *reg = fsc_registry_create(1000);
    struct fsc_engine *eng =
        cfg ? fsc_engine_create(fsc_engine_config_of(cfg), NULL, err, sizeof(err)) : NULL;
    CHECK(cfg && reg && eng);
    if (!cfg || !reg || !eng)
        goto out;
    struct vfx vf = {.rows = kafka_rows, .n_rows = 2};
    vfx_init(&vf);
    struct fsc_prom_render_env env = {.reg = reg, .eng = eng, .cfg = cfg, .view = &vf.view};
    struct fsc_prom_renderer *r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    struct fsc_buf out;
    memset(&out, 0, sizeof(out));
    if (r) {
        CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
        CHECK(ends_with(&out, want_text));
        if (!ends_with(&out, want_text))
            fprintf(stderr, "got:\n%.*s\n", (int)out.len, out.data);
        CHECK_INT(fsc_prom_render(r, FSC_PROM_OPENMETRICS, 0, &out), 0);
        CHECK(ends_with(&out, want_om));
        vf.n_rows = 0; /* no exporter runs */
        CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
        CHECK(out.len > 0 && strstr(out.data, "fabricscope_kafka_") == NULL);
    }
    fsc_prom_renderer_destroy(r);
    fsc_buf_free(&out);
out:
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(kafka_families_exact))
