/* Metric, traits and value multiplier of one NIC counter (nic_plan.h). */
#include "sources/nic/nic_plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int plan_netdev(const char *name, struct fsc_nic_plan *out)
{
    char san[FSC_PROFILE_NAME_MAX];
    size_t l = fsc_metric_name_sanitize(name, san, sizeof(san));
    if (l == 0 || l >= sizeof(san))
        return -1;
    int w = snprintf(out->metric, sizeof(out->metric), "fabric_netdev_%s_total", san);
    if (w < 0 || (size_t)w >= sizeof(out->metric))
        return -1;
    struct fsc_traits *tr = &out->tr;
    tr->kind = FSC_KIND_COUNTER;
    tr->width = 64;
    tr->unit = has_suffix(name, "_bytes")     ? FSC_UNIT_BYTES
               : has_suffix(name, "_packets") ? FSC_UNIT_PACKETS
                                              : FSC_UNIT_NONE;
    tr->direction = strncmp(name, "rx_", 3) == 0   ? FSC_DIR_RX
                    : strncmp(name, "tx_", 3) == 0 ? FSC_DIR_TX
                                                   : FSC_DIR_NONE;
    return 0;
}

static int plan_vendor(const struct fsc_nic_plan_in *in, const char *name, struct fsc_nic_plan *out)
{
    if (fsc_profile_map(in->prof, name, &out->m) != 0)
        return -1;
    int w = snprintf(out->metric, sizeof(out->metric), "%s", out->m.canonical);
    if (w < 0 || (size_t)w >= sizeof(out->metric))
        return -1;
    out->tr = out->m.traits;
    /* applied by the poller, so the engine must not apply it again */
    out->mult = out->tr.scale > 1 ? out->tr.scale : 1;
    /* A repeat inside the lifespan is a cached copy, not idleness. The file
     * is hw_counters' own; the other groups keep the profile's default. */
    if (in->group == NIC_G_HW && in->lifespan_ms >= 0)
        out->tr.refresh_ns = in->lifespan_ms * 1000000;
    return 0;
}

int fsc_nic_counter_plan(const struct fsc_nic_plan_in *in, const char *name,
                         struct fsc_nic_plan *out)
{
    memset(out, 0, sizeof(*out));
    out->mult = 1;
    int rc = in->group == NIC_G_STAT ? plan_netdev(name, out) : plan_vendor(in, name, out);
    if (rc != 0)
        return -1;
    struct fsc_traits *tr = &out->tr;
    tr->scale = 1;
    tr->nominal_interval_ns = in->interval_ns;
    if (tr->unit == FSC_UNIT_BYTES || tr->unit == FSC_UNIT_PACKETS ||
        tr->signal == FSC_SIG_PORT_BYTES)
        tr->link_speed_bps = in->speed_bps;
    return 0;
}
