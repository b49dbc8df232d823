// compaction-core/ai-sdk with the real ai@7 and @ai-sdk/openai@4
// (LanguageModelV4), run with Node 22 and Node 24 from this folder's own
// install, against the loopback mock that enforces a 32,000-token window and
// validates every request (../js/mock-window.mjs). What differs from ai@6,
// checked here on the installed package: the model is "v4" and the wrapper
// keeps it; `instructions` replaces `system`; `result.response.messages` is
// the last step only (`responseMessages` holds them all) and `result.usage`
// is the sum of all steps; prepareStep's messages carry forward (re-applying
// is then a no-op).
import assert from "node:assert/strict";
import { test } from "node:test";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { withCompaction, compactionMiddleware, compactionPrepareStep } from "../../pkg/ai-sdk/index.mjs";
import { checkRun, mockProvider, tools } from "../js/ai-sdk-loop.mjs";

const TURNS = Number(process.env.AI_SDK_TURNS ?? 40);
const stop = ai.isStepCount ?? ai.stepCountIs;

test(`ai@7 on Node ${process.versions.node}: generateText, 40 turns at 32K, parallel calls, a 30K tool output, one wrap`, async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const model = withCompaction(provider.chat("gpt-4o-mini"), { window: 32_000, onCompaction: (r) => compactions.push(r) });
    assert.equal(model.specificationVersion, "v4");
    const messages = [];
    const toolSet = tools(ai);
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await ai.generateText({ model, instructions: "You are a coding agent.", messages, tools: toolSet, stopWhen: stop(4) });
      if (result.steps.length > 1) assert.ok(result.response.messages.length < result.responseMessages.length, "ai@7: response.messages is the last step only");
      messages.push(...result.responseMessages);
    }
    console.log(`ai@7 generateText: ${JSON.stringify(checkRun(mock, compactions, messages))}`);
  } finally {
    await mock.close();
  }
});

test("ai@7: streamText and ToolLoopAgent through compactionMiddleware", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const model = ai.wrapLanguageModel({
      model: provider.chat("gpt-4o-mini"),
      middleware: compactionMiddleware({ specificationVersion: "v4", window: 32_000, onCompaction: (r) => compactions.push(r) }),
    });
    const agent = new ai.ToolLoopAgent({ model, instructions: "You are a coding agent.", tools: tools(ai), stopWhen: stop(4) });
    const messages = [];
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      if (turn % 2 === 0) {
        const result = await agent.generate({ messages });
        messages.push(...result.responseMessages);
      } else {
        const result = ai.streamText({ model, instructions: "You are a coding agent.", messages, tools: tools(ai), stopWhen: stop(4) });
        for await (const _ of result.fullStream);
        messages.push(...(await result.responseMessages));
      }
    }
    checkRun(mock, compactions, messages);
  } finally {
    await mock.close();
  }
});

test("ai@7: compactionPrepareStep, whose returned messages carry forward", async () => {
  const { mock, provider } = await mockProvider(createOpenAI);
  try {
    const compactions = [];
    const toolSet = tools(ai);
    const prepareStep = compactionPrepareStep({ window: 32_000, system: "You are a coding agent.", tools: toolSet, onCompaction: (r) => compactions.push(r) });
    const messages = [];
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await ai.generateText({
        model: provider.chat("gpt-4o-mini"), instructions: "You are a coding agent.", messages, tools: toolSet, stopWhen: stop(4),
        prepareStep, onStepFinish: prepareStep.onStepFinish,
      });
      messages.push(...result.responseMessages);
    }
    checkRun(mock, compactions, messages);
  } finally {
    await mock.close();
  }
});

test("a tsc --strict consumer with ai@7's own types", async () => {
  const { compileConsumer } = await import("../js/ai-sdk-types.mjs");
  const root = new URL("../..", import.meta.url).pathname;
  await compileConsumer({ root, modules: `${root}tests/ai-sdk7/node_modules`, v7: true });
});
