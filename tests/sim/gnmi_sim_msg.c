/* Protocol messages of the simulator, built with the protobuf-c code
 * generated from proto/ (an encoder independent of the collector's reader).
 * Every message is assembled from stack objects; only the packed output
 * buffer is allocated. */
#include "gnmi_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnmi.pb-c.h"
#include "gnmi_ext.pb-c.h"
#include "junos_telemetry_header.pb-c.h"

static const char *const if_leaves[FSC_SIM_IF_LEAVES] = {
    "in-octets",         "out-octets",         "in-pkts",           "out-pkts",
    "in-discards",       "out-discards",       "in-errors",         "out-errors",
    "in-unicast-pkts",   "out-unicast-pkts",   "in-multicast-pkts", "out-multicast-pkts",
    "in-broadcast-pkts", "out-broadcast-pkts", "in-fcs-errors",     "carrier-transitions",
};

static uint64_t if_value(const struct fsc_sim_port_values *v, int i)
{
    switch (i) {
    case 0:
        return v->in_octets;
    case 1:
        return v->out_octets;
    case 2:
    case 8: /* all traffic is unicast (RoCE) */
        return v->in_pkts;
    case 3:
    case 9:
        return v->out_pkts;
    case 4:
        return v->in_discards;
    case 5:
        return v->out_discards;
    case 6:
    case 14:
        return v->in_errors;
    case 7:
        return v->out_errors;
    case 15:
        return 1; /* the link came up once */
    default:
        return 0;
    }
}

static const char *const qmon_leaves[FSC_SIM_QMON_LEAVES] = {
    "peak_buffer_occupancy_bytes", "tail_drop_packets", "tail_drop_octets", "packets", "octets"};

static uint64_t qmon_value(const struct fsc_sim_port_values *v, uint32_t q, int i)
{
    switch (i) {
    case 0:
        return v->q_peak_bytes[q];
    case 1:
        return v->q_drop_pkts[q];
    case 2:
        return v->q_drop_octets[q];
    case 3:
        return v->q_pkts[q];
    default:
        return v->q_octets[q];
    }
}

static int pack_response(const Gnmi__SubscribeResponse *rsp, uint8_t **out, size_t *len)
{
    size_t n = gnmi__subscribe_response__get_packed_size(rsp);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return -ENOMEM;
    *len = gnmi__subscribe_response__pack(rsp, buf);
    *out = buf;
    return 0;
}

/* Storage for one message: every object lives here, pointers point inside. */
struct msg_store {
    Gnmi__PathElem pelem[8];
    Gnmi__PathElem *pelem_ptr[8];
    Gnmi__PathElem__KeyEntry pkey;
    Gnmi__PathElem__KeyEntry *pkey_ptr[1];
    Gnmi__Path prefix;
    Gnmi__Update upd[FSC_SIM_MSG_UPDATES];
    Gnmi__Update *upd_ptr[FSC_SIM_MSG_UPDATES];
    Gnmi__Path upath[FSC_SIM_MSG_UPDATES];
    Gnmi__PathElem uelem[FSC_SIM_MSG_UPDATES][2];
    Gnmi__PathElem *uelem_ptr[FSC_SIM_MSG_UPDATES][2];
    Gnmi__TypedValue val[FSC_SIM_MSG_UPDATES];
    Gnmi__PathElem__KeyEntry qkey[FSC_SIM_MAX_QUEUES];
    Gnmi__PathElem__KeyEntry *qkey_ptr[FSC_SIM_MAX_QUEUES][1];
    char qname[FSC_SIM_MAX_QUEUES][12];
};

static void prefix_elem(struct msg_store *s, size_t i, const char *name)
{
    gnmi__path_elem__init(&s->pelem[i]);
    s->pelem[i].name = (char *)name;
    s->pelem_ptr[i] = &s->pelem[i];
}

static void set_update(struct msg_store *s, size_t i, uint64_t value)
{
    gnmi__update__init(&s->upd[i]);
    gnmi__path__init(&s->upath[i]);
    gnmi__typed_value__init(&s->val[i]);
    s->val[i].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
    s->val[i].uint_val = value;
    s->upd[i].path = &s->upath[i];
    s->upd[i].val = &s->val[i];
    s->upd_ptr[i] = &s->upd[i];
}

static void set_update_elem(struct msg_store *s, size_t i, size_t j, const char *name)
{
    gnmi__path_elem__init(&s->uelem[i][j]);
    s->uelem[i][j].name = (char *)name;
    s->uelem_ptr[i][j] = &s->uelem[i][j];
    s->upath[i].elem = s->uelem_ptr[i];
    s->upath[i].n_elem = j + 1;
}

int fsc_sim_msg_update(const struct fsc_sim_msg_meta *meta, const struct fsc_sim_port_values *v,
                       uint8_t **out, size_t *len)
{
    /* ~40 KB of message objects: on the heap, not the server thread's stack. */
    struct msg_store *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    char ifname[32];
    snprintf(ifname, sizeof(ifname), "et-0/0/%u", (unsigned)meta->port);

    gnmi__path_elem__key_entry__init(&s->pkey);
    s->pkey.value = ifname;
    s->pkey_ptr[0] = &s->pkey;
    gnmi__path__init(&s->prefix);
    size_t np = 0, nu = 0;
    const char *sensor_name, *streamed, *component;
    uint32_t component_id;
    if (meta->sensor == FSC_SIM_SENSOR_IF) {
        prefix_elem(s, np++, "interfaces");
        prefix_elem(s, np, "interface");
        s->pkey.key = "name";
        s->pelem[np].key = s->pkey_ptr;
        s->pelem[np++].n_key = 1;
        prefix_elem(s, np++, "state");
        prefix_elem(s, np++, "counters");
        for (int i = 0; i < FSC_SIM_IF_LEAVES; i++) {
            set_update(s, nu, if_value(v, i));
            set_update_elem(s, nu++, 0, if_leaves[i]);
        }
        sensor_name = "sensor_1000_1_1:/interfaces/interface/state/counters/";
        streamed = "/interfaces/interface/state/counters/";
        component = "mib2d";
        component_id = 65535;
    } else {
        prefix_elem(s, np++, "junos");
        prefix_elem(s, np++, "system");
        prefix_elem(s, np++, "linecard");
        prefix_elem(s, np++, "qmon-sw");
        prefix_elem(s, np, "queue_monitor_element_info");
        s->pkey.key = "if_name";
        s->pelem[np].key = s->pkey_ptr;
        s->pelem[np++].n_key = 1;
        prefix_elem(s, np++, "queue_monitor_stats_egress");
        uint32_t nq = meta->queues < FSC_SIM_MAX_QUEUES ? meta->queues : FSC_SIM_MAX_QUEUES;
        for (uint32_t q = 0; q < nq; q++) {
            snprintf(s->qname[q], sizeof(s->qname[q]), "%u", (unsigned)q);
            gnmi__path_elem__key_entry__init(&s->qkey[q]);
            s->qkey[q].key = "queue_number";
            s->qkey[q].value = s->qname[q];
            s->qkey_ptr[q][0] = &s->qkey[q];
            for (int i = 0; i < FSC_SIM_QMON_LEAVES; i++) {
                set_update(s, nu, qmon_value(v, q, i));
                set_update_elem(s, nu, 0, "queue_monitor_stats_info");
                s->uelem[nu][0].key = s->qkey_ptr[q];
                s->uelem[nu][0].n_key = 1;
                set_update_elem(s, nu++, 1, qmon_leaves[i]);
            }
        }
        sensor_name = "sensor_1001_1_1:/junos/system/linecard/qmon-sw/";
        streamed = "/junos/system/linecard/qmon-sw/";
        component = "PFE";
        component_id = 0;
    }
    s->prefix.elem = s->pelem_ptr;
    s->prefix.n_elem = np;

    Gnmi__Notification notif = GNMI__NOTIFICATION__INIT;
    notif.timestamp = meta->payload_ms * 1000000;
    notif.prefix = &s->prefix;
    notif.update = s->upd_ptr;
    notif.n_update = nu;

    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension hdr =
        JUNOS_TELEMETRY__GNMI_JUNIPER_TELEMETRY_HEADER_EXTENSION__INIT;
    hdr.system_id = (char *)meta->system_id;
    hdr.component_id = component_id;
    hdr.sensor_name = (char *)sensor_name;
    hdr.subscribed_path = (char *)meta->subscribed_path;
    hdr.streamed_path = (char *)streamed;
    hdr.component = (char *)component;
    hdr.sequence_number = meta->sequence;
    hdr.payload_get_timestamp = meta->payload_ms;
    hdr.stream_creation_timestamp = meta->epoch_ms;
    hdr.export_timestamp = meta->export_ms;
    hdr.eom = meta->eom ? 1 : 0;
    uint8_t hbuf[512];
    size_t hlen = junos_telemetry__gnmi_juniper_telemetry_header_extension__get_packed_size(&hdr);
    if (hlen > sizeof(hbuf)) {
        free(s);
        return -ENOMEM;
    }
    hlen = junos_telemetry__gnmi_juniper_telemetry_header_extension__pack(&hdr, hbuf);

    GnmiExt__RegisteredExtension reg = GNMI_EXT__REGISTERED_EXTENSION__INIT;
    reg.id = GNMI_EXT__EXTENSION_ID__EID_JUNIPER_TELEMETRY_HEADER;
    reg.msg.data = hbuf;
    reg.msg.len = hlen;
    GnmiExt__Extension ext = GNMI_EXT__EXTENSION__INIT;
    ext.ext_case = GNMI_EXT__EXTENSION__EXT_REGISTERED_EXT;
    ext.registered_ext = &reg;
    GnmiExt__Extension *ext_ptr[1] = {&ext};

    Gnmi__SubscribeResponse rsp = GNMI__SUBSCRIBE_RESPONSE__INIT;
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    rsp.update = &notif;
    rsp.extension = ext_ptr;
    rsp.n_extension = 1;
    int rc = pack_response(&rsp, out, len);
    free(s);
    return rc;
}

int fsc_sim_msg_sync(uint8_t **out, size_t *len)
{
    Gnmi__SubscribeResponse rsp = GNMI__SUBSCRIBE_RESPONSE__INIT;
    rsp.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
    rsp.sync_response = 1;
    return pack_response(&rsp, out, len);
}

int fsc_sim_msg_capabilities(uint8_t **out, size_t *len)
{
    static const char *const models[][3] = {
        {"openconfig-interfaces", "OpenConfig working group", "3.8.1"},
        {"openconfig-if-ethernet", "OpenConfig working group", "2.18.0"},
        {"openconfig-qos", "OpenConfig working group", "0.11.0"},
        {"junos-qmon-sw", "Juniper Networks, Inc.", "25.2R1"},
    };
    enum { NM = sizeof(models) / sizeof(models[0]) };
    Gnmi__ModelData md[NM];
    Gnmi__ModelData *md_ptr[NM];
    for (size_t i = 0; i < NM; i++) {
        gnmi__model_data__init(&md[i]);
        md[i].name = (char *)models[i][0];
        md[i].organization = (char *)models[i][1];
        md[i].version = (char *)models[i][2];
        md_ptr[i] = &md[i];
    }
    Gnmi__Encoding enc[2] = {GNMI__ENCODING__JSON, GNMI__ENCODING__PROTO};
    Gnmi__CapabilityResponse rsp = GNMI__CAPABILITY_RESPONSE__INIT;
    rsp.supported_models = md_ptr;
    rsp.n_supported_models = NM;
    rsp.supported_encodings = enc;
    rsp.n_supported_encodings = 2;
    rsp.gnmi_version = "0.10.0";
    size_t n = gnmi__capability_response__get_packed_size(&rsp);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return -ENOMEM;
    *len = gnmi__capability_response__pack(&rsp, buf);
    *out = buf;
    return 0;
}

/* Which sensors a path (prefix + subscription path) selects: the first
 * element decides; an empty path asks for everything. */
static unsigned path_sensors(const Gnmi__Path *prefix, const Gnmi__Path *path, char *text,
                             size_t cap)
{
    const Gnmi__Path *parts[2] = {prefix, path};
    const char *first = NULL;
    size_t off = 0;
    text[0] = '\0';
    for (int p = 0; p < 2; p++) {
        if (!parts[p])
            continue;
        for (size_t i = 0; i < parts[p]->n_elem; i++) {
            const char *name = parts[p]->elem[i]->name ? parts[p]->elem[i]->name : "";
            if (!first)
                first = name;
            int n = snprintf(text + off, cap - off, "/%s", name);
            if (n > 0 && (size_t)n < cap - off)
                off += (size_t)n;
        }
    }
    if (off == 0)
        snprintf(text, cap, "/");
    if (!first || strcmp(first, "*") == 0 || strcmp(first, "...") == 0)
        return FSC_SIM_SENSOR_IF | FSC_SIM_SENSOR_QMON;
    if (strcmp(first, "interfaces") == 0)
        return FSC_SIM_SENSOR_IF;
    if (strcmp(first, "junos") == 0)
        return FSC_SIM_SENSOR_QMON;
    return 0;
}

int fsc_sim_request_parse(const uint8_t *buf, size_t len, struct fsc_sim_request *req, char *err,
                          size_t errlen)
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
        unsigned s = path_sensors(sl->prefix, sub->path, text, sizeof(text));
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
