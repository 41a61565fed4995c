/* Shared fixture of prom_http_test.c and prom_http_slow_test.c: a fake
 * renderer (known exposition per format, call counter, failure, a gate that
 * blocks a render until released), a server started with it, and gunzip;
 * the raw HTTP client is http_client_fixture.h. Functions are static inline
 * so a test file that does not call one gets no unused-function warning. */
#ifndef FSC_PROM_HTTP_FIXTURE_H
#define FSC_PROM_HTTP_FIXTURE_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "prometheus/prom_http.h"
#include "test.h"
#include "http_client_fixture.h"

#define FX_TEXT    "# TYPE fsc_up gauge\nfsc_up 1\n"
#define FX_OM      "# TYPE fsc_up gauge\nfsc_up 1\n# EOF\n"
#define FX_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define FX_CT_OM   "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* ---- fake renderer --------------------------------------------------------- */

struct fake {
    atomic_int calls;
    atomic_int last_fmt;
    atomic_int ready;
    atomic_int fail_rc; /* returned instead of rendering when nonzero */
    const char *big;    /* when set, rendered instead of FX_TEXT / FX_OM */
    size_t big_len;
    int stream;         /* big is handed to the flush in segments, as the renderer does */
    int gate_piece;     /* > 0: the gate is at the start of that piece, not of the render */
    pthread_mutex_t mu; /* gate: a render waits while gate_closed */
    pthread_cond_t cv;
    int gate_closed;
    int in_render; /* renders currently waiting at the gate */
};

static inline void fake_init(struct fake *f)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
}

static inline void fake_fini(struct fake *f)
{
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
}

static inline void fake_gate(struct fake *f, int closed)
{
    pthread_mutex_lock(&f->mu);
    f->gate_closed = closed;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Waits (bounded: 10 s) until a render is parked at the closed gate. */
static inline int fake_wait_in_render(struct fake *f)
{
    struct timespec until;
    int ok;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += FX_IO_TIMEOUT_S;
    pthread_mutex_lock(&f->mu);
    while (f->in_render == 0) {
        if (pthread_cond_timedwait(&f->cv, &f->mu, &until) == ETIMEDOUT)
            break;
    }
    ok = f->in_render > 0;
    pthread_mutex_unlock(&f->mu);
    return ok;
}

/* Waits while the gate is closed, counted in in_render. */
static inline void fake_at_gate(struct fake *f)
{
    pthread_mutex_lock(&f->mu);
    f->in_render++;
    pthread_cond_broadcast(&f->cv);
    while (f->gate_closed)
        pthread_cond_wait(&f->cv, &f->mu);
    f->in_render--;
    pthread_mutex_unlock(&f->mu);
}

static inline int fake_render(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out,
                              const struct fsc_prom_flush *flush)
{
    struct fake *f = arg;
    atomic_fetch_add(&f->calls, 1);
    atomic_store(&f->last_fmt, (int)fmt);
    if (f->gate_piece == 0)
        fake_at_gate(f);
    int rc = atomic_load(&f->fail_rc);
    if (rc != 0)
        return rc;
    fsc_buf_reset(out);
    if (f->big && f->stream && flush) {
        /* As the renderer streams: a piece per segment, the rest left. */
        size_t off = 0;
        for (int piece = 0; f->big_len - off > flush->segment; off += flush->segment, piece++) {
            if (piece == f->gate_piece && piece > 0)
                fake_at_gate(f);
            int frc = fsc_buf_append(out, f->big + off, flush->segment);
            if (frc == 0)
                frc = flush->fn(flush->arg, out);
            if (frc != 0)
                return frc;
        }
        return fsc_buf_append(out, f->big + off, f->big_len - off);
    }
    if (f->big)
        return fsc_buf_append(out, f->big, f->big_len);
    return fsc_buf_puts(out, fmt == FSC_PROM_OPENMETRICS ? FX_OM : FX_TEXT);
}

static inline int fake_ready(void *arg)
{
    return atomic_load(&((struct fake *)arg)->ready);
}

/* Deterministic exposition-like text of exactly n bytes (caller frees). */
static inline char *fx_big_text(size_t n)
{
    char *s = malloc(n + 1);
    size_t len = 0;
    unsigned long i = 0;
    if (!s)
        return NULL;
    while (len < n) {
        char line[96];
        int k = snprintf(line, sizeof(line),
                         "fabric_port_rx_bytes_total{device=\"leaf%lu\",port=\"et-0/0/%lu\"} %lu\n",
                         i % 64, i % 48, i * 7919);
        size_t take = (size_t)k < n - len ? (size_t)k : n - len;
        memcpy(s + len, line, take);
        len += take;
        i++;
    }
    s[n] = '\0';
    return s;
}

/* Starts a server on 127.0.0.1:0 with the fake; NULL (and a failed check)
 * when it cannot. */
static inline struct fsc_prom_http *fx_start(struct fake *f, size_t max_body, int64_t timeout_ns)
{
    struct fsc_prom_http_config cfg = {"127.0.0.1:0", max_body, timeout_ns, NULL, NULL, NULL};
    char err[256] = "";
    struct fsc_prom_http *h =
        fsc_prom_http_start(&cfg, fake_render, fake_ready, f, err, sizeof(err));
    CHECK(h != NULL);
    if (!h)
        fprintf(stderr, "start: %s\n", err);
    else
        CHECK(fsc_prom_http_port(h) != 0);
    return h;
}

/* gunzips src into a malloc'd buffer (*out, *out_len). Returns 0 or -1. */
static inline int fx_gunzip(const char *src, size_t n, char **out, size_t *out_len)
{
    z_stream zs;
    size_t cap = 4096 + n * 16, len = 0;
    char *buf = malloc(cap);
    int zrc;
    if (!buf)
        return -1;
    memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        free(buf);
        return -1;
    }
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)n;
    do {
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        zs.next_out = (Bytef *)buf + len;
        zs.avail_out = (uInt)(cap - len);
        zrc = inflate(&zs, Z_NO_FLUSH);
        len = cap - zs.avail_out;
    } while (zrc == Z_OK);
    inflateEnd(&zs);
    if (zrc != Z_STREAM_END || zs.avail_in != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *out_len = len;
    return 0;
}

#endif
