/* The gNMI simulator's model and messages (collector/demo/sim, gnmi_sim.h).
 * Queue peaks: each report's max-queue-len (qmon peak-buffer-occupancy-bytes
 * with --os junos) is the peak within the time since the port's previous
 * report of that sensor. Known answers from the formulas: utilization 0.3
 * gives a baseline of 300 000 >> queue; a burst on the burst port fills the
 * chosen queue to --burst-peak (every queue to --burst-peak >> queue when
 * none is chosen) in exactly the report whose interval holds it; the average
 * is half the peak. Messages: the leaves of each sensor as Junos OS Evolved
 * renders them, zero suppression, the sensors each OS serves. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "demo/sim/gnmi_sim.h"
#include "test.h"
#include "gnmi.pb-c.h"

#define EPOCH 1700000000000LL /* ms: the counter epoch of every case */

static struct fsc_sim_config demo_like(void)
{
    struct fsc_sim_config c;
    fsc_sim_config_defaults(&c);
    c.ports = 8;
    c.queues = 4;
    c.utilization = 0.3;
    c.burst_port = 3;
    c.burst_every_ms = 30000; /* bursts at [30 s, 30.3 s), [60 s, 60.3 s), ... */
    c.burst_length_ms = 300;
    c.burst_queue = 3;
    c.burst_peak_bytes = 108134400;
    return c;
}

/* Reports of `port` every `every` ms from value time EPOCH + first up to
 * EPOCH + last (inclusive), through fsc_sim_peak_window as the stream keeps
 * it; returns how many reports showed a peak other than the baseline on any
 * queue, with the value time of the last of them in *at and its peaks in
 * got[]. */
static int run_reports(const struct fsc_sim_config *c, uint32_t port, int64_t first, int64_t every,
                       int64_t last, int64_t *at, uint64_t got[FSC_SIM_MAX_QUEUES])
{
    int64_t from = 0, to = 0;
    int high = 0;
    for (int64_t t = first; t <= last; t += every) {
        uint64_t pk[FSC_SIM_MAX_QUEUES];
        fsc_sim_peak_window(&from, &to, EPOCH, EPOCH + t, every);
        fsc_sim_queue_peaks(c, port, EPOCH, from, to, pk);
        int base = 1;
        for (uint32_t q = 0; q < c->queues; q++)
            base &= pk[q] == (300000u >> q);
        if (!base) {
            high++;
            *at = t;
            memcpy(got, pk, sizeof(pk));
        }
    }
    return high;
}

/* A 300 ms burst inside a 2 s interval: one report, the one at 32 s whose
 * interval [30 s, 32 s) holds it, shows the burst queue's peak; the other
 * queues and every other report read the baseline. */
static void burst_inside_interval_once(void)
{
    struct fsc_sim_config c = demo_like();
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 58000, &at, got), 1);
    CHECK_INT(at, 32000);
    CHECK_INT(got[3], 108134400);
    CHECK_INT(got[0], 300000);
    CHECK_INT(got[1], 150000);
    CHECK_INT(got[2], 75000);
    /* The same burst seen by a port reported every 4 s off the copy grid
     * (a Junos batch of half the ports): the report at 33 s, [29 s, 33 s). */
    CHECK_INT(run_reports(&c, 3, 1000, 4000, 57000, &at, got), 1);
    CHECK_INT(at, 33000);
    CHECK_INT(got[3], 108134400);
    /* Through the second period: the burst at 60 s in the report at 62 s. */
    CHECK_INT(run_reports(&c, 3, 34000, 2000, 88000, &at, got), 1);
    CHECK_INT(at, 62000);
}

/* No burst: the baseline on every other port, and on the burst port before
 * its first burst (bursts start one period after the epoch). */
static void no_burst_baseline(void)
{
    struct fsc_sim_config c = demo_like();
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 2, 2000, 2000, 120000, &at, got), 0);
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 30000, &at, got), 0);
    uint64_t pk[FSC_SIM_MAX_QUEUES];
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 28000, EPOCH + 30000, pk);
    CHECK_INT(pk[3], 37500);
    CHECK_INT(pk[4], 0); /* past --queues */
    c.burst_port = -1;
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 30000, EPOCH + 32000, pk);
    CHECK_INT(pk[3], 37500);
}

/* Edges: a burst that starts exactly at a report's value time belongs to the
 * next interval; one that straddles a report shows in both intervals it
 * occupies (the peak of each); a stale copy exported again repeats its
 * window; a counter reset looks back one interval from the new epoch. */
static void edges_and_repeats(void)
{
    struct fsc_sim_config c = demo_like();
    c.burst_every_ms = 32000; /* [32 s, 32.3 s) */
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 60000, &at, got), 1);
    CHECK_INT(at, 34000);
    c.burst_every_ms = 31900; /* [31.9 s, 32.2 s): both [30, 32) and [32, 34) */
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 60000, &at, got), 2);
    CHECK_INT(at, 34000);

    int64_t from = 0, to = 0;
    fsc_sim_peak_window(&from, &to, EPOCH, EPOCH + 2000, 2000);
    CHECK_INT(from, EPOCH);
    CHECK_INT(to, EPOCH + 2000);
    fsc_sim_peak_window(&from, &to, EPOCH, EPOCH + 4000, 2000);
    CHECK_INT(from, EPOCH + 2000);
    CHECK_INT(to, EPOCH + 4000);
    fsc_sim_peak_window(&from, &to, EPOCH, EPOCH + 4000, 2000); /* stale */
    CHECK_INT(from, EPOCH + 2000);
    CHECK_INT(to, EPOCH + 4000);
    fsc_sim_peak_window(&from, &to, EPOCH + 10000, EPOCH + 11000, 2000); /* reset */
    CHECK_INT(from, EPOCH + 10000);
    CHECK_INT(to, EPOCH + 11000);
    fsc_sim_peak_window(&from, &to, EPOCH + 10000, EPOCH + 15000, 2000);
    CHECK_INT(from, EPOCH + 11000);
    CHECK_INT(to, EPOCH + 15000);
}

/* No queue chosen: every queue fills, --burst-peak >> queue (the default
 * 12e6), as before the option existed; the instant value of
 * fsc_sim_port_values is the peak of the millisecond it is taken. */
static void every_queue_and_instant(void)
{
    struct fsc_sim_config c = demo_like();
    c.burst_queue = -1;
    c.burst_peak_bytes = 12000000;
    uint64_t pk[FSC_SIM_MAX_QUEUES];
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 30000, EPOCH + 32000, pk);
    for (uint32_t q = 0; q < 4; q++)
        CHECK_INT(pk[q], 12000000u >> q);
    struct fsc_sim_port_values v;
    fsc_sim_port_values(&c, 3, EPOCH, EPOCH + 30299, &v);
    CHECK_INT(v.q_peak_bytes[1], 6000000);
    fsc_sim_port_values(&c, 3, EPOCH, EPOCH + 30300, &v);
    CHECK_INT(v.q_peak_bytes[1], 150000);
}

/* Counter formulas at known value times: 400G line = 5e10 B/s, utilization
 * 0.3 = 1.5e10 B/s; the burst port's first burst is [30 s, 30.3 s). */
static void port_values_known_answers(void)
{
    struct fsc_sim_config c = demo_like();
    struct fsc_sim_port_values v;
    /* Port 3 at 31 s: 300 ms of burst, each adding (5e10 - 1.5e10) x 0.3 s. */
    fsc_sim_port_values(&c, 3, EPOCH, EPOCH + 31000, &v);
    CHECK_INT(v.in_octets, 15000000000ULL * 31 + 10500000000ULL);
    CHECK_INT(v.in_pause, 10 * 300);
    CHECK_INT(v.out_pause, 4 * 300);
    CHECK_INT(v.in_pfc[3], 3000); /* PFC on priority 3 carries the pauses */
    CHECK_INT(v.out_pfc[3], 1200);
    for (int p = 0; p < FSC_SIM_PFC_PRIORITIES; p++)
        if (p != 3)
            CHECK_INT(v.in_pfc[p] + v.out_pfc[p], 0);
    CHECK_INT(v.fec_corrected_words, 475500);
    CHECK_INT(v.fec_uncorrectable_words, 0);
    /* The instant 31 s holds no burst: baseline peak, half of it on average. */
    CHECK_INT(v.q_peak_bytes[3], 37500);
    CHECK_INT(v.q_avg_bytes[3], 18750);
    CHECK_INT(v.q_avg_bytes[0], 150000);
    /* Port 2 at 100 s: 1.5e12 bytes, one uncorrectable word per 1e12. */
    fsc_sim_port_values(&c, 2, EPOCH, EPOCH + 100000, &v);
    CHECK_INT(v.in_octets, 1500000000000ULL);
    CHECK_INT(v.fec_corrected_words, 1500000);
    CHECK_INT(v.fec_uncorrectable_words, 1);
    CHECK_INT(v.in_pause + v.in_pfc[3], 0);
    /* The levels of a window holding the burst: the peak, avg = peak / 2. */
    fsc_sim_queue_levels(&c, 3, EPOCH, EPOCH + 30000, EPOCH + 32000, &v);
    CHECK_INT(v.q_peak_bytes[3], 108134400);
    CHECK_INT(v.q_avg_bytes[3], 54067200);
    CHECK_INT(v.q_avg_bytes[0], 150000);
}

/* One message of `sensor` for port 0 at the epoch (every counter 0), parsed
 * back. The caller frees it. */
static Gnmi__SubscribeResponse *message_at_epoch(unsigned sensor, int zero_suppress)
{
    struct fsc_sim_config c = demo_like();
    struct fsc_sim_port_values v;
    fsc_sim_port_values(&c, 0, EPOCH, EPOCH, &v);
    struct fsc_sim_msg_meta meta = {.system_id = "t",
                                    .subscribed_path = "/",
                                    .sensor = sensor,
                                    .port = 0,
                                    .queues = 4,
                                    .payload_ms = EPOCH,
                                    .epoch_ms = EPOCH,
                                    .export_ms = EPOCH,
                                    .zero_suppress = zero_suppress};
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK_INT(fsc_sim_msg_update(&meta, &v, &buf, &len), 0);
    Gnmi__SubscribeResponse *rsp = gnmi__subscribe_response__unpack(NULL, len, buf);
    free(buf);
    CHECK(rsp != NULL && rsp->update != NULL);
    return rsp;
}

/* The path of update i below the prefix, "a/b[k=v]/c". */
static void update_path(const Gnmi__Notification *n, size_t i, char *out, size_t cap)
{
    size_t off = 0;
    out[0] = '\0';
    const Gnmi__Path *p = n->update[i]->path;
    for (size_t e = 0; e < p->n_elem && off < cap; e++) {
        off += (size_t)snprintf(out + off, cap - off, "%s%s", e ? "/" : "", p->elem[e]->name);
        for (size_t k = 0; k < p->elem[e]->n_key && off < cap; k++)
            off += (size_t)snprintf(out + off, cap - off, "[%s=%s]", p->elem[e]->key[k]->key,
                                    p->elem[e]->key[k]->value);
    }
}

/* Leaves per sensor as Junos OS Evolved renders them, and zero suppression:
 * at the epoch only carrier-transitions (1), the queue levels (baseline
 * peaks) and the speeds are not 0. */
static void messages_and_zero_suppress(void)
{
    static const struct {
        unsigned sensor;
        size_t all, suppressed;
    } want[] = {
        {FSC_SIM_SENSOR_IF, 16, 1},     {FSC_SIM_SENSOR_ETH, 3 + 16, 0},
        {FSC_SIM_SENSOR_QOS, 6 * 4, 8}, {FSC_SIM_SENSOR_QMON, 5 * 4, 4},
        {FSC_SIM_SENSOR_FEC, 2, 0},     {FSC_SIM_SENSOR_SPEED, 3, 3},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        for (int zs = 0; zs < 2; zs++) {
            Gnmi__SubscribeResponse *rsp = message_at_epoch(want[i].sensor, zs);
            if (rsp == NULL || rsp->update == NULL)
                continue;
            size_t n = rsp->update->n_update;
            if (n != (zs ? want[i].suppressed : want[i].all))
                fprintf(stderr, "sensor 0x%x zero_suppress=%d: %zu updates\n", want[i].sensor, zs,
                        n);
            CHECK_INT(n, zs ? want[i].suppressed : want[i].all);
            gnmi__subscribe_response__free_unpacked(rsp, NULL);
        }
    }
    char path[160];
    Gnmi__SubscribeResponse *rsp = message_at_epoch(FSC_SIM_SENSOR_QOS, 0);
    const Gnmi__Notification *n = rsp->update;
    update_path(n, 4, path, sizeof(path));
    CHECK_STR(path, "queue[name=0]/state/max-queue-len");
    CHECK_INT(n->update[4]->val->uint_val, 300000);
    update_path(n, 5, path, sizeof(path));
    CHECK_STR(path, "queue[name=0]/state/avg-queue-len");
    CHECK_INT(n->update[5]->val->uint_val, 150000);
    for (size_t u = 0; u < n->n_update; u++) {
        update_path(n, u, path, sizeof(path));
        CHECK(strstr(path, "ecn") == NULL); /* Juniper renders no ECN counter */
    }
    gnmi__subscribe_response__free_unpacked(rsp, NULL);

    rsp = message_at_epoch(FSC_SIM_SENSOR_QMON, 1);
    n = rsp->update;
    CHECK_INT(n->prefix->n_elem, 4);
    CHECK_STR(n->prefix->elem[3]->name, "qmon-sw");
    CHECK_STR(n->prefix->elem[3]->key[0]->key, "name");
    CHECK_STR(n->prefix->elem[3]->key[0]->value, "et-0/0/0");
    update_path(n, 1, path, sizeof(path));
    CHECK_STR(path, "egress[queue-number=1]/peak-buffer-occupancy-bytes");
    CHECK_INT(n->update[1]->val->uint_val, 150000);
    gnmi__subscribe_response__free_unpacked(rsp, NULL);

    rsp = message_at_epoch(FSC_SIM_SENSOR_ETH, 0); /* 4 queues, 8 priorities */
    update_path(rsp->update, 3 + 2 * 3, path, sizeof(path));
    CHECK_STR(path, "jnx-pfc-statistics[priority=3]/in-mac-pause-frames");
    update_path(rsp->update, 3 + 2 * 7 + 1, path, sizeof(path));
    CHECK_STR(path, "jnx-pfc-statistics[priority=7]/out-mac-pause-frames");
    gnmi__subscribe_response__free_unpacked(rsp, NULL);

    rsp = message_at_epoch(FSC_SIM_SENSOR_FEC, 0);
    n = rsp->update;
    CHECK_STR(n->prefix->elem[0]->name, "state");
    update_path(n, 1, path, sizeof(path));
    CHECK_STR(path, "fec-uncorrectable-words");
    gnmi__subscribe_response__free_unpacked(rsp, NULL);

    rsp = message_at_epoch(FSC_SIM_SENSOR_SPEED, 1);
    n = rsp->update;
    update_path(n, 0, path, sizeof(path));
    CHECK_STR(path, "ethernet/state/port-speed");
    CHECK_INT(n->update[0]->val->value_case, GNMI__TYPED_VALUE__VALUE_STRING_VAL);
    CHECK_STR(n->update[0]->val->string_val, "SPEED_400GB");
    update_path(n, 1, path, sizeof(path));
    CHECK_STR(path, "ethernet/state/negotiated-port-speed");
    update_path(n, 2, path, sizeof(path));
    CHECK_STR(path, "state/high-speed");
    CHECK_INT(n->update[2]->val->uint_val, 400000);
    gnmi__subscribe_response__free_unpacked(rsp, NULL);
}

/* Parses a SubscribeRequest for one path against a target's served sensors. */
static int parse_one(const char *const *elems, size_t n, unsigned served, unsigned *sensors)
{
    Gnmi__PathElem pe[8], *pep[8];
    for (size_t i = 0; i < n; i++) {
        gnmi__path_elem__init(&pe[i]);
        pe[i].name = (char *)elems[i];
        pep[i] = &pe[i];
    }
    Gnmi__Path path = GNMI__PATH__INIT;
    path.elem = pep;
    path.n_elem = n;
    Gnmi__Subscription sub = GNMI__SUBSCRIPTION__INIT, *subp = &sub;
    sub.path = &path;
    Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
    list.subscription = &subp;
    list.n_subscription = 1;
    Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
    req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
    req.subscribe = &list;
    uint8_t buf[512];
    size_t len = gnmi__subscribe_request__pack(&req, buf);
    struct fsc_sim_request r;
    char err[160];
    int rc = fsc_sim_request_parse(buf, len, served, &r, err, sizeof(err));
    *sensors = rc == 0 ? r.sensors : 0;
    return rc;
}

/* Junos OS Evolved has no qmon-sw: a path that selects only it is refused;
 * the speed leaves select the speed sensor alone. */
static void sensors_served(void)
{
    struct fsc_sim_config evo = demo_like(), junos = demo_like();
    junos.junos_os = 1;
    static const char *const qmon[] = {"junos", "system", "linecard", "qmon-sw"};
    static const char *const root[] = {"..."};
    static const char *const hs[] = {"interfaces", "interface", "state", "high-speed"};
    static const char *const eth[] = {"interfaces", "interface", "ethernet", "state", "counters"};
    static const char *const fec[] = {"state", "interfaces", "interface", "ethernet", "counters"};
    unsigned got;
    CHECK_INT(parse_one(qmon, 4, FSC_SIM_SENSORS_SERVED(&evo), &got), -EBADMSG);
    CHECK_INT(parse_one(qmon, 4, FSC_SIM_SENSORS_SERVED(&junos), &got), 0);
    CHECK_INT(got, FSC_SIM_SENSOR_QMON);
    CHECK_INT(parse_one(root, 1, FSC_SIM_SENSORS_SERVED(&evo), &got), 0);
    CHECK_INT(got & FSC_SIM_SENSOR_QMON, 0);
    CHECK(got & FSC_SIM_SENSOR_SPEED);
    CHECK_INT(parse_one(hs, 4, FSC_SIM_SENSORS_SERVED(&evo), &got), 0);
    CHECK_INT(got, FSC_SIM_SENSOR_SPEED);
    CHECK_INT(parse_one(eth, 5, FSC_SIM_SENSORS_SERVED(&evo), &got), 0);
    CHECK_INT(got, FSC_SIM_SENSOR_ETH);
    CHECK_INT(parse_one(fec, 5, FSC_SIM_SENSORS_SERVED(&evo), &got), 0);
    CHECK_INT(got, FSC_SIM_SENSOR_FEC);
}

TEST_MAIN(TEST(burst_inside_interval_once), TEST(no_burst_baseline), TEST(edges_and_repeats),
          TEST(every_queue_and_instant), TEST(port_values_known_answers),
          TEST(messages_and_zero_suppress), TEST(sensors_served))
