/* The gNMI decoder's test environment: a registry + engine around one
 * decoder, and series text; messages come from gnmi_msg_fixture.h.
 * Included by one test file each (static functions). */
#ifndef FSC_GNMI_DECODE_FIXTURE_H
#define FSC_GNMI_DECODE_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "event_fixture.h"
#include "gnmi_msg_fixture.h"
#include "sources/gnmi/gnmi_decode.h"
#include "test.h"
#include "config_all.h"

/* ---- environment ------------------------------------------------------------ */

struct env {
    struct fsc_registry *reg;
    struct fsc_event_bus *bus; /* the engine's: counter_reset events */
    struct fsc_engine *eng;
    struct fsc_config *cfg; /* topology, when given */
    struct fsc_gnmi_decoder *dec;
};

/* Opens the environment with the decoder configured by dcfg (device
 * "leaf1" when dcfg names none). */
static inline int env_open_cfg(struct env *e, const char *yaml, struct fsc_gnmi_decode_config dcfg)
{
    char err[256];
    memset(e, 0, sizeof(*e));
    struct fsc_engine_config ecfg;
    fsc_engine_config_defaults(&ecfg);
    if (yaml) {
        e->cfg = fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
        if (!e->cfg) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
    }
    e->reg = fsc_registry_create(10000);
    e->bus = fsc_event_bus_create(256);
    e->eng =
        fsc_engine_create(e->cfg ? fsc_engine_config_of(e->cfg) : &ecfg, e->bus, err, sizeof(err));
    struct fsc_source_env senv = {.reg = e->reg, .eng = e->eng};
    if (e->cfg)
        senv.topo = fsc_topology_of(e->cfg);
    if (!e->reg || !e->bus || !e->eng ||
        fsc_registry_source_add(e->reg, "leaf1", 0, &senv.source_id) != 0)
        return -1;
    if (!dcfg.device)
        dcfg.device = "leaf1";
    e->dec = fsc_gnmi_decoder_create(&dcfg, &senv, err, sizeof(err));
    if (!e->dec) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static inline int env_open(struct env *e, const char *yaml, uint32_t max_series)
{
    struct fsc_gnmi_decode_config dcfg = {
        .device = "leaf1", .sample_interval_ns = 2000000000, .max_series = max_series};
    return env_open_cfg(e, yaml, dcfg);
}

static inline void env_close(struct env *e)
{
    fsc_gnmi_decoder_destroy(e->dec);
    fsc_engine_destroy(e->eng);
    fsc_event_bus_destroy(e->bus);
    fsc_registry_destroy(e->reg);
    fsc_config_destroy(e->cfg);
    tb_reset();
}

/* "name{k="v",...}" of a series (labels sorted by name, as the registry
 * returns them). */
static inline const char *series_text(struct env *e, fsc_series_id id)
{
    static char buf[512];
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    const char *m = fsc_registry_metric(e->reg, id);
    size_t n = fsc_registry_labels(e->reg, id, lb, FSC_REGISTRY_MAX_LABELS);
    int off = snprintf(buf, sizeof(buf), "%s{", m ? m : "(none)");
    for (size_t i = 0; i < n && off < (int)sizeof(buf); i++)
        off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%s%s=\"%s\"", i ? "," : "",
                        lb[i].name, lb[i].value);
    if (off < (int)sizeof(buf) - 1)
        snprintf(buf + off, sizeof(buf) - (size_t)off, "}");
    return buf;
}

#define T0_NS 1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR   (T0_NS + 777)

#endif
