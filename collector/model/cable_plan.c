/* The B300 cable plan: parser, expected map, lookups. The rules (one cable =
 * np0 and np1 links, 10.1<a><b>.<link>.<end>/30, links numbered from 1 by
 * node a's port) are stated in cable_plan.h and docs/CABLING.md; rendering
 * is in cable_plan_render.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "model/cable_plan.h"

/* One end of a cable as written: node and port, and where it was. */
struct cable_end {
    uint32_t node, port;
    uint32_t col;                    /* of the node digit */
    const char *node_txt, *port_txt; /* the digits, for messages */
    size_t node_len, port_len;
};

struct cable {
    struct cable_end a, b; /* as written; a is not necessarily the lower node */
    uint32_t line;
    uint32_t link_base; /* link number of the np0 link (np1 is link_base + 1) */
};

struct fsc_cabling {
    struct fsc_cable_layout lay;
    struct cable cables[FSC_CABLING_MAX_CABLES];
    size_t n_cables;
    /* cable index + 1 at [node][port], 0 = free; [0][*] and [*][0] unused */
    uint8_t at[FSC_CABLE_MAX_NODE + 1][FSC_B300_PORTS + 1];
    struct fsc_cabling_iface ifaces[FSC_CABLE_MAX_NODE * FSC_CABLING_IFACES];
    size_t n_ifaces;
    int16_t first[FSC_CABLE_MAX_NODE + 1]; /* index of the node's slice, -1: none */
};

/* ---- layout ------------------------------------------------------------------ */

void fsc_cable_layout_default(struct fsc_cable_layout *lay)
{
    memset(lay, 0, sizeof(*lay));
    for (size_t p = 0; p < FSC_B300_PORTS; p++)
        lay->port_card[p] = (uint8_t)fsc_cable_default_port_cards[p];
    for (size_t c = 0; c < FSC_B300_CARDS; c++) {
        for (size_t np = 0; np < 2; np++)
            snprintf(lay->ifname[c][np], sizeof(lay->ifname[c][np]), "%s",
                     fsc_cable_default_ifnames[c][np]);
    }
    lay->speed_bps = FSC_CABLE_DEFAULT_SPEED_BPS;
    lay->default_names = (uint8_t)((1u << FSC_B300_CARDS) - 1);
}

int fsc_cable_layout_from_config(struct fsc_cable_layout *lay, const struct fsc_cable_plan *cp,
                                 char *err, size_t errlen)
{
    fsc_cable_layout_default(lay);
    if (cp == NULL || !cp->present)
        return 0;
    unsigned seen = 0;
    for (size_t p = 0; p < FSC_B300_PORTS; p++) {
        uint32_t c = cp->port_cards[p];
        if (c >= FSC_B300_CARDS || (seen & (1u << c))) {
            snprintf(err, errlen, "port_cards is not a permutation of the cards 0..%d",
                     FSC_B300_CARDS - 1);
            return -EINVAL;
        }
        seen |= 1u << c;
        lay->port_card[p] = (uint8_t)c;
    }
    if (cp->n_cards != FSC_B300_CARDS) {
        snprintf(err, errlen, "cards has %zu entries, not %d", cp->n_cards, FSC_B300_CARDS);
        return -EINVAL;
    }
    for (size_t i = 0; i < cp->n_cards; i++) {
        const struct fsc_cable_card *card = &cp->cards[i];
        const char *names[2] = {card->np0, card->np1};
        if (card->card >= FSC_B300_CARDS) {
            snprintf(err, errlen, "card %u is out of range", (unsigned)card->card);
            return -EINVAL;
        }
        for (size_t np = 0; np < 2; np++) {
            if (names[np] == NULL || names[np][0] == '\0' ||
                strlen(names[np]) >= FSC_CABLING_IFNAME_SIZE) {
                snprintf(err, errlen, "card %u has no valid np%zu name", (unsigned)card->card, np);
                return -EINVAL;
            }
            memcpy(lay->ifname[card->card][np], names[np], strlen(names[np]) + 1);
        }
        /* The config loader completes cards with defaults marked 0:0. */
        if (card->mark.line != 0)
            lay->default_names &= (uint8_t) ~(1u << card->card);
    }
    lay->speed_bps = cp->speed_bps ? cp->speed_bps : FSC_CABLE_DEFAULT_SPEED_BPS;
    return 0;
}

/* ---- parsing ----------------------------------------------------------------- */

struct parser {
    const char *name;
    char *err;
    size_t errlen;
    uint32_t line;
    const char *bol; /* beginning of the current line */
    const char *p, *eol;
};

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes "name:line:col: sentence" (col of `at`, 1-based) and returns -1. */
static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->errlen, "%s:%u:%u: ", ps->name, (unsigned)ps->line,
                     (unsigned)(at - ps->bol + 1));
    if (n >= 0 && (size_t)n < ps->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->eol && is_space(*ps->p))
        ps->p++;
}

#define SYNTAX_HINT " (a cable is written A-P > B-Q, e.g. 1-3 > 2-3)"

/* "expected WHAT, found 'x'" at the cursor. */
static int expected(struct parser *ps, const char *what)
{
    char found[32];
    if (ps->p >= ps->eol || *ps->p == '#')
        snprintf(found, sizeof(found), "the end of the line");
    else if (is_space(*ps->p))
        snprintf(found, sizeof(found), "white space");
    else if (*ps->p > ' ' && *ps->p < 0x7f)
        snprintf(found, sizeof(found), "'%c'", *ps->p);
    else
        snprintf(found, sizeof(found), "byte 0x%02x", (unsigned)(unsigned char)*ps->p);
    return fail(ps, ps->p, "expected %s, found %s" SYNTAX_HINT, what, found);
}

/* Decimal digits at the cursor; values beyond 6 digits saturate (they are
 * out of range anyway, and the message quotes the text). */
static int number(struct parser *ps, const char *what, uint32_t *val, const char **txt, size_t *len)
{
    if (ps->p >= ps->eol || !is_digit(*ps->p))
        return expected(ps, what);
    *txt = ps->p;
    uint32_t v = 0;
    while (ps->p < ps->eol && is_digit(*ps->p)) {
        if (v < 1000000)
            v = v * 10 + (uint32_t)(*ps->p - '0');
        ps->p++;
    }
    *val = v;
    *len = (size_t)(ps->p - *txt);
    return 0;
}

/* NODE-PORT, one token. */
static int cable_end(struct parser *ps, struct cable_end *end)
{
    end->col = (uint32_t)(ps->p - ps->bol + 1);
    if (number(ps, "a node number", &end->node, &end->node_txt, &end->node_len) != 0)
        return -1;
    if (ps->p >= ps->eol || *ps->p != '-')
        return expected(ps, "'-' right after the node number");
    ps->p++;
    return number(ps, "a port number", &end->port, &end->port_txt, &end->port_len);
}

/* Node and port ranges of one end, node first. */
static int check_end(struct parser *ps, const struct cable_end *end)
{
    const char *at = ps->bol + end->col - 1;
    int nl = end->node_len > 12 ? 12 : (int)end->node_len;
    int pl = end->port_len > 12 ? 12 : (int)end->port_len;
    if (end->node < 1 || end->node > FSC_CABLE_MAX_NODE)
        return fail(ps, at,
                    "node %.*s is out of range 1-%d (one digit per node in "
                    "10.1<a><b>.<link>.<end>)",
                    nl, end->node_txt, FSC_CABLE_MAX_NODE);
    if (end->port < 1 || end->port > FSC_B300_PORTS)
        return fail(ps, end->port_txt, "port %.*s is out of range 1-%d (a B300 node has %d ports)",
                    pl, end->port_txt, FSC_B300_PORTS, FSC_B300_PORTS);
    return 0;
}

/* A port already used by an earlier cable. */
static int check_free(struct parser *ps, const struct fsc_cabling *cab, const struct cable_end *end)
{
    uint8_t used = cab->at[end->node][end->port];
    if (used == 0)
        return 0;
    return fail(ps, ps->bol + end->col - 1,
                "node %u port %u is already used by the cable on line %u", (unsigned)end->node,
                (unsigned)end->port, (unsigned)cab->cables[used - 1].line);
}

/* One line: blank, comment, or a cable (added to cab). */
static int parse_line(struct parser *ps, struct fsc_cabling *cab)
{
    struct cable c = {.line = ps->line};
    skip_space(ps);
    if (ps->p >= ps->eol || *ps->p == '#')
        return 0;
    if (cable_end(ps, &c.a) != 0)
        return -1;
    skip_space(ps);
    if (ps->p >= ps->eol || *ps->p != '>')
        return expected(ps, "'>' between the two ends");
    ps->p++;
    skip_space(ps);
    if (cable_end(ps, &c.b) != 0)
        return -1;
    skip_space(ps);
    if (ps->p < ps->eol && *ps->p != '#')
        return expected(ps, "the end of the line (or a # comment) after the cable");
    if (check_end(ps, &c.a) != 0 || check_end(ps, &c.b) != 0)
        return -1;
    if (c.a.node == c.b.node)
        return fail(ps, ps->bol + c.b.col - 1,
                    "the cable connects node %u to itself (ports %u and %u)", (unsigned)c.a.node,
                    (unsigned)c.a.port, (unsigned)c.b.port);
    if (check_free(ps, cab, &c.a) != 0 || check_free(ps, cab, &c.b) != 0)
        return -1;
    /* Two distinct free ports per cable among 9 x 8: never more than the
     * array holds. */
    if (cab->n_cables >= FSC_CABLING_MAX_CABLES)
        return fail(ps, ps->bol, "more than %d cables", FSC_CABLING_MAX_CABLES);
    cab->cables[cab->n_cables++] = c;
    cab->at[c.a.node][c.a.port] = (uint8_t)cab->n_cables;
    cab->at[c.b.node][c.b.port] = (uint8_t)cab->n_cables;
    return 0;
}

/* ---- the expected map -------------------------------------------------------- */

const char *fsc_cabling_addr_format(uint32_t addr, char *buf, size_t size)
{
    snprintf(buf, size, "%u.%u.%u.%u", (unsigned)(addr >> 24), (unsigned)(addr >> 16 & 0xff),
             (unsigned)(addr >> 8 & 0xff), (unsigned)(addr & 0xff));
    return buf;
}

/* 10.1<a><b>.<link>.<end> */
static uint32_t plan_addr(uint32_t a, uint32_t b, uint32_t link, uint32_t end)
{
    return 10u << 24 | (100 + 10 * a + b) << 16 | link << 8 | end;
}

/* Numbers the links of every node pair: cables ordered by the lower node's
 * port, two links each. */
static void number_links(struct fsc_cabling *cab)
{
    uint8_t count[FSC_CABLE_MAX_NODE + 1][FSC_CABLE_MAX_NODE + 1] = {{0}};
    for (uint32_t a = 1; a <= FSC_CABLE_MAX_NODE; a++) {
        for (uint32_t p = 1; p <= FSC_B300_PORTS; p++) {
            if (cab->at[a][p] == 0)
                continue;
            struct cable *c = &cab->cables[cab->at[a][p] - 1];
            uint32_t b = c->a.node == a ? c->b.node : c->a.node;
            if (b < a)
                continue; /* numbered from b's side */
            c->link_base = 2u * count[a][b]++ + 1;
        }
    }
}

static void fill_iface(struct fsc_cabling *cab, struct fsc_cabling_iface *ifc, uint32_t node,
                       uint32_t port, uint32_t np)
{
    const struct fsc_cable_layout *lay = &cab->lay;
    ifc->node = node;
    ifc->port = port;
    ifc->card = lay->port_card[port - 1];
    ifc->np = np;
    ifc->ifname = lay->ifname[ifc->card][np];
    if (cab->at[node][port] == 0)
        return;
    const struct cable *c = &cab->cables[cab->at[node][port] - 1];
    const struct cable_end *peer = c->a.node == node ? &c->b : &c->a;
    ifc->cabled = true;
    ifc->peer_node = peer->node;
    ifc->peer_port = peer->port;
    ifc->peer_card = lay->port_card[peer->port - 1];
    ifc->peer_ifname = lay->ifname[ifc->peer_card][np];
    ifc->link = c->link_base + np;
    uint32_t a = node < peer->node ? node : peer->node;
    uint32_t b = node < peer->node ? peer->node : node;
    ifc->addr = plan_addr(a, b, ifc->link, node == a ? 1 : 2);
    ifc->peer_addr = plan_addr(a, b, ifc->link, node == a ? 2 : 1);
    fsc_cabling_addr_format(ifc->addr, ifc->addr_text, sizeof(ifc->addr_text));
    fsc_cabling_addr_format(ifc->peer_addr, ifc->peer_addr_text, sizeof(ifc->peer_addr_text));
    ifc->speed_bps = lay->speed_bps;
    ifc->line = c->line;
}

static void build_map(struct fsc_cabling *cab)
{
    number_links(cab);
    for (uint32_t n = 1; n <= FSC_CABLE_MAX_NODE; n++) {
        bool present = false;
        for (uint32_t p = 1; p <= FSC_B300_PORTS; p++)
            present = present || cab->at[n][p] != 0;
        if (!present)
            continue;
        cab->first[n] = (int16_t)cab->n_ifaces;
        for (uint32_t p = 1; p <= FSC_B300_PORTS; p++) {
            for (uint32_t np = 0; np < 2; np++)
                fill_iface(cab, &cab->ifaces[cab->n_ifaces++], n, p, np);
        }
    }
}

/* ---- public ------------------------------------------------------------------ */

struct fsc_cabling *fsc_cabling_parse(const char *text, size_t len, const char *name,
                                      const struct fsc_cable_layout *lay, char *err, size_t errlen)
{
    if (len > FSC_CABLING_MAX_FILE) {
        snprintf(err, errlen, "%s: the file is larger than %d bytes", name, FSC_CABLING_MAX_FILE);
        return NULL;
    }
    struct fsc_cabling *cab = calloc(1, sizeof(*cab));
    if (cab == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (lay != NULL)
        cab->lay = *lay;
    else
        fsc_cable_layout_default(&cab->lay);
    for (size_t n = 0; n <= FSC_CABLE_MAX_NODE; n++)
        cab->first[n] = -1;

    struct parser ps = {.name = name, .err = err, .errlen = errlen};
    const char *end = text + len;
    /* Every iteration consumes one line; len is bounded above. */
    for (const char *bol = text; bol < end;) {
        const char *nl = memchr(bol, '\n', (size_t)(end - bol));
        const char *eol = nl ? nl : end;
        ps.line++;
        ps.bol = ps.p = bol;
        ps.eol = eol;
        if (eol - bol > FSC_CABLING_MAX_LINE) {
            fail(&ps, bol + FSC_CABLING_MAX_LINE, "the line is longer than %d bytes",
                 FSC_CABLING_MAX_LINE);
            goto fail;
        }
        if (parse_line(&ps, cab) != 0)
            goto fail;
        bol = nl ? nl + 1 : end;
    }
    if (cab->n_cables == 0) {
        snprintf(err, errlen, "%s: no cables (every line is blank or a comment)", name);
        goto fail;
    }
    build_map(cab);
    return cab;
fail:
    free(cab);
    return NULL;
}

struct fsc_cabling *fsc_cabling_load(const char *path, const struct fsc_cable_layout *lay,
                                     char *err, size_t errlen)
{
    char why[128];
    int fd = fsc_file_open_regular(path, why, sizeof(why));
    if (fd == -1) {
        snprintf(err, errlen, "%s: %s", path, why);
        return NULL;
    }
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    struct fsc_cabling *cab = NULL;
    if (fstat(fd, &st) == -1) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", path);
        goto out;
    }
    /* Read one byte past the limit so the parser can say "too large"
     * whatever st_size claims (pipes, /proc). */
    text = malloc(FSC_CABLING_MAX_FILE + 1);
    if (text == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    while (len < FSC_CABLING_MAX_FILE + 1) {
        ssize_t r = read(fd, text + len, FSC_CABLING_MAX_FILE + 1 - len);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    cab = fsc_cabling_parse(text, len, path, lay, err, errlen);
out:
    free(text);
    close(fd);
    return cab;
}

void fsc_cabling_destroy(struct fsc_cabling *cab)
{
    free(cab);
}

const struct fsc_cable_layout *fsc_cabling_layout(const struct fsc_cabling *cab)
{
    return &cab->lay;
}

size_t fsc_cabling_n_cables(const struct fsc_cabling *cab)
{
    return cab->n_cables;
}

size_t fsc_cabling_n_ifaces(const struct fsc_cabling *cab)
{
    return cab->n_ifaces;
}

const struct fsc_cabling_iface *fsc_cabling_iface(const struct fsc_cabling *cab, size_t i)
{
    return i < cab->n_ifaces ? &cab->ifaces[i] : NULL;
}

const struct fsc_cabling_iface *fsc_cabling_node(const struct fsc_cabling *cab, uint32_t node)
{
    if (node < 1 || node > FSC_CABLE_MAX_NODE || cab->first[node] < 0)
        return NULL;
    return &cab->ifaces[cab->first[node]];
}

const struct fsc_cabling_iface *fsc_cabling_find(const struct fsc_cabling *cab, uint32_t node,
                                                 const char *ifname)
{
    const struct fsc_cabling_iface *ifc = fsc_cabling_node(cab, node);
    for (size_t i = 0; ifc != NULL && i < FSC_CABLING_IFACES; i++) {
        if (strcmp(ifc[i].ifname, ifname) == 0)
            return &ifc[i];
    }
    return NULL;
}
