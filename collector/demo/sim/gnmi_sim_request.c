/* SubscribeRequest parsing of the simulator and the choice of sensors a
 * subscription path selects (gnmi_sim.h). protobuf-c unpack: requests are
 * rare and small, so the simple decoder is the right one here. */
#include "demo/sim/gnmi_sim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gnmi.pb-c.h"

/* Keyless element names of each sensor's path. */
struct sensor_path {
    unsigned sensor;
    const char *elems[6];
};

static const struct sensor_path sensor_paths[] = {
    {FSC_SIM_SENSOR_IF, {"interfaces", "interface", "state", "counters", NULL}},
    {FSC_SIM_SENSOR_ETH, {"interfaces", "interface", "ethernet", "state", "counters", NULL}},
    {FSC_SIM_SENSOR_QOS, {"qos", "interfaces", "interface", "output", "queues", NULL}},
    {FSC_SIM_SENSOR_QMON, {"junos", "system", "linecard", "qmon-sw", NULL}},
    {FSC_SIM_SENSOR_FEC, {"state", "interfaces", "interface", "ethernet", "counters", NULL}},
    /* One sensor, three leaves: any of them selects it. */
    {FSC_SIM_SENSOR_SPEED, {"interfaces", "interface", "ethernet", "state", "port-speed", NULL}},
    {FSC_SIM_SENSOR_SPEED,
     {"interfaces", "interface", "ethernet", "state", "negotiated-port-speed", NULL}},
    {FSC_SIM_SENSOR_SPEED, {"interfaces", "interface", "state", "high-speed", NULL}},
    {FSC_SIM_SENSOR_JIF, {"junos", "system", "linecard", "interface", NULL}},
};

#define MAX_SUB_ELEMS 32

/* 1 when the subscription elems and the sensor path agree on their common
 * length (one is a prefix of the other): the subscription asks for a subtree
 * that holds the sensor, or for a part of the sensor (then the target sends
 * the whole sensor, as Junos does). `*` matches one elem, `...` the rest. */
static int path_selects(const char *const *sub, size_t n, const struct sensor_path *sp)
{
    for (size_t i = 0; i < n && sp->elems[i]; i++) {
        if (strcmp(sub[i], "...") == 0)
            return 1;
        if (strcmp(sub[i], "*") != 0 && strcmp(sub[i], sp->elems[i]) != 0)
            return 0;
    }
    return 1;
}

/* Which sensors prefix + path select; `text` gets the joined path (keys
 * left out) for the header's subscribed_path and for error messages. */
static unsigned path_sensors(const Gnmi__Path *prefix, const Gnmi__Path *path, char *text,
                             size_t cap)
{
    const Gnmi__Path *parts[2] = {prefix, path};
    const char *elems[MAX_SUB_ELEMS];
    size_t n = 0, off = 0;
    text[0] = '\0';
    for (int p = 0; p < 2; p++) {
        if (!parts[p])
            continue;
        for (size_t i = 0; i < parts[p]->n_elem; i++) {
            const char *name = parts[p]->elem[i]->name ? parts[p]->elem[i]->name : "";
            if (n < MAX_SUB_ELEMS)
                elems[n++] = name;
            int w = snprintf(text + off, cap - off, "/%s", name);
            if (w > 0 && (size_t)w < cap - off)
                off += (size_t)w;
        }
    }
    if (off == 0)
        snprintf(text, cap, "/");
    unsigned sensors = 0;
    for (size_t k = 0; k < sizeof(sensor_paths) / sizeof(sensor_paths[0]); k++) {
        if (path_selects(elems, n, &sensor_paths[k]))
            sensors |= sensor_paths[k].sensor;
    }
    return sensors;
}

unsigned fsc_sim_next_sensor(unsigned sensors, unsigned after)
{
    for (unsigned bit = after ? after << 1 : 1; bit & FSC_SIM_SENSORS_DATA; bit <<= 1) {
        if (sensors & bit)
            return bit;
    }
    return 0;
}

int fsc_sim_sensor_index(unsigned sensor)
{
    int i = 0;
    while (i < FSC_SIM_N_SENSORS - 1 && !(sensor & (1u << i)))
        i++;
    return i;
}

int fsc_sim_request_parse(const uint8_t *buf, size_t len, unsigned served,
                          struct fsc_sim_request *req, char *err, size_t errlen)
{
    memset(req, 0, sizeof(*req));
    Gnmi__SubscribeRequest *msg = gnmi__subscribe_request__unpack(NULL, len, buf);
    if (!msg) {
        snprintf(err, errlen, "SubscribeRequest does not parse");
        return -EBADMSG;
    }
    int rc = -EBADMSG;
    if (msg->request_case != GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE || !msg->subscribe) {
        snprintf(err, errlen, "first SubscribeRequest carries no SubscriptionList");
        goto out;
    }
    const Gnmi__SubscriptionList *sl = msg->subscribe;
    req->mode = (int)sl->mode;
    req->encoding = (int)sl->encoding;
    req->updates_only = sl->updates_only ? 1 : 0;
    if (sl->n_subscription == 0) {
        snprintf(err, errlen, "SubscriptionList has no subscription");
        goto out;
    }
    for (size_t i = 0; i < sl->n_subscription; i++) {
        const Gnmi__Subscription *sub = sl->subscription[i];
        char text[128];
        unsigned s = path_sensors(sl->prefix, sub->path, text, sizeof(text)) & served;
        if (!s) {
            snprintf(err, errlen, "path %s is not served by this target", text);
            goto out;
        }
        if (i == 0)
            snprintf(req->path, sizeof(req->path), "%s", text);
        req->sensors |= s;
        int64_t ms = (int64_t)(sub->sample_interval / 1000000);
        if (sub->sample_interval > 0 && ms == 0)
            ms = 1;
        if (ms > 0 && (req->interval_ms == 0 || ms < req->interval_ms))
            req->interval_ms = ms;
    }
    rc = 0;
out:
    gnmi__subscribe_request__free_unpacked(msg, NULL);
    return rc;
}
