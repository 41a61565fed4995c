/* The web module end to end in one process: a real registry, engine and
 * event bus fed with known samples, the module's routes on a real
 * prom_http server (extra routes), and a raw HTTP client
 * (prom_http_fixture.h). Known answers: one 400G port at 100 Gb/s rx and
 * 150 Gb/s tx with one 100 ms line-rate tx burst, so the 1 s window holding
 * the burst reads 21.875 GB/s tx (0.4375) with a peak of 1.0, and exactly one
 * microburst is counted. Also: methods, bad queries, unknown paths, HEAD,
 * the history ring and burst markers of /api/port, and that the page
 * carries the same numbers. Waits for the sampler thread are bounded
 * (5 s) and assert nothing about time. */
#include <jansson.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "config/config.h"
#include "model/registry.h"
#include "prom_http_fixture.h"
#include "web/web.h"
#include "web/web_format.h"
#include "config_all.h"
#include "unit/view_fixture.h"

#define NS 1000000000LL
#define MS 1000000LL

struct world {
    struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_event_bus *bus;
    struct fsc_engine *eng;
    struct fsc_web *web;
    struct vfx vf; /* the daemon view: one source, no plugin rows */
    struct fsc_source_status source;
    struct fsc_prom_http *http;
    struct fake fake;
    uint16_t port;
    fsc_series_id rx, tx;
    int64_t base; /* device time of the first sample: a whole second */
    uint64_t samples;
};

static size_t one_source(void *arg, struct fsc_source_status *out, size_t cap)
{
    (void)arg;
    if (cap > 0) {
        memset(out, 0, sizeof(*out));
        snprintf(out->name, sizeof(out->name), "gen");
        snprintf(out->type, sizeof(out->type), "synthetic");
        out->state = "running";
        out->up = 1;
        out->series = 2;
    }
    return 1;
}

/* 2.5 s of samples every 100 ms: rx 100 Gb/s, tx 150 Gb/s with the
 * interval ending at +1.3 s at 400 Gb/s (below the detector's fall of 0.5
 * before and after, so the burst ends: a microburst of 100 ms). */
static void feed(struct world *w)
{
    uint64_t rx = 1000000, tx = 5000000;
    for (int i = 0; i <= 25; i++) {
        int64_t t = w->base + i * 100 * MS;
        if (i > 0) {
            rx += 1250000000ull;
            tx += i == 13 ? 5000000000ull : 1875000000ull;
        }
        struct fsc_sample s[2] = {{w->rx, 0, t, t, {.u = rx}}, {w->tx, 0, t, t, {.u = tx}}};
        CHECK_INT(fsc_engine_ingest(w->eng, s, 2), 0);
        w->samples += 2;
    }
}

static int world_open(struct world *w)
{
    static const char yaml[] = "sources:\n  - {name: gen, type: synthetic}\n"
                               "engine:\n  windows: [1s, 10s]\n";
    char err[512] = "";
    memset(w, 0, sizeof(*w));
    fake_init(&w->fake);
    w->cfg =
        fsc_config_parse(yaml, sizeof(yaml) - 1, "web.yaml", fsc_app_schema(), err, sizeof(err));
    w->reg = fsc_registry_create(1000);
    w->bus = fsc_event_bus_create(1024);
    if (!w->cfg || !w->reg || !w->bus) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    w->eng = fsc_engine_create(fsc_engine_config_of(w->cfg), w->bus, err, sizeof(err));
    uint16_t src;
    if (!w->eng || fsc_registry_source_add(w->reg, "gen", 0, &src) != 0)
        return -1;
    struct fsc_label lab[2] = {{"device", "leaf1"}, {"port", "swp1"}};
    w->rx = fsc_registry_intern(w->reg, src, "fabric_port_rx_bytes_total", lab, 2);
    w->tx = fsc_registry_intern(w->reg, src, "fabric_port_tx_bytes_total", lab, 2);
    struct fsc_traits tr = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_RX,
                            .link_speed_bps = 400000000000ull,
                            .nominal_interval_ns = 100 * MS};
    CHECK_INT(fsc_engine_set_traits(w->eng, w->rx, &tr), 0);
    tr.direction = FSC_DIR_TX;
    CHECK_INT(fsc_engine_set_traits(w->eng, w->tx, &tr), 0);

    w->vf = (struct vfx){.sources = &w->source, .n_sources = 1};
    one_source(NULL, &w->source, 1);
    vfx_init(&w->vf);
    struct fsc_web_env env = {w->reg, w->eng, w->bus, w->cfg, &w->vf.view};
    w->web = fsc_web_create(&env, err, sizeof(err));
    if (!w->web) {
        fprintf(stderr, "web: %s\n", err);
        return -1;
    }
    struct fsc_http_route routes[FSC_WEB_ROUTES];
    size_t n = fsc_web_routes(w->web, routes, FSC_WEB_ROUTES);
    CHECK_INT(n, FSC_WEB_ROUTES);
    struct fsc_prom_http_config hc = {.listen = "127.0.0.1:0"};
    w->http = fsc_prom_http_start_routes(&hc, routes, n, fake_render, fake_ready, &w->fake, err,
                                         sizeof(err));
    if (!w->http) {
        fprintf(stderr, "http: %s\n", err);
        return -1;
    }
    w->port = fsc_prom_http_port(w->http);
    /* Device times near now (the chart shows the last 10 minutes), at a
     * 10 s boundary so no 10 s window completes during the 2.5 s feed (a
     * microburst's END waits for one: only its START is published). */
    w->base = ((fsc_now_ns() / NS) / 10 * 10 - 10) * NS;
    feed(w);
    return 0;
}

static void world_close(struct world *w)
{
    fsc_prom_http_stop(w->http);
    fsc_web_destroy(w->web);
    fsc_engine_destroy(w->eng);
    fsc_event_bus_destroy(w->bus);
    fsc_registry_destroy(w->reg);
    fsc_config_destroy(w->cfg);
    fake_fini(&w->fake);
}

static int json_valid(const char *text)
{
    json_error_t e;
    json_t *j =
        text ? json_loads(text, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &e)
             : NULL;
    json_decref(j);
    return j != NULL;
}

/* GET path; the body (malloc'd, NULL on failure) and status. */
static char *get(struct world *w, const char *path, int *status, char *ctype, size_t ctlen)
{
    struct fx_resp r;
    *status = 0;
    if (fx_request(w->port, "GET", path, "", &r) != 0) {
        fx_resp_free(&r);
        return NULL;
    }
    *status = r.status;
    if (ctype && !fx_header(&r, "Content-Type", ctype, ctlen))
        ctype[0] = '\0';
    char *body = r.body;
    r.body = NULL;
    fx_resp_free(&r);
    return body;
}

/* Polls path (every 50 ms, 5 s at most) until its body contains want. */
static char *get_until(struct world *w, const char *path, const char *want)
{
    char *body = NULL;
    for (int i = 0; i < 100; i++) {
        int st;
        free(body);
        body = get(w, path, &st, NULL, 0);
        if (body && strstr(body, want))
            break;
        struct timespec ts = {0, 50 * MS};
        nanosleep(&ts, NULL);
    }
    return body;
}

static void api_known_answers(void)
{
    struct world w;
    char ct[128], want[512];
    int st;
    if (world_open(&w) != 0) {
        CHECK(0);
        world_close(&w);
        return;
    }

    char *b = get(&w, "/api/ports?top=5", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    CHECK_STR(ct, "application/json");
    CHECK_STR(b, "{\"ports\":[{\"device\":\"leaf1\",\"port\":\"swp1\",\"speed_bps\":400000000000,"
                 "\"peak_utilization\":1,\"peak_direction\":\"tx\",\"peak_window\":\"1s\","
                 "\"rx_bytes_per_second\":12500000000,\"tx_bytes_per_second\":21875000000,"
                 "\"rx_utilization\":0.25,\"tx_utilization\":0.4375,\"microbursts\":1,"
                 "\"bursts\":0}]}");
    free(b);

    b = get(&w, "/api/status", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    CHECK(json_valid(b));
    snprintf(want, sizeof(want),
             "\"engine\":{\"series\":2,\"samples\":%llu,\"windows\":[\"1s\","
             "\"10s\"],\"events_total\":{\"microburst\":1}},",
             (unsigned long long)w.samples);
    CHECK(b && strstr(b, want) != NULL);
    CHECK(b && strstr(b, "\"sources\":[{\"name\":\"gen\",\"type\":\"synthetic\",\"state\":"
                         "\"running\",\"up\":true,\"series\":2}],\"tables\":[{\"id\":"
                         "\"gnmi_streams\",") != NULL);
    /* Every table of the plugins, none with a row (no plugin runs here). */
    size_t n_tables = 0, n_empty = 0;
    for (const struct fsc_stat_table *const *t = fsc_app_tables(NULL); *t; t++)
        n_tables++;
    for (const char *q = b ? strstr(b, "\"rows\":[]") : NULL; q; q = strstr(q + 1, "\"rows\":[]"))
        n_empty++;
    CHECK(n_tables >= 8);
    CHECK_INT(n_empty, n_tables);
    free(b);

    /* The sampler thread reads the bus every 50 ms: wait for the event. */
    b = get_until(&w, "/api/events?limit=5", "\"kept\":1");
    CHECK(json_valid(b));
    snprintf(want, sizeof(want),
             "{\"seq\":1,\"kind\":\"microburst\",\"phase\":\"start\",\"device\":\"leaf1\","
             "\"port\":\"swp1\",\"direction\":\"tx\",");
    CHECK(b && strstr(b, "\"published\":1,\"lost\":0,\"kept\":1,\"events\":[") != NULL);
    CHECK(b && strstr(b, want) != NULL);
    /* A microburst's START comes when it has ended, without its end (the
     * END waits for the 10 s window); 5 GB in the 100 ms. */
    CHECK(b && strstr(b, "\"end\":null,\"duration_seconds\":null,\"fields\":{"
                         "\"peak_utilization\":1,\"bytes\":5000000000},") != NULL);
    free(b);

    /* /api/port starts tracking; the sampler then records the newest fine
     * interval of each direction (the feed has ended: one point each). */
    b = get(&w, "/api/port?device=leaf1&port=swp1", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    CHECK(b && strstr(b, "\"tracked\":true") != NULL);
    free(b);
    int64_t t_last_ms = (w.base + 2500 * MS) / MS;
    snprintf(want, sizeof(want),
             "\"rx\":[[%lld,0.25]],\"tx\":[[%lld,0.375]],\"bursts\":[{\"kind\":"
             "\"microburst\",\"direction\":\"tx\",\"start_ms\":%lld,\"end_ms\":null,\"peak\":1}]}",
             (long long)t_last_ms, (long long)t_last_ms, (long long)((w.base + 1200 * MS) / MS));
    b = get_until(&w, "/api/port?device=leaf1&port=swp1", "\"tx\":[[");
    CHECK(json_valid(b));
    CHECK(b && strstr(b, want) != NULL);
    if (b && !strstr(b, want))
        fprintf(stderr, "got  %s\nwant ...%s\n", b, want);
    free(b);

    /* No NIC series, no plan: an empty mesh. */
    b = get(&w, "/api/mesh", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    CHECK_STR(b, "{\"source\":\"labels\",\"nodes\":[],\"links\":[],\"mismatches\":[]}");
    free(b);

    /* The page: the same numbers in the server-rendered rows. */
    b = get(&w, "/", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    CHECK_STR(ct, "text/html; charset=utf-8");
    CHECK(b && strstr(b, "<td class=\"num peak\" data-value=\"1\">100.0 %</td><td class=\"window\">"
                         "1s</td><td class=\"dir\">tx</td><td class=\"num rx\" data-value="
                         "\"12500000000\">100.00 Gb/s</td><td class=\"num tx\" data-value="
                         "\"21875000000\">175.00 Gb/s</td>") != NULL);
    CHECK(b && strstr(b, "data-device=\"leaf1\" data-port=\"swp1\">") != NULL);
    CHECK(b && strstr(b, "<tr data-seq=\"1\" class=\"ev-microburst\">") != NULL);
    CHECK(b && strstr(b, "<rect class=\"burst\"") != NULL);
    free(b);
    world_close(&w);
}

static void methods_and_errors(void)
{
    struct world w;
    struct fx_resp r;
    char v[128];
    int st;
    if (world_open(&w) != 0) {
        CHECK(0);
        world_close(&w);
        return;
    }
    static const struct {
        const char *path;
        int status;
        const char *body;
    } cases[] = {
        {"/api/ports?top=0", 400, "{\"error\":\"top must be an integer from 1 to 100\"}"},
        {"/api/ports?top=101", 400, "{\"error\":\"top must be an integer from 1 to 100\"}"},
        {"/api/ports?top=1x", 400, "{\"error\":\"top must be an integer from 1 to 100\"}"},
        {"/api/events?limit=0", 400, "{\"error\":\"limit must be an integer from 1 to 1024\"}"},
        {"/api/port", 400, "{\"error\":\"device and port are required\"}"},
        {"/api/port?device=leaf1", 400, "{\"error\":\"device and port are required\"}"},
        {"/api/port?device=leaf1&port=nope", 404,
         "{\"error\":\"no such port with byte counters\"}"},
        {"/api/nope", 404, "not found\n"},
        {"/?top=500", 400, "top must be 1..100 and limit 1..1024\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *b = get(&w, cases[i].path, &st, NULL, 0);
        CHECK_INT(st, cases[i].status);
        CHECK_STR(b, cases[i].body);
        free(b);
    }
    /* Read-only: every other method is 405 with Allow. */
    static const char *const methods[] = {"POST", "PUT", "DELETE", "PATCH"};
    for (size_t i = 0; i < 4; i++) {
        CHECK_INT(fx_request(w.port, methods[i], "/api/status", "", &r), 0);
        CHECK_INT(r.status, 405);
        CHECK(fx_header(&r, "Allow", v, sizeof(v)) && strcmp(v, "GET, HEAD") == 0);
        fx_resp_free(&r);
        CHECK_INT(fx_request(w.port, methods[i], "/", "", &r), 0);
        CHECK_INT(r.status, 405);
        fx_resp_free(&r);
    }
    /* HEAD: headers (the real length), no body. */
    CHECK_INT(fx_request(w.port, "HEAD", "/api/mesh", "", &r), 0);
    CHECK_INT(r.status, 200);
    CHECK(fx_header(&r, "Content-Length", v, sizeof(v)) && strcmp(v, "57") == 0);
    CHECK(fx_header(&r, "Cache-Control", v, sizeof(v)) && strcmp(v, "no-store") == 0);
    CHECK(r.body == NULL);
    fx_resp_free(&r);
    /* The built-in routes are untouched. */
    char *b = get(&w, "/metrics", &st, NULL, 0);
    CHECK_INT(st, 200);
    CHECK_STR(b, FX_TEXT);
    free(b);
    world_close(&w);
}

/* Route table validation at start. */
static void route_table_checked(void)
{
    struct fake f;
    struct fsc_prom_http_config hc = {.listen = "127.0.0.1:0"};
    struct fsc_http_route many[FSC_PROM_HTTP_ROUTES_MAX + 1];
    struct fsc_http_route bad = {"api", NULL, NULL};
    char err[256];
    fake_init(&f);
    for (size_t i = 0; i <= FSC_PROM_HTTP_ROUTES_MAX; i++)
        many[i] = (struct fsc_http_route){"/x", NULL, NULL};
    CHECK(fsc_prom_http_start_routes(&hc, many, FSC_PROM_HTTP_ROUTES_MAX + 1, fake_render,
                                     fake_ready, &f, err, sizeof(err)) == NULL);
    CHECK_STR(err, "prometheus http: 17 extra routes, at most 16");
    CHECK(fsc_prom_http_start_routes(&hc, &bad, 1, fake_render, fake_ready, &f, err, sizeof(err)) ==
          NULL);
    CHECK_STR(err, "prometheus http: extra route 0 needs a path and a function");
    fake_fini(&f);
    fsc_web_destroy(NULL);
}

/* Publishes n copies of ev on the world's bus and waits (bounded, by
 * polling /api/events) until the sampler kept them. */
static void publish_kept(struct world *w, const struct fsc_event *ev, size_t n, size_t kept_after)
{
    char want[64];
    for (size_t i = 0; i < n; i++)
        fsc_event_publish(w->bus, ev);
    snprintf(want, sizeof(want), "\"kept\":%zu,", kept_after);
    free(get_until(w, "/api/events?limit=1", want));
}

/* /api/health from the collector's state: a cable-mismatch gauge at 1
 * with its START, a CNP storm started (still listed after 1100 newer
 * events pushed its START out of the event ring), then ended (recent);
 * the feed's microburst is recent. Sentences compared exactly. */
static void health_from_state(void)
{
    struct world w;
    char want[1024], when[48];
    int st;
    if (world_open(&w) != 0) {
        CHECK(0);
        world_close(&w);
        return;
    }
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(w.reg, "nic", 0, &src), 0);
    struct fsc_label mm[4] = {{"device", "b300-01"},
                              {"kind", "missing"},
                              {"peer", "b300-02:ens1f1np1"},
                              {"port", "ens1f1np1"}};
    fsc_series_id gid = fsc_registry_intern(w.reg, src, "fabric_cable_mismatch", mm, 4);
    struct fsc_label cl[2] = {{"device", "b300-02"}, {"port", "ens3f0np0"}};
    fsc_series_id cnp = fsc_registry_intern(w.reg, src, "fabric_nic_cnp_sent_total", cl, 2);
    struct fsc_traits g = {.kind = FSC_KIND_GAUGE, .width = 64, .nominal_interval_ns = 100 * MS};
    CHECK_INT(fsc_engine_set_traits(w.eng, gid, &g), 0);
    int64_t t = w.base + 3 * NS;
    struct fsc_sample one = {gid, 0, t, t, {.u = 1}};
    CHECK_INT(fsc_engine_ingest(w.eng, &one, 1), 0);

    struct fsc_event ev = {.kind = FSC_EV_CABLE_MISMATCH,
                           .phase = FSC_EV_START,
                           .series = gid,
                           .group = UINT32_MAX,
                           .t_start_ns = t};
    publish_kept(&w, &ev, 1, 2);
    struct fsc_event storm = {.kind = FSC_EV_CNP_SPIKE,
                              .phase = FSC_EV_START,
                              .direction = FSC_DIR_TX,
                              .series = cnp,
                              .t_start_ns = t};
    fsc_event_add(&storm, FSC_EF_PEAK_RATE, 100000);
    fsc_event_add(&storm, FSC_EF_BASELINE_RATE, 20);
    publish_kept(&w, &storm, 1, 3);

    /* The feed's microburst: recent, with its figures. */
    char *b = get(&w, "/api/health", &st, NULL, 0);
    CHECK_INT(st, 200);
    CHECK(json_valid(b));
    CHECK(b && strstr(b, "\"active_total\":2,\"recent_total\":1,") != NULL);
    CHECK(b && strstr(b, "\"recent\":[{\"kind\":\"microburst\",") != NULL);
    CHECK(b && strstr(b, "\"what\":\"leaf1 swp1 (tx): microburst\"") != NULL);
    CHECK(b &&
          strstr(b, "\"measure\":\"peak 100.0 % of the link against 70.0 %, 5.0 GB\"") != NULL);
    free(b);

    /* Events that are no condition, enough to push every START out of the
     * page's ring (1024): both conditions stay, nothing is recent. */
    struct fsc_event reset = {
        .kind = FSC_EV_COUNTER_RESET, .phase = FSC_EV_INSTANT, .series = cnp, .t_start_ns = t};
    publish_kept(&w, &reset, 600, 603);
    publish_kept(&w, &reset, 500, 1024);
    b = get(&w, "/api/events?limit=1024", &st, NULL, 0);
    CHECK(b && strstr(b, "\"cable_mismatch\"") == NULL && strstr(b, "\"cnp_spike\"") == NULL);
    free(b);
    b = get(&w, "/api/health", &st, NULL, 0);
    CHECK_INT(st, 200);
    CHECK(json_valid(b));
    fsc_web_fmt_when(t, 0, when, sizeof(when));
    CHECK(b && strstr(b, "\"active_total\":2,\"recent_total\":0,\"recent_seconds\":600,"
                         "\"incomplete\":false,\"by_kind\":{\"cable_missing\":1,"
                         "\"cnp_spike\":1},\"active\":[{\"kind\":\"cable_missing\","
                         "\"severity\":\"error\",\"title\":\"Interface missing\","
                         "\"device\":\"b300-01\",\"port\":\"ens1f1np1\",\"peer\":"
                         "\"b300-02:ens1f1np1\",\"direction\":null,\"name\":null,") != NULL);
    snprintf(want, sizeof(want),
             "\"what\":\"b300-01 ens1f1np1: interface missing\",\"when_text\":\"%s\",", when);
    CHECK(b && strstr(b, want) != NULL);
    CHECK(b && strstr(b, "\"measure\":\"the interface is not on the host (planned to reach "
                         "b300-02:ens1f1np1)\",") != NULL);
    CHECK(b && strstr(b, "\"what\":\"b300-02 ens3f0np0 (tx): CNP storm\"") != NULL);
    CHECK(b && strstr(b, "\"measure\":\"peak 100.0 k CNPs/s against a threshold of 5.0 k/s (5 x "
                         "the baseline 20/s, at least 5.0 k/s)\"") != NULL);
    free(b);

    /* The storm ends: recent now, the cable stays. */
    storm.phase = FSC_EV_END;
    storm.t_end_ns = t + 2 * NS;
    fsc_event_add(&storm, FSC_EF_COUNT, 200000);
    publish_kept(&w, &storm, 1, 1024);
    b = get_until(&w, "/api/health?limit=1&recent=1", "\"active_total\":1,");
    CHECK(b && strstr(b, "\"active_total\":1,\"recent_total\":1,") != NULL);
    CHECK(b && strstr(b, "\"recent\":[{\"kind\":\"cnp_spike\",") != NULL);
    CHECK(b && strstr(b, "; 200.0 k CNPs\",") != NULL);
    free(b);

    /* The page: the same sentences, first. */
    b = get(&w, "/", &st, NULL, 0);
    CHECK(b && strstr(b, "<li class=\"cond error\" data-kind=\"cable_missing\" "
                         "data-state=\"active\" data-device=\"b300-01\" data-port=\"ens1f1np1\">"
                         "<span class=\"title\">Interface missing</span> <span class=\"what\">"
                         "b300-01 ens1f1np1: interface missing</span>") != NULL);
    CHECK(b && strstr(b, "<section id=\"fabric-health\">") != NULL &&
          strstr(b, "<section id=\"fabric-health\">") < strstr(b, "<section id=\"traffic\">") &&
          strstr(b, "<section id=\"traffic\">") < strstr(b, "<details id=\"internals\">"));
    free(b);

    b = get(&w, "/api/health?limit=0", &st, NULL, 0);
    CHECK_INT(st, 400);
    CHECK_STR(b, "{\"error\":\"limit must be an integer from 1 to 1000, recent from 0 to 1000\"}");
    free(b);
    world_close(&w);
}

/* A fabric of 1 000 gNMI devices (4 streams each): /api/status lists every
 * source and every stream row (the page's model once kept 256 sources and
 * 2 048 rows, and left the rest out without a word). */
static void many_sources_all_listed(void)
{
    enum { DEVICES = 1000, STREAMS = 4 };
    struct world w;
    int st;
    char ct[128];
    if (world_open(&w) != 0) {
        CHECK(0);
        world_close(&w);
        return;
    }
    static struct fsc_source_status src[DEVICES];
    static struct vfx_row rows[DEVICES * STREAMS];
    static char names[DEVICES][16];
    static const char *const streams[STREAMS] = {"interfaces", "queues", "rest", "links"};
    for (int d = 0; d < DEVICES; d++) {
        snprintf(names[d], sizeof(names[d]), "leaf%04d", d);
        memset(&src[d], 0, sizeof(src[d]));
        memcpy(src[d].name, names[d], sizeof(names[d]));
        snprintf(src[d].type, sizeof(src[d].type), "gnmi");
        src[d].state = "running";
        src[d].up = d % 2; /* odd devices up */
        for (int k = 0; k < STREAMS; k++)
            rows[d * STREAMS + k] =
                (struct vfx_row){.table = "gnmi_streams",
                                 .keys = {names[d], streams[k]},
                                 .vals = {{"up", d % 2}, {"messages", d * STREAMS + k}, {NULL, 0}}};
    }
    w.vf.sources = src;
    w.vf.n_sources = DEVICES;
    w.vf.rows = rows;
    w.vf.n_rows = DEVICES * STREAMS;

    char *b = get(&w, "/api/status", &st, ct, sizeof(ct));
    CHECK_INT(st, 200);
    json_error_t e;
    json_t *j = b ? json_loads(b, 0, &e) : NULL;
    CHECK(j != NULL);
    json_t *srcs = json_object_get(j, "sources");
    CHECK_INT(json_array_size(srcs), DEVICES);
    CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, DEVICES - 1), "name")),
              "leaf0999");
    size_t n_rows = 0;
    json_t *tables = json_object_get(j, "tables"), *t;
    size_t i;
    json_array_foreach(tables, i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "id")), "gnmi_streams") != 0)
            continue;
        json_t *r = json_object_get(t, "rows");
        n_rows = json_array_size(r);
        json_t *last = json_array_get(r, n_rows ? n_rows - 1 : 0);
        CHECK_STR(json_string_value(json_object_get(last, "source")), "leaf0999");
        CHECK_STR(json_string_value(json_object_get(last, "stream")), "links");
        CHECK(json_real_value(json_object_get(last, "messages")) == 3999.0 ||
              json_integer_value(json_object_get(last, "messages")) == 3999);
    }
    CHECK_INT(n_rows, DEVICES * STREAMS);
    json_decref(j);
    free(b);
    world_close(&w);
}

TEST_MAIN(TEST(api_known_answers), TEST(methods_and_errors), TEST(route_table_checked),
          TEST(health_from_state), TEST(many_sources_all_listed))
