/* "Did you mean": the closest known name to a mistyped word, for the config
 * loader's unknown keys and values and the command line's unknown commands.
 * Pure functions: any thread. */
#ifndef FSC_CLOSEST_H
#define FSC_CLOSEST_H

#include <stddef.h>

/* Optimal string alignment distance between a and b (Levenshtein plus
 * adjacent swaps); SIZE_MAX when either is longer than 64 bytes. */
size_t fsc_edit_distance(const char *a, const char *b);

/* The name of names[0..n) (n = SIZE_MAX: up to a NULL entry) closest to
 * word, or NULL when none is close: at most 1 edit for words under 6
 * bytes, 2 from 6 on. The first of equally close names wins. */
const char *fsc_closest_name(const char *word, const char *const *names, size_t n);

/* Whether d edits make cand close enough to word (the rule above). */
int fsc_close_enough(const char *word, size_t d);

#endif
