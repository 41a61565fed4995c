#!/bin/sh
# Builds fabricscope twice (optimised, and ASan+UBSan) and runs the whole ctest
# suite in each. Exits non-zero if any build or test fails. Ends with ctest's
# summary line of each run (the sanitizer run last).
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

# FSC_BUILD_TESTS=ON: a build directory the README's first command made
# (the program alone) gets the tests too.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFSC_BUILD_TESTS=ON >/dev/null
cmake --build build -j"$jobs"
cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Sanitize -DFSC_BUILD_TESTS=ON >/dev/null
cmake --build build-san -j"$jobs"

# run_suite TITLE BUILD_DIR: ctest's full output, kept in BUILD_DIR/ctest.log.
run_suite() {
    echo "== tests: $1 =="
    rc=0
    ctest --test-dir "$2" -j"$jobs" --output-on-failure >"$2/ctest.log" 2>&1 || rc=$?
    cat "$2/ctest.log"
    return $rc
}

status=0
run_suite "optimised build" build || status=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite "ASan+UBSan build" build-san || status=1

echo "== summary =="
grep -hE "tests passed|tests failed" build/ctest.log build-san/ctest.log | tail -n 2
exit $status
