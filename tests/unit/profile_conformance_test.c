/* Profile conformance: every vendor name a profile maps is one its vendor
 * publishes, and every name a deployment needs is mapped.
 *
 * The published sets live in tests/vendor/<profile>/<set>.names, read in the
 * vendors' own sources (Juniper/telemetry protos, CumulusNetworks/docs, the
 * kernel's mlx5 sources); tests/vendor/README.md says the format. Per
 * profile:
 * - <profile>_names_published: each table entry's vendor name is in the
 *   union of the published sets; a "{p}" entry matches the same template
 *   there or a name with 1-3 digits in its place. Each set file names its
 *   source on a "# source:" line.
 * - <profile>_required_mapped: each name of required.names is published and
 *   maps to a table entry (fsc_profile_map: not a passthrough); a "{p}"
 *   name is tried with priority 3 and must capture it.
 * A summary line per profile says how many published names map. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "config_all.h"
#include "test.h"
#include "model/profile.h"

#define NAME_MAX_LEN 512
#define NAMES_MAX    20000 /* every set of one profile together */

struct name_set {
    char *names[NAMES_MAX];
    size_t n;
    size_t files;         /* published set files read */
    size_t files_sourced; /* ... with a "# source:" line */
};

static void set_free(struct name_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    s->n = 0;
}

/* Reads one .names file into s: the first word of every line that is not a
 * comment. Returns whether it named a source; counts an unreadable file or
 * an overflow as a failed check. */
static bool read_names(const char *path, struct name_set *s)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return false;
    }
    char line[NAME_MAX_LEN];
    bool sourced = false;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (line[0] == '#') {
            sourced = sourced || strncmp(line, "# source:", 9) == 0;
            continue;
        }
        size_t len = strcspn(line, " \t\r\n");
        if (len == 0)
            continue;
        line[len] = '\0';
        if (s->n == NAMES_MAX) {
            CHECK(s->n < NAMES_MAX);
            break;
        }
        s->names[s->n] = strdup(line);
        CHECK(s->names[s->n] != NULL);
        if (s->names[s->n] != NULL)
            s->n++;
    }
    fclose(f);
    return sourced;
}

/* Loads every <profile>/<set>.names file but required.names (published) or
 * only required.names (required). */
static void load(const char *profile, bool required, struct name_set *s)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/%s", FSC_VENDOR_NAMES, profile);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (d == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 6, ".names") != 0)
            continue;
        if ((strcmp(de->d_name, "required.names") == 0) != required)
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        bool sourced = read_names(path, s);
        if (!required && !sourced)
            fprintf(stderr, "%s: no \"# source:\" line\n", path);
        s->files++;
        s->files_sourced += sourced;
    }
    closedir(d);
}

/* Does `name` fit `tmpl` (which has one "{p}") with 1-3 digits there? */
static bool fits_template(const char *tmpl, const char *name)
{
    const char *ph = strstr(tmpl, "{p}");
    size_t head = (size_t)(ph - tmpl), tail = strlen(ph + 3), n = strlen(name);
    if (n < head + tail + 1 || strncmp(name, tmpl, head) != 0 ||
        strcmp(name + n - tail, ph + 3) != 0)
        return false;
    size_t digits = n - head - tail;
    for (size_t i = 0; i < digits; i++)
        if (name[head + i] < '0' || name[head + i] > '9')
            return false;
    return digits <= 3;
}

static bool published(const struct name_set *s, const char *vendor)
{
    bool tmpl = strstr(vendor, "{p}") != NULL;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], vendor) == 0 || (tmpl && fits_template(vendor, s->names[i])))
            return true;
    return false;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct fsc_profile *profile_named(const char *name)
{
    const struct fsc_profile *p = fsc_profile_find(fsc_app_profiles(), name);
    CHECK(p != NULL);
    return p;
}

static void names_published(const char *name)
{
    const struct fsc_profile *prof = profile_named(name);
    static struct name_set pub;
    load(name, false, &pub);
    CHECK(pub.files > 0);
    CHECK_INT(pub.files_sourced, pub.files);
    CHECK(pub.n > 0);
    size_t outside = 0;
    for (size_t i = 0; prof && i < prof->n_entries; i++) {
        if (!published(&pub, prof->entries[i].vendor)) {
            fprintf(stderr, "%s: %s is in no published set\n", name, prof->entries[i].vendor);
            outside++;
        }
    }
    CHECK_INT(outside, 0);
    /* Coverage over the distinct names (releases repeat them), for the
     * reader of the log. */
    qsort(pub.names, pub.n, sizeof(pub.names[0]), cmp_names);
    size_t mapped = 0, distinct = 0;
    for (size_t i = 0; prof && i < pub.n; i++) {
        if (i > 0 && strcmp(pub.names[i], pub.names[i - 1]) == 0)
            continue;
        distinct++;
        struct fsc_profile_match m;
        char probe[NAME_MAX_LEN + 8];
        const char *ph = strstr(pub.names[i], "{p}");
        if (ph != NULL)
            snprintf(probe, sizeof(probe), "%.*s3%s", (int)(ph - pub.names[i]), pub.names[i],
                     ph + 3);
        else
            snprintf(probe, sizeof(probe), "%s", pub.names[i]);
        mapped += fsc_profile_map(prof, probe, &m) == 0 && m.entry != NULL;
    }
    printf("%s: %zu distinct published names in %zu files, %zu mapped to a canonical family, %zu "
           "profile entries, %zu outside the published sets\n",
           name, distinct, pub.files, mapped, prof ? prof->n_entries : 0, outside);
    set_free(&pub);
}

static void required_mapped(const char *name)
{
    const struct fsc_profile *prof = profile_named(name);
    static struct name_set pub, req;
    load(name, false, &pub);
    load(name, true, &req);
    CHECK_INT(req.files, 1);
    CHECK(req.n > 0);
    for (size_t i = 0; prof && i < req.n; i++) {
        const char *want = req.names[i];
        bool is_pub = published(&pub, want);
        char probe[NAME_MAX_LEN + 8];
        const char *ph = strstr(want, "{p}");
        if (ph != NULL)
            snprintf(probe, sizeof(probe), "%.*s3%s", (int)(ph - want), want, ph + 3);
        else
            snprintf(probe, sizeof(probe), "%s", want);
        struct fsc_profile_match m;
        int rc = fsc_profile_map(prof, probe, &m);
        bool mapped = rc == 0 && m.entry != NULL && (ph == NULL || strcmp(m.label_value, "3") == 0);
        if (!is_pub || !mapped)
            fprintf(stderr, "%s: required %s: %s\n", name, want,
                    !is_pub ? "in no published set" : "not mapped (passes through)");
        CHECK(is_pub);
        CHECK(mapped);
    }
    set_free(&pub);
    set_free(&req);
}

static void junos_names_published(void)
{
    names_published("junos");
}
static void junos_required_mapped(void)
{
    required_mapped("junos");
}
static void cumulus_names_published(void)
{
    names_published("cumulus");
}
static void cumulus_required_mapped(void)
{
    required_mapped("cumulus");
}
static void mlx5_names_published(void)
{
    names_published("mlx5");
}
static void mlx5_required_mapped(void)
{
    required_mapped("mlx5");
}

/* The matcher itself, on known answers. */
static void template_matching(void)
{
    CHECK(fits_template("rx_prio{p}_pause", "rx_prio3_pause"));
    CHECK(fits_template("rx_prio{p}_pause", "rx_prio123_pause"));
    CHECK(!fits_template("rx_prio{p}_pause", "rx_prio1234_pause"));
    CHECK(!fits_template("rx_prio{p}_pause", "rx_prio_pause"));
    CHECK(!fits_template("rx_prio{p}_pause", "rx_prioX_pause"));
    CHECK(!fits_template("rx_prio{p}_pause", "rx_prio3_pause_duration"));
    static struct name_set s;
    s.names[0] = strdup("rx_prio{p}_bytes");
    s.names[1] = strdup("rx_err_lane_0_phy");
    s.n = 2;
    CHECK(published(&s, "rx_prio{p}_bytes"));
    CHECK(published(&s, "rx_err_lane_{p}_phy"));
    CHECK(!published(&s, "rx_prio{p}_packets"));
    CHECK(!published(&s, "rx_err_lane_0"));
    set_free(&s);
}

TEST_MAIN(TEST(template_matching), TEST(junos_names_published), TEST(junos_required_mapped),
          TEST(cumulus_names_published), TEST(cumulus_required_mapped), TEST(mlx5_names_published),
          TEST(mlx5_required_mapped))
