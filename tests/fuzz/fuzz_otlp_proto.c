/* Fuzz target otlp_proto: an application/x-protobuf (or gRPC message) body of
 * ExportMetricsServiceRequest through fsc_otlp_decode_proto()
 * (collector/sources/otlp/decode/otlp_point.h).
 *
 * Checked:
 *   - the result is 0 or -EBADMSG with a sentence; refused means no callback
 *     at all (a refused request must not half-count deltas);
 *   - decode -> re-encode (otlp_trace.h) -> decode gives the same callbacks,
 *     and the re-encoded bytes, decoded, re-encode to themselves;
 *   - no visitor: same verdict (the validating pass alone decides).
 * Seeds: the OTLP fixtures (tests/fixtures/otlp) as protobuf. */
#include <errno.h>

#include "otlp_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct otlp_trace t1, t2;
    struct otlp_enc e1, e2;
    struct fsc_otlp_visitor v = otlp_trace_visitor(&t1);
    int rc = fsc_otlp_decode_proto(data, size, &v, err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
    if (rc != 0) {
        FUZZ_CHECK(t1.calls == 0 && err[0] != '\0');
        FUZZ_CHECK(fsc_otlp_decode_proto(data, size, NULL, err, sizeof err) == rc);
        fsc_buf_free(&t1.text);
        return 0;
    }
    FUZZ_CHECK(fsc_otlp_decode_proto(data, size, NULL, err, sizeof err) == 0);

    v = otlp_enc_visitor(&e1);
    FUZZ_CHECK(fsc_otlp_decode_proto(data, size, &v, err, sizeof err) == 0);
    otlp_enc_finish(&e1);

    v = otlp_trace_visitor(&t2);
    rc = fsc_otlp_decode_proto((const uint8_t *)e1.out.data, e1.out.len, &v, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "re-encoded request refused: %s\n", err);
    FUZZ_CHECK(rc == 0);
    otlp_trace_same(&t1, &t2);

    /* The re-encoding is canonical: encoding it again changes nothing. */
    v = otlp_enc_visitor(&e2);
    FUZZ_CHECK(
        fsc_otlp_decode_proto((const uint8_t *)e1.out.data, e1.out.len, &v, err, sizeof err) == 0);
    otlp_enc_finish(&e2);
    FUZZ_CHECK(e1.out.len == e2.out.len &&
               (e1.out.len == 0 || memcmp(e1.out.data, e2.out.data, e1.out.len) == 0));

    fsc_buf_free(&t1.text);
    fsc_buf_free(&t2.text);
    otlp_enc_free(&e1);
    otlp_enc_free(&e2);
    return 0;
}
