/* remote_write encode + compress cost: ns per sample and samples/s for
 * batches of queued samples turned into a snappy WriteRequest (label lookup
 * in the registry, sort by series, protobuf writer, libsnappy), plus the
 * reader's cost per series (engine views -> queued samples).
 *
 *   remote_write_bench [--ports N] [--batch N] [--seconds S]
 *
 * N ports of one leaf-like device set (device, port, role labels), each with
 * rx/tx bytes and 8 other counters; every batch holds the raw counters and
 * port rates a 1 s reading yields, in reading order. Never part of the test
 * suite's pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "remote_write/rw_int.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const counters[] = {
    "fabric_port_rx_bytes_total",    "fabric_port_tx_bytes_total",
    "fabric_port_rx_packets_total",  "fabric_port_tx_packets_total",
    "fabric_port_rx_discards_total", "fabric_port_tx_discards_total",
    "fabric_port_rx_errors_total",   "fabric_port_tx_errors_total",
    "fabric_port_fcs_errors_total",  "fabric_port_ecn_marked_packets_total"};
#define N_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static size_t sink_n;
static void sink(void *arg, const struct fsc_rw_sample *s, size_t n)
{
    (void)arg;
    (void)s;
    sink_n += n;
}

int main(int argc, char **argv)
{
    unsigned ports = 2048, batch = 2000;
    double seconds = 2.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ports") == 0)
            ports = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--batch") == 0)
            batch = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
    }
    if (ports == 0 || batch == 0 || seconds <= 0) {
        fprintf(stderr, "usage: remote_write_bench [--ports N] [--batch N] [--seconds S]\n");
        return 2;
    }
    size_t n_series = (size_t)ports * N_COUNTERS;
    struct fsc_registry *reg = fsc_registry_create((uint32_t)n_series + 16);
    struct fsc_engine_config ec;
    fsc_engine_config_defaults(&ec);
    char err[256];
    struct fsc_engine *eng = fsc_engine_create(&ec, NULL, err, sizeof(err));
    struct fsc_rw_sample *all = malloc(n_series * 2 * sizeof(*all));
    struct fsc_sample *smp = malloc(n_series * sizeof(*smp));
    if (!reg || !eng || !all || !smp) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    uint16_t src;
    fsc_registry_source_add(reg, "bench", 0, &src);
    size_t n_all = 0;
    const int64_t t0 = 1700000000LL * 1000000000LL;
    for (unsigned p = 0; p < ports; p++) {
        char dev[32], port[32];
        snprintf(dev, sizeof(dev), "leaf%u", p / 128 + 1);
        snprintf(port, sizeof(port), "et-0/0/%u", p % 128);
        struct fsc_label lab[] = {{"device", dev}, {"port", port}, {"role", "downlink"}};
        for (size_t c = 0; c < N_COUNTERS; c++) {
            fsc_series_id id = fsc_registry_intern(reg, src, counters[c], lab, 3);
            struct fsc_traits tr = {.kind = FSC_KIND_COUNTER,
                                    .width = 64,
                                    .signal = c < 2 ? FSC_SIG_PORT_BYTES : FSC_SIG_NONE,
                                    .direction = c == 0   ? FSC_DIR_RX
                                                 : c == 1 ? FSC_DIR_TX
                                                          : 0,
                                    .link_speed_bps = 400000000000ULL};
            fsc_engine_set_traits(eng, id, &tr);
            all[n_all++] = (struct fsc_rw_sample){.id = id,
                                                  .what = FSC_RW_RAW_COUNTER,
                                                  .t_ms = 1700000000123LL + p,
                                                  .value = 123456789.0 * (double)(c + 1)};
            if (c < 2)
                all[n_all++] = (struct fsc_rw_sample){.id = id,
                                                      .what = FSC_RW_PORT_RATE,
                                                      .dir = tr.direction,
                                                      .t_ms = 1700000000000LL,
                                                      .value = 1.25e9};
        }
    }
    struct fsc_rw_encoder enc;
    fsc_rw_encoder_init(&enc, reg);
    struct fsc_rw_sample *b = malloc(batch * sizeof(*b));
    if (!b)
        return 1;
    double start = now_s(), end = start + seconds;
    uint64_t samples = 0, raw_bytes = 0, z_bytes = 0, batches = 0;
    size_t off = 0;
    while (now_s() < end) {
        for (int rep = 0; rep < 16; rep++) {
            size_t n = n_all - off < batch ? n_all - off : batch;
            memcpy(b, all + off, n * sizeof(*b));
            off = off + n == n_all ? 0 : off + n;
            if (fsc_rw_encode_batch(&enc, b, n) != 0) {
                fprintf(stderr, "encode failed\n");
                return 1;
            }
            samples += n;
            raw_bytes += enc.body.len;
            z_bytes += enc.z.len;
            batches++;
        }
    }
    double el = now_s() - start;
    printf("encode+compress: ports=%u series=%zu batch=%u batches=%llu\n", ports, n_series, batch,
           (unsigned long long)batches);
    printf("  %.1f ns/sample  %.2f M samples/s  protobuf %.1f B/sample  snappy %.1f B/sample "
           "(%.2fx)\n",
           el * 1e9 / (double)samples, (double)samples / el / 1e6,
           (double)raw_bytes / (double)samples, (double)z_bytes / (double)samples,
           (double)raw_bytes / (double)z_bytes);

    /* Reader: every series gets a new sample per round, so each reading
     * queues one raw value per series (and window rates for port bytes). */
    struct fsc_rw_reader rd;
    fsc_rw_reader_init(&rd, reg, eng, FSC_RW_SERIES_COUNTERS | FSC_RW_SERIES_WINDOW_RATES,
                       1000000000LL, NULL, 1000000000LL, 1u << 22);
    double rtime = 0;
    unsigned rounds = 0;
    for (unsigned r = 0; r < 20; r++) {
        for (size_t i = 0; i < n_series; i++)
            smp[i] = (struct fsc_sample){.series = (fsc_series_id)i,
                                         .t_dev_ns = t0 + (int64_t)r * 1000000000LL,
                                         .v.u = (uint64_t)r * 1000000 * (i % 7 + 1)};
        fsc_engine_ingest(eng, smp, n_series);
        double s0 = now_s();
        fsc_rw_read(&rd, sink, NULL);
        rtime += now_s() - s0;
        rounds++;
    }
    printf("reader: %.1f ns/series per reading (%u readings of %zu series, %zu samples queued)\n",
           rtime * 1e9 / (double)rounds / (double)n_series, rounds, n_series, sink_n);
    fsc_rw_reader_free(&rd);
    fsc_rw_encoder_free(&enc);
    free(b);
    free(all);
    free(smp);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    return 0;
}
