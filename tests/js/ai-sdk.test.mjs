// compaction-core/ai-sdk with the real ai@6 and @ai-sdk/openai@3 (issue 21),
// against the loopback mock that enforces a 32,000-token window and
// validates every request (tests/js/mock-window.mjs). ai@7 on Node 22 and 24:
// tests/ai-sdk7/.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { withCompaction, compactionMiddleware, compactionPrepareStep, contextUsageMetadata } from "../../pkg/ai-sdk/index.mjs";
import { agentScript, checkRun, mockProvider, tools } from "./ai-sdk-loop.mjs";

const TURNS = Number(process.env.AI_SDK_TURNS ?? 40);

test("generateText with tools and stopWhen: 40 turns at 32K, parallel calls, a 30K tool output, one wrap", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const model = withCompaction(provider.chat("gpt-4o-mini"), { window: 32_000, onCompaction: (r) => compactions.push(r) });
    assert.equal(model.specificationVersion, "v3");
    const messages = [];
    const toolSet = tools(ai);
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await ai.generateText({ model, system: "You are a coding agent.", messages, tools: toolSet, stopWhen: ai.stepCountIs(4) });
      messages.push(...result.response.messages);
    }
    const figures = checkRun(mock, compactions, messages);
    console.log(`generateText: ${JSON.stringify(figures)}`);
  } finally {
    await mock.close();
  }
});

test("streamText: usage from the finish part, compaction at every step", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const model = withCompaction(provider.chat("gpt-4o-mini"), { window: 32_000, onCompaction: (r) => compactions.push(r) });
    const messages = [];
    const toolSet = tools(ai);
    let indicator;
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = ai.streamText({ model, system: "You are a coding agent.", messages, tools: toolSet, stopWhen: ai.stepCountIs(4) });
      const meta = contextUsageMetadata();
      for await (const part of result.fullStream) {
        const m = meta({ part });
        if (m) indicator = m.context;
      }
      messages.push(...(await result.response).messages);
    }
    checkRun(mock, compactions, messages);
    assert.ok(indicator && indicator.maxTokens === 32_000 && indicator.usedTokens > 0, JSON.stringify(indicator));
  } finally {
    await mock.close();
  }
});

test("ToolLoopAgent and wrapLanguageModel with compactionMiddleware", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const model = ai.wrapLanguageModel({
      model: provider.chat("gpt-4o-mini"),
      middleware: compactionMiddleware({ window: 32_000, summarizer: provider.chat("gpt-4o-mini"), onCompaction: (r) => compactions.push(r) }),
    });
    const agent = new ai.ToolLoopAgent({ model, instructions: "You are a coding agent.", tools: tools(ai), stopWhen: ai.stepCountIs(4) });
    const messages = [];
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await agent.generate({ messages });
      messages.push(...result.response.messages);
    }
    checkRun(mock, compactions, messages);
  } finally {
    await mock.close();
  }
});

test("compactionPrepareStep: the same loop through prepareStep", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const toolSet = tools(ai);
    const prepareStep = compactionPrepareStep({ window: 32_000, system: "You are a coding agent.", tools: toolSet, onCompaction: (r) => compactions.push(r) });
    const model = provider.chat("gpt-4o-mini");
    const messages = [];
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await ai.generateText({
        model, system: "You are a coding agent.", messages, tools: toolSet, stopWhen: ai.stepCountIs(4),
        prepareStep, onStepFinish: prepareStep.onStepFinish,
      });
      messages.push(...result.response.messages);
    }
    checkRun(mock, compactions, messages);
  } finally {
    await mock.close();
  }
});

test("two conversations interleaved through one wrapped model stay apart", async () => {
  const script = agentScript({ bigTurn: 1_000 });
  const { mock, provider } = await mockProvider(createOpenAI, script);
  try {
    const compactions = [];
    const model = withCompaction(provider.chat("gpt-4o-mini"), { window: 32_000, onCompaction: (r) => compactions.push(r) });
    const toolSet = tools(ai);
    const chats = { alice: [], bob: [] };
    for (let turn = 0; turn < 16; turn++) {
      for (const who of ["alice", "bob"]) {
        chats[who].push({ role: "user", content: `${who} turn ${turn}: read the files.` });
        const result = await ai.generateText({ model, system: `Assistant of ${who}.`, messages: chats[who], tools: toolSet, stopWhen: ai.stepCountIs(4) });
        chats[who].push(...result.response.messages);
      }
    }
    assert.deepEqual(mock.state.rejected, []);
    for (const r of mock.state.requests) {
      const text = JSON.stringify(r.body.messages);
      const mine = r.summary ? (/alice turn/.test(text) ? "alice" : "bob") : /Assistant of alice/.test(text) ? "alice" : "bob";
      const other = mine === "alice" ? "bob" : "alice";
      assert.ok(!text.includes(`${other} turn`), `a ${mine} request holds ${other}'s messages`);
    }
    assert.ok(compactions.filter((r) => r.statusName === "COMPRESSED").length >= 2);
  } finally {
    await mock.close();
  }
});

test("a tsc --strict consumer with ai@6's own types", async () => {
  const { compileConsumer } = await import("./ai-sdk-types.mjs");
  const root = new URL("../..", import.meta.url).pathname;
  await compileConsumer({ root, modules: `${root}tests/node_modules`, v7: false });
});

/**
 * Two wrapped models sharing one store, as two processes of a server share
 * Redis: separate engines (no lock in common), the same conversation
 * checked by both at once, each compacting it through its own summarizer,
 * whose answers `release(…)` lets through in the order the case needs.
 */
function twoProcesses() {
  const store = new Map();
  const sent = { A: [], B: [] };
  const compactions = [];
  const gates = {};
  const summaryCalls = { A: 0, B: 0 };
  let arrived;
  const asked = new Set();
  const bothArrived = new Promise((r) => (arrived = r));
  const wrap = (name) => {
    const inner = {
      specificationVersion: "v3",
      provider: "mock",
      modelId: "mock-model",
      doGenerate: async (params) => {
        sent[name].push(params.prompt);
        return {
          content: [{ type: "text", text: "ok" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: Math.round(JSON.stringify(params.prompt).length / 4) }, outputTokens: { total: 2, text: 2 } },
          warnings: [],
        };
      },
      doStream: async () => assert.fail("not streamed"),
    };
    let open;
    gates[name] = new Promise((r) => (open = r));
    gates[name].open = () => open();
    const summarizer = async () => {
      summaryCalls[name] += 1;
      asked.add(name);
      if (asked.size === 2) arrived();
      await gates[name];
      return { text: `The summary written by ${name}: the user is refactoring the parser.`, finishReason: "stop" };
    };
    return withCompaction(inner, { window: 32_000, maxOutputTokens: 4_096, store, summarizer, onCompaction: (r) => compactions.push({ by: name, result: r }) });
  };
  // About 30,000 tokens of an uncompacted conversation: past auto (22,400) at once.
  const prompt = [{ role: "system", content: "You are a coding agent." }];
  for (let i = 0; i < 14; i++) {
    prompt.push({ role: "user", content: [{ type: "text", text: `Question ${i}: ${"explain the parser's spans once more; ".repeat(90)}` }] });
    prompt.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}: ${"the spans are kept by the lexer and the parser; ".repeat(70)}` }] });
  }
  prompt.push({ role: "user", content: [{ type: "text", text: "Now make the change." }] });
  const summaryOf = (messages) => /The summary written by (A|B)/.exec(JSON.stringify(messages))?.[1] ?? null;
  return { store, sent, compactions, gates, summaryCalls, bothArrived, wrap, prompt, summaryOf };
}

/** The checks both orders share: one result stands, and it alone was reported. */
function settledOnOne({ store, sent, compactions, summaryCalls, summaryOf }) {
  assert.ok(summaryCalls.A > 0 && summaryCalls.B > 0, "both compacted at once");
  const stored = [...store.values()].filter((e) => e && e.chat && e.chat.compaction);
  assert.equal(stored.length, 1, "one conversation in the store");
  const winner = summaryOf(stored[0].chat.compaction.head);
  assert.ok(winner, "the stored compaction is one of the two");
  assert.equal(summaryOf(sent.A[0]), winner, "A's call sent the stored compaction");
  assert.equal(summaryOf(sent.B[0]), winner, "B's call sent the stored compaction");
  assert.deepEqual(compactions.map((c) => c.by), [winner], "onCompaction was called once, for the result the store holds");
  assert.equal(summaryOf(compactions[0].result.history), winner);
  return winner;
}

test("two processes compacting one conversation at once settle on one result, and report only it", async () => {
  const run = twoProcesses();
  const A = run.wrap("A");
  const B = run.wrap("B");
  const calls = [A.doGenerate({ prompt: structuredClone(run.prompt) }), B.doGenerate({ prompt: structuredClone(run.prompt) })];
  await run.bothArrived;
  // Both summaries answer in the same turn of the event loop: both runs write at once.
  run.gates.A.open();
  run.gates.B.open();
  await Promise.all(calls);
  const winner = settledOnOne(run);
  // The next step, in either process, re-applies the stored result without a summary call.
  const next = [...structuredClone(run.prompt), { role: "assistant", content: [{ type: "text", text: "ok" }] }, { role: "user", content: [{ type: "text", text: "And the tests?" }] }];
  const before = { ...run.summaryCalls };
  await (winner === "A" ? B : A).doGenerate({ prompt: next });
  assert.deepEqual(run.summaryCalls, before, "no summary call: the stored result is re-applied");
  const last = (winner === "A" ? run.sent.B : run.sent.A).at(-1);
  assert.equal(run.summaryOf(last), winner);
  assert.equal(run.compactions.length, 1);
});

test("two processes: the one that writes second drops its own compaction for the stored one", async () => {
  const run = twoProcesses();
  const A = run.wrap("A");
  const B = run.wrap("B");
  const first = A.doGenerate({ prompt: structuredClone(run.prompt) });
  const second = B.doGenerate({ prompt: structuredClone(run.prompt) });
  await run.bothArrived;
  // A's run ends and is written first; B's summary comes after.
  run.gates.A.open();
  await first;
  run.gates.B.open();
  await second;
  assert.equal(settledOnOne(run), "A");
});

test("reportUsage(generateText's result) takes the last step's usage, not the steps' sum", async () => {
  // ai@6's result has `usage` as a getter (the last step's) that JSON leaves
  // out, and `totalUsage` (every step summed) as its own field; ai@7's
  // `usage` is the sum too. The prompt the next call extends is the last step's.
  const { MockLanguageModelV3 } = await import("ai/test");
  const { ChatCompactor } = await import("../../pkg/node/compaction_core.js");
  const usage = (input) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } });
  let calls = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () =>
      calls++ === 0
        ? { content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_file", input: '{"path":"a.rs"}' }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(1_000), warnings: [] }
        : { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage: usage(1_300), warnings: [] },
  });
  const result = await ai.generateText({ model, prompt: "read a.rs", tools: tools(ai), stopWhen: ai.stepCountIs(3) });
  assert.equal(result.steps.length, 2);
  assert.equal(result.totalUsage.inputTokens, 2_300);
  const chat = new ChatCompactor({ window: 32_000 });
  const update = chat.reportUsage(result);
  assert.equal(update.lastPromptTokenCount, 1_300 + 5);
  chat.free();
});
