#!/usr/bin/env python3
"""Reads docs/QUICKSTART.md for its docs test (quickstart_test.sh).

Usage: quickstart_snippets.py DOC ROOT SRC

What the document marks, each with an HTML comment on the line before a
fenced block:
  <!-- docs-test: run DIR -->         a ```sh block the test runs with sh -eu
                                      in DIR (the lab CA's openssl commands);
  <!-- docs-test: config PATH -->     a ```yaml fabricscope configuration the
                                      reader saves as PATH;
  <!-- docs-test: prometheus PATH --> a ```yaml Prometheus configuration.
Every path under /etc/ is moved below ROOT (ROOT/etc/...): the test's own
root, so the snippets keep the paths a reader types.

What it writes: each config and Prometheus snippet at its moved path; for
each file a config names that no run block made, a fixture of the kind its
key says (a secret's placeholder, a copy of SRC/examples/b300/cables.txt for
a cable plan; a certificate or key is listed for the shell to make with
openssl); the rule files a Prometheus snippet names, copied from
SRC/dashboards/ by file name. A file a config names inside a run block's
directory must have been made by that block (the document's commands and
its configs agree on the names).

What it prints (tab-separated, one line each; LINE is the document line):
  run LINE DIR FILE          run FILE (the block) in DIR, before anything else
  config LINE FILE           a fabricscope config to check-config
  pem-cert FILE | pem-key FILE
                             a certificate / key fixture to make
  env NAME                   a *_env secret the configs read
  types T1 T2 ...            the source types of all configs, sorted
  prometheus LINE FILE       a Prometheus config to promtool check config
  rules FILE                 a rule file it names, to promtool check rules
  cmd LINE KIND SUB ARGS...  a `fabricscope SUB ARGS` command the document
                             shows (KIND `block` in a ```sh block, `inline`
                             in prose); ARGS with /etc/ paths moved
  dial LINE NAME             a gnmi source dials NAME (its tls.server_name,
                             else the host of its address): the leaf's
                             certificate must carry it
  otlp-cert LINE FILE CONFIG SOURCE
                             an otlp source's TLS certificate, the config
                             and the source that name it
  otlp-dest LINE NAME        the destination the document tells a Cumulus
                             switch to export to: that certificate must
                             carry it
  error LINE SENTENCE        something the document gets wrong
The run blocks are written but not run here: the shell runs them, then calls
this script again with --after-run to place the config fixtures."""
import os
import re
import shutil
import sys

import yaml

MARK = re.compile(r"^<!--\s*docs-test:\s*(run|config|prometheus)\s+(\S+)\s*-->\s*$")
FENCE = re.compile(r"^(```|~~~)\s*([\w-]*)\s*$")
INLINE = re.compile(r"`((?:sudo\s+)?(?:\S*/)?fabricscope\s[^`]*)`")
SECRET_KEYS = {"password_file", "bearer_token_file"}
CERT_KEYS = {"ca_file", "cert_file"}
KEY_KEYS = {"key_file"}
TOKENS_KEYS = {"bearer_tokens_file"}


def moved(path, root):
    """PATH with a leading /etc/ moved below ROOT."""
    if path.startswith("/etc/"):
        return os.path.join(root, path[1:])
    return path


def move_text(text, root):
    """Every /etc/ path of a snippet's text moved below ROOT."""
    return re.sub(r"(?<![\w./-])/etc/", root.rstrip("/") + "/etc/", text)


def blocks(lines):
    """(marker kind, marker arg, info string, first body line number, body
    lines) for every fenced block; kind and arg None when unmarked."""
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2)
        kind = arg = None
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        mm = MARK.match(lines[j]) if j >= 0 else None
        if mm:
            kind, arg = mm.group(1), mm.group(2)
        body = []
        k = i + 1
        while k < len(lines) and not lines[k].startswith(fence):
            body.append(lines[k])
            k += 1
        out.append((kind, arg, info, i + 2, body))
        i = k + 1
    return out


def file_refs(node, path=""):
    """(key path, key, value) of every string value of a parsed config."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from file_refs(v, "%s.%s" % (path, k) if path else str(k))
            if isinstance(v, str):
                yield ("%s.%s" % (path, k) if path else str(k), str(k), v)
    elif isinstance(node, list):
        for n, v in enumerate(node):
            yield from file_refs(v, "%s[%d]" % (path, n))


def source_types(cfg):
    srcs = cfg.get("sources") or [] if isinstance(cfg, dict) else []
    return {s.get("type") for s in srcs if isinstance(s, dict) and s.get("type")}


def commands(text, root):
    """(kind, SUB, ARGS) of one shell line or inline span that runs
    fabricscope; None when it does not."""
    text = re.split(r"\s#|\||&&|;", text)[0].strip()
    words = text.split()
    while words and (words[0] in ("sudo", "$") or "=" in words[0]):
        words = words[1:]
    if not words or os.path.basename(words[0]) != "fabricscope" or len(words) < 2:
        return None
    return words[1], [move_text(w, root) for w in words[2:]]


DEST = re.compile(r"nv set system telemetry export otlp grpc destination (\S+)")


def tls_names(cfg, first, config, out):
    """The dial and otlp-cert lines of one parsed config."""
    srcs = (cfg.get("sources") or []) if isinstance(cfg, dict) else []
    for s in srcs:
        if not isinstance(s, dict):
            continue
        tls = s.get("tls") if isinstance(s.get("tls"), dict) else None
        if s.get("type") == "gnmi" and tls is not None:
            name = tls.get("server_name") or re.sub(r":\d+$", "", str(s.get("address", ""))).strip("[]")
            out.append("dial\t%d\t%s" % (first, name))
        if s.get("type") == "otlp" and tls is not None and tls.get("cert_file"):
            out.append("otlp-cert\t%d\t%s\t%s\t%s" % (first, tls["cert_file"], config, s.get("name")))


def main():
    args = sys.argv[1:]
    after_run = False
    if args and args[0] == "--after-run":
        after_run = True
        args = args[1:]
    doc, root, src = args
    lines = open(doc, encoding="utf-8").read().split("\n")
    out = []
    found = blocks(lines)
    run_dirs = [moved(arg, root) for kind, arg, _, _, _ in found if kind == "run"]
    types = set()
    envs = set()
    for kind, arg, info, first, body in found:
        text = "\n".join(body) + "\n"
        if kind == "run":
            if info != "sh":
                out.append("error\t%d\ta run block must be ```sh" % first)
                continue
            d = moved(arg, root)
            if not after_run:
                os.makedirs(d, exist_ok=True)
                f = os.path.join(root, "run-%d.sh" % first)
                open(f, "w").write(text)
                out.append("run\t%d\t%s\t%s" % (first, d, f))
            continue
        if kind in ("config", "prometheus"):
            if info != "yaml":
                out.append("error\t%d\ta %s block must be ```yaml" % (first, kind))
                continue
            if not after_run:
                continue
            f = moved(arg, root)
            os.makedirs(os.path.dirname(f), exist_ok=True)
            body_text = move_text(text, root)
            open(f, "w").write(body_text)
            try:
                cfg = yaml.safe_load(body_text)
            except yaml.YAMLError as e:
                out.append("error\t%d\t%s does not parse: %s" % (first, arg, str(e).replace("\n", " ")))
                continue
            if kind == "prometheus":
                out.append("prometheus\t%d\t%s" % (first, f))
                for rf in (cfg or {}).get("rule_files") or []:
                    if not rf.startswith(root):
                        out.append("error\t%d\trule file %s is not below /etc/" % (first, rf))
                        continue
                    name = os.path.join(src, "dashboards", os.path.basename(rf))
                    if not os.path.isfile(name):
                        out.append("error\t%d\trule file %s is not one of dashboards/" % (first, rf))
                        continue
                    os.makedirs(os.path.dirname(rf), exist_ok=True)
                    shutil.copyfile(name, rf)
                    out.append("rules\t%s" % rf)
                continue
            out.append("config\t%d\t%s" % (first, f))
            types |= source_types(cfg)
            tls_names(cfg, first, f, out)
            for where, key, val in file_refs(cfg):
                if key.endswith("_env"):
                    envs.add(val)
                    continue
                if not val.startswith(root):
                    continue
                made_by_run = any(val.startswith(d.rstrip("/") + "/") for d in run_dirs)
                if made_by_run:
                    if not os.path.isfile(val):
                        out.append("error\t%d\t%s names %s, which no command of the document makes"
                                   % (first, where, val[len(root):]))
                    continue
                if os.path.exists(val):
                    continue
                os.makedirs(os.path.dirname(val), exist_ok=True)
                if key in SECRET_KEYS:
                    open(val, "w").write("quickstart-placeholder-secret\n")
                elif key in TOKENS_KEYS:
                    open(val, "w").write("quickstart-placeholder-token-0123456789\n")
                elif key == "cable_plan" or where.endswith("cable_plan.file"):
                    shutil.copyfile(os.path.join(src, "examples", "b300", "cables.txt"), val)
                elif key in CERT_KEYS:
                    out.append("pem-cert\t%s" % val)
                elif key in KEY_KEYS:
                    out.append("pem-key\t%s" % val)
                else:
                    out.append("error\t%d\t%s names %s: no fixture of that kind (teach "
                               "quickstart_snippets.py)" % (first, where, val[len(root):]))
            continue
        if after_run and info == "text":
            for n, line in enumerate(body):
                m = DEST.search(line)
                if m:
                    out.append("otlp-dest\t%d\t%s" % (first + n, m.group(1)))
        if after_run and info == "sh":
            joined = []
            for n, line in enumerate(body):
                if joined and joined[-1][1].endswith("\\"):
                    joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + line.strip())
                else:
                    joined.append((first + n, line))
            for n, line in joined:
                c = commands(line, root)
                if c:
                    out.append("cmd\t%d\tblock\t%s\t%s" % (n, c[0], "\t".join(c[1])))
    if after_run:
        fenced = False
        for n, line in enumerate(lines, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for span in INLINE.findall(line):
                c = commands(span, root)
                if c:
                    out.append("cmd\t%d\tinline\t%s\t%s" % (n, c[0], "\t".join(c[1])))
        for e in sorted(envs):
            out.append("env\t%s" % e)
        out.append("types\t%s" % " ".join(sorted(t for t in types if t)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
