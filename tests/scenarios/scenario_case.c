/* Case files (grammar in tests/scenarios/README.md): one setting per line,
 * `#` starts a comment, `vary` lines multiply the case into variants. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define LINE_MAX_WORDS 16
#define VARY_MAX       4
#define VARY_VALUES    8

struct vary {
    char key[16];
    char val[VARY_VALUES][32];
    unsigned n;
};

struct parse {
    const char *path;
    unsigned line;
    char *err;
    size_t errlen;
};

static int fail(struct parse *p, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%u: %s", p->path, p->line, msg);
    return -1;
}

/* "100ms", "2s", "-5s", "0.37s", "730ms": a duration in ns. */
static int parse_dur(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno != 0)
        return -1;
    double unit;
    if (strcmp(end, "ns") == 0)
        unit = 1;
    else if (strcmp(end, "us") == 0)
        unit = 1e3;
    else if (strcmp(end, "ms") == 0)
        unit = 1e6;
    else if (strcmp(end, "s") == 0)
        unit = 1e9;
    else
        return -1;
    double ns = v * unit;
    if (!(fabs(ns) < 9e18))
        return -1;
    *out = (int64_t)llround(ns);
    return 0;
}

static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* "400G", "10G", "100M": bits per second. */
static int parse_speed(const char *s, uint64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    double unit = strcmp(end, "G") == 0 ? 1e9 : strcmp(end, "M") == 0 ? 1e6 : 0;
    if (end == s || unit == 0 || !(v > 0))
        return -1;
    *out = (uint64_t)llround(v * unit);
    return 0;
}

static size_t split(char *line, char **w)
{
    size_t n = 0;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    for (char *t = strtok(line, " \t\r\n"); t && n < LINE_MAX_WORDS; t = strtok(NULL, " \t\r\n"))
        w[n++] = t;
    return n;
}

/* The value after keyword `key` among w[from..n), or NULL. */
static const char *opt(char **w, size_t n, size_t from, const char *key)
{
    for (size_t i = from; i + 1 < n; i++)
        if (strcmp(w[i], key) == 0)
            return w[i + 1];
    return NULL;
}

static int want_dur(struct parse *p, const char *s, const char *what, int64_t *out)
{
    if (!s || parse_dur(s, out) != 0)
        return fail(p, "%s: expected a duration such as 100ms or 2s", what);
    return 0;
}

static int want_num(struct parse *p, const char *s, const char *what, double *out)
{
    if (!s || parse_num(s, out) != 0)
        return fail(p, "%s: expected a number", what);
    return 0;
}

/* "batches N [offsets D1 .. DN]": N batches, at the offsets given or
 * spread evenly over the sample interval (set before or after `sample`:
 * the even spread is resolved when the case is complete). */
static int apply_batches(struct parse *p, struct scn_case *c, char **w, size_t n)
{
    double nb;
    if (want_num(p, w[1], "batches", &nb) != 0)
        return -1;
    if (nb < 1 || nb > SCN_MAX_BATCHES || nb != floor(nb))
        return fail(p, "batches: 1 to %d", SCN_MAX_BATCHES);
    c->n_batches = (unsigned)nb;
    if (n == 2) {
        for (unsigned b = 0; b < c->n_batches; b++)
            c->batch_offset_ns[b] = -1; /* spread evenly (scn_case_load) */
        return 0;
    }
    if (strcmp(w[2], "offsets") != 0 || n != 3 + c->n_batches)
        return fail(p, "batches N offsets D1 .. DN");
    for (unsigned b = 0; b < c->n_batches; b++)
        if (want_dur(p, w[3 + b], "batch offset", &c->batch_offset_ns[b]) != 0)
            return -1;
    return 0;
}

/* One setting (also a vary value, as "key value"). */
static int apply(struct parse *p, struct scn_case *c, char **w, size_t n)
{
    const char *k = w[0];
    if (strcmp(k, "name") == 0 && n == 2) {
        snprintf(c->name, sizeof(c->name), "%s", w[1]);
    } else if (strcmp(k, "device") == 0 && n >= 2) {
        if (strcmp(w[1], "live") == 0) {
            c->copy = SCN_LIVE;
        } else if (strcmp(w[1], "periodic") == 0 || strcmp(w[1], "on_read") == 0) {
            c->copy = w[1][0] == 'p' ? SCN_PERIODIC : SCN_ON_READ;
            if (want_dur(p, n > 2 ? w[2] : NULL, "device period", &c->period_ns) != 0)
                return -1;
            const char *ph = opt(w, n, 3, "phase"), *cj = opt(w, n, 3, "copy_jitter");
            const char *jf = opt(w, n, 3, "jiffy");
            if ((ph && want_dur(p, ph, "phase", &c->phase_ns) != 0) ||
                (cj && want_dur(p, cj, "copy_jitter", &c->copy_jitter_ns) != 0) ||
                (jf && want_dur(p, jf, "jiffy", &c->jiffy_ns) != 0))
                return -1;
        } else {
            return fail(p, "device: live, periodic <period> or on_read <lifespan>");
        }
    } else if (strcmp(k, "sample") == 0 && n >= 2) {
        if (want_dur(p, w[1], "sample interval", &c->sample_ns) != 0)
            return -1;
        const char *j = opt(w, n, 2, "jitter"), *o = opt(w, n, 2, "offset");
        const char *a = opt(w, n, 2, "arrival");
        if ((j && want_num(p, j, "jitter", &c->jitter) != 0) ||
            (o && want_dur(p, o, "offset", &c->offset_ns) != 0) ||
            (a && want_dur(p, a, "arrival delay", &c->delay_ns) != 0))
            return -1;
        if (a)
            c->arrival = true;
    } else if (strcmp(k, "phase") == 0 && n == 2) {
        return want_dur(p, w[1], "phase", &c->phase_ns);
    } else if (strcmp(k, "stamp_jitter") == 0 && n == 2) {
        return want_dur(p, w[1], "stamp_jitter", &c->stamp_jitter_ns);
    } else if (strcmp(k, "batches") == 0 && n >= 2) {
        return apply_batches(p, c, w, n);
    } else if (strcmp(k, "live_ports") == 0 && n == 2) {
        int lo, hi, used = 0;
        if (sscanf(w[1], "%d-%d%n", &lo, &hi, &used) != 2 || w[1][used] != '\0' || lo < 0 ||
            hi < lo || hi >= SCN_MAX_PORTS)
            return fail(p, "live_ports: a range of ports such as 0-1");
        c->live_lo = lo;
        c->live_hi = hi;
    } else if (strcmp(k, "ramp") == 0 && n == 7) {
        double port, to, slope;
        if (want_num(p, opt(w, n, 1, "port"), "ramp port", &port) != 0 ||
            want_num(p, opt(w, n, 1, "to"), "ramp to", &to) != 0 ||
            want_num(p, opt(w, n, 1, "slope"), "ramp slope", &slope) != 0)
            return -1;
        if (port < 0 || port >= SCN_MAX_PORTS)
            return fail(p, "ramp: no port %g", port);
        c->ramp[(unsigned)port] = true;
        c->ramp_to[(unsigned)port] = to;
        c->truth_slope[(unsigned)port] = slope;
    } else if (strcmp(k, "flap") == 0 && n == 7) {
        if (c->n_flaps == SCN_MAX_FLAPS)
            return fail(p, "more than %d flaps", SCN_MAX_FLAPS);
        struct scn_flap *f = &c->flaps[c->n_flaps];
        double port;
        if (want_num(p, opt(w, n, 1, "port"), "flap port", &port) != 0 ||
            want_dur(p, opt(w, n, 1, "at"), "flap at", &f->at_ns) != 0 ||
            want_dur(p, opt(w, n, 1, "length"), "flap length", &f->len_ns) != 0)
            return -1;
        f->port = (unsigned)port;
        c->n_flaps++;
    } else if ((strcmp(k, "lose") == 0 && n == 5) || (strcmp(k, "late") == 0 && n == 7)) {
        if (c->n_faults == SCN_MAX_FAULTS)
            return fail(p, "more than %d lost or late batches", SCN_MAX_FAULTS);
        struct scn_fault *f = &c->faults[c->n_faults];
        double batch;
        f->kind = k[1] == 'o' ? SCN_LOSE : SCN_LATE;
        if (want_num(p, opt(w, n, 1, "batch"), "batch", &batch) != 0 ||
            want_dur(p, opt(w, n, 1, "at"), "batch at", &f->at_ns) != 0 ||
            (f->kind == SCN_LATE && want_dur(p, opt(w, n, 1, "by"), "late by", &f->by_ns) != 0))
            return -1;
        f->batch = (unsigned)batch;
        c->n_faults++;
    } else if (strcmp(k, "restart") == 0 && n == 5) {
        c->restart = true;
        if (want_dur(p, opt(w, n, 1, "at"), "restart at", &c->restart_at_ns) != 0 ||
            want_dur(p, opt(w, n, 1, "shift"), "restart shift", &c->restart_shift_ns) != 0)
            return -1;
    } else if (strcmp(k, "jitter") == 0 && n == 2) {
        return want_num(p, w[1], "jitter", &c->jitter);
    } else if (strcmp(k, "offset") == 0 && n == 2) {
        return want_dur(p, w[1], "offset", &c->offset_ns);
    } else if (strcmp(k, "duration") == 0 && n == 2) {
        return want_dur(p, w[1], "duration", &c->duration_ns);
    } else if (strcmp(k, "ports") == 0 && n == 4 && strcmp(w[2], "speed") == 0) {
        double np;
        if (want_num(p, w[1], "ports", &np) != 0)
            return -1;
        if (np < 1 || np > SCN_MAX_PORTS || np != floor(np))
            return fail(p, "ports: 1 to %d", SCN_MAX_PORTS);
        c->n_ports = (unsigned)np;
        if (parse_speed(w[3], &c->speed_bps) != 0)
            return fail(p, "speed: such as 400G");
    } else if (strcmp(k, "load") == 0 && n == 5 && strcmp(w[3], "rate") == 0) {
        double port, load, rate;
        if (want_num(p, w[1], "port", &port) != 0 || want_num(p, w[2], "load", &load) != 0 ||
            want_num(p, w[4], "rate", &rate) != 0)
            return -1;
        if (port < 0 || port >= SCN_MAX_PORTS)
            return fail(p, "load: no port %g", port);
        c->load[(unsigned)port] = load;
        c->truth_rate[(unsigned)port] = rate;
    } else if (strcmp(k, "width") == 0 && n >= 2) {
        double wv, sv = 0;
        if (want_num(p, w[1], "width", &wv) != 0)
            return -1;
        if (wv != 32 && wv != 64)
            return fail(p, "width: 32 or 64");
        const char *st = opt(w, n, 2, "start");
        if (st && want_num(p, st, "start", &sv) != 0)
            return -1;
        c->width = (unsigned)wv;
        c->start_value = (uint64_t)sv;
    } else if (strcmp(k, "reset") == 0 && n == 5) {
        double port;
        if (want_num(p, opt(w, n, 1, "port"), "reset port", &port) != 0 ||
            want_dur(p, opt(w, n, 1, "at"), "reset at", &c->reset_at_ns) != 0)
            return -1;
        c->reset_port = (int)port;
    } else if (strcmp(k, "clock_step") == 0 && n == 5) {
        if (want_dur(p, opt(w, n, 1, "at"), "clock_step at", &c->step_at_ns) != 0 ||
            want_dur(p, opt(w, n, 1, "by"), "clock_step by", &c->step_ns) != 0)
            return -1;
    } else if (strcmp(k, "burst") == 0 && n == 11) {
        if (c->n_bursts == SCN_MAX_BURSTS)
            return fail(p, "more than %d bursts", SCN_MAX_BURSTS);
        struct scn_burst *b = &c->bursts[c->n_bursts];
        double port;
        if (want_num(p, opt(w, n, 1, "port"), "burst port", &port) != 0 ||
            want_dur(p, opt(w, n, 1, "at"), "burst at", &b->at_ns) != 0 ||
            want_dur(p, opt(w, n, 1, "length"), "burst length", &b->len_ns) != 0 ||
            want_num(p, opt(w, n, 1, "util"), "burst util", &b->util) != 0 ||
            want_num(p, opt(w, n, 1, "bytes"), "burst bytes", &b->truth_bytes) != 0)
            return -1;
        b->port = (unsigned)port;
        c->n_bursts++;
    } else if (strcmp(k, "cnp") == 0 && n == 5 && strcmp(w[1], "base") == 0) {
        c->cnp = true;
        if (want_num(p, w[2], "cnp base", &c->cnp_base) != 0 ||
            want_num(p, opt(w, n, 1, "rate"), "cnp base rate", &c->truth_cnp_base) != 0)
            return -1;
    } else if (strcmp(k, "storm") == 0 && n == 9) {
        if (c->n_storms == SCN_MAX_STORMS)
            return fail(p, "more than %d storms", SCN_MAX_STORMS);
        struct scn_storm *s = &c->storms[c->n_storms];
        if (want_dur(p, opt(w, n, 1, "at"), "storm at", &s->at_ns) != 0 ||
            want_dur(p, opt(w, n, 1, "length"), "storm length", &s->len_ns) != 0 ||
            want_num(p, opt(w, n, 1, "rate"), "storm rate", &s->rate) != 0 ||
            want_num(p, opt(w, n, 1, "count"), "storm count", &s->truth_count) != 0)
            return -1;
        c->n_storms++;
    } else if (strcmp(k, "expect") == 0 && n >= 2) {
        if (strcmp(w[1], "withheld") == 0 && n == 3) {
            int64_t wl;
            if (want_dur(p, w[2], "withheld window", &wl) != 0)
                return -1;
            if (wl != SCN_SEC && wl != 10 * SCN_SEC)
                return fail(p, "expect withheld: 1s or 10s");
            c->expect_withheld[wl == SCN_SEC ? 0 : 1] = true;
        } else if (strcmp(w[1], "emitted") == 0 && n == 4) {
            int64_t wl;
            double share;
            if (want_dur(p, w[2], "emitted window", &wl) != 0 ||
                want_num(p, w[3], "emitted share", &share) != 0)
                return -1;
            if ((wl != SCN_SEC && wl != 10 * SCN_SEC) || share < 0 || share > 1)
                return fail(p, "expect emitted: 1s or 10s, then a share 0..1");
            c->min_emitted[wl == SCN_SEC ? 0 : 1] = share;
        } else if (strcmp(w[1], "microbursts") == 0 && n == 3) {
            double m;
            if (want_num(p, w[2], "microbursts", &m) != 0)
                return -1;
            c->expect_microbursts = (unsigned)m;
        } else if (strcmp(w[1], "bursts_invisible") == 0 && n == 2) {
            c->bursts_invisible = true;
        } else if (strcmp(w[1], "straddle") == 0 && n == 2) {
            c->straddle = true;
        } else {
            return fail(p, "expect: withheld <window>, emitted <window> <share>, microbursts <n>, "
                           "bursts_invisible or straddle");
        }
    } else if (strcmp(k, "seed") == 0 && n == 2) {
        double s;
        if (want_num(p, w[1], "seed", &s) != 0)
            return -1;
        c->seed = (uint64_t)s;
    } else {
        return fail(p, "unknown or malformed setting '%s'", k);
    }
    return 0;
}

/* Resolves what depends on several lines and checks what cannot hold. */
static int case_finish(struct scn_case *c, char *err, size_t errlen, const char *path)
{
    for (unsigned b = 0; b < c->n_batches; b++)
        if (c->batch_offset_ns[b] < 0)
            c->batch_offset_ns[b] = c->sample_ns * (int64_t)b / (int64_t)c->n_batches;
    /* The model integrates a ramp alone (scn_bytes). */
    bool ramp_mix = false;
    for (size_t i = 0; i < c->n_bursts; i++)
        ramp_mix = ramp_mix || c->ramp[c->bursts[i].port];
    for (size_t i = 0; i < c->n_flaps; i++)
        ramp_mix = ramp_mix || c->ramp[c->flaps[i].port];
    if (ramp_mix) {
        snprintf(err, errlen, "%s: %s: a ramp port carries no burst or flap", path, c->name);
        return -1;
    }
    for (size_t i = 0; i < c->n_faults; i++)
        if (c->faults[i].batch >= c->n_batches) {
            snprintf(err, errlen, "%s: %s: batch %u of %u", path, c->name, c->faults[i].batch,
                     c->n_batches);
            return -1;
        }
    return 0;
}

/* Contract in scenario.h. */
int scn_case_load(const char *path, struct scn_variants *out, char *err, size_t errlen)
{
    struct parse p = {.path = path, .err = err, .errlen = errlen};
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct scn_case base;
    memset(&base, 0, sizeof(base));
    base.width = 64;
    base.reset_port = -1;
    base.jiffy_ns = 4 * SCN_MS; /* HZ = 250 */
    base.seed = 1;
    base.min_emitted[0] = base.min_emitted[1] = 1.0;
    base.n_batches = 1;
    base.live_lo = 0;
    base.live_hi = -1;
    struct vary vary[VARY_MAX];
    unsigned n_vary = 0;
    char line[512];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        p.line++;
        char *w[LINE_MAX_WORDS];
        size_t n = split(line, w);
        if (n == 0)
            continue;
        if (strcmp(w[0], "vary") == 0) {
            if (n < 4 || n - 2 > VARY_VALUES || n_vary == VARY_MAX) {
                rc = fail(&p, "vary <setting> <value> <value>...: 2 to %d values, %d lines",
                          VARY_VALUES, VARY_MAX);
                break;
            }
            struct vary *v = &vary[n_vary++];
            snprintf(v->key, sizeof(v->key), "%s", w[1]);
            v->n = (unsigned)(n - 2);
            for (unsigned i = 0; i < v->n; i++)
                snprintf(v->val[i], sizeof(v->val[i]), "%s", w[i + 2]);
            continue;
        }
        rc = apply(&p, &base, w, n);
    }
    fclose(f);
    if (rc != 0)
        return -1;
    if (base.n_ports == 0 || base.sample_ns <= 0 || base.duration_ns <= 0) {
        snprintf(err, errlen, "%s: ports, sample and duration are required", path);
        return -1;
    }
    /* The cartesian product of the vary lines. */
    size_t total = 1;
    for (unsigned i = 0; i < n_vary; i++)
        total *= vary[i].n;
    if (total > SCN_MAX_VARIANT) {
        snprintf(err, errlen, "%s: %zu variants, at most %d", path, total, SCN_MAX_VARIANT);
        return -1;
    }
    out->n = 0;
    for (size_t k = 0; k < total; k++) {
        struct scn_case *c = &out->v[out->n++];
        *c = base;
        size_t rest = k;
        char suffix[SCN_NAME_MAX] = "";
        for (unsigned i = 0; i < n_vary; i++) {
            const char *val = vary[i].val[rest % vary[i].n];
            rest /= vary[i].n;
            char buf[64];
            snprintf(buf, sizeof(buf), "%s %s", vary[i].key, val);
            char *w[LINE_MAX_WORDS];
            size_t n = split(buf, w);
            p.line = 0;
            if (apply(&p, c, w, n) != 0)
                return -1;
            size_t len = strlen(suffix);
            snprintf(suffix + len, sizeof(suffix) - len, "/%s=%s", vary[i].key, val);
        }
        char name[SCN_NAME_MAX];
        snprintf(name, sizeof(name), "%s%s", c->name, suffix);
        memcpy(c->name, name, sizeof(c->name));
        if (case_finish(c, err, errlen, path) != 0)
            return -1;
    }
    return 0;
}
