/* Link words (see operstate.h). */
#include "model/operstate.h"

#include <errno.h>
#include <string.h>

static const char *const oper_names[FSC_OPER__COUNT] = {
    "unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};

static const char *const seen_names[FSC_PEER__COUNT] = {"none", "incomplete", "elsewhere",
                                                        "complete"};

int fsc_oper_parse(const char *s, size_t len)
{
    if (len > 0 && s[len - 1] == '\n')
        len--;
    for (size_t i = 0; i < FSC_OPER__COUNT; i++)
        if (strlen(oper_names[i]) == len && memcmp(oper_names[i], s, len) == 0)
            return (int)i;
    return -EINVAL;
}

/* The index v names in a table of n words (truncated), or 0 (NaN too). */
static size_t word_index(double v, size_t n)
{
    return v >= 0 && v < (double)n ? (size_t)v : 0;
}

const char *fsc_oper_name(double oper)
{
    return oper_names[word_index(oper, FSC_OPER__COUNT)];
}

const char *fsc_peer_seen_name(double seen)
{
    return seen_names[word_index(seen, FSC_PEER__COUNT)];
}
