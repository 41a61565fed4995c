/* A Prometheus HTTP API client for the reports (report_prom.c,
 * report_compare_prom.c): GET /api/v1/query or /api/v1/query_range over
 * libcurl, the JSON answer parsed with jansson, each sample handed to a
 * callback with the labels the reports read. Answers are bounded
 * (FSC_PROM_API_MAX_BODY). Thread: a client belongs to one thread. */
#ifndef FSC_REPORT_PROM_API_H
#define FSC_REPORT_PROM_API_H

#include <stddef.h>

#include "commands/report.h"

#define FSC_PROM_API_MAX_BODY (256u << 20) /* bytes of one answer */
#define FSC_PROM_API_LABEL    FSC_RPT_NAME

/* The labels the reports read (others are ignored); "" when absent. */
struct fsc_prom_labels {
    char device[FSC_PROM_API_LABEL], port[FSC_PROM_API_LABEL], direction[8], le[32],
        group[FSC_PROM_API_LABEL], node[FSC_PROM_API_LABEL], role[16], rail[16],
        peer[FSC_PROM_API_LABEL], peer_port[FSC_PROM_API_LABEL];
};

/* One sample of one series of an answer (t in Unix seconds). */
typedef void (*fsc_prom_api_sample_fn)(void *ctx, const struct fsc_prom_labels *lab, double t,
                                       double v);

struct fsc_prom_api_body {
    char *buf;
    size_t len, cap;
    int too_big;
};

struct fsc_prom_api {
    void *curl; /* CURL * */
    const char *url;
    struct fsc_prom_api_body body;
    int global; /* curl_global_init succeeded */
};

/* Owns: a client of the server at url (borrowed, no trailing slash needed)
 * until fsc_prom_api_close(). Returns 0, or -ENOMEM with a sentence in err. */
int fsc_prom_api_open(struct fsc_prom_api *c, const char *url, char *err, size_t errlen);

/* Frees what c holds; c may be half-open. */
void fsc_prom_api_close(struct fsc_prom_api *c);

/* GET <url><path>?query=<promql>&<extra>, then hands every sample of the
 * answer to fn(ctx, ...). Returns 0, or -ECONNREFUSED (unreachable), -E2BIG
 * (answer too big), -EPROTO (not a Prometheus answer, or the query refused),
 * -ENOMEM, with a sentence in err. */
int fsc_prom_api_query(struct fsc_prom_api *c, const char *path, const char *promql,
                       const char *extra, fsc_prom_api_sample_fn fn, void *ctx, char *err,
                       size_t errlen);

#endif
