/* Detector state pools (contract in engine_int.h): fixed-size elements in chunks
 * of FSC_POOL_CHUNK, so a million detector states never need one giant
 * realloc, with an optional parallel array whose chunks are cache-line
 * aligned (the microburst pool's utilization histograms: one line each).
 * Thread: the engine lock is held by every caller. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

static int pool_grow(struct fsc_pool *p)
{
    if (p->n_chunks == p->cap_chunks) {
        uint32_t cap = p->cap_chunks ? p->cap_chunks * 2 : 8;
        unsigned char **chunks = realloc(p->chunks, (size_t)cap * sizeof(*chunks));
        if (!chunks)
            return -ENOMEM;
        p->chunks = chunks;
        if (p->elem2) {
            unsigned char **chunks2 = realloc(p->chunks2, (size_t)cap * sizeof(*chunks2));
            if (!chunks2)
                return -ENOMEM; /* chunks is merely larger than needed: still valid */
            p->chunks2 = chunks2;
        }
        p->cap_chunks = cap;
    }
    unsigned char *c = calloc(FSC_POOL_CHUNK, p->elem);
    if (!c)
        return -ENOMEM;
    if (p->elem2) {
        /* elem2 is a multiple of the alignment, so the size is too. */
        size_t bytes = (size_t)FSC_POOL_CHUNK * p->elem2;
        unsigned char *c2 = aligned_alloc(FSC_POOL_ALIGN2, bytes);
        if (!c2) {
            free(c);
            return -ENOMEM;
        }
        memset(c2, 0, bytes);
        p->chunks2[p->n_chunks] = c2;
    }
    p->chunks[p->n_chunks++] = c;
    return 0;
}

/* Hands out a zeroed element (both arrays). Returns 0 or -ENOMEM. */
int fsc_pool_alloc(struct fsc_pool *p, uint32_t *idx)
{
    if (p->n_free > 0) {
        *idx = p->free_idx[--p->n_free];
        memset(fsc_pool_at(p, *idx), 0, p->elem);
        if (p->elem2)
            memset(fsc_pool_at2(p, *idx), 0, p->elem2);
        return 0;
    }
    if (p->used == p->n_chunks * FSC_POOL_CHUNK && pool_grow(p) != 0)
        return -ENOMEM;
    *idx = p->used++;
    return 0;
}

/* A slot that cannot be put on the free list is simply not reused: it stays
 * inside memory already counted, so nothing grows without bound. */
void fsc_pool_release(struct fsc_pool *p, uint32_t idx)
{
    if (p->n_free == p->cap_free) {
        uint32_t cap = p->cap_free ? p->cap_free * 2 : 64;
        uint32_t *f = realloc(p->free_idx, (size_t)cap * sizeof(*f));
        if (!f)
            return;
        p->free_idx = f;
        p->cap_free = cap;
    }
    p->free_idx[p->n_free++] = idx;
}

void fsc_pool_free(struct fsc_pool *p)
{
    for (uint32_t c = 0; c < p->n_chunks; c++) {
        free(p->chunks[c]);
        if (p->elem2)
            free(p->chunks2[c]);
    }
    free(p->chunks);
    free(p->chunks2);
    free(p->free_idx);
}

size_t fsc_pool_memory(const struct fsc_pool *p)
{
    size_t per_chunk = (size_t)FSC_POOL_CHUNK * (p->elem + p->elem2);
    size_t tables = (size_t)p->cap_chunks * sizeof(void *) * (p->elem2 ? 2 : 1);
    return (size_t)p->n_chunks * per_chunk + tables + (size_t)p->cap_free * sizeof(uint32_t);
}
