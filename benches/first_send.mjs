// The first send of a resumed 1M-token agent session (size, docs/performance.md): no usage
// reported yet, so `beforeSend` estimates the whole history — against, in
// the same run and on the same history, what a host could do instead:
//
// - the spec's rule in plain JS (docs/spec.md §2): text
//   parts their `length` ÷ 4, function calls and responses the length of
//   their JSON text ÷ 2, images and documents 1 600 each, summed over the
//   history and the new message and rounded up once;
// - the plain-JS port of our scan (./scan.mjs, the conservative `universal`
//   weights that ChatCompactor uses by default) over the texts the
//   estimator reads (text parts, call names and arguments as JSON,
//   response outputs: ./histories.mjs `forEachText`);
// - npm tokenx and npm gpt-tokenizer (exact o200k) over the same texts.
//
//   node benches/first_send.mjs [--rounds N] [--tokens N]
//
// Also `estimatePromptTokens(history, userMessage, 0, { estimator:
// "conservative" })` (the same boundary without a chat), and `beforeSend`
// on the same conversation in the other formats. Candidates take turns
// within each round, after warm-up rounds; each figure is the median round,
// in ms. Every peer's time includes walking the history to its texts.
// It prints figures and never passes or fails on a time; it stops if the
// plain-JS spec rule and the library's `reference` estimator disagree (then
// the rule here would not be the spec's), or if the send compacts.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, arch, platform } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { FORMATS, buildHistory, forEachText, loadSessions } from "./histories.mjs";
import { race } from "./timing.mjs";
import { tokensOfCounts, scan } from "./scan.mjs";
import { ROOT, rustTable } from "./weights.mjs";

const args = process.argv.slice(2);
let rounds = 11;
let target = 1_000_000;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else if (args[i] === "--tokens") target = Number(args[++i]);
  else {
    console.error(`first_send: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(target) || target < 1) {
  console.error("first_send: --rounds and --tokens need whole numbers >= 1");
  process.exit(2);
}
const WARMUP_ROUNDS = 2;
// A 2M-token window: the 1M-token first send is then below `auto` and does
// not compact, so what is timed is the estimate alone.
const WINDOW = 2_000_000;

const require = createRequire(import.meta.url);
const cc = require(join(ROOT, "pkg", "node", "compaction_core.js"));
const { ChatCompactor, estimateContentTokens, estimatePromptTokens } = cc;
const tools = createRequire(join(ROOT, "tests", "package.json"));
const gpt = tools("gpt-tokenizer/encoding/o200k_base");
const { estimateTokenCount } = await import(pathToFileURL(tools.resolve("tokenx")).href);
const gptVersion = tools("gpt-tokenizer/package.json").version;
const tokenxVersion = JSON.parse(readFileSync(join(tools.resolve("tokenx"), "..", "..", "package.json"), "utf8")).version;
const weights = rustTable().families.universal;

const sessions = loadSessions();
const history = buildHistory(sessions, target, (m) => estimateContentTokens([m], { estimator: "calibrated", tokenizer: "o200k" }));
const userMessage = FORMATS.gemini.userMessage;

/** The spec's rule, as docs/spec.md §2 writes it, in plain JS. */
function specRule(history, userMessage) {
  let total = 0;
  const add = (m) => {
    for (const p of m.parts) {
      if (typeof p.text === "string") total += p.text.length / 4;
      else if (p.functionCall) total += JSON.stringify(p.functionCall).length / 2;
      else if (p.functionResponse) total += JSON.stringify(p.functionResponse).length / 2;
      else if (p.inlineData || p.fileData) total += 1600;
      else total += JSON.stringify(p).length / 4;
    }
  };
  for (const m of history) add(m);
  add(userMessage);
  return Math.ceil(total);
}

/** Sums `count` over the texts of the history and the new message. */
function overTexts(count) {
  let total = 0;
  const each = (t) => {
    total += count(t);
  };
  forEachText(history, each);
  forEachText([userMessage], each);
  return total;
}

const reference = estimatePromptTokens(history, userMessage, 0);
if (specRule(history, userMessage) !== reference) {
  console.error(`first_send: the plain-JS spec rule gives ${specRule(history, userMessage)}, the library's reference estimator ${reference}; fix specRule`);
  process.exit(1);
}

const summarize = async () => {
  throw new Error("first_send: the first send of this session must not compact");
};
/** A first send in `format`: a chat with no usage, whose every call estimates the whole history. */
function firstSend(format) {
  const spec = FORMATS[format];
  const h = spec.convert(history);
  const chat = new ChatCompactor({ window: WINDOW, format });
  return {
    history: h,
    chat,
    send: async () => {
      const r = await chat.beforeSend(h, spec.userMessage, summarize);
      // Still a first send afterwards: nothing reported, nothing compacted.
      if (r.statusName !== "NOOP" || chat.lastPromptTokenCount !== 0) {
        throw new Error(`first_send: ${format}: ${r.statusName}, lastPromptTokenCount ${chat.lastPromptTokenCount}`);
      }
      return r.estimate;
    },
  };
}
const sends = Object.fromEntries(Object.keys(FORMATS).map((f) => [f, firstSend(f)]));

const candidates = [
  { name: "beforeSend, first send (no usage yet)", count: sends.gemini.send, key: "ours" },
  {
    name: "estimatePromptTokens(…, 0, conservative)",
    count: () => estimatePromptTokens(history, userMessage, 0, { estimator: "conservative" }),
  },
  { name: "spec rule in plain JS", count: () => specRule(history, userMessage), key: "spec" },
  {
    name: "JS port of our scan (conservative universal)",
    count: () => Math.ceil(overTexts((t) => tokensOfCounts(scan(t), weights, "conservative"))),
    reads: true,
  },
  { name: `tokenx ${tokenxVersion} estimateTokenCount`, count: () => overTexts(estimateTokenCount), reads: true },
  { name: `gpt-tokenizer ${gptVersion} countTokens (o200k)`, count: () => overTexts(gpt.countTokens), reads: true },
  {
    name: "  the same, merge cache cleared each round",
    count: () => overTexts(gpt.countTokens),
    before: () => gpt.clearMergeCache(),
    reads: true,
  },
  ...["openai", "anthropic", "ai-sdk"].map((f) => ({ name: `beforeSend, first send, format ${f}`, count: sends[f].send })),
];

const results = await race(candidates, rounds, WARMUP_ROUNDS, (c) => c.count());
const ms = results.map((r) => r.ms);
const totals = results.map((r) => r.total);

const json = JSON.stringify(history);
let textChars = 0;
forEachText(history, (t) => (textChars += t.length));
const cpu = cpus();
console.log("# The first send of a resumed agent session (benches/first_send.mjs)\n");
console.log(`machine: node ${process.version}, ${platform()} ${arch()}, ${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} logical CPUs)`);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(
  `history: ${history.length} messages of tests/corpus/histories-dev.jsonl sessions, ${estimateContentTokens(history, { estimator: "calibrated", tokenizer: "o200k" })} tokens (calibrated o200k), JSON ${json.length} UTF-16 units / ${Buffer.byteLength(json)} bytes, texts ${textChars} units`,
);
console.log(`ChatCompactor({ window: ${WINDOW} }), no usage reported: \`await beforeSend(history, userMessage, summarize)\` estimates it all (conservative universal)`);
console.log(`check: the plain-JS spec rule gives the library's reference estimate (${reference} tokens)`);
console.log(`rounds: ${WARMUP_ROUNDS} warm-up + ${rounds} timed, candidates taking turns; figures are the median round\n`);
console.log(`${"candidate".padEnd(48)} ${"ms".padStart(8)} ${"÷ ours".padStart(8)} ${"tokens".padStart(9)}`);
const ours = ms[candidates.findIndex((c) => c.key === "ours")];
candidates.forEach((c, i) => {
  console.log(`${c.name.padEnd(48)} ${ms[i].toFixed(1).padStart(8)} ${(ms[i] / ours).toFixed(2).padStart(8)} ${String(totals[i]).padStart(9)}`);
});
const spec = ms[candidates.findIndex((c) => c.key === "spec")];
const readers = candidates.map((c, i) => (c.reads ? ms[i] : Infinity));
const fastest = Math.min(...readers);
console.log(
  `\nfirst send ÷ spec rule in plain JS: ${(ours / spec).toFixed(2)}× (target ≤ 3×); fastest peer that reads the text ÷ first send: ${(fastest / ours).toFixed(2)}× (target > 1×: ${candidates[readers.indexOf(fastest)].name.trim()})`,
);
console.log("These are measurements, not a test.");
