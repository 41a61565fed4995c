#!/bin/sh
# Configures a tree with -DFSC_BUILD_TESTS=OFF and checks that nothing under
# tests/ (or bench/) would be compiled. Usage: check_tests_off.sh SOURCE_DIR WORK_DIR
set -eu
src=$1
work=$2
rm -rf "$work"
cmake -S "$src" -B "$work" -DFSC_BUILD_TESTS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
n=$(grep -c '"file":' "$work/compile_commands.json")
if grep '"file":' "$work/compile_commands.json" | grep -E "$src/(tests|bench)/"; then
    echo "with FSC_BUILD_TESTS=OFF the files above are still compiled"
    exit 1
fi
echo "tests off: $n files compiled, none under tests/ or bench/"
rm -rf "$work"
