/* The plugins' fabricscope_ families (prom_plugins.c) through the renderer:
 * every row a view writes is shown, however many (a thousand gNMI devices
 * write ~6 000 rows: a bound of 4 096 once hid a third of them and the
 * streams looked down); each family once, in the order of its first column
 * in the tables; a family shared by two tables keeps the rows' order; NAN
 * values left out; histograms cumulative. Expected lines are built from the
 * formulas the fake view writes by. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/stats.h"
#include "plugin/sink.h"
#include "prom_fixture.h"

#define SOURCES 1500
#define STREAMS 4

/* Table "streams" {source, stream}: messages = 4 x s + k (counter), a page-only
 * column, up = 1 (gauge; NAN for stream 0). Table "sources" {source}: up = 2
 * (the same family), latency histogram with bounds 1, 2 and per-bucket counts
 * s, 1, 2 (sum s / 2). */
static const struct fsc_stat_col stream_cols[] = {
    {.id = "messages",
     .family = "fabricscope_t_messages",
     .help = "Messages.",
     .type = FSC_STAT_COUNTER},
    {.id = "state", .title = "state"},
    {.id = "up", .family = "fabricscope_t_up", .help = "Up.", .type = FSC_STAT_GAUGE},
};
static const struct fsc_stat_table stream_table = {
    .id = "t_streams", .keys = {"source", "stream", NULL}, .cols = stream_cols, .n_cols = 3};
static const struct fsc_stat_col source_cols[] = {
    {.id = "up", .family = "fabricscope_t_up", .type = FSC_STAT_GAUGE},
    {.id = "latency",
     .family = "fabricscope_t_latency_seconds",
     .help = "Latency.",
     .type = FSC_STAT_HISTOGRAM},
};
static const struct fsc_stat_table source_table = {
    .id = "t_sources", .keys = {"source", NULL}, .cols = source_cols, .n_cols = 2};
static const struct fsc_stat_table *const tables[] = {&stream_table, &source_table, NULL};

static void write_rows(void *arg, const struct fsc_stats_out *out)
{
    (void)arg;
    static const double le[] = {1, 2};
    for (int s = 0; s < SOURCES; s++) {
        char src[16], st[16];
        snprintf(src, sizeof(src), "s%d", s);
        for (int k = 0; k < STREAMS; k++) {
            snprintf(st, sizeof(st), "st%d", k);
            const char *keys[] = {src, st};
            double v[3] = {(double)(STREAMS * s + k), 0, k == 0 ? NAN : 1};
            fsc_stats_row(out, &stream_table, keys, v, NULL);
        }
        const char *keys[] = {src};
        double v[2] = {2, 0};
        uint64_t bucket[3] = {(uint64_t)s, 1, 2};
        struct fsc_stat_hist h = {.n = 2, .le = le, .bucket = bucket, .sum = s / 2.0};
        fsc_stats_row(out, &source_table, keys, v, &h);
    }
}

static int count_prefix(const char *text, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *s = text; s && *s;) {
        n += strncmp(s, prefix, len) == 0;
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    return n;
}

static void many_rows_all_shown(void)
{
    struct pfx p;
    if (pfx_open(&p) != 0)
        return;
    struct fsc_daemon_view view = {.tables = tables, .stats = write_rows};
    struct fsc_prom_render_env env = {.reg = p.reg, .eng = p.eng, .cfg = p.cfg, .view = &view};
    char err[256] = "";
    struct fsc_prom_renderer *r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    struct fsc_buf out = {0};
    CHECK_INT(r ? fsc_prom_render(r, FSC_PROM_TEXT, T0, &out) : -1, 0);
    fsc_buf_append(&out, "", 1);
    const char *text = out.data ? out.data : "";

    CHECK_INT(count_prefix(text, "fabricscope_t_messages_total{"), SOURCES * STREAMS);
    CHECK_INT(count_prefix(text, "fabricscope_t_up{"), SOURCES * (STREAMS - 1) + SOURCES);
    CHECK_INT(count_prefix(text, "fabricscope_t_latency_seconds_bucket{"), SOURCES * 3);
    CHECK(pfx_line_at(text, "fabricscope_t_messages_total{source=\"s1499\",stream=\"st3\"} 5999") >=
          0);
    CHECK(pfx_line_at(text, "fabricscope_t_messages_total{source=\"s0\",stream=\"st0\"} 0") >= 0);
    CHECK(pfx_line_at(text, "fabricscope_t_up{source=\"s1499\",stream=\"st0\"} 1") < 0);
    /* one family, the rows in the order they came: s1's stream rows, then s1's source row */
    long a = pfx_line_at(text, "fabricscope_t_up{source=\"s1\",stream=\"st3\"} 1");
    long b = pfx_line_at(text, "fabricscope_t_up{source=\"s1\"} 2");
    long c = pfx_line_at(text, "fabricscope_t_up{source=\"s2\",stream=\"st1\"} 1");
    CHECK(a >= 0 && a < b && b < c);
    /* s = 1234: cumulative 1234, 1235, 1237; sum 617 */
    CHECK(pfx_line_at(text,
                      "fabricscope_t_latency_seconds_bucket{source=\"s1234\",le=\"1\"} 1234") >= 0);
    CHECK(pfx_line_at(text,
                      "fabricscope_t_latency_seconds_bucket{source=\"s1234\",le=\"2\"} 1235") >= 0);
    CHECK(pfx_line_at(text,
                      "fabricscope_t_latency_seconds_bucket{source=\"s1234\",le=\"+Inf\"} 1237") >=
          0);
    CHECK(pfx_line_at(text, "fabricscope_t_latency_seconds_sum{source=\"s1234\"} 617") >= 0);
    CHECK(pfx_line_at(text, "fabricscope_t_latency_seconds_count{source=\"s1234\"} 1237") >= 0);
    /* each family once, in table order */
    CHECK_INT(count_prefix(text, "# TYPE fabricscope_t_up gauge"), 1);
    long hm = pfx_line_at(text, "# HELP fabricscope_t_messages_total Messages.");
    long hu = pfx_line_at(text, "# HELP fabricscope_t_up Up.");
    long hl = pfx_line_at(text, "# HELP fabricscope_t_latency_seconds Latency.");
    CHECK(hm >= 0 && hm < hu && hu < hl);
    fsc_buf_free(&out);
    fsc_prom_renderer_destroy(r);
    pfx_close(&p);
}

TEST_MAIN(TEST(many_rows_all_shown))
