/* The ethtool reader's file backend: a fixture tree's statistics file
 * (nic_ethtool.h has the format and why its time matters).
 *
 * Each read opens the file and reads it whole into a buffer kept between
 * reads. Its writer rewrites it in place, so a read can catch it half
 * written: the checksum line (FNV-1a 64 of every byte before it) says
 * whether the text is one whole version, and a text that fails it is read
 * again (the writer finishes within microseconds). A whole text is parsed in
 * two passes: the first validates every line and compares the names with
 * the cached ones, the second stores the values (and, when the names
 * changed, the names). A malformed file changes nothing. */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/name_hash.h"
#include "sources/nic/nic_ethtool_int.h"
#include "sources/nic/nic_sysfs.h"

#define TIME_KEY   "time_ns: "
#define HEADER     "NIC statistics:"
#define SUM_KEY    "checksum: "
#define READ_TRIES 3  /* reads of a text caught mid-write before giving up */
#define LINE_MAX_B 64 /* 5 spaces, a 32-byte name, ": ", 20 digits, '\n', with room */

/* The longest file a reader accepts: every stat on a line of its own. */
static size_t text_max(const struct fsc_nic_ethtool *et)
{
    return et->max_stats * LINE_MAX_B + 128;
}

/* Reads the whole file into et->text (NUL-terminated), growing the buffer
 * up to text_max. Returns the length or a negative errno. */
static long read_whole(struct fsc_nic_ethtool *et)
{
    int fd = open(et->path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return errno == ENOENT || errno == ENOTDIR ? -ENODEV : (errno ? -errno : -EIO);
    struct stat st;
    long rc = fstat(fd, &st) == -1 ? (errno ? -errno : -EIO) : 0;
    size_t want = rc == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
    if (rc == 0 && want > text_max(et))
        rc = -E2BIG;
    if (rc == 0 && want >= et->text_cap) { /* room for one byte more than the file */
        size_t cap = want + want / 2 < text_max(et) ? want + want / 2 : text_max(et);
        char *t = realloc(et->text, cap);
        if (t) {
            et->text = t;
            et->text_cap = cap;
        } else {
            rc = -ENOMEM;
        }
    }
    size_t got = 0;
    while (rc == 0 && got < et->text_cap - 1) {
        ssize_t r = read(fd, et->text + got, et->text_cap - 1 - got);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1)
            rc = errno ? -errno : -EIO;
        else if (r == 0)
            break;
        else
            got += (size_t)r;
    }
    close(fd);
    if (rc != 0)
        return rc;
    if (got == et->text_cap - 1)
        return -EAGAIN; /* it grew since fstat: being rewritten, read again */
    et->text[got] = '\0';
    return (long)got;
}

/* One statistics line at *p: spaces, a name (1 to 32 bytes, no space or
 * ':'), ": ", a decimal u64, '\n'. Moves *p past it. Returns 0 or -EINVAL. */
static int parse_stat(const char **p, const char **name, size_t *name_len, uint64_t *value)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    const char *n = s;
    while (*s && *s != ':' && *s != ' ' && *s != '\n')
        s++;
    if (s == n || (size_t)(s - n) > FSC_NIC_ETHTOOL_NAME_LEN || s[0] != ':' || s[1] != ' ')
        return -EINVAL;
    *name = n;
    *name_len = (size_t)(s - n);
    s += 2;
    const char *v = s;
    while (*s >= '0' && *s <= '9')
        s++;
    if (*s != '\n' || fsc_nic_parse_u64(v, (size_t)(s - v), value) != 0)
        return -EINVAL;
    *p = s + 1;
    return 0;
}

/* The time line and the header; *p moves to the first statistics line. */
static int parse_head(const char **p, int64_t *t_ns)
{
    const char *s = *p;
    size_t k = strlen(TIME_KEY);
    if (strncmp(s, TIME_KEY, k) != 0)
        return -EINVAL;
    s += k;
    const char *v = s;
    while (*s >= '0' && *s <= '9')
        s++;
    uint64_t t;
    if (*s != '\n' || fsc_nic_parse_u64(v, (size_t)(s - v), &t) != 0 || t == 0 || t > INT64_MAX)
        return -EINVAL;
    s++;
    k = strlen(HEADER);
    if (strncmp(s, HEADER, k) != 0 || s[k] != '\n')
        return -EINVAL;
    *t_ns = (int64_t)t;
    *p = s + k + 1;
    return 0;
}

static bool same_name(const struct fsc_nic_ethtool *et, size_t i, const char *name, size_t len)
{
    return i < et->n && strlen(et->names[i].s) == len && memcmp(et->names[i].s, name, len) == 0;
}

/* New names (and a bigger value buffer when needed) for n stats, committed
 * only when both could be had. */
static int renew(struct fsc_nic_ethtool *et, size_t n)
{
    struct name_slot *names = calloc(n, sizeof(*names));
    if (!names)
        return -ENOMEM;
    if (et->stats.base == NULL || et->stats.cap < n) {
        struct gbuf sb = {0};
        if (fsc_nic_ethtool__gbuf_alloc(&sb, offsetof(struct ethtool_stats, data), sizeof(uint64_t),
                                        n) != 0) {
            free(names);
            return -ENOMEM;
        }
        fsc_nic_ethtool__gbuf_free(&et->stats);
        et->stats = sb;
    }
    free(et->names);
    et->names = names;
    et->n = n;
    et->st.generation++;
    return 0;
}

/* Whether text[0..len) is one whole version: a line "checksum: " + 16 hex
 * digits + '\n' whose value is the FNV-1a 64 of every byte before it.
 * *body_len gets the length of those bytes; anything after the line (the
 * stale tail of a longer version) is not read. */
static bool whole(const char *text, size_t len, size_t *body_len)
{
    size_t k = strlen(SUM_KEY);
    for (size_t i = 0; i + k + 17 <= len; i++) {
        if ((i > 0 && text[i - 1] != '\n') || memcmp(text + i, SUM_KEY, k) != 0)
            continue;
        char want[16];
        fsc_hex16(fsc_fnv1a64(text, i), want);
        if (memcmp(text + i + k, want, 16) != 0 || text[i + k + 16] != '\n')
            return false;
        *body_len = i;
        return true;
    }
    return false;
}

/* One read (the backend's et->read): 0, CHANGED or a negative errno, with
 * et->t_ns set on success. */
static int file_read(struct fsc_nic_ethtool *et)
{
    size_t body = 0;
    bool ok = false;
    for (int i = 0; i < READ_TRIES && !ok; i++) {
        long len = read_whole(et);
        if (len == -EAGAIN)
            continue;
        if (len < 0)
            return (int)len;
        ok = whole(et->text, (size_t)len, &body);
    }
    if (!ok)
        return -EINVAL; /* no checksum, or one no read agreed with */
    et->text[body] = '\0';
    const char *p = et->text, *first;
    int64_t t_ns;
    if (parse_head(&p, &t_ns) != 0)
        return -EINVAL;
    first = p;
    /* Pass 1: every line well formed, how many, and whether the names are
     * the cached ones in the cached order. */
    size_t n = 0;
    bool same = true;
    while (*p) {
        const char *name;
        size_t nl;
        uint64_t v;
        if (n == et->max_stats)
            return -E2BIG;
        if (parse_stat(&p, &name, &nl, &v) != 0)
            return -EINVAL;
        same = same && same_name(et, n, name, nl);
        n++;
    }
    if (n == 0)
        return -EOPNOTSUPP;
    same = same && n == et->n;
    if (!same) {
        int rc = renew(et, n);
        if (rc != 0)
            return rc;
    }
    /* Pass 2: cannot fail (pass 1 read the same text). */
    uint64_t *values = (uint64_t *)(void *)(et->stats.base + offsetof(struct ethtool_stats, data));
    p = first;
    for (size_t i = 0; i < n; i++) {
        const char *name;
        size_t nl;
        parse_stat(&p, &name, &nl, &values[i]);
        if (!same) {
            memcpy(et->names[i].s, name, nl);
            et->names[i].s[nl] = '\0';
        }
    }
    et->t_ns = t_ns;
    return same ? 0 : FSC_NIC_ETHTOOL_CHANGED;
}

struct fsc_nic_ethtool *fsc_nic_ethtool_create_file(const char *path, size_t max_stats, int *errnum,
                                                    char *err, size_t errlen)
{
    int rc = -ENOMEM;
    struct fsc_nic_ethtool *et = calloc(1, sizeof(*et));
    if (!et || !(et->path = strdup(path))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    et->sock = -1;
    if (max_stats == 0)
        max_stats = FSC_NIC_ETHTOOL_STATS_DEF;
    et->max_stats = max_stats < FSC_NIC_ETHTOOL_STATS_MAX ? max_stats : FSC_NIC_ETHTOOL_STATS_MAX;
    et->read = file_read;
    rc = file_read(et);
    if (rc >= 0) {
        et->st.generation = 0; /* the first names are no reload */
        if (errnum)
            *errnum = 0;
        return et;
    }
    if (rc == -ENODEV)
        rc = -ENOENT;
    if (rc == -EINVAL)
        snprintf(err, errlen, "%s is not a statistics file (time_ns, then `ethtool -S` lines)",
                 path);
    else if (rc == -EOPNOTSUPP)
        snprintf(err, errlen, "%s has no statistics", path);
    else if (rc == -E2BIG)
        snprintf(err, errlen, "%s has more than %zu statistics", path, et->max_stats);
    else
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(-rc));
fail:
    if (errnum)
        *errnum = rc;
    fsc_nic_ethtool_destroy(et);
    return NULL;
}
