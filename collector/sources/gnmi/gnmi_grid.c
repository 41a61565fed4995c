/* The reporting-interval grid (contract in gnmi_grid.h). */
#include "sources/gnmi/gnmi_grid.h"

#include <string.h>

int64_t fsc_gnmi_interval_on_grid(int64_t interval_ns, int64_t grid_ns)
{
    if (grid_ns <= 0 || interval_ns <= 0)
        return interval_ns;
    if (interval_ns <= grid_ns)
        return grid_ns;
    int64_t steps = interval_ns / grid_ns + (interval_ns % grid_ns != 0);
    return steps > INT64_MAX / grid_ns ? interval_ns : steps * grid_ns;
}

int64_t fsc_gnmi_interval_grid(const char *profile, enum fsc_gnmi_grid grid)
{
    if (grid != FSC_GNMI_GRID_PROFILE)
        return 0;
    return profile == NULL || strcmp(profile, "junos") == 0 ? FSC_GNMI_JUNOS_GRID_NS : 0;
}
