// The AI SDK adapter's own time per model call (issue 21), beside the AI
// SDK's own local time per step, at 10K, 100K and 1M tokens of history.
//
//   node benches/ai_sdk.mjs [--rounds N] [--warmup N] [--pkg DIR]
//
// (--pkg: another build of the package, say main's, to compare; default pkg/.)
//
// The history is a coding conversation (user turns, assistant answers,
// parallel tool calls and their results) of about N tokens. Measured:
// - sdk: generateText's local time for one step with ai@6's own in-process
//   MockLanguageModelV3 (no network, the model answers at once): what the
//   SDK itself spends per step converting and checking the prompt;
// - wrapper: the compactionMiddleware's time around one call
//   (transformParams + wrapGenerate, the model call itself excluded), with
//   the state in the default Map, on a prompt made anew for every call, as
//   the AI SDK makes it at every step (new objects and arrays, the same
//   strings; made untimed): (a) a conversation below auto (no compaction),
//   (b) after a compaction, the uncompacted prompt handed back (re-applied
//   by fingerprint), as a tool loop does at every step; (c) as (b), the
//   prompt parsed anew from JSON text at every call (new strings too: a
//   request of a `useChat` page landing on a server process that has seen
//   the conversation before).
// Each case runs --warmup untimed calls first. Figures only: a benchmark
// never passes or fails on time (target: at most 1 ms per call at 100K
// tokens, growth no worse than linear).
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { median } from "./timing.mjs";

const require = createRequire(import.meta.url);
const ai = require("../tests/node_modules/ai");
const { MockLanguageModelV3 } = require("../tests/node_modules/ai/dist/test/index.js");
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const flag = (name, fallback) => Number(option(name) ?? fallback);
const pkg = resolve(option("--pkg") ?? new URL("../pkg", import.meta.url).pathname);
const { compactionMiddleware } = await import(pathToFileURL(join(pkg, "ai-sdk", "index.mjs")).href);
const rounds = flag("--rounds", 21);
const warmup = flag("--warmup", 20);

/** A conversation of about `tokens` tokens (≈ 4 characters a token). */
function history(tokens) {
  const messages = [];
  let size = 0;
  for (let i = 0; size < tokens; i++) {
    const text = `Step ${i}: ${"refactor the parser so that it keeps spans; ".repeat(12)}`;
    messages.push({ role: "user", content: text });
    messages.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}a`, toolName: "read_file", input: { path: `src/a${i}.rs` } }, { type: "tool-call", toolCallId: `c${i}b`, toolName: "read_file", input: { path: `src/b${i}.rs` } }] });
    const output = (p) => ({ type: "tool-result", toolCallId: `c${i}${p}`, toolName: "read_file", output: { type: "text", value: `// src/${p}${i}.rs\n${"fn parse(input: &str) -> Span { todo!() }\n".repeat(20)}` } });
    messages.push({ role: "tool", content: [output("a"), output("b")] });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Done with step ${i}.` }] });
    size += (text.length + 2 * 860 + 120) / 4;
  }
  return messages;
}

/** The prompt as the AI SDK hands it to the model at every step: new objects and arrays, the same strings. */
function rebuild(value) {
  if (Array.isArray(value)) return value.map(rebuild);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const key of Object.keys(value)) out[key] = rebuild(value[key]);
  return out;
}
const reparse = (value) => JSON.parse(JSON.stringify(value));

const usage = (input) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } });
const answer = (input) => ({ content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: "stop" }, usage: usage(input), warnings: [] });
const model = { specificationVersion: "v3", provider: "mock", modelId: "mock-model", doGenerate: async () => answer(0), doStream: async () => ({}) };

/**
 * The wrapper's median time around one call over `rounds` calls, after
 * `warmup` untimed ones; `make(round)` gives each call's prompt (untimed).
 */
async function wrapperTime(middleware, make) {
  const times = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const params = { prompt: make(r) };
    const t0 = performance.now();
    const next = await middleware.transformParams({ type: "generate", params, model });
    const t1 = performance.now();
    // The provider's count of what was sent (≈ 4 characters a token), made untimed.
    const result = answer(Math.round(JSON.stringify(next.prompt).length / 4));
    const t2 = performance.now();
    await middleware.wrapGenerate({ doGenerate: async () => result, params: next });
    if (r >= warmup) times.push(t1 - t0 + performance.now() - t2);
  }
  return median(times);
}

console.log(`== ai_sdk: the wrapper's own time per model call, and the AI SDK's per step (median of ${rounds} after ${warmup} warm-up; ${pkg}; ${cpus()[0]?.model ?? "?"}, Node ${process.version})`);
console.log("history      sdk step   wrapper: (a) no compaction   (b) compaction re-applied   (c) (b), prompt parsed anew");
for (const tokens of [10_000, 100_000, 1_000_000]) {
  const messages = history(tokens);
  messages.push({ role: "user", content: "go on" });
  // The SDK's own time for one step, and the provider-level prompt it makes.
  let prompt;
  const mock = new MockLanguageModelV3({ doGenerate: async (params) => ((prompt = params.prompt), answer(tokens)) });
  const sdk = [];
  for (let r = 0; r < warmup + rounds; r++) {
    const t = performance.now();
    await ai.generateText({ model: mock, system: "You are a coding agent.", messages });
    if (r >= warmup) sdk.push(performance.now() - t);
  }
  // The conversation goes on: every call's prompt is the last one's and one more exchange.
  let extra = [];
  const growing = (copy) => () => {
    extra = [...extra, { role: "assistant", content: [{ type: "text", text: "ok" }] }, { role: "user", content: [{ type: "text", text: "next" }] }];
    return copy([...prompt, ...extra]);
  };
  // (a) A window larger than the history: nothing to compact.
  let runs = 0;
  const plain = compactionMiddleware({ window: tokens * 10, maxOutputTokens: 8_192, onCompaction: () => runs++ });
  const a = await wrapperTime(plain, growing(rebuild));
  if (runs > 0) throw new Error(`case (a) compacted ${runs} times: it would not time the ordinary call`);
  // (b), (c): a window the history is past auto in: the first call compacts
  // (summarizer answering at once), every later one re-applies it.
  const summarizer = async () => ({ text: "The user is refactoring the parser; spans are kept.", finishReason: "stop" });
  let compacted = 0;
  const compacting = compactionMiddleware({ window: Math.round(tokens * 0.8), maxOutputTokens: 2_048, summarizer, onCompaction: (r) => (compacted += r.statusName === "COMPRESSED" ? 1 : 0) });
  extra = [];
  const first = await compacting.transformParams({ type: "generate", params: { prompt: rebuild(prompt) }, model });
  await compacting.wrapGenerate({ doGenerate: async () => answer(Math.round(JSON.stringify(first.prompt).length / 4)), params: first });
  if (compacted === 0) throw new Error("case (b) did not compact");
  const b = await wrapperTime(compacting, growing(rebuild));
  const c = await wrapperTime(compacting, growing(reparse));
  if (compacted !== 1) throw new Error(`cases (b) and (c) compacted ${compacted - 1} more times while timed`);
  const ms = (x, width) => `${x.toFixed(2)} ms`.padStart(width);
  console.log(`${String(tokens).padStart(9)} ${ms(median(sdk), 11)} ${ms(a, 29)} ${ms(b, 27)} ${ms(c, 29)}`);
}
