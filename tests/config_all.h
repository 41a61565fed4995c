/* For tests that load configs: the application's schema and every kind's
 * settings accessor (a test reads what the loader decoded). */
#ifndef FSC_TEST_CONFIG_ALL_H
#define FSC_TEST_CONFIG_ALL_H

#include "daemon/plugins.h"
#include "config/config.h"
#include "engine/engine_keys.h"
#include "kafka/kafka_config.h"
#include "model/shard.h"
#include "model/topology_keys.h"
#include "prometheus/prom_config.h"
#include "remote_write/rw_config.h"
#include "rollup/rollup_config.h"
#include "sources/gnmi/gnmi_config.h"
#include "sources/nic/nic_config.h"
#include "sources/otlp/otlp_config.h"
#include "sources/replay/replay_config.h"
#include "sources/synth/synth_config.h"
#include "web/web_config.h"

#endif
