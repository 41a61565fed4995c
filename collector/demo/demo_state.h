/* The demo's state directory (demo_state.c). Internal to collector/demo. */
#ifndef FSC_DEMO_STATE_H
#define FSC_DEMO_STATE_H

#include "demo/demo_int.h"

/* Creates (or takes) the state directory from run->opt.state_dir, fills
 * run->state_dir, rollup_dir (made when missing), config_path, cables_path
 * and node_root[], and creates the empty node roots. Returns 0 or -1 with a
 * sentence in err; what it made but the rollup directory is still removed
 * by demo_state_cleanup(). Thread: main. */
int demo_state_prepare(struct demo_run *run, char *err, size_t errlen);

/* Removes the temporary state directory whole, or only the node trees of a
 * --state-dir. Returns 0 or a negative errno (the first failure). */
int demo_state_cleanup(struct demo_run *run);

/* rm -r of path without following symlinks (depth-bounded). 0 when it did
 * not exist. Returns 0 or a negative errno. */
int demo_rm_tree(const char *path);

#endif
