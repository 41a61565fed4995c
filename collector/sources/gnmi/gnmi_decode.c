/* gNMI SubscribeResponse decoder: a single pass per message level over the
 * protobuf wire bytes (why not protobuf-c unpack: gnmi_decode.h). */
#include "sources/gnmi/gnmi_decode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/gnmi/gnmi_int.h"

#define NS_PER_MS            1000000LL
#define JUNOS_HEADER_EXT_ID  1 /* gnmi_ext.ExtensionID EID_JUNIPER_TELEMETRY_HEADER */
#define DEFAULT_MAX_SERIES   16384u
#define DEFAULT_MAX_SEQ_KEYS 256u
#define MAX_SEQ_KEYS         65536u
#define MULTI_SERIES         1024u /* series fed by several producers (gnmi_components.c) */

struct fsc_gnmi_decoder {
    struct gnmi_resolver rs;
    char *device;
    /* Two caches: raw prefix bytes -> prefix id, and (prefix id, raw update
     * path bytes) -> series. A target serializes a path the same way every
     * time, so the hot path hashes and compares the bytes it received and
     * never parses a path; a miss parses it, encodes it canonically (sorted
     * keys, `__` elems dropped) and resolves it through the profile and the
     * registry, which also merges different encodings of one path. */
    struct gnmi_series_cache *prefixes;
    struct gnmi_series_cache *paths;
    uint32_t next_prefix;
    struct gnmi_seq *seq;     /* sequence numbers per producer + path */
    struct gnmi_ports *ports; /* ports of this stream and their last-clear */
    struct gnmi_multi *multi; /* series of several producers, combined */
    struct gnmi_zero *zero;   /* zero-suppressed counters; NULL = not filled */
    struct fsc_gnmi_decode_stats st;
    uint8_t key[FSC_GNMI_PATH_KEY_MAX]; /* the encoded path of the current update */
};

/* Fields of the Junos telemetry header extension the decoder uses. */
struct junos_header {
    uint32_t component_id, sub_component_id;
    struct fsc_pb_slice path; /* streamed_path, else subscribed_path, else sensor_name */
    struct fsc_pb_slice sensor, subscribed;
    uint64_t seq;
    int64_t payload_ms, creation_ms;
    uint8_t eom; /* the last message of a batch (wrap) of this sensor */
};

struct fsc_gnmi_decoder *fsc_gnmi_decoder_create(const struct fsc_gnmi_decode_config *cfg,
                                                 const struct fsc_source_env *env, char *err,
                                                 size_t errlen)
{
    if (!cfg || !env || !env->reg || !cfg->device || !cfg->device[0]) {
        snprintf(err, errlen, "gNMI decoder needs a registry and a device name");
        return NULL;
    }
    uint32_t max_seq = cfg->max_seq_keys ? cfg->max_seq_keys : DEFAULT_MAX_SEQ_KEYS;
    if (max_seq > MAX_SEQ_KEYS) {
        snprintf(err, errlen, "max_seq_keys %u is above %u", max_seq, MAX_SEQ_KEYS);
        return NULL;
    }
    struct fsc_gnmi_decoder *dec = calloc(1, sizeof(*dec));
    if (!dec)
        goto nomem;
    dec->device = strdup(cfg->device);
    uint32_t max_series = cfg->max_series ? cfg->max_series : DEFAULT_MAX_SERIES;
    dec->prefixes = gnmi_series_cache_create(max_series);
    dec->paths = gnmi_series_cache_create(max_series);
    dec->seq = gnmi_seq_create(max_seq);
    dec->ports = gnmi_ports_create(GNMI_PORTS_MAX);
    dec->multi = gnmi_multi_create(MULTI_SERIES);
    if (cfg->fill_suppressed_zeros && !(dec->zero = gnmi_zero_create(GNMI_ZERO_INSTANCES)))
        goto nomem;
    if (!dec->device || !dec->prefixes || !dec->paths || !dec->seq || !dec->ports || !dec->multi)
        goto nomem;
    dec->rs.env = *env;
    dec->rs.profile = cfg->profile ? cfg->profile : &fsc_profile_junos;
    dec->rs.device = dec->device;
    dec->rs.interval_ns = cfg->sample_interval_ns;
    dec->rs.live = cfg->live;
    dec->rs.variant_mask = cfg->variant_mask;
    return dec;
nomem:
    fsc_gnmi_decoder_destroy(dec);
    snprintf(err, errlen, "out of memory creating the gNMI decoder");
    return NULL;
}

void fsc_gnmi_decoder_destroy(struct fsc_gnmi_decoder *dec)
{
    if (!dec)
        return;
    gnmi_series_cache_destroy(dec->prefixes);
    gnmi_series_cache_destroy(dec->paths);
    gnmi_seq_destroy(dec->seq);
    gnmi_ports_destroy(dec->ports);
    gnmi_multi_destroy(dec->multi);
    gnmi_zero_destroy(dec->zero);
    free(dec->device);
    free(dec);
}

void fsc_gnmi_decoder_stats(const struct fsc_gnmi_decoder *dec, struct fsc_gnmi_decode_stats *out)
{
    *out = dec->st;
    out->cache_series = gnmi_series_cache_count(dec->paths);
    out->heap_allocs = gnmi_series_cache_allocs(dec->prefixes) +
                       gnmi_series_cache_allocs(dec->paths) + gnmi_seq_allocs(dec->seq) +
                       dec->ports->allocs;
    out->memory_bytes = sizeof(*dec) + strlen(dec->device) + 1 + gnmi_seq_memory(dec->seq) +
                        dec->ports->memory + gnmi_series_cache_memory(dec->prefixes) +
                        gnmi_series_cache_memory(dec->paths) + gnmi_multi_memory(dec->multi) +
                        gnmi_zero_memory(dec->zero);
}

/* ---- Junos header extension -------------------------------------------------- */

static int parse_junos_header(struct fsc_pb_slice s, struct junos_header *jh)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_slice streamed = FSC_PB_NONE;
    struct fsc_pb_field f;
    int rc;
    memset(jh, 0, sizeof(*jh));
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        /* Known fields must have their type, used or not: varints 2, 3 and
         * 8..14, strings 1 and 4..7. Branching on the wire type first
         * repeats the reader's own test, so the compiler merges the two
         * (~5 % of a one-update message, bench/gnmi_decode_bench.c). */
        int varint = f.num == 2 || f.num == 3 || (f.num >= 8 && f.num <= 15);
        int str = f.num >= 1 && f.num <= 7 && !varint;
        if (f.wt == FSC_PB_VARINT) {
            if (str)
                return GNMI_BAD;
            if (f.num == 2)
                jh->component_id = (uint32_t)f.u;
            else if (f.num == 3)
                jh->sub_component_id = (uint32_t)f.u;
            else if (f.num == 8)
                jh->seq = f.u;
            else if (f.num == 9)
                jh->payload_ms = (int64_t)f.u;
            else if (f.num == 10)
                jh->creation_ms = (int64_t)f.u;
            else if (f.num == 14)
                jh->eom = f.u != 0;
        } else if (f.wt == FSC_PB_LEN) {
            if (varint)
                return GNMI_BAD;
            if (f.num == 4)
                jh->sensor = fsc_pb_bytes(&f);
            else if (f.num == 5)
                jh->subscribed = fsc_pb_bytes(&f);
            else if (f.num == 6)
                streamed = fsc_pb_bytes(&f);
        } else if (varint || str) {
            return GNMI_BAD;
        }
    }
    if (rc < 0)
        return GNMI_BAD;
    jh->path = streamed.n ? streamed : jh->subscribed.n ? jh->subscribed : jh->sensor;
    return 0;
}

/* gnmi_ext.Extension: returns 1 when it held a Junos header (parsed into jh),
 * 0 for any other extension, GNMI_BAD when malformed. */
static int parse_extension(struct fsc_pb_slice s, struct junos_header *jh)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_field f, g;
    int found = 0, rc;
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        if (f.num != 1)
            continue;
        if (f.wt != FSC_PB_LEN)
            return GNMI_BAD;
        /* RegisteredExtension {id = 1; msg = 2}: ids are open enums. */
        const uint8_t *q = f.p, *qend = f.p + f.n;
        uint64_t id = 0;
        struct fsc_pb_slice msg = FSC_PB_NONE;
        while ((rc = fsc_pb_next(&q, qend, &g)) > 0) {
            if (g.num == 1) {
                if (g.wt != FSC_PB_VARINT)
                    return GNMI_BAD;
                id = g.u;
            } else if (g.num == 2) {
                if (g.wt != FSC_PB_LEN)
                    return GNMI_BAD;
                msg = fsc_pb_bytes(&g);
            }
        }
        if (rc < 0)
            return GNMI_BAD;
        if (id == JUNOS_HEADER_EXT_ID) {
            if (parse_junos_header(msg, jh) != 0)
                return GNMI_BAD;
            found = 1;
        } else {
            found = 0; /* oneof: the last alternative wins */
        }
    }
    return rc < 0 ? GNMI_BAD : found;
}

static uint64_t seq_key(const struct junos_header *jh)
{
    uint64_t seed = (uint64_t)jh->component_id << 32 | jh->sub_component_id;
    uint64_t h = gnmi_key_hash(jh->path.p, jh->path.n, seed);
    return h ? h : 1; /* 0 marks an empty slot */
}

/* Tracks the producer's sequence number (gnmi_seq.c: lost, late, restart);
 * returns 1 when its stream was re-created (stream_creation_timestamp
 * changed): a counter reset. */
static int seq_track(struct fsc_gnmi_decoder *dec, const struct junos_header *jh,
                     struct fsc_gnmi_result *res)
{
    struct gnmi_seq_verdict v;
    gnmi_seq_track(dec->seq, seq_key(jh), jh->seq, jh->creation_ms, &v);
    res->seq_skipped = v.skipped;
    res->seq_lost = v.lost;
    res->seq_late = v.late;
    dec->st.seq_repeats += v.repeat;
    dec->st.seq_restarts += v.restart;
    dec->st.seq_untracked += v.untracked;
    return v.reset;
}

/* ---- message walk ---------------------------------------------------------- */

#define NO_PREFIX UINT32_MAX

struct notif_ctx {
    struct fsc_gnmi_decoder *dec;
    struct fsc_pb_slice prefix_raw;
    uint32_t prefix_id;     /* NO_PREFIX: the prefix cache is full */
    int prefix_state;       /* 0 = not encoded yet, 1 = encoded, 2 = unsupported */
    struct path_enc prefix; /* prefix encoded in dec->key[0 .. prefix.len) */
    int64_t t_dev_ns;
    int64_t t_arr_ns;
    uint32_t flags;
    uint64_t comp;   /* the message's producer (line card, PFE) + 1; 0 = no Junos header */
    uint8_t cleared; /* a port's last-clear changed in this notification */
    struct fsc_sample *out;
    size_t out_cap;
    struct fsc_gnmi_result *res;
};

/* Cache miss: parses the path, encodes prefix + path canonically (in
 * dec->key[0 .. *key_len)) and resolves the series. Returns 0 or GNMI_BAD;
 * *flags says pseudo / unsupported / passthrough / last-clear, *port_hash
 * names the path's port (0: none). */
static int path_slow(struct notif_ctx *nc, struct fsc_pb_slice path, fsc_series_id *id,
                     uint32_t *flags, uint64_t *port_hash, size_t *key_len)
{
    struct fsc_gnmi_decoder *dec = nc->dec;
    *id = FSC_SERIES_NONE;
    *flags = 0;
    *port_hash = 0;
    *key_len = 0;
    if (nc->prefix_state == 0) {
        nc->prefix = (struct path_enc){0, 0, -1};
        int rc = gnmi_enc_path(dec->key, &nc->prefix, nc->prefix_raw);
        if (rc == GNMI_BAD)
            return GNMI_BAD;
        nc->prefix_state = rc == GNMI_UNSUPPORTED ? 2 : 1;
    }
    struct path_enc pe = nc->prefix;
    int rc = gnmi_enc_path(dec->key, &pe, path);
    if (rc == GNMI_BAD)
        return GNMI_BAD;
    *key_len = pe.len;
    if (pe.dunder_off >= 0)
        *flags = GNMI_SER_PSEUDO;
    else if (rc == GNMI_UNSUPPORTED || nc->prefix_state == 2 || pe.elems == 0)
        *flags = GNMI_SER_UNSUPPORTED;
    else
        *id = gnmi_series_resolve(&dec->rs, dec->key, pe.len, flags, port_hash);
    return 0;
}

/* A new cache slot: the producer that fed it first, its port's number, the
 * last-clear epoch now (a new series needs no evidence) and, for a counter
 * with a number (dec->key[0 .. key_len) its path), its zero-suppression
 * instance. */
static void slot_init(struct fsc_gnmi_decoder *dec, struct gnmi_slot *slot, uint64_t comp,
                      uint64_t port_hash, size_t key_len, int kind)
{
    slot->comp = comp;
    slot->port = port_hash ? gnmi_ports_intern(dec->ports, port_hash) : 0;
    if (port_hash && !slot->port)
        dec->st.clear_untracked++;
    slot->clear_seen = dec->ports->epoch;
    slot->zero = 0;
    if (dec->zero && kind != VAL_NONE && slot->id != FSC_SERIES_NONE && key_len &&
        !(slot->flags & (GNMI_SER_GAUGE | GNMI_SER_CLEAR | GNMI_SER_PSEUDO | GNMI_SER_UNSUPPORTED)))
        slot->zero =
            gnmi_zero_learn(dec->zero, dec->key, key_len, slot->port, comp, &slot->zero_leaf);
}

/* A last-clear value of the slot's port, from the producer that reported it
 * first (gnmi_clear.c): a change moves the epoch on. */
static void clear_note(struct notif_ctx *nc, const struct gnmi_slot *slot, union fsc_value v)
{
    if (!slot || !slot->port || slot->comp != nc->comp)
        return;
    if (gnmi_ports_clear(nc->dec->ports, slot->port, v.u)) { /* a double: its bits */
        nc->cleared = 1;
        nc->dec->st.clear_changes++;
        gnmi_zero_port_cleared(nc->dec->zero, slot->port);
    }
}

/* FSC_SMP_RESET for the first sample of a counter after its port's
 * last-clear changed, else 0. Until some port's last-clear changes, one
 * compare. */
static uint32_t clear_flag(struct fsc_gnmi_decoder *dec, struct gnmi_slot *slot, uint32_t sflags)
{
    const struct gnmi_ports *ports = dec->ports;
    if (!slot || slot->clear_seen == ports->epoch)
        return 0;
    uint32_t seen = slot->clear_seen;
    slot->clear_seen = ports->epoch;
    if (!slot->port || (sflags & GNMI_SER_GAUGE) ||
        !gnmi_ports_cleared_since(ports, slot->port, seen))
        return 0;
    dec->st.clear_resets++;
    return FSC_SMP_RESET;
}

/* A link-speed leaf of the port whose handle in the link-speed table is
 * `port` (0: not followed): its value becomes the port's report of the
 * leaf's rank (gnmi_speed.c). */
static void speed_note(struct fsc_gnmi_decoder *dec, uint32_t port, uint32_t sflags,
                       struct fsc_pb_slice val, struct fsc_gnmi_result *res)
{
    unsigned leaf = GNMI_SER_SPEED_LEAF(sflags);
    uint64_t bps;
    res->speeds++;
    if (gnmi_speed_read(leaf, val, &bps) < 0) {
        dec->st.speed_unreadable++;
        return;
    }
    if (port && fsc_link_speeds_learn(dec->rs.env.speeds, port, gnmi_speed_rank(leaf), bps) > 0)
        dec->st.speed_changes++;
}

static int do_update(struct notif_ctx *nc, struct fsc_pb_slice s)
{
    struct fsc_gnmi_decoder *dec = nc->dec;
    struct fsc_gnmi_result *res = nc->res;
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_slice path = FSC_PB_NONE, val = FSC_PB_NONE;
    struct fsc_pb_field f;
    int has_val = 0, rc;
    res->updates++;
    /* path 1, val 3; value (2, deprecated) and duplicates (4) are skipped */
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        if (f.num != 1 && f.num != 3)
            continue;
        if (f.wt != FSC_PB_LEN)
            return GNMI_BAD;
        if (f.num == 1) {
            path = fsc_pb_bytes(&f);
        } else {
            val = fsc_pb_bytes(&f);
            has_val = 1;
        }
    }
    if (rc < 0)
        return GNMI_BAD;
    union fsc_value v = {0};
    int kind = has_val ? gnmi_parse_typed_value(val, &v) : VAL_NONE;
    if (kind == GNMI_BAD)
        return GNMI_BAD;

    fsc_series_id id;
    uint32_t sflags = 0;
    uint64_t port_hash;
    size_t key_len;
    struct gnmi_slot *slot = NULL; /* NULL past the cache bound: producers not combined */
    if (nc->prefix_id != NO_PREFIX) {
        uint64_t h = gnmi_key_hash(path.p, path.n, nc->prefix_id);
        slot = gnmi_series_cache_slot(dec->paths, nc->prefix_id, path.p, path.n, h);
        if (slot) {
            id = slot->id;
            sflags = slot->flags;
        } else {
            if (path_slow(nc, path, &id, &sflags, &port_hash, &key_len) != 0)
                return GNMI_BAD;
            if (gnmi_series_cache_add(dec->paths, nc->prefix_id, path.p, path.n, h, id, sflags) !=
                0)
                dec->st.cache_full++;
            else if ((slot = gnmi_series_cache_slot(dec->paths, nc->prefix_id, path.p, path.n, h)))
                slot_init(dec, slot, nc->comp, port_hash, key_len, kind);
        }
    } else {
        if (path_slow(nc, path, &id, &sflags, &port_hash, &key_len) != 0)
            return GNMI_BAD;
        dec->st.cache_full++;
    }
    if (sflags & GNMI_SER_PSEUDO) {
        res->pseudo++;
        return 0;
    }
    if (sflags & GNMI_SER_SPEED) {
        speed_note(dec, id, sflags, has_val ? val : FSC_PB_NONE, res);
        return 0;
    }
    if ((sflags & GNMI_SER_UNSUPPORTED) || kind == VAL_NONE) {
        res->unsupported++;
        res->path_dropped += (sflags & GNMI_SER_UNSUPPORTED) != 0;
        return 0;
    }
    if (sflags & GNMI_SER_CLEAR) {
        res->clears++;
        clear_note(nc, slot, v);
        return 0;
    }
    if (sflags & GNMI_SER_PASSTHROUGH)
        res->unknown++;
    if (sflags & GNMI_SER_NAME_HASHED)
        res->names_hashed++;
    if (id == FSC_SERIES_NONE) {
        res->no_series++;
        return 0;
    }
    if (slot && slot->zero && kind != VAL_NONE)
        gnmi_zero_seen(dec->zero, slot->zero, slot->zero_leaf,
                       kind == VAL_U ? v.u == 0 : v.d == 0.0);
    uint32_t smp_flags = nc->flags | (kind == VAL_D ? FSC_SMP_F64 : 0);
    /* One compare on the hot path: a series whose records all come from
     * one producer is never combined (gnmi_components.c). */
    if (slot && (slot->comp != nc->comp || (sflags & GNMI_SER_MULTI))) {
        if (!(slot->flags & GNMI_SER_MULTI)) {
            slot->flags |= GNMI_SER_MULTI;
            dec->st.multi_series++;
        }
        int r = gnmi_multi_combine(dec->multi, id, slot->comp, nc->comp,
                                   (sflags & GNMI_SER_GAUGE) != 0, &v, &smp_flags);
        if (r == GNMI_MULTI_WAIT) {
            res->multi_wait++;
            return 0;
        }
        if (r == GNMI_MULTI_FULL) {
            res->multi_dropped++;
            return 0;
        }
    }
    if (res->n_samples >= nc->out_cap) {
        res->overflow++;
        return 0;
    }
    struct fsc_sample *smp = &nc->out[res->n_samples++];
    smp->series = id;
    smp->flags = smp_flags | clear_flag(dec, slot, sflags);
    smp->t_dev_ns = nc->t_dev_ns;
    smp->t_arr_ns = nc->t_arr_ns;
    smp->v = v;
    return 0;
}

/* The id of the notification's raw prefix bytes (a new one on first sight). */
static uint32_t prefix_id_of(struct fsc_gnmi_decoder *dec, struct fsc_pb_slice prefix)
{
    uint32_t flags;
    uint64_t h = gnmi_key_hash(prefix.p, prefix.n, 0x5052454649585eULL);
    int64_t r = gnmi_series_cache_find(dec->prefixes, 0, prefix.p, prefix.n, h, &flags);
    if (r >= 0)
        return (uint32_t)r;
    if (dec->next_prefix == NO_PREFIX ||
        gnmi_series_cache_add(dec->prefixes, 0, prefix.p, prefix.n, h, dec->next_prefix, 0) != 0)
        return NO_PREFIX;
    return dec->next_prefix++;
}

/* The path of a gnmi.Update that do_update() has decoded already. */
static struct fsc_pb_slice update_path(struct fsc_pb_slice s)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_slice path = FSC_PB_NONE;
    struct fsc_pb_field f = {0};
    while (fsc_pb_next(&p, end, &f) > 0)
        if (f.num == 1 && f.wt == FSC_PB_LEN)
            path = fsc_pb_bytes(&f);
    return path;
}

/* A port's last-clear changed in this notification (gnmi_clear.c): its
 * counters decoded before the leaf looked at an older epoch, so their
 * samples are flagged now. A second walk of the updates, only on a clear. */
static void flag_before_clear(struct notif_ctx *nc, struct fsc_pb_slice s)
{
    struct fsc_gnmi_decoder *dec = nc->dec;
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_field f = {0};
    if (nc->prefix_id == NO_PREFIX)
        return; /* no slots: nothing was stamped */
    while (fsc_pb_next(&p, end, &f) > 0) {
        if (f.num != 4 || f.wt != FSC_PB_LEN)
            continue;
        struct fsc_pb_slice path = update_path(fsc_pb_bytes(&f));
        uint64_t h = gnmi_key_hash(path.p, path.n, nc->prefix_id);
        struct gnmi_slot *slot =
            gnmi_series_cache_slot(dec->paths, nc->prefix_id, path.p, path.n, h);
        if (!slot || !slot->port || slot->id == FSC_SERIES_NONE ||
            (slot->flags & (GNMI_SER_GAUGE | GNMI_SER_SPEED)) ||
            !gnmi_ports_cleared_since(dec->ports, slot->port, slot->clear_seen))
            continue;
        uint32_t hits = 0;
        for (uint32_t i = 0; i < nc->res->n_samples; i++) {
            struct fsc_sample *smp = &nc->out[i];
            if (smp->series == slot->id) {
                hits += !(smp->flags & FSC_SMP_RESET);
                smp->flags |= FSC_SMP_RESET;
                slot->clear_seen = dec->ports->epoch;
            }
        }
        dec->st.clear_resets += hits;
    }
}

/* gnmi.Notification. Pass 1 finds the timestamp and the prefix (field order
 * is not guaranteed on the wire), pass 2 decodes the updates. */
static int do_notification(struct notif_ctx *nc, struct fsc_pb_slice s,
                           const struct junos_header *jh)
{
    const uint8_t *p = s.p, *end = s.p + s.n;
    struct fsc_pb_slice prefix = FSC_PB_NONE;
    struct fsc_pb_field f;
    int64_t ts = 0;
    int rc;
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        int varint = f.num == 1 || f.num == 6;            /* timestamp, atomic */
        int len = f.num == 2 || f.num == 4 || f.num == 5; /* prefix, update, delete */
        if (f.wt == FSC_PB_VARINT) { /* wire type first: see parse_junos_header() */
            if (len)
                return GNMI_BAD;
            if (f.num == 1)
                ts = (int64_t)f.u;
        } else if (f.wt == FSC_PB_LEN) {
            if (varint)
                return GNMI_BAD;
            if (f.num == 2)
                prefix = fsc_pb_bytes(&f);
            else if (f.num == 5)
                nc->res->deletes++;
        } else if (varint || len) {
            return GNMI_BAD;
        }
    }
    if (rc < 0)
        return GNMI_BAD;
    /* A payload time past year 2262 does not fit in ns (signed overflow,
     * found by fuzzing): such a header time is ignored like a zero one. */
    if (jh && jh->payload_ms > 0 && jh->payload_ms <= INT64_MAX / NS_PER_MS) {
        nc->t_dev_ns = jh->payload_ms * NS_PER_MS;
        nc->res->header_time = 1;
    } else if (ts > 0) {
        nc->t_dev_ns = ts;
    } else {
        nc->t_dev_ns = nc->t_arr_ns;
        nc->flags |= FSC_SMP_ARRIVAL_TIME;
    }
    nc->res->t_dev_ns = nc->t_dev_ns;

    nc->prefix_raw = prefix;
    nc->prefix_state = 0;
    nc->prefix_id = prefix_id_of(nc->dec, prefix);

    /* Pass 1 read these very bytes without error: only the updates are
     * left to decode (their type is checked again all the same). */
    for (p = s.p; (rc = fsc_pb_next(&p, end, &f)) > 0;) {
        if (f.num != 4)
            continue;
        if (f.wt != FSC_PB_LEN || do_update(nc, fsc_pb_bytes(&f)) != 0)
            return GNMI_BAD;
    }
    if (rc < 0)
        return GNMI_BAD;
    if (nc->cleared)
        flag_before_clear(nc, s);
    if (nc->dec->zero) {
        struct fsc_gnmi_result *res = nc->res;
        struct gnmi_zero_report rep = {.comp = nc->comp,
                                       .t_dev_ns = nc->t_dev_ns,
                                       .t_arr_ns = nc->t_arr_ns,
                                       .flags = nc->flags};
        size_t room = nc->out_cap > res->n_samples ? nc->out_cap - res->n_samples : 0;
        uint32_t n = gnmi_zero_flush(nc->dec->zero, &nc->dec->rs, &rep, nc->out + res->n_samples,
                                     room, &res->overflow);
        res->n_samples += n;
        res->zero_filled = n;
    }
    return 0;
}

static void stats_add(struct fsc_gnmi_decode_stats *st, const struct fsc_gnmi_result *res)
{
    st->updates += res->updates;
    st->samples += res->n_samples;
    st->pseudo += res->pseudo;
    st->unsupported += res->unsupported;
    st->unknown += res->unknown;
    st->no_series += res->no_series;
    st->overflow += res->overflow;
    st->deletes += res->deletes;
    st->sync_responses += res->sync_response;
    st->errors += res->error;
    st->seq_skipped += res->seq_skipped;
    st->seq_late += res->seq_late;
    st->seq_lost += res->seq_lost;
    st->clears += res->clears;
    st->speeds += res->speeds;
    st->multi_wait += res->multi_wait;
    st->multi_dropped += res->multi_dropped;
    st->eoms += res->eom;
    st->names_hashed += res->names_hashed;
    st->zero_filled += res->zero_filled;
}

int fsc_gnmi_decode(struct fsc_gnmi_decoder *dec, const uint8_t *buf, size_t len,
                    int64_t arrival_ns, struct fsc_sample *out, size_t out_cap,
                    struct fsc_gnmi_result *res)
{
    const uint8_t *p = buf, *end = buf + len;
    struct fsc_pb_slice notif = FSC_PB_NONE;
    struct fsc_pb_field f;
    struct junos_header jh;
    int have_notif = 0, rc;

    memset(res, 0, sizeof(*res));
    dec->st.messages++;
    if (!buf && len)
        goto bad;
    /* Pass 1 over the top level: the header extension must be known before
     * the updates are stamped, and it may follow them on the wire. */
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) {
        if (f.num == 3) { /* sync_response */
            if (f.wt != FSC_PB_VARINT)
                goto bad;
            res->sync_response = f.u != 0;
        } else if (f.num == 1 || f.num == 4 || f.num == 5) { /* update, error, extension */
            if (f.wt != FSC_PB_LEN)
                goto bad;
            if (f.num == 1) {
                notif = fsc_pb_bytes(&f);
                have_notif = 1;
            } else if (f.num == 4) {
                res->error = 1;
            } else {
                int r = parse_extension(fsc_pb_bytes(&f), &jh);
                if (r == GNMI_BAD)
                    goto bad;
                if (r == 1) {
                    res->has_header = 1;
                    res->eom = jh.eom;
                }
            }
        }
    }
    if (rc < 0)
        goto bad;
    if (have_notif) {
        struct notif_ctx nc = {.dec = dec,
                               .t_arr_ns = arrival_ns,
                               .out = out,
                               .out_cap = out ? out_cap : 0,
                               .res = res};
        if (res->has_header) {
            nc.comp = ((uint64_t)jh.component_id << 32 | jh.sub_component_id) + 1;
            if (nc.comp == 0)
                nc.comp = UINT64_MAX; /* (2^32-1, 2^32-1): not "no header" */
        }
        if (do_notification(&nc, notif, res->has_header ? &jh : NULL) != 0)
            goto bad;
        if (res->has_header && seq_track(dec, &jh, res)) {
            for (uint32_t i = 0; i < res->n_samples; i++)
                out[i].flags |= FSC_SMP_RESET;
        }
    } else if (res->has_header) {
        seq_track(dec, &jh, res);
    }
    stats_add(&dec->st, res);
    return 0;
bad:
    memset(res, 0, sizeof(*res));
    dec->st.malformed++;
    return -EBADMSG;
}
