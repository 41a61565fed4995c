/* Cumulus buffer-occupancy and latency histograms as microburst evidence
 * (otlp_ingest_int.h has the contract).
 *
 * What the histograms are (NVIDIA, CumulusNetworks/docs):
 * - content/cumulus-linux-510/Monitoring-and-Troubleshooting/ASIC-Monitoring.md,
 *   "Histogram Collection": the Spectrum ASIC samples a queue's length (egress
 *   per traffic class, ingress per priority group) every sample-interval
 *   (default 1024 ns) and counts each sample into one of 10 bins; bin 0 holds
 *   lengths up to the configured minimum boundary Min, bin 9 lengths of Max =
 *   Min + histogram size and above, bins 1..8 equal ranges in between
 *   (defaults Min 960 B, size 12288 B). The latency histogram (per traffic
 *   class) bins packets by their latency in nanoseconds the same way.
 * - content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md,
 *   "Histogram Data Format" (5.11+): one OTLP histogram point per port and
 *   class and export, the bins as bucketCounts with 9 explicitBounds (the
 *   example: 863, 1180511, ... bytes, "unit": "bytes"; latency 319, 831, ...
 *   with "unit": "packets", the count's unit); "Temporality Mode" (5.13+):
 *   delta by default ("only the counts collected within the latest time
 *   window"), or cumulative. "Latency histogram bucket counts do not
 *   increment ... if there are no packets transmitted in the traffic class".
 *
 * So the highest non-empty bucket of an export's interval counts says how
 * far the queue reached in that interval: some sample lay above that
 * bucket's lower bound (OTLP bucket i holds (bounds[i-1], bounds[i]]). That
 * bound is emitted once per export as a gauge that the engine's queue-peak
 * evidence reads like the TC watermark (engine/microburst.c):
 *   egress_buffer {tc}  -> fabric_port_queue_histogram_peak_bytes{queue}
 *                          (FSC_SIG_QUEUE_PEAK, tx: bar queue_peak_share x buffer)
 *   ingress_buffer {pg} -> fabric_port_pg_histogram_peak_bytes{priority_group}
 *                          (FSC_SIG_QUEUE_PEAK, rx: the same bar)
 *   latency {tc}        -> fabric_port_queue_histogram_latency_seconds{queue}
 *                          (FSC_SIG_LATENCY_PEAK, tx: bar microburst.latency_peak)
 * An interval whose samples all sit in bucket 0 (or that has none) gives 0:
 * nothing reached, the evidence re-arms. A cumulative export is turned into
 * its interval by the difference to the previous export of the same
 * buckets; the first export, a new start time or a decrease give no value
 * (no interval is known). */
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "sources/otlp/map/otlp_ingest_int.h"

#define HV "nvswitch_histogram_interface_"
/* 'e' + role + device + port + class, each text with its length byte */
#define EV_KEY_MAX (2 + 3 * (1 + FSC_OTLP_LABEL_VALUE_MAX))

/* Sorted by name for bsearch. */
static const struct otlp_hist_evid roles[] = {
    {HV "egress_buffer", "fabric_port_queue_histogram_peak_bytes", "queue", "tc",
     FSC_SIG_QUEUE_PEAK, FSC_UNIT_BYTES, FSC_DIR_TX, 1.0},
    {HV "ingress_buffer", "fabric_port_pg_histogram_peak_bytes", "priority_group", "pg",
     FSC_SIG_QUEUE_PEAK, FSC_UNIT_BYTES, FSC_DIR_RX, 1.0},
    {HV "latency", "fabric_port_queue_histogram_latency_seconds", "queue", "tc",
     FSC_SIG_LATENCY_PEAK, FSC_UNIT_SECONDS, FSC_DIR_TX, 1e-9},
};
#define N_ROLES (sizeof(roles) / sizeof(roles[0]))

const struct otlp_hist_evid *otlp_hist_evid_role(const char *metric)
{
    for (size_t i = 0; i < N_ROLES; i++)
        if (strcmp(metric, roles[i].name) == 0)
            return &roles[i];
    return NULL;
}

double otlp_hist_evid_reached(const uint64_t *d, const double *bounds, uint32_t nb)
{
    if (nb == 0 || d[nb - 1] == 0)
        return 0;
    uint32_t k = 0;
    while (d[k] != d[nb - 1]) /* the first le bucket holding every sample */
        k++;
    return k == 0 ? 0 : bounds[k - 1];
}

/* The current point's attribute `key` (ing->kv), or NULL. */
static const struct otlp_kv *kv_get(const struct fsc_otlp_ingest *ing, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < ing->n_kv; i++)
        if (ing->kv[i].klen == n && memcmp(ing->kv[i].key, key, n) == 0)
            return &ing->kv[i];
    return NULL;
}

static uint8_t *put_text(uint8_t *k, const char *v, uint32_t n)
{
    if (n > FSC_OTLP_LABEL_VALUE_MAX)
        n = FSC_OTLP_LABEL_VALUE_MAX; /* cut as labels are: the key stays bounded */
    *k++ = (uint8_t)n;
    memcpy(k, v, n);
    return k + n;
}

/* State index of the peak gauge of the current point's port and class,
 * made on first use; UINT32_MAX when it cannot be (no port, limits). */
static uint32_t peak_state(struct fsc_otlp_ingest *ing, const struct otlp_hist_evid *r)
{
    const struct otlp_kv *port = kv_get(ing, "interface");
    const struct otlp_kv *cls = kv_get(ing, r->attr);
    if (!port || !port->vlen)
        return UINT32_MAX;
    /* A key no wire point can have: wire keys start with 'n' or 'h'. */
    uint8_t key[EV_KEY_MAX], *k = key;
    *k++ = 'e';
    *k++ = (uint8_t)(r - roles);
    k = put_text(k, ing->device, (uint32_t)strlen(ing->device));
    k = put_text(k, port->val, port->vlen);
    k = cls ? put_text(k, cls->val, cls->vlen) : put_text(k, "", 0);
    uint32_t n = (uint32_t)(k - key), n_ser = 0;
    uint64_t h = fsc_hash_bytes(key, n, 0);
    const uint32_t *idx = otlp_cache_find(&ing->ser, key, n, h, &n_ser);
    if (!idx) {
        struct otlp_plan plan;
        memset(&plan, 0, sizeof(plan));
        snprintf(plan.m.canonical, sizeof(plan.m.canonical), "%s", r->canonical);
        snprintf(plan.m.label_name, sizeof(plan.m.label_name), "%s", r->label);
        plan.m.label_attr = r->attr;
        plan.m.traits = (struct fsc_traits){.kind = FSC_KIND_GAUGE,
                                            .width = 53,
                                            .unit = r->unit,
                                            .signal = r->signal,
                                            .direction = r->dir,
                                            .scale = 1};
        plan.kind = FSC_KIND_GAUGE;
        plan.native = NULL; /* derived from a histogram, not a name that arrived */
        struct otlp_kv kv[2] = {*port};
        size_t n_kv = 1;
        if (cls)
            kv[n_kv++] = *cls; /* "interface" < "pg", "tc": sorted */
        struct otlp_ident id = {.device = ing->device, .kv = kv, .n_kv = n_kv};
        const char *why;
        bool labels;
        idx = otlp_series_create(&ing->ser, &id, &plan, key, n, h, &n_ser, &why, &labels);
    }
    if (!idx || n_ser != 1) {
        ing->st.hist_evid_unplaced++;
        return UINT32_MAX;
    }
    return idx[0];
}

void otlp_ingest_hist_evid(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                           const uint64_t *d, uint32_t nb)
{
    const struct otlp_hist_evid *r = ing->mhev;
    uint32_t st = peak_state(ing, r);
    if (st == UINT32_MAX)
        return;
    double v = otlp_hist_evid_reached(d, p->bounds, nb) * r->to_unit;
    bool reset = false;
    otlp_ingest_apply(ing, &ing->ser.st[st], 0, OTLP_MODE_GAUGE, 0, true, (union fsc_value){.d = v},
                      (int64_t)p->time_ns, &reset);
    ing->st.hist_evid_samples++;
}
