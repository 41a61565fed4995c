/* gNMI client internals shared by gnmi_source.c, gnmi_client.c,
 * gnmi_pool.c and gnmi_channel.c (not a public interface). */
#ifndef FSC_GNMI_CLIENT_H
#define FSC_GNMI_CLIENT_H

#include <grpc/grpc.h>
#include <pthread.h>
#include <stdatomic.h>

#include "model/time_guard.h"
#include "sources/gnmi/gnmi_decode.h"
#include "plugin/source.h"
#include "sources/gnmi/gnmi_config.h"
#include "sources/gnmi/gnmi_stream_stats.h"

#define FSC_GNMI_SAMPLES_CAP        8192 /* samples decoded from one response at most */
#define FSC_GNMI_RETRY_LOG_EVERY_NS (60 * (int64_t)1000000000) /* gnmi_stream_retry, per device */
#define FSC_GNMI_CADENCE_SLOTS      4096 /* reference series a stream follows: half of it */
#define FSC_GNMI_CADENCE_SLOTS_MIN  64   /* the table's first size (it doubles as it fills) */
#define FSC_GNMI_CADENCE_SPAN       64   /* EWMA weight 1/64 (after the first 64 intervals) */

/* Observed cadence of one stream (docs/METRICS.md, "Self-monitoring").
 *
 * Why per reference series: a target sends one message per sensor and port
 * (or queue) per sample interval, all stamped with (nearly) the same time,
 * so the gap between consecutive messages of a stream says nothing. The
 * first series of a message names what the message is about (the same
 * prefix and first leaf every interval, with or without a Notification
 * prefix), so the device-time gap between two messages that start with the
 * same series is the device's sample interval for that part of the tree.
 * Every such interval d (seconds) feeds one estimate per stream:
 *     jitter  += w' * (|d - cadence| - jitter)   (from the second interval on)
 *     cadence += w  * (d - cadence)
 * with w = 1/n for the n-th interval and w' = 1/(n-1) (plain means while few
 * are known), both 1/FSC_GNMI_CADENCE_SPAN later: an EWMA over the last ~64
 * intervals. jitter is thus the mean absolute deviation of the intervals
 * from the observed cadence. Known answer: intervals alternating c+j, c-j
 * give cadence c +- j*w/(2-w) and jitter 2j/(2-w) = j*128/127.
 * Intervals <= 0 (duplicates, clock steps back) are not counted. A new call
 * forgets the last times (restart), so a reconnect gap is no interval.
 * Bounded: an open-addressing table growing from FSC_GNMI_CADENCE_SLOTS_MIN
 * to FSC_GNMI_CADENCE_SLOTS slots, filled to at most half; series met after
 * that are not followed. A zeroed struct is an empty estimate; the owner
 * frees the table with fsc_gnmi_cadence_free. Thread: the stream's worker
 * (gnmi_pool.c) only. */
struct fsc_gnmi_cadence_slot {
    uint32_t key; /* series id + 1; 0 = empty */
    int64_t last_ns;
};

struct fsc_gnmi_cadence {
    struct fsc_gnmi_cadence_slot *slot; /* mask + 1 slots; NULL until the first series */
    uint32_t mask;
    uint32_t used;      /* slots in use */
    uint64_t intervals; /* intervals counted */
    double cadence_s, jitter_s;
};

/* Forgets every reference series and its last time; the estimate stays
 * (and the table keeps its size). Thread: the stream's thread. */
void fsc_gnmi_cadence_restart(struct fsc_gnmi_cadence *cd);

/* Frees the table; *cd is an empty table again (the estimate stays). */
void fsc_gnmi_cadence_free(struct fsc_gnmi_cadence *cd);

/* One message whose first sample is of series `ser`, stamped t_dev_ns:
 * counts the interval since the previous message of that series.
 * FSC_SERIES_NONE and t_dev_ns <= 0 are ignored. Thread: the stream's
 * thread. */
void fsc_gnmi_cadence_observe(struct fsc_gnmi_cadence *cd, fsc_series_id ser, int64_t t_dev_ns);

/* TAG_WAKE: a client was handed to the worker (gnmi_pool.c), which adopts it
 * at once rather than at its next tick. */
enum gnmi_tag_kind { TAG_SEND, TAG_RECV, TAG_STATUS, TAG_CAPS, TAG_WAKE };

struct gnmi_client;
struct gnmi_stream;
struct gnmi_worker;

/* A completion queue tag: which batch of which call of which client
 * finished (a worker's queue serves many clients). */
struct gnmi_tag {
    enum gnmi_tag_kind kind;
    struct gnmi_client *cl;
    struct gnmi_stream *st; /* NULL for TAG_CAPS and TAG_WAKE */
};

struct gnmi_stream {
    struct gnmi_client *cl;
    const struct fsc_gnmi_stream *cfg;
    uint8_t *req; /* packed SubscribeRequest (gnmi_plan) */
    size_t req_len;
    struct fsc_gnmi_decoder *dec;
    struct fsc_sample *smp; /* the client's smp: its worker's buffer */

    /* the current call; all of it lives until its last batch completes */
    grpc_call *call;
    int pending;                /* batches started and not yet completed */
    grpc_byte_buffer *send_buf; /* the request, until its send batch completes */
    grpc_byte_buffer *recv_buf;
    grpc_metadata_array md_initial, md_trailing;
    grpc_status_code status;
    grpc_slice status_details;
    struct gnmi_tag t_send, t_recv, t_status;
    bool status_done;  /* RECV_STATUS completed */
    bool got_msg;      /* a response arrived on this call */
    bool cancelled;    /* we cancelled it (stall, connect timeout, stop) */
    bool stalled;      /* ... because it fell silent: resubscribe at once */
    bool logged_error; /* a decode error was logged on this call */
    int64_t started_mono, last_msg_mono;

    int64_t next_try_mono; /* when idle: start a call at this time */
    int64_t backoff_ns;    /* next backoff before jitter */

    struct fsc_gnmi_cadence cad; /* worker thread only; copied into stats */

    /* FSC_EV_STREAM_DOWN (gnmi_client.c; worker thread only): a START was
     * published and its END not yet, with what the END repeats. */
    bool down;
    uint8_t down_reason; /* enum fsc_stream_down_reason */
    int down_status;     /* gRPC status of the failure, -1 none */
    uint32_t down_failures;
    int64_t down_since_ns; /* wall clock */

    struct fsc_gnmi_stream_stats stats; /* under cl->mu */
};

struct gnmi_client {
    char name[64]; /* source name (log field) */
    const struct fsc_gnmi_config *gc;
    struct fsc_source_env env;
    grpc_channel *chan;
    grpc_completion_queue *cq; /* its worker's (borrowed) */
    grpc_metadata md[2];       /* username, password */
    size_t n_md;
    struct gnmi_stream *streams;
    size_t n_streams;
    /* FSC_GNMI_SAMPLES_CAP decoded samples: its worker's buffer, set at
     * adoption (a worker decodes one response at a time, so its clients
     * share one: 256 KiB per worker, not per device). Worker only. */
    struct fsc_sample *smp;
    uint64_t rng;
    bool grpc_inited;
    atomic_int stop;    /* set by gnmi_source.c: the worker cancels the calls and releases it */
    bool stuck;         /* calls did not report back at stop: the client is leaked, not freed */
    pthread_mutex_t mu; /* guards every stream's stats, and tg */

    /* Its worker (gnmi_pool.c). Everything above but stats and tg is used
     * by that thread alone from adoption to release. */
    struct gnmi_worker *w;
    struct gnmi_client *next; /* in the worker's incoming or running list */
    bool stopping;            /* worker: the calls were cancelled for stop */
    int64_t stop_deadline;    /* worker: release it by then even with calls pending */
    bool released;            /* under w->mu: the worker let go of it (stop may free it) */
    struct gnmi_tag t_wake;   /* the wake-up of its worker when it is added */
    bool wake_pending;        /* that wake-up has not come out of the queue yet */

    /* Device times against the collector's clock (model/time_guard.h):
     * written on the worker thread under mu, read by stats under mu. */
    struct fsc_time_guard tg;
    uint32_t tg_dev;          /* gc->device in tg */
    int64_t time_logged_mono; /* last gnmi_time_rejected line; 0 = none yet */
    uint64_t time_log_suppressed;
    /* gnmi_stream_retry lines (worker only): one per device per
     * FSC_GNMI_RETRY_LOG_EVERY_NS unless an outage opens or the failure
     * changes, so 1 000 unreachable devices do not flood the log. */
    int64_t retry_logged_mono; /* 0 = none yet */
    const char *retry_logged_why;
    int retry_logged_code;
    uint64_t retry_log_suppressed; /* retries since the last line */

    /* Capabilities at start (optional, logged only) */
    grpc_call *caps_call;
    bool caps_pending;
    struct gnmi_tag t_caps;
    grpc_byte_buffer *caps_send;
    grpc_byte_buffer *caps_recv;
    grpc_metadata_array caps_md_initial, caps_md_trailing;
    grpc_status_code caps_status;
    grpc_slice caps_details;
};

/* gnmi_channel.c: creates cl->chan (credentials from gc->tls, keepalive and
 * reconnect args). Returns 0 or -errno with a sentence in err. */
int fsc_gnmi_channel_create(struct gnmi_client *cl, char *err, size_t errlen);

/* gnmi_client.c, called by the client's worker thread only. */

/* A client just adopted by its worker: asks for Capabilities. */
void fsc_gnmi_client_begin(struct gnmi_client *cl);

/* Health on one tick (start idle streams whose retry time has come, cancel
 * calls past connect_timeout or silent past stall_intervals). Silence
 * counts from listen_since at the earliest (monotonic ns): when the worker
 * last resumed after being held up, or `now` when its queue could not be
 * drained (responses may be waiting in it: no call is judged). */
void fsc_gnmi_client_tick(struct gnmi_client *cl, int64_t now, int64_t listen_since);

/* One completion of the worker's queue (ev->tag is a struct gnmi_tag). */
void fsc_gnmi_client_event(const grpc_event *ev, int64_t now);

/* Stop: cancels every call of the client (each reports back through the
 * queue). */
void fsc_gnmi_client_cancel(struct gnmi_client *cl);

/* true while a call of the client has batches in the queue. */
bool fsc_gnmi_client_pending(const struct gnmi_client *cl);

/* gnmi_pool.c: the workers every gnmi source of the process shares. */

/* Hands a started client (channel made, not yet adopted) to the least
 * loaded worker, starting the pool with its first client; sets cl->w and
 * cl->cq. Returns 0, or -1 with a sentence in err (no thread, no memory).
 * Thread: any (the daemon's). */
int fsc_gnmi_pool_add(struct gnmi_client *cl, char *err, size_t errlen);

/* Asks the worker to let go of cl (cl->stop must be set): it cancels the
 * calls and drains them, bounded, then releases it. Waits for that
 * (bounded), and ends the pool with its last client. Returns true when cl
 * may be freed, false when it must be leaked (its calls never reported
 * back: late completions may still name it). Thread: any but a worker. */
bool fsc_gnmi_pool_remove(struct gnmi_client *cl);

/* Worker threads running (0 when no gnmi source runs). Thread: any. */
unsigned fsc_gnmi_pool_threads(void);

#endif
