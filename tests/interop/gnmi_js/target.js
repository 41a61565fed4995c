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
// documented behaviour is shared, not code:
//   - reporting intervals are multiples of 2 s: the subscribed
//     sample_interval is rounded UP to one (100 ms -> 2 s), as gnmi_sim does;
//   - the PFE copies its counters every 2 s (copies at START + k * 2 s,
//     START = the target's start, also the counters' epoch and the header's
//     stream_creation_timestamp): a report shows the last copy before its
//     interval's instant, so values change only at copy instants;
//   - each interval reports a subset of the ports, the next --batch-ports of
//     --ports in turn (24 / 10: et-0/0/0..9, 10..19, 20..23, again), so a
//     port is reported every ceil(ports / batch) intervals; sync_response
//     after the first full round;
//   - one SubscribeResponse per sensor and port, each with the Juniper
//     header extension (registered id 1): system_id, component_id,
//     sensor_name, sequence_number (from 0, per sensor: two sensors in one
//     stream count separately), payload_get_timestamp (the interval's
//     instant +- up to --jitter-ms, the device's stamping noise; never
//     before the copy it shows), stream_creation_timestamp, export_timestamp
//     (the wall clock at the write), eom on the last message of a batch.
//     Notification.timestamp = payload_get_timestamp in ns.
//   - sensors: /interfaces/interface/state/counters and
//     /interfaces/interface/ethernet/state/counters, selected by the
//     subscription paths (prefix either way, list keys ignored; none
//     selected: INVALID_ARGUMENT).
//   Counters, port p (0-based), e = copy time - START in ms (exact BigInt):
//     in-octets  = (p+1) * 1e12 + (p+1) * 1e6 * e   ((p+1) x 1e9 B/s)
//     out-octets = (p+1) * 1e12 + (p+1) * 5e5 * e   ((p+1) x 5e8 B/s)
//     in-pkts / out-pkts = octets / 4096, in-errors = in-discards = 0,
//     ethernet: in-crc-errors 0, fec-corrected-blocks = in-octets / 1e6.
//   Intervals run at real time on an absolute schedule (stream start +
//   k * interval), so a late timer delays a write, not the stamps.
//
// Usage: node target.js [--listen 127.0.0.1:0] [--proto-dir DIR]
//          [--junos-cadence [--ports 24] [--batch-ports 10] [--jitter-ms 5]
//           [--seed 1]]
// Prints `listening port=N` once bound, `subscribe ...` per Subscribe call,
// `script_done responses=N` after the last scripted response; with
// --junos-cadence `cadence call=N interval_ms=I ...` (the interval used) and
// `batch call=N k=K ports=A-B` per interval instead of script_done.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const USAGE =
    'usage: target.js [--listen HOST:PORT] [--proto-dir DIR]\n' +
    '         [--junos-cadence [--ports N] [--batch-ports N] [--jitter-ms MS] [--seed N]]\n';

function usage(why) {
    if (why) process.stderr.write(`target.js: ${why}\n`);
    process.stderr.write(USAGE);
    process.exit(2);
}

// A positive integer option value (non-negative with zeroOk).
function intArg(name, text, zeroOk) {
    const n = Number(text);
    if (!Number.isInteger(n) || n < (zeroOk ? 0 : 1)) usage(`${name} ${text}: not a valid count`);
    return n;
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
    };
    let junosOnly = null; // a --junos-cadence option given without the mode
    for (let i = 2; i < argv.length; i++) {
        const a = argv[i];
        const more = i + 1 < argv.length;
        if (a === '--listen' && more) {
            opt.listen = argv[++i];
        } else if (a === '--proto-dir' && more) {
            opt.protoDir = argv[++i];
        } else if (a === '--junos-cadence') {
            opt.junos = true;
        } else if (a === '--ports' && more) {
            opt.ports = intArg(a, argv[++i]);
            junosOnly = a;
        } else if (a === '--batch-ports' && more) {
            opt.batchPorts = intArg(a, argv[++i]);
            junosOnly = a;
        } else if (a === '--jitter-ms' && more) {
            opt.jitterMs = intArg(a, argv[++i], true);
            junosOnly = a;
        } else if (a === '--seed' && more) {
            opt.seed = intArg(a, argv[++i], true);
            junosOnly = a;
        } else {
            usage(`unknown or incomplete option ${a}`);
        }
    }
    if (junosOnly && !opt.junos) usage(`${junosOnly} needs --junos-cadence`);
    // The jitter must stay well inside one copy period, or a stamp could
    // claim a copy the report does not show.
    if (opt.jitterMs >= COPY_MS / 4) usage(`--jitter-ms ${opt.jitterMs}: at most ${COPY_MS / 4 - 1}`);
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

const START_MS = BigInt(Date.now()); // counter epoch and first copy instant
const PKT_BYTES = 4096n;

// The two sensors this target serves, in the order a batch sends them. The
// sensor names follow Junos' "sensor_<id>_<n>_<n>" numbering; streamed_path
// is what the header says was streamed (the collector keys a producer's
// sequence numbers on it).
const SENSORS = [
    {
        name: 'sensor_1000_1_1',
        elems: ['interfaces', 'interface', 'state', 'counters'],
        streamed: '/interfaces/interface/state/counters/',
        leaves: (c) => [
            upd('in-octets', u64(c.rx)),
            upd('out-octets', u64(c.tx)),
            upd('in-pkts', u64(c.rx / PKT_BYTES)),
            upd('out-pkts', u64(c.tx / PKT_BYTES)),
            upd('in-errors', u64(0n)),
            upd('in-discards', u64(0n)),
        ],
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

// Port p's counters at copy instant copyMs (the formulas in the header).
function portCounters(p, copyMs) {
    const k = BigInt(p + 1);
    const e = copyMs - START_MS;
    return { rx: k * 1000000000000n + k * 1000000n * e, tx: k * 1000000000000n + k * 500000n * e };
}

// The last copy at or before t (ms): copies at START + k * COPY_MS.
function copyAtOrBefore(tMs) {
    const step = BigInt(COPY_MS);
    return START_MS + ((tMs - START_MS) / step) * step;
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

// "multiples of 2 seconds": a request below (or between) is rounded up.
function junosInterval(requestNs) {
    const ms = Math.ceil(Number(BigInt(requestNs || '0')) / 1e6);
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

function junosHeader(sensor, seq, payloadMs, eom) {
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
            stream_creation_timestamp: START_MS.toString(), // constant: no reset
            export_timestamp: Date.now().toString(),
            eom,
        }),
    ).finish();
    return { registered_ext: { id: 'EID_JUNIPER_TELEMETRY_HEADER', msg: Buffer.from(msg) } };
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
    // The smallest interval asked for wins, on Junos' 2 s grid.
    const asked = (sl.subscription || []).map((sub) => junosInterval(sub.sample_interval));
    const interval = Math.min(...asked);
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
        const copyMs = copyAtOrBefore(tickMs);
        const first = (k % rounds) * opt.batchPorts;
        const last = Math.min(first + opt.batchPorts, opt.ports) - 1;
        for (const sn of sensors) {
            for (let p = first; p <= last; p++) {
                let payloadMs = tickMs + jitterMs();
                if (payloadMs < copyMs) payloadMs = copyMs; // a stamp never precedes its copy
                const s = seq.get(sn.name);
                seq.set(sn.name, s + 1n);
                const eom = sn === sensors[sensors.length - 1] && p === last;
                call.write({
                    update: {
                        timestamp: (payloadMs * NS_PER_MS).toString(),
                        prefix: {
                            elem: sn.elems.map((name, i) =>
                                i === 1 ? { name, key: { name: `et-0/0/${p}` } } : { name },
                            ),
                        },
                        update: sn.leaves(portCounters(p, copyMs)),
                    },
                    extension: [junosHeader(sn, s, payloadMs, eom)],
                });
            }
        }
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

// ---- the gNMI service -------------------------------------------------------

let calls = 0;

function subscribe(call) {
    const id = ++calls;
    let started = false;
    let ended = false;
    let timer = null;
    let stopJunos = null;
    const stop = () => {
        ended = true;
        if (timer) clearTimeout(timer);
        timer = null;
        if (stopJunos) stopJunos();
    };
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
