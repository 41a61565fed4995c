/* Names the exposition shows: the family table (model/metric_families.h)
 * against the profiles, and passthrough names (profile.h) against the
 * linter Prometheus ships (`promtool check metrics`: no type word, base
 * units, no abbreviated unit, snake case), their length bound and their
 * list-key labels. Expected names are written from the rules in
 * docs/METRICS.md, "Passthrough names"; the tags from FNV-1a of the vendor
 * name, computed here. tests/integration/promtool_check_test.sh runs
 * promtool itself over every published vendor name. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "config_all.h"
#include "test.h"
#include "model/metric_families.h"
#include "model/profile.h"
#include "model/topo_info.h"

extern const struct fsc_profile fsc_profile_junos, fsc_profile_cumulus, fsc_profile_mlx5;

static unsigned fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct fsc_profile_match map_ok(const struct fsc_profile *p, const char *vendor)
{
    struct fsc_profile_match m;
    int rc = fsc_profile_map(p, vendor, &m);
    CHECK_INT(rc, 0);
    if (rc != 0)
        memset(&m, 0, sizeof(m));
    return m;
}

/* ---- the table ------------------------------------------------------------ */

/* The table passes its own checks; every canonical name of every profile
 * is a listed family of the same type, a detector counter has its rate
 * family and a peak gauge its trailing maximum; every passthrough prefix
 * has its HELP. */
static void families_table_checked(void)
{
    char err[512] = "";
    CHECK_INT(fsc_metric_families_check(err, sizeof(err)), 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    const struct fsc_profile *const *profiles = fsc_app_profiles();
    for (size_t i = 0; profiles[i]; i++) {
        const struct fsc_profile *p = profiles[i];
        int prefix_known = 0;
        for (size_t k = 0; k < fsc_mf_passthrough_count; k++)
            prefix_known |= strcmp(fsc_mf_passthrough[k].prefix, p->passthrough_prefix) == 0;
        CHECK(prefix_known);
        for (size_t k = 0; k < p->n_entries; k++) {
            const struct fsc_profile_entry *e = &p->entries[k];
            const struct fsc_metric_family *f = fsc_metric_family_of(e->canonical);
            CHECK(f != NULL);
            if (!f) {
                fprintf(stderr, "%s (%s): not in the family table\n", e->canonical, p->name);
                continue;
            }
            CHECK_INT(f->type, e->kind == FSC_KIND_GAUGE ? FSC_MF_GAUGE : FSC_MF_COUNTER);
            int detector = e->signal != FSC_SIG_NONE && e->signal != FSC_SIG_PORT_BYTES;
            int peak = e->signal == FSC_SIG_QUEUE_PEAK || e->signal == FSC_SIG_LATENCY_PEAK;
            CHECK(!detector || peak || f->rate != NULL);
            CHECK(!peak || f->max != NULL);
        }
    }
    /* The lookups: by registry name (a renamed family by its old name), by
     * exposed name; a passthrough's HELP by prefix and type. */
    const struct fsc_metric_family *f = fsc_metric_family_of("fabric_node_rdma_bits_per_second");
    CHECK(f != NULL && strcmp(f->name, "fabric_node_rdma_bytes_per_second") == 0);
    CHECK(f != NULL && f->scale == 0.125);
    CHECK(fsc_metric_family_named("fabric_node_rdma_bytes_per_second") == f);
    CHECK(fsc_metric_family_of("fabric_node_rdma_bytes_per_second") == NULL);
    CHECK(fsc_metric_family_of("fabric_port_info") == NULL); /* not a registry series */
    CHECK(strncmp(fsc_metric_unlisted_help("fabric_junos_x", FSC_MF_GAUGE), "Junos value", 11) ==
          0);
    CHECK(strncmp(fsc_metric_unlisted_help("fabric_q", FSC_MF_COUNTER), "A series the", 12) == 0);
    CHECK_INT(fsc_metric_info_label("peer"), FSC_INFO_PORT);
    CHECK_INT(fsc_metric_info_label("pci"), FSC_INFO_NIC);
    CHECK_INT(fsc_metric_info_label("node"), FSC_INFO_NODE);
    CHECK_INT(fsc_metric_info_label("queue"), FSC_INFO_NONE);

    /* The split (model/topo_info.c) moves exactly the labels the table
     * calls topology, the node without a port too, nothing without a
     * device. */
    static const char *const names[] = {
        "card", "device",    "direction", "kind",     "lane",  "link", "node", "pci",
        "peer", "peer_node", "port",      "priority", "queue", "rail", "role", "signal"};
    struct fsc_label lab[16];
    for (size_t i = 0; i < 16; i++)
        lab[i] = (struct fsc_label){names[i], "v"};
    struct fsc_topo_split sp;
    fsc_topo_split(lab, 16, &sp);
    size_t moved = 0;
    for (size_t i = 0; i < 16; i++) {
        int slot = fsc_topo_info_slot(names[i]);
        int topo = fsc_metric_info_label(names[i]) != FSC_INFO_NONE;
        CHECK_INT(slot >= 0, topo);
        if (slot >= 0) {
            CHECK(sp.v[slot] == lab[i].value);
            moved++;
        }
    }
    CHECK_INT(moved, 8);
    CHECK_INT(sp.n_id, 16 - moved);
    CHECK(sp.sig != 0);
    struct fsc_label no_port[] = {{"device", "h"}, {"node", "1"}, {"rail", "2"}};
    fsc_topo_split(no_port, 3, &sp);
    CHECK(sp.v[FSC_TI_NODE] != NULL && sp.v[FSC_TI_RAIL] == NULL);
    CHECK_INT(sp.n_id, 2); /* device and rail: a rail needs a port to hang on */
    struct fsc_label no_device[] = {{"port", "p"}, {"role", "uplink"}};
    fsc_topo_split(no_device, 2, &sp);
    CHECK_INT(sp.n_id, 2);
    CHECK_INT(sp.sig, 0);
}

/* ---- passthrough names ------------------------------------------------------ */

/* Known answers for each rule (profile.h, fsc_profile_map). */
static void passthrough_lint_rules(void)
{
    const struct fsc_profile *j = &fsc_profile_junos, *c = &fsc_profile_cumulus;
    /* The vendor's own name once; a name of that word alone keeps it. */
    struct fsc_profile_match m = map_ok(j, "/junos/system/linecard/npu/utilization");
    CHECK_STR(m.canonical, "fabric_junos_system_linecard_npu_utilization");
    m = map_ok(j, "/junos");
    CHECK_STR(m.canonical, "fabric_junos_junos");
    m = map_ok(c, "nvswitch_x"); /* "nvswitch" is not the profile's word */
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_x");
    /* No type word (promtool: "metric name should not include type"). */
    m = map_ok(c, "nvswitch_histogram_interface_egress_buffer");
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_interface_egress_buffer");
    m = map_ok(c, "nvswitch_histogram_interface_counter");
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_interface");
    m = map_ok(j, "/a/summary-gauge/value");
    CHECK_STR(m.canonical, "fabric_junos_a_value");
    /* A last word in a non-base or abbreviated unit: the base unit, the
     * value scaled by the exporters (fsc_unit_divisor). */
    m = map_ok(c, "nvswitch_interface_carrier_last_change_time_ms");
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_interface_carrier_last_change_time_seconds");
    CHECK_INT(m.traits.unit, FSC_UNIT_MILLISECONDS);
    CHECK(fsc_unit_divisor(m.traits.unit) == 1000.0);
    m = map_ok(j, "/components/component/transceiver/state/fec-corrected-bits");
    CHECK_STR(m.canonical,
              "fabric_junos_components_component_transceiver_state_fec_corrected_bytes");
    CHECK_INT(m.traits.unit, FSC_UNIT_BITS);
    CHECK(fsc_unit_divisor(m.traits.unit) == 8.0);
    m = map_ok(j, "/a/delay-us");
    CHECK_STR(m.canonical, "fabric_junos_a_delay_seconds");
    CHECK_INT(m.traits.unit, FSC_UNIT_MICROSECONDS);
    m = map_ok(j, "/a/ms/total"); /* a unit word that is not the last stays */
    CHECK_STR(m.canonical, "fabric_junos_a_ms_total");
    CHECK_INT(m.traits.unit, FSC_UNIT_NONE);
    /* Lower case. */
    m = map_ok(&fsc_profile_mlx5, "TX_Pause_Storm");
    CHECK_STR(m.canonical, "fabric_mlx5_tx_pause_storm");
    /* Too long: the tag of the vendor name and the whole trailing words that
     * fit in 93 bytes (13 of prefix, 9 of tag, '_', 70 of words). */
    static const char longer[] = "/junos/system/linecard/qmon-sw/queue_monitor_element_info/"
                                 "queue_monitor_stats_egress/queue_monitor_stats_info/"
                                 "peak_buffer_occupancy_percent";
    m = map_ok(j, longer);
    char want[FSC_PROFILE_NAME_MAX];
    snprintf(want, sizeof(want), "fabric_junos_x%08x_%s", fnv1a(longer + 1),
             "stats_egress_queue_monitor_stats_info_peak_buffer_occupancy_percent");
    CHECK_STR(m.canonical, want);
    CHECK(strlen(m.canonical) + strlen("_bucket") <= 100);
}

/* The labels of list keys and attributes (profile.h, fsc_key_label). */
static void key_labels_canonical(void)
{
    const struct fsc_profile *j = &fsc_profile_junos, *c = &fsc_profile_cumulus;
    CHECK_STR(fsc_profile_key_label(j, "egress", "queue-number"), "queue");
    CHECK_STR(fsc_profile_key_label(j, "queue_monitor_stats_info", "queue_number"), "queue");
    CHECK_STR(fsc_profile_key_label(j, "queue", "name"), "queue");
    CHECK(fsc_profile_key_label(j, "component", "name") == NULL); /* only a queue's name */
    CHECK_STR(fsc_profile_key_label(j, "channel", "index"), "lane");
    CHECK_STR(fsc_profile_key_label(c, NULL, "tc"), "queue");
    CHECK_STR(fsc_profile_key_label(c, NULL, "sp"), "priority");
    CHECK_STR(fsc_profile_key_label(c, NULL, "pg"), "priority_group");
    CHECK(fsc_profile_key_label(c, NULL, "marking") == NULL);
    CHECK(fsc_profile_key_label(&fsc_profile_mlx5, NULL, "tc") == NULL);
}

/* ---- every published vendor name ---------------------------------------------- */

#define LINE_MAX_LEN 512

/* The words promtool 2.42's linter refuses in a metric name. */
static bool lint_word(const char *name)
{
    static const char *const bad[] = {
        "counter",     "gauge",   "histogram", "summary", "bits", "milliseconds", "microseconds",
        "nanoseconds", "minutes", "hours",     "days",    "ms",   "us",           "ns",
        "sec",         "kb",      "mb",        "gb",      NULL};
    char copy[FSC_PROFILE_NAME_MAX];
    snprintf(copy, sizeof(copy), "%s", name);
    for (char *save = NULL, *w = strtok_r(copy, "_", &save); w; w = strtok_r(NULL, "_", &save))
        for (size_t i = 0; bad[i]; i++)
            if (strcmp(w, bad[i]) == 0)
                return true;
    return false;
}

/* Each name of the profile's published sets is shown (as its family, or
 * passed through) under a name in lower snake case without a word promtool
 * refuses, a passthrough one within the bound. Returns the names checked. */
static size_t check_profile_names(const char *profile, const struct fsc_profile *p)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/%s", FSC_VENDOR_NAMES, profile);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    size_t n = 0;
    for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 6, ".names") != 0)
            continue;
        char path[1400];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        CHECK(f != NULL);
        char line[LINE_MAX_LEN];
        while (f && fgets(line, sizeof(line), f)) {
            size_t k = strcspn(line, " \t\r\n");
            if (line[0] == '#' || k == 0)
                continue;
            line[k] = '\0';
            struct fsc_profile_match m;
            CHECK_INT(fsc_profile_map(p, line, &m), 0);
            n++;
            /* A mapped name is shown under its family's name. */
            const struct fsc_metric_family *mf = m.entry ? fsc_metric_family_of(m.canonical) : NULL;
            const char *shown = mf ? mf->name : m.canonical;
            bool lower = true;
            for (const char *s = shown; *s; s++)
                lower = lower && !(*s >= 'A' && *s <= 'Z');
            bool ok = lower && !lint_word(shown) &&
                      (m.entry || strlen(shown) < FSC_PROFILE_PASSTHROUGH_MAX);
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "%s: %s -> %s\n", profile, line, shown);
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

static void vendor_names_bounded(void)
{
    size_t n = check_profile_names("junos", &fsc_profile_junos);
    n += check_profile_names("cumulus", &fsc_profile_cumulus);
    n += check_profile_names("mlx5", &fsc_profile_mlx5);
    CHECK(n > 700); /* the sets hold 772 distinct names */
    printf("vendor names checked: %zu\n", n);
}

TEST_MAIN(TEST(families_table_checked), TEST(passthrough_lint_rules), TEST(key_labels_canonical),
          TEST(vendor_names_bounded))
