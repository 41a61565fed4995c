/* gNMI decode benchmark: ns per update for SubscribeResponses of 1, 20 and
 * 64 updates (OpenConfig interface counters under an `/interfaces` prefix,
 * with a Junos header extension), the series cache warm. Messages are packed
 * once with the generated protobuf-c code; only fsc_gnmi_decode is timed.
 *
 *   gnmi_decode_bench [total_updates] [zero]   (default 20 000 000 per size)
 *
 * `zero`: the decoder follows zero-suppressed counters (gnmi_zero.c), as the
 * daemon runs it for Junos; every leaf is sent, so nothing is filled and the
 * figure is the cost of following. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/registry.h"
#include "engine/engine.h"
#include "gnmi.pb-c.h"
#include "sources/gnmi/gnmi_decode.h"
#include "junos_telemetry_header.pb-c.h"

#define PORTS 64
#define MSGS  1024

static const char *const leaves[16] = {
    "in-octets",          "out-octets",        "in-pkts",
    "out-pkts",           "in-unicast-pkts",   "out-unicast-pkts",
    "in-discards",        "out-discards",      "in-errors",
    "out-errors",         "in-fcs-errors",     "in-multicast-pkts",
    "out-multicast-pkts", "in-broadcast-pkts", "out-broadcast-pkts",
    "carrier-transitions"};

struct msg {
    uint8_t *buf;
    size_t len;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Message m of `per` updates: consecutive (port, leaf) pairs. */
static int build(struct msg *out, size_t m, size_t per)
{
    char names[64][24];
    Gnmi__PathElem pe[64][4], prefix_elem;
    Gnmi__PathElem *pe_ptr[64][4], *prefix_ptr = &prefix_elem;
    Gnmi__PathElem__KeyEntry key[64], *key_ptr[64];
    Gnmi__Path path[64], prefix;
    Gnmi__TypedValue tv[64];
    Gnmi__Update upd[64], *upd_ptr[64];

    for (size_t i = 0; i < per; i++) {
        size_t k = (m * per + i) % (PORTS * 16);
        snprintf(names[i], sizeof(names[i]), "et-0/0/%zu", k / 16);
        gnmi__path_elem__key_entry__init(&key[i]);
        key[i].key = "name";
        key[i].value = names[i];
        key_ptr[i] = &key[i];
        static const char *const el[4] = {"interface", "state", "counters", NULL};
        for (int j = 0; j < 4; j++) {
            gnmi__path_elem__init(&pe[i][j]);
            pe[i][j].name = (char *)(j < 3 ? el[j] : leaves[k % 16]);
            pe_ptr[i][j] = &pe[i][j];
        }
        pe[i][0].n_key = 1;
        pe[i][0].key = &key_ptr[i];
        gnmi__path__init(&path[i]);
        path[i].n_elem = 4;
        path[i].elem = pe_ptr[i];
        gnmi__typed_value__init(&tv[i]);
        tv[i].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
        tv[i].uint_val = 1000000000000ULL + m * 977 + i;
        gnmi__update__init(&upd[i]);
        upd[i].path = &path[i];
        upd[i].val = &tv[i];
        upd_ptr[i] = &upd[i];
    }
    gnmi__path_elem__init(&prefix_elem);
    prefix_elem.name = "interfaces";
    gnmi__path__init(&prefix);
    prefix.origin = "openconfig";
    prefix.n_elem = 1;
    prefix.elem = &prefix_ptr;

    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension h;
    junos_telemetry__gnmi_juniper_telemetry_header_extension__init(&h);
    h.system_id = "leaf1:10.0.0.1";
    h.sensor_name = "sensor_1000_1_1";
    h.subscribed_path = "/interfaces/";
    h.streamed_path = "/interfaces/";
    h.component = "mib2d";
    h.sequence_number = m;
    h.payload_get_timestamp = 1764460800000LL + (int64_t)m * 2000;
    h.stream_creation_timestamp = 1764460000000LL;
    h.export_timestamp = h.payload_get_timestamp + 5;
    uint8_t hbuf[512];
    GnmiExt__RegisteredExtension reg;
    gnmi_ext__registered_extension__init(&reg);
    reg.id = GNMI_EXT__EXTENSION_ID__EID_JUNIPER_TELEMETRY_HEADER;
    reg.msg.data = hbuf;
    reg.msg.len = junos_telemetry__gnmi_juniper_telemetry_header_extension__pack(&h, hbuf);
    GnmiExt__Extension ext, *ext_ptr = &ext;
    gnmi_ext__extension__init(&ext);
    ext.ext_case = GNMI_EXT__EXTENSION__EXT_REGISTERED_EXT;
    ext.registered_ext = &reg;

    Gnmi__Notification nt;
    gnmi__notification__init(&nt);
    nt.timestamp = h.payload_get_timestamp * 1000000LL + 12345;
    nt.prefix = &prefix;
    nt.n_update = per;
    nt.update = upd_ptr;
    Gnmi__SubscribeResponse rsp;
    gnmi__subscribe_response__init(&rsp);
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    rsp.update = &nt;
    rsp.n_extension = 1;
    rsp.extension = &ext_ptr;
    out->len = gnmi__subscribe_response__get_packed_size(&rsp);
    out->buf = malloc(out->len);
    if (!out->buf)
        return -1;
    gnmi__subscribe_response__pack(&rsp, out->buf);
    return 0;
}

int main(int argc, char **argv)
{
    long long total = argc > 1 ? atoll(argv[1]) : 20000000LL;
    bool zero = argc > 2 && strcmp(argv[2], "zero") == 0;
    static const size_t sizes[] = {1, 20, 64};
    char err[256];
    struct fsc_engine_config ecfg;
    fsc_engine_config_defaults(&ecfg);
    struct fsc_registry *reg = fsc_registry_create(100000);
    struct fsc_engine *eng = fsc_engine_create(&ecfg, NULL, err, sizeof(err));
    struct fsc_source_env env = {.reg = reg, .eng = eng};
    if (!reg || !eng || fsc_registry_source_add(reg, "leaf1", 0, &env.source_id) != 0) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    printf("updates/msg  msg_bytes  ns/update  ns/msg  (%d series, %d distinct messages%s)\n",
           PORTS * 16, MSGS, zero ? ", zero-suppressed counters followed" : "");
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t per = sizes[si];
        struct fsc_gnmi_decode_config dcfg = {
            .device = "leaf1", .sample_interval_ns = 2000000000, .fill_suppressed_zeros = zero};
        struct fsc_gnmi_decoder *dec = fsc_gnmi_decoder_create(&dcfg, &env, err, sizeof(err));
        static struct msg msgs[MSGS];
        size_t bytes = 0;
        for (size_t m = 0; m < MSGS; m++) {
            if (!dec || build(&msgs[m], m, per) != 0) {
                fprintf(stderr, "setup failed\n");
                return 1;
            }
            bytes += msgs[m].len;
        }
        struct fsc_sample smp[64];
        struct fsc_gnmi_result res;
        for (size_t m = 0; m < MSGS; m++) /* warm the series cache */
            fsc_gnmi_decode(dec, msgs[m].buf, msgs[m].len, 0, smp, 64, &res);
        long long rounds = total / (long long)(per * MSGS);
        if (rounds < 1)
            rounds = 1;
        uint64_t sink = 0;
        int64_t t0 = now_ns();
        for (long long r = 0; r < rounds; r++) {
            for (size_t m = 0; m < MSGS; m++) {
                fsc_gnmi_decode(dec, msgs[m].buf, msgs[m].len, t0, smp, 64, &res);
                sink += res.n_samples;
            }
        }
        int64_t dt = now_ns() - t0;
        double updates = (double)rounds * MSGS * (double)per;
        if (sink != (uint64_t)updates)
            fprintf(stderr, "warning: %llu samples for %.0f updates\n", (unsigned long long)sink,
                    updates);
        printf("%11zu  %9zu  %9.1f  %6.0f\n", per, bytes / MSGS, (double)dt / updates,
               (double)dt / ((double)rounds * MSGS));
        for (size_t m = 0; m < MSGS; m++)
            free(msgs[m].buf);
        fsc_gnmi_decoder_destroy(dec);
    }
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    return 0;
}
