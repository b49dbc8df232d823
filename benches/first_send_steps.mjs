// Where the first send of a resumed 1M-token session spends its time
// (size, docs/performance.md): the steps of `beforeSend` when the whole history is
// estimated, each timed through the built package without changing it.
//
//   node benches/first_send_steps.mjs [--rounds N] [--tokens N]
//
// The JS layer (src/wasm/js/api.js) stringifies the history, the
// wasm-bindgen glue copies that string into the wasm's memory as UTF-8,
// the core parses it (src/read.rs `parse_json`: the crate's own reader,
// src/json/, into a value tree), reads it into its
// content model (src/format/, `Format::read`), and estimates it (the part
// walk and the scan, src/estimate/). Each step is timed as the difference
// of two calls that stop at successive steps, in the same round (paired,
// so a change in machine load hits both alike):
//
//   stringify           JSON.stringify(history), as api.js does
//   copy into wasm      estimateTextTokens(JSON.stringify(history),
//                       { estimator: "bogus" }): the glue copies the string,
//                       the core rejects the options before reading it;
//                       minus stringify. A fresh string, as beforeSend's:
//                       V8 returns a long JSON.stringify result as a rope,
//                       which the glue's first read flattens (a copy of its
//                       own, several ms on 3 MB; a string already flat
//                       copies several times faster)
//   parse               estimateContentTokens([0, ...history]): stringify,
//                       copy, parse, then the reader stops at contents[0];
//                       minus the copy call
//   read                estimateContentTokens([...history, 0]): the reader
//                       reads every message, then stops at the last; minus
//                       the call above
//   estimate            estimateContentTokens(history): the whole
//                       estimate; minus the call above
//   the chat's own work beforeSend − estimateContentTokens (the new
//                       message read twice, the history array copied, the
//                       result object)
//
// Beside them, for scale: the scan alone in wasm over the same texts as
// one string (estimateTextTokens on the joined texts minus copying them),
// and V8's JSON.parse of the same JSON text. Figures are medians over the
// timed rounds, in ms; it prints figures and never passes or fails on a
// time.

import { createRequire } from "node:module";
import { cpus, loadavg, arch, platform } from "node:os";
import { join } from "node:path";

import { FORMATS, buildHistory, forEachText, loadSessions } from "./histories.mjs";
import { median } from "./timing.mjs";
import { ROOT } from "./weights.mjs";

const args = process.argv.slice(2);
let rounds = 21;
let target = 1_000_000;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else if (args[i] === "--tokens") target = Number(args[++i]);
  else {
    console.error(`first_send_steps: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(target) || target < 1) {
  console.error("first_send_steps: --rounds and --tokens need whole numbers >= 1");
  process.exit(2);
}
const WARMUP_ROUNDS = 2;
const WINDOW = 2_000_000;

const require = createRequire(import.meta.url);
const cc = require(join(ROOT, "pkg", "node", "compaction_core.js"));
const { ChatCompactor, estimateContentTokens, estimateTextTokens } = cc;

const sessions = loadSessions();
const history = buildHistory(sessions, target, (m) => estimateContentTokens([m], { estimator: "calibrated", tokenizer: "o200k" }));
const userMessage = FORMATS.gemini.userMessage;
// What ChatCompactor estimates with by default.
const OPTIONS = { estimator: "conservative", tokenizer: "universal" };
const BAD = { estimator: "bogus" };
const json = JSON.stringify(history);
const badFirst = [0, ...history];
const badLast = [...history, 0];
const parts = [];
forEachText(history, (t) => parts.push(t));
const texts = parts.join("\n");

/** Runs `f`, which must throw a CompactionError with `code` (the call stopped where it should). */
function stops(f, code) {
  return () => {
    try {
      f();
    } catch (e) {
      if (e.code === code) return 0;
      throw e;
    }
    throw new Error(`first_send_steps: expected ${code}`);
  };
}

const chat = new ChatCompactor({ window: WINDOW });
const summarize = async () => {
  throw new Error("first_send_steps: the first send must not compact");
};
let sink = 0;
const calls = {
  stringify: () => (sink += JSON.stringify(history).length),
  toCopy: stops(() => estimateTextTokens(JSON.stringify(history), BAD), "INVALID_ARGUMENT"),
  copyFlat: stops(() => estimateTextTokens(json, BAD), "INVALID_ARGUMENT"),
  toParse: stops(() => estimateContentTokens(badFirst, OPTIONS), "INVALID_CONTENT"),
  toRead: stops(() => estimateContentTokens(badLast, OPTIONS), "INVALID_CONTENT"),
  estimate: () => (sink += estimateContentTokens(history, OPTIONS)),
  beforeSend: async () => {
    const r = await chat.beforeSend(history, userMessage, summarize);
    if (r.statusName !== "NOOP" || chat.lastPromptTokenCount !== 0) throw new Error(`first_send_steps: ${r.statusName}`);
    sink += r.estimate;
  },
  scanTexts: () => (sink += estimateTextTokens(texts, OPTIONS)),
  copyTexts: stops(() => estimateTextTokens(texts, BAD), "INVALID_ARGUMENT"),
  jsonParse: () => (sink += JSON.parse(json).length),
};
const names = Object.keys(calls);
const times = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round) % names.length];
    const start = process.hrtime.bigint();
    await calls[name]();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (round >= WARMUP_ROUNDS) times[name].push(ms);
  }
}

/** Median over rounds of `plus − minus` (the rows paired within each round). */
const diff = (plus, ...minus) =>
  median(times[plus].map((t, r) => minus.reduce((s, m) => s - times[m][r], t)));
const total = median(times.beforeSend);
const steps = [
  ["JSON.stringify of the history (JS layer)", median(times.stringify)],
  ["copy of the JSON into wasm memory (glue; flattens it first)", diff("toCopy", "stringify")],
  ["parse: the crate's JSON reader into a value tree", diff("toParse", "toCopy")],
  ["read into the content model (format reader)", diff("toRead", "toParse")],
  ["estimate: part walk + scan", diff("estimate", "toRead")],
  ["the chat's own work (beforeSend − estimateContentTokens)", diff("beforeSend", "estimate")],
];

const cpu = cpus();
console.log("# Where the first send's time goes (benches/first_send_steps.mjs)\n");
console.log(`machine: node ${process.version}, ${platform()} ${arch()}, ${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} logical CPUs)`);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(
  `history: ${history.length} messages, ${estimateContentTokens(history, { estimator: "calibrated", tokenizer: "o200k" })} tokens (calibrated o200k), JSON ${json.length} UTF-16 units / ${Buffer.byteLength(json)} bytes`,
);
console.log(`rounds: ${WARMUP_ROUNDS} warm-up + ${rounds} timed, calls taking turns; each step the median of its paired differences\n`);
console.log(`${"step".padEnd(58)} ${"ms".padStart(7)} ${"share".padStart(7)}`);
for (const [name, ms] of steps) {
  console.log(`${name.padEnd(58)} ${ms.toFixed(1).padStart(7)} ${`${((100 * ms) / total).toFixed(0)}%`.padStart(7)}`);
}
const sum = steps.reduce((s, [, ms]) => s + ms, 0);
console.log(`${"sum of the steps".padEnd(58)} ${sum.toFixed(1).padStart(7)}`);
console.log(`${"beforeSend, first send (measured whole)".padEnd(58)} ${total.toFixed(1).padStart(7)}`);
console.log("\nFor scale, on the same run:");
console.log(
  `${`scan alone in wasm, the texts as one string (${texts.length} units)`.padEnd(58)} ${diff("scanTexts", "copyTexts").toFixed(1).padStart(7)}`,
);
console.log(`${"copy of those texts into wasm memory (a flat string)".padEnd(58)} ${median(times.copyTexts).toFixed(1).padStart(7)}`);
console.log(`${"copy of the history's JSON when already flat".padEnd(58)} ${median(times.copyFlat).toFixed(1).padStart(7)}`);
console.log(`${"V8 JSON.parse of the same JSON text".padEnd(58)} ${median(times.jsonParse).toFixed(1).padStart(7)}`);
if (sink === -1) console.log(sink); // keeps the results alive
console.log("These are measurements, not a test.");
