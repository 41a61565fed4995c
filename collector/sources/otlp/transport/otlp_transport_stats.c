/* Per-transport counters and their rate-limited error log (contract in
 * otlp_transport_stats.h). */
#include "sources/otlp/transport/otlp_transport_stats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"

#define ERR_LOG_EVERY_NS ((int64_t)60 * 1000000000)

static const char *const errkind_names[FSC_OTLP_ERR__COUNT] = {
    "bad_request", "too_large", "unsupported", "internal", "rejected_points",
};

int fsc_otlp_counters_init(struct fsc_otlp_counters *c, const char *transport, const char *source)
{
    memset(c, 0, sizeof(*c));
    if (pthread_mutex_init(&c->mu, NULL) != 0)
        return -ENOMEM;
    c->st.transport = transport;
    c->source = source;
    return 0;
}

void fsc_otlp_counters_fini(struct fsc_otlp_counters *c)
{
    pthread_mutex_destroy(&c->mu);
}

static int errkind_of(enum fsc_otlp_verdict v)
{
    switch (v) {
    case FSC_OTLP_PARTIAL:
        return FSC_OTLP_ERR_REJECTED;
    case FSC_OTLP_BAD_REQUEST:
        return FSC_OTLP_ERR_BAD_REQUEST;
    case FSC_OTLP_TOO_LARGE:
        return FSC_OTLP_ERR_TOO_LARGE;
    case FSC_OTLP_UNSUPPORTED:
        return FSC_OTLP_ERR_UNSUPPORTED;
    case FSC_OTLP_INTERNAL:
        return FSC_OTLP_ERR_INTERNAL;
    default:
        return -1;
    }
}

void fsc_otlp_counters_add(struct fsc_otlp_counters *c, enum fsc_otlp_verdict verdict,
                           uint64_t wire_bytes, const struct fsc_otlp_outcome *o,
                           const char *detail)
{
    int kind = errkind_of(verdict);
    int log_now = 0;
    uint64_t suppressed = 0;

    pthread_mutex_lock(&c->mu);
    struct fsc_otlp_transport_stats *st = &c->st;
    st->requests++;
    st->bytes_received += wire_bytes;
    if (o) {
        st->points += o->points;
        st->rejected += o->rejected;
        st->skipped_other_shard += o->skipped_other_shard;
        st->skipped_no_value += o->skipped_no_value;
    }
    switch (verdict) {
    case FSC_OTLP_OK:
        st->ok++;
        break;
    case FSC_OTLP_PARTIAL:
        st->partial++;
        break;
    case FSC_OTLP_BAD_REQUEST:
        st->bad_request++;
        break;
    case FSC_OTLP_TOO_LARGE:
        st->too_large++;
        break;
    default:
        st->other_errors++;
        break;
    }
    if (kind >= 0) {
        /* A misconfigured sender repeats the same error every few seconds
         * for ever: one line per kind per minute says it all, and the
         * counters have the exact numbers. */
        int64_t now = fsc_mono_ns();
        if (c->last_log_ns[kind] == 0 || now - c->last_log_ns[kind] >= ERR_LOG_EVERY_NS) {
            log_now = 1;
            suppressed = c->suppressed[kind];
            c->suppressed[kind] = 0;
            c->last_log_ns[kind] = now;
        } else {
            c->suppressed[kind]++;
        }
    }
    pthread_mutex_unlock(&c->mu);

    if (o && o->warning[0]) {
        /* The ingest returns each such note once (per device): log it as is. */
        char q[300];
        fsc_log(FSC_LOG_WARN, "otlp_sender_warning", "source=%s transport=%s message=%s", c->source,
                c->st.transport, fsc_log_quote(o->warning, q, sizeof(q)));
    }
    if (log_now) {
        char q[300];
        fsc_log(kind == FSC_OTLP_ERR_INTERNAL ? FSC_LOG_ERROR : FSC_LOG_WARN, "otlp_request_error",
                "source=%s transport=%s kind=%s status=%s rejected=%llu message=%s "
                "suppressed=%llu",
                c->source, c->st.transport, errkind_names[kind], detail ? detail : "-",
                (unsigned long long)(o ? o->rejected : 0),
                fsc_log_quote(o && o->message[0] ? o->message : "-", q, sizeof(q)),
                (unsigned long long)suppressed);
    }
}

void fsc_otlp_counters_set_port(struct fsc_otlp_counters *c, uint16_t port)
{
    pthread_mutex_lock(&c->mu);
    c->st.port = port;
    pthread_mutex_unlock(&c->mu);
}

void fsc_otlp_counters_get(struct fsc_otlp_counters *c, struct fsc_otlp_transport_stats *out)
{
    pthread_mutex_lock(&c->mu);
    *out = c->st;
    pthread_mutex_unlock(&c->mu);
}
