/* Configuration: one YAML file -> one immutable `struct fsc_config`.
 *
 * This layer knows the root keys only:
 *
 *   log:        level
 *   sources:    a list; each item's `type:` picks a source kind
 *   exporters:  a mapping; each key is an exporter kind
 *   state_dir:  where state (rollups) lives
 *   <section>:  every other root key is a section kind (engine, topology,
 *               rollup, shard, ...)
 *
 * Which kinds exist is not known here: the caller hands the loader a schema
 * (struct fsc_config_schema, built by the application from its plugins),
 * and each kind brings its own key table (config_decode.h) from the folder
 * that owns it. So adding a source or an exporter touches its folder and
 * the application's plugin table, never this layer.
 *
 * Every key, its type and default is documented in docs/CONFIG.md. The loader
 * is strict: unknown keys, wrong types, out-of-range values, duplicates and
 * missing required keys are errors with "file:line:col: path: sentence";
 * decoding goes on past an error, so one load reports every key that is
 * wrong (up to FSC_CONFIG_MAX_ERRORS, one per line); the checks across
 * sections run only on a file whose keys all decoded. Defaults are filled in, so consumers read
 * typed fields and never look for "was it set". Secrets (passwords, tokens) are resolved at load
 * time from the file, the environment variable or the inline value, and no error message or
 * printout ever contains one.
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

/* Bounds; each is an error when exceeded. */
#define FSC_CONFIG_MAX_FILE (64u << 20) /* bytes of the config file */
/* Sources in one file: max_sources (default FSC_CONFIG_DEFAULT_SOURCES) up to
 * the registry's own bound. */
#define FSC_CONFIG_MAX_SOURCES     65535
#define FSC_CONFIG_DEFAULT_SOURCES 4096
#define FSC_CONFIG_MAX_NAME        63   /* source, stream, device, port, group names */
#define FSC_CONFIG_MAX_PATH        1023 /* file paths, URLs, gNMI paths */
#define FSC_CONFIG_MAX_SECRET      4096 /* bytes of a resolved secret */
#define FSC_CONFIG_MAX_SECTIONS    16   /* section kinds (root and exporters) in a schema */
#define FSC_CONFIG_MAX_WARNINGS    32   /* warnings kept per load (more are counted, not kept) */
#define FSC_CONFIG_MAX_ERRORS      20   /* errors reported per load (one line each) */

/* Where an item was declared in the config file (1-based), so runtime
 * messages can point back at it. */
struct fsc_config_mark {
    uint32_t line, col;
};

/* A secret: resolved value plus where it came from (for printing). */
struct fsc_secret {
    const char *value; /* NULL when not configured */
    const char *file;  /* set when given as <key>_file */
    const char *env;   /* set when given as <key>_env */
};

/* Client TLS (gNMI, Kafka, remote_write) and server TLS (OTLP, Prometheus).
 * Absent section: present = false and everything off. */
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

/* Connection admission of a listener (Prometheus/status page, OTLP HTTP and
 * gRPC; docs/CONFIG.md "Listener limits", docs/SECURITY.md). Always filled in (an
 * absent `limits:` gets the defaults). */
struct fsc_listener_limits {
    uint32_t max_connections;        /* HTTP: open connections; default 256 */
    uint32_t max_connections_per_ip; /* HTTP: per client address; default 32 */
    uint32_t reserve;                /* HTTP: kept free by closing idle connections; default 16 */
    int64_t header_timeout_ns;       /* HTTP: connect (or TLS) to a complete header; default 5 s */
    int64_t idle_timeout_ns;         /* HTTP: keep-alive between requests, stalled I/O; 30 s */
    uint64_t body_min_rate;          /* HTTP: body bytes per second, at least; default 1024 */
    int64_t body_rate_window_ns;     /* HTTP: over every window this long; default 5 s */
    int64_t message_timeout_ns;      /* gRPC: call arrival to its message; default 5 s */
    uint32_t max_calls;              /* gRPC: calls served at once; default 256 */
    uint32_t max_calls_per_ip;       /* gRPC: of them per client address; default 32 */
};

/* Fills l with the defaults above. Thread: any. */
void fsc_listener_limits_defaults(struct fsc_listener_limits *l);

/* *out = *in, or the defaults when in is NULL or was never filled in
 * (max_connections 0: a struct built by hand, as in tests). */
void fsc_listener_limits_resolve(const struct fsc_listener_limits *in,
                                 struct fsc_listener_limits *out);

/* Reconnect / retry backoff (jittered exponential). */
struct fsc_backoff {
    int64_t initial_ns; /* default 1 s */
    int64_t max_ns;     /* default 60 s */
};

/* ---- kinds and the schema ---------------------------------------------------- */

struct fsc_cspec;         /* a key table (config_decode.h) */
struct fsc_cctx;          /* one load's decoding context (config_decode.h) */
struct fsc_ynode;         /* a YAML node (yaml_tree.h) */
struct fsc_config;        /* below */
struct fsc_source_config; /* below */

/* An address a kind binds, for the check that no two listeners collide. */
struct fsc_config_listen {
    const char *addr; /* "host:port"; NULL or "" = none */
    const char *key;  /* the key that set it ("grpc_listen"), for the message's position */
};

/* Whether s is a listen address as the loader accepts one: "host:port",
 * "[v6]:port", the port 0..65535 (0: any free one). Thread: any. */
bool fsc_config_listen_valid(const char *s);

/* Whether two listen addresses collide as the loader judges them: the same
 * port (not 0) and the same host, or either host a wildcard (0.0.0.0,
 * [::]). Thread: any. */
bool fsc_config_listen_clash(const char *a, const char *b);

/* How the daemon shares sources of a kind between collectors (model/shard.h). */
enum fsc_shard_by {
    FSC_SHARD_BY_DEVICE = 0, /* by the device the source collects (kind->device) */
    FSC_SHARD_BY_NAME = 1,   /* by the source's name (a replay file may hold many devices) */
    FSC_SHARD_BY_POINT = 2,  /* always runs and keeps only its shard's devices itself
                              * (OTLP: per point); restarted when the shard changes */
    FSC_SHARD_NEVER = 3,     /* always runs, whatever the shard (a NIC poller reads
                              * the host it runs on) */
};

/* One configurable kind: a source type, an exporter, or a root section. The
 * loader allocates `size` zeroed bytes for each instance and decodes the
 * instance's keys into them with `spec`. Plugins embed this as the first
 * member of their face (plugin/source.h), so the loader never sees what
 * they run. Every hook is optional. */
struct fsc_config_kind {
    const char *name;             /* source `type:` value, or the section's key */
    const struct fsc_cspec *spec; /* the instance's keys */
    size_t size;                  /* bytes of the object spec describes */
    /* Sections and exporters: an absent section stays zeroed and is not
     * printed (its struct starts with `bool present`); otherwise an absent
     * section gets its defaults, as an empty one does. */
    bool optional;
    /* Sources only. */
    const char *profile;     /* default `profile:`, or NULL for none */
    enum fsc_shard_by shard; /* how sources of this kind are sharded */
    /* The device a source collects (unique among enabled sources), or NULL
     * when it learns devices from the data. */
    const char *(*device)(const struct fsc_source_config *src);
    /* The B300 cable plan file a source checks its host against, or NULL
     * (the status page's mesh view uses it when topology has none). */
    const char *(*cable_plan)(const struct fsc_source_config *src);
    /* Sources and exporters: the addresses this instance listens on, up to
     * cap; returns how many (none while disabled). */
    size_t (*listeners)(const void *obj, struct fsc_config_listen *out, size_t cap);
    /* Checks against the whole config once every section is decoded (a
     * key that needs another section); node is the instance's mapping
     * (NULL when absent) and ctx's path points at it. Returns 0 or -1
     * after fsc_cfg_fail(). */
    int (*check)(struct fsc_cctx *ctx, const struct fsc_config *cfg, const void *obj,
                 const struct fsc_ynode *node);
};

/* What a loader accepts: the application's table of kinds. Borrowed by
 * every config loaded with it (keep it static). Lists are NULL-terminated. */
struct fsc_config_schema {
    const struct fsc_config_kind *const *sources;   /* `type:` values of `sources:` items */
    const struct fsc_config_kind *const *exporters; /* keys of `exporters:` */
    const struct fsc_config_kind *const *sections;  /* further root keys, in print order */
    const char *const *profiles;                    /* names `profile:` accepts */
};

/* ---- sources --------------------------------------------------------------------- */

/* One `sources:` item: the keys every source has, and its kind's own
 * settings (an object of kind->size bytes, decoded with kind->spec). */
struct fsc_source_config {
    const char *name; /* unique among sources */
    const struct fsc_config_kind *kind;
    bool enabled;        /* default true */
    uint32_t max_series; /* per-source series limit; default 100000 */
    const char *profile; /* default kind->profile; NULL when the kind has none */
    struct fsc_config_mark mark;
    const void *settings; /* the kind's struct (sources/<kind>/...) */
};

/* ---- the whole file ---------------------------------------------------------- */

struct fsc_config_private; /* arena; private to config_load.c */

/* A file or directory the config names and the collector reads at start
 * (keys flagged FSC_CF_INPUT_*: TLS files, token lists, cable plans, replay
 * files, sysfs roots), in file order. */
struct fsc_config_input {
    const char *path; /* absolute (resolved against the config's directory) */
    const char *key;  /* "sources[0].tls.ca_file" */
    uint32_t line, col;
    bool dir;                               /* a directory; else a regular file */
    const struct fsc_source_config *source; /* the source it belongs to, or NULL */
    const struct fsc_config_input *next;
};

struct fsc_config {
    const char *file;             /* the name given to load/parse */
    const char *dir;              /* absolute directory of file: relative paths in the file
                                   * were resolved against it (path fields are absolute) */
    enum fsc_log_level log_level; /* default info */
    const char *state_dir;        /* default $STATE_DIRECTORY when it is one absolute path,
                                   * else "/var/lib/fabricscope" */
    uint32_t max_sources;         /* sources allowed in the file, default 4096 */
    struct fsc_source_config *sources;
    size_t n_sources;
    const struct fsc_config_schema *schema;
    /* Instances of schema->exporters[i] and schema->sections[i], in the
     * schema's order; read them with fsc_config_section(). */
    void *exporters[FSC_CONFIG_MAX_SECTIONS];
    void *sections[FSC_CONFIG_MAX_SECTIONS];
    const struct fsc_config_input *inputs; /* linked by next; NULL: none */
    struct fsc_config_private *priv;
};

/* Reads and parses the file at `path` (at most FSC_CONFIG_MAX_FILE bytes)
 * with the kinds of `schema` (borrowed; must outlive the config). Returns a
 * config the caller owns (fsc_config_destroy), or NULL with
 * "path:line:col: sentence" (or "path: sentence" for I/O errors) in err,
 * one line per error found (newline-separated, no trailing newline).
 * Thread: any; reads the environment for *_env secrets. */
struct fsc_config *fsc_config_load(const char *path, const struct fsc_config_schema *schema,
                                   char *err, size_t errlen);

/* As fsc_config_load() from a buffer; `name` is used in messages and as
 * cfg->file. The text need not be NUL-terminated. */
struct fsc_config *fsc_config_parse(const char *text, size_t len, const char *name,
                                    const struct fsc_config_schema *schema, char *err,
                                    size_t errlen);

/* The warnings of the load ("file:line:col: path: warning: sentence": a
 * value accepted but changed, such as a gNMI sample interval rounded up to
 * the device's grid), at most FSC_CONFIG_MAX_WARNINGS. *out points into the
 * config (valid until fsc_config_destroy). Returns how many. Thread: any. */
size_t fsc_config_warnings(const struct fsc_config *cfg, const char *const **out);

/* Opens every input of cfg (those of disabled sources aside) for reading,
 * without blocking (a FIFO is refused, never waited on), and checks it is a
 * regular file or a directory as its key says. Returns how many are
 * missing or unreadable, each as one line "file:line:col: key: path:
 * reason" in err (newline-separated, at most FSC_CONFIG_MAX_ERRORS lines).
 * Thread: any. */
size_t fsc_config_check_inputs(const struct fsc_config *cfg, char *err, size_t errlen);

/* Frees the config and wipes the memory that held secrets. NULL is a no-op. */
void fsc_config_destroy(struct fsc_config *cfg);

/* Writes the effective config (every default filled in) as YAML that loads
 * back to an identical config. Secrets are never written: an inline one
 * prints as "<redacted>" (which the loader refuses), a file or environment
 * reference prints as the reference. Returns 0, or -EIO on a write error. */
int fsc_config_print(const struct fsc_config *cfg, FILE *out);

/* As fsc_config_print(), only the parts in `what`: */
enum {
    FSC_CONFIG_PART_ROOT = 1u << 0,      /* log, state_dir and the sections */
    FSC_CONFIG_PART_SOURCES = 1u << 1,   /* the sources: list */
    FSC_CONFIG_PART_EXPORTERS = 1u << 2, /* the exporters: mapping */
    FSC_CONFIG_PART_ALL = 7u,
};
int fsc_config_print_parts(const struct fsc_config *cfg, unsigned what, FILE *out);

/* Writes one source as a `sources:` list item (as check-config prints it).
 * Returns 0 or -EIO. */
int fsc_config_print_source(const struct fsc_source_config *src, FILE *out);

/* True when two sources have the same kind and the same effective settings,
 * secret values included (a secret read from a file may change while the
 * reference stays). False also when the comparison runs out of memory: a
 * restart is the safe answer. Thread: any. */
bool fsc_config_source_equal(const struct fsc_source_config *a, const struct fsc_source_config *b);

/* Source by name, or NULL. */
const struct fsc_source_config *fsc_config_source(const struct fsc_config *cfg, const char *name);

/* The instance of a section or exporter kind (its settings struct), or NULL
 * when the config's schema has no such kind. Thread: any. */
const void *fsc_config_section(const struct fsc_config *cfg, const struct fsc_config_kind *kind);

/* The same, writable: for the caller that owns a freshly loaded config and
 * overrides a value from the command line before anyone reads it. */
void *fsc_config_section_mut(struct fsc_config *cfg, const struct fsc_config_kind *kind);

/* The source kind named `name` in schema, or NULL. */
const struct fsc_config_kind *fsc_config_source_kind(const struct fsc_config_schema *schema,
                                                     const char *name);

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
