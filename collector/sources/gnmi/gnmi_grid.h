/* The reporting-interval grid of a gNMI target: pure arithmetic the config
 * decoder (gnmi_keys.c: check-config's warning) and the planner
 * (gnmi_plan.c: the SubscribeRequest) share, kept apart from the planner so
 * that decoding a config needs no protobuf-c (the fuzz build has none). */
#ifndef FSC_GNMI_GRID_H
#define FSC_GNMI_GRID_H

#include <stdint.h>

#include "sources/gnmi/gnmi_config.h"

/* Junos reporting intervals: "the reporting interval can't be configured to
 * anything but multiples of 2 seconds" (Juniper, "Guidelines for Specifying
 * Data Reporting Intervals", https://www.juniper.net/documentation/us/en/
 * software/junos/interfaces-telemetry/topics/concept/
 * junos-telemetry-interface-reporting-intervals-guidelines.html). */
#define FSC_GNMI_JUNOS_GRID_NS 2000000000LL

/* The SAMPLE interval a target on `grid_ns` is asked for: interval_ns
 * rounded UP to a multiple of grid_ns (a device that cannot report as
 * often as asked is asked for the next interval it can keep), at least one
 * grid step. grid_ns <= 0: interval_ns unchanged. Pure. */
int64_t fsc_gnmi_interval_on_grid(int64_t interval_ns, int64_t grid_ns);

/* The grid of a source: FSC_GNMI_JUNOS_GRID_NS for the junos profile with
 * sample_interval_grid: profile, else 0. profile may be NULL (= junos, the
 * type's default). Pure. */
int64_t fsc_gnmi_interval_grid(const char *profile, enum fsc_gnmi_grid grid);

#endif
