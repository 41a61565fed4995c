/* gNMI test messages built with the generated protobuf-c structs (an
 * independent encoder): paths from "/a/b[k=v]/c" text, typed values, the
 * Junos header extension, a SubscribeResponse packed to bytes. Shared by
 * the gNMI decoder's tests; test-only allocations, freed by tb_reset(). */
#ifndef FSC_GNMI_MSG_FIXTURE_H
#define FSC_GNMI_MSG_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnmi.pb-c.h"
#include "junos_telemetry_header.pb-c.h"

#define TB_MAX 4096
static void *tb_ptrs[TB_MAX];
static size_t tb_n;

static inline void *tb_alloc(size_t n)
{
    if (tb_n == TB_MAX) {
        fprintf(stderr, "test builder pool exhausted\n");
        abort();
    }
    void *p = calloc(1, n ? n : 1);
    if (!p)
        abort();
    tb_ptrs[tb_n++] = p;
    return p;
}

static inline char *tb_strndup(const char *s, size_t n)
{
    char *d = tb_alloc(n + 1);
    memcpy(d, s, n);
    return d;
}

static inline void tb_reset(void)
{
    for (size_t i = 0; i < tb_n; i++)
        free(tb_ptrs[i]);
    tb_n = 0;
}

/* "/a/b[k=v][k2=v2]/c": '/' inside [] belongs to the key value. */
static inline Gnmi__Path *mk_path(const char *spec)
{
    Gnmi__Path *path = tb_alloc(sizeof(*path));
    gnmi__path__init(path);
    path->elem = tb_alloc(32 * sizeof(*path->elem));
    const char *s = spec;
    while (*s) {
        if (*s == '/') {
            s++;
            continue;
        }
        Gnmi__PathElem *e = tb_alloc(sizeof(*e));
        gnmi__path_elem__init(e);
        const char *q = s;
        while (*q && *q != '/' && *q != '[')
            q++;
        e->name = tb_strndup(s, (size_t)(q - s));
        e->key = tb_alloc(8 * sizeof(*e->key));
        while (*q == '[') {
            const char *eq = strchr(q, '='), *close = strchr(q, ']');
            Gnmi__PathElem__KeyEntry *k = tb_alloc(sizeof(*k));
            gnmi__path_elem__key_entry__init(k);
            k->key = tb_strndup(q + 1, (size_t)(eq - q - 1));
            k->value = tb_strndup(eq + 1, (size_t)(close - eq - 1));
            e->key[e->n_key++] = k;
            q = close + 1;
        }
        path->elem[path->n_elem++] = e;
        s = q;
    }
    return path;
}

static inline Gnmi__TypedValue *tv_new(void)
{
    Gnmi__TypedValue *tv = tb_alloc(sizeof(*tv));
    gnmi__typed_value__init(tv);
    return tv;
}

static inline Gnmi__TypedValue *tv_uint(uint64_t v)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
    tv->uint_val = v;
    return tv;
}

static inline Gnmi__TypedValue *tv_int(int64_t v)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_INT_VAL;
    tv->int_val = v;
    return tv;
}

static inline Gnmi__TypedValue *tv_double(double v)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL;
    tv->double_val = v;
    return tv;
}

/* float_val is deprecated in gNMI, but old targets still send it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline Gnmi__TypedValue *tv_float(float v)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_FLOAT_VAL;
    tv->float_val = v;
    return tv;
}
#pragma GCC diagnostic pop

static inline Gnmi__TypedValue *tv_string(const char *s)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
    tv->string_val = (char *)s;
    return tv;
}

/* json_val (ietf = 0) or json_ietf_val (ietf = 1) */
static inline Gnmi__TypedValue *tv_json(const char *s, int ietf)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case =
        ietf ? GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL : GNMI__TYPED_VALUE__VALUE_JSON_VAL;
    ProtobufCBinaryData *b = ietf ? &tv->json_ietf_val : &tv->json_val;
    b->data = (uint8_t *)s;
    b->len = strlen(s);
    return tv;
}

static inline Gnmi__TypedValue *tv_bool(int v)
{
    Gnmi__TypedValue *tv = tv_new();
    tv->value_case = GNMI__TYPED_VALUE__VALUE_BOOL_VAL;
    tv->bool_val = v;
    return tv;
}

static inline Gnmi__Update *mk_update(const char *path, Gnmi__TypedValue *tv)
{
    Gnmi__Update *u = tb_alloc(sizeof(*u));
    gnmi__update__init(u);
    u->path = mk_path(path);
    u->val = tv;
    return u;
}

struct hdr_spec {
    uint32_t component_id, sub_component_id;
    const char *streamed_path;
    uint64_t seq;
    int64_t payload_ms, creation_ms;
};

static inline GnmiExt__Extension *mk_junos_ext(const struct hdr_spec *hs)
{
    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension h;
    junos_telemetry__gnmi_juniper_telemetry_header_extension__init(&h);
    h.system_id = "leaf1:10.0.0.1";
    h.component_id = hs->component_id;
    h.sub_component_id = hs->sub_component_id;
    h.sensor_name = "sensor_1000";
    h.subscribed_path = "/interfaces/";
    h.streamed_path = (char *)hs->streamed_path;
    h.component = "PFE";
    h.sequence_number = hs->seq;
    h.payload_get_timestamp = hs->payload_ms;
    h.stream_creation_timestamp = hs->creation_ms;
    h.export_timestamp = hs->payload_ms + 3;
    size_t n = junos_telemetry__gnmi_juniper_telemetry_header_extension__get_packed_size(&h);
    uint8_t *buf = tb_alloc(n);
    junos_telemetry__gnmi_juniper_telemetry_header_extension__pack(&h, buf);

    GnmiExt__RegisteredExtension *reg = tb_alloc(sizeof(*reg));
    gnmi_ext__registered_extension__init(reg);
    reg->id = GNMI_EXT__EXTENSION_ID__EID_JUNIPER_TELEMETRY_HEADER;
    reg->msg.data = buf;
    reg->msg.len = n;
    GnmiExt__Extension *ext = tb_alloc(sizeof(*ext));
    gnmi_ext__extension__init(ext);
    ext->ext_case = GNMI_EXT__EXTENSION__EXT_REGISTERED_EXT;
    ext->registered_ext = reg;
    return ext;
}

/* Packs a SubscribeResponse{update = Notification} into buf (4096 bytes max). */
static inline size_t pack_notif(uint8_t *buf, const char *prefix, int64_t ts_ns, Gnmi__Update **upd,
                                size_t n_upd, const struct hdr_spec *hs)
{
    Gnmi__Notification *nt = tb_alloc(sizeof(*nt));
    gnmi__notification__init(nt);
    nt->timestamp = ts_ns;
    nt->prefix = prefix ? mk_path(prefix) : NULL;
    nt->update = upd;
    nt->n_update = n_upd;
    Gnmi__SubscribeResponse rsp;
    gnmi__subscribe_response__init(&rsp);
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    rsp.update = nt;
    GnmiExt__Extension *ext[1];
    if (hs) {
        ext[0] = mk_junos_ext(hs);
        rsp.extension = ext;
        rsp.n_extension = 1;
    }
    size_t n = gnmi__subscribe_response__get_packed_size(&rsp);
    if (n > 4096)
        abort();
    return gnmi__subscribe_response__pack(&rsp, buf);
}

#endif
