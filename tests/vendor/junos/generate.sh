#!/bin/sh
# Regenerates tests/vendor/junos/*.names but required.names from a clone of
# github.com/Juniper/telemetry (run from the repository root).
set -eu
G=${1:?usage: generate.sh GIT_DIR_OF_A_Juniper/telemetry_CLONE}
T=tests/tools/junos_proto_paths.py
D=tests/vendor/junos
X=oc_component_render.proto:/components/component/transceiver
python3 $T $G 24.4/24.4R1-EVO "Junos OS Evolved 24.4R1-EVO (QFX5240 runs Junos OS Evolved): the sensors a fabric collector reads.
Egress queues: pfe_qos_egress_qstats.proto (sensor 227; this release has no brcm-cos-qstat renderer)." \
  evo-if-oc_render.proto oc_interface_render.proto mib2d_oc_evo_intf_state.proto \
  mgmt-ethd_oc_evo_intf_stats.proto pfe_qos_egress_qstats.proto junos_state_interface_render.proto $X \
  > $D/evo-24.4R1.names
python3 $T $G 24.2/24.2R1-EVO "Junos OS Evolved 24.2R1-EVO: the sensors a fabric collector reads.
brcm-* are the Broadcom (QFX5k) renderers: brcm-if-oc_render.proto, brcm-cos-qstat-oc_render.proto (egress queues, sensor 227)." \
  evo-if-oc_render.proto brcm-if-oc_render.proto oc_interface_render.proto mib2d_oc_evo_intf_state.proto \
  mgmt-ethd_oc_evo_intf_stats.proto brcm-cos-qstat-oc_render.proto \
  junos_state_interface_render.proto $X > $D/evo-24.2R1.names
python3 $T $G 23.4/23.4R2-EVO "Junos OS Evolved 23.4R2-EVO: the sensors a fabric collector reads.
This release has no brcm-cos-qstat renderer; am-cos-egress-qstat-oc_render.proto renders the egress queues." \
  evo-if-oc_render.proto brcm-if-oc_render.proto oc_interface_render.proto mib2d_oc_evo_intf_state.proto \
  mgmt-ethd_oc_evo_intf_stats.proto am-cos-egress-qstat-oc_render.proto junos_state_interface_render.proto $X \
  > $D/evo-23.4R2.names
J=junos-telemetry-interface
python3 $T $G 23.4/23.4R1 "Junos OS 23.4R1 (not Evolved): queue monitoring and the interface sensors.
qmon-sw: pfe_qmon_oc.proto renders sensor 15 (qmon.proto's QueueMonitor, which has the fields but no
gNMI paths) as the tree of junos-qmon.yang (21.2R1 .. 23.2R2): list qmon-sw key name, list
egress / ingress key queue-number. No *-EVO release has a qmon proto." \
  $J/pfe_qmon_oc.proto $J/pfe_port_oc.proto $J/mib2d_oc.proto $J/pfe_qos_egress_qstats.proto \
  $J/mib2d-junos-state-interfaces-render.proto > $D/junos-23.4R1.names
