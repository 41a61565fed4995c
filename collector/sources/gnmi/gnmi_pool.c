/* The gNMI workers: every gnmi source of the process shares a small fixed
 * set of threads, each with its own completion queue, so the thread count
 * follows the cores and not the devices (a thread per device would be a
 * thousand threads at a thousand switches).
 *
 * A new client goes to the worker with the fewest clients and stays there;
 * the worker is woken to start its calls at once (TAG_WAKE), not at its
 * next tick.
 * A worker's loop: take completions as they come; every TICK_NS, first take
 * whatever else is ready in the queue (bounded), then tick every client.
 * Two rules keep one busy device (or a slow ingest, or a starved host) from
 * making another look silent, which would cancel healthy streams:
 *   1. The queue is taken before a tick judges silence: the responses
 *      waiting in it are not a silent target. If the bound cuts the drain
 *      short, the tick starts calls but judges none.
 *   2. When the worker was held up (back more than TICK_NS / 2 after its
 *      schedule), silence counts from when it resumed: the responses that
 *      came meanwhile may not have reached the queue yet (gRPC may still be
 *      reading them), and the worker was not listening.
 *
 * Stop of one client leaves the others alone: the worker cancels that
 * client's calls, keeps serving the shared queue until they have all
 * reported back (bounded by STOP_DRAIN_NS), then releases the client and
 * signals; only then may the stopping thread free it.
 *
 * Locks: pool_mu guards the pool pointer, its users and every worker's
 * load; w->mu guards a worker's incoming list and the clients' `released`.
 * A client's own state is its worker's alone (stats under cl->mu). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <grpc/support/time.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "sources/gnmi/gnmi_client.h"

#define NS_PER_MS     1000000LL
#define NS_PER_S      1000000000LL
#define TICK_NS       (100 * NS_PER_MS)
#define DRAIN_MAX     65536u          /* completions taken before a tick at most */
#define STOP_DRAIN_NS (10 * NS_PER_S) /* for cancelled calls to report back */
#define STOP_WAIT_NS  (15 * NS_PER_S) /* the stopping thread's wait: beyond the drain */
#define WORKERS_MIN   8u
#define WORKERS_MAX   16u

struct gnmi_worker {
    pthread_t thread;
    bool started;
    grpc_completion_queue *cq;
    pthread_mutex_t mu;
    pthread_cond_t released;      /* a client was released */
    struct gnmi_client *incoming; /* under mu: added, not yet adopted */
    atomic_int quit;
    struct gnmi_client *running; /* worker thread only */
    unsigned load;               /* under pool_mu: clients assigned and not removed */
    struct fsc_sample *smp;      /* FSC_GNMI_SAMPLES_CAP: its clients decode into it in turn */
    bool stuck;                  /* calls never reported back: the queue is leaked */
};

struct gnmi_pool {
    unsigned n, users;
    struct gnmi_worker w[WORKERS_MAX];
};

/* The one pool of the process: sharing it across instances is its point,
 * which is why it is the type's only mutable state outside an instance. */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct gnmi_pool *pool;
static atomic_uint pool_threads;

static gpr_timespec deadline_in(int64_t ns)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(ns, GPR_TIMESPAN));
}

/* Twice the cores this process may run on (its affinity mask: a
 * container's cpuset), within WORKERS_MIN..WORKERS_MAX. Not fewer: the gRPC
 * core reads sockets on the threads that wait in
 * grpc_completion_queue_next, so the workers are also the readers; with one
 * per core (2) a thousand devices lost half their updates while the
 * collector used a fifth of a core, with 8 they did not (docs/PERFORMANCE.md,
 * "gNMI worker pool and parallel stop"). Not many more: the decode itself
 * needs no more than the cores. */
static unsigned workers_wanted(void)
{
    /* FABRICSCOPE_GNMI_WORKERS=N (1..64) sets it: for a host whose cores
     * are not all the collector's, and for tests that need two devices on
     * one worker. */
    const char *env = getenv("FABRICSCOPE_GNMI_WORKERS");
    if (env && env[0]) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 64)
            return (unsigned)v;
    }
    long n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0)
        n = 1;
    n *= 2;
    if (n < (long)WORKERS_MIN)
        n = WORKERS_MIN;
    return n > (long)WORKERS_MAX ? WORKERS_MAX : (unsigned)n;
}

/* Moves the incoming clients to the running list; each asks for
 * Capabilities and starts its calls at once (a tick that judges nothing). */
static void adopt(struct gnmi_worker *w)
{
    pthread_mutex_lock(&w->mu);
    struct gnmi_client *in = w->incoming;
    w->incoming = NULL;
    pthread_mutex_unlock(&w->mu);
    while (in) {
        struct gnmi_client *cl = in;
        in = cl->next;
        cl->next = w->running;
        w->running = cl;
        cl->smp = w->smp;
        for (size_t i = 0; i < cl->n_streams; i++)
            cl->streams[i].smp = w->smp;
        fsc_gnmi_client_begin(cl);
        int64_t now = fsc_mono_ns();
        fsc_gnmi_client_tick(cl, now, now);
    }
}

/* One completion: a client's, or the wake-up of a client just added. */
static void worker_event(struct gnmi_worker *w, const grpc_event *ev)
{
    struct gnmi_tag *tag = ev->tag;
    if (tag->kind == TAG_WAKE) {
        tag->cl->wake_pending = false;
        adopt(w);
        return;
    }
    fsc_gnmi_client_event(ev, fsc_mono_ns());
}

/* Takes the completions ready in the queue, at most DRAIN_MAX. Returns
 * true when the queue was left empty. */
static bool drain(struct gnmi_worker *w)
{
    for (unsigned k = 0; k < DRAIN_MAX; k++) {
        grpc_event ev = grpc_completion_queue_next(w->cq, gpr_inf_past(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            return true;
        worker_event(w, &ev);
    }
    return false;
}

/* A stopping client: cancels its calls once; true when they have all
 * reported back, or at its deadline: then it may be released. */
static bool stop_step(struct gnmi_client *cl, int64_t now)
{
    if (!cl->stopping) {
        cl->stopping = true;
        cl->stop_deadline = now + STOP_DRAIN_NS;
        fsc_gnmi_client_cancel(cl);
    }
    bool pending = fsc_gnmi_client_pending(cl);
    if (pending && now < cl->stop_deadline)
        return false;
    cl->stuck = pending;
    if (pending)
        fsc_log(FSC_LOG_ERROR, "gnmi_stop_incomplete", "source=%s", cl->name);
    return true;
}

/* Hands a stopping client back to its stopping thread, which may free it at
 * once: the caller has unlinked it and touches it no more. */
static void release(struct gnmi_worker *w, struct gnmi_client *cl)
{
    pthread_mutex_lock(&w->mu);
    cl->released = true;
    pthread_cond_broadcast(&w->released);
    pthread_mutex_unlock(&w->mu);
}

/* One tick: new clients begin, stopping ones move on, the others are
 * checked, their silence counted from listen_since at the earliest. */
static void worker_tick(struct gnmi_worker *w, int64_t listen_since)
{
    adopt(w);
    int64_t now = fsc_mono_ns();
    if (listen_since > now)
        listen_since = now;
    for (struct gnmi_client **p = &w->running; *p;) {
        struct gnmi_client *cl = *p;
        if (!atomic_load(&cl->stop)) {
            fsc_gnmi_client_tick(cl, now, listen_since);
            p = &cl->next;
        } else if (stop_step(cl, now)) {
            *p = cl->next; /* unlinked before release: the stopping thread may free it */
            release(w, cl);
        } else {
            p = &cl->next;
        }
    }
}

static void *worker_main(void *arg)
{
    struct gnmi_worker *w = arg;
    int64_t next_tick = 0, resumed = 0;
    for (;;) {
        int64_t now = fsc_mono_ns();
        if (now >= next_tick) {
            if (next_tick > 0 && now - next_tick > TICK_NS / 2)
                resumed = now; /* rule 2 */
            bool drained = drain(w);
            int64_t after = fsc_mono_ns();
            if (after - now > TICK_NS / 2)
                resumed = after;                           /* a long drain: rule 2 as well */
            worker_tick(w, drained ? resumed : INT64_MAX); /* rule 1 */
            /* The pool ends only once every client was removed. */
            if (atomic_load(&w->quit) && !w->running)
                break;
            next_tick = fsc_mono_ns() + TICK_NS;
            continue;
        }
        grpc_event ev = grpc_completion_queue_next(w->cq, deadline_in(next_tick - now), NULL);
        if (ev.type == GRPC_OP_COMPLETE)
            worker_event(w, &ev);
    }
    return NULL;
}

/* Ends a worker whose clients were all released: joins its thread, shuts
 * its queue down and frees it (leaked when stuck calls never reported). */
static void worker_end(struct gnmi_worker *w)
{
    if (w->started) {
        atomic_store(&w->quit, 1);
        pthread_join(w->thread, NULL);
        atomic_fetch_sub(&pool_threads, 1);
    }
    if (w->cq && !w->stuck) {
        grpc_completion_queue_shutdown(w->cq);
        bool down = false;
        for (int i = 0; i < 100 && !down; i++) {
            grpc_event ev = grpc_completion_queue_next(w->cq, deadline_in(TICK_NS), NULL);
            down = ev.type == GRPC_QUEUE_SHUTDOWN;
        }
        if (down)
            grpc_completion_queue_destroy(w->cq);
    }
    free(w->smp);
    pthread_cond_destroy(&w->released);
    pthread_mutex_destroy(&w->mu);
}

static void pool_free(struct gnmi_pool *p)
{
    for (unsigned i = 0; i < p->n; i++)
        worker_end(&p->w[i]);
    free(p);
    grpc_shutdown();
}

/* Under pool_mu: the pool with n workers started, or NULL with err. */
static struct gnmi_pool *pool_create(char *err, size_t errlen)
{
    struct gnmi_pool *p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    grpc_init(); /* the queues outlive any one client's grpc_init */
    unsigned want = workers_wanted();
    for (; p->n < want; p->n++) {
        struct gnmi_worker *w = &p->w[p->n];
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the stop wait's clock */
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->released, &ca);
        pthread_condattr_destroy(&ca);
        atomic_init(&w->quit, 0);
        w->smp = malloc(FSC_GNMI_SAMPLES_CAP * sizeof(*w->smp));
        if (!w->smp) {
            snprintf(err, errlen, "out of memory");
            p->n++;
            goto fail;
        }
        w->cq = grpc_completion_queue_create_for_next(NULL);
        if (!w->cq) {
            snprintf(err, errlen, "cannot create a gRPC completion queue");
            p->n++;
            goto fail;
        }
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            snprintf(err, errlen, "cannot start a gNMI worker thread");
            p->n++;
            goto fail;
        }
        w->started = true;
        atomic_fetch_add(&pool_threads, 1);
    }
    fsc_log(FSC_LOG_INFO, "gnmi_pool_started", "threads=%u", p->n);
    return p;
fail:
    pool_free(p);
    return NULL;
}

int fsc_gnmi_pool_add(struct gnmi_client *cl, char *err, size_t errlen)
{
    pthread_mutex_lock(&pool_mu);
    if (!pool && !(pool = pool_create(err, errlen))) {
        pthread_mutex_unlock(&pool_mu);
        return -1;
    }
    struct gnmi_worker *w = &pool->w[0];
    for (unsigned i = 1; i < pool->n; i++)
        if (pool->w[i].load < w->load)
            w = &pool->w[i];
    w->load++;
    pool->users++;
    cl->w = w;
    cl->cq = w->cq;
    cl->wake_pending = true;
    pthread_mutex_lock(&w->mu);
    cl->next = w->incoming;
    w->incoming = cl;
    pthread_mutex_unlock(&w->mu);
    pthread_mutex_unlock(&pool_mu);
    /* Wakes the worker now: a watch whose deadline has passed completes at
     * once (the C core has no other way to post to a queue). */
    grpc_channel_watch_connectivity_state(cl->chan,
                                          grpc_channel_check_connectivity_state(cl->chan, 0),
                                          gpr_inf_past(GPR_CLOCK_MONOTONIC), w->cq, &cl->t_wake);
    return 0;
}

bool fsc_gnmi_pool_remove(struct gnmi_client *cl)
{
    struct gnmi_worker *w = cl->w;
    if (!w)
        return true;
    /* The worker sees cl->stop on its next tick (TICK_NS at most). */
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += STOP_WAIT_NS / NS_PER_S;
    pthread_mutex_lock(&w->mu);
    while (!cl->released)
        if (pthread_cond_timedwait(&w->released, &w->mu, &until) == ETIMEDOUT)
            break;
    bool released = cl->released;
    pthread_mutex_unlock(&w->mu);
    if (!released)
        fsc_log(FSC_LOG_ERROR, "gnmi_stop_timeout", "source=%s", cl->name);
    bool freeable = released && !cl->stuck;
    pthread_mutex_lock(&pool_mu);
    if (!freeable)
        w->stuck = true; /* its queue may still hand out this client's tags */
    w->load--;
    if (--pool->users == 0) {
        /* A worker that never released cl still runs it: leak the pool
         * rather than join a thread that may never return. */
        if (released)
            pool_free(pool);
        pool = NULL;
    }
    pthread_mutex_unlock(&pool_mu);
    return freeable;
}

unsigned fsc_gnmi_pool_threads(void)
{
    return atomic_load(&pool_threads);
}
