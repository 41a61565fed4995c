/* Lookups over the family tables, the passthrough HELP, the info labels
 * and the tables' checks (metric_families.h). */
#include "model/metric_families.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Passthrough prefixes: the profiles' (profile.h passthrough_prefix) and the
 * NIC source's netdev statistics the table does not list. */
const struct fsc_metric_passthrough fsc_mf_passthrough[] = {
    {"fabric_cumulus_",
     "Cumulus counter no profile entry maps, passed through under its OTLP name (the device's "
     "unit).",
     "Cumulus value no profile entry maps, passed through under its OTLP name (the device's "
     "unit).",
     "Cumulus histogram no profile entry maps, passed through under its OTLP name with the "
     "switch's buckets (the device's unit)."},
    {"fabric_junos_",
     "Junos counter no profile entry maps, passed through under its path (the device's unit).",
     "Junos value no profile entry maps, passed through under its path (the device's unit).",
     "Junos histogram no profile entry maps, passed through under its path (the device's "
     "unit)."},
    {"fabric_mlx5_",
     "mlx5 counter no profile entry maps (ethtool, hw_counters or IB port counters), passed "
     "through under the driver's name (the driver's unit).",
     "mlx5 value no profile entry maps, passed through under the driver's name (the driver's "
     "unit).",
     "mlx5 histogram no profile entry maps, passed through under the driver's name (the "
     "driver's unit)."},
    {"fabric_netdev_",
     "Kernel netdev statistic of the interface the family table does not describe, passed "
     "through under the kernel's name (the kernel's unit).",
     "Kernel netdev value the family table does not describe (the kernel's unit).",
     "Kernel netdev histogram the family table does not describe (the kernel's unit)."},
};
const size_t fsc_mf_passthrough_count = sizeof(fsc_mf_passthrough) / sizeof(fsc_mf_passthrough[0]);

struct table {
    const struct fsc_metric_family *f;
    const size_t *n;
};

static const struct table tables[] = {
    {fsc_mf_port, &fsc_mf_port_count},
    {fsc_mf_nic, &fsc_mf_nic_count},
    {fsc_mf_expo, &fsc_mf_expo_count},
};
#define N_TABLES (sizeof(tables) / sizeof(tables[0]))

static const char *key_of(const struct fsc_metric_family *f)
{
    return f->series ? f->series : f->name;
}

/* Binary search of every table by lookup key; NULL when no key is `key`. */
static const struct fsc_metric_family *find_key(const char *key)
{
    for (size_t t = 0; t < N_TABLES; t++) {
        size_t lo = 0, hi = *tables[t].n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const struct fsc_metric_family *f = &tables[t].f[mid];
            int c = strcmp(key, key_of(f));
            if (c == 0)
                return f;
            if (c < 0)
                hi = mid;
            else
                lo = mid + 1;
        }
    }
    return NULL;
}

const struct fsc_metric_family *fsc_metric_family_of(const char *metric)
{
    const struct fsc_metric_family *f = metric ? find_key(metric) : NULL;
    return f && f->origin == FSC_MF_SERIES ? f : NULL;
}

size_t fsc_metric_family_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < N_TABLES; t++)
        n += *tables[t].n;
    return n;
}

const struct fsc_metric_family *fsc_metric_family_at(size_t k)
{
    for (size_t t = 0; t < N_TABLES; t++) {
        if (k < *tables[t].n)
            return &tables[t].f[k];
        k -= *tables[t].n;
    }
    return NULL;
}

const struct fsc_metric_family *fsc_metric_family_named(const char *name)
{
    if (!name)
        return NULL;
    const struct fsc_metric_family *f = find_key(name);
    if (f && strcmp(f->name, name) == 0)
        return f;
    for (size_t k = 0, n = fsc_metric_family_count(); k < n; k++) {
        f = fsc_metric_family_at(k);
        if (f->series && strcmp(f->name, name) == 0) /* renamed: the key is the series' */
            return f;
    }
    return NULL;
}

const char *fsc_metric_unlisted_help(const char *metric, uint8_t type)
{
    for (size_t i = 0; metric && i < fsc_mf_passthrough_count; i++) {
        const struct fsc_metric_passthrough *p = &fsc_mf_passthrough[i];
        if (strncmp(metric, p->prefix, strlen(p->prefix)) == 0)
            return type == FSC_MF_HISTOGRAM ? p->histogram_help
                   : type == FSC_MF_GAUGE   ? p->gauge_help
                                            : p->counter_help;
    }
    return "A series the collector's family table does not describe (docs/METRICS.md), as its "
           "source reports it.";
}

/* ---- topology labels ------------------------------------------------------ */

static const struct {
    const char *label;
    enum fsc_info_family family;
} info_labels[] = {
    {"role", FSC_INFO_PORT}, {"rail", FSC_INFO_PORT},      {"peer", FSC_INFO_PORT},
    {"link", FSC_INFO_PORT}, {"peer_node", FSC_INFO_PORT}, {"card", FSC_INFO_NIC},
    {"pci", FSC_INFO_NIC},   {"node", FSC_INFO_NODE},
};

enum fsc_info_family fsc_metric_info_label(const char *name)
{
    for (size_t i = 0; name && i < sizeof(info_labels) / sizeof(info_labels[0]); i++)
        if (strcmp(info_labels[i].label, name) == 0)
            return info_labels[i].family;
    return FSC_INFO_NONE;
}

const char *fsc_metric_info_name(enum fsc_info_family f)
{
    switch (f) {
    case FSC_INFO_PORT:
        return "fabric_port_info";
    case FSC_INFO_NIC:
        return "fabric_nic_info";
    case FSC_INFO_NODE:
        return "fabric_node_info";
    default:
        return NULL;
    }
}

/* ---- checks ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* 1 when `word` is one of the '_'-separated words of name. */
static bool has_word(const char *name, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = name; (p = strstr(p, word)) != NULL; p++)
        if ((p == name || p[-1] == '_') && (p[n] == '_' || p[n] == '\0'))
            return true;
    return false;
}

/* strstr ignoring ASCII case (a HELP may start with its unit: "Bytes ..."). */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && (p[i] | 0x20) == (needle[i] | 0x20))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool name_valid(const char *s)
{
    if (!s || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return strlen(s) <= 100;
}

/* Words promtool's linter (Prometheus 2.42 `promtool check metrics`)
 * refuses in a name: types, units outside the base units, abbreviations. */
static const char *const lint_words[] = {
    "counter",     "gauge",   "histogram", "summary", "bits", "milliseconds", "microseconds",
    "nanoseconds", "minutes", "hours",     "days",    "ms",   "us",           "ns",
    "sec",         "kb",      "mb",        "gb",      NULL};

/* The unit a name's unit word promises, or NULL for a name without one. */
static const char *unit_promised(const char *name)
{
    if (has_word(name, "per") && ends_with(name, "_per_second"))
        return "per second";
    if (ends_with(name, "_bytes") || ends_with(name, "_bytes_total"))
        return "bytes";
    if (ends_with(name, "_seconds") || ends_with(name, "_seconds_total"))
        return "seconds";
    if (ends_with(name, "_ratio"))
        return "ratio";
    return NULL;
}

static int fail(char *err, size_t errlen, const struct fsc_metric_family *f, const char *why)
{
    snprintf(err, errlen, "metric family %s: %s", f && f->name ? f->name : "(null)", why);
    return -EINVAL;
}

static const char *family_problem(const struct fsc_metric_family *f)
{
    if (!name_valid(f->name) || (f->series && !name_valid(f->series)))
        return "invalid name";
    if (f->type == FSC_MF_COUNTER && !ends_with(f->name, "_total"))
        return "a counter's name must end in _total";
    if (f->type != FSC_MF_COUNTER && ends_with(f->name, "_total"))
        return "only a counter's name ends in _total";
    if (f->type > FSC_MF_HISTOGRAM || f->origin > FSC_MF_SELF)
        return "unknown type or origin";
    if (f->series && f->origin != FSC_MF_SERIES)
        return "only a registry series family is renamed";
    for (size_t i = 0; lint_words[i]; i++)
        if (has_word(f->name, lint_words[i]))
            return "a word promtool refuses (type, non-base or abbreviated unit)";
    if (!f->unit || !f->labels || !f->help || !f->help[0])
        return "unit, labels or HELP missing";
    const char *promised = unit_promised(f->name);
    if (promised && !strstr(f->unit, promised))
        return "the name's unit word and the unit disagree";
    if (f->unit[0] && !contains_ci(f->help, f->unit))
        return "the HELP does not say the unit";
    if (!ends_with(f->help, "."))
        return "the HELP is not a sentence ending in '.'";
    if (strstr(f->help, "fabric_") || strstr(f->help, "fabricscope_"))
        return "the HELP names a metric (say what it is instead)";
    if (strlen(f->help) > 320)
        return "the HELP is longer than 320 bytes";
    return NULL;
}

/* The family `name` of origin `origin`, for rate / max references. */
static bool has_family(const char *name, uint8_t origin)
{
    const struct fsc_metric_family *g = fsc_metric_family_named(name);
    return g && g->origin == origin;
}

int fsc_metric_families_check(char *err, size_t errlen)
{
    size_t n = fsc_metric_family_count();
    for (size_t t = 0; t < N_TABLES; t++) {
        for (size_t i = 0; i < *tables[t].n; i++) {
            const struct fsc_metric_family *f = &tables[t].f[i];
            const char *why = family_problem(f);
            if (why)
                return fail(err, errlen, f, why);
            if (i > 0 && strcmp(key_of(&tables[t].f[i - 1]), key_of(f)) >= 0)
                return fail(err, errlen, f, "not sorted by its key after the previous one");
            if (f->rate && !has_family(f->rate, FSC_MF_RATE))
                return fail(err, errlen, f, "its rate family is not a rate family of the table");
            if (f->max && !has_family(f->max, FSC_MF_MAX))
                return fail(err, errlen, f, "its max family is not a max family of the table");
        }
    }
    for (size_t a = 0; a < n; a++) {
        const struct fsc_metric_family *f = fsc_metric_family_at(a);
        for (size_t b = a + 1; b < n; b++) {
            const struct fsc_metric_family *g = fsc_metric_family_at(b);
            if (strcmp(f->name, g->name) == 0 || strcmp(key_of(f), key_of(g)) == 0)
                return fail(err, errlen, g, "listed twice");
        }
    }
    return 0;
}
