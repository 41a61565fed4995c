/* Junos header sequence numbers: which messages were lost.
 *
 * Juniper numbers the messages of each producer and path (header
 * sequence_number, "monotonic per producer+path"), so a number that never
 * arrives is a lost message. One that arrives after a higher one is late, not
 * lost, and a jump forward alone proves nothing: a late message would read as
 * a jump back (a restart) and the next number as a second jump. So each
 * producer keeps a reorder window of the GNMI_SEQ_WINDOW numbers up to the
 * highest seen, as a bitmap of those that arrived. A number is lost when it leaves the window
 * unseen - the producer has sent GNMI_SEQ_WINDOW newer ones - or when its numbering ends (a new
 * stream_creation_timestamp, a confirmed restart): each exactly once.
 *
 * Restarts. A number more than a window below the highest is either a
 * message later than the window allows (already counted lost) or the first
 * of a new numbering (the producer started over without a new creation
 * time, e.g. the call was re-established). The next number tells them
 * apart: a new numbering continues just above it, the old one above the
 * highest. A number already seen is a repeat (a restart from a number inside
 * the window looks the same and loses nothing). Juniper's jtimon treats
 * numbers in [2^21, 2^22 - 1] as initial-sync messages, so that range keeps
 * a window of its own: entering or leaving it is no jump.
 *
 * Bounded: at most `max` producer+path keys (the table grows from 16
 * slots); a key beyond that is counted as untracked. */
#include <stdlib.h>

#include "sources/gnmi/gnmi_int.h"

#define SEQ_SYNC_LO   (1ULL << 21) /* Junos initial-sync sequence range (jtimon) */
#define SEQ_SYNC_HI   ((1ULL << 22) - 1)
#define SEQ_SLOTS_MIN 16u

/* One numbering: the highest number seen and which of the window's numbers
 * arrived (bit i: number hi - i; the numbers before the first one count as
 * arrived, nothing was expected of them). */
struct seq_win {
    uint64_t hi;
    uint64_t seen;
    uint64_t cand; /* a number far below hi that may start a new numbering */
    uint8_t used;
    uint8_t has_cand;
};

struct seq_slot {
    uint64_t key; /* 0 = empty */
    int64_t creation_ms;
    struct seq_win win[2]; /* [1]: the initial-sync range */
};

struct gnmi_seq {
    struct seq_slot *slot;
    uint32_t mask, count, max, cap; /* cap: slots at most */
    uint32_t allocs;
};

struct gnmi_seq *gnmi_seq_create(uint32_t max)
{
    struct gnmi_seq *sq = calloc(1, sizeof(*sq));
    if (!sq)
        return NULL;
    sq->max = max ? max : 1;
    sq->cap = 1;
    while (sq->cap < 2 * sq->max)
        sq->cap <<= 1;
    uint32_t n = sq->cap < SEQ_SLOTS_MIN ? sq->cap : SEQ_SLOTS_MIN;
    sq->slot = calloc(n, sizeof(*sq->slot));
    if (!sq->slot) {
        free(sq);
        return NULL;
    }
    sq->mask = n - 1;
    return sq;
}

void gnmi_seq_destroy(struct gnmi_seq *sq)
{
    if (!sq)
        return;
    free(sq->slot);
    free(sq);
}

size_t gnmi_seq_memory(const struct gnmi_seq *sq)
{
    return sizeof(*sq) + (sq->mask + 1) * sizeof(*sq->slot);
}

uint32_t gnmi_seq_allocs(const struct gnmi_seq *sq)
{
    return sq->allocs;
}

static struct seq_slot *slot_probe(struct seq_slot *slot, uint32_t mask, uint64_t key)
{
    uint32_t i = (uint32_t)key & mask;
    while (slot[i].key && slot[i].key != key)
        i = (i + 1) & mask; /* load <= 1/2: ends */
    return &slot[i];
}

/* Doubles the table; on failure the old one stays (the key is untracked). */
static int seq_grow(struct gnmi_seq *sq)
{
    uint32_t n = (sq->mask + 1) * 2;
    struct seq_slot *ns = calloc(n, sizeof(*ns));
    if (!ns)
        return -1;
    for (uint32_t i = 0; i <= sq->mask; i++)
        if (sq->slot[i].key)
            *slot_probe(ns, n - 1, sq->slot[i].key) = sq->slot[i];
    free(sq->slot);
    sq->slot = ns;
    sq->mask = n - 1;
    sq->allocs++;
    return 0;
}

/* Bits set in x. Not __builtin_popcountll: without -mpopcnt (x86-64's
 * baseline has no such instruction) it is a libgcc call on every message. */
static uint64_t bits_set(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (x * 0x0101010101010101ULL) >> 56;
}

/* The numbers in the window that never arrived. */
static uint64_t win_holes(const struct seq_win *w)
{
    return w->used ? GNMI_SEQ_WINDOW - bits_set(w->seen) : 0;
}

/* s > hi: the window slides up to s. Numbers pushed out unseen are lost;
 * the ones jumped over are skipped (they may still arrive, late). */
static void win_advance(struct seq_win *w, uint64_t s, struct gnmi_seq_verdict *v)
{
    uint64_t d = s - w->hi;
    v->skipped += d - 1;
    if (d == 1) { /* the next number: the oldest one leaves */
        v->lost += ~w->seen >> (GNMI_SEQ_WINDOW - 1);
        w->seen = w->seen << 1 | 1;
    } else if (d >= GNMI_SEQ_WINDOW) {
        /* hi + 1 .. s - 64 are out of the new window already */
        v->lost += win_holes(w) + (d - GNMI_SEQ_WINDOW);
        w->seen = 1;
    } else {
        uint64_t out = w->seen >> (GNMI_SEQ_WINDOW - d); /* the d oldest numbers */
        v->lost += d - bits_set(out);
        w->seen = w->seen << d | 1;
    }
    w->hi = s;
}

static void win_start(struct seq_win *w, uint64_t s)
{
    *w = (struct seq_win){.hi = s, .seen = ~0ULL, .used = 1};
}

static void win_track(struct seq_win *w, uint64_t s, struct gnmi_seq_verdict *v)
{
    if (!w->used) {
        win_start(w, s);
        return;
    }
    if (s > w->hi) {
        win_advance(w, s, v);
        w->has_cand = 0;
        return;
    }
    uint64_t back = w->hi - s;
    if (back < GNMI_SEQ_WINDOW) {
        uint64_t bit = 1ULL << back;
        if (w->seen & bit) {
            v->repeat = 1;
        } else {
            w->seen |= bit;
            v->late = 1;
        }
        w->has_cand = 0;
        return;
    }
    /* Far below: the next number says whether a new numbering began here. */
    if (w->has_cand && s > w->cand && s - w->cand <= GNMI_SEQ_WINDOW) {
        uint64_t start = w->cand;
        v->lost += win_holes(w); /* the old numbering's holes can arrive no more */
        v->restart = 1;
        win_start(w, start);
        win_advance(w, s, v);
        return;
    }
    w->cand = s;
    w->has_cand = 1;
}

void gnmi_seq_track(struct gnmi_seq *sq, uint64_t key, uint64_t seq, int64_t creation_ms,
                    struct gnmi_seq_verdict *v)
{
    *v = (struct gnmi_seq_verdict){0};
    key = key ? key : 1; /* 0 marks an empty slot */
    struct seq_slot *e = slot_probe(sq->slot, sq->mask, key);
    if (!e->key) {
        if (sq->count >= sq->max || ((sq->count + 1) * 2 > sq->mask + 1 &&
                                     (sq->mask + 1 >= sq->cap || seq_grow(sq) != 0))) {
            v->untracked = 1;
            return;
        }
        e = slot_probe(sq->slot, sq->mask, key);
        e->key = key;
        e->creation_ms = creation_ms;
        sq->count++;
    } else if (creation_ms != e->creation_ms && creation_ms && e->creation_ms) {
        /* A new producer stream: its numbering starts over, and the old
         * one's holes will never be filled. */
        v->lost = win_holes(&e->win[0]) + win_holes(&e->win[1]);
        v->reset = 1;
        v->restart = 1;
        e->win[0].used = 0;
        e->win[1].used = 0;
    }
    e->creation_ms = creation_ms;
    win_track(&e->win[seq >= SEQ_SYNC_LO && seq <= SEQ_SYNC_HI], seq, v);
}
