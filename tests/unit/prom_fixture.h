/* Shared fixture of the Prometheus renderer tests: a config parsed from YAML,
 * a registry with sources, an engine without a bus, a renderer, and helpers
 * to intern series, set traits, feed samples and find lines in an
 * exposition. Static inline so a test that skips a helper gets no warning. */
#ifndef FSC_PROM_FIXTURE_H
#define FSC_PROM_FIXTURE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "prometheus/prom_render.h"
#include "test.h"
#include "config_all.h"

#define NS 1000000000LL
#define MS 1000000LL
/* 2023-11-14T22:13:20Z: a whole 10 s, so windows start there. */
#define T0 (1700000000LL * NS)

struct pfx {
    struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_prom_renderer *r;
    struct fsc_buf out;
};

/* Two configured sources (leaf1 enabled, host1 disabled), stale_after 30s,
 * windows 1s and 10s unless yaml says otherwise; registry sources leaf1
 * (limit 100) = 0 and host1 (no limit) = 1. */
static const char pfx_default_yaml[] = "sources:\n"
                                       "  - name: leaf1\n"
                                       "    type: synthetic\n"
                                       "  - name: host1\n"
                                       "    type: synthetic\n"
                                       "    enabled: false\n"
                                       "exporters:\n"
                                       "  prometheus:\n"
                                       "    stale_after: 30s\n"
                                       "engine:\n"
                                       "  windows: [1s, 10s]\n";

static inline int pfx_open_yaml(struct pfx *p, const char *yaml)
{
    char err[512] = "";
    memset(p, 0, sizeof(*p));
    p->cfg =
        fsc_config_parse(yaml, strlen(yaml), "prom_test.yaml", fsc_app_schema(), err, sizeof(err));
    if (!p->cfg) {
        fprintf(stderr, "config: %s\n", err);
        CHECK(p->cfg != NULL);
        return -1;
    }
    p->reg = fsc_registry_create(100000);
    CHECK(p->reg != NULL);
    uint16_t src = 99;
    CHECK_INT(fsc_registry_source_add(p->reg, "leaf1", 100, &src), 0);
    CHECK_INT(src, 0);
    CHECK_INT(fsc_registry_source_add(p->reg, "host1", 0, &src), 0);
    CHECK_INT(src, 1);
    p->eng = fsc_engine_create(fsc_engine_config_of(p->cfg), NULL, err, sizeof(err));
    if (!p->eng)
        fprintf(stderr, "engine: %s\n", err);
    CHECK(p->eng != NULL);
    struct fsc_prom_render_env env = {.reg = p->reg, .eng = p->eng, .cfg = p->cfg};
    p->r = p->eng ? fsc_prom_renderer_create(&env, err, sizeof(err)) : NULL;
    CHECK(p->r != NULL);
    return p->r ? 0 : -1;
}

static inline int pfx_open(struct pfx *p)
{
    return pfx_open_yaml(p, pfx_default_yaml);
}

static inline void pfx_close(struct pfx *p)
{
    fsc_prom_renderer_destroy(p->r);
    fsc_engine_destroy(p->eng);
    fsc_registry_destroy(p->reg);
    fsc_config_destroy(p->cfg);
    fsc_buf_free(&p->out);
}

/* Interns series (source, metric, labels given as name, value pairs ending
 * with NULL) and sets its traits. Returns the id. */
static inline fsc_series_id pfx_series(struct pfx *p, uint16_t source, const char *metric,
                                       const struct fsc_traits *tr, const char *const *kv)
{
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t n = 0;
    while (kv[2 * n] && n < FSC_REGISTRY_MAX_LABELS) {
        lab[n].name = kv[2 * n];
        lab[n].value = kv[2 * n + 1];
        n++;
    }
    fsc_series_id id = fsc_registry_intern(p->reg, source, metric, lab, n);
    CHECK(id != FSC_SERIES_NONE);
    if (id != FSC_SERIES_NONE && tr)
        CHECK_INT(fsc_engine_set_traits(p->eng, id, tr), 0);
    return id;
}

static inline void pfx_feed_u(struct pfx *p, fsc_series_id id, int64_t t, uint64_t v)
{
    struct fsc_sample smp = {.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
    CHECK_INT(fsc_engine_ingest(p->eng, &smp, 1), 0);
}

static inline void pfx_feed_d(struct pfx *p, fsc_series_id id, int64_t t, double v)
{
    struct fsc_sample smp = {
        .series = id, .flags = FSC_SMP_F64, .t_dev_ns = t, .t_arr_ns = t, .v.d = v};
    CHECK_INT(fsc_engine_ingest(p->eng, &smp, 1), 0);
}

static inline int pfx_render(struct pfx *p, enum fsc_prom_format fmt, int64_t now)
{
    int rc = fsc_prom_render(p->r, fmt, now, &p->out);
    CHECK_INT(rc, 0);
    return rc;
}

/* Offset of the whole line `line` (without its newline) in text, or -1. */
static inline long pfx_line_at(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *s = text; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && memcmp(s, line, n) == 0)
            return (long)(s - text);
        s = e ? e + 1 : NULL;
    }
    return -1;
}

/* Value of the first line starting with `prefix` followed by a space, or NaN. */
static inline double pfx_value(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *s = text; s && *s;) {
        if (strncmp(s, prefix, n) == 0 && s[n] == ' ')
            return strtod(s + n + 1, NULL);
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    return NAN;
}

/* Number of lines starting with prefix. */
static inline int pfx_count(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    int count = 0;
    for (const char *s = text; s && *s;) {
        if (strncmp(s, prefix, n) == 0)
            count++;
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    return count;
}

static inline struct fsc_traits pfx_traits(uint8_t kind, uint8_t width, uint8_t unit,
                                           uint8_t signal, uint8_t dir, uint64_t speed)
{
    return (struct fsc_traits){.kind = kind,
                               .width = width,
                               .unit = unit,
                               .signal = signal,
                               .direction = dir,
                               .scale = 1,
                               .link_speed_bps = speed};
}

#endif
