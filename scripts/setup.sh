#!/bin/sh
# Installs every Debian 12 package that building and testing fabricscope needs
# (and, with --bench, what the comparison benchmarks need).
# Idempotent: does nothing when everything is present; otherwise runs
# `apt-get update` once and installs what is missing. Never installs libupb-dev
# (it conflicts with libgrpc-dev and apt would silently remove gRPC).
# Last, it installs the pinned npm packages of the grpc-js interop target
# (tests/interop/gnmi_js) and of the OpenTelemetry JS SDK sender
# (tests/interop/otlp_js) with `npm ci` from their lockfiles (rerunning is
# safe), and makes the base images the container test builds the
# Containerfile from (scripts/container_bases.sh: mmdebstrap, podman import;
# skipped when they exist and are current).
#   setup.sh [--bench | --build-only | --list-build-only]
set -eu

# What configuring and building the fabricscope binary needs (the
# Containerfile's builder stage runs `setup.sh --build-only`; the container
# test's builder base holds `setup.sh --list-build-only`).
build_packages="build-essential cmake pkg-config libyaml-dev libmicrohttpd-dev zlib1g-dev
                protobuf-c-compiler libprotobuf-c-dev libgrpc-dev librdkafka-dev
                libcurl4-openssl-dev libsnappy-dev libgnutls28-dev nettle-dev libjansson-dev"
if [ "${1:-}" = "--list-build-only" ]; then
    # shellcheck disable=SC2086 # one line, one space between the words
    echo $build_packages
    exit 0
fi

packages="build-essential cmake pkg-config libyaml-dev clang-format libmicrohttpd-dev zlib1g-dev
          curl prometheus python3 python3-prometheus-client protobuf-c-compiler libprotobuf-c-dev
          libgrpc-dev librdkafka-dev kcat iproute2 chromium libcurl4-openssl-dev
          libsnappy-dev victoria-metrics clang libclang-rt-14-dev libgnutls28-dev nettle-dev
          python3-yaml libjansson-dev systemd openssl podman mmdebstrap shellcheck"
# (systemd for deploy.*'s systemd-analyze, openssl for gnmi.sim_smoke's mutual
# TLS: without them those parts are skipped locally and fail under CI;
# podman and mmdebstrap for container.image and its base images; shellcheck
# for lint.shellcheck.)

# `setup.sh --bench` also installs the peers bench/scrape_compare.sh measures
# against; the tests do not need them.
if [ "${1:-}" = "--bench" ]; then
    # collectd's write_prometheus needs libprotobuf-c1, which collectd-core only suggests
    packages="$packages prometheus-node-exporter collectd-core libprotobuf-c1"
fi

# `setup.sh --build-only` installs only what configuring and building the
# fabricscope binary needs (the Containerfile's builder stage): no test peers,
# no npm packages; configure with -DFSC_BUILD_TESTS=OFF (the tests, simulators
# and benchmarks need promtool, python3 and node just to be registered).
build_only=0
if [ "${1:-}" = "--build-only" ]; then
    build_only=1
    packages=$build_packages
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
# node and npm run the grpc-js interop target (Debian 12: nodejs 18, npm 9).
# Checked by command, not by package: a NodeSource nodejs bundles npm and
# conflicts with Debian's npm package, which must then not be installed.
if [ "$build_only" -eq 0 ]; then
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi

if [ -z "$missing" ]; then
    echo "setup: all packages present"
else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        SUDO="sudo"
    fi
    echo "setup: installing$missing"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086 # word splitting of the package list is intended
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if [ "$build_only" -eq 1 ]; then
    exit 0
fi

# The interop target's npm packages, exactly as package-lock.json pins them
# (gnmi.interop_grpc_js expects them; the test never installs anything).
# --ignore-scripts: none of them needs an install script.
echo "setup: npm ci tests/interop/gnmi_js"
npm ci --prefix "$(dirname "$0")/../tests/interop/gnmi_js" --no-audit --no-fund --ignore-scripts \
    --loglevel=error
# The same for the OTLP tests' sender (otlp.* tests): the OpenTelemetry JS
# SDK 2.12 line, the last that runs on Debian 12's node 18.
echo "setup: npm ci tests/interop/otlp_js"
npm ci --prefix "$(dirname "$0")/../tests/interop/otlp_js" --no-audit --no-fund --ignore-scripts \
    --loglevel=error
# The Kafka tests' consumer and schema validator (kafka.* tests): kafkajs
# with lz4js for LZ4 batches, ajv and ajv-formats.
echo "setup: npm ci tests/interop/kafka_js"
npm ci --prefix "$(dirname "$0")/../tests/interop/kafka_js" --no-audit --no-fund --ignore-scripts \
    --loglevel=error
# The container test's base images (Debian packages only, fetched here so
# that the test's image build needs no network).
"$(dirname "$0")/container_bases.sh"
