/* exporters.remote_write: URL, series selection, queue, backoff, basic auth
 * or bearer token, extra headers, client TLS (docs/CONFIG.md, "remote_write"). */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "config/config_decode.h"
#include "remote_write/rw_config.h"

#define MS  1000000ll
#define SEC 1000000000ll

/* ---- remote_write ------------------------------------------------------------- */

static int check_url(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    const char *host = strncmp(s, "http://", 7) == 0    ? s + 7
                       : strncmp(s, "https://", 8) == 0 ? s + 8
                                                        : NULL;
    bool ok = host != NULL && *host != '\0' && *host != '/' && strchr(s, ' ') == NULL;
    if (!ok)
        return fsc_cfg_fail_at(ctx, val, "%s is not an http:// or https:// URL",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

static int basic_auth_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                             struct fsc_config_mark mark, void *obj)
{
    const struct fsc_basic_auth *b = obj;
    if (b->password.value == NULL)
        return fsc_cfg_fail_key(
            ctx, node, "password", mark,
            "required key is missing (password, password_file or password_env)");
    return 0;
}

#define BASIC(field) offsetof(struct fsc_basic_auth, field)
static const struct fsc_ckey basic_auth_keys[] = {
    {.key = "username", .kind = FSC_CK_STR, .flags = FSC_CF_REQUIRED, .off = BASIC(username)},
    {.key = "password", .kind = FSC_CK_SECRET, .off = BASIC(password)},
    {.key = "password_file", .kind = FSC_CK_SECRET_FILE, .off = BASIC(password)},
    {.key = "password_env", .kind = FSC_CK_SECRET_ENV, .off = BASIC(password)},
};

static const struct fsc_cspec basic_auth_spec = {
    .what = "a basic_auth section",
    .keys = basic_auth_keys,
    .n_keys = FSC_NELEM(basic_auth_keys),
    .finish = basic_auth_finish,
};

#define RW(field)   offsetof(struct fsc_remote_write_config, field)
#define MAX_HEADERS 32

/* Headers the exporter sets itself, or that would carry credentials past
 * the secret handling. */
static const char *const reserved_headers[] = {
    "Authorization",
    "Content-Type",
    "Content-Encoding",
    "Content-Length",
    "User-Agent",
    "Host",
    "X-Prometheus-Remote-Write-Version",
};

static int decode_headers(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                          const struct fsc_ynode *val, void *obj)
{
    struct fsc_remote_write_config *rw = obj;
    (void)key;
    if (fsc_ynode_is_null(val))
        return 0;
    if (val->kind != FSC_YNODE_MAP)
        return fsc_cfg_fail_at(ctx, val, "expected a mapping of header names to values");
    if (val->n > MAX_HEADERS)
        return fsc_cfg_fail_at(ctx, val, "has %zu headers; at most %d are allowed", val->n,
                               MAX_HEADERS);
    rw->headers = fsc_cfg_alloc(ctx, val, (val->n ? val->n : 1) * sizeof(*rw->headers));
    if (rw->headers == NULL)
        return -1;
    for (size_t i = 0; i < val->n; i++) {
        const struct fsc_ynode *k = val->pairs[i].key;
        char q[96];
        size_t pl = fsc_cfg_path_key(ctx, k->str);
        bool ok = k->n > 0 && k->n <= 64;
        for (size_t c = 0; ok && c < k->n; c++)
            ok = (k->str[c] >= 'a' && k->str[c] <= 'z') || (k->str[c] >= 'A' && k->str[c] <= 'Z') ||
                 (k->str[c] >= '0' && k->str[c] <= '9') || k->str[c] == '-' || k->str[c] == '_';
        int rc = 0;
        if (!ok)
            rc = fsc_cfg_fail_at(ctx, k, "%s is not a valid header name",
                                 fsc_cfg_quote(k->str, q, sizeof(q)));
        for (size_t r = 0; rc == 0 && r < FSC_NELEM(reserved_headers); r++) {
            if (strcasecmp(k->str, reserved_headers[r]) == 0)
                rc = fsc_cfg_fail_at(ctx, k,
                                     "header %s is set by fabricscope (use basic_auth or "
                                     "bearer_token_file for credentials)",
                                     reserved_headers[r]);
        }
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (strcasecmp(k->str, rw->headers[j].name) == 0)
                rc = fsc_cfg_fail_at(ctx, k, "header %s is given twice", rw->headers[j].name);
        }
        struct fsc_ckey vk = {.kind = FSC_CK_STR, .flags = FSC_CF_EMPTY_OK, .max = 1024};
        if (rc == 0)
            rc = fsc_cfg_decode_str(ctx, &vk, val->pairs[i].value, &rw->headers[i].value);
        if (rc == 0) {
            rw->headers[i].name = fsc_cfg_strdup(ctx, k, k->str);
            rc = rw->headers[i].name ? 0 : -1;
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
        rw->n_headers = i + 1;
    }
    return 0;
}

static void print_headers(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_remote_write_config *rw = obj;
    (void)key;
    fputc('\n', out);
    for (size_t i = 0; i < rw->n_headers; i++) {
        fsc_cfg_print_indent(out, indent + 2);
        fsc_cfg_print_str(out, rw->headers[i].name);
        fputs(": ", out);
        fsc_cfg_print_str(out, rw->headers[i].value);
        fputc('\n', out);
    }
}

static bool headers_printed(const void *obj)
{
    return ((const struct fsc_remote_write_config *)obj)->n_headers > 0;
}

/* `series: [counters, window_rates, fine_rates]`: a non-empty list of
 * distinct names, kept as FSC_RW_SERIES_* bits. */
static const char *const rw_series_names[] = {"counters", "window_rates", "fine_rates", NULL};

static int decode_rw_series(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                            const struct fsc_ynode *val, void *obj)
{
    struct fsc_remote_write_config *rw = obj;
    (void)key;
    if (val->kind != FSC_YNODE_SEQ || val->n == 0)
        return fsc_cfg_fail_at(ctx, val,
                               "expected a non-empty list of counters, window_rates, fine_rates");
    uint32_t bits = 0;
    for (size_t i = 0; i < val->n; i++) {
        size_t pl = fsc_cfg_path_index(ctx, i);
        int which = 0;
        int rc = fsc_cfg_decode_enum(ctx, rw_series_names, val->items[i], &which);
        if (rc == 0 && (bits & (1u << which)))
            rc = fsc_cfg_fail_at(ctx, val->items[i], "%s is given twice", rw_series_names[which]);
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
        bits |= 1u << which;
    }
    rw->series = bits;
    return 0;
}

static void print_rw_series(FILE *out, unsigned indent, const struct fsc_ckey *key, const void *obj)
{
    const struct fsc_remote_write_config *rw = obj;
    (void)indent;
    (void)key;
    const char *sep = " [";
    for (unsigned k = 0; rw_series_names[k]; k++) {
        if (rw->series & (1u << k)) {
            fprintf(out, "%s%s", sep, rw_series_names[k]);
            sep = ", ";
        }
    }
    fputs("]\n", out);
}

static bool rw_series_printed(const void *obj)
{
    return ((const struct fsc_remote_write_config *)obj)->series != 0;
}

static void remote_write_defaults(void *obj)
{
    struct fsc_remote_write_config *rw = obj;
    rw->enabled = true;
    rw->interval_ns = 10 * SEC;
    rw->resolution_ns = 1 * SEC;
    rw->series = FSC_RW_SERIES_COUNTERS | FSC_RW_SERIES_WINDOW_RATES;
    rw->timeout_ns = 10 * SEC;
    rw->max_samples_per_send = 2000;
    rw->queue_max = 500000;
}

static int remote_write_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                               struct fsc_config_mark mark, void *obj)
{
    const struct fsc_remote_write_config *rw = obj;
    if (rw->enabled && rw->url == NULL)
        return fsc_cfg_fail_key(ctx, node, "url", mark, "required key is missing");
    if (rw->basic_auth.present && rw->bearer_token.value != NULL)
        return fsc_cfg_fail_key(ctx, node, "basic_auth", mark,
                                "give either basic_auth or a bearer token, not both");
    if (rw->tls.present && rw->tls.enabled && rw->url != NULL &&
        strncmp(rw->url, "http://", 7) == 0)
        return fsc_cfg_fail_key(ctx, node, "tls", mark, "tls is enabled but url is http://");
    return 0;
}

static const struct fsc_ckey remote_write_keys[] = {
    {.key = "enabled", .kind = FSC_CK_BOOL, .off = RW(enabled)},
    {.key = "url", .kind = FSC_CK_STR, .flags = FSC_CF_LONG, .off = RW(url), .check = check_url},
    {.key = "interval",
     .kind = FSC_CK_DUR,
     .off = RW(interval_ns),
     .min = 1 * SEC,
     .max = 3600 * SEC},
    {.key = "resolution",
     .kind = FSC_CK_DUR,
     .off = RW(resolution_ns),
     .min = 10 * MS,
     .max = 3600 * SEC},
    {.key = "series",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_rw_series,
     .print = print_rw_series,
     .printed = rw_series_printed},
    {.key = "timeout",
     .kind = FSC_CK_DUR,
     .off = RW(timeout_ns),
     .min = 100 * MS,
     .max = 300 * SEC},
    {.key = "max_samples_per_send",
     .kind = FSC_CK_U32,
     .off = RW(max_samples_per_send),
     .min = 1,
     .max = 100000},
    {.key = "queue_max", .kind = FSC_CK_U32, .off = RW(queue_max), .min = 10, .max = 100000000},
    {.key = "backoff", .kind = FSC_CK_MAP, .off = RW(backoff), .spec = &fsc_cspec_backoff},
    {.key = "basic_auth",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = RW(basic_auth),
     .spec = &basic_auth_spec},
    {.key = "bearer_token", .kind = FSC_CK_SECRET, .off = RW(bearer_token)},
    {.key = "bearer_token_file", .kind = FSC_CK_SECRET_FILE, .off = RW(bearer_token)},
    {.key = "bearer_token_env", .kind = FSC_CK_SECRET_ENV, .off = RW(bearer_token)},
    {.key = "headers",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_headers,
     .print = print_headers,
     .printed = headers_printed},
    {.key = "tls",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = RW(tls),
     .spec = &fsc_cspec_tls_client},
};

static const struct fsc_cspec remote_write_spec = {
    .what = "the remote_write exporter",
    .keys = remote_write_keys,
    .n_keys = FSC_NELEM(remote_write_keys),
    .defaults = remote_write_defaults,
    .finish = remote_write_finish,
};

const struct fsc_config_kind fsc_remote_write_kind = {
    .name = "remote_write",
    .spec = &remote_write_spec,
    .size = sizeof(struct fsc_remote_write_config),
    .optional = true,
};

const struct fsc_remote_write_config *fsc_remote_write_config_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_remote_write_kind);
}
