/* exporters.web: the status page's settings (key table web_keys.c;
 * docs/CONFIG.md, "web"). The page is served on the Prometheus
 * exporter's listener, so it runs only while that exporter does. */
#ifndef FSC_WEB_CONFIG_H
#define FSC_WEB_CONFIG_H

#include <stdbool.h>

#include "config/config.h"

struct fsc_web_config {
    bool present; /* always true: the page defaults to on */
    bool enabled; /* default true */
};

/* The kind of exporters.web (web_keys.c). */
extern const struct fsc_config_kind fsc_web_kind;

#endif
