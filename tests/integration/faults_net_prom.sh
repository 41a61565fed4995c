#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# Prometheus endpoint faults against the real daemon fed by the
# fixed replay tests/fixtures/replay/all_families.* (played at once, so
# /metrics no longer changes once replay_done is logged, but for the
# exporter's own scrape gauges):
#   1. 200 concurrent scrapes, each on its own connection
#      (faults_net_slowloris.py scrapes): all 200 answered 200, every body
#      identical (fabricscope_scrape_* lines aside: they describe the
#      previous scrape) and valid for `promtool check metrics`.
#   2. 64 slowloris clients (a request line, then one header byte a second,
#      for 8 s): meanwhile 12 normal scrapes, 0.5 s apart, are all answered
#      with the full body; no slow client is refused.
#   3. Scrapes during config reloads: a second daemon (synthetic sources
#      syn1 + syn2) gets 6 SIGHUPs, its config switching between {syn1,
#      syn2} and {syn1, syn3}, while a client scrapes back to back: every
#      scrape answered 200 with a body promtool accepts, every reload
#      logged `reloaded ... failed=0`, and the sources of the last config
#      are the ones up.
# Then SIGTERM: exit 0 (every connection thread joined); the Sanitize build
# reports nothing.
#   faults_net_prom.sh FABRICSCOPE SOURCE_DIR PYTHON3 PROMTOOL
set -u
bin=$1
src=$2
py=${3:-python3}
promtool=${4:-promtool}
here=$(dirname "$0")
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
# shellcheck source=faults_net_lib.sh source-path=SCRIPTDIR
. "$here/faults_net_lib.sh"
fn_init
tool="$here/faults_net_slowloris.py"

# The fixture's config with the per-address cap raised: this test's 200
# scrapes and 64 slow clients all come from 127.0.0.1, and what it checks is
# the listener's total (per-address caps and shedding: faults.admit).
sed -e "s|file: all_families.replay|file: $src/tests/fixtures/replay/all_families.replay|" \
    -e 's|^    listen: "127.0.0.1:0"$|    listen: "127.0.0.1:0"\n    limits: {max_connections_per_ip: 256}|' \
    "$src/tests/fixtures/replay/all_families.yaml" >"$tmp/all_families.yaml"
start_fsc "$tmp/all_families.yaml"
wait_exporter || exit 1
wait_until 100 grep -q 'event=replay_done' "$tmp/fsc.log" || {
    fail "the replay did not finish"
    exit 1
}
# Volatile lines: the exporter's account of the previous scrape, and the
# rollup store's counters (they move at each minute boundary, which may fall
# between the reference and a later scrape).
# The listeners' admission counters and open connections move with every
# concurrent connection, this test's own included.
stable() { grep -Ev '^fabricscope_(scrape|rollup|listener_closed|listener_open)' "$1"; }
fetch_metrics "$tmp/ref" || fail "reference scrape"
check "reference scrape has samples" [ "$(grep -c '^fabric_port_' "$tmp/ref")" -gt 10 ]

# ---- 1. 200 concurrent scrapes ------------------------------------------------------
mkdir "$tmp/burst"
timeout 60 "$py" "$tool" scrapes --port "$mport" --count 200 --out "$tmp/burst" >"$tmp/burst.out" 2>&1
cat "$tmp/burst.out"
check "200 concurrent scrapes all answered 200" \
    grep -Eq '^scrapes count=200 ok=200 statuses=200:200$' "$tmp/burst.out"
stable "$tmp/ref" >"$tmp/ref.stable"
same=0
for f in "$tmp"/burst/body.*; do
    stable "$f" | cmp -s - "$tmp/ref.stable" && same=$((same + 1))
done
check_eq "bodies identical to the reference (scrape gauges aside)" "$same" 200
check "a burst body passes promtool check metrics" \
    eval '"$promtool" check metrics <"$tmp/burst/body.199" >"$tmp/promtool.out" 2>&1'

# ---- 2. slowloris ---------------------------------------------------------------------
fn_spawn slow "$py" "$tool" slowloris --port "$mport" --conns 64 --seconds 8
wait_for "$tmp/slow.out" 's/^opened=\([0-9]*\)$/\1/p' 50 >"$tmp/opened" || fail "slowloris did not start"
check_eq "slowloris connections opened" "$(cat "$tmp/opened")" 64
good=0
k=0
while [ "$k" -lt 12 ]; do
    k=$((k + 1))
    if curl -sf --max-time 5 "http://127.0.0.1:$mport/metrics" >"$tmp/during" 2>/dev/null &&
        stable "$tmp/during" | cmp -s - "$tmp/ref.stable"; then
        good=$((good + 1))
    fi
    sleep 0.5 # spreads the 12 scrapes over the attack: pacing, not synchronisation
done
check_eq "normal scrapes answered in full while 64 slow clients hold connections" "$good" 12
wait_until 150 grep -q '^slowloris ' "$tmp/slow.out" || fail "slowloris did not end"
cat "$tmp/slow.out"
check "no slow client refused" grep -Eq '^slowloris conns=64 refused=0 ' "$tmp/slow.out"
fn_stop slow

check_eq "still serving" "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    "http://127.0.0.1:$mport/metrics")" 200
fn_stop_fsc
fn_sanitizer_check "$tmp/fsc.log"
cp "$tmp/fsc.log" "$tmp/fsc1.log"

# ---- 3. scrapes during config reloads --------------------------------------------------
reload_cfg() { # SECOND_SOURCE: writes the config atomically (rename)
    cat >"$tmp/r.yaml.new" <<YAML
sources:
  - {name: syn1, type: synthetic, ports: 8, interval: 100ms}
  - {name: $1, type: synthetic, ports: 8, interval: 100ms}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
YAML
    mv "$tmp/r.yaml.new" "$tmp/r.yaml"
}
reload_cfg syn2
start_fsc "$tmp/r.yaml"
wait_exporter || exit 1
mkdir "$tmp/rl"
# back-to-back scrapes, each body kept, until told to stop (60 s at most)
(
    j=0
    while [ "$j" -lt 600 ] && [ ! -e "$tmp/rl.stop" ]; do
        j=$((j + 1))
        curl -s --max-time 5 -o "$tmp/rl/body.$j" -w '%{http_code}\n' \
            "http://127.0.0.1:$mport/metrics" >>"$tmp/rl/status" 2>/dev/null || echo "curl-failed" >>"$tmp/rl/status"
    done
) &
scraper=$!
r=0
while [ "$r" -lt 6 ]; do
    r=$((r + 1))
    if [ $((r % 2)) = 1 ]; then reload_cfg syn3; else reload_cfg syn2; fi
    kill -HUP "$fsc_pid"
    wait_until 100 eval '[ "$(grep -c "event=reloaded " "$tmp/fsc.log")" -ge "$r" ]' ||
        fail "reload $r not logged"
    # at least two scrapes answered on the reloaded config before the next (10 s at most)
    # shellcheck disable=SC2034 # read in the eval string below
    n0=$(wc -l <"$tmp/rl/status" 2>/dev/null || echo 0)
    wait_until 100 eval '[ "$(wc -l <"$tmp/rl/status")" -ge $((n0 + 2)) ]' ||
        fail "no scrape answered after reload $r"
done
# and 10 in all (10 s at most)
wait_until 100 eval '[ "$(wc -l <"$tmp/rl/status")" -ge 10 ]'
: >"$tmp/rl.stop"
wait "$scraper"
n_scr=$(wc -l <"$tmp/rl/status")
check "scrapes during the reloads (got $n_scr)" [ "$n_scr" -ge 10 ]
check_eq "every scrape during the reloads answered 200" "$(grep -vc '^200$' "$tmp/rl/status")" 0
bad=0
for f in "$tmp"/rl/body.*; do
    "$promtool" check metrics <"$f" >/dev/null 2>&1 || bad=$((bad + 1))
done
check_eq "every body during the reloads passes promtool check metrics" "$bad" 0
check_eq "6 reloads, none failed" "$(grep -c 'event=reloaded .*failed=0' "$tmp/fsc.log")" 6
fetch_metrics || fail "GET /metrics after the reloads"
check_eq "after the last reload: syn2 up" "$(value 'fabricscope_up\{source="syn2"')" 1
check_eq "after the last reload: syn3 not up" "$(value 'fabricscope_up\{source="syn3"')" ""
check_eq "after the last reload: syn1 up" "$(value 'fabricscope_up\{source="syn1"')" 1
fn_stop_fsc
fn_sanitizer_check "$tmp/fsc.log"
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -30
    head "$tmp/promtool.out" 2>/dev/null
fi
summary
