/* Zero-suppressed counters read as 0 (Junos).
 *
 * Junos telemetry suppresses zeros by default: a counter whose value is 0 is
 * not exported (docs/vendors/junos.md, "Zero suppression"). Left alone, a
 * port whose discards never moved has no discard series at all, and a panel
 * or alert on it shows "no data" where the truth is 0.
 *
 * How a suppressed leaf is known. Juniper, "gNMI Subscription" (Junos
 * telemetry guide): the initial synchronization "also sends Packet
 * Forwarding Engine sensors containing zero counter values that would
 * normally not appear in streamed data due to the zero-suppression feature",
 * so the collector knows every field. A counter's container instance is its
 * encoded path without the last elem (the interface, or the interface and
 * queue, with their keys): `.../interface[name=et-0/0/1]/state/counters`.
 * Two rules, per instance report:
 * - shown as 0: a leaf whose last value was 0 (at the sync, or any report)
 *   and that a later report of its instance leaves out is still 0 (a counter
 *   never falls but by a clear): that report gives it a 0 at its time;
 * - never shown: a leaf that other instances of the same class (the path
 *   without keys: what every port shares) report, and that this instance has
 *   not sent in GNMI_ZERO_REPORTS reports, reads 0 from then on (a device
 *   without the sync dump, or `updates_only`). Three reports, not one: a
 *   device could split one instance over two messages, and a leaf that
 *   arrives in any of them is never filled this way.
 * Once the device sends the leaf with a value, it is a counter like any
 * other (filled again only when it is 0 and left out).
 *
 * After a port's counters were cleared (last-clear changed, gnmi_clear.c)
 * they are all 0: every leaf the port's instances have shown counts as shown
 * as 0, and the first 0 given to a series after the clear carries
 * FSC_SMP_RESET.
 *
 * Only counters with a numeric value are followed (no gauges, no last-clear,
 * no strings), and only from the producer that reported the instance first.
 * Bounded: GNMI_ZERO_CLASSES classes of GNMI_ZERO_LEAVES leaves, `max`
 * instances per stream; past them leaves are simply not filled (counted). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sources/gnmi/gnmi_decode.h"
#include "sources/gnmi/gnmi_int.h"

#define INSTANCES_MIN 64u

struct zero_class {
    uint64_t hash;    /* of the elem names without keys */
    uint64_t known;   /* leaves any instance reported */
    uint8_t n_leaves; /* leaves named in leaf[] */
    /* Encoded last elems (u16 len, name, u8 0 keys): appended to an
     * instance's key, they make the leaf's path key. */
    uint8_t *leaf[GNMI_ZERO_LEAVES];
    uint16_t leaf_len[GNMI_ZERO_LEAVES];
};

struct zero_inst {
    const uint8_t *key; /* container key bytes (interned: gnmi_key_intern) */
    uint32_t hash;      /* the low 32 bits of the container key's hash */
    uint16_t n;         /* key length */
    uint16_t cls;       /* class index */
    uint32_t port;      /* gnmi_ports number, 0 = none */
    uint8_t reports;    /* reports seen, saturating at GNMI_ZERO_REPORTS */
    uint8_t touched;    /* in the touched list */
    uint8_t n_ids;      /* entries of ids[]: the class's leaves when it last grew */
    uint64_t comp;      /* the producer that reported it first */
    uint64_t ever;      /* leaves this instance has reported */
    uint64_t zero;      /* leaves whose last value here was 0 */
    uint64_t now;       /* leaves of the report being decoded */
    uint64_t now_zero;  /* ... of them, those with value 0 */
    uint64_t restart;   /* leaves whose next 0 is reset evidence */
    fsc_series_id *ids; /* per leaf (n_ids): series of its zeros (lazily), NONE = not fillable */
    uint64_t resolved;  /* leaves whose ids[] entry is set */
};

/* The classes and the touched list grow on demand (doubling from these):
 * a stream follows a handful of containers and reports a few dozen
 * instances per notification, and a decoder per stream at thousands of
 * streams made their full bounds (~58 KiB) a fixed cost per stream. */
#define CLASSES_MIN 4u
#define TOUCHED_MIN 64u

struct gnmi_zero {
    struct zero_class *cls; /* n_cls used of cap_cls (<= GNMI_ZERO_CLASSES) */
    uint32_t n_cls, cap_cls;
    struct zero_inst *inst; /* by number - 1 */
    uint32_t *index;        /* open addressing over hash: number, 0 = empty */
    uint32_t n, cap, mask, max;
    uint32_t *touched; /* n_touched used of cap_touched (<= GNMI_ZERO_TOUCHED) */
    uint32_t n_touched, cap_touched;
    size_t memory;
};

struct gnmi_zero *gnmi_zero_create(uint32_t max)
{
    struct gnmi_zero *z = calloc(1, sizeof(*z));
    if (!z)
        return NULL;
    z->max = max;
    z->memory = sizeof(*z);
    return z;
}

void gnmi_zero_destroy(struct gnmi_zero *z)
{
    if (!z)
        return;
    for (uint32_t i = 0; i < z->n_cls; i++)
        for (uint32_t l = 0; l < z->cls[i].n_leaves; l++)
            free(z->cls[i].leaf[l]);
    for (uint32_t i = 0; i < z->n; i++) {
        gnmi_key_release(z->inst[i].key, z->inst[i].n);
        free(z->inst[i].ids);
    }
    free(z->cls);
    free(z->inst);
    free(z->index);
    free(z->touched);
    free(z);
}

size_t gnmi_zero_memory(const struct gnmi_zero *z)
{
    return z ? z->memory : 0;
}

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Offset of the last elem of the encoded key k[0 .. n) and the hash of its
 * elem names without keys (the class), or -1 when malformed. */
static long split_key(const uint8_t *k, size_t n, uint64_t *class_hash)
{
    size_t at = 0, last = 0;
    uint64_t h = 0x5a45524fULL;
    while (at < n) {
        if (n - at < 3)
            return -1;
        size_t nl = rd16(k + at);
        if (n - at < 3 + nl)
            return -1;
        last = at;
        const uint8_t *name = k + at + 2;
        at += 2 + nl;
        size_t nk = k[at++];
        for (size_t i = 0; i < 2 * nk; i++) {
            if (n - at < 2 || n - at < 2 + rd16(k + at))
                return -1;
            at += 2 + rd16(k + at);
        }
        if (at < n) /* the leaf's own name is not part of the class */
            h = gnmi_key_hash(name, nl, h);
    }
    *class_hash = h;
    return (long)last;
}

static uint32_t *index_probe(const struct gnmi_zero *z, uint64_t h, const uint8_t *key, size_t n)
{
    uint32_t i = (uint32_t)h & z->mask;
    for (;;) {
        uint32_t no = z->index[i];
        if (!no)
            return &z->index[i];
        const struct zero_inst *in = &z->inst[no - 1];
        if (in->hash == (uint32_t)h && in->n == n && memcmp(in->key, key, n) == 0)
            return &z->index[i];
        i = (i + 1) & z->mask; /* load <= 1/2: ends */
    }
}

/* Room for one more instance: the instances grow by half (their slack is
 * memory per instance for as long as the stream lives), the index doubles
 * to keep its load <= 1/2. On failure the add fails; a larger array that
 * was already made is kept (harmless). */
static int grow(struct gnmi_zero *z)
{
    if (z->n == z->cap) {
        uint32_t cap = z->cap ? z->cap + z->cap / 2 : INSTANCES_MIN;
        if (cap > z->max)
            cap = z->max;
        struct zero_inst *inst = realloc(z->inst, cap * sizeof(*inst));
        if (!inst)
            return -ENOMEM;
        z->memory += (cap - z->cap) * sizeof(*inst);
        z->inst = inst;
        z->cap = cap;
    }
    if (z->index && (z->n + 1) * 2 <= z->mask + 1)
        return 0;
    uint32_t slots = z->index ? 2 * (z->mask + 1) : 2 * INSTANCES_MIN;
    uint32_t *index = calloc(slots, sizeof(*index));
    if (!index)
        return -ENOMEM;
    z->memory += (slots - (z->index ? z->mask + 1 : 0)) * sizeof(*index);
    free(z->index);
    z->index = index;
    z->mask = slots - 1;
    for (uint32_t no = 1; no <= z->n; no++) {
        const struct zero_inst *in = &z->inst[no - 1];
        *index_probe(z, in->hash, in->key, in->n) = no;
    }
    return 0;
}

/* The class of hash h (added on first sight), or -1 when the table is full. */
static int class_of(struct gnmi_zero *z, uint64_t h)
{
    for (uint32_t i = 0; i < z->n_cls; i++)
        if (z->cls[i].hash == h)
            return (int)i;
    if (z->n_cls == GNMI_ZERO_CLASSES)
        return -1;
    if (z->n_cls == z->cap_cls) {
        uint32_t cap = z->cap_cls ? 2 * z->cap_cls : CLASSES_MIN;
        struct zero_class *cls = realloc(z->cls, cap * sizeof(*cls));
        if (!cls)
            return -1;
        z->memory += (cap - z->cap_cls) * sizeof(*cls);
        z->cls = cls;
        z->cap_cls = cap;
    }
    memset(&z->cls[z->n_cls], 0, sizeof(z->cls[0]));
    z->cls[z->n_cls].hash = h;
    return (int)z->n_cls++;
}

/* The leaf bit of the encoded last elem e[0 .. n) in class c (added on first
 * sight), or -1 when the class is full. */
static int leaf_of(struct gnmi_zero *z, struct zero_class *c, const uint8_t *e, size_t n)
{
    for (int l = 0; l < c->n_leaves; l++)
        if (c->leaf_len[l] == n && memcmp(c->leaf[l], e, n) == 0)
            return l;
    if (c->n_leaves == GNMI_ZERO_LEAVES || e[n - 1] != 0) /* a leaf with keys: not followed */
        return -1;
    uint8_t *copy = malloc(n);
    if (!copy)
        return -1;
    memcpy(copy, e, n);
    c->leaf[c->n_leaves] = copy;
    c->leaf_len[c->n_leaves] = (uint16_t)n;
    z->memory += n;
    return c->n_leaves++;
}

uint32_t gnmi_zero_learn(struct gnmi_zero *z, const uint8_t *key, size_t n, uint32_t port,
                         uint64_t comp, uint8_t *leaf)
{
    uint64_t ch;
    long last = split_key(key, n, &ch);
    if (!z || last <= 0)
        return 0;
    int c = class_of(z, ch);
    int l = c < 0 ? -1 : leaf_of(z, &z->cls[c], key + last, n - (size_t)last);
    if (l < 0)
        return 0;
    size_t kn = (size_t)last;
    uint64_t h = gnmi_key_hash(key, kn, 0x494e5354ULL);
    uint32_t *slot = z->index ? index_probe(z, h, key, kn) : NULL;
    uint32_t no = slot ? *slot : 0;
    if (!no) {
        if (z->n == z->max || grow(z) != 0)
            return 0;
        const uint8_t *copy = gnmi_key_intern(key, kn); /* shared by devices of one model */
        if (!copy)
            return 0;
        z->inst[z->n] = (struct zero_inst){.hash = (uint32_t)h,
                                           .key = copy,
                                           .n = (uint16_t)kn,
                                           .cls = (uint16_t)c,
                                           .port = port,
                                           .comp = comp};
        no = ++z->n;
        *index_probe(z, h, key, kn) = no;
    }
    z->cls[c].known |= 1ULL << l;
    *leaf = (uint8_t)l;
    return no;
}

void gnmi_zero_seen(struct gnmi_zero *z, uint32_t no, uint8_t leaf, bool is_zero)
{
    struct zero_inst *in = &z->inst[no - 1];
    in->now |= 1ULL << leaf;
    if (is_zero)
        in->now_zero |= 1ULL << leaf;
    if (!in->touched && z->n_touched == z->cap_touched && z->cap_touched < GNMI_ZERO_TOUCHED) {
        uint32_t cap = z->cap_touched ? 2 * z->cap_touched : TOUCHED_MIN;
        uint32_t *t = realloc(z->touched, cap * sizeof(*t));
        if (t) { /* else this instance is not followed in this report, as when full */
            z->memory += (cap - z->cap_touched) * sizeof(*t);
            z->touched = t;
            z->cap_touched = cap;
        }
    }
    if (!in->touched && z->n_touched < z->cap_touched) {
        in->touched = 1;
        z->touched[z->n_touched++] = no;
    }
}

void gnmi_zero_port_cleared(struct gnmi_zero *z, uint32_t port)
{
    for (uint32_t i = 0; z && port && i < z->n; i++) {
        struct zero_inst *in = &z->inst[i];
        if (in->port != port)
            continue;
        in->zero |= in->ever;
        in->restart |= in->ever;
    }
}

/* The series of leaf l's zeros in instance in, resolved once. */
static fsc_series_id zero_series(struct gnmi_zero *z, const struct gnmi_resolver *rs,
                                 struct zero_inst *in, int l)
{
    const struct zero_class *c = &z->cls[in->cls];
    if (l >= in->n_ids) { /* sized to the class's leaves (most have far fewer than 64) */
        uint32_t n = c->n_leaves > l ? c->n_leaves : (uint32_t)l + 1;
        fsc_series_id *ids = realloc(in->ids, n * sizeof(*ids));
        if (!ids)
            return FSC_SERIES_NONE;
        z->memory += (n - in->n_ids) * sizeof(*ids);
        in->ids = ids;
        in->n_ids = (uint8_t)n;
    }
    if (in->resolved >> l & 1)
        return in->ids[l];
    uint8_t key[FSC_GNMI_PATH_KEY_MAX];
    fsc_series_id id = FSC_SERIES_NONE;
    if ((size_t)in->n + c->leaf_len[l] <= sizeof(key)) {
        memcpy(key, in->key, in->n);
        memcpy(key + in->n, c->leaf[l], c->leaf_len[l]);
        uint32_t flags = 0;
        uint64_t port_hash = 0;
        id = gnmi_series_resolve(rs, key, (size_t)in->n + c->leaf_len[l], &flags, &port_hash);
        if (flags & (GNMI_SER_GAUGE | GNMI_SER_CLEAR | GNMI_SER_PSEUDO | GNMI_SER_UNSUPPORTED))
            id = FSC_SERIES_NONE;
    }
    in->ids[l] = id;
    in->resolved |= 1ULL << l;
    return id;
}

uint32_t gnmi_zero_flush(struct gnmi_zero *z, const struct gnmi_resolver *rs,
                         const struct gnmi_zero_report *rep, struct fsc_sample *out, size_t cap,
                         uint32_t *overflow)
{
    uint32_t n_out = 0;
    for (uint32_t t = 0; z && t < z->n_touched; t++) {
        struct zero_inst *in = &z->inst[z->touched[t] - 1];
        uint64_t sent = in->now;
        in->touched = 0;
        in->ever |= sent;
        in->zero = (in->zero & ~sent) | in->now_zero;
        in->restart &= ~sent;
        in->now = in->now_zero = 0;
        if (in->comp != rep->comp)
            continue;
        if (in->reports < GNMI_ZERO_REPORTS)
            in->reports++;
        uint64_t missing = in->zero & ~sent; /* shown as 0, left out now */
        if (in->reports >= GNMI_ZERO_REPORTS)
            missing |= z->cls[in->cls].known & ~in->ever; /* never shown */
        if (!missing)
            continue;
        for (int l = 0; l < (int)GNMI_ZERO_LEAVES; l++) {
            if (!(missing >> l & 1))
                continue;
            fsc_series_id id = zero_series(z, rs, in, l);
            if (id == FSC_SERIES_NONE)
                continue;
            in->zero |= 1ULL << l; /* filled: its last value is 0 */
            if (n_out >= cap) {
                (*overflow)++;
                continue;
            }
            uint64_t bit = 1ULL << l;
            out[n_out++] =
                (struct fsc_sample){.series = id,
                                    .flags = rep->flags | ((in->restart & bit) ? FSC_SMP_RESET : 0),
                                    .t_dev_ns = rep->t_dev_ns,
                                    .t_arr_ns = rep->t_arr_ns,
                                    .v = {.u = 0}};
            in->restart &= ~bit;
        }
    }
    if (z)
        z->n_touched = 0;
    return n_out;
}
