/* Sharding devices across collectors (docs/CONFIG.md "shard", docs/DEPLOY.md "Sharding").
 *
 * N collectors share the devices by a static rule, the one Prometheus'
 * `hashmod` relabel action uses: the MD5 digest of the device name, its
 * last 8 bytes read as a big-endian unsigned 64-bit number, modulo N. A
 * relabel rule `{source_labels: [device], modulus: N, action: hashmod}`
 * therefore computes the same shard, and so does any script with an MD5
 * (python3: int.from_bytes(hashlib.md5(name).digest()[8:], "big") % N).
 *
 * gnmi and synthetic sources are sharded by their device label, replay
 * sources by their name (a replay file may hold several devices; the name
 * is what the config says about it); OTLP points by the device their
 * resource names (collector/sources/otlp/map/otlp_ingest.c); nic sources never (a NIC
 * poller runs on the host it reads). Pure functions, any thread. */
#ifndef FSC_SHARD_H
#define FSC_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

/* ---- shard: this collector's share of the devices (shard_keys.c) ---------- */

struct fsc_shard_config {
    uint32_t index; /* 0 .. count - 1; default 0 */
    uint32_t count; /* collectors sharing the devices; default 1 (this one takes all) */
    bool from_cli;  /* not a key: set by `run --shard`, which a reload keeps */
    struct fsc_config_mark mark;
};

/* The kind of the shard: section (shard_keys.c). */
extern const struct fsc_config_kind fsc_shard_kind;

/* cfg's shard: section; NULL when cfg's schema has none. */
const struct fsc_shard_config *fsc_shard_config_of(const struct fsc_config *cfg);

/* Largest shard count accepted (config and --shard). */
#define FSC_SHARD_MAX 4096

/* The 64-bit hashmod value of name: bytes 8..15 of md5(name), big-endian
 * (gnutls_hash_fast). 0 if gnutls refuses MD5 (a FIPS-strict build, which
 * Debian's is not): every name then lands on shard 0. */
uint64_t fsc_shard_hash(const char *name);

/* The shard (0 .. count-1) that owns name; 0 when count is 0 or 1. */
uint32_t fsc_shard_of(const char *name, uint32_t count);

/* True when shard `index` of `count` owns name (always with count <= 1). */
bool fsc_shard_owns(uint32_t index, uint32_t count, const char *name);

/* Parses "I/N" (decimal, 0 <= I < N <= FSC_SHARD_MAX, nothing else).
 * Returns 0, or -EINVAL (outputs untouched). */
int fsc_shard_parse(const char *s, uint32_t *index, uint32_t *count);

/* The name a source is sharded by (see the top comment), or NULL for a type
 * that is never sharded (nic; otlp filters per point instead). */
const char *fsc_shard_key(const struct fsc_source_config *sc);

#endif
