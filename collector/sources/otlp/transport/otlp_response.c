/* From request bytes to the answer (otlp_server.h): the export pipeline
 * shared by the gRPC and HTTP transports, and the response / error bodies.
 *
 * The bodies are tiny and fixed in shape, so they are written by hand rather
 * than through protobuf-c: no allocation, and the tests check them against
 * protobuf-c's own decoder. Messages are reduced to printable ASCII on the
 * way out (any other byte becomes '?'): a proto3 string must be UTF-8 and a
 * decoder sentence may quote request bytes that are not. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_write.h"
#include "base/pbwire.h"
#include "sources/otlp/transport/otlp_gzip.h"
#include "sources/otlp/transport/otlp_server.h"

/* ---- pipeline --------------------------------------------------------------- */

static void outcome_set(struct fsc_otlp_outcome *o, enum fsc_otlp_verdict v, const char *msg)
{
    o->verdict = v;
    snprintf(o->message, sizeof(o->message), "%s", msg);
}

/* Decodes plain[0..len) into the ingest and records the result in *out. */
static void decode_ingest(struct fsc_otlp_ingest *ing, enum fsc_otlp_format fmt, uint8_t *plain,
                          size_t len, int64_t arrival_ns, struct fsc_otlp_outcome *out)
{
    struct fsc_otlp_visitor v;
    struct fsc_otlp_ingest_result res;
    char err[256] = "";
    int rc;

    fsc_otlp_ingest_begin(ing, arrival_ns, &v);
    if (fmt == FSC_OTLP_FMT_JSON)
        rc = fsc_otlp_decode_json((char *)plain, len, &v, err, sizeof(err));
    else
        rc = fsc_otlp_decode_proto(plain, len, &v, err, sizeof(err));
    if (rc != 0) {
        /* No callback was made: nothing to undo in the ingest. */
        fsc_otlp_ingest_abort(ing);
        if (rc == -ENOMEM)
            outcome_set(out, FSC_OTLP_INTERNAL, "out of memory decoding the request");
        else
            outcome_set(out, FSC_OTLP_BAD_REQUEST, err[0] ? err : "malformed request");
        return;
    }
    memset(&res, 0, sizeof(res));
    rc = fsc_otlp_ingest_end(ing, &res);
    out->points = res.points;
    out->rejected = res.rejected;
    out->skipped_other_shard = res.other_shard;
    out->skipped_no_value = res.skipped - res.other_shard;
    memcpy(out->warning, res.warning, sizeof(out->warning));
    if (rc != 0) {
        /* The ingest took the points (its delta state moved on), the engine
         * lost the samples: not retryable (HTTP 500 / INTERNAL are not in
         * OTLP's retry lists), so a resend cannot double-count a delta. */
        snprintf(out->message, sizeof(out->message),
                 "the engine could not store the samples (error %d)", -rc);
        out->verdict = FSC_OTLP_INTERNAL;
        return;
    }
    if (res.rejected > 0) {
        out->verdict = FSC_OTLP_PARTIAL;
        if (res.message[0])
            snprintf(out->message, sizeof(out->message), "%s", res.message);
        else
            snprintf(out->message, sizeof(out->message), "%llu data points rejected",
                     (unsigned long long)res.rejected);
        return;
    }
    out->verdict = FSC_OTLP_OK;
}

void fsc_otlp_export_run(struct fsc_otlp_ingest *ing, enum fsc_otlp_format fmt, uint8_t *body,
                         size_t len, int gzip, size_t max_decompressed, int64_t arrival_ns,
                         struct fsc_otlp_outcome *out)
{
    memset(out, 0, sizeof(*out));
    out->verdict = FSC_OTLP_OK;
    /* OTLP: an empty request gets success. An empty body is also how a
     * client probes the endpoint; it is not valid JSON, so it never reaches
     * the decoders. */
    if (len == 0)
        return;
    if (!gzip) {
        if (len > max_decompressed) {
            snprintf(out->message, sizeof(out->message),
                     "request body is larger than max_decompressed (%zu bytes)", max_decompressed);
            out->verdict = FSC_OTLP_TOO_LARGE;
            return;
        }
        decode_ingest(ing, fmt, body, len, arrival_ns, out);
        return;
    }
    uint8_t *plain = NULL;
    size_t plen = 0;
    char err[200] = "";
    int rc = fsc_otlp_gunzip(body, len, max_decompressed, &plain, &plen, err, sizeof(err));
    if (rc == -E2BIG) {
        snprintf(out->message, sizeof(out->message),
                 "request body is larger than max_decompressed (%zu bytes) after gzip",
                 max_decompressed);
        out->verdict = FSC_OTLP_TOO_LARGE;
        return;
    }
    if (rc == -EBADMSG) {
        outcome_set(out, FSC_OTLP_BAD_REQUEST, err);
        return;
    }
    if (rc != 0) {
        outcome_set(out, FSC_OTLP_INTERNAL, "out of memory inflating the request");
        return;
    }
    if (plen > 0)
        decode_ingest(ing, fmt, plain, plen, arrival_ns, out);
    free(plain);
}

/* ---- bodies ----------------------------------------------------------------- */

/* A bounded writer: stops (and remembers) at the end of the buffer. */
struct wr {
    uint8_t *p;
    size_t len, cap;
    int full;
};

static void wr_byte(struct wr *w, uint8_t b)
{
    if (w->len < w->cap)
        w->p[w->len++] = b;
    else
        w->full = 1;
}

static void wr_str(struct wr *w, const char *s)
{
    while (*s)
        wr_byte(w, (uint8_t)*s++);
}

static void wr_varint(struct wr *w, uint64_t v)
{
    uint8_t tmp[FSC_PB_VARINT_MAX];
    const uint8_t *end = fsc_pb_put_varint(tmp, v);
    for (const uint8_t *q = tmp; q < end; q++)
        wr_byte(w, *q);
}

/* Message text as it goes on the wire: printable ASCII, at most 255 bytes. */
static size_t clean_text(const char *msg, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *s = msg ? msg : ""; *s && n + 1 < cap; s++)
        out[n++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    out[n] = '\0';
    return n;
}

/* The length of the JSON document that j wrote into b (over the caller's
 * out), or 0 when it did not fit (the document and a NUL need cap bytes). */
static size_t json_body(const struct fsc_json *j, const struct fsc_buf *b)
{
    return fsc_json_done(j) == 0 ? b->len : 0;
}

size_t fsc_otlp_response_write(enum fsc_otlp_format fmt, const struct fsc_otlp_outcome *o,
                               uint8_t *out, size_t cap)
{
    struct wr w = {out, 0, cap, 0};
    char msg[256];
    int partial = o->verdict == FSC_OTLP_PARTIAL;
    size_t mlen = clean_text(o->message, msg, sizeof(msg));

    if (fmt == FSC_OTLP_FMT_JSON) {
        struct fsc_buf b;
        struct fsc_json j;
        char num[32];
        if (cap == 0)
            return 0;
        fsc_buf_fixed(&b, (char *)out, cap);
        fsc_json_start(&j, &b);
        fsc_json_object(&j, NULL);
        if (partial) {
            /* int64 fields are JSON strings in the OTLP/JSON mapping */
            snprintf(num, sizeof(num), "%llu", (unsigned long long)o->rejected);
            fsc_json_object(&j, "partialSuccess");
            fsc_json_str(&j, "rejectedDataPoints", num);
            fsc_json_str(&j, "errorMessage", msg);
            fsc_json_end(&j);
        }
        fsc_json_end(&j);
        return json_body(&j, &b);
    }
    if (!partial)
        return 0; /* partial_success unset: the empty message */
    /* ExportMetricsServiceResponse { partial_success (1) = {
     *   rejected_data_points (1, int64 varint), error_message (2, string) } } */
    uint64_t rejected = o->rejected > INT64_MAX ? INT64_MAX : o->rejected;
    size_t inner =
        1 + fsc_pb_varint_len(rejected) + (mlen ? 1 + fsc_pb_varint_len(mlen) + mlen : 0);
    wr_byte(&w, 0x0a);
    wr_varint(&w, inner);
    wr_byte(&w, 0x08);
    wr_varint(&w, rejected);
    if (mlen) {
        wr_byte(&w, 0x12);
        wr_varint(&w, mlen);
        wr_str(&w, msg);
    }
    return w.full ? 0 : w.len;
}

size_t fsc_otlp_status_write(enum fsc_otlp_format fmt, int code, const char *message, uint8_t *out,
                             size_t cap)
{
    struct wr w = {out, 0, cap, 0};
    char msg[256];
    size_t mlen = clean_text(message, msg, sizeof(msg));

    if (fmt == FSC_OTLP_FMT_JSON) {
        struct fsc_buf b;
        struct fsc_json j;
        if (cap == 0)
            return 0;
        fsc_buf_fixed(&b, (char *)out, cap);
        fsc_json_start(&j, &b);
        fsc_json_object(&j, NULL);
        fsc_json_int(&j, "code", code);
        fsc_json_str(&j, "message", msg);
        fsc_json_end(&j);
        return json_body(&j, &b);
    }
    /* google.rpc.Status { int32 code = 1; string message = 2; } */
    if (code != 0) {
        wr_byte(&w, 0x08);
        wr_varint(&w, (uint64_t)(int64_t)code); /* int32: negatives as 10-byte varints */
    }
    if (mlen) {
        wr_byte(&w, 0x12);
        wr_varint(&w, mlen);
        wr_str(&w, msg);
    }
    return w.full ? 0 : w.len;
}
