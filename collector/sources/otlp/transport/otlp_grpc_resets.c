/* Per-connection reset budget (contract in otlp_grpc_resets.h). */
#include "sources/otlp/transport/otlp_grpc_resets.h"

#include <stdlib.h>
#include <string.h>

#define SEC_NS ((int64_t)1000000000)

struct conn_row {
    char name[FSC_GRPC_CONN_NAME_MAX]; /* "" = free */
    int64_t tat_ns;                    /* theoretical arrival time of the next reset */
    int64_t last_ns;                   /* last seen, for eviction */
    int closed;
};

struct fsc_grpc_resets {
    int64_t step_ns; /* 1 s / per_s */
    size_t n;
    struct conn_row rows[];
};

struct fsc_grpc_resets *fsc_grpc_resets_create(unsigned per_s, size_t rows)
{
    if (per_s == 0 || rows == 0)
        return NULL;
    struct fsc_grpc_resets *r = calloc(1, sizeof(*r) + rows * sizeof(r->rows[0]));
    if (!r)
        return NULL;
    r->step_ns = SEC_NS / per_s > 0 ? SEC_NS / per_s : 1;
    r->n = rows;
    return r;
}

void fsc_grpc_resets_destroy(struct fsc_grpc_resets *r)
{
    free(r);
}

static struct conn_row *find(struct fsc_grpc_resets *r, const char *conn)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->rows[i].name[0] != '\0' &&
            strncmp(r->rows[i].name, conn, FSC_GRPC_CONN_NAME_MAX - 1) == 0)
            return &r->rows[i];
    }
    return NULL;
}

/* A row for conn: its own, a free one, or the one seen least recently. */
static struct conn_row *take(struct fsc_grpc_resets *r, const char *conn)
{
    struct conn_row *row = find(r, conn);
    if (row)
        return row;
    for (size_t i = 0; i < r->n; i++) {
        if (r->rows[i].name[0] == '\0' || !row || r->rows[i].last_ns < row->last_ns)
            row = &r->rows[i];
        if (row->name[0] == '\0')
            break;
    }
    memset(row, 0, sizeof(*row));
    size_t len = strnlen(conn, FSC_GRPC_CONN_NAME_MAX - 1);
    memcpy(row->name, conn, len);
    row->name[len] = '\0';
    return row;
}

int fsc_grpc_resets_note_n(struct fsc_grpc_resets *r, const char *conn, uint64_t n, int64_t now_ns)
{
    if (conn[0] == '\0' || n == 0)
        return 0; /* the core gave no peer: nothing to close */
    struct conn_row *row = take(r, conn);
    row->last_ns = now_ns;
    if (row->closed)
        return 0;
    /* More than a second's worth at once is over whatever came before. */
    if (n > (uint64_t)(SEC_NS / r->step_ns)) {
        row->closed = 1;
        return 1;
    }
    int64_t tat = row->tat_ns > now_ns ? row->tat_ns : now_ns;
    tat += (int64_t)n * r->step_ns;
    if (tat - now_ns > SEC_NS) {
        row->closed = 1;
        return 1;
    }
    row->tat_ns = tat;
    return 0;
}

int fsc_grpc_resets_note(struct fsc_grpc_resets *r, const char *conn, int64_t now_ns)
{
    return fsc_grpc_resets_note_n(r, conn, 1, now_ns);
}

int fsc_grpc_resets_closed(struct fsc_grpc_resets *r, const char *conn, int64_t now_ns)
{
    if (conn[0] == '\0')
        return 0;
    struct conn_row *row = find(r, conn);
    if (!row || !row->closed)
        return 0;
    row->last_ns = now_ns;
    return 1;
}
