/* libyaml events -> bounded node tree; the configuration arena. See yaml_tree.h. */
#include "config/yaml_tree.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>
#include <yaml.h>

/* ---- arena ---------------------------------------------------------------- */

#define ARENA_CHUNK (64u * 1024u)
#define ARENA_ALIGN (sizeof(max_align_t))

struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* usable bytes in data */
    size_t used;
    max_align_t data[];
};

struct fsc_cfg_arena {
    struct arena_chunk *head;
    size_t total; /* bytes of all chunks, headers included */
    size_t limit;
};

struct fsc_cfg_arena *fsc_cfg_arena_create(size_t limit)
{
    struct fsc_cfg_arena *arena = calloc(1, sizeof(*arena));
    if (arena == NULL)
        return NULL;
    arena->limit = limit;
    return arena;
}

void fsc_cfg_arena_destroy(struct fsc_cfg_arena *arena)
{
    if (arena == NULL)
        return;
    struct arena_chunk *c = arena->head;
    while (c != NULL) {
        struct arena_chunk *next = c->next;
        gnutls_memset(c->data, 0, c->used); /* not elided before free(), unlike memset */
        free(c);
        c = next;
    }
    free(arena);
}

void *fsc_cfg_arena_alloc(struct fsc_cfg_arena *arena, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > arena->limit)
        return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    struct arena_chunk *c = arena->head;
    if (c == NULL || c->size - c->used < size) {
        size_t want = size > ARENA_CHUNK ? size : ARENA_CHUNK;
        size_t bytes = sizeof(*c) + want;
        if (arena->total + bytes > arena->limit)
            return NULL;
        c = malloc(bytes);
        if (c == NULL)
            return NULL;
        c->size = want;
        c->used = 0;
        c->next = arena->head;
        arena->head = c;
        arena->total += bytes;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *fsc_cfg_arena_strndup(struct fsc_cfg_arena *arena, const char *s, size_t len)
{
    char *p = fsc_cfg_arena_alloc(arena, len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* ---- tree ----------------------------------------------------------------- */

/* One open collection while its events arrive. Children are gathered in a
 * heap buffer (their count is unknown until the end event) and copied into
 * the arena when the collection closes. Mappings store key, value, key, ... */
struct frame {
    struct fsc_ynode *node;
    struct fsc_ynode **kids;
    size_t n, cap;
};

struct builder {
    struct fsc_cfg_arena *arena;
    struct fsc_yerror *yerr;
    struct frame stack[FSC_YTREE_MAX_DEPTH];
    size_t depth;
    size_t nodes;
    struct fsc_ynode *root;
    unsigned documents;
};

static int fail(struct builder *b, const yaml_mark_t *mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct builder *b, const yaml_mark_t *mark, const char *fmt, ...)
{
    va_list ap;
    b->yerr->line = mark ? (uint32_t)mark->line + 1 : 0;
    b->yerr->col = mark ? (uint32_t)mark->column + 1 : 0;
    va_start(ap, fmt);
    vsnprintf(b->yerr->msg, sizeof(b->yerr->msg), fmt, ap);
    va_end(ap);
    return -1;
}

static struct fsc_ynode *new_node(struct builder *b, enum fsc_ynode_kind kind,
                                  const yaml_mark_t *mark)
{
    if (b->nodes >= FSC_YTREE_MAX_NODES) {
        fail(b, mark, "the document has more than %d nodes", FSC_YTREE_MAX_NODES);
        return NULL;
    }
    struct fsc_ynode *node = fsc_cfg_arena_alloc(b->arena, sizeof(*node));
    if (node == NULL) {
        fail(b, mark, "out of memory while reading the document");
        return NULL;
    }
    b->nodes++;
    node->kind = (uint8_t)kind;
    node->line = (uint32_t)mark->line + 1;
    node->col = (uint32_t)mark->column + 1;
    return node;
}

/* Anchors, aliases and tags are refused wherever they appear. */
static int check_props(struct builder *b, const yaml_mark_t *mark, const yaml_char_t *anchor,
                       const yaml_char_t *tag)
{
    if (anchor != NULL)
        return fail(b, mark, "anchors and aliases (&%.40s) are not supported",
                    (const char *)anchor);
    if (tag != NULL)
        return fail(b, mark, "tags (%.40s) are not supported", (const char *)tag);
    return 0;
}

static int push_kid(struct builder *b, struct frame *f, struct fsc_ynode *kid)
{
    if (f->node->kind == FSC_YNODE_MAP && f->n % 2 == 0 && kid->kind != FSC_YNODE_SCALAR) {
        yaml_mark_t m = {.line = kid->line - 1, .column = kid->col - 1};
        return fail(b, &m, "mapping keys must be plain scalars");
    }
    size_t limit = f->node->kind == FSC_YNODE_MAP ? 2u * FSC_YTREE_MAX_MAP : FSC_YTREE_MAX_SEQ;
    if (f->n >= limit) {
        yaml_mark_t m = {.line = kid->line - 1, .column = kid->col - 1};
        return fail(b, &m, "a %s has more than %d entries",
                    f->node->kind == FSC_YNODE_MAP ? "mapping" : "sequence",
                    f->node->kind == FSC_YNODE_MAP ? FSC_YTREE_MAX_MAP : FSC_YTREE_MAX_SEQ);
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        struct fsc_ynode **kids = realloc(f->kids, cap * sizeof(*kids));
        if (kids == NULL) {
            yaml_mark_t m = {.line = kid->line - 1, .column = kid->col - 1};
            return fail(b, &m, "out of memory while reading the document");
        }
        f->kids = kids;
        f->cap = cap;
    }
    f->kids[f->n++] = kid;
    return 0;
}

/* Hands a finished node to the open collection, or makes it the root. */
static int attach(struct builder *b, struct fsc_ynode *node)
{
    if (b->depth == 0) {
        b->root = node;
        return 0;
    }
    return push_kid(b, &b->stack[b->depth - 1], node);
}

static int open_collection(struct builder *b, enum fsc_ynode_kind kind, const yaml_mark_t *mark)
{
    if (b->depth >= FSC_YTREE_MAX_DEPTH)
        return fail(b, mark, "collections are nested deeper than %d levels", FSC_YTREE_MAX_DEPTH);
    struct fsc_ynode *node = new_node(b, kind, mark);
    if (node == NULL)
        return -1;
    struct frame *f = &b->stack[b->depth++];
    memset(f, 0, sizeof(*f));
    f->node = node;
    return 0;
}

static int cmp_key_ptr(const void *a, const void *b)
{
    const struct fsc_ynode *ka = *(const struct fsc_ynode *const *)a;
    const struct fsc_ynode *kb = *(const struct fsc_ynode *const *)b;
    int c = strcmp(ka->str, kb->str);
    if (c != 0)
        return c;
    return ka->line != kb->line ? (ka->line < kb->line ? -1 : 1)
                                : (ka->col < kb->col ? -1 : ka->col > kb->col);
}

/* Duplicate keys: sort pointers to the keys (bounded by FSC_YTREE_MAX_MAP)
 * and report the later of the first equal neighbours found. */
static int check_duplicates(struct builder *b, struct fsc_ynode *map)
{
    if (map->n < 2)
        return 0;
    struct fsc_ynode **keys = malloc(map->n * sizeof(*keys));
    if (keys == NULL) {
        yaml_mark_t m = {.line = map->line - 1, .column = map->col - 1};
        return fail(b, &m, "out of memory while reading the document");
    }
    for (size_t i = 0; i < map->n; i++)
        keys[i] = map->pairs[i].key;
    qsort(keys, map->n, sizeof(*keys), cmp_key_ptr);
    const struct fsc_ynode *dup = NULL, *first = NULL;
    for (size_t i = 1; i < map->n; i++) {
        if (strcmp(keys[i - 1]->str, keys[i]->str) == 0 &&
            (dup == NULL || keys[i]->line < dup->line)) {
            dup = keys[i];
            first = keys[i - 1];
        }
    }
    int rc = 0;
    if (dup != NULL) {
        yaml_mark_t m = {.line = dup->line - 1, .column = dup->col - 1};
        rc = fail(b, &m, "duplicate key \"%.64s\" (first at line %u)", dup->str,
                  (unsigned)first->line);
    }
    free(keys);
    return rc;
}

static int close_collection(struct builder *b, const yaml_mark_t *mark)
{
    struct frame *f = &b->stack[b->depth - 1];
    struct fsc_ynode *node = f->node;
    int rc = 0;
    if (node->kind == FSC_YNODE_SEQ) {
        node->n = f->n;
        node->items = fsc_cfg_arena_alloc(b->arena, (f->n ? f->n : 1) * sizeof(*node->items));
        if (node->items == NULL)
            rc = fail(b, mark, "out of memory while reading the document");
        else if (f->n)
            memcpy(node->items, f->kids, f->n * sizeof(*node->items));
    } else {
        node->n = f->n / 2;
        node->pairs = fsc_cfg_arena_alloc(b->arena, (node->n ? node->n : 1) * sizeof(*node->pairs));
        if (node->pairs == NULL) {
            rc = fail(b, mark, "out of memory while reading the document");
        } else {
            for (size_t i = 0; i < node->n; i++) {
                node->pairs[i].key = f->kids[2 * i];
                node->pairs[i].value = f->kids[2 * i + 1];
            }
            rc = check_duplicates(b, node);
        }
    }
    free(f->kids);
    f->kids = NULL;
    b->depth--;
    return rc ? rc : attach(b, node);
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
    const yaml_mark_t *mark = &ev->start_mark;
    if (check_props(b, mark, ev->data.scalar.anchor, ev->data.scalar.tag) != 0)
        return -1;
    size_t len = ev->data.scalar.length;
    if (len > FSC_YTREE_MAX_SCALAR)
        return fail(b, mark, "a value is longer than %d bytes", FSC_YTREE_MAX_SCALAR);
    const char *text = (const char *)ev->data.scalar.value;
    if (memchr(text, '\0', len) != NULL)
        return fail(b, mark, "a value contains a NUL character");
    struct fsc_ynode *node = new_node(b, FSC_YNODE_SCALAR, mark);
    if (node == NULL)
        return -1;
    node->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    node->n = len;
    node->str = fsc_cfg_arena_strndup(b->arena, text, len);
    if (node->str == NULL)
        return fail(b, mark, "out of memory while reading the document");
    return attach(b, node);
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
    const yaml_mark_t *mark = &ev->start_mark;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->documents > 1)
            return fail(b, mark, "only one YAML document is allowed (found a second \"---\")");
        return 0;
    case YAML_SCALAR_EVENT:
        return on_scalar(b, ev);
    case YAML_SEQUENCE_START_EVENT:
        if (check_props(b, mark, ev->data.sequence_start.anchor, ev->data.sequence_start.tag))
            return -1;
        return open_collection(b, FSC_YNODE_SEQ, mark);
    case YAML_MAPPING_START_EVENT:
        if (check_props(b, mark, ev->data.mapping_start.anchor, ev->data.mapping_start.tag))
            return -1;
        return open_collection(b, FSC_YNODE_MAP, mark);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return close_collection(b, mark);
    case YAML_ALIAS_EVENT:
        return fail(b, mark, "anchors and aliases (*%.40s) are not supported",
                    (const char *)ev->data.alias.anchor);
    default:
        return 0;
    }
}

/* Line and column of a byte offset, for reader errors that carry no mark. */
static void offset_mark(const char *text, size_t len, size_t off, yaml_mark_t *mark)
{
    mark->line = 0;
    mark->column = 0;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            mark->line++;
            mark->column = 0;
        } else {
            mark->column++;
        }
    }
}

static int syntax_error(struct builder *b, const yaml_parser_t *parser, const char *text,
                        size_t len)
{
    const char *problem = parser->problem ? parser->problem : "unknown error";
    switch (parser->error) {
    case YAML_MEMORY_ERROR:
        return fail(b, NULL, "out of memory while reading the document");
    case YAML_READER_ERROR: {
        yaml_mark_t m;
        offset_mark(text, len, parser->problem_offset, &m);
        return fail(b, &m, "invalid YAML: %s", problem);
    }
    default:
        if (parser->context != NULL)
            return fail(b, &parser->problem_mark, "invalid YAML: %s (%s at line %u)", problem,
                        parser->context, (unsigned)parser->context_mark.line + 1);
        return fail(b, &parser->problem_mark, "invalid YAML: %s", problem);
    }
}

int fsc_ytree_parse(const char *text, size_t len, struct fsc_cfg_arena *arena,
                    struct fsc_ynode **root, struct fsc_yerror *yerr)
{
    struct builder b;
    memset(&b, 0, sizeof(b));
    b.arena = arena;
    b.yerr = yerr;
    memset(yerr, 0, sizeof(*yerr));
    *root = NULL;

    /* libyaml would stop at a NUL; say where it is instead. */
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) {
        yaml_mark_t m;
        offset_mark(text, len, (size_t)(nul - text), &m);
        return fail(&b, &m, "the file contains a NUL byte");
    }

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return fail(&b, NULL, "out of memory while reading the document");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);

    int rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(&b, &parser, text, len);
            break;
        }
        int done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(&b, &ev);
        yaml_event_delete(&ev);
        if (rc != 0 || done)
            break;
    }
    yaml_parser_delete(&parser);
    for (size_t i = 0; i < b.depth; i++)
        free(b.stack[i].kids);
    if (rc == 0)
        *root = b.root;
    return rc;
}

const struct fsc_ypair *fsc_ymap_get(const struct fsc_ynode *map, const char *key)
{
    if (map == NULL || map->kind != FSC_YNODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        if (strcmp(map->pairs[i].key->str, key) == 0)
            return &map->pairs[i];
    }
    return NULL;
}

int fsc_ynode_is_null(const struct fsc_ynode *node)
{
    if (node == NULL || node->kind != FSC_YNODE_SCALAR || node->quoted)
        return 0;
    return node->n == 0 || strcmp(node->str, "~") == 0 || strcmp(node->str, "null") == 0 ||
           strcmp(node->str, "Null") == 0 || strcmp(node->str, "NULL") == 0;
}
