# shellcheck shell=sh
# The globals below are set here for the sourcing script (SC2034) and $bin
# comes from it (SC2154).
# shellcheck disable=SC2034,SC2154
# Helpers shared by the integration test scripts (POSIX sh). A script sources
# it with  . "$(dirname "$0")/lib.sh"  and calls lib_init first.
#
# Globals the library owns (set -u safe: lib_init sets them all):
#   tmp        a private scratch directory, removed on exit
#   checks     checks counted so far        fails   failures so far
#   fsc_pid    the daemon (start_fsc)       mport   its exporter port (wait_exporter)
#   sim_pid    a peer printing `listening port=N` (start_sim)   sim_port  that N
#   peer_pid   any other background process the script starts (e.g. Prometheus)
#   stop_rc    exit status of the process last stopped by stop_pid
# Every process is stopped by its PID only; every wait below is bounded (the
# bound is in tenths of a second, TENTHS).
#
# lib_init
#     Sets the globals above; traps EXIT (lib_cleanup) and INT/TERM (exit 1).
# lib_cleanup
#     stop_pid on $fsc_pid $sim_pid $peer_pid (5 s each at most), rm -rf $tmp.
# fail MESSAGE...
#     Prints "FAIL: MESSAGE" and counts a failure. A script may redefine it
#     (after sourcing) to add context; the helpers below all report through it.
# ok
#     Counts one check (for a check spelled out by hand with fail).
# check DESCRIPTION COMMAND...
#     One check: runs COMMAND (use `eval 'shell condition'` for a condition),
#     fail DESCRIPTION when it fails.
# check_eq DESCRIPTION GOT WANT
#     One check: the strings GOT and WANT are equal.
# check_log DESCRIPTION EXTENDED_REGEX
#     One check: a line of $tmp/fsc.log (the daemon's stderr) matches.
# summary
#     Prints "N passed, M failed"; returns 0 only when nothing failed and at
#     least one check ran (so it is the last command of a script): a script
#     that checked nothing fails with "FAIL: no checks ran".
# in_ci
#     True under CI: CI=true (any case) or CI=1 in the environment.
# skip WHAT
#     The test cannot run: WHAT (a tool, a peer, a capability) is missing.
#     Prints "SKIP: WHAT is missing" and exits 77 (register the test with
#     ctest's SKIP_RETURN_CODE 77). Under CI a skip is a failure: prints
#     "FAIL: WHAT is missing (CI=true: nothing may be skipped)", exits 1.
#     Needs nothing else of this file (may come before lib_init).
# skip_part WHAT
#     Part of the test cannot run because WHAT is missing: prints
#     "SKIP: WHAT is missing" and the script goes on; under CI it is a
#     failure (fail) instead. After lib_init.
# wait_until TENTHS COMMAND...
#     Runs COMMAND every 0.1 s until it succeeds, TENTHS tries at most;
#     returns COMMAND's last status.
# wait_for FILE SED_EXPR [TENTHS]
#     Prints the first line `sed -n SED_EXPR FILE` outputs, polling every
#     0.1 s up to TENTHS (default 100: 10 s); returns 1 when nothing came.
# stop_pid PID [TENTHS]
#     SIGTERM, up to TENTHS (default 50) for the process to exit, SIGKILL
#     after that; reaps it and sets stop_rc to its exit status. Returns 1 when
#     SIGKILL was needed, 0 otherwise (also for an empty PID).
# start_fsc CONFIG
#     Starts `$bin run -c CONFIG` (stdout $tmp/fsc.out, stderr $tmp/fsc.log,
#     both emptied first); sets fsc_pid. Needs $bin.
# wait_exporter
#     Waits (10 s) for the daemon's `event=exporter_started exporter=prometheus
#     ... port=N` log line and sets mport=N; else fail, print the log, return 1.
# start_sim COMMAND...
#     Starts COMMAND (stdout $tmp/sim.out, stderr $tmp/sim.err), sets sim_pid,
#     waits (10 s) for its `listening port=N` line and sets sim_port=N; else
#     fail, print its stderr, return 1.
# start_rw_receiver
#     Starts the scripted remote_write receiver (remote_write_lib.py serve,
#     requests logged to $tmp/rw.log), sets peer_pid and rw_port; else fail,
#     print its stderr, return 1.
# leaf_port_lines N
#     Prints N topology port lines et-0/0/0 .. et-0/0/(N-1), 400G downlinks,
#     indented for `ports:` of a device in a YAML heredoc.
# need_gnmi_js NODE JSDIR
#     Exits 1 with the setup hint unless NODE runs and JSDIR's node_modules
#     hold the grpc-js target's packages (scripts/setup.sh: npm ci).
# fetch_metrics [OUT [ACCEPT]]
#     GET http://127.0.0.1:$mport/metrics into OUT (default $tmp/metrics),
#     with an Accept header when ACCEPT is given; 10 s at most. Returns curl's
#     status.
# poll_metrics TENTHS CONDITION
#     fetch_metrics every 0.2 s until the shell CONDITION (eval) holds, for at
#     most TENTHS/10 s; the last scrape stays in $tmp/metrics.
# value LINE_PREFIX_ERE [FILE]
#     The value (last field) of the first sample line of FILE (default
#     $tmp/metrics) matching ^LINE_PREFIX_ERE; empty when there is none.
# ge A B
#     A is an integer >= B (false when A is empty or not a number).
# wait_log_port ERE [TENTHS]
#     Prints N of `port=N` on the first line of $tmp/fsc.log matching the
#     extended regex ERE (e.g. 'otlp_listening .*transport=grpc( |$)'),
#     polling every 0.1 s up to TENTHS (default 100); returns 1 when none came.
# series_value NAME [LABEL=VALUE...]
#     The value of the first sample line of $tmp/metrics named exactly NAME
#     whose label set contains every LABEL="VALUE" given (any order, other
#     labels allowed; VALUE without spaces); empty when there is none.
# num_eq DESCRIPTION GOT WANT
#     One check: GOT and WANT are numbers and equal as doubles (so 1e+12
#     equals 1000000000000); an empty GOT fails.
# num_near DESCRIPTION GOT WANT RELTOL
#     One check: |GOT - WANT| <= RELTOL * |WANT| (both numbers).
# num_le DESCRIPTION GOT LIMIT
#     One check: GOT is a number <= LIMIT.

lib_init() {
    tmp=$(mktemp -d) || exit 1
    # The default state_dir (rollups) of every daemon the test starts: its
    # temporary directory, not /var/lib/fabricscope (config/config_load.c).
    STATE_DIRECTORY=$tmp/state
    export STATE_DIRECTORY
    # Python checkers import shared modules of tests/tools from here.
    FSC_TEST_TOOLS="$(cd "$(dirname "$0")/../tools" && pwd)"
    export FSC_TEST_TOOLS
    # ... without leaving __pycache__ in the source tree.
    PYTHONDONTWRITEBYTECODE=1
    export PYTHONDONTWRITEBYTECODE
    checks=0
    fails=0
    fsc_pid=""
    sim_pid=""
    peer_pid=""
    mport=""
    sim_port=""
    stop_rc=0
    trap lib_cleanup EXIT
    trap 'exit 1' INT TERM
}

lib_cleanup() {
    for _lc_p in $fsc_pid $sim_pid $peer_pid; do stop_pid "$_lc_p"; done
    fsc_pid=""
    sim_pid=""
    peer_pid=""
    rm -rf "$tmp"
}

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

ok() { checks=$((checks + 1)); }

check() {
    _ck_what=$1
    shift
    checks=$((checks + 1))
    "$@" || fail "$_ck_what"
}

check_eq() {
    checks=$((checks + 1))
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

check_log() {
    checks=$((checks + 1))
    grep -Eq -- "$2" "$tmp/fsc.log" || fail "$1: no log line matching /$2/"
}

in_ci() {
    case ${CI:-} in
    [Tt][Rr][Uu][Ee] | 1) return 0 ;;
    esac
    return 1
}

skip() {
    if in_ci; then
        echo "FAIL: $* is missing (CI=true: nothing may be skipped)"
        exit 1
    fi
    echo "SKIP: $* is missing"
    exit 77
}

skip_part() {
    if in_ci; then
        checks=$((checks + 1))
        fail "$* is missing (CI=true: nothing may be skipped)"
    else
        echo "SKIP: $* is missing"
    fi
}

summary() {
    echo "$((checks - fails)) passed, $fails failed"
    if [ "$checks" -eq 0 ]; then
        echo "FAIL: no checks ran"
        return 1
    fi
    [ "$fails" -eq 0 ]
}

wait_until() {
    _wu_max=$1
    shift
    _wu_n=1
    until "$@"; do
        [ "$_wu_n" -lt "$_wu_max" ] || return 1
        sleep 0.1
        _wu_n=$((_wu_n + 1))
    done
}

wait_for() {
    _wf_n=0
    while [ "$_wf_n" -lt "${3:-100}" ]; do
        _wf_v=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        if [ -n "$_wf_v" ]; then
            echo "$_wf_v"
            return 0
        fi
        sleep 0.1
        _wf_n=$((_wf_n + 1))
    done
    return 1
}

stop_pid() {
    stop_rc=0
    [ -n "$1" ] || return 0
    kill "$1" 2>/dev/null
    _sp_n=0
    while [ "$_sp_n" -lt "${2:-50}" ] && kill -0 "$1" 2>/dev/null; do
        sleep 0.1
        _sp_n=$((_sp_n + 1))
    done
    _sp_killed=0
    if kill -0 "$1" 2>/dev/null; then
        kill -KILL "$1" 2>/dev/null
        _sp_killed=1
    fi
    wait "$1" 2>/dev/null
    stop_rc=$?
    return "$_sp_killed"
}

start_fsc() {
    : >"$tmp/fsc.out"
    : >"$tmp/fsc.log"
    "$bin" run -c "$1" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
}

wait_exporter() {
    mport=$(wait_for "$tmp/fsc.log" \
        's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p') || {
        fail "fabricscope did not start its exporter"
        cut -c1-300 "$tmp/fsc.log"
        return 1
    }
}

start_sim() {
    : >"$tmp/sim.out"
    : >"$tmp/sim.err"
    "$@" >"$tmp/sim.out" 2>"$tmp/sim.err" &
    sim_pid=$!
    sim_port=$(wait_for "$tmp/sim.out" 's/^listening port=\([0-9]*\)$/\1/p') || {
        fail "$1 did not print its port"
        cat "$tmp/sim.err"
        return 1
    }
}

start_rw_receiver() {
    : >"$tmp/rw.log"
    python3 "$(dirname "$0")/remote_write_lib.py" serve "$tmp/rw.log" "" >"$tmp/rw.out" \
        2>"$tmp/rw.err" &
    peer_pid=$!
    rw_port=$(wait_for "$tmp/rw.out" 's/^listening port=\([0-9]*\)$/\1/p') || {
        fail "the remote_write receiver did not start"
        cat "$tmp/rw.err"
        return 1
    }
}

leaf_port_lines() {
    _lp_i=0
    while [ "$_lp_i" -lt "$1" ]; do
        echo "        - {name: et-0/0/$_lp_i, speed: 400G, role: downlink}"
        _lp_i=$((_lp_i + 1))
    done
}

# Sets $chrome to the headless browser the page tests drive, or fails the
# test (scripts/setup.sh installs Debian's chromium; never a skip).
need_chromium() {
    chrome=$(command -v chromium || command -v chromium-browser || true)
    if [ -z "$chrome" ]; then
        echo "FAIL: chromium is not installed (Debian package chromium; scripts/setup.sh installs it)"
        exit 1
    fi
}

need_gnmi_js() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "FAIL: node ($1) not found: run scripts/setup.sh"
        exit 1
    fi
    if [ ! -d "$2/node_modules/@grpc/grpc-js" ] || [ ! -d "$2/node_modules/@grpc/proto-loader" ] ||
        [ ! -d "$2/node_modules/protobufjs" ]; then
        echo "FAIL: $2/node_modules is missing or incomplete: run scripts/setup.sh" \
            "(it runs npm ci --prefix tests/interop/gnmi_js)"
        exit 1
    fi
}

fetch_metrics() {
    if [ $# -ge 2 ]; then
        curl -sf --max-time 10 -H "Accept: $2" "http://127.0.0.1:$mport/metrics" \
            >"${1:-$tmp/metrics}" 2>/dev/null
    else
        curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" >"${1:-$tmp/metrics}" 2>/dev/null
    fi
}

poll_metrics() {
    _pm_n=0
    while [ "$_pm_n" -lt "$1" ]; do
        fetch_metrics "$tmp/metrics"
        if eval "$2"; then return 0; fi
        sleep 0.2
        _pm_n=$((_pm_n + 2))
    done
    return 1
}

# pycheck ARGS...: runs the test's python checker ($tmp/check.py, which may
# import tests/tools modules through FSC_TEST_TOOLS) and adds its counts
# ("checks=N fails=M", its last line) to ours.
pycheck() {
    "$py" "$tmp/check.py" "$@" >"$tmp/py.out" 2>&1
    cat "$tmp/py.out"
    _n=$(sed -n 's/^checks=\([0-9]*\) fails=\([0-9]*\)$/\1 \2/p' "$tmp/py.out")
    if [ -z "$_n" ]; then
        fail "checker $1 did not finish"
        return
    fi
    checks=$((checks + ${_n% *}))
    fails=$((fails + ${_n#* }))
}

value() { grep -E "^$1" "${2:-$tmp/metrics}" | head -n 1 | awk '{print $NF}'; }

ge() { [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null; }

wait_log_port() {
    _wl_n=0
    while [ "$_wl_n" -lt "${2:-100}" ]; do
        _wl_v=$(grep -E -- "$1" "$tmp/fsc.log" 2>/dev/null | head -n 1 |
            sed -n 's/.*[[:space:]]port=\([0-9][0-9]*\).*/\1/p')
        if [ -n "$_wl_v" ]; then
            echo "$_wl_v"
            return 0
        fi
        sleep 0.1
        _wl_n=$((_wl_n + 1))
    done
    return 1
}

series_value() {
    _sv_name=$1
    shift
    awk -v name="$_sv_name" -v want="$*" '
        BEGIN { n = split(want, w, " ") }
        index($0, name "{") == 1 || index($0, name " ") == 1 {
            lab = $0
            sub(/^[^{ ]*/, "", lab)
            if (substr(lab, 1, 1) == "{")
                sub(/}[^}]*$/, "}", lab)
            else
                lab = ""
            for (i = 1; i <= n; i++) {
                eq = index(w[i], "=")
                p = substr(w[i], 1, eq) "\"" substr(w[i], eq + 1) "\""
                if (!(index(lab, "{" p ",") || index(lab, "{" p "}") || index(lab, "," p ",") ||
                      index(lab, "," p "}")))
                    next
            }
            print $NF
            exit
        }' "$tmp/metrics"
}

num_eq() {
    checks=$((checks + 1))
    awk -v g="$2" -v w="$3" 'BEGIN {
        if (g !~ /^[-+0-9.eE]+$/ || w !~ /^[-+0-9.eE]+$/) exit 1
        exit !(g + 0 == w + 0) }' || fail "$1: got '$2', want $3"
}

num_near() {
    checks=$((checks + 1))
    awk -v g="$2" -v w="$3" -v r="$4" 'BEGIN {
        if (g !~ /^[-+0-9.eE]+$/ || w !~ /^[-+0-9.eE]+$/) exit 1
        d = g - w; if (d < 0) d = -d
        a = w; if (a < 0) a = -a
        exit !(d <= r * a) }' || fail "$1: got '$2', want $3 (relative tolerance $4)"
}

num_le() {
    checks=$((checks + 1))
    awk -v g="$2" -v l="$3" 'BEGIN {
        if (g !~ /^[-+0-9.eE]+$/) exit 1
        exit !(g + 0 <= l + 0) }' || fail "$1: got '$2', want <= $3"
}

# The expected 1 s window rate of a counter stepping STEP per collection of
# tests/interop/otlp_js/sender.js, from the `collect n=K time_ms=T` lines it
# printed to OUTFILE, exactly as docs/DESIGN.md, "The rate rules", rule 9
# defines a window: the counter interpolated linearly at the edges E - 1 s and
# E of the last window completed by the last collection, divided by 1 s. NA
# when the run did not print enough collections to cover a whole window.
expected_rate() { # OUTFILE STEP
    awk -v step="$2" '
        /^collect n=[0-9]+ time_ms=[0-9]+ / {
            split($2, a, "="); split($3, b, "=")
            t[a[2] + 0] = b[2] + 0; if (a[2] + 0 > n) n = a[2] + 0
        }
        function at(x,   k) {
            for (k = 1; k < n; k++)
                if (t[k] <= x && x <= t[k + 1])
                    return k * step + step * (x - t[k]) / (t[k + 1] - t[k])
            return "NA"
        }
        END {
            if (n < 2) { print "NA"; exit }
            e = int(t[n] / 1000) * 1000
            a0 = at(e - 1000); a1 = at(e)
            if (a0 == "NA" || a1 == "NA") { print "NA"; exit }
            printf "%.17g\n", (a1 - a0) / 1.0
        }' "$1"
}
