# shellcheck shell=sh
# shellcheck disable=SC2154 # $tmp, $py, $mnt, $img_* come from the sourcing script
# Helpers of container_image_test.sh: reading the Containerfile and the image
# podman built from it. Sourced after lib.sh; needs $py (python3) and $tmp.
#
# cf_parse CONTAINERFILE OUT
#     Writes one line per instruction to OUT: `STAGE<TAB>INSTRUCTION<TAB>ARGS`,
#     STAGE counting FROM lines from 1 (0: the ARGs before the first FROM),
#     INSTRUCTION upper case, ARGS with backslash-newline continuations
#     joined and comment lines dropped (the way the Containerfile format
#     defines them). Returns 1 on a parse error.
# cf_args STAGE INSTRUCTION
#     Prints ARGS of every such instruction of STAGE, one per line, in order
#     (from $tmp/cf.tsv).
# cf_exec_json ARGS
#     Prints the words of an exec-form (JSON array) ARGS one per line;
#     returns 1 when ARGS is not a JSON array of strings.
# ij EXPR
#     Evaluates the Python expression EXPR over d, the image's `podman image
#     inspect` record (from $tmp/inspect.json), and prints it: a string as
#     is, a list of strings one per line, anything else as JSON.
# img_in COMMAND...
#     Runs COMMAND inside the mounted image ($mnt) as the image would run it:
#     in the namespaces of the holder process $peer_pid (its mounts and
#     network), as the image's user ($img_user) with no_new_privs, in the
#     image's WORKDIR ($img_wd) with only the image's environment ($img_env).

cf_parse() {
    "$py" - "$1" "$2" <<'EOF'
import sys
src, out = sys.argv[1], sys.argv[2]
stage, lines, cur = 0, [], ""
with open(src) as f:
    raw = f.read().split("\n")
for ln in raw:
    s = ln.strip()
    if not cur and (not s or s.startswith("#")):
        continue
    if cur and s.startswith("#"):
        continue  # comment lines inside a continued instruction are dropped
    if s.endswith("\\"):
        cur += s[:-1].strip() + " "
        continue
    cur += s
    word, _, args = cur.partition(" ")
    word = word.upper()
    if word == "FROM":
        stage += 1
    if stage == 0 and word != "ARG":
        sys.exit("instruction before FROM: " + cur)
    lines.append("%d\t%s\t%s" % (stage, word, args.strip()))
    cur = ""
if cur:
    sys.exit("unterminated continuation at end of file")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
EOF
}

cf_args() {
    awk -F '\t' -v s="$1" -v i="$2" '$1 == s && $2 == i { print $3 }' "$tmp/cf.tsv"
}

cf_exec_json() {
    "$py" -c '
import json, sys
v = json.loads(sys.argv[1])
if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
    sys.exit(1)
print("\n".join(v))' "$1" 2>/dev/null
}

ij() {
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))[0]
v = eval(sys.argv[2])
if isinstance(v, str):
    print(v)
elif isinstance(v, list) and all(isinstance(x, str) for x in v):
    print("\n".join(v))
else:
    print(json.dumps(v, sort_keys=True))' "$tmp/inspect.json" "$1"
}

img_in() {
    # shellcheck disable=SC2086 # img_env: NAME=VALUE words
    nsenter --target "$peer_pid" --mount --net -- setpriv --no-new-privs \
        chroot --userspec="$img_user" "$mnt" env -i -C "$img_wd" $img_env "$@"
}
