/* Seed generator for the committed corpora that need a program (the rest is
 * copied by hand, README.md). Not a test; built on demand:
 *
 *     make -C build fuzz_gen_seeds
 *     build/tests/fuzz/fuzz_gen_seeds tests/fuzz/corpus tests/fixtures/otlp/<name>.json ...
 *
 * writes corpus/gnmi/sim_* (gnmi_sim's SubscribeResponses: each sensor, a
 * few ports, the sync response), corpus/junos_header/sim_* (the Junos header
 * extension payloads of those messages) and corpus/otlp_proto/<fixture>.pb
 * (each JSON fixture decoded and re-encoded as protobuf, otlp_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo/sim/gnmi_sim.h"
#include "otlp_trace.h"

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "gen_seeds: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

/* The bytes of the first length-delimited field `field` in [p, end), or NULL. */
static const uint8_t *find_len(const uint8_t *p, const uint8_t *end, uint32_t field, size_t *n)
{
    while (p < end) {
        uint64_t tag = 0, v = 0;
        for (unsigned s = 0; p < end && s < 64; s += 7) {
            tag |= (uint64_t)(*p & 0x7f) << s;
            if (!(*p++ & 0x80))
                break;
        }
        unsigned wt = tag & 7;
        if (wt == 0) {
            while (p < end && (*p++ & 0x80))
                ;
        } else if (wt == 1 || wt == 5) {
            p += wt == 1 ? 8 : 4;
        } else if (wt == 2) {
            for (unsigned s = 0; p < end && s < 64; s += 7) {
                v |= (uint64_t)(*p & 0x7f) << s;
                if (!(*p++ & 0x80))
                    break;
            }
            if ((tag >> 3) == field) {
                *n = (size_t)v;
                return p;
            }
            p += v;
        } else {
            return NULL;
        }
    }
    return NULL;
}

static void gnmi_seeds(const char *root)
{
    char gdir[512], jdir[512], name[64];
    snprintf(gdir, sizeof gdir, "%s/gnmi", root);
    snprintf(jdir, sizeof jdir, "%s/junos_header", root);
    struct fsc_sim_config cfg;
    fsc_sim_config_defaults(&cfg);
    cfg.queues = 2; /* small messages */
    const int64_t epoch = 1731676800000, t = epoch + 12345;
    static const unsigned sensors[] = {FSC_SIM_SENSOR_IF, FSC_SIM_SENSOR_ETH, FSC_SIM_SENSOR_QOS,
                                       FSC_SIM_SENSOR_QMON};
    static const char *const paths[] = {
        "/interfaces/interface/state/counters", "/interfaces/interface/ethernet/state/counters",
        "/qos/interfaces/interface/output/queues", "/junos/system/linecard/qmon-sw"};
    for (unsigned s = 0; s < 4; s++) {
        for (uint32_t port = 0; port < 2; port++) {
            struct fsc_sim_port_values v;
            fsc_sim_port_values(&cfg, port, epoch, t, &v);
            struct fsc_sim_msg_meta meta = {.system_id = "qfx5240-sim",
                                            .subscribed_path = paths[s],
                                            .sensor = sensors[s],
                                            .port = port,
                                            .queues = cfg.queues,
                                            .sequence = 100 + s * 2 + port,
                                            .payload_ms = t,
                                            .epoch_ms = epoch,
                                            .export_ms = t + 3,
                                            .eom = s == 3 && port == 1};
            uint8_t *msg;
            size_t len;
            if (fsc_sim_msg_update(&meta, &v, &msg, &len) != 0)
                exit(1);
            snprintf(name, sizeof name, "sim_s%u_p%u.pb", s, port);
            write_file(gdir, name, msg, len);
            size_t en, rn, hn;
            const uint8_t *ext = find_len(msg, msg + len, 5, &en);
            const uint8_t *reg = ext ? find_len(ext, ext + en, 1, &rn) : NULL;
            const uint8_t *hdr = reg ? find_len(reg, reg + rn, 2, &hn) : NULL;
            if (!hdr) {
                fprintf(stderr, "gen_seeds: no Junos header in the simulator's message\n");
                exit(1);
            }
            snprintf(name, sizeof name, "sim_s%u_p%u.hdr", s, port);
            write_file(jdir, name, hdr, hn);
            free(msg);
        }
    }
    uint8_t *msg;
    size_t len;
    if (fsc_sim_msg_sync(&msg, &len) != 0)
        exit(1);
    write_file(gdir, "sim_sync.pb", msg, len);
    free(msg);
}

static void otlp_seed(const char *root, const char *json_path)
{
    FILE *f = fopen(json_path, "rb");
    if (!f) {
        fprintf(stderr, "gen_seeds: cannot open %s\n", json_path);
        exit(1);
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    struct otlp_enc e;
    struct fsc_otlp_visitor v = otlp_enc_visitor(&e);
    char err[256], dir[512], name[256];
    if (fsc_otlp_decode_json(buf, n, &v, err, sizeof err) != 0) {
        fprintf(stderr, "gen_seeds: %s skipped: %s\n", json_path, err);
        return;
    }
    otlp_enc_finish(&e);
    const char *base = strrchr(json_path, '/');
    base = base ? base + 1 : json_path;
    snprintf(name, sizeof name, "%.*s.pb", (int)(strlen(base) - (strstr(base, ".json") ? 5 : 0)),
             base);
    snprintf(dir, sizeof dir, "%s/otlp_proto", root);
    write_file(dir, name, e.out.data, e.out.len);
    otlp_enc_free(&e);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_gen_seeds CORPUS_DIR [otlp.json...]\n");
        return 2;
    }
    gnmi_seeds(argv[1]);
    for (int i = 2; i < argc; i++)
        otlp_seed(argv[1], argv[i]);
    return 0;
}
