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
// Usage: node target.js [--listen 127.0.0.1:0] [--proto-dir DIR]
// Prints `listening port=N` once bound, `subscribe ...` per Subscribe call,
// `script_done responses=N` after the last scripted response.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

function parseArgs(argv) {
    const opt = {
        listen: '127.0.0.1:0',
        protoDir: path.resolve(__dirname, '..', '..', '..', 'proto'),
    };
    for (let i = 2; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--listen' && i + 1 < argv.length) opt.listen = argv[++i];
        else if (a === '--proto-dir' && i + 1 < argv.length) opt.protoDir = argv[++i];
        else {
            process.stderr.write(`usage: target.js [--listen HOST:PORT] [--proto-dir DIR]\n`);
            process.exit(2);
        }
    }
    return opt;
}

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

let calls = 0;

function subscribe(call) {
    const id = ++calls;
    let started = false;
    let ended = false;
    let timer = null;
    const stop = () => {
        ended = true;
        if (timer) clearTimeout(timer);
        timer = null;
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
