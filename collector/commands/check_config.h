/* `fabricscope check-config FILE`: loads FILE, checks every file it names,
 * prints the effective configuration. Internal to collector/commands. */
#ifndef FSC_CHECK_CONFIG_H
#define FSC_CHECK_CONFIG_H

#include "config/config.h"

extern const char fsc_check_config_usage[];

/* The command (argv[0] = "check-config"). Loads with schema (borrowed).
 * Returns the process exit status: 0 clean, 2 usage or configuration
 * errors (all of them printed on stderr, one per line), 1 when the
 * printout could not be written. */
int fsc_check_config_main(int argc, char **argv, const struct fsc_config_schema *schema);

#endif
