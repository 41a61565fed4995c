#!/usr/bin/env node
// OTLP network faults for tests/integration/faults_net_otlp.sh: many
// concurrent senders, and senders that go away in the middle of a request.
// The protobuf is encoded here by hand (a few fields of
// ExportMetricsServiceRequest), independent of the collector's decoder.
//
//   node otlp_faults.js MODULES_DIR MODE [options]
// MODULES_DIR: a node_modules holding @grpc/grpc-js (tests/interop/otlp_js).
//
// flood --http URL --grpc HOST:PORT --senders N --requests R [--points P]
//   N senders at once, each on its own connection (HTTP: a socket per
//   sender; gRPC: a channel per sender), even ones over HTTP/protobuf, odd
//   ones over gRPC. Sender i sends R requests one after the other; request r
//   carries P points of the Sum `fault_flood_bytes` (cumulative, monotonic)
//   of device f<i>, attribute interface=swp<p>, value (i * 1000 + r) * 1000
//   + p, time t0 + r ms. A request that fails without an answer (connection
//   refused or reset before a response) is retried up to 20 times, 50-500 ms
//   apart (OTLP's retry rule), and counted in `retries`; an answer that is
//   not a plain success fails the run. Prints
//   `flood senders=N requests=R points=P ok=K retries=X failed=F`.
// abort-http --http URL --count C
//   C connections that send the headers of a POST with Content-Length 4096
//   and 1000 bytes of it, then reset the connection; then C more that send
//   only half of the headers. Prints `abort-http sent=2C`.
// abort-grpc --grpc HOST:PORT --count C
//   C HTTP/2 streams (node's http2, not grpc-js, to control the bytes) that
//   send an Export call's headers and a gRPC frame announcing 4096 bytes
//   with 1000 of them, then cancel the stream (RST_STREAM); then C sessions
//   that do the same and then destroy the TCP connection. Prints
//   `abort-grpc sent=2C`.
// grpc-file --grpc HOST:PORT --file F [--gzip 1]
//   F's bytes as one Export message (with --gzip 1: F is already gzip, sent
//   with the compressed flag and grpc-encoding: gzip). Prints
//   `grpc-file status=S message=...` (S = grpc-status, -1 = none).
// write-utf8 --out F
//   Writes a request of device u8 with three points of `fault_flood_bytes`:
//   interface swp1 = 111, interface "swp\xff\xfe2" (invalid UTF-8) = 222,
//   interface swp3 with a second attribute whose value is "\xc3(" = 333.
// Everything is bounded: a 60 s watchdog ends the process with status 2.
'use strict';

const http = require('http');
const http2 = require('http2');
const net = require('net');
const path = require('path');

const EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';

// ---- protobuf writer --------------------------------------------------------
function varint(n) {
    const out = [];
    let v = BigInt(n);
    do {
        let b = Number(v & 0x7fn);
        v >>= 7n;
        if (v > 0n) b |= 0x80;
        out.push(b);
    } while (v > 0n);
    return Buffer.from(out);
}
const tag = (field, wt) => varint((field << 3) | wt);
const len = (field, buf) => Buffer.concat([tag(field, 2), varint(buf.length), buf]);
const str = (field, s) => len(field, Buffer.from(s, 'utf8'));
function fixed64(field, n) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return Buffer.concat([tag(field, 1), b]);
}
function sfixed64(field, n) {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(n));
    return Buffer.concat([tag(field, 1), b]);
}
// KeyValue{key, value: AnyValue{string_value}}
const kv = (k, v) => Buffer.concat([str(1, k), len(2, Buffer.isBuffer(v) ? len(1, v) : str(1, v))]);

// ExportMetricsServiceRequest for one device: points[p] = {iface, value}.
// iface: a string, or a Buffer of raw bytes (possibly not UTF-8).
function request(device, timeNs, startNs, points) {
    const dps = points.map((pt) =>
        len(1, Buffer.concat([
            len(7, kv('interface', pt.iface)), // NumberDataPoint.attributes
            ...(pt.extra ? [len(7, kv(pt.extra[0], pt.extra[1]))] : []),
            fixed64(2, startNs),
            fixed64(3, timeNs),
            sfixed64(6, pt.value), // as_int
        ]))
    );
    // Sum{data_points, aggregation_temporality = CUMULATIVE (2), is_monotonic}
    const sum = Buffer.concat([...dps, tag(2, 0), varint(2), tag(3, 0), varint(1)]);
    const metric = Buffer.concat([str(1, 'fault_flood_bytes'), len(7, sum)]);
    const scope = len(2, metric); // ScopeMetrics.metrics
    const resource = len(1, len(1, kv('host.name', device))); // Resource.attributes
    return len(1, Buffer.concat([resource, len(2, scope)]));
}

// ---- flood ------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function httpPost(url, body) {
    return new Promise((resolve) => {
        const req = http.request(url, {
            method: 'POST',
            agent: false, // a connection of its own
            headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length },
            timeout: 20000,
        }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ answered: true, ok: res.statusCode === 200 && Buffer.concat(chunks).length === 0,
                                          status: res.statusCode }));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (e) => resolve({ answered: false, error: e.code || e.message }));
        req.end(body);
    });
}

function grpcPost(client, body) {
    return new Promise((resolve) => {
        client.makeUnaryRequest(EXPORT, (b) => b, (b) => b, body,
            { deadline: new Date(Date.now() + 20000) }, (err, resp) => {
                if (!err) resolve({ answered: true, ok: resp.length === 0 });
                // UNAVAILABLE before any answer: the connection failed.
                else if (err.code === 14) resolve({ answered: false, error: `grpc ${err.code} ${err.details}` });
                else resolve({ answered: true, ok: false, status: `grpc ${err.code} ${err.details}` });
            });
    });
}

async function flood(o, grpc) {
    const t0 = BigInt(Date.now()) * 1000000n;
    let ok = 0, retries = 0, failed = 0;
    const firstErr = [];
    async function sender(i) {
        const grpcSide = i % 2 === 1;
        const client = grpcSide
            ? new grpc.Client(o.grpc, grpc.credentials.createInsecure(),
                              { 'grpc.use_local_subchannel_pool': 1 })
            : null;
        for (let r = 0; r < o.requests; r++) {
            const pts = [];
            for (let p = 0; p < o.points; p++)
                pts.push({ iface: `swp${p}`, value: (i * 1000 + r) * 1000 + p });
            const body = request(`f${i}`, t0 + BigInt(r) * 1000000n, t0 - 1000000000n, pts);
            let res;
            for (let attempt = 0; attempt <= 20; attempt++) {
                res = grpcSide ? await grpcPost(client, body) : await httpPost(o.http, body);
                if (res.answered) break;
                retries++;
                await sleep(50 + Math.floor(Math.random() * 450));
            }
            if (res.answered && res.ok) ok++;
            else {
                failed++;
                if (firstErr.length < 5) firstErr.push(`sender ${i} request ${r}: ${JSON.stringify(res)}`);
            }
        }
        if (client) client.close();
    }
    const all = [];
    for (let i = 0; i < o.senders; i++) all.push(sender(i));
    await Promise.all(all);
    for (const e of firstErr) console.log(`error ${e}`);
    console.log(`flood senders=${o.senders} requests=${o.requests} points=${o.points} ok=${ok} retries=${retries} failed=${failed}`);
    return failed === 0;
}

// ---- aborts -----------------------------------------------------------------
function abortHttpOne(url, halfHeaders) {
    const u = new URL(url);
    return new Promise((resolve) => {
        const s = net.connect(Number(u.port), u.hostname, () => {
            const head = `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n` +
                'Content-Type: application/x-protobuf\r\nContent-Length: 4096\r\n\r\n';
            if (halfHeaders) s.write(head.slice(0, head.length >> 1));
            else s.write(Buffer.concat([Buffer.from(head), Buffer.alloc(1000, 0x0a)]));
            setTimeout(() => { s.resetAndDestroy(); resolve(); }, 20);
        });
        s.on('error', () => resolve());
    });
}

async function abortHttp(o) {
    const all = [];
    for (let i = 0; i < o.count; i++) all.push(abortHttpOne(o.http, false));
    await Promise.all(all);
    const half = [];
    for (let i = 0; i < o.count; i++) half.push(abortHttpOne(o.http, true));
    await Promise.all(half);
    console.log(`abort-http sent=${2 * o.count}`);
    return true;
}

function abortGrpcOne(session, destroySession) {
    return new Promise((resolve) => {
        const req = session.request({
            ':method': 'POST', ':path': EXPORT, 'content-type': 'application/grpc', te: 'trailers',
        });
        req.on('error', () => {});
        req.on('close', () => resolve());
        const prefix = Buffer.from([0, 0, 0, 0x10, 0x00]); // uncompressed, 4096 bytes
        req.write(Buffer.concat([prefix, Buffer.alloc(1000, 0x0a)]), () => {
            setTimeout(() => {
                if (destroySession) session.destroy();
                else req.close(http2.constants.NGHTTP2_CANCEL);
                resolve();
            }, 20);
        });
    });
}

async function abortGrpc(o) {
    const session = http2.connect(`http://${o.grpc}`);
    session.on('error', () => {});
    const all = [];
    for (let i = 0; i < o.count; i++) all.push(abortGrpcOne(session, false));
    await Promise.all(all);
    session.close();
    const tcp = [];
    for (let i = 0; i < o.count; i++) {
        const s = http2.connect(`http://${o.grpc}`);
        s.on('error', () => {});
        tcp.push(abortGrpcOne(s, true));
    }
    await Promise.all(tcp);
    console.log(`abort-grpc sent=${2 * o.count}`);
    return true;
}

// ---- one raw message, invalid UTF-8 ------------------------------------------
function grpcFile(o) {
    const fs = require('fs');
    const bytes = fs.readFileSync(o.file);
    const gz = o.gzip === '1';
    return new Promise((resolve) => {
        const session = http2.connect(`http://${o.grpc}`);
        session.on('error', (e) => { console.log(`grpc-file status=-1 message=${e.code || e.message}`); resolve(true); });
        const headers = { ':method': 'POST', ':path': EXPORT, 'content-type': 'application/grpc', te: 'trailers' };
        if (gz) headers['grpc-encoding'] = 'gzip';
        const req = session.request(headers);
        let status = -1, message = '';
        const take = (h) => {
            if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']);
            if (h['grpc-message'] !== undefined) message = decodeURIComponent(h['grpc-message']);
        };
        req.on('response', take);
        req.on('trailers', take);
        req.on('data', () => {});
        req.on('error', () => {});
        req.on('close', () => {
            console.log(`grpc-file status=${status} message=${message.replace(/\s+/g, ' ')}`);
            session.close();
            resolve(true);
        });
        const prefix = Buffer.alloc(5);
        prefix[0] = gz ? 1 : 0;
        prefix.writeUInt32BE(bytes.length, 1);
        req.end(Buffer.concat([prefix, bytes]));
    });
}

function writeUtf8(o) {
    const t = BigInt(Date.now()) * 1000000n;
    const body = request('u8', t, t - 1000000000n, [
        { iface: 'swp1', value: 111 },
        { iface: Buffer.from([0x73, 0x77, 0x70, 0xff, 0xfe, 0x32]), value: 222 },
        { iface: 'swp3', value: 333, extra: ['note', Buffer.from([0xc3, 0x28])] },
    ]);
    require('fs').writeFileSync(o.out, body);
    return true;
}

// ---- main -------------------------------------------------------------------
function parse(argv) {
    const o = { modules: argv[0], mode: argv[1], senders: 1000, requests: 2, points: 2, count: 50 };
    for (let i = 2; i < argv.length; i += 2) {
        const k = argv[i].replace(/^--/, ''), v = argv[i + 1];
        if (v === undefined) throw new Error(`${argv[i]} needs a value`);
        o[k] = ['senders', 'requests', 'points', 'count'].includes(k) ? Number(v) : v;
    }
    return o;
}

async function main() {
    const o = parse(process.argv.slice(2));
    const watchdog = setTimeout(() => { console.log('watchdog: 60 s passed'); process.exit(2); }, 60000);
    const grpc = require(path.join(path.resolve(o.modules), '@grpc/grpc-js'));
    let good;
    if (o.mode === 'flood') good = await flood(o, grpc);
    else if (o.mode === 'abort-http') good = await abortHttp(o);
    else if (o.mode === 'abort-grpc') good = await abortGrpc(o);
    else if (o.mode === 'grpc-file') good = await grpcFile(o);
    else if (o.mode === 'write-utf8') good = writeUtf8(o);
    else throw new Error(`unknown mode ${o.mode}`);
    clearTimeout(watchdog);
    process.exitCode = good ? 0 : 1;
}

main().catch((e) => {
    console.log(`fatal ${String(e && e.stack ? e.stack : e).replace(/\s+/g, ' ')}`);
    process.exit(1);
});
