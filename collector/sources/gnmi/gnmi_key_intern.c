/* Encoded path keys interned once per process.
 *
 * Why: every decoder's path cache keeps the key bytes of each path it has
 * seen, and the zero tracker the key of each container instance. Devices of
 * one model send the same paths (the device is not part of a path), so at
 * 1 000 devices each distinct key was stored ~1 000 times: ~84 B per series
 * of the 400G port bench (docs/PERFORMANCE.md, "Memory per series"). Here
 * each distinct key is stored once, with a count of its holders, and freed
 * when the last one lets it go.
 *
 * Thread-safe (one mutex): only the slow paths take it (a path or an
 * instance seen for the first time, a decoder freed); lookups compare the
 * bytes an entry points at, which never move while it is held. */
#include "sources/gnmi/gnmi_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SEED      0x4b45592d494e544eULL
#define SLOTS_MIN 256u

struct ikey {
    uint64_t hash;
    uint8_t *bytes; /* NULL = empty slot; n bytes, owned */
    uint32_t n;
    uint32_t refs;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct ikey *tab; /* open addressing, load <= 1/2 */
static uint32_t mask, used;

static int tab_grow(void)
{
    uint32_t slots = tab ? 2 * (mask + 1) : SLOTS_MIN;
    struct ikey *t = calloc(slots, sizeof(*t));
    if (!t)
        return -1;
    for (uint32_t i = 0; tab && i <= mask; i++) {
        if (!tab[i].bytes)
            continue;
        uint32_t j = (uint32_t)tab[i].hash & (slots - 1);
        while (t[j].bytes)
            j = (j + 1) & (slots - 1);
        t[j] = tab[i];
    }
    free(tab);
    tab = t;
    mask = slots - 1;
    return 0;
}

const uint8_t *gnmi_key_intern(const uint8_t *key, size_t n)
{
    static const uint8_t empty[1];
    if (n == 0)
        return empty; /* never compared (n == 0), never released */
    uint64_t h = gnmi_key_hash(key, n, SEED);
    const uint8_t *out = NULL;
    pthread_mutex_lock(&mu);
    if ((!tab || (used + 1) * 2 > mask + 1) && tab_grow() != 0)
        goto done;
    uint32_t i = (uint32_t)h & mask;
    for (; tab[i].bytes; i = (i + 1) & mask) {
        struct ikey *e = &tab[i];
        if (e->hash == h && e->n == n && memcmp(e->bytes, key, n) == 0) {
            if (e->refs == UINT32_MAX)
                goto done; /* cannot count another holder */
            e->refs++;
            out = e->bytes;
            goto done;
        }
    }
    uint8_t *b = malloc(n);
    if (!b)
        goto done;
    memcpy(b, key, n);
    tab[i] = (struct ikey){.hash = h, .bytes = b, .n = (uint32_t)n, .refs = 1};
    used++;
    out = b;
done:
    pthread_mutex_unlock(&mu);
    return out;
}

void gnmi_key_release(const uint8_t *key, size_t n)
{
    if (!key || n == 0)
        return;
    uint64_t h = gnmi_key_hash(key, n, SEED);
    pthread_mutex_lock(&mu);
    uint32_t i = tab ? (uint32_t)h & mask : 0;
    while (tab && tab[i].bytes && tab[i].bytes != key)
        i = (i + 1) & mask;
    if (!tab || !tab[i].bytes || --tab[i].refs > 0) {
        pthread_mutex_unlock(&mu);
        return;
    }
    free(tab[i].bytes);
    used--;
    /* Backward-shift deletion keeps every probe run unbroken. */
    for (uint32_t j = i;;) {
        j = (j + 1) & mask;
        if (!tab[j].bytes)
            break;
        uint32_t home = (uint32_t)tab[j].hash & mask;
        /* tab[j] may move to i when i lies cyclically in [home, j). */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            tab[i] = tab[j];
            i = j;
        }
    }
    tab[i] = (struct ikey){0};
    if (used == 0) { /* the last decoder gone: nothing held */
        free(tab);
        tab = NULL;
        mask = 0;
    }
    pthread_mutex_unlock(&mu);
}

size_t gnmi_key_interned(void)
{
    pthread_mutex_lock(&mu);
    size_t n = used;
    pthread_mutex_unlock(&mu);
    return n;
}
