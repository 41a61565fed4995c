/* What this program was built from: the version (CMake's project version)
 * and the commit. The commit is known to the `fabricscope` program itself
 * (its main sets it from the text generated at build time); libraries and
 * tests linked without it see "unknown". */
#ifndef FSC_BUILD_INFO_H
#define FSC_BUILD_INFO_H

/* Set once by main before any thread starts; read-only afterwards. */
extern const char *fsc_build_commit;

#endif
