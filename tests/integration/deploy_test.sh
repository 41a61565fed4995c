#!/bin/sh
# $tmp and friends come from lib.sh; check conditions are eval'd strings.
# shellcheck disable=SC1091,SC2016,SC2034,SC2154
# Keeps the deploy/ examples true.
#   deploy_test.sh FABRICSCOPE SOURCE_DIR PROMTOOL PYTHON3
# - deploy/prometheus/prometheus.yml passes `promtool check config`;
#   prometheus-kubernetes.yml too (Debian's promtool lacks Kubernetes service
#   discovery: then the discovery block is checked here and replaced by a
#   static target for promtool, which checks the rest);
# - deploy/systemd/fabricscope.service: the promised options are there,
#   `systemd-analyze verify` prints nothing (and does flag a misspelt key in
#   a copy), `systemd-analyze security --offline` rates it 2.0 or better;
#   skipped with a message when systemd-analyze is not installed (a
#   failure under CI, CI=true);
# - deploy/kubernetes/*.yaml: every document parses (PyYAML), the kinds are
#   Namespace, ConfigMap, Service, StatefulSet, DaemonSet; the StatefulSet's
#   replicas match its --shard N; non-root, read-only root filesystem, no
#   capabilities, scrape annotations and probes on every pod; the only
#   writable mounts are the state directory and the NIC poller's emptyDir;
#   /sys is mounted read-only where the NIC config's sysfs_root says;
# - both configs of the ConfigMap pass `fabricscope check-config`, and the
#   21 switches spread over all 3 shards (md5 hashmod, known answer).
set -u
bin=$1
src=$2
promtool=$3
py=$4
. "$(dirname "$0")/lib.sh"
lib_init
dep=$src/deploy

# --- Prometheus ----------------------------------------------------------------
if "$promtool" check config "$dep/prometheus/prometheus.yml" >"$tmp/pt.out" 2>&1; then
    ok
else
    fail "promtool check config prometheus.yml"
    cat "$tmp/pt.out"
fi
k8s_prom=$dep/prometheus/prometheus-kubernetes.yml
if "$promtool" check config "$k8s_prom" >"$tmp/pt.out" 2>&1; then
    ok
elif grep -q "field kubernetes_sd_configs not found" "$tmp/pt.out"; then
    echo "NOTE: this promtool has no Kubernetes service discovery (Debian build):" \
        "checking kubernetes_sd_configs here, the rest with promtool"
    "$py" - "$k8s_prom" "$tmp/k8s_prom.yml" >"$tmp/py.out" 2>&1 <<'EOF'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
n = 0
for job in cfg["scrape_configs"]:
    sd = job.pop("kubernetes_sd_configs", None)
    if sd is None:
        continue
    n += 1
    assert sd == [{"role": "pod", "namespaces": {"names": ["fabricscope"]}}], sd
    keep = job["relabel_configs"][0]
    assert keep == {"source_labels": ["__meta_kubernetes_pod_annotation_prometheus_io_scrape"],
                    "regex": "true", "action": "keep"}, keep
    job["static_configs"] = [{"targets": ["pod.example:9464"]}]
assert n == 1, "want one kubernetes_sd job, got %d" % n
yaml.safe_dump(cfg, open(sys.argv[2], "w"))
EOF
    if [ $? -ne 0 ]; then
        fail "prometheus-kubernetes.yml: Kubernetes discovery block"
        cat "$tmp/py.out"
    fi
    check "promtool check config prometheus-kubernetes.yml (discovery replaced)" \
        eval '"$promtool" check config "$tmp/k8s_prom.yml" >"$tmp/pt.out" 2>&1 || { cat "$tmp/pt.out"; false; }'
else
    fail "promtool check config prometheus-kubernetes.yml"
    cat "$tmp/pt.out"
fi

# --- systemd -------------------------------------------------------------------
unit=$dep/systemd/fabricscope.service
for want in 'User=fabricscope' 'StateDirectory=fabricscope' 'ProtectSystem=strict' \
    'NoNewPrivileges=yes' 'ExecReload=/bin/kill -HUP $MAINPID' 'CapabilityBoundingSet=' \
    'ExecStart=/usr/local/bin/fabricscope run -c /etc/fabricscope/fabricscope.yaml'; do
    check "unit has '$want'" grep -qxF "$want" "$unit"
done
if command -v systemd-analyze >/dev/null 2>&1; then
    # verify wants ExecStart's binary to exist: point it at the built one.
    mkdir -p "$tmp/unit" "$tmp/bad"
    sed "s#/usr/local/bin/fabricscope#$bin#" "$unit" >"$tmp/unit/fabricscope.service"
    systemd-analyze verify "$tmp/unit/fabricscope.service" >"$tmp/sa.out" 2>&1
    check_eq "systemd-analyze verify: status" "$?" 0
    check "systemd-analyze verify prints nothing (got: $(head -c 300 "$tmp/sa.out"))" \
        eval '[ ! -s "$tmp/sa.out" ]'
    sed 's/^ProtectSystem=strict$/ProtectSystm=strict/' "$tmp/unit/fabricscope.service" \
        >"$tmp/bad/fabricscope.service"
    check "systemd-analyze verify flags a misspelt key (the check above can fail)" \
        eval 'systemd-analyze verify "$tmp/bad/fabricscope.service" 2>&1 | grep -q ProtectSystm'
    exposure=$(systemd-analyze security --offline=true "$tmp/unit/fabricscope.service" 2>&1 |
        sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    check "systemd-analyze security exposure $exposure <= 2.0" \
        awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 <= 2.0) }'
else
    skip_part "systemd-analyze (Debian package systemd; the unit is checked for its options only)"
fi

# --- Kubernetes -----------------------------------------------------------------
if ! "$py" -c 'import yaml' 2>/dev/null; then
    fail "python3 has no yaml module (Debian: apt-get install python3-yaml)"
    summary
    exit 1
fi
"$py" - "$dep/kubernetes" "$tmp" >"$tmp/k8s.out" 2>&1 <<'EOF'
import glob, hashlib, os, sys, yaml
kdir, out = sys.argv[1], sys.argv[2]
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
docs = []
for f in sorted(glob.glob(os.path.join(kdir, "*.yaml"))):
    for d in yaml.safe_load_all(open(f)):
        if d is not None:
            docs.append(d)
kinds = sorted(d["kind"] for d in docs)
check(kinds == ["ConfigMap", "DaemonSet", "Namespace", "Service", "StatefulSet"],
      "kinds: %s" % kinds)
by = {d["kind"]: d for d in docs}
for d in docs:
    check(d["metadata"].get("namespace", "fabricscope") == "fabricscope" or d["kind"] == "Namespace",
          "%s in namespace fabricscope" % d["kind"])
cm = by["ConfigMap"]
conf = cm["data"]

for kind in ("StatefulSet", "DaemonSet"):
    spec = by[kind]["spec"]
    tpl = spec["template"]
    check(spec["selector"]["matchLabels"].items() <= tpl["metadata"]["labels"].items(),
          kind + ": selector matches the template")
    ann = tpl["metadata"].get("annotations", {})
    check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == "9464"
          and ann.get("prometheus.io/path") == "/metrics", kind + ": scrape annotations")
    pod = tpl["spec"]
    psc = pod.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 10001,
          kind + ": runAsNonRoot, uid 10001")
    vols = {v["name"]: v for v in pod["volumes"]}
    (c,) = pod["containers"]
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, kind + ": readOnlyRootFilesystem")
    check(sc.get("allowPrivilegeEscalation") is False, kind + ": allowPrivilegeEscalation false")
    check(sc.get("capabilities") == {"drop": ["ALL"]}, kind + ": drops all capabilities")
    check(c["livenessProbe"]["httpGet"]["path"] == "/-/healthy", kind + ": liveness /-/healthy")
    check(c["readinessProbe"]["httpGet"]["path"] == "/-/ready", kind + ": readiness /-/ready")
    check({"name": "metrics", "containerPort": 9464} in c["ports"], kind + ": port 9464")
    claims = {t["metadata"]["name"] for t in spec.get("volumeClaimTemplates", [])}
    for m in c["volumeMounts"]:
        v = vols.get(m["name"])
        check(v is not None or m["name"] in claims, kind + ": volume " + m["name"])
        if v and "configMap" in v:
            check(v["configMap"]["name"] == cm["metadata"]["name"] and m.get("subPath") in conf,
                  kind + ": config key " + str(m.get("subPath")))
        if not m.get("readOnly"):
            check(m["mountPath"] in ("/var/lib/fabricscope", "/run/fabricscope"),
                  kind + ": writable mount " + m["mountPath"])
    if kind == "StatefulSet":
        args = c["args"]
        i = args.index("--shard")
        n = int(args[i + 1].split("/")[1])
        check(args[i + 1] == "$(ORDINAL)/%d" % n, "StatefulSet: --shard $(ORDINAL)/N")
        check(spec["replicas"] == n == 3, "StatefulSet: 3 replicas = N of --shard")
        env = {e["name"]: e for e in c["env"]}
        check(env["ORDINAL"]["valueFrom"]["fieldRef"]["fieldPath"]
              == "metadata.labels['apps.kubernetes.io/pod-index']", "StatefulSet: ORDINAL")
        check(args[:3] == ["run", "-c", "/etc/fabricscope/switches.yaml"], "StatefulSet: run -c")
        check(spec["serviceName"] == by["Service"]["metadata"]["name"], "StatefulSet: service")
    else:
        check(pod.get("hostNetwork") is True, "DaemonSet: hostNetwork")
        sys_m = [m for m in c["volumeMounts"] if vols.get(m["name"], {}).get("hostPath", {}).get("path") == "/sys"]
        check(len(sys_m) == 1 and sys_m[0].get("readOnly") is True, "DaemonSet: /sys read-only")
        nic = yaml.safe_load(conf["nic.yaml"])
        root = nic["sources"][0]["sysfs_root"]
        check(sys_m and sys_m[0]["mountPath"] == root.rstrip("/") + "/sys",
              "DaemonSet: /sys mounted at sysfs_root/sys")
        check("NODE_NAME" in conf["nic.yaml"] and "NODE_NAME" in c["command"][-1],
              "DaemonSet: NODE_NAME substituted at start")
        plan = [m for m in c["volumeMounts"] if m.get("subPath") == "cables.txt"]
        check(len(plan) == 1 and plan[0]["mountPath"] == nic["topology"]["cable_plan"]["file"],
              "DaemonSet: cables.txt mounted where nic.yaml's cable plan is")
        check("cables.txt" in conf, "ConfigMap: cables.txt")

# The configs for check-config, and the shard spread (Prometheus hashmod:
# md5, the digest's last 8 bytes big-endian, modulo N).
open(os.path.join(out, "switches.yaml"), "w").write(conf["switches.yaml"])
open(os.path.join(out, "nic.yaml"), "w").write(conf["nic.yaml"].replace("NODE_NAME", "b300-n01"))
open(os.path.join(out, "cables.txt"), "w").write(conf["cables.txt"])
sw = yaml.safe_load(conf["switches.yaml"])
devs = [d["name"] for d in sw["topology"]["devices"]]
check(len(devs) == 21, "21 switches in the topology, got %d" % len(devs))
gnmi = [s["name"] for s in sw["sources"] if s["type"] == "gnmi"]
check(len(gnmi) == 14 and set(gnmi) <= set(devs), "14 gNMI leaves")
spread = [0, 0, 0]
for d in devs:
    spread[int.from_bytes(hashlib.md5(d.encode()).digest()[8:], "big") % 3] += 1
print("shard spread of the 21 switches:", spread)
check(min(spread) > 0, "every shard gets switches: %s" % spread)
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
EOF
k8s_rc=$?
cat "$tmp/k8s.out"
check_eq "Kubernetes manifests (failures above)" "$k8s_rc" 0
check "switches.yaml passes check-config" \
    eval 'FABRICSCOPE_GNMI_PASSWORD=dummy "$bin" check-config --no-files "$tmp/switches.yaml" >"$tmp/cc.out" 2>&1 ||
          { cat "$tmp/cc.out"; false; }'
check "nic.yaml passes check-config" \
    eval '"$bin" check-config --no-files "$tmp/nic.yaml" >"$tmp/cc.out" 2>&1 || { cat "$tmp/cc.out"; false; }'
# The shipped cable plan parses with the shipped layout: the same config with
# its files where this test wrote them (the node's /sys is this host's).
sed -e "s|/etc/fabricscope/cables.txt|$tmp/cables.txt|" -e "s|sysfs_root: /host|sysfs_root: /|" \
    "$tmp/nic.yaml" >"$tmp/nic-local.yaml"
check "nic.yaml's files (cables.txt parsed) pass check-config" \
    eval '"$bin" check-config "$tmp/nic-local.yaml" >"$tmp/cc.out" 2>&1 || { cat "$tmp/cc.out"; false; }'
check "the container's config passes check-config" \
    eval '"$bin" check-config --no-files "$dep/container/fabricscope.yaml" >"$tmp/cc.out" 2>&1 ||
          { cat "$tmp/cc.out"; false; }'
summary
