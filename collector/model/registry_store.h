/* Registry storage (internal to registry.c; not part of the public API).
 *
 * Owns everything the series registry keeps in memory except its sources:
 * - the arena: 64 KiB blocks holding string records {hash, len, bytes} and
 *   label-set records {hash, n, name/value string refs}. A 32-bit ref names a
 *   record: block index in the high 19 bits, 8-byte unit in the low 13. The
 *   block directory grows by doubling; an old directory is kept (not freed)
 *   until fini because a lock-free reader may still be looking at it.
 * - the series entries: chunks of FSC_REGSTORE_CHUNK_SIZE entries of 16 bytes;
 *   the chunk directory is sized for the maximum entry count at init, so it
 *   never moves.
 * - three open-addressing hash indexes (strings, label sets, series) of
 *   32-bit slots. Slots hold arena refs (strings, label sets) or id + 1
 *   (series); 0 is empty (ref 0 is never handed out). Records carry their
 *   hash, so growth rehashes without touching strings.
 * - `count`, the number of published entries, and `mem`, the bytes allocated.
 *
 * The store never hashes or validates: the caller (registry.c) hands it a
 * validated, sorted, hashed key, outside any lock.
 *
 * Threads. Every function that is not marked lock-free must be called with
 * the owner's lock held (one writer at a time); the store has no lock of its
 * own. Lock-free reader contract: an entry, its chunk pointer, its records
 * and any directory they need are all written before `count` is stored with
 * release order. A reader that loads `count` with acquire order
 * (fsc_regstore_count()) may read any entry below it, and every record that
 * entry refers to, without a lock while a writer appends. Nothing that a
 * published entry refers to is ever moved or freed before fini. */
#ifndef FSC_REGISTRY_STORE_H
#define FSC_REGISTRY_STORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sample.h"

#define FSC_REGSTORE_BLOCK_BYTES (1u << 16)
#define FSC_REGSTORE_UNIT        8u
#define FSC_REGSTORE_OFF_BITS    13u /* 64 KiB / 8-byte units */
#define FSC_REGSTORE_OFF_MASK    ((1u << FSC_REGSTORE_OFF_BITS) - 1u)

/* Labels one key holds: at least the registry's FSC_REGISTRY_MAX_LABELS
 * (registry.c asserts it). */
#define FSC_REGSTORE_MAX_LABELS 16u

#define FSC_REGSTORE_CHUNK_SHIFT 12u
#define FSC_REGSTORE_CHUNK_SIZE  (1u << FSC_REGSTORE_CHUNK_SHIFT)

struct fsc_regstore_dir {
    struct fsc_regstore_dir *retired; /* the copy this one replaced; freed at fini */
    uint32_t cap;
    char *blocks[];
};

struct fsc_regstore_str {
    uint32_t hash;
    uint32_t len;
    char s[]; /* len bytes + NUL */
};

struct fsc_regstore_ls {
    uint32_t hash;
    uint32_t n;
    uint32_t refs[]; /* name0, value0, name1, value1, ... sorted by name */
};

struct fsc_regstore_entry {
    uint32_t hash;
    uint32_t metric; /* fsc_regstore_str ref */
    uint32_t labels; /* fsc_regstore_ls ref */
    uint16_t source;
    uint16_t unused_;
};

struct fsc_regstore_htab {
    uint32_t *slots;
    uint32_t mask; /* slots - 1; slots is a power of two */
    uint32_t used;
};

struct fsc_regstore {
    _Atomic uint32_t count; /* published entries: ids 0 .. count-1 */
    _Atomic size_t mem;     /* bytes allocated by the store (see fsc_regstore_mem_add) */
    uint32_t nchunks;
    struct fsc_regstore_entry **chunks; /* nchunks pointers, sized at init */
    _Atomic(struct fsc_regstore_dir *) dir;
    uint32_t nblocks;    /* blocks in use */
    uint32_t block_used; /* units used in the last block */
    struct fsc_regstore_htab strings, labelsets, series;
};

/* One label of a key: validated, non-empty value, hashes computed once. */
struct fsc_regstore_label {
    const char *name, *value;
    uint32_t name_len, value_len;
    uint32_t name_h, value_h;
};

/* A series key as the store wants it: labels sorted by name, no empty values,
 * no duplicate names, every hash filled in. The strings are borrowed. */
struct fsc_regstore_key {
    const char *metric;
    uint32_t metric_len, metric_h;
    uint32_t ls_h; /* label-set hash */
    uint32_t h;    /* series hash: source, metric, label set */
    size_t n;
    struct fsc_regstore_label l[FSC_REGSTORE_MAX_LABELS];
};

/* Sets up an empty store able to hold max_entries series (>= 1) and counts
 * its allocations in st->mem (which starts at 0). Returns 0, or -ENOMEM with
 * everything freed and *st zeroed, so fsc_regstore_fini() is still safe.
 * Thread: before any other use. */
int fsc_regstore_init(struct fsc_regstore *st, uint32_t max_entries);

/* Frees every block, directory, chunk and table; a zeroed store is a no-op.
 * Thread: no other thread may use the store during or after this call. */
void fsc_regstore_fini(struct fsc_regstore *st);

/* Allocates `bytes` (<= one block) of 8-byte aligned arena space that lives
 * until fini. Returns the pointer and writes its ref (never 0), or returns
 * NULL on allocation failure with nothing changed. Lock held. */
void *fsc_regstore_alloc(struct fsc_regstore *st, size_t bytes, uint32_t *ref_out);

/* Existing id of series (source, key), or FSC_SERIES_NONE. Never allocates.
 * Lock held. */
fsc_series_id fsc_regstore_series_find(const struct fsc_regstore *st, uint16_t source,
                                       const struct fsc_regstore_key *key);

/* Appends series (source, key), which must not exist yet, as id `count` and
 * publishes it (release). The caller has checked its limits: count must be
 * below the max_entries given at init. Returns the id, or FSC_SERIES_NONE on
 * allocation failure; strings interned before a failure stay interned and
 * are reused by the next attempt, so retries cannot grow memory without
 * bound. Lock held. */
fsc_series_id fsc_regstore_series_add(struct fsc_regstore *st, uint16_t source,
                                      const struct fsc_regstore_key *key);

/* The accessors below are inline because lock-free readers (sinks, once per
 * series per scrape) and the intern fast path call them. */

/* Adds n bytes to the memory self-metric. Relaxed: exact when quiescent. */
static inline void fsc_regstore_mem_add(struct fsc_regstore *st, size_t n)
{
    atomic_fetch_add_explicit(&st->mem, n, memory_order_relaxed);
}

/* Bytes allocated by the store. Lock-free (relaxed). */
static inline size_t fsc_regstore_mem(const struct fsc_regstore *st)
{
    /* The cast drops const only to satisfy atomic_load's prototype. */
    return atomic_load_explicit((_Atomic size_t *)&st->mem, memory_order_relaxed);
}

/* Number of published entries. Lock-free (acquire): every entry below the
 * returned count, and everything it refers to, is visible to the caller. */
static inline uint32_t fsc_regstore_count(const struct fsc_regstore *st)
{
    return atomic_load_explicit((_Atomic uint32_t *)&st->count, memory_order_acquire);
}

/* Resolves an arena ref. Readers reach it only for refs of published
 * entries, after the acquire load of count, so the directory they load holds
 * the block. Lock-free under that rule. */
static inline void *fsc_regstore_at(const struct fsc_regstore *st, uint32_t ref)
{
    struct fsc_regstore_dir *dir =
        atomic_load_explicit((_Atomic(struct fsc_regstore_dir *) *)&st->dir, memory_order_acquire);
    return dir->blocks[ref >> FSC_REGSTORE_OFF_BITS] +
           (size_t)(ref & FSC_REGSTORE_OFF_MASK) * FSC_REGSTORE_UNIT;
}

/* The NUL-terminated string of a string ref; valid until fini. Lock-free
 * under the rule of fsc_regstore_at(). */
static inline const char *fsc_regstore_str_at(const struct fsc_regstore *st, uint32_t ref)
{
    return ((const struct fsc_regstore_str *)fsc_regstore_at(st, ref))->s;
}

/* Entry of id, whose chunk must exist: id below fsc_regstore_count() for a
 * lock-free reader, or any id being written under the lock. */
static inline struct fsc_regstore_entry *fsc_regstore_entry_at(const struct fsc_regstore *st,
                                                               uint32_t id)
{
    return &st->chunks[id >> FSC_REGSTORE_CHUNK_SHIFT][id & (FSC_REGSTORE_CHUNK_SIZE - 1)];
}

#endif
