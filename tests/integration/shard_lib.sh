# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154
# Helpers of the shard and reload tests (sourced after lib.sh).
#
# start_fsc_at N CONFIG ARGS...
#     Starts `$bin run -c CONFIG ARGS...` with stderr in $tmp/fsc$N.log; the
#     first one started becomes $fsc_pid, later ones join $peer_pid (a
#     space-separated list lib_cleanup stops one PID at a time). Each gets
#     its own default state_dir, $tmp/stateN (STATE_DIRECTORY): two daemons
#     must not share one (its lock refuses the second). Sets last_pid.
# port_of N
#     Waits (10 s) for daemon N's exporter port and prints it.
# devices_of FILE
#     The sorted device label values of the fabric_* series in FILE.
# hashmod NAME MODULUS
#     Prometheus' hashmod of NAME, computed by python3's hashlib.

start_fsc_at() {
    _sf_n=$1
    _sf_cfg=$2
    shift 2
    : >"$tmp/fsc$_sf_n.log"
    STATE_DIRECTORY=$tmp/state$_sf_n "$bin" run -c "$_sf_cfg" "$@" >/dev/null \
        2>"$tmp/fsc$_sf_n.log" &
    last_pid=$!
    if [ -z "$fsc_pid" ]; then fsc_pid=$last_pid; else peer_pid="$peer_pid $last_pid"; fi
}

port_of() {
    wait_for "$tmp/fsc$1.log" 's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p'
}

devices_of() {
    grep '^fabric_' "$1" | grep -o 'device="[^"]*"' | sed 's/device="\(.*\)"/\1/' | sort -u
}

hashmod() {
    python3 -c 'import hashlib, sys
print(int.from_bytes(hashlib.md5(sys.argv[1].encode()).digest()[8:], "big") % int(sys.argv[2]))' "$1" "$2"
}
