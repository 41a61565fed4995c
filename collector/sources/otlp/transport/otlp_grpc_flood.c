/* The OTLP/gRPC stream-abuse defence (contract in otlp_grpc_flood.h). */
#include "sources/otlp/transport/otlp_grpc_flood.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/grpc_channelz.h"
#include "net/grpc_peer.h"
#include "sources/otlp/transport/otlp_grpc_resets.h"

#define SEC_NS   ((int64_t)1000000000)
#define ROWS     256                  /* connections tracked per count */
#define POLL_NS  ((int64_t)100000000) /* channelz, at most this often */
#define BLOCK_NS ((int64_t)FSC_OTLP_GRPC_FLOOD_BLOCK_S * SEC_NS)

struct fsc_otlp_grpc_flood {
    const char *source;
    unsigned per_s;
    struct fsc_grpc_resets *calls, *streams;
    struct fsc_grpc_guard *guard;
    struct fsc_grpc_channelz *cz; /* NULL: the streams count is off */
    int64_t poll_ns;              /* next channelz poll */
    int64_t log_ns;               /* last otlp_grpc_reset_flood line */
    _Atomic uint64_t closed, blocks, dropped;
};

static void channelz_off(const struct fsc_otlp_grpc_flood *f, const char *why)
{
    fsc_log(FSC_LOG_WARN, "otlp_grpc_channelz_off",
            "source=%s reason=\"%s\" effect=\"streams without a message are counted only once "
            "the core hands their calls over\"",
            f->source, why);
}

struct fsc_otlp_grpc_flood *fsc_otlp_grpc_flood_create(const char *source, uint16_t port,
                                                       unsigned per_s)
{
    struct fsc_otlp_grpc_flood *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->source = source;
    f->per_s = per_s;
    f->calls = fsc_grpc_resets_create(per_s, ROWS);
    f->streams = fsc_grpc_resets_create(per_s, ROWS);
    f->guard = fsc_grpc_guard_create(port, BLOCK_NS);
    f->cz = fsc_grpc_channelz_create(port);
    if (!f->calls || !f->streams || !f->guard || !f->cz) {
        fsc_otlp_grpc_flood_destroy(f);
        return NULL;
    }
    return f;
}

void fsc_otlp_grpc_flood_destroy(struct fsc_otlp_grpc_flood *f)
{
    if (!f)
        return;
    fsc_grpc_guard_destroy(f->guard);
    fsc_grpc_channelz_destroy(f->cz);
    fsc_grpc_resets_destroy(f->calls);
    fsc_grpc_resets_destroy(f->streams);
    free(f);
}

/* conn went over its budget of `count`: its address is blocked and its
 * connections closed. One log line a second at most (many addresses could
 * flood at once); a failure is always logged. */
static void over_budget(struct fsc_otlp_grpc_flood *f, const char *conn, const char *count,
                        int64_t now)
{
    int n = fsc_grpc_guard_block(f->guard, conn, now);
    if (n > 0)
        atomic_fetch_add(&f->closed, (uint64_t)n);
    atomic_fetch_add(&f->blocks, 1);
    int ferr = fsc_grpc_guard_filter_errno(f->guard);
    if (n >= 0 && ferr == 0 && now - f->log_ns < SEC_NS)
        return;
    f->log_ns = now;
    char q[96];
    fsc_log(n < 0 || ferr ? FSC_LOG_ERROR : FSC_LOG_WARN, "otlp_grpc_reset_flood",
            "source=%s peer=%s count=%s budget_per_s=%u connections_closed=%d blocked_s=%d "
            "blocked_addresses=%zu filter=%s",
            f->source, fsc_log_quote(conn, q, sizeof(q)), count, f->per_s, n,
            FSC_OTLP_GRPC_FLOOD_BLOCK_S, fsc_grpc_guard_blocked(f->guard),
            ferr ? strerror(ferr) : "set");
}

int fsc_otlp_grpc_flood_drop(struct fsc_otlp_grpc_flood *f, const char *conn, int64_t now_ns)
{
    if (!fsc_grpc_resets_closed(f->calls, conn, now_ns) &&
        !fsc_grpc_resets_closed(f->streams, conn, now_ns))
        return 0;
    atomic_fetch_add(&f->dropped, 1);
    return 1;
}

void fsc_otlp_grpc_flood_call(struct fsc_otlp_grpc_flood *f, const char *conn, int64_t now_ns)
{
    if (fsc_grpc_resets_note(f->calls, conn, now_ns))
        over_budget(f, conn, "calls", now_ns);
}

/* channelz: peer opened n streams without a message since the last poll. */
static void on_streams(void *arg, const char *peer, uint64_t n)
{
    struct fsc_otlp_grpc_flood *f = arg;
    int64_t now = fsc_mono_ns();
    if (fsc_grpc_resets_note_n(f->streams, peer, n, now))
        over_budget(f, peer, "streams", now);
}

void fsc_otlp_grpc_flood_tick(struct fsc_otlp_grpc_flood *f, int64_t now_ns)
{
    fsc_grpc_guard_expire(f->guard, now_ns);
    if (!f->cz || now_ns < f->poll_ns)
        return;
    if (fsc_grpc_channelz_poll(f->cz, on_streams, f) < 0) {
        channelz_off(f, "channelz answer not readable");
        fsc_grpc_channelz_destroy(f->cz);
        f->cz = NULL;
        return;
    }
    /* A poll costs about 5 us a connection: with many connections, poll
     * less often, so that polling takes at most a twentieth of the time. */
    int64_t done = fsc_mono_ns(), wait = 20 * (done - now_ns);
    f->poll_ns = done + (wait > POLL_NS ? wait : POLL_NS);
}

void fsc_otlp_grpc_flood_stats(const struct fsc_otlp_grpc_flood *f,
                               struct fsc_otlp_grpc_flood_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!f)
        return;
    out->closed = atomic_load(&f->closed);
    out->blocks = atomic_load(&f->blocks);
    out->dropped = atomic_load(&f->dropped);
}

unsigned fsc_otlp_grpc_flood_budget(const struct fsc_otlp_grpc_flood *f)
{
    return f->per_s;
}
