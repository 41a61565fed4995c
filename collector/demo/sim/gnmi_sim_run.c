/* The simulator's run loop: binds every target and serves them all from
 * one thread.
 *
 * A target is one gRPC server (its own listening port) with its own calls,
 * counter epoch and jitter state (struct sim_server). All targets register
 * the one completion queue, so a process serving --targets 100 has one
 * thread of ours (plus the gRPC core's own pool, which does not grow with
 * the targets). The loop waits on the queue with a deadline of at most
 * 20 ms so stream ticks, stalls, disconnects and the end of --duration are
 * checked without timers, and sweeps every call of every target at most
 * once per millisecond (a busy queue does not turn each completion into a
 * walk over all calls). A stream keeps at most one message in flight and
 * builds the next one when the previous send completes, so memory stays
 * bounded whatever the client's speed: a tick that comes while the previous
 * wrap is still being sent is skipped (counted as an overrun), as a busy
 * device would. */
#include "demo/sim/gnmi_sim_server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(65537);
    size_t n = buf ? fread(buf, 1, 65536, f) : 0;
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static grpc_server_credentials *make_creds(const struct fsc_sim_config *cfg, char *err,
                                           size_t errlen)
{
    if (!cfg->tls_cert)
        return grpc_insecure_server_credentials_create();
    char *cert = read_file(cfg->tls_cert, err, errlen);
    char *key = cert && cfg->tls_key ? read_file(cfg->tls_key, err, errlen) : NULL;
    char *ca = key && cfg->tls_ca ? read_file(cfg->tls_ca, err, errlen) : NULL;
    grpc_server_credentials *creds = NULL;
    if (cert && key && (!cfg->tls_ca || ca)) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        creds = grpc_ssl_server_credentials_create_ex(
            ca, &pair, 1,
            ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
               : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
        if (!creds)
            snprintf(err, errlen, "TLS credentials rejected");
    } else if (cert && !cfg->tls_key) {
        snprintf(err, errlen, "--tls-cert needs --tls-key");
    }
    free(cert);
    free(key);
    free(ca);
    return creds;
}

static gpr_timespec deadline_ms(int64_t ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* Target k's address: listen itself for one target or port 0 (each binds a
 * free port), else host:(port + k). Returns 0, or -1 when listen has no
 * port or port + k leaves 1..65535. */
static int target_addr(const char *listen, uint32_t targets, uint32_t k, char *out, size_t outlen)
{
    const char *colon = strrchr(listen, ':');
    if (!colon)
        return -1;
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || port > 65535)
        return -1;
    if (targets == 1 || port == 0) {
        snprintf(out, outlen, "%s", listen);
        return 0;
    }
    if (port + k > 65535)
        return -1;
    snprintf(out, outlen, "%.*s:%lu", (int)(colon - listen), listen, port + k);
    return 0;
}

/* Fills target k's own config and starts its server on cq with creds.
 * Returns the bound port, or -1 with a sentence in err (the server, if
 * created, is destroyed and srv->server is NULL). */
static int target_start(struct sim_server *srv, const struct fsc_sim_config *cfg, uint32_t k,
                        grpc_completion_queue *cq, grpc_server_credentials *creds, char *err,
                        size_t errlen)
{
    srv->own = *cfg;
    srv->cfg = &srv->own;
    srv->index = k;
    srv->cq = cq;
    srv->t_shutdown = (struct tag){TAG_SHUTDOWN, NULL};
    if (cfg->targets > 1) {
        snprintf(srv->system_id, sizeof(srv->system_id), "%s-%u", cfg->system_id, k);
        srv->own.system_id = srv->system_id;
        srv->own.utilization = cfg->utilization + (double)k * cfg->utilization_step;
        srv->own.seed = cfg->seed + k;
    }
    srv->rng = srv->own.seed ? srv->own.seed : 0x9e3779b97f4a7c15ULL;
    char addr[300];
    if (target_addr(cfg->listen, cfg->targets, k, addr, sizeof(addr)) != 0) {
        snprintf(err, errlen, "cannot listen on %s (target %u)", cfg->listen, k);
        return -1;
    }
    srv->server = grpc_server_create(NULL, NULL);
    grpc_server_register_completion_queue(srv->server, cq, NULL);
    int port = grpc_server_add_http2_port(srv->server, addr, creds);
    if (port <= 0) {
        snprintf(err, errlen, "cannot listen on %s", addr);
        grpc_server_destroy(srv->server);
        srv->server = NULL;
        return -1;
    }
    grpc_server_start(srv->server);
    srv->start_ms = fsc_sim_now_ms();
    if (sim_request_next(srv) != 0) {
        snprintf(err, errlen, "cannot request calls (target %u)", k);
        srv->shutting_down = 1; /* started: it is shut down with the others */
        return -1;
    }
    return port;
}

/* True once every started target has shut down and freed its calls. */
static int all_drained(const struct sim_server *t, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        if (t[k].server && (!t[k].shutdown_done || t[k].calls || t[k].waiting))
            return 0;
    }
    return 1;
}

int fsc_sim_run(const struct fsc_sim_config *cfg, char *err, size_t errlen)
{
    uint32_t n = cfg->targets ? cfg->targets : 1;
    if (n > FSC_SIM_MAX_TARGETS) {
        snprintf(err, errlen, "at most %u targets", FSC_SIM_MAX_TARGETS);
        return -1;
    }
    struct sim_server *t = calloc(n, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    grpc_server_credentials *creds = make_creds(cfg, err, errlen);
    if (!creds) {
        free(t);
        return -1;
    }
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    int *ports = calloc(n, sizeof(*ports));
    int rc = ports ? 0 : -1;
    if (!ports)
        snprintf(err, errlen, "out of memory");
    uint32_t started = 0;
    for (; rc == 0 && started < n; started++) {
        ports[started] = target_start(&t[started], cfg, started, cq, creds, err, errlen);
        if (ports[started] < 0) {
            rc = -1;
            if (t[started].server)
                started++; /* shut down below with the others */
            break;
        }
    }
    grpc_server_credentials_release(creds);
    for (uint32_t k = 0; rc == 0 && k < n; k++) {
        if (n == 1)
            printf("listening port=%d\n", ports[k]);
        else
            printf("listening port=%d target=%u system_id=%s\n", ports[k], k, t[k].system_id);
    }
    fflush(stdout);
    free(ports);

    /* Main loop. Bounded: after the duration, shutdown gets 5 s to drain. */
    int stopping = rc != 0;
    int64_t now = fsc_sim_now_ms();
    int64_t end_ms = stopping ? now : now + cfg->duration_ms;
    int64_t last_sweep = 0;
    for (;;) {
        now = fsc_sim_now_ms();
        if (!stopping && (now >= end_ms || (cfg->stop && *cfg->stop))) {
            stopping = 1;
            end_ms = now; /* the 5 s drain bound starts now */
        }
        for (uint32_t k = 0; stopping && k < started; k++) {
            struct sim_server *srv = &t[k];
            srv->shutting_down = 1;
            if (srv->shutdown_requested)
                continue;
            srv->shutdown_requested = 1;
            grpc_server_shutdown_and_notify(srv->server, cq, &srv->t_shutdown);
            grpc_server_cancel_all_calls(srv->server);
        }
        if (stopping && all_drained(t, started))
            break;
        if (stopping && now >= end_ms + 5000) {
            snprintf(err, errlen, "shutdown did not drain in 5 s");
            rc = -1;
            break;
        }
        grpc_event ev = grpc_completion_queue_next(cq, deadline_ms(20), NULL);
        if (ev.type == GRPC_OP_COMPLETE)
            sim_dispatch(ev.tag, ev.success);
        now = fsc_sim_now_ms();
        if (now == last_sweep)
            continue;
        last_sweep = now;
        for (uint32_t k = 0; k < started; k++) {
            for (struct call *c = t[k].calls, *nx; c; c = nx) {
                nx = c->next;
                sim_stream_pump(c, now);
            }
        }
    }
    for (uint32_t k = 0; k < started; k++) {
        grpc_server_destroy(t[k].server);
        for (struct call *c = t[k].calls, *nx; c; c = nx) { /* only after a failed drain */
            nx = c->next;
            sim_call_free(c);
        }
    }
    grpc_completion_queue_shutdown(cq);
    for (int i = 0; i < 1000; i++) {
        grpc_event ev = grpc_completion_queue_next(cq, deadline_ms(10), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
    }
    grpc_completion_queue_destroy(cq);
    free(t);
    return rc;
}
