/* The HTTP server (net/http_server.h) against a real listener on
 * 127.0.0.1:0 and a raw-socket client: the route table's answers (404 for
 * an unknown path, 405 with the route's Allow, 413 over a body cap), the
 * body caps of a stored body, the drain rule, the route's begin() and the
 * refusal hook. Expected values come from HTTP (RFC 9110 status codes) and
 * the header's contract, not from the server's output. */
#include <stdatomic.h>

#include "http_client_fixture.h"
#include "net/http_server.h"
#include "test.h"

#define CHECK_HDR(r, name, want)                                                                   \
    do {                                                                                           \
        char hdr_[256] = "";                                                                       \
        CHECK(fx_header((r), (name), hdr_, sizeof(hdr_)));                                         \
        CHECK_STR(hdr_, (want));                                                                   \
    } while (0)
#define CHECK_NO_HDR(r, name)                                                                      \
    do {                                                                                           \
        char hdr_[256];                                                                            \
        CHECK(!fx_header((r), (name), hdr_, sizeof(hdr_)));                                        \
    } while (0)

/* Routes' caps and the server's drain bound. */
#define HELLO_MAX_BODY 8
#define ECHO_MAX_BODY  16
#define DRAIN_MAX      8

/* What the callbacks saw, read by the test after the answers came. */
struct seen {
    atomic_int why[FSC_HTTP_CLOSED_NO_MEMORY + 1]; /* refusal hook calls, by reason */
    atomic_int serves;
};

/* /echo's per-request state. */
struct echo_state {
    int refused; /* begin() refused: X-Refuse was sent */
};

static void serve_hello(void *arg, struct fsc_http_call *call)
{
    struct seen *seen = arg;
    atomic_fetch_add(&seen->serves, 1);
    const struct fsc_http_response resp = {.status = 200,
                                           .content_type = "text/plain",
                                           .body = "hello\n",
                                           .len = 6,
                                           .headers = {{"X-Route", "hello"}},
                                           .n_headers = 1};
    fsc_http_respond(call, &resp);
}

static int begin_echo(void *arg, struct fsc_http_call *call)
{
    struct echo_state *st = fsc_http_call_state(call);
    (void)arg;
    st->refused = fsc_http_call_header(call, "X-Refuse") != NULL;
    return st->refused;
}

/* Answers the stored body as it came; a refusal says whether a body was
 * stored (it must not be). */
static void serve_echo(void *arg, struct fsc_http_call *call)
{
    struct seen *seen = arg;
    const struct echo_state *st = fsc_http_call_state(call);
    size_t len;
    const uint8_t *body = fsc_http_call_body(call, &len);

    atomic_fetch_add(&seen->serves, 1);
    if (st->refused) {
        fsc_http_respond_text(call, 422, body ? "refused, body stored\n" : "refused\n");
        return;
    }
    const struct fsc_http_response resp = {
        .status = 200, .content_type = "application/octet-stream", .body = body, .len = len};
    fsc_http_respond(call, &resp);
}

/* Counts every refusal; a 404 asked for with X-Custom gets its own text. */
static void refused_hook(void *arg, struct fsc_http_call *call, enum fsc_http_refusal why)
{
    struct seen *seen = arg;
    atomic_fetch_add(&seen->why[why], 1);
    if (why == FSC_HTTP_REFUSED_PATH && fsc_http_call_header(call, "X-Custom"))
        fsc_http_respond_text(call, 404, "custom\n");
}

static struct fsc_http_server *start(struct seen *seen, unsigned threads)
{
    const struct fsc_http_handler routes[] = {
        {.path = "/hello",
         .methods = FSC_HTTP_GET | FSC_HTTP_HEAD,
         .max_body = HELLO_MAX_BODY,
         .serve = serve_hello,
         .arg = seen},
        {.path = "/echo",
         .methods = FSC_HTTP_POST,
         .max_body = ECHO_MAX_BODY,
         .store_body = 1,
         .state_size = sizeof(struct echo_state),
         .begin = begin_echo,
         .serve = serve_echo,
         .arg = seen},
    };
    const struct fsc_http_server_config cfg = {
        .listen = "127.0.0.1:0",
        .name = "test",
        .threads = threads,
        .backlog = 16,
        .drain_max = DRAIN_MAX,
        .routes = routes,
        .n_routes = 2,
        .refused = refused_hook,
        .arg = seen,
    };
    char err[256] = "";
    memset(seen, 0, sizeof(*seen));
    struct fsc_http_server *s = fsc_http_server_start(&cfg, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        fprintf(stderr, "start: %s\n", err);
    return s;
}

static uint16_t port_of(const struct fsc_http_server *s)
{
    struct fsc_http_server_info info;
    fsc_http_server_info(s, &info);
    return info.port;
}

/* 404 for a path no route has, 405 with the route's methods in Allow, 200
 * from the route (query strings are not part of the path; HEAD sends no
 * body), on both threading modes. */
static void route_table_statuses(void)
{
    static const struct {
        const char *method, *path;
        int status;
        const char *body, *allow; /* allow NULL: no Allow header */
    } cases[] = {
        {"GET", "/hello", 200, "hello\n", NULL},
        {"GET", "/hello?x=1", 200, "hello\n", NULL},
        {"GET", "/nope", 404, "not found\n", NULL},
        {"GET", "/hello/", 404, "not found\n", NULL},
        {"POST", "/", 404, "not found\n", NULL},
        {"POST", "/hello", 405, "method not allowed\n", "GET, HEAD"},
        {"PUT", "/hello", 405, "method not allowed\n", "GET, HEAD"},
        {"GET", "/echo", 405, "method not allowed\n", "POST"},
        {"DELETE", "/echo", 405, "method not allowed\n", "POST"},
    };
    static const unsigned modes[] = {0, 2};
    for (size_t m = 0; m < 2; m++) {
        struct seen seen;
        struct fx_resp r;
        struct fsc_http_server *s = start(&seen, modes[m]);
        if (!s)
            return;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            CHECK_INT(fx_request(port_of(s), cases[i].method, cases[i].path, "", &r), 0);
            CHECK_INT(r.status, cases[i].status);
            CHECK_STR(r.body ? r.body : "", cases[i].body);
            if (cases[i].status != 200)
                CHECK_HDR(&r, "Content-Type", "text/plain; charset=utf-8");
            if (cases[i].allow)
                CHECK_HDR(&r, "Allow", cases[i].allow);
            else
                CHECK_NO_HDR(&r, "Allow");
            fx_resp_free(&r);
        }
        CHECK_INT(fx_request(port_of(s), "HEAD", "/hello", "", &r), 0);
        CHECK_INT(r.status, 200);
        CHECK_HDR(&r, "Content-Length", "6");
        CHECK_HDR(&r, "X-Route", "hello");
        CHECK(r.body == NULL);
        fx_resp_free(&r);
        CHECK_INT(atomic_load(&seen.serves), 3);
        CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_PATH]), 3);
        CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_METHOD]), 4);
        fsc_http_server_stop(s);
    }
}

/* Sends a chunked POST /echo of n chunks of 8 bytes ('a' + chunk index). */
static int send_chunked(int fd, int n)
{
    char chunk[16];
    if (fx_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n") != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        snprintf(chunk, sizeof(chunk), "8\r\n%c%c%c%c%c%c%c%c\r\n", 'a' + i, 'a' + i, 'a' + i,
                 'a' + i, 'a' + i, 'a' + i, 'a' + i, 'a' + i);
        if (fx_send(fd, chunk) != 0)
            return -1;
    }
    return fx_send(fd, "0\r\n\r\n");
}

/* A body of exactly max_body is stored and reaches the route; one byte
 * more declared is refused with 413 before it is read (connection closed);
 * a chunked body past max_body gets 413 at its end, and one that goes on
 * past twice max_body is cut without an answer. */
static void body_limit_413(void)
{
    struct seen seen;
    struct fx_resp r;
    struct fsc_http_server *s = start(&seen, 0);
    if (!s)
        return;
    uint16_t port = port_of(s);
    int fd = fx_connect(port);
    CHECK(fd != -1);
    CHECK_INT(fx_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n"
                          "0123456789abcdef"),
              0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "0123456789abcdef");
    fx_resp_free(&r);
    /* Over the cap by one: refused without reading the body. */
    CHECK_INT(fx_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n"), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 413);
    CHECK_STR(r.body, "request body not accepted\n");
    CHECK_HDR(&r, "Connection", "close");
    fx_resp_free(&r);
    CHECK(fx_wait_closed(fd));
    close(fd);
    /* The same rule on a route that drops its body. */
    CHECK_INT(fx_request(port, "GET", "/hello", "Content-Length: 9\r\n", &r), 0);
    CHECK_INT(r.status, 413);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_DECLARED]), 2);

    /* Chunked, 3 x 8 = 24 bytes > 16: 413 at the end, connection usable. */
    fd = fx_connect(port);
    CHECK_INT(send_chunked(fd, 3), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 413);
    CHECK_STR(r.body, "request body not accepted\n");
    fx_resp_free(&r);
    CHECK_INT(send_chunked(fd, 2), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "aaaaaaaabbbbbbbb");
    fx_resp_free(&r);
    close(fd);
    CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_BODY]), 1);

    /* 5 x 8 = 40 bytes > 2 x 16: closed, no answer. */
    fd = fx_connect(port);
    send_chunked(fd, 5); /* the server may close before the end */
    CHECK(fx_wait_closed(fd));
    close(fd);
    CHECK_INT(atomic_load(&seen.why[FSC_HTTP_CLOSED_BODY]), 1);
    CHECK_INT(atomic_load(&seen.serves), 2);
    fsc_http_server_stop(s);
}

/* A refused request's small body (<= drain_max) is read and dropped and
 * the connection stays usable; a larger one is answered at once and the
 * connection closed. The hook may answer itself; begin() refuses without
 * the body being stored; a framing error reaches the hook. */
static void refusals_drain_and_hook(void)
{
    struct seen seen;
    struct fx_resp r;
    struct fsc_http_server *s = start(&seen, 2);
    if (!s)
        return;
    uint16_t port = port_of(s);
    int fd = fx_connect(port);
    CHECK_INT(fx_send(fd, "GET /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nabcdefgh"), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 404);
    CHECK_NO_HDR(&r, "Connection");
    fx_resp_free(&r);
    CHECK_INT(fx_send(fd, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 200);
    fx_resp_free(&r);
    close(fd);

    fd = fx_connect(port);
    CHECK_INT(fx_send(fd, "GET /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n"), 0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 404);
    CHECK_HDR(&r, "Connection", "close");
    fx_resp_free(&r);
    CHECK(fx_wait_closed(fd));
    close(fd);

    CHECK_INT(fx_request(port, "GET", "/nope", "X-Custom: 1\r\n", &r), 0);
    CHECK_INT(r.status, 404);
    CHECK_STR(r.body, "custom\n");
    fx_resp_free(&r);

    CHECK_INT(fx_request(port, "POST", "/echo", "X-Refuse: 1\r\nContent-Length: 0\r\n", &r), 0);
    CHECK_INT(r.status, 422);
    CHECK_STR(r.body, "refused\n");
    fx_resp_free(&r);
    fd = fx_connect(port);
    CHECK_INT(fx_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nX-Refuse: 1\r\nContent-Length: "
                          "4\r\n\r\nabcd"),
              0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 422);
    CHECK_STR(r.body, "refused\n"); /* drained, not stored */
    CHECK_NO_HDR(&r, "Connection");
    fx_resp_free(&r);
    /* Over drain_max: answered at once, the body never read. */
    CHECK_INT(fx_send(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nX-Refuse: 1\r\nContent-Length: "
                          "12\r\n\r\n"),
              0);
    CHECK_INT(fx_read_resp(fd, 0, &r), 0);
    CHECK_INT(r.status, 422);
    CHECK_HDR(&r, "Connection", "close");
    fx_resp_free(&r);
    CHECK(fx_wait_closed(fd));
    close(fd);

    CHECK_INT(fx_request(port, "POST", "/echo", "Content-Length: 1\r\nContent-Length: 2\r\n", &r),
              0);
    CHECK_INT(r.status, 400);
    fx_resp_free(&r);
    CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_FRAMING]), 1);
    CHECK_INT(atomic_load(&seen.why[FSC_HTTP_REFUSED_PATH]), 3);
    CHECK_INT(atomic_load(&seen.serves), 4);
    fsc_http_server_stop(s);
}

/* Bad tables and addresses are refused with a sentence; NULL is a no-op. */
static void start_errors(void)
{
    const struct fsc_http_handler no_serve = {.path = "/x", .methods = FSC_HTTP_GET};
    const struct fsc_http_handler no_slash = {
        .path = "x", .methods = FSC_HTTP_GET, .serve = serve_hello};
    struct fsc_http_server_config cfg = {
        .listen = "127.0.0.1:0", .name = "test", .backlog = 16, .routes = &no_serve, .n_routes = 1};
    struct fsc_http_server_info info;
    char err[256];

    CHECK(fsc_http_server_start(&cfg, err, sizeof(err)) == NULL);
    CHECK_STR(err, "route 0 needs a path, a method and a serve function");
    cfg.routes = &no_slash;
    CHECK(fsc_http_server_start(&cfg, err, sizeof(err)) == NULL);
    CHECK_STR(err, "route 0 needs a path, a method and a serve function");
    cfg.n_routes = 0;
    cfg.listen = "127.0.0.1";
    CHECK(fsc_http_server_start(&cfg, err, sizeof(err)) == NULL);
    CHECK_STR(err, "invalid listen address \"127.0.0.1\": expected host:port, [ipv6]:port or "
                   ":port");
    fsc_http_server_stop(NULL);
    fsc_http_server_info(NULL, &info);
    CHECK_INT(info.port, 0);
}

TEST_MAIN(TEST(route_table_statuses), TEST(body_limit_413), TEST(refusals_drain_and_hook),
          TEST(start_errors))
