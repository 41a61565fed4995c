/* `fabricscope plan --apply`: runs one node's rendered plan block on this
 * host (plan_apply.c). Command code of plan_cmd.c. */
#ifndef FSC_APP_PLAN_APPLY_H
#define FSC_APP_PLAN_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "model/cable_plan.h"

/* Applies node `node`'s block, text[0..len) as fsc_cabling_render_node()
 * wrote it (what `plan --dry-run --node N` prints), on this host, in the
 * caller's network namespace:
 *   1. every cabled interface of the node in `cab` must exist here
 *      (if_nametoindex); otherwise nothing is run, and stderr names the
 *      missing ones;
 *   2. each line that is not blank or a `#` comment is an `ip` command: it
 *      is echoed on stdout as `+ LINE`, then run as `ip` (PATH lookup, no
 *      shell; the words are split at spaces) with this process's stdin,
 *      stdout and stderr; the first one that fails stops the run;
 *   3. a last stdout line counts the commands and interfaces.
 * Owns nothing after it returns. Returns the command's exit status: 0 all
 * ran, 1 an interface is missing, a command failed or could not start, or a
 * line is not an `ip` command of at most 15 words (messages on stderr). */
int fsc_plan_apply(const char *text, size_t len, const struct fsc_cabling *cab, uint32_t node);

#endif
