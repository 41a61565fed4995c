/* PCIe link and AER reader. See nic_pcie.h. */
#include "sources/nic/nic_pcie.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/nic/nic_sysfs.h"

enum pcie_file {
    PF_CUR_SPEED,
    PF_MAX_SPEED,
    PF_CUR_WIDTH,
    PF_MAX_WIDTH,
    PF_AER_COR,
    PF_AER_FATAL,
    PF_AER_NONFATAL,
    PF__COUNT
};

static const char *const pcie_files[PF__COUNT] = {
    "current_link_speed",  "max_link_speed", "current_link_width", "max_link_width",
    "aer_dev_correctable", "aer_dev_fatal",  "aer_dev_nonfatal",
};

struct fsc_nic_pcie_reader {
    char bdf[FSC_NIC_BDF_MAX];
    int fd[PF__COUNT]; /* -1: the device has no such file */
    char text[FSC_NIC_AER_TEXT_MAX];
};

static size_t strip_nl(const char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
        len--;
    return len;
}

static int has_prefix(const char *s, size_t len, const char *word)
{
    size_t wl = strlen(word);
    return len >= wl && memcmp(s, word, wl) == 0;
}

int fsc_nic_pcie_parse_speed(const char *s, size_t len, uint32_t *mts)
{
    len = strip_nl(s, len);
    if (len == 7 && memcmp(s, "Unknown", 7) == 0) {
        *mts = 0;
        return 0;
    }
    /* digits [ '.' digits ] " GT/s" [ " PCIe" ] */
    size_t i = 0;
    uint64_t whole = 0, frac = 0;
    unsigned frac_digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9' && i < 6)
        whole = whole * 10 + (uint64_t)(s[i++] - '0');
    if (i == 0)
        return -EINVAL;
    if (i < len && s[i] == '.') {
        i++;
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 3) {
            frac = frac * 10 + (uint64_t)(s[i++] - '0');
            frac_digits++;
        }
        if (i == start)
            return -EINVAL;
    }
    while (frac_digits < 3) {
        frac *= 10;
        frac_digits++;
    }
    const char *rest = s + i;
    size_t rlen = len - i;
    if (!has_prefix(rest, rlen, " GT/s"))
        return -EINVAL;
    rest += 5;
    rlen -= 5;
    if (rlen != 0 && !(rlen == 5 && memcmp(rest, " PCIe", 5) == 0))
        return -EINVAL;
    uint64_t v = whole * 1000 + frac;
    if (v == 0 || v > UINT32_MAX)
        return -EINVAL;
    *mts = (uint32_t)v;
    return 0;
}

int fsc_nic_pcie_parse_width(const char *s, size_t len, uint32_t *lanes)
{
    uint64_t v;
    if (fsc_nic_parse_u64(s, len, &v) != 0 || v > 1024)
        return -EINVAL;
    *lanes = (uint32_t)v;
    return 0;
}

/* One line without its '\n'. Returns 1 = entry/total taken, 0 = blank,
 * -1 = malformed. */
static int aer_line(const char *s, size_t len, struct fsc_nic_aer *out)
{
    len = strip_nl(s, len);
    if (len == 0)
        return 0;
    size_t sp = len;
    while (sp > 0 && s[sp - 1] != ' ')
        sp--;
    if (sp == 0) /* no space: no label */
        return -1;
    uint64_t v;
    if (fsc_nic_parse_u64(s + sp, len - sp, &v) != 0)
        return -1;
    size_t ll = sp - 1;
    while (ll > 0 && s[ll - 1] == ' ')
        ll--;
    if (ll == 0)
        return -1;
    if (has_prefix(s, ll, "TOTAL_ERR_")) {
        out->total = v;
        out->has_total = 1;
        return 1;
    }
    if (out->n == FSC_NIC_AER_ENTRIES_MAX) {
        out->dropped++;
        return 1;
    }
    struct fsc_nic_aer_entry *e = &out->e[out->n++];
    if (ll >= sizeof e->label)
        ll = sizeof e->label - 1;
    memcpy(e->label, s, ll);
    e->label[ll] = '\0';
    e->value = v;
    return 1;
}

int fsc_nic_aer_parse(const char *text, size_t len, struct fsc_nic_aer *out)
{
    memset(out, 0, sizeof *out);
    out->present = 1;
    int good = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        int r = aer_line(text + pos, end - pos, out);
        if (r < 0)
            out->bad_lines++;
        else
            good += r;
        pos = end + 1;
    }
    return good > 0 ? 0 : -EINVAL;
}

int64_t fsc_nic_aer_value(const struct fsc_nic_aer *aer, const char *label)
{
    for (uint32_t i = 0; i < aer->n; i++)
        if (strcmp(aer->e[i].label, label) == 0)
            return aer->e[i].value > INT64_MAX ? INT64_MAX : (int64_t)aer->e[i].value;
    return -1;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* DDDD[DDDD]:BB:DD.F */
static int valid_bdf(const char *s)
{
    size_t i = 0;
    while (is_hex(s[i]) && i < 8)
        i++;
    if (i < 4 || s[i] != ':')
        return 0;
    s += i + 1;
    if (!is_hex(s[0]) || !is_hex(s[1]) || s[2] != ':' || !is_hex(s[3]) || !is_hex(s[4]) ||
        s[5] != '.' || s[6] < '0' || s[6] > '7' || s[7] != '\0')
        return 0;
    return 1;
}

int fsc_nic_pcie_resolve(const char *sysfs, const char *cls, const char *name, char *bdf,
                         size_t bdflen)
{
    char rel[256], path[FSC_NIC_PATH_MAX], target[FSC_NIC_PATH_MAX];
    if (strchr(name, '/') != NULL || strchr(cls, '/') != NULL)
        return -EINVAL;
    int w = snprintf(rel, sizeof rel, "class/%s/%s/device", cls, name);
    if (w < 0 || (size_t)w >= sizeof rel || fsc_nic_path(path, sizeof path, sysfs, rel) != 0)
        return -ENAMETOOLONG;
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n == -1)
        return errno == ENOENT || errno == ENOTDIR ? -ENOENT : (errno == EINVAL ? -EINVAL : -errno);
    target[n] = '\0';
    while (n > 0 && target[n - 1] == '/')
        target[--n] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (!valid_bdf(base))
        return -EINVAL;
    if (strlen(base) >= bdflen)
        return -ENAMETOOLONG;
    memcpy(bdf, base, strlen(base) + 1);
    return 0;
}

struct fsc_nic_pcie_reader *fsc_nic_pcie_create(const char *sysfs, const char *bdf, char *err,
                                                size_t errlen)
{
    char rel[128], path[FSC_NIC_PATH_MAX];
    if (bdf == NULL || !valid_bdf(bdf)) {
        snprintf(err, errlen, "not a PCI address: %s", bdf ? bdf : "(null)");
        return NULL;
    }
    struct fsc_nic_pcie_reader *pr = malloc(sizeof *pr);
    if (pr == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(pr->bdf, sizeof pr->bdf, "%s", bdf);
    for (int i = 0; i < PF__COUNT; i++)
        pr->fd[i] = -1;
    snprintf(rel, sizeof rel, "bus/pci/devices/%s", bdf);
    if (fsc_nic_path(path, sizeof path, sysfs, rel) != 0 || access(path, F_OK) != 0) {
        snprintf(err, errlen, "no PCI device %s under the sysfs root", bdf);
        free(pr);
        return NULL;
    }
    for (int i = 0; i < PF__COUNT; i++) {
        snprintf(rel, sizeof rel, "bus/pci/devices/%s/%s", bdf, pcie_files[i]);
        if (fsc_nic_path(path, sizeof path, sysfs, rel) == 0)
            pr->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
    }
    return pr;
}

void fsc_nic_pcie_destroy(struct fsc_nic_pcie_reader *pr)
{
    if (pr == NULL)
        return;
    for (int i = 0; i < PF__COUNT; i++)
        if (pr->fd[i] >= 0)
            close(pr->fd[i]);
    free(pr);
}

/* pread of one file into pr->text (NUL-terminated). Returns the length, or
 * -errno. A full buffer is reported through *full. */
static ssize_t read_text(struct fsc_nic_pcie_reader *pr, int fd, int *full)
{
    ssize_t r = pread(fd, pr->text, sizeof pr->text - 1, 0);
    if (r == -1)
        return errno ? -errno : -EIO;
    pr->text[r] = '\0';
    *full = (size_t)r == sizeof pr->text - 1;
    return r;
}

int fsc_nic_pcie_read(struct fsc_nic_pcie_reader *pr, struct fsc_nic_pcie *out)
{
    memset(out, 0, sizeof *out);
    int failed = 0, gone = 0;
    uint32_t *const link_field[4] = {&out->cur_speed_mts, &out->max_speed_mts, &out->cur_width,
                                     &out->max_width};
    for (int i = 0; i < PF__COUNT; i++) {
        if (pr->fd[i] < 0)
            continue;
        int full = 0;
        ssize_t r = read_text(pr, pr->fd[i], &full);
        if (r < 0) {
            failed++;
            gone |= r == -ENODEV || r == -ENOENT;
            continue;
        }
        int rc;
        if (i <= PF_MAX_SPEED) {
            rc = full ? -EINVAL : fsc_nic_pcie_parse_speed(pr->text, (size_t)r, link_field[i]);
        } else if (i <= PF_MAX_WIDTH) {
            rc = full ? -EINVAL : fsc_nic_pcie_parse_width(pr->text, (size_t)r, link_field[i]);
        } else {
            struct fsc_nic_aer *aer = &out->aer[i - PF_AER_COR];
            size_t len = (size_t)r;
            if (full) { /* keep whole lines only */
                const char *nl = strrchr(pr->text, '\n');
                len = nl ? (size_t)(nl - pr->text) + 1 : 0;
            }
            rc = fsc_nic_aer_parse(pr->text, len, aer);
            aer->truncated = (uint8_t)full;
        }
        if (rc != 0) /* the parsers leave the zeroed field alone on error */
            failed++;
    }
    out->cur_speed_gts = out->cur_speed_mts / 1000.0;
    out->max_speed_gts = out->max_speed_mts / 1000.0;
    out->speed_degraded =
        out->cur_speed_mts && out->max_speed_mts && out->cur_speed_mts < out->max_speed_mts;
    out->width_degraded = out->cur_width && out->max_width && out->cur_width < out->max_width;
    out->degraded = out->speed_degraded || out->width_degraded;
    if (gone)
        return -ENODEV;
    return failed;
}

const char *fsc_nic_pcie_bdf(const struct fsc_nic_pcie_reader *pr)
{
    return pr->bdf;
}
