/* The rollup store's on-disk format (docs/REPORT.md, "Store format").
 *
 * One file per UTC day, <dir>/rollup-YYYYMMDD.fsr, append-only:
 *
 *   header  FSC_RR_HEADER_SIZE bytes: magic "FSCROLUP", format version,
 *           record size, the day (Unix seconds of 00:00 UTC), creation
 *           time, CRC-32 of the header's first 60 bytes.
 *   records FSC_RR_RECORD_SIZE bytes each: CRC-32 of bytes [4, size), type,
 *           flags, key, minute (Unix seconds, start of the minute), payload.
 *
 * Every integer and double is little-endian (doubles as their IEEE-754 bit
 * pattern), whatever the host, so a store moves between machines.
 *
 * Why fixed-size records: a reader finds record i at a computed offset, and
 * a crash can only leave a torn *last* record, detected by the file size not
 * being header + k x record size (or by its CRC): it is ignored by readers
 * and cut off by the next writer that opens the file. A record whose CRC
 * fails anywhere else is skipped and counted (bit rot), never trusted.
 *
 * Names: data records carry a 32-bit key, not strings. A NAME record binds
 * a key to (device, port, peer, role, rail, speed) or to a group / node
 * name *within its file*, before the first data record that uses it; a later
 * NAME record for the same key in the same file rebinds it (a restarted
 * collector numbers its keys afresh). Every day file is therefore readable
 * alone, and deleting old days never orphans a name.
 *
 * Pure encode/decode: no I/O, no allocation. Thread: any. */
#ifndef FSC_ROLLUP_FORMAT_H
#define FSC_ROLLUP_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define FSC_RR_MAGIC "FSCROLUP" /* 8 bytes, no NUL on disk */
/* Version 2 added, at the end of a PORT record's payload, the seconds of
 * the minute each direction had data (covered_ms), the IB PMA received
 * bytes (ib_rx_bytes) and the seconds its counters cover (counters_ms); version 1 files stay
 * readable: their PORT records carry neither flag and read as whole minutes. A day file created by
 * version 1 and appended to after an upgrade keeps its version 1 header:
 * records describe themselves by their flags, not by the file's version. */
#define FSC_RR_VERSION     2u
#define FSC_RR_VERSION_MIN 1u /* oldest version this build reads */
#define FSC_RR_HEADER_SIZE 64u
#define FSC_RR_RECORD_SIZE 320u
#define FSC_RR_NAME_MAX    63 /* bytes of a device, port, peer or group name */
#define FSC_RR_MINUTE_S    60

enum fsc_rr_type {
    FSC_RR_NAME = 1,  /* key -> names */
    FSC_RR_PORT = 2,  /* one port's minute: both directions, CNP, PFC */
    FSC_RR_GROUP = 3, /* one port group's minute: imbalance */
    FSC_RR_NODE = 4,  /* one B300 node's minute: RDMA throughput */
};

/* What a NAME record names. */
enum fsc_rr_name_kind {
    FSC_RR_NAME_PORT = 0,
    FSC_RR_NAME_GROUP = 1,
    FSC_RR_NAME_NODE = 2,
};

/* Flags of a PORT record: which parts were measured this minute. */
enum {
    FSC_RR_F_RX = 1u << 0,  /* rx bytes series present */
    FSC_RR_F_TX = 1u << 1,  /* tx bytes series present */
    FSC_RR_F_CNP = 1u << 2, /* a CNP-sent series present */
    FSC_RR_F_PFC = 1u << 3, /* a PFC rx pause-duration series present */
    /* covered_ms of the directions is what was measured (version 2); without
     * it the decoder sets both to a whole minute, as version 1 meant */
    FSC_RR_F_COVERED = 1u << 4,
    FSC_RR_F_IB_RX = 1u << 5, /* ib_rx_bytes present (NIC ports, version 2) */
};
/* Flags of a NODE record. */
enum {
    FSC_RR_F_EFF = 1u << 0, /* the efficiency gauges were present */
};

enum { FSC_RR_RX = 0, FSC_RR_TX = 1, FSC_RR_DIRS = 2 };

struct fsc_rr_name {
    uint8_t kind;                     /* enum fsc_rr_name_kind */
    uint8_t role;                     /* enum fsc_port_role (ports) */
    int16_t rail;                     /* -1 = none */
    uint64_t speed_bps;               /* ports: link speed, 0 = unknown */
    char device[FSC_RR_NAME_MAX + 1]; /* port/node: device; group: group name */
    char port[FSC_RR_NAME_MAX + 1];   /* port: port name; node: node number; group: "" */
    char peer[FSC_RR_NAME_MAX + 1];   /* port: "device:port" or "" */
};

/* One direction of a port over one minute. Utilization is 0..1 of the link
 * speed. The fine histogram counts one observation per fine (non-gap)
 * interval the engine saw during the minute (bucket bounds
 * fsc_util_bucket_le, the last bucket being +Inf), exact deltas of the
 * engine's own histogram. */
struct fsc_rr_dir {
    uint32_t util[FSC_UTIL_BUCKETS + 1];
    double util_sum;      /* sum of the fine utilizations observed */
    float max_fine;       /* largest fine-interval utilization seen (window peaks) */
    float max_1s;         /* largest 1 s aligned-window utilization seen */
    double bytes;         /* counter increase over the minute */
    uint32_t bursts;      /* microbursts (shorter than micro_max) that ended */
    uint32_t long_bursts; /* bursts lasting micro_max or longer */
    uint32_t dur[FSC_DURATION_BUCKETS + 1]; /* microburst durations, fsc_duration_bucket_le */
    float dur_sum;                          /* seconds */
    /* Milliseconds of the minute the bytes above cover: the sum of the
     * sample-time spans of the counter increases added this minute, at
     * most 60000 (a span longer than the minute - a series back from a
     * gap - counts as the whole minute). On disk after the port's CNP and
     * PFC fields, not here, so version 1 records keep their layout. */
    uint32_t covered_ms;
};

struct fsc_rr_port {
    struct fsc_rr_dir dir[FSC_RR_DIRS];
    double cnp;         /* CNPs sent (np_cnp_sent) over the minute */
    double pfc_pause_s; /* rx pause duration (all priorities), seconds */
    /* bytes received by the IB PMA counters (fabric_nic_ib_port_rx_bytes_total):
     * NIC ports whose netdev bytes are not collected still get CNP per TB */
    double ib_rx_bytes;
    /* ms of the minute the port's CNP / PFC / IB counters cover (the
     * longest of them; version 2, with FSC_RR_F_COVERED, else 60000): the
     * time PFC's paused fraction divides by on a port without byte series */
    uint32_t counters_ms;
};

struct fsc_rr_group {
    double ratio_mean; /* mean of the engine's max/mean ratio over the polls */
    double ratio_max;
    uint32_t events; /* imbalance START events this minute */
    uint32_t members;
    uint32_t polls;
};

struct fsc_rr_node {
    double bps_mean[FSC_RR_DIRS]; /* node RDMA bits/s, mean of the polls */
    double bps_max[FSC_RR_DIRS];
    double eff_mean[FSC_RR_DIRS]; /* over the node's line rate; -1 unknown */
    uint32_t polls;
};

struct fsc_rr_record {
    uint8_t type;     /* enum fsc_rr_type */
    uint16_t flags;   /* FSC_RR_F_* of the type */
    uint32_t key;     /* NAME: the key bound; data: the key named */
    int64_t minute_s; /* data: start of the minute (multiple of 60); NAME: when bound */
    union {
        struct fsc_rr_name name;
        struct fsc_rr_port port;
        struct fsc_rr_group group;
        struct fsc_rr_node node;
    };
};

/* Encodes *rec into out[FSC_RR_RECORD_SIZE] (CRC included). Strings longer
 * than FSC_RR_NAME_MAX are cut. */
void fsc_rr_encode(const struct fsc_rr_record *rec, uint8_t out[FSC_RR_RECORD_SIZE]);

/* Decodes in[FSC_RR_RECORD_SIZE] into *rec. Returns 0, -EBADMSG when the
 * CRC does not match, or -EPROTO for an unknown type. */
int fsc_rr_decode(const uint8_t in[FSC_RR_RECORD_SIZE], struct fsc_rr_record *rec);

/* File header of the day starting at day_s (Unix seconds, 00:00 UTC). */
void fsc_rr_header_encode(int64_t day_s, int64_t created_ns, uint8_t out[FSC_RR_HEADER_SIZE]);

/* Checks magic, CRC, version (FSC_RR_VERSION_MIN..FSC_RR_VERSION) and
 * record size; *day_s gets the day.
 * Returns 0, -EBADMSG (not a rollup file or damaged header) or -EPROTO (a
 * version or record size this build does not read). */
int fsc_rr_header_decode(const uint8_t in[FSC_RR_HEADER_SIZE], int64_t *day_s);

/* "rollup-YYYYMMDD.fsr" of the UTC day holding t_s into buf (>= 24 bytes).
 * Returns buf. */
const char *fsc_rr_file_name(int64_t t_s, char *buf, size_t size);

/* Day start (Unix s) of a file name written by fsc_rr_file_name(); returns
 * 0 and sets *day_s, or -1 for any other name. */
int fsc_rr_file_day(const char *name, int64_t *day_s);

#endif
