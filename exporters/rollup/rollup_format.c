/* Encode / decode of the rollup store's header and records (contract and
 * layout in rollup_format.h). Field by field, little-endian, so the bytes on
 * disk never depend on the compiler's struct padding or the host's byte
 * order. */
#include "rollup/rollup_format.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "base/intdiv.h"
#include "base/timefmt.h"

/* CRC-32 (zlib's; the gzip/PNG polynomial) of a record or header body. */
static uint32_t crc_of(const void *buf, size_t len)
{
    return (uint32_t)crc32(0L, buf, (uInt)len);
}

/* ---- little-endian cursor ----------------------------------------------------- */

struct cur {
    uint8_t *p;
    const uint8_t *r;
    size_t off;
};

static void put_u8(struct cur *c, uint8_t v)
{
    c->p[c->off++] = v;
}

static void put_u16(struct cur *c, uint16_t v)
{
    put_u8(c, (uint8_t)v);
    put_u8(c, (uint8_t)(v >> 8));
}

static void put_u32(struct cur *c, uint32_t v)
{
    put_u16(c, (uint16_t)v);
    put_u16(c, (uint16_t)(v >> 16));
}

static void put_u64(struct cur *c, uint64_t v)
{
    put_u32(c, (uint32_t)v);
    put_u32(c, (uint32_t)(v >> 32));
}

static void put_f64(struct cur *c, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof(v));
    put_u64(c, v);
}

static void put_f32(struct cur *c, float f)
{
    uint32_t v;
    memcpy(&v, &f, sizeof(v));
    put_u32(c, v);
}

static void put_str(struct cur *c, const char *s)
{
    size_t n = strnlen(s, FSC_RR_NAME_MAX);
    memcpy(c->p + c->off, s, n);
    memset(c->p + c->off + n, 0, FSC_RR_NAME_MAX + 1 - n);
    c->off += FSC_RR_NAME_MAX + 1;
}

static uint8_t get_u8(struct cur *c)
{
    return c->r[c->off++];
}

static uint16_t get_u16(struct cur *c)
{
    uint16_t lo = get_u8(c);
    return (uint16_t)(lo | (uint16_t)get_u8(c) << 8);
}

static uint32_t get_u32(struct cur *c)
{
    uint32_t lo = get_u16(c);
    return lo | (uint32_t)get_u16(c) << 16;
}

static uint64_t get_u64(struct cur *c)
{
    uint64_t lo = get_u32(c);
    return lo | (uint64_t)get_u32(c) << 32;
}

static double get_f64(struct cur *c)
{
    uint64_t v = get_u64(c);
    double d;
    memcpy(&d, &v, sizeof(d));
    return d;
}

static float get_f32(struct cur *c)
{
    uint32_t v = get_u32(c);
    float f;
    memcpy(&f, &v, sizeof(f));
    return f;
}

static void get_str(struct cur *c, char *out)
{
    memcpy(out, c->r + c->off, FSC_RR_NAME_MAX);
    out[FSC_RR_NAME_MAX] = '\0'; /* a damaged record can never yield an open string */
    c->off += FSC_RR_NAME_MAX + 1;
}

/* ---- records -------------------------------------------------------------------- */

static void put_dir(struct cur *c, const struct fsc_rr_dir *d)
{
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        put_u32(c, d->util[b]);
    put_f64(c, d->util_sum);
    put_f32(c, d->max_fine);
    put_f32(c, d->max_1s);
    put_f64(c, d->bytes);
    put_u32(c, d->bursts);
    put_u32(c, d->long_bursts);
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        put_u32(c, d->dur[b]);
    put_f32(c, d->dur_sum);
}

static void get_dir(struct cur *c, struct fsc_rr_dir *d)
{
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        d->util[b] = get_u32(c);
    d->util_sum = get_f64(c);
    d->max_fine = get_f32(c);
    d->max_1s = get_f32(c);
    d->bytes = get_f64(c);
    d->bursts = get_u32(c);
    d->long_bursts = get_u32(c);
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        d->dur[b] = get_u32(c);
    d->dur_sum = get_f32(c);
}

void fsc_rr_encode(const struct fsc_rr_record *rec, uint8_t out[FSC_RR_RECORD_SIZE])
{
    struct cur c = {.p = out, .off = 4};
    memset(out, 0, FSC_RR_RECORD_SIZE);
    put_u8(&c, rec->type);
    put_u8(&c, 0);
    put_u16(&c, rec->flags);
    put_u32(&c, rec->key);
    put_u32(&c, 0);
    put_u64(&c, (uint64_t)rec->minute_s);
    switch (rec->type) {
    case FSC_RR_NAME:
        put_u8(&c, rec->name.kind);
        put_u8(&c, rec->name.role);
        put_u16(&c, (uint16_t)rec->name.rail);
        put_u32(&c, 0);
        put_u64(&c, rec->name.speed_bps);
        put_str(&c, rec->name.device);
        put_str(&c, rec->name.port);
        put_str(&c, rec->name.peer);
        break;
    case FSC_RR_PORT:
        for (unsigned d = 0; d < FSC_RR_DIRS; d++)
            put_dir(&c, &rec->port.dir[d]);
        put_f64(&c, rec->port.cnp);
        put_f64(&c, rec->port.pfc_pause_s);
        /* version 2 tail, bytes [296, 316): zeroes in version 1 records */
        for (unsigned d = 0; d < FSC_RR_DIRS; d++)
            put_u32(&c, rec->port.dir[d].covered_ms);
        put_f64(&c, rec->port.ib_rx_bytes);
        put_u32(&c, rec->port.counters_ms);
        break;
    case FSC_RR_GROUP:
        put_f64(&c, rec->group.ratio_mean);
        put_f64(&c, rec->group.ratio_max);
        put_u32(&c, rec->group.events);
        put_u32(&c, rec->group.members);
        put_u32(&c, rec->group.polls);
        break;
    case FSC_RR_NODE:
        for (unsigned d = 0; d < FSC_RR_DIRS; d++) {
            put_f64(&c, rec->node.bps_mean[d]);
            put_f64(&c, rec->node.bps_max[d]);
            put_f64(&c, rec->node.eff_mean[d]);
        }
        put_u32(&c, rec->node.polls);
        break;
    default:
        break;
    }
    uint32_t crc = crc_of(out + 4, FSC_RR_RECORD_SIZE - 4);
    c.off = 0;
    put_u32(&c, crc);
}

int fsc_rr_decode(const uint8_t in[FSC_RR_RECORD_SIZE], struct fsc_rr_record *rec)
{
    struct cur c = {.r = in};
    uint32_t crc = get_u32(&c);
    if (crc != crc_of(in + 4, FSC_RR_RECORD_SIZE - 4))
        return -EBADMSG;
    memset(rec, 0, sizeof(*rec));
    rec->type = get_u8(&c);
    (void)get_u8(&c);
    rec->flags = get_u16(&c);
    rec->key = get_u32(&c);
    (void)get_u32(&c);
    rec->minute_s = (int64_t)get_u64(&c);
    switch (rec->type) {
    case FSC_RR_NAME:
        rec->name.kind = get_u8(&c);
        rec->name.role = get_u8(&c);
        rec->name.rail = (int16_t)get_u16(&c);
        (void)get_u32(&c);
        rec->name.speed_bps = get_u64(&c);
        get_str(&c, rec->name.device);
        get_str(&c, rec->name.port);
        get_str(&c, rec->name.peer);
        return 0;
    case FSC_RR_PORT:
        for (unsigned d = 0; d < FSC_RR_DIRS; d++)
            get_dir(&c, &rec->port.dir[d]);
        rec->port.cnp = get_f64(&c);
        rec->port.pfc_pause_s = get_f64(&c);
        for (unsigned d = 0; d < FSC_RR_DIRS; d++)
            rec->port.dir[d].covered_ms = get_u32(&c);
        rec->port.ib_rx_bytes = get_f64(&c);
        rec->port.counters_ms = get_u32(&c);
        /* a record that does not say how much of its minute had data (version
         * 1) meant the whole minute */
        if (!(rec->flags & FSC_RR_F_COVERED)) {
            for (unsigned d = 0; d < FSC_RR_DIRS; d++)
                rec->port.dir[d].covered_ms = FSC_RR_MINUTE_S * 1000;
            rec->port.counters_ms = FSC_RR_MINUTE_S * 1000;
        }
        if (!(rec->flags & FSC_RR_F_IB_RX))
            rec->port.ib_rx_bytes = 0;
        return 0;
    case FSC_RR_GROUP:
        rec->group.ratio_mean = get_f64(&c);
        rec->group.ratio_max = get_f64(&c);
        rec->group.events = get_u32(&c);
        rec->group.members = get_u32(&c);
        rec->group.polls = get_u32(&c);
        return 0;
    case FSC_RR_NODE:
        for (unsigned d = 0; d < FSC_RR_DIRS; d++) {
            rec->node.bps_mean[d] = get_f64(&c);
            rec->node.bps_max[d] = get_f64(&c);
            rec->node.eff_mean[d] = get_f64(&c);
        }
        rec->node.polls = get_u32(&c);
        return 0;
    default:
        return -EPROTO;
    }
}

/* ---- header ------------------------------------------------------------------------ */

void fsc_rr_header_encode(int64_t day_s, int64_t created_ns, uint8_t out[FSC_RR_HEADER_SIZE])
{
    struct cur c = {.p = out, .off = 8};
    memset(out, 0, FSC_RR_HEADER_SIZE);
    memcpy(out, FSC_RR_MAGIC, 8);
    put_u32(&c, FSC_RR_VERSION);
    put_u32(&c, FSC_RR_RECORD_SIZE);
    put_u64(&c, (uint64_t)day_s);
    put_u64(&c, (uint64_t)created_ns);
    c.off = FSC_RR_HEADER_SIZE - 4;
    put_u32(&c, crc_of(out, FSC_RR_HEADER_SIZE - 4));
}

int fsc_rr_header_decode(const uint8_t in[FSC_RR_HEADER_SIZE], int64_t *day_s)
{
    struct cur c = {.r = in, .off = FSC_RR_HEADER_SIZE - 4};
    if (memcmp(in, FSC_RR_MAGIC, 8) != 0 || get_u32(&c) != crc_of(in, FSC_RR_HEADER_SIZE - 4))
        return -EBADMSG;
    c.off = 8;
    uint32_t version = get_u32(&c);
    uint32_t rsize = get_u32(&c);
    if (version < FSC_RR_VERSION_MIN || version > FSC_RR_VERSION || rsize != FSC_RR_RECORD_SIZE)
        return -EPROTO;
    *day_s = (int64_t)get_u64(&c);
    return 0;
}

/* ---- file names ------------------------------------------------------------------- */

const char *fsc_rr_file_name(int64_t t_s, char *buf, size_t size)
{
    int64_t y;
    unsigned m, d;
    fsc_civil_from_days(fsc_floor_div(t_s, 86400), &y, &m, &d);
    snprintf(buf, size, "rollup-%04lld%02u%02u.fsr", (long long)y, m, d);
    return buf;
}

int fsc_rr_file_day(const char *name, int64_t *day_s)
{
    unsigned y, m, d;
    char tail[8];
    if (strlen(name) != 19 || strncmp(name, "rollup-", 7) != 0)
        return -1;
    for (int i = 7; i < 15; i++)
        if (name[i] < '0' || name[i] > '9')
            return -1;
    if (sscanf(name + 7, "%4u%2u%2u%7s", &y, &m, &d, tail) != 4 || strcmp(tail, ".fsr") != 0)
        return -1;
    if (m < 1 || m > 12 || d < 1 || d > 31)
        return -1;
    *day_s = fsc_days_from_civil(y, m, d) * 86400;
    return 0;
}
