// Every object the package hands a host, held to the type its .d.ts declares
// (issue 20: "a strict consumer of save()/restore() compiles for every
// message format"; the declarations are written by hand, so nothing else
// ties them to what the core writes).
//
// The test runs the built package, collects real values — save() of chats
// of every format and option, the results of every status, usage updates,
// thresholds, reports, tips, settings, limits, the summary requests a
// callback receives — and writes each into a TypeScript file as an object
// literal assigned to its declared type:
//
//     const v3: SavedState = { "version": 1, … };
//
// `tsc --strict --noEmit` then checks each literal against the declaration:
// a key the core writes and the type does not declare is an excess-property
// error, a declared required key the core leaves out or a value of another
// type an assignment error. So a field added on one side only fails here.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { cc } from "./helpers.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const tsc = join(here, "..", "node_modules", ".bin", "tsc");

const { ChatCompactor, CompressionStatus } = cc;

/** Each format's turn (a user message, a tool call, its result, an answer) and its message type (`object`: the library declares only Gemini's `Content`; the others are the SDKs'). */
const histories = {
  gemini: {
    type: "Content",
    turn: (i, size) => [
      { role: "user", parts: [{ text: `question ${i} ${"x ".repeat(size)}` }] },
      { role: "model", parts: [{ functionCall: { id: `c${i}`, name: "read_file", args: { path: `src/f${i}.rs` } } }] },
      { role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "read_file", response: { output: "y ".repeat(size) } } }] },
      { role: "model", parts: [{ text: `answer ${i}` }] },
    ],
    user: (t) => ({ role: "user", parts: [{ text: t }] }),
  },
  openai: {
    type: "object",
    turn: (i, size) => [
      { role: "user", content: `question ${i} ${"x ".repeat(size)}` },
      { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${i}.rs` }) } }] },
      { role: "tool", tool_call_id: `c${i}`, content: "y ".repeat(size) },
      { role: "assistant", content: `answer ${i}` },
    ],
    user: (t) => ({ role: "user", content: t }),
  },
  anthropic: {
    type: "object",
    turn: (i, size) => [
      { role: "user", content: `question ${i} ${"x ".repeat(size)}` },
      { role: "assistant", content: [{ type: "tool_use", id: `c${i}`, name: "read_file", input: { path: `src/f${i}.rs` } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: `c${i}`, content: "y ".repeat(size) }] },
      { role: "assistant", content: `answer ${i}` },
    ],
    user: (t) => ({ role: "user", content: t }),
  },
  "ai-sdk": {
    type: "object",
    turn: (i, size) => [
      { role: "user", content: `question ${i} ${"x ".repeat(size)}` },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read_file", input: { path: `src/f${i}.rs` } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read_file", output: { type: "text", value: "y ".repeat(size) } }] },
      { role: "assistant", content: `answer ${i}` },
    ],
    user: (t) => ({ role: "user", content: t }),
  },
};

const SUMMARY = "## Task status\n- going on\n## Files\n- src/f0.rs\n## Next steps\n- more";

test("every object the package returns matches its declared TypeScript type (tsc --strict, excess properties included)", async () => {
  const values = []; // [type expression, value]
  const add = (type, value) => values.push([type, value]);

  add("Thresholds", cc.computeThresholds(200_000));
  add("Thresholds", cc.computeThresholds(10_000));
  add("ContextReport", cc.contextReport(150_000, 200_000));
  add("LadderConstants", cc.ladderConstants());
  add("ModelLimits", cc.modelLimits("gpt-4o"));
  add("ModelLimits", cc.modelLimits("no-such-model"));
  add("LoadedSettings", cc.loadSettings({ chatCompression: { contextPercentageThreshold: 0.5, imageTokenEstimate: 900 } }));
  for (const tokens of [150_000, 170_000, 180_000]) {
    const tip = cc.selectTip({ lastPromptTokenCount: tokens, contextWindowSize: 200_000, thresholds: cc.computeThresholds(200_000) });
    if (tip !== undefined) add("Tip", tip);
  }

  for (const [format, h] of Object.entries(histories)) {
    const M = h.type;
    const options = [
      { window: 32_000, format },
      { window: 32_000, format, model: "gpt-4o", estimator: "conservative", tokenizer: "o200k", excludeMessages: 3, clearToolOutputs: true, systemPrompt: "s", extraInstructions: "e", ledger: { enabled: true, commandTools: ["run_shell"], userWordsBudget: 500 } },
    ];
    for (const o of options) {
      const chat = new ChatCompactor(o);
      add("SavedState", chat.save());
      add("UsageUpdate", chat.reportUsage({ prompt_tokens: 25_000, completion_tokens: 10, total_tokens: 25_010 }));
      add("ContextReport", chat.usage());
      const history = Array.from({ length: 12 }, (_, i) => h.turn(i, 400)).flat();
      const requests = [];
      const ok = await chat.beforeSend(history, h.user("next"), (request) => {
        requests.push(request);
        return { text: SUMMARY, finishReason: "stop", usage: { prompt_tokens: 9_000, completion_tokens: 100, total_tokens: 9_100 } };
      });
      assert.equal(ok.status, CompressionStatus.COMPRESSED, `${format}: the run must compress (got ${ok.statusName})`);
      add(`CompactionResult<${M}>`, ok);
      for (const r of requests) add("SummaryRequest", r);
      add("SavedState", chat.save());
      const restored = ChatCompactor.restore(chat.save());
      add("SavedState", restored.save());
      restored.free();
      // A failed run, a NOOP, a truncated summary, a manual run.
      chat.reportUsage({ prompt_tokens: 25_000, completion_tokens: 10, total_tokens: 25_010 });
      const failed = await chat.beforeSend(history, h.user("next"), () => {
        throw new Error("down");
      });
      // `cause` is the callback's own Error (declared `unknown`): a literal cannot carry it.
      add(`CompactionResult<${M}>`, { ...failed, cause: "down" });
      add(`CompactionResult<${M}>`, await chat.beforeSend([], h.user("hi"), () => SUMMARY));
      add(`CompactionResult<${M}>`, await chat.compact(history, () => ({ text: "cut", finishReason: "length" })));
      add(`CompactionResult<${M}>`, await chat.compact(history, () => SUMMARY, { focus: "files" }));
      chat.free();
    }
  }

  const consumer = mkdtempSync(join(tmpdir(), "cc-shapes-"));
  try {
    const dts = join(root, "pkg", "node", "compaction_core.js").replace(/\.js$/, "");
    const lines = [
      `import type * as CC from ${JSON.stringify(dts)};`,
      ...[...new Set(values.map(([t]) => t.replace(/<.*>/, "")))].map((t) => `type ${t}${t === "CompactionResult" ? "<M extends object>" : ""} = CC.${t}${t === "CompactionResult" ? "<M>" : ""};`),
      "type Content = CC.Content;",
      ...values.map(([type, value], i) => `export const v${i}: ${type} = ${JSON.stringify(value, (k, v) => (v === undefined ? null : v), 1)};`),
      // restore() gives the chat the message type it is assigned to (a strict consumer of every format compiles).
      "declare const C: typeof CC.ChatCompactor;",
      `declare const saved: CC.SavedState;`,
      "export const gemini: CC.ChatCompactor = C.restore(saved);",
      "export const openai: CC.ChatCompactor<{ role: string; content: string | null }> = C.restore(saved);",
      "export const anthropic: CC.ChatCompactor<{ role: \"user\" | \"assistant\"; content: string | object[] }> = C.restore(saved);",
    ];
    writeFileSync(join(consumer, "values.ts"), lines.join("\n"));
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "esnext.disposable", "dom"], skipLibCheck: false }, files: ["values.ts"] }),
    );
    try {
      execFileSync(tsc, ["-p", "tsconfig.json"], { cwd: consumer, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      assert.fail(`the package's values do not match their declared types:\n${error.stdout}${error.stderr}`);
    }
    assert.ok(values.length > 40, `${values.length} values checked`);
  } finally {
    rmSync(consumer, { recursive: true, force: true });
  }
});
