/* `fabricscope demo` (demo.h): the order in which the simulated fabric
 * and the collector start and stop (the command line: demo_args.c), the supervisor
 * thread that says where to look once the collector is up and ends a
 * --duration run with the same SIGTERM an operator would send.
 *
 * Start: the file limit raised (the B300 trees are ~6000 open files
 * between the poller and the fixture), every port reserved (demo_net.c; a
 * busy fixed port ends the demo before anything exists), signals blocked
 * (so only the daemon's sigtimedwait takes them), the state directory,
 * cables.txt and the config (loaded and validated before anything runs),
 * the B300 trees, then the leaves' simulators (waited for
 * until they accept connections), the fixture and spine threads, the
 * supervisor, and last the collector on the main thread.
 * Stop (after the collector returned): every demo thread is told to end and
 * joined, gRPC is shut down, the state directory is removed (the rollups
 * stay), and the report command for them is printed. */
#include <errno.h>
#include <grpc/grpc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon/plugins.h"
#include "config/config.h"
#include "daemon/daemon.h"
#include "base/log.h"
#include "demo/demo.h"
#include "demo/demo_int.h"
#include "demo/demo_state.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define NOFILE_NEEDED 8192 /* 4 x 16 ports x ~90 files, plus gRPC, HTTP, logs */
#define NOFILE_WANTED 16384
#define LEAF_UP_TRIES 200 /* x 50 ms: a simulator must listen within 10 s */
#define READY_WARN_S  30

/* The B300 trees keep ~6000 files open; a login shell's soft limit is often 1024. */
static int raise_nofile(char *err, size_t errlen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur >= NOFILE_NEEDED)
        return 0;
    rlim_t want =
        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > NOFILE_WANTED ? NOFILE_WANTED : rl.rlim_max;
    rl.rlim_cur = want;
    if (want < NOFILE_NEEDED || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(err, errlen,
                 "the demo needs %d open files and the limit is %llu (hard %llu): raise it "
                 "(ulimit -n)",
                 NOFILE_NEEDED, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
        return -1;
    }
    return 0;
}

/* ---- the supervisor ------------------------------------------------------------------ */

struct demo_main {
    struct demo_run run;
    char connect_host[DEMO_HOST]; /* where to reach the listener (0.0.0.0 -> 127.0.0.1) */
    char url_host[DEMO_HOST];     /* the same as a URL writes it */
    int prom_fd, otlp_fd, leaf_fd[DEMO_LEAVES];
    struct demo_leaf leaf[DEMO_LEAVES];
    pthread_t sup;
    bool sup_started;
};

static void print_banner(const struct demo_main *m)
{
    const struct demo_run *run = &m->run;
    printf("\nfabricscope demo: the collector is running against a simulated fabric\n"
           "  fabric     leaf1, leaf2   QFX5240 over gNMI (127.0.0.1:%u, 127.0.0.1:%u)\n"
           "             spine1         SN4700 over OTLP/gRPC to 127.0.0.1:%u\n"
           "             b300-01..04    switchless DGX B300 mesh, 16 x 400G each "
           "(sysfs fixtures)\n"
           "  config     %s\n"
           "  state      %s (%s)\n"
           "  rollups    %s/rollup (kept: fabricscope report --state-dir %s --out %s/report)\n"
           "\nWhere to look\n"
           "  status page  http://%s:%u/\n"
           "  metrics      http://%s:%u/metrics\n"
           "  event log    stderr: one `event=detect kind=... phase=start ...` line per event\n"
           "\nFault schedule (seconds from start; the transient ones repeat every %lld s)\n",
           (unsigned)run->leaf_port[0], (unsigned)run->leaf_port[1], (unsigned)run->otlp_port,
           run->config_path, run->state_dir,
           run->state_is_tmp ? "removed at exit" : "the b300-0N trees are removed at exit",
           run->rollup_dir, run->rollup_dir, run->rollup_dir, m->url_host, (unsigned)run->prom_port,
           m->url_host, (unsigned)run->prom_port, (long long)(DEMO_CYCLE_NS / DEMO_S));
    for (int i = 0; i < DEMO_F__COUNT; i++) {
        const struct demo_fault *f = &demo_faults[i];
        char when[32];
        if (f->always)
            snprintf(when, sizeof(when), "always");
        else
            snprintf(when, sizeof(when), "%g-%g s", (double)f->first_ns / DEMO_S,
                     (double)(f->first_ns + f->length_ns) / DEMO_S);
        printf("  %-11s %-8s %-10s %-15s %s\n", when, f->device, f->port, f->event, f->what);
    }
    printf("\nStop with Ctrl-C%s.\n", run->opt.duration_ns ? " (or wait for --duration)" : "");
    fflush(stdout);
}

static void *supervise(void *arg)
{
    struct demo_main *m = arg;
    struct demo_run *run = &m->run;
    int64_t warn_at = (int64_t)READY_WARN_S * DEMO_S;
    while (!atomic_load(&run->stop) && !demo_http_ready(m->connect_host, run->prom_port)) {
        if (demo_elapsed_ns(run) >= warn_at) {
            fsc_log(FSC_LOG_WARN, "demo_not_ready", "waited_s=%d port=%u", READY_WARN_S,
                    (unsigned)run->prom_port);
            warn_at += (int64_t)READY_WARN_S * DEMO_S;
        }
        if (!demo_sleep_until(run, demo_elapsed_ns(run) + 100 * DEMO_MS))
            return NULL;
    }
    if (atomic_load(&run->stop))
        return NULL;
    /* Both servers are bound and listening now: the reservations can go. */
    demo_port_release(m->prom_fd);
    demo_port_release(m->otlp_fd);
    m->prom_fd = m->otlp_fd = -1;
    atomic_store(&run->ready, 1);
    fsc_log(FSC_LOG_INFO, "demo_ready",
            "status_page=http://%s:%u/ metrics=http://%s:%u/metrics config=%s after_ms=%lld",
            m->url_host, (unsigned)run->prom_port, m->url_host, (unsigned)run->prom_port,
            run->config_path, (long long)(demo_elapsed_ns(run) / DEMO_MS));
    print_banner(m);
    if (run->opt.duration_ns && demo_sleep_until(run, run->opt.duration_ns)) {
        fsc_log(FSC_LOG_INFO, "demo_duration_over", "duration_s=%g",
                (double)run->opt.duration_ns / DEMO_S);
        kill(getpid(), SIGTERM); /* the daemon's own stop path, as for Ctrl-C */
    }
    return NULL;
}

/* ---- start and stop ------------------------------------------------------------------- */

static void start_clock(struct demo_run *run)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    run->t0_wall_ns = (int64_t)ts.tv_sec * DEMO_S + ts.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    run->t0_mono_ns = (int64_t)ts.tv_sec * DEMO_S + ts.tv_nsec;
}

/* Reserves *port on host (0: a free one, written back). A fixed port that
 * is taken fails with a sentence naming it and the option that chose it. */
static int reserve(const char *host, uint16_t *port, int *fd, const char *what, const char *option,
                   char *err, size_t errlen)
{
    uint16_t asked = *port;
    *fd = demo_port_reserve(host, port);
    if (*fd < 0 && asked)
        snprintf(err, errlen, "port %u on %s for the %s (%s) is not free: %s", (unsigned)asked,
                 host, what, option, strerror(-*fd));
    else if (*fd < 0)
        snprintf(err, errlen, "cannot reserve a port on %s for the %s: %s", host, what,
                 strerror(-*fd));
    return *fd < 0 ? -1 : 0;
}

/* Every port of the demo, before anything else exists: the fixed ones first
 * (a busy one stops the demo here, named with the option that chose it),
 * then the free ones. Returns 0 or -1 with err; what it reserved is released
 * by release_ports. */
static int reserve_ports(struct demo_main *m, char *err, size_t errlen)
{
    struct demo_run *run = &m->run;
    const struct demo_opts *o = &run->opt;
    run->otlp_port = o->otlp_port;
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        run->leaf_port[i] = o->gnmi_port[i];
    for (int fixed = 1; fixed >= 0; fixed--) {
        if ((run->prom_port != 0) == fixed && m->prom_fd < 0 &&
            reserve(run->prom_host, &run->prom_port, &m->prom_fd, "status page", o->listen_opt, err,
                    errlen) != 0)
            return -1;
        for (unsigned i = 0; i < DEMO_LEAVES; i++)
            if ((run->leaf_port[i] != 0) == fixed && m->leaf_fd[i] < 0 &&
                reserve("127.0.0.1", &run->leaf_port[i], &m->leaf_fd[i], demo_leaf_names[i],
                        o->gnmi_opt, err, errlen) != 0)
                return -1;
        if ((run->otlp_port != 0) == fixed && m->otlp_fd < 0 &&
            reserve("127.0.0.1", &run->otlp_port, &m->otlp_fd, "OTLP receiver", o->otlp_opt, err,
                    errlen) != 0)
            return -1;
    }
    return 0;
}

static void release_ports(struct demo_main *m)
{
    demo_port_release(m->prom_fd);
    demo_port_release(m->otlp_fd);
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        demo_port_release(m->leaf_fd[i]);
    m->prom_fd = m->otlp_fd = m->leaf_fd[0] = m->leaf_fd[1] = -1;
}

/* Everything up to the collector, the ports reserved: returns 0 or -1 with err. */
static int start_fabric(struct demo_main *m, struct fsc_config **cfg, struct demo_mesh **mesh,
                        struct demo_spine **spine, char *err, size_t errlen)
{
    struct demo_run *run = &m->run;
    if (demo_state_prepare(run, err, errlen) != 0)
        return -1;
    if (demo_config_write(run, err, errlen) != 0)
        return -1;
    *cfg = fsc_app_config_load(run->config_path, err, errlen);
    if (!*cfg)
        return -1;
    *mesh = demo_mesh_create(run, err, errlen);
    if (!*mesh)
        return -1;
    for (int i = 0; i < DEMO_F__COUNT; i++) {
        const struct demo_fault *f = &demo_faults[i];
        fsc_log(FSC_LOG_INFO, "demo_fault",
                "expect=%s device=%s port=%s always=%s first_s=%g length_s=%g every_s=%lld",
                f->event, f->device, f->port, f->always ? "true" : "false",
                (double)f->first_ns / DEMO_S, (double)f->length_ns / DEMO_S,
                (long long)(DEMO_CYCLE_NS / DEMO_S));
    }

    /* The demo clock starts with the simulators, which place the leaf's
     * bursts from their own start: all fault windows then share one zero. */
    start_clock(run);
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        if (demo_leaf_start(&m->leaf[i], run, i, err, errlen) != 0)
            return -1;
    for (unsigned i = 0; i < DEMO_LEAVES; i++) {
        int up = 0;
        for (int t = 0; t < LEAF_UP_TRIES && !up; t++) {
            up = demo_port_listening("127.0.0.1", run->leaf_port[i]);
            if (!up && !demo_sleep_until(run, demo_elapsed_ns(run) + 50 * DEMO_MS))
                break;
        }
        if (!up) {
            snprintf(err, errlen, "the %s simulator does not listen on port %u", demo_leaf_names[i],
                     (unsigned)run->leaf_port[i]);
            return -1;
        }
        demo_port_release(m->leaf_fd[i]);
        m->leaf_fd[i] = -1;
    }
    if (demo_mesh_start(*mesh, err, errlen) != 0)
        return -1;
    *spine = demo_spine_start(run, err, errlen);
    if (!*spine)
        return -1;
    if (pthread_create(&m->sup, NULL, supervise, m) != 0) {
        snprintf(err, errlen, "cannot start the supervisor thread");
        return -1;
    }
    m->sup_started = true;
    return 0;
}

static void stop_fabric(struct demo_main *m, struct demo_mesh *mesh, struct demo_spine *spine)
{
    struct demo_run *run = &m->run;
    atomic_store(&run->stop, 1);
    run->sim_stop = 1;
    if (m->sup_started)
        pthread_join(m->sup, NULL);
    demo_spine_stop(spine);
    demo_mesh_destroy(mesh);
    for (unsigned i = 0; i < DEMO_LEAVES; i++)
        demo_leaf_join(&m->leaf[i]);
    release_ports(m);
}

/* Where a client reaches a listener on host (a wildcard means loopback). */
static void connect_hosts(struct demo_main *m)
{
    const char *h = m->run.prom_host;
    bool any4 = strcmp(h, "0.0.0.0") == 0 || h[0] == '\0';
    bool any6 = strcmp(h, "[::]") == 0;
    snprintf(m->connect_host, sizeof(m->connect_host), "%s",
             any4   ? "127.0.0.1"
             : any6 ? "[::1]"
                    : h);
    snprintf(m->url_host, sizeof(m->url_host), "%s", m->connect_host);
}

int fsc_demo_main(int argc, char **argv)
{
    struct demo_main m; /* the threads use it: they are joined before this returns */
    char err[1024] = "";
    int help = 0;
    memset(&m, 0, sizeof(m));
    m.prom_fd = m.otlp_fd = m.leaf_fd[0] = m.leaf_fd[1] = -1;
    struct demo_run *run = &m.run;
    int rc = demo_args_parse(argc, argv, &run->opt, run->prom_host, sizeof(run->prom_host),
                             &run->prom_port, &help);
    if (rc != EXIT_OK)
        return rc;
    if (help) {
        fputs(fsc_demo_usage, stdout);
        return EXIT_OK;
    }
    connect_hosts(&m);
    if (raise_nofile(err, sizeof(err)) != 0 || reserve_ports(&m, err, sizeof(err)) != 0) {
        fprintf(stderr, "fabricscope demo: %s\n", err);
        release_ports(&m);
        return EXIT_RUNTIME;
    }
    /* Before any thread: only the daemon's sigtimedwait may take these. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    atomic_init(&run->stop, 0);
    atomic_init(&run->ready, 0);
    start_clock(run); /* provisional: start_fabric sets it again as the leaves start */

    printf("fabricscope demo: starting the simulated fabric (the two leaves announce their "
           "ports)\n");
    fflush(stdout);
    grpc_init();
    struct fsc_config *cfg = NULL;
    bool ran = false; /* the collector started */
    struct demo_mesh *mesh = NULL;
    struct demo_spine *spine = NULL;
    rc = EXIT_OK;
    if (start_fabric(&m, &cfg, &mesh, &spine, err, sizeof(err)) != 0) {
        fprintf(stderr, "fabricscope demo: %s\n", err);
        rc = EXIT_RUNTIME;
    } else {
        ran = true;
        fsc_log_set_level(cfg->log_level);
        fsc_log(FSC_LOG_INFO, "demo_started", "config=%s state_dir=%s seed=%llu duration_s=%g",
                run->config_path, run->state_dir, (unsigned long long)run->opt.seed,
                (double)run->opt.duration_ns / DEMO_S);
        if (fsc_daemon_run(cfg, run->config_path, err, sizeof(err)) != 0) {
            char q[1100];
            fsc_log(FSC_LOG_ERROR, "exit", "reason=%s", fsc_log_quote(err, q, sizeof(q)));
            rc = EXIT_RUNTIME;
        }
    }
    stop_fabric(&m, mesh, spine);
    fsc_config_destroy(cfg);
    grpc_shutdown();
    int crc = demo_state_cleanup(run);
    if (crc != 0)
        fsc_log(FSC_LOG_WARN, "demo_cleanup_failed", "state_dir=%s error=%s", run->state_dir,
                strerror(-crc));
    fsc_log(FSC_LOG_INFO, "demo_stopped", "status=%d rollups=%s/rollup", rc,
            run->rollup_dir[0] ? run->rollup_dir : "none");
    if (ran && run->rollup_dir[0]) {
        /* The collector ran: its rollups are there for a report. */
        printf("\nfabricscope demo: stopped. The rollups are kept in %s/rollup; a report of "
               "them:\n  fabricscope report --state-dir %s --out %s/report\n",
               run->rollup_dir, run->rollup_dir, run->rollup_dir);
        fflush(stdout);
    }
    return rc;
}
