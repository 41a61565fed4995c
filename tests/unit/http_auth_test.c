/* Listener credential check (net/http_auth.h) and the auth / server tls
 * config keys: known-answer verdicts, the verified-credentials cache (hits,
 * bound, failures never cached), the tokens file, refused hashes, and that no
 * log line or printout carries a password, token or hash. */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_fixture.h"
#include "net/http_auth.h"
#include "base/log.h"
#include "test.h"
#include "config_all.h"

#define MARKER "Sekr3tMarker-9f8e7d"

/* A bcrypt hash of pw at cost 4 (the fastest: tests hash many times). */
static const char *bcrypt_of(const char *pw, char *out, size_t cap)
{
    char salt[64];
    struct crypt_data cd;
    memset(&cd, 0, sizeof(cd));
    if (!crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)))
        return NULL;
    const char *h = crypt_r(pw, salt, &cd);
    if (!h || h[0] != '$')
        return NULL;
    snprintf(out, cap, "%s", h);
    return out;
}

/* "Basic base64(user:pass)". */
static const char *basic(const char *user, const char *pass, char *out, size_t cap)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char plain[256];
    int n = snprintf(plain, sizeof(plain), "%s:%s", user, pass);
    size_t o = (size_t)snprintf(out, cap, "Basic ");
    for (int i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)plain[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)plain[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)plain[i + 2];
        if (o + 5 >= cap)
            break;
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static FILE *log_capture(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    fsc_log_set_stream(f);
    return f;
}

static void basic_ok_and_cache(void)
{
    char h1[128], h2[128], hdr[256], err[256];
    CHECK(bcrypt_of("correct horse", h1, sizeof(h1)) != NULL);
    CHECK(bcrypt_of("battery staple", h2, sizeof(h2)) != NULL);
    struct fsc_basic_user users[] = {{"prometheus", h1}, {"grafana", h2}};
    struct fsc_listener_auth cfg = {.present = true, .basic_users = users, .n_basic_users = 2};
    struct fsc_http_auth *a = fsc_http_auth_create(&cfg, "t", err, sizeof(err));
    CHECK(a != NULL);
    if (!a)
        return;
    struct fsc_http_auth_stats st;
    CHECK_INT(fsc_http_auth_check(a, basic("prometheus", "correct horse", hdr, sizeof(hdr))),
              FSC_AUTH_OK);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, 1);
    CHECK_INT(st.cache_hits, 0);
    /* the second scrape with the same credentials costs no hash */
    CHECK_INT(fsc_http_auth_check(a, basic("prometheus", "correct horse", hdr, sizeof(hdr))),
              FSC_AUTH_OK);
    /* scheme is case-insensitive, surrounding blanks ignored */
    basic("grafana", "battery staple", hdr, sizeof(hdr));
    char lower[300];
    snprintf(lower, sizeof(lower), "  basic %s ", hdr + 6);
    CHECK_INT(fsc_http_auth_check(a, lower), FSC_AUTH_OK);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, 2);
    CHECK_INT(st.cache_hits, 1);
    CHECK_INT(st.ok, 3);
    /* another user's password does not pass, even though it is cached */
    CHECK_INT(fsc_http_auth_check(a, basic("grafana", "correct horse", hdr, sizeof(hdr))),
              FSC_AUTH_BAD_PASSWORD);
    const char *ch[2];
    size_t n = 9;
    fsc_http_auth_challenges(a, ch, &n);
    CHECK_INT(n, 1);
    CHECK(n == 1 && strncmp(ch[0], "Basic realm=", 12) == 0);
    fsc_http_auth_destroy(a);
    fsc_http_auth_destroy(NULL);
}

static void failures_not_cached(void)
{
    char h1[128], hdr[256], err[256];
    CHECK(bcrypt_of("right", h1, sizeof(h1)) != NULL);
    struct fsc_basic_user users[] = {{"u", h1}};
    struct fsc_listener_auth cfg = {.present = true, .basic_users = users, .n_basic_users = 1};
    struct fsc_http_auth *a = fsc_http_auth_create(&cfg, "t", err, sizeof(err));
    CHECK(a != NULL);
    if (!a)
        return;
    struct fsc_http_auth_stats st;
    for (int i = 0; i < 3; i++)
        CHECK_INT(fsc_http_auth_check(a, basic("u", "wrong", hdr, sizeof(hdr))),
                  FSC_AUTH_BAD_PASSWORD);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, 3);
    CHECK_INT(st.cache_hits, 0);
    CHECK_INT(st.failed, 3);
    /* unknown user: a hash is spent anyway (same timing as a known one) */
    CHECK_INT(fsc_http_auth_check(a, basic("nobody", "right", hdr, sizeof(hdr))),
              FSC_AUTH_BAD_USER);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, 4);
    CHECK_INT(fsc_http_auth_check(a, NULL), FSC_AUTH_MISSING);
    CHECK_INT(fsc_http_auth_check(a, ""), FSC_AUTH_MALFORMED);
    CHECK_INT(fsc_http_auth_check(a, "Basic !!!!"), FSC_AUTH_MALFORMED);
    CHECK_INT(fsc_http_auth_check(a, "Basic dXNlcg=="), FSC_AUTH_MALFORMED); /* "user", no colon */
    CHECK_INT(fsc_http_auth_check(a, "Digest username=u"), FSC_AUTH_MALFORMED);
    /* a bearer token against a listener with users only */
    CHECK_INT(fsc_http_auth_check(a, "Bearer 0123456789abcdef0123"), FSC_AUTH_BAD_TOKEN);
    char *huge = malloc(FSC_HTTP_AUTH_HEADER_MAX + 64);
    if (huge) {
        memcpy(huge, "Basic ", 6);
        memset(huge + 6, 'A', FSC_HTTP_AUTH_HEADER_MAX + 40);
        huge[FSC_HTTP_AUTH_HEADER_MAX + 46] = '\0';
        CHECK_INT(fsc_http_auth_check(a, huge), FSC_AUTH_MALFORMED);
        free(huge);
    }
    /* the right password still works afterwards */
    CHECK_INT(fsc_http_auth_check(a, basic("u", "right", hdr, sizeof(hdr))), FSC_AUTH_OK);
    fsc_http_auth_destroy(a);
}

/* 40 users each verified once fill the 32-entry cache round-robin: the
 * first 8 are evicted (a hash again), the last 32 are hits. */
static void cache_bounded(void)
{
    enum { N = 40 };
    static char hashes[N][128], names[N][16];
    struct fsc_basic_user users[N];
    char hdr[256], err[256];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "user%d", i);
        CHECK(bcrypt_of("pw", hashes[i], sizeof(hashes[i])) != NULL);
        users[i] = (struct fsc_basic_user){names[i], hashes[i]};
    }
    struct fsc_listener_auth cfg = {.present = true, .basic_users = users, .n_basic_users = N};
    struct fsc_http_auth *a = fsc_http_auth_create(&cfg, "t", err, sizeof(err));
    CHECK(a != NULL);
    if (!a)
        return;
    for (int i = 0; i < N; i++)
        CHECK_INT(fsc_http_auth_check(a, basic(names[i], "pw", hdr, sizeof(hdr))), FSC_AUTH_OK);
    struct fsc_http_auth_stats st;
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, N);
    for (int i = N - FSC_HTTP_AUTH_CACHE; i < N; i++)
        CHECK_INT(fsc_http_auth_check(a, basic(names[i], "pw", hdr, sizeof(hdr))), FSC_AUTH_OK);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, N);
    CHECK_INT(st.cache_hits, FSC_HTTP_AUTH_CACHE);
    CHECK_INT(fsc_http_auth_check(a, basic(names[0], "pw", hdr, sizeof(hdr))), FSC_AUTH_OK);
    fsc_http_auth_stats(a, &st);
    CHECK_INT(st.hashes, N + 1);
    fsc_http_auth_destroy(a);
}

static const char *write_file(char *path, size_t cap, const char *text)
{
    snprintf(path, cap, "/tmp/fsc_http_auth_%d_XXXXXX", (int)getpid());
    int fd = mkstemp(path);
    if (fd == -1)
        return NULL;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? path : NULL;
}

static void bearer_tokens(void)
{
    char path[128], err[256];
    const char *p = write_file(path, sizeof(path),
                               "# scrapers\n\n  tok-AAAAAAAAAAAAAAAA  \r\ntok-BBBBBBBBBBBBBBBB\n");
    CHECK(p != NULL);
    struct fsc_listener_auth cfg = {.present = true, .bearer_tokens_file = p};
    struct fsc_http_auth *a = fsc_http_auth_create(&cfg, "t", err, sizeof(err));
    CHECK(a != NULL);
    if (a) {
        CHECK_INT(fsc_http_auth_check(a, "Bearer tok-AAAAAAAAAAAAAAAA"), FSC_AUTH_OK);
        CHECK_INT(fsc_http_auth_check(a, "bearer tok-BBBBBBBBBBBBBBBB"), FSC_AUTH_OK);
        CHECK_INT(fsc_http_auth_check(a, "Bearer tok-AAAAAAAAAAAAAAAB"), FSC_AUTH_BAD_TOKEN);
        CHECK_INT(fsc_http_auth_check(a, "Bearer tok-AAAAAAAAAAAAAAA"), FSC_AUTH_BAD_TOKEN);
        CHECK_INT(fsc_http_auth_check(a, "Basic dTpw"), FSC_AUTH_BAD_USER); /* u:p, no users */
        const char *ch[2];
        size_t n = 0;
        fsc_http_auth_challenges(a, ch, &n);
        CHECK(n == 1 && strncmp(ch[0], "Bearer realm=", 13) == 0);
        struct fsc_http_auth_stats st;
        fsc_http_auth_stats(a, &st);
        CHECK_INT(st.hashes, 0);
        fsc_http_auth_destroy(a);
    }
    unlink(path);
    /* short token, empty file, missing file: refused, no token quoted */
    p = write_file(path, sizeof(path), "short-" MARKER "\nx\n");
    cfg.bearer_tokens_file = p;
    CHECK(fsc_http_auth_create(&cfg, "t", err, sizeof(err)) == NULL);
    CHECK(strstr(err, "line 2: a token is at least 16 printable") != NULL);
    CHECK(strstr(err, MARKER) == NULL);
    unlink(path);
    p = write_file(path, sizeof(path), "# nothing\n");
    cfg.bearer_tokens_file = p;
    CHECK(fsc_http_auth_create(&cfg, "t", err, sizeof(err)) == NULL);
    CHECK(strstr(err, "holds no token") != NULL);
    unlink(path);
    cfg.bearer_tokens_file = "/nonexistent/tokens";
    CHECK(fsc_http_auth_create(&cfg, "t", err, sizeof(err)) == NULL);
    CHECK_STR(err, "cannot read bearer_tokens_file /nonexistent/tokens: No such file or directory");
}

static void weak_or_bad_hashes_refused(void)
{
    char err[256];
    struct fsc_basic_user users[] = {{"u", "$1$abcdefgh$" MARKER}};
    struct fsc_listener_auth cfg = {.present = true, .basic_users = users, .n_basic_users = 1};
    CHECK(fsc_http_auth_create(&cfg, "t", err, sizeof(err)) == NULL);
    CHECK(strstr(err, "the password hash of user u is not a bcrypt") != NULL);
    CHECK(strstr(err, MARKER) == NULL);
    users[0].hash = "$2b$04$" MARKER; /* bcrypt prefix, malformed body */
    CHECK(fsc_http_auth_create(&cfg, "t", err, sizeof(err)) == NULL);
    CHECK(strstr(err, MARKER) == NULL);
    struct fsc_listener_auth none = {.present = true};
    CHECK(fsc_http_auth_create(&none, "t", err, sizeof(err)) == NULL);
}

/* Failures are logged without the password, token or hash, rate limited. */
static void log_has_no_secret(void)
{
    char h1[128], hdr[256], err[256], path[128];
    CHECK(bcrypt_of(MARKER, h1, sizeof(h1)) != NULL);
    const char *p = write_file(path, sizeof(path), "tok-" MARKER "\n");
    struct fsc_basic_user users[] = {{"scraper", h1}};
    struct fsc_listener_auth cfg = {
        .present = true, .basic_users = users, .n_basic_users = 1, .bearer_tokens_file = p};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = log_capture(&buf, &len);
    struct fsc_http_auth *a = fsc_http_auth_create(&cfg, "prometheus", err, sizeof(err));
    CHECK(a != NULL);
    if (a) {
        CHECK_INT(fsc_http_auth_check(a, basic("scraper", MARKER "x", hdr, sizeof(hdr))),
                  FSC_AUTH_BAD_PASSWORD);
        CHECK_INT(fsc_http_auth_check(a, "Bearer tok-" MARKER "x"), FSC_AUTH_BAD_TOKEN);
        CHECK_INT(fsc_http_auth_check(a, basic(MARKER, MARKER, hdr, sizeof(hdr))),
                  FSC_AUTH_BAD_USER);
        CHECK_INT(fsc_http_auth_check(a, "Bearer tok-" MARKER), FSC_AUTH_OK);
        CHECK_INT(fsc_http_auth_check(a, NULL), FSC_AUTH_MISSING);
        CHECK_INT(fsc_http_auth_check(a, "Digest x"), FSC_AUTH_MALFORMED);
        /* failures per verdict (fabricscope_listener_auth_failures_total) */
        struct fsc_http_auth_stats st;
        fsc_http_auth_stats(a, &st);
        CHECK_INT(st.ok, 1);
        CHECK_INT(st.failed, 5);
        CHECK_INT(st.failed_by[FSC_AUTH_OK], 0);
        CHECK_INT(st.failed_by[FSC_AUTH_MISSING], 1);
        CHECK_INT(st.failed_by[FSC_AUTH_MALFORMED], 1);
        CHECK_INT(st.failed_by[FSC_AUTH_BAD_USER], 1);
        CHECK_INT(st.failed_by[FSC_AUTH_BAD_PASSWORD], 1);
        CHECK_INT(st.failed_by[FSC_AUTH_BAD_TOKEN], 1);
        fsc_http_auth_destroy(a);
    }
    fsc_log_set_stream(NULL);
    fclose(f);
    CHECK(buf && strstr(buf, "listener_auth_failed listener=prometheus reason=bad_password "
                             "user=scraper suppressed=0") != NULL);
    /* the next two failures fall inside the 10 s window: one line only */
    size_t lines = 0;
    for (const char *q = buf; q && (q = strstr(q, "listener_auth_failed")) != NULL; q++)
        lines++;
    CHECK_INT(lines, 1);
    CHECK(buf && strstr(buf, MARKER) == NULL);
    CHECK(buf && strstr(buf, h1) == NULL);
    free(buf);
    unlink(path);
}

/* auth: and tls.client_auth in the config: decoded, defaults, errors, and
 * check-config's printout carries no hash. */
static void config_keys(void)
{
    char h1[128], text[2048], err[512];
    CHECK(bcrypt_of(MARKER, h1, sizeof(h1)) != NULL);
    snprintf(text, sizeof(text),
             "exporters:\n"
             "  prometheus:\n"
             "    listen: 127.0.0.1:0\n"
             "    tls: {cert_file: /c.pem, key_file: /k.pem, ca_file: /ca.pem}\n"
             "    auth:\n"
             "      basic_users: {prom: \"%s\"}\n"
             "      bearer_tokens_file: /tokens\n"
             "sources:\n"
             "  - name: o\n"
             "    type: otlp\n"
             "    tls: {cert_file: /c.pem, key_file: /k.pem, ca_file: /ca.pem, client_auth: "
             "request}\n"
             "    auth: {bearer_tokens_file: /t2}\n",
             h1);
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg != NULL);
    if (!cfg) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const struct fsc_prometheus_config *pc = fsc_prometheus_config_of(cfg);
    CHECK(pc->tls.present && pc->tls.enabled);
    CHECK_INT(pc->tls.client_auth, FSC_CLIENT_AUTH_REQUIRE); /* default with a CA */
    CHECK(pc->auth.present);
    CHECK_INT(pc->auth.n_basic_users, 1);
    CHECK_STR(pc->auth.basic_users[0].name, "prom");
    CHECK_STR(pc->auth.basic_users[0].hash, h1);
    CHECK_STR(pc->auth.bearer_tokens_file, "/tokens");
    CHECK_INT(fsc_otlp_config_of(&cfg->sources[0])->tls.client_auth, FSC_CLIENT_AUTH_REQUEST);
    CHECK_STR(fsc_otlp_config_of(&cfg->sources[0])->auth.bearer_tokens_file, "/t2");
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    CHECK_INT(fsc_config_print(cfg, f), 0);
    fclose(f);
    CHECK(out && strstr(out, "prom: <redacted>") != NULL);
    CHECK(out && strstr(out, "client_auth: require") != NULL);
    CHECK(out && strstr(out, "client_auth: request") != NULL);
    CHECK(out && strstr(out, h1) == NULL);
    free(out);
    fsc_config_destroy(cfg);

    expect_error("exporters:\n  prometheus:\n    auth: {}\n",
                 "t.yaml:3:5: exporters.prometheus.auth.basic_users: auth needs basic_users, "
                 "bearer_tokens_file or both (remove the section for an open listener)");
    snprintf(text, sizeof(text),
             "exporters:\n  prometheus:\n    auth:\n      basic_users: {prom: not-a-hash-%s}\n",
             MARKER);
    cfg = parse(text, err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK(strstr(err, "t.yaml:4:27: exporters.prometheus.auth.basic_users.prom: expected a "
                      "crypt(3) password hash") != NULL);
    CHECK(strstr(err, MARKER) == NULL);
    expect_error("exporters:\n  prometheus:\n    auth:\n      basic_users: {\"a:b\": $2b$x}\n",
                 "t.yaml:4:21: exporters.prometheus.auth.basic_users.a:b: \"a:b\" is not a valid "
                 "user name (1..63 printable bytes, no colon or blank)");
    expect_error("exporters:\n  prometheus:\n    tls: {cert_file: /c, key_file: /k, client_auth: "
                 "require}\n",
                 "t.yaml:3:40: exporters.prometheus.tls.client_auth: request and require need "
                 "ca_file (the CA that signs client certificates)");
}

TEST_MAIN(TEST(basic_ok_and_cache), TEST(failures_not_cached), TEST(cache_bounded),
          TEST(bearer_tokens), TEST(weak_or_bad_hashes_refused), TEST(log_has_no_secret),
          TEST(config_keys))
