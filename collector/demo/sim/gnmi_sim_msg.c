/* Protocol messages of the simulator, built with the protobuf-c code
 * generated from proto/ (an encoder independent of the collector's reader).
 * Every message is assembled from stack objects; only the packed output
 * buffer is allocated. */
#include "demo/sim/gnmi_sim.h"

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

static const char *const eth_leaves[FSC_SIM_ETH_LEAVES] = {"in-mac-pause-frames",
                                                           "out-mac-pause-frames", "in-crc-errors"};

static uint64_t eth_value(const struct fsc_sim_port_values *v, int i)
{
    switch (i) {
    case 0:
        return v->in_pause;
    case 1:
        return v->out_pause;
    default:
        return v->crc_errors;
    }
}

static const char *const qos_leaves[FSC_SIM_QOS_LEAVES] = {"transmit-pkts", "transmit-octets",
                                                           "dropped-pkts",  "dropped-octets",
                                                           "max-queue-len", "avg-queue-len"};

static uint64_t qos_value(const struct fsc_sim_port_values *v, uint32_t q, int i)
{
    switch (i) {
    case 0:
        return v->q_pkts[q];
    case 1:
        return v->q_octets[q];
    case 2:
        return v->q_drop_pkts[q];
    case 3:
        return v->q_drop_octets[q];
    case 4:
        return v->q_peak_bytes[q];
    default:
        return v->q_avg_bytes[q];
    }
}

static const char *const qmon_leaves[FSC_SIM_QMON_LEAVES] = {
    "peak-buffer-occupancy-bytes", "tail-drop-packets", "tail-drop-bytes", "packets", "bytes"};

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

static const char *const fec_leaves[FSC_SIM_FEC_LEAVES] = {"fec-corrected-words",
                                                           "fec-uncorrectable-words"};

/* The Junos header identity of each data sensor: sensor_name (Junos numbers
 * its sensors), streamed_path, the producing component. */
struct sensor_desc {
    unsigned sensor;
    const char *sensor_name, *streamed, *component;
    uint32_t component_id;
};

static const struct sensor_desc sensor_descs[] = {
    {FSC_SIM_SENSOR_IF, "sensor_1000_1_1:/interfaces/interface/state/counters/",
     "/interfaces/interface/state/counters/", "mib2d", 65535},
    {FSC_SIM_SENSOR_ETH, "sensor_1002_1_1:/interfaces/interface/ethernet/state/counters/",
     "/interfaces/interface/ethernet/state/counters/", "mib2d", 65535},
    {FSC_SIM_SENSOR_QOS, "sensor_1003_1_1:/qos/interfaces/interface/output/queues/",
     "/qos/interfaces/interface/output/queues/", "PFE", 0},
    {FSC_SIM_SENSOR_QMON, "sensor_1001_1_1:/junos/system/linecard/qmon-sw/",
     "/junos/system/linecard/qmon-sw/", "PFE", 0},
    {FSC_SIM_SENSOR_FEC, "sensor_1004_1_1:/state/interfaces/interface/ethernet/counters/",
     "/state/interfaces/interface/ethernet/counters/", "picd", 65535},
    {FSC_SIM_SENSOR_SPEED, "sensor_1005_1_1:/interfaces/interface/ethernet/state/port-speed/",
     "/interfaces/interface/", "mib2d", 65535},
};

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

#define UPDATE_ELEMS 3 /* queue[name=Q]/state/<leaf> */

/* Storage for one message: every object lives here, pointers point inside. */
struct msg_store {
    Gnmi__PathElem pelem[8];
    Gnmi__PathElem *pelem_ptr[8];
    Gnmi__PathElem__KeyEntry pkey;
    Gnmi__PathElem__KeyEntry *pkey_ptr[1];
    Gnmi__Path prefix;
    size_t np, nu; /* prefix elems, updates */
    Gnmi__Update upd[FSC_SIM_MSG_UPDATES];
    Gnmi__Update *upd_ptr[FSC_SIM_MSG_UPDATES];
    Gnmi__Path upath[FSC_SIM_MSG_UPDATES];
    Gnmi__PathElem uelem[FSC_SIM_MSG_UPDATES][UPDATE_ELEMS];
    Gnmi__PathElem *uelem_ptr[FSC_SIM_MSG_UPDATES][UPDATE_ELEMS];
    Gnmi__TypedValue val[FSC_SIM_MSG_UPDATES];
    Gnmi__PathElem__KeyEntry qkey[FSC_SIM_MAX_QUEUES];
    Gnmi__PathElem__KeyEntry *qkey_ptr[FSC_SIM_MAX_QUEUES][1];
    char qname[FSC_SIM_MAX_QUEUES][12];
    char ifname[32];
    int zero_suppress;
};

static void prefix_elem(struct msg_store *s, const char *name)
{
    size_t i = s->np++;
    gnmi__path_elem__init(&s->pelem[i]);
    s->pelem[i].name = (char *)name;
    s->pelem_ptr[i] = &s->pelem[i];
}

/* The prefix elem that carries the interface key (`key`=et-0/0/K). */
static void prefix_port_elem(struct msg_store *s, const char *name, const char *key)
{
    prefix_elem(s, name);
    s->pkey.key = (char *)key;
    s->pelem[s->np - 1].key = s->pkey_ptr;
    s->pelem[s->np - 1].n_key = 1;
}

/* Starts the next update: no value, no path elems yet. Returns its index. */
static size_t new_update(struct msg_store *s)
{
    size_t i = s->nu++;
    gnmi__update__init(&s->upd[i]);
    gnmi__path__init(&s->upath[i]);
    gnmi__typed_value__init(&s->val[i]);
    s->upd[i].path = &s->upath[i];
    s->upd[i].val = &s->val[i];
    s->upd_ptr[i] = &s->upd[i];
    s->upath[i].elem = s->uelem_ptr[i];
    return i;
}

/* Starts an update with a uint_val. Returns its index, or -1 when zero
 * suppression leaves the value out (then no update is started). */
static ptrdiff_t add_update(struct msg_store *s, uint64_t value)
{
    if (value == 0 && s->zero_suppress)
        return -1;
    size_t i = new_update(s);
    s->val[i].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
    s->val[i].uint_val = value;
    return (ptrdiff_t)i;
}

/* Starts an update with a string_val (never suppressed). */
static size_t add_update_str(struct msg_store *s, const char *value)
{
    size_t i = new_update(s);
    s->val[i].value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
    s->val[i].string_val = (char *)value;
    return i;
}

/* Appends elem `name` to update i's path; q >= 0 adds the queue key `key`. */
static void update_elem(struct msg_store *s, size_t i, const char *name, const char *key, int q)
{
    size_t j = s->upath[i].n_elem++;
    gnmi__path_elem__init(&s->uelem[i][j]);
    s->uelem[i][j].name = (char *)name;
    if (q >= 0) {
        gnmi__path_elem__key_entry__init(&s->qkey[q]);
        s->qkey[q].key = (char *)key;
        s->qkey[q].value = s->qname[q];
        s->qkey_ptr[q][0] = &s->qkey[q];
        s->uelem[i][j].key = s->qkey_ptr[q];
        s->uelem[i][j].n_key = 1;
    }
    s->uelem_ptr[i][j] = &s->uelem[i][j];
}

/* One uint leaf directly under the prefix. */
static void add_leaf(struct msg_store *s, const char *name, uint64_t value)
{
    ptrdiff_t u = add_update(s, value);
    if (u >= 0)
        update_elem(s, (size_t)u, name, NULL, -1);
}

/* One uint leaf under a keyed list entry: <list>[<key>=<k>]/[<mid>/]<leaf>,
 * k < FSC_SIM_MAX_QUEUES (a queue or a priority). */
static void add_keyed_leaf(struct msg_store *s, const char *list, const char *key, uint32_t k,
                           const char *mid, const char *name, uint64_t value)
{
    ptrdiff_t u = add_update(s, value);
    if (u < 0)
        return;
    update_elem(s, (size_t)u, list, key, (int)k);
    if (mid != NULL)
        update_elem(s, (size_t)u, mid, NULL, -1);
    update_elem(s, (size_t)u, name, NULL, -1);
}

/* Prefix and updates of one port message of `sensor`. */
static void build_sensor(struct msg_store *s, unsigned sensor, uint32_t queues,
                         const struct fsc_sim_port_values *v)
{
    uint32_t nq = queues < FSC_SIM_MAX_QUEUES ? queues : FSC_SIM_MAX_QUEUES;
    /* Key values of queues and PFC priorities (all 8, whatever the queues). */
    for (uint32_t q = 0; q < FSC_SIM_MAX_QUEUES; q++)
        snprintf(s->qname[q], sizeof(s->qname[q]), "%u", (unsigned)q);
    switch (sensor) {
    case FSC_SIM_SENSOR_IF:
    case FSC_SIM_SENSOR_ETH:
        prefix_elem(s, "interfaces");
        prefix_port_elem(s, "interface", "name");
        if (sensor == FSC_SIM_SENSOR_ETH)
            prefix_elem(s, "ethernet");
        prefix_elem(s, "state");
        prefix_elem(s, "counters");
        if (sensor == FSC_SIM_SENSOR_IF) {
            for (int i = 0; i < FSC_SIM_IF_LEAVES; i++)
                add_leaf(s, if_leaves[i], if_value(v, i));
            break;
        }
        for (int i = 0; i < FSC_SIM_ETH_LEAVES; i++)
            add_leaf(s, eth_leaves[i], eth_value(v, i));
        for (uint32_t p = 0; p < FSC_SIM_PFC_PRIORITIES; p++) {
            add_keyed_leaf(s, "jnx-pfc-statistics", "priority", p, NULL, "in-mac-pause-frames",
                           v->in_pfc[p]);
            add_keyed_leaf(s, "jnx-pfc-statistics", "priority", p, NULL, "out-mac-pause-frames",
                           v->out_pfc[p]);
        }
        break;
    case FSC_SIM_SENSOR_QOS:
        prefix_elem(s, "qos");
        prefix_elem(s, "interfaces");
        prefix_port_elem(s, "interface", "interface-id");
        prefix_elem(s, "output");
        prefix_elem(s, "queues");
        for (uint32_t q = 0; q < nq; q++)
            for (int i = 0; i < FSC_SIM_QOS_LEAVES; i++)
                add_keyed_leaf(s, "queue", "name", q, "state", qos_leaves[i], qos_value(v, q, i));
        break;
    case FSC_SIM_SENSOR_QMON:
        prefix_elem(s, "junos");
        prefix_elem(s, "system");
        prefix_elem(s, "linecard");
        prefix_port_elem(s, "qmon-sw", "name");
        for (uint32_t q = 0; q < nq; q++)
            for (int i = 0; i < FSC_SIM_QMON_LEAVES; i++)
                add_keyed_leaf(s, "egress", "queue-number", q, NULL, qmon_leaves[i],
                               qmon_value(v, q, i));
        break;
    case FSC_SIM_SENSOR_FEC:
        prefix_elem(s, "state");
        prefix_elem(s, "interfaces");
        prefix_port_elem(s, "interface", "name");
        prefix_elem(s, "ethernet");
        prefix_elem(s, "counters");
        add_leaf(s, fec_leaves[0], v->fec_corrected_words);
        add_leaf(s, fec_leaves[1], v->fec_uncorrectable_words);
        break;
    default: { /* FSC_SIM_SENSOR_SPEED */
        prefix_elem(s, "interfaces");
        prefix_port_elem(s, "interface", "name");
        static const char *const speed_leaves[2] = {"port-speed", "negotiated-port-speed"};
        for (int i = 0; i < 2; i++) {
            size_t u = add_update_str(s, FSC_SIM_SPEED_NAME);
            update_elem(s, u, "ethernet", NULL, -1);
            update_elem(s, u, "state", NULL, -1);
            update_elem(s, u, speed_leaves[i], NULL, -1);
        }
        ptrdiff_t u = add_update(s, FSC_SIM_HIGH_SPEED_MBPS);
        update_elem(s, (size_t)u, "state", NULL, -1);
        update_elem(s, (size_t)u, "high-speed", NULL, -1);
        break;
    }
    }
}

int fsc_sim_msg_update(const struct fsc_sim_msg_meta *meta, const struct fsc_sim_port_values *v,
                       uint8_t **out, size_t *len)
{
    const struct sensor_desc *sd = NULL;
    for (size_t i = 0; i < sizeof(sensor_descs) / sizeof(sensor_descs[0]); i++) {
        if (sensor_descs[i].sensor == meta->sensor)
            sd = &sensor_descs[i];
    }
    if (!sd)
        return -EINVAL; /* not a data sensor */
    /* ~50 KB of message objects: on the heap, not the server thread's stack. */
    struct msg_store *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    snprintf(s->ifname, sizeof(s->ifname), "et-0/0/%u", (unsigned)meta->port);
    gnmi__path_elem__key_entry__init(&s->pkey);
    s->pkey.value = s->ifname;
    s->pkey_ptr[0] = &s->pkey;
    s->zero_suppress = meta->zero_suppress;
    gnmi__path__init(&s->prefix);
    build_sensor(s, meta->sensor, meta->queues, v);
    s->prefix.elem = s->pelem_ptr;
    s->prefix.n_elem = s->np;

    Gnmi__Notification notif = GNMI__NOTIFICATION__INIT;
    const int64_t ahead = meta->clock_ahead_ms;
    notif.timestamp = (meta->payload_ms + ahead) * 1000000;
    notif.prefix = &s->prefix;
    notif.update = s->upd_ptr;
    notif.n_update = s->nu;

    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension hdr =
        JUNOS_TELEMETRY__GNMI_JUNIPER_TELEMETRY_HEADER_EXTENSION__INIT;
    hdr.system_id = (char *)meta->system_id;
    hdr.component_id = sd->component_id;
    hdr.sensor_name = (char *)sd->sensor_name;
    hdr.subscribed_path = (char *)meta->subscribed_path;
    hdr.streamed_path = (char *)sd->streamed;
    hdr.component = (char *)sd->component;
    hdr.sequence_number = meta->sequence;
    hdr.payload_get_timestamp = meta->payload_ms + ahead;
    hdr.stream_creation_timestamp = meta->epoch_ms + ahead;
    hdr.export_timestamp = meta->export_ms + ahead;
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
        {"junos-state-interfaces", "Juniper Networks, Inc.", "24.4R1-EVO"},
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
