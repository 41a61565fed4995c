#!/bin/sh
# The two base images the container test (container.image) builds the
# Containerfile from, made from Debian packages with mmdebstrap and imported
# into podman, so that the test's `podman build` needs no network:
#   localhost/fabricscope-base:builder  Debian 12 minbase + the builder
#       stage's packages (scripts/setup.sh --list-build-only): its
#       `setup.sh --build-only` step finds everything installed;
#   localhost/fabricscope-base:runtime  Debian 12 minbase made slim the way
#       debian:12-slim is (no man pages, locales, docs but the copyright
#       files) + the runtime stage's RUNTIME_PACKAGES (the Containerfile's
#       ARG line): its install step finds nothing missing.
# Both are merged-/usr like Debian's own images (mmdebstrap's merged-usr
# hook: no usrmerge package, hence no perl), without device nodes in /dev
# (an engine mounts its own /dev; mmdebstrap(1) filters them the same way for
# podman). Each image carries the label io.fabricscope.base.recipe: a digest
# of the mmdebstrap command that made it (options and package list).
#
#   container_bases.sh          make the images that are missing or whose
#                               recipe changed (the tarball is cached in
#                               $FSC_CACHE_DIR, default /var/cache/fabricscope;
#                               an image already current costs nothing)
#   container_bases.sh --check  exit 0 when both are current, 1 when one is
#                               missing, 2 when one is stale (made from
#                               another recipe); says which
# Needs root (the test runs as root); as another user it makes nothing.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
mode="make"
[ "${1:-}" = "--check" ] && mode=check
suite=bookworm
cache=${FSC_CACHE_DIR:-/var/cache/fabricscope}
label=io.fabricscope.base.recipe
hook=--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
# The path filters of mmdebstrap(1)'s example "Exclude paths to reduce chroot
# size", which is also what Debian's -slim images leave out.
slim="--dpkgopt=path-exclude=/usr/share/man/* --dpkgopt=path-exclude=/usr/share/locale/*
      --dpkgopt=path-include=/usr/share/locale/locale.alias --dpkgopt=path-exclude=/usr/share/doc/*
      --dpkgopt=path-include=/usr/share/doc/*/copyright --dpkgopt=path-exclude=/usr/share/info/*
      --dpkgopt=path-exclude=/usr/share/lintian/*"

if [ "$(id -u)" -ne 0 ]; then
    echo "container_bases: not root: no base images made (container.image runs as root)"
    [ "$mode" = make ] && exit 0
    exit 1
fi
for t in podman mmdebstrap mmtarfilter sha256sum; do
    command -v "$t" >/dev/null 2>&1 || {
        echo "container_bases: $t is missing (scripts/setup.sh installs it)"
        exit 1
    }
done

build_pkgs=$("$src/scripts/setup.sh" --list-build-only)
runtime_pkgs=$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"$/\1/p' "$src/Containerfile")
if [ -z "$build_pkgs" ] || [ -z "$runtime_pkgs" ]; then
    echo "container_bases: no package list (setup.sh --list-build-only; ARG RUNTIME_PACKAGES)"
    exit 1
fi

status=0
# base KIND PACKAGES MMDEBSTRAP_OPTION...: makes (or checks)
# localhost/fabricscope-base:KIND; sets status (1 missing, 2 stale) in check mode.
base() {
    _kind=$1
    _pkgs=$(echo "$2" | tr -s ' \n' ',,' | sed 's/,$//')
    shift 2
    _tag=localhost/fabricscope-base:$_kind
    _recipe=$(printf 'mmdebstrap --variant=minbase %s --include=%s %s\n' "$*" "$_pkgs" "$suite" |
        sha256sum | cut -c1-16)
    _have=$(podman image inspect --format "{{index .Labels \"$label\"}}" "$_tag" 2>/dev/null) ||
        _have=""
    if [ "$_have" = "$_recipe" ]; then
        echo "container_bases: $_tag is current ($label=$_recipe)"
        return 0
    fi
    if [ "$mode" = check ]; then
        if [ -z "$_have" ]; then
            echo "container_bases: $_tag is missing (run scripts/setup.sh)"
            [ "$status" -eq 2 ] || status=1
        else
            echo "container_bases: $_tag is stale: $label=$_have, want $_recipe (run scripts/setup.sh)"
            status=2
        fi
        return 0
    fi
    _tar=$cache/fabricscope-base-$_kind-$_recipe.tar
    if [ ! -s "$_tar" ]; then
        mkdir -p "$cache"
        rm -f "$cache/fabricscope-base-$_kind-"*.tar "$cache/fabricscope-base-$_kind-"*.part
        echo "container_bases: mmdebstrap $_kind ($suite minbase +$(echo "$_pkgs" | tr ',' ' '))"
        # (its hooks talk even with --quiet: the log is shown on failure only)
        mmdebstrap --quiet --variant=minbase "$@" --include="$_pkgs" --format=tar "$suite" \
            "$_tar.raw.part" >"$cache/mmdebstrap-$_kind.log" 2>&1 || {
            tail -n 30 "$cache/mmdebstrap-$_kind.log"
            echo "container_bases: mmdebstrap failed (log: $cache/mmdebstrap-$_kind.log)"
            rm -f "$_tar.raw.part"
            exit 1
        }
        mmtarfilter '--path-exclude=/dev/*' <"$_tar.raw.part" >"$_tar.part"
        rm -f "$_tar.raw.part"
        mv "$_tar.part" "$_tar"
    fi
    _old=$(podman image inspect --format '{{.Id}}' "$_tag" 2>/dev/null) || _old=""
    podman import --quiet --change "LABEL $label=$_recipe" \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' "$_tar" "$_tag" >/dev/null
    # The image this one replaces (made here before): removed unless in use.
    [ -z "$_old" ] || podman rmi "$_old" >/dev/null 2>&1 || true
    echo "container_bases: $_tag imported ($label=$_recipe)"
}

# The options are split into words, not expanded as file names.
set -f
# shellcheck disable=SC2086
set -- $hook
set +f
base builder "$build_pkgs" "$@"
set -f
# shellcheck disable=SC2086
set -- $hook $slim
set +f
base runtime "$runtime_pkgs" "$@"
exit "$status"
