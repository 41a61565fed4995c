#!/usr/bin/env node
// A tiny gNMI target on @grpc/grpc-js: an independent gRPC implementation
// (HTTP/2 framing, flow control and protobuf encoding all in JavaScript, none
// of it shared with fabricscope's gRPC C core) that fabricscope must
// interoperate with. tests/integration/gnmi_interop_test.sh runs it.
//
// Subscribe: reads the first SubscribeRequest (it must be a STREAM
// SubscriptionList), prints what it asked for, answers with the FIXED SCRIPT
// below, then keeps the stream open until the client goes away. Capabilities:
// PROTO. Our own protos (proto/) are loaded at run time; nothing is generated
// or copied.
//
// The script (device leaf1; the test hard-codes the same numbers):
//   12 ticks i = 0..11, 100 ms apart from T0_MS (2026-01-01T00:00:00Z, a
//   multiple of every rate window, so window edges fall on ticks).
//   et-0/0/0: Junos style. Every notification carries the Junos telemetry
//     header extension (registered_ext id 1) whose payload_get_timestamp is
//     T0 + 100 i ms, while Notification.timestamp is deliberately different:
//     T0 + 30 + 150 i ms. in-octets grows 5e8 per tick: 5e9 B/s on header
//     time, 3.33e9 B/s if a collector used the notification time instead.
//       in-octets  uint_val   1e12 + 5e8 i
//       out-octets double_val 2e9 + 2.5e8 i
//       in-pkts    json_val   7000000 + 1000 i   (bare JSON number)
//       out-pkts   string_val 3000000 + 500 i
//   et-0/0/1: no header; Notification.timestamp = T0 + 100 i ms.
//       in-octets  uint_val   5e11 + 1.25e9 i   (12.5e9 B/s on ns time)
//       out-octets double_val 1e9 + 1e8 i
//       in-pkts    json_val   "9000000 + 2000 i" (a quoted JSON string, as
//                                                  RFC 7951 writes uint64)
//       in-errors  string_val 10 + i
//   Order: et-0/0/0 tick 0, et-0/0/1 tick 0, sync_response, then both ports
//   for ticks 1..11: 25 responses, 24 notifications, 96 updates.
//
// --junos-cadence: instead of the script, report as a Junos Evolved QFX5240
// does by Juniper's documentation (facts and URLs: docs/CONFIG.md, gnmi
// section). Independent of gnmi_sim's mode of the same name (C); only the
// documented behaviour is shared, not code. Times are ms of the target's wall
// clock; START = the target's start, the counters' epoch.
//   - reporting intervals are multiples of 2 s: the subscribed
//     sample_interval is rounded UP to one (100 ms -> 2 s), as gnmi_sim does
//     (none asked: 2 s); with --no-round it is served as asked (a 100 ms
//     subscription every 100 ms: the device a config with
//     sample_interval_grid: none subscribes to);
//   - the PFE copies its counters every 2 s, at START + X + n * 2 s (X =
//     --copy-phase-ms, default 0; n any integer): a report of a copied port
//     shows its counters at the last copy at or before the report's TRUE
//     read time, so values change only at copy instants. The ports of
//     --live-ports A-B are read live: counters at the read time, no copy;
//   - which ports an interval reports, and when:
//     * default (rotation): intervals at the call's start + k * interval (k
//       from 0 per call), read at that instant; each reports the next
//       --batch-ports of --ports in turn (24 / 10: et-0/0/0..9, 10..19,
//       20..23, again), so a port is reported every ceil(ports / batch)
//       intervals; sync_response after the first full round;
//     * --batch-offsets-ms O0,O1,..: intervals on the grid START + k *
//       interval (k counted from START; a call starts at the first one at or
//       after it), every one reporting EVERY port, as one batch per offset:
//       batch b holds ports floor(b N / nb) .. floor((b + 1) N / nb) - 1 (N
//       ports, nb offsets) and reads them at START + k * interval + Ob, its
//       read time (each Ob below the interval, ascending); sync_response
//       after the first interval's last batch. The grid keeps the phase of
//       reads against copies fixed, across calls too;
//   - one SubscribeResponse per sensor and port, each with the Juniper
//     header extension (registered id 1): system_id, component_id,
//     sensor_name, sequence_number (from 0, per sensor and call: two sensors
//     in one stream count separately), payload_get_timestamp,
//     stream_creation_timestamp (START for the first call, the call's own
//     start for a later one: a new stream), export_timestamp (the wall clock
//     at the write), eom on the last message of a batch.
//     Notification.timestamp = payload_get_timestamp in ns;
//   - payload_get_timestamp = the read time + an integer drawn uniformly from
//     [-J, +J] per notification (J = --jitter-ms, below 500; seeded LCG,
//     --seed): the device's stamping noise. A copied port's stamp that would
//     precede the copy it shows is raised to that copy (a stamp never
//     precedes its copy); with copies further than J from every read (reads
//     at +100..+850 ms, copies at +1400 ms) this never binds. A live port's
//     stamp is never raised;
//   - sensors: /interfaces/interface/state/counters and
//     /interfaces/interface/ethernet/state/counters, selected by the
//     subscription paths (prefix either way, list keys ignored; none
//     selected: INVALID_ARGUMENT).
//   Counters of port p (0-based) at value time t (the copy, or the read for a
//   live port), e = t - START in ms, exact BigInt; U = --rate-unit (B/s, a
//   multiple of 2000, default 1e9):
//     R = (p+1) * U for rx, (p+1) * U / 2 for tx: the base rate, B/s;
//     S = --ramp-per-s for rx, half that for tx, on the ports of
//         --ramp-ports A-B (else 0): the rate's rise, B/s per s (a multiple
//         of 4e6, so every term below is an integer);
//     B(e) = R * e / 1000 + S * e * e / 2e6 (the S term only for e > 0):
//         bytes carried since START, at the rate R + S * e / 1000;
//     traffic(e) = B(e), less B(min(e, F + L)) - B(F) once e > F for the port
//         of --flap-port (F = --flap-at-s, L = --flap-len-s, as ms): no
//         traffic while its link is down;
//     octets(e) = (p+1) * 1e12 + traffic(e); for the port of --clear-port,
//         from C = --clear-at-s (as ms) on: traffic(e) - traffic(C), the
//         counters cleared to 0 at C;
//     in-octets / out-octets = octets of rx / tx, in-pkts / out-pkts =
//     octets / 4096, in-errors = in-discards = 0; with --flap-port also
//     carrier-transitions (0; the flapped port 1 from F, 2 from F + L); with
//     --last-clear also last-clear (ns: START, the cleared port START + C
//     from C on). Ethernet: in-crc-errors 0, fec-corrected-blocks =
//     in-octets / 1e6. With the defaults: in-octets = (p+1) * 1e12 +
//     (p+1) * 1e6 * e, out-octets = (p+1) * 1e12 + (p+1) * 5e5 * e.
//     oper-status is not reported (the sensors are counters): a flap shows
//     as no traffic and, with --flap-port, carrier-transitions.
//   Link speed (--speed-leaves): two more sensors in every report, after the
//   counters (so a collector sees a port's counters before its speed), with
//   the leaves Juniper renders (Juniper/telemetry 24.4R1-EVO
//   oc_interface_render.proto, evo-if-oc_render.proto):
//     /interfaces/interface/state/high-speed                 uint_val, Mb/s
//     /interfaces/interface/ethernet/state/port-speed        string_val identity
//     /interfaces/interface/ethernet/state/negotiated-port-speed  the same
//   by port p, q = p mod 4:
//     q 0: port-speed "SPEED_400GB", high-speed 0, negotiated SPEED_UNKNOWN:
//          400 Gb/s;
//     q 1: port-speed "openconfig-if-ethernet:SPEED_400GB" (RFC 7951's
//          module prefix), the rest as q 0: 400 Gb/s;
//     q 2: port-speed "SPEED_400GB", high-speed 100000: 100 Gb/s (high-speed
//          ranks above port-speed);
//     q 3: port-speed "SPEED_400GB", negotiated "SPEED_200GB": 200 Gb/s;
//   the port of --speed-unknown-port P: SPEED_UNKNOWN, 0, SPEED_UNKNOWN (no
//   speed at all).
//   Faults (--batch-offsets-ms only; K = interval number from START, B =
//   batch number, each option repeatable):
//     --lose-batch K:B     never sent, its sequence numbers used anyway: the
//                          client sees a real loss;
//     --late-batch K:B:MS  sent MS ms after its read time (after the next
//                          batch when MS exceeds the offsets' step: out of
//                          order on the wire), stamps and sequence numbers
//                          as if sent on time;
//     --restart-at-s T     at START + T s every open Subscribe stream ends
//                          with UNAVAILABLE (once); the client's next call is
//                          a new stream (sequence numbers from 0, its own
//                          stream_creation_timestamp); the counters go on.
//   Intervals run at real time on an absolute schedule, so a late timer
//   delays a write, not the stamps.
//
// Usage: node target.js [--listen 127.0.0.1:0] [--proto-dir DIR]
//          [--junos-cadence [--ports 24] [--batch-ports 10] [--jitter-ms 5]
//           [--seed 1] [--no-round] [--batch-offsets-ms LIST]
//           [--copy-phase-ms 0] [--live-ports A-B] [--rate-unit 1e9]
//           [--ramp-ports A-B [--ramp-per-s 1e8]]
//           [--clear-port P --clear-at-s T [--last-clear]]
//           [--flap-port P --flap-at-s T --flap-len-s L]
//           [--lose-batch K:B]... [--late-batch K:B:MS]... [--restart-at-s T]
//           [--speed-leaves [--speed-unknown-port P]]]
// Prints `listening port=N` once bound, `subscribe ...` per Subscribe call,
// `script_done responses=N` after the last scripted response; with
// --junos-cadence `epoch start_ms=S copy_ms=2000 copy_phase_ms=X` first,
// `cadence call=N interval_ms=I ...` per call (the interval used), then
// per interval `batch call=N k=K ports=A-B tick_ms=T` (rotation) or per
// batch `batch call=N k=K b=B ports=A-B read_ms=R sent|lost|late_ms=MS`,
// and `restart call=N at_ms=T` when a stream is ended.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const USAGE =
    'usage: target.js [--listen HOST:PORT] [--proto-dir DIR]\n' +
    '         [--junos-cadence [--ports N] [--batch-ports N] [--jitter-ms MS] [--seed N]\n' +
    '          [--no-round] [--batch-offsets-ms MS,MS,..] [--copy-phase-ms MS]\n' +
    '          [--live-ports A-B] [--rate-unit BPS] [--ramp-ports A-B [--ramp-per-s BPS]]\n' +
    '          [--clear-port P --clear-at-s S [--last-clear]]\n' +
    '          [--flap-port P --flap-at-s S --flap-len-s S]\n' +
    '          [--lose-batch K:B]... [--late-batch K:B:MS]... [--restart-at-s S]\n' +
    '          [--speed-leaves [--speed-unknown-port P]]]\n';

function usage(why) {
    if (why) process.stderr.write(`target.js: ${why}\n`);
    process.stderr.write(USAGE);
    process.exit(2);
}

// A positive integer option value (non-negative with zeroOk). Exponent
// forms (1e9) are accepted; the value must still be an exact integer.
function intArg(name, text, zeroOk) {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < (zeroOk ? 0 : 1)) usage(`${name} ${text}: not a valid count`);
    return n;
}

// A seconds value (decimals allowed) as whole ms.
function secArg(name, text) {
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0 || !Number.isInteger(Math.round(n * 1000))) {
        usage(`${name} ${text}: not a valid number of seconds`);
    }
    return Math.round(n * 1000);
}

// "A-B" (or "A") as [A, B], A <= B.
function rangeArg(name, text) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(text);
    if (!m || Number(m[2] ?? m[1]) < Number(m[1])) usage(`${name} ${text}: not a port range A-B`);
    return [Number(m[1]), Number(m[2] ?? m[1])];
}

// "N:N[:N]" as integers.
function tupleArg(name, text, n) {
    const parts = text.split(':');
    if (parts.length !== n) usage(`${name} ${text}: want ${n} numbers separated by ':'`);
    return parts.map((x) => intArg(name, x, true));
}

function parseArgs(argv) {
    const opt = {
        listen: '127.0.0.1:0',
        protoDir: path.resolve(__dirname, '..', '..', '..', 'proto'),
        junos: false,
        ports: 24,
        batchPorts: 10,
        jitterMs: 5,
        seed: 1,
        noRound: false,
        batchOffsets: null, // null: rotation; else the batches' offsets, ms
        copyPhaseMs: 0,
        livePorts: null, // [first, last]
        rateUnit: 1000000000,
        rampPorts: null,
        rampPerS: 100000000,
        clearPort: -1,
        clearAtMs: -1,
        lastClear: false,
        flapPort: -1,
        flapAtMs: -1,
        flapLenMs: -1,
        lose: new Set(), // "K:B"
        late: new Map(), // "K:B" -> ms
        restartAtMs: -1,
        speedLeaves: false,
        speedUnknownPort: -1,
    };
    let junosOnly = null; // a --junos-cadence option given without the mode
    for (let i = 2; i < argv.length; i++) {
        const a = argv[i];
        const more = i + 1 < argv.length;
        if (a === '--listen' && more) {
            opt.listen = argv[++i];
            continue;
        } else if (a === '--proto-dir' && more) {
            opt.protoDir = argv[++i];
            continue;
        } else if (a === '--junos-cadence') {
            opt.junos = true;
            continue;
        }
        junosOnly = a;
        if (a === '--no-round') {
            opt.noRound = true;
        } else if (a === '--last-clear') {
            opt.lastClear = true;
        } else if (a === '--speed-leaves') {
            opt.speedLeaves = true;
        } else if (!more) {
            usage(`unknown or incomplete option ${a}`);
        } else if (a === '--ports') {
            opt.ports = intArg(a, argv[++i]);
        } else if (a === '--batch-ports') {
            opt.batchPorts = intArg(a, argv[++i]);
        } else if (a === '--jitter-ms') {
            opt.jitterMs = intArg(a, argv[++i], true);
        } else if (a === '--seed') {
            opt.seed = intArg(a, argv[++i], true);
        } else if (a === '--batch-offsets-ms') {
            opt.batchOffsets = argv[++i].split(',').map((x) => intArg(a, x, true));
            if (opt.batchOffsets.some((o, j) => j > 0 && o <= opt.batchOffsets[j - 1])) {
                usage(`${a}: offsets must ascend`);
            }
        } else if (a === '--copy-phase-ms') {
            opt.copyPhaseMs = intArg(a, argv[++i], true);
        } else if (a === '--live-ports') {
            opt.livePorts = rangeArg(a, argv[++i]);
        } else if (a === '--rate-unit') {
            opt.rateUnit = intArg(a, argv[++i]);
        } else if (a === '--ramp-ports') {
            opt.rampPorts = rangeArg(a, argv[++i]);
        } else if (a === '--ramp-per-s') {
            opt.rampPerS = intArg(a, argv[++i]);
        } else if (a === '--clear-port') {
            opt.clearPort = intArg(a, argv[++i], true);
        } else if (a === '--clear-at-s') {
            opt.clearAtMs = secArg(a, argv[++i]);
        } else if (a === '--flap-port') {
            opt.flapPort = intArg(a, argv[++i], true);
        } else if (a === '--flap-at-s') {
            opt.flapAtMs = secArg(a, argv[++i]);
        } else if (a === '--flap-len-s') {
            opt.flapLenMs = secArg(a, argv[++i]);
        } else if (a === '--lose-batch') {
            opt.lose.add(tupleArg(a, argv[++i], 2).join(':'));
        } else if (a === '--late-batch') {
            const [k, b, ms] = tupleArg(a, argv[++i], 3);
            opt.late.set(`${k}:${b}`, ms);
        } else if (a === '--restart-at-s') {
            opt.restartAtMs = secArg(a, argv[++i]);
        } else if (a === '--speed-unknown-port') {
            opt.speedUnknownPort = intArg(a, argv[++i], true);
        } else {
            usage(`unknown or incomplete option ${a}`);
        }
    }
    if (junosOnly && !opt.junos) usage(`${junosOnly} needs --junos-cadence`);
    // The jitter must stay well inside one copy period, or a stamp could
    // claim a copy the report does not show.
    if (opt.jitterMs >= COPY_MS / 4) usage(`--jitter-ms ${opt.jitterMs}: at most ${COPY_MS / 4 - 1}`);
    if (opt.copyPhaseMs >= COPY_MS) usage(`--copy-phase-ms ${opt.copyPhaseMs}: below ${COPY_MS}`);
    // Exact integers: R * e / 1000 needs R (tx: U / 2) a multiple of 1000,
    // S * e^2 / 2e6 needs S (tx: S / 2) a multiple of 2e6.
    if (opt.rateUnit % 2000 !== 0) usage(`--rate-unit ${opt.rateUnit}: not a multiple of 2000`);
    if (opt.rampPerS % 4000000 !== 0) usage(`--ramp-per-s ${opt.rampPerS}: not a multiple of 4e6`);
    const inPorts = (p) => p >= 0 && p < opt.ports;
    for (const [name, r] of [['--live-ports', opt.livePorts], ['--ramp-ports', opt.rampPorts]]) {
        if (r && !inPorts(r[1])) usage(`${name} ${r[0]}-${r[1]}: beyond --ports ${opt.ports}`);
    }
    if ((opt.clearPort >= 0) !== (opt.clearAtMs >= 0)) usage('--clear-port and --clear-at-s go together');
    if (opt.clearPort >= 0 && !inPorts(opt.clearPort)) usage(`--clear-port ${opt.clearPort}: no such port`);
    if (opt.lastClear && opt.clearPort < 0) usage('--last-clear needs --clear-port');
    if (opt.speedUnknownPort >= 0 && !opt.speedLeaves) usage('--speed-unknown-port needs --speed-leaves');
    if (opt.speedUnknownPort >= 0 && !inPorts(opt.speedUnknownPort)) {
        usage(`--speed-unknown-port ${opt.speedUnknownPort}: no such port`);
    }
    const flap = [opt.flapPort, opt.flapAtMs, opt.flapLenMs].filter((x) => x >= 0).length;
    if (flap !== 0 && flap !== 3) usage('--flap-port, --flap-at-s and --flap-len-s go together');
    if (opt.flapPort >= 0 && !inPorts(opt.flapPort)) usage(`--flap-port ${opt.flapPort}: no such port`);
    if (!opt.batchOffsets && (opt.lose.size || opt.late.size)) {
        usage('--lose-batch and --late-batch need --batch-offsets-ms');
    }
    if (opt.batchOffsets && opt.batchOffsets.length > opt.ports) {
        usage(`--batch-offsets-ms: more batches than ports (${opt.ports})`);
    }
    for (const key of [...opt.lose, ...opt.late.keys()]) {
        const b = Number(key.split(':')[1]);
        if (b >= opt.batchOffsets.length) usage(`batch ${key}: only ${opt.batchOffsets.length} batches`);
    }
    return opt;
}

const COPY_MS = 2000; // Junos' PFE copy period and its reporting granularity

const opt = parseArgs(process.argv);

// keepCase: field names as in the .proto; longs as strings, because ns
// timestamps and 64-bit counters do not fit a JS number exactly.
const loaderOptions = {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
    includeDirs: [opt.protoDir],
};
const gnmiDef = protoLoader.loadSync('gnmi.proto', loaderOptions);
const gnmi = grpc.loadPackageDefinition(gnmiDef).gnmi;

// The header goes inside RegisteredExtension.msg as bytes, so it is encoded
// on its own with the junos proto (protobufjs, the library proto-loader uses).
const junosRoot = new protobuf.Root();
junosRoot.resolvePath = (origin, target) => path.resolve(opt.protoDir, target);
junosRoot.loadSync('junos_telemetry_header.proto', { keepCase: true });
const JunosHeader = junosRoot.lookupType('junos_telemetry.GnmiJuniperTelemetryHeaderExtension');

const T0_MS = 1767225600000n; // 2026-01-01T00:00:00Z
const TICKS = 12;
const NS_PER_MS = 1000000n;
const PACE_MS = 20; // between responses: many separate reads on the client

function ifPrefix(port) {
    return {
        origin: 'openconfig',
        elem: [
            { name: 'interfaces' },
            { name: 'interface', key: { name: port } },
            { name: 'state' },
            { name: 'counters' },
        ],
    };
}

function upd(leaf, val) {
    return { path: { elem: [{ name: leaf }] }, val };
}

const u64 = (v) => ({ uint_val: v.toString() });
const dbl = (v) => ({ double_val: Number(v) }); // all scripted doubles are exact integers < 2^53
const json = (text) => ({ json_val: Buffer.from(text) });
const str = (v) => ({ string_val: v.toString() });

function junosHeaderExt(i) {
    const msg = JunosHeader.encode(
        JunosHeader.fromObject({
            system_id: 'leaf1:10.0.0.11',
            component_id: 0,
            sub_component_id: 0,
            sensor_name: 'sensor_1000',
            subscribed_path: '/interfaces/interface/state/counters/',
            streamed_path: '/interfaces/interface/state/counters/',
            component: 'mib2d',
            sequence_number: (1000 + i).toString(), // consecutive: no gap
            payload_get_timestamp: (T0_MS + 100n * BigInt(i)).toString(),
            stream_creation_timestamp: (T0_MS - 60000n).toString(), // constant: no reset
            export_timestamp: (T0_MS + 100n * BigInt(i) + 5n).toString(),
        }),
    ).finish();
    return { registered_ext: { id: 'EID_JUNIPER_TELEMETRY_HEADER', msg: Buffer.from(msg) } };
}

function port0(i) {
    const n = BigInt(i);
    return {
        update: {
            // Not the header time: 30 ms late and 150 ms apart.
            timestamp: ((T0_MS + 30n + 150n * n) * NS_PER_MS).toString(),
            prefix: ifPrefix('et-0/0/0'),
            update: [
                upd('in-octets', u64(1000000000000n + 500000000n * n)),
                upd('out-octets', dbl(2000000000n + 250000000n * n)),
                upd('in-pkts', json((7000000n + 1000n * n).toString())),
                upd('out-pkts', str(3000000n + 500n * n)),
            ],
        },
        extension: [junosHeaderExt(i)],
    };
}

function port1(i) {
    const n = BigInt(i);
    return {
        update: {
            timestamp: ((T0_MS + 100n * n) * NS_PER_MS).toString(),
            prefix: ifPrefix('et-0/0/1'),
            update: [
                upd('in-octets', u64(500000000000n + 1250000000n * n)),
                upd('out-octets', dbl(1000000000n + 100000000n * n)),
                upd('in-pkts', json(`"${9000000n + 2000n * n}"`)),
                upd('in-errors', str(10n + n)),
            ],
        },
    };
}

function script() {
    const out = [port0(0), port1(0), { sync_response: true }];
    for (let i = 1; i < TICKS; i++) out.push(port0(i), port1(i));
    return out;
}

function describePath(p) {
    if (!p || !p.elem) return '';
    return p.elem
        .map((e) => {
            const keys = e.key ? Object.keys(e.key).sort() : [];
            return e.name + keys.map((k) => `[${k}=${e.key[k]}]`).join('');
        })
        .map((s) => '/' + s)
        .join('');
}

// ---- --junos-cadence ---------------------------------------------------------

const START_MS = BigInt(Date.now()); // counter epoch; copies at START + X + n * COPY_MS
const START = Number(START_MS); // the same as a number (exact: below 2^53)
const PKT_BYTES = 4096n;

const inRange = (r, p) => r !== null && p >= r[0] && p <= r[1];
const isLive = (p) => inRange(opt.livePorts, p);

// The two sensors this target serves, in the order a batch sends them. The
// sensor names follow Junos' "sensor_<id>_<n>_<n>" numbering; streamed_path
// is what the header says was streamed (the collector keys a producer's
// sequence numbers on it).
const SENSORS = [
    {
        name: 'sensor_1000_1_1',
        elems: ['interfaces', 'interface', 'state', 'counters'],
        streamed: '/interfaces/interface/state/counters/',
        leaves: (c) => {
            const out = [
                upd('in-octets', u64(c.rx)),
                upd('out-octets', u64(c.tx)),
                upd('in-pkts', u64(c.rx / PKT_BYTES)),
                upd('out-pkts', u64(c.tx / PKT_BYTES)),
                upd('in-errors', u64(0n)),
                upd('in-discards', u64(0n)),
            ];
            if (c.carrier !== null) out.push(upd('carrier-transitions', u64(c.carrier)));
            if (c.lastClear !== null) out.push(upd('last-clear', u64(c.lastClear)));
            return out;
        },
    },
    {
        name: 'sensor_1002_1_1',
        elems: ['interfaces', 'interface', 'ethernet', 'state', 'counters'],
        streamed: '/interfaces/interface/ethernet/state/counters/',
        leaves: (c) => [
            upd('in-crc-errors', u64(0n)),
            upd('fec-corrected-blocks', u64(c.rx / 1000000n)),
        ],
    },
];

// --speed-leaves: the speed leaves of port p (the header's table).
function speedLeaves(p) {
    if (p === opt.speedUnknownPort) {
        return { port: 'SPEED_UNKNOWN', high: 0n, negotiated: 'SPEED_UNKNOWN' };
    }
    const q = p % 4;
    return {
        port: q === 1 ? 'openconfig-if-ethernet:SPEED_400GB' : 'SPEED_400GB',
        high: q === 2 ? 100000n : 0n,
        negotiated: q === 3 ? 'SPEED_200GB' : 'SPEED_UNKNOWN',
    };
}

if (opt.speedLeaves) {
    SENSORS.push(
        {
            name: 'sensor_1004_1_1',
            elems: ['interfaces', 'interface', 'state'],
            streamed: '/interfaces/interface/state/',
            leaves: (c, p) => [upd('high-speed', u64(speedLeaves(p).high))],
        },
        {
            name: 'sensor_1005_1_1',
            elems: ['interfaces', 'interface', 'ethernet', 'state'],
            streamed: '/interfaces/interface/ethernet/state/',
            leaves: (c, p) => [
                upd('port-speed', str(speedLeaves(p).port)),
                upd('negotiated-port-speed', str(speedLeaves(p).negotiated)),
            ],
        },
    );
}

// B(e): bytes port p carried in one direction since START, flap aside (the
// header's formula). r = R, s = S of that direction.
function carried(r, s, e) {
    let b = (r * e) / 1000n;
    if (e > 0n) b += (s * e * e) / 2000000n;
    return b;
}

// traffic(e) of port p, direction tx (0 rx, 1 tx).
function traffic(p, tx, e) {
    const div = tx ? 2n : 1n;
    const r = (BigInt(p + 1) * BigInt(opt.rateUnit)) / div;
    const s = inRange(opt.rampPorts, p) ? BigInt(opt.rampPerS) / div : 0n;
    let b = carried(r, s, e);
    if (p === opt.flapPort && e > BigInt(opt.flapAtMs)) {
        const f = BigInt(opt.flapAtMs);
        const up = f + BigInt(opt.flapLenMs);
        b -= carried(r, s, e < up ? e : up) - carried(r, s, f);
    }
    return b;
}

// Port p's counters at value time tMs (a copy instant, or the read of a live
// port): the formulas in the header.
function portCounters(p, tMs) {
    const e = tMs - START_MS;
    const oct = (tx) => {
        if (p === opt.clearPort && e >= BigInt(opt.clearAtMs)) {
            return traffic(p, tx, e) - traffic(p, tx, BigInt(opt.clearAtMs));
        }
        return BigInt(p + 1) * 1000000000000n + traffic(p, tx, e);
    };
    let carrier = null;
    if (opt.flapPort >= 0) {
        carrier = 0n;
        if (p === opt.flapPort && e >= BigInt(opt.flapAtMs)) carrier++;
        if (p === opt.flapPort && e >= BigInt(opt.flapAtMs + opt.flapLenMs)) carrier++;
    }
    let lastClear = null;
    if (opt.lastClear) {
        const cleared = p === opt.clearPort && e >= BigInt(opt.clearAtMs);
        lastClear = (cleared ? START_MS + BigInt(opt.clearAtMs) : START_MS) * NS_PER_MS;
    }
    return { rx: oct(false), tx: oct(true), carrier, lastClear };
}

// Floor division of BigInts (BigInt's / truncates towards 0).
function floorDiv(a, b) {
    const q = a / b;
    return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

// The last copy at or before t (ms): copies at START + X + n * COPY_MS.
function copyAtOrBefore(tMs) {
    const step = BigInt(COPY_MS);
    const base = START_MS + BigInt(opt.copyPhaseMs);
    return base + floorDiv(tMs - base, step) * step;
}

// What a report of port p read at readMs shows: the value time and the
// counters there.
function portRead(p, readMs) {
    const valueMs = isLive(p) ? readMs : copyAtOrBefore(readMs);
    return { valueMs, c: portCounters(p, valueMs) };
}

// The subscription's elem names without list keys (origin ignored).
function elemNames(prefix, p) {
    const names = (x) => (x && x.elem ? x.elem.map((e) => e.name) : []);
    return names(prefix).concat(names(p));
}

// A path selects a sensor when either is a prefix of the other:
// /interfaces selects both sensors, .../state/counters/in-octets the first.
function selects(names, sensor) {
    const n = Math.min(names.length, sensor.elems.length);
    for (let i = 0; i < n; i++) if (names[i] !== sensor.elems[i]) return false;
    return true;
}

// "multiples of 2 seconds": a request below (or between) is rounded up;
// with --no-round served as asked (at least 1 ms). 0 (unset): 2 s.
function junosInterval(requestNs) {
    const ms = Math.ceil(Number(BigInt(requestNs || '0')) / 1e6);
    if (ms === 0) return COPY_MS;
    if (opt.noRound) return ms;
    return Math.max(COPY_MS, Math.ceil(ms / COPY_MS) * COPY_MS);
}

// Timestamp jitter: a small seeded LCG (Numerical Recipes constants), so a
// run can be repeated with --seed.
let rngState = (opt.seed >>> 0) || 1;
function jitterMs() {
    if (opt.jitterMs === 0) return 0n;
    rngState = (Math.imul(rngState, 1664525) + 1013904223) >>> 0;
    return BigInt(Math.floor((rngState / 4294967296) * (2 * opt.jitterMs + 1)) - opt.jitterMs);
}

function junosHeader(sensor, seq, payloadMs, creationMs, eom) {
    const msg = JunosHeader.encode(
        JunosHeader.fromObject({
            system_id: 'qfx5240-js:127.0.0.1',
            component_id: 0, // one PFE produces every record: no sums across producers
            sub_component_id: 0,
            sensor_name: sensor.name,
            subscribed_path: sensor.streamed,
            streamed_path: sensor.streamed,
            component: 'PFE',
            sequence_number: seq.toString(),
            payload_get_timestamp: payloadMs.toString(),
            stream_creation_timestamp: creationMs.toString(),
            export_timestamp: Date.now().toString(),
            eom,
        }),
    ).finish();
    return { registered_ext: { id: 'EID_JUNIPER_TELEMETRY_HEADER', msg: Buffer.from(msg) } };
}

// The messages of one report of ports first..last read at readMs, in send
// order (sensor by sensor, port by port), numbered from the per-sensor
// counters in seq (advanced here); eom on the last. Headers are encoded at
// the write (export_timestamp), so this returns thunks.
function reportMessages(sensors, seq, first, last, readMs, creationMs) {
    const out = [];
    for (const sn of sensors) {
        for (let p = first; p <= last; p++) {
            const { valueMs, c } = portRead(p, readMs);
            let payloadMs = readMs + jitterMs();
            if (!isLive(p) && payloadMs < valueMs) payloadMs = valueMs; // a stamp never precedes its copy
            const s = seq.get(sn.name);
            seq.set(sn.name, s + 1n);
            const eom = sn === sensors[sensors.length - 1] && p === last;
            const update = {
                timestamp: (payloadMs * NS_PER_MS).toString(),
                prefix: {
                    elem: sn.elems.map((name, i) =>
                        i === 1 ? { name, key: { name: `et-0/0/${p}` } } : { name },
                    ),
                },
                update: sn.leaves(c, p),
            };
            out.push(() => ({ update, extension: [junosHeader(sn, s, payloadMs, creationMs, eom)] }));
        }
    }
    return out;
}

// Rotation (the default): interval k of the call reads at t0 + k * interval
// and reports the next batchPorts ports. Returns a function that stops it.
function rotationStream(call, id, sensors, interval, creationMs) {
    const rounds = Math.ceil(opt.ports / opt.batchPorts); // intervals per full round of ports
    process.stdout.write(
        `cadence call=${id} interval_ms=${interval} ports=${opt.ports} batch_ports=${opt.batchPorts} ` +
            `rounds=${rounds} sensors=${sensors.map((sn) => sn.name).join(',')}\n`,
    );
    const seq = new Map(sensors.map((sn) => [sn.name, 0n])); // per sensor, from 0
    const t0 = Date.now();
    let k = 0; // interval number
    let timer = null;
    let stopped = false;

    const tick = () => {
        timer = null;
        if (stopped) return;
        // The interval's instant on the absolute schedule, not the timer's.
        const tickMs = BigInt(t0 + k * interval);
        const first = (k % rounds) * opt.batchPorts;
        const last = Math.min(first + opt.batchPorts, opt.ports) - 1;
        for (const msg of reportMessages(sensors, seq, first, last, tickMs, creationMs)) call.write(msg());
        process.stdout.write(`batch call=${id} k=${k} ports=${first}-${last} tick_ms=${tickMs}\n`);
        if (k === rounds - 1) call.write({ sync_response: true }); // every port reported once
        k++;
        timer = setTimeout(tick, Math.max(0, t0 + k * interval - Date.now()));
    };
    tick();
    return () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        timer = null;
    };
}

// --batch-offsets-ms: every interval START + k * interval reports every port
// in batches read at the offsets; lost and late batches as configured.
function batchStream(call, id, sensors, interval, creationMs) {
    const offs = opt.batchOffsets;
    const nb = offs.length;
    if (offs[nb - 1] >= interval) {
        call.emit('error', {
            code: grpc.status.INVALID_ARGUMENT,
            details: `batch offset ${offs[nb - 1]} ms not below the ${interval} ms interval`,
        });
        return () => {};
    }
    const firstPort = (b) => Math.floor((b * opt.ports) / nb);
    process.stdout.write(
        `cadence call=${id} interval_ms=${interval} ports=${opt.ports} batches=${nb} ` +
            `offsets_ms=${offs.join(',')} sensors=${sensors.map((sn) => sn.name).join(',')}\n`,
    );
    const seq = new Map(sensors.map((sn) => [sn.name, 0n])); // per sensor, from 0
    const k0 = Math.ceil((Date.now() - START) / interval); // the first interval at or after the call
    let k = k0;
    let b = 0;
    let timer = null;
    const lateTimers = new Set();
    let stopped = false;

    const readAt = (kk, bb) => START + kk * interval + offs[bb];
    const step = () => {
        timer = null;
        if (stopped) return;
        const readMs = BigInt(readAt(k, b));
        const first = firstPort(b);
        const last = firstPort(b + 1) - 1;
        const key = `${k}:${b}`;
        const msgs = reportMessages(sensors, seq, first, last, readMs, creationMs);
        let what = 'sent';
        if (opt.lose.has(key)) {
            what = 'lost'; // numbered above, never written: a real loss
        } else if (opt.late.has(key)) {
            const ms = opt.late.get(key);
            what = `late_ms=${ms}`;
            const t = setTimeout(() => {
                lateTimers.delete(t);
                if (stopped) return;
                for (const msg of msgs) call.write(msg());
                process.stdout.write(`late_sent call=${id} batch=${key} at_ms=${Date.now()}\n`);
            }, Math.max(0, Number(readMs) + ms - Date.now()));
            lateTimers.add(t);
        } else {
            for (const msg of msgs) call.write(msg());
        }
        process.stdout.write(
            `batch call=${id} k=${k} b=${b} ports=${first}-${last} read_ms=${readMs} ${what}\n`,
        );
        if (k === k0 && b === nb - 1) call.write({ sync_response: true }); // every port reported once
        if (++b === nb) {
            b = 0;
            k++;
        }
        timer = setTimeout(step, Math.max(0, readAt(k, b) - Date.now()));
    };
    timer = setTimeout(step, Math.max(0, readAt(k, b) - Date.now()));
    return () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        timer = null;
        for (const t of lateTimers) clearTimeout(t);
        lateTimers.clear();
    };
}

// Streams the Junos cadence on call; returns a function that stops it.
function junosStream(call, id, sl) {
    const sensors = SENSORS.filter((sn) =>
        (sl.subscription || []).some((sub) => selects(elemNames(sl.prefix, sub.path), sn)),
    );
    if (sensors.length === 0) {
        call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: 'no sensor for the paths' });
        return () => {};
    }
    // The smallest interval asked for wins (on Junos' 2 s grid unless --no-round).
    const asked = (sl.subscription || []).map((sub) => junosInterval(sub.sample_interval));
    const interval = Math.min(...asked);
    // The first call's stream began with the target; a later call is a new one.
    const creationMs = id === 1 ? START_MS : BigInt(Date.now());
    if (opt.batchOffsets) return batchStream(call, id, sensors, interval, creationMs);
    return rotationStream(call, id, sensors, interval, creationMs);
}

// ---- the gNMI service -------------------------------------------------------

let calls = 0;
const openCalls = new Map(); // id -> { call, stop }: what --restart-at-s ends

function subscribe(call) {
    const id = ++calls;
    let started = false;
    let ended = false;
    let timer = null;
    let stopJunos = null;
    const stop = () => {
        ended = true;
        openCalls.delete(id);
        if (timer) clearTimeout(timer);
        timer = null;
        if (stopJunos) stopJunos();
    };
    openCalls.set(id, { call, stop });
    call.on('cancelled', stop);
    call.on('error', stop);
    call.on('end', () => {
        // The client half-closed: a STREAM subscription stays open anyway.
    });
    call.on('data', (req) => {
        if (started) return; // polls and later requests are ignored
        started = true;
        const sl = req.subscribe;
        if (!sl) {
            call.emit('error', {
                code: grpc.status.INVALID_ARGUMENT,
                details: 'first request must be subscribe',
            });
            return;
        }
        const mode = sl.mode || 'STREAM';
        const subs = (sl.subscription || []).map((s) => {
            const p = describePath(sl.prefix) + describePath(s.path);
            return `${p}:${s.mode || 'TARGET_DEFINED'}:${s.sample_interval || '0'}`;
        });
        process.stdout.write(
            `subscribe call=${id} mode=${mode} encoding=${sl.encoding || 'JSON'} ` +
                `updates_only=${sl.updates_only ? 1 : 0} subscriptions=${subs.join(',')}\n`,
        );
        if (mode !== 'STREAM') {
            call.emit('error', {
                code: grpc.status.UNIMPLEMENTED,
                details: 'only STREAM subscriptions',
            });
            return;
        }
        if (opt.junos) {
            if (!ended) stopJunos = junosStream(call, id, sl);
            return;
        }
        const msgs = script();
        let k = 0;
        const next = () => {
            timer = null;
            if (ended) return;
            call.write(msgs[k++]);
            if (k < msgs.length) timer = setTimeout(next, PACE_MS);
            else process.stdout.write(`script_done call=${id} responses=${msgs.length}\n`);
        };
        next();
    });
}

function capabilities(call, callback) {
    callback(null, {
        supported_models: [
            {
                name: 'openconfig-interfaces',
                organization: 'OpenConfig working group',
                version: '3.0.0',
            },
        ],
        supported_encodings: ['PROTO'],
        gNMI_version: '0.10.0',
    });
}

// --restart-at-s: the device's telemetry restarts once; every open stream
// ends with UNAVAILABLE, the counters go on.
if (opt.junos && opt.restartAtMs >= 0) {
    setTimeout(() => {
        for (const [id, { call, stop }] of [...openCalls]) {
            stop();
            process.stdout.write(`restart call=${id} at_ms=${Date.now()}\n`);
            call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'telemetry restarted' });
        }
    }, Math.max(0, START + opt.restartAtMs - Date.now()));
}

if (opt.junos) {
    process.stdout.write(`epoch start_ms=${START_MS} copy_ms=${COPY_MS} copy_phase_ms=${opt.copyPhaseMs}\n`);
}

const server = new grpc.Server();
server.addService(gnmi.gNMI.service, { Subscribe: subscribe, Capabilities: capabilities });
server.bindAsync(opt.listen, grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
        process.stderr.write(`bind ${opt.listen}: ${err.message}\n`);
        process.exit(1);
    }
    process.stdout.write(`listening port=${port}\n`);
});

// SIGTERM from the test: drop open streams and exit at once.
for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
        server.forceShutdown();
        process.exit(0);
    });
}
