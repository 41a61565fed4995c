#!/bin/sh
# `fabricscope demo --listen 127.0.0.1:P4 --gnmi-ports P1,P2 --otlp-port P3`
# (collector/demo/demo_main.c): the two leaves' gNMI simulators answer on P1
# and P2, the collector's OTLP receiver on P3 (the spine posts there) and
# /metrics on P4, as the banner and the generated config say; the
# collector's gNMI streams to both leaves are up and the spine's series
# arrive. Without XDG_STATE_HOME the rollups go to
# $HOME/.local/state/fabricscope-demo, as the banner says.
# `--port-base N --otlp-port P3`: the status page on N, the leaves on N+1
# and N+2, the OTLP receiver on P3 (its own option wins), nothing on N+3.
# A fixed port somebody listens on (--listen, --otlp-port, --gnmi-ports,
# --port-base) stops the demo with exit 1 and a sentence naming that port
# and the option, before anything starts: no simulator announced a port, no
# demo log line, the other fixed ports not listening, no state or rollup
# directory made. Malformed or repeated ports are usage errors (exit 2).
# The ports are found free by binding port 0 first (python).
# Everything on 127.0.0.1; processes stopped by PID; every wait bounded.
#   demo_ports_test.sh FABRICSCOPE PYTHON
# eval'd conditions are single-quoted on purpose:
# shellcheck disable=SC2016
set -u
bin=$1
py=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

# Four distinct free ports (held open together while they are picked).
ports=$("$py" -c 'import socket
ss = [socket.socket() for _ in range(4)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
# shellcheck disable=SC2086 # four words on purpose
set -- $ports
p1=$1 p2=$2 p3=$3 p4=$4

# listening PORT: something accepts TCP connections on 127.0.0.1:PORT.
listening() {
    "$py" -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
s.close()' "$1" 2>/dev/null
}

: >"$tmp/fsc.out"
: >"$tmp/fsc.log"
mkdir -p "$tmp/home"
TMPDIR="$tmp" HOME="$tmp/home" env -u XDG_STATE_HOME "$bin" demo --duration 60 \
    --listen "127.0.0.1:$p4" --gnmi-ports "$p1,$p2" --otlp-port "$p3" >"$tmp/fsc.out" \
    2>"$tmp/fsc.log" &
fsc_pid=$!
mport=$p4
# Sanitizer builds write the 4 x 16 device trees slowly: 30 s at most.
check "demo ready on the --listen port" wait_until 300 \
    grep -q "event=demo_ready status_page=http://127.0.0.1:$p4/ " "$tmp/fsc.log"
check "banner: leaves on the --gnmi-ports" wait_until 50 grep -q \
    "^  fabric     leaf1, leaf2   QFX5240 over gNMI (127.0.0.1:$p1, 127.0.0.1:$p2)\$" "$tmp/fsc.out"
check "banner: OTLP on --otlp-port" grep -q "^             spine1         SN4700 over OTLP/gRPC to 127.0.0.1:$p3\$" "$tmp/fsc.out"
config=$(sed -n 's/.*event=demo_started config=\([^ ]*\) .*/\1/p' "$tmp/fsc.log")
check "config: leaf1 at P1" grep -q "address: \"127.0.0.1:$p1\"" "$config"
check "config: leaf2 at P2" grep -q "address: \"127.0.0.1:$p2\"" "$config"
check "config: OTLP receiver at P3" grep -q "grpc_listen: \"127.0.0.1:$p3\"" "$config"
check "config: exporter at P4" grep -q "listen: \"127.0.0.1:$p4\"" "$config"
home_rollups="$tmp/home/.local/state/fabricscope-demo"
check "banner: rollups under HOME" grep -qF "  rollups    $home_rollups/rollup (kept: " "$tmp/fsc.out"
check "config: state_dir the rollup directory" grep -qF "state_dir: \"$home_rollups\"" "$config"
for p in "$p1" "$p2" "$p3" "$p4"; do
    check "something answers on $p" listening "$p"
done
# The collector reached the leaves on P1/P2 and the spine posted to P3.
up_all() {
    [ "$(series_value fabricscope_up source=leaf1)" = 1 ] &&
        [ "$(series_value fabricscope_up source=leaf2)" = 1 ] &&
        grep -q '^fabric_port_rx_bytes_total{.*device="leaf1"' "$tmp/metrics" &&
        grep -q '^fabric_port_rx_bytes_total{.*device="leaf2"' "$tmp/metrics" &&
        grep -q '^fabric_port_rx_bytes_total{.*device="spine1"' "$tmp/metrics"
}
check "leaves and spine deliver through the fixed ports" poll_metrics 200 up_all
stop_pid "$fsc_pid" 100
fsc_pid=""
check_eq "demo exits 0 on SIGTERM" "$stop_rc" 0
check "rollups kept under HOME" eval 'ls "$home_rollups"/rollup/rollup-*.fsr >/dev/null'

# --port-base N: four consecutive free ports (N .. N+3 bound together).
base=$("$py" -c 'import random, socket
for _ in range(200):
    n = random.randint(20000, 60000)
    ss = []
    try:
        for p in range(n, n + 4):
            s = socket.socket(); ss.append(s); s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        for s in ss: s.close()
    print(n); break')
: >"$tmp/base.out"
: >"$tmp/base.log"
XDG_STATE_HOME="$tmp/xdg" TMPDIR="$tmp" "$bin" demo --duration 60 --port-base "$base" \
    --otlp-port "$p3" >"$tmp/base.out" 2>"$tmp/base.log" &
fsc_pid=$!
check "--port-base: ready on N" wait_until 300 \
    grep -q "event=demo_ready status_page=http://127.0.0.1:$base/ " "$tmp/base.log"
check "--port-base: leaves on N+1, N+2" wait_until 50 grep -q \
    "^  fabric     leaf1, leaf2   QFX5240 over gNMI (127.0.0.1:$((base + 1)), 127.0.0.1:$((base + 2)))\$" "$tmp/base.out"
check "--port-base: --otlp-port wins" grep -q "^             spine1         SN4700 over OTLP/gRPC to 127.0.0.1:$p3\$" "$tmp/base.out"
for p in "$base" "$((base + 1))" "$((base + 2))" "$p3"; do
    check "--port-base: something answers on $p" listening "$p"
done
check "--port-base: nothing on N+3" eval '! listening $((base + 3))'
stop_pid "$fsc_pid" 100
fsc_pid=""
check_eq "--port-base: demo exits 0 on SIGTERM" "$stop_rc" 0

# A fixed port in use: exit 1, the port named. SO_REUSEADDR: the demo just
# closed connections on P3, and a TIME_WAIT left on it made a plain bind fail
# (seen under load); a listening socket still holds the port against the demo.
# It holds P3 and N+3 of the --port-base run (its N .. N+2 stay free).
"$py" -c 'import socket, sys, time
ss = [socket.socket() for _ in sys.argv[1:]]
for s, p in zip(ss, sys.argv[1:]):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(p))); s.listen(1)
print("listening", flush=True); time.sleep(30)' "$p3" "$((base + 3))" >"$tmp/busy.out" &
peer_pid=$!
check "busy listener up" wait_until 50 grep -q listening "$tmp/busy.out"
TMPDIR="$tmp" timeout 60 "$bin" demo --duration 5 --listen 127.0.0.1:0 --otlp-port "$p3" \
    >"$tmp/b.out" 2>"$tmp/b.err"
check_eq "busy --otlp-port: exit status" "$?" 1
check "busy --otlp-port: the port named" grep -q \
    "port $p3 on 127.0.0.1 for the OTLP receiver (--otlp-port) is not free: Address already in use" "$tmp/b.err"
TMPDIR="$tmp" timeout 60 "$bin" demo --duration 5 --listen 127.0.0.1:0 --gnmi-ports "$p1,$p3" \
    >"$tmp/b.out" 2>"$tmp/b.err"
check_eq "busy --gnmi-ports: exit status" "$?" 1
check "busy --gnmi-ports: the port named" grep -q \
    "port $p3 on 127.0.0.1 for the leaf2 (--gnmi-ports) is not free: Address already in use" "$tmp/b.err"
TMPDIR="$tmp" timeout 60 "$bin" demo --duration 5 --port-base "$base" >"$tmp/b.out" 2>"$tmp/b.err"
check_eq "busy --port-base: exit status" "$?" 1
check "busy --port-base: the port named" grep -q \
    "port $((base + 3)) on 127.0.0.1 for the OTLP receiver (--port-base) is not free: Address already in use" "$tmp/b.err"
# A busy --listen port: nothing starts. The other fixed ports stay free,
# and the state and rollup directories are never made.
mkdir -p "$tmp/busy"
TMPDIR="$tmp/busy" XDG_STATE_HOME="$tmp/busy-xdg" timeout 60 "$bin" demo --duration 5 \
    --listen "127.0.0.1:$p3" --gnmi-ports "$p1,$p2" >"$tmp/b.out" 2>"$tmp/b.err"
check_eq "busy --listen: exit status" "$?" 1
check "busy --listen: the port named" grep -q \
    "port $p3 on 127.0.0.1 for the status page (--listen) is not free: Address already in use" "$tmp/b.err"
check "busy --listen: no simulator announced a port" eval '! grep -q "listening port=" "$tmp/b.out"'
check_eq "busy --listen: no log line" "$(grep -c 'event=' "$tmp/b.err")" 0
check "busy --listen: leaf ports not listening" eval '! listening "$p1" && ! listening "$p2"'
check_eq "busy --listen: no state directory" "$(ls -A "$tmp/busy")" ""
check "busy --listen: no rollup directory" test ! -e "$tmp/busy-xdg"
stop_pid "$peer_pid"
peer_pid=""

# Usage errors: exit 2.
for bad in "5" "5,5" "1,70000" "a,b" "1,2,3"; do
    "$bin" demo --gnmi-ports "$bad" >/dev/null 2>"$tmp/u.err"
    check_eq "--gnmi-ports '$bad': exit status" "$?" 2
    check "--gnmi-ports '$bad': said" grep -qF -- "--gnmi-ports wants two distinct ports P1,P2" "$tmp/u.err"
done
"$bin" demo --otlp-port 0 >/dev/null 2>"$tmp/u.err"
check_eq "--otlp-port 0: exit status" "$?" 2
"$bin" demo --gnmi-ports "$p1,$p2" --otlp-port "$p2" >/dev/null 2>"$tmp/u.err"
check_eq "one port twice: exit status" "$?" 2
check "one port twice: said" grep -qF "name one port twice: '$p2'" "$tmp/u.err"
"$bin" demo --help >"$tmp/h.out"
check "demo --help shows the port options" eval \
    'grep -q "^  --gnmi-ports P1,P2 " "$tmp/h.out" && grep -q "^  --otlp-port P " "$tmp/h.out"'
summary
