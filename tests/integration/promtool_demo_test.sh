#!/bin/sh
# The demo's /metrics as an operator's tools read it (docs/METRICS.md):
# promtool (Prometheus 2.42) has nothing to say, every family is in the
# reference of docs/METRICS.md with the same type and HELP, no series is
# given twice, no label value is a metric name, no series carries a topology
# label, no name is over 100 bytes or holds an upper-case letter.
#
#   promtool_demo_test.sh FABRICSCOPE METRICS_DOC METRICS.md
#
# One short demo run (20 s at most): the exposition is read once every kind
# of family is in it (info, rate, maximum, port rates and the spine's
# counters), which takes the first Junos windows (10 s).
set -u
bin=$1
doc_tool=$2
doc=$3
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

if ! command -v promtool >/dev/null 2>&1; then
    echo "FAIL: promtool not found (Debian package prometheus)"
    exit 1
fi

# XDG_STATE_HOME: the demo keeps its rollups (and their lock) there, so a
# demo run elsewhere on the machine cannot hold this one's.
TMPDIR="$tmp" XDG_STATE_HOME="$tmp/xdg" "$bin" demo --duration 60 --listen 127.0.0.1:0 \
    >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
# Sanitizer builds write the 4 x 16 device trees slowly: 30 s at most.
mport=$(wait_for "$tmp/fsc.log" \
    's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' 300) || {
    fail "the demo did not start its exporter"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
# fabric_node_rdma_bytes_per_second comes with the NICs' first rate window,
# after the others (CI once read the exposition before it).
families="fabric_port_info fabric_nic_info fabric_node_info fabric_port_queue_peak_max_bytes
fabric_nic_cnp_sent_per_second fabric_port_bytes_per_second fabric_port_tx_bytes_total
fabric_node_rdma_bytes_per_second"
have_all() {
    for f in $families; do
        grep -q "^# TYPE $f " "$tmp/metrics" || return 1
    done
    grep -q '^fabric_port_tx_bytes_total{device="spine1",' "$tmp/metrics"
}
check "every kind of family exposed" poll_metrics 300 have_all
stop_pid "$fsc_pid"
fsc_pid=""

# ---- promtool ---------------------------------------------------------------------
rc=0
promtool check metrics <"$tmp/metrics" >"$tmp/lint" 2>&1 || rc=$?
check_eq "promtool check metrics: exit status" "$rc" 0
check_eq "promtool check metrics: complaints" "$(wc -l <"$tmp/lint")" 0
[ -s "$tmp/lint" ] && cat "$tmp/lint"

# ---- the reference --------------------------------------------------------------
check "every family documented with its HELP" "$doc_tool" --exposition "$tmp/metrics" "$doc"

# ---- names and labels -------------------------------------------------------------
grep -v '^#' "$tmp/metrics" | sed 's/ [^ ]*$//' | sort | uniq -d >"$tmp/dup"
check_eq "series given twice" "$(wc -l <"$tmp/dup")" 0
check_eq "label values that are metric names" \
    "$(grep -v '^#' "$tmp/metrics" | grep -c '="fabric')" 0
# Topology labels only on the info families.
check_eq "series with topology labels" "$(grep -v '^#' "$tmp/metrics" | grep -v '^fabric_[a-z]*_info{' |
    grep -cE '[{,](role|rail|peer|peer_port|link|peer_node|node|card|pci)=')" 0
check_eq "names over 100 bytes or with upper case" "$(grep '^# TYPE ' "$tmp/metrics" |
    awk '{ if (length($3) > 100 || $3 ~ /[A-Z]/) n++ } END { print n + 0 }')" 0
# The renamed families, by their base-unit names.
check "link speed in bytes/s" grep -q '^fabric_port_link_speed_bytes_per_second{device="b300-01",port="ens1f0np0"} 50000000000$' "$tmp/metrics"
check "node RDMA in bytes/s" grep -q '^# TYPE fabric_node_rdma_bytes_per_second gauge$' "$tmp/metrics"
check_eq "a B300 host's cabled ports in fabric_port_info" \
    "$(grep -c '^fabric_port_info{device="b300-01",link=' "$tmp/metrics")" 16
echo "$(grep -c '^# TYPE ' "$tmp/metrics") families, $(grep -vc '^#' "$tmp/metrics") series"

summary
