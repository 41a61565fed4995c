/* fabricscope-nic-fixture: the command line over nicfx.h for tests and
 * benchmarks (built next to the fabricscope binary, not installed). The
 * usage text below is its reference; nicfx.h has the layout and the
 * arithmetic. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nicfx.h"

#define PROG "fabricscope-nic-fixture"

static const char usage_text[] =
    "usage:\n"
    "  " PROG " init ROOT [--devices N] [--gbps G] [--cnp-rate R] [--oos-rate R]\n"
    "                        [--lifespan MS] [--speed-mbps M] [--ifname-format FMT]\n"
    "  " PROG " step ROOT [--dt-ms MS] [--device K] [--gbps G] [--cnp-rate R]\n"
    "                        [--oos-rate R] [--reset K] [--near-wrap K] [--set K:NAME=V]\n"
    "                        [--add K:NAME=D] [--cnp-storm K[:RATE]] [--freeze K]\n"
    "                        [--degrade-pcie K] [--restore-pcie K] [--link-down K]\n"
    "                        [--link-up K] [--aer K:KIND:LABEL=N]\n"
    "  " PROG " run ROOT [--dt-ms MS] [--steps N]\n"
    "  " PROG " show ROOT\n"
    "\n"
    "A sysfs fixture tree of DGX B300 ConnectX-8 NICs under ROOT/sys (the layout\n"
    "and the step arithmetic: collector/demo/nicfx/nicfx.h).\n"
    "init   ROOT must be empty or absent. N devices mlx5_0..N-1 (1..64, default 1),\n"
    "       netdev FMT with {n} = K+1 and {k} = K replaced ({{ and }} are braces;\n"
    "       default ens{n}f0np0), BDF 0000:XX:00.0 with XX = 0x20+K. Every counter\n"
    "       0; lifespan MS (default 10); speed M Mb/s (default 400000). Base rates\n"
    "       per device: G Gb/s of data each way (default 100), R CNPs per second\n"
    "       (default 0), R out_of_sequence per second (default 0). Rates are exact\n"
    "       fractions: 100, 2.5, 1e3, 7/2.\n"
    "step   advances the clock by MS (default 100): --reset, --near-wrap, --set,\n"
    "       the rate increments (--gbps/--cnp-rate/--oos-rate override the base\n"
    "       rates for this step, for --device K alone when given), --cnp-storm\n"
    "       (RATE default 100000/s), --add, --degrade-pcie/--restore-pcie,\n"
    "       --link-down/--link-up, --aer (KIND cor|fatal|nonfatal), then every file\n"
    "       rewritten in place but the hw_counters of a --freeze K device. NAME is\n"
    "       any counter file name; options taking K may be repeated.\n"
    "run    steps every MS of real time (default 100) until N steps of MS (default\n"
    "       0: until SIGTERM or SIGINT), each by the real time elapsed in whole\n"
    "       MS (a late step covers the intervals it missed); the state is saved\n"
    "       at the end.\n"
    "show   prints the state (ROOT/" FSC_NICFX_STATE_FILE ") on stdout.\n"
    "Exit status: 0; 2 with a message on stderr for a usage error or an\n"
    "unreadable state; 1 when a file cannot be written.\n";

/* A usage error: the message and exit status 2. */
__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---- numbers ---------------------------------------------------------------------- */

/* A decimal integer with an optional sign, within [lo, hi]. */
static int64_t int_arg(const char *opt, const char *s, int64_t lo, int64_t hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    bool starts_ok = (*s >= '0' && *s <= '9') || *s == '-' || *s == '+';
    if (!starts_ok || *end != '\0' || errno != 0)
        die("%s: not an integer: '%s'", opt, s);
    if (v < lo || v > hi)
        die("%s must be %lld..%lld", opt, (long long)lo, (long long)hi);
    return v;
}

/* A decimal integer of any size with an optional sign, modulo 2^64 (a
 * negative one wraps: V mod 2^width, as the model takes it). */
static bool int_mod64(const char *s, uint64_t *v)
{
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s == '\0')
        return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = neg ? 0 - x : x;
    return true;
}

static struct fsc_nicfx_rate rate_arg(const char *opt, const char *s)
{
    struct fsc_nicfx_rate r;
    if (fsc_nicfx_rate_parse(s, &r) != 0)
        die("%s must be a number >= 0", opt);
    return r;
}

/* ---- the command line ---------------------------------------------------------------- */

struct args {
    const char *root;
    int argc;
    char **argv;
    int i; /* next argument */
};

/* The next option of a (its value in *val, NULL for none), or NULL at the
 * end; a positional argument becomes ROOT. */
static const char *next_opt(struct args *a, const char **val)
{
    while (a->i < a->argc) {
        char *arg = a->argv[a->i++];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (a->root)
                die("unexpected argument '%s'", arg);
            a->root = arg;
            continue;
        }
        char *eq = strchr(arg, '=');
        if (eq) {
            *eq = '\0';
            *val = eq + 1;
        } else if (a->i < a->argc) {
            *val = a->argv[a->i++];
        } else {
            die("%s needs a value", arg);
        }
        return arg;
    }
    return NULL;
}

static void need_root(const struct args *a)
{
    if (!a->root)
        die("ROOT is required (--help)");
}

/* ---- init --------------------------------------------------------------------------- */

/* FMT with {n} and {k} replaced; false when FMT has any other brace. */
static bool ifname_format(char *out, size_t size, const char *fmt, unsigned k)
{
    size_t len = 0;
    for (const char *p = fmt; *p; p++) {
        char one[24] = {*p, '\0'};
        if (strncmp(p, "{n}", 3) == 0 || strncmp(p, "{k}", 3) == 0) {
            snprintf(one, sizeof(one), "%u", p[1] == 'n' ? k + 1 : k);
            p += 2;
        } else if (strncmp(p, "{{", 2) == 0 || strncmp(p, "}}", 2) == 0) {
            p++;
        } else if (*p == '{' || *p == '}') {
            return false;
        }
        int n = snprintf(out + len, size - len, "%s", one);
        if (n < 0 || (size_t)n >= size - len)
            return false;
        len += (size_t)n;
    }
    return true;
}

/* ROOT absent, or an empty directory. */
static bool root_is_free(const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        return errno == ENOENT;
    struct dirent *de;
    bool empty = true;
    while (empty && (de = readdir(d)) != NULL)
        empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
    closedir(d);
    return empty;
}

static int cmd_init(struct args *a, struct fsc_nicfx *fx)
{
    long long devices = 1, lifespan = 10, speed = 400000;
    struct fsc_nicfx_rate gbps = {100, 1}, cnp = {0, 1}, oos = {0, 1};
    const char *fmt = "ens{n}f0np0", *opt, *v;
    while ((opt = next_opt(a, &v)) != NULL) {
        if (strcmp(opt, "--devices") == 0)
            devices = int_arg(opt, v, INT64_MIN, INT64_MAX);
        else if (strcmp(opt, "--gbps") == 0)
            gbps = rate_arg(opt, v);
        else if (strcmp(opt, "--cnp-rate") == 0)
            cnp = rate_arg(opt, v);
        else if (strcmp(opt, "--oos-rate") == 0)
            oos = rate_arg(opt, v);
        else if (strcmp(opt, "--lifespan") == 0)
            lifespan = int_arg(opt, v, INT32_MIN, INT32_MAX);
        else if (strcmp(opt, "--speed-mbps") == 0)
            speed = int_arg(opt, v, INT64_MIN, INT64_MAX);
        else if (strcmp(opt, "--ifname-format") == 0)
            fmt = v;
        else
            die("init: unknown option %s", opt);
    }
    need_root(a);
    if (!root_is_free(a->root))
        die("%s exists and is not empty", a->root);
    if (devices < 1 || devices > FSC_NICFX_DEVICES_MAX)
        die("--devices must be 1..%d", FSC_NICFX_DEVICES_MAX);
    memset(fx, 0, sizeof(*fx));
    fx->lifespan_ms = (int)lifespan;
    fx->n = (size_t)devices;
    char err[512];
    for (unsigned k = 0; k < fx->n; k++) {
        struct fsc_nicfx_dev *dev = &fx->dev[k];
        char ifname[64];
        if (!ifname_format(ifname, sizeof(ifname), fmt, k))
            die("--ifname-format: only {n}, {k}, {{ and }} are replaced");
        if (fsc_nicfx_dev_init(dev, 0, k, ifname, err, sizeof(err)) != 0)
            die("--ifname-format: %s", err);
        dev->lifespan_ms = fx->lifespan_ms;
        dev->speed_mbps = speed;
        dev->gbps = gbps;
        dev->cnp_rate = cnp;
        dev->oos_rate = oos;
    }
    if (mkdir(a->root, 0755) == -1 && errno != EEXIST) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", a->root, strerror(errno));
        return 1;
    }
    for (size_t k = 0; k < fx->n; k++)
        if (fsc_nicfx_tree_create(a->root, &fx->dev[k], err, sizeof(err)) != 0) {
            fprintf(stderr, PROG ": %s\n", err);
            return 1;
        }
    if (fsc_nicfx_state_save(a->root, fx, err, sizeof(err)) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    return 0;
}

/* ---- step and run ----------------------------------------------------------------------- */

static void load(const char *root, struct fsc_nicfx *fx)
{
    char err[512];
    if (fsc_nicfx_state_load(root, fx, err, sizeof(err)) != 0)
        die("%s", err);
}

static unsigned dev_index(const struct fsc_nicfx *fx, const char *s)
{
    char *end;
    errno = 0;
    long long k = strtoll(s, &end, 10);
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+') || *end != '\0' || errno != 0)
        die("not a device index: '%s'", s);
    if (k < 0 || (size_t)k >= fx->n)
        die("no device %lld (the fixture has %zu)", k, fx->n);
    return (unsigned)k;
}

/* K:NAME=V of --set / --add into op. */
static void counter_op(const struct fsc_nicfx *fx, const char *spec, struct fsc_nicfx_op *op)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *eq = strchr(buf, '='), *colon = strchr(buf, ':');
    if (!eq || !colon || colon > eq || colon + 1 == eq)
        die("expected K:NAME=VALUE, got '%s'", spec);
    *eq = *colon = '\0';
    if (!int_mod64(eq + 1, &op->value))
        die("not an integer in '%s'", spec);
    op->dev = dev_index(fx, buf);
    int c = fsc_nicfx_ctr_find(colon + 1);
    if (c < 0)
        die("no counter '%s'", colon + 1);
    op->ctr = (enum fsc_nicfx_ctr)c;
}

/* K[:RATE] of --cnp-storm into op. */
static void storm_op(const struct fsc_nicfx *fx, const char *spec, struct fsc_nicfx_op *op)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon++ = '\0';
    op->dev = dev_index(fx, buf);
    op->rate = (struct fsc_nicfx_rate){100000, 1};
    if (colon && *colon && fsc_nicfx_rate_parse(colon, &op->rate) != 0)
        die("not a rate in --cnp-storm '%s'", spec);
}

/* K:KIND:LABEL=N of --aer into op. */
static void aer_op(const struct fsc_nicfx *fx, const char *spec, struct fsc_nicfx_op *op)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *kind = strchr(buf, ':');
    char *label = kind ? strchr(kind + 1, ':') : NULL;
    if (label)
        *kind++ = *label++ = '\0';
    int k = -1;
    for (int i = 0; label && i < FSC_NICFX__AER_KINDS; i++)
        if (strcmp(kind, fsc_nicfx_aer[i].kind) == 0)
            k = i;
    if (k < 0)
        die("expected K:cor|fatal|nonfatal:LABEL=N, got '%s'", spec);
    op->dev = dev_index(fx, buf);
    op->aer = (enum fsc_nicfx_aer_kind)k;
    char *eq = strrchr(label, '=');
    char *end;
    errno = 0;
    op->aer_n = eq ? strtoll(eq + 1, &end, 10) : 0;
    if (!eq || eq[1] == '\0' || *end != '\0' || errno != 0)
        die("not an integer in '%s'", spec);
    *eq = '\0';
    const struct fsc_nicfx_aer_def *a = &fsc_nicfx_aer[k];
    for (op->aer_label = 0; op->aer_label < a->n_labels; op->aer_label++)
        if (strcmp(a->labels[op->aer_label], label) == 0)
            return;
    die("no AER label '%s' in %s", label, a->kind);
}

/* Options naming one device K, and the op each makes. */
static const struct {
    const char *opt;
    enum fsc_nicfx_op_kind kind;
} device_opts[] = {
    {"--reset", FSC_NICFX_OP_RESET},
    {"--near-wrap", FSC_NICFX_OP_NEAR_WRAP},
    {"--freeze", FSC_NICFX_OP_FREEZE},
    {"--degrade-pcie", FSC_NICFX_OP_DEGRADE_PCIE},
    {"--restore-pcie", FSC_NICFX_OP_RESTORE_PCIE},
    {"--link-down", FSC_NICFX_OP_LINK_DOWN},
    {"--link-up", FSC_NICFX_OP_LINK_UP},
};

/* Applies step to fx in memory, rewrites the files and saves the state.
 * Returns the exit status. */
static int step_and_write(const char *root, struct fsc_nicfx *fx, const struct fsc_nicfx_step *st)
{
    char err[512];
    uint64_t frozen = fsc_nicfx_step(fx->dev, fx->n, st);
    fx->t_ms += st->dt_ms;
    fx->steps++;
    for (size_t k = 0; k < fx->n; k++)
        if (fsc_nicfx_tree_write(root, &fx->dev[k], (frozen >> k) & 1, err, sizeof(err)) != 0) {
            fprintf(stderr, PROG ": %s\n", err);
            return 1;
        }
    return 0;
}

static int save(const char *root, const struct fsc_nicfx *fx)
{
    char err[512];
    if (fsc_nicfx_state_save(root, fx, err, sizeof(err)) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_step(struct args *a, struct fsc_nicfx *fx)
{
    /* ROOT first: the options naming devices are checked against its state. */
    for (int i = a->i; i < a->argc && !a->root; i++)
        if (strncmp(a->argv[i], "--", 2) != 0)
            a->root = a->argv[i];
        else if (!strchr(a->argv[i], '='))
            i++;
    need_root(a);
    load(a->root, fx);
    struct fsc_nicfx_op *ops = calloc((size_t)a->argc, sizeof(*ops));
    if (!ops) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    struct fsc_nicfx_rate gbps, cnp, oos;
    struct fsc_nicfx_step st = {.dt_ms = 100, .only = -1, .ops = ops};
    const char *opt, *v, *root = a->root;
    a->root = NULL;
    while ((opt = next_opt(a, &v)) != NULL) {
        struct fsc_nicfx_op *op = &ops[st.n_ops];
        size_t d = 0;
        while (d < sizeof(device_opts) / sizeof(device_opts[0]) &&
               strcmp(opt, device_opts[d].opt) != 0)
            d++;
        if (d < sizeof(device_opts) / sizeof(device_opts[0])) {
            op->kind = device_opts[d].kind;
            op->dev = dev_index(fx, v);
        } else if (strcmp(opt, "--set") == 0 || strcmp(opt, "--add") == 0) {
            op->kind = opt[2] == 's' ? FSC_NICFX_OP_SET : FSC_NICFX_OP_ADD;
            counter_op(fx, v, op);
        } else if (strcmp(opt, "--cnp-storm") == 0) {
            op->kind = FSC_NICFX_OP_CNP_STORM;
            storm_op(fx, v, op);
        } else if (strcmp(opt, "--aer") == 0) {
            op->kind = FSC_NICFX_OP_AER;
            aer_op(fx, v, op);
        } else {
            if (strcmp(opt, "--dt-ms") == 0) {
                st.dt_ms = int_arg(opt, v, 0, FSC_NICFX_DT_MS_MAX);
            } else if (strcmp(opt, "--device") == 0) {
                st.only = (int)dev_index(fx, v);
            } else if (strcmp(opt, "--gbps") == 0) {
                gbps = rate_arg(opt, v);
                st.gbps = &gbps;
            } else if (strcmp(opt, "--cnp-rate") == 0) {
                cnp = rate_arg(opt, v);
                st.cnp_rate = &cnp;
            } else if (strcmp(opt, "--oos-rate") == 0) {
                oos = rate_arg(opt, v);
                st.oos_rate = &oos;
            } else {
                die("step: unknown option %s", opt);
            }
            continue;
        }
        st.n_ops++;
    }
    int rc = step_and_write(root, fx, &st);
    if (rc == 0)
        rc = save(root, fx);
    free(ops);
    return rc;
}

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int cmd_run(struct args *a, struct fsc_nicfx *fx)
{
    int64_t dt = 100, steps = 0;
    const char *opt, *v;
    while ((opt = next_opt(a, &v)) != NULL) {
        if (strcmp(opt, "--dt-ms") == 0)
            dt = int_arg(opt, v, 1, 3600 * 1000);
        else if (strcmp(opt, "--steps") == 0)
            steps = int_arg(opt, v, 0, INT32_MAX);
        else
            die("run: unknown option %s", opt);
    }
    need_root(a);
    load(a->root, fx);
    /* No SA_RESTART: the signal ends the sleep, and the state is saved. */
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int64_t t0 = monotonic_ms(), done = 0;
    int rc = 0;
    while (rc == 0 && !stop_requested && (steps == 0 || done < steps)) {
        int64_t deadline = t0 + (done + 1) * dt;
        struct timespec ts = {.tv_sec = deadline / 1000, .tv_nsec = deadline % 1000 * 1000000};
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            continue; /* a signal: the loop condition decides */
        int64_t due = (monotonic_ms() - t0) / dt;
        if (steps != 0 && due > steps)
            due = steps;
        if (due <= done)
            continue;
        struct fsc_nicfx_step st = {.dt_ms = (due - done) * dt, .only = -1};
        rc = step_and_write(a->root, fx, &st);
        done = due;
    }
    int saved = save(a->root, fx);
    return rc != 0 ? rc : saved;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    struct args a = {.argc = argc, .argv = argv, .i = 2};
    struct fsc_nicfx *fx = calloc(1, sizeof(*fx));
    if (!fx) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    int rc;
    const char *cmd = argv[1];
    if (strcmp(cmd, "init") == 0) {
        rc = cmd_init(&a, fx);
    } else if (strcmp(cmd, "step") == 0) {
        rc = cmd_step(&a, fx);
    } else if (strcmp(cmd, "run") == 0) {
        rc = cmd_run(&a, fx);
    } else if (strcmp(cmd, "show") == 0) {
        const char *v;
        if (next_opt(&a, &v) != NULL)
            die("show takes ROOT only");
        need_root(&a);
        load(a.root, fx);
        rc = fsc_nicfx_state_print(fx) == 0 ? 0 : 1;
    } else {
        die("unknown command '%s' (init, step, run, show; --help)", cmd);
    }
    free(fx);
    return rc;
}
