/* Internal to exporters/remote_write: the reader (rw_collect.c), the batch
 * encoder (rw_batch.c) and the HTTP client (rw_http.c), each owned by one of
 * the exporter's threads (remote_write.c). */
#ifndef FSC_RW_INT_H
#define FSC_RW_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "remote_write/rw_config.h"
#include "model/registry.h"
#include "model/topo_info.h"
#include "engine/engine.h"
#include "remote_write/rw_encode.h"
#include "remote_write/rw_names.h"
#include "remote_write/rw_queue.h"

/* ---- reader: engine views -> samples (rw_collect.c) ---------------------- */

/* Views copied per engine lock hold (as the /metrics renderer does). */
#define FSC_RW_CHUNK      512
#define FSC_RW_PER_SERIES 4 /* samples one series can yield in one reading */

/* Per series: the time of what was last queued, so each reading queues only
 * what is new. INT64_MIN: nothing yet. */
struct fsc_rw_seen {
    int64_t t_raw, t_fine;
};

/* Window rates are not read from the views (a view holds the last window
 * only, and two can complete between readings): the engine hands each
 * completed window of the first width to a listener (fsc_rw_on_window) that
 * appends its samples here, stamped with the window's own end, and each
 * reading takes them all. Bounded: beyond `max` samples the newest are
 * dropped and counted. */
struct fsc_rw_journal {
    pthread_mutex_t mu;
    struct fsc_rw_sample *pend; /* n of cap, filled by the ingest threads */
    size_t n, cap, max;
    uint64_t dropped;
};

struct fsc_rw_reader {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    uint32_t series;   /* FSC_RW_SERIES_* */
    int64_t window_ns; /* first engine window; 0 = no window rates */
    struct fsc_rw_seen *seen;
    size_t n_seen;
    fsc_series_id *ids;            /* FSC_RW_CHUNK */
    struct fsc_series_view *views; /* FSC_RW_CHUNK */
    struct fsc_rw_sample *out;     /* FSC_RW_CHUNK * FSC_RW_PER_SERIES */
    struct fsc_rw_journal jr;
    struct fsc_rw_sample *drain; /* the reader's side of the journal's swap */
    size_t drain_cap;
    int listening;               /* the journal's listener is installed in eng */
    int listening_fine;          /* so is its fine listener */
    int64_t resolution_ns;       /* the reading period (fine_rates: journal or views) */
    struct fsc_rate_params rate; /* the engine's windows: each series' rate level */
    struct fsc_rw_names names;   /* family rows: the scale of a renamed family */
};

/* Returns 0, or -ENOMEM (or the listener's error). With window rates
 * selected it installs the journal's engine listener, which takes each
 * series' windows of its rate level (rate: the engine's windows, copied;
 * NULL: level 0 only); with fine rates and resolution_ns > 0 (the reading
 * period) also its fine listener, which takes every fine interval of the
 * series that update no faster than that (rw_collect.c); journal_max
 * bounds the journal in samples. */
int fsc_rw_reader_init(struct fsc_rw_reader *rd, struct fsc_registry *reg, struct fsc_engine *eng,
                       uint32_t series, int64_t window_ns, const struct fsc_rate_params *rate,
                       int64_t resolution_ns, size_t journal_max);
/* Removes the listener, then frees. */
void fsc_rw_reader_free(struct fsc_rw_reader *rd);

/* Window and journaled fine samples the journal dropped (full), since init.
 * Thread: any. */
uint64_t fsc_rw_reader_dropped(struct fsc_rw_reader *rd);

/* One reading: the journal's window samples, then every series the
 * registry has, chunk by chunk; calls emit(arg, samples, n) once per batch
 * that yielded samples. Returns the
 * number of samples emitted, or -ENOMEM when the per-series table could not
 * grow (the series beyond it are skipped this time). Thread: the reader's. */
long fsc_rw_read(struct fsc_rw_reader *rd,
                 void (*emit)(void *arg, const struct fsc_rw_sample *s, size_t n), void *arg);

/* ---- batch encoder: samples -> snappy WriteRequest (rw_batch.c) ---------- */

struct fsc_rw_encoder {
    const struct fsc_registry *reg;
    struct fsc_buf body; /* the WriteRequest */
    struct fsc_buf z;    /* its snappy block: the request body */
    struct fsc_rw_point *pts;
    size_t cap_pts;
    struct fsc_rw_names names;   /* family rows: exposed names */
    struct fsc_topo_infos infos; /* the topology taken off the series (model/topo_info.h) */
    uint32_t gen;                /* batches encoded: which records a batch touched */
    int64_t info_ms;             /* the info samples' time, never going back */
};

void fsc_rw_encoder_init(struct fsc_rw_encoder *enc, const struct fsc_registry *reg);
void fsc_rw_encoder_free(struct fsc_rw_encoder *enc);

/* Sorts batch[0..n) by series (then time, in place), encodes one
 * TimeSeries per series into enc->body and compresses it into enc->z.
 * Samples of one series with the same millisecond keep the first. The
 * topology labels of the batch's series become one sample of value 1 per
 * info line they touch (fabric_port_info, fabric_nic_info,
 * fabric_node_info), stamped with the newest time of the batch, never
 * earlier than the previous batch's info samples. Returns 0 or a negative
 * errno. */
int fsc_rw_encode_batch(struct fsc_rw_encoder *enc, struct fsc_rw_sample *batch, size_t n);

/* The metric name and label set of one queued sample as /metrics shows
 * them (the family table's names, no topology label), sorted by name with
 * __name__ included: writes up to max labels into out (name buffer `nb` of
 * FSC_REGISTRY_NAME_MAX + 32 bytes) and returns how many, or 0 for an
 * unknown series. names may be NULL (no cache); sp, when not NULL, gets the
 * series' split labels (its topology). */
#define FSC_RW_NAME_BUF (FSC_REGISTRY_NAME_MAX + 32)
size_t fsc_rw_sample_labels(const struct fsc_registry *reg, struct fsc_rw_names *names,
                            const struct fsc_rw_sample *s, struct fsc_rw_label *out, size_t max,
                            char *nb, struct fsc_topo_split *sp);

/* ---- HTTP (rw_http.c) --------------------------------------------------- */

struct fsc_rw_http;

/* A libcurl handle set up from cfg (URL, headers, auth, TLS). Returns NULL
 * with a sentence in err. */
struct fsc_rw_http *fsc_rw_http_create(const struct fsc_remote_write_config *cfg, char *err,
                                       size_t errlen);
void fsc_rw_http_destroy(struct fsc_rw_http *h);

/* What one POST brought back. */
struct fsc_rw_reply {
    long status;           /* HTTP status; 0 = no response */
    int64_t retry_after_s; /* parsed Retry-After, -1 = none */
    char error[128];       /* status 0: libcurl's reason */
    char body[128];        /* the first bytes of the response body, for the log */
};

/* POSTs body[0..n) with the remote_write headers, waiting at most
 * timeout_ms. Fills *rep. Thread: the sender's. */
void fsc_rw_http_post(struct fsc_rw_http *h, const void *body, size_t n, int64_t timeout_ms,
                      struct fsc_rw_reply *rep);

/* From mono time `mono_ns` on, a POST in progress (or started later) ends
 * at once with status 0 ("aborted"). Thread: any (the stopping thread). */
void fsc_rw_http_abort_at(struct fsc_rw_http *h, int64_t mono_ns);

#endif
