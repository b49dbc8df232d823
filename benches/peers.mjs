// How close npm tokenx (a vocabulary-free estimator) and our estimators come
// to the real token counts of the corpus: mean |error| and median of
// estimate ÷ actual, per tokenizer, the way `scripts/fidelity` computes them.
//
//   node benches/peers.mjs [corpus.jsonl]
//
// (scripts/bench runs it after building pkg/.) Ours go through the built
// package (pkg/node), as a host would call them. Our figures here are
// IN-SAMPLE when the corpus is the dev corpus the weights were fitted on;
// the figures to quote for ours are the cross-validated ones of
// `scripts/fidelity --cv 5`. tokenx was not fitted on this corpus.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { median } from "./timing.mjs";
import { ROOT } from "./weights.mjs";

const corpusPath = resolve(process.argv[2] ?? join(ROOT, "tests", "corpus", "tokens-dev.jsonl"));
const require = createRequire(import.meta.url);
const cc = require(join(ROOT, "pkg", "node", "compaction_core.js"));
const tools = createRequire(join(ROOT, "tests", "package.json"));
const { estimateTokenCount } = await import(pathToFileURL(tools.resolve("tokenx")).href);
const tokenxVersion = JSON.parse(
  readFileSync(join(tools.resolve("tokenx"), "..", "..", "package.json"), "utf8"),
).version;

const TOKENIZERS = ["o200k", "cl100k", "claude", "qwen"];
const samples = readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

// Each row: a name and the estimate of a sample for a tokenizer.
const rows = [
  { name: `tokenx ${tokenxVersion} estimateTokenCount`, short: "tokenx", estimate: (s) => estimateTokenCount(s.text) },
  {
    name: "ours, calibrated, universal weights",
    short: "ours univ.",
    estimate: (s) => cc.estimateTextTokens(s.text, { estimator: "calibrated", tokenizer: "universal" }),
  },
  {
    name: "ours, calibrated, the tokenizer's own weights",
    short: "ours own",
    estimate: (s, tok) => cc.estimateTextTokens(s.text, { estimator: "calibrated", tokenizer: tok }),
  },
  { name: "spec rule (reference: characters ÷ 4)", short: "spec rule", estimate: (s) => cc.estimateTextTokens(s.text) },
];

/** Ratios estimate ÷ actual, by tokenizer, for samples passing `keep`. */
function ratios(row, tok, keep = () => true) {
  return samples.filter(keep).filter((s) => s.tokens[tok] > 0).map((s) => row.estimate(s, tok) / s.tokens[tok]);
}
const meanAbsError = (rs) => rs.reduce((a, r) => a + Math.abs(r - 1), 0) / Math.max(rs.length, 1);
const pct = (x) => `${(100 * x).toFixed(1)}%`;

console.log("# Accuracy against real counts (benches/peers.mjs)\n");
console.log(`corpus: ${relative(process.cwd(), corpusPath) || corpusPath}, ${samples.length} samples`);
console.log("ours: IN-SAMPLE on the corpus the weights were fitted on; quote scripts/fidelity --cv 5 for ours\n");
console.log("## Mean |error| (median estimate ÷ actual), all samples\n");
console.log(`${"estimator".padEnd(48)} ${TOKENIZERS.map((t) => t.padStart(16)).join(" ")}`);
for (const row of rows) {
  const cells = TOKENIZERS.map((tok) => {
    const rs = ratios(row, tok);
    return `${pct(meanAbsError(rs))} (${median(rs).toFixed(3)})`.padStart(16);
  });
  console.log(`${row.name.padEnd(48)} ${cells.join(" ")}`);
}

const categories = [...new Set(samples.map((s) => s.category))];
console.log("\n## Mean |error| by category, against o200k\n");
console.log(`${"category".padEnd(14)} ${rows.map((r) => r.short.padStart(10)).join(" ")}`);
for (const cat of categories) {
  const cells = rows.map((row) => pct(meanAbsError(ratios(row, "o200k", (s) => s.category === cat))).padStart(10));
  console.log(`${cat.padEnd(14)} ${cells.join(" ")}`);
}
