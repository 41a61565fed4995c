/* The application's plugin table: every source type and sink of this
 * build, each named once (app/plugins.c), and what is derived from it: the
 * config schema, the vendor profiles, the stats tables. Adding a source or
 * an exporter means one line in plugins.c and a folder of its own. */
#ifndef FSC_APP_PLUGINS_H
#define FSC_APP_PLUGINS_H

#include "base/stats.h"
#include "config/config.h"
#include "model/profile.h"
#include "plugin/sink.h"
#include "plugin/source.h"

/* NULL-terminated, in table order. */
extern const struct fsc_source_ops *const fsc_app_sources[];
extern const struct fsc_sink_ops *const fsc_app_sinks[];

/* The schema every config of this build is loaded with: the source types,
 * the sinks' sections (under exporters: or at the root), engine, topology
 * and shard. Built on first use; static afterwards. Thread: any. */
const struct fsc_config_schema *fsc_app_schema(void);

/* Every vendor profile the sources bring (NULL-terminated). Thread: any. */
const struct fsc_profile *const *fsc_app_profiles(void);

/* The source type whose config kind is `kind`, or NULL. */
const struct fsc_source_ops *fsc_app_source_ops(const struct fsc_config_kind *kind);

/* Every stats table of the plugins (sources, then sinks) and then `own`
 * (NULL-terminated; may be NULL), each once, in that order. Built on first
 * use; the first call's `own` is kept. Thread: any. */
const struct fsc_stat_table *const *fsc_app_tables(const struct fsc_stat_table *const *own);

/* Loads a config with the application's schema (fsc_config_load). */
struct fsc_config *fsc_app_config_load(const char *path, char *err, size_t errlen);

#endif
