#!/bin/sh
# The fabricscope command line as a user meets it: help texts, exit codes,
# check-config on the shipped examples and on broken files (file:line errors),
# secrets never echoed, and `run` starting and stopping cleanly on SIGTERM.
#   cli_test.sh BINARY SOURCE_DIR
set -u
bin=$1
src=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

# expect_exit CODE DESCRIPTION -- command...
expect_exit() {
    want=$1; what=$2; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    ok
    [ "$got" -eq "$want" ] || fail "$what: exit $got, want $want; stderr: $(head -c 400 "$tmp/err")"
}
# expect_grep FILE PATTERN DESCRIPTION
expect_grep() {
    ok
    grep -q -- "$2" "$1" || fail "$3: no '$2' in $(basename "$1"): $(head -c 400 "$1")"
}
expect_no_grep() {
    ok
    if grep -q -- "$2" "$1"; then fail "$3: found '$2'"; fi
}

expect_exit 0 "version" -- "$bin" version
expect_grep "$tmp/out" "^fabricscope [0-9]" "version prints name and number"
expect_exit 0 "--help" -- "$bin" --help
expect_grep "$tmp/out" "check-config FILE" "main help lists check-config"
expect_grep "$tmp/out" "run -c FILE" "main help lists run"
for cmd in run check-config version; do
    expect_exit 0 "$cmd --help" -- "$bin" "$cmd" --help
    expect_grep "$tmp/out" "Usage: fabricscope $cmd" "$cmd --help shows its usage"
    expect_exit 0 "help $cmd" -- "$bin" help "$cmd"
    expect_grep "$tmp/out" "Usage: fabricscope $cmd" "help $cmd shows its usage"
done
expect_exit 2 "no command" -- "$bin"
expect_exit 2 "unknown command" -- "$bin" frobnicate
expect_grep "$tmp/err" "unknown command 'frobnicate'" "unknown command is named"
ok
[ "$(wc -l <"$tmp/err")" -eq 2 ] || fail "unknown command: two lines, not the whole help: $(cat "$tmp/err")"
expect_exit 2 "mistyped command" -- "$bin" check-confg
expect_grep "$tmp/err" "unknown command 'check-confg' (did you mean 'check-config'?)" "did you mean"
expect_exit 2 "mistyped command, two letters swapped" -- "$bin" rnu
expect_grep "$tmp/err" "(did you mean 'run'?)" "did you mean, swap"
# version: the number and the commit the binary was built from (12 hex
# digits, "-dirty" with uncommitted changes, "unknown" outside git).
expect_exit 0 "version" -- "$bin" version
expect_grep "$tmp/out" '^fabricscope [0-9][0-9.]* (commit \([0-9a-f]\{12\}\(-dirty\)\{0,1\}\|unknown\))$' "version names the commit"
expect_exit 2 "run without -c" -- "$bin" run
expect_grep "$tmp/err" "missing -c FILE" "run explains what is missing"
expect_exit 2 "check-config without file" -- "$bin" check-config

# Every shipped example is valid (its /etc/fabricscope files belong to the
# machine it is written for: --no-files), and its printed effective config
# loads again.
for f in "$src"/examples/*.yaml; do
    expect_exit 0 "check-config $(basename "$f")" -- "$bin" check-config --no-files "$f"
    cp "$tmp/out" "$tmp/effective.yaml"
    expect_exit 0 "effective config of $(basename "$f") reloads" -- \
        "$bin" check-config --no-files "$tmp/effective.yaml"
    cmp -s "$tmp/out" "$tmp/effective.yaml" || fail "effective config of $(basename "$f") is not stable"
done

# A broken config: exit 2, file:line:col and the offending key.
cat >"$tmp/bad.yaml" <<'YAML'
engine:
  windows: [1s, 10s]
  microburst:
    rise: 0.7
    fal: 0.5
YAML
expect_exit 2 "unknown key" -- "$bin" check-config "$tmp/bad.yaml"
expect_grep "$tmp/err" "bad.yaml:5:5:" "error names file:line:col"
expect_grep "$tmp/err" "fal" "error names the key"
expect_exit 2 "missing file" -- "$bin" check-config "$tmp/nope.yaml"
expect_grep "$tmp/err" "nope.yaml" "I/O error names the file"

# Every error of a file at once, each with its line and column.
cat >"$tmp/three.yaml" <<'YAML'
engine:
  windows: [1s, 10s]
  microburst:
    fal: 0.5
sources:
  - name: a
    type: gnmii
  - name: b
    type: synthetic
    interval: soon
YAML
expect_exit 2 "three errors" -- "$bin" check-config "$tmp/three.yaml"
expect_grep "$tmp/err" "three.yaml:4:5: engine.microburst.fal: unknown key" "first error"
expect_grep "$tmp/err" 'three.yaml:7:11: sources\[0\].type: "gnmii" is not one of' "second error"
expect_grep "$tmp/err" 'three.yaml:10:15: sources\[1\].interval:' "third error"
ok
[ "$(wc -l <"$tmp/err")" -eq 3 ] || fail "three errors, one line each: $(cat "$tmp/err")"

# The files a config names: each missing or unreadable one is an error at
# its key (a FIFO is refused at once, never waited on); a cable plan must
# parse; --no-files checks the file alone; a disabled source's files are
# not checked.
mkfifo "$tmp/fifo.pem"
printf 'this is not a cable plan\n' >"$tmp/cables.txt"
cat >"$tmp/files.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: 127.0.0.1:50051
    username: telemetry
    password: x
    tls:
      ca_file: $tmp/missing-ca.pem
  - name: leaf2
    type: gnmi
    address: 127.0.0.1:50052
    username: telemetry
    password: x
    tls:
      ca_file: $tmp/fifo.pem
  - name: leaf3
    type: gnmi
    enabled: false
    address: 127.0.0.1:50053
    username: telemetry
    password: x
    tls:
      ca_file: $tmp/also-missing.pem
topology:
  cable_plan:
    file: $tmp/cables.txt
YAML
expect_exit 2 "named files checked" -- timeout 10 "$bin" check-config "$tmp/files.yaml"
expect_grep "$tmp/err" "files.yaml:8:16: sources\[0\].tls.ca_file: $tmp/missing-ca.pem: No such file or directory" "missing CA named at its key"
expect_grep "$tmp/err" "files.yaml:15:16: sources\[1\].tls.ca_file: $tmp/fifo.pem: is a FIFO" "FIFO refused"
expect_no_grep "$tmp/err" "also-missing" "a disabled source's file is not checked"
expect_grep "$tmp/err" "files.yaml: cable plan: $tmp/cables.txt:1:" "cable plan parse error with its line"
expect_grep "$tmp/err" "3 named files cannot be used" "the count"
expect_exit 0 "--no-files" -- timeout 10 "$bin" check-config --no-files "$tmp/files.yaml"

# Secrets: resolved from the environment, never printed.
cat >"$tmp/secret.yaml" <<'YAML'
sources:
  - name: leaf1
    type: gnmi
    address: 127.0.0.1:50051
    username: telemetry
    password_env: FSC_TEST_SECRET
YAML
FSC_TEST_SECRET=hunter2-s3cr3t expect_exit 0 "secret from env" -- "$bin" check-config "$tmp/secret.yaml"
expect_no_grep "$tmp/out" "hunter2-s3cr3t" "secret not in printed config"
expect_no_grep "$tmp/err" "hunter2-s3cr3t" "secret not on stderr"
expect_exit 2 "secret env unset" -- env -u FSC_TEST_SECRET "$bin" check-config "$tmp/secret.yaml"
expect_grep "$tmp/err" "secret.yaml:6:" "unset secret env names its line"

# run: starts, logs, stops cleanly on SIGTERM within 5 s.
cat >"$tmp/run.yaml" <<'YAML'
log:
  level: debug
YAML
start_fsc "$tmp/run.yaml"
wait_until 50 grep -q "event=started" "$tmp/fsc.log"
expect_grep "$tmp/fsc.log" "event=started" "run logs started"
if stop_pid "$fsc_pid" 50; then
    check_eq "run exit status after SIGTERM" "$stop_rc" 0
else
    fail "run did not stop within 5 s of SIGTERM"
fi
fsc_pid=""
expect_grep "$tmp/fsc.log" "event=stopped" "run logs stopped"
expect_grep "$tmp/fsc.log" "level=info event=stats series=0 samples=0" "final stats line"

summary
