/* Self-metrics fed by counters that used to stay internal
 * (exporters/prometheus/prom_self.c): the engine's unknown-series drops,
 * the OTLP receivers' skipped points by reason, listener refusals by reason
 * and the rollup store's families - exact text from the daemon's stats
 * callbacks, and nothing of the last two while their callbacks report none. */
#include <string.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "prometheus/prom_render.h"
#include "test.h"

static const char yaml[] = "sources:\n"
                           "  - name: leaf1\n"
                           "    type: synthetic\n";

static int running;

static size_t receivers_cb(void *arg, struct fsc_prom_receiver_stat *out, size_t cap)
{
    (void)arg;
    if (cap < 2)
        return 0;
    out[0] = (struct fsc_prom_receiver_stat){.source = "spine1",
                                             .transport = "grpc",
                                             .ok = 4,
                                             .points = 40,
                                             .skipped_other_shard = 12,
                                             .skipped_no_value = 1};
    out[1] = (struct fsc_prom_receiver_stat){
        .source = "spine1", .transport = "http", .ok = 1, .points = 7, .skipped_other_shard = 5};
    return 2;
}

static size_t listeners_cb(void *arg, struct fsc_prom_listener_stat *out, size_t cap)
{
    (void)arg;
    if (!running || cap < 2)
        return 0;
    memset(out, 0, 2 * sizeof(*out));
    strcpy(out[0].listener, "prometheus");
    for (size_t k = 0; k < FSC_PROM_AUTH__COUNT; k++)
        out[0].failures[k] = 10 + k; /* 10 .. 15 */
    strcpy(out[1].listener, "otlp/http:spine1");
    out[1].failures[FSC_PROM_AUTH_BAD_TOKEN] = 3;
    return 2;
}

static int rollup_cb(void *arg, struct fsc_prom_rollup_stat *out)
{
    (void)arg;
    if (!running)
        return 0;
    *out = (struct fsc_prom_rollup_stat){
        .written = 1440, .dropped = 17, .write_errors = 2, .torn_cut = 1, .series_dropped = 9};
    return 1;
}

#define TAIL(A, W, T, S)                                                                           \
    "# HELP " A " Requests a listener refused (401, 403), by reason.\n"                            \
    "# TYPE " A " counter\n"                                                                       \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"missing\"} 10\n"    \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"malformed\"} 11\n"  \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"unknown_user\"} "   \
    "12\n"                                                                                         \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"bad_password\"} "   \
    "13\n"                                                                                         \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"bad_token\"} 14\n"  \
    "fabricscope_listener_auth_failures_total{listener=\"prometheus\",reason=\"client_cert\"} "    \
    "15\n"                                                                                         \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason=\"missing\"} "  \
    "0\n"                                                                                          \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason="               \
    "\"malformed\"} 0\n"                                                                           \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason="               \
    "\"unknown_user\"} 0\n"                                                                        \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason="               \
    "\"bad_password\"} 0\n"                                                                        \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason="               \
    "\"bad_token\"} 3\n"                                                                           \
    "fabricscope_listener_auth_failures_total{listener=\"otlp/http:spine1\",reason="               \
    "\"client_cert\"} 0\n"                                                                         \
    "# HELP " W " Rollup store records, by result (written, dropped).\n"                           \
    "# TYPE " W " counter\n"                                                                       \
    "fabricscope_rollup_records_total{result=\"written\"} 1440\n"                                  \
    "fabricscope_rollup_records_total{result=\"dropped\"} 17\n"                                    \
    "# HELP " T " Rollup store write, sync or open calls that failed.\n"                           \
    "# TYPE " T " counter\n"                                                                       \
    "fabricscope_rollup_write_errors_total 2\n"                                                    \
    "# HELP " S " Torn last records cut when a rollup day file was reopened.\n"                    \
    "# TYPE " S " counter\n"                                                                       \
    "fabricscope_rollup_torn_records_total 1\n"

#define SERIES_DROPPED(D)                                                                          \
    "# HELP " D " Series the rollup could not track (over its limit or unlabelled).\n"             \
    "# TYPE " D " counter\n"                                                                       \
    "fabricscope_rollup_series_dropped_total 9\n"

static const char want_text[] =
    TAIL("fabricscope_listener_auth_failures_total", "fabricscope_rollup_records_total",
         "fabricscope_rollup_write_errors_total", "fabricscope_rollup_torn_records_total")
        SERIES_DROPPED("fabricscope_rollup_series_dropped_total");
static const char want_om[] =
    TAIL("fabricscope_listener_auth_failures", "fabricscope_rollup_records",
         "fabricscope_rollup_write_errors", "fabricscope_rollup_torn_records")
        SERIES_DROPPED("fabricscope_rollup_series_dropped") "# EOF\n";

/* The receivers' skipped-points family (text format), after the rejected one. */
static const char want_skipped[] =
    "# HELP fabricscope_otlp_skipped_points_total OTLP data points neither accepted nor refused, "
    "by reason (other_shard: another shard's device; no_recorded_value: staleness marker).\n"
    "# TYPE fabricscope_otlp_skipped_points_total counter\n"
    "fabricscope_otlp_skipped_points_total{source=\"spine1\",transport=\"grpc\",reason="
    "\"other_shard\"} 12\n"
    "fabricscope_otlp_skipped_points_total{source=\"spine1\",transport=\"grpc\",reason="
    "\"no_recorded_value\"} 1\n"
    "fabricscope_otlp_skipped_points_total{source=\"spine1\",transport=\"http\",reason="
    "\"other_shard\"} 5\n"
    "fabricscope_otlp_skipped_points_total{source=\"spine1\",transport=\"http\",reason="
    "\"no_recorded_value\"} 0\n";

static const char want_unknown[] =
    "fabricscope_arrival_time_samples_total 0\n"
    "# HELP fabricscope_unknown_series_samples_total Samples the engine dropped: series id beyond "
    "max_series, or no memory for its state.\n"
    "# TYPE fabricscope_unknown_series_samples_total counter\n"
    "fabricscope_unknown_series_samples_total 3\n"
    "# HELP fabricscope_sample_interval_ratio ";

static int ends_with(const struct fsc_buf *b, const char *want)
{
    size_t n = strlen(want);
    return b->len >= n && memcmp(b->data + b->len - n, want, n) == 0;
}

static int contains(const struct fsc_buf *b, const char *want)
{
    return b->len > 0 && strstr(b->data, want) != NULL;
}

static void self_families_exact(void)
{
    char err[512];
    struct fsc_config *cfg = fsc_config_parse(yaml, strlen(yaml), "t.yaml", err, sizeof(err));
    if (cfg)
        cfg->engine.max_series = 16;
    struct fsc_registry *reg = fsc_registry_create(1000);
    struct fsc_engine *eng = cfg ? fsc_engine_create(&cfg->engine, NULL, err, sizeof(err)) : NULL;
    CHECK(cfg && reg && eng);
    if (!cfg || !reg || !eng)
        goto out;
    /* Three samples for ids the engine has no room for, one it keeps. */
    struct fsc_sample smp[4];
    memset(smp, 0, sizeof(smp));
    const fsc_series_id ids[4] = {100, 5, 16, 1u << 20};
    for (size_t i = 0; i < 4; i++) {
        smp[i].series = ids[i];
        smp[i].t_dev_ns = smp[i].t_arr_ns = 1764460800000000000LL;
        smp[i].v.u = 1000;
    }
    CHECK_INT(fsc_engine_ingest(eng, smp, 4), 0);

    struct fsc_prom_render_env env = {.reg = reg,
                                      .eng = eng,
                                      .cfg = cfg,
                                      .receivers = receivers_cb,
                                      .listeners = listeners_cb,
                                      .rollup = rollup_cb};
    struct fsc_prom_renderer *r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    struct fsc_buf out;
    memset(&out, 0, sizeof(out));
    if (r) {
        running = 1;
        CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
        CHECK(contains(&out, want_unknown));
        CHECK(contains(&out, want_skipped));
        CHECK(ends_with(&out, want_text));
        if (!ends_with(&out, want_text) || !contains(&out, want_skipped) ||
            !contains(&out, want_unknown))
            fprintf(stderr, "got:\n%.*s\n", (int)out.len, out.data);
        CHECK_INT(fsc_prom_render(r, FSC_PROM_OPENMETRICS, 0, &out), 0);
        CHECK(ends_with(&out, want_om));
        running = 0;
        CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
        CHECK(contains(&out, "fabricscope_otlp_skipped_points_total{"));
        CHECK(!contains(&out, "fabricscope_listener_auth_failures"));
        CHECK(!contains(&out, "fabricscope_rollup_"));
    }
    fsc_prom_renderer_destroy(r);
    fsc_buf_free(&out);
out:
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(self_families_exact))
