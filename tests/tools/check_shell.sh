#!/bin/sh
# lint.shellcheck: every shell script of the tree (tests, scripts, bench,
# .ci) passes `shellcheck -x` at warning severity. Notes and style hints are
# not enforced: the tests pass check conditions as single-quoted strings to
# eval on purpose (SC2016). Node modules and build trees are not ours.
#   check_shell.sh SHELLCHECK SOURCE_DIR
set -u
sc=$1
src=$2
cd "$src" || exit 1
list=$(find . -path ./build -prune -o -path './build-*' -prune -o -name node_modules -prune \
    -o -name .git -prune -o -type f \( -name '*.sh' -o -path ./.ci/run \) -print | sort)
n=$(printf '%s\n' "$list" | grep -c .)
if [ "$n" -lt 50 ]; then
    echo "FAIL: found only $n shell scripts under $src" >&2
    exit 1
fi
# shellcheck disable=SC2086 # the list is file names without spaces, split on purpose
out=$(mktemp) || exit 1
if "$sc" -x -S warning -f gcc $list >"$out" 2>&1; then
    rm -f "$out"
    echo "shellcheck: $n scripts, no warning"
    exit 0
fi
cat "$out"
echo "FAIL: shellcheck warnings in $(cut -d: -f1 "$out" | sort -u | wc -l) of $n scripts"
rm -f "$out"
exit 1
