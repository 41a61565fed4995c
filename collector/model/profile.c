/* Vendor profiles: lookup, passthrough naming and table checks. The tables
 * themselves live in profile_junos.c, profile_cumulus.c and profile_mlx5.c. */
#include "model/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PLACEHOLDER     "{p}"
#define PLACEHOLDER_LEN 3
#define CAPTURE_MAX     3  /* digits captured by {p}: priorities are 0-7, room for more */
#define RUNS_TRIED      4  /* digit runs tried per name; vendor names have few */
#define WORD_MAX        32 /* longer words match no list (every listed word is short) */

const struct fsc_profile *fsc_profile_find(const struct fsc_profile *const *profiles,
                                           const char *name)
{
    if (name == NULL || profiles == NULL)
        return NULL;
    for (size_t i = 0; profiles[i]; i++)
        if (strcmp(profiles[i]->name, name) == 0)
            return profiles[i];
    return NULL;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(unsigned char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && is_digit(c));
}

/* Appends the sanitized form of in to out at *pos (snprintf-style: counts
 * what does not fit). `leading_digit_ok` is true when something valid
 * already precedes (a passthrough prefix). */
static void sanitize_into(const char *in, bool leading_digit_ok, char *out, size_t out_size,
                          size_t *pos)
{
    size_t n = *pos;
    if (!leading_digit_ok && is_digit((unsigned char)in[0])) {
        if (n + 1 < out_size)
            out[n] = '_';
        n++;
    }
    for (const unsigned char *s = (const unsigned char *)in; *s != '\0'; s++) {
        if (n + 1 < out_size)
            out[n] = is_name_char(*s, false) ? (char)*s : '_';
        n++;
    }
    if (out_size > 0)
        out[n < out_size ? n : out_size - 1] = '\0';
    *pos = n;
}

size_t fsc_metric_name_sanitize(const char *in, char *out, size_t out_size)
{
    size_t n = 0;
    if (out_size > 0)
        out[0] = '\0';
    sanitize_into(in, false, out, out_size, &n);
    return n;
}

/* Binary search for an exact vendor name. The tables are sorted by strcmp
 * (checked by fsc_profile_check and the tests). */
static const struct fsc_profile_entry *find_exact(const struct fsc_profile *prof, const char *name)
{
    size_t lo = 0, hi = prof->n_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, prof->entries[mid].vendor);
        if (c == 0)
            return &prof->entries[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* Tries "{p}" in place of each of the first RUNS_TRIED digit runs of name
 * (runs of 1..CAPTURE_MAX digits). Digits that belong to the name itself
 * ("dot3", "VL15") simply find no template. On a hit the digits go to
 * capture. */
static const struct fsc_profile_entry *find_template(const struct fsc_profile *prof,
                                                     const char *name, size_t len,
                                                     char capture[CAPTURE_MAX + 1])
{
    char tmpl[FSC_PROFILE_VENDOR_MAX + PLACEHOLDER_LEN + 1];
    size_t i = 0;
    for (int runs = 0; i < len && runs < RUNS_TRIED;) {
        if (!is_digit((unsigned char)name[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && is_digit((unsigned char)name[j]))
            j++;
        runs++;
        if (j - i <= CAPTURE_MAX) {
            memcpy(tmpl, name, i);
            memcpy(tmpl + i, PLACEHOLDER, PLACEHOLDER_LEN);
            memcpy(tmpl + i + PLACEHOLDER_LEN, name + j, len - j + 1);
            const struct fsc_profile_entry *e = find_exact(prof, tmpl);
            if (e != NULL) {
                memcpy(capture, name + i, j - i);
                capture[j - i] = '\0';
                return e;
            }
        }
        i = j;
    }
    return NULL;
}

/* ---- passthrough gauges by name ---------------------------------------------- */

static bool in_list(const char *const *list, const char *word)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], word) == 0)
            return true;
    return false;
}

static bool ends_in_list(const char *const *list, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; list && list[i]; i++) {
        size_t k = strlen(list[i]);
        if (n >= k && strcmp(word + n - k, list[i]) == 0)
            return true;
    }
    return false;
}

static bool is_upper(unsigned char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_word_char(unsigned char c)
{
    return is_name_char(c, false) && c != '_';
}

/* Copies the word starting at s (lowercased, at most WORD_MAX - 1 bytes kept)
 * into word and returns where it ends: at a separator, or where a lowercase
 * letter or digit meets an uppercase one. */
static const char *next_word(const char *s, char word[WORD_MAX])
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (is_word_char(*p)) {
        if (n < WORD_MAX - 1)
            word[n++] = (char)(is_upper(*p) ? *p - 'A' + 'a' : *p);
        p++;
        if (is_upper(*p) && !is_upper(p[-1]))
            break;
    }
    word[n < WORD_MAX - 1 ? n : 0] = '\0'; /* a cut word matches nothing */
    return (const char *)p;
}

int fsc_profile_name_is_gauge(const struct fsc_gauge_names *g, const char *vendor_name)
{
    if (!g || !vendor_name ||
        strnlen(vendor_name, FSC_PROFILE_VENDOR_MAX + 1) > FSC_PROFILE_VENDOR_MAX)
        return 0;
    const char *leaf = strrchr(vendor_name, '/');
    leaf = leaf ? leaf + 1 : vendor_name;
    char word[WORD_MAX] = "", last[WORD_MAX] = "";
    bool gauge = false;
    for (const char *s = leaf; *s;) {
        if (!is_word_char((unsigned char)*s)) {
            s++; /* '-', '_', '.' and anything else separate words */
            continue;
        }
        s = next_word(s, word);
        gauge = gauge || in_list(g->words, word);
        memcpy(last, word, sizeof(last));
    }
    if (last[0] == '\0' || in_list(g->counter_last_words, last))
        return 0;
    return gauge || in_list(g->last_words, last) || ends_in_list(g->last_suffixes, last);
}

/* ---- passthrough names --------------------------------------------------------- */

/* FNV-1a, 32 bits: a short tag that keeps shortened names apart. */
static uint32_t name_tag(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Writes `in` in snake case into out (cap bytes): bytes outside [A-Za-z0-9]
 * separate words, a word also ends where a lowercase letter or digit meets
 * an uppercase one ("VL15Dropped" -> vl15_dropped), letters are lowered and
 * separators collapse into one '_' (none at either end). Returns the length;
 * what does not fit is cut. */
static size_t snake_case(const char *in, char *out, size_t cap)
{
    size_t k = 0;
    bool sep = false;
    for (const unsigned char *s = (const unsigned char *)in; *s && k + 2 < cap; s++) {
        bool upper = is_upper(*s);
        if (!upper && !(*s >= 'a' && *s <= 'z') && !is_digit(*s)) {
            sep = k > 0;
            continue;
        }
        if (upper && s > (const unsigned char *)in && !is_upper(s[-1]) && is_word_char(s[-1]))
            sep = k > 0;
        if (sep)
            out[k++] = '_';
        sep = false;
        out[k++] = (char)(upper ? *s - 'A' + 'a' : *s);
    }
    out[k] = '\0';
    return k;
}

/* Words Prometheus' linter reserves for metric types (`promtool check
 * metrics`: "metric name should not include type"): the TYPE line says what
 * they would, so a passthrough name leaves them out. */
static const char *const type_words[] = {"counter", "gauge", "histogram", "summary", NULL};

/* A last word that is a unit Prometheus wants in its base unit ("use base
 * unit", "abbreviated units"): the name takes the base unit and the
 * exporters scale the value (traits.unit, fsc_unit_divisor). */
static const struct unit_word {
    const char *word, *base;
    uint8_t unit;
} unit_words[] = {
    {"ms", "seconds", FSC_UNIT_MILLISECONDS}, {"msec", "seconds", FSC_UNIT_MILLISECONDS},
    {"us", "seconds", FSC_UNIT_MICROSECONDS}, {"usec", "seconds", FSC_UNIT_MICROSECONDS},
    {"ns", "seconds", FSC_UNIT_NANOSECONDS},  {"nsec", "seconds", FSC_UNIT_NANOSECONDS},
    {"sec", "seconds", FSC_UNIT_SECONDS},     {"secs", "seconds", FSC_UNIT_SECONDS},
    {"bits", "bytes", FSC_UNIT_BITS},
};

/* The words of a snake-case name, in place ('_' become NUL). */
struct words {
    char *w[FSC_PROFILE_VENDOR_MAX];
    size_t n;
};

static void split_words(char *snake, struct words *ws)
{
    ws->n = 0;
    for (char *p = snake; *p && ws->n < FSC_PROFILE_VENDOR_MAX;) {
        ws->w[ws->n++] = p;
        char *u = strchr(p, '_');
        if (!u)
            break;
        *u = '\0';
        p = u + 1;
    }
}

/* Joins words[from..n) with '_' into out (cap bytes, NUL-terminated);
 * returns the length of the whole join (more than cap - 1 when cut). */
static size_t join_words(const struct words *ws, size_t from, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = from; i < ws->n; i++) {
        size_t l = strlen(ws->w[i]);
        if (k > 0) {
            if (k + 1 < cap)
                out[k] = '_';
            k++;
        }
        for (size_t j = 0; j < l; j++, k++)
            if (k + 1 < cap)
                out[k] = ws->w[i][j];
    }
    if (cap > 0)
        out[k < cap ? k : cap - 1] = '\0';
    return k;
}

/* The passthrough name of vendor name `rest` under `prefix`, in out
 * (out_size >= FSC_PROFILE_PASSTHROUGH_MAX), and the unit its value is in
 * (*unit). Lower snake case (Prometheus' naming), and what promtool's
 * linter asks of a name:
 * - the vendor's own name once: a first word equal to the prefix's last
 *   word (Junos paths start with /junos/) is left out;
 * - no type word (counter, gauge, histogram, summary);
 * - a last word that is a non-base or abbreviated unit becomes the base
 *   unit (`ms` -> `seconds`, `bits` -> `bytes`), the value scaled to it;
 * - at most FSC_PROFILE_PASSTHROUGH_MAX - 1 bytes, so a suffix an exporter
 *   adds (`_total`, `_bucket`) keeps it within 100. A longer one keeps the
 *   prefix and as many trailing words as fit (the leaf says what the value
 *   is) behind an 8-hex-digit FNV-1a tag of the whole vendor name, so two
 *   long paths ending in one leaf stay two series:
 *   fabric_junos_x1a2b3c4d_<tail>.
 * Returns 0, or -EINVAL when no letter or digit is left. */
static int passthrough_name(const char *prefix, const char *rest, char *out, size_t out_size,
                            uint8_t *unit)
{
    char snake[2 * FSC_PROFILE_VENDOR_MAX];
    char body[2 * FSC_PROFILE_VENDOR_MAX];
    struct words ws;
    *unit = FSC_UNIT_NONE;
    if (out_size < FSC_PROFILE_PASSTHROUGH_MAX)
        return -EINVAL;
    size_t np = snake_case(prefix, out, FSC_PROFILE_PASSTHROUGH_MAX / 2);
    const char *last = strrchr(out, '_');
    char own[FSC_PROFILE_PASSTHROUGH_MAX / 2]; /* the prefix's last word: "junos" */
    snprintf(own, sizeof(own), "%s", last ? last + 1 : out);
    if (np > 0)
        out[np++] = '_';

    snake_case(rest, snake, sizeof(snake));
    split_words(snake, &ws);
    size_t kept = 0;
    for (size_t i = 0; i < ws.n; i++) {
        if ((i == 0 && np > 0 && strncmp(ws.w[i], own, strlen(ws.w[i]) + 1) == 0 && ws.n > 1) ||
            in_list(type_words, ws.w[i]))
            continue;
        ws.w[kept++] = ws.w[i];
    }
    ws.n = kept;
    for (size_t u = 0; ws.n > 0 && u < sizeof(unit_words) / sizeof(unit_words[0]); u++) {
        if (strcmp(ws.w[ws.n - 1], unit_words[u].word) == 0) {
            ws.w[ws.n - 1] = (char *)unit_words[u].base;
            *unit = unit_words[u].unit;
            break;
        }
    }
    size_t k = join_words(&ws, 0, body, sizeof(body));
    if (k == 0) /* no letter or digit at all: still one series of its own */
        k = (size_t)snprintf(body, sizeof(body), "x%08" PRIx32, name_tag(rest));
    if (np == 0 && is_digit((unsigned char)body[0]))
        out[np++] = '_'; /* a name may not start with a digit */
    size_t room = FSC_PROFILE_PASSTHROUGH_MAX - np;
    if (k < room) {
        memcpy(out + np, body, k + 1);
        return 0;
    }
    /* The tag, then the longest run of whole trailing words that fits. */
    int nt = snprintf(out + np, room, "x%08" PRIx32, name_tag(rest));
    size_t from = ws.n;
    size_t len = 0;
    while (from > 0) {
        size_t l = strlen(ws.w[from - 1]) + 1; /* with its '_' */
        if (np + (size_t)nt + len + l >= FSC_PROFILE_PASSTHROUGH_MAX)
            break;
        len += l;
        from--;
    }
    if (from == ws.n) /* one last word longer than the room: its end */
        snprintf(out + np + (size_t)nt, room - (size_t)nt, "_%s",
                 body + k - (room - (size_t)nt - 2));
    else
        for (size_t i = from, at = np + (size_t)nt; i < ws.n; i++)
            at += (size_t)snprintf(out + at, FSC_PROFILE_PASSTHROUGH_MAX - at, "_%s", ws.w[i]);
    return 0;
}

int fsc_profile_map(const struct fsc_profile *prof, const char *vendor_name,
                    struct fsc_profile_match *out)
{
    memset(out, 0, sizeof(*out));
    if (vendor_name == NULL)
        return -EINVAL;
    size_t len = strnlen(vendor_name, FSC_PROFILE_VENDOR_MAX + 1);
    if (len == 0 || len > FSC_PROFILE_VENDOR_MAX)
        return -EINVAL;

    char capture[CAPTURE_MAX + 1] = "";
    const struct fsc_profile_entry *e = find_exact(prof, vendor_name);
    /* A literal "{p}" in the input is not a priority. */
    if (e != NULL && strstr(e->vendor, PLACEHOLDER) != NULL)
        e = NULL;
    if (e == NULL)
        e = find_template(prof, vendor_name, len, capture);

    out->traits.refresh_ns = prof->refresh_ns;
    out->traits.refresh = prof->refresh;
    if (e != NULL) {
        out->entry = e;
        snprintf(out->canonical, sizeof(out->canonical), "%s", e->canonical);
        if (e->label != NULL)
            snprintf(out->label_name, sizeof(out->label_name), "%s", e->label);
        snprintf(out->label_value, sizeof(out->label_value), "%s", capture);
        out->label_attr = e->attr;
        out->traits.kind = e->kind;
        out->traits.width = e->width;
        out->traits.unit = e->unit;
        out->traits.signal = e->signal;
        out->traits.direction = e->direction;
        out->traits.scale = e->scale;
        return 0;
    }

    /* Passthrough. gNMI paths start with '/', which would only add '_'. */
    const char *rest = vendor_name;
    while (*rest == '/')
        rest++;
    if (*rest == '\0')
        return -EINVAL;
    const char *prefix = prof->passthrough_prefix ? prof->passthrough_prefix : "";
    uint8_t unit;
    if (passthrough_name(prefix, rest, out->canonical, sizeof(out->canonical), &unit) != 0)
        return -EINVAL;
    out->traits.kind = fsc_profile_name_is_gauge(prof->passthrough_gauges, vendor_name)
                           ? FSC_KIND_GAUGE
                           : FSC_KIND_COUNTER;
    out->traits.width = prof->passthrough_width ? prof->passthrough_width : 64;
    out->traits.unit = unit;
    out->traits.signal = FSC_SIG_NONE;
    out->traits.direction = FSC_DIR_NONE;
    out->traits.scale = 1;
    return 0;
}

const char *fsc_profile_key_label(const struct fsc_profile *prof, const char *elem, const char *key)
{
    for (const struct fsc_key_label *k = prof && key ? prof->key_labels : NULL; k && k->key; k++)
        if (strcmp(k->key, key) == 0 && (!k->elem || (elem && strcmp(k->elem, elem) == 0)))
            return k->label;
    return NULL;
}

/* An entry applies to a device when either side names no variant or they
 * share one. */
static bool variant_applies(const struct fsc_profile_entry *e, uint8_t variant_mask)
{
    return e->variants == 0 || variant_mask == 0 || (e->variants & variant_mask) != 0;
}

int fsc_profile_map_variant(const struct fsc_profile *prof, uint8_t variant_mask,
                            const char *vendor_name, struct fsc_profile_match *out)
{
    int rc = fsc_profile_map(prof, vendor_name, out);
    if (rc != 0 || out->entry == NULL || variant_applies(out->entry, variant_mask))
        return rc;
    /* Another variant's entry: the name as an unknown one, from the same
     * profile without its table. */
    struct fsc_profile bare = *prof;
    bare.entries = NULL;
    bare.n_entries = 0;
    return fsc_profile_map(&bare, vendor_name, out);
}

uint8_t fsc_profile_variant_bit(const struct fsc_profile *prof, const char *name)
{
    for (unsigned i = 0; prof && name && prof->variant_names && i < 8; i++) {
        if (prof->variant_names[i] == NULL)
            break;
        if (strcmp(prof->variant_names[i], name) == 0)
            return (uint8_t)(1u << i);
    }
    return 0;
}

/* ---- table checks ---------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Canonical names: Prometheus rules without ':' (reserved for recording
 * rules), shorter than the match buffer. */
static bool canonical_valid(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= FSC_PROFILE_NAME_MAX || !is_name_char((unsigned char)s[0], true))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_name_char((unsigned char)s[i], false))
            return false;
    return true;
}

static bool label_valid(const char *s)
{
    return canonical_valid(s) && strlen(s) < FSC_PROFILE_LABEL_MAX && strncmp(s, "__", 2) != 0;
}

/* The sentence for one bad entry; always returns -EINVAL. */
static int entry_error(const struct fsc_profile *prof, size_t i, const char *why, char *err,
                       size_t errlen)
{
    const char *vendor = prof->entries[i].vendor ? prof->entries[i].vendor : "(null)";
    snprintf(err, errlen, "profile %s: entry %zu (%s): %s", prof->name, i, vendor, why);
    return -EINVAL;
}

static const char *entry_problem(const struct fsc_profile_entry *e)
{
    if (e->vendor == NULL || e->vendor[0] == '\0' || strlen(e->vendor) > FSC_PROFILE_VENDOR_MAX)
        return "vendor name missing or too long";
    const char *ph = strstr(e->vendor, PLACEHOLDER);
    if (ph != NULL && strstr(ph + 1, PLACEHOLDER) != NULL)
        return "more than one {p} placeholder";
    if (strchr(e->vendor, '{') != ph || (ph == NULL && strchr(e->vendor, '}') != NULL))
        return "stray brace outside a {p} placeholder";
    if (ph != NULL && (e->label == NULL || e->attr != NULL))
        return "a {p} entry needs a label and no attr";
    if (ph == NULL && (e->label == NULL) != (e->attr == NULL))
        return "label and attr must be given together";
    if (e->label != NULL && !label_valid(e->label))
        return "invalid label name";
    if (e->canonical == NULL || !canonical_valid(e->canonical))
        return "invalid canonical name";
    if (e->kind == FSC_KIND_COUNTER && !ends_with(e->canonical, "_total"))
        return "counter name must end in _total";
    if (e->kind == FSC_KIND_GAUGE && ends_with(e->canonical, "_total"))
        return "gauge name must not end in _total";
    if (e->kind > FSC_KIND_GAUGE)
        return "unknown kind";
    if (e->width != 32 && e->width != 53 && e->width != 64)
        return "width must be 32, 53 or 64";
    if (e->unit > FSC_UNIT_NANOSECONDS || e->signal >= FSC_SIG__COUNT || e->direction > FSC_DIR_TX)
        return "unknown unit, signal or direction";
    if (e->scale < 1)
        return "scale must be >= 1";
    /* The name must say what the traits say, so users are not misled. */
    if (e->unit == FSC_UNIT_BYTES && strstr(e->canonical, "_bytes") == NULL)
        return "byte unit without _bytes in the name";
    if ((e->unit == FSC_UNIT_MICROSECONDS || e->unit == FSC_UNIT_NANOSECONDS ||
         e->unit == FSC_UNIT_SECONDS) &&
        strstr(e->canonical, "_seconds") == NULL)
        return "time unit without _seconds in the name (the engine converts to seconds)";
    if (e->unit == FSC_UNIT_PERCENT && strstr(e->canonical, "_percent") == NULL)
        return "percent unit without _percent in the name";
    if (strstr(e->canonical, "_rx_") != NULL && e->direction != FSC_DIR_RX)
        return "_rx_ name without rx direction";
    if (strstr(e->canonical, "_tx_") != NULL && e->direction != FSC_DIR_TX)
        return "_tx_ name without tx direction";
    /* A peak signal reads levels, so it is never a counter; the other
     * signals read counter rates, so a gauge carries none of them. */
    if ((e->signal == FSC_SIG_QUEUE_PEAK || e->signal == FSC_SIG_LATENCY_PEAK) &&
        e->kind != FSC_KIND_GAUGE)
        return "queue-peak and latency-peak signals need a gauge";
    if (e->kind == FSC_KIND_GAUGE && e->signal != FSC_SIG_NONE && e->signal != FSC_SIG_QUEUE_PEAK &&
        e->signal != FSC_SIG_LATENCY_PEAK)
        return "a gauge carries no signal but queue-peak or latency-peak";
    if (e->signal == FSC_SIG_PORT_BYTES && e->unit != FSC_UNIT_BYTES)
        return "port-bytes signal needs byte unit";
    if (e->signal == FSC_SIG_PFC_PAUSE_DURATION && e->unit != FSC_UNIT_MICROSECONDS &&
        e->unit != FSC_UNIT_SECONDS)
        return "pause-duration signal needs a time unit";
    return NULL;
}

/* Two entries may share a canonical name only when the profile resolves
 * which one a device uses: each names variants, none in common. They must
 * then say the same thing about the series. NULL when they may share it. */
static const char *shared_canonical_problem(const struct fsc_profile_entry *a,
                                            const struct fsc_profile_entry *b)
{
    if (a->variants == 0 || b->variants == 0 || (a->variants & b->variants) != 0)
        return "canonical name already used by another entry of the same variant";
    bool same_label = (a->label == NULL) == (b->label == NULL) &&
                      (a->label == NULL || strcmp(a->label, b->label) == 0);
    if (a->kind != b->kind || a->unit != b->unit || a->signal != b->signal ||
        a->direction != b->direction || !same_label)
        return "canonical name shared across variants with other traits or label";
    return NULL;
}

int fsc_profile_check(const struct fsc_profile *prof, char *err, size_t errlen)
{
    if (prof == NULL || prof->name == NULL || (prof->n_entries > 0 && prof->entries == NULL)) {
        snprintf(err, errlen, "profile is incomplete");
        return -EINVAL;
    }
    const char *prefix = prof->passthrough_prefix ? prof->passthrough_prefix : "";
    if ((prefix[0] != '\0' && !canonical_valid(prefix)) ||
        (prof->passthrough_width != 53 && prof->passthrough_width != 64) || prof->refresh_ns < 0) {
        snprintf(err, errlen, "profile %s: bad passthrough prefix/width or refresh", prof->name);
        return -EINVAL;
    }
    unsigned all_variants = 0;
    for (unsigned v = 0; prof->variant_names && prof->variant_names[v] != NULL; v++) {
        if (v == 8) {
            snprintf(err, errlen, "profile %s: more than 8 variants", prof->name);
            return -EINVAL;
        }
        all_variants |= 1u << v;
    }
    for (size_t i = 0; i < prof->n_entries; i++) {
        const struct fsc_profile_entry *e = &prof->entries[i];
        const char *why = entry_problem(e);
        if (why != NULL)
            return entry_error(prof, i, why, err, errlen);
        if (i > 0 && strcmp(prof->entries[i - 1].vendor, e->vendor) >= 0)
            return entry_error(prof, i, "not sorted after the previous entry, or a duplicate", err,
                               errlen);
        if ((e->variants & ~all_variants) != 0)
            return entry_error(prof, i, "variant bit without a name in variant_names", err, errlen);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(prof->entries[j].canonical, e->canonical) != 0)
                continue;
            why = shared_canonical_problem(&prof->entries[j], e);
            if (why != NULL)
                return entry_error(prof, i, why, err, errlen);
        }
    }
    return 0;
}

int fsc_profile_passthrough_is_gauge(const struct fsc_profile *const *profiles,
                                     const char *canonical)
{
    const struct fsc_profile *prof;
    for (size_t i = 0; profiles && canonical && (prof = profiles[i]) != NULL; i++) {
        const char *prefix = prof->passthrough_prefix;
        size_t n = prefix ? strlen(prefix) : 0;
        if (prof->passthrough_gauges && n > 0 && strncmp(canonical, prefix, n) == 0)
            return fsc_profile_name_is_gauge(prof->passthrough_gauges, canonical + n);
    }
    return 0;
}

int fsc_profile_canonical_traits(const struct fsc_profile *const *profiles, const char *canonical,
                                 struct fsc_traits *out)
{
    const struct fsc_profile *prof;
    for (size_t i = 0; profiles && (prof = profiles[i]) != NULL; i++) {
        for (size_t k = 0; k < prof->n_entries; k++) {
            const struct fsc_profile_entry *e = &prof->entries[k];
            if (strcmp(e->canonical, canonical) != 0)
                continue;
            memset(out, 0, sizeof(*out));
            out->kind = e->kind;
            out->width = e->width == 53 ? 64 : e->width; /* replayed values are integers */
            out->unit = e->unit;
            out->signal = e->signal;
            out->direction = e->direction;
            out->scale = 1;
            return 0;
        }
    }
    return -ENOENT;
}
