/* engine: section of the config (engine_keys.c): the key table over
 * struct fsc_engine_config (engine.h). A header of its own so that the
 * engine itself does not depend on the config layer. */
#ifndef FSC_ENGINE_KEYS_H
#define FSC_ENGINE_KEYS_H

#include "config/config.h"
#include "engine/engine.h"

/* The kind of the engine: section. */
extern const struct fsc_config_kind fsc_engine_kind;

/* cfg's engine: section (fsc_engine_config_defaults() plus the file's
 * keys); NULL when cfg's schema has none. */
const struct fsc_engine_config *fsc_engine_config_of(const struct fsc_config *cfg);

#endif
