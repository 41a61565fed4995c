#!/usr/bin/env node
// gRPC admission attacks on the OTLP receiver (faults_admit.sh),
// with node's own http2 (no grpc-js: the bytes are ours).
//
//   node faults_admit_grpc.js stall --grpc HOST:PORT --calls N --src ADDR --seconds S
//     N Export calls from source address ADDR, 16 per HTTP/2 connection (under
//     the server's concurrent-stream cap), that send their headers and never
//     a message, held for S seconds at most.
//     Prints `opened=N` once all were sent, then `stall calls=N
//     closed_by_server=X held_at_end=H first_close_s=F last_close_s=L
//     statuses=...` (grpc-status of the closed calls).
//   node faults_admit_grpc.js export --grpc HOST:PORT --count N --gap G [--src ADDR]
//     N Export calls from ADDR (default 127.0.0.1; an empty message, a new connection each),
//     one every G seconds, 5 s deadline each. Prints one line per call and
//     `export count=N ok=O max_s=T` (T: the slowest; a failed one counts 5).
//   node faults_admit_grpc.js big --grpc HOST:PORT --mib M
//     One Export whose message announces M MiB and carries them (zeros, in
//     64 KiB writes while the server takes them). Prints `big mib=M
//     status=S sent_mib=X s=T` (S: grpc-status, -1 = none; X: MiB the
//     server let us send before answering).
// Everything is bounded: a 90 s watchdog ends the process with status 2.
'use strict';

const http2 = require('http2');
const net = require('net');

const EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
setTimeout(() => { console.log('watchdog'); process.exit(2); }, 90000).unref();

function args(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, '')] = argv[i + 1];
    return o;
}

function session(hostport, src) {
    const [host, port] = hostport.split(':');
    return http2.connect(`http://${hostport}`, {
        createConnection: () => net.connect({ host, port: Number(port), localAddress: src }),
    });
}

function headers() {
    return {
        ':method': 'POST', ':path': EXPORT, 'content-type': 'application/grpc', te: 'trailers',
    };
}

function frame(len) {
    const b = Buffer.alloc(5);
    b.writeUInt32BE(len, 1);
    return b;
}

// Resolves with the grpc-status (-1 when the stream ended without one).
function watchStatus(req) {
    return new Promise((resolve) => {
        let status = -1;
        const take = (h) => { if (h['grpc-status'] !== undefined) status = Number(h['grpc-status']); };
        req.on('response', take);
        req.on('trailers', take);
        req.on('data', () => {});
        req.on('close', () => resolve(status));
        req.on('error', () => {});
    });
}

async function stall(o) {
    const n = Number(o.calls);
    const t0 = Date.now();
    const sessions = [];
    const closes = [];
    const statuses = {};
    let open = n;
    const done = [];
    for (let i = 0; i < n; i++) {
        if (i % 16 === 0) {
            const ns = session(o.grpc, o.src || '127.0.0.2');
            ns.on('error', () => {});
            sessions.push(ns);
        }
        const req = sessions[sessions.length - 1].request(headers(), { endStream: false });
        done.push(watchStatus(req).then((st) => {
            closes.push((Date.now() - t0) / 1000);
            statuses[st] = (statuses[st] || 0) + 1;
            open--;
        }));
    }
    console.log(`opened=${n}`);
    await Promise.race([Promise.all(done), new Promise((r) => setTimeout(r, Number(o.seconds) * 1000))]);
    closes.sort((a, b) => a - b);
    const st = Object.entries(statuses).map(([k, v]) => `${k}:${v}`).join(',');
    console.log(`stall calls=${n} closed_by_server=${closes.length} held_at_end=${open} ` +
        `first_close_s=${closes.length ? closes[0].toFixed(1) : -1} ` +
        `last_close_s=${closes.length ? closes[closes.length - 1].toFixed(1) : -1} statuses=${st}`);
    sessions.forEach((x) => x.destroy());
    process.exit(0);
}

function oneExport(hostport, src) {
    return new Promise((resolve) => {
        const t0 = Date.now();
        const s = session(hostport, src || '127.0.0.1');
        s.on('error', () => {});
        const timer = setTimeout(() => { s.destroy(); resolve({ status: 'timeout', s: 5 }); }, 5000);
        const req = s.request(headers());
        watchStatus(req).then((st) => {
            clearTimeout(timer);
            s.close();
            resolve({ status: st, s: (Date.now() - t0) / 1000 });
        });
        req.end(frame(0));
    });
}

async function exportMany(o) {
    let ok = 0;
    let worst = 0;
    for (let k = 0; k < Number(o.count); k++) {
        const t0 = Date.now();
        const r = await oneExport(o.grpc, o.src);
        console.log(`export ${k} status=${r.status} s=${r.s.toFixed(3)}`);
        if (r.status === 0) ok++;
        worst = Math.max(worst, r.status === 0 ? r.s : 5);
        const wait = Number(o.gap) * 1000 - (Date.now() - t0);
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
    console.log(`export count=${o.count} ok=${ok} max_s=${worst.toFixed(3)}`);
    process.exit(0);
}

async function big(o) {
    const mib = Number(o.mib);
    const total = mib * 1024 * 1024;
    const t0 = Date.now();
    const s = session(o.grpc, '127.0.0.1');
    s.on('error', () => {});
    const req = s.request(headers(), { endStream: false });
    const status = watchStatus(req);
    let sent = 0;
    let over = false;
    status.then(() => { over = true; });
    const chunk = Buffer.alloc(64 * 1024);
    req.write(frame(total));
    while (!over && sent < total) {
        const okw = req.write(chunk);
        sent += chunk.length;
        if (!okw) {
            await new Promise((r) => {
                const t = setTimeout(r, 2000); // a server that stops reading
                req.once('drain', () => { clearTimeout(t); r(); });
                status.then(() => { clearTimeout(t); r(); });
            });
        }
        if (Date.now() - t0 > 60000) break;
    }
    if (!over) req.end();
    const st = await Promise.race([status, new Promise((r) => setTimeout(() => r(-1), 20000))]);
    console.log(`big mib=${mib} status=${st} sent_mib=${(sent / 1048576).toFixed(1)} ` +
        `s=${((Date.now() - t0) / 1000).toFixed(2)}`);
    s.destroy();
    process.exit(0);
}

const [mode, ...rest] = process.argv.slice(2);
const o = args(rest);
if (mode === 'stall') stall(o);
else if (mode === 'export') exportMany(o);
else if (mode === 'big') big(o);
else { console.error('usage: stall|export|big ...'); process.exit(1); }
