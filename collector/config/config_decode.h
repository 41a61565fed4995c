/* Internal to the configuration loader: declarative key tables, the decoder
 * and printer that walk them, error helpers.
 *
 * Every mapping of the config file is described by a `struct fsc_cspec`: a
 * table of keys (name, kind, offset of the typed field, range, flags) plus
 * optional defaults() and finish() hooks. fsc_cfg_decode_map() rejects
 * unknown keys, fills defaults, decodes keys in *table order* (so a key may
 * depend on an earlier one whatever the file order), reports missing required
 * keys at the parent's position, then calls finish() for cross-key checks.
 * fsc_cfg_print_map() walks the same table, so every key that can be read is
 * printed and the printout loads back to the same config. */
#ifndef FSC_CONFIG_DECODE_H
#define FSC_CONFIG_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "config/yaml_tree.h"

/* Decoding context: one per load. */
struct fsc_cctx {
    const char *name; /* file name for messages */
    char *err;
    size_t errlen;
    struct fsc_cfg_arena *arena; /* the config's arena */
    struct fsc_config *cfg;      /* being built */
    /* The `sources:` item being decoded (its common keys are decoded before
     * the kind's, so a kind's finish hook may read name); NULL elsewhere. */
    const struct fsc_source_config *source;
    const struct fsc_ynode *root; /* the document's root mapping */
    const char *dir;              /* absolute directory relative paths are resolved against */
    char path[512];               /* "sources[1].tls.ca_file" */
    size_t pathlen;
    unsigned n_errors; /* found so far: decoding goes on past an error to find the others */
    struct fsc_config_input *last_input; /* the end of cfg->inputs */
};

enum fsc_ckind {
    FSC_CK_STR = 1,     /* const char *; max = length limit (default FSC_CONFIG_MAX_NAME) */
    FSC_CK_BOOL,        /* bool */
    FSC_CK_U32,         /* uint32_t in [min, max] */
    FSC_CK_INT,         /* int in [min, max] */
    FSC_CK_DUR,         /* int64_t ns in [min, max] */
    FSC_CK_BYTES,       /* uint64_t bytes in [min, max] */
    FSC_CK_SPEED,       /* uint64_t bits/s */
    FSC_CK_F64,         /* double in [fmin, fmax] */
    FSC_CK_ENUM,        /* enum (int-sized), index into names */
    FSC_CK_MAP,         /* nested struct described by spec */
    FSC_CK_LIST,        /* array of structs: pointer at off, size_t count at off2 */
    FSC_CK_STRLIST,     /* const char ** at off, size_t count at off2 */
    FSC_CK_SECRET,      /* struct fsc_secret, inline value */
    FSC_CK_SECRET_FILE, /* the same struct, value read from a file */
    FSC_CK_SECRET_ENV,  /* the same struct, value from an environment variable */
    FSC_CK_CUSTOM,      /* decode / print hooks */
};

enum {
    FSC_CF_REQUIRED = 1u << 0,
    FSC_CF_EMPTY_OK = 1u << 1,   /* STR: "" (or null) allowed */
    FSC_CF_OMIT_ZERO = 1u << 2,  /* print nothing for 0 / NULL / negative INT */
    FSC_CF_PRESENCE = 1u << 3,   /* MAP: struct starts with `bool present`; absent = zeroed */
    FSC_CF_FLOW = 1u << 4,       /* LIST / STRLIST: print items in flow style */
    FSC_CF_PATH = 1u << 5,       /* STR: a file path, resolved against the config's directory */
    FSC_CF_LONG = 1u << 6,       /* STR: up to FSC_CONFIG_MAX_PATH bytes (URLs, gNMI paths) */
    FSC_CF_INPUT_FILE = 1u << 7, /* PATH: a file read at start (fsc_config_check_inputs) */
    FSC_CF_INPUT_DIR = 1u << 8,  /* PATH: a directory read at start */
};

struct fsc_cctx;
struct fsc_ckey;

/* String check: returns 0, or fails through fsc_cfg_fail() (returns -1). */
typedef int (*fsc_ccheck_fn)(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);
/* Custom decoder: obj is the struct the key belongs to. */
typedef int (*fsc_cdecode_fn)(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                              const struct fsc_ynode *val, void *obj);
/* Custom printer: writes "key: ...\n" lines at `indent` (or nothing). */
typedef void (*fsc_cprint_fn)(FILE *out, unsigned indent, const struct fsc_ckey *key,
                              const void *obj);

struct fsc_cspec;

struct fsc_ckey {
    const char *key;
    uint8_t kind;   /* enum fsc_ckind */
    uint16_t flags; /* FSC_CF_* */
    size_t off;
    size_t off2;
    int64_t min, max;
    double fmin, fmax;
    const char *const *names;         /* ENUM: NULL-terminated */
    const struct fsc_cspec *spec;     /* MAP, LIST items */
    size_t elem_size;                 /* LIST */
    size_t max_items;                 /* LIST, STRLIST */
    fsc_ccheck_fn check;              /* STR, STRLIST items */
    fsc_cdecode_fn decode;            /* CUSTOM */
    fsc_cprint_fn print;              /* CUSTOM */
    bool (*printed)(const void *obj); /* CUSTOM: does print() write anything? */
};

struct fsc_cspec {
    const char *what; /* "a gnmi source", for hints */
    const struct fsc_ckey *keys;
    size_t n_keys;
    void (*defaults)(void *obj);
    /* Cross-key checks and derived defaults after all keys are decoded.
     * node: the mapping (NULL when absent); mark: the parent's position. */
    int (*finish)(struct fsc_cctx *ctx, const struct fsc_ynode *node, struct fsc_config_mark mark,
                  void *obj);
    size_t mark_off;                         /* offset of a struct fsc_config_mark, or 0 = none */
    const struct fsc_cspec *const *siblings; /* NULL-terminated; "belongs to" hints */
};

#define FSC_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors and paths ----------------------------------------------------- */

/* Adds "name:line:col: path: sentence" (path omitted when empty, position
 * omitted when line is 0) to ctx->err: the first error, then each further
 * one on its own line (at most FSC_CONFIG_MAX_ERRORS). Returns -1. */
int fsc_cfg_fail(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a warning "name:line:col: path: warning: sentence" in the config
 * being built (fsc_config_warnings()); the load goes on. Returns 0, or -1
 * after fsc_cfg_fail() when out of memory. */
int fsc_cfg_warn(struct fsc_cctx *ctx, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Adds `sentence` (already complete: "file:line:col: path: ...") as an
 * error, as fsc_cfg_fail() does. Returns -1. */
int fsc_cfg_fail_raw(struct fsc_cctx *ctx, const char *sentence);

/* Records path (resolved, in the arena) as an input of the config being
 * built, at val's position, under the current key path and source.
 * Returns 0, or -1 after fsc_cfg_fail() when out of memory. */
int fsc_cfg_note_input(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *path,
                       bool dir);

/* As fsc_cfg_fail() at a node's position. */
int fsc_cfg_fail_at(struct fsc_cctx *ctx, const struct fsc_ynode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fails with `msg` at `key` of mapping node (at dflt when the key is not
 * written), with the key appended to the path. Returns -1. */
int fsc_cfg_fail_key(struct fsc_cctx *ctx, const struct fsc_ynode *node, const char *key,
                     struct fsc_config_mark dflt, const char *msg);

/* Appends ".key" (or "key" at the root) / "[i]" to ctx->path; returns the
 * previous length for fsc_cfg_path_pop(). */
size_t fsc_cfg_path_key(struct fsc_cctx *ctx, const char *key);
size_t fsc_cfg_path_index(struct fsc_cctx *ctx, size_t i);
void fsc_cfg_path_pop(struct fsc_cctx *ctx, size_t len);

/* Quotes a user value for a message: "2x", truncated and with control bytes
 * escaped. Never use it for secret values. Returns buf. */
const char *fsc_cfg_quote(const char *s, char *buf, size_t size);

/* ---- decoding ------------------------------------------------------------- */

/* Decodes mapping `node` (NULL or null: empty) into obj per spec. */
int fsc_cfg_decode_map(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, const struct fsc_cspec *spec, void *obj);

/* Decodes a mapping whose keys belong to two tables: `head` on head_obj
 * (keys every item of a list has: a source's name, type, ...) and `own` on
 * own_obj (the item's kind's keys). head is decoded first (defaults, keys,
 * finish), then own. A key of neither is an error, with a hint when it is
 * a key of one of `siblings` (the other kinds; NULL-terminated, may be
 * NULL). */
int fsc_cfg_decode_shared(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                          struct fsc_config_mark mark, const struct fsc_cspec *head, void *head_obj,
                          const struct fsc_cspec *own, void *own_obj,
                          const struct fsc_cspec *const *siblings);

/* Scalar text of val, or fails with "expected <what>". */
int fsc_cfg_scalar(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *what,
                   const char **s);

/* Decodes a string with the STR rules of `key` (length, control bytes,
 * check) into an arena copy. */
int fsc_cfg_decode_str(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                       const struct fsc_ynode *val, const char **out);

/* Decodes a scalar kind (STR .. ENUM, SECRET*) of `key` into field. */
int fsc_cfg_decode_scalar(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                          const struct fsc_ynode *val, void *field);

/* The closest of `names` (NULL-terminated) or of spec's keys within a
 * distance that still looks like a typo, or NULL. */
const char *fsc_cfg_closest(const char *word, const char *const *names,
                            const struct fsc_cspec *spec);

/* Decodes a name from a NULL-terminated list into its index. */
int fsc_cfg_decode_enum(struct fsc_cctx *ctx, const char *const *names, const struct fsc_ynode *val,
                        int *out);

char *fsc_cfg_strdup(struct fsc_cctx *ctx, const struct fsc_ynode *at, const char *s);
void *fsc_cfg_alloc(struct fsc_cctx *ctx, const struct fsc_ynode *at, size_t size);

/* The position of a key inside a mapping node (its key scalar), or `dflt`. */
struct fsc_config_mark fsc_cfg_key_mark(const struct fsc_ynode *map, const char *key,
                                        struct fsc_config_mark dflt);
struct fsc_config_mark fsc_cfg_node_mark(const struct fsc_ynode *node);

/* String checks shared by the tables. */
int fsc_cfg_check_name(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);
int fsc_cfg_check_port_name(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);
int fsc_cfg_check_hostport(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);
/* A listen address: host:port where port 0 asks the kernel for a free port
 * (tests; the bound port is logged). */
int fsc_cfg_check_listen(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);
int fsc_cfg_check_portref(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s);

/* ---- printing ------------------------------------------------------------- */

/* Prints obj's keys at `indent`; with dash, the first line starts with "- "
 * two columns to the left (a list item). */
void fsc_cfg_print_map(FILE *out, unsigned indent, bool dash, const struct fsc_cspec *spec,
                       const void *obj);

/* As fsc_cfg_print_map() for a mapping of two tables (fsc_cfg_decode_shared). */
void fsc_cfg_print_shared(FILE *out, unsigned indent, bool dash, const struct fsc_cspec *head,
                          const void *head_obj, const struct fsc_cspec *own, const void *own_obj);

/* True when every secret of the two objects of spec holds the same value
 * (nested mappings and lists included). */
bool fsc_cfg_secrets_equal(const struct fsc_cspec *spec, const void *a, const void *b);

/* Writes s as a YAML scalar: bare when unambiguous, else double-quoted. */
void fsc_cfg_print_str(FILE *out, const char *s);
void fsc_cfg_print_indent(FILE *out, unsigned indent);
/* v as a YAML float into buf (returned): base/numfmt's shortest text that
 * reads back to the same double, with ".0" added when it would otherwise
 * read as an integer ("5000.0"); nan and inf as "nan", "inf", "-inf". */
const char *fsc_cfg_format_f64(double v, char *buf, size_t size);

/* ---- tables shared by several kinds (config_common.c) --------------------------- */

extern const struct fsc_cspec fsc_cspec_tls_client;      /* struct fsc_tls_config */
extern const struct fsc_cspec fsc_cspec_tls_server;      /* struct fsc_tls_config */
extern const struct fsc_cspec fsc_cspec_listener_auth;   /* struct fsc_listener_auth */
extern const struct fsc_cspec fsc_cspec_backoff;         /* struct fsc_backoff */
extern const struct fsc_cspec fsc_cspec_listener_limits; /* struct fsc_listener_limits */

/* The position of `key` (or `key2` when key is not written) in the i-th
 * `sources:` item of the document root; dflt when neither is written. For
 * check hooks that report at a key of a source. */
struct fsc_config_mark fsc_cfg_source_key_mark(const struct fsc_ynode *root, size_t i,
                                               const char *key, const char *key2,
                                               struct fsc_config_mark dflt);

#endif
