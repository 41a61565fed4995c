/* Uplink imbalance over port groups (docs/DESIGN.md, "Detectors and events").
 *
 * A group is a leaf's uplinks or a B300 node's 16 interfaces. ECMP / DLB that
 * works spreads load evenly, so max/mean utilization per aligned window is
 * near 1; a hashing problem or a mis-cabled rail shows as one member carrying
 * far more than the rest. Aligned windows (not fine intervals) are compared
 * because members are sampled at different instants: only windows cut at the
 * same epoch-aligned edges are comparable.
 *
 * Members report their window of level cfg.imbalance.level as it completes,
 * in any order across members. Each member keeps its last IMB_RING windows, so
 * a member whose samples arrive a few windows late (batched device copies)
 * still lines up. A window is judged once every member has reported it,
 * except members that provably never will: those already past it (they
 * skipped it: baseline restart, long interval) and those silent for more than
 * IMB_RING windows (dead link, removed series). So one broken member can
 * neither wedge its group nor fake an imbalance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

#define IMB_RING 8
/* Judging a window scans the group: keep that scan small. */
#define IMB_MAX_MEMBERS 1024u

struct imb_member {
    int64_t t[IMB_RING]; /* window ends, ring, newest at head */
    float u[IMB_RING];   /* their utilization */
    fsc_series_id id;
    uint8_t n;    /* entries held */
    uint8_t head; /* index of the newest */
};

struct imb_group {
    struct imb_member *m;
    uint32_t n, cap;
    int64_t t_first;     /* first window end any member reported */
    int64_t t_eval;      /* last window end judged */
    int64_t t_run;       /* start of the first window of the current run above ratio */
    int64_t t_last_high; /* end of the last window above ratio */
    int64_t t_update;    /* last START / UPDATE */
    double ratio;        /* latest verdict; 0 = unknown or idle */
    double peak;         /* max ratio of the run / event */
    double mean_at_run;  /* mean utilization of the run's first window */
    uint64_t n_events;   /* STARTs published (the group view's `events`) */
    uint32_t streak;     /* consecutive windows above ratio */
    uint8_t active;      /* START published, END not yet */
    uint8_t reported;    /* some member reported a window */
    uint8_t judged;      /* t_eval is valid */
    uint8_t dir;         /* members' direction; DIR_MIXED when they differ */
    uint8_t dir_set;
};

#define DIR_MIXED 0xff

/* series id -> (group, member); a series may be in several groups. */
struct imb_ref {
    fsc_series_id id;
    uint32_t group;
    uint32_t member;
};

struct fsc_imb {
    uint32_t max_groups;
    struct imb_group **groups; /* n_groups slots, grown on demand */
    uint32_t n_groups;
    uint32_t n_used; /* one past the highest group index with a member */
    struct imb_ref *refs;
    uint32_t n_refs, cap_refs;
    uint32_t *index; /* open addressing over refs: ref + 1, 0 = empty; power of 2 */
    uint32_t index_cap;
    size_t bytes; /* member arrays and groups; the tables are counted on the fly */
};

static uint32_t id_hash(fsc_series_id id)
{
    return id * 2654435761u;
}

struct fsc_imb *fsc_imb_create(uint32_t max_groups)
{
    struct fsc_imb *imb = calloc(1, sizeof(*imb));
    if (!imb)
        return NULL;
    imb->max_groups = max_groups;
    return imb;
}

void fsc_imb_destroy(struct fsc_imb *imb)
{
    if (!imb)
        return;
    for (uint32_t g = 0; g < imb->n_groups; g++) {
        if (imb->groups[g])
            free(imb->groups[g]->m);
        free(imb->groups[g]);
    }
    free(imb->groups);
    free(imb->refs);
    free(imb->index);
    free(imb);
}

static int index_insert(uint32_t *index, uint32_t cap, const struct imb_ref *refs, uint32_t ref)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = id_hash(refs[ref].id) & mask, probes = 0; probes < cap;
         i = (i + 1) & mask, probes++) {
        if (index[i] == 0) {
            index[i] = ref + 1;
            return 0;
        }
    }
    return -ENOMEM; /* unreachable: the table is kept at most half full */
}

/* Keeps the index at most half full so probe chains stay short. */
static int index_reserve(struct fsc_imb *imb, uint32_t want_refs)
{
    if ((uint64_t)want_refs * 2 <= imb->index_cap)
        return 0;
    uint32_t cap = imb->index_cap ? imb->index_cap : 64;
    while ((uint64_t)want_refs * 2 > cap) {
        if (cap > UINT32_MAX / 2)
            return -ENOMEM;
        cap *= 2;
    }
    uint32_t *index = calloc(cap, sizeof(*index));
    if (!index)
        return -ENOMEM;
    for (uint32_t r = 0; r < imb->n_refs; r++)
        (void)index_insert(index, cap, imb->refs, r);
    free(imb->index);
    imb->index = index;
    imb->index_cap = cap;
    return 0;
}

static struct imb_group *group_get(struct fsc_imb *imb, uint32_t group)
{
    if (group >= imb->n_groups) {
        uint32_t n = imb->n_groups ? imb->n_groups : 16;
        while (n <= group)
            n = n > imb->max_groups / 2 ? imb->max_groups : n * 2;
        if (n > imb->max_groups)
            n = imb->max_groups; /* still > group: group < max_groups */
        struct imb_group **groups = realloc(imb->groups, (size_t)n * sizeof(*groups));
        if (!groups)
            return NULL;
        memset(groups + imb->n_groups, 0, (size_t)(n - imb->n_groups) * sizeof(*groups));
        imb->groups = groups;
        imb->n_groups = n;
    }
    if (!imb->groups[group]) {
        imb->groups[group] = calloc(1, sizeof(struct imb_group));
        if (!imb->groups[group])
            return NULL;
        imb->bytes += sizeof(struct imb_group);
    }
    return imb->groups[group];
}

/* Owns: grows the group and the index. Thread: ingest/setup, engine lock held. */
int fsc_imb_add(struct fsc_imb *imb, uint32_t group, fsc_series_id id)
{
    if (group >= imb->max_groups)
        return -ERANGE;
    /* Already a member? */
    if (imb->index_cap) {
        uint32_t mask = imb->index_cap - 1;
        for (uint32_t i = id_hash(id) & mask; imb->index[i]; i = (i + 1) & mask) {
            const struct imb_ref *ref = &imb->refs[imb->index[i] - 1];
            if (ref->id == id && ref->group == group)
                return 0;
        }
    }
    struct imb_group *g = group_get(imb, group);
    if (!g)
        return -ENOMEM;
    if (g->n >= IMB_MAX_MEMBERS || imb->n_refs == UINT32_MAX - 1)
        return -ENOMEM;
    if (index_reserve(imb, imb->n_refs + 1) != 0)
        return -ENOMEM;
    if (imb->n_refs == imb->cap_refs) {
        uint32_t cap = imb->cap_refs ? imb->cap_refs * 2 : 64;
        struct imb_ref *refs = realloc(imb->refs, (size_t)cap * sizeof(*refs));
        if (!refs)
            return -ENOMEM;
        imb->refs = refs;
        imb->cap_refs = cap;
    }
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 4;
        struct imb_member *m = realloc(g->m, (size_t)cap * sizeof(*m));
        if (!m)
            return -ENOMEM;
        imb->bytes += (size_t)(cap - g->cap) * sizeof(*m);
        g->m = m;
        g->cap = cap;
    }
    memset(&g->m[g->n], 0, sizeof(g->m[g->n]));
    g->m[g->n].id = id;
    imb->refs[imb->n_refs] = (struct imb_ref){.id = id, .group = group, .member = g->n};
    (void)index_insert(imb->index, imb->index_cap, imb->refs, imb->n_refs);
    imb->n_refs++;
    g->n++;
    if (group >= imb->n_used)
        imb->n_used = group + 1;
    return 0;
}

static int64_t member_newest(const struct imb_member *m)
{
    return m->t[m->head];
}

static bool member_has(const struct imb_member *m, int64_t t, double *u)
{
    for (unsigned k = 0, i = m->head; k < m->n; k++, i = (i + IMB_RING - 1) % IMB_RING) {
        if (m->t[i] == t) {
            *u = m->u[i];
            return true;
        }
    }
    return false;
}

static void group_publish(const struct fsc_det_ctx *ctx, const struct imb_group *g, uint32_t group,
                          enum fsc_event_phase phase, int64_t t_end)
{
    uint8_t dir = g->dir == DIR_MIXED ? FSC_DIR_NONE : g->dir;
    struct fsc_event ev = fsc_det_event(FSC_EV_UPLINK_IMBALANCE, phase, FSC_SERIES_NONE, dir);
    ev.group = group;
    ev.t_start_ns = g->t_run;
    ev.t_end_ns = t_end;
    fsc_event_add(&ev, FSC_EF_PEAK_IMBALANCE, g->peak);
    fsc_event_add(&ev, FSC_EF_WINDOWS_ABOVE, g->streak); /* windows above ratio so far */
    fsc_event_add(&ev, FSC_EF_MEAN_UTILIZATION_AT_START, g->mean_at_run);
    fsc_det_publish(ctx, &ev);
}

/* One judged window [t_end - w, t_end) with the members' mean and max. */
static void group_judge(const struct fsc_det_ctx *ctx, struct imb_group *g, uint32_t group,
                        int64_t t_end, int64_t w, double mean, double max)
{
    const struct fsc_imbalance_config *ic = &ctx->cfg->imbalance;

    g->t_eval = t_end;
    g->judged = 1;
    double ratio = mean > 0 && mean >= ic->min_mean_utilization ? max / mean : 0;
    g->ratio = ratio;
    if (ratio > ic->ratio) {
        /* A run needs consecutive windows; a skipped window restarts it (an
         * ongoing event is not ended by a window nobody could judge). */
        if (!g->active && (g->streak == 0 || g->t_last_high != t_end - w)) {
            g->streak = 0;
            g->t_run = t_end - w;
            g->peak = ratio;
            g->mean_at_run = mean;
        }
        if (g->streak < UINT32_MAX)
            g->streak++;
        if (ratio > g->peak)
            g->peak = ratio;
        g->t_last_high = t_end;
        if (!g->active && g->streak >= ic->windows) {
            g->active = 1;
            g->t_update = t_end;
            g->n_events++;
            group_publish(ctx, g, group, FSC_EV_START, 0);
        } else if (g->active && ctx->cfg->microburst.update_every_ns > 0 &&
                   t_end - g->t_update >= ctx->cfg->microburst.update_every_ns) {
            g->t_update = t_end;
            group_publish(ctx, g, group, FSC_EV_UPDATE, 0);
        }
        return;
    }
    /* Balanced again, or idle (no verdict): the run is over either way. */
    if (g->active)
        group_publish(ctx, g, group, FSC_EV_END, g->t_last_high);
    g->active = 0;
    g->streak = 0;
}

/* Judges window t_end if every member that can still report it has. */
static void group_try(const struct fsc_det_ctx *ctx, struct imb_group *g, uint32_t group,
                      int64_t t_end, int64_t w)
{
    double sum = 0, max = 0;
    unsigned have = 0;

    if (g->judged && t_end <= g->t_eval)
        return; /* judged (or given up) already */
    for (uint32_t k = 0; k < g->n; k++) {
        const struct imb_member *x = &g->m[k];
        double ux;
        if (member_has(x, t_end, &ux)) {
            sum += ux;
            if (ux > max)
                max = ux;
            have++;
            continue;
        }
        if (x->n > 0 && member_newest(x) > t_end)
            continue; /* skipped this window: it will never report it */
        int64_t last = x->n > 0 ? member_newest(x) : g->t_first;
        if (last < t_end - (int64_t)IMB_RING * w)
            continue; /* silent too long: judged without it */
        return;       /* still expected: wait for it */
    }
    if (have > 0)
        group_judge(ctx, g, group, t_end, w, sum / have, max);
}

static void group_report(const struct fsc_det_ctx *ctx, struct imb_group *g, uint32_t group,
                         struct imb_member *m, uint8_t dir, int64_t t_end, int64_t w, double util)
{
    bool had = m->n > 0;
    int64_t prev = had ? member_newest(m) : 0;

    if (had && t_end <= prev)
        return;
    m->head = (uint8_t)((m->head + 1) % IMB_RING);
    m->t[m->head] = t_end;
    m->u[m->head] = (float)util;
    if (m->n < IMB_RING)
        m->n++;
    if (!g->reported) {
        g->reported = 1;
        g->t_first = t_end;
    }
    if (!g->dir_set) {
        g->dir = dir;
        g->dir_set = 1;
    } else if (g->dir != dir) {
        g->dir = DIR_MIXED;
    }
    /* This member jumped over windows (baseline restart, long interval). The
     * others may be waiting for it on exactly those windows: they can be
     * judged without it now. Window ends are multiples of w, so the skipped
     * ones are prev + w, prev + 2w, ... (only the last IMB_RING can still be
     * in the other members' rings). */
    if (had && t_end - prev > w) {
        int64_t c = t_end - prev > (int64_t)IMB_RING * w ? t_end - (int64_t)IMB_RING * w : prev + w;
        for (; c < t_end; c += w)
            group_try(ctx, g, group, c, w);
    }
    group_try(ctx, g, group, t_end, w);
}

/* Thread: ingest, engine lock held. */
void fsc_imb_window(struct fsc_imb *imb, const struct fsc_det_ctx *ctx, fsc_series_id id,
                    uint8_t direction, int64_t t_end_ns, int64_t window_ns, double util)
{
    if (!imb || imb->index_cap == 0 || window_ns <= 0)
        return;
    uint32_t mask = imb->index_cap - 1;
    for (uint32_t i = id_hash(id) & mask; imb->index[i]; i = (i + 1) & mask) {
        const struct imb_ref *ref = &imb->refs[imb->index[i] - 1];
        if (ref->id != id)
            continue;
        struct imb_group *g = imb->groups[ref->group];
        group_report(ctx, g, ref->group, &g->m[ref->member], direction, t_end_ns, window_ns, util);
    }
}

double fsc_imb_ratio(const struct fsc_imb *imb, uint32_t group)
{
    if (!imb || group >= imb->n_groups || !imb->groups[group])
        return 0;
    return imb->groups[group]->ratio;
}

uint32_t fsc_imb_group_count(const struct fsc_imb *imb)
{
    return imb ? imb->n_used : 0;
}

int fsc_imb_group_view(const struct fsc_imb *imb, uint32_t group, struct fsc_group_view *out)
{
    memset(out, 0, sizeof(*out));
    if (!imb || group >= imb->n_groups || !imb->groups[group] || imb->groups[group]->n == 0)
        return -ENOENT;
    const struct imb_group *g = imb->groups[group];
    out->present = 1;
    out->members = g->n;
    out->ratio = g->ratio;
    out->events = g->n_events;
    out->active = g->active;
    return 0;
}

size_t fsc_imb_memory(const struct fsc_imb *imb)
{
    if (!imb)
        return 0;
    return sizeof(*imb) + imb->bytes + (size_t)imb->n_groups * sizeof(*imb->groups) +
           (size_t)imb->cap_refs * sizeof(*imb->refs) +
           (size_t)imb->index_cap * sizeof(*imb->index);
}
