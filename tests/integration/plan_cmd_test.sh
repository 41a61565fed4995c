#!/bin/sh
# `fabricscope plan` as an operator meets it: help texts, the shipped 4-node
# example against its golden output (tests/fixtures/b300/plan.txt), node names
# and the cables file taken from examples/b300.yaml, the output run as the
# shell script it claims to be, and file:line:col errors with exit status 2.
#   plan_cmd_test.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cables="$src/examples/b300/cables.txt"
golden="$src/tests/fixtures/b300/plan.txt"

# run_plan WANT_EXIT DESCRIPTION ARGS...: stdout $tmp/out, stderr $tmp/err.
run_plan() {
    _want=$1
    _what=$2
    shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    _got=$?
    check_eq "$_what: exit status" "$_got" "$_want"
}

# Help: `plan --help`, `help plan`, and the main help lists the command.
run_plan 0 "plan --help" plan --help
check "plan --help shows the usage" grep -q "^Usage: fabricscope plan \[-c CONFIG\] \[CABLES_FILE\] \[--node N\]" "$tmp/out"
cp "$tmp/out" "$tmp/help1"
run_plan 0 "help plan" help plan
check "help plan equals plan --help" cmp -s "$tmp/out" "$tmp/help1"
run_plan 0 "--help" --help
check "main help lists plan" grep -q "^  plan CABLES_FILE" "$tmp/out"

# The example renders exactly the golden file; every node of it.
run_plan 0 "plan example" plan "$cables"
check "plan output equals tests/fixtures/b300/plan.txt" cmp -s "$tmp/out" "$golden"
check_eq "four node blocks" "$(grep -c '^# node ' "$tmp/out")" 4
check_eq "64 ip addr commands" "$(grep -c '^ip addr add ' "$tmp/out")" 64
check_eq "64 flushes before them" "$(grep -c '^ip addr flush dev ' "$tmp/out")" 64
check_eq "64 links up at mtu 9000" "$(grep -Ec '^ip link set [a-z0-9]+ mtu 9000 up$' "$tmp/out")" 64
# No config: the names are the built-in placeholders, and stderr says so
# (one line; stdout stays a clean script).
check_eq "one warning on stderr" "$(wc -l <"$tmp/err" | tr -d ' ')" 1
check "the warning names every card as a placeholder" \
    grep -q '^fabricscope: warning: the interface names of every card are the built-in defaults' "$tmp/err"

# The output is a shell script: run it with `ip` stubbed, it issues exactly
# its own ip lines, in order.
cat >"$tmp/stub.sh" <<'SH'
ip() { echo "ip $*"; }
. "$1"
SH
sh "$tmp/stub.sh" "$tmp/out" >"$tmp/ran" 2>"$tmp/ran.err"
check_eq "the plan runs as a shell script" "$?" 0
grep '^ip ' "$tmp/out" >"$tmp/ip_lines"
check "the script issues exactly its ip lines" cmp -s "$tmp/ran" "$tmp/ip_lines"

# One node, layout and names from the config, cables file from the config.
run_plan 0 "plan -c --node 1" plan -c "$src/examples/b300.yaml" --node 1
check_eq "node 1 header names its device" "$(head -n 1 "$tmp/out")" \
    "# node 1 (b300-01): 8 of 8 ports cabled, peers 2, 3, 4"
sed -n '2,/^$/p' "$golden" | sed '/^$/d' >"$tmp/node1_body"
tail -n +2 "$tmp/out" >"$tmp/node1_out"
check "node 1 body equals the golden one" cmp -s "$tmp/node1_out" "$tmp/node1_body"
check "node 1 has 10.112.1.1 on ens8f0np0" grep -qx "ip addr add 10.112.1.1/30 dev ens8f0np0" "$tmp/out"
check_eq "the config names every card: no warning" "$(wc -c <"$tmp/err" | tr -d ' ')" 0
run_plan 0 "plan --config=FILE --node=4 CABLES" plan "--config=$src/examples/b300.yaml" --node=4 "$cables"
check "node 4 holds .2 towards node 3" grep -qx "ip addr add 10.134.6.2/30 dev ens2f1np1" "$tmp/out"
check_eq "only node 4" "$(grep -c '^# node ' "$tmp/out")" 1

# Errors: file:line:col and a sentence on stderr, exit 2, nothing on stdout.
printf '# two cables on one port\n1-3 > 2-3\n\n4-1 > 2-3\n' >"$tmp/twice.txt"
run_plan 2 "port used twice" plan "$tmp/twice.txt"
check_eq "port used twice: message" "$(cat "$tmp/err")" \
    "$tmp/twice.txt:4:7: node 2 port 3 is already used by the cable on line 2"
check_eq "port used twice: no output" "$(wc -c <"$tmp/out" | tr -d ' ')" 0
printf '1-3 > 2-3\n1-4 -> 2-4\n' >"$tmp/syntax.txt"
run_plan 2 "bad syntax" plan "$tmp/syntax.txt"
check "bad syntax: message" grep -q "^$tmp/syntax.txt:2:5: expected '>' between the two ends, found '-'" "$tmp/err"
run_plan 2 "missing file" plan "$tmp/nope.txt"
check_eq "missing file: message" "$(cat "$tmp/err")" "$tmp/nope.txt: No such file or directory"
run_plan 2 "node without cables" plan "$cables" --node 7
check_eq "node without cables: message" "$(cat "$tmp/err")" \
    "fabricscope: node 7 has no cable in $cables"
run_plan 2 "bad node number" plan "$cables" --node 12
check "bad node number: message" grep -q "^fabricscope: --node takes a node number 1-9, not '12'" "$tmp/err"
run_plan 2 "no cables file" plan
check "no cables file: message" grep -q "^fabricscope: missing CABLES_FILE" "$tmp/err"
run_plan 2 "unknown option" plan --frob "$cables"
check "unknown option: message" grep -q "^fabricscope: unknown option '--frob'" "$tmp/err"

summary
