#!/usr/bin/env node
// The real OpenTelemetry JS metrics SDK as an OTLP sender for fabricscope's
// integration tests (tests/integration/otlp_sdk_test.sh). Cumulus-like
// instruments with scripted values, exported N times through one of the three
// OTLP exporters of the SDK, then shut down.
//
//   node sender.js --protocol grpc|http-proto|http-json --endpoint URL
//                  [--gzip] [--exports N] [--interval-ms M]
//                  [--temporality cumulative|delta] [--host-name sw1]
//                  [--release 5.11|5.14|5.15|5.16|none]
//
// --release replaces the instruments below with one Cumulus release's
// interface name set (NVIDIA CumulusNetworks/docs, Open-Telemetry-Export.md
// of that release; tests/integration/otlp_cumulus_releases_test.sh has the
// known answers), all ObservableGauge doubles on interface swp1, collection
// k = 1..N:
//   every set: oper_state 1 (its time is the printed time_ms)
//   5.11: no interface octets. tc_tx_octet {tc 0, 3, 7 (int)}:
//         1e9 + 1e6 k, 2e9 + 2e6 k, 3e9 + 3e6 k; pg_rx_octet {pg 0, 3}:
//         4e9 + 1e6 k, 5e9 + 4e6 k; sp_rx_octets / sp_tx_octets {sp 3}:
//         7e9 + 9e6 k; performance_marked_packets {marking ecn}: k
//   5.14: if_in_octets and its duplicate ether_stats_octets 5e9 + 7e6 k,
//         if_out_octets 6e9 + 8e6 k, tc_tx_octet {tc 0} 1e6 k,
//         pg_rx_octet {pg 0} 2e6 k
//   5.14, 5.15, 5.16 also: ether_stats_pkts 4e6 + 3e3 k,
//         802_dot3_a_frames_transmitted_ok 3e6 + 2e3 k, tc_tx_queue {tc 0}
//         100 + k (a level); 5.15 alone if_out_pkts 5e5 + k
//   5.15: ether_stats_octets 5e9 + 7e6 k, if_out_octets 6e9 + 8e6 k,
//         pg_rx_octet {pg 0} 2e6 k
//   5.16: as 5.15, plus the egress_buffer histogram below (the switch's
//         default from 5.13 is delta: run it with --temporality delta)
//   none: oper_state and dot3_stats_fcs_errors 0 only (no byte counter)
//
// --endpoint: gRPC "http://127.0.0.1:PORT"; HTTP the full URL
// "http://127.0.0.1:PORT/v1/metrics". --gzip sets the exporter's
// `compression: 'gzip'` (gRPC message compression / HTTP Content-Encoding).
//
// stdout, one line per event (the test parses them):
//   collect n=K time_ms=T start_ms=S points=P   what the SDK collected
//   export n=K result=success                   the exporter's verdict
//   export n=K result=failure error=...
//   done exports=N failures=F
// Exit status 0 only when every export succeeded (2 for bad arguments).
//
// Scripted values, collection k = 1..N (k counts collections of this run):
//   ObservableGauge nvswitch_interface_if_in_octets  (double, unit By)
//       {interface=swp1}: 1e12 + k * 1e9     {interface=swp2}: 2e12 + k * 5e8
//   ObservableGauge nvswitch_interface_if_out_octets
//       {interface=swp1}: 3e12 + k * 2.5e8   {interface=swp2}: 4e12 + k * 1e8
//   ObservableGauge nvswitch_interface_shared_buffer_port_tc_watermark
//       {interface=swp1, tc=3 (int)}: 1000 * k
//   Counter (monotonic Sum, int) nvswitch_control_plane_rx_packets:
//       add(100 * k) at collection k, so the total after N is 50 N (N + 1)
//   Counter (monotonic Sum, double) nvswitch_control_plane_rx_bytes:
//       add(1500.25 * k): total 750.125 N (N + 1) (exact in binary)
//   Histogram nvswitch_histogram_interface_egress_buffer (unit bytes), 9
//       explicit bounds HIST_BOUNDS below, {interface=swp1, tc=0 (int)}:
//       the 6 values HIST_VALUES recorded at every collection.
// The values are exact in a double (all below 2^53), so the receiver must
// show them unchanged.
//
// Rates. The SDK stamps every point of one collection with the same
// time_unix_nano, taken from Date.now() (whole milliseconds:
// MetricCollector.collect, millisToHrTime(Date.now())), and we print it as
// time_ms. The gauge is linear in k, NOT in time: the scheduler's jitter
// moves the timestamps, so the per-interval rate is 1e9 / (t_k - t_{k-1}),
// not a constant. The test therefore derives the expected rate from the
// printed (t_k, v_k) pairs exactly as rule 9 of docs/DESIGN.md, "The rate
// rules" defines an aligned window: interpolate the counter linearly at the
// window's two edges and divide the difference by the width. That is exact
// up to float rounding whatever the jitter. Collections are scheduled at
// phase M/2 of an epoch-aligned M grid (x.125, x.375, ... for M = 250), so a
// collection falls on a window edge only when it is late by M/2.
//
// What the SDK sends (recorded with a throwaway dump server: SDK 2.12.0,
// exporters 0.223.0, grpc-js 1.14.7; the same content over gRPC, HTTP/protobuf
// and HTTP/JSON):
//   - one ResourceMetrics per export; resource attributes = exactly
//     {host.name, service.name} as given (an explicit resource replaces the
//     SDK defaults); one ScopeMetrics, scope {name "fabricscope-otlp-interop",
//     version "1.0.0"}; metrics in creation order, one data point per
//     attribute set.
//   - ObservableGauge -> Metric.gauge, NumberDataPoint.as_double (valueType
//     DOUBLE by default; 1000 is sent as the double 1000), time_unix_nano =
//     this collection's, start_time_unix_nano = the FIRST collection's time
//     for the whole run under CUMULATIVE, the PREVIOUS collection's under
//     DELTA (a gauge has no temporality on the wire; the SDK still follows
//     the reader's).
//     Attributes: string `interface`, int `tc` (int_value).
//   - Counter INT -> Metric.sum is_monotonic=true, as_int; Counter DOUBLE ->
//     as_double. No attributes. CUMULATIVE (aggregation_temporality 2):
//     start_time_unix_nano = the first add() (about 1 ms before the first
//     collection), the same for every export; value = running total.
//     DELTA (1): start = the previous collection's time (the first: the first
//     add()), value = the increment of the interval.
//   - Histogram -> Metric.histogram with temporality 2 or 1 like the Sum;
//     count, sum, min, max, bucket_counts (10 = bounds + 1) and
//     explicit_bounds (9) on every point; CUMULATIVE counts since start,
//     DELTA counts of the interval (here the same 6 values every time:
//     buckets [1,1,0,2,0,0,0,0,1,1], count 6, sum 512020).
//   - Every point of a collection carries the same time_unix_nano, a whole
//     millisecond (ns = ms * 1e6).
//   - HTTP/JSON (Content-Type application/json): lowerCamelCase keys;
//     timeUnixNano / startTimeUnixNano as decimal STRINGS, but asInt,
//     intValue, count and bucketCounts as JSON NUMBERS; enums as integers;
//     description "" and unit "" present; attributes [] on points without.
//   - HTTP/protobuf: Content-Type application/x-protobuf. With --gzip both
//     HTTP exporters send Content-Encoding: gzip; the gRPC exporter sets
//     grpc.default_compression_algorithm (grpc-encoding gzip, compressed flag).
//   - gRPC: user-agent "OTel-OTLP-Exporter-JavaScript/0.223.0
//     grpc-node-js/1.14.7". A refused connection fails an export at once over
//     gRPC (UNAVAILABLE) but is retried over HTTP until timeoutMillis (5 s).
'use strict';

const { diag, DiagConsoleLogger, DiagLogLevel, ValueType } = require('@opentelemetry/api');
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { AggregationTemporalityPreference } = require('@opentelemetry/exporter-metrics-otlp-http');

const HIST_BOUNDS = [960, 1920, 3840, 7680, 15360, 30720, 61440, 122880, 245760];
// 100 -> le 960; 1920 lies ON a bound, which is the bucket's inclusive upper
// edge -> le 1920; 5000 twice -> le 7680; 200000 -> le 245760; 300000 is past
// the last bound -> +Inf. Bucket counts per collection: [1,1,0,2,0,0,0,0,1,1].
const HIST_VALUES = [100, 1920, 5000, 5000, 200000, 300000];

function usage(msg) {
    process.stderr.write(
        `sender.js: ${msg}\n` +
            'usage: node sender.js --protocol grpc|http-proto|http-json --endpoint URL ' +
            '[--gzip] [--exports N] [--interval-ms M] [--temporality cumulative|delta] ' +
            '[--host-name NAME]\n'
    );
    process.exit(2);
}

function parseArgs(argv) {
    const o = {
        protocol: '',
        endpoint: '',
        gzip: false,
        exports: 12,
        intervalMs: 250,
        temporality: 'cumulative',
        hostName: 'sw1',
        release: '',
    };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const next = () => {
            if (i + 1 >= argv.length) usage(`${a} needs a value`);
            return argv[++i];
        };
        if (a === '--protocol') o.protocol = next();
        else if (a === '--endpoint') o.endpoint = next();
        else if (a === '--gzip') o.gzip = true;
        else if (a === '--exports') o.exports = Number(next());
        else if (a === '--interval-ms') o.intervalMs = Number(next());
        else if (a === '--temporality') o.temporality = next();
        else if (a === '--host-name') o.hostName = next();
        else if (a === '--release') o.release = next();
        else usage(`unknown argument ${a}`);
    }
    if (!['grpc', 'http-proto', 'http-json'].includes(o.protocol)) usage('bad --protocol');
    if (!o.endpoint) usage('--endpoint is required');
    if (!Number.isInteger(o.exports) || o.exports < 1 || o.exports > 1000) usage('bad --exports');
    if (!Number.isInteger(o.intervalMs) || o.intervalMs < 10 || o.intervalMs > 60000)
        usage('bad --interval-ms');
    if (!['cumulative', 'delta'].includes(o.temporality)) usage('bad --temporality');
    if (!['', '5.11', '5.14', '5.15', '5.16', 'none'].includes(o.release)) usage('bad --release');
    return o;
}

function makeExporter(o) {
    const common = {
        url: o.endpoint,
        compression: o.gzip ? 'gzip' : 'none',
        timeoutMillis: 5000, // per export, retries included: a dead receiver fails fast
        // The enum, not a string: a string would fall through to CUMULATIVE.
        temporalityPreference:
            o.temporality === 'delta'
                ? AggregationTemporalityPreference.DELTA
                : AggregationTemporalityPreference.CUMULATIVE,
    };
    if (o.protocol === 'grpc') {
        const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-grpc');
        return new OTLPMetricExporter(common);
    }
    if (o.protocol === 'http-proto') {
        const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-proto');
        return new OTLPMetricExporter(common);
    }
    const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http');
    return new OTLPMetricExporter(common);
}

// A reader that collects only when told to: every collection is one export,
// and we see each export's result (PeriodicExportingMetricReader would add a
// final export at shutdown and hand failures to the global error handler).
// The exporter chooses temporality and aggregation, as in the periodic reader.
class ManualReader extends MetricReader {
    constructor(exporter) {
        super({
            aggregationSelector: exporter.selectAggregation?.bind(exporter),
            aggregationTemporalitySelector: exporter.selectAggregationTemporality?.bind(exporter),
        });
    }
    async onForceFlush() {}
    async onShutdown() {}
}

function exportOnce(exporter, resourceMetrics) {
    return new Promise((resolve) => exporter.export(resourceMetrics, resolve));
}

function hrToMs(hr) {
    return hr[0] * 1000 + Math.floor(hr[1] / 1e6);
}

function sleep(ms) {
    return new Promise((r) => setTimeout(r, ms));
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    if (process.env.SENDER_DEBUG) diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG);

    const exporter = makeExporter(o);
    const reader = new ManualReader(exporter);
    const provider = new MeterProvider({
        // service.name: a second resource attribute, which must make no label.
        resource: resourceFromAttributes({
            'host.name': o.hostName,
            'service.name': 'fabricscope-otlp-sender',
        }),
        readers: [reader],
    });
    const meter = provider.getMeter('fabricscope-otlp-interop', '1.0.0');

    let k = 0; // the collection being made (1-based inside the callbacks)
    if (o.release) return runRelease(o, exporter, reader, provider, meter, () => k, (v) => (k = v));
    const inOctets = meter.createObservableGauge('nvswitch_interface_if_in_octets', { unit: 'By' });
    inOctets.addCallback((r) => {
        r.observe(1e12 + k * 1e9, { interface: 'swp1' });
        r.observe(2e12 + k * 5e8, { interface: 'swp2' });
    });
    const outOctets = meter.createObservableGauge('nvswitch_interface_if_out_octets', {
        unit: 'By',
    });
    outOctets.addCallback((r) => {
        r.observe(3e12 + k * 2.5e8, { interface: 'swp1' });
        r.observe(4e12 + k * 1e8, { interface: 'swp2' });
    });
    const watermark = meter.createObservableGauge(
        'nvswitch_interface_shared_buffer_port_tc_watermark',
        { unit: 'bytes' }
    );
    watermark.addCallback((r) => r.observe(1000 * k, { interface: 'swp1', tc: 3 }));
    const rxPackets = meter.createCounter('nvswitch_control_plane_rx_packets', {
        valueType: ValueType.INT,
    });
    const rxBytes = meter.createCounter('nvswitch_control_plane_rx_bytes', { unit: 'By' });
    const egress = meter.createHistogram('nvswitch_histogram_interface_egress_buffer', {
        unit: 'bytes',
        advice: { explicitBucketBoundaries: HIST_BOUNDS },
    });

    // Epoch-aligned schedule at phase M/2 (see "Rates" above).
    const M = o.intervalMs;
    let deadline = (Math.floor(Date.now() / M) + 1) * M + Math.floor(M / 2);
    let failures = 0;
    for (k = 1; k <= o.exports; k++) {
        const wait = deadline - Date.now();
        if (wait > 0) await sleep(wait);
        deadline += M;
        rxPackets.add(100 * k);
        rxBytes.add(1500.25 * k);
        for (const v of HIST_VALUES) egress.record(v, { interface: 'swp1', tc: 0 });

        const { resourceMetrics, errors } = await reader.collect();
        if (errors.length) {
            failures++;
            console.log(`collect n=${k} errors=${errors.length} first=${String(errors[0])}`);
            continue;
        }
        let time = -1;
        let start = -1;
        let points = 0;
        for (const sm of resourceMetrics.scopeMetrics)
            for (const m of sm.metrics)
                for (const dp of m.dataPoints) {
                    points++;
                    if (m.descriptor.name === 'nvswitch_interface_if_in_octets') {
                        time = hrToMs(dp.endTime);
                        start = hrToMs(dp.startTime);
                    }
                }
        console.log(`collect n=${k} time_ms=${time} start_ms=${start} points=${points}`);
        if (!(await exportReported(exporter, resourceMetrics, k))) failures++;
    }
    await finish(o, exporter, provider, failures);
}

// Exports one collection and prints the verdict line; true on success.
async function exportReported(exporter, resourceMetrics, k) {
    const res = await exportOnce(exporter, resourceMetrics);
    if (res.code === 0) {
        console.log(`export n=${k} result=success`);
        return true;
    }
    const msg = String((res.error && res.error.message) || res.error).replace(/\s+/g, ' ');
    console.log(`export n=${k} result=failure error=${msg}`);
    return false;
}

async function finish(o, exporter, provider, failures) {
    await provider.shutdown();
    await exporter.shutdown();
    console.log(`done exports=${o.exports} failures=${failures}`);
    process.exitCode = failures ? 1 : 0;
}

// One Cumulus release's name set (see the header); the same schedule and
// output lines as main().
async function runRelease(o, exporter, reader, provider, meter, getK, setK) {
    const NV = 'nvswitch_interface_';
    const sw = 'swp1';
    const gauge = (name, points) =>
        meter
            .createObservableGauge(NV + name)
            .addCallback((r) => points(getK()).forEach(([v, a]) => r.observe(v, { interface: sw, ...a })));
    gauge('oper_state', () => [[1, {}]]);
    let egress = null;
    if (o.release === '5.11') {
        gauge('tc_tx_octet', (k) => [
            [1e9 + 1e6 * k, { tc: 0 }],
            [2e9 + 2e6 * k, { tc: 3 }],
            [3e9 + 3e6 * k, { tc: 7 }],
        ]);
        gauge('pg_rx_octet', (k) => [
            [4e9 + 1e6 * k, { pg: 0 }],
            [5e9 + 4e6 * k, { pg: 3 }],
        ]);
        gauge('sp_rx_octets', (k) => [[7e9 + 9e6 * k, { sp: 3 }]]);
        gauge('sp_tx_octets', (k) => [[7e9 + 9e6 * k, { sp: 3 }]]);
        gauge('performance_marked_packets', (k) => [[k, { marking: 'ecn' }]]);
    } else if (o.release === 'none') {
        gauge('dot3_stats_fcs_errors', () => [[0, {}]]);
    } else {
        if (o.release === '5.14') gauge('if_in_octets', (k) => [[5e9 + 7e6 * k, {}]]);
        gauge('ether_stats_octets', (k) => [[5e9 + 7e6 * k, {}]]);
        gauge('if_out_octets', (k) => [[6e9 + 8e6 * k, {}]]);
        if (o.release === '5.14') gauge('tc_tx_octet', (k) => [[1e6 * k, { tc: 0 }]]);
        gauge('pg_rx_octet', (k) => [[2e6 * k, { pg: 0 }]]);
        gauge('ether_stats_pkts', (k) => [[4e6 + 3e3 * k, {}]]);
        gauge('802_dot3_a_frames_transmitted_ok', (k) => [[3e6 + 2e3 * k, {}]]);
        gauge('tc_tx_queue', (k) => [[100 + k, { tc: 0 }]]);
        if (o.release === '5.15') gauge('if_out_pkts', (k) => [[5e5 + k, {}]]);
        if (o.release === '5.16')
            egress = meter.createHistogram('nvswitch_histogram_interface_egress_buffer', {
                unit: 'bytes',
                advice: { explicitBucketBoundaries: HIST_BOUNDS },
            });
    }
    const M = o.intervalMs;
    let deadline = (Math.floor(Date.now() / M) + 1) * M + Math.floor(M / 2);
    let failures = 0;
    for (let k = 1; k <= o.exports; k++) {
        setK(k);
        const wait = deadline - Date.now();
        if (wait > 0) await sleep(wait);
        deadline += M;
        if (egress) for (const v of HIST_VALUES) egress.record(v, { interface: sw, tc: 0 });
        const { resourceMetrics, errors } = await reader.collect();
        if (errors.length) {
            failures++;
            console.log(`collect n=${k} errors=${errors.length} first=${String(errors[0])}`);
            continue;
        }
        let time = -1;
        let points = 0;
        for (const sm of resourceMetrics.scopeMetrics)
            for (const m of sm.metrics)
                for (const dp of m.dataPoints) {
                    points++;
                    if (m.descriptor.name === NV + 'oper_state') time = hrToMs(dp.endTime);
                }
        console.log(`collect n=${k} time_ms=${time} points=${points}`);
        if (!(await exportReported(exporter, resourceMetrics, k))) failures++;
    }
    await finish(o, exporter, provider, failures);
}

main().catch((e) => {
    console.log(`fatal error=${String(e && e.stack ? e.stack : e).replace(/\s+/g, ' ')}`);
    process.exitCode = 1;
});
