/* The OTLP ingest's shard filter (collector/sources/otlp/map/otlp_ingest.c): with shard
 * 1 of 3 only points of devices whose hashmod is 1 produce samples; the
 * others are skipped (neither accepted nor rejected, so the sender sees full
 * success). Devices and their shards computed independently (python3
 * hashlib): leaf1 -> 1, spine1 -> 0, leaf9 -> 2, sw-042 -> 1. */
#include <stdio.h>
#include <string.h>

#include "model/registry.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "sources/otlp/transport/otlp_server.h"
#include "test.h"

#define T0 1764460800000000000LL

static size_t n_samples;

static void tap(void *arg, const struct fsc_sample *smp, size_t n)
{
    (void)arg;
    (void)smp;
    n_samples += n;
}

static struct fsc_otlp_str str(const char *s)
{
    return (struct fsc_otlp_str){s, (uint32_t)strlen(s)};
}

static struct fsc_otlp_attr as(const char *k, const char *v)
{
    return (struct fsc_otlp_attr){.key = str(k), .type = FSC_OTLP_VAL_STRING, .s = str(v)};
}

/* One request: for each host (NULL: a resource without host.name), one
 * gauge point per port. */
static struct fsc_otlp_ingest_result request(struct fsc_otlp_ingest *ing, const char *const *hosts,
                                             size_t n_hosts, unsigned ports)
{
    struct fsc_otlp_visitor v;
    struct fsc_otlp_metric m = {.name = str("nvswitch_interface_if_in_octets"),
                                .type = FSC_OTLP_GAUGE};
    fsc_otlp_ingest_begin(ing, T0 + 1, &v);
    for (size_t h = 0; h < n_hosts; h++) {
        struct fsc_otlp_attr r[1] = {as("host.name", hosts[h] ? hosts[h] : "")};
        v.resource(v.ctx, r, hosts[h] ? 1 : 0);
        v.metric(v.ctx, &m);
        for (unsigned k = 0; k < ports; k++) {
            char port[16];
            snprintf(port, sizeof(port), "swp%u", k + 1);
            struct fsc_otlp_attr a[1] = {as("interface", port)};
            struct fsc_otlp_point p = {.attrs = a,
                                       .n_attrs = 1,
                                       .time_ns = (uint64_t)T0,
                                       .value_kind = FSC_OTLP_VALUE_DOUBLE,
                                       .as_double = 1000.0 * (k + 1)};
            v.point(v.ctx, &p);
        }
    }
    struct fsc_otlp_ingest_result res;
    memset(&res, 0, sizeof(res));
    CHECK_INT(fsc_otlp_ingest_end(ing, &res), 0);
    return res;
}

static struct fsc_otlp_ingest *open_ingest(struct fsc_registry *reg, const char *source,
                                           uint32_t index, uint32_t count)
{
    char err[256];
    struct fsc_source_env env = {.reg = reg, .shard_index = index, .shard_count = count};
    if (fsc_registry_source_add(reg, source, 0, &env.source_id) != 0)
        return NULL;
    struct fsc_otlp_ingest_config ic = {.source_name = source, .sample_tap = tap};
    struct fsc_otlp_ingest *ing = fsc_otlp_ingest_create(&ic, &env, err, sizeof(err));
    if (!ing)
        fprintf(stderr, "%s\n", err);
    return ing;
}

static void otlp_points_of_other_shards_skipped(void)
{
    struct fsc_registry *reg = fsc_registry_create(100000);
    CHECK(reg != NULL);
    if (!reg)
        return;
    /* Fallback device (no host.name) is the source name: leaf9, shard 2. */
    struct fsc_otlp_ingest *ing = open_ingest(reg, "leaf9", 1, 3);
    CHECK(ing != NULL);
    if (ing) {
        static const char *const hosts[] = {"leaf1", "spine1", "leaf9", "sw-042", NULL};
        n_samples = 0;
        struct fsc_otlp_ingest_result res = request(ing, hosts, 5, 4);
        CHECK_INT(res.points, 20);
        CHECK_INT(res.accepted, 8); /* leaf1 and sw-042 */
        CHECK_INT(res.rejected, 0);
        CHECK_INT(res.skipped, 12); /* spine1, leaf9, and leaf9 by fallback */
        CHECK_INT(res.other_shard, 12);
        CHECK_INT(n_samples, 8);
        struct fsc_otlp_ingest_stats st;
        fsc_otlp_ingest_stats(ing, &st);
        CHECK_INT(st.skipped, 12);
        CHECK_INT(st.other_shard, 12);
        CHECK_INT(st.series, 8);
        fsc_otlp_ingest_destroy(ing);
    }
    /* Not sharded (count 0 from a zeroed env, or 1): everything stays. */
    for (uint32_t count = 0; count <= 1; count++) {
        ing = open_ingest(reg, count ? "all1" : "all0", 0, count);
        CHECK(ing != NULL);
        if (!ing)
            continue;
        static const char *const hosts[] = {"leaf1", "spine1", "leaf9"};
        n_samples = 0;
        struct fsc_otlp_ingest_result res = request(ing, hosts, 3, 2);
        CHECK_INT(res.accepted, 6);
        CHECK_INT(res.skipped, 0);
        CHECK_INT(res.other_shard, 0);
        CHECK_INT(n_samples, 6);
        fsc_otlp_ingest_destroy(ing);
    }
    fsc_registry_destroy(reg);
}

/* One OTLP/JSON point of a device, flags 1 = NO_RECORDED_VALUE. */
#define PT(port, flags)                                                                            \
    "{\"timeUnixNano\":\"1764460800000000000\",\"asDouble\":5,\"flags\":" #flags                   \
    ",\"attributes\":[{\"key\":\"interface\",\"value\":{\"stringValue\":\"" port "\"}}]}"
#define RES(host, points)                                                                          \
    "{\"resource\":{\"attributes\":[{\"key\":\"host.name\",\"value\":{\"stringValue\":\"" host     \
    "\"}}]},\"scopeMetrics\":[{\"metrics\":[{\"name\":\"nvswitch_interface_if_in_octets\","        \
    "\"gauge\":{\"dataPoints\":[" points "]}}]}]}"

/* The count travels up: ingest result -> request outcome -> the transport's
 * counters (fabricscope_otlp_skipped_points_total{reason}), staleness
 * markers apart from other shards' points. Shard 1 of 3: spine1 is shard 0,
 * leaf1 shard 1. */
static void skipped_reasons_reach_transport_counters(void)
{
    struct fsc_registry *reg = fsc_registry_create(100000);
    struct fsc_otlp_ingest *ing = reg ? open_ingest(reg, "leaf1", 1, 3) : NULL;
    struct fsc_otlp_counters ctr;
    CHECK(ing != NULL);
    CHECK_INT(fsc_otlp_counters_init(&ctr, "http", "leaf1"), 0);
    if (!ing)
        goto out;
    for (int round = 0; round < 2; round++) {
        char body[] = "{\"resourceMetrics\":[" RES(
            "spine1", PT("swp1", 0) "," PT("swp2", 0) "," PT(
                          "swp3", 1)) "," RES("leaf1", PT("swp1", 0) "," PT("swp2", 1)) "]}";
        struct fsc_otlp_outcome o;
        n_samples = 0;
        fsc_otlp_export_run(ing, FSC_OTLP_FMT_JSON, (uint8_t *)body, strlen(body), 0, 1 << 20,
                            T0 + 1, &o);
        CHECK_INT(o.verdict, FSC_OTLP_OK);
        CHECK_INT(o.points, 5);
        CHECK_INT(o.rejected, 0);
        CHECK_INT(o.skipped_other_shard, 3); /* spine1's three, its marker included */
        CHECK_INT(o.skipped_no_value, 1);    /* leaf1's marker */
        CHECK_INT(n_samples, 1);
        fsc_otlp_counters_add(&ctr, o.verdict, strlen(body), &o, NULL);
    }
    struct fsc_otlp_transport_stats ts;
    fsc_otlp_counters_get(&ctr, &ts);
    CHECK_INT(ts.points, 10);
    CHECK_INT(ts.skipped_other_shard, 6);
    CHECK_INT(ts.skipped_no_value, 2);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(ing, &st);
    CHECK_INT(st.skipped, 8);
    CHECK_INT(st.other_shard, 6);
out:
    fsc_otlp_counters_fini(&ctr);
    fsc_otlp_ingest_destroy(ing);
    fsc_registry_destroy(reg);
}

TEST_MAIN(TEST(otlp_points_of_other_shards_skipped), TEST(skipped_reasons_reach_transport_counters))
