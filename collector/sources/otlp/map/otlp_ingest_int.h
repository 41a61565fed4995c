/* Private to the OTLP ingest (otlp_ingest.h is its contract): the ingest's
 * state and what its files share.
 *
 * - otlp_ingest.c: the visitor the decoders call, the lifecycle.
 * - otlp_ingest_samples.c: rejections, applying a value to a series, the
 *   sample buffer; the other files end in it.
 * - otlp_ingest_points.c: number and histogram points, checked and turned
 *   into values of their series.
 * - otlp_ingest_key.c: the cache key of a point and the series it feeds
 *   (the cache and its slow path are otlp_series.c).
 * - otlp_ingest_bytes.c: the ingest's side of Cumulus port bytes (the
 *   byte-source logic is otlp_bytes.c). */
#ifndef FSC_OTLP_INGEST_INT_H
#define FSC_OTLP_INGEST_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/time_guard.h"
#include "sources/otlp/map/otlp_bytes.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "sources/otlp/map/otlp_series.h"

/* Attribute key bytes in the cache key: a longer key keeps its first
 * ATTR_KEY_MAX - 8 bytes and an 8-byte hash of all of it, its length
 * prefix flagged ATTR_KEY_HASHED (otlp_ingest_key.c, key_attr). */
#define ATTR_KEY_MAX    255u
#define ATTR_KEY_HASHED 0x8000u
#define VTEXT           32 /* text of an int / bool / double attribute */
/* class + device + name + attributes + histogram bounds, all bounded above */
#define KEY_MAX                                                                                    \
    (1 + 2 + FSC_OTLP_LABEL_VALUE_MAX + 2 + FSC_PROFILE_VENDOR_MAX +                               \
     FSC_OTLP_ATTRS_MAX * (4 + ATTR_KEY_MAX + FSC_OTLP_LABEL_VALUE_MAX) + 4 +                      \
     8 * FSC_OTLP_BUCKETS_MAX)

/* Why a point was rejected; each reason has its counter in the stats. */
enum otlp_ingest_rej {
    REJ_NO_TIME,
    REJ_NO_VALUE,
    REJ_UNSUPPORTED,
    REJ_BAD_HIST,
    REJ_LIMIT,
    REJ_BAD_VALUE,
    REJ_LABELS,
    REJ_TIME
};

/* A Cumulus histogram read as queue-peak evidence (otlp_hist_evid.c): the
 * peak gauge it gives, per port and class. Static data. */
struct otlp_hist_evid {
    const char *name;      /* vendor histogram name */
    const char *canonical; /* the peak gauge */
    const char *label;     /* its class label ("queue") */
    const char *attr;      /* from this attribute ("tc") */
    uint8_t signal;        /* FSC_SIG_QUEUE_PEAK / FSC_SIG_LATENCY_PEAK */
    uint8_t unit;          /* enum fsc_unit of the gauge */
    uint8_t dir;           /* enum fsc_direction */
    double to_unit;        /* bound x to_unit = gauge value (latency: ns -> s) */
};

struct fsc_otlp_ingest {
    pthread_mutex_t lock;
    char source_device[FSC_OTLP_LABEL_VALUE_MAX + 1];
    char *device_attr;
    size_t device_attr_len;
    uint32_t max_batch;
    void (*tap)(void *arg, const struct fsc_sample *smp, size_t n);
    void *tap_arg;
    /* Sharding (model/shard.h): points of a device another collector owns
     * are skipped (counted as skipped, not rejected: the sender may send
     * every device to every shard). */
    uint32_t shard_index, shard_count;
    bool source_foreign; /* the fallback device is another shard's */
    bool foreign;        /* the current resource's device is */
    bool attr_default;   /* device_attr is the default: net.host.name may stand in */
    struct otlp_series ser;
    /* Cumulus port bytes by release (otlp_bytes.h); on with the Cumulus profile. */
    bool bytes_on;
    struct otlp_bytes ob;
    uint32_t ob_dev; /* the current resource's device in ob, OTLP_BYTES_NONE = not looked up */
    /* Device times against the collector's clock (model/time_guard.h). */
    struct fsc_time_guard tg;
    uint32_t tg_dev; /* the current resource's device in tg */
    bool tg_dev_set; /* tg_dev was looked up for the current resource */
    struct fsc_otlp_ingest_stats st;
    uint32_t smp_allocs;

    /* the request in progress */
    int64_t arrival_ns;
    int rc;
    struct fsc_otlp_ingest_result res;
    struct fsc_sample *smp;
    uint32_t n_smp, cap_smp;

    /* the current resource and metric */
    char device[FSC_OTLP_LABEL_VALUE_MAX + 1];
    char mname[FSC_PROFILE_VENDOR_MAX + 1];
    uint8_t mtype, mtemp;
    bool mmono, mname_ok, plan_done;
    bool miface;                         /* a Cumulus interface metric */
    const struct otlp_bytes_role *mrole; /* its part in port bytes, or NULL */
    const struct otlp_hist_evid *mhev;   /* its part in queue-peak evidence, or NULL */
    bool mspeed;                         /* Cumulus' link speed (otlp_speed.c): no series */
    int plan_rc;
    struct otlp_plan plan;
    uint32_t prefix_len; /* key[0 .. prefix_len): class, device, metric name */

    /* the current point */
    struct otlp_kv kv[FSC_OTLP_ATTRS_MAX];
    size_t n_kv;
    char vtext[FSC_OTLP_ATTRS_MAX][VTEXT];
    char ltext[FSC_OTLP_ATTRS_MAX][FSC_OTLP_LABEL_VALUE_MAX + 1]; /* hashed long values */
    uint32_t klen;
    uint64_t khash;
    uint8_t key[KEY_MAX];
};

/* ---- otlp_ingest_samples.c ---- */

/* Rejects the current point: counts it under reason r (stats and the
 * request's result) and keeps `why` (with the metric name) as the
 * request's message if it is the first. */
void otlp_ingest_reject(struct fsc_otlp_ingest *ing, enum otlp_ingest_rej r, const char *why);

/* Applies one value to one series and buffers its sample. v is the point's
 * value for the series (v.u when !f64); DELTA values are added to the
 * running total first. *reset is set on a cumulative start-time change. */
void otlp_ingest_apply(struct fsc_otlp_ingest *ing, struct otlp_state *st, uint32_t flags,
                       uint8_t mode, uint64_t start, bool f64, union fsc_value v, int64_t t,
                       bool *reset);

/* Feeds the buffered samples to the engine (and the tap) and empties the
 * buffer; an engine failure is kept in ing->rc and counted as lost. */
void otlp_ingest_flush(struct fsc_otlp_ingest *ing);

/* ---- otlp_ingest_points.c ---- */

/* A Gauge or Sum point of the current metric: checked, then its value
 * applied to its series (counted accepted or rejected in ing->res). */
void otlp_ingest_number_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p);

/* A Histogram point of the current metric: checked, then its buckets,
 * count and sum applied to their series (counted accepted or rejected). */
void otlp_ingest_histogram_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p);

/* ---- otlp_ingest_key.c ---- */

/* Writes the key prefix of the current metric (class, ing->device, the
 * first name_len bytes of ing->mname) into ing->key and sets prefix_len. */
void otlp_ingest_key_prefix(struct fsc_otlp_ingest *ing, bool hist, size_t name_len);

/* The point's state indexes (*n_ser of them): a cache hit, or the slow
 * path. Builds ing->kv (the point's label-worthy attributes) on the way.
 * For number points `check` (the value against the series' kind) runs
 * before anything is interned, so a bad first value creates no series.
 * Returns NULL when the point was rejected. */
const uint32_t *
otlp_ingest_series_of(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, bool hist,
                      bool (*check)(uint8_t, uint8_t, const struct fsc_otlp_point *), uint8_t mode,
                      uint32_t *n_ser);

/* ---- otlp_hist_evid.c ---- */

/* The evidence role of histogram metric name, or NULL. Thread: any. */
const struct otlp_hist_evid *otlp_hist_evid_role(const char *metric);

/* The lower bound of the highest non-empty bucket of one interval: d[0..nb)
 * are its counts cumulative over buckets (le), bounds the nb - 1 explicit
 * bounds. 0 when the interval is empty or every sample is in bucket 0. */
double otlp_hist_evid_reached(const uint64_t *d, const double *bounds, uint32_t nb);

/* The interval d[0..nb) (as above) of the current histogram point p of an
 * evidence metric (ing->mhev set, ing->kv built): applies its reached bound
 * to the port's and class's peak gauge, made on first use (counted in
 * stats when it cannot be). */
void otlp_ingest_hist_evid(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                           const uint64_t *d, uint32_t nb);

/* ---- otlp_speed.c ---- */

/* Whether metric `name` says its ports' link speed (Cumulus). */
bool otlp_speed_metric(const char *name);

/* A point of the link-speed metric: its value becomes the report of its
 * port (attribute `interface`) of the current device to the source's
 * link-speed table; counted accepted, or rejected without a port or a
 * usable value. */
void otlp_ingest_speed_point(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p);

/* ---- otlp_ingest_bytes.c ---- */

/* The otlp_bytes_apply_fn of ing->ob (ctx = the ingest): applies a derived
 * port-bytes value to state index st as a gauge-mode double. */
void otlp_ingest_bytes_apply(void *ctx, uint32_t st, double v, int64_t t, bool reset);

/* A Cumulus interface point (ing->kv built): notes the device; for a direct
 * byte counter, returns whether it feeds its port's bytes (false: a better
 * counter does) and ORs the flags of its sample into *flags. True for every
 * other interface point. */
bool otlp_ingest_bytes_direct(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                              uint32_t *flags);

/* A per-class byte point of value v (ing->kv built): hands it to ing->ob
 * for its port's derived sum. */
void otlp_ingest_bytes_class(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, double v);

#endif
