/* The exporter's HTTP server over real sockets: status lines, headers and
 * bodies of /metrics (negotiation, gzip, HEAD), health endpoints, errors,
 * request bodies, and listen-address failures. Slow clients, concurrency and
 * shutdown are in prom_http_slow_test.c. */
#include "prom_http_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>

static char hdr[256];

#define CHECK_HDR(r, name, want)                                                                   \
    do {                                                                                           \
        hdr[0] = '\0';                                                                             \
        CHECK(fx_header((r), (name), hdr, sizeof(hdr)));                                           \
        CHECK_STR(hdr, (want));                                                                    \
    } while (0)

#define CHECK_NO_HDR(r, name) CHECK(!fx_header((r), (name), hdr, sizeof(hdr)))

/* Default text format, headers, keep-alive (the second request rides the
 * same connection because nothing was queued on the first handler call). */
static void default_text_keepalive(void)
{
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    int fd = fx_connect(fsc_prom_http_port(h));
    CHECK(fd != -1);
    for (int i = 0; i < 2 && fd != -1; i++) {
        CHECK_INT(fx_send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
        CHECK_INT(fx_read_resp(fd, 0, &r), 0);
        CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
        CHECK_HDR(&r, "Content-Type", FX_CT_TEXT);
        CHECK_HDR(&r, "Content-Length", "29");
        CHECK_HDR(&r, "Vary", "Accept-Encoding");
        CHECK(fx_header_nth(&r, "Vary", 1, hdr, sizeof(hdr)));
        CHECK_STR(hdr, "Accept");
        CHECK_NO_HDR(&r, "Content-Encoding");
        CHECK_NO_HDR(&r, "Connection");
        CHECK_STR(r.body, FX_TEXT);
        fx_resp_free(&r);
    }
    if (fd != -1)
        close(fd);
    CHECK_INT(atomic_load(&f.calls), 2);
    CHECK_INT(atomic_load(&f.last_fmt), FSC_PROM_TEXT);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* Accept header → format, content type and body, end to end. */
static void openmetrics_negotiation(void)
{
    static const struct {
        const char *accept;
        int om;
    } cases[] = {
        {"Accept: application/openmetrics-text\r\n", 1},
        /* What Prometheus 2.x sends. */
        {"Accept: application/openmetrics-text;version=1.0.0;q=0.5,application/"
         "openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n",
         1},
        {"Accept: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n", 1},
        {"Accept: application/openmetrics-text;q=0, text/plain\r\n", 0},
        {"Accept: application/openmetrics-text;version=0.0.1\r\n", 0},
        {"Accept: */*\r\n", 0},
        {"Accept: text/plain\r\n", 0},
        {"", 0},
    };
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int before = test_failures;
        CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", cases[i].accept, &r), 0);
        CHECK_INT(r.status, 200);
        CHECK_HDR(&r, "Content-Type", cases[i].om ? FX_CT_OM : FX_CT_TEXT);
        CHECK_STR(r.body, cases[i].om ? FX_OM : FX_TEXT);
        CHECK_INT(atomic_load(&f.last_fmt), cases[i].om ? FSC_PROM_OPENMETRICS : FSC_PROM_TEXT);
        if (test_failures != before)
            fprintf(stderr, "  case %zu: %s\n", i, cases[i].accept);
        fx_resp_free(&r);
    }
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* gzip when accepted (the body inflates to exactly what was rendered),
 * identity otherwise; both for a small and a 2 MB body. */
static void gzip_and_identity(void)
{
    static const struct {
        const char *ae;
        int gz;
    } cases[] = {
        {"Accept-Encoding: gzip\r\n", 1},
        {"Accept-Encoding: deflate, gzip;q=0.5\r\n", 1},
        {"Accept-Encoding: *\r\n", 1},
        {"Accept-Encoding: gzip;q=0\r\n", 0},
        {"Accept-Encoding: gzip;q=0, *\r\n", 0},
        {"Accept-Encoding: identity\r\n", 0},
        {"", 0},
    };
    struct fake f;
    struct fx_resp r;
    char *big = fx_big_text(2 << 20);
    fake_init(&f);
    CHECK(big != NULL);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h || !big) {
        free(big);
        return;
    }
    for (int round = 0; round < 2; round++) {
        const char *want = round == 0 ? FX_TEXT : big;
        size_t want_len = strlen(want);
        f.big = round == 0 ? NULL : big;
        f.big_len = want_len;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", cases[i].ae, &r), 0);
            CHECK_INT(r.status, 200);
            CHECK_HDR(&r, "Vary", "Accept-Encoding");
            if (cases[i].gz) {
                char *plain = NULL;
                size_t plain_len = 0;
                CHECK_HDR(&r, "Content-Encoding", "gzip");
                CHECK(r.body_len >= 18 && (unsigned char)r.body[0] == 0x1f &&
                      (unsigned char)r.body[1] == 0x8b);
                CHECK_INT(fx_gunzip(r.body, r.body_len, &plain, &plain_len), 0);
                CHECK_INT(plain_len, want_len);
                CHECK(plain && memcmp(plain, want, want_len) == 0);
                if (round == 1)
                    CHECK(r.body_len < want_len / 4); /* repetitive text compresses */
                free(plain);
            } else {
                CHECK_NO_HDR(&r, "Content-Encoding");
                CHECK_INT(r.body_len, want_len);
                CHECK(memcmp(r.body, want, want_len) == 0);
            }
            fx_resp_free(&r);
        }
    }
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

/* HEAD: same status and headers, Content-Length of the real body, no body.
 * The GET that follows on the same connection proves no body bytes came. */
static void head_has_no_body(void)
{
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    int fd = fx_connect(fsc_prom_http_port(h));
    CHECK(fd != -1);
    if (fd != -1) {
        CHECK_INT(fx_send(fd, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
        CHECK_INT(fx_read_resp(fd, 1, &r), 0);
        CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
        CHECK_HDR(&r, "Content-Type", FX_CT_TEXT);
        CHECK_HDR(&r, "Content-Length", "29");
        CHECK(r.body == NULL);
        fx_resp_free(&r);
        CHECK_INT(fx_send(fd, "HEAD /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
        CHECK_INT(fx_read_resp(fd, 1, &r), 0);
        CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
        CHECK_HDR(&r, "Content-Length", "3");
        fx_resp_free(&r);
        CHECK_INT(fx_send(fd, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
        CHECK_INT(fx_read_resp(fd, 0, &r), 0);
        CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
        CHECK_STR(r.body, "OK\n");
        fx_resp_free(&r);
        close(fd);
    }
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* Unknown path → 404; known path, other method → 405 + Allow; neither
 * renders. */
static void not_found_and_method(void)
{
    static const struct {
        const char *method, *path;
        int status;
        const char *line, *body;
    } cases[] = {
        {"GET", "/", 404, "HTTP/1.1 404 Not Found", "not found\n"},
        {"GET", "/metrics/", 404, "HTTP/1.1 404 Not Found", "not found\n"},
        {"POST", "/nope", 404, "HTTP/1.1 404 Not Found", "not found\n"},
        {"POST", "/metrics", 405, "HTTP/1.1 405 Method Not Allowed", "method not allowed\n"},
        {"PUT", "/metrics", 405, "HTTP/1.1 405 Method Not Allowed", "method not allowed\n"},
        {"DELETE", "/-/healthy", 405, "HTTP/1.1 405 Method Not Allowed", "method not allowed\n"},
        {"OPTIONS", "/-/ready", 405, "HTTP/1.1 405 Method Not Allowed", "method not allowed\n"},
    };
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK_INT(fx_request(fsc_prom_http_port(h), cases[i].method, cases[i].path, "", &r), 0);
        CHECK_STR(r.status_line, cases[i].line);
        CHECK_HDR(&r, "Content-Type", "text/plain; charset=utf-8");
        CHECK_STR(r.body, cases[i].body);
        if (cases[i].status == 405)
            CHECK_HDR(&r, "Allow", "GET, HEAD");
        else
            CHECK_NO_HDR(&r, "Allow");
        fx_resp_free(&r);
    }
    /* The query string is not part of the path. */
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics?x=1", "", &r), 0);
    CHECK_INT(r.status, 200);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&f.calls), 1);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

static void healthy_and_ready(void)
{
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/-/healthy", "", &r), 0);
    CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
    CHECK_STR(r.body, "OK\n");
    fx_resp_free(&r);
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/-/ready", "", &r), 0);
    CHECK_STR(r.status_line, "HTTP/1.1 503 Service Unavailable");
    CHECK_HDR(&r, "Content-Type", "text/plain; charset=utf-8");
    CHECK_STR(r.body, "not ready\n");
    fx_resp_free(&r);
    atomic_store(&f.ready, 1);
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/-/ready", "", &r), 0);
    CHECK_STR(r.status_line, "HTTP/1.1 200 OK");
    CHECK_STR(r.body, "OK\n");
    fx_resp_free(&r);
    atomic_store(&f.ready, 0);
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/-/ready", "", &r), 0);
    CHECK_INT(r.status, 503);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&f.calls), 0);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* A failing render and a body over max_body → 500 with one text line; the
 * next scrape works again (the buffer went back to the pool clean). */
static void render_errors(void)
{
    struct fake f;
    struct fx_resp r;
    char *big = fx_big_text(4096);
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 1000, 0);
    if (!h || !big) {
        free(big);
        return;
    }
    atomic_store(&f.fail_rc, -EIO);
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", "", &r), 0);
    CHECK_STR(r.status_line, "HTTP/1.1 500 Internal Server Error");
    CHECK_HDR(&r, "Content-Type", "text/plain; charset=utf-8");
    CHECK_STR(r.body, "render failed: Input/output error\n");
    fx_resp_free(&r);
    atomic_store(&f.fail_rc, 0);
    f.big = big; /* 4096 bytes against max_body 1000: fsc_buf refuses */
    f.big_len = 4096;
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", "Accept-Encoding: gzip\r\n", &r),
              0);
    CHECK_INT(r.status, 500);
    CHECK_NO_HDR(&r, "Content-Encoding");
    CHECK_STR(r.body, "render failed: exposition larger than max_body (1000 bytes)\n");
    fx_resp_free(&r);
    f.big_len = 1000; /* exactly at the cap is fine */
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", "", &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_INT(r.body_len, 1000);
    CHECK(r.body && memcmp(r.body, big, 1000) == 0);
    fx_resp_free(&r);
    f.big = NULL;
    CHECK_INT(fx_request(fsc_prom_http_port(h), "GET", "/metrics", "", &r), 0);
    CHECK_STR(r.body, FX_TEXT);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&f.calls), 4);
    fsc_prom_http_stop(h);
    fake_fini(&f);
    free(big);
}

/* Small bodies are drained and the connection stays usable; a declared
 * large body is refused at once (connection closed after the answer); a
 * chunked body that grows past the bound is cut off. */
static void request_bodies_bounded(void)
{
    struct fake f;
    struct fx_resp r;
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        return;
    uint16_t port = fsc_prom_http_port(h);
    int fd = fx_connect(port);
    CHECK(fd != -1);
    if (fd != -1) {
        CHECK_INT(
            fx_send(fd, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"), 0);
        CHECK_INT(fx_read_resp(fd, 0, &r), 0);
        CHECK_INT(r.status, 405);
        CHECK_NO_HDR(&r, "Connection");
        fx_resp_free(&r);
        CHECK_INT(fx_send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
                  0);
        CHECK_INT(fx_read_resp(fd, 0, &r), 0);
        CHECK_INT(r.status, 200);
        CHECK_STR(r.body, FX_TEXT);
        fx_resp_free(&r);
        close(fd);
    }
    fd = fx_connect(port);
    CHECK(fd != -1);
    if (fd != -1) {
        CHECK_INT(
            fx_send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n"),
            0);
        CHECK_INT(fx_read_resp(fd, 0, &r), 0);
        CHECK_STR(r.status_line, "HTTP/1.1 413 Content Too Large");
        CHECK_STR(r.body, "request body not accepted\n");
        fx_resp_free(&r);
        CHECK(fx_wait_closed(fd));
        close(fd);
    }
    fd = fx_connect(port);
    CHECK(fd != -1);
    if (fd != -1) {
        char chunk[8200];
        int sent_ok = 1;
        CHECK_INT(
            fx_send(fd, "POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
            0);
        memcpy(chunk, "2000\r\n", 6);
        memset(chunk + 6, 'x', 8192);
        memcpy(chunk + 6 + 8192, "\r\n", 2);
        chunk[8200 - 1] = '\n';
        /* 16 x 8 KiB = 128 KiB > 64 KiB; the server may close early, so
         * failed sends are expected. */
        for (int i = 0; i < 16 && sent_ok; i++)
            sent_ok = send(fd, chunk, 8200, MSG_NOSIGNAL) == 8200;
        CHECK(fx_wait_closed(fd));
        close(fd);
    }
    /* Still serving. */
    CHECK_INT(fx_request(port, "GET", "/metrics", "", &r), 0);
    CHECK_INT(r.status, 200);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&f.calls), 2);
    fsc_prom_http_stop(h);
    fake_fini(&f);
}

/* Binding an address in use fails with a sentence naming it; malformed
 * addresses are rejected with a sentence too. */
static void listen_errors(void)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    char err[256], addr[64], want[128];
    struct fake f;
    fake_init(&f);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(fd != -1);
    CHECK_INT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    CHECK_INT(listen(fd, 4), 0);
    CHECK_INT(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    snprintf(want, sizeof(want), "cannot listen on %s: Address already in use", addr);

    struct fsc_prom_http_config cfg = {addr, 0, 0, NULL, NULL, NULL};
    err[0] = '\0';
    struct fsc_prom_http *h =
        fsc_prom_http_start(&cfg, fake_render, fake_ready, &f, err, sizeof(err));
    CHECK(h == NULL);
    CHECK_STR(err, want);
    fsc_prom_http_stop(h);
    close(fd);

    static const char *bad[] = {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:9x",
                                "::1:9464",  "[::1",       "[::1]9464",       "127.0.0.1:123456"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cfg.listen = bad[i];
        err[0] = '\0';
        h = fsc_prom_http_start(&cfg, fake_render, fake_ready, &f, err, sizeof(err));
        CHECK(h == NULL);
        snprintf(want, sizeof(want),
                 "invalid listen address \"%s\": expected host:port, [ipv6]:port or :port", bad[i]);
        CHECK_STR(err, want);
        fsc_prom_http_stop(h);
    }
    cfg.listen = "127.0.0.1:0";
    cfg.client_timeout_ns = -1;
    h = fsc_prom_http_start(&cfg, fake_render, fake_ready, &f, err, sizeof(err));
    CHECK(h == NULL);
    CHECK_STR(err, "prometheus http: client timeout must not be negative");
    fake_fini(&f);
}

#define CURL_BIN "/usr/bin/curl"

/* Runs curl with argv (no shell); returns its exit status, or -1. */
static int run_curl(char *const argv[])
{
    pid_t pid = fork();
    int st;
    if (pid == -1)
        return -1;
    if (pid == 0) {
        execv(CURL_BIN, argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* Reads a whole small file into buf (NUL-terminated). Returns its length or -1. */
static long slurp(const char *path, char *buf, size_t cap)
{
    FILE *fp = fopen(path, "rb");
    size_t n;
    if (!fp)
        return -1;
    n = fread(buf, 1, cap - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return (long)n;
}

/* A real client: curl decodes our gzip (--compressed), negotiates
 * OpenMetrics, speaks HTTP/1.0 (-0) and HEAD (-I), and reuses one
 * connection for two URLs. Without curl: skipped (exit 77), a failure
 * under CI (test_skip). */
static void curl_interop(void)
{
    char url[64], body[4096], head[4096];
    char bpath[] = "/tmp/fsc_prom_http_bodyXXXXXX", hpath[] = "/tmp/fsc_prom_http_headXXXXXX";
    struct fake f;
    if (access(CURL_BIN, X_OK) != 0)
        test_skip("curl (" CURL_BIN ")");
    int bfd = mkstemp(bpath), hfd = mkstemp(hpath);
    CHECK(bfd != -1 && hfd != -1);
    if (bfd == -1 || hfd == -1)
        return;
    close(bfd);
    close(hfd);
    fake_init(&f);
    struct fsc_prom_http *h = fx_start(&f, 0, 0);
    if (!h)
        goto out;
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/metrics", (unsigned)fsc_prom_http_port(h));

    char *gz[] = {"curl",
                  "-sS",
                  "--max-time",
                  "10",
                  "--compressed",
                  "-H",
                  "Accept: application/openmetrics-text",
                  "-D",
                  hpath,
                  "-o",
                  bpath,
                  url,
                  NULL};
    CHECK_INT(run_curl(gz), 0);
    CHECK(slurp(bpath, body, sizeof(body)) >= 0);
    CHECK_STR(body, FX_OM);
    CHECK(slurp(hpath, head, sizeof(head)) > 0);
    CHECK(strstr(head, "HTTP/1.1 200 OK\r\n") == head);
    CHECK(strstr(head, "\r\nContent-Encoding: gzip\r\n") != NULL);
    CHECK(strstr(head, "\r\nContent-Type: " FX_CT_OM "\r\n") != NULL);

    char *h10[] = {"curl", "-sS", "--max-time", "10", "-0", "-o", bpath, url, NULL};
    CHECK_INT(run_curl(h10), 0);
    CHECK(slurp(bpath, body, sizeof(body)) >= 0);
    CHECK_STR(body, FX_TEXT);

    char *hd[] = {"curl", "-sS", "--max-time", "10", "-I", "-o", hpath, url, NULL};
    CHECK_INT(run_curl(hd), 0);
    CHECK(slurp(hpath, head, sizeof(head)) > 0);
    CHECK(strstr(head, "\r\nContent-Length: 29\r\n") != NULL);

    /* Two URLs, one connection: curl says so on stderr with -v. */
    char *two[] = {"curl", "-sS", "-v",  "--max-time", "10", "-o",
                   bpath,  "-o",  bpath, url,          url,  NULL};
    int saved = dup(2), efd = open(hpath, O_WRONLY | O_TRUNC);
    CHECK(saved != -1 && efd != -1);
    if (saved != -1 && efd != -1) {
        dup2(efd, 2);
        CHECK_INT(run_curl(two), 0);
        dup2(saved, 2);
    }
    if (saved != -1)
        close(saved);
    if (efd != -1)
        close(efd);
    CHECK(slurp(hpath, head, sizeof(head)) > 0);
    CHECK(strstr(head, "Re-using existing connection") != NULL);
    CHECK_INT(atomic_load(&f.calls), 5);
    fsc_prom_http_stop(h);
out:
    fake_fini(&f);
    unlink(bpath);
    unlink(hpath);
}

TEST_MAIN(TEST(default_text_keepalive), TEST(openmetrics_negotiation), TEST(gzip_and_identity),
          TEST(head_has_no_body), TEST(not_found_and_method), TEST(healthy_and_ready),
          TEST(render_errors), TEST(request_bodies_bounded), TEST(listen_errors),
          TEST(curl_interop))
