/* The gNMI leaves that say a port's link speed: read as the port's speed
 * (engine/link_speed.h), never as series.
 *
 * Which leaves, and what they hold:
 * - /interfaces/interface/ethernet/state/port-speed and
 *   .../negotiated-port-speed: identityref, base ETHERNET_SPEED
 *   (openconfig/public release/models/interfaces/openconfig-if-ethernet.yang,
 *   2.18.0: SPEED_10MB, SPEED_100MB, SPEED_1GB, SPEED_2500MB, SPEED_5GB,
 *   SPEED_10GB, SPEED_25GB, SPEED_40GB, SPEED_50GB, SPEED_100GB,
 *   SPEED_200GB, SPEED_400GB, SPEED_600GB, SPEED_800GB, SPEED_1600GB,
 *   SPEED_UNKNOWN). Juniper renders both as strings (Juniper/telemetry
 *   24.4R1-EVO oc_interface_render.proto, mib2d_oc_evo_intf_state.proto:
 *   `string port_speed`, `string negotiated_port_speed`), which gNMI carries
 *   as string_val; JSON encodings as a JSON string; RFC 7951 JSON writes an
 *   identity with its module name ("openconfig-if-ethernet:SPEED_400GB").
 *   Any text up to the last ':' is therefore a prefix and dropped. An
 *   identity reads as <n>MB or <n>GB after "SPEED_", every one of the list
 *   above does (the 2015 model spelled them SPEED_10Mb, SPEED_1Gb: units are
 *   read without case), so a speed the list adds later reads too.
 *   SPEED_UNKNOWN ("when an interface is down or unpopulated") is unknown.
 * - /interfaces/interface/state/high-speed: uint32, Mb/s (Juniper/telemetry
 *   24.4R1-EVO evo-if-oc_render.proto `uint32 high_speed`,
 *   mib2d_oc_evo_intf_state.proto); 0 is unknown. OpenConfig's own models
 *   have no such leaf; Junos renders it all the same.
 *
 * Precedence (the ranks of link_speed.h, lower wins): negotiated-port-speed
 * (what the link negotiated with its peer) 0, high-speed (the interface's
 * current bandwidth) 1, port-speed (the configured or advertised speed;
 * with auto-negotiation it may be a mode, not the link's rate) 2. */
#include <stdbool.h>
#include <string.h>

#include "sources/gnmi/gnmi_int.h"

enum { FORM_IDENTITY = 0, FORM_MBPS = 1 };

struct speed_leaf {
    const char *path; /* keyless, as the profile names paths */
    uint8_t rank;     /* in the link-speed table */
    uint8_t form;
};

/* Indexed by the leaf number the series cache keeps in its flags. */
static const struct speed_leaf speed_leaves[GNMI_SPEED_LEAVES] = {
    {"/interfaces/interface/ethernet/state/negotiated-port-speed", 0, FORM_IDENTITY},
    {"/interfaces/interface/state/high-speed", 1, FORM_MBPS},
    {"/interfaces/interface/ethernet/state/port-speed", 2, FORM_IDENTITY},
};

int gnmi_speed_leaf(const char *vendor)
{
    for (int i = 0; i < GNMI_SPEED_LEAVES; i++)
        if (strcmp(vendor, speed_leaves[i].path) == 0)
            return i;
    return -1;
}

unsigned gnmi_speed_rank(unsigned leaf)
{
    return speed_leaves[leaf].rank;
}

static bool upper_is(char c, char want)
{
    return c == want || c == want + ('a' - 'A');
}

int gnmi_speed_identity(const char *s, size_t n, uint64_t *bps)
{
    *bps = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == ':') { /* a module or YANG prefix */
            s += i + 1;
            n -= i + 1;
            break;
        }
    }
    static const char head[] = "SPEED_";
    const size_t hl = sizeof(head) - 1;
    if (n <= hl || memcmp(s, head, hl) != 0)
        return -1;
    s += hl;
    n -= hl;
    if (n == 7 && memcmp(s, "UNKNOWN", 7) == 0)
        return 0;
    uint64_t v = 0;
    size_t d = 0;
    for (; d < n && d < 7 && s[d] >= '0' && s[d] <= '9'; d++)
        v = v * 10 + (uint64_t)(s[d] - '0');
    if (d == 0 || v == 0 || n != d + 2 || !upper_is(s[d + 1], 'B'))
        return -1;
    if (upper_is(s[d], 'M'))
        *bps = v * 1000000u;
    else if (upper_is(s[d], 'G'))
        *bps = v * 1000000000u;
    else
        return -1;
    return 1;
}

/* A Mb/s count as bits per second: 1, or 0 for 0 (unknown), -1 when it
 * would not fit. */
static int mbps(uint64_t v, uint64_t *bps)
{
    *bps = 0;
    if (v > UINT64_MAX / 1000000u)
        return -1;
    *bps = v * 1000000u;
    return v ? 1 : 0;
}

/* Text of a string or JSON value without blanks and one pair of quotes. */
static void text_trim(const uint8_t **s, size_t *n)
{
    while (*n && ((*s)[0] == ' ' || (*s)[0] == '\t' || (*s)[0] == '\n' || (*s)[0] == '\r'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\n' ||
                  (*s)[*n - 1] == '\r'))
        (*n)--;
    if (*n >= 2 && (*s)[0] == '"' && (*s)[*n - 1] == '"')
        (*s)++, *n -= 2;
}

int gnmi_speed_read(unsigned leaf, struct fsc_pb_slice tv, uint64_t *bps)
{
    const uint8_t *p = tv.p, *end = tv.p + tv.n;
    struct fsc_pb_field f = {0};
    const uint8_t *text = NULL;
    size_t text_n = 0;
    int have = 0; /* 0 none, 1 text, 2 number */
    uint64_t num = 0;
    int rc;
    *bps = 0;
    while ((rc = fsc_pb_next(&p, end, &f)) > 0) { /* a oneof: the last field wins */
        if ((f.num == 1 || f.num == 10 || f.num == 11 || f.num == 12) && f.wt == FSC_PB_LEN) {
            text = f.p; /* string_val, json_val, json_ietf_val, ascii_val */
            text_n = f.n;
            have = 1;
        } else if ((f.num == 2 || f.num == 3) && f.wt == FSC_PB_VARINT) {
            have = f.num == 2 && (int64_t)f.u < 0 ? 0 : 2; /* int_val, uint_val */
            num = f.u;
        } else {
            have = 0;
        }
    }
    if (rc < 0 || have == 0)
        return -1;
    if (have == 1)
        text_trim(&text, &text_n);
    if (speed_leaves[leaf].form == FORM_IDENTITY)
        return have == 1 ? gnmi_speed_identity((const char *)text, text_n, bps) : -1;
    if (have == 1) { /* a number as text, as RFC 7951 writes integers */
        if (text_n == 0 || text_n > 19)
            return -1;
        num = 0;
        for (size_t i = 0; i < text_n; i++) {
            if (text[i] < '0' || text[i] > '9')
                return -1;
            num = num * 10 + (uint64_t)(text[i] - '0');
        }
    }
    return mbps(num, bps);
}
