#!/bin/sh
# docs/QUICKSTART.md as a reader follows it, without the devices:
#   quickstart_test.sh FABRICSCOPE SOURCE_DIR PROMTOOL PYTHON3
# - its lab CA block (marked `docs-test: run DIR`) runs with sh -eu and makes
#   certificates that verify against the CA it makes;
# - every fabricscope config it shows (`docs-test: config PATH`) passes
#   `fabricscope check-config`, with the files it names: those of the CA
#   block as made, the others as fixtures (secrets, a cable plan, a
#   certificate pair made here), /etc/ moved below the test's own root
#   (quickstart_snippets.py says how);
# - its Prometheus config (`docs-test: prometheus PATH`) passes `promtool
#   check config`, the rule files it names (from dashboards/) `promtool check
#   rules`; without promtool that part is skipped (a failure under CI=true);
# - every `fabricscope COMMAND ...` it shows, in a shell block or in prose, is
#   a command whose --help names each option the line uses; the offline ones
#   (check-config, plan without --apply, version) run and exit 0, in
#   SOURCE_DIR for relative paths; a -c FILE below /etc/ is one of the
#   document's configs;
# - the names agree: the certificate the CA block makes for the leaf carries
#   the name each gnmi config dials, the OTLP receiver's certificate the
#   destination the Cumulus commands export to; the receiver starts with
#   that certificate and key (a 1 s probe on a loopback port: exit 1, nothing
#   sent, its listening line says tls=on);
# - the harness itself fails where it should: a config with an unknown key
#   fails check-config, an option no help names is not found.
set -u
bin=$1
src=$2
promtool=$3
py=$4
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null 2>&1 || skip "openssl (the document's lab CA commands)"
lib_init

doc=$src/docs/QUICKSTART.md
root=$tmp/root
snip="$(dirname "$0")/quickstart_snippets.py"
tab=$(printf '\t')
mkdir -p "$root"

# ---- the run blocks: the lab CA -------------------------------------------
"$py" "$snip" "$doc" "$root" "$src" >"$tmp/m1" 2>"$tmp/m1.err"
check "extraction (before the run blocks) works: $(cat "$tmp/m1.err")" test ! -s "$tmp/m1.err"
runs=0
ca_files=""
while IFS=$tab read -r kind line dir file; do
    [ "$kind" = run ] || continue
    runs=$((runs + 1))
    if (cd "$dir" && sh -eu "$file") >"$tmp/run.out" 2>&1; then
        ok
    else
        fail "QUICKSTART.md:$line: the block does not run"
        cat "$tmp/run.out"
    fi
    for ca in "$dir"/*ca.pem; do
        [ -f "$ca" ] && ca_files="$ca_files $ca"
    done
    for crt in "$dir"/*.crt; do
        [ -f "$crt" ] || continue
        check "QUICKSTART.md:$line: $(basename "$crt") verifies against the block's CA" \
            eval 'openssl verify -CAfile "$dir"/*ca.pem "$crt" >"$tmp/v.out" 2>&1 || { cat "$tmp/v.out"; false; }'
    done
done <"$tmp/m1"
check "the document has a run block (the lab CA)" test "$runs" -ge 1

# ---- the rest of the document --------------------------------------------
"$py" "$snip" --after-run "$doc" "$root" "$src" >"$tmp/m2" 2>"$tmp/m2.err"
check "extraction works: $(cat "$tmp/m2.err")" test ! -s "$tmp/m2.err"
while IFS=$tab read -r kind line what; do
    [ "$kind" = error ] && fail "QUICKSTART.md:$line: $what"
done <"$tmp/m2"

# Fixture certificates for configs that name one no run block made.
fx=$tmp/fx
if grep -q '^pem-' "$tmp/m2"; then
    mkdir -p "$fx"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=quickstart fixture" \
        -keyout "$fx/key.pem" -out "$fx/cert.pem" >/dev/null 2>&1 || fail "fixture certificate"
fi
while IFS=$tab read -r kind file; do
    case $kind in
    pem-cert) mkdir -p "$(dirname "$file")" && cp "$fx/cert.pem" "$file" ;;
    pem-key) mkdir -p "$(dirname "$file")" && cp "$fx/key.pem" "$file" ;;
    env) eval "$file=quickstart-placeholder-secret; export $file" ;;
    esac
done <"$tmp/m2"

# ---- configs ----------------------------------------------------------------
configs=0
first_config=""
while IFS=$tab read -r kind line file; do
    [ "$kind" = config ] || continue
    configs=$((configs + 1))
    [ -n "$first_config" ] || first_config=$file
    if "$bin" check-config "$file" >"$tmp/cc.out" 2>&1; then
        ok
    else
        fail "QUICKSTART.md:$line: check-config ${file#"$root"} exits $?"
        cat "$tmp/cc.out"
    fi
done <"$tmp/m2"
check "the document shows at least 3 fabricscope configs (got $configs)" test "$configs" -ge 3
types=$(sed -n "s/^types$tab//p" "$tmp/m2")
for t in gnmi otlp; do
    check "its configs have a $t source (got: $types)" \
        eval 'case " $types " in *" $t "*) true ;; *) false ;; esac'
done

# The harness can fail: the first config with an unknown key is refused.
if [ -n "$first_config" ]; then
    { echo "no_such_section: {}"; cat "$first_config"; } >"$tmp/broken.yaml"
    "$bin" check-config "$tmp/broken.yaml" >"$tmp/cc.out" 2>&1
    check_eq "a broken copy of the first config: check-config exit status" "$?" 2
    check "a broken copy of the first config: the error names the key" \
        grep -q "broken.yaml:1:1: no_such_section: unknown key" "$tmp/cc.out"
fi

# ---- names in the certificates --------------------------------------------------
# verify_name CERT NAME: CERT verifies against one of the run blocks' CAs for
# NAME (a DNS name, or an IP address in the subjectAltName).
verify_name() {
    case $2 in
    *[!0-9.]*) _vn_opt=-verify_hostname ;;
    *) _vn_opt=-verify_ip ;;
    esac
    for _vn_ca in $ca_files; do
        openssl verify -CAfile "$_vn_ca" "$_vn_opt" "$2" "$1" >/dev/null 2>&1 && return 0
    done
    return 1
}
# Every certificate the run blocks made, for the gnmi names.
certs=""
while IFS=$tab read -r kind line dir file; do
    [ "$kind" = run ] || continue
    for crt in "$dir"/*.crt; do
        [ -f "$crt" ] && certs="$certs $crt"
    done
done <"$tmp/m1"
while IFS=$tab read -r kind line name; do
    [ "$kind" = dial ] || continue
    found=""
    for crt in $certs; do
        verify_name "$crt" "$name" && found=$crt
    done
    check "QUICKSTART.md:$line: a certificate of the CA block carries $name, the name the gnmi source dials" \
        test -n "$found"
done <"$tmp/m2"
dests=$(awk -F"$tab" '$1 == "otlp-dest" { print $3 }' "$tmp/m2")
check "the document tells the Cumulus switch where to export" test -n "$dests"
while IFS=$tab read -r kind line cert file source; do
    [ "$kind" = otlp-cert ] || continue
    for d in $dests; do
        check "QUICKSTART.md:$line: the OTLP receiver's certificate carries $d, the switch's destination" \
            verify_name "$cert" "$d"
    done
    # The receiver starts with that certificate and key, on a loopback port.
    sed 's/"0\.0\.0\.0:[0-9]*"/"127.0.0.1:0"/' "$file" >"$tmp/loopback.yaml"
    "$bin" probe -c "$tmp/loopback.yaml" --source "$source" --seconds 1 >"$tmp/probe.out" 2>"$tmp/probe.err"
    check_eq "QUICKSTART.md:$line: a 1 s probe of $source with nothing sent: exit status" "$?" 1
    check "QUICKSTART.md:$line: $source listened with TLS on" \
        grep -Eq "event=otlp_listening transport=grpc .* tls=on " "$tmp/probe.err"
done <"$tmp/m2"

# ---- Prometheus -----------------------------------------------------------------
proms=0
while IFS=$tab read -r kind line file; do
    [ "$kind" = prometheus ] || continue
    proms=$((proms + 1))
    if [ ! -x "$promtool" ]; then
        skip_part "promtool ($promtool)"
        continue
    fi
    check "QUICKSTART.md:$line: promtool check config" \
        eval '"$promtool" check config "$file" >"$tmp/pt.out" 2>&1 || { cat "$tmp/pt.out"; false; }'
done <"$tmp/m2"
check_eq "Prometheus configs in the document" "$proms" 1
rules=0
while IFS=$tab read -r kind file; do
    [ "$kind" = rules ] || continue
    rules=$((rules + 1))
    [ -x "$promtool" ] || continue
    check "promtool check rules $(basename "$file")" \
        eval '"$promtool" check rules "$file" >"$tmp/pt.out" 2>&1 || { cat "$tmp/pt.out"; false; }'
done <"$tmp/m2"
check "the Prometheus config loads the alerting and recording rules (got $rules)" test "$rules" -ge 2

# ---- commands ---------------------------------------------------------------------
# has_option HELP_FILE OPTION: the help names OPTION as a word of its own.
has_option() {
    grep -Eq -- "(^|[[:space:][|,])$2([][[:space:]=,|]|\$)" "$1"
}
cmds=0
# Fields: kind, line, where, sub, then the arguments (tab-separated).
while IFS= read -r entry; do
    case $entry in cmd"$tab"*) ;; *) continue ;; esac
    cmds=$((cmds + 1))
    line=$(echo "$entry" | cut -f2)
    where=$(echo "$entry" | cut -f3)
    sub=$(echo "$entry" | cut -f4)
    args=$(echo "$entry" | cut -f5-)
    if ! "$bin" "$sub" --help >"$tmp/help.out" 2>&1; then
        fail "QUICKSTART.md:$line: 'fabricscope $sub' is no command (its --help fails)"
        continue
    fi
    ok
    apply=0
    prev=""
    # The arguments are tab-separated words: split on tabs only, no globbing.
    old_ifs=$IFS
    set -f
    IFS=$tab
    for a in $args; do
        case $a in
        --apply) apply=1 ;;
        esac
        case $a in
        -*) check "QUICKSTART.md:$line: fabricscope $sub --help names ${a%%=*}" has_option "$tmp/help.out" "${a%%=*}" ;;
        "$root"/*)
            if [ "$prev" = -c ] || [ "$prev" = --config ] || [ "$sub" = check-config ]; then
                check "QUICKSTART.md:$line: ${a#"$root"} is one of the document's configs" test -f "$a"
            fi
            ;;
        esac
        prev=$a
    done
    IFS=$old_ifs
    set +f
    # Inline mentions in prose are often partial (`fabricscope check-config`):
    # only the shell blocks' lines are run.
    [ "$where" = block ] || continue
    case $sub in
    check-config | plan | version)
        [ "$apply" -eq 1 ] && continue
        # shellcheck disable=SC2086
        if (cd "$src" && IFS=$tab && set -f && "$bin" "$sub" $args) >"$tmp/cmd.out" 2>&1; then
            ok
        else
            fail "QUICKSTART.md:$line: fabricscope $sub $(echo "$args" | tr '\t' ' ') exits non-zero"
            cat "$tmp/cmd.out"
        fi
        ;;
    esac
done <"$tmp/m2"
check "the document shows at least 6 fabricscope commands (got $cmds)" test "$cmds" -ge 6
# The harness can fail: an option no help names is not found.
"$bin" probe --help >"$tmp/help.out" 2>&1
check "has_option finds --seconds in probe --help" has_option "$tmp/help.out" --seconds
check "has_option does not find --no-such-option" eval '! has_option "$tmp/help.out" --no-such-option'

summary
