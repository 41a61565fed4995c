/* The commit the program was built from (build_info.h). */
#include "base/build_info.h"

const char *fsc_build_commit = "unknown";
