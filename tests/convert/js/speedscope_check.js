#!/usr/bin/env node
// Validates a speedscope file against the schema shipped in speedscope's npm
// package (with ajv), then summarizes it for the C++ test to compare with
// the Profile: per frame name, the weight where it is the leaf (self) and
// the total weight, plus the frame names.
//
// usage: node speedscope_check.js FILE.json
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const file = process.argv[2];
const schema_path = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/file-format-schema.json');
const schema = JSON.parse(fs.readFileSync(schema_path, 'utf8'));
const data = JSON.parse(fs.readFileSync(file, 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
const valid = validate(data);
const out = { valid, errors: valid ? [] : validate.errors.slice(0, 5), schema: schema_path, self: {}, frames: 0, profiles: 0, units: [], total: 0, samples: 0 };
if (valid) {
  const names = data.shared.frames.map((f) => f.name);
  out.frames = names.length;
  out.profiles = data.profiles.length;
  for (const p of data.profiles) {
    out.units.push(p.unit);
    if (p.samples.length !== p.weights.length) throw new Error('samples and weights differ in length');
    let sum = 0;
    p.samples.forEach((stack, i) => {
      const w = p.weights[i];
      sum += w;
      out.samples++;
      if (stack.length) {
        const leaf = names[stack[stack.length - 1]];
        out.self[leaf] = (out.self[leaf] || 0) + w;
      }
    });
    if (sum !== p.endValue - p.startValue) throw new Error(`profile ${p.name}: weights sum ${sum} != endValue ${p.endValue}`);
    out.total += sum;
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
