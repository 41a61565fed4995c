#!/bin/sh
# Sharding across collectors: three daemons on loopback run the same config
# of 30 devices (24 synthetic sources and 6 gNMI targets served by one
# gnmi_sim) with --shard 0/3, 1/3 and 2/3. Every device must appear in the
# /metrics of exactly one of them, the union must be all 30, and each
# device's shard must be the hashmod python3 computes on its own (md5 of the
# name, last 8 bytes big-endian, modulo 3). Also: fabricscope_shard_info and
# fabricscope_shard_sources, the skipped-source log lines, only owned gNMI
# targets are connected, and --shard / shard: errors exit with status 2.
#   shard_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=shard_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/shard_lib.sh"
lib_init
last_pid=""

start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --interval 1s --duration 60s || exit 1

{
    echo "sources:"
    i=0
    while [ "$i" -lt 30 ]; do
        d=$(printf 'dev%02d' "$i")
        if [ "$i" -lt 24 ]; then
            echo "  - {name: $d, type: synthetic, ports: 2, interval: 200ms}"
        else
            echo "  - {name: $d, type: gnmi, address: \"127.0.0.1:$sim_port\", sample_interval: 1s, sample_interval_grid: none}"
        fi
        i=$((i + 1))
    done
    cat <<YAML
exporters:
  prometheus:
    listen: "127.0.0.1:0"
rollup: {enabled: false}
YAML
} >"$tmp/fabric.yaml"

# Usage and config errors first (status 2, nothing started).
"$bin" run -c "$tmp/fabric.yaml" --shard 3/3 >/dev/null 2>"$tmp/usage.err"
check_eq "--shard 3/3 is a usage error" "$?" 2
check "usage error names the value" grep -q "'3/3'" "$tmp/usage.err"
"$bin" run -c "$tmp/fabric.yaml" --shard 1 >/dev/null 2>&1
check_eq "--shard 1 is a usage error" "$?" 2
printf 'shard:\n  count: 2\n  index: 2\n' >"$tmp/bad.yaml"
"$bin" check-config "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"
check_eq "shard index >= count is a config error" "$?" 2
check "config error has file:line:col" grep -q "bad.yaml:3:3: shard.index: 2 is not below count (2)" "$tmp/bad.err"
"$bin" check-config "$tmp/fabric.yaml" >"$tmp/check.out" 2>/dev/null
check "check-config shows the default shard" \
    grep -q '^shard:' "$tmp/check.out"

# Expected owners, computed independently of fabricscope.
i=0
while [ "$i" -lt 30 ]; do
    d=$(printf 'dev%02d' "$i")
    echo "$d" >>"$tmp/want$(hashmod "$d" 3).txt"
    i=$((i + 1))
done
for k in 0 1 2; do touch "$tmp/want$k.txt"; done

for k in 0 1 2; do start_fsc_at "$k" "$tmp/fabric.yaml" --shard "$k/3"; done
for k in 0 1 2; do
    p=$(port_of "$k") || {
        fail "daemon $k did not start its exporter"
        cat "$tmp/fsc$k.log"
        exit 1
    }
    eval "port$k=$p"
done

# Poll (bounded, 30 s) until each daemon shows its whole share.
scrape_all() {
    for k in 0 1 2; do
        eval "p=\$port$k"
        curl -sf --max-time 10 "http://127.0.0.1:$p/metrics" >"$tmp/m$k" 2>/dev/null || return 1
        devices_of "$tmp/m$k" >"$tmp/got$k.txt"
    done
    for k in 0 1 2; do cmp -s "$tmp/got$k.txt" "$tmp/want$k.txt" || return 1; done
}
n=0
until scrape_all; do
    n=$((n + 1))
    [ "$n" -lt 150 ] || break
    sleep 0.2
done

sort "$tmp/got0.txt" "$tmp/got1.txt" "$tmp/got2.txt" >"$tmp/all.txt"
check_eq "devices seen in total (with repeats)" "$(wc -l <"$tmp/all.txt" | tr -d ' ')" 30
check_eq "distinct devices" "$(sort -u "$tmp/all.txt" | wc -l | tr -d ' ')" 30
check_eq "no device in two shards" "$(uniq -d "$tmp/all.txt" | tr '\n' ' ')" ""
for k in 0 1 2; do
    check_eq "shard $k has exactly its hashmod share" "$(tr '\n' ' ' <"$tmp/got$k.txt")" \
        "$(tr '\n' ' ' <"$tmp/want$k.txt")"
    owned=$(wc -l <"$tmp/want$k.txt" | tr -d ' ')
    cp "$tmp/m$k" "$tmp/metrics"
    check_eq "shard $k info" "$(series_value fabricscope_shard_info index=$k count=3)" 1
    check_eq "shard $k owned sources" "$(series_value fabricscope_shard_sources state=owned)" "$owned"
    check_eq "shard $k skipped sources" "$(series_value fabricscope_shard_sources state=skipped)" \
        "$((30 - owned))"
    check_eq "shard $k fabricscope_up lines are its own sources" \
        "$(grep -c '^fabricscope_up{' "$tmp/m$k")" "$owned"
    # gNMI: only owned targets have streams, and they stream.
    for d in dev24 dev25 dev26 dev27 dev28 dev29; do
        if grep -qx "$d" "$tmp/want$k.txt"; then
            check_eq "shard $k streams $d" "$(series_value fabricscope_up source=$d type=gnmi)" 1
        else
            check "shard $k has no stream of $d" \
                eval "! grep -q 'fabricscope_gnmi_stream_up{source=\"$d\"' '$tmp/m$k'"
        fi
    done
    check "shard $k logged its shard" grep -q "event=shard index=$k count=3 from=cli owned=$owned" \
        "$tmp/fsc$k.log"
    check_eq "shard $k logged each skipped source once" \
        "$(grep -c 'event=source_skipped ' "$tmp/fsc$k.log")" "$((30 - owned))"
done

summary
