/* The capacity report (collector/commands/report_*.c) from a rollup store
 * seeded with known per-minute records over 4 hours: every table's numbers
 * asserted exactly in the CSV and in the JSON, Prometheus' quantile rules,
 * an empty range, and the HTML rendered by headless Chromium without
 * console errors (skipped, status 77, where chromium is not installed).
 *
 * The seeded fabric (topology from a config text): leaf1 with uplinks up1
 * (constant: 590 fine intervals per minute in (0.2, 0.3], 10 in (0.8, 0.9])
 * and up2 (all in (0.5, 0.6] for two hours, then (0.6, 0.7]: a rising p99),
 * downlinks down1 and down2 at line rate (down3, down4 idle in the topology
 * only), a B300 NIC port with CNPs and PFC pause, the uplink group and a
 * node. Hand-computed answers are in the comments. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "commands/report.h"
#include "rollup/rollup_store.h"
#include "test.h"
#include "config_all.h"

#define D0  1700006400LL /* 2023-11-15T00:00:00Z */
#define MIN 240          /* minutes seeded: 4 hours */

static char dir[64];

static const char topo_yaml[] = "topology:\n"
                                "  devices:\n"
                                "    - name: leaf1\n"
                                "      role: leaf\n"
                                "      ports:\n"
                                "        - {name: up1, speed: 400G, role: uplink}\n"
                                "        - {name: up2, speed: 400G, role: uplink}\n"
                                "        - {name: down1, speed: 400G, role: downlink}\n"
                                "        - {name: down2, speed: 400G, role: downlink}\n"
                                "        - {name: down3, speed: 400G, role: downlink}\n"
                                "        - {name: down4, speed: 400G, role: downlink}\n"
                                "    - name: b300-1\n"
                                "      role: host\n"
                                "      ports: [{name: ens1f0np0, speed: 400G}]\n";

/* The Chromium case leaves a browser profile behind: remove the tree. */
static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

static struct fsc_rr_name name_of(uint8_t kind, const char *a, const char *b, uint8_t role)
{
    struct fsc_rr_name n;
    memset(&n, 0, sizeof(n));
    n.kind = kind;
    n.role = role;
    n.rail = -1;
    n.speed_bps = kind == FSC_RR_NAME_PORT ? 400000000000ull : 0;
    snprintf(n.device, sizeof(n.device), "%s", a);
    snprintf(n.port, sizeof(n.port), "%s", b);
    return n;
}

enum { K_UP1, K_UP2, K_DOWN1, K_DOWN2, K_NIC, K_GROUP, K_NODE, K__N };

static struct fsc_rr_record rec_of(uint32_t key, int m)
{
    struct fsc_rr_record r;
    memset(&r, 0, sizeof(r));
    r.key = key;
    r.minute_s = D0 + m * 60;
    r.type = FSC_RR_PORT;
    struct fsc_rr_dir *tx = &r.port.dir[FSC_RR_TX], *rx = &r.port.dir[FSC_RR_RX];
    switch (key) {
    case K_UP1:
        r.flags = FSC_RR_F_TX;
        tx->util[2] = 590;
        tx->util[8] = 10;
        tx->util_sum = 156;
        tx->max_fine = 0.875f;
        tx->max_1s = 0.5f;
        tx->bytes = 1.2e12;
        tx->bursts = 2;
        tx->dur[0] = 1;
        tx->dur[5] = 1;
        tx->dur_sum = 0.0805f;
        break;
    case K_UP2:
        r.flags = FSC_RR_F_TX;
        tx->util[m < 120 ? 5 : 6] = 600;
        tx->max_fine = 0.75f;
        tx->max_1s = 0.625f;
        tx->bytes = 0.6e12;
        break;
    case K_DOWN1:
    case K_DOWN2:
        r.flags = FSC_RR_F_RX;
        rx->util[11] = 600;
        rx->max_fine = 1.0f;
        rx->max_1s = 1.0f;
        rx->bytes = 3e12;
        break;
    case K_NIC:
        r.flags = FSC_RR_F_RX | FSC_RR_F_CNP | FSC_RR_F_PFC;
        rx->util[4] = 600;
        rx->max_fine = 0.5f;
        rx->max_1s = 0.45f;
        rx->bytes = 1.5e12;
        r.port.cnp = 1500;
        r.port.pfc_pause_s = 0.6;
        break;
    case K_GROUP:
        r.type = FSC_RR_GROUP;
        r.group.ratio_mean = 1.25;
        r.group.ratio_max = m == 100 ? 2.0 : 1.5;
        r.group.events = m == 100;
        r.group.members = 2;
        r.group.polls = 60;
        break;
    case K_NODE:
        r.type = FSC_RR_NODE;
        r.flags = FSC_RR_F_EFF;
        r.node.bps_mean[FSC_RR_TX] = 3.2e12;
        r.node.bps_max[FSC_RR_TX] = m == 50 ? 4.8e12 : 3.2e12;
        r.node.eff_mean[FSC_RR_TX] = 0.5;
        r.node.bps_mean[FSC_RR_RX] = 1.6e12;
        r.node.bps_max[FSC_RR_RX] = 1.6e12;
        r.node.eff_mean[FSC_RR_RX] = 0.25;
        r.node.polls = 60;
        break;
    }
    return r;
}

static void seed(void)
{
    char err[256] = "";
    snprintf(dir, sizeof(dir), "/tmp/fsc_report_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    struct fsc_rollup_store *st =
        fsc_rollup_store_open(dir, 3650LL * 86400, 1ull << 30, D0 + MIN * 60, err, sizeof(err));
    CHECK(st != NULL);
    if (!st)
        return;
    struct fsc_rr_name names[K__N] = {
        name_of(FSC_RR_NAME_PORT, "leaf1", "up1", FSC_PORT_UPLINK),
        name_of(FSC_RR_NAME_PORT, "leaf1", "up2", FSC_PORT_UPLINK),
        name_of(FSC_RR_NAME_PORT, "leaf1", "down1", FSC_PORT_DOWNLINK),
        name_of(FSC_RR_NAME_PORT, "leaf1", "down2", FSC_PORT_DOWNLINK),
        name_of(FSC_RR_NAME_PORT, "b300-1", "ens1f0np0", FSC_PORT_NIC),
        name_of(FSC_RR_NAME_GROUP, "leaf1-uplinks", "", 0),
        name_of(FSC_RR_NAME_NODE, "b300-1", "1", 0),
    };
    for (uint32_t k = 0; k < K__N; k++)
        CHECK_INT(fsc_rollup_store_define(st, k, &names[k]), 0);
    for (int m = 0; m < MIN; m++) {
        struct fsc_rr_record recs[K__N];
        for (uint32_t k = 0; k < K__N; k++)
            recs[k] = rec_of(k, m);
        CHECK_INT(fsc_rollup_store_append(st, recs, K__N, D0 + MIN * 60), 0);
    }
    /* a record outside the range must not count */
    struct fsc_rr_record late = rec_of(K_UP1, MIN + 5);
    CHECK_INT(fsc_rollup_store_append(st, &late, 1, D0 + MIN * 60), 0);
    fsc_rollup_store_close(st);
}

/* Builds the report of [D0, D0 + 4 h) at threshold 0.6; returns the CSV
 * and JSON texts (caller frees) and keeps the config for the HTML case. */
static int build(struct fsc_report *rep, struct fsc_config **cfg, char **csv, char **json)
{
    char err[512] = "";
    *cfg = fsc_config_parse(topo_yaml, strlen(topo_yaml), "topo.yaml", fsc_app_schema(), err,
                            sizeof(err));
    CHECK(*cfg != NULL);
    if (!*cfg) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    fsc_report_init(rep, D0, D0 + MIN * 60, 0.6, fsc_topology_of(*cfg));
    rep->generated_s = D0 + MIN * 60;
    int rc = fsc_report_load_rollup(rep, dir, err, sizeof(err));
    CHECK_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    CHECK_INT(fsc_report_compute(rep), 0);
    size_t len;
    FILE *f = open_memstream(csv, &len);
    CHECK_INT(fsc_report_write_csv(rep, f), 0);
    fclose(f);
    f = open_memstream(json, &len);
    CHECK_INT(fsc_report_write_json(rep, f), 0);
    fclose(f);
    return 0;
}

static void check_line(const char *text, const char *line)
{
    char want[1024];
    snprintf(want, sizeof(want), "\n%s\n", line);
    if (!strstr(text, want)) {
        fprintf(stderr, "missing line: %s\n", line);
        CHECK(0);
    } else {
        CHECK(1);
    }
}

static void csv_tables_exact(void)
{
    seed();
    struct fsc_report rep;
    struct fsc_config *cfg = NULL;
    char *csv = NULL, *json = NULL;
    if (build(&rep, &cfg, &csv, &json) == 0) {
        /* up1 tx: 144000 intervals; p50 = 0.2 + 0.1 x 72000 / 141600; p99 =
         * 0.8 + 0.1 x (142560 - 141600) / 2400 = 0.84; 1.2e12 B per minute
         * on 400G = 0.4 for every 5 min block and the mean */
        check_line(csv, "table,device,port,direction,role,rail,speed_bps,intervals,p50,p99,"
                        "max_fine,max_1s_avg,max_5m_avg,mean,bytes,covered_s");
        check_line(csv, "links,leaf1,up1,tx,uplink,,400000000000,144000,0.250847,0.84,0.875,0.5,"
                        "0.4,0.4,288000000000000,14400");
        /* up2: p50 at the edge of (0.5, 0.6] = 0.6; p99 = 0.6 + 0.1 x 0.98 */
        check_line(csv, "links,leaf1,up2,tx,uplink,,400000000000,144000,0.6,0.698,0.75,0.625,"
                        "0.2,0.2,144000000000000,14400");
        /* line rate: all in (0.99, 1.0], p50 = 0.99 + 0.01 x 0.5 */
        check_line(csv, "links,leaf1,down1,rx,downlink,,400000000000,144000,0.995,0.9999,1,1,1,1,"
                        "720000000000000,14400");
        check_line(csv, "links,b300-1,ens1f0np0,rx,nic,,400000000000,144000,0.45,0.499,0.5,0.45,"
                        "0.5,0.5,360000000000000,14400");
        /* 480 microbursts in 4 h; mean (0.5 + 80) ms / 2 */
        check_line(csv, "bursts,leaf1,up1,tx,480,0,120,40.25,240,0,0,0,0,240,0,0,0,0,14400");
        check_line(csv, "bursts,leaf1,up2,tx,0,0,0,,0,0,0,0,0,0,0,0,0,0,14400");
        /* 360000 CNPs over 360 TB received; 144 s of 14400 s paused */
        check_line(csv,
                   "congestion,b300-1,ens1f0np0,360000000000000,360000,1000,144,0.01,port,14400");
        /* uplinks 2.88e14 and 1.44e14 bytes: max/mean 4/3; 4.32e14 B x 8 over
         * 800G x 14400 s = 0.3 */
        check_line(csv, "imbalance,leaf1,2,432000000000000,1.33333,0.3,14400");
        check_line(csv, "oversubscription,leaf1,4,1600000000000,2,800000000000,2");
        check_line(csv, "spine_share,leaf1,1440000000000000,432000000000000,0.3");
        check_line(csv, "spine_share,(fabric),1440000000000000,432000000000000,0.3");
        check_line(csv, "groups,leaf1-uplinks,1.25,2,1");
        /* capacity = mean / efficiency = 6.4 Tb/s */
        check_line(csv,
                   "b300_nodes,b300-1,1,rx,1600000000000,1600000000000,6400000000000,0.25,0.25");
        check_line(csv,
                   "b300_nodes,b300-1,1,tx,3200000000000,4800000000000,6400000000000,0.5,0.75");
        /* up2's bin p99s are 0.599 then 0.699 (30 bins of 8 min): least
         * squares 0.901001 per day from 0.573917, 1.0 at 11:20:58 */
        check_line(csv, "saturation,leaf1,down1,rx,0.9999,1,0,flat,");
        check_line(csv, "saturation,leaf1,up1,tx,0.84,0.5,0,flat,");
        check_line(csv, "saturation,leaf1,up2,tx,0.698,0.625,0.901001,rising,2023-11-15T11:20:58Z");
        CHECK(strstr(csv, "saturation,b300-1") == NULL); /* p99 0.499 < 0.6 */
        check_line(csv, "# summary: Spine traffic share: 30.0% of the traffic entering the leaves "
                        "left through their uplinks (near zero is expected with rail-local "
                        "rings).");
        check_line(csv, "# summary: 4 link directions reached 60%; leaf1:up2 tx trends towards "
                        "saturation by 2023-11-15T11:20:58Z.");
        CHECK(strstr(csv, "# note:") == NULL);
    }
    free(csv);
    free(json);
    fsc_report_fini(&rep);
    fsc_config_destroy(cfg);
    rm_tmp();
}

static void json_tables_exact(void)
{
    seed();
    struct fsc_report rep;
    struct fsc_config *cfg = NULL;
    char *csv = NULL, *json = NULL;
    if (build(&rep, &cfg, &csv, &json) == 0) {
        CHECK(strstr(json, "\"from\": \"2023-11-15T00:00:00Z\",\n  \"to\": "
                           "\"2023-11-15T04:00:00Z\"") != NULL);
        CHECK(strstr(json, "\"threshold\": 0.6,\n  \"bin_seconds\": 480,") != NULL);
        CHECK(strstr(json,
                     "{\"device\": \"leaf1\", \"port\": \"up1\", \"direction\": \"tx\", "
                     "\"role\": \"uplink\", \"rail\": null, \"speed_bps\": 400000000000, "
                     "\"intervals\": 144000, \"p50\": 0.250847, \"p99\": 0.84, "
                     "\"max_fine\": 0.875, \"max_1s_avg\": 0.5, \"max_5m_avg\": 0.4, "
                     "\"mean\": 0.4, \"bytes\": 288000000000000, \"covered_s\": 14400}") != NULL);
        CHECK(strstr(json,
                     "{\"device\": \"b300-1\", \"port\": \"ens1f0np0\", \"rx_bytes\": "
                     "360000000000000, \"cnp\": 360000, \"cnp_per_tb\": 1000, "
                     "\"pfc_paused_s\": 144, \"pfc_paused_fraction\": 0.01, \"rx_bytes_from\": "
                     "\"port\", \"covered_s\": 14400}") != NULL);
        CHECK(strstr(json, "\"slope_per_day\": 0.901001, \"trend\": \"rising\", \"saturation\": "
                           "\"2023-11-15T11:20:58Z\"}") != NULL);
        CHECK(strstr(json, "\"slope_per_day\": 0, \"trend\": \"flat\", \"saturation\": null}") !=
              NULL);
        CHECK(strstr(json, "{\"leaf\": \"(fabric)\", \"downlink_rx_bytes\": 1440000000000000, "
                           "\"uplink_tx_bytes\": 432000000000000, \"spine_share\": 0.3}") != NULL);
        /* the bursts row with no microburst has no mean: null, not 0 */
        CHECK(strstr(json, "\"port\": \"up2\", \"direction\": \"tx\", \"microbursts\": 0, "
                           "\"long_bursts\": 0, \"per_hour\": 0, \"mean_ms\": null") != NULL);
        /* it parses as JSON: python3 is part of the test environment */
        char path[128];
        snprintf(path, sizeof(path), "%s/r.json", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(json, f);
            fclose(f);
        }
        char cmd[256];
        snprintf(cmd, sizeof(cmd),
                 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                 "assert len(d[\"tables\"][\"links\"]) == 5' %s",
                 path);
        CHECK_INT(system(cmd), 0);
        unlink(path);
    }
    free(csv);
    free(json);
    fsc_report_fini(&rep);
    fsc_config_destroy(cfg);
    rm_tmp();
}

static void quantile_rules(void)
{
    double h[FSC_UTIL_BUCKETS + 1] = {0};
    CHECK(isnan(fsc_report_quantile(0.99, h, FSC_UTIL_BUCKETS, fsc_util_bucket_le)));
    h[0] = 10; /* all in (0, 0.1]: linear from 0 */
    CHECK_NEAR(fsc_report_quantile(0.5, h, FSC_UTIL_BUCKETS, fsc_util_bucket_le), 0.05, 1e-12);
    h[0] = 0;
    h[FSC_UTIL_BUCKETS] = 4; /* only +Inf: the highest finite bound */
    CHECK_NEAR(fsc_report_quantile(0.5, h, FSC_UTIL_BUCKETS, fsc_util_bucket_le), 1.0, 1e-12);
    h[FSC_UTIL_BUCKETS] = 0;
    h[9] = 3;  /* (0.9, 0.95] */
    h[10] = 1; /* (0.95, 0.99] */
    /* rank 0.99 x 4 = 3.96 in the second: 0.95 + 0.04 x 0.96 */
    CHECK_NEAR(fsc_report_quantile(0.99, h, FSC_UTIL_BUCKETS, fsc_util_bucket_le), 0.9884, 1e-12);
}

static void empty_range_and_no_store(void)
{
    seed();
    struct fsc_report rep;
    char err[256] = "";
    fsc_report_init(&rep, D0 - 7200, D0 - 3600, 0.8, NULL);
    CHECK_INT(fsc_report_load_rollup(&rep, dir, err, sizeof(err)), -ENODATA);
    CHECK(strstr(err, "has no record in the range") != NULL);
    CHECK_INT(fsc_report_compute(&rep), -ENODATA);
    fsc_report_fini(&rep);
    fsc_report_init(&rep, D0, D0 + 60, 0.8, NULL);
    CHECK_INT(fsc_report_load_rollup(&rep, "/nonexistent/rollup", err, sizeof(err)), -ENOENT);
    CHECK_STR(err, "no rollup store at /nonexistent/rollup");
    fsc_report_fini(&rep);
    rm_tmp();
}

/* Headless Chromium loads report.html: the DOM has the tables and charts,
 * and the browser logs no console message at all (the page has no script;
 * a missing resource or a parse problem would show up here). */
static void html_chromium(void)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0)
        test_skip("chromium (Debian package chromium)");
    seed();
    struct fsc_report rep;
    struct fsc_config *cfg = NULL;
    char *csv = NULL, *json = NULL;
    if (build(&rep, &cfg, &csv, &json) == 0) {
        char path[128], dom[128], log[128], cmd[1024];
        snprintf(path, sizeof(path), "%s/report.html", dir);
        snprintf(dom, sizeof(dom), "%s/dom.html", dir);
        snprintf(log, sizeof(log), "%s/chromium.log", dir);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            CHECK_INT(fsc_report_write_html(&rep, f), 0);
            fclose(f);
        }
        snprintf(cmd, sizeof(cmd),
                 "HOME=%s timeout 60 chromium --headless=new --no-sandbox --disable-gpu "
                 "--no-first-run --user-data-dir=%s/profile --enable-logging=stderr --v=0 "
                 "--dump-dom file://%s >%s 2>%s",
                 dir, dir, path, dom, log);
        CHECK_INT(system(cmd), 0);
        char *text = NULL, *errs = NULL;
        size_t cap = 0;
        f = fopen(dom, "r");
        if (f) {
            CHECK(getdelim(&text, &cap, '\0', f) > 0);
            fclose(f);
        }
        cap = 0;
        f = fopen(log, "r");
        if (f) {
            if (getdelim(&errs, &cap, '\0', f) < 0) {
                free(errs);
                errs = NULL;
            }
            fclose(f);
        }
        CHECK(text && strstr(text, "<table id=\"table-links\">") != NULL);
        CHECK(text && strstr(text, "<td>0.84</td>") != NULL);
        CHECK(text && strstr(text, "id=\"chart-hide\"") != NULL);
        CHECK(text && strstr(text, "id=\"chart-nodes\"") != NULL);
        CHECK(text && strstr(text, "class=\"trend\"") != NULL);
        CHECK(text && strstr(text, "Spine traffic share: 30.0%") != NULL);
        /* console messages are logged as CONSOLE(line); none is expected */
        if (errs && (strstr(errs, "CONSOLE") || strstr(errs, "Uncaught"))) {
            fprintf(stderr, "chromium console:\n%s\n", errs);
            CHECK(0);
        }
        /* the page must not reach for anything outside itself */
        CHECK(strstr(csv, "http") == NULL);
        FILE *h = fopen(path, "r");
        char *page = NULL;
        cap = 0;
        if (h) {
            CHECK(getdelim(&page, &cap, '\0', h) > 0);
            fclose(h);
        }
        CHECK(page && strstr(page, "src=") == NULL && strstr(page, "href=") == NULL &&
              strstr(page, "<script") == NULL);
        free(page);
        free(text);
        free(errs);
    }
    free(csv);
    free(json);
    fsc_report_fini(&rep);
    fsc_config_destroy(cfg);
    rm_tmp();
}

/* ---- a short data range: 150 s of data in a 24 h range ------------------------ */

#define D1 (D0 + 7 * 86400LL) /* a day of its own, 5 min aligned */

/* One minute m (0..2) of the short store: 60, 60, then 30 s of data. up1
 * says so itself (FSC_RR_F_COVERED); up2 is written as a version 1 writer
 * did for its whole minutes (no flag: read as 60 s) and with the flag for
 * the partial one. Both uplinks run at 20 % of 400G = 10 GB/s while
 * measured; up1 has 2, 2, 1 microbursts of 10 ms. The NIC port has CNP, PFC
 * and IB rx bytes only (no port rx bytes, as mlx5 in the demo). */
static struct fsc_rr_record short_rec(uint32_t key, int m)
{
    struct fsc_rr_record r;
    memset(&r, 0, sizeof(r));
    r.key = key;
    r.minute_s = D1 + m * 60;
    r.type = FSC_RR_PORT;
    uint32_t ms = m < 2 ? 60000 : 30000;
    struct fsc_rr_dir *tx = &r.port.dir[FSC_RR_TX];
    switch (key) {
    case 0:
    case 1:
        r.flags = FSC_RR_F_TX | (key == 0 || m == 2 ? FSC_RR_F_COVERED : 0);
        tx->covered_ms = ms;
        tx->util[2] = ms / 100; /* one fine interval per 100 ms, in (0.2, 0.3] */
        tx->max_fine = 0.5f;
        tx->max_1s = 0.25f;
        tx->bytes = 10e9 * ms / 1000; /* 20 % of 400G: 10 GB/s */
        if (key == 0) {
            tx->bursts = m < 2 ? 2 : 1;
            tx->dur[2] = tx->bursts; /* le 10 ms */
            tx->dur_sum = 0.01f * (float)tx->bursts;
        }
        break;
    default:
        r.flags = FSC_RR_F_CNP | FSC_RR_F_PFC | FSC_RR_F_IB_RX | FSC_RR_F_COVERED;
        r.port.cnp = 1000;
        r.port.pfc_pause_s = 0.6;
        r.port.ib_rx_bytes = 1e12;
        r.port.counters_ms = ms;
        break;
    }
    return r;
}

static void seed_short(char *store, size_t size)
{
    char err[256] = "";
    snprintf(dir, sizeof(dir), "/tmp/fsc_report_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(store, size, "%s/rollup", dir);
    CHECK_INT(mkdir(store, 0700), 0);
    struct fsc_rollup_store *st =
        fsc_rollup_store_open(store, 3650LL * 86400, 1ull << 30, D1 + 180, err, sizeof(err));
    CHECK(st != NULL);
    if (!st)
        return;
    struct fsc_rr_name names[3] = {
        name_of(FSC_RR_NAME_PORT, "leaf1", "up1", FSC_PORT_UPLINK),
        name_of(FSC_RR_NAME_PORT, "leaf1", "up2", FSC_PORT_UPLINK),
        name_of(FSC_RR_NAME_PORT, "b300-1", "mlx5_0", FSC_PORT_NIC),
    };
    for (uint32_t k = 0; k < 3; k++)
        CHECK_INT(fsc_rollup_store_define(st, k, &names[k]), 0);
    for (int m = 0; m < 3; m++) {
        struct fsc_rr_record recs[3];
        for (uint32_t k = 0; k < 3; k++)
            recs[k] = short_rec(k, m);
        CHECK_INT(fsc_rollup_store_append(st, recs, 3, D1 + 180), 0);
    }
    fsc_rollup_store_close(st);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0;
    if (f) {
        if (getdelim(&text, &cap, '\0', f) < 0) {
            free(text);
            text = NULL;
        }
        fclose(f);
    }
    CHECK(text != NULL);
    return text;
}

/* `fabricscope report` over [D1, D1 + 24 h) with 150 s of data: rates over
 * the 150 s (the old division by the range gave 5 / 24 h = 0.208 bursts per
 * hour and a mean of 0.2 x 150 / 86400 = 0.000347), the covered time in
 * every file, and the stdout line. */
static void short_range_covered_time(void)
{
    char store[128], out[160], from[32], to[32];
    seed_short(store, sizeof(store));
    snprintf(out, sizeof(out), "%s/out", dir);
    snprintf(from, sizeof(from), "%lld", (long long)D1);
    snprintf(to, sizeof(to), "%lld", (long long)(D1 + 86400));
    char *argv[] = {"report", "--state-dir", dir, "--out", out, "--from", from, "--to", to, NULL};
    char path[256];
    snprintf(path, sizeof(path), "%s/stdout.txt", dir);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *cap = fopen(path, "w");
    CHECK(cap != NULL && saved >= 0);
    if (!cap || saved < 0)
        return;
    dup2(fileno(cap), STDOUT_FILENO);
    int status = fsc_report_main(9, argv, fsc_app_schema());
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    fclose(cap);
    CHECK_INT(status, 0);

    char *said = slurp(path);
    snprintf(path, sizeof(path), "%s/report.csv", out);
    char *csv = slurp(path);
    snprintf(path, sizeof(path), "%s/report.json", out);
    char *json = slurp(path);
    snprintf(path, sizeof(path), "%s/report.html", out);
    char *html = slurp(path);
    if (said && csv && json && html) {
        struct stat sb;
        char want[1024];
        /* sizes as written; rows: links 2, bursts 2, congestion 1,
         * imbalance 1, oversubscription 1, spine_share 2 = 9 */
        long sz[3];
        const char *files[3] = {"report.html", "report.csv", "report.json"};
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof(path), "%s/%s", out, files[k]);
            sz[k] = stat(path, &sb) == 0 ? (long)sb.st_size : -1;
        }
        snprintf(want, sizeof(want),
                 "fabricscope report: wrote %s/report.html (%ld bytes), %s/report.csv (%ld bytes, "
                 "9 rows in 9 tables), %s/report.json (%ld bytes); 2 link directions, data "
                 "covering 2m30s of the 1d range\n",
                 out, sz[0], out, sz[1], out, sz[2]);
        CHECK_STR(said, want);
        /* 150 s: 60 + 60 + 30, and up2's flagless minutes read as whole */
        check_line(csv, "# covered: 150 s of the range's 86400 s had data");
        /* mean = 1.5e12 B x 8 / (150 s x 400G) = 0.2, also the one 5 min
         * block's average; p50 = 0.2 + 0.1 x 0.5, p99 = 0.2 + 0.1 x 0.99 */
        check_line(csv, "links,leaf1,up1,tx,uplink,,400000000000,1500,0.25,0.299,0.5,0.25,0.2,0.2,"
                        "1500000000000,150");
        check_line(csv, "links,leaf1,up2,tx,uplink,,400000000000,1500,0.25,0.299,0.5,0.25,0.2,0.2,"
                        "1500000000000,150");
        /* 5 bursts in 150 s = 120 per hour; mean 10 ms */
        check_line(csv, "bursts,leaf1,up1,tx,5,0,120,10,0,0,5,0,0,0,0,0,0,0,150");
        /* CNP per TB from the IB bytes: 3000 / 3 TB; PFC 1.8 s of the
         * counters' 150 s */
        check_line(csv, "congestion,b300-1,mlx5_0,3000000000000,3000,1000,1.8,0.012,ib,150");
        /* uplink mean over the uplinks' covered time: 3e12 x 8 / (2 x 400G
         * x 150 s) = 0.2 */
        check_line(csv, "imbalance,leaf1,2,3000000000000,1,0.2,150");
        check_line(csv, "# summary: 5 microbursts (120 per hour); 3000 CNPs sent, 1000 per TB "
                        "received; 1.8 s of PFC pause.");
        CHECK(strstr(csv, "the data covers 2m30s of the 1d range (0.174%)") != NULL);
        CHECK(strstr(json, "\"covered_seconds\": 150,") != NULL);
        CHECK(strstr(json, "\"mean\": 0.2, \"bytes\": 1500000000000, \"covered_s\": 150}") != NULL);
        CHECK(strstr(html, "<span id=\"covered\">data covers 2m30s of 1d</span>") != NULL);
        /* speeds for people: the links' 400G and the leaf's 800G of uplinks */
        CHECK(strstr(html, "<td>400G</td>") != NULL);
        CHECK(strstr(html, "<td>800G</td>") != NULL);
        CHECK(strstr(html, "400000000000") == NULL);
    }
    free(said);
    free(csv);
    free(json);
    free(html);
    rm_tmp();
}

static void speed_and_duration_text(void)
{
    char b[32];
    CHECK_STR(fsc_report_speed(400e9, b, sizeof(b)), "400G");
    CHECK_STR(fsc_report_speed(1.6e12, b, sizeof(b)), "1.6T");
    CHECK_STR(fsc_report_speed(25e9, b, sizeof(b)), "25G");
    CHECK_STR(fsc_report_speed(100e6, b, sizeof(b)), "100M");
    CHECK_STR(fsc_report_speed(0, b, sizeof(b)), "");
    CHECK_STR(fsc_report_speed(NAN, b, sizeof(b)), "");
    CHECK_STR(fsc_report_duration(150, b, sizeof(b)), "2m30s");
    CHECK_STR(fsc_report_duration(86400, b, sizeof(b)), "1d");
    CHECK_STR(fsc_report_duration(93600, b, sizeof(b)), "1d2h");
    CHECK_STR(fsc_report_duration(12.5, b, sizeof(b)), "12.5s");
}

TEST_MAIN(TEST(csv_tables_exact), TEST(json_tables_exact), TEST(quantile_rules),
          TEST(empty_range_and_no_store), TEST(html_chromium), TEST(short_range_covered_time),
          TEST(speed_and_duration_text))
