#include "net/http_watch.h"

#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/admit_stats.h"

#define TICK_NS ((int64_t)250 * 1000000)

enum phase {
    PH_WAIT, /* before the first request, or between two: no header yet */
    PH_BODY, /* header complete, the body (if any) arriving */
    PH_SEND, /* body complete: the answer is being produced or sent */
};

/* Open connections of one client address (an IPv4 address is kept as its
 * IPv4-mapped IPv6 form). */
struct addr_slot {
    uint8_t addr[16];
    uint32_t conns; /* 0: free (or free again) */
    bool used;      /* ever used: a probe goes on past it */
};

/* One watched connection; lives in MHD's socket_context. Guarded by w->mu. */
struct watch_conn {
    struct watch_conn *prev, *next;
    struct fsc_http_watch *w;
    int fd;
    enum phase phase;
    bool trusted;           /* the last request passed the credentials gate */
    bool admitted;          /* the current request did */
    bool cut;               /* shut down already */
    bool bad_target;        /* the current request's target decoded to a NUL */
    int64_t phase_start;    /* mono ns: accept, end of the last request, or header complete */
    uint64_t body;          /* body bytes of the current request */
    int64_t win_start;      /* body-rate window start, mono ns */
    uint64_t win_body;      /* body bytes at win_start */
    struct addr_slot *addr; /* its client address's count; NULL when not counted */
    uint8_t key[16];        /* the client address (addr_key) */
    bool has_key;
};

struct fsc_http_watch {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t thread;
    bool stopping;
    struct fsc_listener_limits lim;
    struct watch_conn head;  /* circular list sentinel, oldest first */
    struct addr_slot *addrs; /* open addressing, n_addrs (a power of two) */
    size_t n_addrs, used_addrs;
    uint64_t open;
    struct fsc_http_watch_stats st;
    uint64_t logged_header, logged_rate, logged_shed, logged_refused; /* at the last log line */
    char listener[64];
};

static void cut_conn(struct watch_conn *c)
{
    /* The descriptor is still MHD's (CLOSED, which unlinks the record under
     * mu, comes before MHD closes it): shutdown only wakes the connection's
     * thread with EOF, and MHD closes it as usual. */
    (void)shutdown(c->fd, SHUT_RDWR);
    c->cut = true;
}

/* The 16-byte key of a client address (IPv4 mapped into IPv6); 0 or -1
 * for another family. */
static int addr_key(const struct sockaddr *sa, uint8_t key[16])
{
    memset(key, 0, 16);
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &in->sin_addr, 4);
        return 0;
    }
    if (sa && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        memcpy(key, &in6->sin6_addr, 16);
        return 0;
    }
    return -1;
}

static size_t addr_hash(const uint8_t key[16], size_t mask)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (int i = 0; i < 16; i++)
        h = (h ^ key[i]) * 1099511628211ull;
    return (size_t)h & mask;
}

/* The slot of key: its own, else the first free one on its probe path
 * (NULL when the table is full). Caller holds mu. */
static struct addr_slot *addr_find(struct fsc_http_watch *w, const uint8_t key[16])
{
    size_t mask = w->n_addrs - 1, i = addr_hash(key, mask);
    struct addr_slot *reuse = NULL;
    for (size_t n = 0; n < w->n_addrs; n++, i = (i + 1) & mask) {
        struct addr_slot *a = &w->addrs[i];
        if (!a->used)
            return reuse ? reuse : a;
        if (memcmp(a->addr, key, 16) == 0)
            return a;
        if (a->conns == 0 && !reuse)
            reuse = a; /* a tombstone: keep looking for the key itself */
    }
    return reuse;
}

/* Counts c under its address (c->key). Rebuilds the table from the open
 * connections when tombstones fill half of it. Caller holds mu. */
static void addr_add(struct fsc_http_watch *w, struct watch_conn *c)
{
    if (w->used_addrs * 2 >= w->n_addrs) {
        memset(w->addrs, 0, w->n_addrs * sizeof(*w->addrs));
        w->used_addrs = 0;
        for (struct watch_conn *o = w->head.next; o != &w->head; o = o->next) {
            o->addr = NULL;
            if (o != c && o->has_key) {
                struct addr_slot *a = addr_find(w, o->key);
                if (a) {
                    w->used_addrs += !a->used;
                    a->used = true;
                    memcpy(a->addr, o->key, 16);
                    a->conns++;
                    o->addr = a;
                }
            }
        }
    }
    struct addr_slot *a = c->has_key ? addr_find(w, c->key) : NULL;
    if (!a)
        return;
    w->used_addrs += !a->used;
    a->used = true;
    memcpy(a->addr, c->key, 16);
    a->conns++;
    c->addr = a;
}

/* Applies the header deadline and the body rate. Caller holds mu. */
static void cut_late(struct fsc_http_watch *w, int64_t now)
{
    const struct fsc_listener_limits *l = &w->lim;
    for (struct watch_conn *c = w->head.next; c != &w->head; c = c->next) {
        if (c->cut)
            continue;
        if (c->phase == PH_WAIT) {
            int64_t limit = c->trusted ? l->idle_timeout_ns : l->header_timeout_ns;
            if (now - c->phase_start > limit) {
                cut_conn(c);
                w->st.header_timeout++;
            }
        } else if (c->phase == PH_BODY && l->body_min_rate > 0 &&
                   now - c->win_start >= l->body_rate_window_ns) {
            double want = (double)l->body_min_rate * (double)(now - c->win_start) / 1e9;
            if ((double)(c->body - c->win_body) < want) {
                cut_conn(c);
                w->st.body_rate++;
            } else {
                c->win_start = now;
                c->win_body = c->body;
            }
        }
    }
}

/* Logs what was closed since the last line; called without mu (every
 * connection's start and end takes it, and a slow log sink must not stall
 * the listener). */
static void log_cuts(struct fsc_http_watch *w, const struct fsc_http_watch_stats *st)
{
    if (st->header_timeout != w->logged_header)
        fsc_log(FSC_LOG_INFO, "http_header_deadline", "listener=%s closed=%llu total=%llu",
                w->listener, (unsigned long long)(st->header_timeout - w->logged_header),
                (unsigned long long)st->header_timeout);
    if (st->body_rate != w->logged_rate)
        fsc_log(FSC_LOG_INFO, "http_body_too_slow",
                "listener=%s closed=%llu total=%llu min_rate=%llu window_ms=%lld", w->listener,
                (unsigned long long)(st->body_rate - w->logged_rate),
                (unsigned long long)st->body_rate, (unsigned long long)w->lim.body_min_rate,
                (long long)(w->lim.body_rate_window_ns / 1000000));
    if (st->shed != w->logged_shed)
        fsc_log(FSC_LOG_WARN, "http_connections_shed",
                "listener=%s closed=%llu total=%llu open=%llu max_connections=%u reserve=%u",
                w->listener, (unsigned long long)(st->shed - w->logged_shed),
                (unsigned long long)st->shed, (unsigned long long)st->open, w->lim.max_connections,
                w->lim.reserve);
    if (st->refused_per_address != w->logged_refused)
        fsc_log(FSC_LOG_WARN, "http_address_cap",
                "listener=%s refused=%llu total=%llu max_connections_per_ip=%u", w->listener,
                (unsigned long long)(st->refused_per_address - w->logged_refused),
                (unsigned long long)st->refused_per_address, w->lim.max_connections_per_ip);
    w->logged_header = st->header_timeout;
    w->logged_rate = st->body_rate;
    w->logged_shed = st->shed;
    w->logged_refused = st->refused_per_address;
}

static void *watch_main(void *arg)
{
    struct fsc_http_watch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += TICK_NS;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        (void)pthread_cond_timedwait(&w->wake, &w->mu, &until);
        if (w->stopping)
            break;
        cut_late(w, fsc_mono_ns());
        struct fsc_http_watch_stats st = w->st;
        st.open = w->open;
        pthread_mutex_unlock(&w->mu);
        log_cuts(w, &st); /* only this thread touches the logged_* fields */
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct fsc_http_watch *fsc_http_watch_create(const struct fsc_listener_limits *lim,
                                             const char *listener, char *err, size_t errlen)
{
    struct fsc_http_watch *w;
    pthread_condattr_t ca;

    w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "http watch: out of memory");
        return NULL;
    }
    fsc_listener_limits_resolve(lim, &w->lim);
    if (w->lim.header_timeout_ns <= 0 || w->lim.idle_timeout_ns <= 0 ||
        w->lim.body_rate_window_ns <= 0) {
        free(w);
        snprintf(err, errlen, "http watch: the deadlines must be positive");
        return NULL;
    }
    w->head.next = w->head.prev = &w->head;
    /* Room for 4 x max_connections addresses: probes stay short, and the
     * table is rebuilt when half of it was ever used. */
    w->n_addrs = 64;
    while (w->n_addrs < 4 * (size_t)w->lim.max_connections)
        w->n_addrs *= 2;
    w->addrs = calloc(w->n_addrs, sizeof(*w->addrs));
    if (!w->addrs) {
        free(w);
        snprintf(err, errlen, "http watch: out of memory");
        return NULL;
    }
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
    free(w->addrs);
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
    free(w->addrs);
    free(w);
}

static uint32_t addr_conns(const struct watch_conn *c)
{
    return c->addr ? c->addr->conns : 1;
}

/* 1 when a should be shed before b: never admitted before admitted, then
 * the address holding more connections (an attacker's many before a
 * client's one), then the one waiting longer. */
static int shed_before(const struct watch_conn *a, const struct watch_conn *b)
{
    if (a->trusted != b->trusted)
        return !a->trusted;
    if (addr_conns(a) != addr_conns(b))
        return addr_conns(a) > addr_conns(b);
    return a->phase_start < b->phase_start;
}

/* Keeps the reserve free: past max_connections - reserve open connections,
 * shuts down one connection waiting for a request header (shed_before
 * says which); never `fresh` (the one just accepted). Caller holds mu. */
static void shed_idle(struct fsc_http_watch *w, const struct watch_conn *fresh)
{
    uint64_t live = 0;
    for (struct watch_conn *c = w->head.next; c != &w->head; c = c->next)
        live += !c->cut;
    if (live + w->lim.reserve <= w->lim.max_connections)
        return;
    struct watch_conn *victim = NULL;
    for (struct watch_conn *c = w->head.next; c != &w->head; c = c->next) {
        if (c == fresh || c->cut || c->phase != PH_WAIT)
            continue;
        if (!victim || shed_before(c, victim))
            victim = c;
    }
    if (victim) {
        cut_conn(victim);
        w->st.shed++;
    }
}

/* Over the per-address cap (more than max_connections_per_ip live
 * connections of fresh's address): shuts down that address's connection
 * waiting for a request header (shed_before says which), so a client that
 * shares its address (NAT) with one holding idle connections still gets
 * in; when every other one is busy with a request, fresh itself goes
 * (refused_per_address). Caller holds mu. */
static void shed_same_address(struct fsc_http_watch *w, struct watch_conn *fresh)
{
    if (!fresh->has_key)
        return;
    uint64_t live = 0;
    struct watch_conn *victim = NULL;
    for (struct watch_conn *c = w->head.next; c != &w->head; c = c->next) {
        if (c->cut || !c->has_key || memcmp(c->key, fresh->key, 16) != 0)
            continue;
        live++;
        if (c != fresh && c->phase == PH_WAIT && (!victim || shed_before(c, victim)))
            victim = c;
    }
    if (live <= w->lim.max_connections_per_ip)
        return;
    if (victim) {
        cut_conn(victim);
        w->st.shed++;
    } else {
        cut_conn(fresh);
        w->st.refused_per_address++;
    }
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
        c->phase = PH_WAIT;
        c->phase_start = fsc_mono_ns();
        const union MHD_ConnectionInfo *ai =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        c->has_key = ai && addr_key(ai->client_addr, c->key) == 0;
        pthread_mutex_lock(&w->mu);
        c->next = &w->head;
        c->prev = w->head.prev;
        w->head.prev->next = c;
        w->head.prev = c;
        w->open++;
        addr_add(w, c);
        shed_same_address(w, c);
        shed_idle(w, c);
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
    w->open--;
    if (c->addr)
        c->addr->conns--;
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

int fsc_http_watch_request_begin(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return 1;
    int64_t now = fsc_mono_ns();
    pthread_mutex_lock(&c->w->mu);
    c->phase = PH_BODY;
    c->admitted = false;
    c->phase_start = now;
    c->body = 0;
    c->win_start = now;
    c->win_body = 0;
    int live = !c->cut;
    pthread_mutex_unlock(&c->w->mu);
    return live;
}

void fsc_http_watch_admitted(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&c->w->mu);
    c->admitted = true;
    pthread_mutex_unlock(&c->w->mu);
}

void fsc_http_watch_body(struct MHD_Connection *conn, size_t n)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&c->w->mu);
    c->body += n;
    pthread_mutex_unlock(&c->w->mu);
}

int fsc_http_watch_body_done(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return 1;
    pthread_mutex_lock(&c->w->mu);
    c->phase = PH_SEND;
    int live = !c->cut;
    pthread_mutex_unlock(&c->w->mu);
    return live;
}

void fsc_http_watch_request_end(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    int64_t now = fsc_mono_ns();
    pthread_mutex_lock(&c->w->mu);
    c->phase = PH_WAIT;
    c->trusted = c->admitted;
    c->admitted = false;
    c->bad_target = false;
    c->phase_start = now;
    pthread_mutex_unlock(&c->w->mu);
}

void fsc_http_watch_set_bad_target(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return;
    pthread_mutex_lock(&c->w->mu);
    c->bad_target = true;
    pthread_mutex_unlock(&c->w->mu);
}

int fsc_http_watch_bad_target(struct MHD_Connection *conn)
{
    struct watch_conn *c = conn_record(conn);
    if (!c)
        return 0;
    pthread_mutex_lock(&c->w->mu);
    int bad = c->bad_target;
    pthread_mutex_unlock(&c->w->mu);
    return bad;
}

void fsc_http_watch_stats(struct fsc_http_watch *w, struct fsc_http_watch_stats *out)
{
    if (!w) {
        *out = (struct fsc_http_watch_stats){0};
        return;
    }
    pthread_mutex_lock(&w->mu);
    *out = w->st;
    out->open = w->open;
    pthread_mutex_unlock(&w->mu);
}

void fsc_http_watch_admit_stats(struct fsc_http_watch *w, struct fsc_admit_stats *out)
{
    struct fsc_http_watch_stats ws;
    fsc_http_watch_stats(w, &ws);
    fsc_admit_stats_init(out);
    out->header_timeout = ws.header_timeout;
    out->body_too_slow = ws.body_rate;
    out->shed = ws.shed;
    out->refused_per_address = ws.refused_per_address;
    out->open = ws.open;
}

unsigned fsc_http_watch_mhd_limit(const struct fsc_listener_limits *lim)
{
    return lim->max_connections + lim->max_connections / 4;
}

unsigned fsc_http_watch_mhd_per_ip_limit(const struct fsc_listener_limits *lim)
{
    unsigned per_ip = lim->max_connections_per_ip;
    return per_ip > UINT_MAX / 2 ? UINT_MAX : 2 * per_ip;
}
