/* Edit distance and the nearest name (closest.h). */
#include "base/closest.h"

#include <stdint.h>
#include <string.h>

#define MAX_WORD 64

size_t fsc_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX_WORD || lb > MAX_WORD)
        return SIZE_MAX;
    size_t d[MAX_WORD + 1][MAX_WORD + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

int fsc_close_enough(const char *word, size_t d)
{
    return d <= (strlen(word) >= 6 ? 2u : 1u);
}

const char *fsc_closest_name(const char *word, const char *const *names, size_t n)
{
    size_t best_d = SIZE_MAX;
    const char *best = NULL;
    for (size_t i = 0; i < n && names[i]; i++) {
        size_t d = fsc_edit_distance(word, names[i]);
        if (d != SIZE_MAX && fsc_close_enough(word, d) && d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}
