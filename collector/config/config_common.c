/* Key tables that several kinds share: client and server `tls:`, a
 * listener's `auth:`, a `backoff:`.
 *
 * The `auth:` section of a listener (exporters.prometheus.auth and an otlp
 * source's auth; docs/SECURITY.md):
 *
 *   auth:
 *     basic_users: {prometheus: "$2b$10$..."}   # name -> crypt(3) hash
 *     bearer_tokens_file: /etc/fabricscope/tokens
 *
 * Hashes are checked for shape here (a "$id$" crypt string); whether
 * libcrypt can verify them is checked when the listener starts
 * (net/http_auth.c), where the tokens file is read too. Hashes are never
 * printed: check-config shows "<redacted>", as for inline secrets. */
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define MAX_BASIC_USERS 64
#define MAX_HASH_LEN    255

static int check_user_name(struct fsc_cctx *ctx, const struct fsc_ynode *k)
{
    char q[96];
    bool ok = k->n > 0 && k->n <= FSC_CONFIG_MAX_NAME;
    /* RFC 7617: the user-id must not contain a colon; control bytes would
     * let a log line be forged. */
    for (size_t c = 0; ok && c < k->n; c++)
        ok = (unsigned char)k->str[c] > 0x20 && k->str[c] != ':' && k->str[c] != 0x7f;
    if (!ok)
        return fsc_cfg_fail_at(ctx, k,
                               "%s is not a valid user name (1..%d printable bytes, no colon "
                               "or blank)",
                               fsc_cfg_quote(k->str, q, sizeof(q)), FSC_CONFIG_MAX_NAME);
    return 0;
}

/* A crypt(3) hash: "$id$...", printable, no blanks. The value is not quoted
 * back in the message: it is a password hash. */
static int check_hash(struct fsc_cctx *ctx, const struct fsc_ynode *v)
{
    bool ok = v->kind == FSC_YNODE_SCALAR && v->n >= 4 && v->n <= MAX_HASH_LEN && v->str[0] == '$';
    for (size_t c = 0; ok && c < v->n; c++)
        ok = (unsigned char)v->str[c] > 0x20 && v->str[c] != 0x7f;
    if (!ok)
        return fsc_cfg_fail_at(ctx, v,
                               "expected a crypt(3) password hash such as \"$2b$10$...\" "
                               "(bcrypt; create one with `htpasswd -nbBC 10 USER PASSWORD` or "
                               "`mkpasswd -m bcrypt`)");
    return 0;
}

static int decode_basic_users(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                              const struct fsc_ynode *val, void *obj)
{
    struct fsc_listener_auth *a = obj;
    (void)key;
    if (fsc_ynode_is_null(val))
        return 0;
    if (val->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, val, "expected a mapping of user names to password hashes");
    if (val->n > MAX_BASIC_USERS)
        return fsc_cfg_fail_at(ctx, val, "has %zu users; at most %d are allowed", val->n,
                               MAX_BASIC_USERS);
    a->basic_users = fsc_cfg_alloc(ctx, val, (val->n ? val->n : 1) * sizeof(*a->basic_users));
    if (a->basic_users == NULL)
        return -1;
    for (size_t i = 0; i < val->n; i++) {
        const struct fsc_ynode *k = val->pairs[i].key;
        size_t pl = fsc_cfg_path_key(ctx, k->str);
        int rc = check_user_name(ctx, k);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (strcmp(k->str, a->basic_users[j].name) == 0)
                rc = fsc_cfg_fail_at(ctx, k, "user %s is given twice", a->basic_users[j].name);
        }
        if (rc == 0)
            rc = check_hash(ctx, val->pairs[i].value);
        if (rc == 0) {
            a->basic_users[i].name = fsc_cfg_strdup(ctx, k, k->str);
            a->basic_users[i].hash =
                fsc_cfg_strdup(ctx, val->pairs[i].value, val->pairs[i].value->str);
            rc = a->basic_users[i].name && a->basic_users[i].hash ? 0 : -1;
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
        a->n_basic_users = i + 1;
    }
    return 0;
}

static void print_basic_users(FILE *out, unsigned indent, const struct fsc_ckey *key,
                              const void *obj)
{
    const struct fsc_listener_auth *a = obj;
    (void)key;
    fputc('\n', out);
    for (size_t i = 0; i < a->n_basic_users; i++) {
        fsc_cfg_print_indent(out, indent + 2);
        fsc_cfg_print_str(out, a->basic_users[i].name);
        fputs(": <redacted>\n", out);
    }
}

static bool basic_users_printed(const void *obj)
{
    return ((const struct fsc_listener_auth *)obj)->n_basic_users > 0;
}

static int auth_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                       struct fsc_config_mark mark, void *obj)
{
    const struct fsc_listener_auth *a = obj;
    if (a->n_basic_users == 0 && a->bearer_tokens_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "basic_users", mark,
                                "auth needs basic_users, bearer_tokens_file or both (remove "
                                "the section for an open listener)");
    return 0;
}

#define AUTH(field) offsetof(struct fsc_listener_auth, field)
static const struct fsc_ckey auth_keys[] = {
    {.key = "basic_users",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_basic_users,
     .print = print_basic_users,
     .printed = basic_users_printed},
    {.key = "bearer_tokens_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_LONG | FSC_CF_OMIT_ZERO | FSC_CF_INPUT_FILE,
     .off = AUTH(bearer_tokens_file)},
};

const struct fsc_cspec fsc_cspec_listener_auth = {
    .what = "a listener auth section",
    .keys = auth_keys,
    .n_keys = FSC_NELEM(auth_keys),
    .finish = auth_finish,
};

/* ---- tls ---------------------------------------------------------------------- */

#define TLS(field) offsetof(struct fsc_tls_config, field)

static void tls_defaults(void *obj)
{
    ((struct fsc_tls_config *)obj)->enabled = true;
}

static int tls_client_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                             struct fsc_config_mark mark, void *obj)
{
    const struct fsc_tls_config *t = obj;
    if (t->cert_file != NULL && t->key_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "cert_file", mark, "needs key_file as well");
    if (t->key_file != NULL && t->cert_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "key_file", mark, "needs cert_file as well");
    return 0;
}

static int tls_server_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                             struct fsc_config_mark mark, void *obj)
{
    struct fsc_tls_config *t = obj;
    if (t->enabled && t->cert_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "cert_file", mark,
                                "required key is missing (TLS server)");
    if (t->enabled && t->key_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "key_file", mark,
                                "required key is missing (TLS server)");
    /* client_auth defaults to require with a CA (what ca_file alone meant
     * before the key existed) and to none without. */
    if (fsc_ymap_get(node, "client_auth") == NULL)
        t->client_auth = t->ca_file ? FSC_CLIENT_AUTH_REQUIRE : FSC_CLIENT_AUTH_NONE;
    else if (t->client_auth != FSC_CLIENT_AUTH_NONE && t->ca_file == NULL)
        return fsc_cfg_fail_key(ctx, node, "client_auth", mark,
                                "request and require need ca_file (the CA that signs client "
                                "certificates)");
    else if (t->client_auth == FSC_CLIENT_AUTH_NONE && t->ca_file != NULL)
        return fsc_cfg_fail_key(ctx, node, "client_auth", mark,
                                "is none but ca_file is set: remove ca_file or use request or "
                                "require");
    return 0;
}

static const char *const client_auth_names[] = {"none", "request", "require", NULL};

static const struct fsc_ckey tls_client_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = TLS(enabled)},
    {.key = "ca_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(ca_file)},
    {.key = "cert_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(cert_file)},
    {.key = "key_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(key_file)},
    {.key = "server_name", .kind = FSC_CK_STR, .off = TLS(server_name)},
    {.key = "insecure_skip_verify", .kind = FSC_CK_BOOL, .off = TLS(insecure_skip_verify)},
};

const struct fsc_cspec fsc_cspec_tls_client = {
    .what = "a client tls section",
    .keys = tls_client_keys,
    .n_keys = FSC_NELEM(tls_client_keys),
    .defaults = tls_defaults,
    .finish = tls_client_finish,
};

static const struct fsc_ckey tls_server_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = TLS(enabled)},
    {.key = "cert_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(cert_file)},
    {.key = "key_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(key_file)},
    {.key = "ca_file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = TLS(ca_file)},
    {.key = "client_auth",
     .kind = FSC_CK_ENUM,
     .off = TLS(client_auth),
     .names = client_auth_names},
};

const struct fsc_cspec fsc_cspec_tls_server = {
    .what = "a server tls section",
    .keys = tls_server_keys,
    .n_keys = FSC_NELEM(tls_server_keys),
    .defaults = tls_defaults,
    .finish = tls_server_finish,
};

/* ---- backoff ------------------------------------------------------------------ */

static void backoff_defaults(void *obj)
{
    struct fsc_backoff *b = obj;
    b->initial_ns = 1 * SEC;
    b->max_ns = 60 * SEC;
}

static int backoff_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                          struct fsc_config_mark mark, void *obj)
{
    const struct fsc_backoff *b = obj;
    if (b->initial_ns <= b->max_ns)
        return 0;
    struct fsc_config_mark m = fsc_cfg_key_mark(node, "initial", mark);
    size_t pl = fsc_cfg_path_key(ctx, "initial");
    fsc_cfg_fail(ctx, m.line, m.col, "must not be longer than max");
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

static const struct fsc_ckey backoff_keys[] = {
    {.key = "initial",
     .kind = FSC_CK_DUR,
     .off = offsetof(struct fsc_backoff, initial_ns),
     .min = 10 * MS,
     .max = 3600 * SEC},
    {.key = "max",
     .kind = FSC_CK_DUR,
     .off = offsetof(struct fsc_backoff, max_ns),
     .min = 10 * MS,
     .max = 86400 * SEC},
};

const struct fsc_cspec fsc_cspec_backoff = {
    .keys = backoff_keys,
    .n_keys = FSC_NELEM(backoff_keys),
    .defaults = backoff_defaults,
    .finish = backoff_finish,
};

/* ---- listener limits ---------------------------------------------------------- */

#define LIM(field) offsetof(struct fsc_listener_limits, field)

void fsc_listener_limits_defaults(struct fsc_listener_limits *l)
{
    l->max_connections = 256;
    l->max_connections_per_ip = 32;
    l->reserve = 16;
    l->header_timeout_ns = 5 * SEC;
    l->idle_timeout_ns = 30 * SEC;
    l->body_min_rate = 1024;
    l->body_rate_window_ns = 5 * SEC;
    l->message_timeout_ns = 5 * SEC;
    l->max_calls = 256;
    l->max_calls_per_ip = 32;
}

void fsc_listener_limits_resolve(const struct fsc_listener_limits *in,
                                 struct fsc_listener_limits *out)
{
    if (in && in->max_connections > 0)
        *out = *in;
    else
        fsc_listener_limits_defaults(out);
}

static void limits_defaults(void *obj)
{
    fsc_listener_limits_defaults(obj);
}

static int limits_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    const struct fsc_listener_limits *l = obj;
    if (l->max_connections_per_ip > l->max_connections)
        return fsc_cfg_fail_key(ctx, node, "max_connections_per_ip", mark,
                                "must not be larger than max_connections");
    if (l->reserve >= l->max_connections)
        return fsc_cfg_fail_key(ctx, node, "reserve", mark, "must be smaller than max_connections");
    if (l->max_calls_per_ip > l->max_calls)
        return fsc_cfg_fail_key(ctx, node, "max_calls_per_ip", mark,
                                "must not be larger than max_calls");
    return 0;
}

static const struct fsc_ckey limits_keys[] = {
    {.key = "max_connections",
     .kind = FSC_CK_U32,
     .off = LIM(max_connections),
     .min = 8,
     .max = 65536},
    {.key = "max_connections_per_ip",
     .kind = FSC_CK_U32,
     .off = LIM(max_connections_per_ip),
     .min = 1,
     .max = 65536},
    {.key = "reserve", .kind = FSC_CK_U32, .off = LIM(reserve), .min = 0, .max = 65535},
    {.key = "header_timeout",
     .kind = FSC_CK_DUR,
     .off = LIM(header_timeout_ns),
     .min = 1 * SEC,
     .max = 600 * SEC},
    {.key = "idle_timeout",
     .kind = FSC_CK_DUR,
     .off = LIM(idle_timeout_ns),
     .min = 1 * SEC,
     .max = 3600 * SEC},
    {.key = "body_min_rate",
     .kind = FSC_CK_BYTES,
     .off = LIM(body_min_rate),
     .min = 0,
     .max = 1ll << 30},
    {.key = "body_rate_window",
     .kind = FSC_CK_DUR,
     .off = LIM(body_rate_window_ns),
     .min = 1 * SEC,
     .max = 600 * SEC},
    {.key = "message_timeout",
     .kind = FSC_CK_DUR,
     .off = LIM(message_timeout_ns),
     .min = 1 * SEC,
     .max = 600 * SEC},
    {.key = "max_calls", .kind = FSC_CK_U32, .off = LIM(max_calls), .min = 8, .max = 65536},
    {.key = "max_calls_per_ip",
     .kind = FSC_CK_U32,
     .off = LIM(max_calls_per_ip),
     .min = 1,
     .max = 65536},
};

const struct fsc_cspec fsc_cspec_listener_limits = {
    .what = "a listener limits section",
    .keys = limits_keys,
    .n_keys = FSC_NELEM(limits_keys),
    .defaults = limits_defaults,
    .finish = limits_finish,
};
