#!/usr/bin/env python3
"""Checks that what comments and docs point at exists (docs/DESIGN.md,
"Comments and references").

Scanned: every C, header, CMake, shell, Python, JavaScript, protobuf, YAML,
scenario, name-list and Markdown file of the repository (build trees,
node_modules, test fixtures and fuzz corpora excluded). References and paths
are read in comments (Python docstrings included) and in all of a Markdown
file; what is refused is refused in code too.

Accepted forms, each checked:
- A heading reference: a .md file name, a comma (optional) and the heading in
  double quotes, e.g. docs/DESIGN.md, "The rate rules" or, in parentheses,
  (docs/CONFIG.md "shard"). The file is a repository path (docs/DESIGN.md,
  docs/vendors/junos.md, tests/fuzz/README.md) or a bare name, looked up beside
  the citing file, then in docs/. It must exist and the quoted text must be
  one of its Markdown `#` headings (outside code fences, backticks and
  emphasis dropped), or such a heading up to its first ": " or " (": "gnmi"
  names "gnmi: Juniper QFX5240 (Junos Evolved)". A reference may break across
  comment lines. A path whose first folder is not one of the repository's
  (content/..., a vendor's docs tree) is someone else's file, not checked.
- A Markdown link in a .md file, [text](path#anchor) or [text](#anchor): the
  path exists and the anchor is the GitHub anchor of one of its headings.
- A repository path in a comment or a doc: a word whose first folder is a
  folder of the repository (collector/engine/rate.h, tests/tools/) or of
  collector/, exporters/, docs/ or the citing file's folder (engine/rate.h,
  sim/) names a file or folder that exists, or a program the build makes from
  sources of that name (tests/sim/gnmi_sim); `*`, `<name>` and `{a,b}` are
  wildcards that must match something. A path under any other first folder
  (linux/ethtool.h, /sys/class/...) is not ours and is not checked.
- A bare file name in a comment or a doc (x.c, x.h, x.py, x.sh, x.js,
  x.cmake, and upper-case X.md) exists somewhere in the repository, unless
  written as a system include (<x.h>) or listed in EXTERNAL.

Refused outright, anywhere in a scanned file: the section sign (headings are
cited by name: numbers move); `issue` followed by a number (the tracker is not
the code's history: say why in a sentence); DESIGN or PROTOCOLS as a word of
its own (cite the file and the heading; the protocol reference the code was
written from is not in the repository: cite the vendor's own source or a
docs/vendors/*.md heading).

Usage: check_refs.py REPO_ROOT
Prints every violation as "file:line: what" and exits 1 if there is one, else
prints a one-line summary and exits 0."""
import fnmatch
import os
import re
import sys

SCANNED = (".c", ".h", ".cmake", ".sh", ".py", ".js", ".proto", ".md", ".yaml", ".yml",
           ".scn", ".names", "CMakeLists.txt", "pending_metrics.txt", "Containerfile")
SKIP_DIRS = {".git", "node_modules", "corpus", "regressions", "fixtures"}
# Bare names of files that are not ours but are cited by name: the library
# and kernel sources the code follows.
EXTERNAL = {"microhttpd.h", "sockios.h", "en_stats.c", "counters.c", "sysfs.c"}
SELF = os.path.join("tests", "tools", "check_refs.py")
# First folders of paths that were ours and are gone (the app and core
# folders of collector): a path under them is checked, so it fails.
RETIRED = {"app", "core"}

HEADING_REF = re.compile(r'(?<![\w./<>*-])([\w./-]+\.md),?\s+"([^"]{1,160})"')
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./$@<*-])((?:\.ci|[a-z_][a-z0-9_]*)/[\w./<>*{},+-]*)")
BARE = re.compile(r"(?<![\w./<>$@*-])([A-Za-z0-9_][\w-]*\.(?:c|h|py|sh|js|cmake|md))(?![\w/-])")
SECTION = re.compile("\u00a7")
ISSUE = re.compile(r"\bissues?[\s#-]*[0-9]+", re.I)
BARE_DOC = re.compile(r"\b(DESIGN|PROTOCOLS)\b(?!\.md)")
# A comment's line prefix, blanked before references are matched so that a
# reference may break across lines.
PREFIX = re.compile(r"^([ \t]*)(/\*+|\*+(?!/)|//+|#+|--)", re.M)
FENCE = re.compile(r"^\s*(```|~~~)")
ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def c_comments(text):
    """text with everything but /* */ and // comments blanked (newlines and
    positions kept)."""
    out = []
    i, n = 0, len(text)
    state = None  # None, "line", "block", or the quote character
    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if state is None:
            if two == "/*" or two == "//":
                state = "block" if two == "/*" else "line"
                out.append(two)
                i += 2
                continue
            if c in "\"'`":
                state = c
            out.append(c if c == "\n" else " ")
        elif state == "line":
            if c == "\n":
                state = None
            out.append(c)
        elif state == "block":
            if two == "*/":
                out.append(two)
                i += 2
                state = None
                continue
            out.append(c)
        else:
            if c == "\\":
                out.append("  " if text[i + 1:i + 2] != "\n" else " \n")
                i += 2
                continue
            if c == state or (c == "\n" and state != "`"):
                state = None
            out.append(c if c == "\n" else " ")
        i += 1
    return "".join(out)


def hash_comments(text, docstrings):
    """text with everything but # comments (and, for Python, triple-quoted
    strings) blanked."""
    keep = [False] * len(text)
    if docstrings:
        for m in re.finditer(r'"""[\s\S]*?"""', text):
            keep[m.start():m.end()] = [True] * (m.end() - m.start())
    pos = 0
    for line in text.split("\n"):
        quote = None
        for j, c in enumerate(line):
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (j == 0 or line[j - 1] in " \t(;") and line[j + 1:j + 2] != "{":
                keep[pos + j:pos + len(line)] = [True] * (len(line) - j)
                break
        pos += len(line) + 1
    return "".join(c if k or c == "\n" else " " for c, k in zip(text, keep))


def prose_of(rel, text):
    """The part of a file that is prose: all of a Markdown file, the
    comments of anything else."""
    if rel.endswith(".md"):
        return text
    if rel.endswith((".c", ".h", ".js", ".proto")):
        return c_comments(text)
    return hash_comments(text, rel.endswith(".py"))


def scanned(name):
    return name.endswith(SCANNED)


def walk(root):
    """Every scanned file, as a path relative to root."""
    for dp, dn, fn in os.walk(root):
        dn[:] = sorted(d for d in dn if d not in SKIP_DIRS
                       and not os.path.exists(os.path.join(dp, d, "CMakeCache.txt")))
        for f in sorted(fn):
            if scanned(f) or (f == "run" and dp.endswith(".ci")):
                yield os.path.relpath(os.path.join(dp, f), root)


def plain(text):
    """Heading text as a reader sees it: no backticks, emphasis or escapes,
    a link reduced to its text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("`", "").replace("\\", "")
    text = re.sub(r"(\*\*|__|\*)", "", text)
    return " ".join(text.split())


def slug(text):
    """GitHub's anchor for a heading."""
    s = plain(text).lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


HEADINGS = {}


def headings(path):
    """(texts, anchors) of the Markdown headings of path."""
    if path in HEADINGS:
        return HEADINGS[path]
    texts, anchors, seen = set(), set(), {}
    fenced = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else ATX.match(line)
        if not m:
            continue
        t = plain(m.group(2))
        texts.add(t)
        for sep in (": ", " ("):
            if sep in t:
                texts.add(t.split(sep)[0])
        a = slug(m.group(2))
        n = seen.get(a, 0)
        seen[a] = n + 1
        anchors.add(a if n == 0 else f"{a}-{n}")
    HEADINGS[path] = (texts, anchors)
    return HEADINGS[path]


def expand(pattern):
    """The glob patterns a cited path stands for ({a,b} expanded, <x> -> *)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if m:
        out = []
        for alt in m.group(1).split(","):
            out += expand(pattern[:m.start()] + alt + pattern[m.end():])
        return out
    return [re.sub(r"<[^<>/]*>", "*", pattern)]


def exists(root, rel):
    """Whether a cited repository path (wildcards allowed) names something."""
    for pat in expand(rel.rstrip("/")):
        if not any(c in pat for c in "*?["):
            if os.path.exists(os.path.join(root, pat)):
                return True
            continue
        parts = pat.split("/")
        found = [root]
        for part in parts:
            nxt = []
            for d in found:
                if os.path.isdir(d):
                    nxt += [os.path.join(d, e) for e in os.listdir(d) if fnmatch.fnmatch(e, part)]
            found = nxt
        if found:
            return True
    return False


class Repo:
    def __init__(self, root):
        self.root = root
        self.basenames = set()
        self.programs = set()
        self.folders = set()
        for dp, dn, fn in os.walk(root):
            dn[:] = [d for d in dn if d not in (".git", "node_modules")
                     and not os.path.exists(os.path.join(dp, d, "CMakeCache.txt"))]
            self.basenames.update(fn)
            for f in fn:
                if f == "CMakeLists.txt" or f.endswith(".cmake"):
                    text = open(os.path.join(dp, f), encoding="utf-8", errors="replace").read()
                    self.programs.update(re.findall(r"add_executable\(\s*(\w+)", text))
        self.tops = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
                     and d != ".git" and not os.path.exists(os.path.join(root, d, "CMakeCache.txt"))}
        self.bases = ["collector", "exporters", "docs"]
        for b in self.bases:
            self.folders.update(d for d in os.listdir(os.path.join(root, b))
                                if os.path.isdir(os.path.join(root, b, d)))

    def resolve_md(self, name, here):
        """The repository path of a cited .md file, None when it is missing,
        "" when it is not ours."""
        cands = [os.path.normpath(os.path.join(here, name))]
        if "/" not in name or name.split("/")[0] not in self.tops:
            cands.append(os.path.join("docs", name))
        if "/" in name:
            cands.append(name)
        for c in cands:
            if os.path.isfile(os.path.join(self.root, c)):
                return c
        if "/" in name and not self.ours(name.split("/")[0], here):
            return ""
        return None

    def ours(self, first, here):
        return (first in self.tops or first in self.folders or first in RETIRED
                or os.path.isdir(os.path.join(self.root, here, first)))

    def path_ok(self, token, here):
        """None when token is not a path of ours, else whether it exists."""
        first = token.split("/")[0]
        if not self.ours(first, here):
            return None
        for base in ["", here] + self.bases:
            rel = os.path.normpath(os.path.join(base, token)) if base else token
            if exists(self.root, rel) or self.target(rel):
                return True
        return False

    def target(self, rel):
        """Whether rel names a build output: a module whose sources (rel.c,
        rel.h) exist, or a program of the build in an existing folder."""
        if "." in os.path.basename(rel) or any(c in rel for c in "*<{"):
            return False
        if exists(self.root, rel + ".c") or exists(self.root, rel + ".h"):
            return True
        folder, name = os.path.split(rel)
        d = os.path.join(self.root, folder)
        if not os.path.isdir(d):
            return False
        if name in self.programs:
            return True
        word = re.compile(r"\b" + re.escape(name) + r"\b")
        for f in os.listdir(d):
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                if word.search(open(os.path.join(d, f), encoding="utf-8", errors="replace").read()):
                    return True
        return False


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_refused(rel, text, bad):
    """Section signs, issue numbers and bare DESIGN / PROTOCOLS, anywhere."""
    for no, line in enumerate(text.split("\n"), 1):
        if SECTION.search(line):
            bad.append(f"{rel}:{no}: section sign: cite the heading by name")
        m = ISSUE.search(line)
        if m:
            bad.append(f"{rel}:{no}: '{m.group(0)}': no issue numbers; say why in a sentence")
        m = BARE_DOC.search(line)
        if m and rel != SELF:
            bad.append(f"{rel}:{no}: bare '{m.group(1)}': cite FILE.md, \"Heading\"")


def check_heading_refs(repo, rel, text, prose, bad):
    """Heading references in prose: the cited file and heading exist."""
    here = os.path.dirname(rel)
    for m in HEADING_REF.finditer(prose):
        name, head = m.group(1), " ".join(m.group(2).split())
        target = repo.resolve_md(name, here)
        if target == "":
            continue
        if target is None:
            bad.append(f"{rel}:{line_of(text, m.start())}: {name}: no such file")
        elif head not in headings(os.path.join(repo.root, target))[0]:
            bad.append(f"{rel}:{line_of(text, m.start())}: {target} has no heading \"{head}\"")


def check_links(repo, rel, text, bad):
    """[text](path#anchor) of a Markdown file: the path and the anchor exist."""
    for m in MD_LINK.finditer(text):
        link = m.group(1)
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        tpath = os.path.normpath(os.path.join(os.path.dirname(rel), target)) if target else rel
        if not os.path.exists(os.path.join(repo.root, tpath)):
            bad.append(f"{rel}:{line_of(text, m.start())}: link to {target}: no such file")
        elif anchor and tpath.endswith(".md") and \
                anchor not in headings(os.path.join(repo.root, tpath))[1]:
            bad.append(f"{rel}:{line_of(text, m.start())}: link to {link}: no such heading anchor")


def check_paths(repo, rel, text, prose, bad):
    """Repository paths and bare file names of ours in prose: they exist."""
    for m in PATH.finditer(prose):
        token = m.group(1).rstrip(".,;:-")
        if repo.path_ok(token, os.path.dirname(rel)) is False:
            bad.append(f"{rel}:{line_of(text, m.start())}: {token}: no such file or folder")
    if rel == SELF:
        return
    for m in BARE.finditer(prose):
        name = m.group(1)
        if name in repo.basenames or name in EXTERNAL:
            continue
        if name.endswith(".md") and not re.match(r"[A-Z][A-Z_]*\.md$", name):
            continue
        bad.append(f"{rel}:{line_of(text, m.start())}: {name}: no such file in the repository")


def check_file(repo, rel, bad):
    text = open(os.path.join(repo.root, rel), encoding="utf-8", errors="replace").read()
    check_refused(rel, text, bad)
    # Code blanked and comment prefixes too (same length, so positions stay).
    prose = prose_of(rel, text)
    if not rel.endswith(".md"):
        prose = PREFIX.sub(lambda m: m.group(1) + " " * len(m.group(2)), prose)
    else:
        check_links(repo, rel, text, bad)
    check_heading_refs(repo, rel, text, prose, bad)
    check_paths(repo, rel, text, prose, bad)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    repo = Repo(root)
    bad = []
    n = 0
    for rel in walk(root):
        n += 1
        check_file(repo, rel, bad)
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"refs: {n} files, every cited file, heading and path exists; no section "
          f"signs, no issue numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
