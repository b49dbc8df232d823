// Two builds of the wasm estimator raced in one Node process, turn about,
// on the same texts: the check that a change to the scanner costs no speed
// (the estimator's re-layout allowed splitting `scan` only if it shows no loss). Run-to-run
// noise on a shared machine is several percent; pairing each round of one
// build with a round of the other cancels most of it (the same build
// against itself gives 1.00 ± 0.005).
//
//   node benches/ab.mjs <pkg dir A> <pkg dir B> [corpus.jsonl] [--rounds N] [--weights-differ]
//
// e.g. build main's package into another folder, then
//   node benches/ab.mjs pkg ../main/pkg
// It prints the median time of each build and the median of the paired
// ratios A ÷ B, for one call per text and for the whole corpus as one
// string. It prints figures only; it stops if the builds' estimates differ,
// unless told with --weights-differ that they should (a refit of the
// weights, or new counts: then it says how far they differ and races on).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

import { ROOT } from "./weights.mjs";

const args = process.argv.slice(2);
let rounds = 61;
let weightsDiffer = false;
const positional = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else if (args[i] === "--weights-differ") weightsDiffer = true;
  else positional.push(args[i]);
}
if (positional.length < 2 || !Number.isInteger(rounds) || rounds < 1) {
  console.error("usage: node benches/ab.mjs <pkg dir A> <pkg dir B> [corpus.jsonl] [--rounds N] [--weights-differ]");
  process.exit(2);
}
const [dirA, dirB, corpusArg] = positional;
const corpusPath = corpusArg ? resolve(corpusArg) : join(ROOT, "..", "shared", "corpus", "tokens-dev.jsonl");
const require = createRequire(import.meta.url);
const A = require(resolve(dirA, "node", "compaction_core.js"));
const B = require(resolve(dirB, "node", "compaction_core.js"));
const texts = readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l).text);
const whole = texts.join("\n");
const OPTIONS = { estimator: "calibrated", tokenizer: "o200k" };
const WARMUP_ROUNDS = 3;

const shapes = [
  ["one call per text", (cc) => texts.reduce((s, t) => s + cc.estimateTextTokens(t, OPTIONS), 0)],
  ["the corpus as one string", (cc) => cc.estimateTextTokens(whole, OPTIONS)],
];
const median = (xs) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
const time = (f) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

console.log(`A: ${dirA}\nB: ${dirB}\ncorpus: ${texts.length} texts; ${rounds} paired rounds after ${WARMUP_ROUNDS} warm-up`);
for (const [name, run] of shapes) {
  if (run(A) !== run(B)) {
    if (!weightsDiffer) {
      console.error(`${name}: the builds' estimates differ`);
      process.exit(1);
    }
    console.log(`${name}: the estimates differ, as --weights-differ says (A ${run(A)}, B ${run(B)})`);
  }
  const ta = [];
  const tb = [];
  for (let r = 0; r < rounds + WARMUP_ROUNDS; r++) {
    // Which build goes first alternates, so neither always runs second.
    let a, b;
    if (r % 2) {
      a = time(() => run(A));
      b = time(() => run(B));
    } else {
      b = time(() => run(B));
      a = time(() => run(A));
    }
    if (r >= WARMUP_ROUNDS) {
      ta.push(a);
      tb.push(b);
    }
  }
  const ratio = median(ta.map((x, i) => x / tb[i]));
  console.log(`${name}: A ${median(ta).toFixed(2)} ms, B ${median(tb).toFixed(2)} ms, paired A ÷ B ${ratio.toFixed(3)}`);
}
