// The per-turn check against history length (size, docs/performance.md): what a user pays on
// every ordinary turn. A ChatCompactor whose provider has reported usage,
// a real agent history grown to about 10K, 100K and 1M tokens
// (./histories.mjs), and the ordinary `beforeSend(history, userMessage,
// summarize)` that does not compact: with a reported count the check needs
// only the new message, so its cost must not grow with the history.
//
//   node benches/per_turn.mjs [--rounds N]
//
// Every format the library reads is timed (gemini, openai, anthropic,
// ai-sdk), each on the same conversation in its own shape, against the
// floor a host could write without the library: the spec's per-turn rule
// in plain JS (the reported count plus the new message's length ÷ 4).
// Cases take turns within each round, after warm-up rounds; a sample is
// the mean of a batch of calls, the figure the median sample (and the 90th
// percentile). It prints figures and never passes or fails on a time; it
// stops if a call compacts or reads the history, since then it would not
// be timing the ordinary turn.

import { createRequire } from "node:module";
import { cpus, loadavg, arch, platform } from "node:os";
import { join } from "node:path";

import { FORMATS, USER_TEXT, buildHistory, loadSessions } from "./histories.mjs";
import { median, quantile } from "./timing.mjs";
import { ROOT } from "./weights.mjs";

const args = process.argv.slice(2);
let rounds = 11;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else {
    console.error(`per_turn: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error("per_turn: --rounds needs a whole number >= 1");
  process.exit(2);
}
const WARMUP_ROUNDS = 2;
const BATCHES = 20; // samples per case per round
const CALLS = 50; // calls per sample
const LENGTHS = [10_000, 100_000, 1_000_000];
// A 2M-token window (Gemini 1.5 Pro's): a 1M-token history is then an
// ordinary turn far below `auto`, as it must be to time the turn that does
// not compact.
const WINDOW = 2_000_000;

const require = createRequire(import.meta.url);
const cc = require(join(ROOT, "pkg", "node", "compaction_core.js"));
const { ChatCompactor, estimateContentTokens } = cc;

const COUNT = { estimator: "calibrated", tokenizer: "o200k" };
const sessions = loadSessions();
const tokensOf = (m) => estimateContentTokens([m], COUNT);
const gemini = LENGTHS.map((n) => buildHistory(sessions, n, tokensOf));

const summarize = async () => {
  throw new Error("per_turn: an ordinary turn must not summarize");
};

const cases = [];
for (const [format, spec] of Object.entries(FORMATS)) {
  for (const [k, base] of gemini.entries()) {
    const history = spec.convert(base);
    const tokens = estimateContentTokens(history, { ...COUNT, format });
    const chat = new ChatCompactor({ window: WINDOW, format });
    chat.reportUsage(spec.usage(tokens));
    const last = chat.lastPromptTokenCount;
    const r = await chat.beforeSend(history, spec.userMessage, summarize);
    // An ordinary turn: no compaction, the estimate from the count alone.
    if (r.statusName !== "NOOP" || r.noopReason !== "belowAuto" || r.estimate - last > 100 || chat.lastPromptTokenCount !== last) {
      console.error(`per_turn: ${format} ${LENGTHS[k]}: not an ordinary turn: ${r.statusName} ${r.noopReason} estimate ${r.estimate} (count ${last})`);
      process.exit(1);
    }
    const call = () => chat.beforeSend(history, spec.userMessage, summarize);
    cases.push({ name: `${format}`, length: LENGTHS[k], tokens, messages: history.length, run: call, async: true, samples: [] });
  }
}
// The floor: the spec's per-turn estimate in plain JS, with the count known.
{
  const last = 1_000_000;
  let sink = 0;
  const spec = (m) => last + Math.ceil(m.parts.reduce((s, p) => s + (p.text?.length ?? 0), 0) / 4);
  cases.push({
    name: "spec rule in plain JS (count + message ÷ 4)",
    length: null,
    tokens: null,
    messages: null,
    run: () => {
      sink += spec(FORMATS.gemini.userMessage);
    },
    async: false,
    samples: [],
    sink: () => sink,
  });
}

for (let round = 0; round < WARMUP_ROUNDS + rounds; round++) {
  for (let k = 0; k < cases.length; k++) {
    const c = cases[(k + round) % cases.length];
    for (let b = 0; b < BATCHES; b++) {
      const start = process.hrtime.bigint();
      if (c.async) for (let i = 0; i < CALLS; i++) await c.run();
      else for (let i = 0; i < CALLS; i++) c.run();
      const us = Number(process.hrtime.bigint() - start) / 1e3 / CALLS;
      if (round >= WARMUP_ROUNDS) c.samples.push(us);
    }
  }
}

const cpu = cpus();
console.log("# The per-turn check against history length (benches/per_turn.mjs)\n");
console.log(`machine: node ${process.version}, ${platform()} ${arch()}, ${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} logical CPUs)`);
console.log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(
  `ChatCompactor({ window: ${WINDOW} }) with usage reported, then \`await beforeSend(history, userMessage, summarize)\` (no compaction);`,
);
console.log(`histories: the agent sessions of tests/corpus/histories-dev.jsonl concatenated; tokens = calibrated o200k estimate of the history`);
console.log(`user message: ${USER_TEXT.length} characters of text`);
console.log(
  `rounds: ${WARMUP_ROUNDS} warm-up + ${rounds} timed, cases taking turns; ${BATCHES} samples of ${CALLS} calls per case and round; µs per call, median sample (p90)\n`,
);
console.log(`${"format".padEnd(46)} ${"tokens".padStart(9)} ${"messages".padStart(9)} ${"µs/call".padStart(9)} ${"p90".padStart(8)}`);
const byFormat = new Map();
for (const c of cases) {
  const med = median(c.samples);
  const p90 = quantile(c.samples, 0.9);
  if (c.length !== null) {
    if (!byFormat.has(c.name)) byFormat.set(c.name, []);
    byFormat.get(c.name).push(med);
  }
  console.log(
    `${c.name.padEnd(46)} ${c.tokens === null ? "—".padStart(9) : String(c.tokens).padStart(9)} ${c.messages === null ? "—".padStart(9) : String(c.messages).padStart(9)} ${med.toFixed(2).padStart(9)} ${p90.toFixed(2).padStart(8)}`,
  );
}
console.log();
for (const [format, meds] of byFormat) {
  console.log(`${format}: 1M ÷ 10K = ${(meds[meds.length - 1] / meds[0]).toFixed(2)}×   (10K ${meds[0].toFixed(1)} µs, 100K ${meds[1].toFixed(1)} µs, 1M ${meds[2].toFixed(1)} µs)`);
}
console.log("\nThe target: this stays flat from 10K to 1M tokens (12–18 µs on a quiet machine; docs/performance.md); these are measurements, not a test.");
