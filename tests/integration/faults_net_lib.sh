# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154
# Helpers of the network fault tests (faults_net_*.sh), on top of lib.sh
# (sourced first; lib_init called). POSIX sh.
#
# fn_init
#     lib_init, plus the list of extra processes below; traps EXIT so they
#     are stopped (by PID) before lib.sh's own cleanup.
# fn_spawn NAME COMMAND...
#     Starts COMMAND in the background (stdout $tmp/NAME.out, stderr
#     $tmp/NAME.err), remembers its PID (fn_pid NAME prints it).
# fn_spawn_port NAME COMMAND...
#     fn_spawn, then waits (10 s) for its `listening port=N` line and prints
#     N; fails (returns 1, stderr shown) when none came.
# fn_stop NAME
#     Stops that process (stop_pid: SIGTERM, SIGKILL after 5 s).
# fn_stop_fsc
#     Stops the daemon (10 s) and checks it exited 0; clears fsc_pid.
# fn_sanitizer_check FILE...
#     One check: no sanitizer report in the files.
# fn_vm_rss_kb PID
#     VmRSS of PID in kB (from /proc), empty when gone.
# fn_vm_hwm_kb PID
#     VmHWM (peak RSS) of PID in kB.

fn_procs=""

fn_init() {
    lib_init
    fn_procs=""
    trap fn_cleanup EXIT
}

fn_cleanup() {
    for _fc_n in $fn_procs; do
        stop_pid "$(cat "$tmp/$_fc_n.pid" 2>/dev/null)"
    done
    fn_procs=""
    lib_cleanup
}

fn_spawn() {
    _fs_n=$1
    shift
    "$@" >"$tmp/$_fs_n.out" 2>"$tmp/$_fs_n.err" &
    echo $! >"$tmp/$_fs_n.pid"
    fn_procs="$fn_procs $_fs_n"
}

fn_pid() { cat "$tmp/$1.pid" 2>/dev/null; }

fn_spawn_port() {
    _fp_n=$1
    fn_spawn "$@"
    wait_for "$tmp/$_fp_n.out" 's/^listening port=\([0-9]*\)$/\1/p' || {
        fail "$_fp_n did not print its port"
        cat "$tmp/$_fp_n.err" >&2
        return 1
    }
}

fn_stop() {
    stop_pid "$(fn_pid "$1")"
    rm -f "$tmp/$1.pid"
}

fn_stop_fsc() {
    [ -n "$fsc_pid" ] || return 0
    if stop_pid "$fsc_pid" 100; then
        check_eq "fabricscope exit status after SIGTERM" "$stop_rc" 0
    else
        fail "fabricscope still running 10 s after SIGTERM"
    fi
    fsc_pid=""
}

fn_sanitizer_check() {
    check_eq "sanitizer reports" \
        "$(cat "$@" 2>/dev/null | grep -Ec 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:')" 0
}

fn_vm_rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
fn_vm_hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
