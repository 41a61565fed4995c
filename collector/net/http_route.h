/* A route another sink serves on the collector's HTTP listener: one exact
 * GET/HEAD path answered by a function with a body and a content type.
 * Sinks (the status page) provide them without depending on the listener;
 * the sink that runs the listener (the Prometheus exporter) puts them into
 * its route table on the HTTP server (net/http_server.h), the body buffer
 * being its own. */
#ifndef FSC_HTTP_ROUTE_H
#define FSC_HTTP_ROUTE_H

#include "base/buf.h"

/* One request being answered by a route: the listener's query lookup. */
struct fsc_http_req {
    /* The decoded value of query parameter key ("/api/ports?top=5": "top"
     * -> "5"), or NULL when absent. Valid until the route returns. */
    const char *(*query)(const struct fsc_http_req *req, const char *key);
    void *impl; /* the request (struct fsc_http_call, net/http_server.h) */
};

static inline const char *fsc_http_query(const struct fsc_http_req *req, const char *key)
{
    return req->query(req, key);
}

/* Writes the response body into out (empty, limited to the listener's
 * max_body) and points *content_type at a static string. Returns the HTTP
 * status to answer with (200, 400, 404, ...), or a negative errno for a 500.
 * A failed append (out->failed) also answers 500. Called for GET and HEAD
 * (the body of a HEAD is dropped); other methods get 405 without a call.
 * Thread: any connection thread, concurrently with itself. */
typedef int (*fsc_http_route_fn)(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                                 const char **content_type);

struct fsc_http_route {
    const char *path; /* exact, without query ("/", "/api/status"); borrowed */
    fsc_http_route_fn fn;
    void *arg;
};

#endif
