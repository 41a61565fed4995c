/* The table-driven printer: writes what the decoder reads, in table order,
 * with every default filled in, and never a secret value. */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "config/config_decode.h"

void fsc_cfg_print_indent(FILE *out, unsigned indent)
{
    for (unsigned i = 0; i < indent; i++)
        fputc(' ', out);
}

/* Words other YAML tools would read as booleans or null. */
static bool yaml_word(const char *s)
{
    static const char *const words[] = {"true", "false", "yes", "no",  "on",
                                        "off",  "y",     "n",   "null"};
    for (size_t i = 0; i < FSC_NELEM(words); i++) {
        if (strcasecmp(s, words[i]) == 0)
            return true;
    }
    return false;
}

void fsc_cfg_print_str(FILE *out, const char *s)
{
    bool bare = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '/' || *s == '_') &&
                !yaml_word(s);
    for (const char *p = s; bare && *p; p++) {
        bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
               strchr("_./-+@", *p) != NULL;
    }
    if (bare) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static const struct fsc_secret *secret_of(const struct fsc_ckey *key, const char *obj)
{
    return (const struct fsc_secret *)(const void *)(obj + key->off);
}

static size_t count_of(const struct fsc_ckey *key, const char *obj)
{
    size_t n;
    memcpy(&n, obj + key->off2, sizeof(n));
    return n;
}

static bool map_printed(const struct fsc_cspec *spec, const void *obj);

/* Whether `key` writes a line at all (omitted optional values, unset
 * secret forms, absent sections print nothing). */
static bool key_printed(const struct fsc_ckey *key, const void *vobj)
{
    const char *obj = vobj;
    const void *field = obj + key->off;
    bool omit0 = key->flags & FSC_CF_OMIT_ZERO;
    const struct fsc_secret *sec;
    switch (key->kind) {
    case FSC_CK_STR: {
        const char *s = *(const char *const *)field;
        return s != NULL && !(omit0 && *s == '\0');
    }
    case FSC_CK_U32:
        return !(omit0 && *(const uint32_t *)field == 0);
    case FSC_CK_INT:
        return !(omit0 && *(const int *)field < 0);
    case FSC_CK_DUR:
        return !(omit0 && *(const int64_t *)field == 0);
    case FSC_CK_BYTES:
    case FSC_CK_SPEED:
        return !(omit0 && *(const uint64_t *)field == 0);
    case FSC_CK_ENUM:
        return !(omit0 && *(const int *)field == 0);
    case FSC_CK_MAP:
        return !(key->flags & FSC_CF_PRESENCE) || *(const bool *)field;
    case FSC_CK_LIST:
    case FSC_CK_STRLIST:
        return !(omit0 && count_of(key, obj) == 0);
    case FSC_CK_SECRET:
        sec = secret_of(key, obj);
        return sec->value != NULL && sec->file == NULL && sec->env == NULL;
    case FSC_CK_SECRET_FILE:
        return secret_of(key, obj)->file != NULL;
    case FSC_CK_SECRET_ENV:
        return secret_of(key, obj)->env != NULL;
    case FSC_CK_CUSTOM:
        return key->printed ? key->printed(obj) : true;
    default:
        return true;
    }
}

static bool map_printed(const struct fsc_cspec *spec, const void *obj)
{
    for (size_t i = 0; i < spec->n_keys; i++) {
        if (key_printed(&spec->keys[i], obj))
            return true;
    }
    return false;
}

/* Writes a scalar-kind value (no newline). Returns false for other kinds. */
static bool print_scalar(FILE *out, const struct fsc_ckey *key, const char *obj)
{
    const void *field = obj + key->off;
    char buf[64];
    switch (key->kind) {
    case FSC_CK_STR:
        fsc_cfg_print_str(out, *(const char *const *)field);
        return true;
    case FSC_CK_BOOL:
        fputs(*(const bool *)field ? "true" : "false", out);
        return true;
    case FSC_CK_U32:
        fprintf(out, "%" PRIu32, *(const uint32_t *)field);
        return true;
    case FSC_CK_INT:
        fprintf(out, "%d", *(const int *)field);
        return true;
    case FSC_CK_DUR:
        fputs(fsc_duration_format(*(const int64_t *)field, buf, sizeof(buf)), out);
        return true;
    case FSC_CK_BYTES:
        fputs(fsc_size_format(*(const uint64_t *)field, buf, sizeof(buf)), out);
        return true;
    case FSC_CK_SPEED:
        fputs(fsc_speed_format(*(const uint64_t *)field, buf, sizeof(buf)), out);
        return true;
    case FSC_CK_F64:
        fputs(fsc_cfg_format_f64(*(const double *)field, buf, sizeof(buf)), out);
        return true;
    case FSC_CK_ENUM:
        fputs(key->names[*(const int *)field], out);
        return true;
    case FSC_CK_SECRET:
        fputs("<redacted>", out);
        return true;
    case FSC_CK_SECRET_FILE:
        fsc_cfg_print_str(out, secret_of(key, obj)->file);
        return true;
    case FSC_CK_SECRET_ENV:
        fsc_cfg_print_str(out, secret_of(key, obj)->env);
        return true;
    default:
        return false;
    }
}

/* "{a: 1, b: x}" for list items whose keys are all scalars (ports). */
static void print_flow_map(FILE *out, const struct fsc_cspec *spec, const char *obj)
{
    bool first = true;
    fputc('{', out);
    for (size_t i = 0; i < spec->n_keys; i++) {
        const struct fsc_ckey *key = &spec->keys[i];
        if (!key_printed(key, obj))
            continue;
        fprintf(out, "%s%s: ", first ? "" : ", ", key->key);
        first = false;
        print_scalar(out, key, obj);
    }
    fputc('}', out);
}

static void print_list(FILE *out, unsigned indent, const struct fsc_ckey *key, const char *obj)
{
    size_t n = count_of(key, obj);
    const char *arr;
    memcpy(&arr, obj + key->off, sizeof(arr));
    if (n == 0) {
        fputs(" []\n", out);
        return;
    }
    const char *const *items = (const char *const *)(const void *)arr;
    size_t width = indent + strlen(key->key) + 4;
    for (size_t i = 0; key->kind == FSC_CK_STRLIST && i < n; i++)
        width += strlen(items[i]) + 4;
    /* Flow style while it fits on a 100-column line, block style beyond. */
    if (key->kind == FSC_CK_STRLIST && (key->flags & FSC_CF_FLOW) && width <= 100) {
        fputs(" [", out);
        for (size_t i = 0; i < n; i++) {
            if (i)
                fputs(", ", out);
            fsc_cfg_print_str(out, items[i]);
        }
        fputs("]\n", out);
        return;
    }
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        if (key->kind == FSC_CK_STRLIST) {
            fsc_cfg_print_indent(out, indent + 2);
            fputs("- ", out);
            fsc_cfg_print_str(out, items[i]);
            fputc('\n', out);
        } else if (key->flags & FSC_CF_FLOW) {
            fsc_cfg_print_indent(out, indent + 2);
            fputs("- ", out);
            print_flow_map(out, key->spec, arr + i * key->elem_size);
            fputc('\n', out);
        } else {
            fsc_cfg_print_map(out, indent + 4, true, key->spec, arr + i * key->elem_size);
        }
    }
}

/* Prints spec's keys of obj; *dash: the next line starts a list item. */
static void print_keys(FILE *out, unsigned indent, bool *dash, const struct fsc_cspec *spec,
                       const char *obj)
{
    for (size_t i = 0; i < spec->n_keys; i++) {
        const struct fsc_ckey *key = &spec->keys[i];
        if (!key_printed(key, obj))
            continue;
        if (*dash) {
            fsc_cfg_print_indent(out, indent - 2);
            fputs("- ", out);
            *dash = false;
        } else {
            fsc_cfg_print_indent(out, indent);
        }
        fprintf(out, "%s:", key->key);
        if (key->kind == FSC_CK_MAP) {
            const void *sub = obj + key->off;
            if (map_printed(key->spec, sub)) {
                fputc('\n', out);
                fsc_cfg_print_map(out, indent + 2, false, key->spec, sub);
            } else {
                fputs(" {}\n", out);
            }
        } else if (key->kind == FSC_CK_LIST || key->kind == FSC_CK_STRLIST) {
            print_list(out, indent, key, obj);
        } else if (key->kind == FSC_CK_CUSTOM) {
            key->print(out, indent, key, obj);
        } else {
            fputc(' ', out);
            print_scalar(out, key, obj);
            fputc('\n', out);
        }
    }
}

void fsc_cfg_print_map(FILE *out, unsigned indent, bool dash, const struct fsc_cspec *spec,
                       const void *obj)
{
    print_keys(out, indent, &dash, spec, obj);
    if (dash) {
        fsc_cfg_print_indent(out, indent - 2);
        fputs("- {}\n", out);
    }
}

void fsc_cfg_print_shared(FILE *out, unsigned indent, bool dash, const struct fsc_cspec *head,
                          const void *head_obj, const struct fsc_cspec *own, const void *own_obj)
{
    print_keys(out, indent, &dash, head, head_obj);
    print_keys(out, indent, &dash, own, own_obj);
    if (dash) {
        fsc_cfg_print_indent(out, indent - 2);
        fputs("- {}\n", out);
    }
}

/* Do the secrets of two objects of spec hold the same values? Walks nested
 * mappings and lists (a list of another length differs anyway: the
 * printout tells). */
static bool secrets_equal(const struct fsc_cspec *spec, const char *a, const char *b)
{
    for (size_t i = 0; i < spec->n_keys; i++) {
        const struct fsc_ckey *key = &spec->keys[i];
        switch (key->kind) {
        case FSC_CK_SECRET:
        case FSC_CK_SECRET_FILE:
        case FSC_CK_SECRET_ENV: {
            const char *va = secret_of(key, a)->value, *vb = secret_of(key, b)->value;
            if ((va == NULL) != (vb == NULL) || (va && strcmp(va, vb) != 0))
                return false;
            break;
        }
        case FSC_CK_MAP:
            if (!secrets_equal(key->spec, a + key->off, b + key->off))
                return false;
            break;
        case FSC_CK_LIST: {
            size_t n = count_of(key, a);
            if (n != count_of(key, b))
                return false;
            const char *la, *lb;
            memcpy(&la, a + key->off, sizeof(la));
            memcpy(&lb, b + key->off, sizeof(lb));
            for (size_t k = 0; k < n; k++) {
                if (!secrets_equal(key->spec, la + k * key->elem_size, lb + k * key->elem_size))
                    return false;
            }
            break;
        }
        default:
            break;
        }
    }
    return true;
}

bool fsc_cfg_secrets_equal(const struct fsc_cspec *spec, const void *a, const void *b)
{
    return secrets_equal(spec, a, b);
}
