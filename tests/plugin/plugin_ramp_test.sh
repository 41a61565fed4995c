#!/bin/sh
# A source added by its folder and one CMake line (tests/plugin): the
# program built with the ramp source knows `type: ramp` (check-config prints
# it back with its key), runs it, and its port's rx rate on /metrics is the
# configured rate exactly (the counter grows by rate x 0.1 on a 100 ms device
# grid); the product binary, whose table lacks it, refuses the type.
#   plugin_ramp_test.sh FABRICSCOPE_RAMP FABRICSCOPE
set -u
bin=$1
product=$2
here=$(dirname "$0")/../integration
# shellcheck source=../integration/lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - name: r1
    type: ramp
    device: rampdev
    rate: 2500000
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s]
YAML

"$bin" check-config "$tmp/fsc.yaml" >"$tmp/check.out" 2>"$tmp/check.err"
check_eq "the ramp build accepts type: ramp" "$?" 0
check "check-config prints the source's own key back" grep -q '^    rate: 2500000.0$' "$tmp/check.out"
"$product" check-config "$tmp/fsc.yaml" >/dev/null 2>"$tmp/product.err"
check_eq "the product build refuses it (exit 2: bad config)" "$?" 2
check "... at the type, naming the types it knows" grep -Fq 'sources[0].type: "ramp" is not one of: gnmi, otlp, nic, synthetic, replay' "$tmp/product.err"

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
rx='fabric_port_bytes_per_second\{device="rampdev",port="p1".*direction="rx"'
poll_metrics 100 '[ -n "$(value "$rx")" ]'
check_eq "the ramp's 1 s rx rate is the configured 2500000 B/s" "$(value "$rx")" 2500000
stop_pid "$fsc_pid" 100
check_eq "clean exit" "$stop_rc" 0
fsc_pid=""
summary
