/* Cumulus' link speed: the interface metric that says a port's speed, read
 * as the port's speed (engine/link_speed.h), never as a series.
 *
 * NVIDIA documents `nvswitch_interface_oper_aggregate_speed`, "Speed in
 * bits per second for the connected interface", in the Interface Statistics
 * table of Open-Telemetry-Export.md (repository CumulusNetworks/docs,
 * content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/) for 5.13, 5.14,
 * 5.15 and 5.16; the 5.11 and 5.12 tables have no speed metric at all, so
 * there the topology stays the only source of a spine's port speeds. No
 * release shows an example point of it: it is read as every interface
 * metric of that table arrives ("gauge streams ... value reported in the
 * asDouble"), a Gauge or Sum point with the port in attribute `interface`,
 * as_double or as_int. 0 says unknown; a negative, NaN or infinite value is
 * no speed (counted, ignored). One report per port: rank 0. */
#include <math.h>
#include <string.h>

#include "sources/otlp/map/otlp_ingest_int.h"

#define SPEED_METRIC "nvswitch_interface_oper_aggregate_speed"

bool otlp_speed_metric(const char *name)
{
    return strcmp(name, SPEED_METRIC) == 0;
}

/* The point's port as its series' `port` label reads (otlp_series.c:
 * labels_build), in out; NULL when the point names none. */
static const char *point_port(const struct fsc_otlp_point *p,
                              char out[FSC_OTLP_LABEL_VALUE_MAX + 1])
{
    for (uint32_t i = 0; i < p->n_attrs; i++) {
        const struct fsc_otlp_attr *a = &p->attrs[i];
        if (a->key.len != 9 || memcmp(a->key.p, "interface", 9) != 0)
            continue;
        char text[FSC_OTLP_LABEL_VALUE_MAX + 1];
        size_t n;
        if (a->type == FSC_OTLP_VAL_STRING) {
            const char *v = otlp_value_fit(a->s.p, a->s.len, text, &n);
            if (v == a->s.p)
                memcpy(text, a->s.p, n);
        } else if (a->type == FSC_OTLP_VAL_INT || a->type == FSC_OTLP_VAL_BOOL ||
                   a->type == FSC_OTLP_VAL_DOUBLE) {
            n = fsc_otlp_attr_text(a, text, sizeof(text));
        } else {
            return NULL;
        }
        return n ? otlp_label_value(text, n, out) : NULL;
    }
    return NULL;
}

void otlp_ingest_speed_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p)
{
    char port[FSC_OTLP_LABEL_VALUE_MAX + 1];
    double d = p->value_kind == FSC_OTLP_VALUE_DOUBLE ? p->as_double
               : p->value_kind == FSC_OTLP_VALUE_INT  ? (double)p->as_int
                                                      : NAN;
    /* Below 2^64: the largest double that converts exactly. */
    if (!(d >= 0 && d < 18446744073709551616.0) || !point_port(p, port)) {
        ing->st.speed_unreadable++;
        otlp_ingest_reject(ing, REJ_BAD_VALUE, "link speed without a port or a usable value");
        return;
    }
    ing->st.speeds++;
    ing->res.accepted++;
    struct fsc_link_speeds *ls = ing->ser.env.speeds;
    uint32_t h = fsc_link_speeds_port(ls, ing->device, port);
    if (h && fsc_link_speeds_learn(ls, h, 0, (uint64_t)floor(d + 0.5)) > 0)
        ing->st.speed_changes++;
}
