#!/bin/sh
# Checks that the engine's unit tests link no library the engine must not
# need (docs/DESIGN.md, "Layers"): no libmicrohttpd, no GnuTLS, no libyaml,
# no gRPC. Usage: check_links.sh BINARY...
set -eu
bad=0
for bin in "$@"; do
    libs=$(ldd "$bin" | awk '{print $1}')
    for no in libmicrohttpd libgnutls libyaml libgrpc libcurl librdkafka; do
        if printf '%s\n' "$libs" | grep -q "^$no"; then
            echo "$bin links $no"
            bad=1
        fi
    done
done
[ "$bad" -eq 0 ] && echo "links: $# engine test binaries link only libc, libm and pthreads"
exit "$bad"
