/* The gNMI decoder's test environment: one decoder on the shared source
 * environment (source_env_fixture.h: registry, engine, series_text());
 * messages come from gnmi_msg_fixture.h. Included by one test file each
 * (static functions). */
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
#include "source_env_fixture.h"
#include "sources/gnmi/gnmi_decode.h"
#include "test.h"
#include "config_all.h"

/* ---- environment ------------------------------------------------------------ */

struct env {
    struct src_env se; /* registry, engine with a bus (counter_reset events), topology */
    struct fsc_gnmi_decoder *dec;
};

/* Opens the environment with the decoder configured by dcfg (device
 * "leaf1" when dcfg names none). */
static inline int env_open_cfg(struct env *e, const char *yaml, struct fsc_gnmi_decode_config dcfg)
{
    char err[256];
    memset(e, 0, sizeof(*e));
    struct src_env_opts o = {.source = "leaf1", .yaml = yaml, .bus = true};
    if (src_env_open(&e->se, &o) != 0)
        return -1;
    if (!dcfg.device)
        dcfg.device = "leaf1";
    e->dec = fsc_gnmi_decoder_create(&dcfg, &e->se.env, err, sizeof(err));
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
    src_env_close(&e->se);
    tb_reset();
}

#define T0_NS 1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR   (T0_NS + 777)

#endif
