// How fast the calibrated estimator counts, in one Node process on the same
// text (the estimator's speed target, docs/performance.md): the wasm `estimateTextTokens` against a plain-JavaScript
// port of the same single-pass scan (./scan.mjs), against an exact o200k
// count by npm gpt-tokenizer, and against npm tokenx's estimate.
//
//   node benches/estimator_speed.mjs [corpus.jsonl] [--rounds N]
//
// (scripts/bench runs it after building pkg/.) The corpus defaults to
// tests/corpus/tokens-dev.jsonl (the repository's copy). Two shapes of
// work: one call per corpus text, and the whole corpus as one string.
// Candidates take turns within each round (so a change in machine load hits
// them alike), after warm-up rounds; the figure is the median round.
// Throughput is in MB of UTF-8 (10^6 bytes); µs/KB is per 1,000 bytes.
//
// It prints figures and never passes or fails on a time. It does stop if
// the JavaScript port and the wasm disagree on an estimate: then the two
// would not be scanning the same classes.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, arch, platform } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { estimateTextTokens as portEstimate } from "./scan.mjs";
import { race } from "./timing.mjs";
import { ROOT, rustTable } from "./weights.mjs";

const args = process.argv.slice(2);
let rounds = 11;
let corpusPath = join(ROOT, "tests", "corpus", "tokens-dev.jsonl");
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else corpusPath = resolve(args[i]);
}
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error("estimator_speed: --rounds needs a whole number >= 1");
  process.exit(2);
}
const WARMUP_ROUNDS = 2;

const require = createRequire(import.meta.url);
const cc = require(join(ROOT, "pkg", "node", "compaction_core.js"));
const tools = createRequire(join(ROOT, "tests", "package.json"));
const gpt = tools("gpt-tokenizer/encoding/o200k_base");
const { estimateTokenCount } = await import(pathToFileURL(tools.resolve("tokenx")).href);
const gptVersion = tools("gpt-tokenizer/package.json").version;
const tokenxVersion = JSON.parse(
  readFileSync(join(tools.resolve("tokenx"), "..", "..", "package.json"), "utf8"),
).version;

const texts = readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l).text);
const whole = texts.join("\n");
const bytes = Buffer.byteLength(whole, "utf8");

const weights = rustTable().families.o200k;
const OPTIONS = { estimator: "calibrated", tokenizer: "o200k" };

// The port must give the wasm's estimate on every text, or the race is void.
let differ = 0;
for (const t of [...texts, whole]) {
  for (const variant of ["calibrated", "conservative"]) {
    const wasm = cc.estimateTextTokens(t, { estimator: variant, tokenizer: "o200k" });
    if (wasm !== portEstimate(t, weights, variant)) differ++;
  }
}
if (differ > 0) {
  console.error(`estimator_speed: the JS port and the wasm differ on ${differ} estimates; fix benches/scan.mjs`);
  process.exit(1);
}

const candidates = [
  { name: "wasm estimateTextTokens (calibrated, o200k)", count: (t) => cc.estimateTextTokens(t, OPTIONS) },
  { name: "JS port of the same scan + weights", count: (t) => portEstimate(t, weights, "calibrated") },
  { name: `gpt-tokenizer ${gptVersion} countTokens (o200k, exact)`, count: (t) => gpt.countTokens(t) },
  {
    name: `  the same, merge cache cleared each round`,
    count: (t) => gpt.countTokens(t),
    before: () => gpt.clearMergeCache(),
  },
  { name: `tokenx ${tokenxVersion} estimateTokenCount`, count: (t) => estimateTokenCount(t) },
];

/** Median milliseconds of one pass over `inputs`, per candidate. */
async function passes(inputs) {
  const results = await race(candidates, rounds, WARMUP_ROUNDS, (c) => {
    let total = 0;
    for (const t of inputs) total += c.count(t);
    return total;
  });
  return results.map((r) => ({ ms: r.ms, tokens: r.total }));
}

async function report(title, inputs) {
  const results = await passes(inputs);
  console.log(`## ${title}\n`);
  console.log(`${"estimator".padEnd(52)} ${"ms/pass".padStart(9)} ${"MB/s".padStart(8)} ${"µs/KB".padStart(8)} ${"tokens".padStart(9)}`);
  results.forEach((r, i) => {
    const mbps = bytes / 1e6 / (r.ms / 1e3);
    console.log(
      `${candidates[i].name.padEnd(52)} ${r.ms.toFixed(1).padStart(9)} ${mbps.toFixed(1).padStart(8)} ${(1000 / mbps).toFixed(1).padStart(8)} ${String(r.tokens).padStart(9)}`,
    );
  });
  const [wasm, js, exact, exactCold] = results.map((r) => r.ms);
  console.log(
    `\nwasm ÷ JS scan: ${(js / wasm).toFixed(2)}×   wasm ÷ exact: ${(exact / wasm).toFixed(1)}× (merge cache warm), ${(exactCold / wasm).toFixed(1)}× (cleared)\n`,
  );
}

const cpu = cpus();
console.log("# Token estimator speed (benches/estimator_speed.mjs)\n");
console.log(`machine: node ${process.version}, ${platform()} ${arch()}, ${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} logical CPUs)`);
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(
  `corpus: ${relative(process.cwd(), corpusPath) || corpusPath}, ${texts.length} texts, ${(bytes / 1e6).toFixed(2)} MB UTF-8, ${whole.length} UTF-16 units`,
);
console.log(`rounds: ${WARMUP_ROUNDS} warm-up + ${rounds} timed, candidates taking turns; figures are the median round`);
console.log(`check: the JS port gives the wasm's estimate on all ${texts.length + 1} texts (calibrated and conservative o200k)\n`);

await report(`One call per text (${texts.length} calls a pass)`, texts);
await report("The whole corpus as one string (1 call a pass)", [whole]);

console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("The targets: wasm ≥ 2× the JS scan and ≥ 50× the exact count (docs/performance.md); these are measurements, not a test.");
