#!/bin/sh
# $tmp and friends come from lib.sh; check conditions are eval'd strings;
# word lists (packages, command words, one per line) are split on purpose,
# with file name expansion off (set -f).
# shellcheck disable=SC1091,SC2016,SC2034,SC2046,SC2086,SC2154
# The Containerfile built by a container engine and the image run as shipped.
#   container_image_test.sh SOURCE_DIR PYTHON3
# 1. The Containerfile builds anywhere: two stages whose bases default to
#    Debian's debian:12 and debian:12-slim, the builder installing with the
#    README's setup script and building only the fabricscope target.
# 2. `podman build` of it, unchanged, in a network namespace of its own with
#    no interface up (the test's network rule): the bases are the ones
#    scripts/setup.sh made with mmdebstrap (scripts/container_bases.sh), so
#    neither stage installs anything. What `COPY .` sees (.containerignore)
#    is checked with podman too.
# 3. The image: its config (user, entrypoint, workdir, volume, ports,
#    HEALTHCHECK), its size within a budget, every shared library of the
#    binary from a package the runtime stage names (directly) or pulls in.
# 4. The image's root filesystem (podman create + podman mount; running a
#    container does not work here: crun and cgroups v1 hybrid mode) run the
#    way an engine runs it: a mount and network namespace of the test's own
#    (a /dev of the engine's device nodes, /proc, a read-only /sys, loopback
#    only), chroot into the image as its user with no_new_privs, its
#    WORKDIR and environment, its ENTRYPOINT + CMD with the shipped config:
#    a. root filesystem writable (as `podman run` without --read-only): the
#       daemon starts and answers the HEALTHCHECK command; `podman diff` then
#       shows it wrote nothing outside the state directory;
#    b. root filesystem read-only with a volume on the state directory (as
#       `podman run --read-only -v state:/var/lib/fabricscope`, or Kubernetes'
#       readOnlyRootFilesystem, which has no tmpfs for /tmp either): as the
#       image's user every other path refuses writes (EROFS); `version`,
#       `check-config` of the shipped config; the daemon runs as uid 10001
#       without capabilities, listens on exactly the EXPOSEd ports, answers
#       the HEALTHCHECK command, /-/ready and /metrics (its shard and
#       source series as the config gives them), writes its state into the
#       volume, logs no error, stops with status 0 on SIGTERM; the HEALTHCHECK
#       command fails once it is gone.
# 5. Everything the test made (image, container, its mount, namespaces,
#    processes) is removed; no image is left behind.
set -u -f
src=$1
py=$2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/container_lib.sh"

[ "$(id -u)" -eq 0 ] || skip "root (podman's image store, mount namespaces, chroot)"
for t in podman nsenter unshare setpriv chroot ip ss curl readelf apt-cache timeout; do
    command -v "$t" >/dev/null 2>&1 || skip "$t"
done
bases=$("$src/scripts/container_bases.sh" --check 2>&1)
case $? in
0) ;;
1)
    echo "$bases"
    skip "the base images scripts/setup.sh makes (scripts/container_bases.sh)"
    ;;
*)
    echo "$bases"
    echo "FAIL: the base images are stale: rerun scripts/setup.sh"
    exit 1
    ;;
esac
builder_base=localhost/fabricscope-base:builder
runtime_base=localhost/fabricscope-base:runtime

# The size budget of the image (the runtime stage), in bytes as podman counts
# them (SI). Measured 115.9 MB (docs/DEPLOY.md): the slim Debian 12 base
# 77.6 MB, the runtime packages' closure 37.2 MB, the stage's own layer
# 1.1 MB. 130 MB leaves room for Debian point releases and a growing binary
# and fails on what would be a mistake: a new runtime dependency of more
# than ~14 MB, Recommends installed, a base that is not slim (docs, locales,
# perl via usrmerge: the old 304 MB).
size_budget=130000000
# The stage's own layer (binary, config, user): measured 1.1 MB; 4 MB catches
# a debug build or a build tree copied in.
layer_budget=4000000

lib_init
t_test=$(date +%s)
tag=localhost/fabricscope-test:$$
ctr=fabricscope-test-$$
img_id=""
ctx_id=""
ctr_made=0
mnt=""
build_pid=""
podman images -a -q --no-trunc 2>/dev/null | sort -u >"$tmp/images.before"
# Containers, also buildah's working containers (a build stopped midway leaves
# its stage's one behind: removed by img_cleanup).
podman ps -a --external -q --no-trunc 2>/dev/null | sort -u >"$tmp/ctrs.before"

# Removes what the test made, in order: daemon, namespace holder (their
# mounts go with the namespace), the container's mount, the container, the
# images. Every step bounded (stop_pid: 5 s, podman: timeout).
img_cleanup() {
    for _p in $build_pid $fsc_pid $peer_pid; do stop_pid "$_p"; done
    build_pid=""
    fsc_pid=""
    peer_pid=""
    if [ "$ctr_made" -eq 1 ]; then
        timeout 30 podman umount "$ctr" >/dev/null 2>&1
        timeout 30 podman rm -f "$ctr" >/dev/null 2>&1
        ctr_made=0
    fi
    podman ps -a --external --no-trunc --format '{{.ID}} {{.Names}}' 2>/dev/null |
        awk '$2 ~ /-working-container(-[0-9]+)?$/ { print $1 }' | sort -u >"$tmp/ctrs.now"
    for _c in $(comm -13 "$tmp/ctrs.before" "$tmp/ctrs.now"); do
        timeout 30 podman rm -f "$_c" >/dev/null 2>&1
    done
    for _i in $img_id $ctx_id; do timeout 30 podman rmi -f "$_i" >/dev/null 2>&1; done
    img_id=""
    ctx_id=""
}
trap 'img_cleanup; lib_cleanup' EXIT

# --- 1. the Containerfile -------------------------------------------------------
cfile=$src/Containerfile
cf_parse "$cfile" "$tmp/cf.tsv" || {
    fail "Containerfile does not parse"
    summary
    exit 1
}
# Instructions before the first FROM (the base image ARGs) are stage 0.
check_eq "number of stages" "$(cut -f1 "$tmp/cf.tsv" | grep -v '^0$' | sort -u | wc -l | tr -d ' ')" 2
check_eq "builder base by default" "$(cf_args 0 ARG | sed -n 's/^BUILDER_IMAGE=//p')" debian:12
check_eq "runtime base by default" "$(cf_args 0 ARG | sed -n 's/^RUNTIME_IMAGE=//p')" debian:12-slim
check_eq "builder stage" "$(cf_args 1 FROM)" "\${BUILDER_IMAGE} AS builder"
check_eq "runtime stage" "$(cf_args 2 FROM)" "\${RUNTIME_IMAGE}"
check "builder installs with the README's setup script (--build-only)" \
    eval 'cf_args 1 RUN | grep -q "^\./scripts/setup\.sh --build-only$"'
check "builder builds only the fabricscope target" \
    eval 'cf_args 1 RUN | grep -q -- "--target fabricscope"'
pkgs=$(cf_args 2 ARG | sed -n 's/^RUNTIME_PACKAGES="\(.*\)"$/\1/p' | tr ' ' '\n' | sort -u)
check "the runtime stage names its packages (ARG RUNTIME_PACKAGES)" test -n "$pkgs"

# --- 2. podman build ------------------------------------------------------------
# What `COPY .` sees: the context as podman reads it (.containerignore).
printf 'FROM scratch\nCOPY . /context/\n' >"$tmp/ctx.Containerfile"
timeout 60 podman build --isolation=chroot --pull=never --layers=false --quiet \
    --iidfile "$tmp/ctx.iid" -o "type=local,dest=$tmp/ctx" -f "$tmp/ctx.Containerfile" "$src" \
    >"$tmp/ctx.log" 2>&1
ctx_rc=$?
ctx_id=$(cat "$tmp/ctx.iid" 2>/dev/null)
check_eq "podman build of the build context" "$ctx_rc" 0
c=$tmp/ctx/context
check "the context has the Containerfile and the setup script" \
    eval '[ -f "$c/Containerfile" ] && [ -x "$c/scripts/setup.sh" ] && [ -f "$c/CMakeLists.txt" ]'
check "the context has no build directory, .git or node_modules ($(find "$c" -maxdepth 1 -name "build*" | tr '\n' ' '))" \
    eval '[ -z "$(find "$c" -maxdepth 1 \( -name "build*" -o -name .git \) -print)" ] &&
          [ -z "$(find "$c" -name node_modules -print)" ]'
echo "context: $(find "$c" -type f | wc -l | tr -d ' ') files, $(du -sk "$c" | cut -f1) KiB"
rm -rf "$tmp/ctx"
[ -z "$ctx_id" ] || timeout 30 podman rmi -f "$ctx_id" >/dev/null 2>&1
ctx_id=""

t0=$(date +%s)
timeout 240 unshare --net podman build --isolation=chroot --network=host --pull=never \
    --format docker --layers=false --force-rm --iidfile "$tmp/iid" \
    --build-arg BUILDER_IMAGE=$builder_base --build-arg RUNTIME_IMAGE=$runtime_base \
    -t "$tag" -f "$cfile" "$src" >"$tmp/build.log" 2>&1 &
build_pid=$!
wait "$build_pid"
build_rc=$?
build_pid=""
img_id=$(cat "$tmp/iid" 2>/dev/null)
echo "podman build: $(($(date +%s) - t0)) s, status $build_rc"
check_eq "podman build (no network)" "$build_rc" 0
if [ "$build_rc" -ne 0 ] || [ -z "$img_id" ]; then
    tail -n 40 "$tmp/build.log"
    summary
    exit 1
fi
check "the builder stage installed nothing (setup.sh: all packages present)" \
    grep -qx "setup: all packages present" "$tmp/build.log"
check "the runtime stage installed nothing (its base has every package)" \
    grep -qx "runtime packages missing: none" "$tmp/build.log"

# --- 3. the image -----------------------------------------------------------------
podman image inspect "$img_id" >"$tmp/inspect.json"
check_eq "manifest format (docker: the OCI format drops HEALTHCHECK)" \
    "$(ij 'd["ManifestType"]')" application/vnd.docker.distribution.manifest.v2+json
check_eq "USER" "$(ij 'd["Config"].get("User")')" 10001:10001
check_eq "ENTRYPOINT" "$(ij 'd["Config"].get("Entrypoint")' | tr '\n' ' ')" "fabricscope "
check_eq "CMD" "$(ij 'd["Config"].get("Cmd")' | tr '\n' ' ')" "run -c /etc/fabricscope/fabricscope.yaml "
check_eq "WORKDIR" "$(ij 'd["Config"].get("WorkingDir")')" /var/lib/fabricscope
check_eq "VOLUME" "$(ij 'sorted(d["Config"].get("Volumes", {}))')" /var/lib/fabricscope
exposed=$(ij 'sorted(d["Config"].get("ExposedPorts", {}))' | tr '\n' ' ')
check_eq "EXPOSE" "$exposed" "4317/tcp 4318/tcp 9464/tcp "
check_eq "HEALTHCHECK form" "$(ij 'd["Healthcheck"]["Test"][0]')" CMD
ij 'd["Healthcheck"]["Test"][1:]' >"$tmp/hc_words"
check "HEALTHCHECK probes http://127.0.0.1:9464/-/healthy" \
    grep -qx "http://127.0.0.1:9464/-/healthy" "$tmp/hc_words"
size=$(ij 'd["Size"]')
base_size=$(podman image inspect --format '{{.Size}}' "$runtime_base")
layer=$((size - base_size))
echo "image size: $size bytes (runtime base $base_size, the stage's own layer $layer)"
num_le "image size (bytes; budget: see size_budget)" "$size" "$size_budget"
num_le "the runtime stage's own layer (bytes)" "$layer" "$layer_budget"
img_user=$(ij 'd["Config"]["User"]')
img_wd=$(ij 'd["Config"]["WorkingDir"]')
img_env=$(ij 'd["Config"].get("Env", [])' | tr '\n' ' ')

# --- 4. the image's root filesystem -------------------------------------------------
if timeout 30 podman create --name "$ctr" --health-cmd none "$img_id" >/dev/null 2>"$tmp/create.err"; then
    ctr_made=1
fi
check "podman create" test "$ctr_made" -eq 1
mnt=$(timeout 30 podman mount "$ctr" 2>>"$tmp/create.err")
check "podman mount" test -n "$mnt" -a -d "$mnt/usr"
if [ "$ctr_made" -ne 1 ] || [ -z "$mnt" ]; then
    cat "$tmp/create.err"
    summary
    exit 1
fi
state_mode=$(stat -c '%u:%g %a' "$mnt/var/lib/fabricscope")
check_eq "the image's state directory (owner, mode)" "$state_mode" "10001:10001 750"
check_eq "the image's user" "$(grep '^fabricscope:' "$mnt/etc/passwd")" \
    "fabricscope:x:10001:10001::/var/lib/fabricscope:/usr/sbin/nologin"
home=$(awk -F: '$3 == 10001 { print $6 }' "$mnt/etc/passwd")
img_env="$img_env HOME=$home"

# The holder: a mount and network namespace the image runs in, as an
# engine sets one up (the device nodes of the OCI runtime spec's default
# /dev, /proc, a read-only /sys, loopback only). It prints "ready", then
# waits to be stopped by PID.
unshare --mount --net --propagation private sh -c '
    m=$1
    ip link set lo up || exit 2
    mount -t tmpfs -o nosuid,noexec,mode=0755,size=64k tmpfs "$m/dev" || exit 3
    for d in null zero full random urandom tty; do
        : >"$m/dev/$d" && mount --bind "/dev/$d" "$m/dev/$d" || exit 3
    done
    mount -o remount,bind,ro "$m/dev" || exit 3
    mount -t proc -o nosuid,nodev,noexec proc "$m/proc" || exit 4
    mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$m/sys" || exit 5
    echo ready
    exec sleep 600' sh "$mnt" >"$tmp/holder.out" 2>&1 &
peer_pid=$!
if ! wait_for "$tmp/holder.out" 's/^\(ready\)$/\1/p' >/dev/null; then
    fail "the image's namespaces were not set up"
    cat "$tmp/holder.out"
    summary
    exit 1
fi
ok

# Starts the image's ENTRYPOINT + CMD in the holder's namespaces, as img_in
# runs a command (written out: a function run with & would be a subshell, and
# fsc_pid must be the daemon itself).
start_image() {
    set -- $(ij 'd["Config"]["Entrypoint"] + d["Config"]["Cmd"]')
    : >"$tmp/fsc.out"
    : >"$tmp/fsc.log"
    nsenter --target "$peer_pid" --mount --net -- setpriv --no-new-privs \
        chroot --userspec="$img_user" "$mnt" env -i -C "$img_wd" $img_env "$@" \
        >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
}
# The HEALTHCHECK command, run inside the image as an engine runs it.
health() {
    img_in $(cat "$tmp/hc_words") >/dev/null 2>&1
}
# GET http://127.0.0.1:9464PATH in the image's network namespace into FILE.
get() {
    nsenter --target "$peer_pid" --net -- curl -sf --max-time 5 "http://127.0.0.1:9464$1" >"$2"
}

# a. Writable root: what does the daemon write?
start_image
if wait_exporter; then
    check_eq "exporter port (the shipped config)" "$mport" 9464
    check "HEALTHCHECK command accepts the daemon (writable root)" \
        wait_until 50 health
    stop_pid "$fsc_pid"
    check_eq "exit status after SIGTERM (writable root)" "$stop_rc" 0
fi
fsc_pid=""
timeout 30 podman diff "$ctr" >"$tmp/diff" 2>&1
awk '$2 != "/var" && $2 != "/var/lib" && $2 != "/var/lib/fabricscope" &&
     index($2, "/var/lib/fabricscope/") != 1' "$tmp/diff" >"$tmp/diff.outside"
check "podman diff: nothing written outside the state directory ($(tr '\n' ' ' <"$tmp/diff.outside"))" \
    eval '[ ! -s "$tmp/diff.outside" ]'
check "podman diff: the daemon wrote into the state directory" \
    grep -q "^A /var/lib/fabricscope/" "$tmp/diff"

# b. Read-only root, a volume on the state directory.
mkdir -p "$tmp/state"
chown 10001:10001 "$tmp/state"
chmod 0750 "$tmp/state"
nsenter --target "$peer_pid" --mount -- sh -c '
    mount --bind "$2" "$1/var/lib/fabricscope" && mount -o remount,bind,ro "$1"' \
    sh "$mnt" "$tmp/state" 2>"$tmp/ro.err"
check "read-only root with the state volume mounted" eval '[ ! -s "$tmp/ro.err" ]'
for d in / /etc /tmp /var/tmp /var/lib /usr/local/bin /dev; do
    img_in touch "${d%/}/.fabricscope-write-probe" >"$tmp/probe" 2>&1
    check "the image's user cannot write $d (read-only: $(cat "$tmp/probe"))" \
        grep -q "Read-only file system" "$tmp/probe"
done
check "the image's user writes the state directory" \
    eval 'img_in touch /var/lib/fabricscope/.probe && [ "$(stat -c %u "$tmp/state/.probe")" = 10001 ]'
rm -f "$tmp/state/.probe"

version=$(sed -n 's/^project(fabricscope VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
# The image is built from the tree without its git data: the commit is unknown.
check_eq "version" "$(img_in fabricscope version 2>&1)" "fabricscope $version (commit unknown)"
check_eq "the ENTRYPOINT is the copied binary" "$(img_in sh -c 'command -v fabricscope')" \
    /usr/local/bin/fabricscope
img_in fabricscope check-config /etc/fabricscope/fabricscope.yaml >"$tmp/check.out" 2>&1
check "check-config of the shipped config" \
    grep -qx "/etc/fabricscope/fabricscope.yaml: OK" "$tmp/check.out"
check_eq "the shipped config's state_dir is the VOLUME" \
    "$(sed -n 's/^state_dir: *//p' "$tmp/check.out")" /var/lib/fabricscope

# Shared libraries: direct ones named by the runtime stage, the rest in the
# dependency closure of what it names (apt's view of Debian 12, on this host).
img_in ldd /usr/local/bin/fabricscope >"$tmp/ldd" 2>&1
check "ldd finds every library" eval '[ -s "$tmp/ldd" ] && ! grep -q "not found" "$tmp/ldd"'
readelf -d "$mnt/usr/local/bin/fabricscope" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/needed"
check "the binary has DT_NEEDED entries" test -s "$tmp/needed"
awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 } $1 ~ /^\// { print $1, $1 }' "$tmp/ldd" |
    sort -u >"$tmp/libs"
# dpkg knows a library by its /lib or /usr/lib spelling (merged /usr), by the
# name ldd printed or the file the symlink resolves to: ask for all of them.
while read -r _n path; do
    real=$(img_in readlink -f "$path")
    for p in "$path" "/usr$path" "${path#/usr}" "$real" "/usr$real" "${real#/usr}"; do
        echo "$path $p"
    done
done <"$tmp/libs" | sort -u >"$tmp/spellings"
img_in dpkg -S $(cut -d' ' -f2 "$tmp/spellings" | sort -u) 2>/dev/null |
    sed 's/^\([^:]*\)\(:[^ ]*\)*: \(.*\)$/\3 \1/' >"$tmp/owners"
lib_pkg() {
    awk -v p="$1" '$1 == p { print $2 }' "$tmp/spellings" | while read -r s; do
        awk -v s="$s" '$1 == s { print $2; exit }' "$tmp/owners"
    done | head -n 1
}
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $pkgs 2>/dev/null | grep -v '^ ' | tr -d '<>' |
    sed 's/:.*//' | sort -u >"$tmp/closure"
check "apt's dependency closure of the runtime packages" test -s "$tmp/closure"
while read -r name; do
    path=$(awk -v n="$name" '$1 == n { print $2 }' "$tmp/libs" | head -n 1)
    pkg=$(lib_pkg "$path")
    check "direct library $name (${pkg:-?}) is named by the runtime stage" \
        eval 'echo "$pkgs" | grep -qx "${pkg:-?}"'
done <"$tmp/needed"
while read -r _n path; do
    pkg=$(lib_pkg "$path")
    grep -qx "${pkg:-?}" "$tmp/closure" || echo "$path (${pkg:-?})"
done <"$tmp/libs" >"$tmp/uncovered"
check "every loaded library comes with the runtime packages (uncovered: $(tr '\n' ' ' <"$tmp/uncovered"))" \
    eval '[ ! -s "$tmp/uncovered" ]'
img_in dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' $pkgs >"$tmp/installed" 2>&1
check_eq "every runtime package is installed in the image" \
    "$(awk '$1 == "ii" { print $2 }' "$tmp/installed" | sort -u | tr '\n' ' ')" \
    "$(echo "$pkgs" | tr '\n' ' ')"
hc_tool=$(img_in sh -c "command -v $(head -n 1 "$tmp/hc_words")")
hc_pkg=$(img_in dpkg -S "$hc_tool" 2>/dev/null | sed 's/:.*//' | head -n 1)
check "HEALTHCHECK tool $hc_tool (${hc_pkg:-?}) is named by the runtime stage" \
    eval 'echo "$pkgs" | grep -qx "${hc_pkg:-?}"'

# The daemon, as `podman run --read-only -v state:/var/lib/fabricscope` runs it.
t_start=$(date +%s)
start_image
if wait_exporter; then
    check_eq "exporter port" "$mport" 9464
    check_eq "daemon's real/effective/saved/fs uid" \
        "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$fsc_pid/status")" \
        "10001 10001 10001 10001"
    check_eq "daemon's gids" "$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$fsc_pid/status")" \
        "10001 10001 10001 10001"
    check_eq "daemon's effective capabilities" \
        "$(awk '/^CapEff:/ { print $2 }' "/proc/$fsc_pid/status")" 0000000000000000
    check_eq "daemon's no_new_privs" "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$fsc_pid/status")" 1
    check "HEALTHCHECK command accepts the running daemon" wait_until 50 health
    nsenter --target "$peer_pid" --net -- ss -Hltn >"$tmp/ss"
    listening=$(awk '{ n = split($4, a, ":"); print a[n] "/tcp" }' "$tmp/ss" | sort -u | tr '\n' ' ')
    check_eq "the daemon listens on exactly the EXPOSEd ports" "$listening" "$exposed"
    check "/-/ready answers" get /-/ready "$tmp/ready"
    check "/metrics answers" get /metrics "$tmp/metrics"
    num_eq "fabricscope_shard_info (the one shard)" \
        "$(series_value fabricscope_shard_info index=0 count=1)" 1
    num_eq "fabricscope_shard_sources owned (the config's one source)" \
        "$(series_value fabricscope_shard_sources state=owned)" 1
    loaded=$(series_value fabricscope_config_last_reload_success_timestamp_seconds)
    check "config loaded during this run ($loaded >= $t_start)" \
        awk -v v="$loaded" -v t="$t_start" 'BEGIN { exit !(v + 0 >= t) }'
    check "the daemon wrote its state into the volume" test -d "$tmp/state/rollup"
    check "state written as the image's user" \
        eval '[ "$(stat -c %u "$tmp/state/rollup")" = 10001 ]'
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

# --- 5. clean up --------------------------------------------------------------------
img_cleanup
check "the test's container is gone" eval '! podman container exists "$ctr"'
podman ps -a --external -q --no-trunc 2>/dev/null | sort -u >"$tmp/ctrs.after"
check "no container left behind ($(comm -13 "$tmp/ctrs.before" "$tmp/ctrs.after" | tr '\n' ' '))" \
    eval '[ -z "$(comm -13 "$tmp/ctrs.before" "$tmp/ctrs.after")" ]'
podman images -a -q --no-trunc 2>/dev/null | sort -u >"$tmp/images.after"
check "no image left behind ($(comm -13 "$tmp/images.before" "$tmp/images.after" | tr '\n' ' '))" \
    eval '[ -z "$(comm -13 "$tmp/images.before" "$tmp/images.after")" ]'
echo "test: $(($(date +%s) - t_test)) s (the image build included)"
summary
