#!/bin/sh
# The accuracy corpus as numbers: every variant of every case in
# tests/scenarios/cases, one line each (windows emitted of possible, withheld,
# max and p99 window error, fine-rate error, burst start / duration / peak /
# bytes error, CNP storm errors, grid relocks), through the real engine.
# Record them in docs/ACCURACY.md with this command:
#   cmake --build build -j2 --target scenario_run && bench/accuracy.sh [build]
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
exec "$build/tests/scenarios/scenario_run" --report "$here"/tests/scenarios/cases/*.scn
