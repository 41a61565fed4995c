/* What the plugin table implies: the config schema, the vendor profiles,
 * the stats tables. The table (fsc_app_sources, fsc_app_sinks) is generated
 * by the build (fsc_plugin_table). */
#include "daemon/plugins.h"

#include <pthread.h>
#include <string.h>

#include "engine/engine_keys.h"
#include "model/shard.h"
#include "model/topology_keys.h"

#define MAX_KINDS    16
#define MAX_PROFILES 16
#define MAX_TABLES   64

static struct {
    pthread_once_t once;
    const struct fsc_config_kind *sources[MAX_KINDS + 1];
    const struct fsc_config_kind *exporters[MAX_KINDS + 1];
    const struct fsc_config_kind *sections[MAX_KINDS + 1];
    const char *profile_names[MAX_PROFILES + 1];
    const struct fsc_profile *profiles[MAX_PROFILES + 1];
    struct fsc_config_schema schema;
} app = {.once = PTHREAD_ONCE_INIT};

static void add_profile(const struct fsc_profile *p)
{
    size_t n = 0;
    while (app.profiles[n]) {
        if (app.profiles[n] == p)
            return;
        n++;
    }
    if (n < MAX_PROFILES) {
        app.profiles[n] = p;
        app.profile_names[n] = p->name;
    }
}

static void build(void)
{
    size_t ns = 0, ne = 0, nr = 0;
    for (size_t i = 0; fsc_app_sources[i] && ns < MAX_KINDS; i++) {
        const struct fsc_source_ops *ops = fsc_app_sources[i];
        app.sources[ns++] = ops->config;
        for (size_t p = 0; ops->profiles && ops->profiles[p]; p++)
            add_profile(ops->profiles[p]);
    }
    app.sections[nr++] = &fsc_engine_kind;
    app.sections[nr++] = &fsc_topology_kind;
    for (size_t i = 0; fsc_app_sinks[i] && ne < MAX_KINDS && nr < MAX_KINDS - 1; i++) {
        const struct fsc_sink_ops *ops = fsc_app_sinks[i];
        if (ops->root_key)
            app.sections[nr++] = ops->config;
        else
            app.exporters[ne++] = ops->config;
    }
    app.sections[nr++] = &fsc_shard_kind;
    app.schema = (struct fsc_config_schema){.sources = app.sources,
                                            .exporters = app.exporters,
                                            .sections = app.sections,
                                            .profiles = app.profile_names};
}

const struct fsc_config_schema *fsc_app_schema(void)
{
    pthread_once(&app.once, build);
    return &app.schema;
}

const struct fsc_profile *const *fsc_app_profiles(void)
{
    pthread_once(&app.once, build);
    return app.profiles;
}

const struct fsc_source_ops *fsc_app_source_ops(const struct fsc_config_kind *kind)
{
    for (size_t i = 0; fsc_app_sources[i]; i++)
        if (fsc_app_sources[i]->config == kind)
            return fsc_app_sources[i];
    return NULL;
}

static struct {
    pthread_once_t once;
    const struct fsc_stat_table *const *own;
    const struct fsc_stat_table *list[MAX_TABLES + 1];
} tables = {.once = PTHREAD_ONCE_INIT};

static void add_tables(const struct fsc_stat_table *const *add, size_t *n)
{
    for (size_t t = 0; add && add[t] && *n < MAX_TABLES; t++) {
        size_t k = 0;
        while (k < *n && tables.list[k] != add[t])
            k++;
        if (k == *n)
            tables.list[(*n)++] = add[t];
    }
}

static void build_tables(void)
{
    size_t n = 0;
    for (size_t i = 0; fsc_app_sources[i]; i++)
        add_tables(fsc_app_sources[i]->stat_tables, &n);
    for (size_t i = 0; fsc_app_sinks[i]; i++)
        add_tables(fsc_app_sinks[i]->stat_tables, &n);
    add_tables(tables.own, &n);
}

const struct fsc_stat_table *const *fsc_app_tables(const struct fsc_stat_table *const *own)
{
    tables.own = own;
    pthread_once(&tables.once, build_tables);
    return tables.list;
}

struct fsc_config *fsc_app_config_load(const char *path, char *err, size_t errlen)
{
    return fsc_config_load(path, fsc_app_schema(), err, errlen);
}
