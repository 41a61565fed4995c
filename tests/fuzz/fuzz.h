/* Shared by the libFuzzer harnesses in tests/fuzz/.
 *
 * Each fuzz_<target>.c defines LLVMFuzzerTestOneInput() and nothing else
 * exported. It is linked two ways: with clang -fsanitize=fuzzer (libFuzzer's
 * main drives it; Sanitize builds only) and with replay_main.c, a plain main()
 * that feeds it every committed corpus and regression file (both gcc builds),
 * so a crash found once stays a test without clang.
 *
 * A harness checks invariants with FUZZ_CHECK: a failed check prints the
 * condition and aborts, which libFuzzer reports as a crash and saves the
 * input, and the replay driver turns into a failed test. */
#ifndef FSC_FUZZ_H
#define FSC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A NUL-terminated heap copy of data (the harness owns it; aborts on ENOMEM,
 * which in a harness is an environment failure, not a finding). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    for (size_t i = 0; i < size; i++)
        s[i] = (char)data[i];
    s[size] = '\0';
    return s;
}

#endif
