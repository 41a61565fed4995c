/* What a source's unit test stands on: a registry, an engine (with an event
 * bus and one subscriber when asked), the config a YAML text gives (its
 * topology and engine settings), a link-speed table when asked, and one
 * registered source, wired into the struct fsc_source_env a decoder or an
 * ingest is created with; and series_text(), the text of a series.
 *
 * Used by the gNMI decoder and OTLP ingest tests (gnmi_decode_fixture.h,
 * gnmi_label_names, gnmi_speed, otlp_bytes, otlp_hist_evid, otlp_ingest,
 * otlp_label_names, otlp_speed). Functions are static inline: a test that
 * does not call one gets no unused-function warning. */
#ifndef FSC_SOURCE_ENV_FIXTURE_H
#define FSC_SOURCE_ENV_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config_all.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "engine/link_speed.h"
#include "model/registry.h"
#include "plugin/source.h"

struct src_env {
    struct fsc_config *cfg; /* parsed from opts.yaml; NULL without */
    struct fsc_registry *reg;
    struct fsc_event_bus *bus;      /* with opts.bus only */
    struct fsc_event_sub *sub;      /* with opts.bus: subscribed before any event */
    struct fsc_engine *eng;         /* the config's engine settings, else the defaults */
    struct fsc_link_speeds *speeds; /* with opts.speeds only */
    struct fsc_source_env env;      /* reg, eng, topo, speeds and the source's id */
};

struct src_env_opts {
    const char *source;  /* the registered source's name */
    const char *yaml;    /* a whole config file; NULL: engine defaults, no topology */
    uint32_t max_series; /* the registry's total; 0: 10000 */
    bool bus;            /* an event bus with one subscriber */
    bool speeds;         /* a link-speed table (64 ports, 256 series) in env */
};

/* Opens everything opts asks for. Returns 0, or -1 with the reason on
 * stderr; src_env_close() frees what was made either way. */
static inline int src_env_open(struct src_env *s, const struct src_env_opts *o)
{
    char err[256] = "";
    struct fsc_engine_config ecfg;

    memset(s, 0, sizeof(*s));
    fsc_engine_config_defaults(&ecfg);
    if (o->yaml) {
        s->cfg = fsc_config_parse(o->yaml, strlen(o->yaml), "t.yaml", fsc_app_schema(), err,
                                  sizeof(err));
        if (!s->cfg) {
            fprintf(stderr, "config: %s\n", err);
            return -1;
        }
        s->env.topo = fsc_topology_of(s->cfg);
    }
    s->reg = fsc_registry_create(o->max_series ? o->max_series : 10000);
    if (o->bus) {
        s->bus = fsc_event_bus_create(256);
        s->sub = s->bus ? fsc_event_subscribe(s->bus) : NULL;
        if (!s->sub) {
            fprintf(stderr, "fixture: event bus\n");
            return -1;
        }
    }
    s->eng =
        fsc_engine_create(s->cfg ? fsc_engine_config_of(s->cfg) : &ecfg, s->bus, err, sizeof(err));
    if (!s->reg || !s->eng) {
        fprintf(stderr, "fixture: registry or engine: %s\n", err);
        return -1;
    }
    if (o->speeds) {
        s->speeds = fsc_link_speeds_create(s->eng, s->env.topo, 64, 256);
        if (!s->speeds) {
            fprintf(stderr, "fixture: link-speed table\n");
            return -1;
        }
    }
    s->env.reg = s->reg;
    s->env.eng = s->eng;
    s->env.speeds = s->speeds;
    if (fsc_registry_source_add(s->reg, o->source, 0, &s->env.source_id) != 0) {
        fprintf(stderr, "fixture: source %s\n", o->source);
        return -1;
    }
    return 0;
}

/* Frees what src_env_open() made, in reverse order; a zeroed s is a no-op. */
static inline void src_env_close(struct src_env *s)
{
    fsc_link_speeds_destroy(s->speeds);
    fsc_engine_destroy(s->eng);
    fsc_event_unsubscribe(s->sub);
    fsc_event_bus_destroy(s->bus);
    fsc_registry_destroy(s->reg);
    fsc_config_destroy(s->cfg);
    memset(s, 0, sizeof(*s));
}

/* "name{k="v",...}" of a series, labels sorted by name as the registry
 * returns them; "(none){}" for an unknown id. The text lives in a static
 * buffer until the next call. */
static inline const char *series_text(const struct fsc_registry *reg, fsc_series_id id)
{
    static char buf[1024];
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    const char *m = fsc_registry_metric(reg, id);
    size_t n = fsc_registry_labels(reg, id, lb, FSC_REGISTRY_MAX_LABELS);
    int off = snprintf(buf, sizeof(buf), "%s{", m ? m : "(none)");
    for (size_t i = 0; i < n && i < FSC_REGISTRY_MAX_LABELS && off < (int)sizeof(buf); i++)
        off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%s%s=\"%s\"", i ? "," : "",
                        lb[i].name, lb[i].value);
    if (off < (int)sizeof(buf) - 1)
        snprintf(buf + off, sizeof(buf) - (size_t)off, "}");
    return buf;
}

#endif
