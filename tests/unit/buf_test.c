/* fsc_buf: growth, NUL termination, the cap, sticky failure, reuse. */
#include "base/buf.h"
#include "test.h"

#include <errno.h>

static void grow_and_terminate(void)
{
    struct fsc_buf b = {0};
    CHECK_INT(fsc_buf_puts(&b, "abc"), 0);
    CHECK_INT(fsc_buf_printf(&b, " %d-%s", 42, "x"), 0);
    CHECK_STR(b.data, "abc 42-x");
    CHECK_INT(b.len, 8);
    char big[1000];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK_INT(fsc_buf_printf(&b, "%s", big), 0); /* longer than the small stack buffer */
    CHECK_INT(b.len, 8 + 999);
    CHECK(b.data[b.len] == '\0' && b.data[b.len - 1] == 'z');
    size_t cap = b.cap;
    fsc_buf_reset(&b);
    CHECK_INT(b.len, 0);
    CHECK_STR(b.data, "");
    CHECK_INT(b.cap, cap); /* memory kept for reuse */
    fsc_buf_free(&b);
    CHECK(b.data == NULL);
}

static void limit_is_hard(void)
{
    struct fsc_buf b = {.limit = 10};
    CHECK_INT(fsc_buf_puts(&b, "0123456789"), 0);
    CHECK_INT(fsc_buf_puts(&b, "x"), -E2BIG);
    CHECK(b.failed);
    CHECK_STR(b.data, "0123456789"); /* unchanged by the failed append */
    fsc_buf_reset(&b);
    CHECK(!b.failed);
    CHECK_INT(fsc_buf_printf(&b, "%s", "12345678901"), -E2BIG);
    CHECK_INT(b.len, 0);
    fsc_buf_free(&b);
}

TEST_MAIN(TEST(grow_and_terminate), TEST(limit_is_hard))
