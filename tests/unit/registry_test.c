/* Series registry: identity, sharing, limits, validation, scale, threads. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "test.h"
#include "model/registry.h"

static struct fsc_registry *make(uint32_t total, uint16_t *src, uint32_t src_limit)
{
    struct fsc_registry *reg = fsc_registry_create(total);
    CHECK(reg != NULL);
    CHECK_INT(fsc_registry_source_add(reg, "leaf1", src_limit, src), 0);
    return reg;
}

static void intern_same_id_any_label_order(void)
{
    uint16_t src, src2;
    struct fsc_registry *reg = make(1000, &src, 0);
    CHECK_INT(fsc_registry_source_add(reg, "leaf2", 0, &src2), 0);
    CHECK_INT(src, 0);
    CHECK_INT(src2, 1);

    struct fsc_label abc[] = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
    struct fsc_label cab[] = {{"c", "3"}, {"a", "1"}, {"b", "2"}};
    struct fsc_label bca[] = {{"b", "2"}, {"c", "3"}, {"a", "1"}};
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", abc, 3), 0);
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", cab, 3), 0);
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", bca, 3), 0);

    /* One value differs, the metric differs, the source differs: new ids. */
    struct fsc_label abx[] = {{"b", "2"}, {"a", "1"}, {"c", "x"}};
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", abx, 3), 1);
    CHECK_INT(fsc_registry_intern(reg, src, "n_total", abc, 3), 2);
    CHECK_INT(fsc_registry_intern(reg, src2, "m_total", cab, 3), 3);
    /* A label subset is another series. */
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", abc, 2), 4);
    /* An empty value is an absent label (Prometheus semantics). */
    struct fsc_label ab_empty[] = {{"z", ""}, {"b", "2"}, {"a", "1"}};
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", ab_empty, 3), 4);
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", NULL, 0), 5);
    CHECK_INT(fsc_registry_intern(reg, src, "m_total", NULL, 0), 5);
    CHECK_INT(fsc_registry_count(reg), 6);

    /* Round trip: names back, labels sorted by name. */
    struct fsc_label out[4];
    CHECK_STR(fsc_registry_metric(reg, 1), "m_total");
    CHECK_INT(fsc_registry_labels(reg, 1, out, 4), 3);
    CHECK_STR(out[0].name, "a");
    CHECK_STR(out[0].value, "1");
    CHECK_STR(out[1].name, "b");
    CHECK_STR(out[1].value, "2");
    CHECK_STR(out[2].name, "c");
    CHECK_STR(out[2].value, "x");
    CHECK_INT(fsc_registry_labels(reg, 4, out, 4), 2);
    CHECK_INT(fsc_registry_labels(reg, 5, out, 4), 0);
    /* Truncated copy still reports the full count. */
    struct fsc_label one[1];
    CHECK_INT(fsc_registry_labels(reg, 0, one, 1), 3);
    CHECK_STR(one[0].name, "a");
    CHECK_INT(fsc_registry_source_of(reg, 3), src2);
    CHECK_INT(fsc_registry_source_of(reg, 2), src);

    /* Unknown ids. */
    CHECK(fsc_registry_metric(reg, 6) == NULL);
    CHECK(fsc_registry_metric(reg, FSC_SERIES_NONE) == NULL);
    CHECK_INT(fsc_registry_labels(reg, 6, out, 4), 0);
    CHECK_INT(fsc_registry_source_of(reg, 6), UINT16_MAX);

    /* Source bookkeeping. */
    struct fsc_registry_source_stats st;
    CHECK_INT(fsc_registry_source_stats(reg, src, &st), 0);
    CHECK_STR(st.name, "leaf1");
    CHECK_INT(st.series, 5);
    CHECK_INT(st.dropped, 0);
    CHECK_INT(st.rejected, 0);
    CHECK_INT(fsc_registry_source_stats(reg, 7, &st), -ENOENT);
    CHECK_INT(fsc_registry_source_add(reg, "leaf1", 0, &src2), -EEXIST);
    CHECK_INT(fsc_registry_source_add(reg, "", 0, &src2), -EINVAL);
    CHECK_INT(fsc_registry_source_count(reg), 2);
    fsc_registry_destroy(reg);
    fsc_registry_destroy(NULL);
}

static void labelsets_shared(void)
{
    uint16_t src;
    struct fsc_registry *reg = make(1000, &src, 0);
    static const char *const metrics[] = {
        "fabric_port_rx_bytes_total", "fabric_port_tx_bytes_total", "fabric_port_rx_packets_total"};
    struct fsc_label port1[] = {{"device", "leaf1"}, {"port", "et-0/0/1"}};
    struct fsc_label port2[] = {{"port", "et-0/0/2"}, {"device", "leaf1"}};
    fsc_series_id a[3], b[3];
    for (int m = 0; m < 3; m++) {
        a[m] = fsc_registry_intern(reg, src, metrics[m], port1, 2);
        b[m] = fsc_registry_intern(reg, src, metrics[m], port2, 2);
    }
    /* Same label set -> the very same interned strings; same metric name ->
     * the same pointer (sinks group families by pointer). */
    struct fsc_label la[2], lb[2];
    for (int m = 0; m < 3; m++) {
        CHECK_INT(fsc_registry_labels(reg, a[m], la, 2), 2);
        CHECK_INT(fsc_registry_labels(reg, a[0], lb, 2), 2);
        CHECK(la[0].name == lb[0].name && la[0].value == lb[0].value);
        CHECK(la[1].name == lb[1].name && la[1].value == lb[1].value);
        CHECK_INT(fsc_registry_labels(reg, b[m], lb, 2), 2);
        CHECK(la[0].name == lb[0].name);   /* "device" */
        CHECK(la[0].value == lb[0].value); /* "leaf1" shared across ports */
        CHECK(la[1].name == lb[1].name);   /* "port" */
        CHECK(la[1].value != lb[1].value);
        CHECK_STR(lb[1].value, "et-0/0/2");
        CHECK(fsc_registry_metric(reg, a[m]) == fsc_registry_metric(reg, b[m]));
    }
    CHECK(fsc_registry_metric(reg, a[0]) != fsc_registry_metric(reg, a[1]));

    /* A label value equal to a metric name shares its storage too. */
    struct fsc_label odd[] = {{"device", "fabric_port_rx_bytes_total"}};
    fsc_series_id o = fsc_registry_intern(reg, src, "x", odd, 1);
    CHECK_INT(fsc_registry_labels(reg, o, la, 2), 1);
    CHECK(la[0].value == fsc_registry_metric(reg, a[0]));
    fsc_registry_destroy(reg);
}

static void source_limit_counts_drops(void)
{
    uint16_t a, b;
    struct fsc_registry *reg = make(1000, &a, 3);
    CHECK_INT(fsc_registry_source_add(reg, "leaf2", 0, &b), 0);
    char name[32];
    fsc_series_id ids[5];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "m%d", i);
        ids[i] = fsc_registry_intern(reg, a, name, NULL, 0);
    }
    CHECK_INT(ids[0], 0);
    CHECK_INT(ids[1], 1);
    CHECK_INT(ids[2], 2);
    CHECK_INT(ids[3], FSC_SERIES_NONE);
    CHECK_INT(ids[4], FSC_SERIES_NONE);
    /* Existing series still resolve at the limit. */
    CHECK_INT(fsc_registry_intern(reg, a, "m1", NULL, 0), 1);
    /* The other source is not affected. */
    CHECK_INT(fsc_registry_intern(reg, b, "m3", NULL, 0), 3);

    struct fsc_registry_source_stats st;
    CHECK_INT(fsc_registry_source_stats(reg, a, &st), 0);
    CHECK_INT(st.series, 3);
    CHECK_INT(st.limit, 3);
    CHECK_INT(st.dropped, 2);
    CHECK_INT(st.rejected, 0);
    CHECK_INT(st.alloc_failed, 0);
    CHECK_INT(fsc_registry_source_stats(reg, b, &st), 0);
    CHECK_INT(st.series, 1);
    CHECK_INT(st.dropped, 0);
    CHECK_INT(fsc_registry_count(reg), 4);
    fsc_registry_destroy(reg);
}

static void total_limit(void)
{
    CHECK(fsc_registry_create(0) == NULL);
    CHECK(fsc_registry_create(FSC_REGISTRY_MAX_TOTAL + 1) == NULL);
    uint16_t a, b;
    struct fsc_registry *reg = make(5, &a, 0);
    CHECK_INT(fsc_registry_source_add(reg, "leaf2", 100, &b), 0);
    char name[32];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "a%d", i);
        CHECK_INT(fsc_registry_intern(reg, a, name, NULL, 0), i);
    }
    CHECK_INT(fsc_registry_intern(reg, b, "b0", NULL, 0), 3);
    CHECK_INT(fsc_registry_intern(reg, b, "b1", NULL, 0), 4);
    CHECK_INT(fsc_registry_intern(reg, b, "b2", NULL, 0), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_intern(reg, a, "a3", NULL, 0), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_intern(reg, b, "b1", NULL, 0), 4);
    CHECK_INT(fsc_registry_count(reg), 5);
    struct fsc_registry_source_stats st;
    fsc_registry_source_stats(reg, a, &st);
    CHECK_INT(st.dropped, 1);
    CHECK_INT(st.series, 3);
    fsc_registry_source_stats(reg, b, &st);
    CHECK_INT(st.dropped, 1);
    CHECK_INT(st.series, 2);
    fsc_registry_destroy(reg);
}

static void invalid_names_rejected(void)
{
    uint16_t src;
    struct fsc_registry *reg = make(1000, &src, 0);
    char long_name[FSC_REGISTRY_NAME_MAX + 2];
    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0'; /* 256 bytes: one too many */
    char long_value[FSC_REGISTRY_VALUE_MAX + 2];
    memset(long_value, 'v', sizeof(long_value) - 1);
    long_value[sizeof(long_value) - 1] = '\0'; /* 257 bytes */
    char max_value[FSC_REGISTRY_VALUE_MAX + 1];
    memset(max_value, 'v', sizeof(max_value) - 1);
    max_value[sizeof(max_value) - 1] = '\0'; /* exactly 256: fine */

    struct bad {
        const char *metric;
        const char *lname, *lvalue;
    } bad[] = {
        {"", NULL, NULL},
        {"1abc", NULL, NULL},
        {"a-b", NULL, NULL},
        {"a b", NULL, NULL},
        {"caf\xc3\xa9", NULL, NULL},
        {NULL, NULL, NULL},
        {long_name, NULL, NULL},
        {"m", "__name__", "x"},
        {"m", "1a", "x"},
        {"m", "a.b", "x"},
        {"m", "", "x"},
        {"m", "a:b", "x"},
        {"m", "a", long_value},
        {"m", "a", "\xff"},
        {"m", "a", "\xc0\xaf"},
        {"m", "a", "\xed\xa0\x80"},
        {"m", "a", "\xf4\x90\x80\x80"},
        {"m", "a", "ab\xe2\x82"},
        {"m", long_name, "x"},
    };
    size_t nbad = sizeof(bad) / sizeof(bad[0]);
    for (size_t i = 0; i < nbad; i++) {
        struct fsc_label l = {bad[i].lname, bad[i].lvalue};
        fsc_series_id id = fsc_registry_intern(reg, src, bad[i].metric, bad[i].lname ? &l : NULL,
                                               bad[i].lname ? 1 : 0);
        if (id != FSC_SERIES_NONE)
            fprintf(stderr, "bad case %zu was accepted\n", i);
        CHECK_INT(id, FSC_SERIES_NONE);
    }
    /* Structural errors. */
    struct fsc_label dup[] = {{"a", "1"}, {"b", "2"}, {"a", "3"}};
    CHECK_INT(fsc_registry_intern(reg, src, "m", dup, 3), FSC_SERIES_NONE);
    struct fsc_label dup_empty[] = {{"a", ""}, {"a", "3"}};
    CHECK_INT(fsc_registry_intern(reg, src, "m", dup_empty, 2), FSC_SERIES_NONE);
    struct fsc_label null_value[] = {{"a", NULL}};
    CHECK_INT(fsc_registry_intern(reg, src, "m", null_value, 1), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_intern(reg, src, "m", NULL, 2), FSC_SERIES_NONE);
    struct fsc_label many[FSC_REGISTRY_MAX_LABELS + 1];
    char names[FSC_REGISTRY_MAX_LABELS + 1][16];
    for (int i = 0; i <= FSC_REGISTRY_MAX_LABELS; i++) {
        snprintf(names[i], sizeof(names[i]), "l%02d", i);
        many[i].name = names[i];
        many[i].value = "v";
    }
    CHECK_INT(fsc_registry_intern(reg, src, "m", many, FSC_REGISTRY_MAX_LABELS + 1),
              FSC_SERIES_NONE);
    size_t nrejected = nbad + 5;

    struct fsc_registry_source_stats st;
    fsc_registry_source_stats(reg, src, &st);
    CHECK_INT(st.rejected, nrejected);
    CHECK_INT(st.series, 0);
    CHECK_INT(fsc_registry_count(reg), 0);

    /* An unknown source is refused without touching any counter. */
    CHECK_INT(fsc_registry_intern(reg, 9, "m", NULL, 0), FSC_SERIES_NONE);
    fsc_registry_source_stats(reg, src, &st);
    CHECK_INT(st.rejected, nrejected);

    /* Edges that are valid. */
    CHECK_INT(fsc_registry_intern(reg, src, "m", many, FSC_REGISTRY_MAX_LABELS), 0);
    struct fsc_label ok1[] = {{"a", max_value}, {"_b", "\xc2\xb5s \xf0\x9f\x98\x80"}};
    CHECK_INT(fsc_registry_intern(reg, src, ":a_1:b", ok1, 2), 1);
    long_name[FSC_REGISTRY_NAME_MAX] = '\0'; /* 255 bytes: the maximum */
    CHECK_INT(fsc_registry_intern(reg, src, long_name, NULL, 0), 2);
    struct fsc_label out[2];
    CHECK_INT(fsc_registry_labels(reg, 1, out, 2), 2);
    CHECK_STR(out[0].name, "_b");
    CHECK_STR(out[1].value, max_value);
    fsc_registry_source_stats(reg, src, &st);
    CHECK_INT(st.rejected, nrejected);
    CHECK_INT(st.series, 3);
    fsc_registry_destroy(reg);
}

static void lookup_never_creates(void)
{
    uint16_t src;
    struct fsc_registry *reg = make(1000, &src, 0);
    struct fsc_label l[] = {{"port", "swp1"}, {"device", "spine1"}};
    struct fsc_label r[] = {{"device", "spine1"}, {"port", "swp1"}};
    size_t mem0 = fsc_registry_memory_bytes(reg);
    CHECK_INT(fsc_registry_lookup(reg, src, "m_total", l, 2), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_count(reg), 0);
    CHECK_INT(fsc_registry_memory_bytes(reg), mem0);
    fsc_series_id id = fsc_registry_intern(reg, src, "m_total", l, 2);
    CHECK_INT(id, 0);
    CHECK_INT(fsc_registry_lookup(reg, src, "m_total", r, 2), 0);
    size_t mem1 = fsc_registry_memory_bytes(reg);
    CHECK(mem1 > mem0);
    CHECK_INT(fsc_registry_lookup(reg, src, "m2_total", r, 2), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_lookup(reg, src, "bad name", r, 2), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_lookup(reg, 5, "m_total", r, 2), FSC_SERIES_NONE);
    CHECK_INT(fsc_registry_count(reg), 1);
    CHECK_INT(fsc_registry_memory_bytes(reg), mem1);
    struct fsc_registry_source_stats st;
    fsc_registry_source_stats(reg, src, &st);
    CHECK_INT(st.rejected, 0); /* lookups count nothing */
    CHECK_INT(st.series, 1);
    fsc_registry_destroy(reg);
}

/* 50 k ports x 20 metrics = 1 M series, labels device/port/role. */
#define PORTS   50000
#define METRICS 20

static void port_labels(int p, char *dev, char *port, struct fsc_label *l)
{
    snprintf(dev, 16, "leaf%04d", p / 64);
    snprintf(port, 24, "et-0/0/%d", p % 64);
    l[0] = (struct fsc_label){"device", dev};
    l[1] = (struct fsc_label){"port", port};
    l[2] = (struct fsc_label){"role", p % 64 < 32 ? "downlink" : "uplink"};
}

static void many_series_memory(void)
{
    uint16_t src;
    struct fsc_registry *reg = make(2000000, &src, 0);
    char metrics[METRICS][48];
    for (int m = 0; m < METRICS; m++)
        snprintf(metrics[m], sizeof(metrics[m]), "fabric_port_counter_%02d_total", m);
    char dev[16], port[24];
    struct fsc_label l[3];
    uint32_t wrong = 0;
    for (int p = 0; p < PORTS; p++) {
        port_labels(p, dev, port, l);
        for (int m = 0; m < METRICS; m++) {
            fsc_series_id id = fsc_registry_intern(reg, src, metrics[m], l, 3);
            if (id != (fsc_series_id)(p * METRICS + m))
                wrong++;
        }
    }
    CHECK_INT(wrong, 0); /* dense, in creation order */
    CHECK_INT(fsc_registry_count(reg), PORTS * METRICS);

    /* Round trip for a sample spread over all chunks. */
    uint32_t bad = 0;
    for (uint32_t id = 7; id < PORTS * METRICS; id += 997) {
        int p = (int)(id / METRICS), m = (int)(id % METRICS);
        port_labels(p, dev, port, l);
        struct fsc_label out[4];
        const char *metric = fsc_registry_metric(reg, id);
        if (metric == NULL || strcmp(metric, metrics[m]) != 0)
            bad++;
        if (fsc_registry_labels(reg, id, out, 4) != 3)
            bad++;
        else if (strcmp(out[0].value, dev) != 0 || strcmp(out[1].value, port) != 0 ||
                 strcmp(out[2].value, l[2].value) != 0 || strcmp(out[2].name, "role") != 0)
            bad++;
        if (fsc_registry_intern(reg, src, metrics[m], l, 3) != id)
            bad++;
    }
    CHECK_INT(bad, 0);

    size_t mem = fsc_registry_memory_bytes(reg);
    double per = (double)mem / (PORTS * METRICS);
    printf("many_series_memory: %u series, %zu bytes, %.1f bytes/series\n", fsc_registry_count(reg),
           mem, per);
    CHECK(per <= 64.0);
    /* Re-interning existing series allocates nothing. */
    port_labels(123, dev, port, l);
    CHECK_INT(fsc_registry_intern(reg, src, metrics[5], l, 3), 123 * METRICS + 5);
    CHECK_INT(fsc_registry_memory_bytes(reg), mem);
    fsc_registry_destroy(reg);
}

/* Two writers intern the same N series in opposite orders while a reader
 * checks every entry it can see. Series k: metric "m<k % 50>", labels
 * key="<k>", port="p<k / 50>"; an entry is consistent when the three agree. */
#define CONC_N 20000

struct conc {
    struct fsc_registry *reg;
    uint16_t src;
    fsc_series_id ids[2][CONC_N];
    atomic_int writers_done;
    uint64_t reads, errors;
};

struct writer_arg {
    struct conc *c;
    int which;
};

static fsc_series_id conc_intern(struct conc *c, int k)
{
    char metric[16], key[16], port[16];
    snprintf(metric, sizeof(metric), "m%d", k % 50);
    snprintf(key, sizeof(key), "%d", k);
    snprintf(port, sizeof(port), "p%d", k / 50);
    struct fsc_label l[] = {{"port", port}, {"key", key}};
    return fsc_registry_intern(c->reg, c->src, metric, l, 2);
}

static void *conc_writer(void *arg)
{
    struct writer_arg *w = arg;
    for (int i = 0; i < CONC_N; i++) {
        int k = w->which == 0 ? i : CONC_N - 1 - i;
        w->c->ids[w->which][k] = conc_intern(w->c, k);
    }
    atomic_fetch_add(&w->c->writers_done, 1);
    return NULL;
}

static void *conc_reader(void *arg)
{
    struct conc *c = arg;
    /* Bounded: stops when both writers are done, or after a fixed budget. */
    for (uint64_t it = 0; it < 50000000 && atomic_load(&c->writers_done) < 2; it++) {
        uint32_t n = fsc_registry_count(c->reg);
        if (n == 0)
            continue;
        fsc_series_id id = (fsc_series_id)((it * 7919) % n);
        const char *metric = fsc_registry_metric(c->reg, id);
        struct fsc_label out[3];
        size_t nl = fsc_registry_labels(c->reg, id, out, 3);
        c->reads++;
        int m, key, port;
        if (metric == NULL || nl != 2 || strcmp(out[0].name, "key") != 0 ||
            strcmp(out[1].name, "port") != 0 || sscanf(metric, "m%d", &m) != 1 ||
            sscanf(out[0].value, "%d", &key) != 1 || sscanf(out[1].value, "p%d", &port) != 1 ||
            key % 50 != m || key / 50 != port || fsc_registry_source_of(c->reg, id) != c->src)
            c->errors++;
    }
    return NULL;
}

static void concurrent_intern(void)
{
    static struct conc c; /* large: keep it off the thread stack */
    memset(&c, 0, sizeof(c));
    c.reg = make(CONC_N, &c.src, 0);
    atomic_init(&c.writers_done, 0);
    struct writer_arg w0 = {&c, 0}, w1 = {&c, 1};
    pthread_t tw0, tw1, tr;
    CHECK_INT(pthread_create(&tr, NULL, conc_reader, &c), 0);
    CHECK_INT(pthread_create(&tw0, NULL, conc_writer, &w0), 0);
    CHECK_INT(pthread_create(&tw1, NULL, conc_writer, &w1), 0);
    pthread_join(tw0, NULL);
    pthread_join(tw1, NULL);
    pthread_join(tr, NULL);

    CHECK_INT(fsc_registry_count(c.reg), CONC_N);
    static unsigned char seen[CONC_N];
    memset(seen, 0, sizeof(seen));
    uint32_t mismatched = 0, out_of_range = 0, repeated = 0;
    for (int k = 0; k < CONC_N; k++) {
        if (c.ids[0][k] != c.ids[1][k])
            mismatched++;
        if (c.ids[0][k] >= CONC_N) {
            out_of_range++;
            continue;
        }
        if (seen[c.ids[0][k]]++)
            repeated++;
    }
    CHECK_INT(mismatched, 0);
    CHECK_INT(out_of_range, 0);
    CHECK_INT(repeated, 0); /* a bijection onto 0..N-1: dense ids */
    CHECK_INT(c.errors, 0);
    printf("concurrent_intern: reader checked %llu entries\n", (unsigned long long)c.reads);
    /* Every id maps back to its key. */
    uint32_t bad = 0;
    for (int k = 0; k < CONC_N; k += 37) {
        struct fsc_label out[2];
        fsc_registry_labels(c.reg, c.ids[0][k], out, 2);
        if (atoi(out[0].value) != k)
            bad++;
    }
    CHECK_INT(bad, 0);
    fsc_registry_destroy(c.reg);
}

TEST_MAIN(TEST(intern_same_id_any_label_order), TEST(labelsets_shared),
          TEST(source_limit_counts_drops), TEST(total_limit), TEST(invalid_names_rejected),
          TEST(lookup_never_creates), TEST(many_series_memory), TEST(concurrent_intern))
