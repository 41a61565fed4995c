/* Replay driver: a main() for a fuzz harness without libFuzzer (gcc builds).
 *
 *     fuzz_replay_<target> <file or directory>...
 *
 * feeds every regular file (directories: their entries, not recursive, in
 * name order so a failure names the same file every run) to
 * LLVMFuzzerTestOneInput() once. A harness that finds a broken invariant
 * aborts, so the ctest fails and names the last file printed. A missing
 * directory is fine (a target may have no regressions yet); an empty run is
 * not (the corpus must exist). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX_FILE (16u << 20) /* a corpus file is a few KiB; refuse absurd ones */

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_FILE);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX_FILE, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s (or above %u bytes)\n", path, REPLAY_MAX_FILE);
        free(buf);
        return -1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    /* An exact-size copy, so ASan sees a read one past the input as libFuzzer
     * would. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the regular files of dir in name order. Returns files replayed or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    long done = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) {
                done = -1;
                break;
            }
            names = nn;
            cap = nc;
        }
        names[n] = strdup(e->d_name);
        if (!names[n]) {
            done = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (done == 0 && n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (done >= 0) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                done = replay_file(path) == 0 ? done + 1 : -1;
        }
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        long r;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            r = replay_dir(argv[i]);
        else if (stat(argv[i], &st) == 0)
            r = replay_file(argv[i]) == 0 ? 1 : -1;
        else
            r = errno == ENOENT ? 0 : -1;
        if (r < 0) {
            fprintf(stderr, "replay: failed on %s\n", argv[i]);
            return 1;
        }
        total += r;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no input files (is the corpus missing?)\n");
        return 1;
    }
    printf("replay: %ld inputs, no failure\n", total);
    return 0;
}
