/* Internal to collector/config: what config_load.c needs of config_sources.c and
 * config_check.c. */
#ifndef FSC_CONFIG_LOAD_INT_H
#define FSC_CONFIG_LOAD_INT_H

#include <stdio.h>

#include "config/config_decode.h"

/* Decodes the `sources:` list (val; null or absent: none) into ctx->cfg's
 * sources. Returns 0 or -1 after fsc_cfg_fail(). */
int fsc_cfg_decode_sources(struct fsc_cctx *ctx, const struct fsc_ynode *val);

/* Prints one source as a list item whose keys start at `indent`. */
void fsc_cfg_print_source_item(FILE *out, unsigned indent, const struct fsc_source_config *src);

/* The checks that span sections (listen addresses, devices, each kind's
 * check) over ctx->cfg, decoded from root. Returns 0 or -1 after
 * fsc_cfg_fail(). */
int fsc_cfg_check_whole(struct fsc_cctx *ctx, const struct fsc_ynode *root);

#endif
