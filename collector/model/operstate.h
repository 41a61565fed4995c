/* Link words of the data model, defined once: the RFC 2863 operational
 * states as Linux numbers and names them (IF_OPER_*, /sys/class/net/<if>/
 * operstate), and where a cable plan's peer address was seen in the
 * neighbour table. The NIC source produces both, the cable-mismatch event
 * carries them (engine/events.h: `amount`), and the event's text, the Kafka
 * document and the web page spell them with these words. Pure: any thread. */
#ifndef FSC_OPERSTATE_H
#define FSC_OPERSTATE_H

#include <stddef.h>

/* IF_OPER_* numbering of RFC 2863 / the kernel. */
enum fsc_oper {
    FSC_OPER_UNKNOWN = 0,
    FSC_OPER_NOTPRESENT = 1,
    FSC_OPER_DOWN = 2,
    FSC_OPER_LOWERLAYERDOWN = 3,
    FSC_OPER_TESTING = 4,
    FSC_OPER_DORMANT = 5,
    FSC_OPER_UP = 6,
    FSC_OPER__COUNT
};

/* Parses an operstate word ("up\n", "down", "lowerlayerdown", ...; one
 * trailing newline allowed): returns the enum fsc_oper value, or -EINVAL
 * for anything else. */
int fsc_oper_parse(const char *s, size_t len);

/* The word of an enum fsc_oper value (a static string). oper is a double
 * because events carry it in one (truncated); outside [0, 7) or NaN it is
 * "unknown". */
const char *fsc_oper_name(double oper);

/* Where the planned peer address was seen in the neighbour table. */
enum fsc_peer_seen {
    FSC_PEER_NONE = 0,       /* no entry at all */
    FSC_PEER_INCOMPLETE = 1, /* an entry on this interface that never resolved */
    FSC_PEER_ELSEWHERE = 2,  /* complete, but only on another interface */
    FSC_PEER_OK = 3,         /* complete on this interface */
    FSC_PEER__COUNT
};

/* "none", "incomplete", "elsewhere", "complete" (a static string); outside
 * [0, 4) or NaN "none". A double for the same reason as fsc_oper_name. */
const char *fsc_peer_seen_name(double seen);

#endif
