/* The daemon view (plugin/sink.h): what the sinks that present state (the
 * Prometheus exporter, the status page) read of the running daemon. No
 * callback knows a plugin: sources and sinks report through their stats
 * tables, health through their ops. Every callback runs on an HTTP thread,
 * concurrently with reloads: sources are read under the sources' read lock
 * (daemon_reload.h). */
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/daemon_state.h"
#include "daemon/plugins.h"
#include "base/log.h"
#include "engine/engine.h"
#include "engine/link_speed.h"
#include "net/http_route.h"

/* ---- the daemon's own tables --------------------------------------------------- */

enum { SH_INFO, SH_OWNED, SH_SKIPPED, SH__COUNT };

static const struct fsc_stat_col shard_cols[SH__COUNT] = {
    [SH_INFO] = {.id = "info",
                 .family = "fabricscope_shard_info",
                 .type = FSC_STAT_GAUGE,
                 .help = "This collector's shard: index of count (md5 hashmod of the device "
                         "name). Always 1."},
    [SH_OWNED] = {.id = "owned",
                  .family = "fabricscope_shard_sources",
                  .type = FSC_STAT_GAUGE,
                  .help = "Configured sources this collector runs (owned) or leaves to other "
                          "shards (skipped).",
                  .label = "state",
                  .label_value = "owned",
                  .title = "sources owned"},
    [SH_SKIPPED] = {.id = "skipped",
                    .family = "fabricscope_shard_sources",
                    .type = FSC_STAT_GAUGE,
                    .label = "state",
                    .label_value = "skipped",
                    .title = "skipped"},
};

/* fabricscope_shard_sources carries only `state`: it is its own table. */
static const struct fsc_stat_table shard_table = {
    .id = "shard",
    .title = "Shard",
    .empty = "",
    .keys = {"index", "count", NULL},
    .cols = shard_cols,
    .n_cols = 1,
};

static const struct fsc_stat_table shard_sources_table = {
    .id = "shard_sources",
    .title = "Shard",
    .empty = "",
    .keys = {NULL},
    .cols = shard_cols + 1,
    .n_cols = 2,
};

enum { RL_OK, RL_ERROR, RL_LAST, RL__COUNT };

static const struct fsc_stat_col reload_cols[RL__COUNT] = {
    [RL_OK] = {.id = "reloads_ok",
               .family = "fabricscope_config_reloads",
               .type = FSC_STAT_COUNTER,
               .help = "Configuration reloads (SIGHUP) by result.",
               .label = "result",
               .label_value = "ok",
               .title = "reloads"},
    [RL_ERROR] = {.id = "reloads_error",
                  .family = "fabricscope_config_reloads",
                  .type = FSC_STAT_COUNTER,
                  .label = "result",
                  .label_value = "error",
                  .title = "failed reloads"},
    [RL_LAST] = {.id = "last_reload_success_timestamp_seconds",
                 .family = "fabricscope_config_last_reload_success_timestamp_seconds",
                 .type = FSC_STAT_GAUGE,
                 .help = "Unix time of the last successful configuration load (start or reload).",
                 .title = "last load",
                 .unit = FSC_STAT_TIME_S},
};

static const struct fsc_stat_table reload_table = {
    .id = "config",
    .title = "Configuration",
    .empty = "",
    .keys = {NULL},
    .cols = reload_cols,
    .n_cols = RL__COUNT,
};

/* Devices whose counters the profile says are copied on a timer: their
 * series by the cadence each learned (docs/DESIGN.md, rate rule 5). */
enum { CC_PERIOD, CC_LEARNING, CC_LIVE, CC_COPIED, CC__COUNT };

static const struct fsc_stat_col cadence_cols[CC__COUNT] = {
    [CC_PERIOD] = {.id = "copy_period_seconds", .title = "copy period", .unit = FSC_STAT_SECONDS},
    [CC_LEARNING] = {.id = "learning",
                     .family = "fabricscope_cadence_series",
                     .type = FSC_STAT_GAUGE,
                     .help = "Series of devices whose profile copies counters on a timer, by the "
                             "cadence each learned from its values: learning (not yet shown; "
                             "read as copied), live (true at its samples), copied (true at the "
                             "copies).",
                     .label = "cadence",
                     .label_value = "learning",
                     .title = "learning"},
    [CC_LIVE] = {.id = "live",
                 .family = "fabricscope_cadence_series",
                 .type = FSC_STAT_GAUGE,
                 .label = "cadence",
                 .label_value = "live",
                 .title = "live"},
    [CC_COPIED] = {.id = "copied",
                   .family = "fabricscope_cadence_series",
                   .type = FSC_STAT_GAUGE,
                   .label = "cadence",
                   .label_value = "copied",
                   .title = "copied"},
};

static const struct fsc_stat_table cadence_table = {
    .id = "cadence",
    .title = "Counter cadence",
    .empty = "no device copies its counters on a timer",
    .keys = {"device", NULL},
    .cols = cadence_cols,
    .n_cols = CC__COUNT,
};

/* Ports that have byte counters and no link speed (engine/link_speed.h):
 * neither the topology nor the device gives one, so they have no
 * utilization and no microburst detection. Counted per source and device
 * (the metric and the API: a row of 0 per device would only crowd the
 * page); listed by name up to SPEED_ROWS_MAX ports per source (the page and
 * the API). */
#define SPEED_ROWS_MAX 64

static const struct fsc_stat_col speed_count_cols[1] = {
    {.id = "ports",
     .family = "fabricscope_ports_without_speed",
     .type = FSC_STAT_GAUGE,
     .help = "Ports with byte counters but no link speed from the topology or the device "
             "(no utilization, no microburst detection), per source and device."},
};

static const struct fsc_stat_table speed_count_table = {
    .id = "ports_without_speed",
    .title = "Ports without a link speed, per device",
    .empty = "",
    .keys = {"source", "device", NULL},
    .cols = speed_count_cols,
    .n_cols = 1,
};

static const struct fsc_stat_col speed_port_cols[1] = {
    {.id = "byte_series", .title = "byte series"},
};

static const struct fsc_stat_table speed_port_table = {
    .id = "port_speed_unknown",
    .title = "Ports without a link speed",
    .empty = "every port with byte counters has a link speed",
    .keys = {"source", "device", "port", NULL},
    .cols = speed_port_cols,
    .n_cols = 1,
};

/* What a source's link-speed table could not follow (engine/link_speed.h:
 * ports past its bound get the topology's speed only, series past it keep
 * the speed they were created with). */
enum { LS_PORTS, LS_SERIES, LS__COUNT };

static const struct fsc_stat_col speed_limit_cols[LS__COUNT] = {
    [LS_PORTS] = {.id = "untracked_ports",
                  .family = "fabricscope_link_speed_untracked",
                  .type = FSC_STAT_COUNTER,
                  .help = "Ports (what=ports) and series (what=series) a source's link-speed "
                          "table refused: past its bound (16384 ports, 262144 series or the "
                          "source's max_series) or out of memory. Such a port keeps the "
                          "topology's speed; such a series the speed it was created with.",
                  .label = "what",
                  .label_value = "ports"},
    [LS_SERIES] = {.id = "untracked_series",
                   .family = "fabricscope_link_speed_untracked",
                   .type = FSC_STAT_COUNTER,
                   .label = "what",
                   .label_value = "series"},
};

static const struct fsc_stat_table speed_limit_table = {
    .id = "link_speed_untracked",
    .title = "Link speeds not followed",
    .empty = "",
    .keys = {"source", NULL},
    .cols = speed_limit_cols,
    .n_cols = LS__COUNT,
};

static const struct fsc_stat_table *const daemon_tables[] = {
    &shard_table,       &shard_sources_table, &reload_table,      &cadence_table,
    &speed_count_table, &speed_port_table,    &speed_limit_table, NULL};

const struct fsc_stat_table *const *fsc_daemon_stat_tables(void)
{
    return daemon_tables;
}

/* One row per copy group (engine lock per group, not the sources' lock). */
static void cadence_stats(struct fsc_engine *eng, const struct fsc_stats_out *out)
{
    uint32_t n = fsc_engine_copy_group_count(eng);
    for (uint32_t i = 0; i < n; i++) {
        struct fsc_copy_group_view g;
        if (fsc_engine_copy_group_view(eng, i, &g) != 0)
            continue;
        const char *keys[] = {g.device};
        const double v[CC__COUNT] = {
            [CC_PERIOD] = (double)g.period_ns / 1e9,
            [CC_LEARNING] = g.series[FSC_CADENCE_LEARNING],
            [CC_LIVE] = g.series[FSC_CADENCE_LIVE],
            [CC_COPIED] = g.series[FSC_CADENCE_COPIED],
        };
        fsc_stats_row(out, &cadence_table, keys, v, NULL);
    }
}

/* What the link-speed callbacks write with. */
struct speed_rows {
    const struct fsc_stats_out *out;
    const char *source;
};

static void speed_device_row(void *arg, const char *device, uint32_t ports_unknown)
{
    const struct speed_rows *sr = arg;
    const char *keys[] = {sr->source, device};
    const double v[1] = {ports_unknown};
    fsc_stats_row(sr->out, &speed_count_table, keys, v, NULL);
}

static void speed_port_row(void *arg, const char *device, const char *port, uint32_t byte_series)
{
    const struct speed_rows *sr = arg;
    const char *keys[] = {sr->source, device, port};
    const double v[1] = {byte_series};
    fsc_stats_row(sr->out, &speed_port_table, keys, v, NULL);
}

/* Every running source's ports without a link speed. Under the sources'
 * read lock (a table lives as long as its instance). */
static void speed_stats(const struct fsc_dsources *s, const struct fsc_stats_out *out)
{
    for (size_t i = 0; i < s->n_run; i++) {
        const struct fsc_drun *rs = s->run[i];
        struct speed_rows sr = {out, rs->cfg->name};
        fsc_link_speeds_each_device(rs->env.speeds, speed_device_row, &sr);
        fsc_link_speeds_each_unknown(rs->env.speeds, SPEED_ROWS_MAX, speed_port_row, &sr);
        struct fsc_link_speeds_stats st;
        fsc_link_speeds_stats(rs->env.speeds, &st);
        const char *keys[] = {rs->cfg->name};
        const double v[LS__COUNT] = {(double)st.untracked_ports, (double)st.untracked_series};
        fsc_stats_row(out, &speed_limit_table, keys, v, NULL);
    }
}

/* Under the sources' read lock. */
static void daemon_stats(const struct fsc_dsources *s, const struct fsc_stats_out *out)
{
    char index[12], count[12];
    snprintf(index, sizeof(index), "%u", (unsigned)s->shard.index);
    snprintf(count, sizeof(count), "%u", (unsigned)s->shard.count);
    const char *keys[] = {index, count};
    const double info[1] = {1};
    fsc_stats_row(out, &shard_table, keys, info, NULL);
    const double shard[2] = {(double)s->owned, (double)s->skipped};
    fsc_stats_row(out, &shard_sources_table, NULL, shard, NULL);
    const double rl[RL__COUNT] = {(double)s->reloads_ok, (double)s->reloads_error, s->last_ok_s};
    fsc_stats_row(out, &reload_table, NULL, rl, NULL);
}

/* ---- the view's callbacks --------------------------------------------------------- */

static size_t running_sinks(struct daemon *d)
{
    return atomic_load_explicit(&d->n_sinks, memory_order_acquire);
}

static void view_stats(void *arg, const struct fsc_stats_out *out)
{
    struct daemon *d = arg;
    fsc_dsources_read_lock(&d->src);
    for (size_t i = 0; i < d->src.n_run; i++) {
        const struct fsc_drun *rs = d->src.run[i];
        if (rs->ops->stats && rs->ctx)
            rs->ops->stats(rs->ctx, out);
    }
    daemon_stats(&d->src, out);
    speed_stats(&d->src, out);
    fsc_dsources_read_unlock(&d->src);
    cadence_stats(d->eng, out);
    size_t n = running_sinks(d);
    for (size_t i = 0; i < n; i++)
        if (d->sinks[i].ops->stats && d->sinks[i].ctx)
            d->sinks[i].ops->stats(d->sinks[i].ctx, out);
}

/* A source is up while it runs and, when its type can tell, is healthy. */
static int source_up(const struct fsc_drun *rs)
{
    if (!rs)
        return 0;
    return rs->ops->healthy ? rs->ops->healthy(rs->ctx) : 1;
}

static size_t view_sources(void *arg, struct fsc_source_status *out, size_t cap)
{
    struct daemon *d = arg;
    fsc_dsources_read_lock(&d->src);
    size_t n = d->src.n_view;
    for (size_t i = 0; i < n && i < cap; i++) {
        const struct fsc_source_config *sc = &d->src.view_sources[i];
        struct fsc_source_status *st = &out[i];
        memset(st, 0, sizeof(*st));
        snprintf(st->name, sizeof(st->name), "%s", sc->name);
        snprintf(st->type, sizeof(st->type), "%s", sc->kind->name);
        st->state = sc->enabled ? "unavailable" : "disabled";
        const struct fsc_drun *rs = fsc_dsources_find(&d->src, sc->name);
        if (rs) {
            struct fsc_registry_source_stats ss;
            st->state = "running";
            if (fsc_registry_source_stats(d->reg, rs->env.source_id, &ss) == 0)
                st->series = ss.series;
        }
        st->up = source_up(rs);
    }
    fsc_dsources_read_unlock(&d->src);
    return n;
}

static size_t view_routes(void *arg, struct fsc_http_route *out, size_t cap)
{
    struct daemon *d = arg;
    size_t total = 0, n = running_sinks(d);
    for (size_t i = 0; i < n && total < cap; i++)
        if (d->sinks[i].ops->routes && d->sinks[i].ctx)
            total += d->sinks[i].ops->routes(d->sinks[i].ctx, out + total, cap - total);
    return total;
}

static int view_ready(void *arg)
{
    struct daemon *d = arg;
    return atomic_load(&d->ready);
}

void fsc_daemon_view_init(struct daemon *d)
{
    d->view = (struct fsc_daemon_view){
        .tables = fsc_app_tables(daemon_tables),
        .stats = view_stats,
        .sources = view_sources,
        .routes = view_routes,
        .ready = view_ready,
        .arg = d,
    };
}
