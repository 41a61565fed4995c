#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# The host check against the B300 cable plan on real kernel interfaces: two
# network namespaces stand in for node 1 and node 2 of a two-cable plan
# (4 links), joined by veth pairs named as the plan names the interfaces.
#   nic_cable_check_test.sh FABRICSCOPE PYTHON3
#
# Plan (default layout): port 1 = card 7 (ens8f0np0, ens8f1np1), port 2 =
# card 4 (ens5f0np0, ens5f1np1); links 1..4 = 10.112.<link>.1 on node 1,
# .2 on node 2. What is wired instead:
#   ens8f0np0 - ens8f0np0   as planned
#   ens8f1np1 - ens8f1np1   node 1 has 10.112.2.5/30 instead of .1  -> address
#   ens5f0np0 - ens5f1np1   the two links of port 2 cross-connected  -> peer
#   ens5f1np1 - ens5f0np0                                            -> peer
# Both namespaces set arp_ignore=1 and arp_announce=2 (see
# collector/sources/nic/nic_hostcheck.h: without arp_ignore=1 the crossed links would
# still resolve). Node 1 sends a few UDP datagrams to every planned peer
# address, bound to the planned interface (SO_BINDTODEVICE), which fills its
# neighbour table; then the daemon runs INSIDE node 1's namespace
# (`ip netns exec` mounts that namespace's /sys) with sysfs_root "/" and the
# plan at the veth speed (10G). Exactly the three mismatches above read 1,
# the other 17 series 0, with one START line each. Then the address is fixed
# and traffic sent again: within one recheck (10 s) address and peer of that
# link read 0 and the address mismatch has its END line. Two of the veths
# are also polled as ports (by netdev; their RDMA names do not exist): the
# daemon's SIOCETHTOOL path against a real driver (veth's peer_ifindex stat),
# netdev statistics and link gauges, with the plan's labels.
#
# Needs CAP_NET_ADMIN (root): exits 77 (ctest SKIP_RETURN_CODE) otherwise,
# and fails instead under CI (CI=true; lib.sh, skip).
# The namespaces are removed on every exit path (EXIT trap), the daemon is
# stopped by PID, every wait is bounded.
set -u
bin=$1
py=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "root (CAP_NET_ADMIN, to create network namespaces)"
for tool in ip curl; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool"
done

lib_init
# shellcheck source=nic_netns_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/nic_netns_lib.sh"
nicns_init cab # the daemon runs in node 1's namespace: so do its scrapes
# node-1 name, node-2 name, node-1 address
while read -r a b addr; do
    ip link add "$a" netns "$ns1" type veth peer name "$b" netns "$ns2" || exit 1
    ip -n "$ns1" addr add "$addr/30" dev "$a" || exit 1
    ip -n "$ns1" link set "$a" up || exit 1
done <<'EOF'
ens8f0np0 ens8f0np0 10.112.1.1
ens8f1np1 ens8f1np1 10.112.2.5
ens5f0np0 ens5f1np1 10.112.3.1
ens5f1np1 ens5f0np0 10.112.4.1
EOF
for i in 1 2 3 4; do
    case $i in
    1) ifn=ens8f0np0 ;; 2) ifn=ens8f1np1 ;; 3) ifn=ens5f0np0 ;; 4) ifn=ens5f1np1 ;;
    esac
    ip -n "$ns2" addr add "10.112.$i.2/30" dev "$ifn" || exit 1
    ip -n "$ns2" link set "$ifn" up || exit 1
done
for ifn in ens8f0np0 ens8f1np1 ens5f0np0 ens5f1np1; do
    check "$ifn up" wait_until 50 \
        eval '[ "$(ip netns exec "$ns1" cat /sys/class/net/$ifn/operstate)" = up ]'
done
check_eq "veth speed (the plan says 10G)" "$(ip netns exec "$ns1" cat /sys/class/net/ens8f0np0/speed)" 10000

cat >"$tmp/send.py" <<'PY'
# A few UDP datagrams (port 9, discard) to each planned peer, out of the
# planned interface; unreachable ones fail quietly: the neighbour table is
# what the test is after.
import socket, sys, time
for spec in sys.argv[1:]:
    ifname, peer = spec.split("=")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, ifname.encode())
    for _ in range(3):
        try:
            s.sendto(b"fabricscope", (peer, 9))
        except OSError as e:
            print("%s %s: %s" % (ifname, peer, e.strerror))
            break
        time.sleep(0.01)
    s.close()
PY
send() {
    ip netns exec "$ns1" "$py" "$tmp/send.py" "$@"
}
send ens8f0np0=10.112.1.2 ens8f1np1=10.112.2.2 ens5f0np0=10.112.3.2 ens5f1np1=10.112.4.2
check "10.112.1.2 resolved on ens8f0np0" wait_until 30 \
    eval 'ip -n "$ns1" neigh show dev ens8f0np0 | grep -Eq "^10\.112\.1\.2 lladdr .* (REACHABLE|STALE|DELAY)"'
ip -n "$ns1" neigh show

printf '1-1 > 2-1\n1-2 > 2-2\n' >"$tmp/cables.txt"
cat >"$tmp/cab.yaml" <<YAML
sources:
  - name: b300-01
    type: nic
    interval: 100ms
    node: 1
    # no RDMA device in a namespace: two ports by netdev only (their rdma
    # names do not exist), for the statistics, SIOCETHTOOL and link readers
    devices:
      - {rdma: fsc_absent0, netdev: ens8f0np0}
      - {rdma: fsc_absent1, netdev: ens5f0np0}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
topology:
  devices:
    - {name: b300-01, role: host}
    - {name: b300-02, role: host}
  cable_plan:
    file: $tmp/cables.txt
    speed: 10G
    nodes:
      - {node: 1, device: b300-01}
      - {node: 2, device: b300-02}
YAML
: >"$tmp/fsc.log"
ip netns exec "$ns1" "$bin" run -c "$tmp/cab.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
wait_exporter || exit 1
check_log "host check on" "event=nic_started source=b300-01 ports=2 interval_ms=100.000 ethtool=on pcie=on fixture=no host_check=on node=1 planned=4"

expect() { # port kind -> expected value
    case "$1:$2" in
    ens8f1np1:address | ens5f0np0:peer | ens5f1np1:peer) echo 1 ;;
    *) echo 0 ;;
    esac
}
check "all 20 mismatch series" poll_metrics 50 \
    '[ "$(grep -c "^fabric_cable_mismatch{" "$tmp/metrics")" = 20 ]'
for p in ens8f0np0 ens8f1np1 ens5f0np0 ens5f1np1; do
    for k in missing down speed address peer; do
        check_eq "$p $k" "$(series_value fabric_cable_mismatch port=$p kind=$k device=b300-01)" "$(expect $p $k)"
    done
done
# The plan's labels are in the info families (docs/METRICS.md).
check_eq "plan in fabric_port_info" "$(series_value fabric_port_info port=ens5f1np1 link=4 peer=b300-02 peer_port=ens5f1np1 peer_node=2)" 1
check_eq "card in fabric_nic_info" "$(series_value fabric_nic_info port=ens5f1np1 card=4)" 1
check_eq "node in fabric_node_info" "$(series_value fabric_node_info device=b300-01 node=1)" 1
# The event log thread writes the START lines a moment after the detection
# is published: wait for them (5 s at most), then count exactly.
wait_until 50 eval '[ "$(grep -c "kind=cable_mismatch phase=start" "$tmp/fsc.log")" -ge 3 ]'
check_eq "START lines" "$(grep -c 'kind=cable_mismatch phase=start' "$tmp/fsc.log")" 3
check_log "address event" \
    "kind=cable_mismatch phase=start card=7 device=b300-01 mismatch=address link=2 node=1 peer=b300-02:ens8f1np1 peer_node=2 port=ens8f1np1 start=[^ ]+ planned_address=10\.112\.2\.1/30 address=10\.112\.2\.5/30$"
check_log "peer event ens5f0np0" \
    "kind=cable_mismatch phase=start card=4 device=b300-01 mismatch=peer link=3 node=1 peer=b300-02:ens5f0np0 peer_node=2 port=ens5f0np0 start=[^ ]+ peer_address=10\.112\.3\.2 neighbour=(incomplete|none)$"
check_log "peer event ens5f1np1" \
    "kind=cable_mismatch phase=start card=4 device=b300-01 mismatch=peer link=4 node=1 peer=b300-02:ens5f1np1 peer_node=2 port=ens5f1np1 start=[^ ]+ peer_address=10\.112\.4\.2 neighbour=(incomplete|none)$"

# The two polled veths: ethtool stats through the daemon (veth's first stat
# is its peer's ifindex), netdev statistics, link gauges, plan labels.
P='port=ens8f0np0'
check_eq "ethtool peer_ifindex" "$(series_value fabric_mlx5_peer_ifindex_total $P)" \
    "$(ip netns exec "$ns2" cat /sys/class/net/ens8f0np0/ifindex)"
check_eq "ethtool peer_ifindex (swapped link)" \
    "$(series_value fabric_mlx5_peer_ifindex_total port=ens5f0np0)" \
    "$(ip netns exec "$ns2" cat /sys/class/net/ens5f1np1/ifindex)"
check_eq "ethtool xdp counter" "$(series_value fabric_mlx5_rx_queue_0_xdp_packets_total $P)" 0
check "netdev tx_packets (3 datagrams + ARP)" \
    eval 'ge "$(series_value fabric_netdev_tx_packets_total $P)" 4'
check_eq "link up" "$(series_value fabric_port_link_up $P)" 1
check_eq "link speed (bytes/s)" "$(series_value fabric_port_link_speed_bytes_per_second $P)" 1250000000
check_eq "no PCIe on a veth" "$(grep -c '^fabric_pcie_link_degraded{' "$tmp/metrics")" 0

# Fix the address; the recheck (every 10 s) sees it and the new neighbour.
ip -n "$ns1" addr del 10.112.2.5/30 dev ens8f1np1 || fail "addr del"
ip -n "$ns1" addr add 10.112.2.1/30 dev ens8f1np1 || fail "addr add"
send ens8f1np1=10.112.2.2
check "10.112.2.2 resolved on ens8f1np1" wait_until 30 \
    eval 'ip -n "$ns1" neigh show dev ens8f1np1 | grep -Eq "^10\.112\.2\.2 lladdr"'
check "address fixed within a recheck" poll_metrics 150 \
    '[ "$(series_value fabric_cable_mismatch port=ens8f1np1 kind=address)" = 0 ]'
check_eq "peer of the fixed link" "$(series_value fabric_cable_mismatch port=ens8f1np1 kind=peer)" 0
check_eq "swap still seen" "$(series_value fabric_cable_mismatch port=ens5f0np0 kind=peer)" 1
check "END line" wait_until 20 grep -Eq \
    "kind=cable_mismatch phase=end .*mismatch=address .*port=ens8f1np1 .*duration_ms=[0-9.]+ planned_address=10\.112\.2\.1/30 address=10\.112\.2\.1/30$" "$tmp/fsc.log"
check_eq "START lines after the fix" "$(grep -c 'kind=cable_mismatch phase=start' "$tmp/fsc.log")" 3

stop_pid "$fsc_pid" 50
fsc_pid=""
check_eq "exit status" "$stop_rc" 0
if [ "$fails" -ne 0 ]; then
    echo "--- daemon log ---"
    cut -c1-400 "$tmp/fsc.log" | tail -30
fi
summary
