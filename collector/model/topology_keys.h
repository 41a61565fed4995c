/* topology: section of the config (topology_keys.c): the key table over
 * struct fsc_topology (topology.h), its indexes and its checks. */
#ifndef FSC_TOPOLOGY_KEYS_H
#define FSC_TOPOLOGY_KEYS_H

#include "config/config.h"
#include "model/topology.h"

/* The kind of the topology: section. */
extern const struct fsc_config_kind fsc_topology_kind;

/* cfg's topology (empty when the file has none); NULL when cfg's schema
 * has no topology. */
const struct fsc_topology *fsc_topology_of(const struct fsc_config *cfg);

#endif
