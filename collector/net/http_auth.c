/* Listener credential check (http_auth.h). */
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <nettle/base64.h>

#include "base/clock.h"
#include "base/file_read.h"
#include "net/http_auth.h"
#include "base/log.h"

#define MAC_LEN 32 /* HMAC-SHA-256 */
/* Password hashes computed at once per listener. A bcrypt or yescrypt costs
 * milliseconds of CPU (yescrypt also MiBs of memory); with one thread per
 * connection, 256 clients sending wrong passwords would otherwise run 256
 * at once. Past the bound a request is refused without hashing; credentials
 * already verified are answered from the cache and are not affected. */
#define AUTH_HASHERS 2
#define LOG_EVERY_NS ((int64_t)10 * 1000000000)
#define REALM_BASIC  "Basic realm=\"fabricscope\", charset=\"UTF-8\""
#define REALM_BEARER "Bearer realm=\"fabricscope\""

struct auth_user {
    char *name;
    char *hash;
};

struct cache_entry {
    uint8_t mac[MAC_LEN];
    int used;
};

struct fsc_http_auth {
    uint8_t key[MAC_LEN]; /* HMAC key: cache and token digests mean nothing elsewhere */
    struct auth_user *users;
    size_t n_users;
    uint8_t (*tokens)[MAC_LEN]; /* HMACs of the bearer tokens */
    size_t n_tokens;
    char listener[96]; /* quoted for log lines */

    pthread_mutex_t mu; /* cache, counters, log limiter */
    struct cache_entry cache[FSC_HTTP_AUTH_CACHE];
    size_t cache_next; /* round-robin victim */
    struct fsc_http_auth_stats st;
    int64_t last_log_ns;
    uint64_t suppressed;
    _Atomic int hashing; /* crypt_r calls running now (bounded by AUTH_HASHERS) */
};

/* ---- small helpers ------------------------------------------------------------ */

/* 1 when a[0..n) == b[0..n), in time independent of where they differ
 * (gnutls_memcmp: public since gnutls 3.4.0). */
static int ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    return gnutls_memcmp(a, b, n) == 0;
}

static int mac_of(const struct fsc_http_auth *a, char tag, const char *s, size_t n,
                  uint8_t out[MAC_LEN])
{
    gnutls_hmac_hd_t h;
    if (gnutls_hmac_init(&h, GNUTLS_MAC_SHA256, a->key, sizeof(a->key)) != 0)
        return -1;
    int rc = gnutls_hmac(h, &tag, 1) == 0 && gnutls_hmac(h, s, n) == 0 ? 0 : -1;
    gnutls_hmac_deinit(h, out);
    return rc;
}

/* Decodes standard base64 (RFC 4648, padded as RFC 7617 has it) into out
 * (cap bytes, NUL added). Returns the length or -1. Nettle's decoder (the
 * one gnutls_base64_decode2 wraps) writes straight into out, a stack buffer
 * the caller wipes; gnutls_base64_decode2 itself would first copy the
 * encoded credentials into heap memory it frees without wiping. */
static long b64_decode(const char *in, size_t n, char *out, size_t cap)
{
    struct base64_decode_ctx ctx;
    size_t o = 0;
    long rc = -1;
    if (BASE64_DECODE_LENGTH(n) >= cap)
        return -1;
    base64_decode_init(&ctx);
    if (base64_decode_update(&ctx, &o, (uint8_t *)out, n, in) && base64_decode_final(&ctx)) {
        out[o] = '\0';
        rc = (long)o;
    }
    gnutls_memset(&ctx, 0, sizeof(ctx)); /* leftover bits of the credentials */
    return rc;
}

const char *fsc_auth_verdict_name(enum fsc_auth_verdict v)
{
    switch (v) {
    case FSC_AUTH_OK:
        return "ok";
    case FSC_AUTH_MISSING:
        return "missing";
    case FSC_AUTH_MALFORMED:
        return "malformed";
    case FSC_AUTH_BAD_USER:
        return "unknown_user";
    case FSC_AUTH_BAD_PASSWORD:
        return "bad_password";
    case FSC_AUTH_BAD_TOKEN:
        return "bad_token";
    }
    return "?";
}

/* ---- setup -------------------------------------------------------------------- */

/* Hash schemes accepted: slow, salted ones libxcrypt verifies. MD5-crypt,
 * DES and NT hashes are refused: they fall to a GPU in hours. */
static int hash_scheme_ok(const char *h)
{
    static const char *const ok[] = {"$2a$", "$2b$", "$2y$", "$y$", "$gy$", "$7$", "$6$", "$5$"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        if (strncmp(h, ok[i], strlen(ok[i])) == 0)
            return 1;
    }
    return 0;
}

/* 1 when crypt_r() accepts hash as a setting (a malformed one yields a
 * failure token starting with '*', or NULL). */
static int hash_usable(const char *hash)
{
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    if (!cd)
        return 0;
    const char *out = crypt_r("probe", hash, cd);
    int ok = out != NULL && out[0] == '$' && strlen(out) == strlen(hash);
    gnutls_memset(cd, 0, sizeof(*cd));
    free(cd);
    return ok;
}

static int tokens_load(struct fsc_http_auth *a, const char *path, char *err, size_t errlen)
{
    char *buf = malloc(FSC_HTTP_AUTH_TOKENS_MAX + 1);
    a->tokens = calloc(FSC_HTTP_AUTH_MAX_TOKENS, sizeof(*a->tokens));
    if (!buf || !a->tokens) {
        free(buf);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char why[128];
    ssize_t got = fsc_file_read_regular(path, buf, FSC_HTTP_AUTH_TOKENS_MAX, why, sizeof(why));
    size_t len = got > 0 ? (size_t)got : 0;
    int rc = 0;
    if (got < 0) {
        snprintf(err, errlen, "cannot read bearer_tokens_file %s: %s", path, why);
        rc = -1;
    }
    buf[rc == 0 ? len : 0] = '\0';
    unsigned line = 0;
    for (char *p = buf, *next; rc == 0 && p < buf + len; p = next) {
        char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        next = nl ? nl + 1 : buf + len;
        line++;
        char *e = nl ? nl : buf + len;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e || *p == '#')
            continue;
        size_t n = (size_t)(e - p);
        int printable = 1;
        for (size_t i = 0; i < n; i++)
            printable &= (unsigned char)p[i] > 0x20 && p[i] != 0x7f;
        if (!printable || n < FSC_HTTP_AUTH_TOKEN_MIN) {
            snprintf(err, errlen,
                     "bearer_tokens_file %s line %u: a token is at least %d printable "
                     "characters without blanks",
                     path, line, FSC_HTTP_AUTH_TOKEN_MIN);
            rc = -1;
        } else if (a->n_tokens == FSC_HTTP_AUTH_MAX_TOKENS) {
            snprintf(err, errlen, "bearer_tokens_file %s has more than %d tokens", path,
                     FSC_HTTP_AUTH_MAX_TOKENS);
            rc = -1;
        } else if (mac_of(a, 'T', p, n, a->tokens[a->n_tokens]) != 0) {
            snprintf(err, errlen, "cannot hash a token (GnuTLS)");
            rc = -1;
        } else {
            a->n_tokens++;
        }
    }
    if (rc == 0 && a->n_tokens == 0) {
        snprintf(err, errlen, "bearer_tokens_file %s holds no token", path);
        rc = -1;
    }
    gnutls_memset(buf, 0, FSC_HTTP_AUTH_TOKENS_MAX + 1);
    free(buf);
    return rc;
}

struct fsc_http_auth *fsc_http_auth_create(const struct fsc_listener_auth *cfg,
                                           const char *listener, char *err, size_t errlen)
{
    if (!cfg || (cfg->n_basic_users == 0 && !cfg->bearer_tokens_file)) {
        snprintf(err, errlen, "auth needs basic_users or bearer_tokens_file");
        return NULL;
    }
    struct fsc_http_auth *a = calloc(1, sizeof(*a));
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fsc_log_quote(listener ? listener : "", a->listener, sizeof(a->listener));
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        free(a);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    if (gnutls_rnd(GNUTLS_RND_KEY, a->key, sizeof(a->key)) != 0) {
        snprintf(err, errlen, "no random bytes for the credential cache key (GnuTLS)");
        goto fail;
    }
    if (cfg->n_basic_users > 0) {
        a->users = calloc(cfg->n_basic_users, sizeof(*a->users));
        if (!a->users) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    for (size_t i = 0; i < cfg->n_basic_users; i++) {
        const struct fsc_basic_user *u = &cfg->basic_users[i];
        char q[96];
        if (!hash_scheme_ok(u->hash) || !hash_usable(u->hash)) {
            snprintf(err, errlen,
                     "the password hash of user %s is not a bcrypt ($2b$/$2y$/$2a$), yescrypt "
                     "($y$) or SHA-crypt ($5$/$6$) hash this libcrypt can verify",
                     fsc_log_quote(u->name, q, sizeof(q)));
            goto fail;
        }
        a->users[i].name = strdup(u->name);
        a->users[i].hash = strdup(u->hash);
        a->n_users = i + 1;
        if (!a->users[i].name || !a->users[i].hash) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    if (cfg->bearer_tokens_file && tokens_load(a, cfg->bearer_tokens_file, err, errlen) != 0)
        goto fail;
    return a;
fail:
    fsc_http_auth_destroy(a);
    return NULL;
}

void fsc_http_auth_destroy(struct fsc_http_auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_users; i++) {
        free(a->users[i].name);
        if (a->users[i].hash)
            gnutls_memset(a->users[i].hash, 0, strlen(a->users[i].hash));
        free(a->users[i].hash);
    }
    free(a->users);
    if (a->tokens)
        gnutls_memset(a->tokens, 0, FSC_HTTP_AUTH_MAX_TOKENS * sizeof(*a->tokens));
    free(a->tokens);
    pthread_mutex_destroy(&a->mu);
    gnutls_memset(a, 0, sizeof(*a));
    free(a);
}

/* ---- checking ----------------------------------------------------------------- */

/* Counts a verdict and logs a failure (rate limited). user: a configured
 * user name or NULL. */
static void account(struct fsc_http_auth *a, enum fsc_auth_verdict v, const char *user)
{
    int64_t now = fsc_mono_ns();
    uint64_t suppressed = 0;
    int log = 0;
    pthread_mutex_lock(&a->mu);
    if (v == FSC_AUTH_OK) {
        a->st.ok++;
    } else {
        a->st.failed++;
        if ((unsigned)v < FSC_AUTH_VERDICTS)
            a->st.failed_by[v]++;
        if (a->last_log_ns == 0 || now - a->last_log_ns >= LOG_EVERY_NS) {
            log = 1;
            suppressed = a->suppressed;
            a->suppressed = 0;
            a->last_log_ns = now;
        } else {
            a->suppressed++;
        }
    }
    pthread_mutex_unlock(&a->mu);
    if (log) {
        char q[96];
        fsc_log(FSC_LOG_WARN, "listener_auth_failed",
                "listener=%s reason=%s user=%s suppressed=%llu", a->listener,
                fsc_auth_verdict_name(v), user ? fsc_log_quote(user, q, sizeof(q)) : "-",
                (unsigned long long)suppressed);
    }
}

static int cache_has(struct fsc_http_auth *a, const uint8_t mac[MAC_LEN])
{
    int hit = 0;
    pthread_mutex_lock(&a->mu);
    /* Every entry is compared (no early exit), so the time says nothing
     * about which or how many entries matched. */
    for (size_t i = 0; i < FSC_HTTP_AUTH_CACHE; i++)
        hit |= a->cache[i].used & ct_equal(a->cache[i].mac, mac, MAC_LEN);
    if (hit) {
        a->st.cache_hits++;
    }
    pthread_mutex_unlock(&a->mu);
    return hit;
}

static void cache_put(struct fsc_http_auth *a, const uint8_t mac[MAC_LEN])
{
    pthread_mutex_lock(&a->mu);
    struct cache_entry *e = &a->cache[a->cache_next];
    a->cache_next = (a->cache_next + 1) % FSC_HTTP_AUTH_CACHE;
    memcpy(e->mac, mac, MAC_LEN);
    e->used = 1;
    pthread_mutex_unlock(&a->mu);
}

/* Runs crypt_r(pass, hash) and compares in constant time. */
static int password_matches(struct fsc_http_auth *a, const char *pass, const char *hash)
{
    if (atomic_fetch_add(&a->hashing, 1) >= AUTH_HASHERS) {
        atomic_fetch_sub(&a->hashing, 1);
        return 0;
    }
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    if (!cd) {
        atomic_fetch_sub(&a->hashing, 1);
        return 0;
    }
    pthread_mutex_lock(&a->mu);
    a->st.hashes++;
    pthread_mutex_unlock(&a->mu);
    const char *out = crypt_r(pass, hash, cd);
    size_t hl = strlen(hash);
    int ok = out != NULL && strlen(out) == hl &&
             ct_equal((const uint8_t *)out, (const uint8_t *)hash, hl);
    gnutls_memset(cd, 0, sizeof(*cd));
    free(cd);
    atomic_fetch_sub(&a->hashing, 1);
    return ok;
}

static enum fsc_auth_verdict check_basic(struct fsc_http_auth *a, const char *b64, size_t n,
                                         const char **user_out)
{
    char plain[FSC_HTTP_AUTH_HEADER_MAX];
    enum fsc_auth_verdict v;
    long len = b64_decode(b64, n, plain, sizeof(plain));
    char *colon = len > 0 ? memchr(plain, ':', (size_t)len) : NULL;
    if (!colon || memchr(plain, '\0', (size_t)len) != NULL) {
        v = FSC_AUTH_MALFORMED;
        goto out;
    }
    *colon = '\0';
    const char *pass = colon + 1;
    const struct auth_user *u = NULL;
    for (size_t i = 0; i < a->n_users; i++) {
        if (strcmp(a->users[i].name, plain) == 0)
            u = &a->users[i];
    }
    if (!u) {
        /* Spend a hash anyway so an unknown user answers as slowly as a
         * known one with a wrong password. */
        if (a->n_users > 0)
            (void)password_matches(a, pass, a->users[0].hash);
        v = FSC_AUTH_BAD_USER;
        goto out;
    }
    *user_out = u->name;
    uint8_t mac[MAC_LEN];
    *colon = ':';
    if (mac_of(a, 'B', plain, (size_t)len, mac) != 0) {
        v = FSC_AUTH_MALFORMED;
        goto out;
    }
    *colon = '\0';
    if (cache_has(a, mac)) {
        v = FSC_AUTH_OK;
    } else if (password_matches(a, pass, u->hash)) {
        cache_put(a, mac);
        v = FSC_AUTH_OK;
    } else {
        v = FSC_AUTH_BAD_PASSWORD;
    }
    gnutls_memset(mac, 0, sizeof(mac));
out:
    gnutls_memset(plain, 0, sizeof(plain));
    return v;
}

static enum fsc_auth_verdict check_bearer(struct fsc_http_auth *a, const char *tok, size_t n)
{
    uint8_t mac[MAC_LEN];
    int hit = 0;
    if (n == 0 || mac_of(a, 'T', tok, n, mac) != 0)
        return FSC_AUTH_MALFORMED;
    for (size_t i = 0; i < a->n_tokens; i++)
        hit |= ct_equal(a->tokens[i], mac, MAC_LEN);
    gnutls_memset(mac, 0, sizeof(mac));
    return hit ? FSC_AUTH_OK : FSC_AUTH_BAD_TOKEN;
}

enum fsc_auth_verdict fsc_http_auth_check(struct fsc_http_auth *a, const char *authorization)
{
    enum fsc_auth_verdict v;
    const char *user = NULL;
    if (!authorization) {
        v = FSC_AUTH_MISSING;
    } else {
        const char *p = authorization;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strnlen(p, FSC_HTTP_AUTH_HEADER_MAX + 1);
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n > FSC_HTTP_AUTH_HEADER_MAX)
            v = FSC_AUTH_MALFORMED;
        else if (n > 6 && strncasecmp(p, "Basic ", 6) == 0)
            v = check_basic(a, p + 6 + strspn(p + 6, " "), n - 6 - strspn(p + 6, " "), &user);
        else if (n > 7 && strncasecmp(p, "Bearer ", 7) == 0)
            v = check_bearer(a, p + 7 + strspn(p + 7, " "), n - 7 - strspn(p + 7, " "));
        else
            v = FSC_AUTH_MALFORMED;
    }
    account(a, v, user);
    return v;
}

void fsc_http_auth_challenges(const struct fsc_http_auth *a, const char *out[2], size_t *n)
{
    *n = 0;
    if (a->n_users > 0)
        out[(*n)++] = REALM_BASIC;
    if (a->n_tokens > 0)
        out[(*n)++] = REALM_BEARER;
}

void fsc_http_auth_stats(struct fsc_http_auth *a, struct fsc_http_auth_stats *out)
{
    pthread_mutex_lock(&a->mu);
    *out = a->st;
    pthread_mutex_unlock(&a->mu);
}
