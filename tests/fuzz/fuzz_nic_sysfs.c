/* Fuzz target nic_sysfs: file contents for the NIC source's sysfs readers
 * (collector/sources/nic/nic_sysfs.h, nic_ethtool.h, nic_pcie.h). The parsers are
 * already separate from the file reading there (they take a buffer), so no
 * source change was needed; the link reader's own pread path is exercised
 * through real files in a scratch directory under the working directory.
 *
 * The first input byte picks the reader, the rest is the file:
 *   0 counter file  fsc_nic_parse_u64, checked against a strict reference
 *                   (1-20 digits, one optional '\n', no overflow);
 *   1 operstate     fsc_oper_parse: accepted iff the text (one optional
 *                   '\n') is the name fsc_oper_name() gives back;
 *   2 link speed    fsc_nic_pcie_parse_speed: deterministic, "Unknown" = 0,
 *                   a trailing '\n' changes nothing;
 *   3 link width    fsc_nic_pcie_parse_width = the u64 reference, <= 1024;
 *   4 aer_dev_*     fsc_nic_aer_parse: bounded entries, NUL-terminated
 *                   labels, lookups by label find the first entry;
 *   5 class/net/X   operstate and speed files (split at the first '|')
 *                   read by fsc_nic_link_create/read, which must agree with
 *                   the parsers on the same bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_pcie.h"
#include "sources/nic/nic_sysfs.h"

/* Strict reference for a sysfs counter. Returns 0 with *out, or -1. */
static int ref_u64(const char *s, size_t len, uint64_t *out)
{
    if (len > 0 && s[len - 1] == '\n')
        len--;
    if (len == 0 || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static void check_u64(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    int ra = fsc_nic_parse_u64(s, n, &a), rb = ref_u64(s, n, &b);
    FUZZ_CHECK((ra == 0) == (rb == 0) && (ra == 0 || ra == -EINVAL));
    FUZZ_CHECK(ra != 0 || a == b);
}

static void check_oper(const char *s, size_t n)
{
    int op = fsc_oper_parse(s, n);
    size_t m = n > 0 && s[n - 1] == '\n' ? n - 1 : n;
    if (op >= 0) {
        const char *name = fsc_oper_name(op);
        FUZZ_CHECK(strlen(name) == m && memcmp(name, s, m) == 0);
    } else {
        FUZZ_CHECK(op == -EINVAL);
        for (int i = 0; i <= FSC_OPER_UP; i++) {
            const char *name = fsc_oper_name(i);
            FUZZ_CHECK(strlen(name) != m || memcmp(name, s, m) != 0);
        }
    }
}

static void check_speed(const char *s, size_t n)
{
    uint32_t a = 7, b = 7;
    int ra = fsc_nic_pcie_parse_speed(s, n, &a);
    FUZZ_CHECK(ra == 0 || ra == -EINVAL);
    if (n == 0 || s[n - 1] != '\n') {
        char *t = malloc(n + 1);
        FUZZ_CHECK(t);
        memcpy(t, s, n);
        t[n] = '\n';
        int rb = fsc_nic_pcie_parse_speed(t, n + 1, &b);
        FUZZ_CHECK(ra == rb && (ra != 0 || a == b));
        free(t);
    }
    if (n == 7 && memcmp(s, "Unknown", 7) == 0)
        FUZZ_CHECK(ra == 0 && a == 0);
}

static void check_width(const char *s, size_t n)
{
    uint32_t lanes = 0;
    uint64_t ref = 0;
    int ra = fsc_nic_pcie_parse_width(s, n, &lanes);
    int rb = ref_u64(s, n, &ref) == 0 && ref <= 1024 ? 0 : -EINVAL;
    FUZZ_CHECK(ra == rb && (ra != 0 || lanes == ref));
}

static void check_aer(const char *s, size_t n)
{
    struct fsc_nic_aer *aer = malloc(sizeof *aer);
    FUZZ_CHECK(aer);
    memset(aer, 0xa5, sizeof *aer);
    int rc = fsc_nic_aer_parse(s, n, aer);
    FUZZ_CHECK(rc == 0 || rc == -EINVAL);
    if (rc == 0) {
        FUZZ_CHECK(aer->n <= FSC_NIC_AER_ENTRIES_MAX);
        FUZZ_CHECK(aer->n > 0 || aer->has_total);
        for (uint32_t i = 0; i < aer->n; i++) {
            FUZZ_CHECK(memchr(aer->e[i].label, '\0', FSC_NIC_AER_LABEL_MAX) != NULL);
            uint32_t first = i;
            for (uint32_t j = 0; j < i; j++)
                if (strcmp(aer->e[j].label, aer->e[i].label) == 0) {
                    first = j;
                    break;
                }
            /* fsc_nic_aer_value clamps to INT64_MAX (its -1 means "absent") */
            uint64_t v = aer->e[first].value;
            FUZZ_CHECK(fsc_nic_aer_value(aer, aer->e[i].label) ==
                       (v > INT64_MAX ? INT64_MAX : (int64_t)v));
        }
    }
    free(aer);
}

static char link_dir[64];

/* Removes the files and directories link_root() made (atexit). */
static void link_cleanup(void)
{
    static const char *const parts[] = {"class/net/fz0/operstate",
                                        "class/net/fz0/speed",
                                        "class/net/fz0",
                                        "class/net",
                                        "class",
                                        ""};
    char p[160];
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", link_dir, parts[i]);
        if (unlink(p) != 0)
            rmdir(p);
    }
}

/* The directory <tmp>/class/net/fz0 made once per process. */
static const char *link_root(void)
{
    char *root = link_dir;
    if (root[0])
        return root;
    /* under the working directory (the test's scratch dir): libFuzzer may
     * end with _Exit(), skipping the cleanup, and nothing is left in /tmp */
    char tmpl[] = "fsc_fuzz_nic.XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl));
    char p[160];
    snprintf(p, sizeof p, "%s/class", tmpl);
    FUZZ_CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/class/net", tmpl);
    FUZZ_CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/class/net/fz0", tmpl);
    FUZZ_CHECK(mkdir(p, 0700) == 0);
    snprintf(link_dir, sizeof link_dir, "%s", tmpl);
    atexit(link_cleanup);
    return root;
}

static void put_file(const char *root, const char *name, const char *s, size_t n)
{
    char p[160];
    snprintf(p, sizeof p, "%s/class/net/fz0/%s", root, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(n == 0 || write(fd, s, n) == (ssize_t)n);
    close(fd);
}

static void check_link(const char *s, size_t n)
{
    const char *bar = memchr(s, '|', n);
    size_t on = bar ? (size_t)(bar - s) : n;
    const char *sp = bar ? bar + 1 : "";
    size_t sn = bar ? n - on - 1 : 0;
    const char *root = link_root();
    put_file(root, "operstate", s, on);
    put_file(root, "speed", sp, sn);
    char err[256];
    struct fsc_nic_link_reader *lr = fsc_nic_link_create(root, "fz0", err, sizeof err);
    FUZZ_CHECK(lr);
    struct fsc_nic_link lk;
    int rc = fsc_nic_link_read(lr, &lk);
    fsc_nic_link_destroy(lr);
    /* The reader reads at most 32 bytes of each file. */
    int op = fsc_oper_parse(s, on < 32 ? on : 32);
    FUZZ_CHECK(rc == (op < 0 ? -EINVAL : 0));
    FUZZ_CHECK(lk.oper == (op < 0 ? FSC_OPER_UNKNOWN : op));
    uint64_t v;
    int64_t want = sn < 32 && ref_u64(sp, sn, &v) == 0 && v <= INT64_MAX ? (int64_t)v : -1;
    FUZZ_CHECK(lk.speed_mbps == want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    switch (data[0] % 6) {
    case 0:
        check_u64(s, n);
        break;
    case 1:
        check_oper(s, n);
        break;
    case 2:
        check_speed(s, n);
        break;
    case 3:
        check_width(s, n);
        break;
    case 4:
        check_aer(s, n);
        break;
    default:
        check_link(s, n);
        break;
    }
    return 0;
}
