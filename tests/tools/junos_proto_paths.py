#!/usr/bin/env python3
"""Writes a Junos vendor name set (tests/vendor/README.md) from Juniper's protos.

Juniper publishes, per release, the protobuf messages its telemetry sensors
send (github.com/Juniper/telemetry, <release>/protos/*.proto). A render proto
nests one message per YANG node under the message that extends
JuniperNetworksSensors; from 24.4R1-EVO on most fields also carry the gNMI
path in a trailing `// /path` comment. The gNMI name of a leaf is:

- the `// /path` comment of its field, where the proto has one;
- else the field names from the root down, '_' written '-' (the YANG
  spelling), under '/' + the first word of the root message's name
  (`qos_227` -> /qos, `junos` -> /junos) or its `// /path` comment.

On 24.4R1-EVO, where both exist, the second rule gives the comment's path
for every OpenConfig and junos-state leaf of the render protos read here;
it differs only for Juniper-native leaves spelled with '_' (oc_optics_render
`snmp_if_index`), which no set here uses.

Usage (the git directory of a Juniper/telemetry clone, a release folder, the
proto files, each optionally limited to a subtree):
  junos_proto_paths.py GIT_DIR RELEASE_DIR TITLE FILE[:SUBTREE]... > out.names
The output: header (title, each of its lines a comment; one `# source:` line per file, the rule above),
then one name per line, sorted, with the files that hold it as the note.
"""
import re
import subprocess
import sys

TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"[^"]*"|[A-Za-z_][A-Za-z0-9_.]*|\d+|\S', re.S)
SCALARS = {
    'double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32',
    'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes'
}


def comment_path(tok):
    """The path of a `// /path ...` comment token, or None."""
    if tok is None or not tok.startswith('//'):
        return None
    words = tok[2:].split()
    return words[0] if words and words[0].startswith('/') else None


class Proto:
    """Messages (by dotted name) with their fields, and the sensor roots."""

    def __init__(self, text):
        self.messages = {}  # name -> {'fields': [(type, name, comment)], 'comment': str}
        self.roots = []
        self._parse(TOKEN.findall(text))

    def _parse(self, toks):
        scope, blocks, i = [], [], 0

        def after(j):
            return toks[j] if j < len(toks) else None

        while i < len(toks):
            t = toks[i]
            if t.startswith('/*') or t.startswith('//'):
                i += 1
            elif t == 'message':
                scope.append(toks[i + 1])
                j = toks.index('{', i)
                self.messages['.'.join(scope)] = {'fields': [], 'comment': comment_path(after(j + 1))}
                blocks.append('message')
                i = j + 1
            elif t in ('enum', 'oneof', 'extend', 'service'):
                j = toks.index('{', i)
                blocks.append(t + ' ' + toks[i + 1])
                i = j + 1
            elif t == '}':
                if blocks.pop() == 'message':
                    scope.pop()
                i += 1
            elif t in ('optional', 'repeated', 'required'):
                ftype, fname = toks[i + 1], toks[i + 2]
                j = toks.index(';', i)
                if blocks and blocks[-1] == 'extend JuniperNetworksSensors':
                    self.roots.append(ftype)
                elif scope and blocks and blocks[-1] == 'message':
                    self.messages['.'.join(scope)]['fields'].append(
                        (ftype, fname, comment_path(after(j + 1))))
                i = j + 1
            else:
                i += 1

    def resolve(self, scope, ftype):
        """The message a field type names, searched from the innermost scope out."""
        parts = scope.split('.') if scope else []
        while True:
            cand = '.'.join(parts + [ftype])
            if cand in self.messages:
                return cand
            if not parts:
                return None
            parts.pop()

    def leaves(self):
        """(gNMI path, via comment) of every scalar field under every root."""
        out = []
        for root in self.roots:
            msg = self.resolve('', root)
            if msg is None:
                continue
            top = self.messages[msg]['comment'] or '/' + msg.split('.')[-1].split('_')[0]
            self._walk(msg, top, out, 0)
        return out

    def _walk(self, msg, path, out, depth):
        if depth > 40:
            raise ValueError('message nesting too deep at ' + path)
        for ftype, fname, comment in self.messages[msg]['fields']:
            derived = path + '/' + fname.replace('_', '-')
            sub = None if ftype in SCALARS else self.resolve(msg, ftype)
            if sub is None:
                out.append(comment or derived)
            else:
                self._walk(sub, derived, out, depth + 1)


def git(git_dir, *args):
    return subprocess.run(['git', '--git-dir', git_dir] + list(args), check=True,
                          capture_output=True, text=True).stdout


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    git_dir, release_dir, title, specs = argv[1], argv[2].rstrip('/'), argv[3], argv[4:]
    commit = git(git_dir, 'rev-parse', 'HEAD').strip()
    release = release_dir.split('/')[-1]
    names = {}
    sources = []
    for spec in specs:
        fname, _, subtree = spec.partition(':')
        path = release_dir + '/protos/' + fname
        proto = Proto(git(git_dir, 'show', commit + ':' + path))
        kept = [p for p in proto.leaves() if not subtree or p.startswith(subtree + '/')]
        if not kept:
            raise SystemExit('%s: no leaf%s' % (path, ' under ' + subtree if subtree else ''))
        for p in kept:
            names.setdefault(p, []).append(fname.split('/')[-1])
        sources.append('# source: Juniper/telemetry %s @ %s (commit %s)%s' %
                       (path, release, commit[:12], ', leaves under ' + subtree if subtree else ''))
    for line in title.split('\n'):
        print('# ' + line)
    print('\n'.join(sources))
    print('# Names: the `// /path` comment of each leaf where the proto has one, else the')
    print("# field names from the sensor's root message down, '_' written '-'")
    print('# Generated by tests/tools/junos_proto_paths.py GIT_DIR %s %s' %
          (release_dir, ' '.join(specs)))
    width = max(len(p) for p in names)
    for p in sorted(names):
        print('%-*s  %s' % (width, p, ','.join(sorted(set(names[p])))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
