/* The demo's parts, shared by its files (internal to collector/demo):
 *   demo_args.c      the command line and its usage text
 *   demo_main.c      start and stop order, the supervisor thread
 *   demo_schedule.c  the fault schedule and the fabric's names (one place)
 *   demo_state.c     the state directory (demo_state.h)
 *   demo_net.c       loopback ports: reservation, probes, the readiness check
 *   demo_config.c    the generated collector config and cables.txt
 *   demo_leaf.c      the two gNMI leaves (fsc_gnmi_sim server threads)
 *   demo_otlp.c      the spine's OTLP/gRPC sender thread
 *   demo_fixture.c   the B300 sysfs trees: layout and creation (demo_mesh_int.h)
 *   demo_fixture_step.c  the counter model and the stepping thread
 *
 * Time: every fault window is an offset from the demo's start (t0, taken
 * before any simulator starts), repeating every DEMO_CYCLE_NS; the leaves'
 * simulator places its bursts the same way from its own start, a few ms
 * after t0. */
#ifndef FSC_DEMO_INT_H
#define FSC_DEMO_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "demo/sim/gnmi_sim.h"

#define DEMO_MS          1000000LL
#define DEMO_S           1000000000LL
#define DEMO_PATH        1024 /* paths under the state directory */
#define DEMO_HOST        256  /* host part of --listen */
#define DEMO_NODES       4    /* B300 nodes */
#define DEMO_NICS        16   /* interfaces (mlx5 devices) per B300 node */
#define DEMO_LEAVES      2
#define DEMO_LEAF_PORTS  8 /* et-0/0/0 .. et-0/0/7 */
#define DEMO_SPINE_PORTS 8 /* swp1 .. swp8 */
#define DEMO_SPINE_TCS   8 /* traffic classes 0 .. 7 */

/* ---- the fault schedule (demo_schedule.c) ----------------------------------------- */

/* Every transient fault repeats with this period, so a watcher sees them
 * again, and a run of one period plus a few seconds sees each exactly once
 * (the test runs 36 s). */
#define DEMO_CYCLE_NS (30 * DEMO_S)

enum demo_fault_id {                     /* in the order of their first window */
                     DEMO_F_PCIE = 0,    /* b300-01: a NIC's PCIe link at Gen5 x8 (always) */
                     DEMO_F_SWAP,        /* b300-04: the cables of ports 4 and 5 swapped (always) */
                     DEMO_F_ECN,         /* spine1 swp3 tc 3: ECN-mark storm */
                     DEMO_F_CNP,         /* b300-02: CNP storm (np_cnp_sent) */
                     DEMO_F_SPINE_BURST, /* spine1 swp5: 2 s at line rate out of a 40 % load */
                     DEMO_F_REORDER,     /* b300-03: out_of_sequence burst */
                     DEMO_F_NIC_BURST,  /* b300-01 -> b300-02: 300 ms at line rate over one cable */
                     DEMO_F_LEAF_BURST, /* leaf2 et-0/0/3: line-rate burst of 300 ms, both
                                           directions */
                     DEMO_F__COUNT
};

struct demo_fault {
    const char *event;  /* the event kind it must raise ("cnp_spike", ...) */
    const char *device; /* device label */
    const char *port;   /* port label */
    bool always;        /* a state from the start, not a window */
    int64_t first_ns;   /* first window starts at t0 + first_ns ... */
    int64_t length_ns;  /* ... lasts this long, then again every DEMO_CYCLE_NS */
    const char *what;   /* one line for the banner and the log */
};

extern const struct demo_fault demo_faults[DEMO_F__COUNT];

/* Time (ns) the fault's windows cover in [0, e_ns) of the demo clock: exact,
 * so a counter that adds R per second inside the windows adds R * this / 1e9.
 * 0 for an `always` fault. Thread: any. */
int64_t demo_fault_overlap(enum demo_fault_id id, int64_t e_ns);

/* Whether e_ns (demo clock) is inside one of the fault's windows (always for
 * an `always` fault). Thread: any. */
bool demo_fault_active(enum demo_fault_id id, int64_t e_ns);

/* floor(per_s * us / 1e6) for us >= 0 (0 below), exact and without overflow
 * for per_s below 1.8e13: the integral of a constant rate, which is how
 * every simulated counter of the demo is made. Thread: any. */
uint64_t demo_integral_us(uint64_t per_s, int64_t us);

/* Storm and burst sizes: the numbers docs/DEMO.md quotes. */
#define DEMO_ECN_STORM_PER_S     250000 /* extra ECN marks/s on spine1 swp3 tc 3 */
#define DEMO_CNP_STORM_PER_S     100000 /* extra np_cnp_sent/s on the B300 port */
#define DEMO_REORDER_BURST_PER_S 20000  /* extra out_of_sequence/s */
#define DEMO_LEAF_BURST_PORT     3      /* et-0/0/3 of leaf2 */
#define DEMO_LEAF_BURST_QUEUE    3      /* the egress queue the burst fills */
/* Its peak (max-queue-len): 62.5 % of the leaves' 165 MiB buffer, over the collector's
 * queue_peak_share (0.5); the other queues stay at utilization x 1e6 >> q. */
#define DEMO_LEAF_BURST_PEAK  108134400u
#define DEMO_LEAF_BATCH_PORTS 4 /* Junos batches: half the ports per 2 s interval */
/* Line rate of every port of the demo (400G), in bytes per second. */
#define DEMO_LINE_BYTES_PER_S 50000000000ull
/* DEMO_F_SPINE_BURST: spine1's swp5 (DEMO_SPINE_BURST_PORT) carries
 * DEMO_SPINE_LOAD_PCT % of line rate each way and, inside the windows, sends
 * at line rate. */
#define DEMO_SPINE_BURST_PORT 5
#define DEMO_SPINE_LOAD_PCT   40
/* leaf1's copies 1 s after the simulator's start: its reports follow the
 * collector's subscription, made a few hundred ms after that start, so its
 * +-100 ms reads stay far from the copies (reads straddling the copies
 * leave a copy's count to chance: docs/ACCURACY.md, known limits). */
#define DEMO_LEAF_COPY_PHASE_MS 1000

/* DEMO_F_SWAP: on this node (1-based) the cables planned for these two
 * physical ports are plugged into each other's port. With the demo's plan
 * port 4 goes to b300-03 port 4 (card 5: ens6f0np0 / ens6f1np1) and port 5
 * to b300-02 port 5 (card 0: ens1f0np0 / ens1f1np1): eight interfaces see a
 * wrong peer, four on b300-04 and two on each of its two peers. */
#define DEMO_SWAP_NODE   4
#define DEMO_SWAP_PORT_A 4
#define DEMO_SWAP_PORT_B 5

/* One B300 interface's transmit rate, Gb/s: 100 + 5 x ((node + device +
 * seed) mod 16), node 1..4, device (mlx5_K) 0..15, so 100..175 Gb/s (25 %
 * to 43.75 % of 400G), and a link's utilization is known from its two ends
 * (docs/DEMO.md; the demo.status_page_and_report test computes it the same
 * way). A mis-cabled interface sends nothing: RoCE cannot resolve a peer
 * that does not answer ARP. */
#define DEMO_B300_GBPS(node, dev, seed) (100u + 5u * (unsigned)(((node) + (dev) + (seed)) % 16u))

/* Names of the fabric: "leaf1", "spine1", "b300-01", ... */
extern const char *const demo_leaf_names[DEMO_LEAVES];
#define DEMO_SPINE_NAME "spine1"
extern const char *const demo_node_names[DEMO_NODES];

/* ---- the run ---------------------------------------------------------------------- */

struct demo_opts {
    int64_t duration_ns;   /* 0: until SIGINT / SIGTERM */
    const char *listen;    /* Prometheus listener (default 127.0.0.1:9464, or --port-base's) */
    const char *state_dir; /* NULL: a fresh temporary directory, rollups in rollup_home */
    uint64_t seed;
    uint16_t port_base;              /* --port-base; 0: none */
    uint16_t gnmi_port[DEMO_LEAVES]; /* --gnmi-ports or --port-base; 0: a free one each */
    uint16_t otlp_port;              /* --otlp-port or --port-base; 0: a free one */
    /* The option that chose each port, for the sentence about a busy one. */
    const char *listen_opt, *gnmi_opt, *otlp_opt;
    char listen_buf[32]; /* "127.0.0.1:N" from --port-base */
};

/* Parses argv (argv[0] "demo") into *o (zeroed by the caller) and the
 * listener's host and port. Returns 0 (with *help set for -h / --help) or
 * 2 after printing a usage error. Thread: main. (demo_args.c) */
int demo_args_parse(int argc, char **argv, struct demo_opts *o, char *host, size_t hostlen,
                    uint16_t *port, int *help);

/* Everything the parts share. Written by the main thread before the threads
 * start; afterwards only `stop` (atomic) and `sim_stop` change. */
struct demo_run {
    struct demo_opts opt;
    char state_dir[DEMO_PATH];
    bool state_is_tmp;          /* created by us: removed whole at exit */
    char rollup_dir[DEMO_PATH]; /* the collector's state_dir (rollups in rollup/): kept */
    char config_path[DEMO_PATH];
    char cables_path[DEMO_PATH];
    char node_root[DEMO_NODES][DEMO_PATH]; /* <state>/b300-0N: sysfs_root of node N */
    int64_t t0_wall_ns, t0_mono_ns;        /* the demo clock's zero */

    char prom_host[DEMO_HOST]; /* host part of --listen, as the config writes it */
    uint16_t prom_port;        /* resolved (a reservation when --listen said 0) */
    uint16_t otlp_port;        /* the collector's OTLP/gRPC receiver */
    uint16_t leaf_port[DEMO_LEAVES];

    atomic_int ready;               /* the collector answered /-/ready (supervisor) */
    atomic_int stop;                /* set once: every thread ends */
    volatile sig_atomic_t sim_stop; /* fsc_sim_config.stop of the leaves */
};

/* ns since t0 on the monotonic clock, and the wall time of such an offset. */
int64_t demo_elapsed_ns(const struct demo_run *run);
int64_t demo_wall_ns(const struct demo_run *run, int64_t e_ns);

/* Sleeps until elapsed >= e_ns or stop is set, in slices of at most 100 ms.
 * Returns false when stopped. */
bool demo_sleep_until(struct demo_run *run, int64_t e_ns);

/* ---- loopback ports (demo_net.c) --------------------------------------------------- */

/* Binds a TCP socket on host:port (port 0: a free one) with SO_REUSEADDR and
 * does not listen: the port stays ours while a server that also sets
 * SO_REUSEADDR (gRPC, libmicrohttpd via the exporter) binds it, and nobody
 * else's bind or ephemeral connect can take it meanwhile. Returns the fd
 * (*port set to the bound port) or a negative errno. */
int demo_port_reserve(const char *host, uint16_t *port);

/* Closes a reservation (fd < 0: no-op). */
void demo_port_release(int fd);

/* 1 when something accepts TCP connections on host:port, else 0. */
int demo_port_listening(const char *host, uint16_t port);

/* 1 when GET /-/ready on host:port answers 200, else 0 (1 s timeouts). */
int demo_http_ready(const char *host, uint16_t port);

/* ---- the generated files (demo_config.c) ------------------------------------------- */

/* Writes cables.txt and the collector config into the state directory.
 * Returns 0 or -1 with a sentence in err. */
int demo_config_write(const struct demo_run *run, char *err, size_t errlen);

/* The cables as plugged: cables.txt's plan with the two cables of
 * DEMO_SWAP_PORT_A / _B on DEMO_SWAP_NODE exchanged (NUL-terminated). */
extern const char demo_cables_built_txt[];

/* ---- the leaves (demo_leaf.c) ------------------------------------------------------ */

struct demo_leaf {
    struct fsc_sim_config cfg;
    char listen[64];
    char system_id[64];
    pthread_t thread;
    bool started;
    int rc;
    char err[256];
};

/* Fills leaf i's simulator config (port from run->leaf_port[i]) and starts
 * its server thread. Returns 0 or -1 with a sentence in err. */
int demo_leaf_start(struct demo_leaf *lf, struct demo_run *run, unsigned i, char *err,
                    size_t errlen);

/* Waits for the server thread (it ends when run->sim_stop is set) and logs
 * how it ended. No-op when it was not started. */
void demo_leaf_join(struct demo_leaf *lf);

/* ---- the spine (demo_otlp.c) ------------------------------------------------------- */

struct demo_spine;

/* Starts the sender thread posting to 127.0.0.1:run->otlp_port. Returns the
 * sender (demo_spine_stop) or NULL with a sentence in err. */
struct demo_spine *demo_spine_start(struct demo_run *run, char *err, size_t errlen);

/* Ends the thread (run->stop must be set), logs its counts, frees. NULL: no-op. */
void demo_spine_stop(struct demo_spine *sp);

/* ---- the B300 mesh (demo_fixture.c, demo_fixture_step.c) --------------------------- */

struct demo_mesh;

/* Builds the four sysfs trees (every counter at 0, the static faults in
 * place) under run->node_root[]. Returns the mesh or NULL with a sentence
 * in err. Thread: main, before the collector starts. */
struct demo_mesh *demo_mesh_create(struct demo_run *run, char *err, size_t errlen);

/* Starts the thread that steps the counters every 50 ms. Returns 0 or -1. */
int demo_mesh_start(struct demo_mesh *mesh, char *err, size_t errlen);

/* Ends the thread (run->stop must be set), closes the files, frees. The
 * trees stay on disk (the caller removes the state directory). NULL: no-op. */
void demo_mesh_destroy(struct demo_mesh *mesh);

#endif
