/* OTLP/HTTP transport end to end: a real `otlp` source on 127.0.0.1 port 0,
 * spoken to over raw sockets (every byte of the request is ours, so refused
 * and malformed requests are exactly what the case says). Known answers:
 * status codes, content types, exact response bodies, the series value in
 * the engine, the transport counters, the log lines. Every wait is bounded
 * by a 10 s socket timeout; nothing asserts on durations. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "sources/otlp/transport/otlp_gzip.h"
#include "http_client_fixture.h"
#include "otlp_server_fixture.h"

#define RESP_MAX (64 * 1024)

struct hresp {
    int status; /* -1: no answer (connection closed or reset) */
    char ctype[128];
    char allow[64];
    char body[RESP_MAX + 1];
    size_t len;
};

/* Copies header `name`'s value (case-insensitive) from the head into out. */
static void header_value(const char *head, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    out[0] = '\0';
    for (const char *l = strstr(head, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
        const char *s = l + 2;
        if (strncasecmp(s, name, nl) == 0 && s[nl] == ':') {
            s += nl + 1;
            while (*s == ' ')
                s++;
            const char *e = strstr(s, "\r\n");
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n >= cap)
                n = cap - 1;
            memcpy(out, s, n);
            out[n] = '\0';
            return;
        }
    }
}

/* Reads the whole answer (the server closes: requests say Connection:
 * close) and parses it into *r. */
static void read_answer(int fd, struct hresp *r)
{
    static char buf[RESP_MAX * 2 + 1];
    size_t n = 0;
    for (int i = 0; i < 10000 && n < sizeof(buf) - 1; i++) {
        ssize_t got = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    memset(r, 0, sizeof(*r));
    r->status = -1;
    char *end = strstr(buf, "\r\n\r\n");
    if (n < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || !end)
        return;
    r->status = atoi(buf + 9);
    *end = '\0';
    header_value(buf, "Content-Type", r->ctype, sizeof(r->ctype));
    header_value(buf, "Allow", r->allow, sizeof(r->allow));
    char cl[32];
    header_value(buf, "Content-Length", cl, sizeof(cl));
    size_t have = n - (size_t)(end + 4 - buf);
    size_t want = cl[0] ? (size_t)strtoul(cl, NULL, 10) : have;
    r->len = want < have ? want : have;
    if (r->len > RESP_MAX)
        r->len = RESP_MAX;
    memcpy(r->body, end + 4, r->len);
    r->body[r->len] = '\0';
}

/* One request: head (without the final blank line) plus body. */
static void http_raw(uint16_t port, const char *head, const void *body, size_t len, struct hresp *r)
{
    int fd = fx_connect(port);
    memset(r, 0, sizeof(*r));
    r->status = -1;
    CHECK(fd != -1);
    if (fd == -1)
        return;
    char h[1024];
    snprintf(h, sizeof(h), "%sConnection: close\r\n\r\n", head);
    if (fx_send_bytes(fd, h, strlen(h)) == 0 && len > 0)
        fx_send_bytes(fd, body, len);
    read_answer(fd, r);
    close(fd);
}

static void http_post(uint16_t port, const char *path, const char *ctype, const char *cenc,
                      const void *body, size_t len, struct hresp *r)
{
    char head[512], ct[160] = "", ce[96] = "";
    if (ctype)
        snprintf(ct, sizeof(ct), "Content-Type: %s\r\n", ctype);
    if (cenc)
        snprintf(ce, sizeof(ce), "Content-Encoding: %s\r\n", cenc);
    snprintf(head, sizeof(head),
             "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%sContent-Length: %zu\r\n", path, ct, ce,
             len);
    http_raw(port, head, body, len, r);
}

static uint16_t http_port(struct fx *f)
{
    return fsc_otlp_source_port(f->ctx, "http");
}

/* ---- cases -------------------------------------------------------------------------- */

static void protobuf_ok_series_value(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    uint16_t port = http_port(&f);
    CHECK(port != 0);
    CHECK_INT(fx_log_port(&f, "http"), port);
    CHECK_INT(fsc_otlp_source_port(f.ctx, "grpc"), 0);

    uint64_t t = fx_time();
    struct fx_point pts[2] = {{"swp1", t, 1000.5}, {"swp2", t, 2e12}};
    size_t len;
    uint8_t *req = fx_export_request("leaf1", pts, 2, &len);
    http_post(port, "/v1/metrics", "application/x-protobuf", NULL, req, len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.ctype, "application/x-protobuf");
    CHECK_INT(r.len, 0); /* full success: an empty ExportMetricsServiceResponse */

    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "leaf1", "swp1", &v), 0);
    CHECK(v == 1000.5);
    CHECK_INT(fx_value(&f, FX_CANON, "leaf1", "swp2", &v), 0);
    CHECK(v == 2e12);

    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_STR(st.transport, "http");
    CHECK_INT(st.port, port);
    CHECK_INT(st.requests, 1);
    CHECK_INT(st.ok, 1);
    CHECK_INT(st.points, 2);
    CHECK_INT(st.rejected, 0);
    CHECK_INT(st.bytes_received, len);
    CHECK_INT(fx_log_count(&f, "otlp_request_error"), 0);
    free(req);
    fx_stop(&f);
}

static void json_ok_response(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    char body[2048];
    if (fx_start(&f, &o) != 0)
        return;
    size_t len = fx_export_request_json(body, sizeof(body), "leaf2", "swp7", fx_time(), 12345.25);
    /* media type parameters and case are allowed */
    http_post(http_port(&f), "/v1/metrics", "Application/JSON; charset=utf-8", "identity", body,
              len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.ctype, "application/json");
    CHECK_STR(r.body, "{}");
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "leaf2", "swp7", &v), 0);
    CHECK(v == 12345.25);
    CHECK_INT(fx_stats(&f, "http").ok, 1);
    fx_stop(&f);
}

static void gzip_body(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    char body[2048];
    if (fx_start(&f, &o) != 0)
        return;
    uint64_t t = fx_time();
    struct fx_point pts[1] = {{"swp3", t, 77.0}};
    size_t len, zlen_a = 0, zlen_b = 0;
    uint8_t *req = fx_export_request("leaf3", pts, 1, &len);
    uint8_t *z = fx_gzip(req, len, 0, &zlen_a);
    CHECK(z != NULL);
    http_post(http_port(&f), "/v1/metrics", "application/x-protobuf", "gzip", z, zlen_a, &r);
    CHECK_INT(r.status, 200);
    CHECK_INT(r.len, 0);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "leaf3", "swp3", &v), 0);
    CHECK(v == 77.0);
    free(z);

    /* JSON, gzip, upper-case encoding name */
    len = fx_export_request_json(body, sizeof(body), "leaf3", "swp4", t, 88.5);
    z = fx_gzip(body, len, 0, &zlen_b);
    http_post(http_port(&f), "/v1/metrics", "application/json", "GZIP", z, zlen_b, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "{}");
    CHECK_INT(fx_value(&f, FX_CANON, "leaf3", "swp4", &v), 0);
    CHECK(v == 88.5);

    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.ok, 2);
    CHECK_INT(st.points, 2);
    /* wire bytes are the compressed sizes */
    CHECK_INT(st.bytes_received, zlen_a + zlen_b);
    free(z);
    free(req);
    fx_stop(&f);
}

/* fsc_otlp_gunzip on its own: the cap is exact, a bomb stops at it,
 * truncated / corrupt / trailing bytes are sentences, members concatenate. */
static void gunzip_bounds(void)
{
    uint8_t plain[5000];
    for (size_t i = 0; i < sizeof(plain); i++)
        plain[i] = (uint8_t)(i * 7 + i / 100);
    size_t zlen, outlen;
    uint8_t *z = fx_gzip(plain, sizeof(plain), 0, &zlen), *out = NULL;
    char err[200];
    CHECK(z != NULL);
    if (!z)
        return;
    CHECK_INT(fsc_otlp_gunzip(z, zlen, sizeof(plain), &out, &outlen, err, sizeof(err)), 0);
    CHECK_INT(outlen, sizeof(plain));
    CHECK(out && memcmp(out, plain, sizeof(plain)) == 0);
    free(out);
    CHECK_INT(fsc_otlp_gunzip(z, zlen, sizeof(plain) - 1, &out, &outlen, err, sizeof(err)), -E2BIG);
    CHECK(out == NULL);
    CHECK_INT(fsc_otlp_gunzip(z, zlen - 5, 1 << 20, &out, &outlen, err, sizeof(err)), -EBADMSG);
    CHECK(strstr(err, "truncated") != NULL);
    uint8_t bad[4] = {1, 2, 3, 4};
    CHECK_INT(fsc_otlp_gunzip(bad, 4, 1 << 20, &out, &outlen, err, sizeof(err)), -EBADMSG);
    CHECK(strstr(err, "corrupt gzip body at byte") != NULL);

    /* two members back to back, then the same with trailing garbage */
    uint8_t *two = malloc(2 * zlen + 3);
    memcpy(two, z, zlen);
    memcpy(two + zlen, z, zlen);
    CHECK_INT(fsc_otlp_gunzip(two, 2 * zlen, 2 * sizeof(plain), &out, &outlen, err, sizeof(err)),
              0);
    CHECK_INT(outlen, 2 * sizeof(plain));
    CHECK(out && memcmp(out + sizeof(plain), plain, sizeof(plain)) == 0);
    free(out);
    memcpy(two + 2 * zlen, "xyz", 3);
    CHECK_INT(fsc_otlp_gunzip(two, 2 * zlen + 3, 1 << 20, &out, &outlen, err, sizeof(err)),
              -EBADMSG);
    CHECK(strstr(err, "unexpected bytes after the gzip data") != NULL);
    free(two);
    free(z);

    /* 64 MiB of zeros against a 64 KiB cap */
    z = fx_gzip(NULL, 0, (size_t)64 << 20, &zlen);
    CHECK(z != NULL && zlen < (size_t)1 << 20);
    CHECK_INT(fsc_otlp_gunzip(z, zlen, 64 * 1024, &out, &outlen, err, sizeof(err)), -E2BIG);
    free(z);
}

static void too_large_wire(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1, .max_body = 4096, .max_decompressed = 1 << 20};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    uint16_t port = http_port(&f);

    /* Announced too large: answered from the headers, no body sent at all. */
    http_raw(port,
             "POST /v1/metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
             "Content-Length: 4097\r\n",
             NULL, 0, &r);
    CHECK_INT(r.status, 413);
    CHECK_STR(r.ctype, "application/x-protobuf");
    /* google.rpc.Status {code: 8, message: ...} */
    const char *msg = "request body is larger than max_body";
    CHECK_INT(r.len, 4 + strlen(msg));
    CHECK(r.len > 4 && (uint8_t)r.body[0] == 0x08 && r.body[1] == 8 && (uint8_t)r.body[2] == 0x12 &&
          (size_t)r.body[3] == strlen(msg) && memcmp(r.body + 4, msg, strlen(msg)) == 0);

    /* Exactly max_body passes the wire cap (and is then malformed: 400). */
    static uint8_t junk[6000];
    memset(junk, 0xff, sizeof(junk));
    http_post(port, "/v1/metrics", "application/x-protobuf", NULL, junk, 4096, &r);
    CHECK_INT(r.status, 400);

    /* Chunked, growing past max_body: stored no further, 413 at its end. */
    int fd = fx_connect(port);
    CHECK(fd != -1);
    if (fd != -1) {
        const char *head =
            "POST /v1/metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        fx_send_bytes(fd, head, strlen(head));
        for (int i = 0; i < 3; i++) { /* 3 x 2000 bytes = 6000 > 4096 */
            char ch[16];
            snprintf(ch, sizeof(ch), "%x\r\n", 2000);
            fx_send_bytes(fd, ch, strlen(ch));
            fx_send_bytes(fd, junk, 2000);
            fx_send_bytes(fd, "\r\n", 2);
        }
        fx_send_bytes(fd, "0\r\n\r\n", 5);
        read_answer(fd, &r);
        close(fd);
        CHECK_INT(r.status, 413);
        CHECK_STR(r.ctype, "application/json");
        CHECK_STR(r.body, "{\"code\":8,\"message\":\"request body is larger than max_body (4096 "
                          "bytes)\"}");
    }
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.too_large, 2);
    CHECK_INT(st.bad_request, 1);
    CHECK_INT(st.requests, 3);
    CHECK_INT(st.bytes_received, 4096 + 6000);
    fx_stop(&f);
}

static void gzip_bomb(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1, .max_body = 1 << 20, .max_decompressed = 64 * 1024};
    struct hresp r;
    size_t zlen;
    /* 256 MiB of zeros in ~250 KiB of gzip */
    uint8_t *z = fx_gzip(NULL, 0, (size_t)256 << 20, &zlen);
    CHECK(z != NULL && zlen < o.max_body);
    if (!z || fx_start(&f, &o) != 0) {
        free(z);
        return;
    }
    long before = fx_peak_rss_kb();
    for (int i = 0; i < 3; i++) {
        http_post(http_port(&f), "/v1/metrics", "application/json", "gzip", z, zlen, &r);
        CHECK_INT(r.status, 413);
    }
    CHECK_STR(r.ctype, "application/json");
    CHECK_STR(r.body, "{\"code\":8,\"message\":\"request body is larger than max_decompressed "
                      "(65536 bytes) after gzip\"}");
    long after = fx_peak_rss_kb();
    /* Expanding the bomb would have cost 256 MiB; the cap allows 64 KiB
     * (plus the compressed body and allocator noise). */
    CHECK(before > 0 && after - before < 32 * 1024);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.too_large, 3);
    CHECK_INT(st.bytes_received, 3 * zlen);
    free(z);
    fx_stop(&f);
}

static void malformed_400(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    char want[512], sentence[256];
    if (fx_start(&f, &o) != 0)
        return;
    /* field 1, length 100, but 3 bytes follow */
    const uint8_t garbage[] = {0x0a, 0x64, 0x01, 0x02, 0x03};
    fx_decoder_sentence(0, garbage, sizeof(garbage), sentence, sizeof(sentence));
    CHECK(sentence[0] != '\0');
    http_post(http_port(&f), "/v1/metrics", "application/x-protobuf", NULL, garbage,
              sizeof(garbage), &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.ctype, "application/x-protobuf");
    size_t sl = strlen(sentence);
    CHECK(r.len == 4 + sl + (sl >= 128) && (uint8_t)r.body[0] == 0x08 && r.body[1] == 3);
    CHECK(r.len > sl && memcmp(r.body + r.len - sl, sentence, sl) == 0);

    const char *json = "{\"resourceMetrics\": [ {\"resource\": 5 ]}";
    fx_decoder_sentence(1, json, strlen(json), sentence, sizeof(sentence));
    CHECK(sentence[0] != '\0');
    http_post(http_port(&f), "/v1/metrics", "application/json", NULL, json, strlen(json), &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.ctype, "application/json");
    snprintf(want, sizeof(want), "{\"code\":3,\"message\":\"%s\"}", sentence);
    CHECK(strchr(sentence, '"') == NULL); /* else the JSON escape changes want */
    CHECK_STR(r.body, want);

    /* a body that claims gzip but is not */
    http_post(http_port(&f), "/v1/metrics", "application/json", "gzip", "{}", 2, &r);
    CHECK_INT(r.status, 400);
    CHECK(strstr(r.body, "corrupt gzip body at byte") != NULL);
    CHECK_INT(fx_stats(&f, "http").bad_request, 3);
    fx_stop(&f);
}

static void unsupported_415(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    uint16_t port = http_port(&f);
    http_post(port, "/v1/metrics", "text/plain", NULL, "{}", 2, &r);
    CHECK_INT(r.status, 415);
    CHECK_STR(r.ctype, "text/plain; charset=utf-8");
    CHECK_STR(r.body, "unsupported Content-Type: use application/x-protobuf or application/json\n");
    http_post(port, "/v1/metrics", "application/x-protobuf-2", NULL, "", 0, &r);
    CHECK_INT(r.status, 415);
    http_post(port, "/v1/metrics", NULL, NULL, "{}", 2, &r);
    CHECK_INT(r.status, 415);
    http_post(port, "/v1/metrics", "application/json", "br", "{}", 2, &r);
    CHECK_INT(r.status, 415);
    CHECK_STR(r.body, "unsupported Content-Encoding: use gzip or identity\n");
    http_post(port, "/v1/metrics", "application/json", "gzip, br", "{}", 2, &r);
    CHECK_INT(r.status, 415);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.other_errors, 5);
    CHECK_INT(st.requests, 5);
    fx_stop(&f);
}

static void not_found_405(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    uint16_t port = http_port(&f);
    http_post(port, "/v1/traces", "application/x-protobuf", NULL, "", 0, &r);
    CHECK_INT(r.status, 404);
    CHECK_STR(r.body, "not found: OTLP metrics are accepted at POST /v1/metrics\n");
    http_raw(port, "GET /v1/metrics HTTP/1.1\r\nHost: x\r\n", NULL, 0, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(r.allow, "POST");
    http_raw(port,
             "PUT /v1/metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: 2\r\n",
             "{}", 2, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(r.allow, "POST");
    http_raw(port, "GET / HTTP/1.1\r\nHost: x\r\n", NULL, 0, &r);
    CHECK_INT(r.status, 404);
    CHECK_INT(fx_stats(&f, "http").other_errors, 4);
    fx_stop(&f);
}

static void empty_body_200(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    http_post(http_port(&f), "/v1/metrics", "application/x-protobuf", NULL, "", 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_INT(r.len, 0);
    http_post(http_port(&f), "/v1/metrics", "application/json", NULL, "", 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "{}");
    /* an empty JSON request object */
    http_post(http_port(&f), "/v1/metrics", "application/json", NULL, "{}", 2, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "{}");
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.ok, 3);
    CHECK_INT(st.points, 0);
    fx_stop(&f);
}

static void partial_success(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    uint64_t t = fx_time();
    struct fx_point pts[2] = {{"swp1", t, 5.0}, {"swp2", FX_NO_TIME, 6.0}};
    size_t len;
    uint8_t *req = fx_export_request("leaf4", pts, 2, &len);

    http_post(http_port(&f), "/v1/metrics", "application/x-protobuf", NULL, req, len, &r);
    CHECK_INT(r.status, 200);
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceResponse *resp =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__unpack(
            NULL, r.len, (const uint8_t *)r.body);
    CHECK(resp != NULL && resp->partial_success != NULL);
    if (resp && resp->partial_success) {
        CHECK_INT(resp->partial_success->rejected_data_points, 1);
        CHECK_STR(resp->partial_success->error_message, FX_REJ_TIME);
    }
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__free_unpacked(
        resp, NULL);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "leaf4", "swp1", &v), 0);
    CHECK(v == 5.0);
    CHECK_INT(fx_value(&f, FX_CANON, "leaf4", "swp2", &v), -1);

    char body[2048];
    len = fx_export_request_json(body, sizeof(body), "leaf4", "swp9", FX_NO_TIME, 1.0);
    http_post(http_port(&f), "/v1/metrics", "application/json", NULL, body, len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body,
              "{\"partialSuccess\":{\"rejectedDataPoints\":\"1\",\"errorMessage\":\"" FX_REJ_TIME
              "\"}}");
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.partial, 2);
    CHECK_INT(st.points, 3);
    CHECK_INT(st.rejected, 2);
    /* one log line for the two partial answers (same kind, same minute) */
    CHECK_INT(fx_log_count(&f, "kind=rejected_points"), 1);
    free(req);
    fx_stop(&f);
}

/* Many bad requests, one log line per kind; the counters have them all. */
static void error_log_rate_limited(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    struct hresp r;
    if (fx_start(&f, &o) != 0)
        return;
    const uint8_t garbage[] = {0x0a, 0x64, 0x01};
    for (int i = 0; i < 20; i++)
        http_post(http_port(&f), "/v1/metrics", "application/x-protobuf", NULL, garbage,
                  sizeof(garbage), &r);
    for (int i = 0; i < 5; i++)
        http_post(http_port(&f), "/v1/metrics", "text/csv", NULL, "a", 1, &r);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "http");
    CHECK_INT(st.bad_request, 20);
    CHECK_INT(st.other_errors, 5);
    CHECK_INT(fx_log_count(&f, "event=otlp_request_error"), 2);
    CHECK_INT(fx_log_count(&f, "kind=bad_request"), 1);
    CHECK_INT(fx_log_count(&f, "kind=unsupported"), 1);
    CHECK(strstr(fx_log_text(&f), "transport=http kind=bad_request status=400") != NULL);
    fx_stop(&f);
}

/* Keep-alive: several requests on one connection, each answered. */
static void keepalive_requests(void)
{
    struct fx f;
    struct fx_opts o = {.http = 1};
    if (fx_start(&f, &o) != 0)
        return;
    int fd = fx_connect(http_port(&f));
    CHECK(fd != -1);
    char body[2048], head[256], buf[4096];
    int answered = 0;
    for (int i = 0; fd != -1 && i < 3; i++) {
        char iface[16];
        snprintf(iface, sizeof(iface), "swp%d", 10 + i);
        size_t len =
            fx_export_request_json(body, sizeof(body), "leaf5", iface, fx_time(), 100.0 + i);
        snprintf(head, sizeof(head),
                 "POST /v1/metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 "Content-Length: %zu\r\n\r\n",
                 len);
        fx_send_bytes(fd, head, strlen(head));
        fx_send_bytes(fd, body, len);
        /* read one answer: head + "{}" */
        size_t n = 0;
        for (int k = 0; k < 100 && n < sizeof(buf) - 1; k++) {
            ssize_t got = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
            if (got <= 0)
                break;
            n += (size_t)got;
            buf[n] = '\0';
            char *e = strstr(buf, "\r\n\r\n");
            if (e && strlen(e + 4) >= 2)
                break;
        }
        buf[n] = '\0';
        if (strncmp(buf, "HTTP/1.1 200", 12) == 0 && strstr(buf, "\r\n\r\n{}"))
            answered++;
        char conn[32];
        header_value(buf, "Connection", conn, sizeof(conn));
        CHECK(strcmp(conn, "close") != 0);
    }
    if (fd != -1)
        close(fd);
    CHECK_INT(answered, 3);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "leaf5", "swp12", &v), 0);
    CHECK(v == 102.0);
    fx_stop(&f);
}

/* A TLS section whose files are missing is refused at start, naming the
 * file (with a CA too: mutual TLS is enforced on this transport since
 * net/http_sec.c verifies client certificates; tests/integration/security_*). */
static void tls_client_ca_refused(void)
{
    struct fx f;
    struct fsc_tls_config tls = {.present = true,
                                 .enabled = true,
                                 .cert_file = "/nonexistent/cert.pem",
                                 .key_file = "/nonexistent/key.pem",
                                 .ca_file = "/nonexistent/ca.pem"};
    struct fx_opts o = {.http = 1, .tls = &tls};
    char err[512] = "";
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    CHECK(
        strstr(err, "source otlp-test: OTLP/HTTP: cannot open certificate /nonexistent/cert.pem") !=
        NULL);
    fx_stop(&f);
    /* without a CA: the missing files are named */
    tls.ca_file = NULL;
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    CHECK(strstr(err, "cannot open certificate /nonexistent/cert.pem") != NULL);
    fx_stop(&f);
}

/* Server TLS through libmicrohttpd (GnuTLS), checked with the curl command
 * against our own CA; a plaintext request to the TLS port gets no answer. */
static void https_served(void)
{
    char dir[64], ca_p[256], cert_p[256], key_p[256], out_p[256], cmd[4096];
    struct hresp r;
    struct fx f;
    if (fx_make_certs(dir) != 0) {
        CHECK(!"openssl could not make the test certificates");
        return;
    }
    struct fsc_tls_config tls = {.present = true,
                                 .enabled = true,
                                 .cert_file = fx_path(cert_p, dir, "server.pem"),
                                 .key_file = fx_path(key_p, dir, "server.key")};
    struct fx_opts o = {.http = 1, .tls = &tls};
    if (fx_start(&f, &o) == 0) {
        uint16_t port = http_port(&f);
        CHECK(strstr(fx_log_text(&f), "tls=on") != NULL);
        char body[1024];
        size_t len = fx_export_request_json(body, sizeof(body), "leaf6", "swp1", fx_time(), 6.5);
        body[len] = '\0';
        snprintf(cmd, sizeof(cmd),
                 "curl -sS --max-time 10 -o %s -w '%%{http_code}' --cacert %s --resolve "
                 "localhost:%u:127.0.0.1 -H 'Content-Type: application/json' --data-binary '%s' "
                 "https://localhost:%u/v1/metrics 2>&1",
                 fx_path(out_p, dir, "out"), fx_path(ca_p, dir, "ca.pem"), port, body, port);
        char code[64] = "";
        FILE *p = popen(cmd, "r");
        CHECK(p != NULL);
        if (p) {
            if (!fgets(code, sizeof(code), p))
                code[0] = '\0';
            pclose(p);
        }
        CHECK_STR(code, "200");
        char resp[64] = "";
        FILE *rf = fopen(out_p, "r");
        if (rf) {
            if (!fgets(resp, sizeof(resp), rf))
                resp[0] = '\0';
            fclose(rf);
        }
        CHECK_STR(resp, "{}");
        double v = 0;
        CHECK_INT(fx_value(&f, FX_CANON, "leaf6", "swp1", &v), 0);
        CHECK(v == 6.5);
        http_post(port, "/v1/metrics", "application/json", NULL, "{}", 2, &r);
        CHECK_INT(r.status, -1);
        CHECK_INT(fx_stats(&f, "http").ok, 1);
        fx_stop(&f);
    }
    fx_remove_certs(dir);
}

/* A port in use and an address that is not one: sentences naming them. */
static void listen_errors(void)
{
    struct fx f;
    char addr[64], want[160], err[512] = "";
    int fd;
    uint16_t port = fx_busy_port(&fd);
    CHECK(port != 0);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
    struct fx_opts o = {.http = 1, .http_listen = addr};
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "source otlp-test: OTLP/HTTP: cannot listen on %s: Address already in use", addr);
    CHECK_STR(err, want);
    fx_stop(&f);
    close(fd);
    o.http_listen = "192.0.2.1:0"; /* TEST-NET-1: not an address of this host */
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    CHECK_STR(err, "source otlp-test: OTLP/HTTP: cannot listen on 192.0.2.1:0: Cannot assign "
                   "requested address");
    fx_stop(&f);
}

TEST_MAIN(TEST(protobuf_ok_series_value), TEST(json_ok_response), TEST(gzip_body),
          TEST(gunzip_bounds), TEST(too_large_wire), TEST(gzip_bomb), TEST(malformed_400),
          TEST(unsupported_415), TEST(not_found_405), TEST(empty_body_200), TEST(partial_success),
          TEST(error_log_rate_limited), TEST(keepalive_requests), TEST(tls_client_ca_refused),
          TEST(https_served), TEST(listen_errors))
