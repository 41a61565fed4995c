#!/bin/sh
# `fabricscope plan` as an operator meets it: help texts, the shipped 4-node
# example against its golden output (tests/fixtures/b300/plan.txt), node names
# and the cables file taken from examples/b300.yaml, the output run as the
# shell script it claims to be, and file:line:col errors with exit status 2.
# --dry-run prints exactly that output; --apply runs node 1's commands in a
# network namespace this test creates (unshare -n; its veth interfaces carry
# node 1's planned names; the namespace ends with its shell), root only.
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
check "plan --help shows the usage" grep -q "^Usage: fabricscope plan \[--dry-run | --apply\] \[-c CONFIG\] \[CABLES_FILE\] \[--node N\]" "$tmp/out"
check "plan --help explains --dry-run" grep -q "^  --dry-run  *print the commands and the map, change nothing (the default)" "$tmp/out"
check "plan --help explains --apply" grep -q "^  --apply  *run node N's commands on this host" "$tmp/out"
cp "$tmp/out" "$tmp/help1"
run_plan 0 "help plan" help plan
check "help plan equals plan --help" cmp -s "$tmp/out" "$tmp/help1"
run_plan 0 "--help" --help
check "main help lists plan" grep -q "^  plan CABLES_FILE" "$tmp/out"
check "main help names --dry-run and --apply" \
    grep -q "^  *(--dry-run, the default), or --apply one node's on this host$" "$tmp/out"

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

# --dry-run is exactly that output, stdout and stderr, alone or with the
# other options in any place.
cp "$tmp/out" "$tmp/plain.out"
cp "$tmp/err" "$tmp/plain.err"
run_plan 0 "plan --dry-run example" plan --dry-run "$cables"
check "--dry-run output equals tests/fixtures/b300/plan.txt" cmp -s "$tmp/out" "$golden"
check "--dry-run stderr equals the plain one (the warning)" cmp -s "$tmp/err" "$tmp/plain.err"
run_plan 0 "plan -c --node 1 (plain)" plan -c "$src/examples/b300.yaml" --node 1
cp "$tmp/out" "$tmp/node1_plain"
run_plan 0 "plan -c --node 1 --dry-run" plan -c "$src/examples/b300.yaml" --node 1 --dry-run
check "--dry-run --node 1 equals the plain --node 1" cmp -s "$tmp/out" "$tmp/node1_plain"
cp "$tmp/plain.out" "$tmp/out"

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
run_plan 2 "--apply without --node" plan --apply "$cables"
check "--apply without --node: message" grep -q "^fabricscope: --apply needs --node N: the node this host is" "$tmp/err"
check_eq "--apply without --node: no output" "$(wc -c <"$tmp/out" | tr -d ' ')" 0
run_plan 2 "--apply with --dry-run" plan --apply --dry-run --node 1 "$cables"
check "--apply with --dry-run: message" grep -q "^fabricscope: --apply and --dry-run exclude each other" "$tmp/err"

# ---- --apply, in a network namespace of this test -------------------------------------
# Node 1's 16 interfaces as veth ends (peers p0..p15) named as the plan of
# examples/b300.yaml names them. In the namespace ($tmp/ns.sh, its results in
# files):
#   apply1  a stale 10.99.0.1/30 on ens8f0np0 first; --apply --node 1
#   apply2  --apply again (a rerun: still one address per interface)
#   fail    every address flushed; an `ip` wrapper first on PATH refuses
#           `ip link set ens7f0np0 mtu ...`; --apply stops there
#   missing ens1f1np1 deleted, a stale address on ens8f0np0; --apply
#           changes nothing
# Expected state from the --dry-run lines: "IF ADDR/30" per `ip addr add`.
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1 ||
    ! unshare -n true 2>/dev/null; then
    skip_part "root, unshare -n and iproute2's ip (the --apply part)"
else
    cfg="$src/examples/b300.yaml"
    "$bin" plan -c "$cfg" --node 1 --dry-run >"$tmp/node1.sh" 2>/dev/null
    grep '^ip ' "$tmp/node1.sh" >"$tmp/node1.ip"
    sed -n 's/^ip addr add \([^ ]*\) dev \([^ ]*\)$/\2 \1/p' "$tmp/node1.sh" | sort >"$tmp/want.addr"
    sed -n 's/^ip addr flush dev //p' "$tmp/node1.sh" >"$tmp/ifaces"
    mkdir -p "$tmp/wrap"
    real_ip=$(command -v ip)
    cat >"$tmp/wrap/ip" <<SH
#!/bin/sh
case " \$* " in *" link set ens7f0np0 mtu "*) echo "wrapper: refused" >&2; exit 2 ;; esac
exec "$real_ip" "\$@"
SH
    chmod +x "$tmp/wrap/ip"
    cat >"$tmp/ns.sh" <<'SH'
bin=$1 cfg=$2 t=$3
state() { # addresses as "IF ADDR/30" and links as "IF MTU UP|DOWN"
    ip -o -4 addr show | awk '{print $2, $4}' | sort >"$t/$1.addr"
    ip -o link show | sed -n 's/^[0-9]*: \([^@:]*\)[@:].*<\([^>]*\)>.* mtu \([0-9]*\) .*/\1 \3 \2/p' |
        awk '{up = ("," $3 ",") ~ /,UP,/ ? "UP" : "DOWN"; print $1, $2, up}' | sort >"$t/$1.link"
}
i=0
while read -r n; do
    ip link add "$n" type veth peer name "p$i" || exit 1
    i=$((i + 1))
done <"$t/ifaces"
ip addr add 10.99.0.1/30 dev ens8f0np0 || exit 1
"$bin" plan --apply -c "$cfg" --node 1 >"$t/apply1.out" 2>"$t/apply1.err"; echo $? >"$t/apply1.rc"
state apply1
"$bin" plan --apply -c "$cfg" --node 1 >"$t/apply2.out" 2>"$t/apply2.err"; echo $? >"$t/apply2.rc"
state apply2
while read -r n; do ip addr flush dev "$n"; done <"$t/ifaces"
PATH="$t/wrap:$PATH" "$bin" plan --apply -c "$cfg" --node 1 >"$t/fail.out" 2>"$t/fail.err"
echo $? >"$t/fail.rc"
state fail
ip link del ens1f1np1 || exit 1
ip addr add 10.99.0.1/30 dev ens8f0np0 || exit 1
state missing_before
"$bin" plan --apply -c "$cfg" --node 1 >"$t/missing.out" 2>"$t/missing.err"; echo $? >"$t/missing.rc"
state missing
SH
    unshare -n sh "$tmp/ns.sh" "$bin" "$cfg" "$tmp"
    check_eq "the namespace script ran" "$?" 0

    check_eq "--apply: exit status" "$(cat "$tmp/apply1.rc")" 0
    sed 's/^/+ /' "$tmp/node1.ip" >"$tmp/want.echo"
    echo "fabricscope: node 1: 48 commands applied on 16 interfaces" >>"$tmp/want.echo"
    check "--apply echoes exactly the --dry-run ip lines, then a count" cmp -s "$tmp/apply1.out" "$tmp/want.echo"
    check_eq "--apply: nothing on stderr (names from the config)" "$(wc -c <"$tmp/apply1.err" | tr -d ' ')" 0
    check "--apply: every interface holds exactly its planned /30 (the stale one flushed)" \
        cmp -s "$tmp/apply1.addr" "$tmp/want.addr"
    check_eq "--apply: 16 interfaces up at mtu 9000" \
        "$(grep -Ec '^ens[0-9]f[01]np[01] 9000 UP$' "$tmp/apply1.link")" 16
    check_eq "rerun: exit status" "$(cat "$tmp/apply2.rc")" 0
    check "rerun: the same addresses, one per interface" cmp -s "$tmp/apply2.addr" "$tmp/want.addr"

    check_eq "failing command: exit status 1" "$(cat "$tmp/fail.rc")" 1
    head -n 14 "$tmp/node1.ip" | sed 's/^/+ /' >"$tmp/want.fail"
    check "failing command: stops after echoing it (the 14th line)" cmp -s "$tmp/fail.out" "$tmp/want.fail"
    # shellcheck disable=SC2016 # backquotes are literal text of the message
    check "failing command: stderr names it" grep -q \
        '^fabricscope: `ip link set ens7f0np0 mtu 9000 up` failed (exit status 2): stopped' "$tmp/fail.err"
    grep -E '^(ens8f0np0|ens8f1np1|ens5f0np0|ens5f1np1) ' "$tmp/want.addr" >"$tmp/want.fail.addr"
    check "failing command: only the four interfaces before it got addresses" \
        cmp -s "$tmp/fail.addr" "$tmp/want.fail.addr"

    check_eq "missing interface: exit status 1" "$(cat "$tmp/missing.rc")" 1
    check "missing interface: stderr names it" grep -q \
        '^fabricscope: interface ens1f1np1 (card 0 np1) of node 1 is not on this host' "$tmp/missing.err"
    check "missing interface: says nothing was applied" grep -q \
        '^fabricscope: nothing applied: 1 of 16 planned interfaces are missing' "$tmp/missing.err"
    check_eq "missing interface: no command echoed" "$(wc -c <"$tmp/missing.out" | tr -d ' ')" 0
    check "missing interface: addresses unchanged (stale one kept)" \
        cmp -s "$tmp/missing.addr" "$tmp/missing_before.addr"
    check "missing interface: links unchanged" cmp -s "$tmp/missing.link" "$tmp/missing_before.link"
fi

summary
