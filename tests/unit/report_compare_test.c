/* `fabricscope report --compare` (collector/commands/report_compare*.c)
 * from a rollup store whose per-minute values come from formulas, two
 * ranges A and B of W = 63 minutes each (minutes 0..62 and 63..125 after
 * D0), i = the minute's index in its range, s(i) = 5 (i mod 21) - 50 (each
 * of -50, -45, ..., 50 three times):
 *
 * - CNP/s of rail 0 (gpu1 nic0 + gpu2 nic0, half each): A 1000 + s(i),
 *   B 1.3 (1000 + s(i)): p50 1000 / 1300, p99 and max 1050 / 1365, ratio
 *   1.3, every B minute above every A minute: B worse;
 * - CNP/s of host9 (no rail: its device names it): 10 + i in A, the same
 *   values in reverse minute order in B (distinct values: p50 41, p99
 *   10 + 61.38 = 71.38 by definition 7): same within noise;
 * - NIC tx throughput of rail 0: 2 x (100e9 + 1e9 (i mod 21 - 10)) in A,
 *   the same values in reverse minute order in B: same within noise;
 * - leaf1's uplinks up1 / up2 carry 1.2 / 0.8 x 100 Gb/s in A (max/mean
 *   1.2, CV 0.2) and 100 Gb/s each in B (1.0, 0): B better;
 * - the port group leaf1-uplinks (GROUP records): the engine's max/mean
 *   ratio 1.2 + s(i) / 1000 in A, 1.05 + s(i) / 1000 in B: B better;
 * - PFC pause of gpu1 nic0: (i mod 21) ms/s in A, (i mod 21) + 10 in B:
 *   overlapping samples, U counted pair by pair below;
 * - no microburst anywhere: 0 in both ranges, same.
 *
 * Expected statistics are computed here from the formulas (own sort and
 * quantile by Hyndman and Fan's definition 7), the U statistic by counting
 * pairs, not by ranks as the code does. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/report_compare.h"
#include "rollup/rollup_store.h"
#include "test.h"
#include "config_all.h"

#define D0 1700006400LL /* 2023-11-15T00:00:00Z */
#define W  63           /* minutes per range */

static char dir[64];

enum { K_GPU1, K_GPU2, K_HOST9, K_UP1, K_UP2, K_GROUP, K__N };

static double spread(int i)
{
    return 5.0 * (i % 21) - 50.0;
}

static double cnp_rail0(int range, int i)
{
    return range == 0 ? 1000 + spread(i) : 1.3 * (1000 + spread(i));
}

static double cnp_host9(int range, int i)
{
    return 10 + (range == 0 ? i : W - 1 - i);
}

static double tx_nic(int range, int i)
{
    int k = range == 0 ? i : W - 1 - i;
    return 100e9 + 1e9 * (k % 21 - 10);
}

static double group_ratio(int range, int i)
{
    return (range == 0 ? 1.2 : 1.05) + spread(i) / 1000;
}

static double pfc_ms(int range, int i)
{
    return (i % 21) + (range == 0 ? 0 : 10);
}

static struct fsc_rr_name name_of(const char *dev, const char *port, int rail, uint8_t role)
{
    struct fsc_rr_name n;
    memset(&n, 0, sizeof(n));
    n.kind = FSC_RR_NAME_PORT;
    n.role = role;
    n.rail = (int16_t)rail;
    n.speed_bps = 400000000000ull;
    snprintf(n.device, sizeof(n.device), "%s", dev);
    snprintf(n.port, sizeof(n.port), "%s", port);
    return n;
}

static struct fsc_rr_record rec_of(uint32_t key, int m)
{
    int range = m / W, i = m % W;
    struct fsc_rr_record r;
    memset(&r, 0, sizeof(r));
    r.type = FSC_RR_PORT;
    r.key = key;
    r.minute_s = D0 + m * 60;
    r.flags = FSC_RR_F_TX | FSC_RR_F_COVERED;
    r.port.counters_ms = 60000;
    struct fsc_rr_dir *tx = &r.port.dir[FSC_RR_TX];
    tx->covered_ms = 60000;
    switch (key) {
    case K_GPU1:
    case K_GPU2:
        r.flags |= FSC_RR_F_CNP | (key == K_GPU1 ? FSC_RR_F_PFC : 0);
        r.port.cnp = cnp_rail0(range, i) / 2 * 60;
        r.port.pfc_pause_s = pfc_ms(range, i) / 1000.0 * 60;
        tx->bytes = tx_nic(range, i) / 8 * 60;
        break;
    case K_HOST9:
        r.flags = FSC_RR_F_CNP | FSC_RR_F_COVERED;
        r.port.cnp = cnp_host9(range, i) * 60;
        break;
    case K_GROUP:
        r.type = FSC_RR_GROUP;
        r.flags = 0;
        r.group.ratio_mean = group_ratio(range, i);
        r.group.ratio_max = r.group.ratio_mean + 0.5;
        r.group.members = 2;
        r.group.polls = 60;
        break;
    case K_UP1:
    case K_UP2: {
        double bps = range == 0 ? (key == K_UP1 ? 1.2e11 : 0.8e11) : 1e11;
        tx->bytes = bps / 8 * 60;
        break;
    }
    }
    return r;
}

static void seed(void)
{
    char err[256] = "";
    snprintf(dir, sizeof(dir), "/tmp/fsc_compare_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    struct fsc_rollup_store *st =
        fsc_rollup_store_open(dir, 3650LL * 86400, 1ull << 30, D0 + 2 * W * 60, err, sizeof(err));
    CHECK(st != NULL);
    if (!st)
        return;
    struct fsc_rr_name names[K__N] = {
        name_of("gpu1", "nic0", 0, FSC_PORT_NIC),     name_of("gpu2", "nic0", 0, FSC_PORT_NIC),
        name_of("host9", "nic0", -1, FSC_PORT_NIC),   name_of("leaf1", "up1", -1, FSC_PORT_UPLINK),
        name_of("leaf1", "up2", -1, FSC_PORT_UPLINK), name_of("leaf1-uplinks", "", -1, 0),
    };
    names[K_GROUP].kind = FSC_RR_NAME_GROUP;
    for (uint32_t k = 0; k < K__N; k++)
        CHECK_INT(fsc_rollup_store_define(st, k, &names[k]), 0);
    for (int m = 0; m < 2 * W; m++) {
        struct fsc_rr_record recs[K__N];
        for (uint32_t k = 0; k < K__N; k++)
            recs[k] = rec_of(k, m);
        CHECK_INT(fsc_rollup_store_append(st, recs, K__N, D0 + 2 * W * 60), 0);
    }
    fsc_rollup_store_close(st);
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

/* Loads A = [D0, D0 + W min) and B = the next W minutes. */
static int load(struct fsc_compare *cmp)
{
    char err[512] = "";
    fsc_compare_init(cmp);
    CHECK_INT(fsc_compare_add_range(cmp, "A", D0, D0 + W * 60), 0);
    CHECK_INT(fsc_compare_add_range(cmp, "B", D0 + W * 60, D0 + 2 * W * 60), 0);
    int rc = fsc_compare_load_rollup(cmp, dir, err, sizeof(err));
    CHECK_INT(rc, 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    CHECK_INT(fsc_compare_compute(cmp), 0);
    return 0;
}

static const struct fsc_cmp_row *find(const struct fsc_compare *cmp, enum fsc_cmp_metric m,
                                      const char *entity)
{
    for (size_t i = 0; i < cmp->n_rows; i++)
        if (cmp->rows[i].metric == m && strcmp(cmp->rows[i].entity, entity) == 0)
            return &cmp->rows[i];
    fprintf(stderr, "no row %s %s\n", fsc_cmp_metric_name(m), entity);
    CHECK(0);
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Definition 7 on the formula's values (sorted here). */
static double expect_q(double *v, size_t n, double q)
{
    qsort(v, n, sizeof(*v), by_value);
    double h = (n - 1) * q;
    size_t lo = (size_t)h;
    return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

static void expect_stats(const struct fsc_cmp_stats *st, double (*f)(int, int), int range)
{
    double v[W];
    for (int i = 0; i < W; i++)
        v[i] = f(range, i);
    CHECK_INT(st->n, W);
    CHECK_REL(st->p50, expect_q(v, W, 0.5), 1e-9);
    CHECK_REL(st->p99, expect_q(v, W, 0.99), 1e-9);
    CHECK_REL(st->max, v[W - 1], 1e-9);
}

static void known_answers(void)
{
    seed();
    struct fsc_compare cmp;
    if (load(&cmp) == 0) {
        const struct fsc_cmp_row *cnp = find(&cmp, FSC_CMP_CNP, "rail 0");
        if (cnp) {
            expect_stats(&cnp->st[0], cnp_rail0, 0);
            expect_stats(&cnp->st[1], cnp_rail0, 1);
            /* by hand: 1000 / 1050 / 1050 and 1300 / 1365 / 1365 */
            CHECK_REL(cnp->st[0].p50, 1000, 1e-9);
            CHECK_REL(cnp->st[1].p99, 1365, 1e-9);
            CHECK_INT(cnp->n_tests, 1);
            CHECK_REL(cnp->tests[0].ratio_p50, 1.3, 0.05);
            CHECK_REL(cnp->tests[0].ratio_p50, 1.3, 1e-9);
            CHECK_INT(cnp->tests[0].verdict, FSC_CMP_WORSE);
            CHECK_REL(cnp->tests[0].u, W * W, 1e-12); /* every B minute above every A minute */
        }
        const struct fsc_cmp_row *host = find(&cmp, FSC_CMP_CNP, "host9");
        if (host) {
            expect_stats(&host->st[0], cnp_host9, 0);
            expect_stats(&host->st[1], cnp_host9, 1);
            CHECK_REL(host->st[1].p50, 41, 1e-12);
            CHECK_REL(host->st[1].p99, 71.38, 1e-9);
            CHECK_REL(host->tests[0].u, W * W / 2.0, 1e-12);
            CHECK_INT(host->tests[0].verdict, FSC_CMP_SAME);
        }
        const struct fsc_cmp_row *thr = find(&cmp, FSC_CMP_THROUGHPUT, "rail 0");
        if (thr) {
            CHECK_REL(thr->st[0].p50, 200e9, 1e-9);
            CHECK_REL(thr->st[1].p50, 200e9, 1e-9);
            CHECK_REL(thr->tests[0].u, W * W / 2.0, 1e-12);
            CHECK_INT(thr->tests[0].verdict, FSC_CMP_SAME);
        }
        const struct fsc_cmp_row *mm = find(&cmp, FSC_CMP_UPLINK_MAXMEAN, "leaf1");
        const struct fsc_cmp_row *cv = find(&cmp, FSC_CMP_UPLINK_CV, "leaf1");
        if (mm && cv) {
            CHECK_REL(mm->st[0].p50, 1.2, 1e-9);
            CHECK_REL(mm->st[1].max, 1.0, 1e-9);
            CHECK_REL(cv->st[0].p99, 0.2, 1e-9);
            CHECK_NEAR(cv->st[1].max, 0, 1e-9);
            CHECK_INT(mm->tests[0].verdict, FSC_CMP_BETTER);
            CHECK_INT(cv->tests[0].verdict, FSC_CMP_BETTER);
        }
        const struct fsc_cmp_row *grp = find(&cmp, FSC_CMP_GROUP_MAXMEAN, "leaf1-uplinks");
        if (grp) {
            expect_stats(&grp->st[0], group_ratio, 0);
            expect_stats(&grp->st[1], group_ratio, 1);
            CHECK_REL(grp->st[1].p50, 1.05, 1e-9);
            CHECK_REL(grp->tests[0].u, 0, 0); /* every B minute below every A minute */
            CHECK_INT(grp->tests[0].verdict, FSC_CMP_BETTER);
        }
        const struct fsc_cmp_row *bursts = find(&cmp, FSC_CMP_BURSTS, "leaf1");
        if (bursts) {
            CHECK_NEAR(bursts->st[0].max, 0, 0);
            CHECK_INT(bursts->tests[0].verdict, FSC_CMP_SAME);
        }
        const struct fsc_cmp_row *pfc = find(&cmp, FSC_CMP_PFC, "rail 0");
        if (pfc) {
            expect_stats(&pfc->st[0], pfc_ms, 0);
            expect_stats(&pfc->st[1], pfc_ms, 1);
        }
        /* the text table: the figures above and the verdict words */
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        CHECK_INT(fsc_compare_write_text(&cmp, f), 0);
        fclose(f);
        CHECK(strstr(text, "rail 0               A                     63         1000         "
                           "1050         1050         1000\n") != NULL);
        CHECK(strstr(text, "                     B                     63         1300         "
                           "1365         1365         1300\n") != NULL);
        CHECK(strstr(text, "B vs A: worse (p50 x1.300; U=3969 ") != NULL);
        CHECK(strstr(text, "B vs A: better (p50 x0.833; ") != NULL);
        CHECK(strstr(text, "B vs A: same within noise (p50 x1.000; U=1984.5 z=0 p=1)") != NULL);
        CHECK(strstr(text, "ECN marks/s") != NULL);
        CHECK(strstr(text, "reorder / out-of-sequence per NIC") != NULL);
        if (test_failures)
            fputs(text, stderr);
        free(text);
    }
    fsc_compare_fini(&cmp);
    rm_tmp();
}

/* PFC's overlapping samples: U counted pair by pair, z from the tie
 * groups of the formula's values, against the code's rank sums. */
static void mann_whitney_by_hand(void)
{
    double a[W], b[W];
    double u = 0;
    for (int i = 0; i < W; i++) {
        a[i] = pfc_ms(0, i);
        b[i] = pfc_ms(1, i);
    }
    for (int i = 0; i < W; i++)
        for (int j = 0; j < W; j++)
            u += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
    /* tie groups: values 0..9 and 21..30 three times, 10..20 six times */
    double ties = 20 * (27.0 - 3) + 11 * (216.0 - 6), n = 2 * W;
    double var = W * W / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    double z = (u - W * W / 2.0 - 0.5) / sqrt(var);
    double got_u, got_z, got_p;
    CHECK_INT(fsc_cmp_mann_whitney(a, W, b, W, &got_u, &got_z, &got_p), 0);
    /* by hand: each pair of values v (B, 10..30) and w (A, 0..20) stands
     * for 3 x 3 minute pairs; v > w in 10 + 11 + ... + 20 = 165 pairs of
     * values for v <= 20 and 21 x 10 = 210 for v > 20, v == w in 11:
     * U = 9 x (375 + 11 / 2) = 3424.5 */
    CHECK_REL(got_u, u, 1e-12);
    CHECK_REL(got_u, 3424.5, 1e-12);
    CHECK_REL(got_z, z, 1e-9);
    CHECK_REL(got_p, erfc(fabs(z) / sqrt(2.0)), 1e-9);
    CHECK(got_p < FSC_CMP_ALPHA);
    /* swapped: U of A is W^2 - U, z the opposite sign */
    CHECK_INT(fsc_cmp_mann_whitney(b, W, a, W, &got_u, &got_z, &got_p), 0);
    CHECK_REL(got_u, W * W - u, 1e-12);
    CHECK_REL(got_z, -z, 1e-9);
    /* all equal: no variance, p = 1 */
    CHECK_INT(fsc_cmp_mann_whitney(a, 3, a, 3, &got_u, &got_z, &got_p), 0);
    CHECK_REL(got_p, 1, 0);
}

static void json_exact(void)
{
    seed();
    struct fsc_compare cmp;
    if (load(&cmp) == 0) {
        char *json = NULL;
        size_t len;
        FILE *f = open_memstream(&json, &len);
        CHECK_INT(fsc_compare_write_json(&cmp, f), 0);
        fclose(f);
        static const char *const want[] = {
            "\"format\": 1,",
            "\"dropped\": 0,",
            "\"test\": \"Mann-Whitney U, two-sided, 5 %, normal approximation\",",
            "{\"name\": \"A\", \"from\": \"2023-11-15T00:00:00Z\", \"to\": "
            "\"2023-11-15T01:03:00Z\", \"records\": 378}",
            "\"metric\": \"cnp_per_s\",",
            "\"entity\": \"rail 0\",",
            "{\"range\": \"A\", \"minutes\": 63, \"p50\": 1000, \"p99\": 1050, \"max\": 1050, "
            "\"mean\": 1000}",
            "{\"range\": \"B\", \"minutes\": 63, \"p50\": 1300, \"p99\": 1365, \"max\": 1365, "
            "\"mean\": 1300}",
            "\"verdict\": \"worse\"}",
            "\"verdict\": \"better\"}",
            "\"better\": \"higher\",",
            "\"ECN marks/s: the rollup store keeps CNPs sent",
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
            if (!strstr(json, want[i]))
                fprintf(stderr, "missing in JSON: %s\n", want[i]);
            CHECK(strstr(json, want[i]) != NULL);
        }
        if (test_failures)
            fputs(json, stderr);
        free(json);
    }
    fsc_compare_fini(&cmp);
    rm_tmp();
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static void html_bars(void)
{
    seed();
    struct fsc_compare cmp;
    if (load(&cmp) == 0) {
        char *html = NULL;
        size_t len;
        FILE *f = open_memstream(&html, &len);
        CHECK_INT(fsc_compare_write_html(&cmp, f), 0);
        fclose(f);
        /* rows: CNP rail 0 and host9, PFC rail 0, throughput rail 0, bursts
         * rail 0 and leaf1 (host9 has no byte series), uplink max/mean and
         * CV leaf1, the group leaf1-uplinks */
        CHECK_INT(cmp.n_rows, 9);
        CHECK_INT(count(html, "<svg class=\"bars\""), cmp.n_rows);
        CHECK_INT(count(html, "<rect class=\"bar\""), cmp.n_rows * 2 * 3);
        for (enum fsc_cmp_metric m = 0; m < FSC_CMP_METRICS; m++) {
            char want[64];
            snprintf(want, sizeof(want), "data-metric=\"%s\"", fsc_cmp_metric_name(m));
            CHECK(strstr(html, want) != NULL);
        }
        CHECK(strstr(html, "<script") == NULL);
        CHECK(strstr(html, "http") == NULL); /* nothing fetched */
        CHECK(strstr(html, "id=\"not-in-store\"") != NULL);
        free(html);
    }
    fsc_compare_fini(&cmp);
    rm_tmp();
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t cap = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (getdelim(&text, &cap, '\0', f) < 0) {
            free(text);
            text = NULL;
        }
        fclose(f);
    }
    return text;
}

/* compare.html rendered by headless Chromium: the charts are in the DOM
 * and the console stays silent (skipped, 77, without chromium). */
static void html_chromium(void)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0)
        test_skip("chromium (Debian package chromium)");
    seed();
    struct fsc_compare cmp;
    if (load(&cmp) == 0) {
        char path[128], dom[128], log[128], cmd[1024];
        snprintf(path, sizeof(path), "%s/compare.html", dir);
        snprintf(dom, sizeof(dom), "%s/dom.html", dir);
        snprintf(log, sizeof(log), "%s/chromium.log", dir);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            CHECK_INT(fsc_compare_write_html(&cmp, f), 0);
            fclose(f);
        }
        snprintf(cmd, sizeof(cmd),
                 "HOME=%s timeout 60 chromium --headless=new --no-sandbox --disable-gpu "
                 "--no-first-run --user-data-dir=%s/profile --enable-logging=stderr --v=0 "
                 "--dump-dom file://%s >%s 2>%s",
                 dir, dir, path, dom, log);
        CHECK_INT(system(cmd), 0);
        char *text = slurp(dom), *errs = slurp(log);
        CHECK(text && count(text, "<svg class=\"bars\"") == cmp.n_rows);
        CHECK(text && strstr(text, "data-metric=\"cnp_per_s\"") != NULL);
        if (errs && (strstr(errs, "CONSOLE") || strstr(errs, "Uncaught"))) {
            fprintf(stderr, "chromium console:\n%s\n", errs);
            CHECK(0);
        }
        free(text);
        free(errs);
    }
    fsc_compare_fini(&cmp);
    rm_tmp();
}

static void range_errors(void)
{
    seed();
    struct fsc_compare cmp;
    char err[512] = "";
    fsc_compare_init(&cmp);
    CHECK_INT(fsc_compare_add_range(&cmp, "A", D0, D0 + W * 60), 0);
    CHECK_INT(fsc_compare_add_range(&cmp, "A", D0, D0 + 60), -EINVAL);   /* duplicate */
    CHECK_INT(fsc_compare_add_range(&cmp, "x y", D0, D0 + 60), -EINVAL); /* bad name */
    CHECK_INT(fsc_compare_add_range(&cmp, "C", D0 + 60, D0), -EINVAL);
    CHECK_INT(fsc_compare_add_range(&cmp, "D", D0 + 1, D0 + 59), -EINVAL); /* no minute start */
    /* overlap is allowed; a range with no record is an error naming it */
    CHECK_INT(fsc_compare_add_range(&cmp, "overlap", D0 + 30 * 60, D0 + 90 * 60), 0);
    CHECK_INT(fsc_compare_add_range(&cmp, "later", D0 + 86400, D0 + 86400 + 3600), 0);
    CHECK_INT(fsc_compare_load_rollup(&cmp, dir, err, sizeof(err)), -ENODATA);
    CHECK(strstr(err, "range later (2023-11-16T00:00:00Z .. 2023-11-16T01:00:00Z) holds no "
                      "rollup record") != NULL);
    CHECK_INT(cmp.ranges[1].records, 60 * K__N);
    fsc_compare_fini(&cmp);
    /* the command: fewer than two ranges and a bad spec are usage errors */
    const char *one[] = {"A=2023-11-15..2023-11-16"};
    CHECK_INT(fsc_report_compare_main(one, 1, NULL, dir, NULL, NULL, D0), 2);
    const char *bad[] = {"A=2023-11-15", "B=1700006400..1700010000"};
    CHECK_INT(fsc_report_compare_main(bad, 2, NULL, dir, NULL, NULL, D0), 2);
    const char *fmt[] = {"A=1700006400..1700010180", "B=1700010180..1700013960"};
    CHECK_INT(fsc_report_compare_main(fmt, 2, "xml", dir, NULL, NULL, D0), 2);
    char out[96];
    snprintf(out, sizeof(out), "%s/out", dir);
    CHECK_INT(mkdir(out, 0755), 0);
    CHECK_INT(fsc_report_compare_main(fmt, 2, "csv", dir, NULL, out, D0), 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/compare.csv", out);
    struct stat sb;
    CHECK_INT(stat(path, &sb), 0);
    rm_tmp();
}

/* 200 devices' CNP rows fed directly: FSC_CMP_MAX_ROWS kept, the rest
 * counted as dropped, never written past the bound. */
static void row_bound(void)
{
    struct fsc_compare cmp;
    fsc_compare_init(&cmp);
    CHECK_INT(fsc_compare_add_range(&cmp, "A", D0, D0 + 600), 0);
    CHECK_INT(fsc_compare_add_range(&cmp, "B", D0 + 600, D0 + 1200), 0);
    for (int d = 0; d < 200; d++) {
        char dev[16];
        snprintf(dev, sizeof(dev), "host%03d", d);
        struct fsc_rr_name n = name_of(dev, "nic0", -1, FSC_PORT_NIC);
        struct fsc_rr_record r;
        memset(&r, 0, sizeof(r));
        r.type = FSC_RR_PORT;
        r.flags = FSC_RR_F_CNP | FSC_RR_F_COVERED;
        r.minute_s = D0 + 60;
        r.port.counters_ms = 60000;
        r.port.cnp = 60;
        CHECK_INT(fsc_compare_add_record(&cmp, &n, &r), 0);
    }
    CHECK_INT(cmp.n_rows, FSC_CMP_MAX_ROWS);
    CHECK_INT(cmp.dropped, 200 - FSC_CMP_MAX_ROWS);
    CHECK_INT(cmp.ranges[0].records, 200);
    CHECK_INT(cmp.ranges[1].records, 0);
    CHECK_INT(fsc_compare_compute(&cmp), 0);
    CHECK_INT(cmp.rows[0].st[0].n, 1);
    CHECK_REL(cmp.rows[0].st[0].p50, 1, 1e-12);
    CHECK_INT(cmp.rows[0].tests[0].verdict, FSC_CMP_TOO_FEW);
    fsc_compare_fini(&cmp);
}

static int run(int argc, const char **argv)
{
    return fsc_report_main(argc, (char **)argv, fsc_app_schema());
}

/* The options as `fabricscope report` takes them: --compare goes without
 * --from / --to, reads Prometheus with --prometheus (unreachable: exit 1),
 * --format only with --compare, and a good
 * command line writes DIR/compare.json. */
static void cli_options(void)
{
    seed();
    char sd[96], out[128], path[160];
    snprintf(sd, sizeof(sd), "%s/state", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    CHECK_INT(mkdir(sd, 0755), 0);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "mkdir %s/rollup && mv %s/*.fsr %s/rollup/", sd, dir, sd);
    CHECK_INT(system(cmd), 0);
    const char *a = "--compare=A=1700006400..1700010180", *b = "--compare=B=1700010180..1700013960";
    const char *with_from[] = {"report", a, b, "--from", "-1h", "--state-dir", sd};
    CHECK_INT(run(7, with_from), 2);
    /* Prometheus unreachable: a runtime failure, not a usage error */
    const char *with_prom[] = {"report", a, b, "--prometheus", "http://127.0.0.1:1"};
    CHECK_INT(run(5, with_prom), 1);
    const char *bad_source[] = {"report", a, b, "--source", "influx"};
    CHECK_INT(run(5, bad_source), 2);
    const char *url_rollup[] = {"report", a, b, "--source", "rollup", "--prometheus", "x"};
    CHECK_INT(run(7, url_rollup), 2);
    const char *format_alone[] = {"report", "--format", "json", "--state-dir", sd};
    CHECK_INT(run(5, format_alone), 2);
    const char *one[] = {"report", a, "--state-dir", sd};
    CHECK_INT(run(4, one), 2);
    const char *good[] = {"report", a, b, "--format", "json", "--state-dir", sd, "--out", out};
    CHECK_INT(run(9, good), 0);
    snprintf(path, sizeof(path), "%s/compare.json", out);
    struct stat sb;
    CHECK_INT(stat(path, &sb), 0);
    CHECK(sb.st_size > 1000);
    rm_tmp();
}

TEST_MAIN(TEST(known_answers), TEST(mann_whitney_by_hand), TEST(json_exact), TEST(html_bars),
          TEST(html_chromium), TEST(range_errors), TEST(cli_options), TEST(row_bound))
