/* The ingest's side of Cumulus port bytes by release (otlp_bytes.h has the
 * rules, otlp_bytes.c the logic): the current point's device, port and
 * class handed to ing->ob, and the sums it derives applied as samples. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sources/otlp/map/otlp_ingest_int.h"

/* Applies a derived port-bytes value (otlp_ingest_int.h). */
void otlp_ingest_bytes_apply(void *ctx, uint32_t st, double v, int64_t t, bool reset)
{
    struct fsc_otlp_ingest *ing = ctx;
    bool r = false;
    otlp_ingest_apply(ing, &ing->ser.st[st], reset ? FSC_SMP_RESET : 0, OTLP_MODE_GAUGE, 0, true,
                      (union fsc_value){.d = v}, t, &r);
}

/* The current point's attribute `key` (ing->kv, built by key_build in
 * otlp_ingest_key.c), or NULL. */
static const struct otlp_kv *kv_find(const struct fsc_otlp_ingest *ing, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < ing->n_kv; i++)
        if (ing->kv[i].klen == n && memcmp(ing->kv[i].key, key, n) == 0)
            return &ing->kv[i];
    return NULL;
}

/* The current resource's device in ing->ob, looked up once per resource. */
static uint32_t bytes_device(struct fsc_otlp_ingest *ing)
{
    if (ing->ob_dev == OTLP_BYTES_NONE)
        ing->ob_dev = otlp_bytes_device(&ing->ob, ing->device);
    return ing->ob_dev;
}

/* A Cumulus interface point: notes the device; for a direct byte counter,
 * whether it feeds its port's bytes (false: a better counter does) and the
 * flags of its sample (otlp_ingest_int.h). */
bool otlp_ingest_bytes_direct(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p,
                              uint32_t *flags)
{
    uint32_t dev = bytes_device(ing);
    otlp_bytes_interface_seen(&ing->ob, dev);
    if (!ing->mrole || ing->mrole->kind != OTLP_BYTES_DIRECT)
        return true;
    const struct otlp_kv *port = kv_find(ing, "interface");
    if (!port)
        return true;
    bool reset = false;
    bool use = otlp_bytes_direct(&ing->ob, dev, port->val, port->vlen, ing->mrole,
                                 (int64_t)p->time_ns, &reset);
    if (reset)
        *flags |= FSC_SMP_RESET;
    return use;
}

/* A per-class byte point: to its port's derived sum (otlp_ingest_int.h). */
void otlp_ingest_bytes_class(struct fsc_otlp_ingest *ing, const struct fsc_otlp_point *p, double v)
{
    const struct otlp_kv *port = kv_find(ing, "interface");
    if (!port)
        return;
    const struct otlp_kv *c = kv_find(ing, ing->mrole->attr);
    int cls = c ? otlp_bytes_class_of(c->val, c->vlen, ing->mrole->n_class) : -1;
    otlp_bytes_class(&ing->ob, bytes_device(ing), port->val, port->vlen, ing->mrole, cls, v,
                     (int64_t)p->time_ns);
}
