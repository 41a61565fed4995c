/* Helpers for the Kafka tests: temporary directories. Header-only, static
 * functions, for the test executables. */
#ifndef FSC_KAFKA_FIXTURE_H
#define FSC_KAFKA_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdtemp("/tmp/fsc-kafka-XXXXXX") into buf; aborts the test on failure. */
static inline char *kt_tmpdir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/fsc-kafka-XXXXXX");
    if (mkdtemp(buf) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    return buf;
}

/* Removes the files in dir (one level) and dir itself. */
static inline void kt_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    char p[512];
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Number of "*.fsq" segment files in dir. */
static inline int kt_count_segments(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".fsq") == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* Size of dir/name, or -1. */
static inline long long kt_file_size(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

#endif
