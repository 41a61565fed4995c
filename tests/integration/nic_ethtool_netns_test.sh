#!/bin/sh
# shellcheck disable=SC2016 # single-quoted commands are expanded by eval
# The ethtool ioctl path and the /sys/class/net counters against a real
# kernel interface: a veth pair between two private network namespaces.
#   nic_ethtool_netns_test.sh NIC_READ PYTHON3
#
# Two namespaces, because with both ends in one namespace both addresses are
# local and the kernel delivers the traffic over lo, never over the veth.
# The addresses (10.99.0.1/30, 10.99.0.2/30) exist only inside them. The
# traffic is made exact: IPv6 off (no ND, MLD, router solicitations) before
# the veth exists, static ARP entries (no ARP), and a lock-step UDP echo
# (each datagram answered before the next is sent, so none is dropped).
#
# Bytes on the wire, per datagram of P payload bytes: veth counts skb->len at
# transmit, which includes the Ethernet header (no FCS, no padding to 60 on a
# veth): P + 8 (UDP) + 20 (IPv4, no options) + 14 (Ethernet) = P + 42. A's
# tx is the requests and its rx the echoes; veth counts a device's rx bytes
# from its peer's tx, so B sees the mirror image.
#
# Also read: peer_ifindex (veth's first ethtool stat) must be B's ifindex,
# the XDP queue counters of a veth without XDP stay 0, /proc/net/dev (another
# kernel path, dev_get_stats) agrees with the statistics files, and changing
# the channel count from 2 to 1 (ETHTOOL_SCHANNELS) makes the reader report
# "strings changed" with 10 stats instead of 19.
#
# Needs CAP_NET_ADMIN (root): exits 77 (ctest SKIP_RETURN_CODE) otherwise,
# and fails instead under CI (CI=true; lib.sh, skip).
set -u
nic_read=$1
py=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "root (CAP_NET_ADMIN, to create network namespaces)"
command -v ip >/dev/null 2>&1 || skip "iproute2's ip"

lib_init
nsa="fsc-test-$$-a"
nsb="fsc-test-$$-b"
reader_pid=""
nic_cleanup() {
    stop_pid "$reader_pid" 20
    ip netns del "$nsa" 2>/dev/null
    ip netns del "$nsb" 2>/dev/null
    lib_cleanup
}
trap nic_cleanup EXIT

N=50       # datagrams each way
P=1000     # UDP payload bytes
FRAME=$((P + 8 + 20 + 14))

ip netns add "$nsa" || exit 1
ip netns add "$nsb" || exit 1
for ns in "$nsa" "$nsb"; do
    ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 &&
        echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' || exit 1
done
ip link add fscv0 numtxqueues 2 numrxqueues 2 netns "$nsa" type veth \
    peer name fscv1 numtxqueues 2 numrxqueues 2 netns "$nsb" || exit 1
ip -n "$nsa" addr add 10.99.0.1/30 dev fscv0 || exit 1
ip -n "$nsb" addr add 10.99.0.2/30 dev fscv1 || exit 1
mac_a=$(ip netns exec "$nsa" cat /sys/class/net/fscv0/address)
mac_b=$(ip netns exec "$nsb" cat /sys/class/net/fscv1/address)
ip -n "$nsa" neigh add 10.99.0.2 lladdr "$mac_b" dev fscv0 nud permanent || exit 1
ip -n "$nsb" neigh add 10.99.0.1 lladdr "$mac_a" dev fscv1 nud permanent || exit 1
ip -n "$nsa" link set fscv0 up || exit 1
ip -n "$nsb" link set fscv1 up || exit 1
check "fscv0 reaches operstate up" wait_until 50 \
    eval '[ "$(ip netns exec "$nsa" cat /sys/class/net/fscv0/operstate)" = up ]'

cat >"$tmp/udp_echo.py" <<'PY'
import socket, sys
mode, host, port, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
if mode == "server":
    s.bind((host, port))
    print("listening port=%d" % port, flush=True)
    for _ in range(n):
        data, peer = s.recvfrom(65536)
        s.sendto(data, peer)
else:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    for _ in range(n):
        s.sendto(payload, (host, port))
        data, _ = s.recvfrom(65536)
        if data != payload:
            sys.exit("echo differs")
    print("echoed %d" % n)
PY

cat >"$tmp/channels.py" <<'PY'
# ETHTOOL_SCHANNELS (0x3d) rx=tx=COUNT through SIOCETHTOOL, stdlib only.
import ctypes, fcntl, socket, struct, sys
class Channels(ctypes.Structure):
    _fields_ = [(f, ctypes.c_uint32) for f in ("cmd", "max_rx", "max_tx", "max_other",
                "max_combined", "rx", "tx", "other", "combined")]
def ethtool(ifname, buf):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = struct.pack("16sP", ifname.encode(), ctypes.addressof(buf)).ljust(40, b"\0")
    fcntl.ioctl(s.fileno(), 0x8946, ifr)
ch = Channels(cmd=0x3c)
ethtool(sys.argv[1], ch)
ch.cmd, ch.rx, ch.tx = 0x3d, int(sys.argv[2]), int(sys.argv[2])
ethtool(sys.argv[1], ch)
PY

# $1: output file, $2: "stat" or "ethtool", $3: name
field() { awk -v k="$2" -v n="$3" '$1 == k && $2 == n { print $3 }' "$1"; }
# /proc/net/dev of namespace $1, interface $2: "rx_bytes rx_packets tx_bytes tx_packets"
procdev() {
    ip netns exec "$1" cat /proc/net/dev |
        awk -v i="$2:" '$1 == i { print $2, $3, $10, $11 }'
}

check "nic_read A before" eval 'ip netns exec "$nsa" "$nic_read" fscv0 >"$tmp/a0" 2>"$tmp/a0.err"'
check "nic_read B before" eval 'ip netns exec "$nsb" "$nic_read" fscv1 >"$tmp/b0" 2>"$tmp/b0.err"'
cat "$tmp/a0.err" "$tmp/b0.err"

: >"$tmp/sim.out"
ip netns exec "$nsb" "$py" "$tmp/udp_echo.py" server 10.99.0.2 9000 "$N" "$P" \
    >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim_pid=$!
check "echo server listening" wait_for "$tmp/sim.out" '/^listening/p' >/dev/null
check "client got $N echoes" eval \
    'ip netns exec "$nsa" "$py" "$tmp/udp_echo.py" client 10.99.0.2 9000 "$N" "$P" | grep -qx "echoed $N"'
stop_pid "$sim_pid" 50
sim_pid=""

check "nic_read A after" eval 'ip netns exec "$nsa" "$nic_read" fscv0 >"$tmp/a1" 2>"$tmp/a1.err"'
check "nic_read B after" eval 'ip netns exec "$nsb" "$nic_read" fscv1 >"$tmp/b1" 2>"$tmp/b1.err"'
cat "$tmp/a1.err" "$tmp/b1.err"

delta() { echo $(($(field "$1" stat "$3") - $(field "$2" stat "$3"))); }
want_bytes=$((N * FRAME))
check_eq "A tx_bytes delta" "$(delta "$tmp/a1" "$tmp/a0" tx_bytes)" "$want_bytes"
check_eq "A rx_bytes delta" "$(delta "$tmp/a1" "$tmp/a0" rx_bytes)" "$want_bytes"
check_eq "A tx_packets delta" "$(delta "$tmp/a1" "$tmp/a0" tx_packets)" "$N"
check_eq "A rx_packets delta" "$(delta "$tmp/a1" "$tmp/a0" rx_packets)" "$N"
check_eq "B tx_bytes delta" "$(delta "$tmp/b1" "$tmp/b0" tx_bytes)" "$want_bytes"
check_eq "B rx_bytes delta" "$(delta "$tmp/b1" "$tmp/b0" rx_bytes)" "$want_bytes"
check_eq "B tx_packets delta" "$(delta "$tmp/b1" "$tmp/b0" tx_packets)" "$N"
check_eq "B rx_packets delta" "$(delta "$tmp/b1" "$tmp/b0" rx_packets)" "$N"
check_eq "A rx_errors" "$(field "$tmp/a1" stat rx_errors)" 0
check_eq "A tx_dropped" "$(field "$tmp/a1" stat tx_dropped)" 0

# Another kernel path for the same numbers (nothing moves between the reads).
check_eq "A /proc/net/dev" "$(procdev "$nsa" fscv0)" \
    "$(field "$tmp/a1" stat rx_bytes) $(field "$tmp/a1" stat rx_packets) $(field "$tmp/a1" stat tx_bytes) $(field "$tmp/a1" stat tx_packets)"

# ethtool stats through SIOCETHTOOL: names and values of a 2-queue veth.
ifindex_b=$(ip netns exec "$nsb" cat /sys/class/net/fscv1/ifindex)
ifindex_a=$(ip netns exec "$nsa" cat /sys/class/net/fscv0/ifindex)
check_eq "A peer_ifindex" "$(field "$tmp/a1" ethtool peer_ifindex)" "$ifindex_b"
check_eq "B peer_ifindex" "$(field "$tmp/b1" ethtool peer_ifindex)" "$ifindex_a"
check_eq "A ethtool stat count" "$(grep -c '^ethtool ' "$tmp/a1")" 19
check_eq "A first stat" "$(sed -n '1s/ .*//p;1q' "$tmp/a1")" ethtool
for q in 0 1; do
    for s in xdp_packets xdp_bytes drops xdp_redirect xdp_drops xdp_tx xdp_tx_errors; do
        check_eq "A rx_queue_${q}_$s" "$(field "$tmp/a1" ethtool "rx_queue_${q}_$s")" 0
    done
    for s in xdp_xmit xdp_xmit_errors; do
        check_eq "A tx_queue_${q}_$s" "$(field "$tmp/a1" ethtool "tx_queue_${q}_$s")" 0
    done
done
check_eq "A link" "$(sed -n 's/^link //p' "$tmp/a1")" "up 10000"

# The stat count changes under a running reader: 2 queues -> 1.
ip netns exec "$nsa" "$nic_read" fscv0 --wait "$tmp/go" >"$tmp/a2" 2>"$tmp/a2.err" &
reader_pid=$!
check "reader ready" wait_for "$tmp/a2" '/^link /p' >/dev/null
check "set channels to 1" ip netns exec "$nsa" "$py" "$tmp/channels.py" fscv0 1
: >"$tmp/go"
wait_until 100 eval '! kill -0 "$reader_pid" 2>/dev/null'
stop_pid "$reader_pid" 10
reader_pid=""
check_eq "reader exit status" "$stop_rc" 0
cat "$tmp/a2.err"
check_eq "strings changed" "$(sed -n 's/^reread //p' "$tmp/a2")" "1 10"
check_eq "new names" "$(awk '$1 == "ethtool2" { printf "%s ", $2 }' "$tmp/a2")" \
    "peer_ifindex rx_queue_0_xdp_packets rx_queue_0_xdp_bytes rx_queue_0_drops rx_queue_0_xdp_redirect rx_queue_0_xdp_drops rx_queue_0_xdp_tx rx_queue_0_xdp_tx_errors tx_queue_0_xdp_xmit tx_queue_0_xdp_xmit_errors "
check_eq "peer_ifindex after the change" "$(field "$tmp/a2" ethtool2 peer_ifindex)" "$ifindex_b"

summary
