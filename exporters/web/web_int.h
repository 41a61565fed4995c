/* Internals of the web module (exporters/web), shared by its files.
 *
 * Memory bounds (everything the module keeps between requests):
 * - event ring: WEB_EVENTS_MAX events (~130 B each: 130 KiB), the newest
 *   ones the bus published since start;
 * - port index: one entry per device/port pair that has byte counters or
 *   cable-mismatch, PCIe or link gauges, at most WEB_PORTS_MAX (~110 B
 *   each plus a hash slot: at most ~8 MiB on a fabric that large, a few
 *   KiB on a small one);
 *   pairs beyond it are counted (ports_dropped) and not shown;
 * - history: at most WEB_TRACK_MAX tracked ports, each with an rx and a tx
 *   ring of WEB_HIST_POINTS fine-utilization points (16 B each): 16 x 2 x
 *   6000 x 16 B = 3 MiB when every slot is in use, allocated on first use
 *   and reused when a slot changes port.
 *   6000 points are the last 10 minutes at a 100 ms sampling interval; a
 *   faster source fills them in less time, and the sampler records at most
 *   one point per series per tick (WEB_TICK_NS), so a chart of a source
 *   faster than the tick shows a subsample (the table's peaks come from the
 *   engine's window peaks, which see every interval);
 * - the cable plan (fixed size, at most 144 interfaces);
 * - the active set: the START (or latest UPDATE) of every condition the
 *   bus announced and has not ended yet, at most WEB_ACTIVE_MAX (128 B
 *   each: 512 KiB); more are counted (active_dropped) and the health list
 *   says it is incomplete. Apart from the event ring, so a standing
 *   condition stays listed however many events follow it;
 * - when each source was first seen down, at most WEB_SOURCES_MAX (grown
 *   as sources go down, ~72 B each).
 * Per request, the models are allocated and freed by the handler: bounded
 * by the query limits (top <= WEB_TOP_MAX, limit <= WEB_EVENTS_MAX, health
 * lines <= WEB_HEALTH_MAX at ~2 KiB each) and by the index size for the
 * ranking pass (done in chunks of WEB_VIEW_CHUNK views); the health list
 * gathers at most WEB_FACTS_MAX facts (~300 B each, ~5 MiB at the bound).
 *
 * Locks: web->mu guards the index, the tracks, the event ring, the active
 * set and the sources seen down. The
 * engine lock may be taken while holding mu (never the other way round:
 * nothing the engine calls comes back here). Registry reads are lock-free. */
#ifndef FSC_WEB_INT_H
#define FSC_WEB_INT_H

#include <pthread.h>
#include <stdint.h>

#include "engine/engine_keys.h"
#include "model/topology_keys.h"
#include "web/web.h"
#include "web/web_conditions.h"

#define WEB_TICK_NS        ((int64_t)50 * 1000000) /* the sampler's period */
#define WEB_EVENTS_MAX     1024
#define WEB_PORTS_MAX      65536
#define WEB_TRACK_MAX      16
#define WEB_TRACK_TOP      8 /* slots the top ports keep; the rest follow requests */
#define WEB_HIST_POINTS    6000
#define WEB_HIST_NS        ((int64_t)600 * 1000000000) /* the chart's time range */
#define WEB_TOP_EVERY_NS   ((int64_t)5 * 1000000000)   /* re-ranking for tracking */
#define WEB_DOWN_EVERY_NS  ((int64_t)1 * 1000000000)   /* sources down: their "since" */
#define WEB_TOP_MAX        100
#define WEB_VIEW_CHUNK     256
#define WEB_SCAN_PER_TICK  65536u     /* registry ids indexed per tick */
#define WEB_SOURCES_MAX    65535u     /* the config's ceiling (max_sources) */
#define WEB_STAT_ROWS_MAX  (1u << 20) /* plugin table rows on one status (a few per source) */
#define WEB_REFRESH_S      5
#define WEB_DEFAULT_TOP    10
#define WEB_DEFAULT_EVENTS 50  /* /api/events */
#define WEB_PAGE_EVENTS    100 /* the page's event table: a demo cycle's faults fit */
#define WEB_ACTIVE_MAX     4096
#define WEB_FACTS_MAX      16384 /* health facts gathered per request; more are counted */
#define WEB_DEFAULT_HEALTH 100   /* /api/health */
#define WEB_HEALTH_MAX     1000  /* its ?limit and ?recent at most */
#define WEB_RECENT_NS      ((int64_t)600 * 1000000000) /* "recent": the last 10 minutes */
#define WEB_QUIET_NS       ((int64_t)60 * 1000000000)  /* an active condition's series silent */

/* Byte-counter ranks for the mesh: the best series of a port and
 * direction wins (the ethtool PHY counters the top ports use, then the IB
 * PMA data counters, then the kernel's netdev statistics, which a fixture
 * tree without ethtool still has). */
enum web_rank { WEB_RANK_PORT = 1, WEB_RANK_IB = 2, WEB_RANK_NETDEV = 3 };

/* The PCIe gauges of a NIC port (fabric_pcie_link_*). */
enum web_pcie {
    WEB_PCIE_DEGRADED = 0,
    WEB_PCIE_SPEED,     /* current GT/s */
    WEB_PCIE_MAX_SPEED, /* max GT/s */
    WEB_PCIE_WIDTH,
    WEB_PCIE_MAX_WIDTH,
    WEB_PCIE__COUNT
};

/* One device/port pair. Strings are the registry's. */
struct web_port {
    const char *device, *port;
    uint32_t node;                             /* the `node` label (B300 cable plan), 0 = none */
    uint32_t peer_node, link;                  /* the `peer_node` and `link` labels, 0 = none */
    const char *peer;                          /* the `peer` label ("device:interface"), or NULL */
    fsc_series_id bytes[2];                    /* fabric_port_{rx,tx}_bytes_total, or NONE */
    fsc_series_id mesh[2];                     /* best byte counter for the mesh, or NONE */
    uint8_t mesh_rank[2];                      /* its enum web_rank; 0 = none */
    fsc_series_id mismatch[FSC_WEB_MM__COUNT]; /* fabric_cable_mismatch{kind} */
    fsc_series_id pcie[WEB_PCIE__COUNT];       /* the PCIe gauges, or NONE */
    fsc_series_id link_up;                     /* fabric_port_link_up, or NONE */
    fsc_series_id oper;                        /* a switch's oper-state gauge, or NONE */
};

/* A ring of fine-utilization points of one series. */
struct web_ring {
    struct fsc_web_point *pts; /* WEB_HIST_POINTS, allocated with the track */
    size_t head, n;            /* next write position, points held */
    int64_t last_t_ns;         /* device time of the newest point */
};

struct web_track {
    int used;
    uint32_t port;           /* index into web->ports */
    int64_t since_ns;        /* wall clock tracking started */
    int64_t wanted_mono_ns;  /* last time the top ranking or a request wanted it */
    struct web_ring ring[2]; /* rx, tx */
};

struct fsc_web {
    struct fsc_web_env env;
    struct fsc_cabling *plan; /* NULL: no plan, the mesh comes from labels */
    double rise;              /* microburst threshold for the chart */

    pthread_mutex_t mu;
    /* port index (open addressing on device/port) */
    struct web_port *ports;
    uint32_t n_ports, cap_ports;
    uint32_t *hash; /* slot -> port index + 1, 0 = empty */
    uint32_t hash_cap;
    uint64_t ports_dropped;
    uint32_t scanned; /* registry ids indexed so far */
    /* tracks */
    struct web_track tracks[WEB_TRACK_MAX];
    /* event ring */
    struct fsc_event events[WEB_EVENTS_MAX];
    size_t ev_head, ev_n;
    uint64_t ev_lost;
    /* active set (web_health.c), in no order */
    struct fsc_event active[WEB_ACTIVE_MAX];
    size_t n_active;
    uint64_t active_dropped;
    /* sources seen down: name and the wall clock they were first seen so */
    struct web_down {
        char name[64];
        int64_t since_ns;
    } * down;
    size_t n_down, cap_down;

    struct fsc_event_sub *sub;
    pthread_t thread;
    pthread_mutex_t stop_mu;
    pthread_cond_t stop_cv;
    int stopping;
};

/* ---- web_index.c: the port index and the history ----------------------------- */

/* Indexes registry series from web->scanned on (at most WEB_SCAN_PER_TICK).
 * The sampler calls it every tick and each request before reading the
 * index, so an answer never lags the registry. Caller holds mu. */
void fsc_web_index_scan(struct fsc_web *web);

/* The index of device/port, or -1. Caller holds mu. */
long fsc_web_index_find(const struct fsc_web *web, const char *device, const char *port);

/* Ranks every port with byte counters and fills rows[0..top) with the
 * highest peak utilizations (ports without a peak after all those with
 * one; ties by device, then port). Returns the number of rows, or a
 * negative errno. Takes mu briefly to copy the index, then reads the
 * engine in chunks. port_idx (may be NULL) receives each row's port index.
 * Thread: any. */
long fsc_web_top_ports(struct fsc_web *web, struct fsc_web_port_row *rows, uint32_t *port_idx,
                       size_t top);

/* Fills *row for port index pi from the engine. Caller holds mu. */
void fsc_web_port_row_fill(struct fsc_web *web, uint32_t pi, struct fsc_web_port_row *row);

/* Appends the newest fine interval of every tracked port to its rings.
 * Caller holds mu. */
void fsc_web_track_sample(struct fsc_web *web);

/* Makes port pi tracked (now, or refreshes its want time); may evict the
 * track wanted least recently. Returns the track, or NULL on allocation
 * failure. Caller holds mu. */
struct web_track *fsc_web_track_want(struct fsc_web *web, uint32_t pi, int64_t now_mono_ns);

/* The track of port pi, or NULL. Caller holds mu. */
struct web_track *fsc_web_track_find(struct fsc_web *web, uint32_t pi);

/* Frees the index and the tracks. */
void fsc_web_index_free(struct fsc_web *web);

/* ---- web_health.c: the active set and the health model ------------------------------ */

/* Updates the active set with n events the bus published (START adds or
 * replaces, UPDATE refreshes the figures, END removes). Caller holds mu. */
void fsc_web_active_note(struct fsc_web *web, const struct fsc_event *ev, size_t n);

/* Notes which of the daemon's sources are down now (a source up again is
 * forgotten), so a source down has a "since". Takes mu. Thread: any. */
void fsc_web_down_note(struct fsc_web *web, const struct fsc_source_status *src, size_t n);

/* Owns: every configured source's status (the view's order) in a new
 * array, *n of them (at most WEB_SOURCES_MAX), freed by the caller; NULL
 * with *n = 0 when there is no view or no memory. Sized to what the view
 * says it has, so a thousand sources are all there. Thread: any. */
struct fsc_source_status *fsc_web_sources(const struct fsc_daemon_view *view, size_t *n);

/* Builds the health model of now: active conditions (the first `limit`
 * with their text) and those of the last WEB_RECENT_NS (the first
 * `recent_limit`). Returns 0 or -ENOMEM; fsc_web_health_free() frees it
 * either way. Takes mu briefly, reads the engine without it. Thread: any. */
int fsc_web_health_build(struct fsc_web *web, unsigned limit, unsigned recent_limit,
                         struct fsc_web_health *hm);
void fsc_web_health_free(struct fsc_web_health *hm);

/* ---- web_mesh.c: the B300 mesh model -------------------------------------------- */

/* Fills *m from the cable plan (or the labels) and the engine. Takes mu.
 * Thread: any. */
void fsc_web_mesh_build(struct fsc_web *web, struct fsc_web_mesh *m);

/* ---- web_routes.c: the request handlers ------------------------------------------ */

int fsc_web_route_page(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype);
int fsc_web_route_status(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype);
int fsc_web_route_ports(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                        const char **ctype);
int fsc_web_route_events(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype);
int fsc_web_route_port(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype);
int fsc_web_route_mesh(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                       const char **ctype);
int fsc_web_route_health(void *arg, const struct fsc_http_req *req, struct fsc_buf *out,
                         const char **ctype);

#endif
