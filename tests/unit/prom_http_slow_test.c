/* The exporter's HTTP server under awkward clients: a reader that stalls or
 * trickles does not hold up other scrapes; a render in progress does not
 * hold up health checks, and renders are serialised; idle clients are
 * dropped; parallel scrapes share the buffer pool safely; stopping with
 * clients connected (even mid-render) is clean (ASan reports leaks). */
#include "prom_http_fixture.h"
#include "base/clock.h"
#include "prometheus/prom_http_stream.h"

#include <dirent.h>
#include <poll.h>
#include <sys/ioctl.h>

#define BIG_LEN ((size_t)32 << 20)

/* fake_init(f), then the server on it serving a body of len bytes (*bigp,
 * also f->big; the caller frees it) with idle timeout timeout_ns (0: 30 s).
 * NULL (checked) when either fails. */
static struct fsc_prom_http *start_big(struct fake *f, size_t len, int64_t timeout_ns, char **bigp)
{
    char *big = fx_big_text(len);
    *bigp = big;
    fake_init(f);
    struct fsc_prom_http *h = big ? fx_start(f, 0, timeout_ns) : NULL;
    CHECK(h != NULL);
    if (!h) {
        free(big);
        return NULL;
    }
    f->big = big;
    f->big_len = len;
    return h;
}

/* Reads fd until end of stream or error (bounded: 100 000 reads);
 * returns the bytes read. */
static size_t drain(int fd)
{
    size_t total = 0;
    char sink[65536];
    for (int i = 0; i < 100000; i++) {
        ssize_t k = recv(fd, sink, sizeof(sink), 0);
        if (k <= 0)
            break;
        total += (size_t)k;
    }
    return total;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The server's end of the connection of client_fd: the socket of this
 * process (the server runs in it) bound to 127.0.0.1:port whose peer is
 * client_fd's local address; -1 when there is none (not accepted yet, or
 * closed by the server). Found through /proc/self/fd, so the tests can wait
 * for what the server did with a connection instead of sleeping. */
static int server_end(uint16_t port, int client_fd)
{
    struct sockaddr_in me, a, b;
    socklen_t l = sizeof(me);
    if (getsockname(client_fd, (struct sockaddr *)&me, &l) != 0)
        return -1;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int found = -1;
    struct dirent *e;
    while (found == -1 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int fd = atoi(e->d_name);
        socklen_t la = sizeof(a), lb = sizeof(b);
        if (fd == client_fd || fd == dirfd(d) || getsockname(fd, (struct sockaddr *)&a, &la) != 0 ||
            getpeername(fd, (struct sockaddr *)&b, &lb) != 0)
            continue;
        if (a.sin_family == AF_INET && ntohs(a.sin_port) == port && b.sin_family == AF_INET &&
            b.sin_port == me.sin_port && b.sin_addr.s_addr == me.sin_addr.s_addr)
            found = fd;
    }
    closedir(d);
    return found;
}

/* Polls (bounded: 10 s) until the server has accepted client_fd's
 * connection and read everything sent on it. */
static int wait_request_read(uint16_t port, int client_fd)
{
    for (int i = 0; i < 1000; i++) {
        int fd = server_end(port, client_fd), unread = -1;
        if (fd != -1 && ioctl(fd, FIONREAD, &unread) == 0 && unread == 0)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Polls (bounded: 10 s) until the server has closed its end of client_fd's
 * connection (the client need not read anything for that). */
static int wait_server_closed(uint16_t port, int client_fd)
{
    for (int i = 0; i < 1000; i++) {
        if (server_end(port, client_fd) == -1)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Polls (bounded: 10 s) until the fake has seen `n` renders. */
static int wait_calls(struct fake *f, int n)
{
    for (int i = 0; i < 1000; i++) {
        if (atomic_load(&f->calls) >= n)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Polls (bounded: 10 s) until a body is published (a render ended): a
 * scrape sent after that renders its own instead of sharing it. */
static int wait_published(struct fsc_prom_http *h)
{
    for (int i = 0; i < 1000; i++) {
        struct fsc_prom_scrape_stats st;
        fsc_prom_http_scrape_stats(h, &st);
        if (st.held_bytes > 0)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* Full scrape on a fresh connection; 1 when the body is exactly want. */
static int scrape_ok(uint16_t port, const char *extra, const char *want, size_t want_len)
{
    struct fx_resp r;
    int ok = fx_request(port, "GET", "/metrics", extra, &r) == 0 && r.status == 200;
    if (ok && strstr(extra, "gzip")) {
        char *plain = NULL;
        size_t plain_len = 0;
        ok = fx_gunzip(r.body, r.body_len, &plain, &plain_len) == 0 && plain_len == want_len &&
             memcmp(plain, want, want_len) == 0;
        free(plain);
    } else if (ok) {
        ok = r.body_len == want_len && memcmp(r.body, want, want_len) == 0;
    }
    fx_resp_free(&r);
    return ok;
}

struct trickle {
    int fd;
    int iterations;
    char got[32];
    size_t n;
};

/* Reads one byte every 50 ms, `iterations` times. */
static void *trickle_main(void *arg)
{
    struct trickle *t = arg;
    for (int i = 0; i < t->iterations; i++) {
        char c;
        if (recv(t->fd, &c, 1, 0) != 1)
            break;
        if (t->n + 1 < sizeof(t->got))
            t->got[t->n++] = c;
        /* Not synchronisation: the trickling client is what is under test. */
        sleep_ms(50);
    }
    return NULL;
}

/* Client A asks for a 32 MB body and reads nothing, then 1 byte per 50 ms;
 * meanwhile client B's full scrapes (identity and gzip) complete with the
 * exact body. A holds its own buffer, not the renderer. */
static void slow_reader_does_not_block(void)
{
    struct fake f;
    char *big;
    struct fsc_prom_http *h = start_big(&f, BIG_LEN, 0, &big);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    int a = fx_connect_small_rcvbuf(port);
    CHECK(a != -1);
    if (a == -1)
        goto out;
    CHECK_INT(fx_send(a, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK(wait_calls(&f, 1));
    CHECK(wait_published(h));
    /* A's render is done and its response is stuck in full socket buffers. */
    CHECK(scrape_ok(port, "", big, BIG_LEN));
    CHECK(scrape_ok(port, "Accept-Encoding: gzip\r\n", big, BIG_LEN));

    struct trickle t = {a, 40, {0}, 0};
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, trickle_main, &t), 0);
    for (int i = 0; i < 3; i++)
        CHECK(scrape_ok(port, i == 1 ? "Accept-Encoding: gzip\r\n" : "", big, BIG_LEN));
    pthread_join(th, NULL);
    CHECK_INT(t.n, 31);
    CHECK(strncmp(t.got, "HTTP/1.1 200 OK\r\n", 17) == 0);
    CHECK_INT(atomic_load(&f.calls), 6);
    close(a);
out:
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

struct scraper {
    uint16_t port;
    const char *extra;
    struct fx_resp r;
    int rc;
};

static void *scraper_main(void *arg)
{
    struct scraper *s = arg;
    s->rc = fx_request(s->port, "GET", "/metrics", s->extra, &s->r);
    return NULL;
}

/* While a render is parked (the gate is closed), /-/healthy and /-/ready
 * answer, and a second scrape (another format) waits for the render thread
 * instead of rendering concurrently. Opening the gate completes both. */
static void render_lock_scope(void)
{
    struct fake f;
    struct fx_resp r;
    pthread_t t1;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    struct scraper s1 = {port, "", {0}, -1};
    fake_gate(&f, 1);
    CHECK_INT(pthread_create(&t1, NULL, scraper_main, &s1), 0);
    CHECK(fake_wait_in_render(&f));
    /* The second scrape by hand, so the test can see the server take it. */
    int s2 = fx_connect(port);
    CHECK(s2 != -1);
    CHECK_INT(fx_send(s2, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
                          "Accept: application/openmetrics-text\r\n\r\n"),
              0);

    CHECK_INT(fx_request(port, "GET", "/-/healthy", "", &r), 0);
    CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
    fx_resp_free(&r);
    CHECK_INT(fx_request(port, "GET", "/-/ready", "", &r), 0);
    CHECK_INT(r.status, 503);
    fx_resp_free(&r);
    /* The server has read the second request (its handler runs next and
     * reaches the lock). Then 200 ms is the window of a negative check: a
     * scrape that did not wait for the lock would render in it (calls 2,
     * and a second render parked at the gate). Not synchronisation. */
    CHECK(wait_request_read(port, s2));
    sleep_ms(200);
    CHECK_INT(atomic_load(&f.calls), 1);
    pthread_mutex_lock(&f.mu);
    CHECK_INT(f.in_render, 1);
    pthread_mutex_unlock(&f.mu);

    fake_gate(&f, 0);
    pthread_join(t1, NULL);
    CHECK_INT(s1.rc, 0);
    CHECK_STR(s1.r.body, FX_TEXT);
    fx_resp_free(&s1.r);
    CHECK_INT(s2 != -1 ? fx_read_resp(s2, 0, &r) : -1, 0);
    CHECK_STR(r.body, FX_OM);
    fx_resp_free(&r);
    if (s2 != -1)
        close(s2);
    CHECK_INT(atomic_load(&f.calls), 2);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* client_timeout 1 s: a silent client, a half-sent request and a reader
 * that stopped reading a large body are all dropped. */
static void idle_clients_dropped(void)
{
    struct fake f;
    char *big;
    struct fsc_prom_http *h = start_big(&f, BIG_LEN, 1000000000, &big);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    int silent = fx_connect(port), half = fx_connect(port), stalled = fx_connect_small_rcvbuf(port);
    CHECK(silent != -1 && half != -1 && stalled != -1);
    if (silent == -1 || half == -1 || stalled == -1)
        goto out;
    CHECK_INT(fx_send(half, "GET /metrics HTTP/1.1\r\nHo"), 0);
    CHECK_INT(fx_send(stalled, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK(fx_wait_closed(silent)); /* within the 10 s receive timeout */
    CHECK(fx_wait_closed(half));
    /* Read nothing until the server has dropped the connection (10 s at
     * most, 10x the timeout), then drain: the body must end early. */
    CHECK(wait_calls(&f, 1));
    CHECK(server_end(port, stalled) != -1); /* held while it sends, then dropped */
    CHECK(wait_server_closed(port, stalled));
    size_t total = drain(stalled);
    CHECK(total > 0);
    CHECK(total < BIG_LEN);
out:
    if (silent != -1)
        close(silent);
    if (half != -1)
        close(half);
    if (stalled != -1)
        close(stalled);
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

/* Slowloris: with client_timeout 1 s, a client that sends a header byte every
 * 200 ms (each byte resets MHD's idle timeout) is cut once its header is
 * 1 s overdue (net/http_watch.h), long before it would finish sending; a
 * normal scrape still works afterwards. */
static void slowloris_header_deadline(void)
{
    struct fake f;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 1000000000);
    CHECK(h != NULL);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    int fd = fx_connect(port);
    CHECK(fd != -1);
    int cut = 0, sent = 0;
    if (fd != -1 && fx_send(fd, "GET /metrics HTTP/1.1\r\nX-Slow: ") == 0) {
        /* 50 bytes at 200 ms: 10 s of header, never completed. */
        for (int i = 0; i < 50 && !cut; i++) {
            sleep_ms(200); /* not synchronisation: the slow sender is under test */
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            char c;
            if (poll(&pfd, 1, 0) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0)
                cut = 1;
            else if (send(fd, "a", 1, MSG_NOSIGNAL) != 1)
                cut = 1;
            else
                sent++;
        }
    }
    CHECK(cut);
    CHECK(sent < 40); /* cut well before the header would have ended */
    if (fd != -1)
        close(fd);
    CHECK(scrape_ok(port, "", FX_TEXT, strlen(FX_TEXT)));
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

struct par {
    uint16_t port;
    const char *want;
    size_t want_len;
    int ok;
};

static void *par_main(void *arg)
{
    struct par *p = arg;
    p->ok = 0;
    for (int i = 0; i < 5; i++)
        p->ok += scrape_ok(p->port, i % 2 ? "Accept-Encoding: gzip\r\n" : "", p->want, p->want_len);
    return NULL;
}

/* 8 clients x 5 scrapes, identity and gzip mixed: every body exact; each
 * scrape rendered or shared a render (readers join and leave renders
 * concurrently), no reader dropped. */
static void parallel_scrapes(void)
{
    struct fake f;
    struct par p[8];
    pthread_t th[8];
    char *big;
    struct fsc_prom_http *h = start_big(&f, 1 << 20, 0, &big);
    if (!h)
        return;
    for (int i = 0; i < 8; i++) {
        p[i] = (struct par){fsc_prom_http_port(h), big, 1 << 20, 0};
        CHECK_INT(pthread_create(&th[i], NULL, par_main, &p[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(p[i].ok, 5);
    }
    struct fsc_prom_scrape_stats st;
    fsc_prom_http_scrape_stats(h, &st);
    CHECK_INT(atomic_load(&f.calls) + (int)st.shared, 40);
    CHECK_INT(st.dropped, 0);
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

/* Three scrapes of one format that arrive while a render is parked share
 * it: one render, three exact bodies (identity and gzip from the same
 * body), counted as two shared. */
static void waiting_scrapes_share_one_render(void)
{
    struct fake f;
    struct fx_resp r;
    pthread_t t1;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    struct scraper s1 = {port, "", {0}, -1};
    fake_gate(&f, 1);
    CHECK_INT(pthread_create(&t1, NULL, scraper_main, &s1), 0);
    CHECK(fake_wait_in_render(&f));
    int s2 = fx_connect(port), s3 = fx_connect(port);
    CHECK(s2 != -1 && s3 != -1);
    CHECK_INT(fx_send(s2, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK_INT(fx_send(s3, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"), 0);
    /* Both requests read; 200 ms for their handlers to reach the render lock
     * (they wait there: the render is parked). Not synchronisation of the
     * result: a scrape that came later would render and fail the count. */
    CHECK(wait_request_read(port, s2));
    CHECK(wait_request_read(port, s3));
    sleep_ms(200);
    fake_gate(&f, 0);
    pthread_join(t1, NULL);
    CHECK_INT(s1.rc, 0);
    CHECK_STR(s1.r.body, FX_TEXT);
    fx_resp_free(&s1.r);
    CHECK_INT(s2 != -1 ? fx_read_resp(s2, 0, &r) : -1, 0);
    CHECK_STR(r.body, FX_TEXT);
    fx_resp_free(&r);
    CHECK_INT(s3 != -1 ? fx_read_resp(s3, 0, &r) : -1, 0);
    char *plain = NULL;
    size_t plain_len = 0;
    CHECK(fx_gunzip(r.body, r.body_len, &plain, &plain_len) == 0 && plain_len == strlen(FX_TEXT) &&
          memcmp(plain, FX_TEXT, plain_len) == 0);
    free(plain);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&f.calls), 1);
    struct fsc_prom_scrape_stats st;
    fsc_prom_http_scrape_stats(h, &st);
    CHECK_INT(st.shared, 2);
    CHECK_INT(st.dropped, 0);
    if (s2 != -1)
        close(s2);
    if (s3 != -1)
        close(s3);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

struct opener {
    struct fake *f;
    int idle; /* a client connection the stop shuts */
    int saw_stop;
};

/* Opens the gate once the stop is under way: MHD_stop_daemon shuts every
 * connection (the idle one's end shows EOF) before it joins their threads,
 * the parked render's among them. Opens it after 10 s in any case, so a
 * stop that never starts fails the check instead of hanging the test. */
static void *open_gate_in_stop(void *arg)
{
    struct opener *o = arg;
    o->saw_stop = fx_wait_closed(o->idle);
    fake_gate(o->f, 0);
    return NULL;
}

/* Stop with: an idle connection, a half-sent request, a keep-alive
 * connection after a request, a stalled 32 MB response, and a scrape parked
 * in render (released once the stop has shut the connections). stop
 * returns, every client sees its connection end, and ASan finds nothing
 * leaked. */
static void stop_with_clients(void)
{
    struct fake f;
    struct fx_resp r;
    pthread_t t1, opener;
    char *big;
    struct fsc_prom_http *h = start_big(&f, BIG_LEN, 0, &big);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    int idle = fx_connect(port), half = fx_connect(port), kept = fx_connect(port),
        stalled = fx_connect_small_rcvbuf(port);
    CHECK(idle != -1 && half != -1 && kept != -1 && stalled != -1);
    CHECK_INT(fx_send(half, "GET /-/hea"), 0);
    CHECK_INT(fx_send(kept, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK_INT(fx_read_resp(kept, 0, &r), 0);
    CHECK_INT(r.status, 200);
    fx_resp_free(&r);
    CHECK_INT(fx_send(stalled, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK(wait_calls(&f, 1));
    CHECK(wait_published(h)); /* so the next scrape renders (and parks) */

    struct scraper s1 = {port, "", {0}, -1};
    fake_gate(&f, 1);
    CHECK_INT(pthread_create(&t1, NULL, scraper_main, &s1), 0);
    CHECK(fake_wait_in_render(&f));
    struct opener o = {&f, idle, 0};
    CHECK_INT(pthread_create(&opener, NULL, open_gate_in_stop, &o), 0);
    fsc_prom_http_stop(h);
    pthread_join(opener, NULL);
    CHECK(o.saw_stop);
    pthread_join(t1, NULL);
    /* The parked scrape may or may not get its answer before its socket is
     * shut; what matters is that the join above returned (it would hang on
     * a stop that never released the connection). */
    fx_resp_free(&s1.r);
    CHECK(fx_wait_closed(idle));
    CHECK(fx_wait_closed(half));
    CHECK(fx_wait_closed(kept));
    CHECK(fx_wait_closed(stalled));
    close(idle);
    close(half);
    close(kept);
    close(stalled);
    CHECK_INT(atomic_load(&f.calls), 2);
    fake_fini(&f);
    free(big);
}

/* ---- streamed renders (the fake hands its body over in segments) ---------- */

/* Polls (bounded: 10 s) until the segments held take at most `most` bytes;
 * records the largest figure seen in *peak. */
static int wait_held_at_most(struct fsc_prom_http *h, size_t most, size_t *peak)
{
    for (int i = 0; i < 1000; i++) {
        struct fsc_prom_scrape_stats st;
        fsc_prom_http_scrape_stats(h, &st);
        if (st.held_bytes > *peak)
            *peak = st.held_bytes;
        if (st.held_bytes <= most)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* A 32 MB body streamed: identity and gzip exact, sent chunked (its length
 * is not known when the answer starts); HEAD answers without holding the
 * render, and closes the connection (no length to send); once the scrapes
 * are done nothing is held. */
static void streamed_bodies_exact(void)
{
    struct fake f;
    struct fx_resp r;
    char *big;
    struct fsc_prom_http *h = start_big(&f, BIG_LEN, 0, &big);
    if (!h)
        return;
    f.stream = 1;
    uint16_t port = fsc_prom_http_port(h);
    CHECK_INT(fx_request(port, "GET", "/metrics", "", &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_INT(r.chunked, 1);
    CHECK(r.body_len == BIG_LEN && r.body && memcmp(r.body, big, BIG_LEN) == 0);
    fx_resp_free(&r);
    CHECK(scrape_ok(port, "Accept-Encoding: gzip\r\n", big, BIG_LEN));
    CHECK(scrape_ok(port, "Accept-Encoding: gzip\r\n", big, BIG_LEN)); /* chunks reused */
    CHECK_INT(fx_request(port, "HEAD", "/metrics", "", &r), 0);
    CHECK_INT(r.status, 200);
    char conn[32] = "";
    CHECK(fx_header(&r, "Connection", conn, sizeof(conn)) && strcmp(conn, "close") == 0);
    fx_resp_free(&r);
    size_t peak = 0;
    CHECK(wait_held_at_most(h, 0, &peak));
    struct fsc_prom_scrape_stats st;
    fsc_prom_http_scrape_stats(h, &st);
    CHECK_INT(st.dropped, 0);
    CHECK_INT(atomic_load(&f.calls) + (int)st.shared, 4);
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

/* Samples the bytes of held segments every millisecond until told to
 * stop, keeping the largest figure. */
struct held_sampler {
    struct fsc_prom_http *h;
    atomic_int stop;
    size_t peak;
};

static void *held_sampler_main(void *arg)
{
    struct held_sampler *hs = arg;
    while (!atomic_load(&hs->stop)) {
        struct fsc_prom_scrape_stats st;
        fsc_prom_http_scrape_stats(hs->h, &st);
        if (st.held_bytes > hs->peak)
            hs->peak = st.held_bytes;
        sleep_ms(1); /* the sampling period, not synchronisation */
    }
    return NULL;
}

/* Client A asks for a streamed 64 MB body and reads nothing. Client B's
 * scrape, arriving meanwhile, completes with the exact body (sharing A's
 * render or the next one); A is dropped once it has kept the window from
 * moving for FSC_PROM_PIN_MAX_NS (its connection then ends at the idle
 * timeout, 3 s here: MHD calls the dropped reader no more while A's socket
 * is full). The segments held, sampled throughout, never pass what one
 * render may hold: the window past the slowest reader and what is kept for
 * joiners (FSC_PROM_RETAIN): just over half the body. */
static void streamed_slow_reader_dropped(void)
{
    struct fake f;
    const size_t len = 2 * BIG_LEN;
    char *big;
    struct fsc_prom_http *h = start_big(&f, len, 3 * 1000000000LL, &big);
    if (!h)
        return;
    f.stream = 1;
    uint16_t port = fsc_prom_http_port(h);
    int a = fx_connect_small_rcvbuf(port);
    CHECK(a != -1);
    if (a != -1) {
        size_t peak = 0;
        struct held_sampler hs = {.h = h};
        pthread_t ts;
        CHECK_INT(pthread_create(&ts, NULL, held_sampler_main, &hs), 0);
        CHECK_INT(fx_send(a, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
        CHECK(wait_calls(&f, 1));
        int64_t t0 = fsc_mono_ns();
        CHECK(scrape_ok(port, "", big, len));
        /* B waited at most for A to be dropped (2 s), then its own render. */
        CHECK(fsc_mono_ns() - t0 < 3 * FSC_PROM_PIN_MAX_NS);
        CHECK(wait_server_closed(port, a));
        CHECK(wait_held_at_most(h, 0, &peak));
        atomic_store(&hs.stop, 1);
        pthread_join(ts, NULL);
        CHECK(hs.peak > 0);
        CHECK(hs.peak <= FSC_PROM_RETAIN + (size_t)(FSC_PROM_WINDOW + 1) * FSC_PROM_SEGMENT);
        CHECK(hs.peak < len * 3 / 5); /* 34.25 MiB of 64 */
        struct fsc_prom_scrape_stats st;
        fsc_prom_http_scrape_stats(h, &st);
        CHECK_INT(st.dropped, 1);
        CHECK_INT(atomic_load(&f.calls) + (int)st.shared, 2);
        /* A's body ended early: less than the whole arrived. */
        size_t total = drain(a);
        CHECK(total > 0 && total < len);
        close(a);
    }
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

struct resp_reader {
    int fd;
    struct fx_resp r;
    int rc;
};

static void *resp_reader_main(void *arg)
{
    struct resp_reader *rr = arg;
    rr->rc = fx_read_resp(rr->fd, 0, &rr->r);
    return NULL;
}

/* A streamed render parked after 4 segments (1 MiB) that its first
 * scrape has read: a second scrape arriving now joins it from the start
 * (the render keeps passed segments up to FSC_PROM_RETAIN for that): one
 * render, two exact bodies, counted as one shared. */
static void streamed_late_scrape_joins(void)
{
    struct fake f;
    pthread_t t1;
    size_t len = (size_t)8 << 20;
    char *big;
    struct fsc_prom_http *h = start_big(&f, len, 0, &big);
    if (!h)
        return;
    f.stream = 1;
    f.gate_piece = 4;
    uint16_t port = fsc_prom_http_port(h);
    struct scraper s1 = {port, "", {0}, -1};
    fake_gate(&f, 1);
    CHECK_INT(pthread_create(&t1, NULL, scraper_main, &s1), 0);
    CHECK(fake_wait_in_render(&f));
    int s2 = fx_connect(port);
    CHECK(s2 != -1);
    CHECK_INT(fx_send(s2, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    int joined = 0;
    for (int i = 0; i < 1000 && !joined; i++) {
        struct fsc_prom_scrape_stats st;
        fsc_prom_http_scrape_stats(h, &st);
        joined = st.shared == 1;
        if (!joined)
            sleep_ms(10);
    }
    CHECK(joined);
    /* Both read while the render goes on: neither may pin it. */
    struct resp_reader rr = {s2, {0}, -1};
    pthread_t t2;
    CHECK_INT(pthread_create(&t2, NULL, resp_reader_main, &rr), 0);
    fake_gate(&f, 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK_INT(s1.rc, 0);
    CHECK(s1.r.body_len == len && memcmp(s1.r.body, big, len) == 0);
    fx_resp_free(&s1.r);
    CHECK_INT(rr.rc, 0);
    CHECK(rr.r.body_len == len && rr.r.body && memcmp(rr.r.body, big, len) == 0);
    fx_resp_free(&rr.r);
    CHECK_INT(atomic_load(&f.calls), 1);
    if (s2 != -1)
        close(s2);
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

TEST_MAIN(TEST(slow_reader_does_not_block), TEST(render_lock_scope), TEST(idle_clients_dropped),
          TEST(parallel_scrapes), TEST(waiting_scrapes_share_one_render), TEST(stop_with_clients),
          TEST(slowloris_header_deadline), TEST(streamed_bodies_exact),
          TEST(streamed_slow_reader_dropped), TEST(streamed_late_scrape_joins))
