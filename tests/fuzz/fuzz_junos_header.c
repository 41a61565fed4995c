/* Fuzz target junos_header: the bytes of a Junos TelemetryHeader extension
 * (gnmi_ext RegisteredExtension id 1), wrapped by the harness into a
 * SubscribeResponse with a fixed, valid Notification (one counter update,
 * Notification.timestamp 1.5 s) and decoded by fsc_gnmi_decode().
 *
 * Checked, besides gnmi_common.h's invariants:
 *   - the extension may come before or after the notification on the wire:
 *     both orders give the same outcome and the same samples;
 *   - accepted means has_header; the time is the header's payload timestamp
 *     in ms when it is positive and representable in ns, else the
 *     notification's;
 *   - a refused header refuses the whole message. */
#include "gnmi_common.h"

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t put_len(uint8_t *p, uint32_t field, const uint8_t *data, size_t size)
{
    size_t n = put_varint(p, (uint64_t)field << 3 | 2);
    n += put_varint(p + n, size);
    if (size)
        memcpy(p + n, data, size);
    return n + size;
}

/* Notification{timestamp = 1.5e9; update{path{elem{name interfaces}
 * elem{name interface key{name et-0/0/1}} elem{state} elem{counters}
 * elem{in-octets}} val{uint_val 77}}}, built once by hand. */
static size_t put_notification(uint8_t *p)
{
    uint8_t path[128], upd[192], notif[256], tmp[64];
    size_t np = 0, nk;
    np += put_len(path + np, 3, (const uint8_t *)"\x0a\x0ainterfaces", 12);
    nk = put_len(tmp, 1, (const uint8_t *)"name", 4);
    nk += put_len(tmp + nk, 2, (const uint8_t *)"et-0/0/1", 8);
    uint8_t elem[96];
    size_t ne = put_len(elem, 1, (const uint8_t *)"interface", 9);
    ne += put_len(elem + ne, 2, tmp, nk);
    np += put_len(path + np, 3, elem, ne);
    np += put_len(path + np, 3, (const uint8_t *)"\x0a\x05state", 7);
    np += put_len(path + np, 3,
                  (const uint8_t *)"\x0a\x08"
                                   "counters",
                  10);
    np += put_len(path + np, 3, (const uint8_t *)"\x0a\x09in-octets", 11);
    size_t nu = put_len(upd, 1, path, np);
    nu += put_len(upd + nu, 3, (const uint8_t *)"\x18\x4d", 2); /* TypedValue.uint_val = 77 */
    size_t nn = put_varint(notif, 1 << 3 | 0);
    nn += put_varint(notif + nn, 1500000000);
    nn += put_len(notif + nn, 4, upd, nu);
    return put_len(p, 1, notif, nn);
}

/* Extension{registered_ext{id = 1; msg = header}} as SubscribeResponse field 5. */
static size_t put_extension(uint8_t *p, const uint8_t *hdr, size_t size)
{
    uint8_t *reg = malloc(size + 32), *ext = malloc(size + 48);
    FUZZ_CHECK(reg && ext);
    size_t nr = put_varint(reg, 1 << 3 | 0);
    nr += put_varint(reg + nr, 1);
    nr += put_len(reg + nr, 2, hdr, size);
    size_t nx = put_len(ext, 1, reg, nr);
    size_t n = put_len(p, 5, ext, nx);
    free(reg);
    free(ext);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *m1 = malloc(size + 512), *m2 = malloc(size + 512);
    struct gnmi_fuzz_run *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c = malloc(sizeof *c),
                         *d = malloc(sizeof *d);
    FUZZ_CHECK(m1 && m2 && a && b && c && d);
    size_t n1 = put_extension(m1, data, size);
    n1 += put_notification(m1 + n1);
    size_t n2 = put_notification(m2);
    n2 += put_extension(m2 + n2, data, size);

    struct gnmi_fuzz g1, g2;
    gnmi_fuzz_open(&g1);
    gnmi_fuzz_open(&g2);
    gnmi_fuzz_twice(&g1, m1, n1, a, b);
    gnmi_fuzz_twice(&g2, m2, n2, c, d);
    FUZZ_CHECK(a->rc == c->rc);
    if (a->rc == 0) {
        FUZZ_CHECK(a->res.has_header && c->res.has_header);
        FUZZ_CHECK(a->res.updates == 1 && a->res.n_samples == 1);
        FUZZ_CHECK(a->res.t_dev_ns == c->res.t_dev_ns && a->out[0].v.u == 77);
        FUZZ_CHECK(a->out[0].series == c->out[0].series);
        if (!a->res.header_time)
            FUZZ_CHECK(a->res.t_dev_ns == 1500000000);
        else
            FUZZ_CHECK(a->res.t_dev_ns > 0 && a->res.t_dev_ns % 1000000 == 0);
    }
    gnmi_fuzz_close(&g1);
    gnmi_fuzz_close(&g2);
    free(m1);
    free(m2);
    free(a);
    free(b);
    free(c);
    free(d);
    return 0;
}
