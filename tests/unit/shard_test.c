/* MD5 (RFC 1321's test suite, run against gnutls' MD5 that fsc_shard_hash
 * uses), the hashmod rule against values computed
 * independently (python3: int.from_bytes(hashlib.md5(name).digest()[8:],
 * "big") % n, which is also what Prometheus' hashmod relabelling does), the
 * I/N syntax, which sources are sharded by what, and the shard: config key. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include <gnutls/crypto.h>

#include "model/shard.h"
#include "test.h"
#include "config_all.h"

static void hex(const unsigned char *d, char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void md5_rfc1321_suite(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890123456789"
         "0",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char d[16];
        char got[33];
        CHECK_INT(gnutls_hash_fast(GNUTLS_DIG_MD5, cases[i].in, strlen(cases[i].in), d), 0);
        hex(d, got);
        CHECK_STR(got, cases[i].want);
        /* The same message fed one byte at a time (block boundaries inside
         * updates, padding that spills into a second block). */
        gnutls_hash_hd_t md;
        CHECK_INT(gnutls_hash_init(&md, GNUTLS_DIG_MD5), 0);
        for (size_t k = 0; cases[i].in[k]; k++)
            CHECK_INT(gnutls_hash(md, &cases[i].in[k], 1), 0);
        gnutls_hash_deinit(md, d);
        hex(d, got);
        CHECK_STR(got, cases[i].want);
    }
    /* 55, 56 and 64 bytes: the padding cases around the length field. */
    static const struct {
        size_t len;
        const char *want;
    } lens[] = {
        {55, "ef1772b6dff9a122358552954ad0df65"},
        {56, "3b0c8ac703f828b04c6c197006d17218"},
        {64, "014842d480b571495a4a0363793f7367"},
    };
    char a[128];
    memset(a, 'a', sizeof(a));
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        unsigned char d[16];
        char got[33];
        CHECK_INT(gnutls_hash_fast(GNUTLS_DIG_MD5, a, lens[i].len, d), 0);
        hex(d, got);
        CHECK_STR(got, lens[i].want);
    }
}

static void hashmod_known_answers(void)
{
    static const struct {
        const char *name;
        uint64_t hash;
        uint32_t mod3, mod7;
    } cases[] = {
        {"leaf1", 0x43a39dbd6d213408ull, 1, 2},  {"spine1", 0x2bd2eaa927841ccfull, 0, 6},
        {"sw-042", 0x8856c746d758652dull, 1, 6}, {"a1", 0x99b7d762030857a2ull, 0, 4},
        {"leaf9", 0x1fa067fa851212bdull, 2, 2},  {"", 0xe9800998ecf8427eull, 1, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(fsc_shard_hash(cases[i].name) == cases[i].hash);
        CHECK_INT(fsc_shard_of(cases[i].name, 3), cases[i].mod3);
        CHECK_INT(fsc_shard_of(cases[i].name, 7), cases[i].mod7);
        CHECK_INT(fsc_shard_of(cases[i].name, 1), 0);
        CHECK_INT(fsc_shard_of(cases[i].name, 0), 0);
        for (uint32_t k = 0; k < 3; k++)
            CHECK(fsc_shard_owns(k, 3, cases[i].name) == (k == cases[i].mod3));
        CHECK(fsc_shard_owns(0, 1, cases[i].name));
    }
    /* dev00 .. dev29 modulo 3, the integration test's fabric. */
    static const char want[] = "120100010012000202221221201001";
    for (int i = 0; i < 30; i++) {
        char name[16];
        snprintf(name, sizeof(name), "dev%02d", i);
        CHECK_INT(fsc_shard_of(name, 3), want[i] - '0');
    }
}

static void parse_index_count(void)
{
    uint32_t i = 99, n = 99;
    CHECK_INT(fsc_shard_parse("0/1", &i, &n), 0);
    CHECK_INT(i, 0);
    CHECK_INT(n, 1);
    CHECK_INT(fsc_shard_parse("2/3", &i, &n), 0);
    CHECK_INT(i, 2);
    CHECK_INT(n, 3);
    CHECK_INT(fsc_shard_parse("4095/4096", &i, &n), 0);
    static const char *const bad[] = {"",      "3/3",  "1/0",   "0/4097",      "-1/3", "1/-3",
                                      "1/3x",  " 1/3", "1 /3",  "1/",          "/3",   "1",
                                      "1/3/4", "+1/3", "0x1/3", "1234567890/3"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        i = n = 77;
        CHECK_INT(fsc_shard_parse(bad[k], &i, &n), -EINVAL);
        CHECK(i == 77 && n == 77);
    }
    CHECK_INT(fsc_shard_parse(NULL, &i, &n), -EINVAL);
}

static const char yaml[] = "sources:\n"
                           "  - {name: g1, type: gnmi, address: \"127.0.0.1:1\", device: leaf9}\n"
                           "  - {name: s1, type: synthetic}\n"
                           "  - {name: s2, type: synthetic, device: spine1}\n"
                           "  - {name: n1, type: nic, sysfs_root: /tmp}\n"
                           "  - {name: o1, type: otlp}\n"
                           "shard:\n"
                           "  index: 2\n"
                           "  count: 3\n";

static void config_key_and_source_keys(void)
{
    char err[512];
    struct fsc_config *cfg =
        fsc_config_parse(yaml, strlen(yaml), "t.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(fsc_shard_config_of(cfg)->index, 2);
    CHECK_INT(fsc_shard_config_of(cfg)->count, 3);
    CHECK(!fsc_shard_config_of(cfg)->from_cli);
    CHECK_STR(fsc_shard_key(&cfg->sources[0]), "leaf9"); /* gnmi: its device */
    CHECK_STR(fsc_shard_key(&cfg->sources[1]), "s1");    /* device defaults to the name */
    CHECK_STR(fsc_shard_key(&cfg->sources[2]), "spine1");
    CHECK(fsc_shard_key(&cfg->sources[3]) == NULL); /* nic: never sharded */
    CHECK(fsc_shard_key(&cfg->sources[4]) == NULL); /* otlp: per point */
    /* check-config prints the section and it loads back. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(fsc_config_print(cfg, f), 0);
        fclose(f);
        CHECK(strstr(text, "\nshard:\n  index: 2\n  count: 3\n") != NULL);
        struct fsc_config *back =
            fsc_config_parse(text, len, "back.yaml", fsc_app_schema(), err, sizeof(err));
        CHECK(back && fsc_shard_config_of(back)->index == 2 &&
              fsc_shard_config_of(back)->count == 3);
        fsc_config_destroy(back);
        free(text);
    }
    fsc_config_destroy(cfg);

    /* Defaults: 0 of 1. */
    cfg = fsc_config_parse("sources: []\n", 12, "d.yaml", fsc_app_schema(), err, sizeof(err));
    CHECK(cfg && fsc_shard_config_of(cfg)->index == 0 && fsc_shard_config_of(cfg)->count == 1);
    fsc_config_destroy(cfg);

    /* Errors carry file:line:col. */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"shard:\n  index: 3\n  count: 3\n",
         "b.yaml:2:3: shard.index: 3 is not below count (3): shards are 0 .. 2"},
        {"shard:\n  count: 0\n", "b.yaml:2:10: shard.count: 0 is out of range (1..4096)"},
        {"shard:\n  count: 2\n  idx: 1\n", "b.yaml:3:3: shard"},
        {"shard: 3\n", "b.yaml:1:8: "},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        cfg = fsc_config_parse(bad[i].text, strlen(bad[i].text), "b.yaml", fsc_app_schema(), err,
                               sizeof(err));
        CHECK(cfg == NULL);
        fsc_config_destroy(cfg);
        if (strncmp(err, bad[i].want, strlen(bad[i].want)) != 0) {
            fprintf(stderr, "case %zu: got \"%s\"\n", i, err);
            CHECK(0);
        }
    }
}

TEST_MAIN(TEST(md5_rfc1321_suite), TEST(hashmod_known_answers), TEST(parse_index_count),
          TEST(config_key_and_source_keys))
