/* Private to collector/sources/gnmi: the path and value readers, the encoded
 * path key, and the series cache. Messages are walked with the shared
 * protobuf field reader (base/pbwire.h).
 *
 * Encoded path key (the series cache key, built per update without copying
 * more than the names and keys): for each path elem, in order,
 *     u16 name_len, name bytes, u8 n_keys,
 *     then per key (sorted by key name): u16 klen, key, u16 vlen, value
 * (lengths little-endian). Length prefixes make the encoding injective, so
 * two different paths never share a key whatever bytes their names hold. */
#ifndef FSC_GNMI_INT_H
#define FSC_GNMI_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/pbwire.h"
#include "model/profile.h"
#include "sources/gnmi/gnmi_config.h"
#include "plugin/source.h"

/* ---- paths and values (gnmi_fields.c) -------------------------------------- */

enum { GNMI_BAD = -1, GNMI_UNSUPPORTED = -2 };

/* Path encoder state: the key built so far. */
struct path_enc {
    size_t len;
    size_t elems;
    long dunder_off; /* start of a trailing `__` elem, -1 = none */
};

/* Appends the elems of a gnmi.Path (elem, and the deprecated string
 * `element`) to key[0 .. FSC_GNMI_PATH_KEY_MAX) from pe->len on. Origin and
 * target are not part of a series' identity. A `__` elem followed by another
 * is dropped; a trailing one is left marked in pe->dunder_off (pseudo leaf).
 * Returns 0, GNMI_BAD (malformed) or GNMI_UNSUPPORTED (too deep / too long /
 * too many keys; the walk still validates the rest). */
int gnmi_enc_path(uint8_t *key, struct path_enc *pe, struct fsc_pb_slice s);

enum { VAL_U = 0, VAL_D = 1, VAL_NONE = 2 };

/* gnmi.TypedValue -> *v: VAL_U (uint_val, int_val >= 0, integer text), VAL_D
 * (double_val, float_val, decimal text), VAL_NONE (anything else), or
 * GNMI_BAD when malformed. */
int gnmi_parse_typed_value(struct fsc_pb_slice s, union fsc_value *v);

/* ---- path key -------------------------------------------------------------- */

/* 64-bit hash of n bytes seeded with `seed`: two independent multiply
 * lanes over 16 bytes per step (a single lane is a serial chain of
 * multiplies, the hot spot of the decoder), then a final mix. Not
 * cryptographic: keys come from the device we subscribed to. */
static inline uint64_t gnmi_key_hash(const uint8_t *k, size_t n, uint64_t seed)
{
    const uint64_t m1 = 0x9e3779b97f4a7c15ULL, m2 = 0xc2b2ae3d27d4eb4fULL;
    uint64_t a = seed ^ (n * m1), b = ~seed;
    while (n >= 16) {
        uint64_t w0, w1;
        memcpy(&w0, k, 8);
        memcpy(&w1, k + 8, 8);
        a = (a ^ w0) * m1;
        b = (b ^ w1) * m2;
        a ^= a >> 31;
        b ^= b >> 29;
        k += 16;
        n -= 16;
    }
    uint64_t w0 = 0, w1 = 0;
    if (n >= 8) {
        memcpy(&w0, k, 8);
        k += 8;
        n -= 8;
        for (size_t i = 0; i < n; i++)
            w1 |= (uint64_t)k[i] << (8 * i);
    } else {
        for (size_t i = 0; i < n; i++)
            w0 |= (uint64_t)k[i] << (8 * i);
    }
    a = (a ^ w0) * m1;
    b = (b ^ w1) * m2;
    uint64_t h = a ^ (b >> 32) ^ (b << 32);
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

/* ---- series cache (gnmi_series.c) ---------------------------------------- */

enum {
    GNMI_SER_PASSTHROUGH = 1u << 0, /* the profile did not know the path */
    GNMI_SER_PSEUDO = 1u << 1,      /* a `__` pseudo leaf: dropped */
    GNMI_SER_UNSUPPORTED = 1u << 2, /* path too deep / too long / empty */
    GNMI_SER_GAUGE = 1u << 3,       /* a gauge: producers combine by max, not sum */
    GNMI_SER_MULTI = 1u << 4,       /* more than one Junos producer feeds it (combined) */
    GNMI_SER_NAME_HASHED = 1u << 5, /* a list-key label name over 63 bytes was hashed */
    GNMI_SER_CLEAR = 1u << 6,       /* the profile's reset_leaf (last-clear): no series */
    GNMI_SER_SPEED = 1u << 7,       /* a link-speed leaf (gnmi_speed.c): no series; the
                                     * leaf's number in bits GNMI_SER_SPEED_SHIFT.. */
};
#define GNMI_SER_SPEED_SHIFT       8
#define GNMI_SER_SPEED_LEAF(flags) (((flags) >> GNMI_SER_SPEED_SHIFT) & 3u)

/* One cached path. Entries sit in one array in insertion order (a pointer
 * to one is valid until the next add to its cache); an open-addressing
 * index of 32-bit entry numbers finds them. Per path, 48 B of entry and
 * 8-16 B of index instead of 56 B slots at load 1/4 to 1/2 (112-224 B): the
 * path caches held more memory than any other part of the collector at
 * 1 000 devices (docs/PERFORMANCE.md, "Memory per series"). */
struct gnmi_slot {
    const uint8_t *key; /* n bytes, interned (gnmi_key_intern) */
    uint64_t comp;      /* the Junos producer that fed it first (gnmi_multi_*), 0 = none */
    uint32_t hash;      /* the low 32 bits of the key hash */
    uint32_t tag;
    fsc_series_id id;
    uint32_t flags;
    uint32_t port;       /* its port's number in the decoder's gnmi_ports, 0 = none */
    uint32_t clear_seen; /* gnmi_ports.epoch when its samples last looked at the port */
    uint32_t zero;       /* its instance in the decoder's gnmi_zero, 0 = not followed */
    uint16_t n;          /* key bytes (<= FSC_GNMI_PATH_KEY_MAX) */
    uint8_t zero_leaf;   /* its leaf bit there */
};

/* ---- keys interned once per process (gnmi_key_intern.c) ----------------- */

/* The process-wide copy of key[0 .. n), held once more; NULL without
 * memory. Equal keys give the same pointer. Thread-safe. */
const uint8_t *gnmi_key_intern(const uint8_t *key, size_t n);
/* Lets go of a key gnmi_key_intern() returned (the same n); the last
 * holder frees it. NULL is ignored. */
void gnmi_key_release(const uint8_t *key, size_t n);
/* Distinct keys held now (tests). */
size_t gnmi_key_interned(void);

struct gnmi_series_cache {
    struct gnmi_slot *ent; /* count used of cap_ent */
    uint32_t *index;       /* entry number + 1, 0 = empty; load <= 1/2 */
    uint32_t mask;         /* index slots - 1; a power of two */
    uint32_t count, cap_ent, max;
    uint32_t allocs; /* heap allocations after create */
    size_t memory;   /* its own arrays; the keys are interned (shared) */
};

/* The entry of (tag, key) (hash h), or NULL when absent; valid until the
 * next gnmi_series_cache_add(). The tag lets one table hold keys that are
 * only unique within a context (raw path bytes under a prefix id). */
static inline struct gnmi_slot *gnmi_series_cache_slot(const struct gnmi_series_cache *c,
                                                       uint32_t tag, const uint8_t *key, size_t n,
                                                       uint64_t h)
{
    /* Load factor <= 1/2, so a probe run ends at an empty slot quickly. */
    for (uint32_t i = (uint32_t)h & c->mask, step = 0; step <= c->mask;
         i = (i + 1) & c->mask, step++) {
        uint32_t no = c->index[i];
        if (!no)
            return NULL;
        struct gnmi_slot *s = &c->ent[no - 1];
        if (s->hash == (uint32_t)h && s->n == n && s->tag == tag &&
            (n == 0 || memcmp(s->key, key, n) == 0))
            return s;
    }
    return NULL;
}

/* The cached id of (tag, key) (hash h), or -1 when absent. *flags gets
 * GNMI_SER_* of the entry. */
static inline int64_t gnmi_series_cache_find(const struct gnmi_series_cache *c, uint32_t tag,
                                             const uint8_t *key, size_t n, uint64_t h,
                                             uint32_t *flags)
{
    const struct gnmi_slot *s = gnmi_series_cache_slot(c, tag, key, n, h);
    if (!s)
        return -1;
    *flags = s->flags;
    return s->id;
}

/* ---- producers combined (gnmi_components.c) --------------------------------- */

#define GNMI_MULTI_PRODUCERS 8 /* producers (line card, PFE) of one series at most */

enum { GNMI_MULTI_EMIT = 0, GNMI_MULTI_WAIT = 1, GNMI_MULTI_FULL = 2 };

struct gnmi_multi;

/* A table of at most `max` series fed by several producers. NULL on ENOMEM.
 * The caller owns it (gnmi_multi_destroy; NULL is a no-op there). */
struct gnmi_multi *gnmi_multi_create(uint32_t max);
void gnmi_multi_destroy(struct gnmi_multi *m);
size_t gnmi_multi_memory(const struct gnmi_multi *m);

/* Records producer `comp`'s value *v (FSC_SMP_F64 in *smp_flags: a double)
 * for `series`, whose records came from first_comp alone until now. Returns
 * GNMI_MULTI_EMIT with *v the combination (sum, or max when gauge) and
 * *smp_flags adjusted (F64; RESET on the first sum after the producer set
 * changed), GNMI_MULTI_WAIT while a known producer has no value yet, or
 * GNMI_MULTI_FULL when the table or the producer bound is full (the sample
 * is dropped: two producers must never be two conflicting samples). */
int gnmi_multi_combine(struct gnmi_multi *m, fsc_series_id series, uint64_t first_comp,
                       uint64_t comp, int gauge, union fsc_value *v, uint32_t *smp_flags);

/* ---- ports and their last-clear (gnmi_clear.c) ------------------------------ */

/* Owned by one decoder and used by its stream's thread only (no locks). */
#define GNMI_PORTS_MAX 4096u /* ports of one stream followed at most */

/* One port: the last-clear value seen last and when it changed. */
struct gnmi_port {
    uint64_t key;        /* hash of the port name (gnmi_port_key) */
    uint64_t clear;      /* last-clear value (raw bits) seen last */
    uint32_t changed_at; /* gnmi_ports.epoch of its last change; 0 = never */
    uint8_t seen;        /* a last-clear value was seen */
};

struct gnmi_ports {
    struct gnmi_port *port; /* by number - 1, append-only: numbers never move */
    uint32_t *index;        /* open addressing over key: port number, 0 = empty */
    uint32_t n, cap, mask, max;
    /* Changes of any port's last-clear so far (a stream sees a few per clear
     * command, 2^32 of them is out of reach): a slot that looked at this
     * epoch needs no look at its port, the hot path's one compare. */
    uint32_t epoch;
    uint32_t allocs;
    size_t memory;
};

/* An empty table of at most max ports (nothing allocated until the first
 * port). NULL on ENOMEM. The caller owns it (gnmi_ports_destroy; NULL is a
 * no-op there). */
struct gnmi_ports *gnmi_ports_create(uint32_t max);
void gnmi_ports_destroy(struct gnmi_ports *p);

/* The number (1..max) of the port whose key is `key` (gnmi_port_key),
 * added on first sight; 0 when the table is full or memory ran out (the
 * port's last-clear is then not followed). */
uint32_t gnmi_ports_intern(struct gnmi_ports *p, uint64_t key);

/* Key of a port name of n bytes: a 64-bit hash, never 0. Two names that
 * share a key (odds ~ ports^2 / 2^64) share their last-clear. */
uint64_t gnmi_port_key(const char *name, size_t n);

/* Notes last-clear value `clear` of port number no. Returns 1 when it
 * differs from the value seen before (the epoch moves on and the port
 * changed at it: reset evidence), 0 on the first sighting or the same
 * value. */
int gnmi_ports_clear(struct gnmi_ports *p, uint32_t no, uint64_t clear);

/* 1 when the last-clear of port number no (1..n) changed after epoch
 * `seen`. */
static inline int gnmi_ports_cleared_since(const struct gnmi_ports *p, uint32_t no, uint32_t seen)
{
    return p->port[no - 1].changed_at > seen;
}

/* ---- zero-suppressed counters (gnmi_zero.c) -------------------------------- */

/* Owned by one decoder and used by its stream's thread only (no locks). */
#define GNMI_ZERO_REPORTS   3u     /* reports of an instance without a leaf before it reads 0 */
#define GNMI_ZERO_CLASSES   64u    /* containers (paths without keys) followed per stream */
#define GNMI_ZERO_LEAVES    64u    /* counter leaves per container */
#define GNMI_ZERO_TOUCHED   4096u  /* instances one notification can report */
#define GNMI_ZERO_INSTANCES 16384u /* instances (port, queue ...) followed per stream */

struct gnmi_zero;
struct gnmi_resolver;

/* What the notification being decoded gives its zeros. */
struct gnmi_zero_report {
    uint64_t comp; /* its producer (notif_ctx.comp) */
    int64_t t_dev_ns, t_arr_ns;
    uint32_t flags; /* FSC_SMP_* every sample of the notification carries */
};

/* An empty table of at most max instances. NULL on ENOMEM. The caller owns
 * it (gnmi_zero_destroy; NULL is a no-op there). */
struct gnmi_zero *gnmi_zero_create(uint32_t max);
void gnmi_zero_destroy(struct gnmi_zero *z);
size_t gnmi_zero_memory(const struct gnmi_zero *z); /* bytes held; 0 for NULL */

/* Follows the counter leaf whose canonical path key is key[0 .. n): its
 * container instance (the key without the last elem) and class (the same
 * without list keys) are added on first sight, the leaf becomes known to
 * the class. Returns the instance number (1 ..) with the leaf's bit in
 * *leaf, or 0 when not followed (a bound is reached, out of memory, a leaf
 * with list keys, a key of one elem). port is the gnmi_ports number (0 =
 * none), comp the producer. Slow path: once per cache slot. */
uint32_t gnmi_zero_learn(struct gnmi_zero *z, const uint8_t *key, size_t n, uint32_t port,
                         uint64_t comp, uint8_t *leaf);

/* Hot path: leaf `leaf` of instance `no` is in the notification being
 * decoded, with a value of 0 when is_zero. */
void gnmi_zero_seen(struct gnmi_zero *z, uint32_t no, uint8_t leaf, bool is_zero);

/* The counters of port number `port` were cleared: every leaf its instances
 * have shown is 0 now (left out, it reads 0; its first 0 carries
 * FSC_SMP_RESET). */
void gnmi_zero_port_cleared(struct gnmi_zero *z, uint32_t port);

/* End of a notification: for each instance it reported (from the producer
 * that reported it first), a sample of value 0 per leaf whose last value was
 * 0 and that this report left out, and, once the instance has reported
 * GNMI_ZERO_REPORTS times, per leaf of its class it never sent; stamped as
 * rep says, into
 * out[0 .. cap) (more are counted in *overflow). Series are resolved through
 * rs once per instance and leaf. Returns the samples written. z may be
 * NULL (nothing followed: 0). */
uint32_t gnmi_zero_flush(struct gnmi_zero *z, const struct gnmi_resolver *rs,
                         const struct gnmi_zero_report *rep, struct fsc_sample *out, size_t cap,
                         uint32_t *overflow);

/* ---- link-speed leaves (gnmi_speed.c) ------------------------------------------ */

#define GNMI_SPEED_LEAVES 3

/* The number (0 .. GNMI_SPEED_LEAVES-1) of the link-speed leaf whose
 * keyless path is `vendor`, or -1. */
int gnmi_speed_leaf(const char *vendor);

/* The link-speed table's rank of leaf number `leaf` (lower wins). */
unsigned gnmi_speed_rank(unsigned leaf);

/* An ETHERNET_SPEED identity s[0 .. n) ("SPEED_400GB", with or without a
 * "module:" prefix) in bits per second in *bps. Returns 1 (a speed), 0
 * (SPEED_UNKNOWN: *bps 0) or -1 (not a speed identity: *bps 0). */
int gnmi_speed_identity(const char *s, size_t n, uint64_t *bps);

/* The gnmi.TypedValue tv of leaf number `leaf` in bits per second in *bps:
 * an identity as text for the identityref leaves; Mb/s as uint_val, int_val
 * or decimal text for high-speed. Returns 1 (a speed), 0 (the device says
 * unknown: *bps 0) or -1 (no value, another type, malformed). */
int gnmi_speed_read(unsigned leaf, struct fsc_pb_slice tv, uint64_t *bps);

/* ---- Junos sequence numbers (gnmi_seq.c) -------------------------------------- */

/* Owned by one decoder and used by its stream's thread only (no locks). */
#define GNMI_SEQ_WINDOW 64u /* reorder window: numbers up to the highest seen */

/* What one message's sequence number meant. */
struct gnmi_seq_verdict {
    uint64_t skipped;  /* numbers jumped over (they may still arrive, late) */
    uint64_t lost;     /* numbers that left the window unseen, or whose numbering ended */
    uint8_t late;      /* this number was jumped over before: late, not lost */
    uint8_t repeat;    /* this number was seen before */
    uint8_t restart;   /* a new numbering began (new creation time, or confirmed) */
    uint8_t reset;     /* the producer's stream_creation_timestamp changed */
    uint8_t untracked; /* the key table is full: not followed */
};

struct gnmi_seq;

/* A table of at most max producer+path keys (grows on demand). NULL on
 * ENOMEM. The caller owns it (gnmi_seq_destroy; NULL is a no-op there). */
struct gnmi_seq *gnmi_seq_create(uint32_t max);
void gnmi_seq_destroy(struct gnmi_seq *sq);
size_t gnmi_seq_memory(const struct gnmi_seq *sq);   /* bytes held */
uint32_t gnmi_seq_allocs(const struct gnmi_seq *sq); /* heap allocations after create */

/* Tracks number seq of producer+path `key` (a hash) whose stream was created
 * at creation_ms (0: unknown); *v is overwritten with what it meant. */
void gnmi_seq_track(struct gnmi_seq *sq, uint64_t key, uint64_t seq, int64_t creation_ms,
                    struct gnmi_seq_verdict *v);

/* Static facts the resolver needs to intern a new series. */
struct gnmi_resolver {
    struct fsc_source_env env;
    const struct fsc_profile *profile;
    const char *device;
    int64_t interval_ns;
    bool live;            /* counter_copy: live: the profile's periodic copies do not apply */
    uint8_t variant_mask; /* the device's profile variant (Junos `os`); 0 = any */
};

/* Cache of at most max entries; storage grows on demand. NULL on ENOMEM. */
struct gnmi_series_cache *gnmi_series_cache_create(uint32_t max);
void gnmi_series_cache_destroy(struct gnmi_series_cache *c);

/* Adds (tag, key) -> (id, flags). Returns 0, -ENOSPC when the bound is
 * reached or the key is longer than FSC_GNMI_PATH_KEY_MAX, or -ENOMEM. */
int gnmi_series_cache_add(struct gnmi_series_cache *c, uint32_t tag, const uint8_t *key, size_t n,
                          uint64_t h, fsc_series_id id, uint32_t flags);

uint32_t gnmi_series_cache_count(const struct gnmi_series_cache *c);
uint32_t gnmi_series_cache_allocs(const struct gnmi_series_cache *c);
size_t gnmi_series_cache_memory(const struct gnmi_series_cache *c);

/* Slow path of a cache miss: maps the encoded path through the profile,
 * builds the labels, interns the series and sets its traits. Returns the id
 * (FSC_SERIES_NONE when refused), GNMI_SER_* flags in *flags, and in
 * *port_hash gnmi_port_key(port name) when the path names a port (0
 * when not). The profile's reset_leaf is no series: GNMI_SER_CLEAR, id
 * FSC_SERIES_NONE. A link-speed leaf is no series either: GNMI_SER_SPEED
 * with the leaf's number, and the id returned is the port's handle in
 * rs->env.speeds (fsc_link_speeds_port; 0: no table, no port key, or the
 * table is full), not a series id. */
fsc_series_id gnmi_series_resolve(const struct gnmi_resolver *rs, const uint8_t *key, size_t n,
                                  uint32_t *flags, uint64_t *port_hash);

#endif
