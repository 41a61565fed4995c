/* `fabricscope plan --apply`: what `plan --dry-run` prints for one node, run
 * on this host instead of piped to `sudo sh`. The commands are read back from
 * the rendered block, so the two modes cannot drift apart: --apply runs
 * exactly the `ip` lines --dry-run shows, in the same order. */
#include "commands/plan_apply.h"

#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LINE  256 /* the longest rendered command is under 60 bytes */
#define MAX_WORDS 16  /* argv incl. the NULL terminator */

/* Fails (1) when a cabled interface of the node is not on this host. */
static int check_interfaces(const struct fsc_cabling *cab, uint32_t node, unsigned *n_ifaces)
{
    const struct fsc_cabling_iface *ifs = fsc_cabling_node(cab, node);
    if (ifs == NULL) {
        fprintf(stderr, "fabricscope: node %u has no cable\n", (unsigned)node);
        return 1;
    }
    unsigned missing = 0;
    *n_ifaces = 0;
    for (size_t i = 0; i < FSC_CABLING_IFACES; i++) {
        if (!ifs[i].cabled)
            continue;
        (*n_ifaces)++;
        if (if_nametoindex(ifs[i].ifname) == 0) {
            fprintf(stderr,
                    "fabricscope: interface %s (card %u np%u) of node %u is not on this host\n",
                    ifs[i].ifname, (unsigned)ifs[i].card, (unsigned)ifs[i].np, (unsigned)node);
            missing++;
        }
    }
    if (missing != 0) {
        fprintf(stderr,
                "fabricscope: nothing applied: %u of %u planned interfaces are missing (is this "
                "node %u? are the names those of `ip -br link`? docs/CABLING.md)\n",
                missing, *n_ifaces, (unsigned)node);
        return 1;
    }
    return 0;
}

/* Splits line (modified) at spaces into argv; returns the word count, or
 * -1 when there are more than MAX_WORDS - 1. */
static int split_words(char *line, char **argv)
{
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(line, " ", &save); p != NULL; p = strtok_r(NULL, " ", &save)) {
        if (n == MAX_WORDS - 1)
            return -1;
        argv[n++] = p;
    }
    argv[n] = NULL;
    return n;
}

/* The next command line of text[*pos..len) into line (NUL-terminated),
 * skipping blank and comment lines. Returns 1 with a line, 0 at the end, -1
 * (message on stderr) for a line that is too long. */
static int next_line(const char *text, size_t len, size_t *pos, char line[MAX_LINE])
{
    while (*pos < len) {
        const char *start = text + *pos;
        const char *nl = memchr(start, '\n', len - *pos);
        size_t n = nl ? (size_t)(nl - start) : len - *pos;
        *pos += n + (nl ? 1 : 0);
        if (n == 0 || start[0] == '#')
            continue;
        if (n >= MAX_LINE) {
            fprintf(stderr, "fabricscope: plan line too long (%zu bytes): nothing applied\n", n);
            return -1;
        }
        memcpy(line, start, n);
        line[n] = '\0';
        return 1;
    }
    return 0;
}

/* Splits line into argv (words: a copy) and checks it is an ip command. */
static int parse_command(const char *line, char words[MAX_LINE], char **argv)
{
    memcpy(words, line, strlen(line) + 1);
    if (split_words(words, argv) < 2 || strcmp(argv[0], "ip") != 0) {
        fprintf(stderr, "fabricscope: plan line is not an ip command: %s: nothing applied\n", line);
        return -1;
    }
    return 0;
}

/* Runs argv (argv[0] == "ip") and waits for it. Returns 0 when it exited 0. */
static int run_ip(char **argv, const char *line)
{
    if (fflush(stdout) != 0) { /* the child must not repeat buffered output */
        fprintf(stderr, "fabricscope: cannot write stdout: %s\n", strerror(errno));
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fabricscope: cannot start `%s`: %s\n", line, strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "fabricscope: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "fabricscope: waiting for `%s`: %s\n", line, strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFEXITED(st))
        fprintf(stderr,
                "fabricscope: `%s` failed (exit status %d): stopped, later commands not run\n",
                line, WEXITSTATUS(st));
    else
        fprintf(stderr, "fabricscope: `%s` was killed by signal %d: stopped\n", line,
                WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return 1;
}

int fsc_plan_apply(const char *text, size_t len, const struct fsc_cabling *cab, uint32_t node)
{
    unsigned n_ifaces = 0;
    if (check_interfaces(cab, node, &n_ifaces) != 0)
        return 1;
    char line[MAX_LINE], words[MAX_LINE];
    char *argv[MAX_WORDS];
    size_t pos = 0;
    int rc;
    /* Every line is checked before the first one runs. */
    while ((rc = next_line(text, len, &pos, line)) > 0) {
        if (parse_command(line, words, argv) != 0)
            return 1;
    }
    if (rc < 0)
        return 1;
    unsigned ran = 0;
    pos = 0;
    while (next_line(text, len, &pos, line) > 0) {
        if (parse_command(line, words, argv) != 0)
            return 1;
        printf("+ %s\n", line);
        if (run_ip(argv, line) != 0)
            return 1;
        ran++;
    }
    if (printf("fabricscope: node %u: %u commands applied on %u interfaces\n", (unsigned)node, ran,
               n_ifaces) < 0 ||
        fflush(stdout) != 0) {
        fprintf(stderr, "fabricscope: cannot write stdout: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
