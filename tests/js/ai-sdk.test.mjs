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
