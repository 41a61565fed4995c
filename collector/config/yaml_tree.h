/* A bounded YAML document tree (libyaml events -> nodes), and the arena the
 * configuration code allocates from.
 *
 * Only what a configuration file needs: scalars, sequences and mappings, each
 * with the line and column it started at (1-based). Anything that could make
 * a small file expand or surprise a reader is an error, not a feature:
 * anchors and aliases (the "billion laughs" expansion), explicit tags, more
 * than one document, duplicate mapping keys, non-scalar keys, NUL bytes, and
 * inputs beyond the limits below.
 *
 * Internal to the configuration loader (config*.c); not a general YAML API. */
#ifndef FSC_YAML_TREE_H
#define FSC_YAML_TREE_H

#include <stddef.h>
#include <stdint.h>

/* Limits; each exceeded limit is an error with the position where it
 * happened. */
#define FSC_YTREE_MAX_DEPTH  32      /* nested collections */
#define FSC_YTREE_MAX_NODES  4194304 /* all nodes (2 000 devices x 128 ports fit) */
#define FSC_YTREE_MAX_SCALAR 8192    /* bytes of one scalar */
#define FSC_YTREE_MAX_MAP    1024    /* keys of one mapping */
#define FSC_YTREE_MAX_SEQ    65536   /* items of one sequence */

/* ---- arena ---------------------------------------------------------------- */

/* A chunked bump allocator: everything of one tree (or one loaded config) is
 * freed at once. Memory is zeroed on allocation and wiped before it is
 * released, because inline secrets pass through it. Not thread-safe: one
 * owner at a time. */
struct fsc_cfg_arena;

/* Creates an arena that refuses to grow beyond `limit` bytes in total.
 * Returns NULL on allocation failure. */
struct fsc_cfg_arena *fsc_cfg_arena_create(size_t limit);

/* Wipes and frees every chunk. NULL is a no-op. */
void fsc_cfg_arena_destroy(struct fsc_cfg_arena *arena);

/* Returns `size` zeroed bytes aligned for any type, or NULL when the limit
 * is reached or malloc fails. The memory lives until the arena is destroyed. */
void *fsc_cfg_arena_alloc(struct fsc_cfg_arena *arena, size_t size);

/* Copies `len` bytes of `s` and a NUL into the arena. Returns NULL like
 * fsc_cfg_arena_alloc(). */
char *fsc_cfg_arena_strndup(struct fsc_cfg_arena *arena, const char *s, size_t len);

/* ---- tree ----------------------------------------------------------------- */

enum fsc_ynode_kind {
    FSC_YNODE_SCALAR = 1,
    FSC_YNODE_SEQ = 2,
    FSC_YNODE_MAP = 3,
};

struct fsc_ynode;

struct fsc_ypair {
    struct fsc_ynode *key; /* always a scalar */
    struct fsc_ynode *value;
};

struct fsc_ynode {
    uint8_t kind;   /* enum fsc_ynode_kind */
    uint8_t quoted; /* scalar was quoted or a block scalar: never null */
    uint32_t line;  /* 1-based position of the node's first character */
    uint32_t col;
    size_t n;                 /* scalar: bytes; sequence: items; mapping: pairs */
    const char *str;          /* scalar text, NUL-terminated (no NUL inside) */
    struct fsc_ynode **items; /* sequence items */
    struct fsc_ypair *pairs;  /* mapping pairs in document order */
};

/* Error position and sentence from fsc_ytree_parse(). */
struct fsc_yerror {
    uint32_t line, col; /* 1-based; 0 when unknown */
    char msg[256];
};

/* Parses one YAML document from text[0..len) into a tree allocated from
 * `arena`. *root is NULL for an empty document (only comments or nothing).
 * Returns 0, or -1 with *yerr filled (the sentence has no position prefix).
 * Thread: any; libyaml keeps no global state. */
int fsc_ytree_parse(const char *text, size_t len, struct fsc_cfg_arena *arena,
                    struct fsc_ynode **root, struct fsc_yerror *yerr);

/* Returns the pair whose key equals `key` in mapping `map`, or NULL (also
 * when map is NULL or not a mapping). */
const struct fsc_ypair *fsc_ymap_get(const struct fsc_ynode *map, const char *key);

/* True for an unquoted empty scalar, "~", "null", "Null" or "NULL". */
int fsc_ynode_is_null(const struct fsc_ynode *node);

#endif
