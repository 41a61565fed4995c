/* Self-metrics fed by counters the engine, the sources and the listeners keep
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
#include "config_all.h"
#include "view_fixture.h"

static const char yaml[] = "sources:\n"
                           "  - name: leaf1\n"
                           "    type: synthetic\n";

/* What the OTLP source, the listeners and the rollup store report: their
 * real tables (plugin stats), these values. */
static const struct vfx_row receivers[] = {
    {.table = "otlp_receivers",
     .keys = {"spine1", "grpc"},
     .vals = {{"ok", 4},
              {"points", 40},
              {"skipped_other_shard", 12},
              {"skipped_no_recorded_value", 1},
              {"partial", 0},
              {"bad_request", 0},
              {"too_large", 0},
              {"errors", 0},
              {"rejected_points", 0},
              {"received_bytes", 0}}},
    {.table = "otlp_receivers",
     .keys = {"spine1", "http"},
     .vals = {{"ok", 1},
              {"points", 7},
              {"skipped_other_shard", 5},
              {"skipped_no_recorded_value", 0},
              {"partial", 0},
              {"bad_request", 0},
              {"too_large", 0},
              {"errors", 0},
              {"rejected_points", 0},
              {"received_bytes", 0}}},
};

static const struct vfx_row running_rows[] = {
    receivers[0],
    receivers[1],
    {.table = "listener_auth",
     .keys = {"prometheus"},
     .vals = {{"missing", 10},
              {"malformed", 11},
              {"unknown_user", 12},
              {"bad_password", 13},
              {"bad_token", 14},
              {"client_cert", 15}}},
    {.table = "listener_auth",
     .keys = {"otlp/http:spine1"},
     .vals = {{"missing", 0},
              {"malformed", 0},
              {"unknown_user", 0},
              {"bad_password", 0},
              {"bad_token", 3},
              {"client_cert", 0}}},
    {.table = "rollup",
     .vals = {{"written", 1440},
              {"dropped", 17},
              {"write_errors", 2},
              {"torn_records", 1},
              {"series_dropped", 9}}},
};

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
    "engine.max_series, or no memory for its state (samples).\n"
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
    struct fsc_config *cfg =
        fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
    struct fsc_engine_config ec;
    if (cfg) {
        ec = *fsc_engine_config_of(cfg);
        ec.max_series = 16;
    }
    struct fsc_registry *reg = fsc_registry_create(1000);
    struct fsc_engine *eng = cfg ? fsc_engine_create(&ec, NULL, err, sizeof(err)) : NULL;
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

    struct vfx vf = {.rows = running_rows, .n_rows = 5};
    vfx_init(&vf);
    struct fsc_prom_render_env env = {.reg = reg, .eng = eng, .cfg = cfg, .view = &vf.view};
    struct fsc_prom_renderer *r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    struct fsc_buf out;
    memset(&out, 0, sizeof(out));
    if (r) {
        CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
        CHECK(contains(&out, want_unknown));
        CHECK(contains(&out, want_skipped));
        CHECK(ends_with(&out, want_text));
        if (!ends_with(&out, want_text) || !contains(&out, want_skipped) ||
            !contains(&out, want_unknown))
            fprintf(stderr, "got:\n%.*s\n", (int)out.len, out.data);
        CHECK_INT(fsc_prom_render(r, FSC_PROM_OPENMETRICS, 0, &out), 0);
        CHECK(ends_with(&out, want_om));
        vf.rows = receivers; /* the listeners and the rollup store report nothing */
        vf.n_rows = 2;
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
