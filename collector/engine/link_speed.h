/* Link speeds learned from the devices, one table per source instance
 * (docs/DESIGN.md, "One data model"; docs/CONFIG.md, "Link speed").
 *
 * Utilization, microburst detection, the plausibility rule (rate.h rule 7)
 * and the capacity report divide by a port's link speed
 * (traits.link_speed_bps). The operator may give it in the topology; the
 * devices say it too: gNMI port-speed / negotiated-port-speed / high-speed
 * (sources/gnmi/gnmi_speed.c), Cumulus' oper_aggregate_speed
 * (sources/otlp/map/otlp_speed.c). This table keeps, per (device, port) of one
 * source, what the device reported and the series that take the port's
 * speed, and re-traits them (fsc_engine_set_link_speed) when the port's
 * speed changes, whether the series came before the report or after.
 *
 * The port's speed, one rule for every source:
 *   1. the topology's `speed`, when the topology names the port with one:
 *      the operator's word wins, reports are kept but not applied;
 *   2. else the known report of the lowest rank (the source numbers its
 *      reports: gNMI negotiated-port-speed 0, high-speed 1, port-speed 2);
 *   3. else the last speed known: a report that turns unknown (OpenConfig
 *      SPEED_UNKNOWN while a link is down, high-speed 0) keeps it, so a
 *      flapping link does not drop its detector state on every flap;
 *   4. else unknown (0): no utilization, no microbursts. Such a port, once
 *      it has a port-bytes series, is listed (fsc_link_speeds_each_unknown):
 *      the status page and fabricscope_ports_without_speed show it.
 *
 * Memory is bounded: max_ports ports (hashed; ~100 bytes and the names
 * each) and max_series series (12 bytes each) per table, grown on demand.
 * A port past max_ports gets the topology's speed only, and its reports
 * are ignored; a series past max_series gets the port's speed when it is
 * attached but is not re-traited later. Both are counted (struct
 * fsc_link_speeds_stats; the daemon exports them as
 * fabricscope_link_speed_untracked_total).
 *
 * Threads and locks: a table has its own mutex; every call takes it, and
 * attach and learn call into the engine (its lock) while holding it: lock
 * order table, then engine. The engine never calls back. */
#ifndef FSC_LINK_SPEED_H
#define FSC_LINK_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "model/sample.h"
#include "model/topology.h"

#define FSC_LINK_SPEED_RANKS 4 /* reports per port a source may keep apart */
/* The application's bounds per source (a 4-leaf QFX5240 fabric has 512
 * ports; an OTLP listener may hear a few hundred spines). */
#define FSC_LINK_SPEED_PORTS_MAX  16384u
#define FSC_LINK_SPEED_SERIES_MAX 262144u

struct fsc_link_speeds;

/* Whether a series of these traits takes its port's link speed: the port's
 * byte counters (utilization), queue peaks (evidence against the line
 * rate) and any other byte counter of the port (plausibility). */
static inline bool fsc_link_speed_wanted(const struct fsc_traits *tr)
{
    return tr->signal == FSC_SIG_PORT_BYTES || tr->signal == FSC_SIG_QUEUE_PEAK ||
           tr->unit == FSC_UNIT_BYTES;
}

/* An empty table for at most max_ports ports and max_series series (0:
 * 1). eng and topo are borrowed and must outlive the table (topo may be
 * NULL: no topology speeds). Returns NULL on allocation failure. The caller
 * owns it (fsc_link_speeds_destroy). Thread: any. */
struct fsc_link_speeds *fsc_link_speeds_create(struct fsc_engine *eng,
                                               const struct fsc_topology *topo, uint32_t max_ports,
                                               uint32_t max_series);

/* Frees the table. NULL is a no-op. The engine's series keep their speeds.
 * Thread: any, once no source uses the table. */
void fsc_link_speeds_destroy(struct fsc_link_speeds *ls);

/* The handle (1..max_ports) of port `port` of `device`, added on first
 * sight with the topology's speed; 0 when ls is NULL, a name is NULL or
 * empty, the table is full or memory ran out (the caller then uses the
 * topology alone). Handles never move. Thread: any; takes the table lock. */
uint32_t fsc_link_speeds_port(struct fsc_link_speeds *ls, const char *device, const char *port);

/* Sets series id's traits in the engine with tr->link_speed_bps set to the
 * port's speed now (*tr is updated), and follows the series from then on:
 * a later change of the port's speed re-traits it. Attaching a series
 * again sets its traits again and follows it once. Call it in place of
 * fsc_engine_set_traits for a series of the port that takes a link speed
 * (fsc_link_speed_wanted), the first time the source resolves it.
 * Returns 0, or the engine's negative errno (the series is not followed).
 * Past max_series the traits are set and the series is not followed
 * (counted, still 0). Thread: any; takes the table lock, then the engine's. */
int fsc_link_speeds_attach(struct fsc_link_speeds *ls, uint32_t port, fsc_series_id id,
                           struct fsc_traits *tr);

/* As fsc_link_speeds_attach, for a series whose traits are set already (a
 * source that finds its series interned by another of its streams, or by
 * its previous instance): only its speed is set (fsc_engine_set_link_speed;
 * tr is the traits it was interned with: their signal and direction are
 * read, and the speed is written to tr), so a stream with another sampling
 * interval does not change its traits. A series the engine has no traits
 * for gets all of tr. Returns as attach. Thread: any; takes the table
 * lock, then the engine's. */
int fsc_link_speeds_follow(struct fsc_link_speeds *ls, uint32_t port, fsc_series_id id,
                           struct fsc_traits *tr);

/* Notes the device's report of rank `rank` (< FSC_LINK_SPEED_RANKS; lower
 * wins) for port handle `port`: bps bits per second, 0 = the device says it
 * does not know. When the port's speed (the rule above) changes, every
 * series attached to it is re-traited and a port-bytes series that gains
 * a speed is linked to its topology peer (engine/topo_peers.h). Returns 1
 * when the port's speed changed, 0 when not (an unchanged report costs one
 * lock and one compare), -EINVAL for a bad handle or rank, or the first
 * negative errno of the engine (the other series are still re-traited).
 * Thread: any; takes the table lock, then the engine's. */
int fsc_link_speeds_learn(struct fsc_link_speeds *ls, uint32_t port, unsigned rank, uint64_t bps);

/* The port's speed now (the rule above), 0 when unknown or the handle is
 * not a port of ls. Thread: any; takes the table lock. */
uint64_t fsc_link_speeds_get(struct fsc_link_speeds *ls, uint32_t port);

/* Totals of one table (a copy). */
struct fsc_link_speeds_stats {
    uint32_t ports;            /* ports in the table */
    uint32_t series;           /* series followed */
    uint32_t ports_topology;   /* ports whose speed is the topology's */
    uint32_t ports_learned;    /* ports whose speed came from the device */
    uint32_t ports_unknown;    /* ports with a port-bytes series and no speed */
    uint64_t reports;          /* reports that differed from the port's last of their rank */
    uint64_t changes;          /* port speed changes applied to the series */
    uint64_t untracked_ports;  /* ports refused: table full or out of memory */
    uint64_t untracked_series; /* series not followed: table full or out of memory */
    uint64_t engine_errors;    /* re-traits the engine refused */
    size_t memory_bytes;
};

/* Copies the totals into *out. Thread: any; takes the table lock. */
void fsc_link_speeds_stats(struct fsc_link_speeds *ls, struct fsc_link_speeds_stats *out);

/* Calls fn(arg, device, port, byte_series) for the first `max` ports, in
 * order of first sight, that have a port-bytes series and no speed
 * (byte_series: how many such series the port has); the names are borrowed
 * for the call. Returns how many such ports there are in all (max or more
 * when rows were left out). fn must not call into the table.
 * Thread: any; takes the table lock for the walk. */
size_t fsc_link_speeds_each_unknown(struct fsc_link_speeds *ls, size_t max,
                                    void (*fn)(void *arg, const char *device, const char *port,
                                               uint32_t byte_series),
                                    void *arg);

/* Calls fn(arg, device, ports_unknown) once per device of the table that
 * has a port with a port-bytes series (ports_unknown may be 0), in order of
 * first sight. Returns the number of calls. fn must not call into the
 * table. Thread: any; takes the table lock for the walk. */
size_t fsc_link_speeds_each_device(struct fsc_link_speeds *ls,
                                   void (*fn)(void *arg, const char *device,
                                              uint32_t ports_unknown),
                                   void *arg);

#endif
