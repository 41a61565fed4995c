#include "plugin/source.h"

#include "sources/gnmi/gnmi_source.h"
#include "sources/nic/nic_source.h"
#include "sources/otlp/otlp_source.h"
#include "sources/replay/replay_source.h"
#include "sources/synth/synth_source.h"

/* Source types land one issue at a time (gnmi, otlp, nic); until a type is
 * built the daemon says so at start instead of pretending to collect. */
const struct fsc_source_ops *fsc_source_ops_find(enum fsc_source_type type)
{
    switch (type) {
    case FSC_SOURCE_GNMI:
        return &fsc_gnmi_source_ops;
    case FSC_SOURCE_OTLP:
        return &fsc_otlp_source_ops;
    case FSC_SOURCE_NIC:
        return &fsc_nic_source_ops;
    case FSC_SOURCE_SYNTHETIC:
        return &fsc_synth_source_ops;
    case FSC_SOURCE_REPLAY:
        return &fsc_replay_source_ops;
    }
    return NULL;
}
