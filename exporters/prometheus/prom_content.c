#include "prometheus/prom_render.h"

/* Content types from the exposition format specs (Prometheus'
 * exposition_formats.md, OpenMetrics 1.0). */
const char *fsc_prom_content_type(enum fsc_prom_format fmt)
{
    return fmt == FSC_PROM_OPENMETRICS
               ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
               : "text/plain; version=0.0.4; charset=utf-8";
}
