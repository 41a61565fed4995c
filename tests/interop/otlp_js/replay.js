#!/usr/bin/env node
// A Cumulus-shaped OTLP/JSON replay for tests/integration/otlp_replay_test.sh,
// built by hand (not the SDK) so every timestamp is explicit and the test
// knows the exact counters and rates. One POST per tick, like a switch
// exporting its interface-stats class every second.
//
//   node replay.js --endpoint http://127.0.0.1:PORT/v1/metrics --t0-ms T0
//                  [--host-name rp1] [--from A] [--to B]
//
// Posts ticks A..B (default 0..19) in order. The test calls it once per tick
// with the same --t0-ms, so it can scrape /metrics between ticks.
// T0 must be x.500 s (T0 % 1000 == 500): tick i is then 0.5 s +- 50 ms past a
// whole second and never on a 1 s window edge.
//
// stdout: `post tick=I status=S body=...` per request, then `done ticks=N`.
// Exit 1 when a request fails or its response is not a plain success (a
// partialSuccess is a failure here: every point below is valid).
//
// Raw gRPC mode (the gRPC half of the bad-input test, through the
// independent grpc-js client rather than our C core):
//   node replay.js --grpc-raw FILE --grpc-target 127.0.0.1:PORT [--gzip]
// sends the bytes of FILE (possibly malformed) as one Export call and prints
// `grpc code=C details=...` (C = 0 on success); exit 0 whatever the code.
//
// The script. t_i = T0 + i s + J[i] (J in microseconds, multiples of 250 us,
// within +-50 ms: Cumulus' jittered 1 s cadence). RESET = tick 10.
//   A. Gauge nvswitch_interface_if_in_octets {interface=swp1}, asDouble
//      (Cumulus interface counters are gauge doubles, docs/vendors/cumulus.md):
//        i < 10: 5e12 + 2.5 * (t_i - T0) [ns]     (2.5e9 B/s)
//        i >= 10: 1000 + 2.5 * (t_i - t_10)      (reset: drops to 1000)
//      last value (i = 19): 22354376000.
//   B. Gauge nvswitch_interface_if_out_octets {interface=swp1}:
//        7e12 + 1.25 * (t_i - T0)                 (1.25e9 B/s, no reset)
//      last value: 7023733750000.
//   C. Sum nvswitch_interface_tc_tx_ecn_marked_tc, cumulative, monotonic,
//      {interface=swp1, tc=3}, asInt as a decimal string, 4000 packets/s:
//        i < 10: start S0 = T0 - 100 s, 1000000 + (t_i - T0) / 250000
//        i >= 10: start t_10 - 250 ms, 1000 + (t_i - t_10) / 250000
//      (reset: value drops AND the start time changes); last value: 36767.
//   D. The same metric {interface=swp1, tc=4}, asInt as a JSON number:
//        i < 10: start S0, 2000000 + (t_i - T0) / 250000
//        i >= 10: start t_10 - 250 ms, 3000000 + (t_i - t_10) / 250000
//      (reset seen ONLY in the start time: the value jumps up, so a receiver
//      that missed it would show a 1e6/s spike); last value: 3035767.
//   E. Histogram nvswitch_histogram_interface_egress_buffer, DELTA,
//      {interface=swp1, tc=0 (intValue)}, 9 bounds HIST_BOUNDS, start = the
//      previous tick (tick 0: t_0 - 1 s), per tick i:
//        bucketCounts [i%2, 1, 0, 2, i%3==0, 0, 0, i%5==0, 0, 1],
//        count = their sum, sum = 1000 i + 0.5
//      totals over ticks 0..19: buckets [10,20,0,40,7,0,0,4,0,20], count 101,
//      sum 190010; as Prometheus cumulative le buckets:
//      960:10 1920:30 3840:30 7680:70 15360:77 30720:77 61440:77 122880:81
//      245760:81 +Inf:101.
// Every sample of A-D lies exactly on a line through time (between resets),
// so an aligned-window rate (interpolation at the edges) is exactly the slope
// whatever the jitter. All values are exact in a double.
'use strict';

const http = require('http');
const fs = require('fs');

const TICKS = 20;
const RESET = 10;
const J_US = [
    0, 37250, -42500, 15000, -8250, 50000, -50000, 23750, -31000, 4500, 45250, -19750, 11000,
    -47500, 28250, -2500, 33000, -40250, 6750, -13000,
];
const HIST_BOUNDS = [960, 1920, 3840, 7680, 15360, 30720, 61440, 122880, 245760];

function usage(msg) {
    process.stderr.write(
        `replay.js: ${msg}\nusage: node replay.js --endpoint URL --t0-ms T0 [--host-name NAME] ` +
            '[--from A] [--to B]\n       node replay.js --grpc-raw FILE --grpc-target HOST:PORT [--gzip]\n'
    );
    process.exit(2);
}

function parseArgs(argv) {
    const o = { endpoint: '', t0: NaN, host: 'rp1', from: 0, to: TICKS - 1, raw: '', target: '' };
    o.gzip = false;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const next = () => {
            if (i + 1 >= argv.length) usage(`${a} needs a value`);
            return argv[++i];
        };
        if (a === '--endpoint') o.endpoint = next();
        else if (a === '--t0-ms') o.t0 = Number(next());
        else if (a === '--host-name') o.host = next();
        else if (a === '--from') o.from = Number(next());
        else if (a === '--to') o.to = Number(next());
        else if (a === '--grpc-raw') o.raw = next();
        else if (a === '--grpc-target') o.target = next();
        else if (a === '--gzip') o.gzip = true;
        else usage(`unknown argument ${a}`);
    }
    if (o.raw) {
        if (!o.target) usage('--grpc-target is required with --grpc-raw');
        return o;
    }
    if (!o.endpoint) usage('--endpoint is required');
    if (!Number.isSafeInteger(o.t0) || o.t0 % 1000 !== 500) usage('--t0-ms must be x.500 s in ms');
    if (!Number.isInteger(o.from) || !Number.isInteger(o.to) || o.from < 0 || o.to >= TICKS ||
        o.from > o.to)
        usage(`--from/--to must be within 0..${TICKS - 1}`);
    return o;
}

// Times as BigInt nanoseconds: epoch ns do not fit a double exactly.
function tickNs(t0ms, i) {
    return BigInt(t0ms) * 1000000n + BigInt(i) * 1000000000n + BigInt(J_US[i]) * 1000n;
}

const str = (k, v) => ({ key: k, value: { stringValue: v } });
const int = (k, v) => ({ key: k, value: { intValue: v } });

function tickRequest(o, i) {
    const T0 = BigInt(o.t0) * 1000000n;
    const t = tickNs(o.t0, i);
    const t10 = tickNs(o.t0, RESET);
    const after = i >= RESET;
    const sinceT0 = t - T0; // ns, an exact multiple of 250000
    const sinceReset = t - t10;
    const ts = t.toString();

    // A and B: doubles. 2.5 * ns and 1.25 * ns are exact (ns is a multiple of
    // 250000, so both are integers far below 2^53).
    const inOctets = after ? 1000 + 2.5 * Number(sinceReset) : 5e12 + 2.5 * Number(sinceT0);
    const outOctets = 7e12 + 1.25 * Number(sinceT0);
    // C and D: 4000/s = one packet per 250 us.
    const s0 = (T0 - 100000000000n).toString();
    const s1 = (t10 - 250000000n).toString();
    const ecn3 = after ? 1000n + sinceReset / 250000n : 1000000n + sinceT0 / 250000n;
    const ecn4 = after ? 3000000n + sinceReset / 250000n : 2000000n + sinceT0 / 250000n;
    // E: delta histogram.
    const buckets = [i % 2, 1, 0, 2, i % 3 === 0 ? 1 : 0, 0, 0, i % 5 === 0 ? 1 : 0, 0, 1];
    const count = buckets.reduce((a, b) => a + b, 0);
    const hstart = (i === 0 ? t - 1000000000n : tickNs(o.t0, i - 1)).toString();

    const gaugeMeta = [str('prometheus.type', 'gauge')];
    return {
        resourceMetrics: [
            {
                resource: { attributes: [str('host.name', o.host)] },
                scopeMetrics: [
                    {
                        scope: { name: 'nvswitch', version: '5.14' },
                        metrics: [
                            {
                                name: 'nvswitch_interface_if_in_octets',
                                description: 'Number of octets received',
                                unit: 'bytes',
                                metadata: gaugeMeta,
                                gauge: {
                                    dataPoints: [
                                        { attributes: [str('interface', 'swp1')], timeUnixNano: ts,
                                          asDouble: inOctets },
                                    ],
                                },
                            },
                            {
                                name: 'nvswitch_interface_if_out_octets',
                                unit: 'bytes',
                                metadata: gaugeMeta,
                                gauge: {
                                    dataPoints: [
                                        { attributes: [str('interface', 'swp1')], timeUnixNano: ts,
                                          asDouble: outOctets },
                                    ],
                                },
                            },
                            {
                                name: 'nvswitch_interface_tc_tx_ecn_marked_tc',
                                metadata: [str('prometheus.type', 'counter')],
                                sum: {
                                    aggregationTemporality: 2,
                                    isMonotonic: true,
                                    dataPoints: [
                                        { attributes: [str('interface', 'swp1'), int('tc', '3')],
                                          startTimeUnixNano: after ? s1 : s0, timeUnixNano: ts,
                                          asInt: ecn3.toString() },
                                        { attributes: [str('interface', 'swp1'), int('tc', 4)],
                                          startTimeUnixNano: after ? s1 : s0, timeUnixNano: ts,
                                          asInt: Number(ecn4) },
                                    ],
                                },
                            },
                            {
                                name: 'nvswitch_histogram_interface_egress_buffer',
                                unit: 'bytes',
                                histogram: {
                                    aggregationTemporality: 1,
                                    dataPoints: [
                                        { attributes: [str('interface', 'swp1'), int('tc', 0)],
                                          startTimeUnixNano: hstart, timeUnixNano: ts,
                                          count: String(count), sum: 1000 * i + 0.5,
                                          bucketCounts: buckets.map(String),
                                          explicitBounds: HIST_BOUNDS },
                                    ],
                                },
                            },
                        ],
                    },
                ],
            },
        ],
    };
}

function post(url, body) {
    return new Promise((resolve) => {
        const req = http.request(
            url,
            {
                method: 'POST',
                headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
                timeout: 10000,
            },
            (res) => {
                const chunks = [];
                res.on('data', (c) => chunks.push(c));
                res.on('end', () =>
                    resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() })
                );
            }
        );
        req.on('timeout', () => req.destroy(new Error('timeout after 10 s')));
        req.on('error', (e) => resolve({ status: 0, body: String(e.message) }));
        req.end(body);
    });
}

// A response is a plain success when it is 200 and carries no
// partialSuccess with rejected points or a message.
function plainSuccess(r) {
    if (r.status !== 200) return false;
    if (r.body.trim() === '') return true;
    let j;
    try {
        j = JSON.parse(r.body);
    } catch (e) {
        return false;
    }
    const ps = j.partialSuccess;
    return !ps || (Number(ps.rejectedDataPoints || 0) === 0 && !ps.errorMessage);
}

async function replay(o) {
    let bad = 0;
    for (let i = o.from; i <= o.to; i++) {
        const body = Buffer.from(JSON.stringify(tickRequest(o, i)));
        const r = await post(o.endpoint, body);
        console.log(`post tick=${i} status=${r.status} body=${r.body.replace(/\s+/g, ' ')}`);
        if (!plainSuccess(r)) bad++;
    }
    console.log(`done ticks=${o.to - o.from + 1} failures=${bad}`);
    process.exitCode = bad ? 1 : 0;
}

// One unary Export with the file's bytes as the message, untouched: grpc-js
// frames them (5-byte prefix; compressed when --gzip) and reports the status.
function grpcRaw(o) {
    const grpc = require('@grpc/grpc-js');
    const bytes = fs.readFileSync(o.raw);
    const options = o.gzip ? { 'grpc.default_compression_algorithm': 2 } : {};
    const client = new grpc.Client(o.target, grpc.credentials.createInsecure(), options);
    const deadline = new Date(Date.now() + 10000);
    client.makeUnaryRequest(
        '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export',
        (b) => b,
        (b) => b,
        bytes,
        { deadline },
        (err, resp) => {
            if (err) console.log(`grpc code=${err.code} details=${String(err.details).replace(/\s+/g, ' ')}`);
            else console.log(`grpc code=0 response_hex=${Buffer.from(resp).toString('hex')}`);
            client.close();
        }
    );
}

const o = parseArgs(process.argv.slice(2));
if (o.raw) grpcRaw(o);
else replay(o).catch((e) => {
    console.log(`fatal error=${String(e && e.stack ? e.stack : e).replace(/\s+/g, ' ')}`);
    process.exitCode = 1;
});
