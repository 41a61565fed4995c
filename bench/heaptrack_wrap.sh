#!/bin/sh
# heaptrack_wrap.sh OUT COMMAND...: run COMMAND under heaptrack's preload
# library as the same process (exec), so a bench that measures or signals the
# PID it started still reaches the program. The trace goes through a FIFO to
# heaptrack_interpret and is written to OUT.gz (heaptrack_print OUT.gz).
# Used as FSC_WRAP by bench/many_devices.sh (docs/PERFORMANCE.md
# "Memory per series").
set -eu
out=$1
shift
lib=${HEAPTRACK_LIB:-/usr/lib/heaptrack}
[ -x "$lib/libexec/heaptrack_interpret" ] || {
    echo "heaptrack not found under $lib (set HEAPTRACK_LIB)" >&2
    exit 2
}
fifo=$out.fifo
rm -f "$fifo"
mkfifo "$fifo"
"$lib/libexec/heaptrack_interpret" <"$fifo" | gzip -1 >"$out.gz" &
exec env LD_PRELOAD="$lib/libheaptrack_preload.so" DUMP_HEAPTRACK_OUTPUT="$fifo" "$@"
