#include "net/http_frame.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "net/http_watch.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t fsc_http_frame_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    char *out = s;
    (void)cls;
    for (const char *in = s; *in;) {
        int hi, lo;
        if (in[0] == '%' && (hi = hexval(in[1])) >= 0 && (lo = hexval(in[2])) >= 0) {
            int v = hi * 16 + lo;
            if (v == 0) {
                /* kept escaped: the path can match no route, and the check
                 * refuses the request anyway */
                fsc_http_watch_set_bad_target(conn);
                memmove(out, in, 3);
                out += 3;
            } else {
                *out++ = (char)v;
            }
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

void *fsc_http_frame_uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    const char *p = uri;
    for (; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            break;
    /* MHD ends the target by writing a NUL over the space before the
     * version, so "HTTP/" follows the terminator; anything else means the
     * NUL came from the client. */
    if (*p != '\0' || strncmp(p + 1, "HTTP/", 5) != 0)
        fsc_http_watch_set_bad_target(conn);
    return NULL;
}

struct frame_count {
    unsigned content_length, transfer_encoding, host;
    int te_chunked; /* the (single) Transfer-Encoding is exactly "chunked" */
};

/* 1 when v, blanks around it ignored, is `want` (any case). */
static int token_is(const char *v, const char *want)
{
    size_t n = strlen(want);
    while (*v == ' ' || *v == '\t')
        v++;
    if (strncasecmp(v, want, n) != 0)
        return 0;
    for (v += n; *v == ' ' || *v == '\t'; v++)
        ;
    return *v == '\0';
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    struct frame_count *fc = cls;
    (void)kind;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        fc->content_length++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        fc->transfer_encoding++;
        fc->te_chunked = value && token_is(value, "chunked");
    } else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        fc->host++;
    }
    return MHD_YES;
}

unsigned fsc_http_frame_check(struct MHD_Connection *conn, const char *version, int body_allowed,
                              const char **why)
{
    struct frame_count fc = {0};
    (void)MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &fc);
    if (fsc_http_watch_bad_target(conn)) {
        *why = "bad request: NUL (%00) or a control byte in the request target\n";
        return MHD_HTTP_BAD_REQUEST;
    }
    if (fc.content_length > 1) {
        *why = "bad request: more than one Content-Length\n";
        return MHD_HTTP_BAD_REQUEST;
    }
    if (fc.transfer_encoding > 0 && fc.content_length > 0) {
        *why = "bad request: both Content-Length and Transfer-Encoding\n";
        return MHD_HTTP_BAD_REQUEST;
    }
    if (fc.transfer_encoding > 1 || (fc.transfer_encoding == 1 && !fc.te_chunked)) {
        *why = "bad request: Transfer-Encoding other than one \"chunked\"\n";
        return MHD_HTTP_BAD_REQUEST;
    }
    if (fc.host > 1 || (fc.host == 0 && version && strcmp(version, MHD_HTTP_VERSION_1_1) == 0)) {
        *why = "bad request: HTTP/1.1 needs exactly one Host header\n";
        return MHD_HTTP_BAD_REQUEST;
    }
    if (!body_allowed && fc.transfer_encoding > 0) {
        *why = "request body not accepted\n";
        return MHD_HTTP_CONTENT_TOO_LARGE;
    }
    return 0;
}

enum MHD_Result fsc_http_frame_refuse(struct MHD_Connection *conn, unsigned status, const char *why)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(why), (void *)(uintptr_t)why,
                                                                MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_NO;
    if (!resp)
        return MHD_NO;
    if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8") ==
            MHD_YES &&
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES)
        ret = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}
