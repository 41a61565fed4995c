/* The gNMI series cache (encoded path -> series id) and its slow path:
 * interning a series the first time its path is seen. */
#include "sources/gnmi/gnmi_int.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/name_hash.h"
#include "engine/link_speed.h"
#include "engine/topo_groups.h"
#include "engine/topo_peers.h"
#include "model/topo_labels.h"
#include "sources/gnmi/gnmi_decode.h"

#define INDEX_MIN   64u /* index slots at first: a prefix cache holds a few dozen keys */
#define LABEL_BYTES (FSC_LABEL_NAME_BOUND + 1) /* one sanitized key name */

struct gnmi_series_cache *gnmi_series_cache_create(uint32_t max)
{
    struct gnmi_series_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->max = max;
    c->index = calloc(INDEX_MIN, sizeof(*c->index));
    if (!c->index) {
        free(c);
        return NULL;
    }
    c->mask = INDEX_MIN - 1;
    c->memory = sizeof(*c) + INDEX_MIN * sizeof(*c->index);
    return c;
}

void gnmi_series_cache_destroy(struct gnmi_series_cache *c)
{
    if (!c)
        return;
    for (uint32_t k = 0; k < c->count; k++)
        gnmi_key_release(c->ent[k].key, c->ent[k].n);
    free(c->ent);
    free(c->index);
    free(c);
}

static void index_put(uint32_t *index, uint32_t mask, uint32_t hash, uint32_t no)
{
    uint32_t i = hash & mask;
    while (index[i])
        i = (i + 1) & mask;
    index[i] = no;
}

/* Room for one more entry: the entries grow by half (their slack is what a
 * large cache wastes), the index doubles to keep its load <= 1/2. On
 * failure the old arrays stay (the add fails). */
static int reserve(struct gnmi_series_cache *c)
{
    if (c->count == c->cap_ent) {
        uint32_t cap = c->cap_ent < 32 ? 32 : c->cap_ent + c->cap_ent / 2;
        struct gnmi_slot *e = realloc(c->ent, (size_t)cap * sizeof(*e));
        if (!e)
            return -ENOMEM;
        c->memory += (size_t)(cap - c->cap_ent) * sizeof(*e);
        c->ent = e;
        c->cap_ent = cap;
        c->allocs++;
    }
    if ((c->count + 1) * 2 > c->mask + 1) {
        uint32_t nslots = (c->mask + 1) * 2;
        uint32_t *ni = calloc(nslots, sizeof(*ni));
        if (!ni)
            return -ENOMEM;
        for (uint32_t k = 0; k < c->count; k++)
            index_put(ni, nslots - 1, c->ent[k].hash, k + 1);
        c->memory += (size_t)(nslots - (c->mask + 1)) * sizeof(*ni);
        free(c->index);
        c->index = ni;
        c->mask = nslots - 1;
        c->allocs++;
    }
    return 0;
}

int gnmi_series_cache_add(struct gnmi_series_cache *c, uint32_t tag, const uint8_t *key, size_t n,
                          uint64_t h, fsc_series_id id, uint32_t flags)
{
    if (c->count >= c->max || n > FSC_GNMI_PATH_KEY_MAX)
        return -ENOSPC;
    if (reserve(c) != 0)
        return -ENOMEM;
    const uint8_t *k = gnmi_key_intern(key, n);
    if (!k)
        return -ENOMEM;
    c->ent[c->count] = (struct gnmi_slot){
        .hash = (uint32_t)h, .key = k, .n = (uint16_t)n, .id = id, .flags = flags, .tag = tag};
    c->count++;
    index_put(c->index, c->mask, (uint32_t)h, c->count);
    return 0;
}

uint32_t gnmi_series_cache_count(const struct gnmi_series_cache *c)
{
    return c->count;
}

uint32_t gnmi_series_cache_allocs(const struct gnmi_series_cache *c)
{
    return c->allocs;
}

size_t gnmi_series_cache_memory(const struct gnmi_series_cache *c)
{
    return c->memory;
}

/* ---- slow path: intern a new series ---------------------------------------- */

/* One list key of the decoded path, as NUL-terminated strings. */
struct path_key {
    uint32_t elem; /* index of its elem */
    const char *elem_name, *name, *value;
    size_t name_len; /* bytes of name as sent (it may hold a NUL) */
};

struct decoded_path {
    char vendor[FSC_PROFILE_VENDOR_MAX + 1]; /* "/a/b/c", keys dropped */
    struct path_key keys[FSC_GNMI_ELEMS_MAX * FSC_GNMI_KEYS_MAX];
    size_t n_keys;
    char strings[2 * FSC_GNMI_PATH_KEY_MAX + 64]; /* NUL-terminated copies */
};

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* Copies n bytes to the string area; NULL when it does not fit. */
static const char *str_put(struct decoded_path *dp, size_t *used, const uint8_t *s, size_t n)
{
    if (sizeof(dp->strings) - *used < n + 1)
        return NULL;
    char *dst = dp->strings + *used;
    memcpy(dst, s, n);
    dst[n] = '\0';
    *used += n + 1;
    return dst;
}

/* Decodes an encoded path key (gnmi_int.h). Returns 0, or -1 when the
 * keyless path does not fit a profile name or the key is inconsistent. */
static int path_decode(const uint8_t *k, size_t n, struct decoded_path *dp)
{
    size_t vlen = 0, used = 0;
    const uint8_t *end = k + n;
    dp->n_keys = 0;
    for (uint32_t elem = 0; k < end; elem++) {
        if (end - k < 3)
            return -1;
        uint32_t nl = rd16(k);
        if ((size_t)(end - k - 2) < nl + 1u || vlen + 1 + nl > FSC_PROFILE_VENDOR_MAX)
            return -1;
        dp->vendor[vlen++] = '/';
        memcpy(dp->vendor + vlen, k + 2, nl);
        vlen += nl;
        const char *ename = str_put(dp, &used, k + 2, nl);
        uint32_t nk = k[2 + nl];
        k += 3 + nl;
        for (uint32_t j = 0; j < nk; j++) {
            if (end - k < 2 || (size_t)(end - k - 2) < rd16(k) + 2u)
                return -1;
            uint32_t kl = rd16(k);
            const uint8_t *kp = k + 2;
            k += 2 + kl;
            uint32_t vl = rd16(k);
            if ((size_t)(end - k - 2) < vl)
                return -1;
            const uint8_t *vp = k + 2;
            k += 2 + vl;
            if (dp->n_keys == sizeof(dp->keys) / sizeof(dp->keys[0]))
                return -1;
            struct path_key *pk = &dp->keys[dp->n_keys++];
            pk->elem = elem;
            pk->elem_name = ename;
            pk->name = str_put(dp, &used, kp, kl);
            pk->name_len = kl;
            pk->value = str_put(dp, &used, vp, vl);
            if (!ename || !pk->name || !pk->value)
                return -1;
        }
    }
    dp->vendor[vlen] = '\0';
    return vlen ? 0 : -1;
}

/* Index of the key that names the interface (the port label), or -1:
 * `interface[name=..]` (openconfig-interfaces), `interface[interface-id=..]`
 * (openconfig-qos), `qmon-sw[name=..]` (Junos OS qmon-sw), or a key called
 * if_name / interface-name anywhere (Junos native sensors). The outermost
 * match wins. */
static int port_key(const struct decoded_path *dp)
{
    for (size_t i = 0; i < dp->n_keys; i++) {
        const struct path_key *pk = &dp->keys[i];
        if (strcmp(pk->elem_name, "interface") == 0 &&
            (strcmp(pk->name, "name") == 0 || strcmp(pk->name, "interface-id") == 0))
            return (int)i;
        if (strcmp(pk->name, "if_name") == 0 || strcmp(pk->name, "interface-name") == 0 ||
            strcmp(pk->name, "interface_name") == 0)
            return (int)i;
        /* Junos OS qmon-sw[name=<interface>] (pfe_qmon_oc.proto) */
        if (strcmp(pk->elem_name, "qmon-sw") == 0 && strcmp(pk->name, "name") == 0)
            return (int)i;
    }
    return -1;
}

static int has_label(const struct fsc_label *labels, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(labels[i].name, name) == 0)
            return 1;
    return 0;
}

fsc_series_id gnmi_series_resolve(const struct gnmi_resolver *rs, const uint8_t *key, size_t n,
                                  uint32_t *flags, uint64_t *port_hash)
{
    static _Thread_local struct decoded_path dp; /* ~10 KiB: keep it off small stacks */
    struct fsc_profile_match m;
    struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
    char extra_names[FSC_REGISTRY_MAX_LABELS][LABEL_BYTES];
    char rail[FSC_TOPO_RAIL_BUF];
    size_t nl = 0;

    *flags = 0;
    *port_hash = 0;
    if (path_decode(key, n, &dp) != 0)
        return FSC_SERIES_NONE;
    int pk = port_key(&dp);
    const char *port = pk >= 0 ? dp.keys[pk].value : NULL;
    if (port)
        *port_hash = gnmi_port_key(port, strlen(port));
    int speed_leaf = gnmi_speed_leaf(dp.vendor);
    if (speed_leaf >= 0) {
        *flags = GNMI_SER_SPEED | (uint32_t)speed_leaf << GNMI_SER_SPEED_SHIFT;
        return port ? fsc_link_speeds_port(rs->env.speeds, rs->device, port) : 0;
    }
    if (rs->profile->reset_leaf && strcmp(dp.vendor, rs->profile->reset_leaf) == 0) {
        *flags = GNMI_SER_CLEAR; /* read by the decoder, never a series */
        return FSC_SERIES_NONE;
    }
    if (fsc_profile_map_variant(rs->profile, rs->variant_mask, dp.vendor, &m) != 0)
        return FSC_SERIES_NONE;
    if (!m.entry)
        *flags |= GNMI_SER_PASSTHROUGH;
    if (m.traits.kind == FSC_KIND_GAUGE)
        *flags |= GNMI_SER_GAUGE;
    labels[nl++] = (struct fsc_label){"device", rs->device};
    if (port)
        labels[nl++] = (struct fsc_label){"port", port};
    if (m.label_name[0]) {
        const char *v = m.label_value[0] ? m.label_value : NULL;
        /* innermost first: `queue[name=..]` sits below `interface[name=..]` */
        for (size_t i = dp.n_keys; !v && m.label_attr && i-- > 0;)
            if ((int)i != pk && strcmp(dp.keys[i].name, m.label_attr) == 0)
                v = dp.keys[i].value;
        if (v)
            labels[nl++] = (struct fsc_label){m.label_name, v};
    }
    if (!m.entry) {
        /* A passthrough series keeps its list keys as labels, or the entries
         * of an unknown list (components, PFEs) would merge into one series;
         * a key the profile names (queue-number) takes its canonical label.
         * Room is left for the three topology labels. A name over 63 bytes
         * is its first 45 + "_h" + 16 hex digits of the FNV-1a hash of the
         * whole key name (base/name_hash.h): dropping it would merge the
         * entries of such a list into one series. */
        for (size_t i = 0; i < dp.n_keys && nl + 3 < FSC_REGISTRY_MAX_LABELS; i++) {
            if ((int)i == pk)
                continue;
            char *ln = extra_names[nl];
            const char *canon =
                fsc_profile_key_label(rs->profile, dp.keys[i].elem_name, dp.keys[i].name);
            size_t len = fsc_metric_name_sanitize(canon ? canon : dp.keys[i].name, ln, LABEL_BYTES);
            bool hashed = len >= LABEL_BYTES;
            if (hashed)
                len = fsc_label_name_hash(ln, dp.keys[i].name, dp.keys[i].name_len);
            if (len == 0 || ln[0] == ':' || strncmp(ln, "__", 2) == 0 || has_label(labels, nl, ln))
                continue;
            if (hashed)
                *flags |= GNMI_SER_NAME_HASHED;
            labels[nl++] = (struct fsc_label){ln, dp.keys[i].value};
        }
    }
    fsc_topo_labels_add(rs->env.topo, rs->device, port, labels, &nl, FSC_REGISTRY_MAX_LABELS, rail);

    const struct fsc_source_env *env = &rs->env;
    fsc_series_id id = fsc_registry_lookup(env->reg, env->source_id, m.canonical, labels, nl);
    bool known = id != FSC_SERIES_NONE; /* another stream of this device interned it */
    if (!known)
        id = fsc_registry_intern(env->reg, env->source_id, m.canonical, labels, nl);
    fsc_source_tap_series(env, id, dp.vendor, m.entry != NULL);
    if (id == FSC_SERIES_NONE || !env->eng)
        return id;

    struct fsc_traits tr = m.traits;
    tr.nominal_interval_ns = rs->interval_ns;
    if (rs->live && tr.refresh == FSC_REFRESH_PERIODIC) {
        tr.refresh = FSC_REFRESH_ON_READ;
        tr.refresh_ns = 0;
    }
    /* Every series of a device copied on one timer shares one copy grid,
     * whichever stream delivers it. 0 (table full) falls back to on-read. */
    if (tr.refresh == FSC_REFRESH_PERIODIC && tr.refresh_ns > 0)
        tr.copy_group = fsc_engine_copy_group(env->eng, rs->device, tr.refresh_ns);
    /* A series that takes its port's speed is followed by the link-speed
     * table (the topology's speed, else the device's): attached each time a
     * stream resolves it, so a restarted source's new table follows it too. */
    uint32_t speed_port = port && fsc_link_speed_wanted(&tr)
                              ? fsc_link_speeds_port(env->speeds, rs->device, port)
                              : 0;
    const struct fsc_topo_device *td = NULL;
    const struct fsc_topo_port *tp =
        port && env->topo ? fsc_topology_port(env->topo, rs->device, port, &td) : NULL;
    if (!td && env->topo) /* the device's buffer holds for ports it does not list */
        td = fsc_topology_device(env->topo, rs->device);
    if (td && tr.signal == FSC_SIG_QUEUE_PEAK)
        tr.buffer_bytes = td->buffer_bytes;
    if (known) {
        if (speed_port && fsc_link_speeds_follow(env->speeds, speed_port, id, &tr) != 0)
            return FSC_SERIES_NONE;
        return id; /* its groups and peer were joined when it was interned */
    }
    int rc;
    if (speed_port) {
        rc = fsc_link_speeds_attach(env->speeds, speed_port, id, &tr);
    } else {
        if (tp && fsc_link_speed_wanted(&tr))
            tr.link_speed_bps = tp->speed_bps; /* no table: the topology alone */
        rc = fsc_engine_set_traits(env->eng, id, &tr);
    }
    if (rc != 0 || fsc_topo_groups_join(env->topo, env->eng, rs->device, port, &tr, id) < 0 ||
        fsc_topo_peer_join(env->topo, env->eng, rs->device, port, NULL, &tr, id) < 0)
        return FSC_SERIES_NONE;
    return id;
}
