#!/bin/sh
# gNMI network faults, beyond gnmi_faults_test.sh (stall,
# UNAVAILABLE, counter reset with the stream open, mTLS, credentials). One
# daemon subscribes to seven targets at once (2 ports at 25 % of 400G,
# 100 ms), six of which misbehave for FAULT_S seconds after the daemon
# first reaches them (stall_intervals 30: a loaded 2-core machine under ASan
# must not make a healthy stream look stalled):
#   leaf0 healthy      the reference: must never notice the others
#   leaf1 garbage      every 3rd message undecodable (random bytes, a
#                      CapabilityResponse, a truncated update in turn)
#   leaf2 fast         updates 10x as often as subscribed (every 10 ms)
#   leaf3 closesync    ends every call with OK right after sync_response
#   leaf4 slowtls      TLS through a proxy that holds the ClientHello 2.5 s
#                      (faults_net_proxy.py), longer than connect_timeout 1 s
#                      (which also bounds gRPC's connection attempt)
#   leaf7 slowtls_ok   the same TLS target through a proxy that always holds
#                      the ClientHello 0.6 s: slow, but within connect_timeout
#   leaf5 dns          nosuch.invalid:9339 never resolves
#   leaf6 restart      the simulator is killed and started again on the same
#                      port: its counters restart from 0 under a new epoch
# Checks, over ~14 s of scrapes every 0.5 s:
#   - leaf0 streams in every scrape (stream_up 1, updates grow, no
#     reconnect, no decode error) with its exact rate 12.5e9 B/s;
#   - each fault is counted (decode_errors / sequence_gaps, cadence 10 ms,
#     reconnects with the logged reason, reset verdicts) and each faulty
#     target (not leaf5) streams again once it behaves, with no further
#     fault counted after that;
#   - no rate ever spikes: in every scrape every leaf's rx rate is at most
#     12.5e9 (its known rate, a quarter of line rate) and its 1 s peak at
#     most 0.25; at the end every fine (per-interval) utilization of every
#     port was <= 0.3 (histogram bucket le=0.3 = count) and the rate is
#     exactly 12.5e9 again;
#   - SIGTERM: exit 0; the Sanitize build reports nothing.
#   faults_net_gnmi.sh FABRICSCOPE GNMI_SIM PYTHON3
set -u
bin=$1
sim=$2
py=${3:-python3}
here=$(dirname "$0")
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
# shellcheck source=faults_net_lib.sh source-path=SCRIPTDIR
. "$here/faults_net_lib.sh"
fn_init

FAULT_S=5
RATE=12500000000 # 25 % of 400G in bytes/s

# openssl: a throwaway CA and a server certificate for the TLS target.
# shellcheck disable=SC2015 # the || block is meant to run on any failure
openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -subj "/CN=faults-ca" \
    -days 1 -sha256 -out "$tmp/ca.crt" 2>/dev/null &&
    openssl req -new -newkey rsa:2048 -nodes -keyout "$tmp/srv.key" -subj "/CN=gnmi-sim.test" \
        -out "$tmp/srv.csr" 2>/dev/null &&
    printf 'subjectAltName=DNS:gnmi-sim.test,IP:127.0.0.1\n' >"$tmp/srv.ext" &&
    openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" \
        -CAcreateserial -days 1 -sha256 -extfile "$tmp/srv.ext" -out "$tmp/srv.crt" 2>/dev/null ||
    {
        fail "openssl could not make the test certificates"
        exit 1
    }

simargs="--listen 127.0.0.1:0 --ports 2 --queues 0 --interval 100ms --utilization 0.25 --duration 40s"
# shellcheck disable=SC2086 # simargs is a word list
{
    p0=$(fn_spawn_port sim0 "$sim" $simargs) &&
        p1=$(fn_spawn_port sim1 "$sim" $simargs --garbage-every 3 --fault-for ${FAULT_S}s) &&
        p2=$(fn_spawn_port sim2 "$sim" $simargs --speedup 10 --fault-for ${FAULT_S}s) &&
        p3=$(fn_spawn_port sim3 "$sim" $simargs --close-after-sync --fault-for ${FAULT_S}s) &&
        p4s=$(fn_spawn_port sim4 "$sim" $simargs --tls-cert "$tmp/srv.crt" --tls-key "$tmp/srv.key") &&
        p4=$(fn_spawn_port proxy4 "$py" "$here/faults_net_proxy.py" --target "127.0.0.1:$p4s" \
            --delay 2.5 --delay-for $FAULT_S --duration 40) &&
        p7=$(fn_spawn_port proxy7 "$py" "$here/faults_net_proxy.py" --target "127.0.0.1:$p4s" \
            --delay 0.6 --delay-for 100 --duration 40) &&
        p6=$(fn_spawn_port sim6 "$sim" $simargs)
} || exit 1

{
    echo "sources:"
    for i in 0 1 2 3 4 5 6 7; do
        case $i in
        0) addr="127.0.0.1:$p0" ;; 1) addr="127.0.0.1:$p1" ;; 2) addr="127.0.0.1:$p2" ;;
        3) addr="127.0.0.1:$p3" ;; 4) addr="127.0.0.1:$p4" ;; 5) addr="nosuch.invalid:9339" ;;
        6) addr="127.0.0.1:$p6" ;; 7) addr="127.0.0.1:$p7" ;;
        esac
        cat <<YAML
  - name: leaf$i
    type: gnmi
    address: "$addr"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    connect_timeout: 1s
    stall_intervals: 30
    backoff: {initial: 200ms, max: 1s}
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
YAML
        [ "$i" != 4 ] && [ "$i" != 7 ] || printf '    tls: {ca_file: %s, server_name: gnmi-sim.test}\n' "$tmp/ca.crt"
    done
    cat <<YAML
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s, 2s]
topology:
  devices:
YAML
    for i in 0 1 2 3 4 5 6 7; do
        cat <<YAML
    - name: leaf$i
      role: leaf
      ports:
        - {name: et-0/0/0, speed: 400G, role: downlink}
        - {name: et-0/0/1, speed: 400G, role: downlink}
YAML
    done
} >"$tmp/fsc.yaml"
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# g NAME LEAF [FILE]: a fabricscope_gnmi_NAME of leaf LEAF's stream.
g() { value "fabricscope_gnmi_$1\\{source=\"leaf$2\",stream=\"interfaces\"\\}" "${3:-$tmp/metrics}"; }
# port metric NAME LEAF PORT EXTRA_ERE [FILE]
pm() {
    value "$1\\{device=\"leaf$2\",port=\"et-0/0/$3\".*direction=\"rx\"$4" "${5:-$tmp/metrics}"
}

# Scrape every 0.5 s for ~14 s; at scrape 6 (~3 s) leaf6's simulator is
# killed, at scrape 8 it comes back on the same port with counters at 0.
n=0
while [ "$n" -lt 28 ]; do
    n=$((n + 1))
    fetch_metrics "$tmp/s.$n" || fail "scrape $n failed"
    if [ "$n" = 6 ]; then
        fn_stop sim6
    elif [ "$n" = 8 ]; then
        p6b=$(fn_spawn_port sim6b "$sim" --listen "127.0.0.1:$p6" --ports 2 --queues 0 \
            --interval 100ms --utilization 0.25 --duration 40s) || fail "leaf6 did not restart"
        check_eq "leaf6 restarted on its port" "${p6b:-}" "$p6"
    fi
    sleep 0.5 # the scrape timeline (28 scrapes over ~14 s), not synchronisation
done
cp "$tmp/s.$n" "$tmp/metrics"

# ---- every scrape: leaf0 healthy, no leaf's rate above its known value ----------
# One awk reads the scrapes in order (a value is the last field of the first
# line matching, as value() takes it): leaf0 is bad in a scrape when its
# stream is not up, its updates did not grow since the scrape before, it
# reconnected or had a decode error, or its rate (once it has one) is not
# exactly RATE; a spike is any leaf's rx rate above RATE or 1 s peak above 0.25.
awk -v max="$RATE" -v n="$n" -v dir="$tmp" '
    function gre(name, l) {
        return "^fabricscope_gnmi_" name "\\{source=\"leaf" l "\",stream=\"interfaces\"\\}"
    }
    function pre(name, l, p, extra) {
        return "^" name "\\{device=\"leaf" l "\",port=\"et-0/0/" p "\".*direction=\"rx\"" extra
    }
    BEGIN {
        nk = split("up upd rc de", key, " ")
        split("stream_up updates_total reconnects_total decode_errors_total", gn, " ")
        for (k = 1; k <= nk; k++)
            re[k] = gre(gn[k], 0)
        nl = split("0 1 2 3 4 6 7", leaves, " ")
        for (a = 1; a <= nl; a++)
            for (p = 0; p <= 1; p++) {
                key[++nk] = "r" leaves[a] "_" p
                re[nk] = pre("fabric_port_bytes_per_second", leaves[a], p, "")
                key[++nk] = "pk" leaves[a] "_" p
                re[nk] = pre("fabric_port_utilization_peak_ratio", leaves[a], p, ",window=\"1s\"")
            }
        prev = 0
        bad0 = ""
        spikes = ""
        for (i = 1; i <= n; i++) {
            f = dir "/s." i
            split("", v)
            for (k = 1; k <= nk; k++)
                v[key[k]] = ""
            split("", got)
            while ((getline line < f) > 0)
                for (k = 1; k <= nk; k++)
                    if (!(k in got) && line ~ re[k]) {
                        got[k] = 1
                        v[key[k]] = line
                        sub(/.*[ \t]/, "", v[key[k]])
                    }
            close(f)
            u = v["upd"]
            if (v["up"] != "1" || !(u ~ /^-?[0-9]+$/ && u + 0 >= prev + 1) || v["rc"] != "0" ||
                v["de"] != "0")
                bad0 = bad0 " scrape" i "(up=" v["up"] ",updates=" u ")"
            if (u != "")
                prev = u + 0
            if (v["r0_0"] != "" && v["r0_0"] != max "")
                bad0 = bad0 " scrape" i "(rate=" v["r0_0"] ")"
            for (a = 1; a <= nl; a++)
                for (p = 0; p <= 1; p++) {
                    l = leaves[a]
                    r = v["r" l "_" p]
                    pk = v["pk" l "_" p]
                    if (!((r == "" ? 0 : r + 0) <= max * (1 + 1e-9) &&
                          (pk == "" ? 0 : pk + 0) <= 0.25 * (1 + 1e-9)))
                        spikes = spikes " scrape" i ":leaf" l "/" p "(rate=" r ",peak=" pk ")"
                }
        }
        print bad0 > (dir "/every.bad0")
        print spikes > (dir "/every.spikes")
    }'
bad0=$(cat "$tmp/every.bad0")
spikes=$(cat "$tmp/every.spikes")
check_eq "leaf0 streams with its exact rate in every scrape" "$bad0" ""
check_eq "no rate or 1 s peak above the known value in any scrape" "$spikes" ""

# ---- the last scrape: every fine interval <= 0.3, the exact rate again ----------
for l in 0 1 2 3 4 6 7; do
    for p in 0 1; do
        cnt=$(pm fabric_port_fine_utilization_ratio_count $l $p '')
        b=$(pm fabric_port_fine_utilization_ratio_bucket $l $p ',le="0.3"')
        check "leaf$l et-0/0/$p: fine intervals observed (got '$cnt')" ge "${cnt:-}" 10
        check_eq "leaf$l et-0/0/$p: every fine utilization <= 0.3" "${b:-}" "${cnt:-}"
        check_eq "leaf$l et-0/0/$p: rx rate at the end" \
            "$(pm fabric_port_bytes_per_second $l $p '')" "$RATE"
    done
done

# ---- each fault counted, each target streaming again ------------------------------
# The last scrape is ~9 s past the faults; the one 2 s earlier already had
# every fault counter at its final value (nothing counted after recovery).
early="$tmp/s.$((n - 4))"
for l in 0 1 2 3 4 6 7; do
    check_eq "leaf$l stream_up at the end" "$(g stream_up $l)" 1
    check_eq "leaf$l fabricscope_up at the end" \
        "$(value "fabricscope_up\\{source=\"leaf$l\",type=\"gnmi\"\\}")" 1
    check "leaf$l updates grow at the end" ge "$(g updates_total $l)" $(($(g updates_total $l "$early") + 1))
    for c in reconnects_total decode_errors_total sequence_gaps_total resubscribes_total; do
        check_eq "leaf$l $c no longer grows after recovery" "$(g $c $l)" "$(g $c $l "$early")"
    done
done

# leaf1: garbage. Each undecodable message is a decode error and, as the
# Junos sequence number it would have carried is skipped, a sequence gap.
de=$(g decode_errors_total 1)
check "leaf1 decode_errors_total >= 3 (got '$de')" ge "$de" 3
check "leaf1 sequence_gaps_total >= 1 (got '$(g sequence_gaps_total 1)')" ge "$(g sequence_gaps_total 1)" 1
check_eq "leaf1 garbage is no reason to reconnect" "$(g reconnects_total 1)" 0
check_log "leaf1 decode error logged" 'event=gnmi_decode_error source=leaf1 device=leaf1 stream=interfaces'
check "leaf1 decode error logged once per call, not per message" \
    [ "$(grep -c 'event=gnmi_decode_error source=leaf1' "$tmp/fsc.log")" -le 1 ]

# leaf2: 10x faster. The observed cadence showed it during the fault: 10 ms,
# or a little more on a loaded machine where the simulator skips ticks, but
# well below the subscribed 100 ms.
fast=0
i=1
while [ "$i" -le "$n" ]; do
    c=$(g stream_cadence_seconds 2 "$tmp/s.$i")
    if [ -n "$c" ] && awk -v c="$c" 'BEGIN { exit !(c > 0.005 && c < 0.05) }'; then
        fast=1
    fi
    i=$((i + 1))
done
check_eq "leaf2 cadence < 50 ms seen during the fault" "$fast" 1
check_eq "leaf2 no reconnect" "$(g reconnects_total 2)" 0
check_eq "leaf2 no decode error" "$(g decode_errors_total 2)" 0

# leaf3: every call ended right after its sync_response (status 0, OK).
rc3=$(g reconnects_total 3)
check "leaf3 reconnects_total >= 2 (got '$rc3')" ge "$rc3" 2
check_log "leaf3 call ended with OK after sync logged" \
    'event=gnmi_stream_retry source=leaf3 device=leaf3 stream=interfaces reason=call_ended grpc_status=0 '
check "leaf3 a sync per call (got $(grep -c 'event=gnmi_sync source=leaf3' "$tmp/fsc.log"))" \
    ge "$(grep -c 'event=gnmi_sync source=leaf3' "$tmp/fsc.log")" "$rc3"

# leaf4: the slow handshake outlived connect_timeout at least once.
check "leaf4 reconnects_total >= 1 (got '$(g reconnects_total 4)')" ge "$(g reconnects_total 4)" 1
check_log "leaf4 handshake given up (UNAVAILABLE) logged" \
    'event=gnmi_stream_retry source=leaf4 device=leaf4 stream=interfaces reason=call_ended grpc_status=14 details=".*Handshake'
check_eq "leaf7 (handshake within connect_timeout) never reconnected" "$(g reconnects_total 7)" 0
check "proxy7 held back every connection" grep -q 'delayed=1' "$tmp/proxy7.err"
check "the proxy held back at least one connection" grep -q 'delayed=1' "$tmp/proxy4.err"

# leaf5: never resolves, never streams, retried with backoff (200 ms doubling
# to 1 s: at most ~20 retries in 14 s, never a busy loop).
rc5=$(g reconnects_total 5)
check "leaf5 reconnects_total >= 3 (got '$rc5')" ge "$rc5" 3
check "leaf5 retried with backoff, not in a loop (got '$rc5')" [ "${rc5:-999}" -le 40 ]
check_eq "leaf5 stream_up" "$(g stream_up 5)" 0
check_eq "leaf5 fabricscope_up" "$(value 'fabricscope_up\{source="leaf5",type="gnmi"\}')" 0
check_eq "leaf5 updates_total" "$(g updates_total 5)" 0
check_log "leaf5 retry with UNAVAILABLE logged" \
    'event=gnmi_stream_retry source=leaf5 device=leaf5 stream=interfaces reason=call_ended grpc_status=14 '
check_eq "leaf5 one stream_down event for the whole outage" \
    "$(grep -c 'event=gnmi_stream_up source=leaf5' "$tmp/fsc.log")" 0

# leaf6: restarted with its counters at 0: reconnected, reset verdicts (only
# leaf6 ever resets here), no implausible sample, no microburst.
check "leaf6 reconnects_total >= 1 (got '$(g reconnects_total 6)')" ge "$(g reconnects_total 6)" 1
rst=$(value 'fabricscope_sample_verdicts_total\{verdict="reset"\}')
check "reset verdicts >= 2 (both ports of leaf6; got '$rst')" ge "$rst" 2
check_eq "no implausible sample" "$(value 'fabricscope_sample_verdicts_total\{verdict="implausible"\}')" 0
check_eq "no microburst anywhere" \
    "$(grep -E '^fabric_microbursts_total' "$tmp/metrics" | awk '{s += $NF} END {print s + 0}')" 0
check_eq "no detector event but counter_reset and stream_down" \
    "$(grep -E '^fabricscope_events_total' "$tmp/metrics" |
        grep -Ev 'kind="(counter_reset|stream_down)"' | awk '{s += $NF} END {print s + 0}')" 0

fn_stop_fsc
fn_sanitizer_check "$tmp/fsc.log" "$tmp"/sim*.err
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v -e "event=library" -e "kind=counter_reset" -e "source=leaf5" "$tmp/fsc.log" |
        cut -c1-300 | tail -40
    echo "--- proxy ---"
    cat "$tmp/proxy4.err"
    echo "--- last /metrics (gnmi, up) ---"
    grep -E '^fabricscope_(gnmi|up)' "$tmp/metrics" | grep -v _bucket | head -80
fi
summary
