/* The ethtool reader's fixture file backend (collector/sources/nic/
 * nic_ethtool_file.c, the format in nic_ethtool.h) against the NIC fixture
 * writer's files (collector/demo/nicfx/nicfx_ethtool.c). Known answers come
 * from the writer's documented arithmetic (nicfx.h: the *_phy counters are
 * the model's netdev statistics) and the format's checksum (FNV-1a 64,
 * base/name_hash.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

#include "base/name_hash.h"
#include "demo/nicfx/nicfx.h"
#include "sources/nic/nic_ethtool.h"

static char root[64]; /* the fixture ROOT */

static void make_root(void)
{
    snprintf(root, sizeof root, "/tmp/fsc_nic_et_test_XXXXXX");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
}

static void drop_root(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
}

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK_INT(write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
}

/* A fixture ethtool file's text: body, then its checksum line (FNV-1a 64
 * of the body, nic_ethtool.h), then tail (the stale end of a longer version). */
static void put_et(const char *path, const char *body, const char *tail)
{
    char text[1024], sum[16];
    fsc_hex16(fsc_fnv1a64(body, strlen(body)), sum);
    snprintf(text, sizeof text, "%schecksum: %.16s\n%s", body, sum, tail);
    put(path, text);
}

/* The fixture's ethtool statistics file: written by the NIC fixture writer
 * (fsc_nicfx_ethtool_write: the *_phy counters equal the netdev statistics
 * of the model, stamped with the writer's time, checksummed), read by the
 * file reader: names, values and time exactly; a new version seen whole; a
 * changed name set reported as CHANGED; a stale tail after the checksum
 * ignored; a text whose checksum fails (caught mid-write), malformed or
 * missing files refused without touching what was read before. */
static void ethtool_fixture_file(void)
{
    make_root();
    char err[256] = "", path[160];
    int e = 1;
    struct fsc_nicfx_dev dev;
    CHECK_INT(fsc_nicfx_dev_init(&dev, 1, 3, "ens2f1np1", err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/ethtool/ens2f1np1", root);
    CHECK(fsc_nic_ethtool_create_file(path, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -ENOENT);
    CHECK(strstr(err, "ens2f1np1") != NULL);
    dev.ctr[FSC_NICFX_RX_BYTES] = 18446744073709551615ull; /* 2^64 - 1 */
    dev.ctr[FSC_NICFX_TX_BYTES] = 7;
    dev.ctr[FSC_NICFX_RX_PACKETS] = 0;
    dev.ctr[FSC_NICFX_TX_PACKETS] = 1000000;
    CHECK_INT(fsc_nicfx_ethtool_write(root, &dev, 0, err, sizeof err), -1); /* no time */
    CHECK_INT(fsc_nicfx_ethtool_write(root, &dev, 1765432100123456789ll, err, sizeof err), 0);
    struct fsc_nic_ethtool *et = fsc_nic_ethtool_create_file(path, 0, &e, err, sizeof err);
    CHECK(et != NULL);
    if (!et) {
        drop_root();
        return;
    }
    CHECK_INT(e, 0);
    static const char *const names[] = {"rx_bytes_phy", "tx_bytes_phy", "rx_packets_phy",
                                        "tx_packets_phy"};
    CHECK_INT(fsc_nic_ethtool_count(et), 4);
    for (size_t i = 0; i < 4; i++)
        CHECK_STR(fsc_nic_ethtool_name(et, i), names[i]);
    const uint64_t *v = fsc_nic_ethtool_values(et);
    CHECK(v[0] == 18446744073709551615ull && v[1] == 7 && v[2] == 0 && v[3] == 1000000);
    CHECK_INT(fsc_nic_ethtool_time_ns(et), 1765432100123456789ll);
    CHECK_INT(fsc_nic_ethtool_find(et, "tx_packets_phy"), 3);

    /* A new version, shorter (the 20-digit value is gone): same names, new
     * values and time, the old tail cut off. */
    dev.ctr[FSC_NICFX_RX_BYTES] = 5;
    dev.ctr[FSC_NICFX_TX_BYTES] = 50000000007ull;
    CHECK_INT(fsc_nicfx_ethtool_write(root, &dev, 1765432100173456789ll, err, sizeof err), 0);
    CHECK_INT(fsc_nic_ethtool_read(et), 0);
    v = fsc_nic_ethtool_values(et);
    CHECK(v[0] == 5 && v[1] == 50000000007ull);
    CHECK_INT(fsc_nic_ethtool_time_ns(et), 1765432100173456789ll);
    struct stat sb;
    /* The new text's length, no stale tail: the time line 29, the header
     * 16, the four lines 21 + 31 + 23 + 29, the checksum line 27. */
    CHECK(stat(path, &sb) == 0 && sb.st_size == 29 + 16 + 21 + 31 + 23 + 29 + 27);

    /* What follows the checksum line is not read (a longer version's end). */
    put_et(path,
           "time_ns: 1765432100183456789\nNIC statistics:\n     rx_bytes_phy: 6\n"
           "     tx_bytes_phy: 8\n     rx_packets_phy: 0\n     tx_packets_phy: 1000000\n",
           "     tx_packets_phy: 99\nchecksum: 0000000000000000\n");
    CHECK_INT(fsc_nic_ethtool_read(et), 0);
    CHECK(fsc_nic_ethtool_values(et)[1] == 8 && fsc_nic_ethtool_values(et)[3] == 1000000);
    CHECK_INT(fsc_nic_ethtool_time_ns(et), 1765432100183456789ll);

    /* Refused, changing nothing: a checksum that fails (a text caught
     * mid-write), none at all, and, checksummed, no time, a time of 0, a
     * 33-byte name, a value past 2^64 - 1. */
    char torn[512];
    snprintf(torn, sizeof torn,
             "time_ns: 1765432100193456789\nNIC statistics:\n"
             "     rx_bytes_phy: 9\nchecksum: 0123456789abcdef\n");
    put(path, torn);
    CHECK_INT(fsc_nic_ethtool_read(et), -EINVAL);
    put(path, "time_ns: 1765432100193456789\nNIC statistics:\n     rx_bytes_phy: 9\n");
    CHECK_INT(fsc_nic_ethtool_read(et), -EINVAL);
    static const char *const bad[] = {
        "NIC statistics:\n     rx_bytes_phy: 1\n",
        "time_ns: 0\nNIC statistics:\n     rx_bytes_phy: 1\n",
        "time_ns: 5\nNIC statistics:\n     a_name_of_thirty_three_bytes_long: 1\n",
        "time_ns: 5\nNIC statistics:\n     rx_bytes_phy: 18446744073709551616\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put_et(path, bad[i], "");
        CHECK_INT(fsc_nic_ethtool_read(et), -EINVAL);
    }
    CHECK(fsc_nic_ethtool_values(et)[1] == 8);
    CHECK_INT(fsc_nic_ethtool_time_ns(et), 1765432100183456789ll);
    /* Another name set: CHANGED, the new names and values. */
    put_et(path,
           "time_ns: 1765432100223456789\nNIC statistics:\n     tx_bytes_phy: 9\n"
           "     rx_prio3_bytes: 11\n",
           "");
    CHECK_INT(fsc_nic_ethtool_read(et), FSC_NIC_ETHTOOL_CHANGED);
    CHECK_INT(fsc_nic_ethtool_count(et), 2);
    CHECK_STR(fsc_nic_ethtool_name(et, 1), "rx_prio3_bytes");
    CHECK(fsc_nic_ethtool_values(et)[0] == 9 && fsc_nic_ethtool_values(et)[1] == 11);
    struct fsc_nic_ethtool_stats st;
    fsc_nic_ethtool_get_stats(et, &st);
    CHECK_INT(st.string_reloads, 1);
    CHECK_INT(st.errors, 6);
    /* Gone: -ENODEV, as an interface that disappeared. */
    CHECK_INT(unlink(path), 0);
    CHECK_INT(fsc_nic_ethtool_read(et), -ENODEV);
    fsc_nic_ethtool_destroy(et);
    /* A file without statistics, and one with more than max_stats. */
    put_et(path, "time_ns: 5\nNIC statistics:\n", "");
    CHECK(fsc_nic_ethtool_create_file(path, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -EOPNOTSUPP);
    put_et(path, "time_ns: 5\nNIC statistics:\n     a: 1\n     b: 2\n", "");
    CHECK(fsc_nic_ethtool_create_file(path, 1, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -E2BIG);
    drop_root();
}

struct et_writer {
    const char *root;
    struct fsc_nicfx_dev dev;
    atomic_int stop;
    long versions;
};

/* Rewrites the file as fast as it can: version k has time 10^18 + k and
 * rx_bytes_phy k * k, so its length changes as k grows. */
static void *et_write_loop(void *arg)
{
    struct et_writer *w = arg;
    char err[256];
    for (long k = 1; !atomic_load(&w->stop); k++) {
        w->dev.ctr[FSC_NICFX_RX_BYTES] = (uint64_t)k * (uint64_t)k;
        if (fsc_nicfx_ethtool_write(w->root, &w->dev, 1000000000000000000ll + k, err, sizeof err))
            break;
        w->versions = k;
    }
    return NULL;
}

/* A reader beside a writer that never pauses: every read it accepts is one
 * version (its values are those of its time), never a mix of two. */
static void ethtool_fixture_file_concurrent(void)
{
    make_root();
    char err[256] = "", path[160];
    static struct et_writer w;
    w.root = root;
    atomic_init(&w.stop, 0);
    CHECK_INT(fsc_nicfx_dev_init(&w.dev, 1, 0, "ens1f0np0", err, sizeof err), 0);
    CHECK_INT(fsc_nicfx_ethtool_write(root, &w.dev, 1000000000000000000ll, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/ethtool/ens1f0np0", root);
    int e = 0;
    struct fsc_nic_ethtool *et = fsc_nic_ethtool_create_file(path, 0, &e, err, sizeof err);
    pthread_t th;
    CHECK(et != NULL && pthread_create(&th, NULL, et_write_loop, &w) == 0);
    long good = 0, mixed = 0, refused = 0;
    for (int i = 0; et && i < 100000; i++) {
        int rc = fsc_nic_ethtool_read(et);
        if (rc < 0) {
            refused++;
            continue;
        }
        uint64_t k = (uint64_t)(fsc_nic_ethtool_time_ns(et) - 1000000000000000000ll);
        if (fsc_nic_ethtool_values(et)[0] == k * k)
            good++;
        else
            mixed++;
    }
    atomic_store(&w.stop, 1);
    if (et)
        pthread_join(th, NULL);
    printf("concurrent: %ld versions written, %ld reads whole, %ld refused, %ld mixed\n",
           w.versions, good, refused, mixed);
    CHECK_INT(mixed, 0);
    CHECK(good > 1000 && w.versions > 1000);
    fsc_nic_ethtool_destroy(et);
    drop_root();
}

TEST_MAIN(TEST(ethtool_fixture_file), TEST(ethtool_fixture_file_concurrent))
