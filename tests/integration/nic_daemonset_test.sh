#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# The NIC config the DaemonSet ships (deploy/kubernetes/configmap.yaml, key
# nic.yaml, read by this script, not copied) on a real kernel: its
# `sysfs_root: /host` is a prefix for the host's /sys, so ethtool and the host
# check keep running in the poller's network namespace.
#   nic_daemonset_test.sh FABRICSCOPE PYTHON3 SOURCE_DIR
#
# Two network namespaces stand in for nodes 1 and 2 of a two-cable plan
# (links 1..4, 10.112.<link>.1 on node 1, .2 on node 2), joined by veths named
# as the plan names the interfaces. Node 1's side:
#   ens8f0np0  as planned, traffic sent: its peer is in the neighbour table
#   ens8f1np1  as planned, no traffic: no neighbour entry        -> peer
#   ens5f0np0  10.112.3.5/30 instead of .1                         -> address
#   ens5f1np1  not created                                         -> missing
# The config is the shipped one with what a test cannot have replaced:
# NODE_NAME by b300-01 (as the pod's start command does), sysfs_root /host by
# <tmp>/host, exporters by one Prometheus listener on loopback (the cluster's
# Kafka and Mimir are out of reach), state_dir by <tmp>/state; and what
# docs/DEPLOY.md says to add for the host check: node 1 and
# topology.cable_plan (the plan at the veths' 10G). The daemon runs inside
# node 1's namespace (`ip netns exec` mounts its /sys) in a private mount
# namespace (`unshare -m`) where that /sys is bound at <tmp>/host/sys, the
# way the DaemonSet's hostPath puts the node's /sys at /host/sys.
#   Run 1, the config as above (auto: true; this kernel has no RDMA device,
#   so no port): `nic_started ... ethtool=on ... fixture=no host_check=on`,
#   no `nic_ethtool_off` line, and exactly the three mismatches above read 1
#   of the 20 series - address and peer are judged from the kernel
#   (getifaddrs, /proc/net/arp of the namespace), which the old implicit
#   fixture mode never did (it left them 0 and logged nic_host_check_partial).
#   Run 2, the same config with `auto: true` replaced by one listed port on
#   ens8f0np0: SIOCETHTOOL through the daemon (veth's peer_ifindex stat is
#   node 2's ifindex of its end), netdev statistics and link speed read
#   through the prefix.
#
# Needs root (network and mount namespaces) and PyYAML: exits 77 (ctest
# SKIP_RETURN_CODE) otherwise, and fails instead under CI (CI=true; lib.sh,
# skip). The namespaces are removed on every exit path (EXIT trap), the
# daemon is stopped by PID, every wait is bounded.
set -u
bin=$1
py=$2
src=$3
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "root (CAP_NET_ADMIN and CAP_SYS_ADMIN, for the namespaces)"
for tool in ip curl unshare mount; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool"
done
"$py" -c 'import yaml' 2>/dev/null || skip "PyYAML (python3 -c 'import yaml')"

lib_init
# shellcheck source=nic_netns_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/nic_netns_lib.sh"

# ---- the config, from the shipped ConfigMap ------------------------------------------
printf '1-1 > 2-1\n1-2 > 2-2\n' >"$tmp/cables.txt"
cat >"$tmp/extract.py" <<'PY'
# Reads nic.yaml out of the ConfigMap and changes only what a test cannot
# keep (see the script's header); prints what it changed.
import sys, yaml
configmap, tmp, mode = sys.argv[1], sys.argv[2], sys.argv[3]
with open(configmap) as f:
    cm = yaml.safe_load(f)
text = cm["data"]["nic.yaml"].replace("NODE_NAME", "b300-01")
cfg = yaml.safe_load(text)
srcs = cfg["sources"]
if len(srcs) != 1 or srcs[0].get("type") != "nic":
    sys.exit("nic.yaml: expected one nic source, got %r" % srcs)
s = srcs[0]
if s.get("sysfs_root") != "/host" or s.get("auto") is not True:
    sys.exit("nic.yaml: expected sysfs_root /host and auto: true, got %r" % s)
for key in ("fixture", "ethtool"):
    if key in s:
        sys.exit("nic.yaml: the shipped source sets %s: %r" % (key, s[key]))
s["sysfs_root"] = tmp + "/host"
s["node"] = 1
if mode == "listed":
    del s["auto"]
    s["devices"] = [{"rdma": "fsc_absent0", "netdev": "ens8f0np0"}]
print("kept: " + " ".join("%s=%s" % (k, s[k]) for k in ("name", "device", "interval")
                          if k in s))
cfg["exporters"] = {"prometheus": {"listen": "127.0.0.1:0"}}
cfg["state_dir"] = tmp + "/state"
cfg["topology"] = {"cable_plan": {"file": tmp + "/cables.txt", "speed": "10G"}}
with open(tmp + "/ds-%s.yaml" % mode, "w") as f:
    yaml.safe_dump(cfg, f, default_flow_style=False, sort_keys=False)
PY
for mode in auto listed; do
    out=$("$py" "$tmp/extract.py" "$src/deploy/kubernetes/configmap.yaml" "$tmp" "$mode") ||
        { fail "extract nic.yaml ($mode)"; exit 1; }
    check_eq "shipped source ($mode)" "$out" "kept: name=nic device=b300-01 interval=100ms"
done
check "the extracted config loads" "$bin" check-config --no-files "$tmp/ds-auto.yaml" >/dev/null 2>&1

# ---- the two nodes -------------------------------------------------------------------
nicns_init ds # the daemon runs in node 1's namespace: so do its scrapes
# node-1 name, node-1 address, link
while read -r ifn addr link; do
    ip link add "$ifn" netns "$ns1" type veth peer name "$ifn" netns "$ns2" || exit 1
    ip -n "$ns1" addr add "$addr/30" dev "$ifn" || exit 1
    ip -n "$ns2" addr add "10.112.$link.2/30" dev "$ifn" || exit 1
    ip -n "$ns1" link set "$ifn" up || exit 1
    ip -n "$ns2" link set "$ifn" up || exit 1
done <<'EOF'
ens8f0np0 10.112.1.1 1
ens8f1np1 10.112.2.1 2
ens5f0np0 10.112.3.5 3
EOF
for ifn in ens8f0np0 ens8f1np1 ens5f0np0; do
    check "$ifn up" wait_until 50 \
        eval '[ "$(ip netns exec "$ns1" cat /sys/class/net/$ifn/operstate)" = up ]'
done
# Three datagrams to ens8f0np0's peer (port 9, discard): the neighbour entry.
ip netns exec "$ns1" "$py" -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"ens8f0np0")
for _ in range(3):
    s.sendto(b"fabricscope", ("10.112.1.2", 9))
    time.sleep(0.01)
' || fail "send to 10.112.1.2"
check "10.112.1.2 resolved on ens8f0np0" wait_until 30 \
    eval 'ip -n "$ns1" neigh show dev ens8f0np0 | grep -Eq "^10\.112\.1\.2 lladdr .* (REACHABLE|STALE|DELAY)"'
check_eq "no entry on ens8f1np1" "$(ip -n "$ns1" neigh show dev ens8f1np1 | grep -c lladdr)" 0

# The daemon: node 1's namespace, its /sys bound under the prefix in a
# private mount namespace (gone with the process: nothing to unmount).
start_ds() {
    : >"$tmp/fsc.out"
    : >"$tmp/fsc.log"
    ip netns exec "$ns1" unshare -m --propagation private sh -c \
        'mkdir -p "$1/host/sys" && mount --bind /sys "$1/host/sys" && exec "$2" run -c "$3"' \
        sh "$tmp" "$bin" "$1" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
}
stop_ds() {
    stop_pid "$fsc_pid" 50
    fsc_pid=""
    check_eq "exit status ($1)" "$stop_rc" 0
}

# ---- run 1: the shipped config --------------------------------------------------------
start_ds "$tmp/ds-auto.yaml"
wait_exporter || exit 1
check_log "ethtool on, host check on, no fixture" \
    "event=nic_started source=nic ports=0 interval_ms=100\.000 ethtool=on pcie=on fixture=no host_check=on node=1 planned=4 sysfs=$tmp/host/sys neighbours=/proc/net/arp$"
check_eq "no nic_ethtool_off line" "$(grep -c 'event=nic_ethtool_off' "$tmp/fsc.log")" 0
check_eq "no fixture view of the host check" \
    "$(grep -Ec 'event=nic_host_check_(partial|fixture)' "$tmp/fsc.log")" 0

expect() { # port kind -> expected value
    case "$1:$2" in
    ens8f1np1:peer | ens5f0np0:address | ens5f1np1:missing) echo 1 ;;
    *) echo 0 ;;
    esac
}
check "all 20 mismatch series" poll_metrics 50 \
    '[ "$(grep -c "^fabric_cable_mismatch{" "$tmp/metrics")" = 20 ]'
for p in ens8f0np0 ens8f1np1 ens5f0np0 ens5f1np1; do
    for k in missing down speed address peer; do
        check_eq "$p $k" "$(series_value fabric_cable_mismatch port=$p kind=$k device=b300-01)" \
            "$(expect "$p" "$k")"
    done
done
wait_until 50 eval '[ "$(grep -c "kind=cable_mismatch phase=start" "$tmp/fsc.log")" -ge 3 ]'
check_eq "START lines" "$(grep -c 'kind=cable_mismatch phase=start' "$tmp/fsc.log")" 3
check_log "address event from the kernel's addresses" \
    "kind=cable_mismatch phase=start .*mismatch=address link=3 .*port=ens5f0np0 .*planned_address=10\.112\.3\.1/30 address=10\.112\.3\.5/30$"
check_log "peer event from the namespace's neighbour table" \
    "kind=cable_mismatch phase=start .*mismatch=peer link=2 .*port=ens8f1np1 .*peer_address=10\.112\.2\.2 neighbour=none$"
stop_ds auto

# ---- run 2: one listed port: ethtool and statistics through the prefix ---------------
start_ds "$tmp/ds-listed.yaml"
wait_exporter || exit 1
check_log "listed port started" \
    "event=nic_started source=nic ports=1 interval_ms=100\.000 ethtool=on pcie=on fixture=no host_check=on node=1 planned=4 sysfs=$tmp/host/sys neighbours=/proc/net/arp$"
P='port=ens8f0np0'
peer_ifindex=$(ip netns exec "$ns2" cat /sys/class/net/ens8f0np0/ifindex)
check "ethtool series" poll_metrics 50 \
    '[ -n "$(series_value fabric_mlx5_peer_ifindex_total $P)" ]'
check_eq "SIOCETHTOOL peer_ifindex" "$(series_value fabric_mlx5_peer_ifindex_total $P device=b300-01)" \
    "$peer_ifindex"
check "netdev tx_packets (3 datagrams + ARP)" \
    eval 'ge "$(series_value fabric_netdev_tx_packets_total $P)" 4'
check_eq "link speed through the prefix" \
    "$(series_value fabric_port_link_speed_bytes_per_second $P)" 1250000000
check_eq "read errors" "$(series_value fabricscope_nic_read_errors_total source=nic)" 0
stop_ds listed

if [ "$fails" -ne 0 ]; then
    echo "--- daemon log ---"
    cut -c1-400 "$tmp/fsc.log" | tail -30
fi
summary
