// A kafkajs consumer: reads a topic from the beginning and prints every
// message as one JSON line {"partition", "offset", "key", "value"}, an
// independent client to check what fabricscope produced.
//
//   node consume.js --bootstrap-file FILE --topic TOPIC --count N [--timeout-ms MS]
//
// Exits 0 once N messages arrived (it then waits 1 s more and reports any
// extra message too, so duplicates are seen), 1 when the timeout (default
// 30 s) passed first. Bounded: it never waits longer than the timeout + 1 s.
'use strict';
const fs = require('fs');
const { Kafka, logLevel, CompressionTypes, CompressionCodecs } = require('kafkajs');
const lz4 = require('lz4js');

// kafkajs ships no LZ4 codec; fabricscope compresses with LZ4 by default.
// lz4js (plain JavaScript) reads the LZ4 frame format Kafka uses.
CompressionCodecs[CompressionTypes.LZ4] = () => ({
  compress: async (encoder) => Buffer.from(lz4.compress(encoder.buffer)),
  decompress: async (buffer) => Buffer.from(lz4.decompress(buffer)),
});

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

async function main() {
  const brokers = fs.readFileSync(arg('--bootstrap-file'), 'utf8').trim().split(',');
  const topic = arg('--topic', 'fabric.events');
  const want = parseInt(arg('--count', '0'), 10);
  const timeoutMs = parseInt(arg('--timeout-ms', '30000'), 10);
  const kafka = new Kafka({ clientId: 'fabricscope-test', brokers, logLevel: logLevel.ERROR,
                            retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 } });
  const consumer = kafka.consumer({ groupId: `fsc-test-${process.pid}-${Date.now()}`,
                                    sessionTimeout: 10000, heartbeatInterval: 1000,
                                    maxWaitTimeInMs: 200 });
  let got = 0;
  let doneAt = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      got++;
      process.stdout.write(JSON.stringify({
        partition, offset: message.offset,
        key: message.key ? message.key.toString('utf8') : null,
        value: message.value ? message.value.toString('utf8') : null,
      }) + '\n');
      if (got >= want && !doneAt) doneAt = Date.now();
    },
  });
  const start = Date.now();
  // Wait for N, then 1 s more for extra (duplicate) messages.
  while (Date.now() - start < timeoutMs && !(doneAt && Date.now() - doneAt >= 1000))
    await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  console.error(`consumed ${got} of ${want}`);
  return got >= want ? 0 : 1;
}

main().then((rc) => { process.exitCode = rc; },
            (e) => { console.error(`consume.js: ${e.message}`); process.exitCode = 1; });
