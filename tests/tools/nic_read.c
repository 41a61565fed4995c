/* nic_read: prints what the NIC readers see for one network interface, for
 * the integration tests (tests/integration/nic_ethtool_netns_test.sh) and for
 * measuring the read cost by hand.
 *
 *   nic_read IFNAME [--sysfs DIR] [--polls N] [--wait FILE]
 *
 * Output, one line each, names in the reader's order:
 *   ethtool NAME VALUE      every SIOCETHTOOL stat (fsc_nic_ethtool)
 *   stat NAME VALUE         every file of DIR/class/net/IFNAME/statistics
 *   link OPERSTATE SPEED    operstate word and speed in Mb/s (-1 unknown)
 * With --polls N (1..1000000) it then reads both N more times and prints
 *   cost ethtool NS_PER_POLL NS_PER_COUNTER
 *   cost stat NS_PER_POLL NS_PER_COUNTER
 * With --wait FILE it then flushes stdout, waits (10 s at most) until FILE
 * exists, polls ethtool once more and prints
 *   reread RC COUNT         fsc_nic_ethtool_read()'s result (1 = strings changed)
 *   ethtool2 NAME VALUE     every stat as that poll left them
 * so a test can change the driver's stat count (channels) in between.
 * DIR defaults to /sys. Exit status 0, or 1 with a message on stderr when a
 * reader cannot be created or a read fails (or FILE never appears). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_sysfs.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: nic_read IFNAME [--sysfs DIR] [--polls N] [--wait FILE]\n");
    return 1;
}

int main(int argc, char **argv)
{
    const char *ifname = NULL, *sysfs = FSC_NIC_SYSFS_DEFAULT, *wait_file = NULL;
    long polls = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sysfs") == 0 && i + 1 < argc) {
            sysfs = argv[++i];
        } else if (strcmp(argv[i], "--polls") == 0 && i + 1 < argc) {
            char *end;
            polls = strtol(argv[++i], &end, 10);
            if (*end != '\0' || polls < 1 || polls > 1000000)
                return usage();
        } else if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc) {
            wait_file = argv[++i];
        } else if (argv[i][0] != '-' && ifname == NULL) {
            ifname = argv[i];
        } else {
            return usage();
        }
    }
    if (ifname == NULL)
        return usage();

    char err[256], rel[64];
    int rc = 1, errnum = 0;
    struct fsc_nic_ethtool *et = NULL;
    struct fsc_nic_cdir *cd = NULL;
    struct fsc_nic_link_reader *lr = NULL;

    et = fsc_nic_ethtool_create(ifname, -1, 0, &errnum, err, sizeof err);
    if (et == NULL) {
        fprintf(stderr, "nic_read: %s\n", err);
        goto out;
    }
    snprintf(rel, sizeof rel, "class/net/%s/statistics", ifname);
    cd = fsc_nic_cdir_create(sysfs, rel, 0, err, sizeof err);
    lr = fsc_nic_link_create(sysfs, ifname, err, sizeof err);
    if (cd == NULL || lr == NULL) {
        fprintf(stderr, "nic_read: %s\n", err);
        goto out;
    }
    if (fsc_nic_cdir_read(cd) != 0) {
        fprintf(stderr, "nic_read: reading %s failed\n", fsc_nic_cdir_path(cd));
        goto out;
    }
    const uint64_t *vals = fsc_nic_ethtool_values(et);
    for (size_t i = 0; i < fsc_nic_ethtool_count(et); i++)
        printf("ethtool %s %" PRIu64 "\n", fsc_nic_ethtool_name(et, i), vals[i]);
    size_t n;
    const struct fsc_nic_counter *ctr = fsc_nic_cdir_counters(cd, &n);
    for (size_t i = 0; i < n; i++)
        printf("stat %s %" PRIu64 "\n", ctr[i].name, ctr[i].value);
    struct fsc_nic_link link;
    if (fsc_nic_link_read(lr, &link) != 0) {
        fprintf(stderr, "nic_read: link state of %s unreadable\n", ifname);
        goto out;
    }
    printf("link %s %" PRId64 "\n", fsc_oper_name(link.oper), link.speed_mbps);

    if (polls > 0) {
        int64_t t0 = now_ns();
        for (long p = 0; p < polls; p++)
            if (fsc_nic_ethtool_read(et) < 0) {
                fprintf(stderr, "nic_read: ethtool read failed\n");
                goto out;
            }
        int64_t t1 = now_ns();
        for (long p = 0; p < polls; p++)
            if (fsc_nic_cdir_read(cd) != 0) {
                fprintf(stderr, "nic_read: statistics read failed\n");
                goto out;
            }
        int64_t t2 = now_ns();
        size_t ne = fsc_nic_ethtool_count(et);
        printf("cost ethtool %.0f %.1f\n", (double)(t1 - t0) / polls,
               (double)(t1 - t0) / polls / (double)(ne ? ne : 1));
        printf("cost stat %.0f %.1f\n", (double)(t2 - t1) / polls,
               (double)(t2 - t1) / polls / (double)(n ? n : 1));
    }
    if (wait_file != NULL) {
        fflush(stdout);
        const struct timespec tick = {0, 10000000}; /* 10 ms, 1000 times at most */
        int waited = 0;
        while (access(wait_file, F_OK) != 0 && waited < 1000) {
            nanosleep(&tick, NULL);
            waited++;
        }
        if (waited == 1000) {
            fprintf(stderr, "nic_read: %s did not appear\n", wait_file);
            goto out;
        }
        int r = fsc_nic_ethtool_read(et);
        printf("reread %d %zu\n", r, fsc_nic_ethtool_count(et));
        vals = fsc_nic_ethtool_values(et);
        for (size_t i = 0; r >= 0 && i < fsc_nic_ethtool_count(et); i++)
            printf("ethtool2 %s %" PRIu64 "\n", fsc_nic_ethtool_name(et, i), vals[i]);
    }
    rc = 0;
out:
    fsc_nic_link_destroy(lr);
    fsc_nic_cdir_destroy(cd);
    fsc_nic_ethtool_destroy(et);
    return rc;
}
