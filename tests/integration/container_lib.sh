# shellcheck shell=sh
# shellcheck disable=SC2154 # $tmp, $py come from the sourcing script
# Helpers of container_test.sh: reading the Containerfile without a container
# engine. Sourced after lib.sh; needs $py (python3) and $tmp.
#
# cf_parse CONTAINERFILE OUT
#     Writes one line per instruction to OUT: `STAGE<TAB>INSTRUCTION<TAB>ARGS`,
#     STAGE counting FROM lines from 1, INSTRUCTION upper case, ARGS with
#     backslash-newline continuations joined and comment lines dropped (the
#     way the Containerfile format defines them). Returns 1 on a parse error.
# cf_args STAGE INSTRUCTION
#     Prints ARGS of every such instruction of STAGE, one per line, in order
#     (from $tmp/cf.tsv).
# cf_exec_json ARGS
#     Prints the words of an exec-form (JSON array) ARGS one per line;
#     returns 1 when ARGS is not a JSON array of strings.
# cf_copy_context SRC_DIR DEST_DIR
#     Copies the build context the way `COPY . DEST` sees it: the files git
#     knows (tracked, or untracked and not ignored; every file when SRC_DIR is
#     not a git work tree) minus what .containerignore excludes (`*` `?`
#     `[...]` within a path component, `**` any number of components, `!`
#     re-includes), modes kept. Prints the number of files copied.
# cf_apt_installs ARGS
#     The package words of the `apt-get install` commands in a RUN line.

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
    if stage == 0:
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

cf_copy_context() {
    "$py" - "$1" "$2" <<'EOF'
import fnmatch, os, shutil, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
pats = []
ign = os.path.join(src, ".containerignore")
if os.path.exists(ign):
    for ln in open(ign):
        ln = ln.strip()
        if ln and not ln.startswith("#"):
            neg = ln.startswith("!")
            pats.append((neg, ln.lstrip("!").strip("/").split("/")))

def match(pp, parts):
    # pp: pattern components, parts: path components (a prefix of the path)
    if not pp:
        return not parts
    if pp[0] == "**":
        return any(match(pp[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pp[0]) and match(pp[1:], parts[1:])

def excluded(path):
    parts = path.split("/")
    out = False
    for neg, pp in pats:
        # a pattern naming a directory excludes everything below it
        if any(match(pp, parts[:n]) for n in range(1, len(parts) + 1)):
            out = not neg
    return out

if os.path.isdir(os.path.join(src, ".git")) or os.path.isfile(os.path.join(src, ".git")):
    r = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], check=True, stdout=subprocess.PIPE)
    files = [p for p in r.stdout.decode().split("\0") if p]
else:
    files = []
    for root, dirs, names in os.walk(src):
        for n in names:
            files.append(os.path.relpath(os.path.join(root, n), src))
n = 0
for p in sorted(set(files)):
    full = os.path.join(src, p)
    if excluded(p) or not os.path.lexists(full):
        continue  # ignored, or deleted but still in git's index
    os.makedirs(os.path.join(dst, os.path.dirname(p)), exist_ok=True)
    shutil.copy2(full, os.path.join(dst, p), follow_symlinks=False)
    n += 1
print(n)
EOF
}

cf_apt_installs() {
    echo "$1" | tr ';&|' '\n\n\n' | awk '
        { inst = 0
          for (i = 1; i <= NF; i++) {
              if ($i == "install" && i > 1 && $(i - 1) ~ /apt-get$/) { inst = 1; continue }
              if (inst && $i !~ /^-/) print $i
          } }'
}
