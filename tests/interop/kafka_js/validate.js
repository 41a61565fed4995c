// Validates fabricscope event documents against docs/schema/fabric-event.schema.json
// with ajv (JSON Schema draft 2020-12, formats checked by ajv-formats): an
// implementation independent of the C encoder.
//
//   node validate.js SCHEMA [--all-types] FILE...
//
// A FILE ending in .md contributes every ```json fenced block (docs/EVENTS.md);
// any other FILE is JSON lines: one document per line, or a consumer line
// whose "value" (consume.js) or "payload" (kcat -J) is the document.
// --all-types: every "type" of the schema must occur at least once.
// Prints "valid N documents" and exits 0 when all are valid (and N > 0);
// otherwise prints each invalid document's errors and exits 1.
'use strict';
const fs = require('fs');
const Ajv2020 = require('ajv/dist/2020');
const addFormats = require('ajv-formats');

function documents(file) {
  const text = fs.readFileSync(file, 'utf8');
  const out = [];
  if (file.endsWith('.md')) {
    const re = /^```json\n([\s\S]*?)^```$/gm;
    let m;
    while ((m = re.exec(text)) !== null)
      out.push({ where: `${file}: block ${out.length + 1}`, text: m[1] });
    return out;
  }
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '') out.push({ where: `${file}:${i + 1}`, text: line });
  });
  return out;
}

function main(argv) {
  const args = argv.slice(2);
  const schemaFile = args.shift();
  let allTypes = false;
  if (args[0] === '--all-types') {
    allTypes = true;
    args.shift();
  }
  if (!schemaFile || args.length === 0) {
    console.error('usage: node validate.js SCHEMA [--all-types] FILE...');
    return 2;
  }
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  // strictRequired off: the per-type rules require properties that are
  // defined once at the top level, which is how the schema is meant to read.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const seen = new Set();
  let n = 0, bad = 0;
  for (const file of args) {
    for (const d of documents(file)) {
      n++;
      let doc;
      try {
        doc = JSON.parse(d.text);
        // A consumer line: consume.js' "value" or kcat -J's "payload".
        if (doc && doc.schema === undefined && typeof (doc.value ?? doc.payload) === 'string')
          doc = JSON.parse(doc.value ?? doc.payload);
      } catch (e) {
        bad++;
        console.log(`INVALID ${d.where}: not JSON: ${e.message}`);
        continue;
      }
      if (!validate(doc)) {
        bad++;
        // The first few errors: the rest mostly follow from them.
        console.log(`INVALID ${d.where}: ${ajv.errorsText(validate.errors.slice(0, 8), { separator: '; ' })}`);
        continue;
      }
      seen.add(doc.type);
    }
  }
  if (allTypes) {
    const missing = schema.properties.type.enum.filter((t) => !seen.has(t));
    if (missing.length) {
      bad++;
      console.log(`MISSING types without an example: ${missing.join(', ')}`);
    }
  }
  if (n === 0) {
    console.log('no documents found');
    return 1;
  }
  console.log(bad ? `${bad} of ${n} documents invalid` : `valid ${n} documents`);
  return bad ? 1 : 0;
}

process.exitCode = main(process.argv);
