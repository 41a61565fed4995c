/* The gRPC channel of one device: credentials, channel arguments, and the
 * process-wide gRPC log hook. */
#include <errno.h>
#include <grpc/grpc_security.h>
#include <grpc/support/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "net/pem.h"
#include "sources/gnmi/gnmi_client.h"

#define NS_PER_MS 1000000LL

static int ms_arg(int64_t ns)
{
    int64_t ms = ns / NS_PER_MS;
    if (ms < 1)
        ms = 1;
    if (ms > 0x7fffffff)
        ms = 0x7fffffff;
    return (int)ms;
}

int fsc_gnmi_channel_create(struct gnmi_client *cl, char *err, size_t errlen)
{
    const struct fsc_gnmi_config *gc = cl->gc;
    const struct fsc_tls_config *tls = &gc->tls;
    grpc_channel_credentials *creds = NULL;
    char *ca = NULL, *cert = NULL, *key = NULL;
    int rc = -EINVAL;

    if (tls->present && tls->enabled) {
        if (tls->insecure_skip_verify) {
            /* The stable C core API has no switch to skip server verification;
             * refuse rather than silently verify (or not). */
            snprintf(err, errlen,
                     "tls.insecure_skip_verify is not supported by the gNMI client; "
                     "give tls.ca_file instead");
            goto out;
        }
        if (tls->ca_file && !(ca = fsc_pem_read(tls->ca_file, "CA file", err, errlen)))
            goto out;
        if (tls->cert_file && !(cert = fsc_pem_read(tls->cert_file, "certificate", err, errlen)))
            goto out;
        if (tls->key_file && !(key = fsc_pem_read(tls->key_file, "key", err, errlen)))
            goto out;
        grpc_ssl_pem_key_cert_pair pair = {.private_key = key, .cert_chain = cert};
        creds = grpc_ssl_credentials_create(ca, cert && key ? &pair : NULL, NULL, NULL);
    } else {
        creds = grpc_insecure_credentials_create();
    }
    if (!creds) {
        snprintf(err, errlen, "cannot create gRPC channel credentials");
        goto out;
    }

    /* Keepalive pings only while calls are open, no more often than
     * keepalive_ns: a target's ENHANCE_YOUR_CALM bound (default 5 min without
     * calls) is not tripped. Reconnect backoff mirrors ours; the minimum
     * reconnect backoff is gRPC's connect deadline. Responses up to 64 MiB
     * (a full dump of a large sensor can exceed gRPC's 4 MiB default). */
    grpc_arg args[8];
    size_t n = 0;
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_KEEPALIVE_TIME_MS,
                           .value.integer = ms_arg(gc->keepalive_ns)};
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS,
                           .value.integer = 0};
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                           .value.integer = ms_arg(gc->backoff.initial_ns)};
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
                           .value.integer = ms_arg(gc->backoff.max_ns)};
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
                           .value.integer = ms_arg(gc->connect_timeout_ns)};
    args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                           .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                           .value.integer = 64 * 1024 * 1024};
    if (tls->present && tls->enabled && tls->server_name)
        args[n++] = (grpc_arg){.type = GRPC_ARG_STRING,
                               .key = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG,
                               .value.string = (char *)tls->server_name};
    grpc_channel_args ca_args = {.num_args = n, .args = args};
    cl->chan = grpc_channel_create(gc->address, creds, &ca_args);
    if (!cl->chan) {
        snprintf(err, errlen, "cannot create a gRPC channel to %s", gc->address);
        goto out;
    }
    rc = 0;
out:
    if (creds)
        grpc_channel_credentials_release(creds);
    fsc_pem_free(ca);
    fsc_pem_free(cert);
    fsc_pem_free(key); /* wiped: a private key should not linger in freed memory */
    return rc;
}
