/* What `fabricscope probe` keeps of its source and how it reports it
 * (probe_int.h). */
#include "commands/probe_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define PROBE_LABELS_MAX  FSC_REGISTRY_MAX_LABELS
#define PROBE_CANON_SHOWN 4 /* canonical names a `map` line lists (a histogram: 3) */

/* ---- the taps ------------------------------------------------------------------ */

/* The native name's index, added when new; PROBE_NO_NATIVE when the table
 * is full. Caller holds t->mu. */
static uint32_t native_index(struct probe_tap *t, const char *name, bool mapped)
{
    size_t len = strlen(name);
    uint64_t h = fsc_hash_bytes(name, len, 0);
    uint32_t mask = 2 * PROBE_NATIVE_MAX - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint32_t s = t->slots[i];
        if (s == 0)
            break;
        const struct probe_native *nv = &t->natives[s - 1];
        if (nv->hash == h && strcmp(nv->name, name) == 0)
            return s - 1;
    }
    if (t->n_natives == PROBE_NATIVE_MAX) {
        t->natives_dropped++;
        return PROBE_NO_NATIVE;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        t->natives_dropped++;
        return PROBE_NO_NATIVE;
    }
    memcpy(copy, name, len + 1);
    uint32_t idx = t->n_natives++;
    t->natives[idx] = (struct probe_native){.name = copy, .mapped = mapped, .hash = h};
    uint32_t i = (uint32_t)h & mask;
    while (t->slots[i] != 0) /* at most half full: a free slot exists */
        i = (i + 1) & mask;
    t->slots[i] = idx + 1;
    return idx;
}

/* The source tap (plugin/source.h): series id came from `native`. */
static void tap_series(void *arg, fsc_series_id id, const char *native, bool mapped)
{
    struct probe_tap *t = arg;
    if (id >= PROBE_SERIES_MAX)
        return;
    pthread_mutex_lock(&t->mu);
    struct probe_series *s = &t->ser[id];
    s->tapped = true;
    if (native) {
        uint32_t k = native_index(t, native, mapped);
        if (k != PROBE_NO_NATIVE && k != s->nat && k != s->nat2) {
            if (s->nat == PROBE_NO_NATIVE)
                s->nat = k;
            else if (s->nat2 == PROBE_NO_NATIVE)
                s->nat2 = k;
            else
                s->multi = true;
        }
    }
    pthread_mutex_unlock(&t->mu);
}

struct probe_tap *probe_tap_create(void)
{
    struct probe_tap *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->ser = calloc(PROBE_SERIES_MAX, sizeof(*t->ser));
    if (!t->ser || pthread_mutex_init(&t->mu, NULL) != 0) {
        free(t->ser);
        free(t);
        return NULL;
    }
    for (uint32_t i = 0; i < PROBE_SERIES_MAX; i++)
        t->ser[i].nat = t->ser[i].nat2 = PROBE_NO_NATIVE;
    t->source_tap = (struct fsc_source_tap){.series = tap_series, .arg = t};
    return t;
}

void probe_tap_destroy(struct probe_tap *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n_natives; i++)
        free(t->natives[i].name);
    pthread_mutex_destroy(&t->mu);
    free(t->ser);
    free(t);
}

void probe_tap_samples(void *arg, const struct fsc_sample *smp, size_t n)
{
    struct probe_tap *t = arg;
    t->samples += n;
    for (size_t i = 0; i < n; i++) {
        if (smp[i].series >= PROBE_SERIES_MAX) {
            t->beyond++;
            continue;
        }
        struct probe_series *s = &t->ser[smp[i].series];
        s->samples++;
        s->last = smp[i].v;
        s->last_f64 = (smp[i].flags & FSC_SMP_F64) != 0;
    }
}

/* ---- the report ---------------------------------------------------------------- */

/* Writes s as a label value (Prometheus text escaping). */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
}

/* A native name as one token: as is when it is plain, else quoted. */
static void put_name(FILE *out, const char *s)
{
    bool plain = *s != '\0';
    for (const unsigned char *p = (const unsigned char *)s; plain && *p; p++)
        plain = *p > ' ' && *p != '"' && *p != 0x7f;
    if (plain) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < ' ' || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* The series' text `name{a="x",b="y"}` (malloc'd; NULL when out of memory). */
static char *series_text(const struct fsc_registry *reg, fsc_series_id id)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct fsc_label lb[PROBE_LABELS_MAX];
    size_t n = fsc_registry_labels(reg, id, lb, PROBE_LABELS_MAX);
    fputs(fsc_registry_metric(reg, id), f);
    if (n > 0) {
        fputc('{', f);
        for (size_t i = 0; i < n && i < PROBE_LABELS_MAX; i++) {
            fprintf(f, "%s%s=\"", i ? "," : "", lb[i].name);
            put_escaped(f, lb[i].value);
            fputc('"', f);
        }
        fputc('}', f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

struct row {
    char *text;
    fsc_series_id id;
};

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->text, ((const struct row *)b)->text);
}

/* What a native name (or the derived series, index n_natives) became. */
struct nat_sum {
    const char *canon[PROBE_CANON_SHOWN]; /* registry metric names (interned pointers) */
    uint32_t n_canon;
    bool more_canon;
    uint64_t series;
};

static void nat_add(struct nat_sum *ns, const char *metric)
{
    ns->series++;
    for (uint32_t i = 0; i < ns->n_canon; i++)
        if (ns->canon[i] == metric || strcmp(ns->canon[i], metric) == 0)
            return;
    if (ns->n_canon < PROBE_CANON_SHOWN)
        ns->canon[ns->n_canon++] = metric;
    else
        ns->more_canon = true;
}

static int canon_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_nat_line(FILE *out, const char *kind, const char *native, struct nat_sum *ns)
{
    qsort(ns->canon, ns->n_canon, sizeof(ns->canon[0]), canon_cmp);
    fprintf(out, "%s ", kind);
    if (native) {
        put_name(out, native);
        fputc(' ', out);
    }
    fputs("->", out);
    for (uint32_t i = 0; i < ns->n_canon; i++)
        fprintf(out, "%s%s", i ? "," : " ", ns->canon[i]);
    fprintf(out, "%s series=%" PRIu64 "\n", ns->more_canon ? ",..." : "", ns->series);
}

static int native_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct probe_native *const *)a)->name,
                  (*(const struct probe_native *const *)b)->name);
}

long long probe_report(const struct probe_tap *t, const struct fsc_registry *reg,
                       const struct probe_report_info *info, FILE *out, char *err, size_t errlen)
{
    uint32_t n = fsc_registry_count(reg);
    if (n > PROBE_SERIES_MAX)
        n = PROBE_SERIES_MAX;
    struct row *rows = calloc(n ? n : 1, sizeof(*rows));
    struct nat_sum *ns = calloc(t->n_natives + 1, sizeof(*ns));
    const struct probe_native **order = calloc(t->n_natives + 1, sizeof(*order));
    uint32_t n_rows = 0;
    long long rc = -1;
    if (!rows || !ns || !order)
        goto oom;
    for (fsc_series_id id = 0; id < n; id++) {
        rows[n_rows].id = id;
        rows[n_rows].text = series_text(reg, id);
        if (!rows[n_rows].text)
            goto oom;
        n_rows++;
    }
    qsort(rows, n_rows, sizeof(*rows), row_cmp);

    uint64_t with_samples = 0, own_samples = 0;
    for (uint32_t r = 0; r < n_rows; r++) {
        const struct probe_series *s = &t->ser[rows[r].id];
        const char *metric = fsc_registry_metric(reg, rows[r].id);
        fprintf(out, "series %s native=", rows[r].text);
        if (s->nat != PROBE_NO_NATIVE) {
            put_name(out, t->natives[s->nat].name);
            if (s->nat2 != PROBE_NO_NATIVE) {
                fputc(',', out);
                put_name(out, t->natives[s->nat2].name);
            }
            if (s->multi)
                fputs(",...", out);
            nat_add(&ns[s->nat], metric);
            if (s->nat2 != PROBE_NO_NATIVE)
                nat_add(&ns[s->nat2], metric);
        } else {
            fputs(s->tapped ? "(derived)" : "-", out);
            if (s->tapped)
                nat_add(&ns[t->n_natives], metric);
        }
        if (s->samples == 0)
            fputs(" last=-", out);
        else if (s->last_f64)
            fprintf(out, " last=%.17g", s->last.d);
        else
            fprintf(out, " last=%" PRIu64, s->last.u);
        fprintf(out, " samples=%" PRIu64 "\n", s->samples);
        with_samples += s->samples > 0;
        if (strncmp(metric, "fabricscope_", 12) == 0)
            own_samples += s->samples;
    }

    uint32_t mapped = 0, unmapped = 0;
    for (uint32_t i = 0; i < t->n_natives; i++)
        order[i] = &t->natives[i];
    qsort(order, t->n_natives, sizeof(*order), native_cmp);
    for (int pass = 0; pass < 2; pass++) { /* mapped names first, then the unmapped */
        for (uint32_t k = 0; k < t->n_natives; k++) {
            const struct probe_native *nv = order[k];
            if (nv->mapped != (pass == 0))
                continue;
            put_nat_line(out, pass == 0 ? "map" : "unmapped", nv->name, &ns[nv - t->natives]);
            if (pass == 0)
                mapped++;
            else
                unmapped++;
        }
    }
    if (ns[t->n_natives].series)
        put_nat_line(out, "derived", NULL, &ns[t->n_natives]);
    if (t->natives_dropped)
        fprintf(out, "# %" PRIu64 " more native names than the probe lists (%u)\n",
                t->natives_dropped, PROBE_NATIVE_MAX);
    fprintf(out,
            "probe source=%s type=%s profile=%s seconds=%.1f series=%u series_with_samples=%" PRIu64
            " samples=%" PRIu64 " device_samples=%" PRIu64
            " native_names=%u mapped=%u unmapped=%u\n",
            info->source, info->type, info->profile ? info->profile : "-", info->seconds, n_rows,
            with_samples, t->samples, t->samples - own_samples, t->n_natives, mapped, unmapped);
    fflush(out);
    rc = (long long)(t->samples - own_samples);
    goto out;
oom:
    snprintf(err, errlen, "out of memory formatting %u series", n);
out:
    for (uint32_t r = 0; r < n_rows; r++)
        free(rows[r].text);
    free(rows);
    free(ns);
    free(order);
    return rc;
}
