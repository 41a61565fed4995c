/* Credential check of a listener (Prometheus/status page, OTLP HTTP and
 * gRPC): the value of an `Authorization` header against the users and
 * tokens of a `struct fsc_listener_auth` (docs/SECURITY.md).
 *
 * Basic: the password is verified with crypt_r() against the user's hash
 * (bcrypt, yescrypt or SHA-512-crypt). A bcrypt costs milliseconds by
 * design, and Prometheus scrapes every few seconds with the same
 * credentials, so a verified pair is remembered in a small bounded cache
 * keyed by an HMAC-SHA-256 (per-process random key) of "user:password";
 * only successes are cached, so a wrong password always costs a full hash.
 * Bearer: the token's HMAC is compared with the HMACs of the tokens read
 * from bearer_tokens_file at create. Every comparison of secret-derived
 * bytes is constant-time, and no code path copies a presented password or
 * token anywhere but into a wiped stack buffer.
 *
 * Failures are logged (`listener_auth_failed listener=... reason=...`, at
 * most one line per 10 s per listener with the count suppressed since),
 * naming the user only when it is a configured one, never the password or
 * token. */
#ifndef FSC_HTTP_AUTH_H
#define FSC_HTTP_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

struct fsc_http_auth;

enum fsc_auth_verdict {
    FSC_AUTH_OK = 0,
    FSC_AUTH_MISSING,      /* no Authorization header */
    FSC_AUTH_MALFORMED,    /* unknown scheme or undecodable value */
    FSC_AUTH_BAD_USER,     /* Basic: user not configured */
    FSC_AUTH_BAD_PASSWORD, /* Basic: password does not match */
    FSC_AUTH_BAD_TOKEN,    /* Bearer: token not in the file (or no tokens configured) */
};
/* Verdicts there are (sizes per-verdict counters). */
#define FSC_AUTH_VERDICTS (FSC_AUTH_BAD_TOKEN + 1)

/* Entries of the verified-credentials cache. */
#define FSC_HTTP_AUTH_CACHE 32
/* Tokens read from a bearer_tokens_file, and the file's size limit. */
#define FSC_HTTP_AUTH_MAX_TOKENS 64
#define FSC_HTTP_AUTH_TOKENS_MAX ((size_t)64 * 1024)
/* Shortest token accepted in the file (guessable tokens are refused). */
#define FSC_HTTP_AUTH_TOKEN_MIN 16
/* Longest Authorization value looked at; longer ones are MALFORMED. */
#define FSC_HTTP_AUTH_HEADER_MAX 4096

/* Builds the checker for cfg (borrowed; only its hashes and the tokens
 * file's HMACs are kept, copied). `listener` names it in log lines
 * ("prometheus", "otlp/grpc:src"). Verifies every hash with libcrypt and
 * reads the tokens file. Returns NULL with a sentence in err (a hash libcrypt
 * cannot verify, an unreadable or empty tokens file, a short token) - never
 * quoting a hash or token. Thread: any. */
struct fsc_http_auth *fsc_http_auth_create(const struct fsc_listener_auth *cfg,
                                           const char *listener, char *err, size_t errlen);

/* Wipes and frees. NULL is a no-op. */
void fsc_http_auth_destroy(struct fsc_http_auth *a);

/* Checks one Authorization header value (NULL = absent): "Basic <base64>"
 * or "Bearer <token>", scheme case-insensitive. Logs failures (rate
 * limited). Thread: any, concurrently; takes the cache lock briefly (never
 * while hashing). */
enum fsc_auth_verdict fsc_http_auth_check(struct fsc_http_auth *a, const char *authorization);

/* The challenge(s) for a 401: "Basic realm=\"fabricscope\"" when users are
 * configured, "Bearer realm=\"fabricscope\"" when tokens are; *n gets 1 or
 * 2. Static strings. Thread: any. */
void fsc_http_auth_challenges(const struct fsc_http_auth *a, const char *out[2], size_t *n);

struct fsc_http_auth_stats {
    uint64_t ok, failed;
    uint64_t failed_by[FSC_AUTH_VERDICTS]; /* failed per verdict; [FSC_AUTH_OK] stays 0 */
    uint64_t hashes;                       /* crypt_r() calls (cache misses and failures) */
    uint64_t cache_hits;                   /* Basic checks answered from the cache */
};

/* Copies the counters. Thread: any. */
void fsc_http_auth_stats(struct fsc_http_auth *a, struct fsc_http_auth_stats *out);

/* "missing", "malformed", "unknown_user", "bad_password", "bad_token", "ok". */
const char *fsc_auth_verdict_name(enum fsc_auth_verdict v);

#endif
