#!/bin/sh
# gnmi_sim smoke test: the simulator on a free loopback port, the probe
# (a minimal gNMI client decoding with fsc_gnmi_decode) checks the dump, the
# sync_response, exact counter values of every sensor (interfaces, ethernet,
# qos, FEC; qmon-sw labels with --os junos), the path -> sensor selection of
# the default subscription plan of each os, and the failure knobs. Every process is
# stopped by PID, every wait is bounded (the simulator also exits on its own
# after --duration, the probe after --timeout-ms).
#   gnmi_sim_smoke_test.sh GNMI_SIM GNMI_SIM_PROBE [junos]
set -u
sim=$1
probe=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init
# stop_sim: SIGTERM, then up to 10 s for a clean exit (status 0, which under
# the Sanitize build includes the leak check), SIGKILL after that.
stop_sim() {
    [ -n "$sim_pid" ] || return 0
    ok
    stop_pid "$sim_pid" 100 || fail "simulator ignored SIGTERM"
    sim_pid=""
    ok
    if [ "$stop_rc" -ne 0 ]; then
        fail "simulator exited with $stop_rc"; cat "$tmp/sim.err"
    fi
}

# restart_sim ARGS...: stops the running simulator, starts a new one with
# ARGS; sets sim_pid and sim_port.
restart_sim() {
    stop_sim
    start_sim "$sim" --listen 127.0.0.1:0 "$@" || exit 1
}

# probe_check NAME EXPECTED_RC PROBE_ARGS...
probe_check() {
    name=$1
    want=$2
    shift 2
    ok
    "$probe" --target "127.0.0.1:$sim_port" --timeout-ms 10000 "$@" >"$tmp/probe.out" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "ok   $name: $(tail -n 1 "$tmp/probe.out")"
    else
        fail "$name (rc=$rc, want $want)"; cat "$tmp/probe.out"
    fi
}

ok
"$sim" --help >/dev/null || { fail "--help"; exit 1; }

# Junos OS (--os junos; ctest gnmi.sim_junos_os): the plan's queues stream
# adds qmon-sw (pfe_qmon_oc.proto's tree: qmon-sw[name]/egress[queue-number]),
# whose samples must map with port and queue labels.
if [ "${3:-}" = junos ]; then
    restart_sim --os junos --ports 4 --queues 4 --interval 100ms --utilization 0.5 --duration 20s
    probe_check "Junos OS plan 'queues': qos + qmon-sw" 0 \
        --path /qos/interfaces/interface/output/queues/queue/state,/junos/system/linecard/qmon-sw/ \
        --sensors qos,qmon --ports 4 --port 3 --rate 25000000000 --updates 8
    probe_check "Junos OS: /interfaces has no qmon-sw" 0 --path /interfaces --ports 4 --port 1 \
        --rate 25000000000 --updates 4
    stop_sim
    summary
    exit
fi

# 1. Plain stream (Junos OS Evolved), every sensor it serves: 0.5 x 400G =
#    25e9 B/s on every port.
restart_sim --ports 4 --queues 4 --interval 100ms --utilization 0.5 --duration 20s
probe_check "capabilities + dump + sync + exact counters, all EVO sensors" 0 --capabilities \
    --path / --sensors if,eth,qos,fec,speed --ports 4 --port 1 --rate 25000000000 --updates 20
probe_check "interface counters only, port 3" 0 --path /interfaces/interface/state/counters \
    --sensors if --ports 4 --port 3 --rate 25000000000 --updates 8
probe_check "/interfaces = interface + ethernet counters + speeds" 0 --path /interfaces \
    --sensors if,eth,speed \
    --ports 4 --port 2 --rate 25000000000 --updates 8
probe_check "ONCE: dump, sync, status OK" 0 --once --path /interfaces --ports 4 --port 2 \
    --rate 25000000000
# The known-answer checks bite: 1 kB/s off, or a wrong dump size, must fail.
probe_check "wrong rate is detected" 1 --path /interfaces --ports 4 --port 1 \
    --rate 25000001000 --updates 8
probe_check "wrong dump size is detected" 1 --path / --sensors if,eth,qos --ports 4 --port 1 \
    --rate 25000000000 --updates 4
probe_check "wrong queue count is detected" 1 --path /qos --sensors qos --queues 3 --ports 4 \
    --port 1 --rate 25000000000 --updates 4
# The paths of the default subscription plan (collector/sources/gnmi/gnmi_keys.c).
probe_check "plan 'queues': qos counters, peak and average" 0 \
    --path /qos/interfaces/interface/output/queues/queue/state \
    --sensors qos --ports 4 --port 3 --rate 25000000000 --updates 8
probe_check "no qmon-sw on Junos OS Evolved -> INVALID_ARGUMENT" 0 \
    --path /junos/system/linecard/qmon-sw/ --expect-status 3
probe_check "plan 'rest': ethernet + a path without data" 0 \
    --path /interfaces/interface/ethernet/state/counters,/junos/system/linecard/interface/ \
    --sensors eth --ports 4 --port 0 --rate 25000000000 --updates 8
eth_state=/interfaces/interface/ethernet/state
links=/state/interfaces/interface/ethernet/counters,$eth_state/port-speed
links=$links,$eth_state/negotiated-port-speed,/interfaces/interface/state/high-speed
probe_check "plan 'links': FEC words and the three speed leaves" 0 --path "$links" \
    --sensors fec,speed --ports 4 --port 2 --rate 25000000000 --updates 8
probe_check "a path without data: sync_response, then silence" 0 \
    --path /junos/system/linecard/interface/ --sensors none --ports 4 --updates 1 \
    --timeout-ms 1000 --expect-status 4
probe_check "a path nobody serves -> INVALID_ARGUMENT" 0 --path /system/state --expect-status 3

# 2. Junos realism: 300 ms counter copies, 30 % timestamp jitter, counter
#    resets every 1 s, bursts on another port; exact values still hold.
restart_sim --ports 4 --interval 100ms --utilization 0.25 --batch-copy 300ms --jitter 0.3 \
    --reset-after 1s --burst-port 0 --burst-every 500ms --burst-length 100ms --seed 7 \
    --duration 20s
probe_check "batch copy + jitter + reset" 0 --path /interfaces --ports 4 --port 2 \
    --rate 12500000000 --batch-copy-ms 300 --updates 120 --expect-reset
probe_check "burst port: line rate inside bursts" 0 --path /interfaces --ports 4 --port 0 \
    --rate 12500000000 --batch-copy-ms 300 --burst-every-ms 500 --burst-length-ms 100 \
    --updates 60
probe_check "burst port without bursts in the formula fails" 1 --path /interfaces --ports 4 \
    --port 0 --rate 12500000000 --batch-copy-ms 300 --updates 60
# Pause and PFC frames (ethernet) grow with the time in bursts, queue and FEC
# counters with the bytes.
probe_check "burst port: exact pause and PFC frames, FEC, queue counters" 0 \
    --path /interfaces,/qos,/state --sensors if,eth,qos,fec,speed --ports 4 --port 0 \
    --rate 12500000000 --batch-copy-ms 300 --burst-every-ms 500 --burst-length-ms 100 \
    --updates 60
probe_check "queue counters without bursts in the formula fail" 1 --path /qos --sensors qos \
    --ports 4 --port 0 --rate 12500000000 --batch-copy-ms 300 --updates 60

# 3. Credentials, interval floor, abrupt disconnect, stall.
restart_sim --ports 2 --interval 100ms --utilization 0.5 --username alice --password s3cret \
    --min-interval 50ms --duration 20s
probe_check "wrong password -> UNAUTHENTICATED" 0 --username alice --password nope \
    --expect-status 16
probe_check "right password" 0 --username alice --password s3cret --ports 2 --port 0 \
    --rate 25000000000 --updates 4
probe_check "interval below floor -> INVALID_ARGUMENT" 0 --username alice --password s3cret \
    --interval-ms 10 --expect-status 3

restart_sim --ports 2 --interval 100ms --utilization 0.5 --disconnect-after 500ms --duration 20s
probe_check "disconnect-after -> UNAVAILABLE" 0 --ports 2 --port 1 --rate 25000000000 \
    --updates 100000 --expect-status 14
restart_sim --ports 2 --interval 100ms --utilization 0.5 --stall-after 300ms --duration 20s
probe_check "stall-after -> stream open, client deadline" 0 --ports 2 --port 1 \
    --rate 25000000000 --updates 100000 --timeout-ms 1500 --expect-status 4

# 4. Mutual TLS with a throwaway CA (openssl is part of the build image).
if command -v openssl >/dev/null 2>&1; then
    (
        cd "$tmp" &&
        openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=sim-ca \
            -keyout ca.key -out ca.pem &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout srv.key -out srv.csr &&
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >san.ext &&
        openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
            -extfile san.ext -out srv.pem &&
        openssl req -newkey rsa:2048 -nodes -subj /CN=probe -keyout cli.key -out cli.csr &&
        openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 \
            -out cli.pem
    ) >"$tmp/openssl.log" 2>&1 || { echo "FAIL: openssl"; cat "$tmp/openssl.log"; exit 1; }
    restart_sim --ports 2 --interval 100ms --utilization 0.5 --tls-cert "$tmp/srv.pem" \
        --tls-key "$tmp/srv.key" --tls-ca "$tmp/ca.pem" --duration 20s
    probe_check "mTLS with a client cert" 0 --tls-ca "$tmp/ca.pem" --tls-cert "$tmp/cli.pem" \
        --tls-key "$tmp/cli.key" --ports 2 --port 1 --rate 25000000000 --updates 4
    probe_check "mTLS without a client cert fails" 1 --tls-ca "$tmp/ca.pem" --ports 2 --port 1 \
        --rate 25000000000 --updates 4 --timeout-ms 3000
else
    skip_part "openssl (for the mutual TLS checks)"
fi

stop_sim

# 5. --duration alone ends the simulator with status 0.
restart_sim --ports 2 --interval 100ms --duration 500ms
check "--duration 500ms did not end the simulator" \
    wait_until 100 eval '! kill -0 "$sim_pid" 2>/dev/null'
stop_sim

summary
