#include "net/http_watch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"

/* One watched connection; lives in MHD's socket_context. Guarded by w->mu. */
struct watch_conn {
    struct watch_conn *prev, *next;
    struct fsc_http_watch *w;
    int fd;
    bool in_request;     /* a request's header arrived and it is not completed */
    bool cut;            /* shut down already */
    int64_t phase_start; /* connection start or last request's completion, mono ns */
};

struct fsc_http_watch {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t thread;
    bool stopping;
    int64_t deadline_ns;
    struct watch_conn head; /* circular list sentinel */
    uint64_t cut;
    char listener[64];
};

/* Shuts down every connection past its header deadline. Caller holds mu.
 * Returns how many it shut down now. */
static unsigned cut_late(struct fsc_http_watch *w, int64_t now)
{
    unsigned n = 0;
    for (struct watch_conn *c = w->head.next; c != &w->head; c = c->next) {
        if (c->in_request || c->cut || now - c->phase_start <= w->deadline_ns)
            continue;
        /* The descriptor is still MHD's (CLOSED, which unlinks the record
         * under mu, comes before MHD closes it): shutdown only wakes the
         * connection's thread with EOF, and MHD closes it as usual. */
        (void)shutdown(c->fd, SHUT_RDWR);
        c->cut = true;
        n++;
    }
    w->cut += n;
    return n;
}

static void *watch_main(void *arg)
{
    struct fsc_http_watch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 1;
        (void)pthread_cond_timedwait(&w->wake, &w->mu, &until);
        if (w->stopping)
            break;
        unsigned n = cut_late(w, fsc_mono_ns());
        if (n > 0) {
            /* Logged without mu: every connection's start and end takes it,
             * and a slow log sink must not stall the listener. */
            unsigned long long total = (unsigned long long)w->cut;
            pthread_mutex_unlock(&w->mu);
            fsc_log(FSC_LOG_INFO, "http_header_deadline", "listener=%s closed=%u total=%llu",
                    w->listener, n, total);
            pthread_mutex_lock(&w->mu);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct fsc_http_watch *fsc_http_watch_create(int64_t deadline_ns, const char *listener, char *err,
                                             size_t errlen)
{
    struct fsc_http_watch *w;
    pthread_condattr_t ca;

    if (deadline_ns <= 0) {
        snprintf(err, errlen, "http watch: the header deadline must be positive");
        return NULL;
    }
    w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "http watch: out of memory");
        return NULL;
    }
    w->deadline_ns = deadline_ns;
    w->head.next = w->head.prev = &w->head;
    snprintf(w->listener, sizeof(w->listener), "%s", listener ? listener : "http");
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        goto fail_mu;
    /* The thread waits on CLOCK_MONOTONIC, like fsc_mono_ns. */
    if (pthread_condattr_init(&ca) != 0)
        goto fail_cond;
    if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&w->wake, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        goto fail_cond;
    }
    pthread_condattr_destroy(&ca);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        goto fail_cond;
    }
    return w;

fail_cond:
    pthread_mutex_destroy(&w->mu);
fail_mu:
    free(w);
    snprintf(err, errlen, "http watch: cannot start its thread");
    return NULL;
}

void fsc_http_watch_destroy(struct fsc_http_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    /* MHD_stop_daemon reported every connection closed; anything left
     * (a STARTED without CLOSED would be an MHD bug) is freed here. */
    while (w->head.next != &w->head) {
        struct watch_conn *c = w->head.next;
        w->head.next = c->next;
        free(c);
    }
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

void fsc_http_watch_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode toe)
{
    struct fsc_http_watch *w = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fdi =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct watch_conn *c = fdi ? calloc(1, sizeof(*c)) : NULL;
        if (!c)
            return; /* unwatched: MHD's idle timeout still applies */
        c->w = w;
        c->fd = fdi->connect_fd;
        c->phase_start = fsc_mono_ns();
        pthread_mutex_lock(&w->mu);
        c->next = &w->head;
        c->prev = w->head.prev;
        w->head.prev->next = c;
        w->head.prev = c;
        pthread_mutex_unlock(&w->mu);
        *socket_context = c;
        return;
    }
    struct watch_conn *c = *socket_context;
    if (!c)
        return;
    pthread_mutex_lock(&w->mu);
    c->prev->next = c->next;
    c->next->prev = c->prev;
    pthread_mutex_unlock(&w->mu);
    free(c);
    *socket_context = NULL;
}

/* The record of a connection, or NULL when it is not watched. */
static struct watch_conn *conn_record(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void fsc_http_watch_request_begin(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&c->w->mu);
    c->in_request = true;
    pthread_mutex_unlock(&c->w->mu);
}

void fsc_http_watch_request_end(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&c->w->mu);
    c->in_request = false;
    c->phase_start = fsc_mono_ns();
    pthread_mutex_unlock(&c->w->mu);
}
