/* Event bus: order and sequence numbers, overflow accounting, independent
 * subscribers, waiting with a timeout. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/events.h"
#include "test.h"

static struct fsc_event make_event(unsigned i)
{
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = (uint8_t)(i % FSC_EV__COUNT);
    ev.phase = FSC_EV_INSTANT;
    ev.series = i;
    ev.t_start_ns = (int64_t)i * 1000;
    ev.seq = 999999; /* must be ignored: the bus assigns seq */
    return ev;
}

static void ring_order_and_seq(void)
{
    struct fsc_event_bus *bus = fsc_event_bus_create(8);
    CHECK(bus != NULL);
    if (!bus)
        return;
    /* Published before subscribing: not seen. */
    struct fsc_event ev = make_event(100);
    CHECK_INT(fsc_event_publish(bus, &ev), 1);
    struct fsc_event_sub *sub = fsc_event_subscribe(bus);
    CHECK(sub != NULL);
    if (!sub) {
        fsc_event_bus_destroy(bus);
        return;
    }
    for (unsigned i = 0; i < 5; i++) {
        ev = make_event(i);
        CHECK_INT(fsc_event_publish(bus, &ev), i + 2);
    }
    CHECK_INT(fsc_event_bus_published(bus), 6);

    struct fsc_event out[8];
    uint64_t lost = 77;
    /* Partial reads continue where the previous one stopped. */
    size_t n = fsc_event_poll(sub, out, 3, &lost);
    CHECK_INT(n, 3);
    CHECK_INT(lost, 0);
    for (unsigned i = 0; i < n; i++) {
        CHECK_INT(out[i].seq, i + 2);
        CHECK_INT(out[i].series, i);
        CHECK_INT(out[i].t_start_ns, (int64_t)i * 1000);
        CHECK_INT(out[i].kind, i % FSC_EV__COUNT);
    }
    n = fsc_event_poll(sub, out, 8, NULL);
    CHECK_INT(n, 2);
    CHECK_INT(out[0].seq, 5);
    CHECK_INT(out[1].seq, 6);
    CHECK_INT(out[1].series, 4);
    CHECK_INT(fsc_event_poll(sub, out, 8, &lost), 0);
    CHECK_INT(lost, 0);

    CHECK_STR(fsc_event_kind_name(FSC_EV_MICROBURST), "microburst");
    CHECK_STR(fsc_event_kind_name(FSC_EV_CNP_SPIKE), "cnp_spike");
    CHECK_STR(fsc_event_kind_name(FSC_EV_UPLINK_IMBALANCE), "uplink_imbalance");
    CHECK_STR(fsc_event_kind_name((enum fsc_event_kind)99), "unknown");
    CHECK_STR(fsc_event_phase_name(FSC_EV_START), "start");
    CHECK_STR(fsc_event_phase_name(FSC_EV_INSTANT), "instant");

    fsc_event_unsubscribe(sub);
    fsc_event_unsubscribe(NULL);
    fsc_event_bus_destroy(bus);
    fsc_event_bus_destroy(NULL);
}

static void overflow_counts_lost(void)
{
    struct fsc_event_bus *bus = fsc_event_bus_create(4);
    struct fsc_event_sub *sub = bus ? fsc_event_subscribe(bus) : NULL;
    CHECK(sub != NULL);
    if (!sub) {
        fsc_event_bus_destroy(bus);
        return;
    }
    /* 10 events into a ring of 4: seqs 1..6 are overwritten, 7..10 remain. */
    for (unsigned i = 0; i < 10; i++) {
        struct fsc_event ev = make_event(i);
        fsc_event_publish(bus, &ev);
    }
    struct fsc_event out[16];
    uint64_t lost = 0;
    size_t n = fsc_event_poll(sub, out, 16, &lost);
    CHECK_INT(lost, 6);
    CHECK_INT(n, 4);
    for (unsigned i = 0; i < n; i++) {
        CHECK_INT(out[i].seq, 7 + i);
        CHECK_INT(out[i].series, 6 + i);
    }
    /* Lost is reported once, per poll. */
    CHECK_INT(fsc_event_poll(sub, out, 16, &lost), 0);
    CHECK_INT(lost, 0);

    /* A slow reader that read part of the ring, then fell behind again. */
    for (unsigned i = 10; i < 13; i++) {
        struct fsc_event ev = make_event(i);
        fsc_event_publish(bus, &ev); /* seqs 11..13 */
    }
    CHECK_INT(fsc_event_poll(sub, out, 1, &lost), 1);
    CHECK_INT(out[0].seq, 11);
    CHECK_INT(lost, 0);
    for (unsigned i = 13; i < 18; i++) {
        struct fsc_event ev = make_event(i);
        fsc_event_publish(bus, &ev); /* seqs 14..18; ring holds 15..18 */
    }
    n = fsc_event_poll(sub, out, 16, &lost);
    CHECK_INT(lost, 3); /* 12, 13, 14 */
    CHECK_INT(n, 4);
    CHECK_INT(out[0].seq, 15);
    CHECK_INT(out[3].seq, 18);
    CHECK_INT(fsc_event_bus_published(bus), 18);
    fsc_event_unsubscribe(sub);
    fsc_event_bus_destroy(bus);

    /* Capacity 0 behaves as 1. */
    bus = fsc_event_bus_create(0);
    sub = bus ? fsc_event_subscribe(bus) : NULL;
    CHECK(sub != NULL);
    if (sub) {
        struct fsc_event ev = make_event(1);
        fsc_event_publish(bus, &ev);
        fsc_event_publish(bus, &ev);
        CHECK_INT(fsc_event_poll(sub, out, 16, &lost), 1);
        CHECK_INT(lost, 1);
        CHECK_INT(out[0].seq, 2);
    }
    fsc_event_unsubscribe(sub);
    fsc_event_bus_destroy(bus);
}

static void two_subscribers_independent(void)
{
    struct fsc_event_bus *bus = fsc_event_bus_create(16);
    struct fsc_event_sub *a = bus ? fsc_event_subscribe(bus) : NULL;
    struct fsc_event_sub *b = bus ? fsc_event_subscribe(bus) : NULL;
    CHECK(a != NULL && b != NULL);
    if (!a || !b)
        goto out;
    for (unsigned i = 0; i < 5; i++) {
        struct fsc_event ev = make_event(i);
        fsc_event_publish(bus, &ev);
    }
    struct fsc_event out[16];
    uint64_t lost;
    CHECK_INT(fsc_event_poll(a, out, 16, &lost), 5);
    CHECK_INT(out[4].seq, 5);
    /* a's read did not consume anything of b's. */
    CHECK_INT(fsc_event_poll(b, out, 2, &lost), 2);
    CHECK_INT(out[0].seq, 1);
    CHECK_INT(out[1].seq, 2);

    /* A late subscriber starts after the newest event. */
    struct fsc_event_sub *c = fsc_event_subscribe(bus);
    CHECK(c != NULL);
    struct fsc_event ev = make_event(42);
    fsc_event_publish(bus, &ev);
    CHECK_INT(fsc_event_poll(a, out, 16, &lost), 1);
    CHECK_INT(out[0].series, 42);
    CHECK_INT(fsc_event_poll(b, out, 16, &lost), 4);
    CHECK_INT(out[0].seq, 3);
    CHECK_INT(out[3].seq, 6);
    if (c) {
        CHECK_INT(fsc_event_poll(c, out, 16, &lost), 1);
        CHECK_INT(out[0].seq, 6);
        CHECK_INT(lost, 0);
    }
    fsc_event_unsubscribe(c);
out:
    fsc_event_unsubscribe(a);
    fsc_event_unsubscribe(b);
    fsc_event_bus_destroy(bus);
}

struct publisher {
    struct fsc_event_bus *bus;
    char waiter[64]; /* /proc/self/task/<tid>/syscall of the waiting thread */
};

/* 1 when the thread behind `path` is blocked in futex(2) (a condition wait). */
static int blocked_in_futex(const char *path)
{
    FILE *f = fopen(path, "r");
    long nr = -1;
    if (f) {
        if (fscanf(f, "%ld", &nr) != 1)
            nr = -1;
        fclose(f);
    }
    return nr == SYS_futex;
}

static void *publish_one(void *arg)
{
    struct publisher *p = arg;
    struct fsc_event ev = make_event(7);
    /* Publish once the main thread blocks in fsc_event_wait(), so the
     * wake-up path is what gets exercised: polled, 2 s at most (then it
     * publishes anyway; either way the result is the same). */
    for (int i = 0; i < 2000 && !blocked_in_futex(p->waiter); i++)
        nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 1000000}, NULL);
    fsc_event_publish(p->bus, &ev);
    return NULL;
}

static void wait_timeout(void)
{
    struct fsc_event_bus *bus = fsc_event_bus_create(4);
    struct fsc_event_sub *sub = bus ? fsc_event_subscribe(bus) : NULL;
    CHECK(sub != NULL);
    if (!sub) {
        fsc_event_bus_destroy(bus);
        return;
    }
    /* Nothing published: both a pure check and a short wait time out. */
    CHECK_INT(fsc_event_wait(sub, 0), 0);
    CHECK_INT(fsc_event_wait(sub, 20), 0);

    /* An event already there: ready at once, and still ready until polled. */
    struct fsc_event ev = make_event(1);
    fsc_event_publish(bus, &ev);
    CHECK_INT(fsc_event_wait(sub, 0), 1);
    CHECK_INT(fsc_event_wait(sub, 1000), 1);
    struct fsc_event out[4];
    CHECK_INT(fsc_event_poll(sub, out, 4, NULL), 1);
    CHECK_INT(fsc_event_wait(sub, 0), 0);

    /* Woken by a publisher on another thread. The wait has no limit (-1), so
     * a lost wake-up hangs here and ctest's timeout reports it; nothing here
     * measures time. */
    pthread_t th;
    struct publisher pub = {bus, ""};
    char self[32] = "";
    ssize_t sl = readlink("/proc/thread-self", self, sizeof(self) - 1); /* "<pid>/task/<tid>" */
    self[sl > 0 ? sl : 0] = '\0';
    const char *task = strrchr(self, '/');
    snprintf(pub.waiter, sizeof(pub.waiter), "/proc/self/task/%s/syscall", task ? task + 1 : "0");
    int rc = pthread_create(&th, NULL, publish_one, &pub);
    CHECK_INT(rc, 0);
    if (rc != 0)
        goto out;
    CHECK_INT(fsc_event_wait(sub, -1), 1);
    pthread_join(th, NULL);
    CHECK_INT(fsc_event_poll(sub, out, 4, NULL), 1);
    CHECK_INT(out[0].series, 7);
    CHECK_INT(out[0].seq, 2);
out:
    fsc_event_unsubscribe(sub);
    fsc_event_bus_destroy(bus);
}

TEST_MAIN(TEST(ring_order_and_seq), TEST(overflow_counts_lost), TEST(two_subscribers_independent),
          TEST(wait_timeout))
