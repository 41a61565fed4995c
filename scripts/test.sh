#!/bin/sh
# Builds fabricscope twice (optimised, and ASan+UBSan) and runs the whole ctest
# suite in each. Exits non-zero if any build or test fails. The last lines are
# ctest's summary of the sanitizer run.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Sanitize >/dev/null
cmake --build build-san -j"$jobs"

status=0
echo "== tests: optimised build =="
ctest --test-dir build -j"$jobs" --output-on-failure || status=1
echo "== tests: ASan+UBSan build =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-san -j"$jobs" --output-on-failure || status=1
exit $status
