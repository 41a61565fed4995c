/* gNMI subscription planner: exact request bytes (computed independently of
 * protobuf-c, by hand from the wire rules), field values after unpacking with
 * the generated code, path syntax and its errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "gnmi.pb-c.h"
#include "sources/gnmi/gnmi_plan.h"
#include "test.h"

static struct fsc_gnmi_config mk_config(struct fsc_gnmi_stream *st, size_t n,
                                        enum fsc_gnmi_encoding enc)
{
    struct fsc_gnmi_config gc;
    memset(&gc, 0, sizeof(gc));
    gc.address = "127.0.0.1:50051";
    gc.device = "leaf1";
    gc.encoding = enc;
    gc.sample_interval_ns = 2000000000;
    gc.streams = st;
    gc.n_streams = n;
    return gc;
}

/* SAMPLE 2 s, PROTO, one keyed path: every byte known. */
static void sample_proto_exact_bytes(void)
{
    static const uint8_t want[] = {0x0a, 0x20, 0x12, 0x1c, 0x0a, 0x12, 0x1a, 0x03, 0x0a,
                                   0x01, 0x61, 0x1a, 0x0b, 0x0a, 0x01, 0x62, 0x12, 0x06,
                                   0x0a, 0x01, 0x6b, 0x12, 0x01, 0x76, 0x10, 0x02, 0x18,
                                   0x80, 0xa8, 0xd6, 0xb9, 0x07, 0x40, 0x02};
    const char *paths[] = {"/a/b[k=v]"};
    struct fsc_gnmi_stream st = {.name = "s",
                                 .paths = paths,
                                 .n_paths = 1,
                                 .mode = FSC_GNMI_SAMPLE,
                                 .sample_interval_ns = 2000000000};
    struct fsc_gnmi_config gc = mk_config(&st, 1, FSC_GNMI_PROTO);
    uint8_t *buf = NULL;
    size_t len = 0;
    char err[256] = "";
    CHECK_INT(fsc_gnmi_plan_request(&gc, 0, &buf, &len, err, sizeof(err)), 0);
    CHECK_INT(len, sizeof(want));
    CHECK(buf && len == sizeof(want) && memcmp(buf, want, len) == 0);
    free(buf);
}

/* ON_CHANGE, updates_only, JSON_IETF: no sample_interval on the wire. */
static void on_change_updates_only_exact_bytes(void)
{
    static const uint8_t want[] = {0x0a, 0x0f, 0x12, 0x09, 0x0a, 0x05, 0x1a, 0x03, 0x0a,
                                   0x01, 0x63, 0x10, 0x01, 0x40, 0x04, 0x48, 0x01};
    const char *paths[] = {"/c"};
    struct fsc_gnmi_stream st = {.name = "oc",
                                 .paths = paths,
                                 .n_paths = 1,
                                 .mode = FSC_GNMI_ON_CHANGE,
                                 .updates_only = true};
    struct fsc_gnmi_config gc = mk_config(&st, 1, FSC_GNMI_JSON_IETF);
    uint8_t *buf = NULL;
    size_t len = 0;
    char err[256] = "";
    CHECK_INT(fsc_gnmi_plan_request(&gc, 0, &buf, &len, err, sizeof(err)), 0);
    CHECK_INT(len, sizeof(want));
    CHECK(buf && len == sizeof(want) && memcmp(buf, want, len) == 0);
    free(buf);
}

/* Two streams, several paths: each request carries only its own stream's
 * paths, STREAM mode, no prefix, no qos; unpacked with the generated code. */
static void streams_fields_roundtrip(void)
{
    const char *p0[] = {"/interfaces/interface[name=et-0/0/0]/state/counters",
                        "/qos/interfaces/interface[interface-id=et-0/0/1]/output/queues/"
                        "queue[name=3]/state"};
    const char *p1[] = {"/junos/system/linecard/qmon-sw/"};
    struct fsc_gnmi_stream st[2] = {
        {.name = "ifc",
         .paths = p0,
         .n_paths = 2,
         .mode = FSC_GNMI_SAMPLE,
         .sample_interval_ns = 10000000000LL},
        {.name = "qmon",
         .paths = p1,
         .n_paths = 1,
         .mode = FSC_GNMI_SAMPLE,
         .sample_interval_ns = 2000000000,
         .updates_only = true},
    };
    struct fsc_gnmi_config gc = mk_config(st, 2, FSC_GNMI_PROTO);
    char err[256] = "";
    uint8_t *buf = NULL;
    size_t len = 0;

    CHECK_INT(fsc_gnmi_plan_request(&gc, 0, &buf, &len, err, sizeof(err)), 0);
    Gnmi__SubscribeRequest *req = gnmi__subscribe_request__unpack(NULL, len, buf);
    CHECK(req != NULL);
    if (req) {
        CHECK_INT(req->request_case, GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE);
        Gnmi__SubscriptionList *l = req->subscribe;
        CHECK(l->prefix == NULL);
        CHECK(l->qos == NULL);
        CHECK_INT(l->mode, GNMI__SUBSCRIPTION_LIST__MODE__STREAM);
        CHECK_INT(l->encoding, GNMI__ENCODING__PROTO);
        CHECK_INT(l->updates_only, 0);
        CHECK_INT(l->n_subscription, 2);
        Gnmi__Subscription *s0 = l->subscription[0];
        CHECK_INT(s0->mode, GNMI__SUBSCRIPTION_MODE__SAMPLE);
        CHECK_INT(s0->sample_interval, 10000000000LL);
        CHECK_INT(s0->path->n_elem, 4);
        CHECK_STR(s0->path->elem[0]->name, "interfaces");
        CHECK_STR(s0->path->elem[1]->name, "interface");
        CHECK_INT(s0->path->elem[1]->n_key, 1);
        CHECK_STR(s0->path->elem[1]->key[0]->key, "name");
        CHECK_STR(s0->path->elem[1]->key[0]->value, "et-0/0/0");
        CHECK_STR(s0->path->elem[3]->name, "counters");
        Gnmi__Subscription *s1 = l->subscription[1];
        CHECK_INT(s1->path->n_elem, 7);
        CHECK_STR(s1->path->elem[5]->key[0]->value, "3");
        CHECK_STR(s1->path->elem[6]->name, "state");
        gnmi__subscribe_request__free_unpacked(req, NULL);
    }
    free(buf);

    CHECK_INT(fsc_gnmi_plan_request(&gc, 1, &buf, &len, err, sizeof(err)), 0);
    req = gnmi__subscribe_request__unpack(NULL, len, buf);
    CHECK(req != NULL);
    if (req) {
        Gnmi__SubscriptionList *l = req->subscribe;
        CHECK_INT(l->updates_only, 1);
        CHECK_INT(l->n_subscription, 1);
        CHECK_INT(l->subscription[0]->sample_interval, 2000000000);
        /* trailing '/' adds no empty elem */
        CHECK_INT(l->subscription[0]->path->n_elem, 4);
        CHECK_STR(l->subscription[0]->path->elem[3]->name, "qmon-sw");
        gnmi__subscribe_request__free_unpacked(req, NULL);
    }
    free(buf);

    CHECK_INT(fsc_gnmi_plan_request(&gc, 2, &buf, &len, err, sizeof(err)), -EINVAL);
    CHECK(buf == NULL);
}

/* Keys: several per elem, escapes, '/' and '=' inside values. */
static void path_keys_and_escapes(void)
{
    Gnmi__Path *p = NULL;
    char err[256] = "";
    CHECK_INT(fsc_gnmi_path_parse("/a[x=1][y=p/q=r]/b[z=a\\]b]", &p, err, sizeof(err)), 0);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->n_elem, 2);
        CHECK_INT(p->elem[0]->n_key, 2);
        CHECK_STR(p->elem[0]->key[0]->key, "x");
        CHECK_STR(p->elem[0]->key[0]->value, "1");
        CHECK_STR(p->elem[0]->key[1]->key, "y");
        CHECK_STR(p->elem[0]->key[1]->value, "p/q=r");
        CHECK_STR(p->elem[1]->key[0]->value, "a]b");
        CHECK_STR(p->origin, "");
    }
    fsc_gnmi_path_free(p);
    fsc_gnmi_path_free(NULL);
}

static void path_errors(void)
{
    static const struct {
        const char *text;
        const char *needle;
    } bad[] = {
        {"a/b", "does not start with '/'"},    {"/a[k=v", "closing ']'"},
        {"/a[=v]", "without a name"},          {"/a[kv]", "without a name or '='"},
        {"/[k=v]", "without an element name"}, {"/a[k=v]x", "unexpected 'x'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        Gnmi__Path *p = (Gnmi__Path *)1;
        char err[256] = "";
        CHECK_INT(fsc_gnmi_path_parse(bad[i].text, &p, err, sizeof(err)), -EINVAL);
        CHECK(p == NULL);
        if (!strstr(err, bad[i].needle))
            fprintf(stderr, "case %zu: err \"%s\" lacks \"%s\"\n", i, err, bad[i].needle);
        CHECK(strstr(err, bad[i].needle) != NULL);
    }
    /* a bad path in a stream fails the whole request with the path named */
    const char *paths[] = {"/ok", "/bad[k"};
    struct fsc_gnmi_stream st = {.name = "s", .paths = paths, .n_paths = 2};
    struct fsc_gnmi_config gc = mk_config(&st, 1, FSC_GNMI_PROTO);
    uint8_t *buf = (uint8_t *)1;
    size_t len = 7;
    char err[256] = "";
    CHECK_INT(fsc_gnmi_plan_request(&gc, 0, &buf, &len, err, sizeof(err)), -EINVAL);
    CHECK(buf == NULL);
    CHECK_INT(len, 0);
    CHECK(strstr(err, "/bad[k") != NULL);
}

/* Junos reports on multiples of 2 s: the grid rounds UP (a device asked
 * for less is asked for the next interval it keeps), and the request carries
 * the rounded interval even for a config built in code. */
static void junos_grid_rounds_up(void)
{
    const int64_t S = 1000000000;
    CHECK_INT(fsc_gnmi_interval_on_grid(100000000, 2 * S), 2 * S);
    CHECK_INT(fsc_gnmi_interval_on_grid(2 * S, 2 * S), 2 * S);
    CHECK_INT(fsc_gnmi_interval_on_grid(2 * S + 1, 2 * S), 4 * S);
    CHECK_INT(fsc_gnmi_interval_on_grid(3 * S, 2 * S), 4 * S);
    CHECK_INT(fsc_gnmi_interval_on_grid(10 * S, 2 * S), 10 * S);
    CHECK_INT(fsc_gnmi_interval_on_grid(100000000, 0), 100000000);
    CHECK_INT(fsc_gnmi_interval_on_grid(0, 2 * S), 0);
    CHECK_INT(fsc_gnmi_interval_grid("junos", FSC_GNMI_GRID_PROFILE), 2 * S);
    CHECK_INT(fsc_gnmi_interval_grid(NULL, FSC_GNMI_GRID_PROFILE), 2 * S);
    CHECK_INT(fsc_gnmi_interval_grid("junos", FSC_GNMI_GRID_NONE), 0);
    CHECK_INT(fsc_gnmi_interval_grid("other", FSC_GNMI_GRID_PROFILE), 0);

    const char *paths[] = {"/interfaces/interface/state/counters"};
    struct fsc_gnmi_stream st = {.name = "s",
                                 .paths = paths,
                                 .n_paths = 1,
                                 .mode = FSC_GNMI_SAMPLE,
                                 .sample_interval_ns = 100000000};
    struct fsc_gnmi_config gc = mk_config(&st, 1, FSC_GNMI_PROTO);
    for (int grid = 0; grid < 2; grid++) {
        gc.interval_grid_ns = grid ? 2 * S : 0;
        uint8_t *buf = NULL;
        size_t len = 0;
        char err[256] = "";
        CHECK_INT(fsc_gnmi_plan_request(&gc, 0, &buf, &len, err, sizeof(err)), 0);
        Gnmi__SubscribeRequest *req = buf ? gnmi__subscribe_request__unpack(NULL, len, buf) : NULL;
        CHECK(req && req->subscribe && req->subscribe->n_subscription == 1);
        if (req && req->subscribe && req->subscribe->n_subscription == 1)
            CHECK_INT(req->subscribe->subscription[0]->sample_interval, grid ? 2 * S : 100000000);
        if (req)
            gnmi__subscribe_request__free_unpacked(req, NULL);
        free(buf);
    }
}

TEST_MAIN(TEST(sample_proto_exact_bytes), TEST(on_change_updates_only_exact_bytes),
          TEST(streams_fields_roundtrip), TEST(path_keys_and_escapes), TEST(path_errors),
          TEST(junos_grid_rounds_up))
