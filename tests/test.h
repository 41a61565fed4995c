/* A small test helper: named cases, checks that report file:line and keep
 * going, and a summary. One executable per module (tests/unit/<module>_test.c),
 * registered with ctest; a case runs as
 *     <exe> <case-name>   (one case: how ctest runs each named case)
 *     <exe>               (all cases)
 * Exit status is 0 only if every check passed and every case that ran made
 * at least one check (a case that checks nothing fails: "no checks ran"). */
#ifndef FSC_TEST_H
#define FSC_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_INT(a, b)                                                                            \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        test_checks++;                                                                             \
        if (va_ != vb_) {                                                                          \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    va_, vb_);                                                                     \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double va_ = (double)(a), vb_ = (double)(b), vt_ = (double)(tol);                          \
        test_checks++;                                                                             \
        if (!(fabs(va_ - vb_) <= vt_)) {                                                           \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.9g vs %.9g (tol %.3g)\n", __FILE__,          \
                    __LINE__, #a, #b, va_, vb_, vt_);                                              \
        }                                                                                          \
    } while (0)

/* |a - b| <= rel * |b| */
#define CHECK_REL(a, b, rel) CHECK_NEAR(a, b, fabs((double)(b)) * (double)(rel))

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *sa_ = (a), *sb_ = (b);                                                         \
        test_checks++;                                                                             \
        if (sa_ == NULL || sb_ == NULL || strcmp(sa_, sb_) != 0) {                                 \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed:\n  got:  \"%s\"\n  want: \"%s\"\n", __FILE__, \
                    __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                 \
        }                                                                                          \
    } while (0)

struct test_case {
    const char *name;
    void (*fn)(void);
};

/* 1 under CI: CI=true (any case) or CI=1 in the environment. */
static inline int test_in_ci(void)
{
    const char *ci = getenv("CI");
    return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "TRUE") == 0 || strcmp(ci, "True") == 0 ||
                  strcmp(ci, "1") == 0);
}

/* Skips the running case because `missing` (a tool, a peer, a capability)
 * is not there: prints "SKIP: <missing> is missing" and exits 77 (register
 * the case with ctest's SKIP_RETURN_CODE 77). Under CI a skip is a failure:
 * prints "FAIL: <missing> is missing (CI=true: nothing may be skipped)" and
 * exits 1. */
static inline void test_skip(const char *missing)
{
    fflush(stdout);
    if (test_in_ci()) {
        fprintf(stderr, "FAIL: %s is missing (CI=true: nothing may be skipped)\n", missing);
        exit(1);
    }
    printf("SKIP: %s is missing\n", missing);
    exit(77);
}

/* Runs the case named argv[1], or all cases. Prints one line per case. */
static inline int test_main(int argc, char **argv, const struct test_case *cases, size_t n)
{
    int ran = 0, empty = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        int before = test_failures, checks_before = test_checks;
        cases[i].fn();
        ran++;
        int none = test_checks == checks_before;
        if (none) {
            empty++;
            fprintf(stderr, "%s: no checks ran\n", cases[i].name);
        }
        printf("%s %s\n", test_failures == before && !none ? "ok  " : "FAIL", cases[i].name);
    }
    if (ran == 0) {
        fprintf(stderr, "no test case named %s\n", argc > 1 ? argv[1] : "(any)");
        return 2;
    }
    if (empty)
        printf("%d checks, %d failed, %d case%s with no checks\n", test_checks, test_failures,
               empty, empty == 1 ? "" : "s");
    else
        printf("%d checks, %d failed\n", test_checks, test_failures);
    return test_failures == 0 && empty == 0 ? 0 : 1;
}

#define TEST_MAIN(...)                                                                             \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        static const struct test_case cases_[] = {__VA_ARGS__};                                    \
        return test_main(argc, argv, cases_, sizeof(cases_) / sizeof(cases_[0]));                  \
    }
#define TEST(fn)                                                                                   \
    {                                                                                              \
#fn, fn                                                                                    \
    }

#endif
