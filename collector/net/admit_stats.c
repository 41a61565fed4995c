/* Listener admission rows (contract in admit_stats.h). */
#include "net/admit_stats.h"

#define CLOSED_FAMILY "fabricscope_listener_closed"
#define CLOSED_COL(word)                                                                           \
    {                                                                                              \
        .id = word, .family = CLOSED_FAMILY, .type = FSC_STAT_COUNTER, .label = "reason",          \
        .label_value = word, .title = word                                                         \
    }

enum {
    COL_HEADER,
    COL_BODY,
    COL_SHED,
    COL_MESSAGE,
    COL_PER_ADDRESS,
    COL_RESET_FLOOD,
    COL_OPEN,
    COL__COUNT
};

static const struct fsc_stat_col admit_cols[COL__COUNT] = {
    [COL_HEADER] = {.id = "header_timeout",
                    .family = CLOSED_FAMILY,
                    .type = FSC_STAT_COUNTER,
                    .help = "Connections or calls a listener's admission control closed or "
                            "refused, by reason.",
                    .label = "reason",
                    .label_value = "header_timeout",
                    .title = "header_timeout"},
    [COL_BODY] = CLOSED_COL("body_too_slow"),
    [COL_SHED] = CLOSED_COL("shed"),
    [COL_MESSAGE] = CLOSED_COL("message_timeout"),
    [COL_PER_ADDRESS] = CLOSED_COL("refused_per_address"),
    [COL_RESET_FLOOD] = CLOSED_COL("reset_flood"),
    [COL_OPEN] = {.id = "open",
                  .family = "fabricscope_listener_open",
                  .type = FSC_STAT_GAUGE,
                  .help = "Connections a listener holds open now.",
                  .title = "open"},
};

const struct fsc_stat_table fsc_admit_stat_table = {
    .id = "listener_admission",
    .title = "Listener admission",
    .empty = "no listener",
    .keys = {"listener", NULL},
    .cols = admit_cols,
    .n_cols = COL__COUNT,
};

void fsc_admit_stats_init(struct fsc_admit_stats *st)
{
    *st = (struct fsc_admit_stats){.present = 1,
                                   .header_timeout = FSC_ADMIT_NA,
                                   .body_too_slow = FSC_ADMIT_NA,
                                   .shed = FSC_ADMIT_NA,
                                   .message_timeout = FSC_ADMIT_NA,
                                   .refused_per_address = FSC_ADMIT_NA,
                                   .reset_flood = FSC_ADMIT_NA,
                                   .open = FSC_ADMIT_NA};
}

static double value(uint64_t v)
{
    return v == FSC_ADMIT_NA ? FSC_STAT_NONE : (double)v;
}

void fsc_admit_stat_row(const struct fsc_stats_out *out, const char *listener,
                        const struct fsc_admit_stats *st)
{
    if (!st->present)
        return;
    double v[COL__COUNT] = {
        [COL_HEADER] = value(st->header_timeout),
        [COL_BODY] = value(st->body_too_slow),
        [COL_SHED] = value(st->shed),
        [COL_MESSAGE] = value(st->message_timeout),
        [COL_PER_ADDRESS] = value(st->refused_per_address),
        [COL_RESET_FLOOD] = value(st->reset_flood),
        [COL_OPEN] = value(st->open),
    };
    const char *keys[] = {listener};
    fsc_stats_row(out, &fsc_admit_stat_table, keys, v, NULL);
}
