/* fsc_otlp_source_ops: one OTLP receiver instance (otlp_source.h) = one
 * ingest shared by up to two transports (otlp_grpc.c, otlp_http.c), their
 * counters read back (otlp_transport_stats.h) and the instance's stats
 * tables. */
#include "sources/otlp/otlp_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "model/profile.h"
#include "model/time_guard.h"
#include "sources/otlp/transport/otlp_grpc.h"
#include "sources/otlp/transport/otlp_http.h"
#include "sources/otlp/transport/otlp_server.h"

struct otlp_source {
    char name[FSC_CONFIG_MAX_NAME + 1];
    struct fsc_otlp_ingest *ing;
    struct fsc_otlp_server_config scfg;
    struct fsc_otlp_grpc *grpc; /* NULL when grpc_listen is "" */
    struct fsc_otlp_http *http; /* NULL when http_listen is "" */
};

/* ---- instance ------------------------------------------------------------------- */

static void otlp_stop(void *ctx)
{
    struct otlp_source *os = ctx;
    if (!os)
        return;
    /* Transports first: no request may reach the ingest once it is gone. */
    fsc_otlp_grpc_stop(os->grpc);
    fsc_otlp_http_stop(os->http);
    fsc_otlp_ingest_destroy(os->ing);
    free(os);
}

static void *otlp_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                        char *err, size_t errlen)
{
    const struct fsc_otlp_config *oc = fsc_otlp_config_of(sc);
    const struct fsc_profile *prof = NULL;
    char serr[256];

    if (errlen)
        err[0] = '\0';
    int grpc_on = oc->grpc_listen && oc->grpc_listen[0];
    int http_on = oc->http_listen && oc->http_listen[0];
    if (!grpc_on && !http_on) {
        snprintf(err, errlen, "source %s: otlp needs grpc_listen or http_listen", sc->name);
        return NULL;
    }
    if (oc->max_body == 0 || oc->max_decompressed == 0) {
        snprintf(err, errlen, "source %s: max_body and max_decompressed must be positive",
                 sc->name);
        return NULL;
    }
    prof = env->profile;
    struct otlp_source *os = calloc(1, sizeof(*os));
    if (!os) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(os->name, sizeof(os->name), "%s", sc->name);
    struct fsc_otlp_ingest_config ic = {
        .source_name = sc->name,
        .device_attribute = oc->device_attribute,
        .profile = prof,
        .nominal_interval_ns = 0,
        .max_series = sc->max_series,
        .max_time_ahead_ns = oc->max_time_ahead_ns,
        .max_time_behind_ns = oc->max_time_behind_ns,
    };
    os->ing = fsc_otlp_ingest_create(&ic, env, serr, sizeof(serr));
    if (!os->ing) {
        snprintf(err, errlen, "source %s: %s", sc->name, serr);
        goto fail;
    }
    os->scfg = (struct fsc_otlp_server_config){
        .source = os->name,
        .ing = os->ing,
        .max_body = (size_t)oc->max_body,
        .max_decompressed = (size_t)oc->max_decompressed,
        .tls = oc->tls.present && oc->tls.enabled ? &oc->tls : NULL,
        .auth = oc->auth.present ? &oc->auth : NULL,
        .limits = &oc->limits,
    };
    if (grpc_on &&
        !(os->grpc = fsc_otlp_grpc_start(&os->scfg, oc->grpc_listen, serr, sizeof(serr)))) {
        snprintf(err, errlen, "source %s: OTLP/gRPC: %s", sc->name, serr);
        goto fail;
    }
    if (http_on &&
        !(os->http = fsc_otlp_http_start(&os->scfg, oc->http_listen, serr, sizeof(serr)))) {
        snprintf(err, errlen, "source %s: OTLP/HTTP: %s", sc->name, serr);
        goto fail;
    }
    return os;
fail:
    otlp_stop(os);
    return NULL;
}

size_t fsc_otlp_source_stats(void *ctx, struct fsc_otlp_transport_stats *out, size_t cap)
{
    struct otlp_source *os = ctx;
    size_t n = 0;
    if (!os)
        return 0;
    if (os->grpc && n < cap)
        fsc_otlp_grpc_stats(os->grpc, &out[n++]);
    if (os->http && n < cap)
        fsc_otlp_http_stats(os->http, &out[n++]);
    return n;
}

uint16_t fsc_otlp_source_port(void *ctx, const char *transport)
{
    struct otlp_source *os = ctx;
    if (!os || !transport)
        return 0;
    if (strcmp(transport, "grpc") == 0)
        return fsc_otlp_grpc_port(os->grpc);
    if (strcmp(transport, "http") == 0)
        return fsc_otlp_http_port(os->http);
    return 0;
}

enum {
    COL_PORT,
    COL_REQUESTS,
    COL_OK,
    COL_PARTIAL,
    COL_BAD_REQUEST,
    COL_TOO_LARGE,
    COL_ERRORS,
    COL_POINTS,
    COL_REJECTED,
    COL_BYTES,
    COL_SKIPPED_SHARD,
    COL_SKIPPED_NO_VALUE,
    COL__COUNT
};

#define REQUESTS "fabricscope_otlp_requests"
#define SKIPPED  "fabricscope_otlp_skipped_points"
static const struct fsc_stat_col receiver_cols[COL__COUNT] = {
    [COL_PORT] = {.id = "port", .title = "port"},
    [COL_REQUESTS] = {.id = "requests", .title = "requests"},
    [COL_OK] = {.id = "ok",
                .family = REQUESTS,
                .type = FSC_STAT_COUNTER,
                .help = "OTLP export requests answered, by outcome.",
                .label = "result",
                .label_value = "ok",
                .title = "ok"},
    [COL_PARTIAL] = {.id = "partial",
                     .family = REQUESTS,
                     .type = FSC_STAT_COUNTER,
                     .label = "result",
                     .label_value = "partial",
                     .title = "partial"},
    [COL_BAD_REQUEST] = {.id = "bad_request",
                         .family = REQUESTS,
                         .type = FSC_STAT_COUNTER,
                         .label = "result",
                         .label_value = "bad_request",
                         .title = "bad request"},
    [COL_TOO_LARGE] = {.id = "too_large",
                       .family = REQUESTS,
                       .type = FSC_STAT_COUNTER,
                       .label = "result",
                       .label_value = "too_large",
                       .title = "too large"},
    [COL_ERRORS] = {.id = "errors",
                    .family = REQUESTS,
                    .type = FSC_STAT_COUNTER,
                    .label = "result",
                    .label_value = "error",
                    .title = "errors"},
    [COL_POINTS] = {.id = "points",
                    .family = "fabricscope_otlp_points",
                    .type = FSC_STAT_COUNTER,
                    .help = "OTLP data points in decoded requests.",
                    .title = "points"},
    [COL_REJECTED] = {.id = "rejected_points",
                      .family = "fabricscope_otlp_rejected_points",
                      .type = FSC_STAT_COUNTER,
                      .help = "OTLP data points refused (partial success).",
                      .title = "rejected"},
    [COL_BYTES] = {.id = "received_bytes",
                   .family = "fabricscope_otlp_received_bytes",
                   .type = FSC_STAT_COUNTER,
                   .help = "OTLP request bytes received on the wire (before gzip).",
                   .title = "received",
                   .unit = FSC_STAT_BYTES},
    /* Both reasons always shown, so that rate() has a series from the start. */
    [COL_SKIPPED_SHARD] = {.id = "skipped_other_shard",
                           .family = SKIPPED,
                           .type = FSC_STAT_COUNTER,
                           .help = "OTLP data points neither accepted nor refused, by reason "
                                   "(other_shard: another shard's device; no_recorded_value: "
                                   "staleness marker).",
                           .label = "reason",
                           .label_value = "other_shard"},
    [COL_SKIPPED_NO_VALUE] = {.id = "skipped_no_recorded_value",
                              .family = SKIPPED,
                              .type = FSC_STAT_COUNTER,
                              .label = "reason",
                              .label_value = "no_recorded_value"},
};

static const struct fsc_stat_table receiver_table = {
    .id = "otlp_receivers",
    .title = "OTLP receivers",
    .empty = "no OTLP receivers",
    .keys = {"source", "transport", NULL},
    .cols = receiver_cols,
    .n_cols = COL__COUNT,
};

/* Cumulus devices judged on port bytes (otlp_bytes.h, docs/vendors/cumulus.md). */
static const struct fsc_stat_col device_cols[] = {
    {.id = "byte_counters",
     .family = "fabricscope_otlp_device_byte_counters",
     .type = FSC_STAT_GAUGE,
     .help = "1: the Cumulus device sends a port byte counter (direct or per class); 0: it "
             "sent interface metrics in 3 requests and none, its port bytes are unknown.",
     .title = "byte counters"},
};

static const struct fsc_stat_table device_table = {
    .id = "otlp_devices",
    .title = "OTLP devices (port byte counters)",
    .empty = "no OTLP device judged yet",
    .keys = {"source", "device", NULL},
    .cols = device_cols,
    .n_cols = 1,
};

/* What the ingest did to points beyond the receivers' counts. */
static const struct fsc_stat_col ingest_cols[] = {
    {.id = "label_values_hashed",
     .family = "fabricscope_otlp_label_values_hashed",
     .type = FSC_STAT_COUNTER,
     .help = "OTLP attribute values (and device names) longer than 128 bytes, kept as their "
             "first bytes and a hash suffix ~h<16 hex> so that distinct values stay distinct "
             "series; counted per point.",
     .title = "long values hashed"},
    {.id = "label_names_hashed",
     .family = "fabricscope_otlp_label_names_hashed",
     .type = FSC_STAT_COUNTER,
     .help = "OTLP attribute keys whose label name is longer than 63 bytes, kept as its first "
             "45 bytes and a hash suffix _h<16 hex> so that distinct keys stay distinct labels; "
             "counted per point.",
     .title = "long names hashed"},
};

static const struct fsc_stat_table ingest_table = {
    .id = "otlp_ingest",
    .title = "OTLP ingest",
    .empty = "no OTLP source",
    .keys = {"source", NULL},
    .cols = ingest_cols,
    .n_cols = sizeof(ingest_cols) / sizeof(ingest_cols[0]),
};

static const struct fsc_stat_table *const otlp_tables[] = {&receiver_table,
                                                           &device_table,
                                                           &ingest_table,
                                                           &fsc_time_guard_source_table,
                                                           &fsc_time_guard_device_table,
                                                           &fsc_http_sec_stat_table,
                                                           &fsc_admit_stat_table,
                                                           NULL};

struct device_rows {
    const struct otlp_source *os;
    const struct fsc_stats_out *out;
};

static void device_row(void *arg, const char *device, int has)
{
    const struct device_rows *dr = arg;
    const char *keys[] = {dr->os->name, device};
    double v = has;
    fsc_stats_row(dr->out, &device_table, keys, &v, NULL);
}

/* A row per transport, and each transport's listener refusals and
 * admission closures (named as in its listener_auth_failed log lines). */
static void otlp_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct otlp_source *os = ctx;
    struct fsc_otlp_transport_stats st[2];
    size_t n = fsc_otlp_source_stats(ctx, st, 2);
    for (size_t k = 0; k < n && k < 2; k++) {
        const struct fsc_otlp_transport_stats *t = &st[k];
        double v[COL__COUNT] = {
            [COL_PORT] = t->port,
            [COL_REQUESTS] = (double)t->requests,
            [COL_OK] = (double)t->ok,
            [COL_PARTIAL] = (double)t->partial,
            [COL_BAD_REQUEST] = (double)t->bad_request,
            [COL_TOO_LARGE] = (double)t->too_large,
            [COL_ERRORS] = (double)t->other_errors,
            [COL_POINTS] = (double)t->points,
            [COL_REJECTED] = (double)t->rejected,
            [COL_BYTES] = (double)t->bytes_received,
            [COL_SKIPPED_SHARD] = (double)t->skipped_other_shard,
            [COL_SKIPPED_NO_VALUE] = (double)t->skipped_no_value,
        };
        const char *keys[] = {os->name, t->transport};
        fsc_stats_row(out, &receiver_table, keys, v, NULL);
    }
    struct device_rows dr = {os, out};
    fsc_otlp_ingest_devices(os->ing, device_row, &dr);
    fsc_otlp_ingest_time_stats(os->ing, os->name, out);
    struct fsc_otlp_ingest_stats is;
    fsc_otlp_ingest_stats(os->ing, &is);
    const char *ik[] = {os->name, NULL};
    double iv[] = {(double)is.values_hashed, (double)is.names_hashed};
    _Static_assert(sizeof(iv) / sizeof(iv[0]) == sizeof(ingest_cols) / sizeof(ingest_cols[0]),
                   "a value per ingest column");
    fsc_stats_row(out, &ingest_table, ik, iv, NULL);
    for (size_t k = 0; k < n && k < 2; k++) {
        char listener[96];
        snprintf(listener, sizeof(listener), "otlp/%s:%s", st[k].transport, os->name);
        fsc_http_sec_stat_row(out, listener, &st[k].sec);
        fsc_admit_stat_row(out, listener, &st[k].admit);
    }
}

static const struct fsc_profile *const otlp_profiles[] = {&fsc_profile_cumulus, NULL};

const struct fsc_source_ops fsc_otlp_source_ops = {
    .config = &fsc_otlp_kind,
    .profiles = otlp_profiles,
    .start = otlp_start,
    .stop = otlp_stop,
    .stat_tables = otlp_tables,
    .stats = otlp_stats,
};
