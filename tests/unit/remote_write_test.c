/* remote_write exporter units (exporters/remote_write): wire bytes, snappy,
 * queue, retry rules, naming, the engine reader and the self-metrics. The
 * known answers were computed by hand from the protobuf encoding rules (tag =
 * field << 3 | wire type; varint lengths; doubles little-endian). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "prometheus/prom_render.h"
#include "remote_write/remote_write.h"
#include "remote_write/rw_encode.h"
#include "remote_write/rw_int.h"
#include "remote_write/rw_queue.h"
#include "remote_write/rw_retry.h"
#include "test.h"
#include "config_all.h"
#include "view_fixture.h"

#define SEC 1000000000LL
#define MS  1000000LL

static int bytes_eq(const struct fsc_buf *b, const unsigned char *want, size_t n)
{
    if (b->len != n || memcmp(b->data, want, n) != 0) {
        fprintf(stderr, "got %zu bytes:", b->len);
        for (size_t i = 0; i < b->len; i++)
            fprintf(stderr, " %02x", (unsigned char)b->data[i]);
        fprintf(stderr, "\n");
        return 0;
    }
    return 1;
}

static struct fsc_rw_label L(const char *n, const char *v) {
    return (struct fsc_rw_label){n, strlen(n), v, strlen(v)};
}

/* WriteRequest{timeseries: [{labels: [__name__="up", job="a"],
 * samples: [{1.0, 1000}]}, {labels: [__name__="x"], samples: [{0, 0},
 * {-2.5, -1}]}]}. */
static void
encode_known_bytes(void)
{
    struct fsc_buf b;
    memset(&b, 0, sizeof(b));
    struct fsc_rw_label l1[] = {L("__name__", "up"), L("job", "a")};
    struct fsc_rw_point p1[] = {{1.0, 1000}};
    struct fsc_rw_label l2[] = {L("__name__", "x")};
    struct fsc_rw_point p2[] = {{0.0, 0}, {-2.5, -1}};
    CHECK_INT(fsc_rw_encode_series(&b, l1, 2, p1, 1), 0);
    CHECK_INT(fsc_rw_encode_series(&b, l2, 1, p2, 2), 0);
    static const unsigned char want[] = {
        /* timeseries 1: 40 bytes */
        0x0a, 0x28,
        /* label __name__="up": 1+1+8 + 1+1+2 = 14 */
        0x0a, 0x0e, 0x0a, 0x08, '_', '_', 'n', 'a', 'm', 'e', '_', '_', 0x12, 0x02, 'u', 'p',
        /* label job="a": 8 */
        0x0a, 0x08, 0x0a, 0x03, 'j', 'o', 'b', 0x12, 0x01, 'a',
        /* sample 1.0 @ 1000: fixed64 3ff0000000000000, varint e8 07 */
        0x12, 0x0c, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x10, 0xe8, 0x07,
        /* timeseries 2: 2+13 + 2 + 2+20 = 39 bytes */
        0x0a, 0x27,
        /* label __name__="x": 1+1+8 + 1+1+1 = 13 */
        0x0a, 0x0d, 0x0a, 0x08, '_', '_', 'n', 'a', 'm', 'e', '_', '_', 0x12, 0x01, 'x',
        /* sample {0, 0}: both defaults, empty message */
        0x12, 0x00,
        /* sample -2.5 (c004000000000000) @ -1 (ten-byte varint) */
        0x12, 0x14, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xc0, 0x10, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    CHECK(bytes_eq(&b, want, sizeof(want)));
    /* A buffer limit refuses and leaves the content as it was. */
    b.limit = b.len + 10;
    size_t before = b.len;
    CHECK_INT(fsc_rw_encode_series(&b, l1, 2, p1, 1), -E2BIG);
    CHECK_INT(b.len, before);
    fsc_buf_free(&b);
}

static void snappy_round_trip(void)
{
    struct fsc_buf z, back, req;
    memset(&z, 0, sizeof(z));
    memset(&back, 0, sizeof(back));
    memset(&req, 0, sizeof(req));
    /* A short input is one literal: length varint, tag (len-1)<<2, bytes. */
    CHECK_INT(fsc_rw_snappy("abc", 3, &z), 0);
    static const unsigned char abc[] = {0x03, 0x08, 'a', 'b', 'c'};
    CHECK(bytes_eq(&z, abc, sizeof(abc)));
    /* A realistic request: 500 series of one port label set. */
    for (int i = 0; i < 500; i++) {
        char port[32];
        snprintf(port, sizeof(port), "et-0/0/%d", i);
        struct fsc_rw_label l[] = {L("__name__", "fabric_port_tx_bytes_total"),
                                   L("device", "leaf1"), L("port", port)};
        struct fsc_rw_point p[] = {{(double)i * 1e9, 1700000000000 + i}};
        CHECK_INT(fsc_rw_encode_series(&req, l, 3, p, 1), 0);
    }
    CHECK_INT(fsc_rw_snappy(req.data, req.len, &z), 0);
    CHECK(z.len < req.len / 2); /* repeated names compress well */
    CHECK_INT(fsc_rw_unsnappy(z.data, z.len, &back), 0);
    CHECK_INT(back.len, req.len);
    CHECK(back.len == req.len && memcmp(back.data, req.data, req.len) == 0);
    /* Not a snappy block: refused. */
    CHECK_INT(fsc_rw_unsnappy("\xff\xff\xff\xff\xff\x0f", 6, &back), -EINVAL);
    CHECK_INT(fsc_rw_snappy("", 0, &z), 0);
    CHECK_INT(z.len, 1);
    CHECK_INT(fsc_rw_unsnappy(z.data, z.len, &back), 0);
    CHECK_INT(back.len, 0);
    fsc_buf_free(&z);
    fsc_buf_free(&back);
    fsc_buf_free(&req);
}

static struct fsc_rw_sample S(uint32_t k) {
    return (struct fsc_rw_sample){.id = k, .t_ms = (int64_t)k * 10, .value = k};
}

static void
queue_bound_drops(void)
{
    struct fsc_rw_queue q;
    struct fsc_rw_sample out[64];
    /* A tiny bound: 25 in, the oldest 15 out, the newest 10 kept in order. */
    fsc_rw_queue_init(&q, 10);
    for (uint32_t k = 0; k < 25; k++) {
        struct fsc_rw_sample s = S(k);
        CHECK_INT(fsc_rw_queue_push(&q, &s, 1), 0);
    }
    CHECK_INT(q.len, 10);
    CHECK_INT(q.dropped, 15);
    size_t n = fsc_rw_queue_pop(&q, out, 4);
    CHECK_INT(n, 4);
    CHECK_INT(out[0].id, 15);
    CHECK_INT(out[3].id, 18);
    /* Pushing 4 more fills the room popped: nothing dropped. */
    struct fsc_rw_sample more[4] = {S(25), S(26), S(27), S(28)};
    CHECK_INT(fsc_rw_queue_push(&q, more, 4), 0);
    CHECK_INT(q.dropped, 15);
    n = fsc_rw_queue_pop(&q, out, 64);
    CHECK_INT(n, 10);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(out[i].id, 19 + i);
    CHECK_INT(fsc_rw_queue_pop(&q, out, 64), 0);
    fsc_rw_queue_free(&q);

    /* Growth across the wrap: a ring grown while its head is not at 0
     * keeps the order. */
    fsc_rw_queue_init(&q, 20000);
    static struct fsc_rw_sample big[12000];
    for (uint32_t k = 0; k < 12000; k++)
        big[k] = S(k);
    CHECK_INT(fsc_rw_queue_push(&q, big, 3000), 0);
    CHECK_INT(fsc_rw_queue_pop(&q, out, 64), 64);
    CHECK_INT(fsc_rw_queue_push(&q, big + 3000, 9000), 0);
    CHECK_INT(q.len, 12000 - 64);
    CHECK_INT(q.dropped, 0);
    CHECK_INT(fsc_rw_queue_push(&q, big, 10000), 0);
    CHECK_INT(q.len, 20000);
    CHECK_INT(q.dropped, 12000 - 64 + 10000 - 20000);
    CHECK_INT(fsc_rw_queue_pop(&q, out, 1), 1);
    CHECK_INT(out[0].id, 12000 - (20000 - 10000)); /* the oldest survivor: 2000 */
    fsc_rw_queue_free(&q);
}

static void retry_after_parse(void)
{
    const int64_t date = 1445412480; /* Wed, 21 Oct 2015 07:28:00 GMT */
    int64_t d = -1;
    CHECK_INT(fsc_rw_retry_after_parse("120", 0, &d), 0);
    CHECK_INT(d, 120);
    CHECK_INT(fsc_rw_retry_after_parse(" 7\r\n", 0, &d), 0);
    CHECK_INT(d, 7);
    CHECK_INT(fsc_rw_retry_after_parse("0", 0, &d), 0);
    CHECK_INT(d, 0);
    CHECK_INT(fsc_rw_retry_after_parse("99999999999999999999999", 0, &d), 0);
    CHECK_INT(d, FSC_RW_RETRY_AFTER_MAX_S);
    CHECK_INT(fsc_rw_retry_after_parse("Wed, 21 Oct 2015 07:28:00 GMT", date - 30, &d), 0);
    CHECK_INT(d, 30);
    CHECK_INT(fsc_rw_retry_after_parse("Wednesday, 21-Oct-15 07:28:00 GMT", date - 45, &d), 0);
    CHECK_INT(d, 45);
    CHECK_INT(fsc_rw_retry_after_parse("Wed Oct 21 07:28:00 2015", date - 2, &d), 0);
    CHECK_INT(d, 2);
    CHECK_INT(fsc_rw_retry_after_parse("Wed, 21 Oct 2015 07:28:00 GMT", date + 5, &d), 0);
    CHECK_INT(d, 0); /* in the past: now */
    CHECK_INT(fsc_rw_retry_after_parse("Wed, 21 Oct 2015 07:28:00 GMT", date - 86400, &d), 0);
    CHECK_INT(d, FSC_RW_RETRY_AFTER_MAX_S);
    d = 77;
    CHECK_INT(fsc_rw_retry_after_parse("", 0, &d), -EINVAL);
    CHECK_INT(fsc_rw_retry_after_parse("-5", 0, &d), -EINVAL);
    CHECK_INT(fsc_rw_retry_after_parse("1.5", 0, &d), -EINVAL);
    CHECK_INT(fsc_rw_retry_after_parse("soon", 0, &d), -EINVAL);
    CHECK_INT(d, 77); /* untouched on error */

    CHECK(fsc_rw_status_retryable(0));
    CHECK(fsc_rw_status_retryable(429));
    CHECK(fsc_rw_status_retryable(500));
    CHECK(fsc_rw_status_retryable(503));
    CHECK(!fsc_rw_status_retryable(400));
    CHECK(!fsc_rw_status_retryable(401));
    CHECK(!fsc_rw_status_retryable(404));
    CHECK(!fsc_rw_status_retryable(413));
    CHECK(!fsc_rw_status_retryable(204));
}

/* Retry-After is honoured up to the backoff's ceiling; none or 0 take the
 * backoff. */
static void retry_after_capped(void)
{
    const int64_t ini = 1 * SEC, max = 60 * SEC;
    CHECK_INT(fsc_rw_retry_wait_ns(5, ini, max, 0, 0), 5 * SEC);
    CHECK_INT(fsc_rw_retry_wait_ns(60, ini, max, 0, 0), 60 * SEC);
    CHECK_INT(fsc_rw_retry_wait_ns(61, ini, max, 0, 0), 60 * SEC);
    CHECK_INT(fsc_rw_retry_wait_ns(300, ini, max, 7, 0), 60 * SEC);
    CHECK_INT(fsc_rw_retry_wait_ns(0, ini, max, 0, 0), fsc_rw_backoff_ns(ini, max, 0, 0));
    CHECK_INT(fsc_rw_retry_wait_ns(-1, ini, max, 2, 12345), fsc_rw_backoff_ns(ini, max, 2, 12345));
}

static void backoff_bounds(void)
{
    const int64_t ini = 100 * MS, max = 1 * SEC;
    /* Ends of the jitter range for the first attempts. */
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 0, 0), 50 * MS);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 0, 50 * MS), 100 * MS);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 1, 0), 100 * MS);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 3, 0), 400 * MS);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 3, 400 * MS), 800 * MS);
    /* Capped from attempt 4 (1.6 s > 1 s), also far beyond 64 doublings. */
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 4, 0), 500 * MS);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 4, 500 * MS), 1 * SEC);
    CHECK_INT(fsc_rw_backoff_ns(ini, max, 1000, 0), 500 * MS);
    /* Every attempt and many random values stay inside [c/2, c]. */
    uint64_t x = 88172645463325252ULL;
    for (unsigned a = 0; a < 80; a++) {
        int64_t c = a >= 4 ? max : ini << a;
        for (int k = 0; k < 200; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t d = fsc_rw_backoff_ns(ini, max, a, x);
            if (d < c / 2 || d > c) {
                CHECK(d >= c / 2 && d <= c);
                return;
            }
        }
    }
    /* Equal initial and max: a constant ceiling. */
    CHECK_INT(fsc_rw_backoff_ns(SEC, SEC, 9, 0), SEC / 2);
}

static size_t names(const struct fsc_rw_label *l, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%.*s=%.*s", i ? "," : "", (int)l[i].name_len,
                              l[i].name, (int)l[i].value_len, l[i].value);
    return k;
}

static void labels_named_and_sorted(void)
{
    struct fsc_registry *reg = fsc_registry_create(100);
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(reg, "s", 0, &src), 0);
    struct fsc_label port[] = {{"port", "et-0/0/1"}, {"device", "leaf1"}};
    struct fsc_label own_dir[] = {{"direction", "up"}, {"device", "x"}};
    struct fsc_label upper[] = {{"Zone", "a"}, {"device", "x"}};
    struct fsc_label topo[] = {
        {"port", "et-0/0/2"}, {"device", "leaf1"}, {"role", "uplink"}, {"peer", "spine1:swp1"}};
    struct fsc_label node[] = {{"device", "h"}, {"node", "1"}, {"direction", "rx"}};
    fsc_series_id a = fsc_registry_intern(reg, src, "fabric_mlx5_foo", port, 2);
    fsc_series_id b = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", port, 2);
    fsc_series_id c = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", own_dir, 2);
    fsc_series_id d = fsc_registry_intern(reg, src, "fabric_nic_cnp_sent_total", upper, 2);
    fsc_series_id e = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", topo, 4);
    fsc_series_id f = fsc_registry_intern(reg, src, "fabric_node_rdma_bits_per_second", node, 3);
    char nb[FSC_RW_NAME_BUF], got[1024];
    struct fsc_rw_label l[FSC_REGISTRY_MAX_LABELS + 2];
    struct {
        fsc_series_id id;
        uint8_t what, dir;
        const char *want;
    } cases[] = {
        {a, FSC_RW_RAW_COUNTER, 0, "__name__=fabric_mlx5_foo_total,device=leaf1,port=et-0/0/1"},
        {a, FSC_RW_RAW_GAUGE, 0, "__name__=fabric_mlx5_foo,device=leaf1,port=et-0/0/1"},
        {b, FSC_RW_RAW_COUNTER, 0,
         "__name__=fabric_port_tx_bytes_total,device=leaf1,port=et-0/0/1"},
        {b, FSC_RW_PORT_RATE, FSC_DIR_TX,
         "__name__=fabric_port_bytes_per_second,device=leaf1,direction=tx,port=et-0/0/1"},
        {b, FSC_RW_PORT_UTIL, FSC_DIR_RX,
         "__name__=fabric_port_utilization_ratio,device=leaf1,direction=rx,port=et-0/0/1"},
        {b, FSC_RW_FINE_PORT_RATE, FSC_DIR_TX,
         "__name__=fabric_port_fine_bytes_per_second,device=leaf1,direction=tx,port=et-0/0/1"},
        /* a series with its own direction label keeps it */
        {c, FSC_RW_PORT_RATE, FSC_DIR_TX,
         "__name__=fabric_port_bytes_per_second,device=x,direction=up"},
        /* a counter's rates: its own families; bytewise order: an upper-case
         * name sorts before __name__ */
        {d, FSC_RW_DET_RATE, 0, "Zone=a,__name__=fabric_nic_cnp_sent_per_second,device=x"},
        {d, FSC_RW_FINE_RATE, 0, "Zone=a,__name__=fabric_nic_cnp_sent_fine_per_second,device=x"},
        /* topology goes to the info families */
        {e, FSC_RW_RAW_COUNTER, 0,
         "__name__=fabric_port_tx_bytes_total,device=leaf1,port=et-0/0/2"},
        /* the family table's name (a base unit), the node in fabric_node_info */
        {f, FSC_RW_RAW_GAUGE, 0,
         "__name__=fabric_node_rdma_bytes_per_second,device=h,direction=rx"},
    };
    struct fsc_rw_names cache = {0};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fsc_rw_sample s = {.id = cases[i].id, .what = cases[i].what, .dir = cases[i].dir};
        size_t n = fsc_rw_sample_labels(reg, i % 2 ? &cache : NULL, &s, l,
                                        FSC_REGISTRY_MAX_LABELS + 2, nb, NULL);
        names(l, n, got, sizeof(got));
        CHECK_STR(got, cases[i].want);
    }
    struct fsc_rw_sample unknown = {.id = 99};
    CHECK_INT(fsc_rw_sample_labels(reg, &cache, &unknown, l, FSC_REGISTRY_MAX_LABELS + 2, nb, NULL),
              0);
    fsc_rw_names_free(&cache);
    fsc_registry_destroy(reg);
}

/* A batch with series that carry topology: after the series, one sample of
 * value 1 per info line they touch, at the batch's newest time, labels
 * sorted (peer "device:port" as peer and peer_port); a later batch with
 * older samples stamps its info lines no earlier. */
static void batch_info_series(void)
{
    struct fsc_registry *reg = fsc_registry_create(100);
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(reg, "s", 0, &src), 0);
    struct fsc_label nic[] = {{"device", "h1"}, {"port", "p1"}, {"card", "2"},
                              {"node", "1"},    {"link", "3"},  {"peer", "h2:p4"}};
    struct fsc_label pcie[] = {{"device", "h1"}, {"port", "p1"}, {"pci", "0000:03:00.0"}};
    fsc_series_id a = fsc_registry_intern(reg, src, "fabric_nic_cnp_sent_total", nic, 6);
    fsc_series_id b = fsc_registry_intern(reg, src, "fabric_pcie_link_degraded", pcie, 3);
    struct fsc_rw_sample batch[] = {
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 2000, .value = 5},
        {.id = b, .what = FSC_RW_RAW_GAUGE, .t_ms = 3000, .value = 0},
    };
    struct fsc_rw_encoder enc;
    fsc_rw_encoder_init(&enc, reg);
    CHECK_INT(fsc_rw_encode_batch(&enc, batch, 2), 0);
    struct fsc_buf want;
    memset(&want, 0, sizeof(want));
    struct fsc_rw_label wa[] = {L("__name__", "fabric_nic_cnp_sent_total"), L("device", "h1"),
                                L("port", "p1")};
    struct fsc_rw_label wb[] = {L("__name__", "fabric_pcie_link_degraded"), L("device", "h1"),
                                L("port", "p1")};
    struct fsc_rw_label wp[] = {L("__name__", "fabric_port_info"),
                                L("device", "h1"),
                                L("link", "3"),
                                L("peer", "h2"),
                                L("peer_port", "p4"),
                                L("port", "p1")};
    struct fsc_rw_label wn[] = {L("__name__", "fabric_nic_info"), L("card", "2"), L("device", "h1"),
                                L("pci", "0000:03:00.0"), L("port", "p1")};
    struct fsc_rw_label wd[] = {L("__name__", "fabric_node_info"), L("device", "h1"),
                                L("node", "1")};
    struct fsc_rw_point pa[] = {{5, 2000}}, pb[] = {{0, 3000}}, one[] = {{1, 3000}};
    fsc_rw_encode_series(&want, wa, 3, pa, 1);
    fsc_rw_encode_series(&want, wb, 3, pb, 1);
    fsc_rw_encode_series(&want, wp, 6, one, 1);
    fsc_rw_encode_series(&want, wn, 5, one, 1);
    fsc_rw_encode_series(&want, wd, 3, one, 1);
    CHECK(bytes_eq(&enc.body, (const unsigned char *)want.data, want.len));
    /* An older batch: the info lines keep 3000. */
    struct fsc_rw_sample older[] = {
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 1000, .value = 4}};
    CHECK_INT(fsc_rw_encode_batch(&enc, older, 1), 0);
    fsc_buf_reset(&want);
    struct fsc_rw_point po[] = {{4, 1000}};
    fsc_rw_encode_series(&want, wa, 3, po, 1);
    fsc_rw_encode_series(&want, wp, 6, one, 1);
    fsc_rw_encode_series(&want, wn, 5, one, 1);
    fsc_rw_encode_series(&want, wd, 3, one, 1);
    CHECK(bytes_eq(&enc.body, (const unsigned char *)want.data, want.len));
    fsc_buf_free(&want);
    fsc_rw_encoder_free(&enc);
    fsc_registry_destroy(reg);
}

/* A batch in arrival order (series interleaved, one duplicate millisecond)
 * encodes as one TimeSeries per series in id order, points in time order:
 * the same bytes as encoding each series by hand. */
static void batch_groups_series(void)
{
    struct fsc_registry *reg = fsc_registry_create(100);
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(reg, "s", 0, &src), 0);
    struct fsc_label la[] = {{"device", "a"}};
    struct fsc_label lb[] = {{"device", "b"}};
    fsc_series_id a = fsc_registry_intern(reg, src, "m_total", la, 1);
    fsc_series_id b = fsc_registry_intern(reg, src, "g", lb, 1);
    struct fsc_rw_sample batch[] = {
        {.id = b, .what = FSC_RW_RAW_GAUGE, .t_ms = 2000, .value = 7},
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 1000, .value = 1},
        {.id = b, .what = FSC_RW_RAW_GAUGE, .t_ms = 1000, .value = 6},
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 3000, .value = 3},
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 2000, .value = 2},
        {.id = a, .what = FSC_RW_RAW_COUNTER, .t_ms = 2000, .value = 2},
    };
    struct fsc_rw_encoder enc;
    fsc_rw_encoder_init(&enc, reg);
    CHECK_INT(fsc_rw_encode_batch(&enc, batch, 6), 0);
    struct fsc_buf want, body;
    memset(&want, 0, sizeof(want));
    memset(&body, 0, sizeof(body));
    struct fsc_rw_label wa[] = {L("__name__", "m_total"), L("device", "a")};
    struct fsc_rw_point pa[] = {{1, 1000}, {2, 2000}, {3, 3000}};
    struct fsc_rw_label wb[] = {L("__name__", "g"), L("device", "b")};
    struct fsc_rw_point pb[] = {{6, 1000}, {7, 2000}};
    fsc_rw_encode_series(&want, wa, 2, pa, 3);
    fsc_rw_encode_series(&want, wb, 2, pb, 2);
    CHECK(bytes_eq(&enc.body, (const unsigned char *)want.data, want.len));
    /* enc.z is the snappy block of exactly that body */
    CHECK_INT(fsc_rw_unsnappy(enc.z.data, enc.z.len, &body), 0);
    CHECK(bytes_eq(&body, (const unsigned char *)want.data, want.len));
    fsc_buf_free(&want);
    fsc_buf_free(&body);
    fsc_rw_encoder_free(&enc);
    fsc_registry_destroy(reg);
}

static struct fsc_rw_sample got_s[64];
static size_t n_got;

static void collect(void *arg, const struct fsc_rw_sample *s, size_t n)
{
    (void)arg;
    for (size_t i = 0; i < n && n_got < 64; i++)
        got_s[n_got++] = s[i];
}

static const struct fsc_rw_sample *find(uint8_t what)
{
    for (size_t i = 0; i < n_got; i++)
        if (got_s[i].what == what)
            return &got_s[i];
    return NULL;
}

/* A 400G port at 1.25e9 B/s (25 %) sampled every 250 ms, and a CNP counter
 * at 1000/s: after 1.25 s the reader sees the raw values at the last sample
 * time, the 1 s window rates stamped at the window's end (1 s), and a second
 * reading without new samples queues nothing. */
static void reader_known_samples(void)
{
    char err[256];
    struct fsc_engine_config ec;
    fsc_engine_config_defaults(&ec);
    struct fsc_engine *eng = fsc_engine_create(&ec, NULL, err, sizeof(err));
    struct fsc_registry *reg = fsc_registry_create(100);
    CHECK(eng && reg);
    if (!eng || !reg)
        goto out;
    uint16_t src;
    fsc_registry_source_add(reg, "s", 0, &src);
    struct fsc_label lp[] = {{"device", "leaf1"}, {"port", "p1"}};
    fsc_series_id port = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", lp, 2);
    fsc_series_id cnp = fsc_registry_intern(reg, src, "fabric_nic_cnp_sent_total", lp, 2);
    struct fsc_traits tp = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_TX,
                            .link_speed_bps = 400000000000ULL};
    struct fsc_traits tc = {.kind = FSC_KIND_COUNTER, .width = 64, .signal = FSC_SIG_CNP};
    CHECK_INT(fsc_engine_set_traits(eng, port, &tp), 0);
    CHECK_INT(fsc_engine_set_traits(eng, cnp, &tc), 0);
    /* Installed before the samples: it takes each window as the engine
     * completes it. */
    struct fsc_rw_reader rd;
    CHECK_INT(fsc_rw_reader_init(&rd, reg, eng,
                                 FSC_RW_SERIES_COUNTERS | FSC_RW_SERIES_WINDOW_RATES |
                                     FSC_RW_SERIES_FINE_RATES,
                                 1 * SEC, NULL, 1 * SEC, 64),
              0);
    const int64_t base = 1700000000LL * SEC;
    for (int k = 0; k <= 5; k++) {
        struct fsc_sample smp[2] = {
            {.series = port, .t_dev_ns = base + k * 250 * MS, .v.u = (uint64_t)k * 312500000ULL},
            {.series = cnp, .t_dev_ns = base + k * 250 * MS, .v.u = (uint64_t)k * 250}};
        CHECK_INT(fsc_engine_ingest(eng, smp, 2), 0);
    }
    n_got = 0;
    /* raw x2, port rate + util, cnp rate; fine rates wait for a second reading */
    CHECK_INT(fsc_rw_read(&rd, collect, NULL), 5);
    const struct fsc_rw_sample *s = find(FSC_RW_RAW_COUNTER);
    CHECK(s && s->id == port && s->t_ms == 1700000001250LL && s->value == 1562500000.0);
    s = find(FSC_RW_PORT_RATE);
    CHECK(s && s->id == port && s->t_ms == 1700000001000LL && s->value == 1.25e9 &&
          s->dir == FSC_DIR_TX);
    s = find(FSC_RW_PORT_UTIL);
    CHECK(s && s->t_ms == 1700000001000LL && s->value == 0.025);
    s = find(FSC_RW_DET_RATE);
    CHECK(s && s->id == cnp && s->t_ms == 1700000001000LL && s->value == 1000.0);
    n_got = 0;
    CHECK_INT(fsc_rw_read(&rd, collect, NULL), 0);
    /* One more sample: new raw values and fine rates, no new window. */
    struct fsc_sample smp[2] = {{.series = port, .t_dev_ns = base + 1500 * MS, .v.u = 1875000000},
                                {.series = cnp, .t_dev_ns = base + 1500 * MS, .v.u = 1500}};
    CHECK_INT(fsc_engine_ingest(eng, smp, 2), 0);
    n_got = 0;
    CHECK_INT(fsc_rw_read(&rd, collect, NULL), 4);
    s = find(FSC_RW_FINE_PORT_RATE);
    CHECK(s && s->t_ms == 1700000001500LL && s->value == 1.25e9);
    s = find(FSC_RW_FINE_RATE);
    CHECK(s && s->t_ms == 1700000001500LL && s->value == 1000.0);
    CHECK(find(FSC_RW_PORT_RATE) == NULL);
    /* Two windows complete before the next reading (ends 2 s and 3 s): both
     * are sent, each once, each under its own end. */
    for (int k = 7; k <= 14; k++) {
        struct fsc_sample m[2] = {
            {.series = port, .t_dev_ns = base + k * 250 * MS, .v.u = (uint64_t)k * 312500000ULL},
            {.series = cnp, .t_dev_ns = base + k * 250 * MS, .v.u = (uint64_t)k * 250}};
        CHECK_INT(fsc_engine_ingest(eng, m, 2), 0);
    }
    n_got = 0;
    fsc_rw_read(&rd, collect, NULL);
    unsigned rates = 0;
    for (size_t i = 0; i < n_got; i++) {
        if (got_s[i].what != FSC_RW_PORT_RATE)
            continue;
        CHECK(got_s[i].t_ms == 1700000002000LL + 1000LL * rates);
        CHECK(got_s[i].value == 1.25e9);
        rates++;
    }
    CHECK_INT(rates, 2);
    CHECK_INT(fsc_rw_reader_dropped(&rd), 0);
    fsc_rw_reader_free(&rd);
out:
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
}

/* What the remote_write sink reports: its real tables, these values. */
static const double rw_le[2] = {0.1, 1};
static const uint64_t rw_bucket[3] = {3, 1, 2};
static const struct fsc_stat_hist rw_hist = {.n = 2, .le = rw_le, .bucket = rw_bucket, .sum = 4.5};
static const struct vfx_row rw_rows[] = {
    {.table = "remote_write",
     .vals = {{"sent", 4000},
              {"failed", 20},
              {"dropped", 7},
              {"retried", 2000},
              {"queue_samples", 150},
              {"queue_capacity", 500000},
              {"last_success_timestamp_seconds", 1700000000.5}},
     .hist = &rw_hist},
    {.table = "remote_write_requests", .keys = {"200"}, .vals = {{"requests", 2}}},
    {.table = "remote_write_requests", .keys = {"error"}, .vals = {{"requests", 4}}},
};

static const char want_rw[] =
    "# HELP fabricscope_remote_write_samples_total remote_write samples by result (sent, failed, "
    "dropped, retried).\n"
    "# TYPE fabricscope_remote_write_samples_total counter\n"
    "fabricscope_remote_write_samples_total{result=\"sent\"} 4000\n"
    "fabricscope_remote_write_samples_total{result=\"failed\"} 20\n"
    "fabricscope_remote_write_samples_total{result=\"dropped\"} 7\n"
    "fabricscope_remote_write_samples_total{result=\"retried\"} 2000\n"
    "# HELP fabricscope_remote_write_queue_samples Samples waiting to be sent (queue and the "
    "request in flight).\n"
    "# TYPE fabricscope_remote_write_queue_samples gauge\n"
    "fabricscope_remote_write_queue_samples 150\n"
    "# HELP fabricscope_remote_write_queue_capacity Samples the queue holds before the oldest are "
    "dropped (queue_max).\n"
    "# TYPE fabricscope_remote_write_queue_capacity gauge\n"
    "fabricscope_remote_write_queue_capacity 500000\n"
    "# HELP fabricscope_remote_write_request_duration_seconds Duration of remote_write requests, "
    "seconds.\n"
    "# TYPE fabricscope_remote_write_request_duration_seconds histogram\n"
    "fabricscope_remote_write_request_duration_seconds_bucket{le=\"0.1\"} 3\n"
    "fabricscope_remote_write_request_duration_seconds_bucket{le=\"1\"} 4\n"
    "fabricscope_remote_write_request_duration_seconds_bucket{le=\"+Inf\"} 6\n"
    "fabricscope_remote_write_request_duration_seconds_sum 4.5\n"
    "fabricscope_remote_write_request_duration_seconds_count 6\n"
    "# HELP fabricscope_remote_write_last_success_timestamp_seconds Unix time of the last request "
    "the receiver accepted (0: none yet).\n"
    "# TYPE fabricscope_remote_write_last_success_timestamp_seconds gauge\n"
    "fabricscope_remote_write_last_success_timestamp_seconds 1700000000.5\n"
    "# HELP fabricscope_remote_write_requests_total remote_write requests by HTTP status (error: "
    "no response).\n"
    "# TYPE fabricscope_remote_write_requests_total counter\n"
    "fabricscope_remote_write_requests_total{code=\"200\"} 2\n"
    "fabricscope_remote_write_requests_total{code=\"error\"} 4\n";

static size_t count_by_what[16];

static void count_samples(void *arg, const struct fsc_rw_sample *s, size_t n)
{
    (void)arg;
    for (size_t i = 0; i < n; i++)
        if (s[i].what < 16)
            count_by_what[s[i].what]++;
}

/* A backlog applied between two readings (the daemon stalled, then took 8 s
 * of buffered samples at once): a port updated every 2 s (>= the 1 s reading
 * period) sends each of its fine rates once, stamped with its own interval
 * end; a port sampled every 250 ms (< 1 s) sends only the newest, as before.
 * Truth: port A counts 5e9 B per 2 s (2.5e9 B/s) for the first two intervals,
 * then 1e10 B per 2 s (5e9 B/s); port B 1.25e9 B/s throughout. */
static void reader_fine_backlog(void)
{
    char err[256];
    struct fsc_engine_config ec;
    fsc_engine_config_defaults(&ec);
    struct fsc_engine *eng = fsc_engine_create(&ec, NULL, err, sizeof(err));
    struct fsc_registry *reg = fsc_registry_create(100);
    CHECK(eng && reg);
    if (!eng || !reg)
        goto out;
    uint16_t src;
    fsc_registry_source_add(reg, "s", 0, &src);
    struct fsc_label la[] = {{"device", "leaf1"}, {"port", "a"}};
    struct fsc_label lb[] = {{"device", "leaf1"}, {"port", "b"}};
    fsc_series_id a = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", la, 2);
    fsc_series_id b = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", lb, 2);
    struct fsc_traits ta = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_TX,
                            .link_speed_bps = 400000000000ULL,
                            .nominal_interval_ns = 2 * SEC};
    struct fsc_traits tb = ta;
    tb.nominal_interval_ns = 250 * MS;
    CHECK_INT(fsc_engine_set_traits(eng, a, &ta), 0);
    CHECK_INT(fsc_engine_set_traits(eng, b, &tb), 0);
    struct fsc_rw_reader rd;
    CHECK_INT(
        fsc_rw_reader_init(&rd, reg, eng, FSC_RW_SERIES_FINE_RATES, 1 * SEC, NULL, 1 * SEC, 64), 0);
    const int64_t base = 1700000000LL * SEC;
    const uint64_t va[] = {0, 5000000000ULL, 10000000000ULL, 20000000000ULL, 30000000000ULL};
    for (int k = 0; k <= 32; k++) { /* 8 s of samples, no reading in between */
        int64_t t = base + k * 250 * MS;
        struct fsc_sample sb = {.series = b, .t_dev_ns = t, .v.u = (uint64_t)k * 312500000ULL};
        CHECK_INT(fsc_engine_ingest(eng, &sb, 1), 0);
        if (k % 8 == 0) {
            struct fsc_sample sa = {.series = a, .t_dev_ns = t, .v.u = va[k / 8]};
            CHECK_INT(fsc_engine_ingest(eng, &sa, 1), 0);
        }
    }
    n_got = 0;
    fsc_rw_read(&rd, collect, NULL);
    static const double want_a[] = {2.5e9, 2.5e9, 5e9, 5e9};
    unsigned na = 0, nb = 0;
    for (size_t i = 0; i < n_got; i++) {
        const struct fsc_rw_sample *s = &got_s[i];
        CHECK_INT(s->what, FSC_RW_FINE_PORT_RATE);
        if (s->id == a && na < 4) {
            CHECK(s->t_ms == 1700000000000LL + 2000LL * (na + 1) && s->value == want_a[na]);
            na++;
        } else if (s->id == b) {
            nb++;
        }
    }
    CHECK_INT(na, 4);
    /* B: its first reading only sets the mark (the polled path's rule). */
    CHECK_INT(nb, 0);
    n_got = 0;
    struct fsc_sample sb = {
        .series = b, .t_dev_ns = base + 33 * 250 * MS, .v.u = 33 * 312500000ULL};
    CHECK_INT(fsc_engine_ingest(eng, &sb, 1), 0);
    CHECK_INT(fsc_rw_read(&rd, collect, NULL), 1);
    CHECK(got_s[0].id == b && got_s[0].t_ms == 1700000008250LL && got_s[0].value == 1.25e9);
    CHECK_INT(fsc_rw_reader_dropped(&rd), 0);
    fsc_rw_reader_free(&rd);
out:
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
}

/* 600 400G port-bytes series (more than one chunk of FSC_RW_CHUNK) with all
 * three kinds selected: the reading after a window closed that also has fine
 * rates yields 4 samples per series — raw, window rate, utilization, fine
 * rate — 2400 in all, each kind exactly 600 (the reader once had room for 3
 * per series: ASan saw the overflow here). */
static void reader_all_kinds_many_ports(void)
{
    enum { PORTS = 600 };
    char err[256];
    struct fsc_engine_config ec;
    fsc_engine_config_defaults(&ec);
    struct fsc_engine *eng = fsc_engine_create(&ec, NULL, err, sizeof(err));
    struct fsc_registry *reg = fsc_registry_create(2 * PORTS);
    static fsc_series_id ids[PORTS];
    CHECK(eng && reg);
    if (!eng || !reg)
        goto out;
    uint16_t src;
    fsc_registry_source_add(reg, "s", 0, &src);
    struct fsc_traits tp = {.kind = FSC_KIND_COUNTER,
                            .width = 64,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_TX,
                            .link_speed_bps = 400000000000ULL};
    for (int i = 0; i < PORTS; i++) {
        char port[16];
        snprintf(port, sizeof(port), "p%d", i);
        struct fsc_label lp[] = {{"device", "leaf1"}, {"port", port}};
        ids[i] = fsc_registry_intern(reg, src, "fabric_port_tx_bytes_total", lp, 2);
        CHECK_INT(fsc_engine_set_traits(eng, ids[i], &tp), 0);
    }
    const int64_t base = 1700000000LL * SEC;
    struct fsc_rw_reader rd;
    CHECK_INT(fsc_rw_reader_init(&rd, reg, eng,
                                 FSC_RW_SERIES_COUNTERS | FSC_RW_SERIES_WINDOW_RATES |
                                     FSC_RW_SERIES_FINE_RATES,
                                 1 * SEC, NULL, 1 * SEC, 4096),
              0);
    for (int k = 0; k <= 8; k++) {
        for (int i = 0; i < PORTS; i++) {
            struct fsc_sample smp = {.series = ids[i],
                                     .t_dev_ns = base + k * 250 * MS,
                                     .v.u = (uint64_t)k * 312500000ULL};
            CHECK_INT(fsc_engine_ingest(eng, &smp, 1), 0);
        }
        if (k == 5) { /* first reading: raw, rate, utilization (fine rates next time) */
            memset(count_by_what, 0, sizeof(count_by_what));
            CHECK_INT(fsc_rw_read(&rd, count_samples, NULL), 3 * PORTS);
        }
    }
    memset(count_by_what, 0, sizeof(count_by_what));
    CHECK_INT(fsc_rw_read(&rd, count_samples, NULL), 4 * PORTS);
    CHECK_INT(count_by_what[FSC_RW_RAW_COUNTER], PORTS);
    CHECK_INT(count_by_what[FSC_RW_PORT_RATE], PORTS);
    CHECK_INT(count_by_what[FSC_RW_PORT_UTIL], PORTS);
    CHECK_INT(count_by_what[FSC_RW_FINE_PORT_RATE], PORTS);
    fsc_rw_reader_free(&rd);
out:
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
}

static void prom_families_exact(void)
{
    static const char yaml[] = "sources:\n  - {name: s, type: synthetic}\n";
    char err[512];
    struct fsc_config *cfg =
        fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
    struct fsc_registry *reg = fsc_registry_create(1000);
    struct fsc_engine *eng =
        cfg ? fsc_engine_create(fsc_engine_config_of(cfg), NULL, err, sizeof(err)) : NULL;
    CHECK(cfg && reg && eng);
    struct fsc_prom_renderer *r = NULL;
    struct fsc_buf out;
    memset(&out, 0, sizeof(out));
    if (!cfg || !reg || !eng)
        goto done;
    struct vfx vf = {.rows = rw_rows, .n_rows = 3};
    vfx_init(&vf);
    struct fsc_prom_render_env env = {.reg = reg, .eng = eng, .cfg = cfg, .view = &vf.view};
    r = fsc_prom_renderer_create(&env, err, sizeof(err));
    CHECK(r != NULL);
    if (!r)
        goto done;
    CHECK_INT(fsc_prom_render(r, FSC_PROM_TEXT, 0, &out), 0);
    size_t n = strlen(want_rw);
    int ok = out.len >= n && memcmp(out.data + out.len - n, want_rw, n) == 0;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "got:\n%.*s\n", (int)out.len, out.data);
done:
    fsc_buf_free(&out);
    fsc_prom_renderer_destroy(r);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    fsc_config_destroy(cfg);
}

TEST_MAIN(TEST(encode_known_bytes), TEST(snappy_round_trip), TEST(queue_bound_drops),
          TEST(retry_after_parse), TEST(retry_after_capped), TEST(backoff_bounds),
          TEST(labels_named_and_sorted), TEST(batch_info_series), TEST(batch_groups_series),
          TEST(reader_known_samples), TEST(reader_all_kinds_many_ports), TEST(reader_fine_backlog),
          TEST(prom_families_exact))
