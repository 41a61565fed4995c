#!/bin/sh
# $tmp and friends come from lib.sh; check conditions are eval'd strings.
# shellcheck disable=SC1091,SC2016,SC2034,SC2086,SC2154
# Keeps the Containerfile true without a container engine.
#   container_test.sh SOURCE_DIR PYTHON3
# 1. Reads the Containerfile (two stages: debian:12 builder, debian:12-slim
#    runtime) and runs the builder's WORKDIR / COPY . / ENV / RUN steps on
#    this host in a clean copy of the build context (git's files minus
#    .containerignore): scripts/setup.sh --build-only, then a fresh
#    configure and build of the fabricscope target.
# 2. Checks the runtime stage's promises against that binary:
#    - every shared library it loads comes from a package the runtime stage
#      installs (its direct DT_NEEDED libraries: named in the apt-get install
#      line; the rest: in those packages' dependency closure);
#    - the image's config passes check-config; its listen ports are EXPOSEd;
#      its state_dir is the VOLUME; USER is the non-root uid 10001 that the
#      image creates; ENTRYPOINT/CMD name the copied binary and config;
#    - the binary runs as a non-root user (uid 65534 here) with the root
#      filesystem read-only except the state directory (a private mount
#      namespace; needs root, else the check is narrowed and says so),
#      writes its state there, answers the HEALTHCHECK command taken from
#      the Containerfile, stops cleanly on SIGTERM; the same health check
#      fails once it is gone.
set -u
src=$1
py=$2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/container_lib.sh"
lib_init
# The daemon below runs as uid 65534: it must reach its run directory.
chmod 0755 "$tmp"
cfile=$src/Containerfile

# --- parse -------------------------------------------------------------------
cf_parse "$cfile" "$tmp/cf.tsv" || {
    fail "Containerfile does not parse"
    summary
    exit 1
}
check_eq "number of stages" "$(cut -f1 "$tmp/cf.tsv" | sort -u | wc -l | tr -d ' ')" 2
check_eq "builder base" "$(cf_args 1 FROM)" "debian:12 AS builder"
check "runtime base is Debian 12" \
    eval '[ "$(cf_args 2 FROM)" = debian:12-slim ] || [ "$(cf_args 2 FROM)" = debian:12 ]'
check "builder installs with the README's setup script (--build-only)" \
    eval 'cf_args 1 RUN | grep -q "^\./scripts/setup\.sh --build-only$"'
check "builder builds only the fabricscope target" \
    eval 'cf_args 1 RUN | grep -q -- "--target fabricscope"'

# --- builder stage on the host ------------------------------------------------
root=$tmp/root
mkdir -p "$root"
cwd=$root
: >"$tmp/build.log"
build_ok=1
while IFS="$(printf '\t')" read -r stage instr args; do
    [ "$stage" = 1 ] || continue
    case $instr in
    FROM) ;;
    WORKDIR)
        case $args in /*) ;; *) args=${cwd#"$root"}/$args ;; esac
        cwd=$root$args
        mkdir -p "$cwd"
        ;;
    COPY)
        # The only COPY a builder may use here: the whole context.
        set -- $args
        if [ $# -ne 2 ] || [ "$1" != . ]; then
            fail "builder COPY '$args' is not 'COPY . DEST' (this test cannot check it)"
            build_ok=0
            break
        fi
        case $2 in /*) dest=$root$2 ;; *) dest=$cwd/$2 ;; esac
        mkdir -p "$dest"
        nfiles=$(cf_copy_context "$src" "$dest") || {
            fail "copying the build context failed"
            build_ok=0
            break
        }
        echo "context: $nfiles files"
        check "context has no build directory" \
            eval '[ -z "$(find "$dest" -maxdepth 1 -name "build*" -print)" ]'
        check "context has the Containerfile and the setup script" \
            eval '[ -f "$dest/Containerfile" ] && [ -x "$dest/scripts/setup.sh" ]'
        ;;
    ENV)
        # ENV KEY=VALUE (one per instruction here)
        export "${args?}"
        ;;
    RUN)
        echo "RUN $args" | tee -a "$tmp/build.log"
        if ! (cd "$cwd" && sh -c "$args") </dev/null >>"$tmp/build.log" 2>&1; then
            fail "builder step failed: RUN $args"
            tail -n 40 "$tmp/build.log"
            build_ok=0
            break
        fi
        ok
        ;;
    *)
        fail "builder instruction $instr is not checked by this test"
        build_ok=0
        ;;
    esac
done <"$tmp/cf.tsv"
if [ "$build_ok" -ne 1 ]; then
    summary
    exit 1
fi

# --- runtime stage: static promises -------------------------------------------
copy_bin=$(cf_args 2 COPY | awk '$1 == "--from=builder" { print $2, $3 }' | head -n 1)
bin_src=${copy_bin% *}
bin_dest=${copy_bin#* }
bin=$root$bin_src
check "the builder produced the binary the runtime stage copies ($bin_src)" test -x "$bin"
check_eq "binary lands in /usr/local/bin" "${bin_dest%/*}" /usr/local/bin
entry=$(cf_exec_json "$(cf_args 2 ENTRYPOINT)" | tr '\n' ' ')
check_eq "ENTRYPOINT" "$entry" "${bin_dest##*/} "
cmdline=$(cf_exec_json "$(cf_args 2 CMD)" | tr '\n' ' ')
check_eq "CMD" "$cmdline" "run -c /etc/fabricscope/fabricscope.yaml "
cfg_src=$(cf_args 2 COPY | awk '$1 != "--from=builder" && $2 == "/etc/fabricscope/fabricscope.yaml" {
    print $1 }')
check "the runtime stage copies a config to the CMD's path" test -f "$src/$cfg_src"
if ! "$bin" check-config "$src/$cfg_src" >"$tmp/check.out" 2>&1; then
    fail "check-config refuses the image's config $cfg_src"
    cat "$tmp/check.out"
fi
ok
state_dir=$(sed -n 's/^state_dir: *//p' "$src/$cfg_src")
check_eq "the config's state_dir" "$state_dir" /var/lib/fabricscope
check_eq "VOLUME is the state directory" "$(cf_args 2 VOLUME)" "[\"$state_dir\"]"
check_eq "USER" "$(cf_args 2 USER)" "10001:10001"
check "the image creates uid/gid 10001 and the state directory owned by it" \
    eval 'cf_args 2 RUN | grep -q "useradd .*--uid 10001 --gid 10001 .*install -d -o 10001 -g 10001 .*$state_dir"'
exposed=" $(cf_args 2 EXPOSE | tr '\n' ' ') "
for p in 9464 4317 4318; do
    check "EXPOSE $p" eval 'case "$exposed" in *" $p "*) true ;; *) false ;; esac'
    check "the image's config listens on $p" grep -q "0\.0\.0\.0:$p\"" "$src/$cfg_src"
done

# Packages: the runtime stage's install list, each known to apt.
cf_args 2 RUN >"$tmp/runtime_run"
pkgs=$(while read -r line; do cf_apt_installs "$line"; done <"$tmp/runtime_run" | sort -u)
check "the runtime stage installs packages" test -n "$pkgs"
for p in $pkgs; do
    check "package $p is known to apt" eval 'apt-cache show "$p" >/dev/null 2>&1'
done
# shellcheck disable=SC2086 # one word per package
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $pkgs 2>/dev/null | grep -v '^ ' | tr -d '<>' |
    sed 's/:.*//' | sort -u >"$tmp/closure"
check "apt's dependency closure of the runtime packages" test -s "$tmp/closure"

# The package owning a library path (dpkg knows either the /lib or /usr/lib
# spelling on a merged-/usr system).
lib_pkg() {
    _lp=$(realpath "$1" 2>/dev/null || echo "$1")
    for _c in "$1" "$_lp" "/usr$_lp" "${_lp#/usr}" "/usr$1" "${1#/usr}"; do
        _r=$(dpkg -S "$_c" 2>/dev/null | head -n 1 | sed 's/:.*//') && [ -n "$_r" ] && {
            echo "$_r"
            return 0
        }
    done
    return 1
}
readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/needed"
check "the binary has DT_NEEDED entries" test -s "$tmp/needed"
ldd "$bin" >"$tmp/ldd" 2>&1
check "ldd finds every library" eval '! grep -q "not found" "$tmp/ldd"'
while read -r name; do
    path=$(awk -v n="$name" '$1 == n && $3 ~ /^\// { print $3 }' "$tmp/ldd" | head -n 1)
    pkg=$(lib_pkg "$path") || pkg="?"
    check "direct library $name ($pkg) is installed by name in the runtime stage" \
        eval 'echo "$pkgs" | grep -qx "$pkg"'
done <"$tmp/needed"
awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' "$tmp/ldd" | sort -u |
    while read -r path; do
        pkg=$(lib_pkg "$path") || pkg="?"
        grep -qx "$pkg" "$tmp/closure" || echo "$path ($pkg)"
    done >"$tmp/uncovered"
check "every loaded library comes with the runtime packages (uncovered: $(tr '\n' ' ' <"$tmp/uncovered"))" \
    eval '[ ! -s "$tmp/uncovered" ]'
check "the built binary runs (version)" eval '"$bin" version >/dev/null'

# HEALTHCHECK: exec form, its tool installed by the runtime stage.
hc=$(cf_args 2 HEALTHCHECK)
hc_json=${hc#*CMD }
cf_exec_json "$hc_json" >"$tmp/hc_words" || fail "HEALTHCHECK CMD is not an exec-form array"
hc_tool=$(head -n 1 "$tmp/hc_words")
hc_pkg=$(lib_pkg "$(command -v "$hc_tool")") || hc_pkg="?"
check "HEALTHCHECK tool $hc_tool ($hc_pkg) is installed by the runtime stage" \
    eval 'echo "$pkgs" | grep -qx "$hc_pkg"'
check "HEALTHCHECK probes http://127.0.0.1:9464/-/healthy" \
    grep -qx "http://127.0.0.1:9464/-/healthy" "$tmp/hc_words"

# Runs the HEALTHCHECK command with the probe pointed at port $1.
health() {
    set --
    while read -r w; do
        case $w in http://127.0.0.1:9464/*) w="http://127.0.0.1:$mport/${w#http://127.0.0.1:9464/}" ;; esac
        set -- "$@" "$w"
    done <"$tmp/hc_words"
    "$@" >/dev/null 2>&1
}

# --- runtime stage: the binary as the image runs it ----------------------------
run=$tmp/run
mkdir -p "$run/state"
chmod 0755 "$run"
cp "$bin" "$run/fabricscope"
sed -e 's#"0\.0\.0\.0:[0-9]*"#"127.0.0.1:0"#' -e "s#^state_dir: .*#state_dir: $run/state#" \
    "$src/$cfg_src" >"$run/fabricscope.yaml"
chmod 0644 "$run/fabricscope.yaml"
mode="plain"
if [ "$(id -u)" -eq 0 ]; then
    chown 65534:65534 "$run/state"
    chmod 0750 "$run/state"
    mode="setpriv"
    # A private mount namespace with every mount read-only but the state
    # directory, as `--read-only -v state:/var/lib/fabricscope` gives.
    if unshare --mount --propagation private mount -o remount,bind,ro / 2>/dev/null; then
        mode="readonly"
    fi
fi
echo "run mode: $mode"
: >"$tmp/fsc.log"
case $mode in
readonly)
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare --mount --propagation private sh -c '
        mount --bind "$1/state" "$1/state" || exit 3
        for m in $(findmnt -rno TARGET | sort -u); do
            case $m in /proc | /proc/* | /sys | /sys/* | "$1/state") continue ;; esac
            mount -o remount,bind,ro "$m" || exit 4
        done
        exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
            "$1/fabricscope" run -c "$1/fabricscope.yaml"' sh "$run" \
        >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    ;;
setpriv)
    skip_part "a private mount namespace (unshare --mount; the read-only root is not enforced)"
    setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
        "$run/fabricscope" run -c "$run/fabricscope.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    ;;
*)
    skip_part "root (the daemon runs as uid $(id -u), without a read-only root)"
    "$run/fabricscope" run -c "$run/fabricscope.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    ;;
esac
if wait_exporter; then
    want_uid=65534
    [ "$mode" = plain ] && want_uid=$(id -u)
    check_eq "daemon's real/effective/saved/fs uid" \
        "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$fsc_pid/status")" \
        "$want_uid $want_uid $want_uid $want_uid"
    check "HEALTHCHECK command accepts the running daemon" health
    check "/-/ready answers" eval 'curl -sf --max-time 5 "http://127.0.0.1:$mport/-/ready" >/dev/null'
    check "/metrics answers" fetch_metrics
    check "the daemon wrote its state into the state directory" test -d "$run/state/rollup"
    check "state written as the daemon's user" \
        eval '[ "$(stat -c %u "$run/state/rollup")" = "$want_uid" ]'
    check "no error logged (e.g. a write outside the state directory)" \
        eval '! grep -q "level=error" "$tmp/fsc.log"'
    check "daemon still running" kill -0 "$fsc_pid"
    stop_pid "$fsc_pid"
    check_eq "exit status after SIGTERM" "$stop_rc" 0
    fsc_pid=""
    check "HEALTHCHECK command fails once the daemon is gone" eval '! health'
fi
if [ "$fails" -ne 0 ]; then
    echo "--- daemon log"
    cut -c1-300 "$tmp/fsc.log"
fi
summary
