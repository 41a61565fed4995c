/* fsc_gnmi_source_ops: instance setup and teardown around the device thread
 * (gnmi_client.c) and its channel (gnmi_channel.c). */
#include "sources/gnmi/gnmi_source.h"

#include "net/grpc_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "model/profile.h"
#include "sources/gnmi/gnmi_client.h"
#include "sources/gnmi/gnmi_plan.h"

static void client_destroy(struct gnmi_client *cl)
{
    if (!cl)
        return;
    if (cl->cq && !cl->stuck) {
        /* every call has completed: drain the shutdown marker, then free */
        grpc_completion_queue_shutdown(cl->cq);
        for (int i = 0; i < 1000; i++) {
            grpc_event ev =
                grpc_completion_queue_next(cl->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            if (ev.type == GRPC_QUEUE_SHUTDOWN)
                break;
        }
        grpc_completion_queue_destroy(cl->cq);
    }
    if (cl->chan)
        grpc_channel_destroy(cl->chan);
    for (size_t i = 0; cl->streams && i < cl->n_streams; i++) {
        struct gnmi_stream *st = &cl->streams[i];
        free(st->req);
        fsc_gnmi_decoder_destroy(st->dec);
        free(st->smp);
    }
    free(cl->streams);
    for (size_t i = 0; i < cl->n_md; i++)
        grpc_slice_unref(cl->md[i].value);
    if (cl->grpc_inited)
        grpc_shutdown();
    pthread_mutex_destroy(&cl->mu);
    free(cl);
}

static int streams_create(struct gnmi_client *cl, const struct fsc_source_config *sc, char *err,
                          size_t errlen)
{
    const struct fsc_gnmi_config *gc = &sc->gnmi;
    const struct fsc_profile *prof = NULL;
    if (sc->profile && !(prof = fsc_profile_find(sc->profile))) {
        snprintf(err, errlen, "source %s: unknown profile %s", sc->name, sc->profile);
        return -EINVAL;
    }
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
        st->t_send = (struct gnmi_tag){TAG_SEND, st};
        st->t_recv = (struct gnmi_tag){TAG_RECV, st};
        st->t_status = (struct gnmi_tag){TAG_STATUS, st};
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
        };
        st->dec = fsc_gnmi_decoder_create(&dc, &cl->env, perr, sizeof(perr));
        if (!st->dec) {
            snprintf(err, errlen, "source %s: %s", sc->name, perr);
            return -EINVAL;
        }
        st->smp = calloc(FSC_GNMI_SAMPLES_CAP, sizeof(*st->smp));
        if (!st->smp) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
    }
    return 0;
}

static void *gnmi_start(const struct fsc_source_config *sc, const struct fsc_source_env *env,
                        char *err, size_t errlen)
{
    const struct fsc_gnmi_config *gc = &sc->gnmi;
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
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cl->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)cl ^ 0x9e3779b97f4a7c15ULL;
    cl->t_caps = (struct gnmi_tag){TAG_CAPS, NULL};

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
    cl->cq = grpc_completion_queue_create_for_next(NULL);
    if (!cl->cq) {
        snprintf(err, errlen, "cannot create a gRPC completion queue");
        goto fail;
    }
    if (pthread_create(&cl->thread, NULL, fsc_gnmi_client_main, cl) != 0) {
        snprintf(err, errlen, "cannot start the gNMI thread");
        goto fail;
    }
    cl->thread_started = true;
    fsc_log(FSC_LOG_INFO, "gnmi_started", "source=%s device=%s address=%s streams=%zu tls=%s",
            cl->name, gc->device, gc->address, cl->n_streams,
            gc->tls.present && gc->tls.enabled ? "on" : "off");
    return cl;
fail:
    client_destroy(cl);
    return NULL;
}

static void gnmi_stop(void *ctx)
{
    struct gnmi_client *cl = ctx;
    if (!cl)
        return;
    atomic_store(&cl->stop, 1);
    if (cl->thread_started)
        pthread_join(cl->thread, NULL);
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

const struct fsc_source_ops fsc_gnmi_source_ops = {
    .type = "gnmi",
    .start = gnmi_start,
    .stop = gnmi_stop,
};
