/* Configuration: one YAML file -> one immutable `struct fsc_config`.
 *
 *   log:        level
 *   sources:    list of gnmi / otlp / nic instances
 *   exporters:  prometheus, kafka, remote_write
 *   engine:     windows and detector thresholds (struct fsc_engine_config)
 *   topology:   devices, ports, port groups, rails, cable plan (topology.h)
 *   shard:      this collector's share of the devices (shard.h)
 *
 * Every key, its type and default is documented in docs/CONFIG.md. The loader
 * is strict: unknown keys, wrong types, out-of-range values, duplicates and
 * missing required keys are errors with "file:line:col: path: sentence"; the
 * first error stops loading. Defaults are filled in, so consumers read typed
 * fields and never look for "was it set". Secrets (passwords, tokens) are
 * resolved at load time from the file, the environment variable or the
 * inline value, and no error message or printout ever contains one.
 *
 * Ownership and threads: a loaded config owns all its memory (one arena,
 * wiped on destroy) and is read-only; any thread may read it without locks.
 * Strings are NUL-terminated and never NULL unless documented as optional. */
#ifndef FSC_CONFIG_H
#define FSC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/log.h"
#include "model/topology.h"
#include "engine/engine.h"

/* Bounds; each is an error when exceeded. */
#define FSC_CONFIG_MAX_FILE    (4u << 20) /* bytes of the config file */
#define FSC_CONFIG_MAX_SOURCES 256
#define FSC_CONFIG_MAX_NAME    63   /* source, stream, device, port, group names */
#define FSC_CONFIG_MAX_PATH    1023 /* file paths, URLs, gNMI paths */
#define FSC_CONFIG_MAX_SECRET  4096 /* bytes of a resolved secret */

/* A secret: resolved value plus where it came from (for printing). */
struct fsc_secret {
    const char *value; /* NULL when not configured */
    const char *file;  /* set when given as <key>_file */
    const char *env;   /* set when given as <key>_env */
};

/* Client TLS (gNMI, Kafka, remote_write) and server TLS (OTLP). Absent
 * section: present = false and everything off. */
struct fsc_tls_config {
    bool present;
    bool enabled;              /* default true once the section is present */
    const char *ca_file;       /* optional; client: verify server; server: verify clients */
    const char *cert_file;     /* optional; together with key_file */
    const char *key_file;      /* path only: key contents are never in the config */
    const char *server_name;   /* client only: SNI / verification name override */
    bool insecure_skip_verify; /* client only; default false */
    int client_auth;           /* server only: enum fsc_client_auth; default require with
                                * ca_file, none without */
};

/* Server TLS: what a listener asks of clients' certificates (docs/SECURITY.md). */
enum fsc_client_auth {
    FSC_CLIENT_AUTH_NONE = 0,    /* no certificate asked for */
    FSC_CLIENT_AUTH_REQUEST = 1, /* asked for; when given it must verify against ca_file */
    FSC_CLIENT_AUTH_REQUIRE = 2, /* required and verified against ca_file */
};

/* One user of a listener's basic auth: name and a crypt(3) hash (bcrypt). */
struct fsc_basic_user {
    const char *name;
    const char *hash; /* "$2b$..."; never printed */
};

/* Authentication of a listener (Prometheus/status page, OTLP HTTP and gRPC;
 * docs/SECURITY.md). Absent section: present = false, every request allowed. */
struct fsc_listener_auth {
    bool present;
    struct fsc_basic_user *basic_users; /* name -> bcrypt hash */
    size_t n_basic_users;
    const char *bearer_tokens_file; /* path: one token a line; NULL = none */
};

struct fsc_backoff {
    int64_t initial_ns; /* default 1 s */
    int64_t max_ns;     /* default 60 s */
};

/* ---- sources -------------------------------------------------------------- */

enum fsc_source_type {
    FSC_SOURCE_GNMI = 0,
    FSC_SOURCE_OTLP = 1,
    FSC_SOURCE_NIC = 2,
    FSC_SOURCE_SYNTHETIC = 3, /* the built-in traffic generator (collector/sources/synth) */
    FSC_SOURCE_REPLAY = 4,    /* samples from a replay file (collector/sources/replay) */
};

enum fsc_gnmi_encoding {
    FSC_GNMI_PROTO = 0,
    FSC_GNMI_JSON = 1,
    FSC_GNMI_JSON_IETF = 2,
};

enum fsc_gnmi_mode {
    FSC_GNMI_SAMPLE = 0,
    FSC_GNMI_ON_CHANGE = 1,
};

/* One subscription stream (a gNMI Subscribe RPC of its own). */
struct fsc_gnmi_stream {
    const char *name;
    const char **paths; /* each starts with '/' */
    size_t n_paths;
    enum fsc_gnmi_mode mode;
    int64_t sample_interval_ns; /* SAMPLE: resolved (the source's by default); ON_CHANGE: 0 */
    bool updates_only;
    struct fsc_config_mark mark; /* {0,0} for the built-in plan */
};

struct fsc_gnmi_config {
    const char *address; /* "host:port", required */
    const char *device;  /* device label; default the source name */
    struct fsc_tls_config tls;
    const char *username;            /* optional */
    struct fsc_secret password;      /* optional; needs username */
    enum fsc_gnmi_encoding encoding; /* default proto */
    int64_t sample_interval_ns;      /* default 2 s */
    struct fsc_gnmi_stream *streams; /* never empty: the default plan when omitted */
    size_t n_streams;
    uint32_t stall_intervals;   /* resubscribe after this many silent intervals; default 3 */
    int64_t keepalive_ns;       /* gRPC keepalive; default 30 s */
    int64_t connect_timeout_ns; /* default 10 s */
    struct fsc_backoff backoff; /* reconnect backoff (jittered); 1 s .. 60 s */
};

struct fsc_otlp_config {
    const char *grpc_listen;       /* "host:port" or "" (off); default "0.0.0.0:4317" */
    const char *http_listen;       /* default "0.0.0.0:4318"; "" disables */
    uint64_t max_body;             /* bytes on the wire; default 4 MiB */
    uint64_t max_decompressed;     /* bytes after gzip; default 32 MiB */
    const char *device_attribute;  /* resource attribute naming the device; "host.name" */
    struct fsc_tls_config tls;     /* server side */
    struct fsc_listener_auth auth; /* both transports */
};

struct fsc_nic_device {
    const char *rdma;   /* "mlx5_0" */
    const char *netdev; /* "ens1f0np0"; NULL: no ethtool / net statistics */
    uint32_t port;      /* RDMA port number; default 1 */
    struct fsc_config_mark mark;
};

struct fsc_nic_config {
    const char *device;     /* host label; default the source name */
    const char *sysfs_root; /* default "/" (tests point it at a fixture tree) */
    int64_t interval_ns;    /* default 100 ms, at least 10 ms */
    bool auto_devices;      /* discover every RDMA device; default true without devices */
    struct fsc_nic_device *devices;
    size_t n_devices;
    bool ethtool;           /* read SIOCETHTOOL stats; default true */
    bool pcie;              /* read PCIe link status and AER; default true */
    const char *cable_plan; /* path to cables.txt, or NULL */
    uint32_t node;          /* this host's node number in the cable plan; 0 = none */
};

/* One simulated device: per port, rx/tx byte counters at `utilization` of
 * `speed` with noise, a line-rate burst on one port every burst_every, a CNP
 * storm on one port every storm_every, a wrapping 32-bit reorder counter. */
struct fsc_synthetic_config {
    const char *device;      /* device label; default the source name */
    uint32_t ports;          /* default 8 */
    uint64_t speed_bps;      /* default 400G */
    int64_t interval_ns;     /* sample period; default 100 ms */
    double utilization;      /* baseline, 0..0.8; default 0.3 */
    int64_t burst_every_ns;  /* default 10 s; 0 = no bursts */
    int64_t burst_length_ns; /* default 100 ms */
    int64_t storm_every_ns;  /* default 30 s; 0 = no CNP storms (a storm lasts 5 s) */
    uint32_t seed;           /* random seed; default 1 */
};

/* Plays a replay file (collector/sources/replay/replay_file.h) into the engine. */
enum fsc_replay_mode {
    FSC_REPLAY_INSTANT = 0,  /* everything at once, device times ending before now */
    FSC_REPLAY_REALTIME = 1, /* each sample at its time from the start (default) */
};

struct fsc_replay_config {
    const char *file; /* required; relative paths are relative to the config file */
    enum fsc_replay_mode mode;
    uint64_t speed_bps;  /* link speed of port-byte counters not in the topology; 400G */
    int64_t interval_ns; /* nominal sampling interval of the file; default 100 ms */
};

struct fsc_source_config {
    const char *name; /* unique among sources */
    enum fsc_source_type type;
    bool enabled;        /* default true */
    uint32_t max_series; /* per-source series limit; default 100000 */
    const char *profile; /* default junos / cumulus / mlx5 by type; NULL for synthetic */
    struct fsc_config_mark mark;
    union {
        struct fsc_gnmi_config gnmi;
        struct fsc_otlp_config otlp;
        struct fsc_nic_config nic;
        struct fsc_synthetic_config synthetic;
        struct fsc_replay_config replay;
    };
};

/* ---- exporters ------------------------------------------------------------ */

struct fsc_prometheus_config {
    bool present;                  /* always true: the exporter defaults to on */
    bool enabled;                  /* default true */
    const char *listen;            /* default "0.0.0.0:9464" */
    int64_t stale_after_ns;        /* series not updated this long are dropped; default 5 m */
    uint32_t max_series;           /* default 2000000 */
    struct fsc_tls_config tls;     /* server side; absent = plain HTTP */
    struct fsc_listener_auth auth; /* absent = no authentication */
};

enum fsc_kafka_compression {
    FSC_KAFKA_LZ4 = 0,
    FSC_KAFKA_ZSTD = 1,
    FSC_KAFKA_NONE = 2,
};

enum fsc_sasl_mechanism {
    FSC_SASL_PLAIN = 0,
    FSC_SASL_SCRAM_SHA_256 = 1,
    FSC_SASL_SCRAM_SHA_512 = 2,
};

struct fsc_sasl_config {
    bool present;
    enum fsc_sasl_mechanism mechanism; /* default PLAIN */
    const char *username;              /* required */
    struct fsc_secret password;        /* required */
};

/* When the Kafka spool calls fsync (docs/CONFIG.md, "kafka spool"). */
enum fsc_spool_fsync {
    FSC_SPOOL_FSYNC_INTERVAL = 0, /* once a second (default) */
    FSC_SPOOL_FSYNC_ALWAYS = 1,   /* before each batch is handed to librdkafka */
    FSC_SPOOL_FSYNC_NEVER = 2,    /* the kernel writes back when it wants */
};

/* One librdkafka setting passed through from `properties:`. The loader
 * checks the name's syntax and refuses names fabricscope sets itself; the
 * exporter validates name and value with rd_kafka_conf_set() at startup and
 * reports a refusal at these marks. */
struct fsc_kafka_property {
    const char *name;
    const char *value;
    struct fsc_config_mark name_mark, value_mark;
};

struct fsc_kafka_config {
    bool present;         /* the section exists */
    bool enabled;         /* default true once present */
    const char **brokers; /* "host:port", required when enabled */
    size_t n_brokers;
    const char *client_id;                  /* default "fabricscope" */
    const char *events_topic;               /* default "fabric.events" */
    const char *samples_topic;              /* "" = samples are not sent (default) */
    enum fsc_kafka_compression compression; /* default lz4 */
    int64_t linger_ns;                      /* default 5 ms */
    uint64_t batch_size;                    /* bytes; default 1 MB */
    uint32_t queue_max;                     /* messages held in memory; default 100000 */
    const char *spool_dir;                  /* "" = no on-disk spool (default) */
    uint64_t spool_max;                     /* default 1 GiB */
    enum fsc_spool_fsync spool_fsync;       /* default interval (1 s) */
    struct fsc_kafka_property *properties;  /* librdkafka pass-through, in file order */
    size_t n_properties;
    struct fsc_sasl_config sasl;
    struct fsc_tls_config tls;
};

struct fsc_basic_auth {
    bool present;
    const char *username;       /* required */
    struct fsc_secret password; /* required */
};

struct fsc_header {
    const char *name, *value;
};

/* What remote_write sends (bits of fsc_remote_write_config.series). */
enum {
    FSC_RW_SERIES_COUNTERS = 1u << 0,     /* raw values of every series */
    FSC_RW_SERIES_WINDOW_RATES = 1u << 1, /* rates of the first aligned window */
    FSC_RW_SERIES_FINE_RATES = 1u << 2,   /* rates of the last fine interval */
};

struct fsc_remote_write_config {
    bool present;
    bool enabled;                  /* default true once present */
    const char *url;               /* http:// or https://, required when enabled */
    int64_t interval_ns;           /* send period; default 10 s */
    int64_t resolution_ns;         /* engine read period; default 1 s */
    uint32_t series;               /* FSC_RW_SERIES_*; default counters | window_rates */
    int64_t timeout_ns;            /* per request; default 10 s */
    uint32_t max_samples_per_send; /* default 2000 */
    uint32_t queue_max;            /* samples held while the receiver is down; default 500000 */
    struct fsc_backoff backoff;    /* retry backoff (jittered); 1 s .. 60 s */
    struct fsc_basic_auth basic_auth;
    struct fsc_secret bearer_token; /* optional; not with basic_auth */
    struct fsc_header *headers;
    size_t n_headers;
    struct fsc_tls_config tls;
};

struct fsc_exporters_config {
    struct fsc_prometheus_config prometheus;
    struct fsc_kafka_config kafka;
    struct fsc_remote_write_config remote_write;
};

/* ---- rollups for reports (collector/rollup; docs/CONFIG.md, "rollup") ---- */

struct fsc_rollup_config {
    bool enabled;         /* default true */
    int64_t retention_ns; /* per-minute records older than this are deleted; default 30 d */
    uint64_t max_bytes;   /* bound of the store on disk; default 1 GiB */
};

/* ---- shard: this collector's share of the devices (model/shard.h) ---------- */

struct fsc_shard_config {
    uint32_t index; /* 0 .. count - 1; default 0 */
    uint32_t count; /* collectors sharing the devices; default 1 (this one takes all) */
    bool from_cli;  /* not a key: set by `run --shard`, which a reload keeps */
    struct fsc_config_mark mark;
};

/* ---- the whole file ------------------------------------------------------- */

struct fsc_config_private; /* arena; private to config.c */

struct fsc_config {
    const char *file;             /* the name given to load/parse */
    const char *dir;              /* absolute directory of file: relative paths in the file
                                   * were resolved against it (path fields are absolute) */
    enum fsc_log_level log_level; /* default info */
    struct fsc_source_config *sources;
    size_t n_sources;
    struct fsc_exporters_config exporters;
    struct fsc_engine_config engine; /* fsc_engine_config_defaults() + the engine: keys */
    struct fsc_topology topology;
    const char *state_dir;           /* default "/var/lib/fabricscope" (rollups live below it) */
    struct fsc_rollup_config rollup; /* rollup: keys */
    struct fsc_shard_config shard;   /* shard: keys; default 0 of 1 */
    struct fsc_config_private *priv;
};

/* Reads and parses the file at `path` (at most FSC_CONFIG_MAX_FILE bytes).
 * Returns a config the caller owns (fsc_config_destroy), or NULL with
 * "path:line:col: sentence" (or "path: sentence" for I/O errors) in err.
 * Thread: any; reads the environment for *_env secrets. */
struct fsc_config *fsc_config_load(const char *path, char *err, size_t errlen);

/* As fsc_config_load() from a buffer; `name` is used in messages and as
 * cfg->file. The text need not be NUL-terminated. */
struct fsc_config *fsc_config_parse(const char *text, size_t len, const char *name, char *err,
                                    size_t errlen);

/* Frees the config and wipes the memory that held secrets. NULL is a no-op. */
void fsc_config_destroy(struct fsc_config *cfg);

/* Writes the effective config (every default filled in) as YAML that loads
 * back to an identical config. Secrets are never written: an inline one
 * prints as "<redacted>" (which the loader refuses), a file or environment
 * reference prints as the reference. Returns 0, or -EIO on a write error. */
int fsc_config_print(const struct fsc_config *cfg, FILE *out);

/* Source by name, or NULL. */
const struct fsc_source_config *fsc_config_source(const struct fsc_config *cfg, const char *name);

/* "gnmi" / "otlp" / "nic" / "synthetic" / "replay". */
const char *fsc_source_type_name(enum fsc_source_type type);

/* ---- value syntax shared with the CLI ------------------------------------- */

/* Durations: one or more <integer><unit> with unit ns, us, ms, s, m, h
 * ("100ms", "2s", "1m30s"). A bare number is not a duration. Returns 0 or
 * -EINVAL (also on overflow beyond ~292 years). */
int fsc_duration_parse(const char *s, int64_t *ns);

/* Formats ns with the largest unit that divides it exactly ("90s", "100ms",
 * "0s"). Returns buf. */
const char *fsc_duration_format(int64_t ns, char *buf, size_t size);

/* Byte sizes: a plain integer (bytes) or <number><unit> with B, KB, MB, GB,
 * TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024): "64MiB", "1GB",
 * "1.5GiB" (the result must be a whole number of bytes). Returns 0 or -EINVAL. */
int fsc_size_parse(const char *s, uint64_t *bytes);
const char *fsc_size_format(uint64_t bytes, char *buf, size_t size);

/* Link speeds in bits/s: a plain integer, or <number><K|M|G|T> with an
 * optional "bps" ("400G", "400Gbps", "2.5G", "400000000000"). Returns 0 or
 * -EINVAL. */
int fsc_speed_parse(const char *s, uint64_t *bps);
const char *fsc_speed_format(uint64_t bps, char *buf, size_t size);

#endif
