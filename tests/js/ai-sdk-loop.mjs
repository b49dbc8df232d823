// The coding-agent loop of issue 21, shared by the ai@6 test (tests/js,
// Node 20) and the ai@7 test (tests/ai-sdk7, Node 22 and 24): the real `ai`
// and `@ai-sdk/openai` the caller passes in, against the loopback mock that
// enforces a 32,000-token window (tests/js/mock-window.mjs). The app code is
// what a user writes: its model wrapped once, nothing else.
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startWindowMock } from "./mock-window.mjs";

/** About `tokens` o200k tokens of file text, distinct per `seed`. */
export function fileText(tokens, seed) {
  const words = [];
  for (let i = 0; i < tokens; i++) words.push(`w${(i * 7919 + seed * 104729) % 9973}`);
  return words.join(" ");
}

/**
 * The model's script: after a user message, two parallel `read_file` calls
 * (at turn `bigTurn`, one `read_big` call); after tool results, a short answer.
 */
export function agentScript({ bigTurn = 10 } = {}) {
  let turns = 0;
  return ({ body }) => {
    const last = body.messages.at(-1);
    if (last.role === "user" && Array.isArray(body.tools) && body.tools.length) {
      turns += 1;
      if (turns === bigTurn) return { toolCalls: [{ name: "read_big", arguments: JSON.stringify({ path: "dump.log" }) }] };
      return {
        toolCalls: [
          { name: "read_file", arguments: JSON.stringify({ path: `src/a${turns}.rs` }) },
          { name: "read_file", arguments: JSON.stringify({ path: `src/b${turns}.rs` }) },
        ],
      };
    }
    return { text: `Read them; the change is done (${body.messages.length} messages).` };
  };
}

/** The loop's tools, as the app declares them (`tool` and `jsonSchema` from the `ai` given). */
export function tools(ai) {
  const schema = ai.jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
  let reads = 0;
  return {
    read_file: ai.tool({
      description: "Reads a source file",
      inputSchema: schema,
      execute: async ({ path }) => `// ${path}\n${fileText(600, ++reads)}`,
    }),
    read_big: ai.tool({
      description: "Reads a large log file",
      inputSchema: schema,
      execute: async ({ path }) => `// ${path}\n${fileText(30_000, ++reads)}`,
    }),
  };
}

/** Starts the mock with the agent script; returns it and a provider pointed at it. */
export async function mockProvider(createOpenAI, script = agentScript()) {
  const mock = await startWindowMock({ window: 32_000, agent: script });
  const provider = createOpenAI({ baseURL: mock.baseURL, apiKey: "test-key" });
  return { mock, provider };
}

/**
 * Checks a run: no request refused (the mock also refused every malformed
 * one), at least `min` compactions, each started at or above `auto`, and no
 * more of them than the conversation's growth calls for: `messages` (the
 * app's whole conversation, uncompacted) grew by G tokens, and each
 * compaction leaves at most `maxNew`, so about G / (auto − maxNew) are due.
 */
export function checkRun(mock, compactions, messages, { min = 2, auto = 22_400 } = {}) {
  assert.deepEqual(mock.state.rejected, [], "no request refused (400)");
  const compressed = compactions.filter((r) => r.statusName === "COMPRESSED");
  assert.ok(compressed.length >= min, `at least ${min} compactions, got ${compressed.length}`);
  for (const r of compressed) {
    assert.ok(r.estimate >= auto, `a compaction started at ${r.estimate}, below auto`);
  }
  assert.ok(mock.state.maxPrompt < mock.state.window, "every prompt within the window");
  // Every summary request belongs to a run: re-applying a compaction never calls the summarizer.
  const summaries = mock.state.requests.filter((r) => r.summary).length;
  assert.equal(summaries, compactions.reduce((n, r) => n + r.summaryCalls, 0), "summary requests = the runs' summary calls");
  const growth = messages.reduce((n, m) => n + countTokens(JSON.stringify(m.content)), 0);
  const maxNew = Math.max(...compressed.map((r) => r.newTokenCount));
  const due = Math.ceil(growth / Math.max(1, auto - maxNew)) + 1;
  assert.ok(compressed.length <= due, `${compressed.length} compactions for ${growth} tokens of growth (at most ${due} due)`);
  return { compactions: compressed.length, due, growth, requests: mock.state.requests.length, maxPrompt: mock.state.maxPrompt };
}
