#!/usr/bin/python3
"""nic_fixture: a sysfs fixture tree of DGX B300 ConnectX-8 NICs for tests.

It writes the files the NIC poller reads (docs/vendors/mlx5.md) under
ROOT/sys, so a reader pointed at the sysfs root ROOT/sys (and node_exporter at
--path.sysfs=ROOT/sys) sees N mlx5 devices, and advances their counters step
by step with exact integer arithmetic. Python 3 standard library only.

CLI
  nic_fixture.py init ROOT [--devices N] [--gbps G] [--cnp-rate R]
                           [--oos-rate R] [--lifespan MS] [--speed-mbps M]
                           [--ifname-format FMT]
  nic_fixture.py step ROOT [--dt-ms MS] [--device K] [--gbps G]
                           [--cnp-rate R] [--oos-rate R]
                           [--reset K] [--near-wrap K] [--set K:NAME=V]
                           [--add K:NAME=D] [--cnp-storm K[:RATE]]
                           [--freeze K] [--degrade-pcie K] [--restore-pcie K]
                           [--link-down K] [--link-up K] [--aer K:KIND:LABEL=N]
  nic_fixture.py show ROOT      prints the state (JSON) on stdout

init (ROOT must be empty or absent) creates, for device K = 0..N-1 (N <= 64):
  sys/class/infiniband/mlx5_K/ports/1/hw_counters/<tests/vendor/mlx5/hw_counters.names>, lifespan
  sys/class/infiniband/mlx5_K/ports/1/counters/<IB PMA names>
  sys/class/infiniband/mlx5_K/ports/1/{state,phys_state,rate,link_layer}
  sys/class/infiniband/mlx5_K/{fw_ver,board_id,hca_type}   (placeholder text)
  sys/class/infiniband/mlx5_K/device -> ../../../bus/pci/devices/BDF
  sys/class/net/IF/statistics/<the 24 netdev statistics>
  sys/class/net/IF/{operstate,speed,carrier,mtu,address}
  sys/class/net/IF/device -> ../../../bus/pci/devices/BDF
  sys/bus/pci/devices/BDF/{current,max}_link_{speed,width}   64.0 GT/s PCIe x16
  sys/bus/pci/devices/BDF/aer_dev_{correctable,fatal,nonfatal}   all 0
  nic_fixture.json   the state (true counter values, rates, time)
with IF = FMT.format(n=K+1, k=K) (default FMT "ens{n}f0np0", as
examples/fabric.yaml names B300 ports) and BDF = 0000:XX:00.0, XX = 0x20+K in
hex. Every counter starts at 0; `lifespan` is MS (default 10); speed M Mb/s
(default 400000). Base rates per device: G Gb/s of data each way (default
100), R CNPs per second (default 0), R out_of_sequence per second (default 0).

step advances the fixture clock by MS (default 100) and applies, in order:
  1. --reset K: every counter of device K becomes 0 and gets no increment in
     this step (a driver reload / FW reset: 64-bit counters "decrease").
  2. --near-wrap K: out_of_sequence and packet_seq_err of K become 2^32-100.
  3. --set K:NAME=V: counter NAME of device K becomes V.
  4. Rate increments for every device not reset in this step, with
     --gbps/--cnp-rate/--oos-rate overriding the base rates for this step
     only (for device --device K alone when given, else for all):
       B = floor(G * 125000 * MS)       data bytes each way
       P = floor(B / 4096)              packets (4096-byte frames)
       C = floor(R_cnp * MS / 1000)     O = floor(R_oos * MS / 1000)
       statistics: rx_bytes, tx_bytes += B; rx_packets, tx_packets += P
       counters:   port_xmit_data, port_rcv_data += floor(B / 4) (4-byte words);
                   port_xmit_packets, port_rcv_packets,
                   unicast_xmit_packets, unicast_rcv_packets += P
       hw_counters: rx_write_requests += P;
                   np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets += C;
                   out_of_sequence, packet_seq_err += O
  5. --cnp-storm K[:RATE] (RATE default 100000 per second): np_cnp_sent,
     rp_cnp_handled and np_ecn_marked_roce_packets of K += floor(RATE*MS/1000).
     --add K:NAME=D: counter NAME of K += D.
  6. --degrade-pcie K: current_link_speed "32.0 GT/s PCIe", current_link_width 8
     (max stays "64.0 GT/s PCIe" x16); --restore-pcie K undoes it.
     --link-down K: operstate "down", speed "-1", carrier 0; --link-up K undoes.
     --aer K:KIND:LABEL=N (KIND cor|fatal|nonfatal): LABEL += N and the
     file's TOTAL_ERR_* += N (one reported message).
  7. Files are rewritten in place (same inode, so open descriptors see the
     new text), except hw_counters of a device given --freeze K: they keep
     their previous text, as the RDMA core's `lifespan` cache does, and show
     the true (accumulated) values at the next step without --freeze.
Counters of hw_counters 32 bits wide (the Q counters, docs/vendors/mlx5.md)
wrap modulo 2^32; all others modulo 2^64. NAME in --set/--add is looked up in
hw_counters, then counters, then statistics. K and the options taking K may
be repeated. A step is not atomic against a concurrent reader: tests step
between polls.

Exit status: 0, or 2 with a message on stderr for a usage error.
"""
import argparse
import json
import os
import sys
from fractions import Fraction

HW32 = [
    "rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect",
    "out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err",
    "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
    "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
    "resp_cqe_flush_error", "req_cqe_flush_error", "req_remote_invalid_request",
    "req_remote_access_errors", "resp_remote_access_errors",
    "req_transport_retries_exceeded", "req_rnr_retries_exceeded", "roce_adp_retrans",
    "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
    "roce_slow_restart_trans",
]
HW64 = [
    "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
    "rx_icrc_encapsulated",
]
PMA = [
    "port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
    "unicast_rcv_packets", "unicast_xmit_packets", "multicast_rcv_packets",
    "multicast_xmit_packets", "port_rcv_errors", "port_xmit_discards", "port_xmit_wait",
    "symbol_error", "link_error_recovery", "link_downed",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors", "port_rcv_constraint_errors",
    "local_link_integrity_errors", "excessive_buffer_overrun_errors", "VL15_dropped",
]
STATS = [
    "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors", "tx_errors",
    "rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors",
    "rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors",
    "rx_missed_errors", "rx_nohandler", "rx_compressed", "tx_aborted_errors",
    "tx_carrier_errors", "tx_fifo_errors", "tx_heartbeat_errors", "tx_window_errors",
    "tx_compressed",
]
AER = {
    "cor": ("aer_dev_correctable", "TOTAL_ERR_COR", [
        "Receiver Error", "Bad TLP", "Bad DLLP", "RELAY_NUM Rollover",
        "Replay Timer Timeout", "Advisory Non-Fatal", "Corrected Internal Error",
        "Header Log Overflow"]),
    "fatal": ("aer_dev_fatal", "TOTAL_ERR_FATAL", None),
    "nonfatal": ("aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", None),
}
UNCOR = [
    "Undefined", "Data Link Protocol", "Surprise Down Error", "Poisoned TLP",
    "Flow Control Protocol", "Completion Timeout", "Completer Abort",
    "Unexpected Completion", "Receiver Overflow", "Malformed TLP", "ECRC",
    "Unsupported Request", "ACS Violation", "Uncorrectable Internal Error",
    "MC Blocked TLP", "AtomicOp Egress Blocked", "TLP Prefix Blocked Error",
    "Poisoned TLP Egress Blocked",
]
PCIE_MAX = ("64.0 GT/s PCIe", 16)
PCIE_DEGRADED = ("32.0 GT/s PCIe", 8)
STATE_FILE = "nic_fixture.json"
MAX_DEVICES = 64


def die(msg):
    sys.stderr.write("nic_fixture: %s\n" % msg)
    sys.exit(2)


def dirs_of(dev):
    ib = os.path.join("sys/class/infiniband", dev["rdma"])
    return {
        "hw_counters": os.path.join(ib, "ports/1/hw_counters"),
        "counters": os.path.join(ib, "ports/1/counters"),
        "statistics": os.path.join("sys/class/net", dev["netdev"], "statistics"),
    }


def write_in_place(path, text):
    """Rewrites the file keeping its inode (readers hold descriptors)."""
    data = text.encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def width_of(group, name):
    return 32 if group == "hw_counters" and name in HW32 else 64


def aer_text(kind, values):
    fname, total_label, _ = AER[kind]
    lines = ["%s %d" % (label, v) for label, v in values["entries"]]
    lines.append("%s %d" % (total_label, values["total"]))
    return "\n".join(lines) + "\n"


def write_device(root, dev, skip_hw=False):
    for group, rel in dirs_of(dev).items():
        if group == "hw_counters" and skip_hw:
            continue
        for name, v in dev["counters"][group].items():
            write_in_place(os.path.join(root, rel, name), "%d\n" % v)
    net = os.path.join(root, "sys/class/net", dev["netdev"])
    up = dev["link_up"]
    write_in_place(os.path.join(net, "operstate"), "up\n" if up else "down\n")
    write_in_place(os.path.join(net, "speed"), "%d\n" % (dev["speed_mbps"] if up else -1))
    write_in_place(os.path.join(net, "carrier"), "1\n" if up else "0\n")
    pci = os.path.join(root, "sys/bus/pci/devices", dev["bdf"])
    cur = PCIE_DEGRADED if dev["pcie_degraded"] else PCIE_MAX
    write_in_place(os.path.join(pci, "current_link_speed"), cur[0] + "\n")
    write_in_place(os.path.join(pci, "current_link_width"), "%d\n" % cur[1])
    write_in_place(os.path.join(pci, "max_link_speed"), PCIE_MAX[0] + "\n")
    write_in_place(os.path.join(pci, "max_link_width"), "%d\n" % PCIE_MAX[1])
    for kind in AER:
        write_in_place(os.path.join(pci, AER[kind][0]), aer_text(kind, dev["aer"][kind]))


def cmd_init(a):
    root = a.root
    if os.path.exists(root) and os.listdir(root):
        die("%s exists and is not empty" % root)
    if not 1 <= a.devices <= MAX_DEVICES:
        die("--devices must be 1..%d" % MAX_DEVICES)
    os.makedirs(root, exist_ok=True)
    devices = []
    for k in range(a.devices):
        dev = {
            "rdma": "mlx5_%d" % k,
            "netdev": a.ifname_format.format(n=k + 1, k=k),
            "bdf": "0000:%02x:00.0" % (0x20 + k),
            "gbps": a.gbps, "cnp_rate": a.cnp_rate, "oos_rate": a.oos_rate,
            "speed_mbps": a.speed_mbps, "link_up": True, "pcie_degraded": False,
            "counters": {
                "hw_counters": {n: 0 for n in HW32 + HW64},
                "counters": {n: 0 for n in PMA},
                "statistics": {n: 0 for n in STATS},
            },
            "aer": {kind: {"entries": [[lb, 0] for lb in (AER[kind][2] or UNCOR)], "total": 0}
                    for kind in AER},
        }
        for rel in dirs_of(dev).values():
            os.makedirs(os.path.join(root, rel))
        ib = os.path.join(root, "sys/class/infiniband", dev["rdma"])
        net = os.path.join(root, "sys/class/net", dev["netdev"])
        pci = os.path.join(root, "sys/bus/pci/devices", dev["bdf"])
        os.makedirs(pci)
        link = os.path.join("../../../bus/pci/devices", dev["bdf"])
        os.symlink(link, os.path.join(ib, "device"))
        os.symlink(link, os.path.join(net, "device"))
        write_in_place(os.path.join(ib, "ports/1/hw_counters/lifespan"), "%d\n" % a.lifespan)
        for name, text in (("state", "4: ACTIVE"), ("phys_state", "5: LinkUp"),
                           ("rate", "400 Gb/sec (4X XDR)"), ("link_layer", "Ethernet")):
            write_in_place(os.path.join(ib, "ports/1", name), text + "\n")
        for name, text in (("fw_ver", "40.0.0"), ("board_id", "FSC_FIXTURE"),
                           ("hca_type", "FIXTURE")):
            write_in_place(os.path.join(ib, name), text + "\n")
        write_in_place(os.path.join(net, "mtu"), "9000\n")
        write_in_place(os.path.join(net, "address"), "02:fc:00:00:%02x:00\n" % k)
        write_device(root, dev)
        devices.append(dev)
    save(root, {"t_ms": 0, "steps": 0, "lifespan": a.lifespan, "devices": devices})


def load(root):
    try:
        with open(os.path.join(root, STATE_FILE)) as f:
            return json.load(f)
    except OSError as e:
        die("cannot read the fixture state in %s: %s" % (root, e))


def save(root, st):
    tmp = os.path.join(root, STATE_FILE + ".tmp")
    with open(tmp, "w") as f:
        json.dump(st, f, indent=1, sort_keys=True)
    os.replace(tmp, os.path.join(root, STATE_FILE))


def dev_index(st, text):
    try:
        k = int(text)
    except ValueError:
        die("not a device index: %r" % text)
    if not 0 <= k < len(st["devices"]):
        die("no device %d (the fixture has %d)" % (k, len(st["devices"])))
    return k


def split_kv(st, spec):
    """K:NAME=V -> (k, name, int v)"""
    head, sep, val = spec.partition("=")
    k, sep2, name = head.partition(":")
    if not sep or not sep2 or not name:
        die("expected K:NAME=VALUE, got %r" % spec)
    try:
        v = int(val)
    except ValueError:
        die("not an integer in %r" % spec)
    return dev_index(st, k), name, v


def find_counter(dev, name):
    for group in ("hw_counters", "counters", "statistics"):
        if name in dev["counters"][group]:
            return group
    die("no counter %r" % name)


def bump(dev, group, name, delta):
    mod = 1 << width_of(group, name)
    dev["counters"][group][name] = (dev["counters"][group][name] + delta) % mod


def per_step(rate, dt_ms):
    return int(Fraction(str(rate)) * dt_ms / 1000)


def cmd_step(a):
    root = a.root
    st = load(root)
    if a.dt_ms < 0:
        die("--dt-ms must be >= 0")
    devs = st["devices"]
    only = dev_index(st, a.device) if a.device is not None else None
    reset = {dev_index(st, k) for k in a.reset}
    frozen = {dev_index(st, k) for k in a.freeze}
    st["t_ms"] += a.dt_ms
    st["steps"] += 1

    for k in sorted(reset):
        for group in devs[k]["counters"].values():
            for name in group:
                group[name] = 0
    for k in a.near_wrap:
        d = devs[dev_index(st, k)]
        for name in ("out_of_sequence", "packet_seq_err"):
            d["counters"]["hw_counters"][name] = (1 << 32) - 100
    for spec in a.set:
        k, name, v = split_kv(st, spec)
        group = find_counter(devs[k], name)
        devs[k]["counters"][group][name] = v % (1 << width_of(group, name))

    for k, d in enumerate(devs):
        if k in reset:
            continue
        override = only is None or only == k
        gbps = a.gbps if a.gbps is not None and override else d["gbps"]
        cnp = a.cnp_rate if a.cnp_rate is not None and override else d["cnp_rate"]
        oos = a.oos_rate if a.oos_rate is not None and override else d["oos_rate"]
        b = int(Fraction(str(gbps)) * 125000 * a.dt_ms)
        p = b // 4096
        c = per_step(cnp, a.dt_ms)
        o = per_step(oos, a.dt_ms)
        for name in ("rx_bytes", "tx_bytes"):
            bump(d, "statistics", name, b)
        for name in ("rx_packets", "tx_packets"):
            bump(d, "statistics", name, p)
        for name in ("port_xmit_data", "port_rcv_data"):
            bump(d, "counters", name, b // 4)
        for name in ("port_xmit_packets", "port_rcv_packets", "unicast_xmit_packets",
                     "unicast_rcv_packets"):
            bump(d, "counters", name, p)
        bump(d, "hw_counters", "rx_write_requests", p)
        for name in ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"):
            bump(d, "hw_counters", name, c)
        for name in ("out_of_sequence", "packet_seq_err"):
            bump(d, "hw_counters", name, o)

    for spec in a.cnp_storm:
        k, _, rate = spec.partition(":")
        k = dev_index(st, k)
        try:
            n = per_step(rate or 100000, a.dt_ms)
        except ValueError:
            die("not a rate in --cnp-storm %r" % spec)
        for name in ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets"):
            bump(devs[k], "hw_counters", name, n)
    for spec in a.add:
        k, name, v = split_kv(st, spec)
        bump(devs[k], find_counter(devs[k], name), name, v)

    for k in a.degrade_pcie:
        devs[dev_index(st, k)]["pcie_degraded"] = True
    for k in a.restore_pcie:
        devs[dev_index(st, k)]["pcie_degraded"] = False
    for k in a.link_down:
        devs[dev_index(st, k)]["link_up"] = False
    for k in a.link_up:
        devs[dev_index(st, k)]["link_up"] = True
    for spec in a.aer:
        parts = spec.split(":", 2)
        if len(parts) != 3 or parts[1] not in AER:
            die("expected K:cor|fatal|nonfatal:LABEL=N, got %r" % spec)
        k = dev_index(st, parts[0])
        label, _, val = parts[2].rpartition("=")
        try:
            n = int(val)
        except ValueError:
            die("not an integer in %r" % spec)
        aer = devs[k]["aer"][parts[1]]
        for entry in aer["entries"]:
            if entry[0] == label:
                entry[1] += n
                break
        else:
            die("no AER label %r in %s" % (label, parts[1]))
        aer["total"] += n

    for k, d in enumerate(devs):
        write_device(root, d, skip_hw=k in frozen and k not in reset)
    save(root, st)


def main():
    ap = argparse.ArgumentParser(prog="nic_fixture", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("init")
    p.add_argument("root")
    p.add_argument("--devices", type=int, default=1)
    p.add_argument("--gbps", default="100")
    p.add_argument("--cnp-rate", default="0")
    p.add_argument("--oos-rate", default="0")
    p.add_argument("--lifespan", type=int, default=10)
    p.add_argument("--speed-mbps", type=int, default=400000)
    p.add_argument("--ifname-format", default="ens{n}f0np0")
    p = sub.add_parser("step")
    p.add_argument("root")
    p.add_argument("--dt-ms", type=int, default=100)
    p.add_argument("--device")
    p.add_argument("--gbps")
    p.add_argument("--cnp-rate")
    p.add_argument("--oos-rate")
    for opt in ("--reset", "--near-wrap", "--set", "--add", "--cnp-storm", "--freeze",
                "--degrade-pcie", "--restore-pcie", "--link-down", "--link-up", "--aer"):
        p.add_argument(opt, action="append", default=[])
    p = sub.add_parser("show")
    p.add_argument("root")
    a = ap.parse_args()
    for rate in ("gbps", "cnp_rate", "oos_rate"):
        v = getattr(a, rate, None)
        if v is not None:
            try:
                if Fraction(v) < 0:
                    raise ValueError
            except ValueError:
                die("--%s must be a number >= 0" % rate.replace("_", "-"))
    if a.cmd == "init":
        cmd_init(a)
    elif a.cmd == "step":
        cmd_step(a)
    else:
        json.dump(load(a.root), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
