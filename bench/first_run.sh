#!/bin/sh
# The README's first command on a fresh Debian 12: time from nothing (a
# minbase root made by mmdebstrap) to the demo's /-/ready answering.
#   bench/first_run.sh [WORKDIR]     (root; needs mmdebstrap and the network
#                                      to the Debian mirror, nothing else)
# Clones this checkout's HEAD into WORKDIR/root/src, runs the README's first
# line in a chroot (demo stopped by --duration 30s) and polls
# http://127.0.0.1:9464/-/ready from outside once a second (port 9464 must
# be free). Prints the seconds to ready and the phases' marks from the log.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
root="$work/root"
[ "$(id -u)" -eq 0 ] || { echo "first_run: needs root (mmdebstrap, chroot)" >&2; exit 2; }
if curl -sf -o /dev/null http://127.0.0.1:9464/-/ready; then
    echo "first_run: something already answers on 127.0.0.1:9464" >&2
    exit 2
fi
rm -rf "$root"
mkdir -p "$work"
t0=$(date +%s)
mmdebstrap --quiet --variant=minbase bookworm "$root"
echo "minbase root made in $(( $(date +%s) - t0 )) s (not counted)"
git clone -q "$here" "$root/src"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
cleanup() { umount -R "$root/dev" 2>/dev/null || true; umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT INT TERM
# The README's first line, with --duration so the run ends by itself.
line=$(sed -n '/^```sh$/{n;p;q}' "$here/README.md")
echo "running: $line --duration 30s"
chroot "$root" sh -c "cd /src && $line --duration 30s" >"$work/first_run.log" 2>&1 &
pid=$!
t0=$(date +%s)
ready=""
for _ in $(seq 1 600); do
    if curl -sf -o /dev/null http://127.0.0.1:9464/-/ready; then
        ready=$(( $(date +%s) - t0 ))
        break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
done
wait "$pid" || true
if [ -z "$ready" ]; then
    echo "first_run: the page never answered; log: $work/first_run.log" >&2
    exit 1
fi
echo "README command 1: /-/ready answered after $ready s (log: $work/first_run.log)"
