/* net/pem.c: a server certificate's validity period, checked at start and
 * reload so that an expired certificate is said before clients refuse it.
 * The certificate below was made by
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
 *       -subj /CN=fabricscope-test
 * and `openssl x509 -noout -dates` gives notBefore=Dec  7 16:10:32 2026 GMT
 * (1796659832) and notAfter=Jan  6 16:10:32 2027 GMT (1799251832). */
#include <string.h>

#include "net/pem.h"
#include "test.h"

static const char cert[] = "-----BEGIN CERTIFICATE-----\n"
                           "MIIBijCCATGgAwIBAgIUYqPcEGswXVgE0opGKpo3VrijwAgwCgYIKoZIzj0EAwIw\n"
                           "GzEZMBcGA1UEAwwQZmFicmljc2NvcGUtdGVzdDAeFw0yNjEyMDcxNjEwMzJaFw0y\n"
                           "NzAxMDYxNjEwMzJaMBsxGTAXBgNVBAMMEGZhYnJpY3Njb3BlLXRlc3QwWTATBgcq\n"
                           "hkjOPQIBBggqhkjOPQMBBwNCAAQUr6do0MtjXq4tTk0g1TMqTCWtzl5J7MW6vGfW\n"
                           "tducwYBoRbrLD/gX/NiydfwlAL0hZjdgQej+UiDUY5PUAwiao1MwUTAdBgNVHQ4E\n"
                           "FgQUCK9BunrFc91Rk26r0c28JIpCNdMwHwYDVR0jBBgwFoAUCK9BunrFc91Rk26r\n"
                           "0c28JIpCNdMwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAdAGzN\n"
                           "RyhwvKqOQe57zWgA7oCUfYwv3uae+w6jYFKryQIgZv5CAaKAjxkkQtgHtKWtCmhl\n"
                           "ef9KcuBgIK46mwJcO2s=\n"
                           "-----END CERTIFICATE-----\n";

#define NOT_BEFORE 1796659832LL
#define NOT_AFTER  1799251832LL

static void cert_time(void)
{
    char why[96] = "";
    CHECK_INT(fsc_pem_cert_time_check(cert, NOT_BEFORE, why, sizeof(why)), 0);
    CHECK_INT(fsc_pem_cert_time_check(cert, NOT_AFTER, why, sizeof(why)), 0);
    CHECK_INT(fsc_pem_cert_time_check(cert, NOT_AFTER + 1, why, sizeof(why)), 1);
    CHECK_STR(why, "expired 2027-01-06 16:10:32 UTC");
    CHECK_INT(fsc_pem_cert_time_check(cert, NOT_BEFORE - 1, why, sizeof(why)), 1);
    CHECK_STR(why, "not valid before 2026-12-07 16:10:32 UTC");
    CHECK_INT(fsc_pem_cert_time_check("not a certificate", NOT_BEFORE, why, sizeof(why)), -1);
}

TEST_MAIN(TEST(cert_time))
