// What the module's linear memory grows to (docs/performance.md: the allocator): a
// fresh instance of the web build takes a resumed agent session's first
// send (no usage: the whole history estimated), then nine more sends of the
// growing history, in each format; then a compaction of the whole history
// through a summarizer that answers at once. It prints the memory after
// each step, in MiB. Wasm memory never shrinks, so the figure is the peak.
//
//   node benches/memory.mjs [--pkg DIR] [--tokens N]
//
// `--pkg` measures another build's pkg/ (to compare allocators). It prints
// figures and never passes or fails on them.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { FORMATS, buildHistory, loadSessions } from "./histories.mjs";
import { ROOT } from "./weights.mjs";

const args = process.argv.slice(2);
let pkg = join(ROOT, "pkg");
let target = 1_000_000;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--pkg") pkg = resolve(args[++i]);
  else if (args[i] === "--tokens") target = Number(args[++i]);
  else {
    console.error(`memory: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (!Number.isInteger(target) || target < 1) {
  console.error("memory: --tokens needs a whole number >= 1");
  process.exit(2);
}

const wasmBytes = readFileSync(join(pkg, "web", "compaction_core_bg.wasm"));
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** A fresh instance: the module is imported anew for each (a query string). */
async function instance(tag) {
  const url = `${pathToFileURL(join(pkg, "web", "compaction_core.js")).href}?${tag}`;
  const cc = await import(url);
  const exports = cc.initSync({ module: wasmBytes });
  return { cc, memory: exports.memory };
}

const sessions = loadSessions();
// The token count the first send sees is the calibrated estimate of the
// current build; any build estimates the same history here.
const { cc: sizing } = await instance("sizing");
const history = buildHistory(sessions, target, (m) =>
  sizing.estimateContentTokens([m], { estimator: "calibrated", tokenizer: "o200k" }),
);

console.log("# The module's memory (benches/memory.mjs)\n");
console.log(`build: ${pkg}/web (${wasmBytes.length} bytes of wasm)`);
console.log(`history: ${history.length} messages, about ${target} tokens, resumed with no usage\n`);
console.log(`${"format".padEnd(10)} ${"at start".padStart(9)} ${"1st send".padStart(9)} ${"10 sends".padStart(9)} ${"compacted".padStart(10)}   (MiB)`);

for (const format of Object.keys(FORMATS)) {
  const spec = FORMATS[format];
  const { cc, memory } = await instance(format);
  const start = memory.buffer.byteLength;
  const h = spec.convert(history);
  const chat = new cc.ChatCompactor({ window: 2 * target, format });
  const never = async () => {
    throw new Error("memory: a send below auto must not compact");
  };
  let r = await chat.beforeSend(h, spec.userMessage, never);
  const first = memory.buffer.byteLength;
  for (let i = 0; i < 9; i++) {
    r.history.push(spec.userMessage);
    r = await chat.beforeSend(r.history, spec.userMessage, never);
  }
  const ten = memory.buffer.byteLength;
  const done = await chat.compact(r.history, async () => ({ text: "## Summary\nThe session so far." }));
  if (done.statusName !== "COMPRESSED") {
    console.error(`memory: ${format}: the compaction ended ${done.statusName}`);
    process.exit(1);
  }
  const compacted = memory.buffer.byteLength;
  chat.free();
  console.log(`${format.padEnd(10)} ${mib(start).padStart(9)} ${mib(first).padStart(9)} ${mib(ten).padStart(9)} ${mib(compacted).padStart(10)}`);
}
console.log("\nThese are measurements, not a test.");
