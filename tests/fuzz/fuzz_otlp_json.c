/* Fuzz target otlp_json: an OTLP/JSON ExportMetricsServiceRequest body
 * through fsc_otlp_decode_json() (collector/sources/otlp/decode/otlp_json.c on
 * jansson).
 *
 * Checked:
 *   - 0, or -EBADMSG or -ENOMEM with a sentence; refused means no callback;
 *   - the body is left byte for byte as it came (the decoder only reads it);
 *   - the accepted request, re-encoded as protobuf (otlp_trace.h) and decoded
 *     by the protobuf decoder, gives the same callbacks: both decoders give
 *     one request the same meaning;
 *   - decoding the same text twice (fresh copies) gives the same callbacks.
 * Seeds: the OTLP/JSON fixtures (tests/fixtures/otlp). */
#include <errno.h>
#include <stdlib.h>

#include "otlp_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    /* exact-size copies: ASan sees any read past the body */
    char *b1 = malloc(size ? size : 1), *b2 = malloc(size ? size : 1);
    FUZZ_CHECK(b1 && b2);
    memcpy(b1, data, size);
    memcpy(b2, data, size);
    struct otlp_trace t1, t2, t3;
    struct otlp_enc e;
    struct fsc_otlp_visitor v = otlp_trace_visitor(&t1);
    int rc = fsc_otlp_decode_json(b1, size, &v, err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOMEM);
    FUZZ_CHECK(memcmp(b1, data, size) == 0);
    if (rc != 0) {
        FUZZ_CHECK(t1.calls == 0 && err[0] != '\0');
        goto done;
    }
    v = otlp_enc_visitor(&e);
    FUZZ_CHECK(fsc_otlp_decode_json(b2, size, &v, err, sizeof err) == 0);
    otlp_enc_finish(&e);

    v = otlp_trace_visitor(&t2);
    rc = fsc_otlp_decode_proto((const uint8_t *)e.out.data, e.out.len, &v, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "protobuf of the JSON request refused: %s\n", err);
    FUZZ_CHECK(rc == 0);
    otlp_trace_same(&t1, &t2);

    memcpy(b2, data, size);
    v = otlp_trace_visitor(&t3);
    FUZZ_CHECK(fsc_otlp_decode_json(b2, size, &v, err, sizeof err) == 0);
    otlp_trace_same(&t1, &t3);
    fsc_buf_free(&t2.text);
    fsc_buf_free(&t3.text);
    otlp_enc_free(&e);
done:
    fsc_buf_free(&t1.text);
    free(b1);
    free(b2);
    return 0;
}
