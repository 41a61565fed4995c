/* The host check's fixture view (collector/sources/nic/nic_hostcheck.h, docs/CABLING.md
 * "Fixtures"): the parse of `ip -4 -o addr show` text, and a fixture node's
 * two files (ip_addr.txt, proc/net/arp) judged against a cable plan whose
 * two cables were swapped at this node. Known answers are worked out in the
 * comments from the addressing rule of docs/CABLING.md. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test.h"

#include "model/cable_plan.h"
#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_hostcheck.h"

#define IP(a, b, c, d)                                                                             \
    ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static void addr_parse_ip_output(void)
{
    /* What `ip -4 -o addr show` prints (the tail after the backslash is the
     * same line), plus what a hand-written fixture may hold and junk. */
    const char *text =
        "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
        "2: ens1f0np0    inet 10.112.3.1/30 brd 10.112.3.3 scope global ens1f0np0\\       "
        "valid_lft forever preferred_lft forever\n"
        "2: ens1f0np0    inet 10.9.9.9/24 scope global secondary ens1f0np0\n"
        "3: ens1f1np1\tinet 10.112.4.1/30 brd 10.112.4.3 scope global ens1f1np1\n"
        "# a comment, then a blank line\n"
        "\n"
        "4: ens2f0np0    inet6 fe80::1/64 scope link\n" /* output without -4: skipped */
        "9: vlan5@ens2f0np0    inet 10.5.0.1/24 scope global vlan5\n"
        "5: ens2f0np0    inet 10.112.5.1/33 scope global\n"      /* prefix too long */
        "ens2f0np0    inet 10.112.5.1/30 scope global\n"         /* no index */
        "6: ens2f0np0    inet 10.112.5.1 scope global\n"         /* no prefix */
        "7: ens2f0np0    link 10.112.5.1/30 scope global\n"      /* not inet */
        "8: a_name_far_too_long_for_linux    inet 10.1.1.1/30\n" /* name too long */
        "10: ens2f0np0    inet 10.112.5.1/30 brd 10.112.5.3 scope global ens2f0np0";
    const char *names[] = {"ens1f0np0", "ens1f1np1", "ens2f0np0", "vlan5"};
    struct fsc_nic_host_iface h[4];
    memset(h, 0, sizeof(h));
    size_t bad = 99;
    size_t n = fsc_nic_addr_parse(text, strlen(text), names, 4, h, &bad);
    CHECK_INT(n, 6); /* lo, three of ens1f*, the VLAN, the last line */
    CHECK_INT(bad, 5);
    CHECK_INT(h[0].n_addrs, 2);
    CHECK_INT(h[0].addr[0], IP(10, 112, 3, 1));
    CHECK_INT(h[0].prefix[0], 30);
    CHECK_INT(h[0].addr[1], IP(10, 9, 9, 9));
    CHECK_INT(h[0].prefix[1], 24);
    CHECK_INT(h[1].n_addrs, 1); /* a tab separates as well as spaces */
    CHECK_INT(h[1].addr[0], IP(10, 112, 4, 1));
    CHECK_INT(h[2].n_addrs, 1); /* the last line, without a newline */
    CHECK_INT(h[2].addr[0], IP(10, 112, 5, 1));
    CHECK_INT(h[3].n_addrs, 1); /* vlan5@ens2f0np0 is vlan5 */
    CHECK_INT(h[3].addr[0], IP(10, 5, 0, 1));

    /* More addresses than the array keeps: all counted, the first kept.
     * Added to what out[] had (a second call adds again). */
    char many[1024] = "";
    for (int i = 1; i <= FSC_NIC_HOST_ADDRS_MAX + 2; i++) {
        size_t len = strlen(many);
        snprintf(many + len, sizeof(many) - len, "2: ens1f0np0 inet 10.0.0.%d/32\n", i);
    }
    memset(h, 0, sizeof(h));
    n = fsc_nic_addr_parse(many, strlen(many), names, 1, h, NULL);
    CHECK_INT(n, FSC_NIC_HOST_ADDRS_MAX + 2);
    CHECK_INT(h[0].n_addrs, FSC_NIC_HOST_ADDRS_MAX + 2);
    CHECK_INT(h[0].addr[FSC_NIC_HOST_ADDRS_MAX - 1], IP(10, 0, 0, FSC_NIC_HOST_ADDRS_MAX));
    n = fsc_nic_addr_parse(many, strlen(many), names, 1, h, NULL);
    CHECK_INT(h[0].n_addrs, 2 * (FSC_NIC_HOST_ADDRS_MAX + 2));

    /* Empty text: nothing, nothing bad. */
    bad = 99;
    CHECK_INT(fsc_nic_addr_parse("", 0, names, 4, h, &bad), 0);
    CHECK_INT(bad, 0);
}

static void fixture_view_swapped_cables(void)
{
    /* Node 1 of this plan: port 1 (card 7, ens8f*) to node 2 port 1, port
     * 4 (card 5, ens6f*) to node 3 port 4, port 5 (card 0, ens1f*) to
     * node 2 port 5. Pair 1-2 ordered by node 1's port: port 1 = links 1,
     * 2 (10.112.1.x, 10.112.2.x), port 5 = links 3, 4; pair 1-3: port 4 =
     * links 1, 2 (10.113.1.x, 10.113.2.x). Node 1 is end 1 everywhere. */
    const char *plan = "1-1 > 2-1\n1-4 > 3-4\n1-5 > 2-5\n";
    char err[256];
    struct fsc_cabling *cab =
        fsc_cabling_parse(plan, strlen(plan), "c.txt", NULL, err, sizeof(err));
    CHECK(cab != NULL);
    if (!cab)
        return;
    /* The host is addressed by the plan (as `fabricscope plan | sh` does),
     * but its cables of ports 4 and 5 are swapped: ens6f* reach node 2's
     * card 0 and ens1f* node 3's card 5. With arp_ignore=1 nobody there
     * owns the address asked for, so those four entries stay incomplete. */
    const char *addrs =
        "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
        "2: ens1f0np0    inet 10.112.3.1/30 brd 10.112.3.3 scope global ens1f0np0\n"
        "3: ens1f1np1    inet 10.112.4.1/30 brd 10.112.4.3 scope global ens1f1np1\n"
        "12: ens6f0np0    inet 10.113.1.1/30 brd 10.113.1.3 scope global ens6f0np0\n"
        "13: ens6f1np1    inet 10.113.2.1/30 brd 10.113.2.3 scope global ens6f1np1\n"
        "16: ens8f0np0    inet 10.112.1.1/30 brd 10.112.1.3 scope global ens8f0np0\n"
        "17: ens8f1np1    inet 10.112.2.1/30 brd 10.112.2.3 scope global ens8f1np1\n";
    const char *arp =
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "10.112.1.2       0x1         0x2         02:fc:02:00:0e:00     *        ens8f0np0\n"
        "10.112.2.2       0x1         0x2         02:fc:02:00:0f:00     *        ens8f1np1\n"
        "10.113.1.2       0x1         0x0         00:00:00:00:00:00     *        ens6f0np0\n"
        "10.113.2.2       0x1         0x0         00:00:00:00:00:00     *        ens6f1np1\n"
        "10.112.3.2       0x1         0x0         00:00:00:00:00:00     *        ens1f0np0\n"
        "10.112.4.2       0x1         0x0         00:00:00:00:00:00     *        ens1f1np1\n";
    const struct fsc_cabling_iface *ifs = fsc_cabling_node(cab, 1);
    CHECK(ifs != NULL);
    if (!ifs) {
        fsc_cabling_destroy(cab);
        return;
    }
    const char *names[FSC_CABLING_IFACES];
    const struct fsc_cabling_iface *want[FSC_CABLING_IFACES];
    struct fsc_nic_host_iface have[FSC_CABLING_IFACES];
    size_t n = 0;
    for (size_t i = 0; i < FSC_CABLING_IFACES; i++)
        if (ifs[i].cabled) {
            want[n] = &ifs[i];
            names[n] = ifs[i].ifname;
            /* what fsc_nic_host_iface_read finds in the sysfs tree */
            memset(&have[n], 0, sizeof(have[n]));
            have[n].present = true;
            have[n].oper = FSC_OPER_UP;
            have[n].speed_mbps = 400000;
            n++;
        }
    CHECK_INT(n, 6);
    size_t bad = 99;
    CHECK_INT(fsc_nic_addr_parse(addrs, strlen(addrs), names, n, have, &bad), 7);
    CHECK_INT(bad, 0);
    struct fsc_nic_neigh nb[8];
    size_t nn = fsc_nic_neigh_parse(arp, strlen(arp), nb, 8, &bad, NULL);
    CHECK_INT(nn, 6);
    char got[512] = "";
    for (size_t i = 0; i < n; i++) {
        struct fsc_cable_verdict v;
        fsc_cable_check(want[i], &have[i], nb, nn, true, &v);
        size_t len = strlen(got);
        snprintf(got + len, sizeof(got) - len, "%s=%d%d%d%d%d/%u ", want[i]->ifname,
                 v.bad[FSC_CABLE_MISSING], v.bad[FSC_CABLE_DOWN], v.bad[FSC_CABLE_SPEED],
                 v.bad[FSC_CABLE_ADDRESS], v.bad[FSC_CABLE_PEER], (unsigned)v.peer_seen);
    }
    /* map order: port 1, port 4, port 5; peer_seen 3 = OK, 1 = INCOMPLETE */
    CHECK_STR(got, "ens8f0np0=00000/3 ens8f1np1=00000/3 ens6f0np0=00001/1 ens6f1np1=00001/1 "
                   "ens1f0np0=00001/1 ens1f1np1=00001/1 ");
    fsc_cabling_destroy(cab);
}

TEST_MAIN(TEST(addr_parse_ip_output), TEST(fixture_view_swapped_cables))
