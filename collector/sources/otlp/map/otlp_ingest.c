/* OTLP points -> samples: the visitor the decoders call (otlp_ingest.h has
 * the contract, otlp_ingest_int.h the map of the ingest's files;
 * otlp_series.c the cache and the slow path).
 *
 * Decisions worth knowing:
 * - Times. time_unix_nano must be set and within the time guard's bounds
 *   of the request's arrival (model/time_guard.h: max_time_ahead /
 *   max_time_behind, off when 0), else the point is rejected; the device's
 *   offset is noted either way.
 * - Values. as_double gives an FSC_SMP_F64 sample. as_int gives a u64
 *   sample on a counter, a double on a gauge. A counter value that is
 *   negative, NaN or +Inf is rejected ("bad value"); a gauge takes any
 *   double, NaN and infinities included (Prometheus exposes them, the engine
 *   keeps a gauge's last value only). A series switching between as_int and
 *   as_double restarts its baseline in the engine (the value type changed).
 * - CUMULATIVE Sums and Histograms: a start_time_unix_nano that is non-zero
 *   and differs from the last non-zero one of the series flags the sample
 *   FSC_SMP_RESET (stats.resets counts points, not series). Gauges carry no
 *   start time that means anything, so the rule does not apply to them.
 * - DELTA: the running total per series is a u64 while every delta is an
 *   integer and becomes a double at the first double delta (one baseline
 *   restart in the engine). A non-monotonic DELTA Sum is a gauge whose value
 *   is the running (double) total; its deltas must be finite. A series that
 *   switches between DELTA and CUMULATIVE restarts (FSC_SMP_RESET).
 * - Histograms must have buckets = bounds + 1 (or neither: then the +Inf
 *   bucket alone equals count), bounds strictly ascending and below +Inf,
 *   and bucket counts adding up to count; else "bad histogram". A sum must
 *   be finite and >= 0 (it is a counter). Bounds are part of the series
 *   key: new bounds give new `le` series (shared bounds keep theirs, and
 *   _count / _sum continue).
 * - Labels (otlp_series.c): device, port (`interface`), the profile's label
 *   (`tc` -> queue, `sp` -> priority), role/rail/peer from the topology,
 *   then every other point attribute whose value is a string, int, bool or
 *   double, under its sanitized name (exported_<name> on a clash); a name
 *   over 63 bytes keeps 45 and ends in "_h" + 16 hex digits of the FNV-1a
 *   hash of the whole key (otlp_label_name; stats.names_hashed), and a key
 *   over 255 bytes ends its part of the cache key in such a hash too
 *   (otlp_ingest_key.c), so keys that differ late stay apart. A value
 *   longer than FSC_OTLP_LABEL_VALUE_MAX bytes (the device name too) keeps
 *   its first bytes and ends in "~h" + 16 hex digits of its FNV-1a hash
 *   (otlp_value_fit; counted in stats.values_hashed), so distinct values
 *   are never merged; invalid UTF-8 bytes become '?'; empty values are no
 *   label. More
 *   attributes than the registry's 16 labels hold: the point is rejected
 *   (dropping some would merge distinct series). */
#include "sources/otlp/map/otlp_ingest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/shard.h"
#include "sources/otlp/map/otlp_ingest_int.h"

#define DEFAULT_MAX_SERIES  100000u
#define DEFAULT_MAX_BATCH   65536u
#define MAX_BATCH           (1u << 20)
#define FIRST_BATCH         1024u
#define DEFAULT_INTERVAL_NS 1000000000LL
#define DEFAULT_DEVICE_ATTR "host.name"
/* What Cumulus itself sends (Open-Telemetry-Export.md 5.11+, "Static Label
 * Format": resource attribute net.host.name): tried when the default is absent. */
#define CUMULUS_DEVICE_ATTR "net.host.name"

/* ---- visitor ------------------------------------------------------------------------ */

static void on_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n_attrs)
{
    struct fsc_otlp_ingest *ing = ctx;
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    ing->foreign = ing->source_foreign;
    ing->ob_dev = OTLP_BYTES_NONE;
    ing->tg_dev_set = false;
    const char *want = ing->device_attr;
    size_t want_len = ing->device_attr_len;
    if (ing->attr_default) {
        bool found = false;
        for (uint32_t i = 0; i < n_attrs && !found; i++)
            found = attrs[i].key.len == want_len && memcmp(attrs[i].key.p, want, want_len) == 0;
        if (!found) {
            want = CUMULUS_DEVICE_ATTR;
            want_len = sizeof(CUMULUS_DEVICE_ATTR) - 1;
        }
    }
    for (uint32_t i = 0; i < n_attrs; i++) {
        const struct fsc_otlp_attr *a = &attrs[i];
        if (a->key.len != want_len || memcmp(a->key.p, want, want_len) != 0)
            continue;
        char text[FSC_OTLP_LABEL_VALUE_MAX + 1];
        size_t n;
        if (a->type == FSC_OTLP_VAL_STRING) {
            const char *v = otlp_value_fit(a->s.p, a->s.len, text, &n);
            if (v == a->s.p)
                memcpy(text, a->s.p, n);
            else
                ing->st.values_hashed++;
        } else {
            n = fsc_otlp_attr_text(a, text, sizeof(text));
        }
        if (n > 0) {
            otlp_label_value(text, n, ing->device);
            ing->foreign = !fsc_shard_owns(ing->shard_index, ing->shard_count, ing->device);
        }
        break;
    }
}

static void on_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct fsc_otlp_ingest *ing = ctx;
    size_t n = m->name.len < FSC_PROFILE_VENDOR_MAX ? m->name.len : FSC_PROFILE_VENDOR_MAX;
    if (n)
        memcpy(ing->mname, m->name.p, n);
    ing->mname[n] = '\0';
    ing->mname_ok = m->name.len > 0 && m->name.len <= FSC_PROFILE_VENDOR_MAX &&
                    memchr(m->name.p, '\0', m->name.len) == NULL;
    ing->mtype = m->type;
    ing->mtemp = m->temporality;
    ing->mmono = m->monotonic;
    ing->plan_done = false;
    ing->miface = ing->bytes_on && ing->mname_ok && m->type != FSC_OTLP_HISTOGRAM &&
                  otlp_bytes_interface_metric(ing->mname);
    ing->mrole = ing->miface ? otlp_bytes_role(ing->mname) : NULL;
    ing->mhev = ing->bytes_on && ing->mname_ok && m->type == FSC_OTLP_HISTOGRAM
                    ? otlp_hist_evid_role(ing->mname)
                    : NULL;
    /* bytes_on: the Cumulus profile, whose metric this is */
    ing->mspeed = ing->bytes_on && ing->mname_ok &&
                  (m->type == FSC_OTLP_GAUGE || m->type == FSC_OTLP_SUM) &&
                  otlp_speed_metric(ing->mname);

    otlp_ingest_key_prefix(ing, m->type == FSC_OTLP_HISTOGRAM, n);
}

static void on_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct fsc_otlp_ingest *ing = ctx;
    ing->res.points++;
    if (ing->foreign || (p->flags & FSC_OTLP_FLAG_NO_RECORDED_VALUE)) {
        ing->res.skipped++; /* another shard's device, or a staleness marker: no error */
        if (ing->foreign)
            ing->res.other_shard++;
        return;
    }
    if (ing->mspeed) {
        otlp_ingest_speed_point(ing, p);
        return;
    }
    switch (ing->mtype) {
    case FSC_OTLP_GAUGE:
    case FSC_OTLP_SUM:
        otlp_ingest_number_point(ing, p);
        break;
    case FSC_OTLP_HISTOGRAM:
        otlp_ingest_histogram_point(ing, p);
        break;
    default:
        otlp_ingest_reject(ing, REJ_UNSUPPORTED,
                           "exponential histograms and summaries are not supported");
        break;
    }
}

/* ---- lifecycle ---------------------------------------------------------------------- */

struct fsc_otlp_ingest *fsc_otlp_ingest_create(const struct fsc_otlp_ingest_config *cfg,
                                               const struct fsc_source_env *env, char *err,
                                               size_t errlen)
{
    if (!cfg || !env || !env->reg || !cfg->source_name || !cfg->source_name[0]) {
        snprintf(err, errlen, "OTLP ingest needs a registry and a source name");
        return NULL;
    }
    if (cfg->nominal_interval_ns < 0 || cfg->max_series > FSC_REGISTRY_MAX_TOTAL ||
        cfg->max_batch > MAX_BATCH) {
        snprintf(err, errlen,
                 "OTLP ingest: negative interval, max_series above %u or max_batch above %u",
                 (unsigned)FSC_REGISTRY_MAX_TOTAL, MAX_BATCH);
        return NULL;
    }
    const char *attr = cfg->device_attribute && cfg->device_attribute[0] ? cfg->device_attribute
                                                                         : DEFAULT_DEVICE_ATTR;
    struct fsc_otlp_ingest *ing = calloc(1, sizeof(*ing));
    if (!ing)
        goto nomem;
    if (pthread_mutex_init(&ing->lock, NULL) != 0) {
        free(ing);
        goto nomem;
    }
    otlp_label_value(cfg->source_name, otlp_utf8_cut(cfg->source_name, strlen(cfg->source_name)),
                     ing->source_device);
    ing->device_attr = strdup(attr);
    ing->device_attr_len = strlen(attr);
    ing->attr_default = strcmp(attr, DEFAULT_DEVICE_ATTR) == 0;
    ing->max_batch = cfg->max_batch ? cfg->max_batch : DEFAULT_MAX_BATCH;
    ing->cap_smp = ing->max_batch < FIRST_BATCH ? ing->max_batch : FIRST_BATCH;
    ing->smp = malloc((size_t)ing->cap_smp * sizeof(*ing->smp));
    ing->tap = cfg->sample_tap;
    ing->tap_arg = cfg->sample_tap_arg;
    ing->shard_index = env->shard_index;
    ing->shard_count = env->shard_count;
    ing->source_foreign = !fsc_shard_owns(env->shard_index, env->shard_count, ing->source_device);
    int64_t interval = cfg->nominal_interval_ns ? cfg->nominal_interval_ns : DEFAULT_INTERVAL_NS;
    uint32_t max_series = cfg->max_series ? cfg->max_series : DEFAULT_MAX_SERIES;
    const struct fsc_profile *prof = cfg->profile ? cfg->profile : &fsc_profile_cumulus;
    if (otlp_series_init(&ing->ser, env, prof, interval, max_series) != 0 || !ing->device_attr ||
        !ing->smp) {
        fsc_otlp_ingest_destroy(ing);
        goto nomem;
    }
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    fsc_time_guard_init(&ing->tg, cfg->max_time_ahead_ns, cfg->max_time_behind_ns);
    ing->bytes_on = prof == &fsc_profile_cumulus;
    otlp_bytes_init(&ing->ob, &ing->ser, otlp_ingest_bytes_apply, ing);
    ing->ob_dev = OTLP_BYTES_NONE;
    return ing;
nomem:
    snprintf(err, errlen, "out of memory creating the OTLP ingest");
    return NULL;
}

void fsc_otlp_ingest_destroy(struct fsc_otlp_ingest *ing)
{
    if (!ing)
        return;
    otlp_bytes_fini(&ing->ob);
    otlp_series_fini(&ing->ser);
    fsc_time_guard_fini(&ing->tg);
    free(ing->smp);
    free(ing->device_attr);
    pthread_mutex_destroy(&ing->lock);
    free(ing);
}

void fsc_otlp_ingest_begin(struct fsc_otlp_ingest *ing, int64_t arrival_ns,
                           struct fsc_otlp_visitor *v)
{
    pthread_mutex_lock(&ing->lock);
    ing->arrival_ns = arrival_ns;
    ing->rc = 0;
    ing->n_smp = 0;
    memset(&ing->res, 0, sizeof(ing->res));
    memcpy(ing->device, ing->source_device, sizeof(ing->device));
    ing->foreign = ing->source_foreign;
    ing->mname[0] = '\0';
    ing->mname_ok = false;
    ing->mtype = FSC_OTLP_NONE;
    ing->miface = false;
    ing->mrole = NULL;
    ing->mspeed = false;
    ing->ob_dev = OTLP_BYTES_NONE;
    ing->tg_dev_set = false;
    otlp_bytes_begin(&ing->ob);
    *v = (struct fsc_otlp_visitor){
        .ctx = ing, .resource = on_resource, .metric = on_metric, .point = on_point};
}

int fsc_otlp_ingest_end(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_result *res)
{
    if (ing->bytes_on) /* derived sums join this request's samples */
        otlp_bytes_end(&ing->ob, ing->res.warning, sizeof(ing->res.warning));
    otlp_ingest_flush(ing);
    struct fsc_otlp_ingest_stats *st = &ing->st;
    st->requests++;
    st->points += ing->res.points;
    st->accepted += ing->res.accepted;
    st->rejected += ing->res.rejected;
    st->skipped += ing->res.skipped;
    st->other_shard += ing->res.other_shard;
    if (res)
        *res = ing->res;
    int rc = ing->rc;
    pthread_mutex_unlock(&ing->lock);
    return rc;
}

void fsc_otlp_ingest_abort(struct fsc_otlp_ingest *ing)
{
    ing->n_smp = 0;
    ing->st.aborted++;
    pthread_mutex_unlock(&ing->lock);
}

void fsc_otlp_ingest_stats(struct fsc_otlp_ingest *ing, struct fsc_otlp_ingest_stats *out)
{
    pthread_mutex_lock(&ing->lock);
    *out = ing->st;
    out->series = ing->ser.n_st;
    out->cache_entries = ing->ser.count;
    out->heap_allocs = (uint64_t)ing->ser.allocs + ing->smp_allocs + ing->ob.allocs;
    out->memory_bytes = sizeof(*ing) + ing->device_attr_len + 1 + ing->ser.memory +
                        (size_t)ing->cap_smp * sizeof(*ing->smp) + ing->ob.memory;
    out->bytes_derived = ing->ob.st.derived_samples;
    out->hist_evid_samples = ing->st.hist_evid_samples;
    out->hist_evid_unplaced = ing->st.hist_evid_unplaced;
    out->bytes_incomplete = ing->ob.st.incomplete;
    out->bytes_dropped = ing->ob.st.dropped;
    out->bytes_unplaced = ing->ob.st.unplaced + ing->ob.st.no_class;
    pthread_mutex_unlock(&ing->lock);
}

void fsc_otlp_ingest_time_stats(struct fsc_otlp_ingest *ing, const char *source,
                                const struct fsc_stats_out *out)
{
    pthread_mutex_lock(&ing->lock);
    fsc_time_guard_stats(&ing->tg, source, out);
    pthread_mutex_unlock(&ing->lock);
}

size_t fsc_otlp_ingest_devices(struct fsc_otlp_ingest *ing,
                               void (*cb)(void *arg, const char *device, int has), void *arg)
{
    pthread_mutex_lock(&ing->lock);
    size_t n = otlp_bytes_devices(&ing->ob, cb, arg);
    pthread_mutex_unlock(&ing->lock);
    return n;
}
