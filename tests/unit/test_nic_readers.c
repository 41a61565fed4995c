/* NIC readers (collector/sources/nic): counter directories, PCIe link and AER, link
 * state, the ethtool reader's error paths, and the fixture generator
 * (fabricscope-nic-fixture) whose trees they read. Known answers come from
 * the generator's documented arithmetic (collector/demo/nicfx/nicfx.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#include "model/profile.h"
#include "sources/nic/nic_config.h"
#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_pcie.h"
#include "sources/nic/nic_sysfs.h"

#define HW0   "class/infiniband/mlx5_0/ports/1/hw_counters"
#define HW1   "class/infiniband/mlx5_1/ports/1/hw_counters"
#define PMA0  "class/infiniband/mlx5_0/ports/1/counters"
#define PMA1  "class/infiniband/mlx5_1/ports/1/counters"
#define STAT0 "class/net/ens1f0np0/statistics"
#define STAT1 "class/net/ens2f0np0/statistics"
#define Q32   4294967296ull

static char root[64];  /* the fixture ROOT */
static char sysfs[96]; /* ROOT/sys */

static void make_root(void)
{
    snprintf(root, sizeof root, "/tmp/fsc_nic_test_XXXXXX");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(sysfs, sizeof sysfs, "%s/sys", root);
}

static void drop_root(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", root);
}

/* Runs fabricscope-nic-fixture with `args` (a format; arguments with spaces quoted by
 * the caller). Returns its exit status. */
__attribute__((format(printf, 1, 2))) static int fx(const char *fmt, ...)
{
    char args[512], cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", NIC_FIXTURE, args);
    int st = system(cmd);
    return st == -1 ? -1 : (st >> 8) & 0xff;
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

static struct fsc_nic_cdir *open_dir(const char *base, const char *rel)
{
    char err[256] = "";
    struct fsc_nic_cdir *cd = fsc_nic_cdir_create(base, rel, 0, err, sizeof err);
    if (cd == NULL)
        fprintf(stderr, "cdir %s/%s: %s\n", base, rel, err);
    CHECK(cd != NULL);
    return cd;
}

/* Value of counter `name`; UINT64_MAX (and a failed check) when absent. */
static uint64_t val(struct fsc_nic_cdir *cd, const char *name)
{
    long i = cd ? fsc_nic_cdir_find(cd, name) : -1;
    CHECK(i >= 0);
    if (i < 0) {
        fprintf(stderr, "  no counter %s\n", name);
        return UINT64_MAX;
    }
    size_t n;
    return fsc_nic_cdir_counters(cd, &n)[i].value;
}

static void parse_u64_table(void)
{
    static const struct {
        const char *s;
        int ok;
        uint64_t v;
    } t[] = {
        {"0\n", 1, 0},
        {"0", 1, 0},
        {"42\n", 1, 42},
        {"007\n", 1, 7},
        {"4294967295\n", 1, 4294967295ull},
        {"18446744073709551615\n", 1, UINT64_MAX},
        {"18446744073709551616\n", 0, 0}, /* 2^64 */
        {"99999999999999999999\n", 0, 0},
        {"000000000000000000001\n", 0, 0}, /* 21 digits */
        {"", 0, 0},
        {"\n", 0, 0},
        {"-1\n", 0, 0},
        {"+1\n", 0, 0},
        {" 1\n", 0, 0},
        {"1 \n", 0, 0},
        {"1\n\n", 0, 0},
        {"12x\n", 0, 0},
        {"0x10\n", 0, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint64_t v = 12345;
        int rc = fsc_nic_parse_u64(t[i].s, strlen(t[i].s), &v);
        CHECK_INT(rc, t[i].ok ? 0 : -EINVAL);
        if (t[i].ok)
            CHECK(v == t[i].v);
        else
            CHECK(v == 12345); /* untouched on error */
    }
    char p[64];
    CHECK_INT(fsc_nic_path(p, sizeof p, NULL, "class/net"), 0);
    CHECK_STR(p, "/sys/class/net");
    CHECK_INT(fsc_nic_path(p, sizeof p, "/tmp/x/sys/", "/class/net"), 0);
    CHECK_STR(p, "/tmp/x/sys/class/net");
    CHECK_INT(fsc_nic_path(p, 8, "/sys", "class/net"), -ENAMETOOLONG);
}

/* Two devices, two 100 ms steps at the base rates (100 Gb/s, 1000 CNP/s). */
static void cdir_fixture_exact(void)
{
    make_root();
    CHECK_INT(fx("init %s --devices 2 --cnp-rate 1000", root), 0);
    CHECK_INT(fx("step %s", root), 0);
    CHECK_INT(fx("step %s", root), 0);
    struct fsc_nic_cdir *hw = open_dir(sysfs, HW1), *pma = open_dir(sysfs, PMA1),
                        *st = open_dir(sysfs, STAT1);
    if (hw && pma && st) {
        size_t n;
        fsc_nic_cdir_counters(hw, &n);
        CHECK_INT(n, 31); /* 26 Q counters + 5 64-bit ones; lifespan left out */
        fsc_nic_cdir_counters(pma, &n);
        CHECK_INT(n, 21);
        fsc_nic_cdir_counters(st, &n);
        CHECK_INT(n, 24);
        CHECK_INT(fsc_nic_cdir_find(hw, "lifespan"), -1);
        CHECK_INT(fsc_nic_cdir_lifespan_ms(hw), 10);
        CHECK_INT(fsc_nic_cdir_lifespan_ms(st), FSC_NIC_LIFESPAN_UNKNOWN);
        CHECK_INT(fsc_nic_cdir_read(hw), 0);
        CHECK_INT(fsc_nic_cdir_read(pma), 0);
        CHECK_INT(fsc_nic_cdir_read(st), 0);
        /* B = 100 * 125000 * 100 = 1.25e9 bytes per step; P = floor(B/4096) */
        CHECK(val(st, "tx_bytes") == 2500000000ull);
        CHECK(val(st, "rx_bytes") == 2500000000ull);
        CHECK(val(st, "tx_packets") == 2 * 305175ull);
        CHECK(val(st, "rx_errors") == 0);
        CHECK(val(hw, "np_cnp_sent") == 200);
        CHECK(val(hw, "rp_cnp_handled") == 200);
        CHECK(val(hw, "rx_write_requests") == 2 * 305175ull);
        CHECK(val(hw, "out_of_sequence") == 0);
        /* IB PMA data stays in 4-byte words here; the profile's scale 4 turns
         * it into the same bytes as tx_bytes (the engine multiplies). */
        CHECK(val(pma, "port_xmit_data") == 625000000ull);
        CHECK(val(pma, "port_rcv_data") == 625000000ull);
        struct fsc_profile_match m;
        CHECK_INT(fsc_profile_map(&fsc_profile_mlx5, "port_xmit_data", &m), 0);
        CHECK_INT(m.traits.scale, 4);
        CHECK(val(pma, "port_xmit_data") * m.traits.scale == val(st, "tx_bytes"));

        /* The same descriptors see the next step (pread at offset 0). */
        CHECK_INT(fx("step %s --dt-ms 250 --gbps 400", root), 0);
        CHECK_INT(fsc_nic_cdir_read(st), 0);
        CHECK_INT(fsc_nic_cdir_read(hw), 0);
        /* 400 * 125000 * 250 = 12.5e9 bytes; floor(12.5e9 / 4096) = 3051757 */
        CHECK(val(st, "tx_bytes") == 15000000000ull);
        CHECK(val(st, "tx_packets") == 2 * 305175ull + 3051757ull);
        CHECK(val(hw, "np_cnp_sent") == 450);

        /* lifespan is re-read on every poll (it is settable at run time). */
        char p[256];
        snprintf(p, sizeof p, "%s/%s/lifespan", sysfs, HW1);
        put(p, "100\n");
        CHECK_INT(fsc_nic_cdir_read(hw), 0);
        CHECK_INT(fsc_nic_cdir_lifespan_ms(hw), 100);

        struct fsc_nic_cdir_stats s;
        fsc_nic_cdir_get_stats(st, &s);
        CHECK(s.polls == 2 && s.parse_errors == 0 && s.read_errors == 0 && s.skipped == 0);
    }
    fsc_nic_cdir_destroy(hw);
    fsc_nic_cdir_destroy(pma);
    fsc_nic_cdir_destroy(st);
    fsc_nic_cdir_destroy(NULL);
    drop_root();
}

static void cdir_malformed_counted(void)
{
    char p[160];
    make_root();
    static const char *const files[][2] = {
        {"a", "12\n"},
        {"b", "x\n"},
        {"c", ""},
        {"d", "18446744073709551616\n"},
        {"e", "18446744073709551615\n"},
    };
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i][0]);
        put(p, files[i][1]);
    }
    struct fsc_nic_cdir *cd = open_dir(root, "");
    if (cd) {
        size_t n;
        struct fsc_nic_counter *c = fsc_nic_cdir_counters(cd, &n);
        CHECK_INT(n, 5); /* malformed files stay: their text may become valid */
        CHECK_STR(c[0].name, "a");
        CHECK(c[0].valid && c[0].value == 12 && c[0].err == 0);
        CHECK(!c[1].valid && c[1].err == -EINVAL);
        CHECK(!c[2].valid && c[2].err == -EINVAL);
        CHECK(!c[3].valid && c[3].err == -EINVAL);
        CHECK(c[4].valid && c[4].value == UINT64_MAX);
        CHECK_INT(fsc_nic_cdir_lifespan_ms(cd), FSC_NIC_LIFESPAN_UNKNOWN);

        CHECK_INT(fsc_nic_cdir_read(cd), 3); /* b, c, d */
        snprintf(p, sizeof p, "%s/b", root);
        put(p, "7\n");
        snprintf(p, sizeof p, "%s/a", root);
        put(p, "1 2\n");                     /* garbage after a good value: the value is kept */
        CHECK_INT(fsc_nic_cdir_read(cd), 3); /* a, c, d */
        CHECK(c[0].value == 12 && c[0].err == -EINVAL && c[0].valid);
        CHECK(c[1].value == 7 && c[1].err == 0 && c[1].valid);
        put(p, "13\n");
        CHECK_INT(fsc_nic_cdir_read(cd), 2);
        CHECK(c[0].value == 13 && c[0].err == 0);
        struct fsc_nic_cdir_stats s;
        fsc_nic_cdir_get_stats(cd, &s);
        CHECK(s.polls == 3);
        CHECK(s.parse_errors == 8); /* 3 + 3 + 2 */
        CHECK(s.read_errors == 0);
    }
    fsc_nic_cdir_destroy(cd);
    drop_root();
}

static void cdir_vanished_and_new(void)
{
    char p[256], q[256];
    make_root();
    CHECK_INT(fx("init %s --devices 1 --cnp-rate 1000", root), 0);
    CHECK_INT(fx("step %s", root), 0);
    struct fsc_nic_cdir *cd = open_dir(sysfs, HW0);
    if (cd == NULL) {
        drop_root();
        return;
    }
    size_t n;
    struct fsc_nic_counter *c = fsc_nic_cdir_counters(cd, &n);
    for (size_t i = 0; i < n; i++)
        c[i].tag = (uint32_t)(1000 + i);
    long i_handled = fsc_nic_cdir_find(cd, "rp_cnp_handled");
    long i_oos = fsc_nic_cdir_find(cd, "out_of_sequence");
    CHECK(i_handled >= 0 && i_oos >= 0);
    uint32_t tag_handled = c[i_handled].tag, tag_oos = c[i_oos].tag;
    const char *name_before = c[i_oos].name;

    /* Same names: rescan returns 0 and keeps pointers and tags. */
    CHECK_INT(fsc_nic_cdir_rescan(cd), 0);
    c = fsc_nic_cdir_counters(cd, &n);
    CHECK(c[i_oos].name == name_before && c[i_oos].tag == tag_oos);

    /* A file replaced by a new inode: the open descriptor still reads the
     * old one; the rescan takes the new one without changing the names. */
    snprintf(p, sizeof p, "%s/%s/rp_cnp_handled.new", sysfs, HW0);
    snprintf(q, sizeof q, "%s/%s/rp_cnp_handled", sysfs, HW0);
    put(p, "77\n");
    CHECK_INT(rename(p, q), 0);
    CHECK_INT(fsc_nic_cdir_read(cd), 0);
    CHECK(val(cd, "rp_cnp_handled") == 100);
    CHECK_INT(fsc_nic_cdir_rescan(cd), 0);
    CHECK(val(cd, "rp_cnp_handled") == 77);
    CHECK_INT(fsc_nic_cdir_read(cd), 0);
    CHECK(val(cd, "rp_cnp_handled") == 77);

    /* One file vanishes, one appears. */
    snprintf(p, sizeof p, "%s/%s/np_cnp_sent", sysfs, HW0);
    CHECK_INT(unlink(p), 0);
    snprintf(p, sizeof p, "%s/%s/zz_new_counter", sysfs, HW0);
    put(p, "5\n");
    CHECK_INT(fsc_nic_cdir_read(cd), 0); /* a plain file keeps its inode alive */
    struct fsc_nic_cdir_stats s;
    fsc_nic_cdir_get_stats(cd, &s);
    CHECK_INT(s.generation, 0);
    CHECK_INT(fsc_nic_cdir_rescan(cd), 1);
    c = fsc_nic_cdir_counters(cd, &n);
    CHECK_INT(n, 31);
    CHECK_INT(fsc_nic_cdir_find(cd, "np_cnp_sent"), -1);
    long i_new = fsc_nic_cdir_find(cd, "zz_new_counter");
    CHECK(i_new >= 0);
    if (i_new >= 0)
        CHECK(c[i_new].tag == FSC_NIC_TAG_NONE && c[i_new].value == 5 && c[i_new].valid);
    i_handled = fsc_nic_cdir_find(cd, "rp_cnp_handled");
    CHECK(i_handled >= 0 && c[i_handled].tag == tag_handled);
    i_oos = fsc_nic_cdir_find(cd, "out_of_sequence");
    CHECK(i_oos >= 0 && c[i_oos].tag == tag_oos);
    fsc_nic_cdir_get_stats(cd, &s);
    CHECK_INT(s.generation, 1);
    CHECK_INT(s.rescans, 3);
    CHECK_INT(fsc_nic_cdir_lifespan_ms(cd), 10);

    /* The whole directory gone: the rescan fails and changes nothing. */
    snprintf(p, sizeof p, "%s/class/infiniband/mlx5_0/ports/1", sysfs);
    snprintf(q, sizeof q, "%s/class/infiniband/mlx5_0/ports/1.gone", sysfs);
    CHECK_INT(rename(p, q), 0);
    CHECK_INT(fsc_nic_cdir_rescan(cd), -ENOENT);
    fsc_nic_cdir_counters(cd, &n);
    CHECK_INT(n, 31);
    CHECK_INT(fsc_nic_cdir_read(cd), 0);
    fsc_nic_cdir_destroy(cd);

    char err[256] = "";
    CHECK(fsc_nic_cdir_create(sysfs, HW0, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "cannot list counter directory") != NULL);
    drop_root();
}

static void cdir_bounds(void)
{
    char p[160];
    make_root();
    for (int i = 0; i < 10; i++) {
        snprintf(p, sizeof p, "%s/c%02d", root, i);
        put(p, "1\n");
    }
    snprintf(p, sizeof p, "%s/lifespan", root);
    put(p, "10\n");
    snprintf(p, sizeof p, "%s/subdir", root);
    CHECK_INT(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/link", root);
    CHECK_INT(symlink("c00", p), 0);
    char err[256] = "";
    struct fsc_nic_cdir *cd = fsc_nic_cdir_create(root, "", 4, err, sizeof err);
    CHECK(cd != NULL);
    if (cd) {
        size_t n;
        struct fsc_nic_counter *c = fsc_nic_cdir_counters(cd, &n);
        CHECK_INT(n, 4);
        CHECK_STR(c[0].name, "c00");
        CHECK_STR(c[3].name, "c03");
        struct fsc_nic_cdir_stats s;
        fsc_nic_cdir_get_stats(cd, &s);
        CHECK_INT(s.skipped, 6 + 2); /* c04..c09, subdir, symlink */
        CHECK_INT(fsc_nic_cdir_lifespan_ms(cd), 10);
    }
    fsc_nic_cdir_destroy(cd);
    snprintf(p, sizeof p, "%s/c00", root);
    CHECK(fsc_nic_cdir_create(p, "", 0, err, sizeof err) == NULL); /* not a directory */
    drop_root();
}

static void pcie_strings(void)
{
    static const struct {
        const char *s;
        int rc;
        uint32_t mts;
    } sp[] = {
        {"64.0 GT/s PCIe\n", 0, 64000},
        {"32.0 GT/s PCIe\n", 0, 32000},
        {"16.0 GT/s PCIe", 0, 16000},
        {"8.0 GT/s PCIe\n", 0, 8000},
        {"5.0 GT/s PCIe\n", 0, 5000},
        {"2.5 GT/s PCIe\n", 0, 2500},
        {"8 GT/s\n", 0, 8000},
        {"2.5 GT/s\n", 0, 2500},
        {"Unknown\n", 0, 0},
        {"Unknown", 0, 0},
        {"", -EINVAL, 0},
        {"GT/s PCIe\n", -EINVAL, 0},
        {"32.0GT/s PCIe\n", -EINVAL, 0},
        {"32.0 GB/s\n", -EINVAL, 0},
        {"32.0 GT/s PCIe x\n", -EINVAL, 0},
        {"32. GT/s\n", -EINVAL, 0},
        {"unknown\n", -EINVAL, 0},
        {"0 GT/s\n", -EINVAL, 0},
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        uint32_t mts = 999;
        int rc = fsc_nic_pcie_parse_speed(sp[i].s, strlen(sp[i].s), &mts);
        CHECK_INT(rc, sp[i].rc);
        if (rc != sp[i].rc)
            fprintf(stderr, "  speed \"%s\"\n", sp[i].s);
        CHECK_INT(mts, rc == 0 ? sp[i].mts : 999);
    }
    uint32_t w = 0;
    CHECK_INT(fsc_nic_pcie_parse_width("16\n", 3, &w), 0);
    CHECK_INT(w, 16);
    CHECK_INT(fsc_nic_pcie_parse_width("8", 1, &w), 0);
    CHECK_INT(w, 8);
    CHECK_INT(fsc_nic_pcie_parse_width("x16\n", 4, &w), -EINVAL);
    CHECK_INT(fsc_nic_pcie_parse_width("\n", 1, &w), -EINVAL);
}

static void aer_parse(void)
{
    static const char text[] = "Receiver Error 2\n"
                               "Bad TLP 7\n"
                               "Bad DLLP 0\n"
                               "RELAY_NUM Rollover 1\n"
                               "Replay Timer Timeout 3\n"
                               "\n"
                               "Advisory Non-Fatal 0\n"
                               "Corrected Internal Error 0\n"
                               "Header Log Overflow 18446744073709551615\n"
                               "NoNumberHere\n"
                               "Bad TLP x\n"
                               "42\n"
                               "TOTAL_ERR_COR 11\n";
    struct fsc_nic_aer a;
    CHECK_INT(fsc_nic_aer_parse(text, strlen(text), &a), 0);
    CHECK_INT(a.present, 1);
    CHECK_INT(a.n, 8);
    CHECK_INT(a.bad_lines, 3);
    CHECK_INT(a.dropped, 0);
    CHECK_INT(a.has_total, 1);
    CHECK(a.total == 11); /* below the sum (13): one message, several causes */
    CHECK_STR(a.e[0].label, "Receiver Error");
    CHECK_STR(a.e[3].label, "RELAY_NUM Rollover");
    CHECK_STR(a.e[4].label, "Replay Timer Timeout");
    CHECK(a.e[7].value == UINT64_MAX);
    CHECK_INT(fsc_nic_aer_value(&a, "Bad TLP"), 7);
    CHECK_INT(fsc_nic_aer_value(&a, "Replay Timer Timeout"), 3);
    CHECK_INT(fsc_nic_aer_value(&a, "Header Log Overflow"), INT64_MAX);
    CHECK_INT(fsc_nic_aer_value(&a, "Bad"), -1);

    static const char fatal[] = "Undefined 0\nData Link Protocol 1\nSurprise Down Error 0\n"
                                "Poisoned TLP Egress Blocked 4\nTOTAL_ERR_FATAL 5\n";
    CHECK_INT(fsc_nic_aer_parse(fatal, strlen(fatal), &a), 0);
    CHECK_INT(a.n, 4);
    CHECK(a.total == 5 && a.has_total);
    CHECK_INT(fsc_nic_aer_value(&a, "Data Link Protocol"), 1);
    CHECK_INT(fsc_nic_aer_value(&a, "Poisoned TLP Egress Blocked"), 4);

    /* No trailing newline, no TOTAL line. */
    CHECK_INT(fsc_nic_aer_parse("Bad TLP 1", 9, &a), 0);
    CHECK(a.n == 1 && !a.has_total && a.e[0].value == 1);

    /* Bounded: entries past FSC_NIC_AER_ENTRIES_MAX are counted, not kept. */
    char big[4096];
    size_t len = 0;
    for (int i = 0; i < FSC_NIC_AER_ENTRIES_MAX + 5; i++)
        len += (size_t)snprintf(big + len, sizeof big - len, "Error number %d %d\n", i, i);
    len += (size_t)snprintf(big + len, sizeof big - len, "TOTAL_ERR_NONFATAL 9\n");
    CHECK_INT(fsc_nic_aer_parse(big, len, &a), 0);
    CHECK_INT(a.n, FSC_NIC_AER_ENTRIES_MAX);
    CHECK_INT(a.dropped, 5);
    CHECK(a.total == 9);
    CHECK_STR(a.e[31].label, "Error number 31");

    CHECK_INT(fsc_nic_aer_parse("garbage\n", 8, &a), -EINVAL);
    CHECK_INT(fsc_nic_aer_parse("", 0, &a), -EINVAL);
}

static void pcie_fixture(void)
{
    char bdf[FSC_NIC_BDF_MAX], err[256] = "", p[256];
    make_root();
    CHECK_INT(fx("init %s --devices 2", root), 0);
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "net", "ens2f0np0", bdf, sizeof bdf), 0);
    CHECK_STR(bdf, "0000:21:00.0");
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "infiniband", "mlx5_0", bdf, sizeof bdf), 0);
    CHECK_STR(bdf, "0000:20:00.0");
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "net", "nosuch0", bdf, sizeof bdf), -ENOENT);
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "net", "ens1f0np0", bdf, 8), -ENAMETOOLONG);
    snprintf(p, sizeof p, "%s/class/net/virt0", sysfs);
    CHECK_INT(mkdir(p, 0755), 0);
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "net", "virt0", bdf, sizeof bdf), -ENOENT);
    snprintf(p, sizeof p, "%s/class/net/virt0/device", sysfs);
    CHECK_INT(symlink("../../../devices/platform/serial8250", p), 0);
    CHECK_INT(fsc_nic_pcie_resolve(sysfs, "net", "virt0", bdf, sizeof bdf), -EINVAL);

    struct fsc_nic_pcie_reader *r0 = fsc_nic_pcie_create(sysfs, "0000:20:00.0", err, sizeof err);
    struct fsc_nic_pcie_reader *r1 = fsc_nic_pcie_create(sysfs, "0000:21:00.0", err, sizeof err);
    CHECK(r0 != NULL && r1 != NULL);
    CHECK(fsc_nic_pcie_create(sysfs, "0000:99:00.0", err, sizeof err) == NULL);
    CHECK(strstr(err, "no PCI device 0000:99:00.0") != NULL);
    CHECK(fsc_nic_pcie_create(sysfs, "../../etc", err, sizeof err) == NULL);
    if (r0 && r1) {
        CHECK_STR(fsc_nic_pcie_bdf(r1), "0000:21:00.0");
        static struct fsc_nic_pcie pc; /* 5 KB: off the stack */
        CHECK_INT(fsc_nic_pcie_read(r1, &pc), 0);
        CHECK_INT(pc.cur_speed_mts, 64000);
        CHECK_INT(pc.max_speed_mts, 64000);
        CHECK_NEAR(pc.cur_speed_gts, 64.0, 0);
        CHECK_INT(pc.cur_width, 16);
        CHECK_INT(pc.max_width, 16);
        CHECK_INT(pc.degraded, 0);
        CHECK_INT(pc.aer[FSC_NIC_AER_CORRECTABLE].n, 8);
        CHECK_INT(pc.aer[FSC_NIC_AER_FATAL].n, 18);
        CHECK(pc.aer[FSC_NIC_AER_NONFATAL].present && pc.aer[FSC_NIC_AER_NONFATAL].has_total);
        CHECK(pc.aer[FSC_NIC_AER_CORRECTABLE].total == 0);

        CHECK_INT(fx("step %s --degrade-pcie 1 --aer '1:cor:Bad TLP=3' "
                     "--aer '1:cor:Replay Timer Timeout=1' --aer '1:nonfatal:Completion Timeout=2'",
                     root),
                  0);
        CHECK_INT(fsc_nic_pcie_read(r1, &pc), 0);
        CHECK_INT(pc.cur_speed_mts, 32000);
        CHECK_NEAR(pc.cur_speed_gts, 32.0, 0);
        CHECK_NEAR(pc.max_speed_gts, 64.0, 0);
        CHECK_INT(pc.cur_width, 8);
        CHECK_INT(pc.max_width, 16);
        CHECK(pc.speed_degraded && pc.width_degraded && pc.degraded);
        const struct fsc_nic_aer *cor = &pc.aer[FSC_NIC_AER_CORRECTABLE];
        CHECK_INT(fsc_nic_aer_value(cor, "Bad TLP"), 3);
        CHECK_INT(fsc_nic_aer_value(cor, "Replay Timer Timeout"), 1);
        CHECK(cor->total == 4);
        CHECK_INT(fsc_nic_aer_value(&pc.aer[FSC_NIC_AER_NONFATAL], "Completion Timeout"), 2);
        CHECK(pc.aer[FSC_NIC_AER_NONFATAL].total == 2);
        CHECK(pc.aer[FSC_NIC_AER_FATAL].total == 0);

        CHECK_INT(fsc_nic_pcie_read(r0, &pc), 0); /* the other device is healthy */
        CHECK_INT(pc.degraded, 0);
        CHECK(pc.aer[FSC_NIC_AER_CORRECTABLE].total == 0);

        /* Width alone; "Unknown" speed never counts as degraded. */
        snprintf(p, sizeof p, "%s/bus/pci/devices/0000:20:00.0/current_link_width", sysfs);
        put(p, "4\n");
        snprintf(p, sizeof p, "%s/bus/pci/devices/0000:20:00.0/current_link_speed", sysfs);
        put(p, "Unknown\n");
        CHECK_INT(fsc_nic_pcie_read(r0, &pc), 0);
        CHECK(pc.cur_speed_mts == 0 && !pc.speed_degraded && pc.width_degraded && pc.degraded);
        put(p, "fast\n"); /* unparsable: counted, field unknown */
        CHECK_INT(fsc_nic_pcie_read(r0, &pc), 1);
        CHECK_INT(pc.cur_speed_mts, 0);

        CHECK_INT(fx("step %s --restore-pcie 1", root), 0);
        CHECK_INT(fsc_nic_pcie_read(r1, &pc), 0);
        CHECK_INT(pc.degraded, 0);
    }
    fsc_nic_pcie_destroy(r0);
    fsc_nic_pcie_destroy(r1);
    fsc_nic_pcie_destroy(NULL);

    /* A device without AER or link files (not PCIe-capable): all unknown. */
    snprintf(p, sizeof p, "%s/bus/pci/devices/0000:00:1f.3", sysfs);
    CHECK_INT(mkdir(p, 0755), 0);
    struct fsc_nic_pcie_reader *r2 = fsc_nic_pcie_create(sysfs, "0000:00:1f.3", err, sizeof err);
    CHECK(r2 != NULL);
    if (r2) {
        static struct fsc_nic_pcie pc;
        CHECK_INT(fsc_nic_pcie_read(r2, &pc), 0);
        CHECK(pc.cur_speed_mts == 0 && pc.max_width == 0 && !pc.degraded);
        CHECK(!pc.aer[0].present && !pc.aer[1].present && !pc.aer[2].present);
    }
    fsc_nic_pcie_destroy(r2);
    drop_root();
}

static void link_fixture(void)
{
    char err[256] = "";
    make_root();
    CHECK_INT(fx("init %s --devices 2", root), 0);
    struct fsc_nic_link_reader *lr = fsc_nic_link_create(sysfs, "ens1f0np0", err, sizeof err);
    CHECK(lr != NULL);
    CHECK(fsc_nic_link_create(sysfs, "nosuch0", err, sizeof err) == NULL);
    CHECK(fsc_nic_link_create(sysfs, "../x", err, sizeof err) == NULL);
    if (lr) {
        struct fsc_nic_link l;
        CHECK_INT(fsc_nic_link_read(lr, &l), 0);
        CHECK_INT(l.oper, FSC_OPER_UP);
        CHECK_INT(l.speed_mbps, 400000);
        CHECK_INT(fx("step %s --link-down 0", root), 0);
        CHECK_INT(fsc_nic_link_read(lr, &l), 0);
        CHECK_INT(l.oper, FSC_OPER_DOWN);
        CHECK_INT(l.speed_mbps, -1);
        CHECK_INT(fx("step %s --link-up 0", root), 0);
        CHECK_INT(fsc_nic_link_read(lr, &l), 0);
        CHECK_INT(l.oper, FSC_OPER_UP);
        CHECK_INT(l.speed_mbps, 400000);
    }
    fsc_nic_link_destroy(lr);
    fsc_nic_link_destroy(NULL);
    CHECK_INT(fsc_oper_parse("lowerlayerdown\n", 15), FSC_OPER_LOWERLAYERDOWN);
    CHECK_INT(fsc_oper_parse("dormant", 7), FSC_OPER_DORMANT);
    CHECK_INT(fsc_oper_parse("unknown\n", 8), FSC_OPER_UNKNOWN);
    CHECK_INT(fsc_oper_parse("upp\n", 4), -EINVAL);
    CHECK_STR(fsc_oper_name(FSC_OPER_NOTPRESENT), "notpresent");
    CHECK_STR(fsc_oper_name(42), "unknown");
    drop_root();
}

/* The generator's step semantics, read back through the readers. */
static void fixture_step_semantics(void)
{
    make_root();
    CHECK_INT(fx("init %s --devices 2 --cnp-rate 1000", root), 0);
    CHECK_INT(fx("init %s --devices 2", root), 2); /* refuses a non-empty root */
    CHECK_INT(fx("step %s --reset 5", root), 2);   /* no device 5 */
    struct fsc_nic_cdir *hw0 = open_dir(sysfs, HW0), *hw1 = open_dir(sysfs, HW1),
                        *st0 = open_dir(sysfs, STAT0), *st1 = open_dir(sysfs, STAT1),
                        *pma0 = open_dir(sysfs, PMA0);
    if (!(hw0 && hw1 && st0 && st1 && pma0))
        goto out;
    CHECK(val(hw0, "out_of_sequence") == 0 && val(st0, "tx_bytes") == 0);

    /* 32-bit wrap of out_of_sequence: 2^32-100, then +300 -> 200. */
    CHECK_INT(fx("step %s --near-wrap 0", root), 0);
    fsc_nic_cdir_read(hw0);
    CHECK(val(hw0, "out_of_sequence") == Q32 - 100);
    CHECK(val(hw0, "packet_seq_err") == Q32 - 100);
    CHECK_INT(fx("step %s --device 0 --oos-rate 3000", root), 0);
    fsc_nic_cdir_read(hw0);
    fsc_nic_cdir_read(hw1);
    CHECK(val(hw0, "out_of_sequence") == 200);
    CHECK(val(hw0, "packet_seq_err") == 200);
    CHECK(val(hw1, "out_of_sequence") == 0); /* --device limits the override */
    /* --add wraps a Q counter too; 64-bit counters do not wrap at 2^32. */
    CHECK_INT(fx("step %s --dt-ms 0 --add 0:out_of_sequence=4294967295 "
                 "--add 0:np_cnp_sent=4294967296",
                 root),
              0);
    fsc_nic_cdir_read(hw0);
    CHECK(val(hw0, "out_of_sequence") == 199);
    CHECK(val(hw0, "np_cnp_sent") == 200 + Q32); /* 2 steps x 100 before */

    /* CNP storm on device 1 only: 50000/s x 100 ms = 5000 on top of the
     * base 100 per step. */
    fsc_nic_cdir_read(hw1);
    uint64_t cnp0 = val(hw0, "np_cnp_sent"), cnp1 = val(hw1, "np_cnp_sent");
    uint64_t ecn1 = val(hw1, "np_ecn_marked_roce_packets");
    CHECK_INT(fx("step %s --cnp-storm 1:50000", root), 0);
    fsc_nic_cdir_read(hw0);
    fsc_nic_cdir_read(hw1);
    CHECK(val(hw0, "np_cnp_sent") - cnp0 == 100);
    CHECK(val(hw1, "np_cnp_sent") - cnp1 == 5100);
    CHECK(val(hw1, "rp_cnp_handled") - cnp1 == 5100);
    CHECK(val(hw1, "np_ecn_marked_roce_packets") - ecn1 == 5100);

    /* lifespan-style repeat: frozen hw_counters keep their text while
     * statistics move; the next step shows the accumulated truth. */
    fsc_nic_cdir_read(st0);
    cnp0 = val(hw0, "np_cnp_sent");
    uint64_t tx0 = val(st0, "tx_bytes");
    CHECK_INT(fx("step %s --freeze 0", root), 0);
    fsc_nic_cdir_read(hw0);
    fsc_nic_cdir_read(st0);
    CHECK(val(hw0, "np_cnp_sent") == cnp0);
    CHECK(val(st0, "tx_bytes") - tx0 == 1250000000ull);
    CHECK_INT(fx("step %s", root), 0);
    fsc_nic_cdir_read(hw0);
    CHECK(val(hw0, "np_cnp_sent") - cnp0 == 200);

    /* Reset of device 0: every counter 0 (and no increment in that step),
     * device 1 keeps counting. */
    fsc_nic_cdir_read(st1);
    uint64_t tx1 = val(st1, "tx_bytes");
    CHECK_INT(fx("step %s --reset 0", root), 0);
    struct fsc_nic_cdir *all0[] = {hw0, st0, pma0};
    for (size_t d = 0; d < 3; d++) {
        CHECK_INT(fsc_nic_cdir_read(all0[d]), 0);
        size_t n;
        const struct fsc_nic_counter *c = fsc_nic_cdir_counters(all0[d], &n);
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += c[i].value;
        CHECK(sum == 0);
    }
    fsc_nic_cdir_read(st1);
    CHECK(val(st1, "tx_bytes") - tx1 == 1250000000ull);
    CHECK_INT(fx("step %s --set 0:port_xmit_data=17", root), 0);
    fsc_nic_cdir_read(pma0);
    CHECK(val(pma0, "port_xmit_data") == 17 + 1250000000ull / 4);
    CHECK_INT(fsc_nic_cdir_lifespan_ms(hw0), 10);
out:
    fsc_nic_cdir_destroy(hw0);
    fsc_nic_cdir_destroy(hw1);
    fsc_nic_cdir_destroy(st0);
    fsc_nic_cdir_destroy(st1);
    fsc_nic_cdir_destroy(pma0);
    drop_root();
}

/* The error paths of the ioctl reader that need no privileges; the real
 * stats are read in tests/integration/nic_ethtool_netns_test.sh. */
static void ethtool_errors(void)
{
    char err[256] = "";
    int e = 0;
    CHECK(fsc_nic_ethtool_create("fscnosuch0", -1, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -ENODEV);
    CHECK(strstr(err, "fscnosuch0") != NULL);
    /* lo has ethtool ops but no stats string set. */
    CHECK(fsc_nic_ethtool_create("lo", -1, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -EOPNOTSUPP);
    CHECK_STR(err, "interface lo has no ethtool statistics");
    CHECK(fsc_nic_ethtool_create("a-name-of-16-byt", -1, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -EINVAL);
    CHECK(fsc_nic_ethtool_create("", -1, 0, &e, err, sizeof err) == NULL);
    int sock = fsc_nic_ethtool_socket();
    CHECK(sock >= 0);
    CHECK(fsc_nic_ethtool_create("lo", sock, 0, &e, err, sizeof err) == NULL);
    CHECK_INT(e, -EOPNOTSUPP);
    CHECK(fcntl(sock, F_GETFD) != -1); /* a borrowed socket is not closed */
    close(sock);
    fsc_nic_ethtool_destroy(NULL);
}

/* Real sysfs: pread at offset 0 on a kept descriptor sees new values. One
 * datagram of 100 bytes to 127.0.0.1 adds at least 100+8+20+14 bytes to
 * lo's tx_bytes (other tests may add more, never less). */
static void sysfs_pread_fresh(void)
{
    struct fsc_nic_cdir *cd = open_dir(NULL, "class/net/lo/statistics");
    if (cd == NULL)
        return;
    CHECK_INT(fsc_nic_cdir_read(cd), 0);
    uint64_t before = val(cd, "tx_bytes");
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(s >= 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(9); /* discard */
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char payload[100] = {0};
    CHECK_INT(sendto(s, payload, sizeof payload, 0, (struct sockaddr *)&sa, sizeof sa), 100);
    close(s);
    CHECK_INT(fsc_nic_cdir_read(cd), 0);
    CHECK(val(cd, "tx_bytes") - before >= 142);
    fsc_nic_cdir_destroy(cd);
}

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* A 100-file directory read 2000 times: every value exact on every poll.
 * The cost per counter is printed (tmpfs here; real sysfs below), not
 * asserted. */
static void read_cost_100_files(void)
{
    char p[160];
    make_root();
    for (int i = 0; i < 100; i++) {
        snprintf(p, sizeof p, "%s/ctr_%03d", root, i);
        char text[32];
        snprintf(text, sizeof text, "%llu\n", (unsigned long long)i * 1000003ull);
        put(p, text);
    }
    struct fsc_nic_cdir *cd = open_dir(root, "");
    if (cd) {
        size_t n;
        const struct fsc_nic_counter *c = fsc_nic_cdir_counters(cd, &n);
        CHECK_INT(n, 100);
        int bad = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int poll = 0; poll < 2000; poll++)
            bad += fsc_nic_cdir_read(cd) != 0;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_INT(bad, 0);
        for (size_t i = 0; i < n; i++)
            CHECK(c[i].value == i * 1000003ull && c[i].err == 0);
        printf("read cost: %.0f ns per counter (100 files, regular files)\n",
               elapsed_ns(&t0, &t1) / 2000 / 100);
    }
    fsc_nic_cdir_destroy(cd);
    cd = open_dir(NULL, "class/net/lo/statistics");
    if (cd) {
        size_t n;
        fsc_nic_cdir_counters(cd, &n);
        int bad = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int poll = 0; poll < 2000; poll++)
            bad += fsc_nic_cdir_read(cd) != 0;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_INT(bad, 0);
        printf("read cost: %.0f ns per counter (%zu files, /sys/class/net/lo/statistics)\n",
               elapsed_ns(&t0, &t1) / 2000 / (double)(n ? n : 1), n);
    }
    fsc_nic_cdir_destroy(cd);
    drop_root();
}

TEST_MAIN(TEST(parse_u64_table), TEST(cdir_fixture_exact), TEST(cdir_malformed_counted),
          TEST(cdir_vanished_and_new), TEST(cdir_bounds), TEST(pcie_strings), TEST(aer_parse),
          TEST(pcie_fixture), TEST(link_fixture), TEST(fixture_step_semantics),
          TEST(ethtool_errors), TEST(sysfs_pread_fresh), TEST(read_cost_100_files))
