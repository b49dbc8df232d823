// The ready summarizers (compaction-core/summarizers) with the real SDKs —
// openai, @anthropic-ai/sdk, @google/genai, and ai with @ai-sdk/openai —
// against a local mock of the providers' HTTP APIs (mock-providers.mjs)
// that validates every request like the real API and answers a bad one with
// a 400 (the message formats, docs/api.md). For each provider: a tool-using session in that
// provider's own message shape runs through beforeSend / reportUsage (the
// SDK's own usage object) and the ready summarizer until it has compacted
// twice; an abort cancels the HTTP request; the provider's truncation and
// filter stop reasons give OUTPUT_TRUNCATED and SUMMARIZER_FAILED.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";

import { cc } from "./helpers.mjs";
import { OUTPUT_LIMITS, startMock, toolOutput } from "./mock-providers.mjs";

const require = createRequire(import.meta.url);
const summarizers = require("../../pkg/summarizers/index.cjs");
const { openaiSummarizer, anthropicSummarizer, geminiSummarizer, aiSdkSummarizer } = summarizers;
const { ChatCompactor, CompressionStatus } = cc;

const WINDOW = 48_000; // auto = hard = 33 600: a session compacts every ~15 turns
const MAX_TURNS = 80;
const SYSTEM = "You are a careful coding agent. Use read_file before changing a file.";
const KEY = "test-key-not-a-secret";

let mock;
before(async () => {
  mock = await startMock();
});
after(async () => {
  await mock.close();
});

/** Each provider: its client, a chat in its format, its ready summarizer, and one agent step in its own message shape. */
const providers = {
  openai: {
    model: "gpt-4o",
    format: "openai",
    setup() {
      const client = new OpenAI({ apiKey: KEY, baseURL: `${mock.url}/openai/v1`, maxRetries: 0 });
      const tools = [{ type: "function", function: { name: "read_file", description: "Reads a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
      return {
        history: [{ role: "system", content: SYSTEM }],
        summarize: openaiSummarizer(client, { model: this.model }),
        user: (i) => ({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs.` }),
        async step(messages) {
          const r = await client.chat.completions.create({ model: "gpt-4o", messages, tools, max_completion_tokens: 1024 });
          const message = r.choices[0].message;
          const added = [message];
          for (const call of message.tool_calls ?? []) {
            if (call.type !== "function") continue;
            added.push({ role: "tool", tool_call_id: call.id, content: toolOutput(JSON.parse(call.function.arguments).path) });
          }
          return { added, usage: r.usage, more: (message.tool_calls ?? []).length > 0 };
        },
      };
    },
    truncated: "length",
    filtered: "content_filter",
    refused: "refusal",
  },
  anthropic: {
    model: "claude-3-5-haiku-20241022",
    format: "anthropic",
    setup() {
      const client = new Anthropic({ apiKey: KEY, baseURL: `${mock.url}/anthropic`, maxRetries: 0 });
      const tools = [{ name: "read_file", description: "Reads a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
      return {
        history: [],
        summarize: anthropicSummarizer(client, { model: this.model }),
        user: (i) => ({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs.` }),
        async step(messages) {
          const r = await client.messages.create({ model: "claude-3-5-haiku-20241022", system: SYSTEM, messages, tools, max_tokens: 1024 });
          const added = [{ role: "assistant", content: r.content }];
          const results = r.content.filter((b) => b.type === "tool_use").map((b) => ({ type: "tool_result", tool_use_id: b.id, content: toolOutput(b.input.path) }));
          if (results.length) added.push({ role: "user", content: results });
          return { added, usage: r.usage, more: results.length > 0 };
        },
      };
    },
    truncated: "max_tokens",
    filtered: "refusal",
  },
  gemini: {
    model: "gemini-2.5-flash",
    format: "gemini",
    setup() {
      const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: `${mock.url}/gemini` } });
      const tools = [{ functionDeclarations: [{ name: "read_file", description: "Reads a file", parametersJsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] }];
      return {
        history: [],
        // The chat's output limit is the model's 65 536; the summarizer's own cap lowers it.
        summarize: geminiSummarizer(ai, { model: this.model, maxOutputTokens: 8_192 }),
        user: (i) => ({ role: "user", parts: [{ text: `Step ${i}: refactor src/mod${i}.rs.` }] }),
        async step(contents) {
          const r = await ai.models.generateContent({ model: "gemini-2.5-flash", contents, config: { systemInstruction: SYSTEM, tools, maxOutputTokens: 1024 } });
          const content = r.candidates[0].content;
          const added = [content];
          const calls = r.functionCalls ?? [];
          if (calls.length) added.push({ role: "user", parts: calls.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: toolOutput(c.args.path) } } })) });
          return { added, usage: r.usageMetadata, more: calls.length > 0 };
        },
      };
    },
    truncated: "MAX_TOKENS",
    filtered: "SAFETY",
    refused: "blocked",
  },
  "ai-sdk": {
    model: "gpt-4o-mini",
    format: "ai-sdk",
    setup() {
      const provider = createOpenAI({ apiKey: KEY, baseURL: `${mock.url}/openai/v1` });
      const model = provider.chat("gpt-4o-mini");
      const tools = {
        read_file: tool({
          description: "Reads a file",
          inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
          execute: async ({ path }) => toolOutput(path),
        }),
      };
      return {
        history: [{ role: "system", content: SYSTEM }],
        summarize: aiSdkSummarizer(generateText, { model, params: { maxRetries: 0 } }),
        user: (i) => ({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs.` }),
        async step(messages) {
          // The AI SDK runs the tool loop itself: one call, every step's messages back.
          const r = await generateText({ model, messages, tools, stopWhen: stepCountIs(5), maxOutputTokens: 1024, maxRetries: 0, allowSystemInMessages: true });
          // ai 7: responseMessages (response.messages holds the last step's only); ai 6: response.messages.
          return { added: r.responseMessages ?? r.response.messages, usage: r.usage, more: false };
        },
      };
    },
    truncated: "length",
    filtered: "content_filter",
  },
};

/** Runs a session of `p` until it has compacted `times` times; returns what it saw. */
async function session(p, times) {
  const s = p.setup();
  const chat = new ChatCompactor({ format: p.format, model: p.model, window: WINDOW });
  let history = s.history;
  const results = [];
  // The library's requests, to compare with what went over the wire.
  const asked = [];
  const summarize = (request, context) => {
    asked.push(request);
    return s.summarize(request, context);
  };
  for (let i = 0; i < MAX_TURNS && results.filter((r) => r.status === CompressionStatus.COMPRESSED).length < times; i++) {
    const userMessage = s.user(i);
    const result = await chat.beforeSend(history, userMessage, summarize);
    assert.ok(
      result.status === CompressionStatus.COMPRESSED || result.status === CompressionStatus.NOOP,
      `turn ${i}: ${result.statusName} ${result.cause ? `(${result.cause.message})` : ""}`,
    );
    if (result.status === CompressionStatus.COMPRESSED) {
      results.push(result);
      history = result.history;
    } else {
      assert.equal(result.history, history, "a NOOP hands back the host's own array");
    }
    history = [...history, userMessage];
    for (let more = true; more; ) {
      const step = await s.step(history);
      const update = chat.reportUsage(step.usage);
      assert.ok(update.taken, `turn ${i}: the SDK's usage object is read (${JSON.stringify(step.usage)})`);
      assert.deepEqual(update.ignored, [], `turn ${i}: nothing in the SDK's usage is ignored`);
      history = [...history, ...step.added];
      more = step.more;
    }
  }
  return { chat, history, compactions: results, asked };
}

/** Three agent turns of `s` (tool calls included), without a chat: a history to compact by hand. */
async function shortHistory(s) {
  let history = s.history;
  for (let i = 0; i < 3; i++) {
    history = [...history, s.user(i)];
    for (let more = true; more; ) {
      const step = await s.step(history);
      history = [...history, ...step.added];
      more = step.more;
    }
  }
  return history;
}

for (const [name, p] of Object.entries(providers)) {
  test(`${name}: a tool-using session compacts twice through the ready summarizer, every request valid`, async () => {
    const before = mock.state.requests.length;
    const { compactions, chat, asked } = await session(p, 2);
    assert.equal(compactions.length, 2, `compacted twice within ${MAX_TURNS} turns`);
    assert.deepEqual(mock.state.rejected, [], "the mock rejected no request");
    const mine = mock.state.requests.slice(before);
    const summaries = mine.filter((r) => r.summary);
    assert.equal(summaries.length, compactions.reduce((n, r) => n + r.summaryCalls, 0), "one HTTP request per summary call");
    for (const c of compactions) {
      assert.equal(c.summary.includes("## Task status"), true, "the mock's summary is written into the history");
      assert.ok(c.newTokenCount < chat.thresholds.auto, "the compacted prompt is below auto");
    }
    assert.equal(asked.length, summaries.length);
    for (const [k, { body }] of summaries.entries()) {
      const cap = asked[k].config.maxOutputTokens;
      const text = JSON.stringify(body);
      // Tool calls and results reach the summarizer as text, never as the provider's tool calls.
      assert.ok(text.includes("[tool call") && text.includes("[tool result"), "tool calls and results rendered as text");
      assert.ok(!("tools" in body), "a summary request declares no tools");
      if (name === "openai") {
        assert.equal(body.max_completion_tokens, cap, "the request's cap");
        assert.ok(cap <= OUTPUT_LIMITS["gpt-4o"], "the cap is within gpt-4o's output limit");
        assert.ok(body.messages.every((m) => typeof m.content === "string" && !m.tool_calls && m.role !== "tool"));
      } else if (name === "anthropic") {
        assert.equal(body.max_tokens, cap, "the request's cap");
        assert.ok(cap <= OUTPUT_LIMITS["claude-3-5-haiku-20241022"], "the cap is within claude-3-5-haiku's output limit");
        assert.equal(body.thinking, undefined, "no thinking");
        assert.ok(body.messages.every((m) => typeof m.content === "string"));
      } else if (name === "gemini") {
        assert.equal(body.generationConfig.maxOutputTokens, Math.min(cap, 8_192), "capped at the summarizer's maxOutputTokens");
        assert.equal(body.generationConfig.thinkingConfig.thinkingBudget, 0, "no thinking");
        assert.ok(body.contents.every((c) => c.parts.every((part) => typeof part.text === "string" && Object.keys(part).length === 1)));
      } else {
        assert.equal(body.max_tokens ?? body.max_completion_tokens, cap, "the request's cap");
        assert.ok(body.messages.every((m) => typeof m.content === "string" || m.content.every((part) => part.type === "text")));
      }
    }
    chat.free();
  });

  test(`${name}: an abort cancels the summary's HTTP request`, async () => {
    const s = p.setup();
    const history = await shortHistory(s);
    const summarize = s.summarize;
    const chat = new ChatCompactor({ format: p.format, model: p.model, window: WINDOW });
    const abortedBefore = mock.state.aborted;
    mock.state.slow = true;
    try {
      const controller = new AbortController();
      const arrived = mock.slowRequestArrived();
      const run = chat.compact(history, summarize, { signal: controller.signal });
      // The summary request reaches the mock, or the run ends without it (a failure, not a hang).
      await Promise.race([arrived, run.then((r) => assert.fail(`the run ended before its summary request arrived: ${r.statusName} ${r.cause?.message ?? ""}`))]);
      controller.abort();
      const result = await run;
      assert.equal(result.status, CompressionStatus.ABORTED, `${result.statusName} ${result.cause?.message ?? ""}`);
      assert.equal(result.history, history);
      // The SDK closed the connection: the mock sees its request go away unanswered.
      for (let waited = 0; mock.state.aborted === abortedBefore && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      assert.equal(mock.state.aborted, abortedBefore + 1, "the HTTP request was cancelled");
    } finally {
      mock.state.slow = false;
    }
    assert.deepEqual(mock.state.rejected, []);
    chat.free();
  });

  test(`${name}: the provider's truncation and filter stop reasons reach the library`, async () => {
    const s = p.setup();
    const history = await shortHistory(s);
    const cases = [
      [p.truncated, CompressionStatus.OUTPUT_TRUNCATED],
      [p.filtered, CompressionStatus.SUMMARIZER_FAILED],
      ...(p.refused ? [[p.refused, CompressionStatus.SUMMARIZER_FAILED]] : []),
    ];
    // The AI SDK maps OpenAI's reasons to its own ("length", "content-filter") before the summarizer sees them.
    const providerKey = name === "ai-sdk" ? "openai" : name;
    try {
      for (const [reason, status] of cases) {
        mock.state.summaryFinish[providerKey] = reason;
        const chat = new ChatCompactor({ format: p.format, model: p.model, window: WINDOW });
        const result = await chat.compact(history, s.summarize);
        assert.equal(result.status, status, `${reason}: ${result.statusName} ${result.cause?.message ?? ""}`);
        assert.equal(result.history, history, `${reason}: the history is unchanged`);
        if (reason === "blocked") {
          // Blocked before any candidate: the summarizer rejects, its error is the cause.
          assert.match(result.cause.message, /blocked the summary request: PROHIBITED_CONTENT/);
        } else if (status === CompressionStatus.SUMMARIZER_FAILED) {
          assert.equal(result.cause.code, "INVALID_ANSWER", `${reason}: the answer is refused`);
          assert.match(result.cause.message, name === "ai-sdk" ? /content-filter/ : name === "openai" ? /content_filter/ : new RegExp(reason), `${reason}: the cause names the stop reason`);
        }
        chat.free();
      }
    } finally {
      delete mock.state.summaryFinish[providerKey];
    }
    assert.deepEqual(mock.state.rejected, []);
  });
}

test("the summarizers check their arguments", () => {
  assert.throws(() => openaiSummarizer(null, { model: "gpt-4o" }), /first argument must be an OpenAI client/);
  assert.throws(() => anthropicSummarizer({}, {}), /options.model is required/);
  assert.throws(() => geminiSummarizer({}, { model: "gemini-2.5-flash", maxOutputTokens: 0 }), /maxOutputTokens must be a number ≥ 1/);
  assert.throws(() => aiSdkSummarizer({}, { model: "m" }), /must be the AI SDK's generateText/);
});

test("the mock rejects what the real APIs reject (so a passing session means valid requests)", async () => {
  const openai = new OpenAI({ apiKey: KEY, baseURL: `${mock.url}/openai/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: KEY, baseURL: `${mock.url}/anthropic`, maxRetries: 0 });
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: `${mock.url}/gemini` } });
  const start = mock.state.rejected.length;
  const bad = [
    () => openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "call_x", content: "orphan" }] }),
    () => openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "model", parts: [{ text: "hi" }] }] }),
    () => openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 20_000 }),
    () => anthropic.messages.create({ model: "claude-3-5-haiku-20241022", max_tokens: 100, messages: [{ role: "user", content: "a" }, { role: "user", content: "b" }] }),
    () => anthropic.messages.create({ model: "claude-3-5-haiku-20241022", max_tokens: 100, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "orphan" }] }] }),
    () => anthropic.messages.create({ model: "claude-3-5-haiku-20241022", max_tokens: 8_193, messages: [{ role: "user", content: "a" }] }),
    () => ai.models.generateContent({ model: "gemini-2.5-flash", contents: [{ role: "user", parts: [{ functionResponse: { name: "read_file", response: {} } }] }] }),
    () => ai.models.generateContent({ model: "gemini-2.5-flash", contents: [{ role: "assistant", parts: [{ text: "hi" }] }] }),
  ];
  for (const [i, call] of bad.entries()) {
    await assert.rejects(call, (error) => error.status === 400 || /400/.test(String(error.message)), `bad request ${i} is a 400`);
  }
  assert.equal(mock.state.rejected.length - start, bad.length, "each one recorded");
  mock.state.rejected.splice(start);
});

// Issue 19, defect 9: a ready summarizer caps its output at the smaller of
// the request's budget and the model's own limit when the model is known,
// even on a chat that was given no `maxOutputTokens` (whose requests ask for
// 20 000): the mock refuses a cap above the model's limit, as the APIs do.
test("every ready summarizer caps at the model's own output limit when the model is known", async () => {
  const history = [];
  for (let i = 0; i < 20; i++) {
    history.push({ role: "user", parts: [{ text: `Step ${i}: refactor src/mod${i}.rs. ` + "detail ".repeat(400) }] });
    history.push({ role: "model", parts: [{ text: `Done with src/mod${i}.rs. ` + "notes ".repeat(400) }] });
  }
  const openai = new OpenAI({ apiKey: KEY, baseURL: `${mock.url}/openai/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: KEY, baseURL: `${mock.url}/anthropic`, maxRetries: 0 });
  const provider = createOpenAI({ apiKey: KEY, baseURL: `${mock.url}/openai/v1` });
  // The mock refuses a cap above the model's limit (gpt-4o-mini 16 384,
  // claude-3-5-haiku 8 192): COMPRESSED means the cap sent was within it.
  for (const [name, summarize] of [
    ["openaiSummarizer gpt-4o-mini", openaiSummarizer(openai, { model: "gpt-4o-mini" })],
    ["anthropicSummarizer claude-3-5-haiku", anthropicSummarizer(anthropic, { model: "claude-3-5-haiku-20241022" })],
    ["aiSdkSummarizer gpt-4o-mini (a model object)", aiSdkSummarizer(generateText, { model: provider.chat("gpt-4o-mini"), params: { maxRetries: 0 } })],
  ]) {
    const chat = new ChatCompactor({ window: 128_000 });
    let asked;
    const r = await chat.compact(history, (request, context) => { asked = request.config.maxOutputTokens; return summarize(request, context); });
    assert.equal(asked, 20_000, `${name}: the request's own budget`);
    assert.equal(r.statusName, "COMPRESSED", `${name}: ${r.statusName} ${r.cause?.message ?? ""}`);
    chat.free();
  }
});

test("modelOutputLimit agrees with the core's modelLimits for every family and its spellings", () => {
  const { modelOutputLimit } = summarizers;
  const ids = ["gpt-4o-mini", "GPT-4o-2024-08-06", "openai/gpt-4o-mini", "gpt-4o-2024-05-13", "claude-3.5-haiku", "anthropic/claude-sonnet-4-20250514",
    "us.anthropic.claude-3-5-sonnet-20240620-v1:0", "models/gemini-2.5-flash", "gemini-2.0-flash-001", "qwen3-coder-plus", "deepseek-chat",
    "llama-3.3-70b", "my-finetune", "gpt-4o-minis", "", "  o3-mini  ", "o3@high"];
  for (const id of ids) {
    const core = cc.modelLimits(id);
    assert.equal(modelOutputLimit(id), core.known ? core.maxOutputTokens : null, id);
  }
  assert.equal(modelOutputLimit({ modelId: "gpt-4o-mini" }), 16_384, "an AI SDK model object");
  assert.equal(modelOutputLimit(null), null);
  assert.equal(modelOutputLimit({ get modelId() { throw new Error("getter"); } }), null);
});
