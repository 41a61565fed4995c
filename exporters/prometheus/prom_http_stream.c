/* Streamed scrape bodies (prom_http_stream.h). */
#include "prometheus/prom_http_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/http_server.h"

/* At most one warning per this long about dropped readers. */
#define DROP_LOG_NS (10 * 1000000000LL)

/* One segment: the identity bytes and, when the render makes gzip, the
 * compressed bytes they completed (possibly none: the chunker carries
 * bytes until a cut). */
struct seg {
    struct fsc_buf plain, gz;
};

struct fsc_prom_stream {
    struct fsc_prom_streams *owner;
    enum fsc_prom_format fmt;
    uint64_t seq;
    int gzip;       /* gz segments are made */
    int gzip_fixed; /* the render read gzip: it may no longer change */
    int started;    /* the render thread took it */
    int done;
    int rc;            /* when done: 0 or the render's negative errno */
    uint64_t produced; /* segments made */
    uint64_t base;     /* the first segment still held */
    uint64_t plain_len, gz_len;
    struct seg **segs; /* by number; NULL once freed (below base) */
    size_t cap_segs;
    struct seg *spare[FSC_PROM_WINDOW]; /* freed segments, emptied, for the next ones */
    unsigned n_spare;
    struct fsc_prom_reader **readers; /* attached; as many as connections */
    unsigned n_readers, cap_readers;
    unsigned refs; /* readers not closed, and the queue or the render thread */
};

struct fsc_prom_reader {
    struct fsc_prom_stream *st;
    int gzip;
    int attached; /* in st->readers: its cursor holds segments */
    int dropped;  /* detached by the render (pinned the window) or by a HEAD */
    uint64_t seg;
    size_t off;
};

static void timespec_in(struct timespec *ts, int64_t ns)
{
    clock_gettime(CLOCK_REALTIME, ts);
    int64_t t = (int64_t)ts->tv_nsec + ns;
    ts->tv_sec += (time_t)(t / 1000000000LL);
    ts->tv_nsec = (long)(t % 1000000000LL);
}

/* ---- under mu ------------------------------------------------------------ */

/* The segment the slowest attached reader is in (produced: none). */
static uint64_t slowest(const struct fsc_prom_stream *st)
{
    uint64_t min = st->produced;
    for (unsigned i = 0; i < st->n_readers; i++)
        if (st->readers[i]->seg < min)
            min = st->readers[i]->seg;
    return min;
}

/* Frees the segments every attached reader has passed, but while the
 * render runs keeps them from the start as long as they take at most
 * FSC_PROM_RETAIN: a scrape that arrives meanwhile joins from the start. */
static void free_passed(struct fsc_prom_stream *st)
{
    uint64_t min = slowest(st);
    if (st->base == 0 && !st->done) {
        size_t kept = 0;
        for (uint64_t i = 0; i < min; i++)
            kept += st->segs[i]->plain.len + st->segs[i]->gz.len;
        if (kept <= FSC_PROM_RETAIN)
            return;
    }
    for (; st->base < min; st->base++) {
        struct seg *g = st->segs[st->base];
        st->segs[st->base] = NULL;
        st->owner->held -= g->plain.len + g->gz.len;
        fsc_buf_reset(&g->plain);
        fsc_buf_reset(&g->gz);
        if (st->n_spare < FSC_PROM_WINDOW) {
            st->spare[st->n_spare++] = g;
        } else {
            fsc_buf_free(&g->plain);
            fsc_buf_free(&g->gz);
            free(g);
        }
    }
}

static void seg_free(struct seg *g)
{
    if (!g)
        return;
    fsc_buf_free(&g->plain);
    fsc_buf_free(&g->gz);
    free(g);
}

static void reader_unattach(struct fsc_prom_reader *r)
{
    struct fsc_prom_stream *st = r->st;
    if (!r->attached)
        return;
    for (unsigned i = 0; i < st->n_readers; i++) {
        if (st->readers[i] == r) {
            st->readers[i] = st->readers[--st->n_readers];
            break;
        }
    }
    r->attached = 0;
    free_passed(st);
    pthread_cond_broadcast(&st->owner->cv);
}

static void stream_unref(struct fsc_prom_stream *st)
{
    if (--st->refs > 0)
        return;
    for (uint64_t i = st->base; i < st->produced; i++) {
        st->owner->held -= st->segs[i]->plain.len + st->segs[i]->gz.len;
        seg_free(st->segs[i]);
    }
    for (unsigned i = 0; i < st->n_spare; i++)
        seg_free(st->spare[i]);
    free(st->segs);
    free(st->readers);
    free(st);
}

/* A stream of fmt that a new reader (gzip or not) may join, or NULL. */
static struct fsc_prom_stream *joinable(struct fsc_prom_streams *s, enum fsc_prom_format fmt,
                                        int gzip)
{
    struct fsc_prom_stream *st = s->running;
    if (st && st->fmt == fmt && !st->done && st->base == 0 &&
        (!gzip || st->gzip || !st->gzip_fixed))
        return st;
    return s->pending[fmt];
}

/* ---- readers ----------------------------------------------------------------- */

struct fsc_prom_reader *fsc_prom_reader_open(struct fsc_prom_streams *s, enum fsc_prom_format fmt,
                                             int gzip)
{
    struct fsc_prom_reader *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->gzip = gzip != 0;
    pthread_mutex_lock(&s->mu);
    struct fsc_prom_stream *st = s->stopping ? NULL : joinable(s, fmt, r->gzip);
    int joined = st != NULL;
    if (!st && !s->stopping && (st = calloc(1, sizeof(*st))) != NULL) {
        st->owner = s;
        st->fmt = fmt;
        st->seq = ++s->seq;
        st->refs = 1; /* the queue's, then the render thread's */
        s->pending[fmt] = st;
        pthread_cond_broadcast(&s->cv);
    }
    if (st && st->n_readers == st->cap_readers) {
        unsigned cap = st->cap_readers ? 2 * st->cap_readers : 8;
        struct fsc_prom_reader **v = realloc(st->readers, cap * sizeof(*v));
        if (v) {
            st->readers = v;
            st->cap_readers = cap;
        } else {
            st = NULL; /* a new stream stays queued, reader-less: cancelled when it runs */
        }
    }
    if (!st) {
        /* Stopping, or out of memory. */
        pthread_mutex_unlock(&s->mu);
        free(r);
        return NULL;
    }
    if (joined)
        s->shared++;
    st->gzip |= r->gzip;
    st->readers[st->n_readers++] = r;
    st->refs++;
    r->st = st;
    r->attached = 1;
    pthread_mutex_unlock(&s->mu);
    return r;
}

int fsc_prom_reader_first(struct fsc_prom_reader *r, uint64_t *len, int *len_known)
{
    struct fsc_prom_stream *st = r->st;
    struct fsc_prom_streams *s = st->owner;
    int rc = 0;
    *len = 0;
    *len_known = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->stopping && !r->dropped && st->produced == 0 && !st->done)
        pthread_cond_wait(&s->cv, &s->mu);
    if (s->stopping || r->dropped) {
        rc = -ECANCELED;
    } else if (st->done && st->produced == 0) {
        rc = st->rc ? st->rc : -EIO;
    } else if (st->done && st->rc == 0 && st->base == 0) {
        /* Ended, and the reader's cursor (at 0) held every segment. */
        *len = r->gzip ? st->gz_len : st->plain_len;
        *len_known = 1;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

ssize_t fsc_prom_reader_read(void *reader, char *buf, size_t max)
{
    struct fsc_prom_reader *r = reader;
    struct fsc_prom_stream *st = r->st;
    struct fsc_prom_streams *s = st->owner;
    ssize_t n;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->stopping || r->dropped || !r->attached) {
            n = FSC_HTTP_READ_ERROR;
            break;
        }
        if (r->seg < st->produced) {
            struct seg *g = st->segs[r->seg];
            const struct fsc_buf *b = r->gzip ? &g->gz : &g->plain;
            if (r->off >= b->len) {
                r->seg++;
                r->off = 0;
                free_passed(st);
                pthread_cond_broadcast(&s->cv);
                continue;
            }
            size_t k = b->len - r->off < max ? b->len - r->off : max;
            /* Copied under mu: a reader the render drops meanwhile must not
             * read a segment being freed. At most one MHD block. */
            memcpy(buf, b->data + r->off, k);
            r->off += k;
            n = (ssize_t)k;
            break;
        }
        if (st->done) {
            n = st->rc == 0 ? FSC_HTTP_READ_END : FSC_HTTP_READ_ERROR;
            break;
        }
        pthread_cond_wait(&s->cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

void fsc_prom_reader_detach(struct fsc_prom_reader *r)
{
    struct fsc_prom_streams *s = r->st->owner;
    pthread_mutex_lock(&s->mu);
    r->dropped = 1;
    reader_unattach(r);
    pthread_mutex_unlock(&s->mu);
}

void fsc_prom_reader_close(void *reader)
{
    struct fsc_prom_reader *r = reader;
    if (!r)
        return;
    struct fsc_prom_streams *s = r->st->owner;
    pthread_mutex_lock(&s->mu);
    reader_unattach(r);
    stream_unref(r->st);
    pthread_mutex_unlock(&s->mu);
    free(r);
}

/* ---- the render thread ---------------------------------------------------------- */

struct render_ctx {
    struct fsc_prom_streams *s;
    struct fsc_prom_stream *st;
    struct fsc_buf z;   /* gzip bytes not handed over yet */
    int gz_open;        /* a gzip member was begun */
    uint64_t plain_out; /* identity bytes handed over */
    struct fsc_prom_gz_stats gz_st;
};

/* Under mu: drops the readers at the window's start (they kept it from
 * moving for FSC_PROM_PIN_MAX_NS). */
static void drop_pinning(struct fsc_prom_streams *s, struct fsc_prom_stream *st)
{
    unsigned dropped = 0;
    uint64_t min = slowest(st);
    for (unsigned i = 0; i < st->n_readers;) {
        struct fsc_prom_reader *r = st->readers[i];
        if (r->seg == min) {
            r->dropped = 1;
            reader_unattach(r); /* moves the last reader into slot i */
            dropped++;
        } else {
            i++;
        }
    }
    s->dropped += dropped;
    int64_t now = fsc_mono_ns();
    if (dropped && now - s->drop_logged_ns >= DROP_LOG_NS) {
        s->drop_logged_ns = now;
        fsc_log(FSC_LOG_WARN, "prom_scrape_reader_dropped",
                "listen=%s readers=%u dropped_total=%llu reason=slow_reader pinned_ms=%lld",
                s->listen, dropped, (unsigned long long)s->dropped,
                (long long)(FSC_PROM_PIN_MAX_NS / 1000000));
    }
}

/* Under mu: makes st->segs[st->produced] an empty segment (a spare one
 * when there is). Returns 0 or -ENOMEM. */
static int seg_slot(struct fsc_prom_stream *st)
{
    if (st->produced == st->cap_segs) {
        size_t cap = st->cap_segs ? 2 * st->cap_segs : 64;
        struct seg **v = realloc(st->segs, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        st->segs = v;
        st->cap_segs = cap;
    }
    struct seg *g = st->n_spare ? st->spare[--st->n_spare] : calloc(1, sizeof(*g));
    if (!g)
        return -ENOMEM;
    st->segs[st->produced] = g;
    return 0;
}

/* Hands out's bytes (and the gzip bytes they complete) over as the next
 * segment, once the window has room; `last` ends the gzip member. Resets
 * out. Returns 0, -ECANCELED (stopping, or no reader left) or a gzip
 * error. */
static int publish(struct render_ctx *c, struct fsc_buf *out, int last)
{
    struct fsc_prom_streams *s = c->s;
    struct fsc_prom_stream *st = c->st;
    int rc = 0;

    pthread_mutex_lock(&s->mu);
    int gzip = st->gzip;
    st->gzip_fixed = 1;
    pthread_mutex_unlock(&s->mu);
    if (gzip && !c->gz_open) {
        rc = fsc_prom_gzchunks_begin(s->gz, &c->z);
        c->gz_open = rc == 0;
    }
    if (rc == 0 && gzip)
        rc = fsc_prom_gzchunks_feed(s->gz, out->data ? out->data : "", out->len, &c->z, &c->gz_st);
    if (rc == 0 && gzip && last) {
        rc = fsc_prom_gzchunks_end(s->gz, &c->z, &c->gz_st);
        c->gz_open = 0;
    }
    if (rc != 0)
        return rc;

    pthread_mutex_lock(&s->mu);
    int64_t deadline = fsc_mono_ns() + FSC_PROM_PIN_MAX_NS;
    while (!s->stopping && st->n_readers > 0 && st->produced - slowest(st) >= FSC_PROM_WINDOW) {
        if (fsc_mono_ns() >= deadline) {
            drop_pinning(s, st);
            deadline = fsc_mono_ns() + FSC_PROM_PIN_MAX_NS;
            continue;
        }
        struct timespec ts;
        timespec_in(&ts, 100 * 1000000LL);
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
    if (s->stopping || st->n_readers == 0) {
        rc = -ECANCELED;
        st->rc = rc;
        st->done = 1; /* at once: no scrape may join a render that stops */
        pthread_cond_broadcast(&s->cv);
    } else if ((rc = seg_slot(st)) == 0) {
        struct seg *g = st->segs[st->produced];
        struct fsc_buf t = g->plain; /* trade buffers: no copy */
        g->plain = *out;
        *out = t;
        t = g->gz;
        g->gz = c->z;
        c->z = t;
        g->plain.limit = 0;
        st->plain_len += g->plain.len;
        st->gz_len += g->gz.len;
        s->held += g->plain.len + g->gz.len;
        c->plain_out += g->plain.len;
        st->produced++;
        if (last)
            st->done = 1; /* with the last segment: a reader sees both or neither */
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    fsc_buf_reset(out);
    fsc_buf_reset(&c->z);
    return rc;
}

/* The renderer's flush: a segment, and what the body may still take. */
static int render_flush(void *arg, struct fsc_buf *out)
{
    struct render_ctx *c = arg;
    int rc = publish(c, out, 0);
    size_t max_body = c->s->max_body;
    out->limit = max_body ? (c->plain_out < max_body ? max_body - c->plain_out : 1) : 0;
    /* A segment and a line at once, not grown by doubling (each a copy);
     * a failure here only costs speed. */
    if (rc == 0 && (!out->limit || out->limit > FSC_PROM_SEGMENT + FSC_PROM_SEGMENT / 8))
        (void)fsc_buf_reserve(out, FSC_PROM_SEGMENT + FSC_PROM_SEGMENT / 8);
    return rc;
}

static void run(struct fsc_prom_streams *s, struct fsc_prom_stream *st)
{
    struct render_ctx c = {.s = s, .st = st};
    struct fsc_buf out = {0};
    const struct fsc_prom_flush flush = {render_flush, &c, FSC_PROM_SEGMENT};
    int64_t t0 = fsc_mono_ns();

    out.limit = s->max_body;
    int rc = s->render(s->arg, st->fmt, &out, &flush);
    /* A renderer that ignored a failed append would otherwise ship a
     * truncated exposition. */
    if (rc == 0 && out.failed)
        rc = -EIO;
    if (rc == 0)
        rc = publish(&c, &out, 1);
    if (c.gz_open)
        fsc_prom_gzchunks_abort(s->gz);
    fsc_buf_free(&out);
    fsc_buf_free(&c.z);
    if (rc != 0 && rc != -ECANCELED)
        fsc_log(FSC_LOG_WARN, "prom_render_failed", "listen=%s err=%d max_body=%zu", s->listen, -rc,
                s->max_body);

    pthread_mutex_lock(&s->mu);
    st->rc = rc;
    st->done = 1;
    free_passed(st); /* no scrape joins it now: what was kept for them goes */
    pthread_cond_broadcast(&s->cv);
    fsc_log(FSC_LOG_DEBUG, "prom_scrape",
            "listen=%s format=%s gzip=%d bytes=%llu wire_bytes=%llu render_us=%lld "
            "gzip_chunks=%zu gzip_chunks_reused=%zu rc=%d",
            s->listen, st->fmt == FSC_PROM_OPENMETRICS ? "openmetrics" : "text", st->gzip,
            (unsigned long long)st->plain_len, (unsigned long long)st->gz_len,
            (long long)((fsc_mono_ns() - t0) / 1000), c.gz_st.chunks, c.gz_st.chunks_reused, rc);
    pthread_mutex_unlock(&s->mu);
}

static void *render_main(void *arg)
{
    struct fsc_prom_streams *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stopping && !s->pending[0] && !s->pending[1])
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stopping)
            break;
        int f = !s->pending[0] || (s->pending[1] && s->pending[1]->seq < s->pending[0]->seq);
        struct fsc_prom_stream *st = s->pending[f];
        s->pending[f] = NULL;
        st->started = 1;
        s->running = st;
        if (st->n_readers > 0) {
            pthread_mutex_unlock(&s->mu);
            run(s, st);
            pthread_mutex_lock(&s->mu);
        } else {
            st->rc = -ECANCELED; /* its scrapes went away before it ran */
            st->done = 1;
        }
        s->running = NULL;
        stream_unref(st); /* the render thread's reference */
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------ */

int fsc_prom_streams_init(struct fsc_prom_streams *s, fsc_prom_stream_render_fn render, void *arg,
                          size_t max_body, const char *listen)
{
    memset(s, 0, sizeof(*s));
    s->render = render;
    s->arg = arg;
    s->max_body = max_body;
    s->listen = listen;
    int rc = fsc_prom_gzchunks_new(1, &s->gz);
    if (rc != 0)
        return rc;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        fsc_prom_gzchunks_free(s->gz);
        return -ENOMEM;
    }
    if (pthread_cond_init(&s->cv, NULL) != 0) {
        pthread_mutex_destroy(&s->mu);
        fsc_prom_gzchunks_free(s->gz);
        return -ENOMEM;
    }
    if (pthread_create(&s->thread, NULL, render_main, s) != 0) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        fsc_prom_gzchunks_free(s->gz);
        return -EAGAIN;
    }
    return 0;
}

void fsc_prom_streams_stop(struct fsc_prom_streams *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

void fsc_prom_streams_fini(struct fsc_prom_streams *s)
{
    fsc_prom_streams_stop(s);
    pthread_join(s->thread, NULL);
    for (int f = 0; f < FSC_PROM_FORMATS; f++) {
        if (s->pending[f])
            stream_unref(s->pending[f]); /* the queue's reference; no reader is left */
        s->pending[f] = NULL;
    }
    fsc_prom_gzchunks_free(s->gz);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}
