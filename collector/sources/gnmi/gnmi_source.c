/* fsc_gnmi_source_ops: instance setup and teardown around the device's
 * calls (gnmi_client.c), run by a shared worker (gnmi_pool.c), and its
 * channel (gnmi_channel.c). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sources/gnmi/gnmi_source.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/grpc_log.h"
#include "model/profile.h"
#include "sources/gnmi/gnmi_client.h"
#include "sources/gnmi/gnmi_plan.h"

static void client_destroy(struct gnmi_client *cl)
{
    if (!cl)
        return;
    /* No call is left (the worker released it): the queue is the worker's. */
    if (cl->chan)
        grpc_channel_destroy(cl->chan);
    for (size_t i = 0; cl->streams && i < cl->n_streams; i++) {
        struct gnmi_stream *st = &cl->streams[i];
        free(st->req);
        fsc_gnmi_decoder_destroy(st->dec);
        fsc_gnmi_cadence_free(&st->cad);
    }
    free(cl->streams);
    for (size_t i = 0; i < cl->n_md; i++)
        grpc_slice_unref(cl->md[i].value);
    if (cl->grpc_inited)
        grpc_shutdown();
    pthread_mutex_destroy(&cl->mu);
    fsc_time_guard_fini(&cl->tg);
    free(cl);
}

static int streams_create(struct gnmi_client *cl, const struct fsc_source_config *sc, char *err,
                          size_t errlen)
{
    const struct fsc_gnmi_config *gc = fsc_gnmi_config_of(sc);
    const struct fsc_profile *prof = cl->env.profile;
    cl->streams = calloc(gc->n_streams, sizeof(*cl->streams));
    if (!cl->streams) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    cl->n_streams = gc->n_streams;
    for (size_t i = 0; i < gc->n_streams; i++) {
        struct gnmi_stream *st = &cl->streams[i];
        char perr[200];
        st->cl = cl;
        st->cfg = &gc->streams[i];
        st->t_send = (struct gnmi_tag){TAG_SEND, cl, st};
        st->t_recv = (struct gnmi_tag){TAG_RECV, cl, st};
        st->t_status = (struct gnmi_tag){TAG_STATUS, cl, st};
        snprintf(st->stats.name, sizeof(st->stats.name), "%s", st->cfg->name);
        if (fsc_gnmi_plan_request(gc, i, &st->req, &st->req_len, perr, sizeof(perr)) != 0) {
            snprintf(err, errlen, "source %s: %s", sc->name, perr);
            return -EINVAL;
        }
        struct fsc_gnmi_decode_config dc = {
            .device = gc->device,
            .profile = prof,
            .sample_interval_ns =
                st->cfg->mode == FSC_GNMI_SAMPLE ? st->cfg->sample_interval_ns : 0,
            .live = gc->counter_copy == FSC_GNMI_COPY_LIVE,
            /* Junos (NULL: the default) suppresses zeros (docs/vendors/junos.md) */
            .fill_suppressed_zeros = !prof || strcmp(prof->name, "junos") == 0,
            .variant_mask = fsc_gnmi_variant_mask(gc, prof ? prof : &fsc_profile_junos),
        };
        st->dec = fsc_gnmi_decoder_create(&dc, &cl->env, perr, sizeof(perr));
        if (!st->dec) {
            snprintf(err, errlen, "source %s: %s", sc->name, perr);
            return -EINVAL;
        }
    }
    /* The sample buffer is the worker's (gnmi_pool.c): set at adoption. */
    return 0;
}

static void *gnmi_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                        char *err, size_t errlen)
{
    const struct fsc_gnmi_config *gc = fsc_gnmi_config_of(sc);
    if (errlen)
        err[0] = '\0';
    if (!gc->address || !gc->device || gc->n_streams == 0) {
        snprintf(err, errlen, "source %s: gnmi needs an address, a device and streams", sc->name);
        return NULL;
    }
    struct gnmi_client *cl = calloc(1, sizeof(*cl));
    if (!cl) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&cl->mu, NULL);
    atomic_init(&cl->stop, 0);
    snprintf(cl->name, sizeof(cl->name), "%s", sc->name);
    cl->gc = gc;
    cl->env = *env;
    fsc_time_guard_init(&cl->tg, gc->max_time_ahead_ns, gc->max_time_behind_ns);
    cl->tg_dev = fsc_time_guard_device(&cl->tg, gc->device); /* NONE without memory: no gauge */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cl->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)cl ^ 0x9e3779b97f4a7c15ULL;
    cl->t_caps = (struct gnmi_tag){TAG_CAPS, cl, NULL};
    cl->t_wake = (struct gnmi_tag){TAG_WAKE, cl, NULL};

    fsc_grpc_log_hook_install(); /* before grpc_init: its own messages are routed too */
    grpc_init();
    cl->grpc_inited = true;
    if (gc->username) {
        cl->md[cl->n_md].key = grpc_slice_from_static_string("username");
        cl->md[cl->n_md++].value = grpc_slice_from_copied_string(gc->username);
        if (gc->password.value) {
            cl->md[cl->n_md].key = grpc_slice_from_static_string("password");
            cl->md[cl->n_md++].value = grpc_slice_from_copied_string(gc->password.value);
        }
    }
    if (streams_create(cl, sc, err, errlen) != 0 || fsc_gnmi_channel_create(cl, err, errlen) != 0)
        goto fail;
    if (fsc_gnmi_pool_add(cl, err, errlen) != 0)
        goto fail;
    fsc_log(FSC_LOG_INFO, "gnmi_started", "source=%s device=%s address=%s streams=%zu tls=%s",
            cl->name, gc->device, gc->address, cl->n_streams,
            gc->tls.present && gc->tls.enabled ? "on" : "off");
    return cl;
fail:
    client_destroy(cl);
    return NULL;
}

/* Tells the worker to cancel the client's calls (on its next tick);
 * returns at once. */
static void gnmi_stop_begin(void *ctx)
{
    struct gnmi_client *cl = ctx;
    if (cl)
        atomic_store(&cl->stop, 1);
}

static void gnmi_stop(void *ctx)
{
    struct gnmi_client *cl = ctx;
    if (!cl)
        return;
    atomic_store(&cl->stop, 1);
    /* A client whose calls never reported back stays allocated: the
     * worker's queue may still hand out its tags. */
    if (fsc_gnmi_pool_remove(cl))
        client_destroy(cl);
}

size_t fsc_gnmi_source_stats(void *ctx, struct fsc_gnmi_stream_stats *out, size_t cap)
{
    struct gnmi_client *cl = ctx;
    if (!cl)
        return 0;
    pthread_mutex_lock(&cl->mu);
    for (size_t i = 0; i < cl->n_streams && i < cap; i++)
        out[i] = cl->streams[i].stats;
    pthread_mutex_unlock(&cl->mu);
    return cl->n_streams;
}

/* A gnmi source is healthy while every one of its streams is streaming. */
static bool gnmi_healthy(void *ctx)
{
    struct fsc_gnmi_stream_stats st[GNMI_STATS_MAX];
    size_t n = fsc_gnmi_source_stats(ctx, st, GNMI_STATS_MAX);
    for (size_t k = 0; k < n && k < GNMI_STATS_MAX; k++)
        if (st[k].state != FSC_GNMI_STATE_STREAMING)
            return false;
    return n > 0;
}

static const char *const state_words[] = {"connecting", "streaming", "backoff", NULL};
static const char *const yes_no[] = {"no", "yes", NULL};

enum {
    COL_STATE,
    COL_UP,
    COL_SYNC,
    COL_AGE,
    COL_CADENCE,
    COL_JITTER,
    COL_MESSAGES,
    COL_UPDATES,
    COL_DECODE_ERRORS,
    COL_SEQ_GAPS,
    COL_RECONNECTS,
    COL_RESUBSCRIBES,
    COL_NAMES_HASHED,
    COL_ZERO_FILLED,
    COL_OVER_CAP,
    COL_PATH_DROPPED,
    COL_MULTI_DROPPED,
    COL__COUNT
};

/* The drop counters' HELP texts name these bounds. */
_Static_assert(FSC_GNMI_SAMPLES_CAP == 8192, "fabricscope_gnmi_updates_over_cap's HELP");
_Static_assert(FSC_GNMI_ELEMS_MAX == 32 && FSC_GNMI_PATH_KEY_MAX == 1024,
               "fabricscope_gnmi_updates_path_dropped's HELP");

static const struct fsc_stat_col stream_cols[COL__COUNT] = {
    [COL_STATE] = {.id = "state", .title = "state", .unit = FSC_STAT_WORD, .words = state_words},
    [COL_UP] = {.id = "up",
                .family = "fabricscope_gnmi_stream_up",
                .type = FSC_STAT_GAUGE,
                .help = "1 while the gNMI subscription stream is streaming."},
    [COL_SYNC] = {.id = "sync_seen", .title = "sync", .unit = FSC_STAT_WORD, .words = yes_no},
    [COL_AGE] = {.id = "last_update_age_seconds",
                 .family = "fabricscope_gnmi_last_update_age_seconds",
                 .type = FSC_STAT_GAUGE,
                 .help = "Seconds since the stream's last response (absent before the first).",
                 .title = "last update",
                 .unit = FSC_STAT_SECONDS},
    [COL_CADENCE] = {.id = "cadence_seconds",
                     .family = "fabricscope_gnmi_stream_cadence_seconds",
                     .type = FSC_STAT_GAUGE,
                     .help = "Observed device-time interval between messages about the same "
                             "series (EWMA over ~64 intervals).",
                     .title = "cadence",
                     .unit = FSC_STAT_SECONDS},
    [COL_JITTER] = {.id = "jitter_seconds",
                    .family = "fabricscope_gnmi_stream_jitter_seconds",
                    .type = FSC_STAT_GAUGE,
                    .help = "Mean absolute deviation of those intervals from the observed "
                            "cadence.",
                    .title = "jitter",
                    .unit = FSC_STAT_SECONDS},
    [COL_RECONNECTS] = {.id = "reconnects",
                        .family = "fabricscope_gnmi_reconnects",
                        .type = FSC_STAT_COUNTER,
                        .help = "Calls that failed and were retried after backoff.",
                        .title = "reconnects"},
    [COL_RESUBSCRIBES] = {.id = "resubscribes",
                          .family = "fabricscope_gnmi_resubscribes",
                          .type = FSC_STAT_COUNTER,
                          .help = "Calls cancelled for silence and subscribed again.",
                          .title = "resubscribes"},
    [COL_NAMES_HASHED] = {.id = "label_names_hashed",
                          .family = "fabricscope_gnmi_label_names_hashed",
                          .type = FSC_STAT_COUNTER,
                          .help = "Updates of passthrough series with a list-key label name "
                                  "longer than 63 bytes, kept as its first 45 bytes and a hash "
                                  "suffix _h<16 hex> so that distinct keys stay distinct labels."},
    [COL_ZERO_FILLED] = {.id = "zero_filled",
                         .family = "fabricscope_gnmi_zero_filled_samples",
                         .type = FSC_STAT_COUNTER,
                         .help = "Samples of value 0 given to counters the device suppresses "
                                 "while they are 0 (Junos zero suppression): a leaf shown as 0 "
                                 "(the sync sends zeros) and left out of a later report, or one "
                                 "other ports or queues report and this one never sent in 3 "
                                 "reports."},
    [COL_OVER_CAP] = {.id = "updates_over_cap",
                      .family = "fabricscope_gnmi_updates_over_cap",
                      .type = FSC_STAT_COUNTER,
                      .help = "Updates dropped because one response held more than the 8192 "
                              "samples the decoder takes from one message."},
    [COL_PATH_DROPPED] = {.id = "updates_path_dropped",
                          .family = "fabricscope_gnmi_updates_path_dropped",
                          .type = FSC_STAT_COUNTER,
                          .help = "Updates dropped because their path (prefix and path joined) "
                                  "has more than 32 elements, more than 1024 bytes of names and "
                                  "keys, too many keys, or no element."},
    [COL_MULTI_DROPPED] = {.id = "updates_multi_dropped",
                           .family = "fabricscope_gnmi_updates_multi_dropped",
                           .type = FSC_STAT_COUNTER,
                           .help = "Updates of a series several producers (line cards, PFEs) "
                                   "report, dropped past the bounds of combining them."},
    [COL_MESSAGES] = {.id = "messages",
                      .family = "fabricscope_gnmi_messages",
                      .type = FSC_STAT_COUNTER,
                      .help = "SubscribeResponses received."},
    [COL_UPDATES] = {.id = "updates",
                     .family = "fabricscope_gnmi_updates",
                     .type = FSC_STAT_COUNTER,
                     .help = "Update entries received.",
                     .title = "updates"},
    [COL_DECODE_ERRORS] = {.id = "decode_errors",
                           .family = "fabricscope_gnmi_decode_errors",
                           .type = FSC_STAT_COUNTER,
                           .help = "Malformed responses.",
                           .title = "decode errors"},
    [COL_SEQ_GAPS] = {.id = "sequence_gaps",
                      .family = "fabricscope_gnmi_sequence_gaps",
                      .type = FSC_STAT_COUNTER,
                      .help = "Junos messages lost: telemetry header sequence numbers not "
                              "seen by the time 64 newer ones arrived or their numbering "
                              "ended, each counted once (a late message is not lost).",
                      .title = "seq gaps"},
};

static const struct fsc_stat_table stream_table = {
    .id = "gnmi_streams",
    .title = "gNMI streams",
    .empty = "no gNMI streams",
    .keys = {"source", "stream", NULL},
    .cols = stream_cols,
    .n_cols = COL__COUNT,
};

static const struct fsc_stat_table *const gnmi_tables[] = {
    &stream_table, &fsc_time_guard_source_table, &fsc_time_guard_device_table, NULL};

static void gnmi_stats(void *ctx, const struct fsc_stats_out *out)
{
    struct gnmi_client *cl = ctx;
    struct fsc_gnmi_stream_stats st[GNMI_STATS_MAX];
    size_t n = fsc_gnmi_source_stats(ctx, st, GNMI_STATS_MAX);
    int64_t now_ns = fsc_now_ns();
    for (size_t k = 0; k < n && k < GNMI_STATS_MAX; k++) {
        const struct fsc_gnmi_stream_stats *s = &st[k];
        bool known = s->cadence_intervals > 0;
        double v[COL__COUNT] = {
            [COL_STATE] = (double)s->state,
            [COL_UP] = s->state == FSC_GNMI_STATE_STREAMING,
            [COL_SYNC] = s->sync_seen,
            [COL_AGE] =
                s->last_update_ns ? (double)(now_ns - s->last_update_ns) * 1e-9 : FSC_STAT_NONE,
            [COL_CADENCE] = known ? s->cadence_s : FSC_STAT_NONE,
            [COL_JITTER] = known ? s->jitter_s : FSC_STAT_NONE,
            [COL_RECONNECTS] = (double)s->reconnects,
            [COL_RESUBSCRIBES] = (double)s->resubscribes,
            [COL_MESSAGES] = (double)s->messages,
            [COL_UPDATES] = (double)s->updates,
            [COL_DECODE_ERRORS] = (double)s->decode_errors,
            [COL_SEQ_GAPS] = (double)s->seq_lost,
            [COL_NAMES_HASHED] = (double)s->names_hashed,
            [COL_ZERO_FILLED] = (double)s->zero_filled,
            [COL_OVER_CAP] = (double)s->over_cap,
            [COL_PATH_DROPPED] = (double)s->path_dropped,
            [COL_MULTI_DROPPED] = (double)s->multi_dropped,
        };
        const char *keys[] = {cl->name, s->name};
        fsc_stats_row(out, &stream_table, keys, v, NULL);
    }
    pthread_mutex_lock(&cl->mu);
    fsc_time_guard_stats(&cl->tg, cl->name, out);
    pthread_mutex_unlock(&cl->mu);
}

static const struct fsc_profile *const gnmi_profiles[] = {&fsc_profile_junos, NULL};

const struct fsc_source_ops fsc_gnmi_source_ops = {
    .config = &fsc_gnmi_kind,
    .profiles = gnmi_profiles,
    .start = gnmi_start,
    .stop = gnmi_stop,
    .stop_begin = gnmi_stop_begin,
    .healthy = gnmi_healthy,
    .stat_tables = gnmi_tables,
    .stats = gnmi_stats,
};
