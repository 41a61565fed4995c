/* What the status page and the API show, as plain data, and the pure
 * functions that render it as JSON (web_api_json.c) or HTML (web_page.c).
 *
 * The request handlers (web_routes.c) build a model from the engine, the
 * registry and the web module's rings, then render it; the renderers read
 * nothing else (the clock comes in the model), so the unit tests give them
 * known models and compare exact output. Strings in a model are borrowed:
 * registry strings (valid for the collector's life) or arrays of the model.
 *
 * Every renderer appends to out and returns 0, or a negative errno (the
 * buffer's -E2BIG / -ENOMEM; -EINVAL for a model the writer refuses).
 * Thread: any; they touch only their arguments. */
#ifndef FSC_WEB_MODEL_H
#define FSC_WEB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "model/registry.h"
#include "engine/events.h"
#include "engine/rate.h"
#include "plugin/sink.h"

#define FSC_WEB_NAME_MAX 64

/* ---- /api/status ------------------------------------------------------------ */

/* Columns of a plugin table the page shows at most (a table with more is
 * cut there). */
#define FSC_WEB_STAT_COLS 24

/* One row of a plugin's stats table (base/stats.h), copied. */
struct fsc_web_stat_row {
    const struct fsc_stat_table *table;
    char keys[FSC_STAT_KEYS_MAX][FSC_WEB_NAME_MAX];
    double values[FSC_WEB_STAT_COLS]; /* NAN: not known */
};

struct fsc_web_status {
    int64_t now_ns; /* wall clock the ages are measured from */
    const struct fsc_source_status *sources;
    size_t n_sources;
    /* Every plugin table (NULL-terminated; NULL: none) and their rows in
     * the order the plugins wrote them. */
    const struct fsc_stat_table *const *tables;
    const struct fsc_web_stat_row *rows;
    size_t n_rows;
    uint32_t series;  /* registry series */
    uint64_t samples; /* samples the engine took */
    uint64_t events_by_kind[FSC_EV__COUNT];
    unsigned n_windows; /* the engine's aligned windows */
    int64_t window_ns[FSC_MAX_WINDOWS];
};

/* ---- /api/ports --------------------------------------------------------------- */

/* One port (a device/port pair with rx and/or tx byte counters). Numbers
 * are the ones /metrics exposes: bytes/s and utilization of the last
 * window of level 0, peak utilization of the longest completed window,
 * all rounded to 7 significant digits. Index 0 is rx, 1 is tx. */
struct fsc_web_port_row {
    const char *device, *port;
    uint64_t speed_bps; /* 0 = unknown: no utilization */
    int has_peak;
    double peak_utilization;
    uint8_t peak_direction; /* FSC_DIR_RX / FSC_DIR_TX */
    int64_t peak_window_ns;
    uint8_t has_rate[2];
    double bytes_per_second[2];
    double utilization[2]; /* < 0: unknown (no link speed) */
    uint64_t microbursts;  /* both directions */
    uint64_t bursts;
};

/* ---- /api/events --------------------------------------------------------------- */

struct fsc_web_event_row {
    struct fsc_event ev;
    const char *device, *port; /* labels of the event's series; NULL when absent */
    const char *mismatch;      /* cable_mismatch: the series' `kind` label */
    struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
    size_t n_labels;
};

struct fsc_web_events {
    uint64_t published;                   /* events the bus took since start */
    uint64_t lost;                        /* overwritten before the web module read them */
    size_t kept;                          /* events in the web module's ring */
    const struct fsc_web_event_row *rows; /* newest first */
    size_t n_rows;
    unsigned n_windows; /* the engine's aligned windows (names of window utilizations) */
    int64_t window_ns[FSC_MAX_WINDOWS];
};

/* A one-line human summary of an event ("peak 98.7 %, 1.25 GB",
 * "peak 50000/s, baseline 200/s", "missing"). Always NUL-terminated.
 * Returns buf. */
const char *fsc_web_event_summary(const struct fsc_web_event_row *row, char *buf, size_t size);

/* ---- /api/port (the chart) -------------------------------------------------------- */

struct fsc_web_point {
    int64_t t_ns;      /* device time the fine interval ended */
    float utilization; /* of that interval, 0..~1.05 */
};

/* A burst marker: a microburst or burst event of the port. A microburst's
 * START is published when it has ended but carries no end (its END follows
 * once the surrounding windows complete): t_end_ns 0 then means "end not
 * known yet" and the marker is drawn at its start; for a long burst it
 * means "still going" and the marker runs to the right edge. */
struct fsc_web_marker {
    int64_t t_start_ns, t_end_ns; /* 0: see above */
    double peak;                  /* peak utilization */
    uint8_t kind;                 /* FSC_EV_MICROBURST / FSC_EV_BURST */
    uint8_t direction;
};

struct fsc_web_chart {
    const char *device, *port;
    uint64_t speed_bps;
    int tracked;                           /* the web module keeps this port's history */
    int64_t tracked_since_ns;              /* wall clock */
    int64_t t_from_ns, t_to_ns;            /* x range shown */
    double rise;                           /* the microburst threshold, drawn as a line */
    const struct fsc_web_point *points[2]; /* rx, tx; oldest first */
    size_t n_points[2];
    const struct fsc_web_marker *markers;
    size_t n_markers;
};

/* ---- /api/mesh ----------------------------------------------------------------------- */

#define FSC_WEB_MESH_NODES 9   /* cable-plan nodes are 1..9 */
#define FSC_WEB_MESH_LINKS 256 /* a full plan has 72 links (36 cables x 2) */

/* Mismatch kinds, the `kind` label values of fabric_cable_mismatch. */
enum fsc_web_mismatch {
    FSC_WEB_MM_MISSING = 0,
    FSC_WEB_MM_DOWN,
    FSC_WEB_MM_SPEED,
    FSC_WEB_MM_ADDRESS,
    FSC_WEB_MM_PEER,
    FSC_WEB_MM__COUNT
};
extern const char *const fsc_web_mismatch_name[FSC_WEB_MM__COUNT];

struct fsc_web_mesh_node {
    uint32_t node;
    char device[FSC_WEB_NAME_MAX];
    int polled; /* some series of this node exist (a collector polls it) */
};

struct fsc_web_mesh_end {
    uint32_t node;
    char port[FSC_WEB_NAME_MAX];
    int has_rate;
    double rx_bytes_per_second, tx_bytes_per_second; /* window of level 0 */
    uint32_t mismatch;                               /* bit k: fsc_web_mismatch k is 1 */
};

struct fsc_web_mesh_link {
    struct fsc_web_mesh_end a, b; /* a.node < b.node */
    uint32_t link;                /* 1..16 within the node pair */
    uint64_t speed_bps;
    double utilization; /* max over both ends and directions; < 0 unknown */
};

struct fsc_web_mesh {
    int from_plan; /* links from topology.cable_plan, else from NIC series labels */
    size_t n_nodes;
    struct fsc_web_mesh_node nodes[FSC_WEB_MESH_NODES];
    size_t n_links;
    struct fsc_web_mesh_link links[FSC_WEB_MESH_LINKS];
};

/* ---- /api/health: struct fsc_web_health is in web_conditions.h -------------------- */

struct fsc_web_health;

/* ---- renderers ------------------------------------------------------------------- */

int fsc_web_json_status(const struct fsc_web_status *st, struct fsc_buf *out);
int fsc_web_json_ports(const struct fsc_web_port_row *rows, size_t n, struct fsc_buf *out);
int fsc_web_json_events(const struct fsc_web_events *evs, struct fsc_buf *out);
int fsc_web_json_chart(const struct fsc_web_chart *c, struct fsc_buf *out);
int fsc_web_json_mesh(const struct fsc_web_mesh *m, struct fsc_buf *out);
int fsc_web_json_health(const struct fsc_web_health *hm, struct fsc_buf *out);
/* {"error":"<msg>"} */
int fsc_web_json_error(const char *msg, struct fsc_buf *out);

/* The whole page. chart may be NULL (no port to chart yet), health too
 * (the page then says it is not known). */
struct fsc_web_page {
    const struct fsc_web_status *status;
    const struct fsc_web_port_row *ports;
    size_t n_ports;
    const struct fsc_web_events *events;
    const struct fsc_web_chart *chart;
    const struct fsc_web_mesh *mesh;
    unsigned refresh_s; /* the script's refresh period */
    unsigned top;       /* the ?top and ?limit the script asks for */
    unsigned limit;
    const struct fsc_web_health *health;
};
int fsc_web_html_page(const struct fsc_web_page *pg, struct fsc_buf *out);

#endif
