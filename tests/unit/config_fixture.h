/* Helpers shared by config_test.c and config_errors_test.c. */
#ifndef FSC_CONFIG_FIXTURE_H
#define FSC_CONFIG_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "test.h"
#include "config_all.h"

/* A file of the repository by its path from the top (FSC_SOURCE_DIR, set
 * for every test by tests/CMakeLists.txt). */
static inline const char *repo_file(const char *rel, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", FSC_SOURCE_DIR, rel);
    return buf;
}

static inline struct fsc_config *parse(const char *text, char *err, size_t errlen)
{
    return fsc_config_parse(text, strlen(text), "t.yaml", fsc_app_schema(), err, errlen);
}

/* Loading `text` fails with exactly `want`. */
static inline void expect_error(const char *text, const char *want)
{
    char err[512];
    struct fsc_config *cfg = parse(text, err, sizeof(err));
    CHECK(cfg == NULL);
    CHECK_STR(err, want);
    fsc_config_destroy(cfg);
}

#endif
