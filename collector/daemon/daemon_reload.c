/* The daemon's running sources: start by shard, reload on SIGHUP, stop
 * (daemon_reload.h has the locking and lifetime rules; docs/CONFIG.md
 * "Reloading" what a reload changes).
 *
 * A reload diffs sources by name. Removed, disabled, moved to another shard
 * or changed in any key: stopped (and started again when still ours).
 * Unchanged: untouched, its instance keeps running on the config it was
 * started from. "Changed" compares the effective config as check-config
 * prints it (marks, i.e. where in the file, do not count) plus the values
 * of inline secrets, which print as <redacted>. */
#include "daemon/daemon_reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "config/config_decode.h"
#include "base/log.h"
#include "daemon/plugins.h"
#include "daemon/run_listen.h"
#include "model/shard.h"
#include "model/topology_keys.h"

struct fsc_dgen {
    const struct fsc_config *cfg;
    struct fsc_config *owned;       /* cfg when loaded by a reload; NULL for the first */
    struct fsc_source_config *mine; /* shallow copies of the sources of this shard */
    size_t n_mine;
    uint32_t skipped;
    unsigned users; /* running sources started from it, + 1 while current */
    struct fsc_dgen *next;
};

static const struct fsc_shard_config *shard_of(const struct fsc_config *cfg)
{
    return fsc_shard_config_of(cfg);
}

static bool in_shard(const struct fsc_config *cfg, const struct fsc_source_config *sc)
{
    const char *key = fsc_shard_key(sc);
    return !key || fsc_shard_owns(shard_of(cfg)->index, shard_of(cfg)->count, key);
}

static void gen_free(struct fsc_dgen *g)
{
    if (!g)
        return;
    fsc_config_destroy(g->owned);
    free(g->mine);
    free(g);
}

/* A generation for cfg (owned: cfg again when the set is to free it), with
 * one user (current), linked into s->gens. NULL on allocation failure. */
static struct fsc_dgen *gen_create(struct fsc_dsources *s, const struct fsc_config *cfg,
                                   struct fsc_config *owned)
{
    struct fsc_dgen *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->mine = calloc(cfg->n_sources ? cfg->n_sources : 1, sizeof(*g->mine));
    if (!g->mine) {
        free(g);
        return NULL;
    }
    g->cfg = cfg;
    g->owned = owned;
    for (size_t i = 0; i < cfg->n_sources; i++) {
        if (in_shard(cfg, &cfg->sources[i]))
            g->mine[g->n_mine++] = cfg->sources[i];
        else
            g->skipped++;
    }
    g->users = 1;
    g->next = s->gens;
    s->gens = g;
    return g;
}

static void gen_release(struct fsc_dsources *s, struct fsc_dgen *g)
{
    if (!g || --g->users > 0)
        return;
    for (struct fsc_dgen **pp = &s->gens; *pp; pp = &(*pp)->next) {
        if (*pp == g) {
            *pp = g->next;
            break;
        }
    }
    gen_free(g);
}

/* ---- one source ------------------------------------------------------------ */

/* The registry source named `name`: registered now, or the one a previous
 * instance of the same name registered (a restarted source keeps its id, so
 * its series continue; the series limit stays the first one's). */
static int registry_source(struct fsc_registry *reg, const struct fsc_source_config *sc,
                           uint16_t *id)
{
    int rc = fsc_registry_source_add(reg, sc->name, sc->max_series, id);
    if (rc != -EEXIST)
        return rc;
    for (uint16_t i = 0; i < fsc_registry_source_count(reg); i++) {
        struct fsc_registry_source_stats ss;
        if (fsc_registry_source_stats(reg, i, &ss) == 0 && strcmp(ss.name, sc->name) == 0) {
            *id = i;
            return 0;
        }
    }
    return -ENOENT;
}

/* Starts sc from generation g into a new instance. Returns 1 and *out,
 * 0 when nothing is to run (disabled, not built: logged), -1 with err. */
static int run_start(struct fsc_dsources *s, struct fsc_dgen *g, const struct fsc_source_config *sc,
                     struct fsc_drun **out, char *err, size_t errlen)
{
    const char *type = sc->kind->name;
    if (!sc->enabled) {
        fsc_log(FSC_LOG_INFO, "source_disabled", "source=%s type=%s", sc->name, type);
        return 0;
    }
    const struct fsc_source_ops *ops = fsc_app_source_ops(sc->kind);
    if (!ops) {
        fsc_log(FSC_LOG_WARN, "source_unavailable",
                "source=%s type=%s reason=\"type not built in this version\"", sc->name, type);
        return 0;
    }
    struct fsc_drun *rs = calloc(1, sizeof(*rs));
    if (!rs) {
        snprintf(err, errlen, "source %s: out of memory", sc->name);
        return -1;
    }
    rs->cfg = sc;
    rs->gen = g;
    rs->ops = ops;
    rs->env.reg = s->reg;
    rs->env.eng = s->eng;
    rs->env.topo = fsc_topology_of(s->first); /* topology changes need a restart */
    rs->env.shard_index = shard_of(g->cfg)->index;
    rs->env.shard_count = shard_of(g->cfg)->count;
    rs->env.profiles = fsc_app_profiles();
    rs->env.profile = fsc_profile_find(rs->env.profiles, sc->profile);
    if (sc->profile && !rs->env.profile) {
        snprintf(err, errlen, "source %s: unknown profile %s", sc->name, sc->profile);
        free(rs);
        return -1;
    }
    int rc = registry_source(s->reg, sc, &rs->env.source_id);
    if (rc != 0) {
        snprintf(err, errlen, "source %s: cannot register: %s", sc->name, strerror(-rc));
        free(rs);
        return -1;
    }
    /* Its series are at most max_series; its ports fewer still. */
    uint32_t max_series = sc->max_series && sc->max_series < FSC_LINK_SPEED_SERIES_MAX
                              ? sc->max_series
                              : FSC_LINK_SPEED_SERIES_MAX;
    rs->env.speeds =
        fsc_link_speeds_create(s->eng, rs->env.topo, FSC_LINK_SPEED_PORTS_MAX, max_series);
    if (!rs->env.speeds) {
        snprintf(err, errlen, "source %s: out of memory", sc->name);
        free(rs);
        return -1;
    }
    char serr[512];
    rs->ctx = ops->start(sc, &rs->env, serr, sizeof(serr));
    if (!rs->ctx) {
        snprintf(err, errlen, "source %s (%s): %s", sc->name, type, serr);
        fsc_link_speeds_destroy(rs->env.speeds);
        free(rs);
        return -1;
    }
    g->users++;
    fsc_log(FSC_LOG_INFO, "source_started", "source=%s type=%s", sc->name, type);
    *out = rs;
    return 1;
}

/* Tells every instance of rs[0 .. n) to begin stopping (the ops that can:
 * stop_begin), so that the run_stop calls after it wait for them all at
 * once rather than one after the other. */
static void run_stop_begin(struct fsc_drun *const *rs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rs[i]->ops->stop_begin)
            rs[i]->ops->stop_begin(rs[i]->ctx);
}

/* Stops and frees an instance that is no longer in s->run. */
static void run_stop(struct fsc_dsources *s, struct fsc_drun *rs, const char *why)
{
    rs->ops->stop(rs->ctx);
    if (why)
        fsc_log(FSC_LOG_INFO, "source_stopped", "source=%s reason=%s", rs->cfg->name, why);
    else
        fsc_log(FSC_LOG_INFO, "source_stopped", "source=%s", rs->cfg->name);
    fsc_link_speeds_destroy(rs->env.speeds); /* after stop: no thread uses it */
    gen_release(s, rs->gen);
    free(rs);
}

/* Appends a started instance (capacity reserved by the caller). */
static void run_add(struct fsc_dsources *s, struct fsc_drun *rs)
{
    pthread_rwlock_wrlock(&s->lock);
    s->run[s->n_run++] = rs;
    pthread_rwlock_unlock(&s->lock);
}

/* Logs a source another shard owns (once per load that newly skips it). */
static void log_skipped(const struct fsc_config *cfg, const struct fsc_source_config *sc)
{
    const char *key = fsc_shard_key(sc);
    fsc_log(FSC_LOG_INFO, "source_skipped", "source=%s type=%s key=%s shard=%u/%u owner=%u",
            sc->name, sc->kind->name, key, (unsigned)shard_of(cfg)->index,
            (unsigned)shard_of(cfg)->count, (unsigned)fsc_shard_of(key, shard_of(cfg)->count));
}

/* Under the write lock: the view and counters follow generation g. */
static void view_set(struct fsc_dsources *s, const struct fsc_dgen *g)
{
    s->view_sources = g->mine;
    s->n_view = g->n_mine;
    s->shard = *shard_of(g->cfg);
    s->owned = (uint32_t)g->n_mine;
    s->skipped = g->skipped;
}

int fsc_dsources_start(struct fsc_dsources *s, const struct fsc_config *cfg,
                       struct fsc_registry *reg, struct fsc_engine *eng, char *err, size_t errlen)
{
    s->first = cfg;
    s->reg = reg;
    s->eng = eng;
    if (pthread_rwlock_init(&s->lock, NULL) != 0) {
        snprintf(err, errlen, "cannot create the sources lock");
        return -1;
    }
    s->lock_ready = true;
    struct fsc_dgen *g = gen_create(s, cfg, NULL);
    s->run = calloc(cfg->n_sources ? cfg->n_sources : 1, sizeof(*s->run));
    if (!g || !s->run) {
        snprintf(err, errlen, "out of memory starting sources");
        return -1;
    }
    s->cur = g;
    view_set(s, g);
    fsc_log(FSC_LOG_INFO, "shard", "index=%u count=%u from=%s owned=%u skipped=%u",
            (unsigned)s->shard.index, (unsigned)s->shard.count,
            s->shard.from_cli ? "cli" : "config", (unsigned)g->n_mine, (unsigned)g->skipped);
    for (size_t i = 0; i < cfg->n_sources; i++) {
        const struct fsc_source_config *sc = &cfg->sources[i];
        struct fsc_drun *rs;
        if (!in_shard(cfg, sc)) {
            log_skipped(cfg, sc);
            continue;
        }
        int rc = run_start(s, g, sc, &rs, err, errlen);
        if (rc < 0)
            return -1;
        if (rc > 0)
            run_add(s, rs);
    }
    s->last_ok_s = (double)fsc_now_ns() / 1e9;
    return 0;
}

void fsc_dsources_stop(struct fsc_dsources *s)
{
    if (!s->lock_ready)
        return;
    /* Leave the array empty before stopping (readers may still look). */
    pthread_rwlock_wrlock(&s->lock);
    struct fsc_drun **run = s->run;
    size_t n = s->n_run;
    s->run = NULL;
    s->n_run = 0;
    s->view_sources = NULL;
    s->n_view = 0;
    pthread_rwlock_unlock(&s->lock);
    run_stop_begin(run, n);
    for (size_t i = n; i-- > 0;)
        run_stop(s, run[i], NULL);
    free(run);
    while (s->gens) {
        struct fsc_dgen *g = s->gens;
        s->gens = g->next;
        gen_free(g);
    }
    s->cur = NULL;
    pthread_rwlock_destroy(&s->lock);
    s->lock_ready = false;
}

void fsc_dsources_read_lock(struct fsc_dsources *s)
{
    pthread_rwlock_rdlock(&s->lock);
}

void fsc_dsources_read_unlock(struct fsc_dsources *s)
{
    pthread_rwlock_unlock(&s->lock);
}

const struct fsc_drun *fsc_dsources_find(const struct fsc_dsources *s, const char *name)
{
    for (size_t i = 0; i < s->n_run; i++)
        if (strcmp(s->run[i]->cfg->name, name) == 0)
            return s->run[i];
    return NULL;
}

/* ---- comparing configs ------------------------------------------------------ */

/* The printed config without sources (what a reload can apply), or NULL. */
static char *fixed_text(const struct fsc_config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = fsc_config_print_parts(cfg, FSC_CONFIG_PART_ROOT | FSC_CONFIG_PART_EXPORTERS, f);
    if (fclose(f) != 0 || rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The top-level section `name` of a printout: from its "name:" line at
 * column 0 to the next such line. NULL when absent. */
static const char *section(const char *text, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, name, nl) != 0 || p[nl] != ':')
            continue;
        const char *e = p;
        while ((e = strchr(e, '\n')) != NULL && e[1] && (e[1] == ' ' || e[1] == '-'))
            e++;
        *len = e ? (size_t)(e - p) : strlen(p);
        return p;
    }
    return NULL;
}

/* Logs the sections that differ from the running (first) config: they need
 * a restart. */
static void warn_restart(const struct fsc_config *first, const struct fsc_config *next)
{
    /* Every root key but sources and shard (a reload applies those). */
    const char *names[FSC_CONFIG_MAX_SECTIONS + 4] = {"log", "exporters", "state_dir"};
    size_t n_names = 3;
    const struct fsc_config_kind *const *sections = first->schema->sections;
    for (size_t i = 0; sections && sections[i] && n_names < FSC_NELEM(names); i++)
        if (sections[i] != &fsc_shard_kind)
            names[n_names++] = sections[i]->name;
    char *a = fixed_text(first), *b = fixed_text(next);
    char diff[256] = "";
    if (!a || !b) {
        snprintf(diff, sizeof(diff), "unknown");
    } else {
        for (size_t i = 0; i < n_names; i++) {
            size_t la = 0, lb = 0;
            const char *sa = section(a, names[i], &la), *sb = section(b, names[i], &lb);
            if ((sa == NULL) != (sb == NULL) || la != lb || (sa && memcmp(sa, sb, la) != 0))
                snprintf(diff + strlen(diff), sizeof(diff) - strlen(diff), "%s%s",
                         diff[0] ? "," : "", names[i]);
        }
    }
    free(a);
    free(b);
    if (diff[0])
        fsc_log(FSC_LOG_WARN, "reload_needs_restart",
                "sections=%s reason=\"changes to these are ignored until the next start\"", diff);
}

/* ---- reload ------------------------------------------------------------------ */

static void reload_failed(struct fsc_dsources *s, const char *path, const char *why)
{
    char q[1200];
    pthread_rwlock_wrlock(&s->lock);
    s->reloads_error++;
    pthread_rwlock_unlock(&s->lock);
    fsc_log(FSC_LOG_ERROR, "reload_failed", "config=%s reason=%s kept=running", path,
            fsc_log_quote(why, q, sizeof(q)));
}

/* Why a running instance cannot stay under the new config, or NULL. */
static const char *stop_reason(const struct fsc_drun *rs, const struct fsc_config *next,
                               bool shard_changed)
{
    const struct fsc_source_config *nsc = fsc_config_source(next, rs->cfg->name);
    if (!nsc)
        return "removed";
    if (!nsc->enabled)
        return "disabled";
    if (!in_shard(next, nsc))
        return "other_shard";
    if (!fsc_config_source_equal(rs->cfg, nsc))
        return "changed";
    /* Per-point filtering was set up with the old shard. */
    if (shard_changed && nsc->kind->shard == FSC_SHARD_BY_POINT)
        return "shard_changed";
    return NULL;
}

/* What ran before a reload stopped it: its settings and their generation
 * (a reference held until the reload ends, so the settings stay alive). */
struct prev_run {
    const struct fsc_source_config *cfg;
    struct fsc_dgen *gen;
};

/* A changed source whose new settings fail to start (a port in use, a
 * certificate that does not load) runs on with the settings it was running
 * with when this reload stopped it: the last *running* settings, whatever
 * number of failed reloads came between (those made their config current
 * but never ran it). Returns "previous" when that worked, else
 * "none" (it was not running, or its settings are the new ones, or they
 * fail to start again). */
static const char *restart_previous(struct fsc_dsources *s, const struct prev_run *prev,
                                    size_t n_prev, const struct fsc_source_config *sc)
{
    const struct prev_run *p = NULL;
    for (size_t i = 0; i < n_prev && !p; i++)
        if (strcmp(prev[i].cfg->name, sc->name) == 0)
            p = &prev[i];
    struct fsc_drun *rs;
    char err[1024];
    if (!p || fsc_config_source_equal(p->cfg, sc))
        return "none";
    if (run_start(s, p->gen, p->cfg, &rs, err, sizeof(err)) <= 0) {
        char q[1100];
        fsc_log(FSC_LOG_ERROR, "source_failed", "source=%s reason=%s settings=previous", sc->name,
                fsc_log_quote(err, q, sizeof(q)));
        return "none";
    }
    run_add(s, rs);
    return "previous";
}

void fsc_dsources_reload(struct fsc_dsources *s, const char *path)
{
    char err[1024];
    fsc_log(FSC_LOG_INFO, "reload", "config=%s", path);
    struct fsc_config *next = fsc_config_load(path, s->first->schema, err, sizeof(err));
    if (!next) {
        reload_failed(s, path, err);
        return;
    }
    struct fsc_shard_config *next_shard = fsc_config_section_mut(next, &fsc_shard_kind);
    if (shard_of(s->first)->from_cli)
        *next_shard = *shard_of(s->first);
    fsc_run_listen_carry(s->first, next);
    struct fsc_dgen *old = s->cur;
    struct fsc_dgen *g = gen_create(s, next, next);
    size_t cap = s->n_run + next->n_sources + 1;
    struct fsc_drun **run = calloc(cap, sizeof(*run));
    struct fsc_drun **gone = calloc(s->n_run + 1, sizeof(*gone));
    const char **why = calloc(s->n_run + 1, sizeof(*why));
    struct prev_run *was = calloc(s->n_run + 1, sizeof(*was));
    if (!g || !run || !gone || !why || !was) {
        free(run);
        free(gone);
        free(why);
        free(was);
        if (g)
            gen_release(s, g); /* frees next too */
        else
            fsc_config_destroy(next);
        reload_failed(s, path, "out of memory");
        return;
    }
    warn_restart(s->first, next);
    bool shard_changed = shard_of(old->cfg)->index != next_shard->index ||
                         shard_of(old->cfg)->count != next_shard->count;

    /* 1. Instances that cannot stay leave the array, then stop. */
    size_t n_keep = 0, n_gone = 0;
    for (size_t i = 0; i < s->n_run; i++) {
        const char *w = stop_reason(s->run[i], next, shard_changed);
        if (w) {
            why[n_gone] = w;
            gone[n_gone++] = s->run[i];
        } else {
            run[n_keep++] = s->run[i];
        }
    }
    pthread_rwlock_wrlock(&s->lock);
    struct fsc_drun **prev = s->run;
    s->run = run;
    s->n_run = n_keep;
    pthread_rwlock_unlock(&s->lock);
    free(prev);
    size_t removed = 0;
    run_stop_begin(gone, n_gone);
    for (size_t i = 0; i < n_gone; i++) {
        removed += strcmp(why[i], "removed") == 0;
        was[i] = (struct prev_run){gone[i]->cfg, gone[i]->gen};
        was[i].gen->users++; /* its settings outlive the instance until the reload ends */
        run_stop(s, gone[i], why[i]);
    }

    /* 2. Sources of this shard that do not run yet start. */
    size_t started = 0, failed = 0;
    for (size_t i = 0; i < next->n_sources; i++) {
        const struct fsc_source_config *sc = &next->sources[i];
        struct fsc_drun *rs;
        if (!in_shard(next, sc)) {
            const struct fsc_source_config *osc = fsc_config_source(old->cfg, sc->name);
            if (shard_changed || !osc || !fsc_config_source_equal(osc, sc))
                log_skipped(next, sc);
            continue;
        }
        if (fsc_dsources_find(s, sc->name))
            continue; /* unchanged: untouched */
        int rc = run_start(s, g, sc, &rs, err, sizeof(err));
        if (rc > 0) {
            run_add(s, rs);
            started++;
        } else if (rc < 0) {
            char q[1100];
            failed++;
            fsc_log(FSC_LOG_ERROR, "source_failed", "source=%s reason=%s kept=%s", sc->name,
                    fsc_log_quote(err, q, sizeof(q)), restart_previous(s, was, n_gone, sc));
        }
    }

    /* 3. The new config becomes current. */
    pthread_rwlock_wrlock(&s->lock);
    s->cur = g;
    view_set(s, g);
    s->reloads_ok++;
    s->last_ok_s = (double)fsc_now_ns() / 1e9;
    pthread_rwlock_unlock(&s->lock);
    gen_release(s, old);
    for (size_t i = 0; i < n_gone; i++)
        gen_release(s, was[i].gen);
    free(gone);
    free(why);
    free(was);
    fsc_log(failed ? FSC_LOG_WARN : FSC_LOG_INFO, "reloaded",
            "config=%s shard=%u/%u sources=%zu running=%zu unchanged=%zu stopped=%zu "
            "removed=%zu started=%zu failed=%zu",
            path, (unsigned)next_shard->index, (unsigned)next_shard->count, next->n_sources,
            s->n_run, n_keep, n_gone, removed, started, failed);
}
